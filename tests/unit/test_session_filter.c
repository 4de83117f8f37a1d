/* tests/unit/test_session_filter.c: the sample filter through libtrace2flame's public header
 * (t2f_options time, pids, tids, comms): which samples of perf script text are kept (exact
 * folded output), that the others are counted (t2f_stats.samples_filtered and the input's
 * samples), a bad string refused by t2f_session_new with a message naming the field, and
 * percentages without the recording's span refused per input with what to do; a .nettrace
 * trace's times and threads. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <trace2flame.h>

/* `perf script --header` text: three threads of two processes, samples at 10.0 .. 10.4 s (the
 * comm "b w" is written b_w in folded stacks). */
static const char text[] =
	"# ========\n"
	"# time of first sample : 10.000000\n"
	"# time of last sample : 10.400000\n"
	"# ========\n"
	"#\n"
	"a 100/100 10.000000: 1 cpu-clock: \n"
	"\t1 fa (/bin/a)\n"
	"\n"
	"a 100/101 10.100000: 1 cpu-clock: \n"
	"\t2 fb (/bin/a)\n"
	"\n"
	"b w 200/201 10.200000: 1 cpu-clock: \n"
	"\t3 fc (/bin/b)\n"
	"\n"
	"a 100/101 10.300000: 1 cpu-clock: \n"
	"\t4 fd (/bin/a)\n"
	"\n"
	"b w 200/201 10.400000: 1 cpu-clock: \n"
	"\t5 fe (/bin/b)\n"
	"\n";

struct lines {
	char text[4096];
	size_t len;
};

static void collect(void *ctx, const char *line)
{
	struct lines *l = ctx;
	int n = snprintf(l->text + l->len, sizeof(l->text) - l->len, "%s\n", line);

	if (n > 0 && (size_t)n < sizeof(l->text) - l->len)
		l->len += (size_t)n;
}

/* The folded output of text read with the filter (time, pids, tids, comms), and the samples
 * filtered out into *filtered. */
static void check(const char *time, const char *pids, const char *tids, const char *comms,
		  const char *want, uint64_t want_filtered)
{
	struct lines l = { .len = 0 };
	struct t2f_options o = { .size = sizeof(o), .message = collect, .message_ctx = &l,
				 .time = time, .pids = pids, .tids = tids, .comms = comms,
				 .jobs = 1 };
	struct t2f_write_options w = { .size = sizeof(w), .format = T2F_FORMAT_COLLAPSED };
	struct t2f_stats st = { .size = sizeof(st) };
	struct t2f_input_report r = { .size = sizeof(r) };
	struct t2f_session *s;
	char *buf;
	size_t len;

	assert_int_equal(t2f_session_new(&o, &s), 0);
	assert_int_equal(t2f_session_add_bytes(s, text, strlen(text), "t.txt"), 0);
	assert_int_equal(t2f_session_write_mem(s, &w, &buf, &len), 0);
	if (len != strlen(want) || memcmp(buf, want, len))
		fail_msg("time '%s' pids '%s' tids '%s' comms '%s': wrote\n%.*s\nwant\n%s",
			 time ? time : "", pids ? pids : "", tids ? tids : "", comms ? comms : "",
			 (int)len, buf, want);
	t2f_free(buf);
	assert_int_equal(t2f_session_stats(s, &st), 0);
	assert_int_equal(st.samples, 5);
	assert_int_equal(st.samples_filtered, want_filtered);
	assert_int_equal(t2f_session_input(s, 0, &r), 0);
	assert_int_equal(r.samples, 5);
	t2f_session_free(s);
}

static void test_kept(void **state)
{
	(void)state;
	check(NULL, NULL, NULL, NULL, "a;fa 1\na;fb 1\na;fd 1\nb_w;fc 1\nb_w;fe 1\n", 0);
	check("10.1,10.3", NULL, NULL, NULL, "a;fb 1\na;fd 1\nb_w;fc 1\n", 2);
	check(",10.1", NULL, NULL, NULL, "a;fa 1\na;fb 1\n", 3);
	check("10.3,", NULL, NULL, NULL, "a;fd 1\nb_w;fe 1\n", 3);
	check("10,10.05 10.35,", NULL, NULL, NULL, "a;fa 1\nb_w;fe 1\n", 3);
	/* percentages of the span the header gives (10.0 .. 10.4 s): 25% is 0.1 s */
	check("25%/2", NULL, NULL, NULL, "a;fb 1\n", 4);          /* [10.1, 10.2 - 1 ns] */
	check("25%/4", NULL, NULL, NULL, "a;fd 1\nb_w;fe 1\n", 3); /* [10.3, 10.4]: the last */
	check("0%-50%,75%-100%", NULL, NULL, NULL, "a;fa 1\na;fb 1\na;fd 1\nb_w;fe 1\n", 1);
	check(NULL, "200", NULL, NULL, "b_w;fc 1\nb_w;fe 1\n", 3);
	check(NULL, NULL, "100,201", NULL, "a;fa 1\nb_w;fc 1\nb_w;fe 1\n", 2);
	check(NULL, NULL, NULL, "b w", "b_w;fc 1\nb_w;fe 1\n", 3);
	check(NULL, NULL, NULL, "x,a", "a;fa 1\na;fb 1\na;fd 1\n", 2);
	check("10.1,", "100", "101", "a", "a;fb 1\na;fd 1\n", 3);
	check(NULL, "100", NULL, "b w", "", 5); /* every list must pass */
}

static void test_bad_strings(void **state)
{
	static const struct {
		struct t2f_options o;
		const char *msg;
	} bad[] = {
		{ { .time = "1,2,3" },
		  "trace2flame: error: t2f_options.time: '1,2,3': expected START,STOP" },
		{ { .time = "10%/0" }, "trace2flame: error: t2f_options.time: '10%/0': expected P%/N" },
		{ { .pids = "1,x" }, "trace2flame: error: t2f_options.pids: '1,x': expected decimal ids" },
		{ { .tids = "-3" }, "trace2flame: error: t2f_options.tids: '-3': expected decimal ids" },
		{ { .comms = "a,,b" },
		  "trace2flame: error: t2f_options.comms: 'a,,b': expected command names" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct lines l = { .len = 0 };
		struct t2f_options o = bad[i].o;
		struct t2f_session *s = (struct t2f_session *)&l;

		o.size = sizeof(o);
		o.message = collect;
		o.message_ctx = &l;
		assert_int_equal(t2f_session_new(&o, &s), -EINVAL);
		assert_null(s);
		if (strncmp(l.text, bad[i].msg, strlen(bad[i].msg)))
			fail_msg("said \"%s\", want \"%s...\"", l.text, bad[i].msg);
	}
}

/* Percentages need the recording's span: text without the header's lines is refused (the input
 * left out, said why), and folded stacks have nothing to filter by. */
static void test_no_span(void **state)
{
	static const char bare[] = "a 100/100 10.000000: 1 cpu-clock: \n\t1 fa (/bin/a)\n\n";
	static const char folded[] = "a;fa 1\n";
	struct lines l = { .len = 0 };
	struct t2f_options o = { .size = sizeof(o), .message = collect, .message_ctx = &l,
				 .time = "10%" };
	struct t2f_session *s;

	(void)state;
	assert_int_equal(t2f_session_new(&o, &s), 0);
	assert_int_equal(t2f_session_add_bytes(s, bare, strlen(bare), "bare.txt"),
			 -T2F_ERR_UNSUPPORTED);
	assert_non_null(strstr(t2f_session_error(s), "bare.txt: t2f_options.time in percentages "
						      "needs the recording's first and last sample "
						      "times"));
	assert_non_null(strstr(t2f_session_error(s), "perf script --header prints them"));
	assert_int_equal(t2f_session_add_bytes(s, text, strlen(text), "t.txt"), 0);
	assert_int_equal(t2f_session_add_bytes(s, folded, strlen(folded), "f.folded"),
			 -T2F_ERR_UNSUPPORTED);
	assert_non_null(strstr(t2f_session_error(s), "f.folded: folded stacks have no times"));
	t2f_session_free(s);
}

/* A caller of the first release's size has no filter fields: every sample is kept. */
static void test_v1_caller(void **state)
{
	struct lines l = { .len = 0 };
	struct t2f_options o = { .size = T2F_OPTIONS_SIZE_V1, .message = collect,
				 .message_ctx = &l, .time = "never read" };
	struct t2f_stats st = { .size = sizeof(st) };
	struct t2f_session *s;

	(void)state;
	assert_int_equal(t2f_session_new(&o, &s), 0);
	assert_int_equal(t2f_session_add_bytes(s, text, strlen(text), "t.txt"), 0);
	assert_int_equal(t2f_session_stats(s, &st), 0);
	assert_int_equal(st.samples, 5);
	assert_int_equal(st.samples_filtered, 0);
	t2f_session_free(s);
}

/* The samples of the shipped .nettrace trace that filter (time, tids) leaves out. */
static uint64_t nettrace_filtered(const char *time, const char *tids, uint64_t *read)
{
	const char *src = getenv("T2F_SOURCE_DIR");
	char path[4096];
	struct lines l = { .len = 0 };
	struct t2f_options o = { .size = sizeof(o), .message = collect, .message_ctx = &l,
				 .time = time, .tids = tids };
	struct t2f_stats st = { .size = sizeof(st) };
	struct t2f_session *s;

	snprintf(path, sizeof(path), "%s/fixtures/nettrace/mixed_managed_external_samples.nettrace",
		 src ? src : ".");
	assert_int_equal(t2f_session_new(&o, &s), 0);
	if (t2f_session_add_path(s, path))
		fail_msg("%s: %s", path, t2f_session_error(s));
	assert_int_equal(t2f_session_stats(s, &st), 0);
	t2f_session_free(s);
	*read = st.samples;
	return st.samples_filtered;
}

/* .nettrace: times in seconds since the trace's start; [,0.5] and [0.500000001,] part the
 * samples between them (both non-empty), a thread that is not there leaves all out. */
static void test_nettrace(void **state)
{
	uint64_t all, n, before, after, none;

	(void)state;
	assert_int_equal(nettrace_filtered(NULL, NULL, &all), 0);
	assert_true(all > 1000);
	before = nettrace_filtered(",0.5", NULL, &n);
	assert_int_equal(n, all);
	after = nettrace_filtered("0.500000001,", NULL, &n);
	assert_true(before > 0 && after > 0);
	assert_int_equal(before + after, all);
	none = nettrace_filtered(NULL, "1", &n);
	assert_int_equal(none, all);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kept),
		cmocka_unit_test(test_bad_strings),
		cmocka_unit_test(test_no_span),
		cmocka_unit_test(test_v1_caller),
		cmocka_unit_test(test_nettrace),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
