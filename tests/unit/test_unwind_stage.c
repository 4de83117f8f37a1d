/* tests/unit/test_unwind_stage.c: --call-graph dwarf samples of a perf.data file built in
 * memory, converted (readers/perf_data_conv.h) with the unwind stage (pipeline/unwind.h) as the
 * unwind callback, on the fixture gnu/libfx.so (tests/elf/build-fixtures.sh) mapped where an
 * MMAP2 record with its build-id says. fx_lib_work's first instruction has CFA = rsp + 8 and
 * the return address at rsp (the x86-64 CIE's rule), so a stack of return addresses
 * fx_lib_work + 1 unwinds one frame per word. Values come from the fixture's sidecar
 * (readelf), not from our reader.
 *
 * Checks: the user frames follow the kernel call chain, as file offsets of the mapping; the
 * stop reasons and their modules; a build-id that does not match: the sampled pc alone; the
 * frames whatever the number of threads; the same frames from a file, whose long stack copies
 * keep their top and are read again when a walk goes past it; registers of another
 * architecture; an architecture that cannot be unwound refused with a message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "pipeline/unwind.h"
#include "readers/perf_data_conv.h"
#include "support/fixture_env.h"
#include "support/perf_data_file.h"

#define PID 100
#define BASE 0x7f0000000000ull       /* libfx.so's first PT_LOAD (vaddr 0) is mapped here */
#define SP0 0x7ffc00001000ull
#define KIP 0xffffffff81000010ull
#define X86_MASK 0xff0fffull          /* perf's dwarf default: AX..SS, R8..R15 */
#define ST_DWARF (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD | \
		  PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)

static char libfx[PATH_MAX];
static uint8_t libfx_id[20];
static uint64_t work;                 /* fx_lib_work's vaddr */

/* The fixture's path, build-id and fx_lib_work from its sidecar (once). */
static void load_libfx(void)
{
	char path[PATH_MAX], line[512], hex[64], name[128];
	unsigned long long v;
	FILE *f;

	if (work)
		return;
	pathf(libfx, "%s/gnu/libfx.so", fx_root);
	f = fopen(pathf(path, "%s.expect", libfx), "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "buildid %63s", hex) == 1) {
			assert_int_equal(strlen(hex), 40);
			for (int i = 0; i < 20; i++)
				assert_int_equal(sscanf(hex + 2 * i, "%2hhx", &libfx_id[i]), 1);
		} else if (sscanf(line, "sym .symtab %llx %*s %*s %*s %*s %127s", &v, name) == 2 &&
			   strcmp(name, "fx_lib_work") == 0) {
			work = v;
		}
	}
	fclose(f);
	assert_true(work != 0);
}

/* fx_lib_work's first instruction where the MMAP2 maps it */
static uint64_t libfx_work(void)
{
	load_libfx();
	return BASE + work;
}

/* ---- the file ---- */

/* MMAP2 (build-id form) of libfx.so's r-x segment: [BASE + 0x1000, +0x1000) at offset 0x1000,
 * with build-id id; the trailer {pid, tid, time t}. */
static void rec_map_at(struct bb *r, const uint8_t *id, uint64_t t)
{
	size_t name = (strlen(libfx) + 1 + 7) / 8 * 8;
	uint8_t bid[24] = { 20 };

	hdr(r, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID,
	    (uint16_t)(8 + 64 + name + 16));
	u32(r, PID);
	u32(r, PID);
	u64(r, BASE + 0x1000);
	u64(r, 0x1000);
	u64(r, 0x1000);
	memcpy(bid + 4, id, 20);
	put(r, bid, sizeof(bid));
	u32(r, 5);                   /* PROT_READ | PROT_EXEC */
	u32(r, 2);                   /* MAP_PRIVATE */
	str_padded(r, libfx, name);
	u32(r, PID);
	u32(r, PID);
	u64(r, t);
}

static void rec_map(struct bb *r, const uint8_t *id)
{
	rec_map_at(r, id, 1);
}

/* A dwarf sample at time t: kernel chain {KIP}, x86_64 registers pc, sp SP0, rbp 0, the stack
 * words[0..n) of which len bytes were filled. */
static void rec_dwarf(struct bb *r, uint64_t t, uint64_t pc, const uint64_t *words, size_t n,
		      size_t len)
{
	size_t at = r->n, size;

	hdr(r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 0);
	u64(r, pc);
	u32(r, PID);
	u32(r, PID);
	u64(r, t);
	u64(r, 1);
	u64(r, 2);
	u64(r, PERF_CONTEXT_KERNEL);
	u64(r, KIP);
	u64(r, PERF_SAMPLE_REGS_ABI_64);
	for (unsigned bit = 0; bit < 24; bit++)  /* in mask order; SP 7, IP 8 */
		if (X86_MASK >> bit & 1)
			u64(r, bit == 7 ? SP0 : bit == 8 ? pc : 0);
	u64(r, 8 * n);
	for (size_t i = 0; i < n; i++)
		u64(r, words[i]);
	u64(r, len);
	size = r->n - at;
	r->b[at + 6] = (uint8_t)size;
	r->b[at + 7] = (uint8_t)(size >> 8);
}

static void file_of(struct bb *f, const struct bb *data)
{
	struct spec sp = { .n_attrs = 1, .data = data };

	sp.attrs[0] = (struct attr_spec){ .type = PERF_TYPE_SOFTWARE, .sample_type = ST_DWARF,
					  .regs_user = X86_MASK, .sample_id_all = true };
	build(f, &sp);
}

/* ---- the conversion ---- */

struct run {
	struct sink s;
	struct t2f_perf_data *pd;
	struct t2f_profile *p;
	struct t2f_unwind_stage *us;
	struct t2f_perf_data_conv *c;
	struct t2f_unwind_stats u;
};

/* f converted: from memory, or (path) from the file path after f is written there, read in
 * blocks, whose stack copies longer than 512 bytes are kept whole until unwound or, with
 * `tops`, keep their top alone and are read again on demand. */
static void convert_from(struct run *x, const struct bb *f, const char *arch, unsigned jobs,
			 const char *path, bool tops)
{
	const struct t2f_unwind_stage_opts uo = { .arch = arch, .jobs = jobs };
	struct t2f_perf_data_conv_opts o = { .unwind = t2f_unwind_stage__sample,
					     .stack_tops = tops };

	memset(x, 0, sizeof(*x));
	sink_init(&x->s);
	if (path) {
		FILE *out = fopen(path, "wb");

		assert_non_null(out);
		assert_int_equal(fwrite(f->b, 1, f->n, out), f->n);
		assert_int_equal(fclose(out), 0);
		assert_int_equal(t2f_perf_data__open(path, x->s.d, &x->pd), 0);
	} else {
		assert_int_equal(t2f_perf_data__open_mem("t.data", f->b, f->n, x->s.d, &x->pd), 0);
	}
	assert_int_equal(t2f_profile__new(&x->p), 0);
	assert_int_equal(t2f_profile__enable_log(x->p), 0);
	assert_int_equal(t2f_unwind_stage__new(&uo, x->p, x->s.d, &x->us), 0);
	o.unwind_ctx = x->us;
	assert_int_equal(t2f_perf_data_conv__new(x->pd, x->p, x->s.d, &o, &x->c), 0);
	assert_int_equal(t2f_perf_data_conv__run(x->c), 0);
	assert_int_equal(t2f_unwind_stage__add_stats(x->us, &x->u), 0);
}

static void convert(struct run *x, const struct bb *f, const char *arch, unsigned jobs)
{
	convert_from(x, f, arch, jobs, NULL, false);
}

static void done(struct run *x)
{
	t2f_unwind_stats__free(&x->u);
	t2f_perf_data_conv__free(x->c);
	t2f_unwind_stage__free(x->us);
	t2f_perf_data__free(x->pd);
	t2f_profile__free(x->p);
	sink_close(&x->s);
}

/* Sample i's stack in time order (one thread), leaf first: "MODULE@0xADDR;...", the fixture's
 * path as "libfx". */
static const char *stack_of(const struct run *x, size_t i, char *buf, size_t size)
{
	struct t2f_sample_run s;
	size_t n = 0;

	assert_int_equal(t2f_profile__thread_count(x->p), 1);
	assert_true(i < t2f_profile__thread_run_count(x->p, 1));
	s = t2f_profile__run_at(x->p, 1, i);
	buf[0] = '\0';
	for (t2f_node_id nd = s.node; nd; nd = t2f_profile__node_parent(x->p, nd)) {
		t2f_frame_id id = t2f_profile__node_frame(x->p, nd);
		const struct t2f_frame *f = t2f_profile__frame_at(x->p, id);
		const char *m = t2f_profile__str(x->p, f->module, NULL);

		n += (size_t)snprintf(buf + n, size - n, "%s%s@0x%llx", n ? ";" : "",
				      strcmp(m, libfx) == 0 ? "libfx" : m,
				      (unsigned long long)f->addr);
		assert_true(n < size);
	}
	return buf;
}

/* The stops of module path (the fixture's: "libfx"; NULL: no mapping) by reason. */
static const uint64_t *module_stops(const struct run *x, const char *path)
{
	for (size_t i = 0; i < x->u.n_modules; i++) {
		t2f_str_id id = x->u.modules[i].path;

		if (path ? id && strcmp(t2f_profile__str(x->p, id, NULL), libfx) == 0 : !id)
			return x->u.modules[i].stops;
	}
	fail_msg("no module %s in the stats", path ? path : "[none]");
	return NULL;
}

/* libfx's build-id with one bit flipped: not the file's. */
static void wrong_id(uint8_t other[20])
{
	memcpy(other, libfx_id, 20);
	other[19] ^= 1;
}

/* The stack of a sample whose walk stopped at its pc in libfx: the kernel chain, the pc. */
static const char *pc_alone(char *want, size_t size)
{
	snprintf(want, size, "[unknown]@0x%llx;libfx@0x%llx", KIP, (unsigned long long)work);
	return want;
}

/* ---- tests ---- */

/* A stack of two return addresses (fx_lib_work + 1, then an address in no mapping), the same
 * cut after 7 bytes, a pc in no mapping: the kernel chain, then the user frames. */
static void test_stage_frames(void **state)
{
	const uint64_t p = libfx_work(), words[2] = { p + 1, 0x1000 };
	struct bb d = { 0 }, f;
	struct run x;
	char buf[512], want[512];

	(void)state;
	rec_map(&d, libfx_id);
	rec_dwarf(&d, 10, p, words, 2, 16);
	rec_dwarf(&d, 11, p, words, 2, 7);
	rec_dwarf(&d, 12, 0x1000, words, 2, 16);
	file_of(&f, &d);
	convert(&x, &f, NULL, 1);
	snprintf(want, sizeof(want), "[unknown]@0x%llx;libfx@0x%llx;libfx@0x%llx;[unknown]@0xfff",
		 KIP, (unsigned long long)work, (unsigned long long)work);
	assert_string_equal(stack_of(&x, 0, buf, sizeof(buf)), want);
	assert_string_equal(stack_of(&x, 1, buf, sizeof(buf)), pc_alone(want, sizeof(want)));
	snprintf(want, sizeof(want), "[unknown]@0x%llx;[unknown]@0x1000", KIP);
	assert_string_equal(stack_of(&x, 2, buf, sizeof(buf)), want);
	assert_int_equal(x.u.samples, 3);
	assert_int_equal(x.u.frames, 3 + 1 + 1);
	assert_int_equal(x.u.stops[T2F_UNWIND_NO_MAP], 2);
	assert_int_equal(x.u.stops[T2F_UNWIND_MEMORY], 1);
	assert_int_equal(x.u.n_modules, 2);
	assert_int_equal(module_stops(&x, NULL)[T2F_UNWIND_NO_MAP], 2);
	assert_int_equal(module_stops(&x, "libfx")[T2F_UNWIND_MEMORY], 1);
	assert_string_equal(sink_text(&x.s), "");
	done(&x);
}

/* The recording's build-id is not the file's: the file is not used, the sampled pc alone. */
static void test_stage_wrong_build_id(void **state)
{
	const uint64_t p = libfx_work(), words[2] = { p + 1, 0x1000 };
	uint8_t other[20];
	struct bb d = { 0 }, f;
	struct run x;
	char buf[512], want[512];

	(void)state;
	wrong_id(other);
	rec_map(&d, other);
	rec_dwarf(&d, 10, p, words, 2, 16);
	file_of(&f, &d);
	convert(&x, &f, NULL, 1);
	assert_string_equal(stack_of(&x, 0, buf, sizeof(buf)), pc_alone(want, sizeof(want)));
	assert_int_equal(x.u.samples, 1);
	assert_int_equal(x.u.stops[T2F_UNWIND_NO_FILE], 1);
	assert_int_equal(module_stops(&x, "libfx")[T2F_UNWIND_NO_FILE], 1);
	done(&x);
}

/* The same stack of one process (to the outermost frame: walked through the decoded rules)
 * before and after its mapping is replaced by one whose build-id is not the file's (a batch
 * each): the mapping is asked for again, so the last sample stops at its pc (the file not
 * used), as it would alone. */
static void test_stage_maps_changed(void **state)
{
	const uint64_t p = libfx_work(), words[2] = { p + 1, 0 };
	uint8_t other[20];
	struct bb d = { 0 }, f;
	struct run x;
	char buf[512], want[512];

	(void)state;
	wrong_id(other);
	rec_map(&d, libfx_id);
	rec_dwarf(&d, 10, p, words, 2, 16);
	rec_dwarf(&d, 11, p, words, 2, 16);
	rec_map_at(&d, other, 20);
	rec_dwarf(&d, 30, p, words, 2, 16);
	file_of(&f, &d);
	convert(&x, &f, NULL, 1);
	snprintf(want, sizeof(want), "[unknown]@0x%llx;libfx@0x%llx;libfx@0x%llx", KIP,
		 (unsigned long long)work, (unsigned long long)work);
	assert_string_equal(stack_of(&x, 0, buf, sizeof(buf)), want); /* the first two: one run */
	assert_int_equal(t2f_profile__run_at(x.p, 1, 0).samples, 2);
	assert_string_equal(stack_of(&x, 1, buf, sizeof(buf)), pc_alone(want, sizeof(want)));
	assert_int_equal(x.u.samples, 3);
	assert_int_equal(x.u.stops[T2F_UNWIND_END], 2);
	assert_int_equal(x.u.stops[T2F_UNWIND_NO_FILE], 1);
	assert_int_equal(x.u.rules, 2); /* the first two walked, not given to libdwfl */
	done(&x);
}

/* 48 samples of 0-4 return addresses, some cut short, some 0, some pcs in no mapping: the same
 * frames and counts with 1, 2 and 3 threads (16 samples a thread at least). */
static void test_stage_jobs(void **state)
{
	static struct bb d, f;
	const uint64_t p = libfx_work();
	uint64_t words[6];
	struct t2f_unwind_stats one = { 0 };
	char a[512], b[512];
	struct run x, y;

	(void)state;
	memset(&d, 0, sizeof(d));
	rec_map(&d, libfx_id);
	for (size_t i = 0; i < 48; i++) {
		size_t k = i % 5;

		for (size_t j = 0; j < k; j++)
			words[j] = p + 1;
		words[k] = i % 3 ? 0x1000 : 0;
		rec_dwarf(&d, 10 + i, i % 7 ? p : 0x1000, words, k + 1, 8 * (k + 1) - (i % 4 == 1));
	}
	file_of(&f, &d);
	convert(&x, &f, NULL, 1);
	one = x.u;
	assert_int_equal(one.samples, 48);
	assert_true(one.stops[T2F_UNWIND_END] && one.stops[T2F_UNWIND_NO_MAP] &&
		    one.stops[T2F_UNWIND_MEMORY]); /* return addresses of 0, pcs elsewhere, cuts */
	for (unsigned jobs = 2; jobs <= 3; jobs++) {
		convert(&y, &f, NULL, jobs);
		for (size_t i = 0; i < 48; i++)
			assert_string_equal(stack_of(&x, i, a, sizeof(a)),
					    stack_of(&y, i, b, sizeof(b)));
		assert_int_equal(y.u.samples, one.samples);
		assert_int_equal(y.u.frames, one.frames);
		assert_memory_equal(y.u.stops, one.stops, sizeof(one.stops));
		done(&y);
	}
	done(&x);
}

/* Stacks of 1 KiB from a file: 120 return addresses and an end (0) inside the copy, a walk
 * that needs all of them; 2 and an end, inside the copy's first 512 bytes; 120 and an address
 * in no mapping (libdwfl's unwinder ends there); 120 of which 900 bytes were filled (a read
 * outside the copy). The same frames and counts as from memory (every copy whole), with 1 and
 * 2 threads, the copies kept whole or read again past their top. */
static void test_stage_file(void **state)
{
	static struct bb d, f;
	const uint64_t p = libfx_work();
	static const size_t ends[4][2] = { { 120, 1024 }, { 2, 1024 }, { 120, 1024 },
					   { 120, 900 } };
	uint64_t words[128];
	char path[PATH_MAX], a[8192], b[8192];
	struct run x, y;

	(void)state;
	memset(&d, 0, sizeof(d));
	rec_map(&d, libfx_id);
	for (size_t i = 0; i < 4; i++) {
		for (size_t j = 0; j < 128; j++)
			words[j] = j < ends[i][0] ? p + 1 : i == 2 ? 0x1000 : 0;
		rec_dwarf(&d, 10 + i, p, words, 128, ends[i][1]);
	}
	file_of(&f, &d);
	convert(&x, &f, NULL, 1);
	assert_int_equal(x.u.samples, 4);
	assert_int_equal(x.u.stops[T2F_UNWIND_END], 2);
	assert_int_equal(x.u.stops[T2F_UNWIND_NO_MAP], 1);
	assert_int_equal(x.u.stops[T2F_UNWIND_MEMORY], 1);
	assert_int_equal(x.u.frames, 121 + 3 + 122 + 113);
	pathf(path, "%s/unwind-stage-%d.data", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
	      (int)getpid());
	for (unsigned k = 0; k < 4; k++) { /* jobs 1 and 2, tops alone or copies whole */
		convert_from(&y, &f, NULL, 1 + k % 2, path, k >= 2);
		for (size_t i = 0; i < 4; i++)
			assert_string_equal(stack_of(&x, i, a, sizeof(a)),
					    stack_of(&y, i, b, sizeof(b)));
		assert_int_equal(y.u.frames, x.u.frames);
		assert_memory_equal(y.u.stops, x.u.stops, sizeof(x.u.stops));
		assert_int_equal(t2f_perf_data_conv__stats(y.c)->stacks_whole, k >= 2 ? 0 : 4);
		assert_string_equal(sink_text(&y.s), "");
		done(&y);
	}
	unlink(path);
	done(&x);
}

/* x86_64 registers read as aarch64's (no PC in the mask): not unwound, the kernel chain kept;
 * an architecture that cannot be unwound: refused, saying which. */
static void test_stage_arch(void **state)
{
	const uint64_t p = libfx_work(), words[2] = { p + 1, 0x1000 };
	const struct t2f_unwind_stage_opts mips = { .arch = "mips" };
	struct t2f_unwind_stage *us = (struct t2f_unwind_stage *)&us;
	struct bb d = { 0 }, f;
	struct run x;
	char buf[512], want[512];

	(void)state;
	rec_map(&d, libfx_id);
	rec_dwarf(&d, 10, p, words, 2, 16);
	file_of(&f, &d);
	convert(&x, &f, "aarch64", 1);
	snprintf(want, sizeof(want), "[unknown]@0x%llx", KIP);
	assert_string_equal(stack_of(&x, 0, buf, sizeof(buf)), want);
	assert_int_equal(x.u.samples, 1);
	assert_int_equal(x.u.stops[T2F_UNWIND_NO_REGS], 1);
	assert_int_equal(x.u.frames, 0);
	assert_int_equal(t2f_unwind_stage__new(&mips, x.p, x.s.d, &us), -T2F_ERR_UNSUPPORTED);
	assert_null(us);
	assert_string_equal(t2f_diag__last_error(x.s.d), "<input>: --call-graph dwarf samples of "
			    "a mips machine cannot be unwound here (x86_64 and aarch64 only)");
	done(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stage_frames),
		cmocka_unit_test(test_stage_wrong_build_id),
		cmocka_unit_test(test_stage_maps_changed),
		cmocka_unit_test(test_stage_jobs),
		cmocka_unit_test(test_stage_file),
		cmocka_unit_test(test_stage_arch),
	};

	return cmocka_run_group_tests(tests, fx_group_setup, fx_group_teardown);
}
