/* symbolizer/unwind_internal.h: the unwinder's state, shared by symbolizer/unwind.c (libdwfl's
 * unwinder, sessions) and unwind_fast.c (the decoded-rules walk); internal to symbolizer/. */
#ifndef T2F_UNWIND_INTERNAL_H
#define T2F_UNWIND_INTERNAL_H

#include <elfutils/libdwfl.h>

#include "symbolizer/unwind.h"
#include "symbolizer/unwind_rules.h"

#define UW_MAP_CACHE 4          /* mappings of a process a walk remembers */
/* A failed read at most this far below the sampled sp is of a slot an epilogue already popped
 * (libdwfl goes on without that register); any other is past the end of the copy (the unwind
 * ends: a copy that wraps past 2^64 ends there too). */
#define UW_BELOW_SP 4096

static inline bool uw_below_sp(uint64_t addr, uint64_t sp)
{
	return addr < sp && sp - addr <= UW_BELOW_SP;
}

struct uw_regs {                /* a frame's registers, DWARF-numbered */
	uint64_t val[T2F_UNWIND_NREGS];
	uint64_t have;          /* bit n: val[n] is known */
};

struct uw_mod {                 /* a reported module (its Dwfl_Module's userdata) */
	struct t2f_unwinder *u;
	const void *file;
	uint64_t bias;
	struct uw_mod *next;
};

struct uw_session {
	int64_t pid;
	Dwfl *dwfl;             /* NULL: a free slot */
	bool attached;
	bool fresh;             /* made for the sample being unwound: nothing in it is stale */
	uint64_t used;
	struct uw_mod *mods;
};

struct t2f_unwinder {
	struct t2f_unwind_ops ops;
	struct uw_session s[T2F_UNWIND_SESSIONS];
	uint64_t clock;
	/* the sample being unwound */
	struct uw_session *cur;
	const struct t2f_unwind_regs *regs;
	const uint8_t *stack;
	size_t len;
	uint64_t *ips;
	size_t max, n;
	int sp_reg;
	bool mem_fail, stale, looped, capped, nomem, no_cfi, zero, bad_rule;
	bool after_signal;      /* the frame was unwound from a signal frame's rules */
	enum t2f_unwind_stop last_miss; /* the last frame's module: END when reported */
	uint64_t last_pc, last_sp;
	bool have_last_sp;
	struct uw_regs last_regs;       /* the last frame's, as libdwfl's unwinder had them */
	/* the decoded-rules walk */
	struct uw_rules *rules;
	struct uw_checks *checks;
	struct t2f_unwind_map maps[UW_MAP_CACHE]; /* ops.map's answers for process maps_pid,
						   * kept until t2f_unwinder__maps_changed */
	unsigned n_maps;
	int64_t maps_pid;
};

/* unwind.c */
/* pid's session, a new one in a free slot or the least recently used. NULL: out of memory. */
struct uw_session *uw_session(struct t2f_unwinder *u, int64_t pid);
void uw_session_end(struct uw_session *s);
/* Reports the module of pc in s unless it is there: 1 when pc's module is in the session, 0
 * when it cannot be (u->last_miss says why), -1 when the session holds another file or bias
 * there, or a module where nothing is mapped now (stale), -ENOMEM. */
int uw_report(struct t2f_unwinder *u, struct uw_session *s, uint64_t pc);

/* unwind_fast.c */
/* The 8 bytes at addr of the sample's stack copy; false outside it. */
bool uw_read(const struct t2f_unwinder *u, uint64_t addr, uint64_t *v);
/* The call-frame rules at addr of the module reported in pid's session (.eh_frame, then the
 * debug file's .debug_frame, as libdwfl looks), malloc'd, and the bias of the table they came
 * from; NULL when none (*refused: because the table is not usable, uw_cfi_usable). *err:
 * -ENOMEM, or 1 when the session is stale there and may not be renewed (inside its own
 * unwind). */
Dwarf_Frame *uw_dwarf_frame(struct t2f_unwinder *u, int64_t pid, uint64_t addr, bool renew,
			    Dwarf_Addr *bias, bool *refused, int *err);
/* The rule at addr (kept, or decoded now through pid's session, which is made again when stale
 * if renew); NULL when no module file is mapped there, or the session is stale and may not be
 * renewed. Valid until the next call. *err: -ENOMEM. */
const struct uw_rule *uw_rule_at(struct t2f_unwinder *u, int64_t pid, uint64_t addr, bool renew,
				 int *err);
/* The sample set up by unwind.c (u->regs, stack, ips, max) walked through the decoded rules:
 * 1 and *res when every frame's rule was simple (the stop is the end, the frame limit or a
 * loop), 0 when libdwfl's unwinder must take the sample (nothing written then), -ENOMEM. */
int uw_fast(struct t2f_unwinder *u, int64_t pid, struct t2f_unwind_result *res);

/* unwind_check.c: the verdicts on each file's call-frame tables */
struct uw_checks;
int uw_checks__new(struct uw_checks **out); /* 0 or -ENOMEM */
void uw_checks__free(struct uw_checks *c);  /* NULL is fine */
/* Whether libdw may decode frames of mod's .eh_frame (or, when debug, of its DWARF's
 * .debug_frame): 1, 0 (refused: a rule of a register past 4095, rows remembered deeper than 64,
 * a search table entry that is no FDE of the table, an encoding not read), or -ENOMEM. Checked
 * once per file (its identity for the caller, file). */
int uw_cfi_usable(struct uw_checks *c, const void *file, Dwfl_Module *mod, bool debug);
/* 1 when neither mod's binary nor its debug file (u->ops.debug_file) has a section libdw takes
 * .debug_frame from, so that libdwfl's dwfl_module_dwarf_cfi can only give none: the caller
 * then need not have libdwfl open the module's DWARF (dwarf_begin_elf inflates every
 * compressed debug section, in each session). 0 when one may have it, -ENOMEM. Looked for
 * once per file. */
int uw_debug_frame_none(struct t2f_unwinder *u, const void *file, Dwfl_Module *mod);

/* unwind_eval.c */
enum uw_ra {
	UW_RA_UNDEFINED,        /* the rules say the frame has no caller */
	UW_RA_VALUE,            /* the caller's pc (0: none either) */
	UW_RA_FAILED,           /* the rules could not be applied */
};

/* The return address the rules of frame (bias: its table's) give for the caller of the frame
 * whose registers are regs, in the sample set up (its stack copy), worked out as libdwfl's
 * unwinder works it out (elfutils' libdwfl/frame_unwind.c handle_cfi and expr_eval, which
 * libdwfl 0.188 does not export): the same operations, the same limits, the same failures.
 * Rules marked unsafe (unwind_rules.h) are not evaluated. */
enum uw_ra uw_eval_ra(const struct t2f_unwinder *u, Dwarf_Frame *frame, Dwarf_Addr bias,
		      const struct uw_regs *regs, uint64_t *ra);

#endif
