/* tests/unit/test_buf.c: the growable byte buffer. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "formats/buf.h"

static void test_put_grows_and_keeps_bytes(void **state)
{
	struct t2f_buf b = { 0 };
	char piece[7] = "abcdefg";

	(void)state;
	assert_int_equal(t2f_buf__put(&b, "", 0), 0);
	assert_null(b.p); /* nothing allocated for nothing */
	for (int i = 0; i < 100000; i++)
		assert_int_equal(t2f_buf__put(&b, piece, sizeof(piece)), 0);
	assert_int_equal(b.len, 700000);
	assert_true(b.cap >= b.len);
	for (size_t i = 0; i < b.len; i += sizeof(piece))
		assert_memory_equal(b.p + i, piece, sizeof(piece));
	t2f_buf__free(&b);
	assert_null(b.p);
	assert_int_equal(b.len, 0);
	assert_int_equal(b.cap, 0);
}

static void test_put_self_survives_a_move(void **state)
{
	struct t2f_buf b = { 0 };

	(void)state;
	assert_int_equal(t2f_buf__put(&b, "root;", 5), 0);
	/* Fill to exactly the capacity so the next append must move the bytes it copies from. */
	while (b.len < b.cap)
		assert_int_equal(t2f_buf__put(&b, "x", 1), 0);
	assert_int_equal(t2f_buf__put_self(&b, 0, 5), 0);
	assert_memory_equal(b.p + b.len - 5, "root;", 5);
	t2f_buf__free(&b);
}

static void test_reserve_overflow(void **state)
{
	struct t2f_buf b = { 0 };

	(void)state;
	assert_int_equal(t2f_buf__put(&b, "a", 1), 0);
	assert_int_equal(t2f_buf__reserve(&b, SIZE_MAX), -ENOMEM);
	assert_int_equal(t2f_buf__reserve(&b, SIZE_MAX / 2), -ENOMEM);
	assert_int_equal(b.len, 1);
	assert_int_equal(b.p[0], 'a');
	t2f_buf__free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_put_grows_and_keeps_bytes),
		cmocka_unit_test(test_put_self_survives_a_move),
		cmocka_unit_test(test_reserve_overflow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
