/* tests/unit/test_prefetch.c: a kallsyms table loaded on a thread of its own
 * (pipeline/prefetch.h). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	assert_int_equal(t2f_prefetch__start(path, &pf), 0);
	assert_true(t2f_prefetch__is(pf, path));
	assert_false(t2f_prefetch__is(pf, "/tmp/other"));
	assert_false(t2f_prefetch__is(NULL, path));
	assert_int_equal(t2f_prefetch__take(pf, &t, NULL), 0);
	assert_non_null(t);
	assert_int_equal(t2f_text_syms__count(t), 2);
	assert_true(t2f_text_syms__lookup(t, 0xffff0010, &sym));
	assert_string_equal(sym.name, "start");
	assert_true(t2f_text_syms__lookup(t, 0xffff1000, &sym));
	assert_string_equal(sym.name, "next");
	t2f_text_syms__free(t);
	assert_false(t2f_prefetch__is(pf, path)); /* taken */
	assert_int_equal(t2f_prefetch__take(pf, &t, NULL), -EINVAL);
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
	assert_int_equal(t2f_prefetch__start("/nonexistent/t2f/kallsyms", &pf), 0);
	assert_int_equal(t2f_prefetch__take(pf, &t, NULL), 1);
	assert_null(t);
	t2f_prefetch__free(pf);
	assert_int_equal(t2f_prefetch__start(bad, &pf), 0);
	assert_int_equal(t2f_prefetch__take(pf, &t, NULL), 1);
	assert_null(t);
	t2f_prefetch__free(pf);
	unlink(bad);
	assert_int_equal(t2f_prefetch__start(path, &pf), 0);
	t2f_prefetch__free(pf);
	t2f_prefetch__free(NULL);
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
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
