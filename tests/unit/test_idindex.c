/* tests/unit/test_idindex.c: formats/idindex — ids dense from 1 in the order records are added,
 * every record found by its key after the array moved (10,000 records from a first room of 64),
 * absent keys not found, keys that share a hash told apart by the caller's equality. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "formats/idindex.h"

struct rec {
	int64_t key;
	uint64_t value;
};

struct probe {
	const struct t2f_idindex *x;
	int64_t key;
};

static bool rec_eq(const void *ctx, uint32_t id)
{
	const struct probe *q = ctx;

	return ((const struct rec *)t2f_idindex__at(q->x, id))->key == q->key;
}

/* Keys k and k + 1000 share a hash: the equality decides. */
static uint64_t hash_of(int64_t key)
{
	return t2f_hash_u64((uint64_t)(key % 1000));
}

static uint32_t find(const struct t2f_idindex *x, int64_t key)
{
	struct probe q = { x, key };

	return t2f_idindex__find(x, hash_of(key), rec_eq, &q);
}

static void test_records(void **state)
{
	struct t2f_idindex x;
	uint32_t id;

	(void)state;
	assert_int_equal(t2f_idindex__init(&x, sizeof(struct rec), 4), 0);
	assert_int_equal(find(&x, 5), 0);
	for (int64_t k = 0; k < 10000; k++) {
		assert_int_equal(t2f_idindex__add(&x, hash_of(k), &(struct rec){ k, (uint64_t)k * 3 },
						  &id), 0);
		assert_int_equal(id, (uint32_t)k + 1);
	}
	assert_int_equal(x.n, 10000);
	for (int64_t k = 0; k < 10000; k++) {
		id = find(&x, k);
		assert_int_equal(id, (uint32_t)k + 1);
		assert_int_equal(((struct rec *)t2f_idindex__at(&x, id))->value, (uint64_t)k * 3);
	}
	assert_int_equal(find(&x, 10000), 0);
	assert_int_equal(find(&x, -1), 0);
	t2f_idindex__release(&x);
	assert_null(x.items);
	t2f_idindex__release(&x); /* twice is fine */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_records),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
