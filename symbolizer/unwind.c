/* symbolizer/unwind.c: user stacks through libdwfl's unwinder (unwind.h).
 *
 * One Dwfl per process (a session): modules are reported with dwfl_report_elf at the bias the
 * caller computed, when a frame's pc first lands in them; the session is attached with our
 * thread callbacks (registers from the sample, memory from its stack copy), and each sample is
 * one dwfl_getthread_frames. t2f_unwinder__walk (unwind_fast.c) walks the rules libdw decoded
 * for each address instead, for the samples it covers.
 */
#include "symbolizer/unwind.h"

#include "symbolizer/unwind_internal.h"

#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *t2f_unwind_stop_name(enum t2f_unwind_stop why)
{
	static const char *const names[] = {
		[T2F_UNWIND_END] = "outermost frame reached",
		[T2F_UNWIND_CAP] = "frame limit",
		[T2F_UNWIND_NO_MAP] = "address in no mapping",
		[T2F_UNWIND_NO_FILE] = "module file not found",
		[T2F_UNWIND_NO_CFI] = "no unwind rule for the address",
		[T2F_UNWIND_BAD_RULE] = "unwind rule that could not be applied",
		[T2F_UNWIND_MEMORY] = "read outside the copied stack",
		[T2F_UNWIND_LOOP] = "loop",
		[T2F_UNWIND_NO_REGS] = "no user registers or stack",
	};

	return why < T2F_UNWIND_STOPS ? names[why] : "?";
}

/* ---- libdwfl callbacks ---- */

static int uw_find_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
		       char **file_name, Elf **elfp)
{
	(void)mod, (void)userdata, (void)name, (void)base, (void)file_name, (void)elfp;
	return -1; /* modules are reported with their file */
}

static int uw_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			     Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			     GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	const struct uw_mod *m = *userdata;
	const char *path;
	int fd;

	(void)mod, (void)modname, (void)base, (void)file_name, (void)debuglink_file;
	(void)debuglink_crc;
	if (!m || !m->u->ops.debug_file)
		return -1;
	path = m->u->ops.debug_file(m->u->ops.ctx, m->file);
	if (!path)
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		*debuginfo_file_name = strdup(path);
		if (!*debuginfo_file_name) {
			close(fd);
			return -1;
		}
	}
	return fd;
}

static const Dwfl_Callbacks uw_dwfl_callbacks = {
	.find_elf = uw_find_elf,
	.find_debuginfo = uw_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static pid_t uw_next_thread(Dwfl *dwfl, void *arg, void **thread_arg)
{
	(void)dwfl, (void)arg, (void)thread_arg;
	return 0; /* threads are asked for by tid only */
}

static bool uw_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_arg)
{
	(void)dwfl, (void)tid;
	*thread_arg = arg;
	return true;
}

static bool uw_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct t2f_unwinder *u = arg;
	uint64_t sp = u->regs->sp;

	(void)dwfl;
	if (addr < sp || addr - sp > u->len || u->len - (addr - sp) < sizeof(*result)) {
		u->mem_fail |= !uw_below_sp(addr, sp);
		return false;
	}
	memcpy(result, u->stack + (addr - sp), sizeof(*result));
	return true;
}

static bool uw_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	const struct t2f_unwinder *u = arg;
	const struct t2f_unwind_regs *r = u->regs;

	for (unsigned i = 0; i < T2F_UNWIND_NREGS; i++) {
		Dwarf_Word v = r->val[i];

		if (r->have & (1ull << i))
			dwfl_thread_state_registers(thread, (int)i, 1, &v);
	}
	dwfl_thread_state_register_pc(thread, r->pc);
	return true;
}

static const Dwfl_Thread_Callbacks uw_thread_callbacks = {
	.next_thread = uw_next_thread,
	.get_thread = uw_get_thread,
	.memory_read = uw_memory_read,
	.set_initial_registers = uw_set_initial_registers,
};

/* ---- sessions ---- */

void uw_session_end(struct uw_session *s)
{
	if (s->dwfl)
		dwfl_end(s->dwfl);
	while (s->mods) {
		struct uw_mod *m = s->mods;

		s->mods = m->next;
		free(m);
	}
	*s = (struct uw_session){ 0 };
}

struct uw_session *uw_session(struct t2f_unwinder *u, int64_t pid)
{
	struct uw_session *lru = &u->s[0];

	for (size_t i = 0; i < T2F_UNWIND_SESSIONS; i++) {
		struct uw_session *s = &u->s[i];

		if (s->dwfl && s->pid == pid) {
			s->used = ++u->clock;
			return s;
		}
		if (!s->dwfl || (lru->dwfl && s->used < lru->used))
			lru = s;
	}
	uw_session_end(lru);
	lru->dwfl = dwfl_begin(&uw_dwfl_callbacks);
	if (!lru->dwfl)
		return NULL;
	lru->pid = pid;
	lru->used = ++u->clock;
	lru->fresh = true;
	return lru;
}

static const char *uw_base(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* A conflict between s and what the caller maps: -1 (stale: drop the session and unwind the
 * sample again) unless s was made for this sample, where it is a miss (0): so the frames never
 * depend on what other samples reported before. */
static int uw_conflict(const struct uw_session *s)
{
	return s->fresh ? 0 : -1;
}

int uw_report(struct t2f_unwinder *u, struct uw_session *s, uint64_t pc)
{
	struct t2f_unwind_map m;
	Dwfl_Module *mod = dwfl_addrmodule(s->dwfl, pc);
	struct uw_mod *um;
	void **ud;
	bool mapped = u->ops.map(u->ops.ctx, pc, &m);

	u->last_miss = mapped ? T2F_UNWIND_NO_FILE : T2F_UNWIND_NO_MAP;
	if (!mapped || !m.file)
		return mod ? uw_conflict(s) : 0;
	if (mod) {
		dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
		um = *ud;
		if (!um || um->file != m.file || um->bias != m.bias)
			return uw_conflict(s);
		u->last_miss = T2F_UNWIND_END;
		return 1;
	}
	um = calloc(1, sizeof(*um));
	if (!um)
		return -ENOMEM;
	dwfl_report_begin_add(s->dwfl);
	mod = dwfl_report_elf(s->dwfl, uw_base(m.path), m.path, -1, m.bias, true);
	dwfl_report_end(s->dwfl, NULL, NULL);
	if (!mod) { /* not an ELF file, or it overlaps a module reported before */
		free(um);
		return s->mods ? uw_conflict(s) : 0;
	}
	*um = (struct uw_mod){ u, m.file, m.bias, s->mods };
	s->mods = um;
	dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
	*ud = um;
	if (dwfl_addrmodule(s->dwfl, pc) != mod)
		return 0; /* the file does not cover pc at that bias */
	u->last_miss = T2F_UNWIND_END;
	return 1;
}

/* ---- unwinding ---- */

/* Whether the frame looked up at addr has call-frame rules; else its caller would be a guess
 * from the frame pointer, which code built without one does not keep: the unwind ends there
 * (u->no_cfi), as the outermost frame in the entry point's code (u->zero). */
static bool uw_has_cfi(struct t2f_unwinder *u, uint64_t addr)
{
	int err;
	const struct uw_rule *r = uw_rule_at(u, u->cur->pid, addr, false, &err);
	bool none = !err && r && !r->cfi;

	u->nomem |= err != 0;
	u->no_cfi = none && !r->entry;
	u->zero = none && r->entry;
	return !err && !none;
}

/* The rules libdwfl's unwinder looks up to unwind the frame at pc (at pc for the sample's own
 * frame and a signal frame's caller, else at pc - 1): whether they are unsafe (the frame is the
 * last), and whether the frame is a signal frame (u->after_signal, for its caller). */
static bool uw_unsafe(struct t2f_unwinder *u, uint64_t pc)
{
	int err;
	uint64_t look = !u->n || u->after_signal ? pc : pc - 1;
	const struct uw_rule *r = uw_rule_at(u, u->cur->pid, look, false, &err);

	u->nomem |= err != 0;
	u->after_signal = r && r->signal;
	return r && r->unsafe;
}

/* The frame's registers as libdwfl has them, kept in case it is the last. */
static void uw_keep_regs(struct t2f_unwinder *u, Dwfl_Frame *state)
{
	unsigned n = u->regs->arch == T2F_UNWIND_X86_64 ? 17 : T2F_UNWIND_NREGS;

	u->last_regs.have = 0;
	for (unsigned i = 0; i < n; i++)
		if (dwfl_frame_reg(state, i, &u->last_regs.val[i]) == 0)
			u->last_regs.have |= 1ull << i;
}

static int uw_frame(Dwfl_Frame *state, void *arg)
{
	struct t2f_unwinder *u = arg;
	Dwarf_Addr pc, at;
	Dwarf_Word sp;
	bool activation, have_sp, last;
	int r;

	/* a read outside the copy while unwinding the frame before: this one is a guess */
	if (u->mem_fail)
		return DWARF_CB_ABORT;
	/* the pc alone first: asking whether the frame is an activation unwinds it, which needs
	 * its module reported, and rules libdwfl can apply */
	if (!dwfl_frame_pc(state, &pc, NULL))
		return DWARF_CB_ABORT;
	r = uw_report(u, u->cur, pc);
	if (r < 0) {
		u->stale = r == -1;
		u->nomem = r == -ENOMEM;
		return DWARF_CB_ABORT;
	}
	/* a frame in no module (its caller would be a guess from the frame pointer), or whose
	 * rules would crash libdwfl: the last, its caller not asked for */
	last = r == 0 || uw_unsafe(u, pc);
	if (u->nomem)
		return DWARF_CB_ABORT;
	if (last)
		activation = u->n == 0;
	else if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	/* a caller's pc: its call instruction. 0 there ends the stack, as libdwfl ends it for a
	 * return address of 0 found by the CFI (its frame-pointer fallback goes on): such frames
	 * are not written, so nothing else would bound them */
	at = activation || !pc ? pc : pc - 1;
	if (!at) {
		u->zero = true;
		return DWARF_CB_ABORT;
	}
	have_sp = dwfl_frame_reg(state, (unsigned)u->sp_reg, &sp) == 0;
	if (u->n && have_sp && u->have_last_sp && pc == u->last_pc && sp == u->last_sp) {
		u->looped = true;
		return DWARF_CB_ABORT;
	}
	u->last_pc = pc;
	u->last_sp = sp;
	u->have_last_sp = have_sp;
	u->ips[u->n++] = at;
	if (u->n >= u->max) {
		u->capped = true;
		return DWARF_CB_ABORT;
	}
	if (last) {
		u->bad_rule = r != 0;
		return DWARF_CB_ABORT;
	}
	uw_keep_regs(u, state);
	return uw_has_cfi(u, at) ? DWARF_CB_OK : DWARF_CB_ABORT;
}

/* libdwfl ended the stack after the last frame: its caller's pc undefined or 0 by the frame's
 * rules (the outermost frame), or rules libdwfl could not apply, which it does not tell apart.
 * The return address is worked out again as libdwfl works it out (unwind_eval.c). */
static enum t2f_unwind_stop uw_end(struct t2f_unwinder *u)
{
	uint64_t at = u->ips[u->n - 1], ra = 1;
	const struct uw_rule *r;
	Dwarf_Frame *frame;
	Dwarf_Addr bias;
	enum uw_ra how;
	bool refused;
	int err;

	r = uw_rule_at(u, u->cur->pid, at, false, &err);
	if (r && r->simple && (r->undef >> r->ra & 1))
		return T2F_UNWIND_END;
	frame = err ? NULL : uw_dwarf_frame(u, u->cur->pid, at, false, &bias, &refused, &err);
	u->nomem |= err < 0;
	if (!frame)
		return T2F_UNWIND_BAD_RULE;
	how = uw_eval_ra(u, frame, bias, &u->last_regs, &ra);
	free(frame);
	return how == UW_RA_UNDEFINED || (how == UW_RA_VALUE && ra == 0) ? T2F_UNWIND_END :
	       T2F_UNWIND_BAD_RULE;
}

static enum t2f_unwind_stop uw_why(struct t2f_unwinder *u, int ret)
{
	if (u->capped)
		return T2F_UNWIND_CAP;
	if (u->looped)
		return T2F_UNWIND_LOOP;
	if (u->no_cfi)
		return T2F_UNWIND_NO_CFI;
	if (u->bad_rule)
		return T2F_UNWIND_BAD_RULE;
	if (u->zero)
		return T2F_UNWIND_END;
	/* libdwfl ends a stack as outermost when its return address could not be read too */
	if (ret == 0)
		return u->mem_fail ? T2F_UNWIND_MEMORY : uw_end(u);
	if (u->last_miss != T2F_UNWIND_END)
		return u->last_miss;
	/* libdwfl failed on the last frame's rules (a return address column it has no register
	 * for) */
	return u->mem_fail ? T2F_UNWIND_MEMORY : T2F_UNWIND_BAD_RULE;
}

static void uw_start(struct t2f_unwinder *u, const struct t2f_unwind_regs *regs,
		     const uint8_t *stack, size_t len, uint64_t *ips, size_t max)
{
	u->regs = regs;
	u->stack = stack;
	u->len = len;
	u->ips = ips;
	u->max = max;
	u->n = 0;
	u->sp_reg = regs->arch == T2F_UNWIND_X86_64 ? 7 : 31;
	u->mem_fail = u->stale = u->looped = u->capped = u->nomem = u->no_cfi =
		u->zero = u->bad_rule = u->after_signal = false;
	u->have_last_sp = false;
	u->last_miss = T2F_UNWIND_END;
}

/* One attempt: 1 when the session was stale (drop it and try again), else 0 or -ENOMEM. */
static int uw_try(struct t2f_unwinder *u, int64_t pid, int64_t tid, struct t2f_unwind_result *res)
{
	struct uw_session *s = uw_session(u, pid);
	int r, ret;

	if (!s)
		return -ENOMEM;
	u->cur = s;
	r = uw_report(u, s, u->regs->pc);
	if (r == -1) {
		uw_session_end(s);
		return 1;
	}
	if (r < 0)
		return r;
	if (!s->attached && r == 1)
		s->attached = dwfl_attach_state(s->dwfl, NULL, (pid_t)pid, &uw_thread_callbacks, u);
	if (r != 1 || !s->attached) { /* the first frame alone */
		s->fresh = false;
		res->why = r == 1 ? T2F_UNWIND_NO_CFI : u->last_miss;
		res->stop_pc = u->regs->pc;
		if (u->regs->pc)
			u->ips[u->n++] = u->regs->pc;
		res->n = u->n;
		return 0;
	}
	ret = dwfl_getthread_frames(s->dwfl, (pid_t)tid, uw_frame, u);
	s->fresh = false;
	if (u->nomem)
		return -ENOMEM;
	if (u->stale) {
		uw_session_end(s);
		return 1;
	}
	res->why = uw_why(u, ret);
	if (u->nomem)
		return -ENOMEM;
	res->n = u->n;
	res->stop_pc = u->last_pc;
	return 0;
}

int t2f_unwinder__unwind(struct t2f_unwinder *u, int64_t pid, int64_t tid,
			 const struct t2f_unwind_regs *regs, const uint8_t *stack, size_t len,
			 uint64_t *ips, size_t max, struct t2f_unwind_result *res)
{
	int err;

	*res = (struct t2f_unwind_result){ .why = T2F_UNWIND_NO_REGS };
	if (!max)
		return 0;
	for (int attempt = 0; attempt < 2; attempt++) {
		uw_start(u, regs, stack, len, ips, max);
		err = uw_try(u, pid, tid, res);
		if (err <= 0)
			return err;
	}
	/* stale twice: the first frame alone */
	ips[0] = regs->pc;
	*res = (struct t2f_unwind_result){ .n = regs->pc != 0, .why = T2F_UNWIND_NO_FILE,
					   .stop_pc = regs->pc };
	return 0;
}

int t2f_unwinder__new(const struct t2f_unwind_ops *ops, struct t2f_unwinder **out)
{
	struct t2f_unwinder *u = calloc(1, sizeof(*u));

	if (!u)
		return -ENOMEM;
	u->ops = *ops;
	if (uw_rules__new(&u->rules) || uw_checks__new(&u->checks)) {
		uw_rules__free(u->rules);
		free(u);
		return -ENOMEM;
	}
	*out = u;
	return 0;
}

void t2f_unwinder__maps_changed(struct t2f_unwinder *u)
{
	u->n_maps = 0;
}

int t2f_unwinder__walk(struct t2f_unwinder *u, int64_t pid, const struct t2f_unwind_regs *regs,
		       const uint8_t *stack, size_t len, uint64_t *ips, size_t max,
		       struct t2f_unwind_result *res)
{
	*res = (struct t2f_unwind_result){ .why = T2F_UNWIND_NO_REGS };
	if (!max)
		return 1;
	uw_start(u, regs, stack, len, ips, max);
	return uw_fast(u, pid, res);
}

void t2f_unwinder__free(struct t2f_unwinder *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < T2F_UNWIND_SESSIONS; i++)
		uw_session_end(&u->s[i]);
	uw_rules__free(u->rules);
	uw_checks__free(u->checks);
	free(u);
}
