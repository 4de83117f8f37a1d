/* symbolizer/unwind.h: a user stack from a sample's registers and its copy of the stack
 * (perf record --call-graph dwarf), unwound through each module's call-frame information by
 * elfutils' unwinder (libdwfl: .eh_frame through .eh_frame_hdr in the binary, .debug_frame in
 * its debug file, and the architecture's fallback where a module has neither).
 *
 * The caller says what is mapped where (t2f_unwind_ops.map): for an address, the mapping that
 * holds it, the local ELF file verified for it and the load bias. Each process gets one libdwfl
 * session, kept across its samples (modules are reported on first use and their unwind tables
 * parsed once per session); a session whose mapping no longer matches what the caller says
 * (exec, dlopen over an old range) is dropped and rebuilt. At most T2F_UNWIND_SESSIONS are kept,
 * the least recently used dropped first.
 *
 * Memory: only the stack copy is read: a read outside it ends the unwind there (the frames found
 * so far are kept). Frames: the sample's pc first, then each caller's return address - 1 (the
 * call instruction; what perf script prints), at most `max`; a frame there of pc 0 ends the
 * unwind as the outermost. A frame whose pc and stack pointer equal its callee's ends the
 * unwind (a loop).
 *
 * t2f_unwinder__walk gives the same frames without libdwfl's per-frame work where the rules are
 * simple (nearly every sample): each address's rules are decoded once.
 *
 * Ownership: the unwinder owns its sessions, and the files they opened; it borrows the ops' ctx.
 * Errors: -ENOMEM; everything else is a stop reason. Not thread safe: one unwinder per thread
 * (unwinders share nothing).
 */
#ifndef T2F_UNWIND_H
#define T2F_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define T2F_UNWIND_SESSIONS 64

enum t2f_unwind_arch {
	T2F_UNWIND_ARCH_NONE = 0,
	T2F_UNWIND_X86_64,
	T2F_UNWIND_AARCH64,
};

/* "x86_64", "aarch64", "arm64" (uname -m); NULL: the host's; else NONE. */
enum t2f_unwind_arch t2f_unwind_arch_of(const char *uname_m);

#define T2F_UNWIND_NREGS 33     /* DWARF registers kept: x86_64 0..16, aarch64 0..31 and pc */

struct t2f_unwind_regs {        /* DWARF-numbered registers of the sample's first frame */
	enum t2f_unwind_arch arch;
	uint64_t pc, sp;
	uint64_t val[T2F_UNWIND_NREGS];
	uint64_t have;          /* bit n: val[n] is known */
};

/* perf's sample registers (PERF_SAMPLE_REGS_USER: the values of mask's bits, lowest first) as
 * DWARF registers of arch. false when the instruction or stack pointer is missing, or the ABI
 * is not the 64-bit one (abi: PERF_SAMPLE_REGS_ABI_*). */
bool t2f_unwind_regs_from_perf(enum t2f_unwind_arch arch, uint64_t abi, uint64_t mask,
			       const uint64_t *regs, uint32_t nr, struct t2f_unwind_regs *out);

struct t2f_unwind_map {         /* what the caller says of an address */
	uint64_t start, end;    /* the mapping holding it */
	const void *file;       /* the file's identity (same pointer = same file), or NULL when no
				 * local file was found for the mapping */
	const char *path;       /* the local ELF file (with .eh_frame) */
	uint64_t bias;          /* process address = ELF vaddr + bias */
	uint64_t entry;         /* the file's entry point (e_entry; 0: none), ELF vaddr */
};

struct t2f_unwind_ops {
	/* The mapping holding addr in the process being unwound: false when none. */
	bool (*map)(void *ctx, uint64_t addr, struct t2f_unwind_map *out);
	/* The local debug file of `file` (for .debug_frame), or NULL, the same every time it is
	 * asked: only when the binary's own tables do not cover an address, once per file (to
	 * see whether it has .debug_frame at all) and at most once per session and file. */
	const char *(*debug_file)(void *ctx, const void *file);
	void *ctx;
};

enum t2f_unwind_stop {
	T2F_UNWIND_END = 0,     /* the outermost frame was reached (the CFI says so, a return
				 * address of 0, or the entry point's code, which has no caller
				 * and often no CFI) */
	T2F_UNWIND_CAP,         /* max frames */
	T2F_UNWIND_NO_MAP,      /* the last frame's pc is in no mapping */
	T2F_UNWIND_NO_FILE,     /* ... in a mapping whose file was not found (or is not ELF) */
	T2F_UNWIND_NO_CFI,      /* ... in a module with no rule for it (nor a fallback that held) */
	T2F_UNWIND_BAD_RULE,    /* ... whose rules could not be applied (an operation libdwfl does
				 * not evaluate, a register it needs unknown, a rule that would
				 * crash libdwfl) */
	T2F_UNWIND_MEMORY,      /* a read outside the copied stack */
	T2F_UNWIND_LOOP,        /* a caller with its callee's pc and stack pointer */
	T2F_UNWIND_NO_REGS,     /* no usable registers or stack (nothing unwound) */
	T2F_UNWIND_STOPS
};

const char *t2f_unwind_stop_name(enum t2f_unwind_stop why);

struct t2f_unwind_result {
	size_t n;                  /* frames written */
	enum t2f_unwind_stop why;
	uint64_t stop_pc;          /* the last frame's pc (whose caller was not found) */
	bool rules;                /* walked through the decoded rules alone (no libdwfl) */
};

struct t2f_unwinder;

/* 0 or -ENOMEM. */
int t2f_unwinder__new(const struct t2f_unwind_ops *ops, struct t2f_unwinder **out);
void t2f_unwinder__free(struct t2f_unwinder *u); /* NULL is fine */

/* What ops.map answers may have changed (a mapping added or dropped since the last sample): the
 * answers kept for the samples of a process are forgotten. Until then, the samples of a process
 * after the first reuse what ops.map said of its mappings (a few of them). */
void t2f_unwinder__maps_changed(struct t2f_unwinder *u);

/* Unwinds one sample of thread tid of process pid with libdwfl's unwinder: regs
 * (t2f_unwind_regs_from_perf) and the stack copy stack[0..len) starting at regs->sp. Frames into
 * ips[0..max), result in *res. 0 or -ENOMEM. */
int t2f_unwinder__unwind(struct t2f_unwinder *u, int64_t pid, int64_t tid,
			 const struct t2f_unwind_regs *regs, const uint8_t *stack, size_t len,
			 uint64_t *ips, size_t max, struct t2f_unwind_result *res);

/* The same sample walked through the call-frame rules libdw decoded for each address, kept
 * across samples (unwind_fast.c): 1 and the frames libdwfl's unwinder would give, when every
 * frame's rules are of the forms compilers emit at call sites; 0 (nothing written) when the
 * sample needs t2f_unwinder__unwind (another form, a signal frame, no rule or module for an
 * address, the return address outside the copy); -ENOMEM. Many times faster per frame. */
int t2f_unwinder__walk(struct t2f_unwinder *u, int64_t pid, const struct t2f_unwind_regs *regs,
		       const uint8_t *stack, size_t len, uint64_t *ips, size_t max,
		       struct t2f_unwind_result *res);

#endif
