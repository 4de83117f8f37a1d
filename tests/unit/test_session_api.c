/* tests/unit/test_session_api.c: libtrace2flame through its public header alone, linked with
 * the shared library: bad calls (NULL, wrong struct sizes, a format the session cannot give,
 * calls out of order) give errors and messages, not crashes; good ones give the bytes the
 * command line would (inputs in memory, by descriptor and by path). */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <trace2flame.h>

static const char folded[] = "main;work;spin 3\nmain;idle 1\n";
static const char sorted[] = "main;idle 1\nmain;work;spin 3\n"; /* as collapsed output is */

/* Messages the session sent, one per line, joined with '\n'. */
struct lines {
	char text[8192];
	size_t len;
	unsigned n;
};

static void collect(void *ctx, const char *line)
{
	struct lines *l = ctx;
	int n = snprintf(l->text + l->len, sizeof(l->text) - l->len, "%s\n", line);

	if (n > 0 && (size_t)n < sizeof(l->text) - l->len)
		l->len += (size_t)n;
	l->n++;
}

static struct t2f_options opts(unsigned formats, struct lines *l)
{
	return (struct t2f_options){ .size = sizeof(struct t2f_options), .formats = formats,
				     .message = collect, .message_ctx = l };
}

static struct t2f_write_options wopts(enum t2f_format f)
{
	return (struct t2f_write_options){ .size = sizeof(struct t2f_write_options), .format = f };
}

static void test_new_rejects_bad_options(void **state)
{
	struct t2f_options o = { .size = sizeof(o) };
	struct t2f_session *s = (struct t2f_session *)&o;

	assert_int_equal(t2f_session_new(NULL, &s), -EINVAL);
	assert_null(s);
	assert_int_equal(t2f_session_new(&o, NULL), -EINVAL);
	o.size = 0;
	assert_int_equal(t2f_session_new(&o, &s), -EINVAL);
	o.size = T2F_OPTIONS_SIZE_V1 - 1;
	assert_int_equal(t2f_session_new(&o, &s), -EINVAL);
	o.size = sizeof(o);
	o.symbol_rules = (enum t2f_symbol_rules)77; /* rules this library does not know */
	assert_int_equal(t2f_session_new(&o, &s), -EINVAL);
	assert_null(s);
	o.symbol_rules = T2F_RULES_AUTO;
	o.formats = 1u << 20; /* a format this library does not know */
	assert_int_equal(t2f_session_new(&o, &s), -EINVAL);
	assert_null(s);
	o.formats = 0;
	assert_int_equal(t2f_session_new(&o, &s), 0);
	t2f_session_free(s);
}

static void test_null_sessions(void **state)
{
	struct t2f_write_options w = wopts(T2F_FORMAT_COLLAPSED);
	struct t2f_stats st = { .size = sizeof(st) };
	struct t2f_module_report m = { .size = sizeof(m) };
	char *buf;
	size_t len;

	assert_int_equal(t2f_session_add_path(NULL, "x"), -EINVAL);
	assert_int_equal(t2f_session_add_fd(NULL, 0, NULL), -EINVAL);
	assert_int_equal(t2f_session_add_bytes(NULL, folded, 3, NULL), -EINVAL);
	assert_int_equal(t2f_session_resolve(NULL), -EINVAL);
	assert_int_equal(t2f_session_write_path(NULL, &w, "-"), -EINVAL);
	assert_int_equal(t2f_session_write_fd(NULL, &w, 1), -EINVAL);
	assert_int_equal(t2f_session_write_mem(NULL, &w, &buf, &len), -EINVAL);
	assert_int_equal(t2f_session_stats(NULL, &st), -EINVAL);
	assert_int_equal(t2f_session_module(NULL, 0, &m), -EINVAL);
	assert_int_equal(t2f_session_module_count(NULL), 0);
	assert_string_equal(t2f_session_error(NULL), "");
	t2f_session_report(NULL, T2F_REPORT_STATS);
	t2f_session_free(NULL);
}

static void test_bad_arguments(void **state)
{
	struct lines l = { 0 };
	struct t2f_options o = opts(T2F_FORMAT_BIT(T2F_FORMAT_COLLAPSED), &l);
	struct t2f_write_options w = wopts(T2F_FORMAT_COLLAPSED);
	struct t2f_stats st = { .size = 0 };
	struct t2f_module_report m = { .size = sizeof(m) };
	struct t2f_session *s;
	char *buf = (char *)folded;
	size_t len = 7;

	assert_int_equal(t2f_session_new(&o, &s), 0);
	assert_int_equal(t2f_session_add_path(s, NULL), -EINVAL);
	assert_int_equal(t2f_session_add_fd(s, -1, "x"), -EBADF);
	assert_int_equal(t2f_session_add_bytes(s, NULL, 5, "x"), -EINVAL);
	assert_int_equal(t2f_session_stats(s, NULL), -EINVAL);
	assert_int_equal(t2f_session_stats(s, &st), -EINVAL);
	st.size = sizeof(size_t); /* the size field alone */
	assert_int_equal(t2f_session_stats(s, &st), -EINVAL);
	m.size = sizeof(size_t);
	assert_int_equal(t2f_session_module(s, 0, &m), -EINVAL);
	m.size = sizeof(m);
	assert_int_equal(t2f_session_module(s, 0, NULL), -EINVAL);
	assert_int_equal(t2f_session_add_bytes(s, folded, strlen(folded), "f"), 0);
	assert_int_equal(t2f_session_write_path(s, NULL, "-"), -EINVAL);
	w.size = 3;
	assert_int_equal(t2f_session_write_mem(s, &w, &buf, &len), -EINVAL);
	assert_null(buf);
	assert_int_equal(len, 0);
	assert_non_null(strstr(t2f_session_error(s), "size"));
	w = wopts((enum t2f_format)99);
	assert_int_equal(t2f_session_write_mem(s, &w, &buf, &len), -EINVAL);
	w = wopts(T2F_FORMAT_COLLAPSED);
	w.colors = (enum t2f_colors)77;
	assert_int_equal(t2f_session_write_mem(s, &w, &buf, &len), -EINVAL);
	w = wopts(T2F_FORMAT_COLLAPSED);
	assert_int_equal(t2f_session_write_mem(s, &w, NULL, &len), -EINVAL);
	assert_int_equal(t2f_session_write_fd(s, &w, -1), -EBADF);
	/* the session is still good */
	assert_int_equal(t2f_session_write_mem(s, &w, &buf, &len), 0);
	assert_int_equal(len, strlen(sorted));
	assert_memory_equal(buf, sorted, len);
	t2f_free(buf);
	assert_int_equal(t2f_session_module(s, 0, &m), -ERANGE);
	t2f_session_free(s);
}

/* A format the session was not opened for, and one whose needs it did not keep. */
static void test_format_not_opened(void **state)
{
	struct lines l = { 0 };
	struct t2f_options o = opts(T2F_FORMAT_BIT(T2F_FORMAT_COLLAPSED), &l);
	struct t2f_write_options w = wopts(T2F_FORMAT_PPROF);
	struct t2f_session *s;
	char *buf;
	size_t len;

	assert_int_equal(t2f_session_new(&o, &s), 0);
	assert_int_equal(t2f_session_add_bytes(s, folded, strlen(folded), NULL), 0);
	assert_int_equal(t2f_session_write_mem(s, &w, &buf, &len), -T2F_ERR_STATE);
	assert_non_null(strstr(t2f_session_error(s), "pprof"));
	w = wopts(T2F_FORMAT_SVG);
	assert_int_equal(t2f_session_write_mem(s, &w, &buf, &len), -T2F_ERR_STATE);
	t2f_session_free(s);

	o = opts(T2F_FORMAT_BIT(T2F_FORMAT_SVG), &l);
	w = wopts(T2F_FORMAT_SVG);
	w.flamechart = true; /* needs time_order */
	assert_int_equal(t2f_session_new(&o, &s), 0);
	assert_int_equal(t2f_session_add_bytes(s, folded, strlen(folded), NULL), 0);
	assert_int_equal(t2f_session_write_mem(s, &w, &buf, &len), -T2F_ERR_STATE);
	assert_non_null(strstr(t2f_session_error(s), "time_order"));
	w.flamechart = false;
	w.diff = s; /* against itself */
	assert_int_equal(t2f_session_write_mem(s, &w, &buf, &len), -EINVAL);
	w.diff = NULL;
	assert_int_equal(t2f_session_write_mem(s, &w, &buf, &len), 0);
	assert_non_null(strstr(buf, "<svg"));
	t2f_free(buf);
	t2f_session_free(s);
}

/* The heat map through the library: refused without sample times (nothing written) and for rows
 * that are not a whole number of 10 ms, drawn from timed samples; a session opened for another
 * format did not keep the histogram. */
static void test_heatmap(void **state)
{
	static const char timed[] =
		"prog  7  10.015000:    1000 cpu-clock: \n\tffff1 spin (/bin/prog)\n\n"
		"prog  7  10.019000:    1000 cpu-clock: \n\tffff1 spin (/bin/prog)\n\n";
	struct lines l = { 0 };
	struct t2f_options o = opts(T2F_FORMAT_BIT(T2F_FORMAT_HEATMAP), &l);
	struct t2f_write_options w = wopts(T2F_FORMAT_HEATMAP);
	struct t2f_session *s;
	char *buf = NULL;
	size_t len = 0;

	assert_int_equal(t2f_session_new(&o, &s), 0);
	assert_int_equal(t2f_session_add_bytes(s, folded, strlen(folded), "f.folded"), 0);
	assert_int_equal(t2f_session_write_mem(s, &w, &buf, &len), -T2F_ERR_UNSUPPORTED);
	assert_null(buf);
	assert_non_null(strstr(t2f_session_error(s), "f.folded: the heat map needs samples with "
					"times"));
	t2f_session_free(s);

	assert_int_equal(t2f_session_new(&o, &s), 0);
	assert_int_equal(t2f_session_add_bytes(s, timed, strlen(timed), "t.txt"), 0);
	w.heatmap_rows = 3;
	assert_int_equal(t2f_session_write_mem(s, &w, &buf, &len), -EINVAL);
	assert_non_null(strstr(t2f_session_error(s), "3 rows per second"));
	w.heatmap_rows = 100;
	assert_int_equal(t2f_session_write_mem(s, &w, &buf, &len), 0);
	assert_non_null(strstr(buf, "10.010 s to 10.020 s: 2 samples, 2000 ns\n"
				    "--time 10.010000000,10.019999999</title>"));
	t2f_free(buf);
	t2f_session_free(s);

	o = opts(T2F_FORMAT_BIT(T2F_FORMAT_SVG), &l);
	w.heatmap_rows = 0;
	assert_int_equal(t2f_session_new(&o, &s), 0);
	assert_int_equal(t2f_session_add_bytes(s, timed, strlen(timed), "t.txt"), 0);
	assert_int_equal(t2f_session_write_mem(s, &w, &buf, &len), -T2F_ERR_STATE);
	t2f_session_free(s);
}

/* fold_threads: threads of one comm share their cells when only collapsed stacks without pids
 * or tids may be written; the same lines come out, and a write that tells the threads apart is
 * refused. Without it, or with formats that tell threads apart, tid writes work. */
static void test_fold_threads(void **state)
{
	static const char two[] =
		"sh  7  10.015000:    1000 cpu-clock: \n\tffff1 spin (/bin/sh)\n\n"
		"sh  8  10.016000:    1000 cpu-clock: \n\tffff1 spin (/bin/sh)\n\n"
		"cc  9  10.017000:    1000 cpu-clock: \n\tffff1 spin (/bin/sh)\n\n";
	struct lines l = { 0 };
	struct t2f_options o = opts(T2F_FORMAT_BIT(T2F_FORMAT_COLLAPSED), &l);
	struct t2f_write_options w = wopts(T2F_FORMAT_COLLAPSED);
	struct t2f_session *s;
	struct t2f_stats st = { .size = sizeof(st) };
	char *buf = NULL;
	size_t len = 0;

	(void)state;
	o.fold_threads = true;
	assert_int_equal(t2f_session_new(&o, &s), 0);
	assert_int_equal(t2f_session_add_bytes(s, two, strlen(two), "t.txt"), 0);
	assert_int_equal(t2f_session_write_mem(s, &w, &buf, &len), 0);
	assert_int_equal(len, strlen("cc;spin 1000\nsh;spin 2000\n"));
	assert_memory_equal(buf, "cc;spin 1000\nsh;spin 2000\n", len);
	t2f_free(buf);
	assert_int_equal(t2f_session_stats(s, &st), 0);
	assert_int_equal(st.threads, 3); /* threads are kept, only their cells shared */
	w.tid = true;
	assert_int_equal(t2f_session_write_mem(s, &w, &buf, &len), -T2F_ERR_STATE);
	assert_non_null(strstr(t2f_session_error(s), "fold_threads"));
	t2f_session_free(s);

	o.formats = 0; /* any format: pprof and SVG tell threads apart, so nothing is folded */
	assert_int_equal(t2f_session_new(&o, &s), 0);
	assert_int_equal(t2f_session_add_bytes(s, two, strlen(two), "t.txt"), 0);
	assert_int_equal(t2f_session_write_mem(s, &w, &buf, &len), 0);
	assert_int_equal(len, strlen("cc-?/9;spin 1000\nsh-?/7;spin 1000\nsh-?/8;spin 1000\n"));
	assert_memory_equal(buf, "cc-?/9;spin 1000\nsh-?/7;spin 1000\nsh-?/8;spin 1000\n", len);
	t2f_free(buf);
	t2f_session_free(s);
}

/* speedscope's profiles are per thread from the sample log, also when the session folds the
 * threads' cells: the same bytes as a session that does not fold, with a second event's samples
 * (left out of the profiles) between them (with_other) or without. */
static void check_fold_speedscope(bool with_other)
{
	static const char two[] =
		"sh  7  10.015000:    1000 cpu-clock: \n\tffff1 spin (/bin/sh)\n\n"
		"sh  8  10.016000:    1000 cpu-clock: \n\tffff1 spin (/bin/sh)\n\n"
		"sh  8  10.016500:    1 sched:sched_switch: \n\tffff2 wait (/bin/sh)\n\n"
		"cc  9  10.017000:    1000 cpu-clock: \n\tffff1 spin (/bin/sh)\n\n"
		"sh  7  10.018000:    3000 cpu-clock: \n\tffff2 wait (/bin/sh)\n\n"
		"sh  7  10.019000:    1000 cpu-clock: \n\tffff1 spin (/bin/sh)\n\n";
	struct lines l = { 0 };
	struct t2f_write_options w = wopts(T2F_FORMAT_SPEEDSCOPE);
	char *buf[2] = { NULL, NULL };
	size_t len[2] = { 0, 0 };
	char in[sizeof(two)];
	const char *other = strstr(two, "sh  8  10.016500"), *after = strstr(other, "cc  9");

	/* without the other event: the input less its sched_switch sample */
	memcpy(in, two, (size_t)(other - two));
	strcpy(in + (other - two), with_other ? other : after);
	for (int fold = 0; fold < 2; fold++) {
		struct t2f_options o = opts(fold ? T2F_FORMAT_BIT(T2F_FORMAT_COLLAPSED) |
						   T2F_FORMAT_BIT(T2F_FORMAT_SPEEDSCOPE) : 0, &l);
		struct t2f_session *s;

		o.fold_threads = fold;
		assert_int_equal(t2f_session_new(&o, &s), 0);
		assert_int_equal(t2f_session_add_bytes(s, in, strlen(in), "t.txt"), 0);
		assert_int_equal(t2f_session_write_mem(s, &w, &buf[fold], &len[fold]), 0);
		t2f_session_free(s);
	}
	assert_int_equal(len[1], len[0]);
	assert_memory_equal(buf[1], buf[0], len[0]);
	/* three threads, in input order: sh 7 (spin, wait, spin), sh 8, cc 9 */
	assert_non_null(strstr(buf[1], "\"name\":\"sh (tid 7)\",\"unit\":\"nanoseconds\","
				   "\"startValue\":0,\"endValue\":5000,"));
	assert_non_null(strstr(buf[1], "\"name\":\"sh (tid 8)\",\"unit\":\"nanoseconds\","
				   "\"startValue\":0,\"endValue\":1000,"));
	assert_non_null(strstr(buf[1], "\"weights\":[1000,3000,1000]}"));
	t2f_free(buf[0]);
	t2f_free(buf[1]);
}

static void test_fold_threads_speedscope(void **state)
{
	(void)state;
	check_fold_speedscope(true);
	check_fold_speedscope(false);
}

/* Inputs after the resolve stage; a missing file, then the others. */
static void test_order_and_failure(void **state)
{
	struct lines l = { 0 };
	struct t2f_options o = opts(0, &l);
	struct t2f_write_options w = wopts(T2F_FORMAT_COLLAPSED);
	struct t2f_session *s;
	char *buf;
	size_t len;

	assert_int_equal(t2f_session_new(&o, &s), 0);
	assert_int_equal(t2f_session_add_bytes(s, folded, strlen(folded), NULL), 0);
	assert_int_equal(t2f_session_resolve(s), 0);
	assert_int_equal(t2f_session_resolve(s), 0); /* once is enough; twice is harmless */
	assert_int_equal(t2f_session_add_bytes(s, folded, strlen(folded), "late"), -T2F_ERR_STATE);
	assert_non_null(strstr(t2f_session_error(s), "late"));
	t2f_session_free(s);

	/* a missing file is left out: the session goes on (test_session_inputs.c has more) */
	assert_int_equal(t2f_session_new(&o, &s), 0);
	assert_int_equal(t2f_session_add_path(s, "/nonexistent/t2f-input"), -ENOENT);
	assert_non_null(strstr(t2f_session_error(s), "/nonexistent/t2f-input"));
	assert_int_equal(t2f_session_add_bytes(s, folded, strlen(folded), NULL), 0);
	assert_int_equal(t2f_session_resolve(s), 0);
	assert_int_equal(t2f_session_write_mem(s, &w, &buf, &len), 0);
	assert_int_equal(len, strlen(sorted));
	assert_memory_equal(buf, sorted, len);
	t2f_free(buf);
	t2f_session_free(s);
}

static void test_missing_event(void **state)
{
	struct lines l = { 0 };
	struct t2f_options o = opts(0, &l);
	struct t2f_write_options w = wopts(T2F_FORMAT_COLLAPSED);
	struct t2f_session *s;
	char *buf;
	size_t len;

	o.event = "cycles";
	assert_int_equal(t2f_session_new(&o, &s), 0);
	assert_int_equal(t2f_session_add_bytes(s, folded, strlen(folded), NULL), 0);
	assert_int_equal(t2f_session_resolve(s), -T2F_ERR_NO_EVENT);
	assert_non_null(strstr(t2f_session_error(s), "no event 'cycles'"));
	assert_int_equal(t2f_session_write_mem(s, &w, &buf, &len), -T2F_ERR_STATE);
	assert_string_equal(t2f_strerror(-T2F_ERR_NO_EVENT), "no such event in the input");
	t2f_session_free(s);
}

/* Warnings come through the callback; stats as data. */
static void test_messages_and_stats(void **state)
{
	static const char bad[] = "main;a 2\nnot a folded line\nmain;b 1\n";
	struct lines l = { 0 };
	struct t2f_options o = opts(0, &l);
	struct t2f_stats st = { .size = sizeof(st) };
	struct t2f_session *s;

	assert_int_equal(t2f_session_new(&o, &s), 0);
	assert_int_equal(t2f_session_add_bytes(s, bad, strlen(bad), "bad.folded"), 0);
	assert_int_equal(t2f_session_resolve(s), 0);
	assert_int_not_equal(l.n, 0);
	assert_non_null(strstr(l.text, "bad.folded:2"));
	assert_int_equal(t2f_session_stats(s, &st), 0);
	assert_int_equal(st.size, sizeof(st));
	assert_int_equal(st.inputs, 1);
	assert_int_equal(st.samples, 3); /* read: the malformed line too */
	assert_int_equal(st.event_samples, 2);
	assert_int_equal(st.event_weight, 3);
	assert_int_equal(st.warnings, 1);
	assert_int_equal(st.frames_tried, 0);
	assert_int_equal(st.bytes, strlen(bad));
	/* the same numbers whenever asked: nothing adds up across calls */
	for (int i = 0; i < 3; i++) {
		struct t2f_stats again = { .size = sizeof(again) };

		assert_int_equal(t2f_session_stats(s, &again), 0);
		assert_int_equal(again.bytes, strlen(bad));
		assert_int_equal(again.inputs, 1);
		assert_int_equal(again.samples, 3);
		assert_int_equal(t2f_session_stats(s, &st), 0); /* into the same struct */
		assert_int_equal(st.bytes, strlen(bad));
	}
	t2f_session_free(s);
}

/* Whether text names a command-line flag of trace2flame: a "--x" that is none of perf's. */
static bool names_a_flag(const char *text)
{
	static const char *const perf[] = { "perf record --", "perf script --" };

	for (const char *p = strstr(text, "--"); p; p = strstr(p + 2, "--")) {
		bool theirs = false;

		for (size_t i = 0; i < sizeof(perf) / sizeof(perf[0]); i++) {
			size_t n = strlen(perf[i]) - 2;

			theirs = theirs || ((size_t)(p - text) >= n && strncmp(p - n, perf[i], n) == 0);
		}
		if (!theirs && p[2] >= 'a' && p[2] <= 'z')
			return true;
	}
	return false;
}

/* Messages name the library's options, not the command line's flags: the frame limit, the
 * event choice, the resolve stage's statistics (no build-id known). */
static void test_messages_name_options(void **state)
{
	static const char two_events[] =
		"prog   100     1.000100:     1000 cpu-clock: \n"
		"\t            1234 [unknown] (/nonexistent/t2f/lib.so)\n\n"
		"prog   100     1.000200:     1000 cpu-clock: \n"
		"\t            1234 [unknown] (/nonexistent/t2f/lib.so)\n\n"
		"prog   100     1.000300:        1 page-faults: \n"
		"\t            1234 [unknown] (/nonexistent/t2f/lib.so)\n\n";
	struct lines l = { 0 };
	struct t2f_options o = opts(0, &l);
	struct t2f_session *s;

	o.max_frames = 2;
	assert_int_equal(t2f_session_new(&o, &s), 0);
	assert_int_equal(t2f_session_add_bytes(s, folded, strlen(folded), "many.folded"),
			 -T2F_ERR_LIMIT);
	assert_non_null(strstr(t2f_session_error(s), "t2f_options.max_frames raises the limit"));
	assert_false(names_a_flag(t2f_session_error(s)));
	t2f_session_free(s);

	o.max_frames = 0;
	assert_int_equal(t2f_session_new(&o, &s), 0);
	assert_int_equal(t2f_session_add_bytes(s, two_events, strlen(two_events), "two.perf.txt"),
			 0);
	assert_int_equal(t2f_session_resolve(s), 0);
	t2f_session_report(s, T2F_REPORT_WARNINGS | T2F_REPORT_STATS);
	t2f_session_free(s);
	if (!strstr(l.text, "choose one with t2f_options.event") ||
	    !strstr(l.text, "t2f_options.buildids") ||
	    !strstr(l.text, "t2f_options.unsafe_build_id_match") || names_a_flag(l.text)) {
		fputs(l.text, stderr);
		fail_msg("the messages above name no option, or a flag");
	}
}

/* The same input by path, by descriptor and in memory gives the same bytes. */
static void test_inputs_agree(void **state)
{
	const char *src = getenv("T2F_SOURCE_DIR");
	char path[4096], *out[3];
	size_t len[3];
	struct lines l = { 0 };
	struct t2f_options o = opts(T2F_FORMAT_BIT(T2F_FORMAT_COLLAPSED), &l);
	struct t2f_write_options w = wopts(T2F_FORMAT_COLLAPSED);
	FILE *f;
	char *bytes;
	long size;

	assert_non_null(src);
	snprintf(path, sizeof(path), "%s/fixtures/perf-script/burner.perf.txt", src);
	f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	rewind(f);
	bytes = malloc((size_t)size);
	assert_int_equal(fread(bytes, 1, (size_t)size, f), (size_t)size);
	for (int i = 0; i < 3; i++) {
		struct t2f_session *s;

		assert_int_equal(t2f_session_new(&o, &s), 0);
		if (i == 0) {
			assert_int_equal(t2f_session_add_path(s, path), 0);
		} else if (i == 1) {
			rewind(f);
			assert_int_equal(t2f_session_add_fd(s, fileno(f), NULL), 0);
		} else {
			assert_int_equal(t2f_session_add_bytes(s, bytes, (size_t)size, NULL), 0);
		}
		assert_int_equal(t2f_session_write_mem(s, &w, &out[i], &len[i]), 0);
		assert_true(len[i] > 0);
		t2f_session_free(s);
	}
	assert_int_equal(len[0], len[1]);
	assert_int_equal(len[0], len[2]);
	assert_memory_equal(out[0], out[1], len[0]);
	assert_memory_equal(out[0], out[2], len[0]);
	for (int i = 0; i < 3; i++)
		t2f_free(out[i]);
	free(bytes);
	fclose(f);
}

/* A session given no input writes what an input without samples gives (every format, each way
 * of writing), after the warning that the output is empty; with strict that warning is the
 * error. */
static void test_no_input(void **state)
{
	static const enum t2f_format formats[] = { T2F_FORMAT_COLLAPSED, T2F_FORMAT_SPEEDSCOPE,
						   T2F_FORMAT_PPROF, T2F_FORMAT_SVG };
	char path[] = "/tmp/t2f-api-empty.XXXXXX";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		struct t2f_write_options w = wopts(formats[i]);
		struct lines l = { 0 }, le = { 0 };
		struct t2f_options o = opts(0, &l), oe = opts(0, &le);
		struct t2f_session *s, *e;
		char *buf, *want, *got;
		size_t len, want_len;
		ssize_t n;

		w.input_name = "x"; /* the same name in both */
		assert_int_equal(t2f_session_new(&oe, &e), 0);
		assert_int_equal(t2f_session_add_bytes(e, "", 0, "x"), 0);
		assert_int_equal(t2f_session_write_mem(e, &w, &want, &want_len), 0);
		t2f_session_free(e);

		assert_int_equal(t2f_session_new(&o, &s), 0);
		assert_int_equal(t2f_session_write_mem(s, &w, &buf, &len), 0);
		assert_non_null(strstr(l.text, "no input: no samples in the input: the output is "
					       "empty"));
		assert_int_equal(len, want_len);
		assert_memory_equal(buf, want, len);
		t2f_free(buf);
		assert_int_equal(ftruncate(fd, 0), 0);
		assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
		assert_int_equal(t2f_session_write_fd(s, &w, fd), 0);
		got = malloc(want_len + 1);
		assert_non_null(got);
		n = pread(fd, got, want_len + 1, 0);
		assert_int_equal(n, (ssize_t)want_len);
		assert_memory_equal(got, want, want_len);
		free(got);
		assert_int_equal(t2f_session_write_path(s, &w, path), 0);
		t2f_session_free(s);
		t2f_free(want);
	}
	close(fd);
	unlink(path);

	struct lines l = { 0 };
	struct t2f_options o = opts(0, &l);
	struct t2f_write_options w = wopts(T2F_FORMAT_COLLAPSED);
	struct t2f_session *s;
	char *buf;
	size_t len;

	o.strict = true;
	assert_int_equal(t2f_session_new(&o, &s), 0);
	assert_int_equal(t2f_session_write_mem(s, &w, &buf, &len), -T2F_ERR_FORMAT);
	assert_non_null(strstr(t2f_session_error(s), "no samples"));
	assert_int_equal(t2f_session_write_fd(s, &w, 1), -T2F_ERR_STATE);
	t2f_session_free(s);
	assert_int_equal(t2f_session_new(&o, &s), 0);
	assert_int_equal(t2f_session_resolve(s), -T2F_ERR_FORMAT);
	t2f_session_free(s);
}

/* A path written over a regular file keeps that file's mode (without signals: the unguarded
 * temp file); a new one gets 0666 & ~umask. */
static void test_path_keeps_mode(void **state)
{
	static const mode_t modes[] = { 0600, 0640, 0444, 0755 };
	char dir[] = "/tmp/t2f-api-mode.XXXXXX", path[64];
	struct lines l = { 0 };
	struct t2f_options o = opts(0, &l);
	struct t2f_write_options w = wopts(T2F_FORMAT_COLLAPSED);
	struct t2f_session *s;
	mode_t old_mask = umask(022);
	struct stat st;
	int fd;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/out.folded", dir);
	assert_int_equal(t2f_session_new(&o, &s), 0);
	assert_int_equal(t2f_session_add_bytes(s, folded, strlen(folded), NULL), 0);
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		assert_true(fd >= 0);
		assert_int_equal(fchmod(fd, modes[i]), 0);
		close(fd);
		assert_int_equal(t2f_session_write_path(s, &w, path), 0);
		assert_int_equal(stat(path, &st), 0);
		assert_int_equal(st.st_mode & 07777, modes[i]);
		assert_int_equal(st.st_size, strlen(sorted));
	}
	assert_int_equal(unlink(path), 0);
	assert_int_equal(t2f_session_write_path(s, &w, path), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	t2f_session_free(s);
	unlink(path);
	rmdir(dir);
	umask(old_mask);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_rejects_bad_options),
		cmocka_unit_test(test_null_sessions),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_format_not_opened),
		cmocka_unit_test(test_order_and_failure),
		cmocka_unit_test(test_heatmap),
		cmocka_unit_test(test_fold_threads),
		cmocka_unit_test(test_fold_threads_speedscope),
		cmocka_unit_test(test_missing_event),
		cmocka_unit_test(test_messages_and_stats),
		cmocka_unit_test(test_messages_name_options),
		cmocka_unit_test(test_inputs_agree),
		cmocka_unit_test(test_no_input),
		cmocka_unit_test(test_path_keeps_mode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
