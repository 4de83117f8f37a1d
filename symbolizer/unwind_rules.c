/* symbolizer/unwind_rules.c: decoded call-frame rules per address (unwind_rules.h). */
#include "symbolizer/unwind_rules.h"

#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>

#include "formats/grow.h"
#include "formats/hashmap.h"

struct uw_rule_entry {
	const void *file;
	uint64_t addr;
	struct uw_rule rule;
};

struct uw_rules {
	struct uw_rule_entry *e;
	uint32_t n, cap;
	struct t2f_hashmap *ix;
};

int uw_rules__new(struct uw_rules **out)
{
	struct uw_rules *r = calloc(1, sizeof(*r));

	if (!r || t2f_hashmap__new(4096, &r->ix)) {
		free(r);
		return -ENOMEM;
	}
	*out = r;
	return 0;
}

void uw_rules__free(struct uw_rules *r)
{
	if (!r)
		return;
	t2f_hashmap__free(r->ix);
	free(r->e);
	free(r);
}

static uint64_t uw_rule_hash(const void *file, uint64_t addr)
{
	return t2f_hash_u64(addr ^ ((uint64_t)(uintptr_t)file << 17));
}

struct uw_rule_probe {
	const struct uw_rules *r;
	const void *file;
	uint64_t addr;
};

static bool uw_rule_eq(const void *ctx, uint32_t v)
{
	const struct uw_rule_probe *q = ctx;
	const struct uw_rule_entry *e = &q->r->e[v - 1];

	return e->addr == q->addr && e->file == q->file;
}

const struct uw_rule *uw_rules__find(const struct uw_rules *r, const void *file, uint64_t addr)
{
	struct uw_rule_probe q = { r, file, addr };
	uint32_t v = t2f_hashmap__find(r->ix, uw_rule_hash(file, addr), uw_rule_eq, &q);

	return v ? &r->e[v - 1].rule : NULL;
}

/* CFA + N as libdw spells a register's offset(N) or val_offset(N) rule: DW_OP_call_frame_cfa,
 * then DW_OP_plus_uconst N unless N is 0, then DW_OP_stack_value for a value. */
static bool uw_cfa_plus(const Dwarf_Op *ops, size_t n, int64_t *off, bool *value)
{
	size_t i = 1;

	if (n == 0 || ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	*off = 0;
	if (i < n && ops[i].atom == DW_OP_plus_uconst)
		*off = (int64_t)ops[i++].number;
	*value = i < n && ops[i].atom == DW_OP_stack_value;
	return i + *value == n;
}

/* One register's rule into u; false when not in the simple forms. */
static bool uw_decode_reg(Dwarf_Frame *frame, unsigned reg, struct uw_rule *u)
{
	Dwarf_Op mem[3], *ops;
	size_t n;
	int64_t off;
	bool value;

	if (dwarf_frame_register(frame, (int)reg, mem, &ops, &n) != 0)
		return false;
	if (n == 0) {
		if (ops == mem)
			u->undef |= 1ull << reg;
		return true;    /* undefined, or the same value */
	}
	if (!uw_cfa_plus(ops, n, &off, &value) || u->n_saved == UW_RULE_SAVED)
		return false;
	u->saved[u->n_saved].reg = (uint8_t)reg;
	u->saved[u->n_saved].kind = value ? UW_IS_CFA : UW_AT_CFA;
	u->saved[u->n_saved].off = off;
	u->n_saved++;
	return true;
}

static void uw_decode(Dwarf_Frame *frame, unsigned nregs, struct uw_rule *u)
{
	Dwarf_Op *ops;
	size_t n;
	bool signal = false;
	int ra = dwarf_frame_info(frame, NULL, NULL, &signal);

	u->signal = signal;
	if (ra < 0 || (unsigned)ra >= nregs || signal || dwarf_frame_cfa(frame, &ops, &n) != 0 ||
	    n != 1 || ops[0].atom != DW_OP_bregx || ops[0].number >= nregs)
		return;
	u->ra = (uint8_t)ra;
	u->cfa_reg = (uint8_t)ops[0].number;
	u->cfa_off = (int64_t)ops[0].number2;
	for (unsigned reg = 0; reg < nregs; reg++)
		if (!uw_decode_reg(frame, reg, u))
			return;
	u->simple = true;
}

#define UW_LIBDWFL_A64_REGS 97  /* the registers libdwfl's unwinder works out per aarch64 frame
				 * (per x86_64 frame: the 17 decoded here) */
#define UW_LIBDWFL_STEPS 4096   /* the operations it evaluates per expression, at most */

/* Whether libdwfl's unwinder (elfutils 0.188, libdwfl/frame_unwind.c expr_eval) may not be given
 * the expression ops[0..n) (the CFA's when cfa): it crashes on DW_OP_deref_size in the CFA's
 * (it reads the ELF class through a null frame) and on DW_OP_div of INT64_MIN by -1 (a trap),
 * and leaks its evaluation stack on an operation it does not evaluate and past 4096 steps (a
 * branch may loop). Compilers emit none of these in call-frame information. */
static bool uw_bad_expr(const Dwarf_Op *ops, size_t n, bool cfa)
{
	if (n > UW_LIBDWFL_STEPS)
		return true;
	for (size_t i = 0; i < n; i++) {
		uint8_t a = ops[i].atom;

		if (a >= DW_OP_lit0 && a <= DW_OP_breg31) /* lit*, reg*, breg* */
			continue;
		switch (a) {
		case DW_OP_addr: case DW_OP_const1u: case DW_OP_const1s: case DW_OP_const2u:
		case DW_OP_const2s: case DW_OP_const4u: case DW_OP_const4s: case DW_OP_const8u:
		case DW_OP_const8s: case DW_OP_constu: case DW_OP_consts: case DW_OP_regx:
		case DW_OP_bregx: case DW_OP_dup: case DW_OP_drop: case DW_OP_pick: case DW_OP_over:
		case DW_OP_swap: case DW_OP_rot: case DW_OP_deref: case DW_OP_abs: case DW_OP_neg:
		case DW_OP_not: case DW_OP_plus_uconst: case DW_OP_and: case DW_OP_minus:
		case DW_OP_mod: case DW_OP_mul: case DW_OP_or: case DW_OP_plus: case DW_OP_shl:
		case DW_OP_shr: case DW_OP_shra: case DW_OP_xor: case DW_OP_le: case DW_OP_ge:
		case DW_OP_eq: case DW_OP_lt: case DW_OP_gt: case DW_OP_ne: case DW_OP_nop:
		case DW_OP_call_frame_cfa: case DW_OP_stack_value:
			continue;
		case DW_OP_deref_size:
			if (!cfa)
				continue;
			return true;
		default:        /* DW_OP_div, DW_OP_bra, DW_OP_skip and those it does not know */
			return true;
		}
	}
	return false;
}

/* Whether an expression of frame's rules for the CFA or registers below nregs (those libdwfl's
 * unwinder works out) may not be given to it. */
static bool uw_unsafe(Dwarf_Frame *frame, unsigned nregs)
{
	Dwarf_Op mem[3], *ops;
	size_t n;

	if (dwarf_frame_cfa(frame, &ops, &n) == 0 && uw_bad_expr(ops, n, true))
		return true;
	for (int reg = 0; reg < (int)nregs; reg++)
		if (dwarf_frame_register(frame, reg, mem, &ops, &n) == 0 &&
		    uw_bad_expr(ops, n, false))
			return true;
	return false;
}

/* Starts over when full (the addresses of one recording rarely get there). 0 or -ENOMEM. */
static int uw_rules_room(struct uw_rules *r)
{
	if (r->n == UW_RULES_MAX) {
		t2f_hashmap__free(r->ix);
		r->ix = NULL;
		r->n = 0;
		if (t2f_hashmap__new(4096, &r->ix))
			return -ENOMEM;
	}
	return t2f_grow32((void **)&r->e, &r->cap, r->n, sizeof(*r->e), 1024) ? -ENOMEM : 0;
}

int uw_rules__add(struct uw_rules *r, const void *file, uint64_t addr, Dwarf_Frame *frame,
		  enum uw_none none, unsigned nregs, uint64_t entry, const struct uw_rule **out)
{
	struct uw_rule *u;
	int err = uw_rules_room(r);

	if (err)
		return err;
	r->e[r->n] = (struct uw_rule_entry){ .file = file, .addr = addr };
	u = &r->e[r->n].rule;
	u->cfi = frame || none == UW_REFUSED;
	u->unsafe = frame ? uw_unsafe(frame, nregs > 17 ? UW_LIBDWFL_A64_REGS : nregs) :
		    none == UW_REFUSED;
	u->nofile = !frame && none == UW_NOT_HELD;
	u->entry = !frame && none == UW_NO_RULE && entry && addr >= entry &&
		   addr - entry < UW_ENTRY_CODE;
	if (frame)
		uw_decode(frame, nregs, u);
	err = t2f_hashmap__insert(r->ix, uw_rule_hash(file, addr), r->n + 1);
	if (err)
		return err;
	r->n++;
	*out = u;
	return 0;
}
