/* tests/unit/test_sample_filter.c: formats/sample_filter — perf script's --time syntax (absolute
 * ranges, percentages of a span as perf rounds them), --pids, --tids, --comms, what a filter
 * keeps, and a message naming the option and what was expected for every bad string. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "formats/sample_filter.h"

#define S 1000000000ull

/* The filter of time string t over span [first, last]. */
static struct t2f_sample_filter *time_filter(const char *t, uint64_t first, uint64_t last,
					     struct t2f_filter **f)
{
	struct t2f_filter_strs strs = { .time = t };
	struct t2f_sample_filter *sf;
	char msg[T2F_FILTER_MSG_MAX];

	assert_int_equal(t2f_filter__parse(&strs, f, msg, sizeof(msg)), 0);
	assert_non_null(*f);
	assert_int_equal(t2f_sample_filter__new(*f, first, last, &sf), 0);
	assert_non_null(sf);
	return sf;
}

/* t's ranges over [first, last] are want[0..2n) (start, end pairs). */
static void check_ranges(const char *t, uint64_t first, uint64_t last, const uint64_t *want,
			 size_t n)
{
	struct t2f_filter *f;
	struct t2f_sample_filter *sf = time_filter(t, first, last, &f);
	uint64_t start[8], end[8];

	assert_int_equal(t2f_sample_filter__ranges(sf, start, end, 8), n);
	for (size_t i = 0; i < n; i++) {
		if (start[i] != want[2 * i] || end[i] != want[2 * i + 1])
			fail_msg("%s: range %zu is [%llu, %llu], want [%llu, %llu]", t, i,
				 (unsigned long long)start[i], (unsigned long long)end[i],
				 (unsigned long long)want[2 * i],
				 (unsigned long long)want[2 * i + 1]);
	}
	t2f_sample_filter__free(sf);
	t2f_filter__free(f);
}

static void test_absolute(void **state)
{
	(void)state;
	check_ranges("100.5,200", 0, 0, (uint64_t[]){ 100 * S + S / 2, 200 * S }, 1);
	check_ranges(",200", 0, 0, (uint64_t[]){ 0, 200 * S }, 1);
	check_ranges("100.5,", 0, 0, (uint64_t[]){ 100 * S + S / 2, 0 }, 1);
	check_ranges(",", 0, 0, (uint64_t[]){ 0, 0 }, 1);
	check_ranges("1.123456789,1.2", 0, 0, (uint64_t[]){ S + 123456789, S + 200000000 }, 1);
	check_ranges("1.,2", 0, 0, (uint64_t[]){ S, 2 * S }, 1); /* as perf reads it */
	check_ranges("7,7", 0, 0, (uint64_t[]){ 7 * S, 7 * S }, 1);
	check_ranges("1,2 3,4", 0, 0, (uint64_t[]){ S, 2 * S, 3 * S, 4 * S }, 2);
	check_ranges("  1,2\t 3,  ", 0, 0, (uint64_t[]){ S, 2 * S, 3 * S, 0 }, 2);
	check_ranges("13522.897229,13523.047258", 0, 0,
		     (uint64_t[]){ 13522 * S + 897229000, 13523 * S + 47258000 }, 1);
}

/* Percentages: first + round(frac * span), the end less 1 ns unless it is the last sample's time
 * (perf's set_percent_time). */
static void test_percent(void **state)
{
	const uint64_t a = 1000, b = 2000; /* a span of 1000 ns */

	(void)state;
	check_ranges("10%/2", a, b, (uint64_t[]){ 1100, 1199 }, 1);
	check_ranges("10%", a, b, (uint64_t[]){ 1000, 1099 }, 1);
	check_ranges("50%", a, b, (uint64_t[]){ 1000, 1499 }, 1);
	check_ranges("0%-10%", a, b, (uint64_t[]){ 1000, 1099 }, 1);
	check_ranges("0%-100%", a, b, (uint64_t[]){ 1000, 2000 }, 1);
	check_ranges("10%/10", a, b, (uint64_t[]){ 1900, 2000 }, 1);
	check_ranges("0%-0%", a, b, (uint64_t[]){ 1000, 1000 }, 1);
	check_ranges("10%/1,10%/3", a, b, (uint64_t[]){ 1000, 1099, 1200, 1299 }, 2);
	check_ranges("0%-10%,30%-40%", a, b, (uint64_t[]){ 1000, 1099, 1300, 1399 }, 2);
	check_ranges("33.3%-66.7%", a, b, (uint64_t[]){ 1333, 1666 }, 1);
	/* rounding half away from zero: 2.5 ns of a 10 ns span is 3 */
	check_ranges("25%/1", 0, 10, (uint64_t[]){ 0, 2 }, 1);
	check_ranges("25%/2", 100, 110, (uint64_t[]){ 103, 104 }, 1);
	/* a real recording's span (ns since boot) */
	check_ranges("10%/2", 13522 * S + 897229000, 13523 * S + 47258000,
		     (uint64_t[]){ 13522 * S + 912231900, 13522 * S + 927234799 }, 1);
	/* times near 2^64 (a hostile header): no overflow, the ends clamped */
	check_ranges("50%/2", UINT64_MAX - 10, UINT64_MAX, (uint64_t[]){ UINT64_MAX, UINT64_MAX },
		     1);
	check_ranges("10%", 0, UINT64_MAX, (uint64_t[]){ 0, 1844674407370955264ull - 1 }, 1);
	/* a span given backwards is taken as empty */
	check_ranges("10%/2", 9000, 10, (uint64_t[]){ 9000, 9000 }, 1);
	/* an empty span: every range is that instant */
	check_ranges("10%/3", 5000, 5000, (uint64_t[]){ 5000, 5000 }, 1);
}

static void test_keep_time(void **state)
{
	struct t2f_filter *f;
	struct t2f_sample_filter *sf = time_filter("1,2 3,4", 0, 0, &f);

	(void)state;
	assert_true(t2f_sample_filter__has_ranges(sf));
	assert_false(t2f_sample_filter__keep_time(sf, S - 1));
	assert_true(t2f_sample_filter__keep_time(sf, S));          /* ends included */
	assert_true(t2f_sample_filter__keep_time(sf, 2 * S));
	assert_false(t2f_sample_filter__keep_time(sf, 2 * S + 1)); /* between the ranges */
	assert_true(t2f_sample_filter__keep_time(sf, 3 * S + 5));
	assert_false(t2f_sample_filter__keep_time(sf, 4 * S + 1));
	assert_true(t2f_sample_filter__keep_time(sf, 0));          /* no time: kept, as perf */
	t2f_sample_filter__free(sf);
	t2f_filter__free(f);

	sf = time_filter(",2", 0, 0, &f);
	assert_true(t2f_sample_filter__keep_time(sf, 1));
	assert_false(t2f_sample_filter__keep_time(sf, 2 * S + 1));
	t2f_sample_filter__free(sf);
	t2f_filter__free(f);
	sf = time_filter("2,", 0, 0, &f);
	assert_false(t2f_sample_filter__keep_time(sf, 2 * S - 1));
	assert_true(t2f_sample_filter__keep_time(sf, UINT64_MAX));
	t2f_sample_filter__free(sf);
	t2f_filter__free(f);
}

static void test_threads(void **state)
{
	struct t2f_filter_strs strs = { .pids = "10,20", .tids = "11,21,22", .comms = "mt,a b" };
	struct t2f_filter *f;
	struct t2f_sample_filter *sf;
	char msg[T2F_FILTER_MSG_MAX];

	(void)state;
	assert_int_equal(t2f_filter__parse(&strs, &f, msg, sizeof(msg)), 0);
	assert_false(t2f_filter__has_time(f));
	assert_false(t2f_filter__needs_span(f));
	assert_int_equal(t2f_sample_filter__new(f, 0, 0, &sf), 0);
	assert_true(t2f_sample_filter__wants_comm(sf));
	assert_true(t2f_sample_filter__wants_pid(sf));
	assert_true(t2f_sample_filter__keep(sf, 10, 11, "mt", 2, 5));
	assert_true(t2f_sample_filter__keep(sf, 20, 22, "a b", 3, 0));
	assert_false(t2f_sample_filter__keep(sf, 30, 11, "mt", 2, 5));  /* pid */
	assert_false(t2f_sample_filter__keep(sf, 10, 12, "mt", 2, 5));  /* tid */
	assert_false(t2f_sample_filter__keep(sf, 10, 11, "m", 1, 5));   /* comm: whole names */
	assert_false(t2f_sample_filter__keep(sf, 10, 11, "mtx", 3, 5));
	assert_false(t2f_sample_filter__keep(sf, 10, 11, NULL, 0, 5));
	assert_true(t2f_sample_filter__keep(sf, 10, 11, "mt-x", 2, 5)); /* the length counts */
	t2f_sample_filter__free(sf);
	t2f_filter__free(f);

	/* nothing given: no filter, which keeps everything */
	strs = (struct t2f_filter_strs){ .time = "", .pids = NULL };
	assert_int_equal(t2f_filter__parse(&strs, &f, msg, sizeof(msg)), 0);
	assert_null(f);
	assert_int_equal(t2f_sample_filter__new(f, 0, 0, &sf), 0);
	assert_null(sf);
	assert_true(t2f_sample_filter__keep(NULL, 1, 1, "x", 1, 1));
}

/* Option `which` ('t', 'p', 'i', 'c') given arg: -EINVAL and a message holding each of the
 * NULL-terminated words. */
static void check_bad(char which, const char *arg, const char *const *words)
{
	struct t2f_filter_strs strs = { 0 };
	struct t2f_filter *f = (struct t2f_filter *)&strs;
	char msg[T2F_FILTER_MSG_MAX];

	switch (which) {
	case 't': strs.time = arg; break;
	case 'p': strs.pids = arg; break;
	case 'i': strs.tids = arg; break;
	default: strs.comms = arg; break;
	}
	if (t2f_filter__parse(&strs, &f, msg, sizeof(msg)) != -EINVAL)
		fail_msg("'%s' was not refused", arg);
	assert_null(f);
	for (; *words; words++)
		if (!strstr(msg, *words))
			fail_msg("'%s': message \"%s\" lacks \"%s\"", arg, msg, *words);
}

#define BAD(which, arg, ...) check_bad(which, arg, (const char *const[]){ __VA_ARGS__, NULL })

static void test_bad(void **state)
{
	(void)state;
	/* absolute */
	BAD('t', "100", "--time", "'100'", "expected START,STOP in seconds");
	BAD('t', "1,2,3", "--time", "'1,2,3'", "expected START,STOP");
	BAD('t', "abc,", "--time", "'abc,'", "expected seconds as digits");
	BAD('t', "1.5s,2", "--time", "expected seconds");
	BAD('t', "-1,2", "--time", "expected seconds");
	BAD('t', "1.1234567891,", "--time", "up to 9 decimals");
	BAD('t', "99999999999999999999,", "--time", "expected seconds");
	BAD('t', "2,1", "--time", "'2,1'", "ends before it starts");
	BAD('t', "3,4 1,2", "--time", "increasing order, not overlapping");
	BAD('t', "1,3 2,4", "--time", "increasing order, not overlapping");
	BAD('t', "1, 2,3", "--time", "increasing order"); /* an open end is the last range's */
	BAD('t', "   ", "--time", "expected START,STOP");
	/* percentages */
	BAD('t', "10%/0", "--time", "'10%/0'", "expected P%/N");
	BAD('t', "0%/1", "--time", "expected P%/N");
	BAD('t', "10%/11", "--time", "within 0%..100%");
	BAD('t', "10%/x", "--time", "expected P%/N");
	BAD('t', "10%x/2", "--time", "expected P%/N");
	BAD('t', "10%/1,", "--time", "expected P%/N");
	BAD('t', "10%/1,0%-5%", "--time", "'0%-5%'", "expected P%/N");
	BAD('t', "5%-3%", "--time", "'5%-3%'", "expected A%-B% (A <= B)");
	BAD('t', "0%-101%", "--time", "within 0%..100%");
	BAD('t', "-5%-3%", "--time", "expected A%-B%");
	BAD('t', "101%", "--time", "'101%'", "expected P%");
	BAD('t', "10%,20%", "--time", "several percentages need the form P%/N or A%-B%");
	BAD('t', "10", "--time", "expected START,STOP");
	BAD('t', "%", "--time", "expected P%");
	BAD('t', "nan%", "--time", "expected P%");
	BAD('t', "1,2 10%", "--time", "several percentages need");
	/* ids, names */
	BAD('p', "1,a", "--pids", "'1,a'", "expected decimal ids separated by commas");
	BAD('p', ",", "--pids", "expected decimal ids");
	BAD('p', "1,", "--pids", "expected decimal ids");
	BAD('p', "-1", "--pids", "expected decimal ids");
	BAD('p', "1 2", "--pids", "expected decimal ids");
	BAD('i', "7;8", "--tids", "'7;8'", "expected decimal ids");
	BAD('c', "a,,b", "--comms", "'a,,b'", "expected command names separated by commas");
	BAD('c', ",", "--comms", "expected command names");
}

/* The names messages give the options are the caller's (the library's field names). */
static void test_names(void **state)
{
	struct t2f_filter_strs strs = { .time = "x", .time_name = "time" };
	struct t2f_filter *f;
	char msg[T2F_FILTER_MSG_MAX];

	(void)state;
	assert_int_equal(t2f_filter__parse(&strs, &f, msg, sizeof(msg)), -EINVAL);
	assert_int_equal(strncmp(msg, "time: 'x': expected", 19), 0);
	strs = (struct t2f_filter_strs){ .time = "10%", .tids = "q", .tid_name = "tids" };
	assert_int_equal(t2f_filter__parse(&strs, &f, msg, sizeof(msg)), -EINVAL);
	assert_int_equal(strncmp(msg, "tids: 'q': expected", 19), 0);
	strs = (struct t2f_filter_strs){ .time = "10%" };
	assert_int_equal(t2f_filter__parse(&strs, &f, msg, sizeof(msg)), 0);
	assert_true(t2f_filter__needs_span(f));
	assert_string_equal(t2f_filter__time_name(f), "--time");
	t2f_filter__free(f);
	/* a message cut to the room given, still terminated */
	strs = (struct t2f_filter_strs){ .pids = "zzzz" };
	assert_int_equal(t2f_filter__parse(&strs, &f, msg, 8), -EINVAL);
	assert_int_equal(strlen(msg), 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_absolute),
		cmocka_unit_test(test_percent),
		cmocka_unit_test(test_keep_time),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
