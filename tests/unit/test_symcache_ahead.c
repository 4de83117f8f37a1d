/* tests/unit/test_symcache_ahead.c: symbol cache files opened ahead on a thread
 * (symbolizer/symcache_ahead.h) and taken by t2f_symcache__open:
 *   - the file mapped ahead is the one taken: after the thread is done, the file is removed,
 *     and the open still finds it (counted a hit) with its answers; a second open of the same
 *     build-id opens for itself and finds nothing (a miss);
 *   - a directory of another identity takes nothing from it;
 *   - a symlink in the file's place is refused as without it ("a symlink", counted bad);
 *   - ids that are not build-ids are skipped; none at all starts nothing.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "support/fixture_env.h"
#include "support/symcache_file.h"
#include "symbolizer/symbolizer.h"
#include "symbolizer/symcache.h"
#include "symbolizer/symcache_ahead.h"
#include "symbolizer/symcache_internal.h"

static const uint8_t id[4] = { 0xde, 0xad, 0xbe, 0xef };
static const struct t2f_symcache_sym alpha = { 0x1000, 0x10ff, 0x1000, "alpha", T2F_HIT, 0 };

static struct t2f_symcache_ident ident_of(char *mod)
{
	return fx_symcache_ident(id, sizeof(id), mod);
}

/* The cache file of `id` with answer alpha in directory tmp/dir; the directory opened. */
static struct t2f_symcache_dir *write_file(const char *dir)
{
	return fx_symcache_write(dir, id, sizeof(id), &alpha, 1);
}

/* Starts the files of `id` and of a build-id without a file ahead in tmp/dir; waits for them. */
static struct t2f_symcache_ahead *ahead(const char *dir, const struct t2f_symcache_dir *d)
{
	static const uint8_t none[3] = { 1, 2, 3 };
	const uint8_t *ids[] = { none, id, id };
	const size_t lens[] = { sizeof(none), sizeof(id), 0 };
	char d_path[PATH_MAX];
	struct t2f_symcache_ahead *a;
	struct t2f_symcache_try t;

	pathf(d_path, "%s/%s", tmp, dir);
	assert_int_equal(t2f_symcache_ahead__start(d_path, ids, lens, 3, &a), 0);
	assert_non_null(a);
	/* a build-id listed but never asked for: the thread has been waited for after it */
	assert_false(t2f_symcache_ahead_take(a, d, (const uint8_t *)"\x07", 1, &t));
	return a;
}

/* Opens `id` in d: whether found, and d's counts then. */
static bool open_id(struct t2f_symcache_dir *d, const char **why, bool *bad)
{
	char mod[PATH_MAX];
	struct t2f_symcache_ident ident = ident_of(mod);
	struct t2f_symcache *c = NULL;
	struct t2f_symcache_sym s;
	bool found;

	*why = NULL;
	assert_int_equal(t2f_symcache__open(d, &ident, &c, bad, why), 0);
	found = c != NULL;
	if (c) {
		assert_true(t2f_symcache__sym(c, 0x1080, &s));
		assert_string_equal(s.name, "alpha");
	}
	t2f_symcache__free(c);
	return found;
}

static void test_taken(void **state)
{
	struct t2f_symcache_dir *d = write_file("c");
	struct t2f_symcache_ahead *a = ahead("c", d);
	char file[PATH_MAX];
	const char *why;
	bool bad;

	(void)state;
	pathf(file, "%s/c/deadbeef" T2F_SYMCACHE_SUFFIX, tmp);
	assert_int_equal(unlink(file), 0);
	t2f_symcache_dir__ahead(d, a);
	assert_true(open_id(d, &why, &bad)); /* the mapping made ahead */
	assert_int_equal(t2f_symcache_dir__stats(d)->hits, 1);
	assert_false(open_id(d, &why, &bad)); /* taken once: opened now, and gone */
	assert_false(bad);
	assert_int_equal(t2f_symcache_dir__stats(d)->misses, 1);
	t2f_symcache_dir__free(d);
	t2f_symcache_ahead__free(a);
}

static void test_other_directory(void **state)
{
	struct t2f_symcache_dir *d = write_file("c"), *e = write_file("e");
	struct t2f_symcache_ahead *a = ahead("c", d);
	char file[PATH_MAX];
	const char *why;
	bool bad;

	(void)state;
	pathf(file, "%s/e/deadbeef" T2F_SYMCACHE_SUFFIX, tmp);
	assert_int_equal(unlink(file), 0);
	t2f_symcache_dir__ahead(e, a);
	assert_false(open_id(e, &why, &bad)); /* c's file is not e's */
	assert_int_equal(t2f_symcache_dir__stats(e)->misses, 1);
	t2f_symcache_dir__free(e);
	t2f_symcache_dir__free(d);
	t2f_symcache_ahead__free(a); /* c's mapping, never taken */
}

static void test_symlink(void **state)
{
	struct t2f_symcache_dir *d = write_file("c");
	char file[PATH_MAX], target[PATH_MAX];
	struct t2f_symcache_ahead *a;
	const char *why;
	bool bad;

	(void)state;
	pathf(file, "%s/c/deadbeef" T2F_SYMCACHE_SUFFIX, tmp);
	pathf(target, "%s/c/moved", tmp);
	assert_int_equal(rename(file, target), 0);
	assert_int_equal(symlink(target, file), 0);
	a = ahead("c", d);
	t2f_symcache_dir__ahead(d, a);
	assert_false(open_id(d, &why, &bad));
	assert_true(bad);
	assert_string_equal(why, "a symlink");
	assert_int_equal(t2f_symcache_dir__stats(d)->bad, 1);
	t2f_symcache_dir__free(d);
	t2f_symcache_ahead__free(a);
}

static void test_nothing_to_open(void **state)
{
	const uint8_t *ids[] = { id };
	const size_t lens[] = { T2F_BUILD_ID_MAX + 1 };
	struct t2f_symcache_ahead *a = (void *)1;

	(void)state;
	assert_int_equal(t2f_symcache_ahead__start(NULL, ids, lens, 1, &a), 0);
	assert_null(a);
	assert_int_equal(t2f_symcache_ahead__start(NULL, NULL, NULL, 0, &a), 0);
	assert_null(a);
	t2f_symcache_ahead__free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		FX_TEST(test_taken),
		FX_TEST(test_other_directory),
		FX_TEST(test_symlink),
		FX_TEST(test_nothing_to_open),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
