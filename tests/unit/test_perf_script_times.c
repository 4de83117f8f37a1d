/* tests/unit/test_perf_script_times.c: the time span the perf script reader keeps when only the
 * span is wanted (readers/perf_script_times.c: runs of times compared as text), against the
 * same text read with every time converted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "formats/diag.h"
#include "formats/profile.h"
#include "readers/perf_script.h"

/* Sample headers of one thread, cpu and period (the header memo's from the second on), with
 * these times; "!" makes a sample whose frame line is unreadable (dropped). The least time of
 * the first set has its '.' elsewhere than the time before it, of the same length; the second's
 * goes down from the one before it, and its last, dropped, would be the latest. */
static const char *const SPAN_DOT[] = {
	"500000.00000", "100000.00000", "99999.999990", "99999.999999", "99999.999995", NULL,
};
static const char *const SPAN_RUNS[] = {
	"20.000004", "20.000005", "20.000001", "20.000009", "99999.999999", "100000.000001",
	"12345678.123456789", "99999999999.5", "99999999.000001", "99999999.000007",
	"!99999999.999999", NULL,
};

/* The time span of the samples of these times read for the span alone (runs of times compared
 * as text) or, with a time histogram, each time converted; *past: the times past 2^64 ns,
 * *dropped: the samples dropped. */
static void span_of(const char *const *times, bool each, uint64_t *first, uint64_t *last,
		    uint64_t *past, uint64_t *dropped)
{
	struct t2f_profile *p;
	struct t2f_diag *d;
	struct t2f_perf_script *ps;
	char text[4096];
	size_t n = 0;

	for (size_t i = 0; times[i]; i++) {
		bool drop = times[i][0] == '!';

		n += (size_t)snprintf(text + n, sizeof(text) - n,
				      "w 7 [000] %s: 1000 cpu-clock: \n%s\n\n", times[i] + drop,
				      drop ? "\tnot a frame line" : "\t401000 main (/bin/w)");
	}
	assert_int_equal(t2f_profile__new(&p), 0);
	assert_int_equal(t2f_diag__new(NULL, &d), 0);
	t2f_profile__want_times(p);
	if (each)
		assert_int_equal(t2f_profile__enable_hist(p), 0);
	assert_int_equal(t2f_perf_script__new(p, d, "x", 0, &ps), 0);
	assert_int_equal(t2f_perf_script__feed(ps, text, n), 0);
	assert_int_equal(t2f_perf_script__finish(ps), 0);
	assert_true(t2f_profile__time_span(p, first, last));
	*past = t2f_profile__times_past(p);
	*dropped = t2f_profile__samples_dropped(p, T2F_DROP_MALFORMED);
	t2f_perf_script__free(ps);
	t2f_diag__free(d);
	t2f_profile__free(p);
}

/* Read for the span alone, the span is the one of every time converted. */
static void test_reader_time_span_runs(void **state)
{
	const char *const *sets[] = { SPAN_DOT, SPAN_RUNS };
	const uint64_t want[2][4] = { /* first, last, past, dropped */
		{ 99999999990000ull, 500000000000000ull, 0, 0 },
		{ 20000001000ull, 99999999000007000ull, 1, 1 },
	};

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		uint64_t got[4], each[4];

		span_of(sets[i], false, &got[0], &got[1], &got[2], &got[3]);
		span_of(sets[i], true, &each[0], &each[1], &each[2], &each[3]);
		for (size_t k = 0; k < 4; k++) {
			assert_int_equal(got[k], want[i][k]);
			assert_int_equal(each[k], want[i][k]);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reader_time_span_runs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
