/* tests/unit/test_bg.c: the background job thread (formats/bg.h). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "formats/bg.h"

/* Each job is an int: the thread appends it to the log, and a negative one fails. */
struct log {
	int seen[64];
	int n;
};

static int record(void *ctx, void *job)
{
	struct log *l = ctx;
	int v = *(int *)job;

	l->seen[l->n++] = v;
	return v < 0 ? v : 0;
}

static void test_jobs_run_in_order(void **state)
{
	struct log l = { 0 };
	struct t2f_bg *b;
	int jobs[2];

	(void)state;
	assert_int_equal(t2f_bg__new(record, &l, &b), 0);
	for (int i = 0; i < 40; i++) {
		/* two job slots taking turns, as the callers' two buffers do */
		assert_int_equal(t2f_bg__wait(b), 0);
		jobs[i % 2] = i;
		assert_int_equal(t2f_bg__hand(b, &jobs[i % 2]), 0);
	}
	assert_int_equal(t2f_bg__wait(b), 0);
	assert_int_equal(l.n, 40);
	for (int i = 0; i < 40; i++)
		assert_int_equal(l.seen[i], i);
	t2f_bg__free(b);
}

static void test_first_error_sticks(void **state)
{
	struct log l = { 0 };
	struct t2f_bg *b;
	int one = 1, bad = -EIO, worse = -ENOMEM, two = 2;

	(void)state;
	assert_int_equal(t2f_bg__new(record, &l, &b), 0);
	assert_int_equal(t2f_bg__hand(b, &one), 0);
	assert_int_equal(t2f_bg__hand(b, &bad), 0);
	assert_int_equal(t2f_bg__wait(b), -EIO);
	assert_int_equal(t2f_bg__hand(b, &worse), -EIO); /* not run */
	assert_int_equal(t2f_bg__hand(b, &two), -EIO);
	assert_int_equal(t2f_bg__wait(b), -EIO);
	assert_int_equal(l.n, 2);
	assert_int_equal(l.seen[0], 1);
	assert_int_equal(l.seen[1], -EIO);
	t2f_bg__free(b);
}

static void test_free_waits_for_the_last_job(void **state)
{
	struct log l = { 0 };
	struct t2f_bg *b;
	int seven = 7;

	(void)state;
	assert_int_equal(t2f_bg__new(record, &l, &b), 0);
	assert_int_equal(t2f_bg__hand(b, &seven), 0);
	t2f_bg__free(b);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.seen[0], 7);
	t2f_bg__free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jobs_run_in_order),
		cmocka_unit_test(test_first_error_sticks),
		cmocka_unit_test(test_free_waits_for_the_last_job),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
