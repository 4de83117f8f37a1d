/* symbolizer/unwind_rules.h: a frame's call-frame rules as libdw decodes them
 * (dwarf_cfi_addrframe), kept per (file, address) so that each return address of a recording is
 * decoded once (internal to symbolizer/unwind*.c).
 *
 * Only the forms compilers emit at call sites are kept: the CFA a register plus an offset
 * (DW_OP_bregx), and each register undefined, the same value, saved at CFA + N (offset(N)) or
 * equal to CFA + N (val_offset(N)). A frame with any other form, a signal frame, or no rule at
 * all is kept as not simple: libdwfl's unwinder takes that sample (an address without rules
 * ends the unwind there, by either way). A frame with an expression libdwfl's unwinder would
 * crash or leak memory on is marked so: the unwind ends there too.
 *
 * Memory: about 100 bytes per distinct address, at most UW_RULES_MAX addresses (the cache starts
 * over past it). Not thread safe (one per unwinder).
 */
#ifndef T2F_UNWIND_RULES_H
#define T2F_UNWIND_RULES_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stdint.h>

#include "symbolizer/unwind.h"

#define UW_RULES_MAX (1u << 18)
#define UW_RULE_SAVED 10        /* registers saved or computed per frame, at most */
#define UW_ENTRY_CODE 64        /* bytes of entry code after e_entry (x86_64 and aarch64 _start
				 * call their first function within 32) */

enum uw_reg_rule { UW_AT_CFA = 1, UW_IS_CFA };

struct uw_rule {
	bool cfi;               /* the module has rules for the address (else libdwfl would guess
				 * the caller from the frame pointer: the unwind stops there), or
				 * rules that may not be decoded (then unsafe) */
	bool entry;             /* without rules, in the first UW_ENTRY_CODE bytes of the file's
				 * entry point: the outermost frame (ld.so's _start has no FDE) */
	bool nofile;            /* without rules: the file does not hold the address (not ELF,
				 * or no segment there): the unwind ends as T2F_UNWIND_NO_FILE */
	bool simple;
	bool signal;            /* a signal frame's ('S' in its CIE): libdwfl looks its caller's
				 * rules up at the caller's pc, not pc - 1 */
	bool unsafe;            /* rules libdwfl's unwinder would crash on, or leak memory on
				 * (unwind_rules.c uw_bad_expr): the unwind stops there */
	uint8_t cfa_reg, ra;    /* the CFA's register, the return address column */
	uint8_t n_saved;
	int64_t cfa_off;
	uint64_t undef;         /* bit n: register n undefined in the caller; others not in
				 * saved[] keep their value */
	struct {
		uint8_t reg, kind;  /* enum uw_reg_rule */
		int64_t off;
	} saved[UW_RULE_SAVED];
};

struct uw_rules;

int uw_rules__new(struct uw_rules **out); /* 0 or -ENOMEM */
void uw_rules__free(struct uw_rules *r);  /* NULL is fine */

/* The rule kept for address addr (in the file's own space) of file, or NULL. */
const struct uw_rule *uw_rules__find(const struct uw_rules *r, const void *file, uint64_t addr);

enum uw_none {                  /* why there is no frame to decode */
	UW_NO_RULE,             /* the tables have no rule for the address */
	UW_NOT_HELD,            /* the file does not hold the address */
	UW_REFUSED,             /* the tables may not be decoded (unwind_check.c) */
};

/* Decodes frame (NULL: none, for the reason none) into the rule of (file, addr), kept: 0 and
 * *out, or -ENOMEM. nregs: the registers of the architecture (DWARF numbers below it); entry:
 * the file's entry point (0: none). */
int uw_rules__add(struct uw_rules *r, const void *file, uint64_t addr, Dwarf_Frame *frame,
		  enum uw_none none, unsigned nregs, uint64_t entry, const struct uw_rule **out);

#endif
