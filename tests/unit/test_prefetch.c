/* tests/unit/test_prefetch.c: a kallsyms table loaded on a thread of its own
 * (pipeline/prefetch.h), and kept in the symbol cache there when asked, or the kept one mapped
 * there. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>

#include <cmocka.h>

#include "formats/diag.h"
#include "pipeline/prefetch.h"

static char path[] = "/tmp/t2f-prefetch-XXXXXX";

static void test_load_and_take(void **state)
{
	struct t2f_prefetch *pf;
	struct t2f_text_syms *t = (void *)1;
	struct t2f_text_sym sym;

	(void)state;
	assert_int_equal(t2f_prefetch__start(path, NULL, false, &pf), 0);
	assert_true(t2f_prefetch__is(pf, path));
	assert_false(t2f_prefetch__is(pf, "/tmp/other"));
	assert_false(t2f_prefetch__is(NULL, path));
	assert_int_equal(t2f_prefetch__take(pf, &t, NULL, NULL), 0);
	assert_non_null(t);
	assert_int_equal(t2f_text_syms__count(t), 2);
	assert_true(t2f_text_syms__lookup(t, 0xffff0010, &sym));
	assert_string_equal(sym.name, "start");
	assert_true(t2f_text_syms__lookup(t, 0xffff1000, &sym));
	assert_string_equal(sym.name, "next");
	t2f_text_syms__free(t);
	assert_false(t2f_prefetch__is(pf, path)); /* taken */
	assert_int_equal(t2f_prefetch__take(pf, &t, NULL, NULL), -EINVAL);
	assert_null(t);
	t2f_prefetch__free(pf);
}

/* A load that failed, or skipped a line, is not handed over (the caller loads the file itself);
 * a load never taken is freed. */
static void test_failed_and_free(void **state)
{
	char bad[] = "/tmp/t2f-prefetch-XXXXXX";
	int fd = mkstemp(bad);
	struct t2f_prefetch *pf;
	struct t2f_text_syms *t = (void *)1;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "ffff0000 T start\nnot a line\n", 28), 28);
	close(fd);
	assert_int_equal(t2f_prefetch__start("/nonexistent/t2f/kallsyms", NULL, false, &pf), 0);
	assert_int_equal(t2f_prefetch__take(pf, &t, NULL, NULL), 1);
	assert_null(t);
	t2f_prefetch__free(pf);
	assert_int_equal(t2f_prefetch__start(bad, NULL, false, &pf), 0);
	assert_int_equal(t2f_prefetch__take(pf, &t, NULL, NULL), 1);
	assert_null(t);
	t2f_prefetch__free(pf);
	unlink(bad);
	assert_int_equal(t2f_prefetch__start(path, NULL, false, &pf), 0);
	t2f_prefetch__free(pf);
	t2f_prefetch__free(NULL);
}

/* kallsyms-*.t2fsym files in dir. */
static int kept_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += strncmp(e->d_name, "kallsyms-", 9) == 0 &&
		     strstr(e->d_name, ".t2fsym") != NULL;
	closedir(d);
	return n;
}

/* With keep, the thread keeps a table loaded well in the symbol cache ($T2F_CACHE_DIR) and says
 * so; without, nothing is written. */
static void test_kept(void **state)
{
	const struct t2f_prefetch_keep keep = { .cache = true };
	char dir[] = "/tmp/t2f-prefetch-cache-XXXXXX", cmd[64];
	struct t2f_text_syms *t;
	struct t2f_text_sym sym;
	struct t2f_prefetch *pf;
	bool kept = true;

	(void)state;
	assert_non_null(mkdtemp(dir));
	setenv("T2F_CACHE_DIR", dir, 1);
	assert_int_equal(t2f_prefetch__start(path, NULL, false, &pf), 0);
	assert_int_equal(t2f_prefetch__take(pf, &t, NULL, &kept), 0);
	assert_false(kept);
	assert_int_equal(kept_files(dir), 0);
	t2f_text_syms__free(t);
	t2f_prefetch__free(pf);
	assert_int_equal(t2f_prefetch__start(path, &keep, false, &pf), 0);
	assert_int_equal(t2f_prefetch__take(pf, &t, NULL, &kept), 0);
	assert_true(kept);
	assert_int_equal(kept_files(dir), 1);
	assert_int_equal(t2f_text_syms__count(t), 2);
	t2f_text_syms__free(t);
	t2f_prefetch__free(pf);
	/* from_cache: the kept table mapped on the thread, not a load (__is false, __keeps true) */
	assert_int_equal(t2f_prefetch__start(path, &keep, true, &pf), 0);
	assert_false(t2f_prefetch__is(pf, path));
	assert_true(t2f_prefetch__keeps(pf, path));
	assert_false(t2f_prefetch__keeps(pf, "/tmp/other"));
	assert_int_equal(t2f_prefetch__take(pf, &t, NULL, NULL), 0);
	assert_int_equal(t2f_text_syms__count(t), 2);
	assert_true(t2f_text_syms__lookup(t, 0xffff1000, &sym));
	assert_string_equal(sym.name, "next");
	t2f_text_syms__free(t);
	assert_false(t2f_prefetch__keeps(pf, path)); /* taken */
	t2f_prefetch__free(pf);
	/* none kept (another directory): a failed load, for the caller to look again */
	setenv("T2F_CACHE_DIR", "/nonexistent/t2f/cache", 1);
	assert_int_equal(t2f_prefetch__start(path, &keep, true, &pf), 0);
	assert_int_equal(t2f_prefetch__take(pf, &t, NULL, NULL), 1);
	assert_null(t);
	t2f_prefetch__free(pf);
	unsetenv("T2F_CACHE_DIR");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static int setup(void **state)
{
	int fd = mkstemp(path);

	(void)state;
	if (fd < 0)
		return -1;
	if (write(fd, "ffff0000 T start\nffff1000 T next\n", 33) != 33) {
		close(fd);
		return -1;
	}
	return close(fd);
}

static int teardown(void **state)
{
	(void)state;
	return unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load_and_take),
		cmocka_unit_test(test_failed_and_free),
		cmocka_unit_test(test_kept),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
