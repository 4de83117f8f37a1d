/* tests/unit/test_event_name.c: formats/event_name — perf's modifiers (":u", ":pppH") come off an
 * event's name; a tracepoint's colon, other suffixes and over-long runs stay. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "formats/event_name.h"

static size_t len_of(const char *s)
{
	return t2f_event_name_len(s, strlen(s));
}

static void test_modifiers(void **state)
{
	(void)state;
	assert_int_equal(len_of("cpu-clock:u"), 9);
	assert_int_equal(len_of("cycles:pppH"), 6);
	assert_int_equal(len_of("page-faults:ukhIGHpP"), 11);
	assert_int_equal(len_of("sched:sched_switch:u"), 18);
	assert_int_equal(t2f_event_name_len("cpu-clock:u,", 11), 9); /* the length counts */
}

static void test_kept(void **state)
{
	static const char *const kept[] = {
		"cpu-clock", "sched:sched_switch", "cpu-clock:", "cpu-clock:x", "cpu-clock:uu uu",
		"cycles:ukhIGHpPS", ":", "", "probe:f:U",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		assert_int_equal(len_of(kept[i]), strlen(kept[i]));
	assert_int_equal(t2f_event_name_len("a:u\0u", 5), 5); /* a NUL is not a modifier */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_modifiers),
		cmocka_unit_test(test_kept),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
