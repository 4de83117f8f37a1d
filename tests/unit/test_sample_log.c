/* tests/unit/test_sample_log.c: formats/sample_log.c against plain arrays: samples of several
 * groups added across many chunks, weights kept aside (2^32 - 1 and up), logs taken into another
 * (cells and groups remapped, the taken log left empty, adds after a take), each group read in
 * order, backwards and at random. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "formats/sample_log.h"

#define N 20000
#define GROUPS 12 /* group ids 0..GROUPS-1; the test uses a few, far apart */

struct ref {
	uint32_t cell[GROUPS][3 * N];
	uint64_t weight[GROUPS][3 * N];
	size_t len[GROUPS];
	size_t total;
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

/* Adds n samples to l's groups 1, 2 and 9 and to ref (cells and groups through the maps, as a
 * take will remap them). */
static void add(struct t2f_sample_log *l, struct ref *ref, size_t n, const uint32_t *cell_map,
		const uint32_t *group_map, uint64_t *s)
{
	static const uint32_t groups[] = { 1, 2, 9, 2 };

	for (size_t i = 0; i < n; i++) {
		uint32_t cell = (uint32_t)(next(s) % 50), g = groups[next(s) % 4];
		uint32_t rg = group_map ? group_map[g] : g;
		uint64_t w = some_weight(s);

		assert_int_equal(t2f_sample_log__add(l, g, cell, w), 0);
		ref->cell[rg][ref->len[rg]] = cell_map ? cell_map[cell] : cell;
		ref->weight[rg][ref->len[rg]++] = w;
		ref->total++;
	}
}

static void check_group(const struct t2f_sample_log *l, const struct ref *ref, uint32_t g,
			uint64_t *s)
{
	uint32_t cells[257];
	uint64_t weights[257];
	size_t len = ref->len[g];

	assert_int_equal(t2f_sample_log__group_count(l, g), len);
	for (size_t from = 0; from < len; from += 257) { /* in order */
		size_t n = len - from < 257 ? len - from : 257;

		t2f_sample_log__read(l, g, from, n, cells, weights);
		for (size_t i = 0; i < n; i++) {
			assert_int_equal(cells[i], ref->cell[g][from + i]);
			assert_int_equal(weights[i], ref->weight[g][from + i]);
		}
	}
	for (size_t i = 0; len && i < 257; i++) { /* backwards, then at random */
		size_t idx = i < 128 ? len - 1 - i * 37 % len : next(s) % len;

		assert_int_equal(t2f_sample_log__cell(l, g, idx), ref->cell[g][idx]);
		assert_int_equal(t2f_sample_log__weight(l, g, idx), ref->weight[g][idx]);
		t2f_sample_log__read(l, g, idx, 1, cells, weights);
		assert_int_equal(cells[0], ref->cell[g][idx]);
		assert_int_equal(weights[0], ref->weight[g][idx]);
	}
}

static void check(const struct t2f_sample_log *l, const struct ref *ref, uint64_t *s)
{
	assert_int_equal(t2f_sample_log__count(l), ref->total);
	for (uint32_t g = 0; g < GROUPS; g++)
		check_group(l, ref, g, s);
	assert_int_equal(t2f_sample_log__group_count(l, 1000000), 0); /* never used */
}

static void test_add_take_read(void **state)
{
	struct ref *ref = calloc(1, sizeof(*ref));
	struct t2f_sample_log *dst, *src;
	uint32_t cell_map[50], group_map[GROUPS] = { 0 };
	uint64_t s = 7;

	(void)state;
	assert_non_null(ref);
	for (uint32_t c = 0; c < 50; c++)
		cell_map[c] = 1000 + c * 3;
	group_map[1] = 2; /* src's groups land on dst's 2 (after its own), 11 (new) and 1 */
	group_map[2] = 11;
	group_map[9] = 1;
	assert_int_equal(t2f_sample_log__new(&dst), 0);
	assert_int_equal(t2f_sample_log__new(&src), 0);
	add(dst, ref, N, NULL, NULL, &s);
	check(dst, ref, &s);
	add(src, ref, N, cell_map, group_map, &s); /* src's samples follow dst's once taken */
	assert_int_equal(t2f_sample_log__take(dst, src, cell_map, 50, group_map), 0);
	assert_int_equal(t2f_sample_log__count(src), 0);
	assert_int_equal(t2f_sample_log__group_count(src, 1), 0);
	assert_int_equal(t2f_sample_log__take(dst, src, cell_map, 50, group_map), 0); /* empty: nothing */
	add(dst, ref, N / 3, NULL, NULL, &s); /* into the chunks taken last */
	check(dst, ref, &s);
	add(src, ref, 5, cell_map, group_map, &s); /* the emptied log is usable again */
	assert_int_equal(t2f_sample_log__take(dst, src, cell_map, 50, group_map), 0);
	check(dst, ref, &s);
	assert_true(t2f_sample_log__bytes(dst) >= ref->total * 8);
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
