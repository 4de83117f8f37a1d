/* tests/unit/test_arena.c: formats/arena.c — 16-byte alignment, many allocations across blocks
 * that never overlap, strndup, the reserved-bytes counter and overflowing sizes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "formats/arena.h"

static struct t2f_arena *arena_new(void)
{
	struct t2f_arena *a = NULL;

	assert_int_equal(t2f_arena__new(&a), 0);
	assert_non_null(a);
	return a;
}

static void test_alignment_16(void **state)
{
	struct t2f_arena *a = arena_new();

	(void)state;
	for (size_t size = 0; size < 300; size++) {
		void *p = t2f_arena__alloc(a, size);

		assert_non_null(p);
		assert_int_equal((uintptr_t)p % 16, 0);
	}
	/* also the first allocation of a fresh, oversized block */
	assert_int_equal((uintptr_t)t2f_arena__alloc(a, 5u << 20) % 16, 0);
	assert_int_equal((uintptr_t)t2f_arena__alloc(a, 3) % 16, 0);
	t2f_arena__free(a);
}

struct chunk {
	unsigned char *p;
	size_t size;
};

/* 20,000 allocations of odd sizes (several MiB, so many blocks), each filled with its own byte
 * pattern; afterwards every pattern must be intact (no two allocations overlap). */
static void test_many_allocations_across_blocks(void **state)
{
	enum { N = 20000 };
	struct t2f_arena *a = arena_new();
	struct chunk *c = calloc(N, sizeof(*c));
	size_t total = 0;

	(void)state;
	assert_non_null(c);
	for (size_t i = 0; i < N; i++) {
		c[i].size = 1 + (i * 7919) % 997;
		if (i % 5000 == 4999)
			c[i].size = 200000 + i; /* larger than a first block */
		c[i].p = t2f_arena__alloc(a, c[i].size);
		assert_non_null(c[i].p);
		memset(c[i].p, (int)(i * 31 % 251), c[i].size);
		total += c[i].size;
	}
	for (size_t i = 0; i < N; i++)
		for (size_t k = 0; k < c[i].size; k++)
			if (c[i].p[k] != (unsigned char)(i * 31 % 251))
				fail_msg("allocation %zu byte %zu overwritten", i, k);
	assert_true(t2f_arena__bytes(a) >= total);
	free(c);
	t2f_arena__free(a);
}

static void test_strndup(void **state)
{
	struct t2f_arena *a = arena_new();
	const char src[] = "hello\0world";
	char *s;

	(void)state;
	s = t2f_arena__strndup(a, "abcdef", 3);
	assert_non_null(s);
	assert_string_equal(s, "abc");

	s = t2f_arena__strndup(a, src, sizeof(src) - 1); /* embedded NUL copied */
	assert_non_null(s);
	assert_memory_equal(s, "hello\0world", 12);

	s = t2f_arena__strndup(a, "x", 0);
	assert_non_null(s);
	assert_string_equal(s, "");

	/* a copy, not the caller's pointer */
	{
		char buf[] = "mutable";

		s = t2f_arena__strndup(a, buf, 7);
		buf[0] = 'M';
		assert_string_equal(s, "mutable");
		assert_ptr_not_equal(s, buf);
	}
	assert_null(t2f_arena__strndup(a, "x", SIZE_MAX));
	t2f_arena__free(a);
}

static void test_bytes_grows(void **state)
{
	struct t2f_arena *a = arena_new();
	size_t before;

	(void)state;
	assert_int_equal(t2f_arena__bytes(a), 0);
	assert_non_null(t2f_arena__alloc(a, 1));
	assert_int_equal(t2f_arena__bytes(a), 64u << 10); /* the 64 KiB first block */
	/* the rest of the first block costs nothing more */
	assert_non_null(t2f_arena__alloc(a, (64u << 10) - 16));
	assert_int_equal(t2f_arena__bytes(a), 64u << 10);
	before = t2f_arena__bytes(a);
	assert_non_null(t2f_arena__alloc(a, 16));
	assert_true(t2f_arena__bytes(a) > before);
	before = t2f_arena__bytes(a);
	assert_non_null(t2f_arena__alloc(a, 10u << 20));
	assert_true(t2f_arena__bytes(a) >= before + (10u << 20));
	t2f_arena__free(a);
}

static void test_overflowing_sizes(void **state)
{
	struct t2f_arena *a = arena_new();

	(void)state;
	assert_null(t2f_arena__alloc(a, SIZE_MAX));
	assert_null(t2f_arena__alloc(a, SIZE_MAX - 3));   /* rounding up to 16 wraps */
	assert_null(t2f_arena__alloc(a, SIZE_MAX - 100)); /* no block that large */
	/* still usable afterwards */
	assert_non_null(t2f_arena__alloc(a, 32));
	t2f_arena__free(a);
	t2f_arena__free(NULL);
}

/* After a reset the arena keeps one block (its newest, largest) and hands out its memory again
 * from the start; a larger allocation still gets a block of its own. */
static void test_reset(void **state)
{
	struct t2f_arena *a = arena_new();
	unsigned char *again;
	size_t before;

	(void)state;
	for (int i = 0; i < 100; i++)
		assert_non_null(t2f_arena__alloc(a, 10000)); /* blocks of 64 KiB, 128 KiB, ... */
	before = t2f_arena__bytes(a);
	assert_true(before > (512u << 10));
	t2f_arena__reset(a);
	assert_int_equal(t2f_arena__bytes(a), (before + (64u << 10)) / 2); /* the newest block */
	again = t2f_arena__alloc(a, 100);
	assert_non_null(again);
	memset(again, 7, 100);
	t2f_arena__reset(a);
	assert_ptr_equal(t2f_arena__alloc(a, 100), again);
	assert_non_null(t2f_arena__alloc(a, 5u << 20));
	t2f_arena__free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alignment_16),
		cmocka_unit_test(test_many_allocations_across_blocks),
		cmocka_unit_test(test_strndup),
		cmocka_unit_test(test_bytes_grows),
		cmocka_unit_test(test_overflowing_sizes),
		cmocka_unit_test(test_reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
