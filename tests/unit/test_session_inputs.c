/* tests/unit/test_session_inputs.c: inputs of a libtrace2flame session through the public header
 * and the shared library: an input that fails (missing, not a trace, broken half-way, a warning
 * under strict) is left out whole and the session goes on: its output is the bytes a session
 * given only the other inputs writes, each input has its report (t2f_session_input), the stats
 * count it apart; what a failed perf.data input would have changed for the others (how the
 * resolve stage names their frames) is undone. Progress is told for perf.data as for text; a
 * cancel asked during a read (from the progress callback) stops it with -ECANCELED, the input
 * left out as a failed one is. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <trace2flame.h>

#include "support/perf_data_gen.h"

static const char folded_a[] = "main;work;spin 3\nmain;idle 1\n";
static const char folded_b[] = "other;run 5\n";
static const char not_trace[] = "hello\nthis is plain text\nnothing like a profile\n";

static void quiet(void *ctx, const char *line)
{
	(void)ctx;
	(void)line;
}

static struct t2f_session *new_session(bool strict)
{
	struct t2f_options o = { .size = sizeof(o), .message = quiet, .strict = strict,
				 .formats = T2F_FORMAT_BIT(T2F_FORMAT_COLLAPSED) };
	struct t2f_session *s;

	assert_int_equal(t2f_session_new(&o, &s), 0);
	return s;
}

/* The collapsed output of s: malloc'd, NUL-terminated. */
static char *collapsed(struct t2f_session *s)
{
	struct t2f_write_options w = { .size = sizeof(w), .format = T2F_FORMAT_COLLAPSED };
	char *buf, *out;
	size_t len;

	assert_int_equal(t2f_session_write_mem(s, &w, &buf, &len), 0);
	out = malloc(len + 1);
	assert_non_null(out);
	memcpy(out, buf, len);
	out[len] = '\0';
	t2f_free(buf);
	return out;
}

/* The output of a session given only folded_a and folded_b. */
static char *good_only(void)
{
	struct t2f_session *s = new_session(false);
	char *out;

	assert_int_equal(t2f_session_add_bytes(s, folded_a, strlen(folded_a), "a"), 0);
	assert_int_equal(t2f_session_add_bytes(s, folded_b, strlen(folded_b), "b"), 0);
	out = collapsed(s);
	t2f_session_free(s);
	return out;
}

/* A perf.data that breaks after `good` samples: a record of size 0 (at least 8 expected). */
static uint8_t *broken_perf_data(size_t good, size_t *len)
{
	uint8_t *b = pdg_make(good + 100, len);
	size_t at = PDG_DATA_AT + 24 + 88 + good * PDG_SAMPLE_BYTES + good / 1000 * 8;

	memset(b + at + 6, 0, 2); /* the record's size */
	return b;
}

static void check_report(const struct t2f_session *s, size_t i, const char *name, int error,
			 const char *message_has, uint64_t samples)
{
	struct t2f_input_report r = { .size = sizeof(r) };

	assert_int_equal(t2f_session_input(s, i, &r), 0);
	assert_string_equal(r.name, name);
	assert_int_equal(r.error, error);
	if (message_has)
		assert_non_null(strstr(r.message, message_has));
	else
		assert_string_equal(r.message, "");
	assert_int_equal(r.samples, samples);
}

/* Failures among good inputs, the first input failing too: each is left out. */
static void test_failed_inputs_left_out(void **state)
{
	struct t2f_session *s = new_session(false);
	struct t2f_stats st = { .size = sizeof(st) };
	struct t2f_input_report r = { .size = sizeof(r) };
	char *want = good_only(), *got;
	size_t len;
	uint8_t *data = broken_perf_data(3000, &len);

	assert_int_equal(t2f_session_add_path(s, "/nonexistent/t2f-input"), -ENOENT);
	assert_non_null(strstr(t2f_session_error(s), "/nonexistent/t2f-input"));
	assert_int_equal(t2f_session_add_bytes(s, data, len, "broken-first.data"),
			 -T2F_ERR_FORMAT);
	assert_int_equal(t2f_session_add_bytes(s, folded_a, strlen(folded_a), "a"), 0);
	assert_int_equal(t2f_session_add_bytes(s, not_trace, strlen(not_trace), "text"),
			 -T2F_ERR_FORMAT);
	assert_non_null(strstr(t2f_session_error(s), "text: not a trace"));
	assert_int_equal(t2f_session_add_bytes(s, data, len, "broken.data"), -T2F_ERR_FORMAT);
	assert_non_null(strstr(t2f_session_error(s), "broken.data"));
	assert_non_null(strstr(t2f_session_error(s), "record size 0"));
	assert_int_equal(t2f_session_add_bytes(s, folded_b, strlen(folded_b), "b"), 0);
	assert_string_equal(t2f_session_error(s), "broken.data: offset 216384: record size 0, "
			    "expected at least 8");

	got = collapsed(s);
	assert_string_equal(got, want);
	assert_int_equal(t2f_session_stats(s, &st), 0);
	assert_int_equal(st.inputs, 2);
	assert_int_equal(st.inputs_failed, 4);
	assert_int_equal(st.samples, 3);
	assert_int_equal(st.bytes, strlen(folded_a) + strlen(folded_b));

	assert_int_equal(t2f_session_input_count(s), 6);
	check_report(s, 0, "/nonexistent/t2f-input", -ENOENT, "/nonexistent/t2f-input", 0);
	check_report(s, 1, "broken-first.data", -T2F_ERR_FORMAT, "record size 0", 0);
	check_report(s, 2, "a", 0, NULL, 2);
	check_report(s, 3, "text", -T2F_ERR_FORMAT, "not a trace", 0);
	check_report(s, 4, "broken.data", -T2F_ERR_FORMAT, "record size 0", 0);
	check_report(s, 5, "b", 0, NULL, 1);
	assert_int_equal(t2f_session_input(s, 6, &r), -ERANGE);
	r.size = sizeof(size_t);
	assert_int_equal(t2f_session_input(s, 0, &r), -EINVAL);
	assert_int_equal(t2f_session_input(NULL, 0, &r), -EINVAL);
	assert_int_equal(t2f_session_input_count(NULL), 0);
	/* after the resolve stage: refused, and not an input */
	assert_int_equal(t2f_session_add_bytes(s, folded_b, strlen(folded_b), "late"),
			 -T2F_ERR_STATE);
	assert_int_equal(t2f_session_input_count(s), 6);
	free(got);
	free(want);
	free(data);
	t2f_session_free(s);
}

/* Under strict, a warning half-way through an input fails it: the samples before it go too. */
static void test_strict_failure_half_way(void **state)
{
	static const char half[] = "main;work;spin 7\nmain;half 9\nnot a folded line\nmain;x 1\n";
	struct t2f_session *s = new_session(true);
	char *want = good_only(), *got;

	assert_int_equal(t2f_session_add_bytes(s, folded_a, strlen(folded_a), "a"), 0);
	assert_int_equal(t2f_session_add_bytes(s, half, strlen(half), "half"), -T2F_ERR_FORMAT);
	assert_non_null(strstr(t2f_session_error(s), "half:3"));
	assert_int_equal(t2f_session_add_bytes(s, folded_b, strlen(folded_b), "b"), 0);
	got = collapsed(s);
	assert_string_equal(got, want);
	free(got);
	free(want);
	t2f_session_free(s);
}

/* A perf.data input that fails leaves nothing of itself: perf script text read after it is
 * resolved as when alone (a perf.data input has every frame looked up, by perf's rules). */
static void test_failed_perf_data_undone(void **state)
{
	const char *src = getenv("T2F_SOURCE_DIR");
	char path[4096];
	struct t2f_session *s[2];
	struct t2f_stats st[2] = { { .size = sizeof(st[0]) }, { .size = sizeof(st[1]) } };
	char *out[2];
	size_t len;
	uint8_t *data = broken_perf_data(10, &len);

	assert_non_null(src);
	snprintf(path, sizeof(path), "%s/fixtures/perf-script/cxxwork.perf.txt", src);
	for (int i = 0; i < 2; i++) {
		s[i] = new_session(false);
		if (i == 1)
			assert_int_equal(t2f_session_add_bytes(s[i], data, len, "x.data"),
					 -T2F_ERR_FORMAT);
		assert_int_equal(t2f_session_add_path(s[i], path), 0);
		assert_int_equal(t2f_session_resolve(s[i]), 0);
		out[i] = collapsed(s[i]);
		assert_int_equal(t2f_session_stats(s[i], &st[i]), 0);
	}
	assert_string_equal(out[1], out[0]);
	assert_int_equal(st[1].frames_tried, st[0].frames_tried);
	assert_int_equal(st[1].frames_skipped, st[0].frames_skipped);
	assert_int_equal(t2f_session_module_count(s[1]), t2f_session_module_count(s[0]));
	for (int i = 0; i < 2; i++) {
		free(out[i]);
		t2f_session_free(s[i]);
	}
	free(data);
}

/* Progress calls, as the callback saw them. */
struct calls {
	unsigned n, finished;
	bool after_finished;        /* a call after the finished one */
	bool backwards;             /* done went down */
	uint64_t done, total;
	char input[64];
};

static void count_progress(void *ctx, const char *input, uint64_t done, uint64_t total,
			   bool finished)
{
	struct calls *c = ctx;

	c->after_finished |= c->finished > 0;
	c->backwards |= c->n && done < c->done;
	c->n++;
	c->finished += finished;
	c->done = done;
	c->total = total;
	snprintf(c->input, sizeof(c->input), "%s", input);
}

/* Adds data to s: as bytes called name, or without a name written to a file of its own and
 * read from its path (a plain file is read in place, not copied: its progress and cancelling
 * pass through another path; the file is removed after). *shown: the input's name in
 * messages. The add's result. */
static int add_input(struct t2f_session *s, const void *data, size_t len, const char *name,
		     const char **shown)
{
	static char path[64];
	int err, fd;

	*shown = name;
	if (name)
		return t2f_session_add_bytes(s, data, len, name);
	strcpy(path, "/tmp/t2f-test-session-inputs-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	assert_int_equal(close(fd), 0);
	err = t2f_session_add_path(s, path);
	unlink(path);
	*shown = path;
	return err;
}

/* progress_of: name NULL reads data from a file (add_input). */
static void progress_of(const void *data, size_t len, const char *name, unsigned jobs,
			struct calls *c)
{
	struct t2f_options o = { .size = sizeof(o), .message = quiet, .jobs = jobs,
				 .progress = count_progress, .progress_ctx = c };
	struct t2f_session *s;
	const char *shown;

	memset(c, 0, sizeof(*c));
	assert_int_equal(t2f_session_new(&o, &s), 0);
	assert_int_equal(add_input(s, data, len, name, &shown), 0);
	t2f_session_free(s);
	assert_string_equal(c->input, shown);
	assert_int_equal(c->finished, 1);
	assert_false(c->after_finished);
	assert_false(c->backwards);
	assert_int_equal(c->total, len);
	assert_int_equal(c->done, len);
}

/* burner.perf.txt 200 times over: ~8 MB of perf script text (malloc'd). */
static char *big_text(size_t *text_len)
{
	const char *src = getenv("T2F_SOURCE_DIR");
	char path[4096];
	size_t one;
	char *sample, *text;
	FILE *f;

	assert_non_null(src);
	snprintf(path, sizeof(path), "%s/fixtures/perf-script/burner.perf.txt", src);
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	one = (size_t)ftell(f);
	rewind(f);
	sample = malloc(one);
	assert_non_null(sample);
	assert_int_equal(fread(sample, 1, one, f), one);
	fclose(f);
	text = malloc(one * 200);
	assert_non_null(text);
	*text_len = 0;
	for (int i = 0; i < 200; i++, *text_len += one)
		memcpy(text + *text_len, sample, one);
	free(sample);
	return text;
}

/* perf.data is told about every MiB, from 0 to its size, then finished; so is text, by its
 * chunks (one thread) or segments (several). */
/* perf.data is told about every MiB, from 0 to its size, then finished; so is text, by its
 * chunks (one thread) or segments (several). */
static void test_progress(void **state)
{
	struct calls c;
	size_t len, text_len;
	uint8_t *data = pdg_make(60000, &len); /* 4.3 MB */
	char *text;

	(void)state;
	progress_of(data, len, "big.data", 1, &c);
	assert_true(len > 4u << 20);
	assert_true(c.n >= 2 + len / (1u << 20)); /* the start, every MiB, the end */
	progress_of(data, len, "big.data", 2, &c);
	assert_true(c.n >= 2 + len / (1u << 20));
	free(data);

	text = big_text(&text_len);
	progress_of(text, text_len, "big.perf.txt", 1, &c);
	assert_true(c.n >= 3);
	progress_of(text, text_len, "big.perf.txt", 2, &c);
	assert_true(c.n >= 3);
	progress_of(text, text_len, NULL, 2, &c); /* a file: its segments viewed in place */
	assert_true(c.n >= 3);
	free(text);
}

/* Cancels its session at the second progress call: in the middle of a read. */
struct canceller {
	struct t2f_session *s;
	unsigned calls;
};

static void cancel_soon(void *ctx, const char *input, uint64_t done, uint64_t total,
			bool finished)
{
	struct canceller *k = ctx;

	(void)input;
	(void)done;
	(void)total;
	(void)finished;
	if (++k->calls == 2)
		t2f_session_cancel(k->s);
}

/* A cancelled input is left out and the request spent: the session reads the next inputs and
 * writes what a session given only them writes. name NULL: data read from a file. */
static void cancel_during(const void *data, size_t len, const char *name, unsigned jobs)
{
	struct canceller k = { 0 };
	struct t2f_options o = { .size = sizeof(o), .message = quiet, .jobs = jobs,
				 .formats = T2F_FORMAT_BIT(T2F_FORMAT_COLLAPSED),
				 .progress = cancel_soon, .progress_ctx = &k };
	struct t2f_input_report rep = { .size = sizeof(rep) };
	char *want = good_only(), *got;
	const char *shown;

	assert_int_equal(t2f_session_new(&o, &k.s), 0);
	assert_int_equal(add_input(k.s, data, len, name, &shown), -ECANCELED);
	assert_true(k.calls >= 2);
	assert_non_null(strstr(t2f_session_error(k.s), "cancel"));
	assert_int_equal(t2f_session_input(k.s, 0, &rep), 0);
	assert_int_equal(rep.error, -ECANCELED);
	assert_int_equal(rep.samples, 0);
	assert_int_equal(t2f_session_add_bytes(k.s, folded_a, strlen(folded_a), "a"), 0);
	assert_int_equal(t2f_session_add_bytes(k.s, folded_b, strlen(folded_b), "b"), 0);
	got = collapsed(k.s);
	assert_string_equal(got, want);
	t2f_session_free(k.s);
	free(got);
	free(want);
}

static void test_cancel(void **state)
{
	size_t len, text_len;
	uint8_t *data = pdg_make(60000, &len);
	char *text = big_text(&text_len);
	struct t2f_session *s = new_session(false);

	(void)state;
	cancel_during(data, len, "big.data", 1);
	cancel_during(data, len, "big.data", 2);
	cancel_during(text, text_len, "big.perf.txt", 1);
	cancel_during(text, text_len, "big.perf.txt", 2);
	cancel_during(text, text_len, NULL, 1);
	cancel_during(text, text_len, NULL, 2);
	/* asked between calls: the next add stops at once, the one after it reads */
	t2f_session_cancel(s);
	assert_int_equal(t2f_session_add_bytes(s, folded_a, strlen(folded_a), "a"), -ECANCELED);
	assert_int_equal(t2f_session_add_bytes(s, folded_a, strlen(folded_a), "a"), 0);
	t2f_session_cancel(NULL);
	t2f_session_free(s);
	free(data);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_failed_inputs_left_out),
		cmocka_unit_test(test_strict_failure_half_way),
		cmocka_unit_test(test_failed_perf_data_undone),
		cmocka_unit_test(test_progress),
		cmocka_unit_test(test_cancel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
