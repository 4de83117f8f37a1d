/* tests/unit/test_sample_log.c: formats/sample_log.c against a plain array: samples added across
 * many chunks, weights kept aside (2^32 - 1 and up), logs taken into another (cells remapped,
 * the taken log left empty, adds after a take), reads in order, backwards and at random. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "formats/sample_log.h"

#define N 20000

struct ref {
	uint32_t cell[3 * N];
	uint64_t weight[3 * N];
	size_t len;
};

static uint64_t next(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 33;
}

static uint64_t some_weight(uint64_t *s)
{
	uint64_t r = next(s) % 100;

	return r == 0 ? UINT32_MAX : r == 1 ? (uint64_t)1 << 40 : r == 2 ? UINT32_MAX - 1 : r;
}

/* Adds n samples to l and to ref (cells through `map`, as a take will remap them). */
static void add(struct t2f_sample_log *l, struct ref *ref, size_t n, const uint32_t *map,
		uint64_t *s)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t cell = (uint32_t)(next(s) % 50);
		uint64_t w = some_weight(s);

		assert_int_equal(t2f_sample_log__add(l, cell, w), 0);
		ref->cell[ref->len] = map ? map[cell] : cell;
		ref->weight[ref->len++] = w;
	}
}

static void check(const struct t2f_sample_log *l, const struct ref *ref, uint64_t *s)
{
	uint32_t idx[257], cells[257];
	uint64_t weights[257];

	assert_int_equal(t2f_sample_log__count(l), ref->len);
	for (size_t from = 0; from < ref->len; from += 257) { /* in order */
		size_t n = ref->len - from < 257 ? ref->len - from : 257;

		t2f_sample_log__read(l, NULL, from, n, cells, weights);
		for (size_t i = 0; i < n; i++) {
			assert_int_equal(cells[i], ref->cell[from + i]);
			assert_int_equal(weights[i], ref->weight[from + i]);
		}
	}
	for (size_t i = 0; i < 257; i++) /* backwards, then at random */
		idx[i] = (uint32_t)(i < 128 ? ref->len - 1 - i * 37 % ref->len : next(s) % ref->len);
	t2f_sample_log__read(l, idx, 0, 257, cells, weights);
	for (size_t i = 0; i < 257; i++) {
		assert_int_equal(cells[i], ref->cell[idx[i]]);
		assert_int_equal(weights[i], ref->weight[idx[i]]);
		assert_int_equal(t2f_sample_log__cell(l, idx[i]), ref->cell[idx[i]]);
		assert_int_equal(t2f_sample_log__weight(l, idx[i]), ref->weight[idx[i]]);
	}
}

static void test_add_take_read(void **state)
{
	struct ref *ref = calloc(1, sizeof(*ref));
	struct t2f_sample_log *dst, *src;
	uint32_t map[50];
	uint64_t s = 7;

	(void)state;
	assert_non_null(ref);
	for (uint32_t c = 0; c < 50; c++)
		map[c] = 1000 + c * 3;
	assert_int_equal(t2f_sample_log__new(&dst), 0);
	assert_int_equal(t2f_sample_log__new(&src), 0);
	add(dst, ref, N, NULL, &s);
	check(dst, ref, &s);
	add(src, ref, N, map, &s);            /* src's samples follow dst's once taken */
	assert_int_equal(t2f_sample_log__take(dst, src, map), 0);
	assert_int_equal(t2f_sample_log__count(src), 0);
	assert_int_equal(t2f_sample_log__take(dst, src, map), 0); /* an empty log: nothing */
	add(dst, ref, N / 3, NULL, &s);       /* into the chunk taken last */
	check(dst, ref, &s);
	add(src, ref, 5, map, &s);            /* the emptied log is usable again */
	assert_int_equal(t2f_sample_log__take(dst, src, map), 0);
	check(dst, ref, &s);
	assert_true(t2f_sample_log__bytes(dst) >= ref->len * 8);
	t2f_sample_log__free(dst);
	t2f_sample_log__free(src);
	t2f_sample_log__free(NULL);
	free(ref);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_take_read),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
