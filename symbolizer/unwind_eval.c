/* symbolizer/unwind_eval.c: a frame's return address worked out as libdwfl's unwinder works it
 * out (unwind_internal.h uw_eval_ra).
 *
 * libdwfl ends a stack where the caller's pc is undefined, 0, or could not be worked out (an
 * operation it does not evaluate, a register it does not know, a read it could not make), and
 * says the same in all three cases. The unwinder tells the outermost frame from rules it could
 * not apply by evaluating the last frame's return address again: the operations of elfutils'
 * libdwfl/frame_unwind.c expr_eval (0.188), its stack limit and its failures, on the
 * registers libdwfl had for the frame and the sample's stack copy. Expressions libdwfl would
 * crash or leak memory on (branches, DW_OP_div, operations it does not know: unwind_rules.c
 * uw_bad_expr) never get here: the unwind stops before libdwfl applies them.
 */
#include <dwarf.h>

#include "symbolizer/unwind_internal.h"

#define UW_EVAL_STACK 0x100     /* libdwfl's DWARF_EXPR_STACK_MAX */

struct uw_eval {
	const struct t2f_unwinder *u;
	const struct uw_regs *regs;
	Dwarf_Frame *frame;     /* NULL while evaluating the CFA */
	Dwarf_Addr bias;
	uint64_t st[UW_EVAL_STACK];
	size_t n;
};

static bool uw_push(struct uw_eval *e, uint64_t v)
{
	if (e->n == UW_EVAL_STACK)
		return false;
	e->st[e->n++] = v;
	return true;
}

static bool uw_pop(struct uw_eval *e, uint64_t *v)
{
	if (!e->n)
		return false;
	*v = e->st[--e->n];
	return true;
}

static bool uw_reg(const struct uw_eval *e, uint64_t reg, uint64_t *v)
{
	if (reg >= T2F_UNWIND_NREGS || !(e->regs->have >> reg & 1))
		return false;
	*v = e->regs->val[reg];
	return true;
}

/* A binary operation: 1 (its result pushed), 0 (failed), -1 (atom is not one). */
static int uw_binary(struct uw_eval *e, uint8_t atom)
{
	uint64_t a, b, r;

	switch (atom) {
	case DW_OP_and: case DW_OP_minus: case DW_OP_mod: case DW_OP_mul: case DW_OP_or:
	case DW_OP_plus: case DW_OP_shl: case DW_OP_shr: case DW_OP_shra: case DW_OP_xor:
	case DW_OP_le: case DW_OP_ge: case DW_OP_eq: case DW_OP_lt: case DW_OP_gt: case DW_OP_ne:
		break;
	default:
		return -1;
	}
	if (!uw_pop(e, &b) || !uw_pop(e, &a))
		return 0;
	switch (atom) {
	case DW_OP_and: r = a & b; break;
	case DW_OP_minus: r = a - b; break;
	case DW_OP_mod:
		if (!b)
			return 0;
		r = a % b;
		break;
	case DW_OP_mul: r = a * b; break;
	case DW_OP_or: r = a | b; break;
	case DW_OP_plus: r = a + b; break;
	/* shifts by 64 or more: by the count modulo 64, as the machine shifts libdwfl's */
	case DW_OP_shl: r = a << (b & 63); break;
	case DW_OP_shr: r = a >> (b & 63); break;
	case DW_OP_shra: r = (uint64_t)((int64_t)a >> (b & 63)); break;
	case DW_OP_xor: r = a ^ b; break;
	case DW_OP_le: r = (int64_t)a <= (int64_t)b; break;
	case DW_OP_ge: r = (int64_t)a >= (int64_t)b; break;
	case DW_OP_eq: r = a == b; break;
	case DW_OP_lt: r = (int64_t)a < (int64_t)b; break;
	case DW_OP_gt: r = (int64_t)a > (int64_t)b; break;
	default: r = a != b; break; /* DW_OP_ne */
	}
	return uw_push(e, r);
}

static bool uw_expr(struct uw_eval *e, const Dwarf_Op *ops, size_t n, uint64_t *out);

/* One operation other than a binary one or a branch; *loc: the value is an address to read. */
static bool uw_op(struct uw_eval *e, const Dwarf_Op *op, bool *loc)
{
	uint8_t atom = op->atom;
	uint64_t a, b, c;
	Dwarf_Op *cfa_ops;
	size_t cfa_n;

	if (atom >= DW_OP_lit0 && atom <= DW_OP_lit31)
		return uw_push(e, atom - DW_OP_lit0);
	if (atom >= DW_OP_reg0 && atom <= DW_OP_reg31)
		return uw_reg(e, atom - DW_OP_reg0, &a) && uw_push(e, a);
	if (atom >= DW_OP_breg0 && atom <= DW_OP_breg31)
		return uw_reg(e, atom - DW_OP_breg0, &a) && uw_push(e, a + op->number);
	switch (atom) {
	case DW_OP_addr:
		return uw_push(e, op->number + e->bias);
	case DW_OP_const1u: case DW_OP_const1s: case DW_OP_const2u: case DW_OP_const2s:
	case DW_OP_const4u: case DW_OP_const4s: case DW_OP_const8u: case DW_OP_const8s:
	case DW_OP_constu: case DW_OP_consts:
		return uw_push(e, op->number);
	case DW_OP_regx:
		return uw_reg(e, op->number, &a) && uw_push(e, a);
	case DW_OP_bregx:
		return uw_reg(e, op->number, &a) && uw_push(e, a + op->number2);
	case DW_OP_dup:
		return uw_pop(e, &a) && uw_push(e, a) && uw_push(e, a);
	case DW_OP_drop:
		return uw_pop(e, &a);
	case DW_OP_pick:
		return e->n > op->number && uw_push(e, e->st[e->n - 1 - op->number]);
	case DW_OP_over:
		return uw_pop(e, &a) && uw_pop(e, &b) && uw_push(e, b) && uw_push(e, a) &&
		       uw_push(e, b);
	case DW_OP_swap:
		return uw_pop(e, &a) && uw_pop(e, &b) && uw_push(e, a) && uw_push(e, b);
	case DW_OP_rot:
		return uw_pop(e, &a) && uw_pop(e, &b) && uw_pop(e, &c) && uw_push(e, a) &&
		       uw_push(e, c) && uw_push(e, b);
	case DW_OP_deref:
	case DW_OP_deref_size: /* not in the CFA's (see the top) */
		if (!uw_pop(e, &a) || !uw_read(e->u, a, &a) ||
		    (atom == DW_OP_deref_size && op->number > 8))
			return false;
		if (atom == DW_OP_deref_size && op->number < 8)
			a &= (1ull << (op->number * 8)) - 1;
		return uw_push(e, a);
	case DW_OP_abs:
		return uw_pop(e, &a) && uw_push(e, (int64_t)a < 0 ? 0 - a : a);
	case DW_OP_neg:
		return uw_pop(e, &a) && uw_push(e, 0 - a);
	case DW_OP_not:
		return uw_pop(e, &a) && uw_push(e, ~a);
	case DW_OP_plus_uconst:
		return uw_pop(e, &a) && uw_push(e, a + op->number);
	case DW_OP_nop:
		return true;
	case DW_OP_call_frame_cfa: { /* the CFA's own expression may not use it */
		struct uw_eval sub = { .u = e->u, .regs = e->regs, .bias = e->bias };

		if (!e->frame || dwarf_frame_cfa(e->frame, &cfa_ops, &cfa_n) != 0 ||
		    !uw_expr(&sub, cfa_ops, cfa_n, &a) || !uw_push(e, a))
			return false;
		*loc = true;
		return true;
	}
	case DW_OP_stack_value:
		*loc = false;
		return true;
	default: /* not given (see the top) */
		return false;
	}
}

/* ops[0..n) evaluated into *out (read from the stack copy when the result is a location). */
static bool uw_expr(struct uw_eval *e, const Dwarf_Op *ops, size_t n, uint64_t *out)
{
	bool loc = false;
	int r;

	if (!n)
		return false;
	for (size_t i = 0; i < n; i++) {
		r = uw_binary(e, ops[i].atom);
		if (!r || (r < 0 && !uw_op(e, &ops[i], &loc)))
			return false;
	}
	if (!uw_pop(e, out))
		return false;
	return !loc || uw_read(e->u, *out, out);
}

enum uw_ra uw_eval_ra(const struct t2f_unwinder *u, Dwarf_Frame *frame, Dwarf_Addr bias,
		      const struct uw_regs *regs, uint64_t *ra)
{
	Dwarf_Op mem[3], *ops;
	size_t n;
	struct uw_eval e = { .u = u, .regs = regs, .frame = frame, .bias = bias };
	int col = dwarf_frame_info(frame, NULL, NULL, NULL);

	if (col < 0 || dwarf_frame_register(frame, col, mem, &ops, &n) != 0)
		return UW_RA_FAILED;
	if (n == 0 && ops == mem)
		return UW_RA_UNDEFINED;
	if (n == 0) { /* the same value: the frame's own */
		if (ops != NULL || col >= T2F_UNWIND_NREGS || !(regs->have >> col & 1))
			return UW_RA_FAILED;
		*ra = regs->val[col];
		return UW_RA_VALUE;
	}
	return uw_expr(&e, ops, n, ra) ? UW_RA_VALUE : UW_RA_FAILED;
}
