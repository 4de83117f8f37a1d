/* tests/unit/test_dwarf_plain.c: t2f_dwarf__plain_only (symbolizer/dwarf.h) says that every unit
 * of a file is in a language that mangles no name only when it knows it cheaply, and never of a
 * file with a unit whose functions' names may need a symbol.
 *
 * Built here from fixtures/dwarf with cc and c++ (-O2 -g; skipped without them or objcopy):
 *  - inl.c and nested.c alone: C units only, true;
 *  - names.cc: C++ units, false; names.cc linked with inl.c's object: C and C++ units, false;
 *  - inl.c with its debug sections compressed (objcopy, zlib): false (not cheap to know);
 *  - inl.c with a .gnu_debugaltlink section added: false (units may lie in another file);
 *  - inl.c without its debug sections (objcopy --strip-debug), a missing file, a text file:
 *    false.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "support/fixture_env.h"
#include "symbolizer/dwarf.h"

static bool plain(const char *name)
{
	char path[PATH_MAX];

	return t2f_dwarf__plain_only(pathf(path, "%s/%s", tmp, name));
}

static void test_plain_only(void **state)
{
	const char *src = getenv("T2F_SOURCE_DIR");

	(void)state;
	assert_non_null(src);
	if (fx_shell("cd '%s' && cc -O2 -g -o inl '%s/fixtures/dwarf/inl.c' && "
		     "cc -O2 -g -o nested '%s/fixtures/dwarf/nested.c' && "
		     "c++ -O2 -g -o names '%s/fixtures/dwarf/names.cc' && "
		     "cc -O2 -g -Dmain=inl_main -c -o inl.o '%s/fixtures/dwarf/inl.c' && "
		     "c++ -O2 -g -o mixed '%s/fixtures/dwarf/names.cc' inl.o && "
		     "objcopy --compress-debug-sections=zlib inl inl-z && printf 'x' > link && "
		     "objcopy --add-section .gnu_debugaltlink=link inl inl-alt && "
		     "objcopy --strip-debug inl inl-bare && printf 'not an ELF file\\n' > text",
		     tmp, src, src, src, src, src) != 0)
		skip(); /* no cc, c++ or objcopy */
	assert_true(plain("inl"));
	assert_true(plain("nested"));
	assert_false(plain("names"));
	assert_false(plain("mixed"));
	assert_false(plain("inl-z"));
	assert_false(plain("inl-alt"));
	assert_false(plain("inl-bare"));
	assert_false(plain("missing"));
	assert_false(plain("text"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		FX_TEST(test_plain_only),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
