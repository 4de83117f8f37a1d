/* tests/unit/test_sym_ahead.c: symbol files searched ahead of their lookups on a thread
 * (t2f_symbolizer__search_ahead, symbolizer/sym_ahead.c), on the ELF fixtures:
 *   - what is taken was searched ahead: once the thread is idle, copies of gnu/prog and
 *     gnu/libfx.so are removed, and both still resolve (fx_first+0x10); without the thread (one
 *     thread) the same lookups find no file;
 *   - the same answers and the same warnings, in the same order, as searches made in place
 *     (listed in one order, looked up in the other): a file found, one gone, two of another
 *     build (refused; with unsafe_build_id_match taken, each with a warning at its first
 *     lookup), a MiniDebugInfo file (its symbols decompressed: asked of the budget, so searched
 *     again in place) and a stripped binary (no symbols); every file listed, all but the
 *     MiniDebugInfo one taken;
 *   - a file with a symbol cache file, or without a build-id, is not listed;
 *   - a lazy DWARF handle (t2f_symbolizer__dwarf_lazy, what the inline stage queues lookups
 *     for): none at once for a file without .debug_info (sunw/libfx.so), a handle to begin
 *     later for one with units (gnu/prog).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "formats/strtab.h"
#include "support/diag_sink.h"
#include "support/fixture_env.h"
#include "symbolizer/dwarf.h"
#include "symbolizer/symbolizer.h"
#include "symbolizer/symbolizer_internal.h"

#define ZOO_FIRST 0x2000000ULL /* fx_first (fixtures/elf/zoo.c, pinned) */
#define ID_PROG "fb3b0edf3e68407b19a4a4bbe5d42516566925be" /* gnu/prog (build-ids) */
#define ID_V2 "14d76d240a51f8e3550cf8687fa39a03891d4671"   /* gnu/prog-v2 */

struct run {
	struct sink sink;
	struct t2f_strtab *names;
	struct t2f_symbolizer *s;
};

/* A symbolizer on `threads` threads that sees no debug file; its warnings in r->sink. */
static void run_open(struct run *r, unsigned threads, bool unsafe, const char *cache)
{
	char debug[PATH_MAX], none[PATH_MAX], perf[PATH_MAX];
	const char *dirs[] = { pathf(debug, "%s/none", tmp), NULL };
	struct t2f_symbolizer_opts o = {
		.find = { .debug_dirs = dirs, .debuginfod_cache = pathf(none, "%s/none", tmp),
			  .perf_cache = pathf(perf, "%s/none", tmp),
			  .unsafe_build_id_match = unsafe },
		.demangle = T2F_DEMANGLE_NONE,
		.threads = threads,
		.cache = cache != NULL,
		.cache_dir = cache,
	};

	sink_init(&r->sink);
	assert_int_equal(t2f_strtab__new(&r->names), 0);
	assert_int_equal(t2f_symbolizer__new(&o, r->names, r->sink.d, &r->s), 0);
}

static void run_close(struct run *r)
{
	t2f_symbolizer__free(r->s);
	t2f_strtab__free(r->names);
	sink_close(&r->sink);
}

/* Module `path` recorded with build-id hex (NULL: none). */
static t2f_sym_module_id add(struct run *r, const char *path, const char *hex)
{
	struct t2f_module_desc d = { .path = path };
	uint8_t id[T2F_BUILD_ID_MAX];
	t2f_sym_module_id m;

	if (hex) {
		assert_true(t2f_build_id_parse(hex, id, sizeof(id), &d.build_id_len));
		d.build_id = id;
	}
	assert_int_equal(t2f_symbolizer__add_module(r->s, &d, &m), 0);
	return m;
}

/* fx_first+0x10 in module m: "miss name+offset" ("hit fx_first+0x10"). */
static void answer(struct run *r, t2f_sym_module_id m, char *out, size_t size)
{
	struct t2f_sym y;

	assert_int_equal(t2f_symbolizer__resolve_vaddr(r->s, m, ZOO_FIRST + 0x10, &y), 0);
	snprintf(out, size, "%s %s+0x%llx", t2f_miss_name(y.miss),
		 y.name ? t2f_strtab__str(r->names, y.name, NULL) : "-",
		 (unsigned long long)y.offset);
}

static void copy_file(const char *from, const char *to)
{
	char cmd[3 * PATH_MAX];

	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", from, to);
	assert_int_equal(system(cmd), 0);
}

/* The copies resolve after they are gone when searched ahead; in place, they are not found. */
static void check_taken(unsigned threads, const char *want)
{
	char prog[PATH_MAX], lib[PATH_MAX], src[PATH_MAX], got[256];
	t2f_sym_module_id m[2];
	struct run r;

	copy_file(pathf(src, "%s/gnu/prog", fx_root), pathf(prog, "%s/prog", tmp));
	copy_file(pathf(src, "%s/gnu/libfx.so", fx_root), pathf(lib, "%s/libfx.so", tmp));
	run_open(&r, threads, false, NULL);
	m[0] = add(&r, prog, ID_PROG);
	m[1] = add(&r, lib, "6feb3e793ce1de24ed3682c1c8d0a8d571515507");
	assert_int_equal(t2f_symbolizer__search_ahead(r.s, m, 2), 0);
	t2f_sym__ahead_idle(r.s);
	assert_int_equal(unlink(prog), 0);
	assert_int_equal(unlink(lib), 0);
	for (int i = 0; i < 2; i++) {
		answer(&r, m[i], got, sizeof(got));
		assert_string_equal(got, want);
	}
	assert_int_equal(r.s->ahead_listed, threads > 1 ? 2 : 0);
	assert_int_equal(r.s->ahead_taken, threads > 1 ? 2 : 0);
	assert_string_equal(sink_text(&r.sink), "");
	run_close(&r);
}

static void test_taken_after_removal(void **state)
{
	(void)state;
	check_taken(2, "hit fx_first+0x10");
	check_taken(1, "no file -+0x0");
}

#define N_ALL 6

/* Every answer and the warnings of one run: the modules listed in order, looked up last first
 * (the warnings come in the order of the lookups). */
static void run_all(unsigned threads, bool unsafe, char *out, size_t size, uint32_t *listed,
		    uint32_t *taken)
{
	char gone[PATH_MAX], p[N_ALL][PATH_MAX];
	const char *paths[N_ALL] = {
		pathf(p[0], "%s/gnu/prog", fx_root), pathf(gone, "%s/gone/prog", tmp),
		pathf(p[2], "%s/gnu/prog", fx_root), pathf(p[3], "%s/minidebug/prog", fx_root),
		pathf(p[4], "%s/stripped/prog", fx_root), pathf(p[5], "%s/gnu/libfx.so", fx_root),
	};
	const char *ids[N_ALL] = { ID_PROG, ID_PROG, ID_V2, ID_PROG, ID_PROG, ID_V2 };
	t2f_sym_module_id m[N_ALL];
	size_t len = 0;
	struct run r;

	run_open(&r, threads, unsafe, NULL);
	for (int i = 0; i < N_ALL; i++)
		m[i] = add(&r, paths[i], ids[i]);
	assert_int_equal(t2f_symbolizer__search_ahead(r.s, m, N_ALL), 0);
	t2f_sym__ahead_idle(r.s);
	for (int i = N_ALL - 1; i >= 0; i--) {
		answer(&r, m[i], out + len, size - len);
		len += strlen(out + len);
		len += (size_t)snprintf(out + len, size - len, "\n");
	}
	snprintf(out + len, size - len, "%s", sink_text(&r.sink));
	*listed = r.s->ahead_listed;
	*taken = r.s->ahead_taken;
	run_close(&r);
}

/* Whether minidebug/prog was built; fails when it is missing without its part listed in
 * SKIPPED (tests/elf/build-fixtures.sh). */
static bool have_minidebug(void)
{
	char path[PATH_MAX], line[512];
	bool skipped = false;
	FILE *f;

	if (access(pathf(path, "%s/minidebug/prog", fx_root), R_OK) == 0)
		return true;
	f = fopen(pathf(path, "%s/SKIPPED", fx_root), "r");
	while (f && fgets(line, sizeof(line), f))
		skipped |= strncmp(line, "minidebug\t", 10) == 0;
	if (f)
		fclose(f);
	assert_true(skipped);
	return false;
}

static void check_same(bool unsafe, const char *want_answers)
{
	char ahead[8192], in_place[8192], want[8192];
	uint32_t listed, taken;
	int n;

	run_all(1, unsafe, in_place, sizeof(in_place), &listed, &taken);
	assert_int_equal(listed, 0);
	run_all(2, unsafe, ahead, sizeof(ahead), &listed, &taken);
	assert_int_equal(listed, N_ALL);
	assert_int_equal(taken, N_ALL - 1); /* the MiniDebugInfo file asked the budget */
	assert_string_equal(ahead, in_place);
	n = snprintf(want, sizeof(want), "%s", want_answers);
	if (unsafe) /* the mismatching files' warnings, issued at their first lookups */
		snprintf(want + n, sizeof(want) - (size_t)n,
			 "trace2flame: warning: %s/gnu/libfx.so: build-id mismatch accepted "
			 "(unsafe_build_id_match)\n"
			 "trace2flame: warning: %s/gnu/prog: build-id mismatch accepted "
			 "(unsafe_build_id_match)\n", fx_root, fx_root);
	assert_string_equal(ahead, want);
}

static void test_same_as_in_place(void **state)
{
	(void)state;
	if (!have_minidebug())
		skip();
	check_same(false, "build-id mismatch -+0x0\nno symbols -+0x0\nhit fx_first+0x10\n"
			  "build-id mismatch -+0x0\nno file -+0x0\nhit fx_first+0x10\n");
	check_same(true, "hit fx_first+0x10\nno symbols -+0x0\nhit fx_first+0x10\n"
			 "hit fx_first+0x10\nno file -+0x0\nhit fx_first+0x10\n");
}

/* A build-id with a symbol cache file is the resolve stage's; one without a build-id too. */
static void test_not_listed(void **state)
{
	char cache[PATH_MAX], name[PATH_MAX], lib[PATH_MAX];
	t2f_sym_module_id m[2];
	struct run r;
	FILE *f;

	(void)state;
	pathf(cache, "%s/cache", tmp);
	run_open(&r, 2, false, cache);
	assert_non_null(r.s->cache);
	f = fopen(pathf(name, "%s/%s.t2fsym", cache, ID_PROG), "w");
	assert_non_null(f);
	fclose(f);
	m[0] = add(&r, pathf(name, "%s/gnu/prog", fx_root), ID_PROG);
	m[1] = add(&r, pathf(lib, "%s/gnu/libfx.so", fx_root), NULL);
	assert_int_equal(t2f_symbolizer__search_ahead(r.s, m, 2), 0);
	assert_int_equal(r.s->ahead_listed, 0);
	assert_null(r.s->ahead);
	run_close(&r);
}

static void test_lazy_dwarf(void **state)
{
	char path[PATH_MAX];
	t2f_sym_module_id m[2];
	struct t2f_dwarf *dw = NULL;
	struct run r;

	(void)state;
	run_open(&r, 1, false, NULL);
	m[0] = add(&r, pathf(path, "%s/sunw/libfx.so", fx_root),
		   "6feb3e793ce1de24ed3682c1c8d0a8d571515507");
	m[1] = add(&r, pathf(path, "%s/gnu/prog", fx_root), ID_PROG);
	assert_int_equal(t2f_symbolizer__dwarf_lazy(r.s, m[0], &dw), 0);
	assert_null(dw);
	assert_int_equal(t2f_symbolizer__dwarf_lazy(r.s, m[1], &dw), 0);
	assert_non_null(dw);
	assert_false(t2f_dwarf__none(dw));
	assert_string_equal(sink_text(&r.sink), "");
	run_close(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		FX_TEST(test_taken_after_removal),
		FX_TEST(test_same_as_in_place),
		FX_TEST(test_not_listed),
		FX_TEST(test_lazy_dwarf),
	};

	return cmocka_run_group_tests(tests, fx_group_setup, fx_group_teardown);
}
