/* tests/unit/test_dwarf_oom.c: libdw running out of memory inside a lookup (symbolizer/dwarf.h).
 *
 * libdw's own out-of-memory handler ends the process (error(EXIT_FAILURE)); the handle's must
 * return to the caller instead. The file is tests/dwarf/make-hostile's `rows`: a sane unit whose
 * line table has 100,000 rows, within every limit, which libdw keeps in one allocation of about
 * 13 MB. This program's malloc, which libdw's calls reach, fails every request of 1 MiB or more
 * while `fail_from` is set: the lookup must return, say once that the file's DWARF is left out,
 * and leave the handle answering nothing; other handles, opened before or after, work.
 *
 * malloc is replaced through glibc's __libc_malloc, so the test cannot run where a sanitizer
 * owns malloc: it is skipped in the -DT2F_SANITIZE=ON build (the limits themselves are tested
 * there by tests/dwarf/hostile.sh).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "support/diag_sink.h"
#include "support/fixture_env.h"
#include "symbolizer/dwarf.h"

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#else
#define SANITIZED 0
#endif

static size_t fail_from; /* malloc fails from this size on; 0: never */

#if !SANITIZED /* a sanitizer's malloc must stay the only one */
void *__libc_malloc(size_t size);

void *malloc(size_t size)
{
	if (fail_from && size >= fail_from)
		return NULL;
	return __libc_malloc(size);
}
#endif

/* tests/dwarf/make-hostile's cases into tmp. */
static void make(const char *cases)
{
	const char *src = getenv("T2F_SOURCE_DIR");
	char cmd[3 * PATH_MAX];

	assert_non_null(src);
	snprintf(cmd, sizeof(cmd), "python3 '%s/tests/dwarf/make-hostile' '%s' %s", src, tmp,
		 cases);
	assert_int_equal(system(cmd), 0);
}

static struct t2f_dwarf *open_case(const char *name, struct t2f_diag *d)
{
	struct t2f_dwarf *dw = NULL;
	char path[PATH_MAX];

	assert_int_equal(t2f_dwarf__open(pathf(path, "%s/%s", tmp, name), NULL, d, &dw), 0);
	assert_non_null(dw);
	return dw;
}

static void test_oom_in_libdw(void **state)
{
	struct t2f_dwarf_frame f[T2F_DWARF_MAX_DEPTH];
	struct t2f_dwarf *dw, *sane;
	struct sink s;
	int n;

	(void)state;
	if (SANITIZED)
		skip();
	make("rows sane");
	sink_init(&s);
	sane = open_case("sane", s.d);
	dw = open_case("rows", s.d);

	/* without failures the chain is there: h inlining g at 0x1005 */
	fail_from = 0;
	assert_int_equal(t2f_dwarf__lookup(sane, 0x1005, f, T2F_DWARF_MAX_DEPTH), 2);
	assert_string_equal(f[0].name, "g");

	fail_from = 1u << 20;
	n = t2f_dwarf__lookup(dw, 0x1005, f, T2F_DWARF_MAX_DEPTH);
	fail_from = 0;
	assert_int_equal(n, 0);
	assert_int_equal(t2f_dwarf__report(dw, s.d), 0);
	assert_non_null(strstr(sink_text(&s), "rows: libdw ran out of memory: the file's DWARF is "
					      "left out from here on"));
	/* broken: nothing more is asked of libdw, and nothing more is said */
	assert_int_equal(t2f_dwarf__lookup(dw, 0x1000, f, T2F_DWARF_MAX_DEPTH), 0);
	assert_int_equal(t2f_dwarf__report(dw, s.d), 0);
	assert_int_equal(t2f_diag__warnings(s.d), 1);
	t2f_dwarf__free(dw);

	/* the process goes on: another handle of the same file, and the one opened before */
	dw = open_case("rows", s.d);
	assert_int_equal(t2f_dwarf__lookup(dw, 0x1005, f, T2F_DWARF_MAX_DEPTH), 2);
	assert_string_equal(f[1].name, "h");
	assert_int_equal(f[0].line, 2);
	assert_int_equal(t2f_dwarf__lookup(sane, 0x1000, f, T2F_DWARF_MAX_DEPTH), 1);
	t2f_dwarf__free(dw);
	t2f_dwarf__free(sane);
	sink_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		FX_TEST(test_oom_in_libdw),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
