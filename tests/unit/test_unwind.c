/* tests/unit/test_unwind.c: the user-stack unwinder (symbolizer/unwind.h).
 *
 * Registers: perf's sample registers → DWARF registers for x86_64 and aarch64, from crafted
 * register arrays. perf's numbering is the kernel's uapi perf_regs.h of each architecture
 * (support/unwind_support.h); DWARF's is each psABI's (x86-64: rax rdx rcx rbx rsi rdi rbp rsp
 * 0..7, r8..r15 8..15, the return address 16; AArch64: x0..x30 0..30, sp 31, pc has none).
 *
 * Unwinding: on the fixture gnu/libfx.so (built by tests/elf/build-fixtures.sh; its .eh_frame
 * has an FDE for fx_lib_work, whose first instruction has CFA = rsp + 8 and the return address
 * at CFA - 8, the x86-64 CIE's rule): samples with registers pointing anywhere, files at biases
 * that wrap past 2^64, process ids no process has, stack copies of every short length. Each
 * unwind must end, keep to its frame limit and give the stop reason its input calls for.
 * (test_unwind_crafted.c: ELF files crafted with broken call-frame information.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <linux/perf_event.h>

#include "support/elf_fixtures.h"
#include "support/fixture_env.h"
#include "support/unwind_support.h"
#include "symbolizer/unwind.h"

/* ---- registers ---- */

/* The registers of mask, lowest bit first, each 0x1000 + its perf number. */
static uint32_t fill_regs(uint64_t mask, uint64_t *regs)
{
	uint32_t k = 0;

	for (unsigned bit = 0; bit < 64; bit++)
		if (mask >> bit & 1)
			regs[k++] = 0x1000 + bit;
	return k;
}

static void test_regs_x86_64(void **state)
{
	/* DWARF number → perf number */
	static const unsigned from[17] = { P_AX, P_DX, P_CX, P_BX, P_SI, P_DI, P_BP, P_SP,
					   P_R8, P_R8 + 1, P_R8 + 2, P_R8 + 3, P_R8 + 4,
					   P_R8 + 5, P_R8 + 6, P_R8 + 7, P_IP };
	uint64_t regs[64];
	struct t2f_unwind_regs r;
	uint32_t nr = fill_regs(X86_DWARF_MASK, regs);

	(void)state;
	assert_int_equal(nr, 20);
	assert_true(t2f_unwind_regs_from_perf(T2F_UNWIND_X86_64, PERF_SAMPLE_REGS_ABI_64,
					      X86_DWARF_MASK, regs, nr, &r));
	assert_int_equal(r.arch, T2F_UNWIND_X86_64);
	assert_int_equal(r.have, 0x1ffff);
	for (unsigned d = 0; d < 17; d++)
		assert_int_equal(r.val[d], 0x1000 + from[d]);
	assert_int_equal(r.pc, 0x1000 + P_IP);
	assert_int_equal(r.sp, 0x1000 + P_SP);

	/* every bit: the same registers, nothing beyond R15 */
	nr = fill_regs(UINT64_MAX, regs);
	assert_true(t2f_unwind_regs_from_perf(T2F_UNWIND_X86_64, PERF_SAMPLE_REGS_ABI_64,
					      UINT64_MAX, regs, nr, &r));
	assert_int_equal(r.have, 0x1ffff);
	for (unsigned d = 0; d < 17; d++)
		assert_int_equal(r.val[d], 0x1000 + from[d]);

	/* only SP and IP */
	regs[0] = 0x7ffc0000;
	regs[1] = 0x401000;
	assert_true(t2f_unwind_regs_from_perf(T2F_UNWIND_X86_64, PERF_SAMPLE_REGS_ABI_64,
					      1u << P_SP | 1u << P_IP, regs, 2, &r));
	assert_int_equal(r.have, 1u << 7 | 1u << 16);
	assert_int_equal(r.sp, 0x7ffc0000);
	assert_int_equal(r.pc, 0x401000);
	assert_int_equal(r.val[16], 0x401000);
}

static void test_regs_aarch64(void **state)
{
	uint64_t regs[64];
	struct t2f_unwind_regs r;
	uint32_t nr = fill_regs(A64_DWARF_MASK, regs);

	(void)state;
	assert_int_equal(nr, 33);
	assert_true(t2f_unwind_regs_from_perf(T2F_UNWIND_AARCH64, PERF_SAMPLE_REGS_ABI_64,
					      A64_DWARF_MASK, regs, nr, &r));
	assert_int_equal(r.arch, T2F_UNWIND_AARCH64);
	assert_int_equal(r.have, 0xffffffffull); /* x0..x30, sp: the pc has no DWARF number */
	for (unsigned d = 0; d <= 31; d++)
		assert_int_equal(r.val[d], 0x1000 + d);
	assert_int_equal(r.sp, 0x1000 + 31);
	assert_int_equal(r.pc, 0x1000 + 32);

	nr = fill_regs(UINT64_MAX, regs); /* bits past PC: no register */
	assert_true(t2f_unwind_regs_from_perf(T2F_UNWIND_AARCH64, PERF_SAMPLE_REGS_ABI_64,
					      UINT64_MAX, regs, nr, &r));
	assert_int_equal(r.have, 0xffffffffull);
	assert_int_equal(r.pc, 0x1000 + 32);
}

/* No pc or sp, a 32-bit or absent ABI, no architecture, registers cut short: refused. */
static void test_regs_refused(void **state)
{
	uint64_t regs[64];
	struct t2f_unwind_regs r;
	uint32_t nr;

	(void)state;
	nr = fill_regs(X86_DWARF_MASK & ~(1ull << P_IP), regs);
	assert_false(t2f_unwind_regs_from_perf(T2F_UNWIND_X86_64, PERF_SAMPLE_REGS_ABI_64,
					       X86_DWARF_MASK & ~(1ull << P_IP), regs, nr, &r));
	nr = fill_regs(X86_DWARF_MASK & ~(1ull << P_SP), regs);
	assert_false(t2f_unwind_regs_from_perf(T2F_UNWIND_X86_64, PERF_SAMPLE_REGS_ABI_64,
					       X86_DWARF_MASK & ~(1ull << P_SP), regs, nr, &r));
	nr = fill_regs(A64_DWARF_MASK >> 1, regs); /* no PC */
	assert_false(t2f_unwind_regs_from_perf(T2F_UNWIND_AARCH64, PERF_SAMPLE_REGS_ABI_64,
					       A64_DWARF_MASK >> 1, regs, nr, &r));
	nr = fill_regs(A64_DWARF_MASK & ~(1ull << 31), regs); /* no SP */
	assert_false(t2f_unwind_regs_from_perf(T2F_UNWIND_AARCH64, PERF_SAMPLE_REGS_ABI_64,
					       A64_DWARF_MASK & ~(1ull << 31), regs, nr, &r));

	nr = fill_regs(X86_DWARF_MASK, regs);
	assert_false(t2f_unwind_regs_from_perf(T2F_UNWIND_X86_64, PERF_SAMPLE_REGS_ABI_32,
					       X86_DWARF_MASK, regs, nr, &r));
	assert_false(t2f_unwind_regs_from_perf(T2F_UNWIND_X86_64, PERF_SAMPLE_REGS_ABI_NONE,
					       X86_DWARF_MASK, regs, nr, &r));
	assert_false(t2f_unwind_regs_from_perf(T2F_UNWIND_ARCH_NONE, PERF_SAMPLE_REGS_ABI_64,
					       X86_DWARF_MASK, regs, nr, &r));
	assert_false(t2f_unwind_regs_from_perf(T2F_UNWIND_X86_64, PERF_SAMPLE_REGS_ABI_64,
					       X86_DWARF_MASK, NULL, nr, &r));
	/* the registers stop after SP: IP (the 9th) missing; with it, R8.. missing is fine */
	assert_false(t2f_unwind_regs_from_perf(T2F_UNWIND_X86_64, PERF_SAMPLE_REGS_ABI_64,
					       X86_DWARF_MASK, regs, 8, &r));
	assert_true(t2f_unwind_regs_from_perf(T2F_UNWIND_X86_64, PERF_SAMPLE_REGS_ABI_64,
					      X86_DWARF_MASK, regs, 9, &r));
	assert_int_equal(r.have, 0x100ff);
	assert_false(t2f_unwind_regs_from_perf(T2F_UNWIND_X86_64, PERF_SAMPLE_REGS_ABI_64,
					       X86_DWARF_MASK, regs, 0, &r));
}

static void test_arch_of(void **state)
{
	(void)state;
	assert_int_equal(t2f_unwind_arch_of("x86_64"), T2F_UNWIND_X86_64);
	assert_int_equal(t2f_unwind_arch_of("aarch64"), T2F_UNWIND_AARCH64);
	assert_int_equal(t2f_unwind_arch_of("arm64"), T2F_UNWIND_AARCH64);
	assert_int_equal(t2f_unwind_arch_of("i686"), T2F_UNWIND_ARCH_NONE);
	assert_int_equal(t2f_unwind_arch_of("ppc64le"), T2F_UNWIND_ARCH_NONE);
	assert_int_equal(t2f_unwind_arch_of("x86_64 "), T2F_UNWIND_ARCH_NONE);
	assert_int_equal(t2f_unwind_arch_of(""), T2F_UNWIND_ARCH_NONE);
#if defined(__x86_64__)
	assert_int_equal(t2f_unwind_arch_of(NULL), T2F_UNWIND_X86_64);
#elif defined(__aarch64__)
	assert_int_equal(t2f_unwind_arch_of(NULL), T2F_UNWIND_AARCH64);
#endif
	assert_string_equal(t2f_unwind_stop_name(T2F_UNWIND_MEMORY),
			    "read outside the copied stack");
	assert_string_equal(t2f_unwind_stop_name(T2F_UNWIND_STOPS), "?");
}

/* ---- the fixture: gnu/libfx.so at BASE ---- */

/* fx_lib_work's first instruction, mapped at BASE (from the fixture's sidecar) */
static uint64_t work_pc(void)
{
	static uint64_t at;

	if (!at) {
		struct expect *x = load_expect("gnu/libfx.so", NULL);
		const struct xsym *s = xsym_named(x, "fx_lib_work");

		assert_non_null(s);
		at = BASE + s->value;
		free(x);
	}
	return at;
}

static void map_libfx(struct maps *ms)
{
	map_one(ms, fx_path("gnu/libfx.so"), &libfx_id);
}

/* At fx_lib_work's entry the return address is at sp; the caller's pc is its entry again (the
 * return address is the entry + 1), whose caller's return address is at sp + 8. */
static void test_fixture_walk(void **state)
{
	const uint64_t p = work_pc(), stack[2] = { p + 1, 0x1000 };
	const uint64_t want[3] = { p, p, 0xfff };
	struct maps ms;
	struct t2f_unwinder *u;
	struct t2f_unwind_regs r;
	struct result x;

	(void)state;
	need("gnu/libfx.so", "gnu");
	map_libfx(&ms);
	u = unwinder(&ms);
	r = regs_x86(p, SP0, 0);
	unwind(u, 1, &r, stack, sizeof(stack), MAXF, &x);
	expect(&x, T2F_UNWIND_NO_MAP, 3, want); /* 0x1000 is in no mapping */
	assert_int_equal(x.r.stop_pc, 0x1000);
	/* the same stack at sp 0: the same frames */
	r = regs_x86(p, 0, 0);
	unwind(u, 1, &r, stack, sizeof(stack), MAXF, &x);
	expect(&x, T2F_UNWIND_NO_MAP, 3, want);
	/* frame limits: 2, 1; none */
	unwind(u, 1, &r, stack, sizeof(stack), 2, &x);
	expect(&x, T2F_UNWIND_CAP, 2, want);
	unwind(u, 1, &r, stack, sizeof(stack), 1, &x);
	expect(&x, T2F_UNWIND_CAP, 1, want);
	assert_int_equal(t2f_unwinder__unwind(u, 1, 1, &r, (const uint8_t *)stack, sizeof(stack),
					      x.ips, 0, &x.r), 0);
	assert_int_equal(x.r.n, 0);
	assert_int_equal(x.r.why, T2F_UNWIND_NO_REGS);
	t2f_unwinder__free(u);
}

/* A return address in no mapping, with a frame pointer into the copy whose frame holds a return
 * address into the file: the caller of the unmapped frame would be a guess (libdwfl's
 * frame-pointer fallback takes it), so the unwind ends at the unmapped frame. */
static void test_fixture_unmapped_caller(void **state)
{
	const uint64_t p = work_pc(), stack[5] = { p + 1, 0x1000, 0, p + 1, 0 };
	const uint64_t want[3] = { p, p, 0xfff };
	struct maps ms;
	struct t2f_unwinder *u;
	struct t2f_unwind_regs r = regs_x86(p, SP0, SP0 + 16);
	struct result x;

	(void)state;
	need("gnu/libfx.so", "gnu");
	map_libfx(&ms);
	u = unwinder(&ms);
	unwind(u, 1, &r, stack, sizeof(stack), MAXF, &x);
	expect(&x, T2F_UNWIND_NO_MAP, 3, want);
	assert_int_equal(x.r.stop_pc, 0x1000);
	ms.m[1] = (struct t2f_unwind_map){ 0x1000, 0x2000, NULL, NULL, 0, 0 }; /* no file */
	ms.n = 2;
	unwind(u, 2, &r, stack, sizeof(stack), MAXF, &x);
	expect(&x, T2F_UNWIND_NO_FILE, 3, want);
	t2f_unwinder__free(u);
}

/* A return address in the mapping but past the file's segments: the walk through the decoded
 * rules and libdwfl's unwinder both end there, the file not holding the address. */
static void test_fixture_past_segments(void **state)
{
	const uint64_t p = work_pc(), past = BASE + SPAN - 0x10;
	const uint64_t stack[2] = { past + 1, 0 }, want[2] = { p, past };
	struct maps ms;
	struct t2f_unwinder *u;
	struct t2f_unwind_regs r = regs_x86(p, SP0, 0);
	struct result x;

	(void)state;
	need("gnu/libfx.so", "gnu");
	map_libfx(&ms);
	u = unwinder(&ms);
	assert_int_equal(t2f_unwinder__walk(u, 1, &r, (const uint8_t *)stack, sizeof(stack),
					    x.ips, MAXF, &x.r), 1);
	expect(&x, T2F_UNWIND_NO_FILE, 2, want);
	unwind(u, 2, &r, stack, sizeof(stack), MAXF, &x);
	expect(&x, T2F_UNWIND_NO_FILE, 2, want);
	t2f_unwinder__free(u);
}

/* Stack copies of every length from 0 to 17: the frames found before the first read past the
 * copy's end, then a stop for that read. */
static void test_fixture_short_stacks(void **state)
{
	const uint64_t p = work_pc(), words[3] = { p + 1, 0x1000, 0 };
	const uint64_t want[3] = { p, p, 0xfff };
	uint8_t *stack;
	struct maps ms;
	struct t2f_unwinder *u;
	struct t2f_unwind_regs r = regs_x86(p, SP0, 0);
	struct result x;

	(void)state;
	need("gnu/libfx.so", "gnu");
	map_libfx(&ms);
	u = unwinder(&ms);
	for (size_t len = 0; len <= 17; len++) {
		stack = malloc(len ? len : 1); /* exactly len bytes: a read past them is caught */
		assert_non_null(stack);
		memcpy(stack, words, len);
		unwind(u, 1, &r, len ? stack : NULL, len, MAXF, &x);
		if (len < 8)
			expect(&x, T2F_UNWIND_MEMORY, 1, want);
		else if (len < 16)
			expect(&x, T2F_UNWIND_MEMORY, 2, want);
		else
			expect(&x, T2F_UNWIND_NO_MAP, 3, want);
		free(stack);
	}
	t2f_unwinder__free(u);
}

/* A stack pointer 4 bytes below 2^64: the caller's stack pointer wraps to 3, below the copy. */
static void test_fixture_sp_wraps(void **state)
{
	const uint64_t p = work_pc(), stack[4] = { p + 1, p + 1, p + 1, p + 1 };
	const uint64_t want[2] = { p, p };
	struct maps ms;
	struct t2f_unwinder *u;
	struct t2f_unwind_regs r = regs_x86(p, UINT64_MAX - 4, 0);
	struct result x;

	(void)state;
	need("gnu/libfx.so", "gnu");
	map_libfx(&ms);
	u = unwinder(&ms);
	unwind(u, 1, &r, stack, sizeof(stack), MAXF, &x);
	expect(&x, T2F_UNWIND_MEMORY, 2, want);
	t2f_unwinder__free(u);
}

/* Every return address fx_lib_work's entry + 1: a new frame 8 bytes up each time (no loop),
 * until the limit, or the end of a 64 KiB copy past the limit. */
static void test_fixture_deep(void **state)
{
	const size_t words = 8192;
	uint64_t *stack = malloc(words * 8), want[MAXF];
	const uint64_t p = work_pc();
	struct maps ms;
	struct t2f_unwinder *u;
	struct t2f_unwind_regs r = regs_x86(p, SP0, 0);
	struct result x;

	(void)state;
	need("gnu/libfx.so", "gnu");
	assert_non_null(stack);
	for (size_t i = 0; i < words; i++)
		stack[i] = p + 1;
	for (size_t i = 0; i < MAXF; i++)
		want[i] = p;
	map_libfx(&ms);
	u = unwinder(&ms);
	unwind(u, 1, &r, stack, words * 8, MAXF, &x);
	expect(&x, T2F_UNWIND_CAP, MAXF, want);
	unwind(u, 1, &r, stack, words * 8, 10, &x);
	expect(&x, T2F_UNWIND_CAP, 10, want);
	unwind(u, 1, &r, stack, 5 * 8, MAXF, &x); /* 5 return addresses: 6 frames */
	expect(&x, T2F_UNWIND_MEMORY, 6, want);
	t2f_unwinder__free(u);
	free(stack);
}

/* pc in no mapping, in a mapping without a file, in a file that is not ELF, past the file's
 * segments: the first frame alone, and why. pc 0: no frame. */
static void test_fixture_first_frame(void **state)
{
	const uint64_t p = work_pc(), stack[2] = { p + 1, 0x1000 };
	const uint64_t out = 0x1000, past = BASE + SPAN - 0x10;
	char text[PATH_MAX];
	struct maps ms;
	struct t2f_unwinder *u;
	struct t2f_unwind_regs r;
	struct result x;
	FILE *f;

	(void)state;
	need("gnu/libfx.so", "gnu");
	map_libfx(&ms);
	u = unwinder(&ms);
	r = regs_x86(out, SP0, 0);
	unwind(u, 2, &r, stack, sizeof(stack), MAXF, &x);
	expect(&x, T2F_UNWIND_NO_MAP, 1, &out);
	assert_int_equal(x.r.stop_pc, out);
	r = regs_x86(0, SP0, 0);
	unwind(u, 2, &r, stack, sizeof(stack), MAXF, &x);
	expect(&x, T2F_UNWIND_NO_MAP, 0, NULL);
	r = regs_x86(past, SP0, 0);
	unwind(u, 2, &r, stack, sizeof(stack), MAXF, &x);
	expect(&x, T2F_UNWIND_NO_FILE, 1, &past);
	/* the file at biases whose segments wrap past 2^64, or start at 2^64 - 4096 */
	for (uint64_t top = 0x1000; top <= 0x2000000; top <<= 5) {
		const uint64_t at = UINT64_MAX - top + 1 + (work_pc() - BASE);

		ms.m[0] = (struct t2f_unwind_map){ 0x1000, UINT64_MAX, &libfx_id, ms.m[0].path,
						   UINT64_MAX - top + 1, 0 };
		r = regs_x86(at, SP0, 0);
		unwind(u, 20 + (int64_t)top, &r, stack, sizeof(stack), MAXF, &x);
		assert_true(x.r.n >= 1 && x.ips[0] == at);
	}
	t2f_unwinder__free(u);

	map_libfx(&ms);
	ms.m[0].file = NULL; /* the mapping's file was not found */
	u = unwinder(&ms);
	r = regs_x86(p, SP0, 0);
	unwind(u, 3, &r, stack, sizeof(stack), MAXF, &x);
	expect(&x, T2F_UNWIND_NO_FILE, 1, &p);
	t2f_unwinder__free(u);

	f = fopen(pathf(text, "%s/not-elf", tmp), "w");
	assert_non_null(f);
	fputs("this is not an ELF file\n", f);
	assert_int_equal(fclose(f), 0);
	map_one(&ms, text, &crafted_id);
	u = unwinder(&ms);
	unwind(u, 4, &r, stack, sizeof(stack), MAXF, &x);
	expect(&x, T2F_UNWIND_NO_FILE, 1, &p);
	t2f_unwinder__free(u);
}

/* The zoo (no FDE covers it): libdwfl's frame-pointer fallback would take rbp at sp + 16 and
 * its frame {0, return address} for the caller; the unwind ends at zoo instead, whatever that
 * frame holds (a return address of 0, a cycle of frame pointers). */
static void test_fixture_frame_pointers(void **state)
{
	const uint64_t zoo = BASE + ZOO_BASE + 0x10, p = work_pc();
	uint64_t stack[6] = { 0, 0, 0, p + 1, 0x1000, 0 };
	const uint64_t want[1] = { zoo };
	struct maps ms;
	struct t2f_unwinder *u;
	struct t2f_unwind_regs r = regs_x86(zoo, SP0, SP0 + 16);
	struct result x;

	(void)state;
	need("gnu/libfx.so", "gnu");
	map_libfx(&ms);
	u = unwinder(&ms);
	/* zoo has no call-frame rules: its caller would be a guess from the frame pointer
	 * (fx_lib_work's entry + 1 at sp + 24), so the unwind ends at zoo */
	unwind(u, 5, &r, stack, sizeof(stack), MAXF, &x);
	expect(&x, T2F_UNWIND_NO_CFI, 1, want);
	/* a return address of 0 */
	stack[3] = 0;
	unwind(u, 5, &r, stack, sizeof(stack), MAXF, &x);
	assert_true(x.r.n >= 1 && x.ips[0] == zoo);
	for (size_t i = 0; i < x.r.n; i++)
		if (x.ips[i] == 0 || x.ips[i] == UINT64_MAX)
			fail_msg("frame %zu of a zero return address: 0x%llx", i,
				 (unsigned long long)x.ips[i]);
	assert_int_equal(x.r.n, 1);
	/* frame pointers in a cycle of two whose return addresses are 0 (and 1: pc - 1 is 0):
	 * frames that are never written must end the unwind as well */
	for (uint64_t ra = 0; ra <= 1; ra++) {
		uint64_t cycle[6] = { 0, 0, SP0 + 32, ra, SP0 + 16, ra };

		unwind(u, 6, &r, cycle, sizeof(cycle), MAXF, &x);
		expect(&x, T2F_UNWIND_NO_CFI, 1, &zoo);
	}
	t2f_unwinder__free(u);
	/* the same frame as the file's entry point's code (ld.so's _start has no FDE either): the
	 * outermost frame, not a stop for want of rules; 64 bytes on, a stop again */
	ms.m[0].entry = ZOO_BASE;
	u = unwinder(&ms);
	unwind(u, 7, &r, stack, sizeof(stack), MAXF, &x);
	expect(&x, T2F_UNWIND_END, 1, want);
	t2f_unwinder__free(u);
	ms.m[0].entry = ZOO_BASE + 0x10 - 64;
	u = unwinder(&ms);
	unwind(u, 7, &r, stack, sizeof(stack), MAXF, &x);
	expect(&x, T2F_UNWIND_NO_CFI, 1, want);
	t2f_unwinder__free(u);
}

/* A process whose mapping changed (another file at the same range): its session is rebuilt. */
static void test_fixture_stale_session(void **state)
{
	const uint64_t p = work_pc(), stack[2] = { p + 1, 0x1000 };
	const uint64_t want[3] = { p, p, 0xfff };
	struct maps ms;
	struct t2f_unwinder *u;
	struct t2f_unwind_regs r = regs_x86(p, SP0, 0);
	struct result x;

	(void)state;
	need("gnu/libfx.so", "gnu");
	map_libfx(&ms);
	ms.m[0].file = &crafted_id; /* another identity for the same file */
	u = unwinder(&ms);
	unwind(u, 7, &r, stack, sizeof(stack), MAXF, &x);
	expect(&x, T2F_UNWIND_NO_MAP, 3, want);
	ms.m[0].file = &libfx_id;
	unwind(u, 7, &r, stack, sizeof(stack), MAXF, &x);
	expect(&x, T2F_UNWIND_NO_MAP, 3, want);
	ms.m[0].bias = BASE + 0x1000; /* the same file at another bias: p is not fx_lib_work */
	unwind(u, 7, &r, stack, sizeof(stack), MAXF, &x);
	assert_true(x.r.n >= 1 && x.ips[0] == p);
	/* more processes than sessions, then the first again */
	ms.m[0].bias = BASE;
	for (int64_t pid = 100; pid < 100 + T2F_UNWIND_SESSIONS + 6; pid++) {
		unwind(u, pid, &r, stack, sizeof(stack), MAXF, &x);
		expect(&x, T2F_UNWIND_NO_MAP, 3, want);
	}
	unwind(u, 100, &r, stack, sizeof(stack), MAXF, &x);
	expect(&x, T2F_UNWIND_NO_MAP, 3, want);
	/* process ids no process has (perf's -1, past pid_t) */
	unwind(u, -1, &r, stack, sizeof(stack), MAXF, &x);
	expect(&x, T2F_UNWIND_NO_MAP, 3, want);
	unwind(u, INT64_MIN, &r, stack, sizeof(stack), MAXF, &x);
	expect(&x, T2F_UNWIND_NO_MAP, 3, want);
	t2f_unwinder__free(u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_regs_x86_64),
		cmocka_unit_test(test_regs_aarch64),
		cmocka_unit_test(test_regs_refused),
		cmocka_unit_test(test_arch_of),
		FX_TEST(test_fixture_walk),
		FX_TEST(test_fixture_unmapped_caller),
		FX_TEST(test_fixture_past_segments),
		FX_TEST(test_fixture_short_stacks),
		FX_TEST(test_fixture_sp_wraps),
		FX_TEST(test_fixture_deep),
		FX_TEST(test_fixture_first_frame),
		FX_TEST(test_fixture_frame_pointers),
		FX_TEST(test_fixture_stale_session),
	};

	if (elf_fixtures_init("test_unwind"))
		return 1;
	return cmocka_run_group_tests(tests, fx_group_setup, fx_group_teardown);
}
