/* tests/unit/test_perf_map.c: formats/perf_map — only "/tmp/perf-PID.map" is a perf map's name;
 * paths that climb out of /tmp, other directories, signs, leading zeros and pids past INT32_MAX
 * are not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "formats/perf_map.h"

static bool pid_of(const char *s, int32_t *pid)
{
	*pid = -7;
	return t2f_perf_map_pid(s, strlen(s), pid);
}

static void test_names(void **state)
{
	static const char *const not_maps[] = {
		"/tmp/perf-x/../../home/u/secret.map", "/tmp/perf-1/../../etc/passwd.map",
		"/tmp/perf-.map", "/tmp/perf-12a.map", "/tmp/perf--5.map", "/tmp/perf-+5.map",
		"/tmp/perf-0123.map", "/tmp/perf-0.map", "/tmp/perf-2147483648.map",
		"/tmp/perf-12345678901.map", "/var/tmp/perf-1.map", "tmp/perf-1.map",
		"/tmp/perf-1.map.bak", "/tmp/perf-1.mapx", "/tmp/perf-1 .map", "/tmp//perf-1.map",
		"/tmp/perf-1.MAP", "",
	};
	int32_t pid;

	(void)state;
	assert_true(pid_of("/tmp/perf-1.map", &pid));
	assert_int_equal(pid, 1);
	assert_true(pid_of("/tmp/perf-15105.map", &pid));
	assert_int_equal(pid, 15105);
	assert_true(pid_of("/tmp/perf-2147483647.map", &pid));
	assert_int_equal(pid, INT32_MAX);
	assert_true(t2f_perf_map_pid("/tmp/perf-42.map", 16, NULL));
	assert_false(t2f_perf_map_pid("/tmp/perf-42.map", 15, NULL)); /* the length counts */
	for (size_t i = 0; i < sizeof(not_maps) / sizeof(not_maps[0]); i++) {
		if (pid_of(not_maps[i], &pid))
			fail_msg("'%s' taken for a perf map", not_maps[i]);
		assert_int_equal(pid, -7);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
