/* tests/unit/test_session_modules.c: the resolve stage's module reports through the public
 * header alone, linked with the shared library: each module has the kind of enum
 * t2f_module_kind its frames have (the frames' kinds are those values, with no mapping between),
 * on the recording fixtures/perf-script/kjit with its kallsyms copy and perf map. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <trace2flame.h>

static void quiet(void *ctx, const char *line)
{
	(void)ctx;
	(void)line;
}

static void test_module_kinds(void **state)
{
	static const struct { const char *path; enum t2f_module_kind kind; } want[] = {
		{ "[kernel.kallsyms]", T2F_MODULE_KERNEL },
		{ "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", T2F_MODULE_USER },
		{ "/usr/lib/x86_64-linux-gnu/libc.so.6", T2F_MODULE_USER },
		{ "/tmp/t2f-kjit/jitloop", T2F_MODULE_USER },
		{ "/tmp/perf-15105.map", T2F_MODULE_JIT },
	};
	const char *src = getenv("T2F_SOURCE_DIR");
	char dir[4096], kallsyms[4200], input[4200];
	const char *none[] = { NULL };
	struct t2f_options o = { .size = sizeof(o), .message = quiet, .offline = true,
				 .symbol_dirs = none };
	struct t2f_session *s;
	size_t found = 0;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/fixtures/perf-script/kjit", src ? src : ".");
	snprintf(kallsyms, sizeof(kallsyms), "%s/kallsyms", dir);
	snprintf(input, sizeof(input), "%s/jitloop.unnamed.perf.txt", dir);
	o.kallsyms = kallsyms;
	o.perf_map_dir = dir;
	assert_int_equal(t2f_session_new(&o, &s), 0);
	assert_int_equal(t2f_session_add_path(s, input), 0);
	assert_int_equal(t2f_session_resolve(s), 0);
	assert_int_equal(t2f_session_module_count(s), sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < t2f_session_module_count(s); i++) {
		struct t2f_module_report m = { .size = sizeof(m) };

		assert_int_equal(t2f_session_module(s, i, &m), 0);
		for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
			if (strcmp(m.path, want[k].path) != 0)
				continue;
			if (m.kind != want[k].kind)
				fail_msg("%s: kind %d, not %d", m.path, (int)m.kind, (int)want[k].kind);
			found++;
		}
		if (m.kind == T2F_MODULE_KERNEL || m.kind == T2F_MODULE_JIT)
			assert_true(m.resolved > 0); /* named from kallsyms or the map */
	}
	assert_int_equal(found, sizeof(want) / sizeof(want[0]));
	t2f_session_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_module_kinds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
