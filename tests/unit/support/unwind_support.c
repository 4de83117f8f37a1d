/* tests/unit/support/unwind_support.c: see unwind_support.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <limits.h>
#include <linux/perf_event.h>

#include "support/unwind_support.h"

const int libfx_id = 1, crafted_id = 2;

struct t2f_unwind_regs regs_x86(uint64_t pc, uint64_t sp, uint64_t rbp)
{
	uint64_t perf[24] = { 0 };
	struct t2f_unwind_regs r;
	uint32_t nr;

	perf[P_IP] = pc;
	perf[P_SP] = sp;
	perf[P_BP] = rbp;
	/* in mask order: bits 0..11, then R8..R15 (zeros) */
	nr = 20;
	assert_true(t2f_unwind_regs_from_perf(T2F_UNWIND_X86_64, PERF_SAMPLE_REGS_ABI_64,
					      X86_DWARF_MASK, perf, nr, &r));
	return r;
}

static bool map_cb(void *ctx, uint64_t addr, struct t2f_unwind_map *out)
{
	const struct maps *ms = ctx;

	for (size_t i = 0; i < ms->n; i++)
		if (addr >= ms->m[i].start && addr < ms->m[i].end) {
			*out = ms->m[i];
			return true;
		}
	return false;
}

void map_one(struct maps *ms, const char *path, const void *id)
{
	static char copy[4][PATH_MAX];
	static unsigned next;
	char *p = copy[next++ % 4];

	snprintf(p, PATH_MAX, "%s", path);
	ms->n = 1;
	ms->m[0] = (struct t2f_unwind_map){ BASE, BASE + SPAN, id, p, BASE, 0 };
}

struct t2f_unwinder *unwinder(struct maps *ms)
{
	struct t2f_unwind_ops ops = { map_cb, NULL, ms };
	struct t2f_unwinder *u = NULL;

	assert_int_equal(t2f_unwinder__new(&ops, &u), 0);
	return u;
}

void unwind(struct t2f_unwinder *u, int64_t pid, const struct t2f_unwind_regs *regs,
	    const void *stack, size_t len, size_t max, struct result *out)
{
	memset(out, 0, sizeof(*out));
	assert_true(max <= MAXF);
	assert_int_equal(t2f_unwinder__unwind(u, pid, pid, regs, stack, len, out->ips, max,
					      &out->r), 0);
	assert_true(out->r.n <= max);
	assert_true(out->r.why < T2F_UNWIND_STOPS);
	assert_true(out->r.why != T2F_UNWIND_CAP || out->r.n == max);
}

void expect(const struct result *x, enum t2f_unwind_stop why, size_t n, const uint64_t *ips)
{
	if (x->r.why != why)
		fail_msg("stopped for \"%s\", expected \"%s\" (%zu frames)",
			 t2f_unwind_stop_name(x->r.why), t2f_unwind_stop_name(why), x->r.n);
	assert_int_equal(x->r.n, n);
	for (size_t i = 0; i < n; i++)
		if (x->ips[i] != ips[i])
			fail_msg("frame %zu: 0x%llx, expected 0x%llx", i,
				 (unsigned long long)x->ips[i], (unsigned long long)ips[i]);
}
