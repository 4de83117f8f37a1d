/* tests/unit/test_abi.c: libtrace2flame's ABI rules (include/trace2flame.h, Versioning), through
 * the header alone and the shared library:
 *  - the first release's struct layouts, frozen: every field's offset and size on LP64, and each
 *    T2F_*_SIZE_V1 the struct's whole size (no tail padding, where a later field would hide);
 *  - a struct the caller fills is taken at its V1 size, at a newer caller's larger size whose
 *    bytes past this library's struct are zero, and refused with -E2BIG when one of those, or
 *    a reserved field, is not zero; below V1, -EINVAL;
 *  - a struct the library fills is filled up to the caller's size (the bytes this library does
 *    not know zeroed, `size` kept), refused below V1 (a size of 8: -EINVAL); an array of them
 *    (t2f_symbols_inlines) is written at the stride its first element's size gives;
 *  - the version macros, t2f_version_number() and t2f_version() agree.
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

#include <trace2flame.h>

static const char folded[] = "main;work;spin 3\nmain;idle 1\n";

struct field {
	const char *name;
	size_t offset, size;
	size_t want_offset, want_size;
};

#define F(type, f, off, sz) { #type "." #f, offsetof(type, f), sizeof(((type *)0)->f), off, sz }

/* The first release's layouts on LP64 (x86-64, aarch64 ...): never to change. */
static const struct field fields[] = {
	F(struct t2f_options, size, 0, 8),
	F(struct t2f_options, event, 8, 8),
	F(struct t2f_options, message, 16, 8),
	F(struct t2f_options, message_ctx, 24, 8),
	F(struct t2f_options, progress, 32, 8),
	F(struct t2f_options, progress_ctx, 40, 8),
	F(struct t2f_options, symbol_dirs, 48, 8),
	F(struct t2f_options, debug_dirs, 56, 8),
	F(struct t2f_options, buildids, 64, 8),
	F(struct t2f_options, kallsyms, 72, 8),
	F(struct t2f_options, perf_map_dir, 80, 8),
	F(struct t2f_options, formats, 88, 4),
	F(struct t2f_options, jobs, 92, 4),
	F(struct t2f_options, max_frames, 96, 4),
	F(struct t2f_options, symbol_rules, 100, 4),
	F(struct t2f_options, weight_samples, 104, 1),
	F(struct t2f_options, addrs, 105, 1),
	F(struct t2f_options, raw_names, 106, 1),
	F(struct t2f_options, time_order, 107, 1),
	F(struct t2f_options, signals, 108, 1),
	F(struct t2f_options, strict, 109, 1),
	F(struct t2f_options, quiet, 110, 1),
	F(struct t2f_options, resymbolize, 111, 1),
	F(struct t2f_options, unsafe_build_id_match, 112, 1),
	F(struct t2f_options, offline, 113, 1),
	F(struct t2f_options, no_inline, 114, 1),
	F(struct t2f_options, unwind_libdwfl, 115, 1),
	F(struct t2f_options, fold_threads, 116, 1), /* was reserved[0] */
	F(struct t2f_options, reserved, 117, 3),
	/* added after the first release (at the end, past T2F_OPTIONS_SIZE_V1) */
	F(struct t2f_options, time, 120, 8),
	F(struct t2f_options, pids, 128, 8),
	F(struct t2f_options, tids, 136, 8),
	F(struct t2f_options, comms, 144, 8),
	F(struct t2f_options, off_cpu_states, 152, 8),
	F(struct t2f_options, cache_max, 160, 8),
	F(struct t2f_options, no_cache, 168, 1),
	F(struct t2f_options, reserved2, 169, 7),
	F(struct t2f_write_options, size, 0, 8),
	F(struct t2f_write_options, input_name, 8, 8),
	F(struct t2f_write_options, title, 16, 8),
	F(struct t2f_write_options, subtitle, 24, 8),
	F(struct t2f_write_options, count_name, 32, 8),
	F(struct t2f_write_options, diff, 40, 8),
	F(struct t2f_write_options, min_width, 48, 8),
	F(struct t2f_write_options, format, 56, 4),
	F(struct t2f_write_options, colors, 60, 4),
	F(struct t2f_write_options, width, 64, 4),
	F(struct t2f_write_options, pid, 68, 1),
	F(struct t2f_write_options, tid, 69, 1),
	F(struct t2f_write_options, kernel, 70, 1),
	F(struct t2f_write_options, jit, 71, 1),
	F(struct t2f_write_options, inlined, 72, 1),
	F(struct t2f_write_options, hash, 73, 1),
	F(struct t2f_write_options, reverse, 74, 1),
	F(struct t2f_write_options, icicle, 75, 1),
	F(struct t2f_write_options, flamechart, 76, 1),
	F(struct t2f_write_options, diff_is_after, 77, 1),
	F(struct t2f_write_options, no_thread_root, 78, 1),
	F(struct t2f_write_options, reserved, 79, 1),
	/* added after the first release (at the end, past T2F_WRITE_OPTIONS_SIZE_V1) */
	F(struct t2f_write_options, heatmap_rows, 80, 4),
	F(struct t2f_write_options, reserved2, 84, 4),
	F(struct t2f_stats, size, 0, 8),
	F(struct t2f_stats, event, 8, 8),
	F(struct t2f_stats, inputs, 16, 8),
	F(struct t2f_stats, inputs_failed, 24, 8),
	F(struct t2f_stats, bytes, 32, 8),
	F(struct t2f_stats, samples, 40, 8),
	F(struct t2f_stats, events, 48, 8),
	F(struct t2f_stats, threads, 56, 8),
	F(struct t2f_stats, frames, 64, 8),
	F(struct t2f_stats, event_samples, 72, 8),
	F(struct t2f_stats, event_weight, 80, 8),
	F(struct t2f_stats, warnings, 88, 8),
	F(struct t2f_stats, frames_tried, 96, 8),
	F(struct t2f_stats, frames_unresolved, 104, 8),
	F(struct t2f_stats, frames_skipped, 112, 8),
	F(struct t2f_stats, out_bytes, 120, 8),
	F(struct t2f_stats, samples_filtered, 128, 8), /* after the first release */
	F(struct t2f_stats, kallsyms_read, 136, 8),
	F(struct t2f_stats, kallsyms_shared, 144, 8),
	F(struct t2f_input_report, size, 0, 8),
	F(struct t2f_input_report, name, 8, 8),
	F(struct t2f_input_report, message, 16, 8),
	F(struct t2f_input_report, bytes, 24, 8),
	F(struct t2f_input_report, samples, 32, 8),
	F(struct t2f_input_report, error, 40, 4),
	F(struct t2f_input_report, reserved, 44, 4),
	F(struct t2f_module_report, size, 0, 8),
	F(struct t2f_module_report, path, 8, 8),
	F(struct t2f_module_report, file, 16, 8),
	F(struct t2f_module_report, build_id, 24, 8),
	F(struct t2f_module_report, kind, 32, 4),
	F(struct t2f_module_report, reserved, 36, 4),
	F(struct t2f_module_report, resolved, 40, 8),
	F(struct t2f_module_report, unresolved, 48, 8),
	F(struct t2f_module_report, skipped, 56, 8),
	F(struct t2f_module_report, refused, 64, 8),
	F(struct t2f_symbols_options, size, 0, 8),
	F(struct t2f_symbols_options, symbol_dirs, 8, 8),
	F(struct t2f_symbols_options, debug_dirs, 16, 8),
	F(struct t2f_symbols_options, message, 24, 8),
	F(struct t2f_symbols_options, message_ctx, 32, 8),
	F(struct t2f_symbols_options, rules, 40, 4),
	F(struct t2f_symbols_options, raw_names, 44, 1),
	F(struct t2f_symbols_options, no_params, 45, 1),
	F(struct t2f_symbols_options, unsafe_build_id_match, 46, 1),
	F(struct t2f_symbols_options, offline, 47, 1),
	F(struct t2f_symbols_options, signals, 48, 1),
	F(struct t2f_symbols_options, cache, 49, 1), /* was reserved[0] */
	F(struct t2f_symbols_options, reserved, 50, 6),
	F(struct t2f_module, size, 0, 8),
	F(struct t2f_module, path, 8, 8),
	F(struct t2f_module, build_id, 16, 8),
	F(struct t2f_module, map_start, 24, 8),
	F(struct t2f_module, map_end, 32, 8),
	F(struct t2f_module, map_pgoff, 40, 8),
	F(struct t2f_module, p_vaddr, 48, 8),
	F(struct t2f_module, p_offset, 56, 8),
	F(struct t2f_module, page_size, 64, 8),
	F(struct t2f_module, exec_pgoff, 72, 8),
	F(struct t2f_module, exec_len, 80, 8),
	F(struct t2f_module, has_segment, 88, 1),
	F(struct t2f_module, has_exec, 89, 1),
	F(struct t2f_module, reserved, 90, 6),
	F(struct t2f_symbol, size, 0, 8),
	F(struct t2f_symbol, name, 8, 8),
	F(struct t2f_symbol, miss, 16, 8),
	F(struct t2f_symbol, file, 24, 8),
	F(struct t2f_symbol, offset, 32, 8),
	F(struct t2f_symbol, elf_vaddr, 40, 8),
	F(struct t2f_source_frame, size, 0, 8),
	F(struct t2f_source_frame, name, 8, 8),
	F(struct t2f_source_frame, file, 16, 8),
	F(struct t2f_source_frame, line, 24, 4),
	F(struct t2f_source_frame, reserved, 28, 4),
	F(struct t2f_refused, size, 0, 8),
	F(struct t2f_refused, path, 8, 8),
	F(struct t2f_refused, why, 16, 8),
	F(struct t2f_refused, found_id, 24, 8),
	F(struct t2f_refused, expected_id, 32, 8),
	F(struct t2f_refused, reason, 40, 4),
	F(struct t2f_refused, reserved, 44, 4),
	F(struct t2f_format_info, size, 0, 8),
	F(struct t2f_format_info, name, 8, 8),
	F(struct t2f_format_info, title, 16, 8),
	F(struct t2f_format_info, said, 24, 8),
	F(struct t2f_format_info, description, 32, 8),
	F(struct t2f_format_info, ext, 40, 8),
	F(struct t2f_format_info, extensions, 48, 8),
	F(struct t2f_format_info, uses, 56, 4),
	F(struct t2f_format_info, reserved, 60, 4),
	F(struct t2f_elf_symbol, name, 0, 8),
	F(struct t2f_elf_symbol, table, 8, 8),
	F(struct t2f_elf_symbol, value, 16, 8),
	F(struct t2f_elf_symbol, size, 24, 8),
};

struct whole {
	const char *name;
	size_t size, v1, want_v1, want;
};

/* A struct's V1 size (frozen) and its size now (fields are only added past V1). */
#define W(type, v1, want_v1, want) { #type, sizeof(type), v1, want_v1, want }

static const struct whole wholes[] = {
	W(struct t2f_options, T2F_OPTIONS_SIZE_V1, 120, 176),
	W(struct t2f_write_options, T2F_WRITE_OPTIONS_SIZE_V1, 80, 88),
	W(struct t2f_stats, T2F_STATS_SIZE_V1, 128, 152),
	W(struct t2f_input_report, T2F_INPUT_REPORT_SIZE_V1, 48, 48),
	W(struct t2f_module_report, T2F_MODULE_REPORT_SIZE_V1, 72, 72),
	W(struct t2f_symbols_options, T2F_SYMBOLS_OPTIONS_SIZE_V1, 56, 56),
	W(struct t2f_module, T2F_MODULE_SIZE_V1, 96, 96),
	W(struct t2f_symbol, T2F_SYMBOL_SIZE_V1, 48, 48),
	W(struct t2f_source_frame, T2F_SOURCE_FRAME_SIZE_V1, 32, 32),
	W(struct t2f_refused, T2F_REFUSED_SIZE_V1, 48, 48),
	W(struct t2f_format_info, T2F_FORMAT_INFO_SIZE_V1, 64, 64),
	W(struct t2f_elf_symbol, sizeof(struct t2f_elf_symbol), 32, 32),
};

static void test_layouts_frozen(void **state)
{
	unsigned bad = 0;

	/* on every ABI a struct holds its V1 layout whole (later fields come after it; that no
	 * struct has tail padding is checked where the library is built, pipeline/versioned.c) */
	for (size_t i = 0; i < sizeof(wholes) / sizeof(wholes[0]); i++)
		if (wholes[i].size < wholes[i].v1) {
			print_error("%s: sizeof %zu, below its V1 size %zu\n", wholes[i].name,
				    wholes[i].size, wholes[i].v1);
			bad++;
		}
	if (sizeof(void *) != 8 || sizeof(size_t) != 8 || sizeof(double) != 8) {
		assert_int_equal(bad, 0);
		skip(); /* the offsets below are LP64's */
	}
	for (size_t i = 0; i < sizeof(wholes) / sizeof(wholes[0]); i++)
		if (wholes[i].v1 != wholes[i].want_v1 || wholes[i].size != wholes[i].want) {
			print_error("%s: V1 size %zu, sizeof %zu; frozen at V1 %zu, now %zu\n",
				    wholes[i].name, wholes[i].v1, wholes[i].size, wholes[i].want_v1,
				    wholes[i].want);
			bad++;
		}
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (fields[i].offset != fields[i].want_offset ||
		    fields[i].size != fields[i].want_size) {
			print_error("%s: offset %zu size %zu, frozen at offset %zu size %zu\n",
				    fields[i].name, fields[i].offset, fields[i].size,
				    fields[i].want_offset, fields[i].want_size);
			bad++;
		}
	assert_int_equal(bad, 0);
}

static void test_version(void **state)
{
	char want[64];

	snprintf(want, sizeof(want), "%d.%d.%d", T2F_VERSION_MAJOR, T2F_VERSION_MINOR,
		 T2F_VERSION_PATCH);
	assert_string_equal(t2f_version(), want);
	assert_int_equal(t2f_version_number(), T2F_VERSION_NUMBER);
	assert_int_equal(T2F_MAKE_VERSION(1, 2, 3), 10203);
	assert_true(t2f_version_number() >= T2F_MAKE_VERSION(0, 1, 0));
}

static void quiet(void *ctx, const char *line)
{
	(void)ctx;
	(void)line;
}

/* A caller built with a newer header: this library's struct and a field after it. */
struct newer_options {
	struct t2f_options o;
	uint64_t later;
};
struct newer_write_options {
	struct t2f_write_options w;
	uint64_t later;
};
struct newer_symbols_options {
	struct t2f_symbols_options o;
	uint64_t later;
};
struct newer_module {
	struct t2f_module m;
	uint64_t later;
};

static void test_session_options_sizes(void **state)
{
	struct newer_options n = { .o = { .size = sizeof(n), .message = quiet } };
	struct t2f_options *o = &n.o;
	struct t2f_session *s = NULL;

	/* an old caller: the first release's size */
	o->size = T2F_OPTIONS_SIZE_V1;
	assert_int_equal(t2f_session_new(o, &s), 0);
	t2f_session_free(s);
	/* a newer caller whose later field is left zero: its default */
	o->size = sizeof(n);
	assert_int_equal(t2f_session_new(o, &s), 0);
	assert_int_equal(t2f_session_add_bytes(s, folded, strlen(folded), NULL), 0);
	t2f_session_free(s);
	/* ... and set: this library cannot do what it asks */
	n.later = 1;
	assert_int_equal(t2f_session_new(o, &s), -E2BIG);
	assert_null(s);
	n.later = 0;
	o->reserved[2] = 1;
	assert_int_equal(t2f_session_new(o, &s), -E2BIG);
	o->reserved[2] = 0;
	o->size = T2F_OPTIONS_SIZE_V1 - 1;
	assert_int_equal(t2f_session_new(o, &s), -EINVAL);
	o->size = sizeof(size_t);
	assert_int_equal(t2f_session_new(o, &s), -EINVAL);
}

static void test_write_options_sizes(void **state)
{
	struct t2f_options o = { .size = sizeof(o), .message = quiet };
	struct newer_write_options n = { .w = { .size = T2F_WRITE_OPTIONS_SIZE_V1,
						.format = T2F_FORMAT_COLLAPSED } };
	struct t2f_session *s;
	char *buf;
	size_t len;

	assert_int_equal(t2f_session_new(&o, &s), 0);
	assert_int_equal(t2f_session_add_bytes(s, folded, strlen(folded), NULL), 0);
	assert_int_equal(t2f_session_write_mem(s, &n.w, &buf, &len), 0);
	t2f_free(buf);
	n.w.size = sizeof(n);
	assert_int_equal(t2f_session_write_mem(s, &n.w, &buf, &len), 0);
	assert_int_equal(len, strlen(folded));
	t2f_free(buf);
	n.later = 1;
	assert_int_equal(t2f_session_write_mem(s, &n.w, &buf, &len), -E2BIG);
	assert_non_null(strstr(t2f_session_error(s), "newer"));
	n.later = 0;
	n.w.reserved[0] = 1;
	assert_int_equal(t2f_session_write_mem(s, &n.w, &buf, &len), -E2BIG);
	n.w.reserved[0] = 0;
	n.w.reserved2 = 1;
	assert_int_equal(t2f_session_write_mem(s, &n.w, &buf, &len), -E2BIG);
	n.w.reserved2 = 0;
	n.w.size = T2F_WRITE_OPTIONS_SIZE_V1 - 1;
	assert_int_equal(t2f_session_write_mem(s, &n.w, &buf, &len), -EINVAL);
	/* the session is still good */
	n.w.size = sizeof(n.w);
	assert_int_equal(t2f_session_write_mem(s, &n.w, &buf, &len), 0);
	t2f_free(buf);
	t2f_session_free(s);
}

/* t2f_format_info fills up to the caller's size; the formats are 1 .. t2f_format_count(). */
static void test_format_info_sizes(void **state)
{
	struct {
		struct t2f_format_info fi;
		uint64_t later;
	} n;
	size_t count = t2f_format_count();

	assert_true(count >= T2F_FORMAT_SVG);
	memset(&n, 0xff, sizeof(n));
	n.fi.size = T2F_FORMAT_INFO_SIZE_V1;
	assert_int_equal(t2f_format_info(T2F_FORMAT_SVG, &n.fi), 0);
	assert_string_equal(n.fi.name, "svg");
	assert_int_equal(n.fi.reserved, 0);
	assert_int_equal(n.later, UINT64_MAX); /* past the caller's size: untouched */
	n.fi.size = sizeof(n);
	assert_int_equal(t2f_format_info((enum t2f_format)count, &n.fi), 0);
	assert_int_equal(n.later, 0);     /* what this library does not know: zero */
	assert_int_equal(n.fi.size, sizeof(n));
	assert_int_equal(t2f_format_info((enum t2f_format)(count + 1), &n.fi), -EINVAL);
	n.fi.size = sizeof(size_t);
	assert_int_equal(t2f_format_info(T2F_FORMAT_SVG, &n.fi), -EINVAL);
	assert_int_equal(t2f_format_by_name("svg"), T2F_FORMAT_SVG);
	assert_int_equal(t2f_format_by_path("x.pb.gz"), T2F_FORMAT_PPROF);
}

static void test_symbols_sizes(void **state)
{
	struct newer_symbols_options n = { .o = { .size = T2F_SYMBOLS_OPTIONS_SIZE_V1,
						  .message = quiet, .offline = true } };
	struct newer_module m = { .m = { .size = T2F_MODULE_SIZE_V1, .path = "/nonexistent/t2f" } };
	struct t2f_symbols *s;
	uint32_t id;

	assert_int_equal(t2f_symbols_new(&n.o, &s), 0);
	t2f_symbols_free(s);
	n.o.size = sizeof(n);
	assert_int_equal(t2f_symbols_new(&n.o, &s), 0);
	t2f_symbols_free(s);
	n.later = 7;
	assert_int_equal(t2f_symbols_new(&n.o, &s), -E2BIG);
	n.later = 0;
	n.o.reserved[5] = 1;
	assert_int_equal(t2f_symbols_new(&n.o, &s), -E2BIG);
	n.o.reserved[5] = 0;
	n.o.size = T2F_SYMBOLS_OPTIONS_SIZE_V1 - 1;
	assert_int_equal(t2f_symbols_new(&n.o, &s), -EINVAL);
	n.o.size = sizeof(n);
	assert_int_equal(t2f_symbols_new(&n.o, &s), 0);

	assert_int_equal(t2f_symbols_add_module(s, &m.m, &id), 0);
	assert_int_equal(id, 0);
	m.m.size = sizeof(m);
	assert_int_equal(t2f_symbols_add_module(s, &m.m, &id), 0);
	assert_int_equal(id, 1);
	m.later = 1;
	assert_int_equal(t2f_symbols_add_module(s, &m.m, &id), -E2BIG);
	m.later = 0;
	m.m.reserved[0] = 1;
	assert_int_equal(t2f_symbols_add_module(s, &m.m, &id), -E2BIG);
	m.m.reserved[0] = 0;
	m.m.size = T2F_MODULE_SIZE_V1 - 1;
	assert_int_equal(t2f_symbols_add_module(s, &m.m, &id), -EINVAL);
	t2f_symbols_free(s);
}

/* A struct the library fills, in a caller's buffer of `size` bytes (the rest 0xaa): 0 and the
 * bytes past this library's struct zeroed, size kept. */
#define OUT_MAX 512
struct out_buf {
	size_t size;
	unsigned char rest[OUT_MAX];
};

static void fill_out(struct out_buf *b, size_t size)
{
	memset(b, 0xaa, sizeof(*b));
	b->size = size;
}

static void check_out(const struct out_buf *b, size_t known, size_t size)
{
	const unsigned char *p = (const unsigned char *)b;

	assert_int_equal(b->size, size);
	for (size_t i = known; i < size; i++)
		assert_int_equal(p[i], 0);
	for (size_t i = size; i < sizeof(*b); i++) /* past the caller's size: untouched */
		assert_int_equal(p[i], 0xaa);
}

/* Nothing but the size written. */
static void check_untouched(const struct out_buf *b, size_t size)
{
	const unsigned char *p = (const unsigned char *)b;

	assert_int_equal(b->size, size);
	for (size_t i = sizeof(b->size); i < sizeof(*b); i++)
		assert_int_equal(p[i], 0xaa);
}

static void test_stats_and_reports_sizes(void **state)
{
	struct t2f_options o = { .size = sizeof(o), .message = quiet };
	struct t2f_session *s;
	struct out_buf b;
	struct t2f_stats *st = (struct t2f_stats *)&b;

	assert_int_equal(t2f_session_new(&o, &s), 0);
	assert_int_equal(t2f_session_add_bytes(s, folded, strlen(folded), NULL), 0);
	fill_out(&b, T2F_STATS_SIZE_V1);
	assert_int_equal(t2f_session_stats(s, st), 0);
	check_out(&b, sizeof(*st), T2F_STATS_SIZE_V1);
	assert_int_equal(st->inputs, 1);
	assert_int_equal(st->samples, 2);
	fill_out(&b, sizeof(*st) + 40); /* a newer caller's */
	assert_int_equal(t2f_session_stats(s, st), 0);
	check_out(&b, sizeof(*st), sizeof(*st) + 40);
	assert_int_equal(st->samples, 2);
	for (size_t size = 0; size < T2F_STATS_SIZE_V1; size += 8) {
		fill_out(&b, size);
		assert_int_equal(t2f_session_stats(s, st), -EINVAL);
		check_untouched(&b, size);
	}
	fill_out(&b, T2F_MODULE_REPORT_SIZE_V1 - 1);
	assert_int_equal(t2f_session_module(s, 0, (struct t2f_module_report *)&b), -EINVAL);
	fill_out(&b, sizeof(size_t));
	assert_int_equal(t2f_session_module(s, 0, (struct t2f_module_report *)&b), -EINVAL);
	fill_out(&b, T2F_MODULE_REPORT_SIZE_V1);
	assert_int_equal(t2f_session_module(s, 0, (struct t2f_module_report *)&b), -ERANGE);
	t2f_session_free(s);
}

static int first_named(void *ctx, const struct t2f_elf_symbol *sym)
{
	uint64_t *at = ctx;

	if (strcmp(sym->name, "abi_probe") != 0)
		return 0;
	*at = sym->value;
	return 1;
}

__attribute__((noinline)) int abi_probe(int x);
__attribute__((noinline)) int abi_probe(int x)
{
	return x * 3 + 1;
}

/* Called through this, abi_probe keeps its name (no clone for a constant argument). */
static int (*volatile abi_probe_ptr)(int) = abi_probe;

/* The symbolizer's outputs: t2f_symbol and t2f_refused by size, t2f_source_frame arrays by
 * the stride of their first element. This program's own abi_probe (its DWARF: -g). */
static void test_symbols_out_sizes(void **state)
{
	struct t2f_symbols_options o = { .size = sizeof(o), .message = quiet, .offline = true,
					 .unsafe_build_id_match = true };
	struct t2f_module self = { .size = sizeof(self), .path = "/proc/self/exe" };
	struct t2f_module notelf = { .size = sizeof(notelf), .path = "/etc/passwd",
				     .build_id = "00112233445566778899aabbccddeeff00112233" };
	struct t2f_symbols *s;
	struct out_buf b;
	uint64_t at = 0;
	uint32_t id, bad;
	size_t stride = sizeof(struct t2f_source_frame) + 24;
	unsigned char *frames;
	int n;

	assert_int_equal(abi_probe_ptr(1), 4);
	assert_int_equal(t2f_symbols_new(&o, &s), 0);
	assert_int_equal(t2f_symbols_each_function(s, "/proc/self/exe", first_named, &at), 1);
	assert_int_not_equal(at, 0);
	assert_int_equal(t2f_symbols_add_module(s, &self, &id), 0);
	fill_out(&b, sizeof(struct t2f_symbol) + 16);
	assert_int_equal(t2f_symbols_resolve(s, id, T2F_SPACE_ELF_VADDR, at, (void *)&b), 0);
	check_out(&b, sizeof(struct t2f_symbol), sizeof(struct t2f_symbol) + 16);
	assert_string_equal(((struct t2f_symbol *)&b)->name, "abi_probe");
	fill_out(&b, T2F_SYMBOL_SIZE_V1 - 8);
	assert_int_equal(t2f_symbols_resolve(s, id, T2F_SPACE_ELF_VADDR, at, (void *)&b), -EINVAL);

	/* frames at a stride of sizeof + 24: each one's size says so, the bytes past zero */
	frames = malloc(3 * stride);
	assert_non_null(frames);
	memset(frames, 0xaa, 3 * stride);
	memcpy(frames, &stride, sizeof(stride));
	n = t2f_symbols_inlines(s, id, T2F_SPACE_ELF_VADDR, at, (void *)frames, 3);
	assert_true(n >= 1);
	for (int i = 0; i < n; i++) {
		const struct t2f_source_frame *f = (const void *)(frames + (size_t)i * stride);

		assert_int_equal(f->size, stride);
		for (size_t k = sizeof(*f); k < stride; k++)
			assert_int_equal(frames[(size_t)i * stride + k], 0);
	}
	assert_non_null(((const struct t2f_source_frame *)(const void *)
			 (frames + (size_t)(n - 1) * stride))->name);
	stride = T2F_SOURCE_FRAME_SIZE_V1 - 4;
	memcpy(frames, &stride, sizeof(stride));
	assert_int_equal(t2f_symbols_inlines(s, id, T2F_SPACE_ELF_VADDR, at, (void *)frames, 3),
			 -EINVAL);
	assert_int_equal(t2f_symbols_inlines(s, id, T2F_SPACE_ELF_VADDR, at, NULL, 3), -EINVAL);
	free(frames);

	assert_int_equal(t2f_symbols_add_module(s, &notelf, &bad), 0);
	fill_out(&b, sizeof(struct t2f_symbol));
	assert_int_equal(t2f_symbols_resolve(s, bad, T2F_SPACE_ELF_VADDR, 0x1000, (void *)&b), 0);
	assert_true(t2f_symbols_refusal_count(s, bad) >= 1);
	fill_out(&b, sizeof(struct t2f_refused) + 8);
	assert_int_equal(t2f_symbols_refusal(s, bad, 0, (void *)&b), 0);
	check_out(&b, sizeof(struct t2f_refused), sizeof(struct t2f_refused) + 8);
	assert_string_equal(((struct t2f_refused *)&b)->path, "/etc/passwd");
	fill_out(&b, sizeof(size_t));
	assert_int_equal(t2f_symbols_refusal(s, bad, 0, (void *)&b), -EINVAL);
	t2f_symbols_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layouts_frozen),
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_session_options_sizes),
		cmocka_unit_test(test_write_options_sizes),
		cmocka_unit_test(test_symbols_sizes),
		cmocka_unit_test(test_format_info_sizes),
		cmocka_unit_test(test_stats_and_reports_sizes),
		cmocka_unit_test(test_symbols_out_sizes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
