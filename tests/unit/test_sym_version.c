/* tests/unit/test_sym_version.c: formats/sym_version — the symbol versions GNU ld writes into
 * .symtab names (libc's, libstdc++'s, libgcc's ...) are cut, "@plt" and '@' that ends no
 * version are kept. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "formats/sym_version.h"

struct cut_case {
	const char *name;
	const char *want;
};

static void check(const struct cut_case *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(c[i].name), keep = t2f_sym_version_cut(c[i].name, len);

		if (keep != strlen(c[i].want) || memcmp(c[i].name, c[i].want, keep) != 0)
			fail_msg("'%s' cut to '%.*s', want '%s'", c[i].name, (int)keep, c[i].name,
				 c[i].want);
	}
}

static void test_versions_cut(void **state)
{
	static const struct cut_case cases[] = {
		{ "cfree@GLIBC_2.2.5", "cfree" },
		{ "__libc_start_main@@GLIBC_2.34", "__libc_start_main" },
		{ "__libc_start_main@GLIBC_2.2.5", "__libc_start_main" },
		{ "clock_gettime@@GLIBC_2.17", "clock_gettime" },
		{ "_ZNSt6thread4joinEv@@GLIBCXX_3.4.11", "_ZNSt6thread4joinEv" },
		{ "__cxa_throw@@CXXABI_1.3", "__cxa_throw" },
		{ "_Unwind_Resume@@GCC_3.0", "_Unwind_Resume" },
		{ "_dl_catch_exception@@GLIBC_PRIVATE", "_dl_catch_exception" },
		{ "stamp@@STAMP_1", "stamp" },
		{ "SSL_read@@LIBSSL_3", "SSL_read" },
		{ "f@Base", "f" },
		{ "f@_", "f" },
		{ "std::thread::join()@GLIBCXX_3.4.11", "std::thread::join()" }, /* as perf prints */
		{ "x@@V", "x" },
		{ "a@b@V_1", "a@b" },  /* only the last '@' starts the version */
	};

	(void)state;
	check(cases, sizeof(cases) / sizeof(cases[0]));
}

static void test_others_kept(void **state)
{
	static const struct cut_case cases[] = {
		{ "", "" },
		{ "free", "free" },
		{ "malloc@plt", "malloc@plt" },                 /* PLT stubs: no version */
		{ "_ZN3foo3barEv@plt", "_ZN3foo3barEv@plt" },
		{ "@plt", "@plt" },
		{ "@GLIBC_2.2.5", "@GLIBC_2.2.5" },             /* no name before it */
		{ "@@GLIBC_2.2.5", "@@GLIBC_2.2.5" },
		{ "f@", "f@" },                                 /* no version after it */
		{ "f@@", "f@@" },
		{ "f@2.2.5", "f@2.2.5" },                       /* a version starts with a letter */
		{ "f@.x", "f@.x" },
		{ "f@GLIBC-2", "f@GLIBC-2" },                   /* '-' is in no version */
		{ "f@V 1", "f@V 1" },
		{ "foo@bar/2", "foo@bar/2" },                   /* JIT map text ('@' in Erlang) */
		{ "Lambda$0@7f3a:: run", "Lambda$0@7f3a:: run" },
		{ "f@pltx", "f" },                              /* only "plt" itself is kept */
	};

	(void)state;
	check(cases, sizeof(cases) / sizeof(cases[0]));
	/* the length counts, not a NUL */
	assert_int_equal(t2f_sym_version_cut("cfree@GLIBC_2.2.5+0x1f", 17), 5);
	assert_int_equal(t2f_sym_version_cut("cfree@GLIBC_2.2.5+0x1f", 22), 22);
	assert_int_equal(t2f_sym_version_cut("malloc@plt@GLIBC", 10), 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_versions_cut),
		cmocka_unit_test(test_others_kept),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
