/* tests/unit/test_writer_table.c: pipeline/writer_table — the table holds every format of the
 * enum in its order, each found by its -f name and by each extension (the longest match wins:
 * x.speedscope.json, x.json), what each needs kept while reading; and the public descriptors
 * (t2f_format_*) are the table's. */
#include <errno.h>
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
	char path[64];

	(void)state;
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		const struct t2f_writer *w = t2f_writer__by_path(paths[i].path);

		assert_int_equal(w ? w->format : T2F_FORMAT_NONE, paths[i].f);
	}
	for (size_t i = 1; i <= t2f_writer__count(); i++) {
		const struct t2f_writer *w = t2f_writer__of((enum t2f_format)i);

		assert_non_null(w);
		assert_int_equal(w->format, i); /* the enum's order, no gap */
		assert_non_null(w->name);
		assert_non_null(w->said);
		assert_non_null(w->title);
		assert_non_null(w->description);
		assert_non_null(w->needs);
		assert_non_null(w->write);
		assert_non_null(w->extensions[0]);
		assert_ptr_equal(t2f_writer__by_name(w->name), w);
		snprintf(path, sizeof(path), "out/x%s", w->ext); /* --each's names pick it back */
		assert_ptr_equal(t2f_writer__by_path(path), w);
		for (const char *const *e = w->extensions; *e; e++) {
			/* no other format has a longer ending that matches */
			snprintf(path, sizeof(path), "x%s", *e);
			assert_ptr_equal(t2f_writer__by_path(path), w);
		}
	}
	assert_true(t2f_writer__count() >= T2F_FORMAT_SVG);
	assert_int_equal(t2f_writer__by_path("x.folded.svg.pb.gz")->format, T2F_FORMAT_PPROF);
	assert_ptr_equal(t2f_writer__of(T2F_FORMAT_NONE), NULL);
	assert_ptr_equal(t2f_writer__of((enum t2f_format)(t2f_writer__count() + 1)), NULL);
	assert_ptr_equal(t2f_writer__of((enum t2f_format)-1), NULL);
	assert_int_equal(t2f_writer__by_name("folded")->format, T2F_FORMAT_COLLAPSED);
	assert_ptr_equal(t2f_writer__by_name("json"), NULL);
	assert_ptr_equal(t2f_writer__by_name(""), NULL);
}

/* The public descriptors: the table's, filled by the versioning rules; lookups as the table's. */
static void test_public(void **state)
{
	struct t2f_format_info fi = { .size = sizeof(fi) };
	unsigned char big[sizeof(fi) + 8];
	size_t n = t2f_format_count();

	(void)state;
	assert_int_equal(n, t2f_writer__count());
	for (size_t i = 1; i <= n; i++) {
		const struct t2f_writer *w = t2f_writer__of((enum t2f_format)i);

		memset(&fi, 0xff, sizeof(fi));
		fi.size = sizeof(fi);
		assert_int_equal(t2f_format_info((enum t2f_format)i, &fi), 0);
		assert_int_equal(fi.size, sizeof(fi));
		assert_string_equal(fi.name, w->name);
		assert_string_equal(fi.title, w->title);
		assert_string_equal(fi.said, w->said);
		assert_string_equal(fi.description, w->description);
		assert_string_equal(fi.ext, w->ext);
		assert_ptr_equal(fi.extensions, w->extensions);
		assert_int_equal(fi.uses, w->uses);
		assert_int_equal(fi.reserved, 0);
		assert_int_equal(t2f_format_by_name(fi.name), i);
	}
	assert_string_equal((t2f_format_info(T2F_FORMAT_SVG, &fi), fi.name), "svg");
	assert_int_equal(fi.uses & T2F_USES_SVG, T2F_USES_SVG);
	assert_int_equal(t2f_format_info(T2F_FORMAT_NONE, &fi), -EINVAL);
	assert_int_equal(t2f_format_info((enum t2f_format)(n + 1), &fi), -EINVAL);
	assert_int_equal(t2f_format_info(T2F_FORMAT_PPROF, NULL), -EINVAL);
	fi.size = T2F_FORMAT_INFO_SIZE_V1 - 1;
	assert_int_equal(t2f_format_info(T2F_FORMAT_PPROF, &fi), -EINVAL);
	memset(big, 0xff, sizeof(big)); /* a newer caller's: the bytes past ours zeroed */
	memcpy(big, &(size_t){ sizeof(big) }, sizeof(size_t));
	assert_int_equal(t2f_format_info(T2F_FORMAT_PPROF, (struct t2f_format_info *)big), 0);
	for (size_t i = sizeof(fi); i < sizeof(big); i++)
		assert_int_equal(big[i], 0);
	assert_int_equal(t2f_format_by_name("folded"), T2F_FORMAT_COLLAPSED);
	assert_int_equal(t2f_format_by_name("SVG"), T2F_FORMAT_NONE);
	assert_int_equal(t2f_format_by_name(NULL), T2F_FORMAT_NONE);
	assert_int_equal(t2f_format_by_path("a/b.speedscope.json"), T2F_FORMAT_SPEEDSCOPE);
	assert_int_equal(t2f_format_by_path("b.pb.gz"), T2F_FORMAT_PPROF);
	assert_int_equal(t2f_format_by_path("b.gz"), T2F_FORMAT_NONE);
	assert_int_equal(t2f_format_by_path("b.heatmap.svg"), T2F_FORMAT_HEATMAP);
	assert_int_equal(t2f_format_by_path("b.svg"), T2F_FORMAT_SVG);
	assert_int_equal(t2f_format_by_path(NULL), T2F_FORMAT_NONE);
}

static void test_needs(void **state)
{
	struct t2f_write_opts o = { 0 };

	(void)state;
	/* pprof alone adds up the cells of one stack and thread itself (merged cells not needed) */
	assert_int_equal(t2f_writer__of(T2F_FORMAT_COLLAPSED)->needs(&o), T2F_NEEDS_MERGED_CELLS);
	assert_int_equal(t2f_writer__of(T2F_FORMAT_SVG)->needs(&o),
			 T2F_NEEDS_MERGED_CELLS | T2F_NEEDS_THREADS | T2F_NEEDS_LINES);
	/* speedscope's profiles are per thread through the log; its evented ones read cells */
	assert_int_equal(t2f_writer__of(T2F_FORMAT_SPEEDSCOPE)->needs(&o),
			 T2F_NEEDS_MERGED_CELLS | T2F_NEEDS_LOG | T2F_NEEDS_PARAMS | T2F_NEEDS_LINES);
	assert_int_equal(t2f_writer__of(T2F_FORMAT_PPROF)->needs(&o),
			 T2F_NEEDS_TIMES | T2F_NEEDS_ADDRS | T2F_NEEDS_PARAMS | T2F_NEEDS_THREADS |
			 T2F_NEEDS_LINES);
	assert_int_equal(t2f_writer__of(T2F_FORMAT_FIREFOX)->needs(&o),
			 T2F_NEEDS_MERGED_CELLS | T2F_NEEDS_LOG | T2F_NEEDS_ADDRS | T2F_NEEDS_PARAMS |
			 T2F_NEEDS_SAMPLE_TIMES | T2F_NEEDS_WAITS | T2F_NEEDS_THREADS |
			 T2F_NEEDS_LINES);
	/* the heat map alone keeps the time histogram: no other format pays for it; it and
	 * collapsed stacks show no source lines, so no line table is read for them */
	assert_int_equal(t2f_writer__of(T2F_FORMAT_HEATMAP)->needs(&o),
			 T2F_NEEDS_MERGED_CELLS | T2F_NEEDS_HIST | T2F_NEEDS_TIMES | T2F_NEEDS_THREADS);
	for (int f = T2F_FORMAT_COLLAPSED; f < T2F_FORMAT_HEATMAP; f++)
		assert_int_equal(t2f_writer__of(f)->needs(&o) & T2F_NEEDS_HIST, 0);
	o.names.raw_names = true;
	assert_int_equal(t2f_writer__of(T2F_FORMAT_COLLAPSED)->needs(&o),
			 T2F_NEEDS_MERGED_CELLS | T2F_NEEDS_PARAMS);
	o.svg.flamechart = true;
	assert_int_equal(t2f_writer__of(T2F_FORMAT_SVG)->needs(&o),
			 T2F_NEEDS_MERGED_CELLS | T2F_NEEDS_PARAMS | T2F_NEEDS_LOG |
			 T2F_NEEDS_THREADS | T2F_NEEDS_LINES);
	o.derived = true;
	assert_int_equal(t2f_writer__of(T2F_FORMAT_SPEEDSCOPE)->needs(&o),
			 T2F_NEEDS_MERGED_CELLS | T2F_NEEDS_LOG | T2F_NEEDS_PARAMS |
			 T2F_NEEDS_SAMPLE_TIMES | T2F_NEEDS_THREADS | T2F_NEEDS_LINES);
	/* collapsed stacks tell threads apart only with pid or tid in their roots */
	o.tid = true;
	assert_int_equal(t2f_writer__of(T2F_FORMAT_COLLAPSED)->needs(&o),
			 T2F_NEEDS_MERGED_CELLS | T2F_NEEDS_PARAMS | T2F_NEEDS_THREADS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lookups),
		cmocka_unit_test(test_needs),
		cmocka_unit_test(test_public),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
