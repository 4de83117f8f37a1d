/* tests/unit/test_writer_table.c: pipeline/writer_table — every format found by its -f name and
 * by each extension (the longest match wins: x.speedscope.json, x.json), what each needs kept
 * while reading, and the names listed for messages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "pipeline/writer_table.h"

static void test_lookups(void **state)
{
	static const struct {
		const char *path;
		enum t2f_format f;
	} paths[] = {
		{ "a.folded", T2F_FORMAT_COLLAPSED }, { "a.collapsed", T2F_FORMAT_COLLAPSED },
		{ "a.speedscope.json", T2F_FORMAT_SPEEDSCOPE }, { "dir.svg/a.json", T2F_FORMAT_SPEEDSCOPE },
		{ "a.pb.gz", T2F_FORMAT_PPROF }, { "a.pprof", T2F_FORMAT_PPROF },
		{ "a.svg", T2F_FORMAT_SVG }, { "a.txt", T2F_FORMAT_NONE }, { ".svg", T2F_FORMAT_NONE },
		{ "a.gz", T2F_FORMAT_NONE }, { "", T2F_FORMAT_NONE },
		{ "a.profile.json", T2F_FORMAT_FIREFOX }, { "a.profile.json.gz", T2F_FORMAT_FIREFOX },
		{ "a.json.gz", T2F_FORMAT_NONE },
	};
	char names[64], path[64];

	(void)state;
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		const struct t2f_writer *w = t2f_writer__by_path(paths[i].path);

		assert_int_equal(w ? w->format : T2F_FORMAT_NONE, paths[i].f);
	}
	for (int f = T2F_FORMAT_COLLAPSED; f <= T2F_FORMAT_FIREFOX; f++) {
		const struct t2f_writer *w = t2f_writer__of(f);

		assert_non_null(w);
		assert_ptr_equal(t2f_writer__by_name(w->name), w);
		snprintf(path, sizeof(path), "out/x%s", w->ext); /* --each's names pick it back */
		assert_ptr_equal(t2f_writer__by_path(path), w);
	}
	assert_int_equal(t2f_writer__by_path("x.folded.svg.pb.gz")->format, T2F_FORMAT_PPROF);
	assert_ptr_equal(t2f_writer__of(T2F_FORMAT_NONE), NULL);
	assert_ptr_equal(t2f_writer__of(T2F_FORMAT_FIREFOX + 1), NULL);
	assert_int_equal(t2f_writer__by_name("folded")->format, T2F_FORMAT_COLLAPSED);
	assert_ptr_equal(t2f_writer__by_name("json"), NULL);
	t2f_writer__names(names, sizeof(names));
	assert_string_equal(names, "collapsed, speedscope, pprof, svg, firefox");
	t2f_writer__names(names, 12);
	assert_string_equal(names, "collapsed, ");
}

static void test_needs(void **state)
{
	struct t2f_write_opts o = { 0 };

	(void)state;
	assert_int_equal(t2f_writer__of(T2F_FORMAT_COLLAPSED)->needs(&o), 0);
	assert_int_equal(t2f_writer__of(T2F_FORMAT_SVG)->needs(&o), 0);
	assert_int_equal(t2f_writer__of(T2F_FORMAT_SPEEDSCOPE)->needs(&o),
			 T2F_NEEDS_LOG | T2F_NEEDS_PARAMS);
	assert_int_equal(t2f_writer__of(T2F_FORMAT_PPROF)->needs(&o),
			 T2F_NEEDS_TIMES | T2F_NEEDS_ADDRS | T2F_NEEDS_PARAMS);
	assert_int_equal(t2f_writer__of(T2F_FORMAT_FIREFOX)->needs(&o),
			 T2F_NEEDS_LOG | T2F_NEEDS_ADDRS | T2F_NEEDS_PARAMS);
	o.names.raw_names = true;
	assert_int_equal(t2f_writer__of(T2F_FORMAT_COLLAPSED)->needs(&o), T2F_NEEDS_PARAMS);
	o.svg.flamechart = true;
	assert_int_equal(t2f_writer__of(T2F_FORMAT_SVG)->needs(&o), T2F_NEEDS_PARAMS | T2F_NEEDS_LOG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lookups),
		cmocka_unit_test(test_needs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
