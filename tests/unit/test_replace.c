/* tests/unit/test_replace.c: pipeline/replace.c — a file moved to a name that is free, held by a
 * file (with a second hard link: the replaced file must be unlinked, not left under the old
 * name), held by a symbolic link (replaced, its target untouched) or by a directory (refused
 * with rename's error, both left as they were); a missing source. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "pipeline/replace.h"
#include "support/fixture_env.h"

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/* Asserts that path is a regular file holding text. */
static void assert_holds(const char *path, const char *text)
{
	char got[64] = { 0 };
	struct stat st;
	FILE *f;

	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(fread(got, 1, sizeof(got) - 1, f), strlen(text));
	fclose(f);
	assert_string_equal(got, text);
}

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

static void test_free_name(void **state)
{
	char from[PATH_MAX], to[PATH_MAX];

	put(pathf(from, "%s/.out.tmp", tmp), "new\n");
	assert_int_equal(t2f_replace(from, pathf(to, "%s/out", tmp)), 0);
	assert_holds(to, "new\n");
	assert_false(exists(from));
}

static void test_over_a_file(void **state)
{
	char from[PATH_MAX], to[PATH_MAX], other[PATH_MAX];
	struct stat st;

	put(pathf(to, "%s/out", tmp), "old\n");
	assert_int_equal(link(to, pathf(other, "%s/old-link", tmp)), 0);
	put(pathf(from, "%s/.out.tmp", tmp), "new\n");
	assert_int_equal(t2f_replace(from, to), 0);
	assert_holds(to, "new\n");
	assert_false(exists(from));
	assert_holds(other, "old\n");
	assert_int_equal(stat(other, &st), 0);
	assert_int_equal(st.st_nlink, 1); /* the replaced file's other name is gone */
}

static void test_over_a_symlink(void **state)
{
	char from[PATH_MAX], to[PATH_MAX], target[PATH_MAX];

	put(pathf(target, "%s/target", tmp), "kept\n");
	assert_int_equal(symlink("target", pathf(to, "%s/out", tmp)), 0);
	put(pathf(from, "%s/.out.tmp", tmp), "new\n");
	assert_int_equal(t2f_replace(from, to), 0);
	assert_holds(to, "new\n");
	assert_holds(target, "kept\n");
	assert_false(exists(from));
}

static void test_over_a_directory(void **state)
{
	char from[PATH_MAX], to[PATH_MAX], inside[PATH_MAX];

	put(pathf(from, "%s/.out.tmp", tmp), "new\n");
	assert_int_equal(mkdir(pathf(to, "%s/out", tmp), 0700), 0);
	assert_int_equal(t2f_replace(from, to), -EISDIR);
	assert_holds(from, "new\n");
	put(pathf(inside, "%s/out/inside", tmp), "dir\n");
	assert_int_equal(t2f_replace(from, to), -EISDIR);
	assert_holds(from, "new\n");
	assert_holds(inside, "dir\n");
}

static void test_missing_source(void **state)
{
	char from[PATH_MAX], to[PATH_MAX];

	put(pathf(to, "%s/out", tmp), "old\n");
	assert_int_equal(t2f_replace(pathf(from, "%s/.none", tmp), to), -ENOENT);
	assert_holds(to, "old\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		FX_TEST(test_free_name),
		FX_TEST(test_over_a_file),
		FX_TEST(test_over_a_symlink),
		FX_TEST(test_over_a_directory),
		FX_TEST(test_missing_source),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
