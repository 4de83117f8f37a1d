/* tests/unit/test_dwarf_end.c: a DWARF handle opened lazily, begun by its first lookup, and
 * ended after its last (symbolizer/dwarf.h __open_lazy, __begin, __none, __end), and the
 * lookups of pipeline/inline_lookup.h that end each handle when it is done.
 *
 * The files are tests/dwarf/make-hostile's `sane` (h inlining g at 0x1004-0x1007, lines in a.c;
 * the names are DW_FORM_string, so they sit in the file's own mapping, which ending the handle
 * unmaps) and the same file without its debug sections (objcopy --strip-debug). The chains a
 * set of lookups gives must still read "g", "h" and "a.c" after it ended every handle (the
 * strings are the set's copies, never the handles'), for 1 and 2 threads.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pipeline/inline_lookup.h"
#include "support/diag_sink.h"
#include "support/fixture_env.h"
#include "symbolizer/dwarf.h"

/* tests/dwarf/make-hostile's `sane` into tmp, and tmp/nodw: the same without DWARF. */
static void make(void)
{
	const char *src = getenv("T2F_SOURCE_DIR");
	char cmd[3 * PATH_MAX];

	assert_non_null(src);
	snprintf(cmd, sizeof(cmd), "python3 '%s/tests/dwarf/make-hostile' '%s' sane", src, tmp);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "objcopy --strip-debug '%s/sane' '%s/nodw'", tmp, tmp);
	if (system(cmd) != 0)
		skip();
}

static struct t2f_dwarf *open_lazy(const char *name, struct t2f_diag *d)
{
	struct t2f_dwarf *dw = NULL;
	char path[PATH_MAX];

	assert_int_equal(t2f_dwarf__open_lazy(pathf(path, "%s/%s", tmp, name), NULL, d, &dw), 0);
	assert_non_null(dw);
	return dw;
}

static void expect_sane(const struct t2f_dwarf_frame *f, int n)
{
	assert_int_equal(n, 2);
	assert_string_equal(f[0].name, "g");
	assert_string_equal(f[1].name, "h");
	assert_non_null(f[0].file);
	assert_non_null(strstr(f[0].file, "a.c"));
}

static void test_lazy_handle(void **state)
{
	struct t2f_dwarf_frame f[T2F_DWARF_MAX_DEPTH];
	struct t2f_dwarf *dw, *none, *eager = NULL;
	char path[PATH_MAX];
	struct sink s;

	(void)state;
	make();
	sink_init(&s);
	dw = open_lazy("sane", s.d);
	none = open_lazy("nodw", s.d);
	/* nothing known before the first lookup; then the chain an eager handle gives */
	assert_false(t2f_dwarf__none(dw));
	expect_sane(f, t2f_dwarf__lookup(dw, 0x1005, f, T2F_DWARF_MAX_DEPTH));
	assert_false(t2f_dwarf__none(dw));
	assert_int_equal(t2f_dwarf__open(pathf(path, "%s/sane", tmp), NULL, s.d, &eager), 0);
	expect_sane(f, t2f_dwarf__lookup(eager, 0x1005, f, T2F_DWARF_MAX_DEPTH));
	/* a file without DWARF: a handle that finds nothing (__open gives none at all) */
	assert_int_equal(t2f_dwarf__begin(none), 0);
	assert_true(t2f_dwarf__none(none));
	assert_int_equal(t2f_dwarf__lookup(none, 0x1005, f, T2F_DWARF_MAX_DEPTH), 0);
	t2f_dwarf__free(eager);
	assert_int_equal(t2f_dwarf__open(pathf(path, "%s/nodw", tmp), NULL, s.d, &eager), 0);
	assert_null(eager);
	/* ended: no lookup answers (not silently nothing), the warnings stay */
	t2f_dwarf__end(dw);
	assert_true(t2f_dwarf__ended(dw));
	assert_int_equal(t2f_dwarf__lookup(dw, 0x1005, f, T2F_DWARF_MAX_DEPTH), -EINVAL);
	assert_int_equal(t2f_dwarf__report(dw, s.d), 0);
	t2f_dwarf__end(dw); /* twice is fine */
	assert_int_equal(t2f_diag__warnings(s.d), 0);
	t2f_dwarf__free(dw);
	t2f_dwarf__free(none);
	sink_close(&s);
}

/* Three lookups on two handles of sane and one on nodw, run on `threads` with end. */
static void run_ending(unsigned threads)
{
	static const uint64_t at[] = { 0x1005, 0x1000, 0x1006 };
	const struct t2f_dwarf_frame *f;
	struct t2f_dwarf *dw[3];
	struct t2f_inl_lookups *l;
	uint32_t idx[7];
	struct sink s;

	sink_init(&s);
	dw[0] = open_lazy("sane", s.d);
	dw[1] = open_lazy("sane", s.d);
	dw[2] = open_lazy("nodw", s.d);
	assert_int_equal(t2f_inl_lookups__new(&l), 0);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(t2f_inl_lookups__add(l, dw[0], at[i], &idx[2 * i]), 0);
		assert_int_equal(t2f_inl_lookups__add(l, dw[1], at[i], &idx[2 * i + 1]), 0);
	}
	assert_int_equal(t2f_inl_lookups__add(l, dw[2], 0x1005, &idx[6]), 0);
	assert_int_equal(t2f_inl_lookups__run(l, threads, true), 0);
	/* both handles of sane ended, nodw found none and is not counted */
	assert_true(t2f_dwarf__ended(dw[0]) && t2f_dwarf__ended(dw[1]));
	assert_int_equal(t2f_inl_lookups__handles(l), 2);
	assert_int_equal(t2f_inl_lookups__ended(l), 2);
	for (size_t i = 0; i < 2; i++) {
		expect_sane(f, t2f_inl_lookups__get(l, idx[i], &f));
		assert_false(t2f_inl_lookups__no_dwarf(l, idx[i]));
		assert_int_equal(t2f_inl_lookups__get(l, idx[2 + i], &f), 1);
		assert_string_equal(f[0].name, "h");
		expect_sane(f, t2f_inl_lookups__get(l, idx[4 + i], &f));
	}
	assert_int_equal(t2f_inl_lookups__get(l, idx[6], &f), 0);
	assert_true(t2f_inl_lookups__no_dwarf(l, idx[6]));
	t2f_inl_lookups__free(l);
	for (size_t i = 0; i < 3; i++)
		t2f_dwarf__free(dw[i]);
	sink_close(&s);
}

static void test_lookups_end_handles(void **state)
{
	(void)state;
	make();
	run_ending(1);
	run_ending(2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		FX_TEST(test_lazy_handle),
		FX_TEST(test_lookups_end_handles),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
