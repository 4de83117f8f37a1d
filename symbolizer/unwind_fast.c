/* symbolizer/unwind_fast.c: a sample walked through decoded call-frame rules (unwind_internal.h).
 *
 * libdwfl's unwinder decodes the rules of each frame again for every sample and works out every
 * register's rule. Here each address's rules are decoded once through libdw (unwind_rules.h)
 * and applied as libdwfl applies them (handle_cfi in elfutils' frame_unwind.c): the caller's
 * CFA is a register plus an offset, its registers are undefined, kept, loaded from CFA + N or
 * set to CFA + N, its pc is the return address column (0 or undefined: the outermost frame),
 * and every frame but the first is looked up at its pc - 1; a frame whose module has no rules
 * for it, or a read outside the stack copy, ends the unwind (libdwfl's path stops there too,
 * where libdwfl would guess the caller from the frame pointer). Whatever else this does not
 * cover (a rule of another form, a signal frame, an address without a module) goes to libdwfl's
 * unwinder from the start, so the frames are the same in every case: tests/unwind/recorded.sh
 * compares both on each recording.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "symbolizer/unwind_internal.h"

/* The mapping holding addr in process pid, through the small cache of its mappings. */
static bool uw_fast_map(struct t2f_unwinder *u, int64_t pid, uint64_t addr,
			struct t2f_unwind_map *out)
{
	if (pid != u->maps_pid) {
		u->n_maps = 0;
		u->maps_pid = pid;
	}
	for (unsigned i = 0; i < u->n_maps; i++)
		if (addr >= u->maps[i].start && addr < u->maps[i].end) {
			*out = u->maps[i];
			return true;
		}
	if (!u->ops.map(u->ops.ctx, addr, out))
		return false;
	u->maps[u->n_maps < UW_MAP_CACHE ? u->n_maps++ : UW_MAP_CACHE - 1] = *out;
	return true;
}

Dwarf_Frame *uw_dwarf_frame(struct t2f_unwinder *u, int64_t pid, uint64_t addr, bool renew,
			    Dwarf_Addr *bias, bool *refused, int *err)
{
	struct uw_session *s = uw_session(u, pid);
	Dwarf_Frame *frame = NULL;
	Dwfl_Module *mod;
	Dwarf_CFI *cfi;
	const struct uw_mod *um;
	void **ud;
	int r = s ? uw_report(u, s, addr) : -ENOMEM;

	*refused = false;

	if (r == -1 && !renew) {
		*err = 1;
		return NULL;
	}
	if (r == -1) { /* stale: a session made now has nothing stale */
		uw_session_end(s);
		s = uw_session(u, pid);
		r = s ? uw_report(u, s, addr) : -ENOMEM;
	}
	if (s && renew) /* the walk's reports: nothing in the session is made for a sample */
		s->fresh = false;
	*err = r < -1 ? r : 0;
	if (r != 1 || !(mod = dwfl_addrmodule(s->dwfl, addr)))
		return NULL;
	dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
	um = *ud;
	for (int debug = 0; debug < 2; debug++) {
		if (debug && (r = uw_debug_frame_none(u, um->file, mod)) != 0) {
			*err = r < 0 ? r : 0;
			return NULL;
		}
		/* no frame of a table decoded before the table is checked (unwind_check.c) */
		r = uw_cfi_usable(u->checks, um->file, mod, debug);
		if (r <= 0) {
			*err = r;
			*refused = r == 0;
			return NULL;
		}
		cfi = debug ? dwfl_module_dwarf_cfi(mod, bias) : dwfl_module_eh_cfi(mod, bias);
		if (cfi && dwarf_cfi_addrframe(cfi, addr - *bias, &frame) == 0)
			return frame;
	}
	return NULL;
}

const struct uw_rule *uw_rule_at(struct t2f_unwinder *u, int64_t pid, uint64_t addr, bool renew,
				 int *err)
{
	unsigned nregs = u->regs->arch == T2F_UNWIND_X86_64 ? 17 : 32;
	struct t2f_unwind_map m;
	const struct uw_rule *rule;
	Dwarf_Frame *frame;
	Dwarf_Addr bias;
	bool refused;

	*err = 0;
	if (!uw_fast_map(u, pid, addr, &m) || !m.file)
		return NULL;
	rule = uw_rules__find(u->rules, m.file, addr - m.bias);
	if (rule)
		return rule;
	frame = uw_dwarf_frame(u, pid, addr, renew, &bias, &refused, err);
	if (*err == 1) {
		*err = 0;
		return NULL;
	}
	if (!*err)
		*err = uw_rules__add(u->rules, m.file, addr - m.bias, frame,
				     refused ? UW_REFUSED : u->last_miss != T2F_UNWIND_END ?
				     UW_NOT_HELD : UW_NO_RULE, nregs, m.entry, &rule);
	free(frame);
	return *err ? NULL : rule;
}

bool uw_read(const struct t2f_unwinder *u, uint64_t addr, uint64_t *v)
{
	uint64_t sp = u->regs->sp;

	if (addr < sp || addr - sp > u->len || u->len - (addr - sp) < 8)
		return false;
	memcpy(v, u->stack + (addr - sp), 8);
	return true;
}

/* The caller's registers into to: 1, or 0 when libdwfl must decide (the CFA's register or the
 * return address unknown), or -1 when a read fell past the end of the stack copy (the unwind
 * ends: what follows would be a guess). */
static int uw_fast_step(const struct t2f_unwinder *u, const struct uw_rule *r,
			const struct uw_regs *from, struct uw_regs *to)
{
	uint64_t cfa;

	if (!(from->have & (1ull << r->cfa_reg)))
		return 0;
	cfa = from->val[r->cfa_reg] + (uint64_t)r->cfa_off;
	*to = *from;
	to->have &= ~r->undef;
	for (unsigned i = 0; i < r->n_saved; i++) {
		unsigned reg = r->saved[i].reg;
		uint64_t at = cfa + (uint64_t)r->saved[i].off;

		if (reg >= T2F_UNWIND_NREGS)
			continue;
		to->have |= 1ull << reg;
		if (r->saved[i].kind == UW_IS_CFA)
			to->val[reg] = at;
		else if (uw_read(u, at, &to->val[reg]))
			continue;
		else if (!uw_below_sp(at, u->regs->sp))
			return -1;
		else
			to->have &= ~(1ull << reg);
	}
	return (r->undef & (1ull << r->ra)) || (to->have & (1ull << r->ra));
}

int uw_fast(struct t2f_unwinder *u, int64_t pid, struct t2f_unwind_result *res)
{
	struct uw_regs w[2] = { { .have = u->regs->have } }, *cur = &w[0], *next = &w[1], *t;
	uint64_t pc = u->regs->pc, prev_pc = 0, prev_sp = 0;
	int err;

	memcpy(w[0].val, u->regs->val, sizeof(w[0].val));
	for (size_t k = 0;; k++) {
		const struct uw_rule *r;
		uint64_t sp = cur->val[u->sp_reg], ip = k ? pc - 1 : pc;
		int step;

		if (!(cur->have & (1ull << u->sp_reg)))
			return 0;
		if (k && pc == prev_pc && sp == prev_sp) {
			res->why = T2F_UNWIND_LOOP;
			break;
		}
		if (ip)
			u->ips[u->n++] = ip;
		if (u->n >= u->max) {
			res->why = T2F_UNWIND_CAP;
			break;
		}
		r = uw_rule_at(u, pid, ip, true, &err);
		if (err)
			return err;
		if (r && !r->cfi) {
			res->why = r->nofile ? T2F_UNWIND_NO_FILE :
				   r->entry ? T2F_UNWIND_END : T2F_UNWIND_NO_CFI;
			break;
		}
		step = r && r->simple && !r->unsafe ? uw_fast_step(u, r, cur, next) : 0;
		if (step < 0) {
			res->why = T2F_UNWIND_MEMORY;
			break;
		}
		if (step && (r->undef & (1ull << r->ra))) {
			res->why = T2F_UNWIND_END;
			break;
		}
		if (!step) {
			u->n = 0;
			return 0;
		}
		if (next->val[r->ra] <= 1) { /* 0, or a call instruction at 0: the outermost */
			res->why = T2F_UNWIND_END;
			break;
		}
		prev_pc = pc;
		prev_sp = sp;
		pc = next->val[r->ra];
		t = cur, cur = next, next = t;
	}
	res->n = u->n;
	res->stop_pc = pc;
	res->rules = true;
	return 1;
}
