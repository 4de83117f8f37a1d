/* tests/unit/support/fixture_env.h: what the fixture-driven symbolizer tests (test_debug_find,
 * test_symbolizer) share: the fixture root from $T2F_ELF_FIXTURES, a temp directory per test,
 * a quiet diag, and checked path formatting. */
#ifndef T2F_TEST_SUPPORT_FIXTURE_ENV_H
#define T2F_TEST_SUPPORT_FIXTURE_ENV_H

#include <limits.h>

#include "formats/diag.h"

extern char fx_root[PATH_MAX]; /* $T2F_ELF_FIXTURES */
extern char tmp[PATH_MAX];     /* this test's temp directory (tmp_make) */
extern struct t2f_diag *diag;  /* a diag without a sink */

/* snprintf into a PATH_MAX buffer, failing the test on truncation (vsnprintf: no
 * -Wformat-truncation guesses about the fixture root's length). */
__attribute__((format(printf, 2, 3)))
char *pathf(char *buf, const char *fmt, ...);

/* The shell command made from fmt (formatted as pathf does, 4 * PATH_MAX at most), run:
 * system()'s result. */
__attribute__((format(printf, 1, 2)))
int fx_shell(const char *fmt, ...);

/* cmocka per-test setup: makes tmp, $TMPDIR (or /tmp)/t2f-PROGRAM.XXXXXX. 0 or -1. */
int fx_tmp_setup(void **state);

/* cmocka per-test teardown: removes tmp and everything below it. 0. */
int fx_tmp_teardown(void **state);

/* cmocka group setup: fx_root from $T2F_ELF_FIXTURES, no $DEBUGINFOD_CACHE_PATH, diag. 0 or -1. */
int fx_group_setup(void **state);

/* cmocka group teardown: frees diag. 0. */
int fx_group_teardown(void **state);

/* A test run in its own temp directory. */
#define FX_TEST(f) cmocka_unit_test_setup_teardown(f, fx_tmp_setup, fx_tmp_teardown)

#endif
