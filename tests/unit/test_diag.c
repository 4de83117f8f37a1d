/* tests/unit/test_diag.c: formats/diag.c — error strings, rate-limited warnings, strict mode and
 * the "file:line: message" error text. Warnings go to an open_memstream() sink so the exact text
 * printed can be compared. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "formats/diag.h"
#include "support/diag_sink.h"

/* A diag whose warnings land in a memory buffer (support/diag_sink.h), default settings. */
static void sink_open(struct sink *s)
{
	sink_init(s);
	assert_non_null(s->d);
}

static void test_strerror_own_codes(void **state)
{
	(void)state;
	assert_string_equal(t2f_strerror(-T2F_E_FORMAT), "malformed input");
	assert_string_equal(t2f_strerror(-T2F_E_TRUNCATED), "truncated input");
	assert_string_equal(t2f_strerror(-T2F_E_UNSUPPORTED), "unsupported input feature");
	assert_string_equal(t2f_strerror(-T2F_E_ELF), "ELF error");
	assert_string_equal(t2f_strerror(-T2F_E_BUILDID), "build-id mismatch");
	assert_string_equal(t2f_strerror(-T2F_E_LIMIT), "resource limit reached");
	assert_string_equal(t2f_strerror(-T2F_E_DECOMPRESS), "corrupt compressed stream");
}

static void test_strerror_errno(void **state)
{
	char expect[256];

	(void)state;
	snprintf(expect, sizeof(expect), "%s", strerror(ENOENT));
	assert_string_equal(t2f_strerror(-ENOENT), expect);
	snprintf(expect, sizeof(expect), "%s", strerror(ENOMEM));
	assert_string_equal(t2f_strerror(-ENOMEM), expect);
	snprintf(expect, sizeof(expect), "%s", strerror(EPIPE));
	assert_string_equal(t2f_strerror(-EPIPE), expect);
	/* never NULL, even for a code nobody defined */
	assert_non_null(t2f_strerror(-4999));
	assert_non_null(t2f_strerror(-T2F_E_DECOMPRESS - 1));
}

static void test_warn_prints_located_message(void **state)
{
	struct sink s;

	(void)state;
	sink_open(&s);
	assert_int_equal(t2f_diag__warn(s.d, "in.txt", 12, "odd line: %s", "xyz"), 0);
	assert_int_equal(t2f_diag__warn(s.d, "in.txt", 0, "no line here %d", 7), 0);
	assert_int_equal(t2f_diag__warn(s.d, NULL, 3, "nameless"), 0);
	assert_string_equal(sink_text(&s),
			    "trace2flame: warning: in.txt:12: odd line: xyz\n"
			    "trace2flame: warning: in.txt: no line here 7\n"
			    "trace2flame: warning: <input>:3: nameless\n");
	assert_int_equal(t2f_diag__warnings(s.d), 3);
	/* a warning is not an error */
	assert_null(t2f_diag__last_error(s.d));
	sink_close(&s);
}

static void test_warn_rate_limit_and_flush(void **state)
{
	struct sink s;

	(void)state;
	sink_open(&s);
	t2f_diag__set_max_repeats(s.d, 2);
	for (int i = 1; i <= 5; i++)
		assert_int_equal(t2f_diag__warn(s.d, "f", (uint64_t)i, "bad sample %d", i), 0);
	/* a second kind keeps its own counter */
	assert_int_equal(t2f_diag__warn(s.d, "f", 9, "other kind"), 0);
	assert_string_equal(sink_text(&s),
			    "trace2flame: warning: f:1: bad sample 1\n"
			    "trace2flame: warning: f:2: bad sample 2\n"
			    "trace2flame: warning: f:9: other kind\n");
	assert_int_equal(t2f_diag__warnings(s.d), 6);

	t2f_diag__flush(s.d);
	assert_string_equal(sink_text(&s),
			    "trace2flame: warning: f:1: bad sample 1\n"
			    "trace2flame: warning: f:2: bad sample 2\n"
			    "trace2flame: warning: f:9: other kind\n"
			    "trace2flame: warning: 3 more warnings like: bad sample %d\n");

	/* flush resets the counters: the kind prints again, and a second flush says nothing */
	assert_int_equal(t2f_diag__warn(s.d, "f", 10, "bad sample %d", 10), 0);
	t2f_diag__flush(s.d);
	assert_string_equal(sink_text(&s),
			    "trace2flame: warning: f:1: bad sample 1\n"
			    "trace2flame: warning: f:2: bad sample 2\n"
			    "trace2flame: warning: f:9: other kind\n"
			    "trace2flame: warning: 3 more warnings like: bad sample %d\n"
			    "trace2flame: warning: f:10: bad sample 10\n");
	/* the total keeps counting across flushes */
	assert_int_equal(t2f_diag__warnings(s.d), 7);
	sink_close(&s);
}

static void test_warn_default_max_repeats_is_5(void **state)
{
	struct sink s;
	size_t lines = 0;
	const char *t;

	(void)state;
	sink_open(&s);
	for (int i = 0; i < 8; i++)
		t2f_diag__warn(s.d, "f", 1, "same");
	for (t = sink_text(&s); (t = strchr(t, '\n')); t++)
		lines++;
	assert_int_equal(lines, 5);
	t2f_diag__flush(s.d);
	assert_non_null(strstr(sink_text(&s), "trace2flame: warning: 3 more warnings like: same\n"));
	sink_close(&s);
}

static void test_warn_without_sink_counts(void **state)
{
	struct t2f_diag *d;

	(void)state;
	assert_int_equal(t2f_diag__new(NULL, &d), 0);
	for (int i = 0; i < 10; i++)
		assert_int_equal(t2f_diag__warn(d, "f", 1, "x %d", i), 0);
	t2f_diag__flush(d); /* nowhere to print: must not crash */
	assert_int_equal(t2f_diag__warnings(d), 10);
	t2f_diag__free(d);
	t2f_diag__free(NULL);
}

static void test_strict_warn_is_error(void **state)
{
	struct sink s;

	(void)state;
	sink_open(&s);
	t2f_diag__set_strict(s.d, true);
	assert_int_equal(t2f_diag__warn(s.d, "prof.txt", 42, "bad header '%s'", "zz"),
			 -T2F_E_FORMAT);
	assert_non_null(t2f_diag__last_error(s.d));
	assert_string_equal(t2f_diag__last_error(s.d), "prof.txt:42: bad header 'zz'");
	/* the error is returned, not printed as a warning */
	assert_string_equal(sink_text(&s), "");
	assert_int_equal(t2f_diag__warnings(s.d), 1);

	/* back to lenient: warnings print again and return 0 */
	t2f_diag__set_strict(s.d, false);
	assert_int_equal(t2f_diag__warn(s.d, "prof.txt", 43, "later"), 0);
	assert_string_equal(sink_text(&s), "trace2flame: warning: prof.txt:43: later\n");
	sink_close(&s);
}

static void test_error_formatting(void **state)
{
	struct sink s;

	(void)state;
	sink_open(&s);
	assert_null(t2f_diag__last_error(s.d));
	assert_int_equal(t2f_diag__error(s.d, -T2F_E_FORMAT, "a.perf", 7, "expected %s", "TIME:"),
			 -T2F_E_FORMAT);
	assert_string_equal(t2f_diag__last_error(s.d), "a.perf:7: expected TIME:");
	assert_int_equal(t2f_diag__error(s.d, -ENOENT, "missing.txt", 0, "cannot open: %s",
					 t2f_strerror(-ENOENT)), -ENOENT);
	{
		char expect[300];

		snprintf(expect, sizeof(expect), "missing.txt: cannot open: %s", strerror(ENOENT));
		assert_string_equal(t2f_diag__last_error(s.d), expect);
	}
	assert_int_equal(t2f_diag__error(s.d, -T2F_E_TRUNCATED, NULL, 0, "cut"), -T2F_E_TRUNCATED);
	assert_string_equal(t2f_diag__last_error(s.d), "<input>: cut");
	assert_int_equal(t2f_diag__error(s.d, -T2F_E_LIMIT, "big", UINT64_MAX, "x"), -T2F_E_LIMIT);
	assert_string_equal(t2f_diag__last_error(s.d), "big:18446744073709551615: x");
	/* errors are recorded, never printed nor counted as warnings */
	assert_string_equal(sink_text(&s), "");
	assert_int_equal(t2f_diag__warnings(s.d), 0);
	sink_close(&s);
}

static void test_error_long_message_truncated(void **state)
{
	struct sink s;
	char big[4000];
	const char *e;

	(void)state;
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	sink_open(&s);
	t2f_diag__error(s.d, -T2F_E_FORMAT, "f", 1, "%s", big);
	e = t2f_diag__last_error(s.d);
	assert_non_null(e);
	assert_memory_equal(e, "f:1: xxx", 8);
	assert_true(strlen(e) < sizeof(big));
	sink_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strerror_own_codes),
		cmocka_unit_test(test_strerror_errno),
		cmocka_unit_test(test_warn_prints_located_message),
		cmocka_unit_test(test_warn_rate_limit_and_flush),
		cmocka_unit_test(test_warn_default_max_repeats_is_5),
		cmocka_unit_test(test_warn_without_sink_counts),
		cmocka_unit_test(test_strict_warn_is_error),
		cmocka_unit_test(test_error_formatting),
		cmocka_unit_test(test_error_long_message_truncated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
