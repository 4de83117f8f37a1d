/* tests/unit/support/fixture_env.c: see fixture_env.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <errno.h>
#include <ftw.h>
#include <sys/stat.h>

#include "support/fixture_env.h"

char fx_root[PATH_MAX];
char tmp[PATH_MAX];
struct t2f_diag *diag;

char *pathf(char *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, PATH_MAX, fmt, ap);
	va_end(ap);
	assert_true(n >= 0 && n < PATH_MAX);
	return buf;
}

int fx_shell(const char *fmt, ...)
{
	char cmd[4 * PATH_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	assert_true(n >= 0 && (size_t)n < sizeof(cmd));
	return system(cmd);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int fx_tmp_setup(void **state)
{
	(void)state;
	pathf(tmp, "%s/t2f-%s.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
	      program_invocation_short_name);
	return mkdtemp(tmp) ? 0 : -1;
}

int fx_tmp_teardown(void **state)
{
	(void)state;
	nftw(tmp, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}

int fx_group_setup(void **state)
{
	const char *root = getenv("T2F_ELF_FIXTURES");

	(void)state;
	if (!root || !*root) {
		fprintf(stderr, "T2F_ELF_FIXTURES is not set (ctest sets it)\n");
		return -1;
	}
	pathf(fx_root, "%s", root);
	unsetenv("DEBUGINFOD_CACHE_PATH");
	return t2f_diag__new(NULL, &diag) ? -1 : 0;
}

int fx_group_teardown(void **state)
{
	(void)state;
	t2f_diag__free(diag);
	return 0;
}
