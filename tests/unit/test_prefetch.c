/* tests/unit/test_prefetch.c: a side file read on a thread of its own (pipeline/prefetch.h). */
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

static void test_read_and_take(void **state)
{
	struct t2f_prefetch *pf;
	char *text = NULL;
	size_t len = 0;

	(void)state;
	assert_int_equal(t2f_prefetch__start(path, 1024, &pf), 0);
	assert_true(t2f_prefetch__is(pf, path));
	assert_false(t2f_prefetch__is(pf, "/tmp/other"));
	assert_false(t2f_prefetch__is(NULL, path));
	assert_int_equal(t2f_prefetch__take(pf, &text, &len), 0);
	assert_int_equal(len, 17);
	assert_string_equal(text, "ffff0000 T start\n");
	free(text);
	assert_false(t2f_prefetch__is(pf, path)); /* taken */
	assert_int_equal(t2f_prefetch__take(pf, &text, &len), -EINVAL);
	t2f_prefetch__free(pf);
}

/* The read's errors come from __take; a read never taken is freed. */
static void test_errors_and_free(void **state)
{
	struct t2f_prefetch *pf;
	char *text = NULL;
	size_t len = 0;

	(void)state;
	assert_int_equal(t2f_prefetch__start("/nonexistent/t2f/kallsyms", 1024, &pf), 0);
	assert_int_equal(t2f_prefetch__take(pf, &text, &len), -ENOENT);
	assert_null(text);
	t2f_prefetch__free(pf);
	assert_int_equal(t2f_prefetch__start(path, 4, &pf), 0);
	assert_int_equal(t2f_prefetch__take(pf, &text, &len), -T2F_ERR_LIMIT);
	t2f_prefetch__free(pf);
	assert_int_equal(t2f_prefetch__start(path, 1024, &pf), 0);
	t2f_prefetch__free(pf);
	t2f_prefetch__free(NULL);
}

static int setup(void **state)
{
	int fd = mkstemp(path);

	(void)state;
	if (fd < 0)
		return -1;
	if (write(fd, "ffff0000 T start\n", 17) != 17) {
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
		cmocka_unit_test(test_read_and_take),
		cmocka_unit_test(test_errors_and_free),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
