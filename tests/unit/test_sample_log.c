/* tests/unit/test_sample_log.c: formats/sample_log.c against plain arrays of samples: samples of
 * several groups added across many chunks (runs of one cell, of one weight or of several, weights
 * of 2^32 and up, runs cut where their weight would pass 2^64 - 1), logs taken into another
 * (cells and groups remapped, the taken log left empty, adds after a take, a log that took
 * another taken in turn), each group read in order, backwards and at random. Runs must be whole:
 * two neighbours with one cell only at a take's seam or where the weight would overflow. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "formats/sample_log.h"

#define N 20000
#define GROUPS 12 /* group ids 0..GROUPS-1; the test uses a few, far apart */
#define MAX_SAMPLES (4 * N)

struct ref {
	uint32_t cell[GROUPS][MAX_SAMPLES];
	uint64_t weight[GROUPS][MAX_SAMPLES];
	bool seam[GROUPS][MAX_SAMPLES]; /* a take's samples start here */
	size_t len[GROUPS];
	size_t total;
	struct t2f_log_run runs[MAX_SAMPLES]; /* one group's, read in order */
};

static uint64_t next(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 33;
}

/* Mostly one weight (runs of one weight), now and then another or a big one. */
static uint64_t some_weight(uint64_t *s)
{
	uint64_t r = next(s) % 100;

	return r == 0 ? UINT32_MAX : r == 1 ? (uint64_t)1 << 40 : r == 2 ? UINT32_MAX - 1 :
	       r == 3 ? UINT64_MAX / 2 : r < 10 ? r : 200040;
}

/* A cell: most often the group's last one again (runs). */
static uint32_t some_cell(uint64_t *s, uint32_t last)
{
	return next(s) % 10 < 6 ? last : (uint32_t)(next(s) % 50);
}

static size_t overflow_cuts; /* neighbours of one cell cut for their weight, seen by check_runs */

struct maps {
	const uint32_t *cell, *group; /* NULL: as added */
};

/* Adds n samples to l's groups 1, 2 and 9 and to ref, as they will read once taken through
 * each of maps[0..nmaps) in turn. */
static void add(struct t2f_sample_log *l, struct ref *ref, size_t n, const struct maps *maps,
		size_t nmaps, uint64_t *s)
{
	static const uint32_t groups[] = { 1, 2, 9, 2 };
	static uint32_t last[GROUPS];

	for (size_t i = 0; i < n; i++) {
		uint32_t g = groups[next(s) % 4], cell = some_cell(s, last[g]), rg = g, rc = cell;
		uint64_t w = some_weight(s);

		last[g] = cell;
		for (size_t m = 0; m < nmaps; m++) {
			rg = maps[m].group ? maps[m].group[rg] : rg;
			rc = maps[m].cell ? maps[m].cell[rc] : rc;
		}
		assert_int_equal(t2f_sample_log__add(l, g, cell, w), 0);
		assert_true(ref->len[rg] < MAX_SAMPLES);
		ref->cell[rg][ref->len[rg]] = rc;
		ref->weight[rg][ref->len[rg]++] = w;
		ref->total++;
	}
}

/* The next samples of every group come from a take. */
static void mark_seams(struct ref *ref)
{
	for (uint32_t g = 0; g < GROUPS; g++)
		ref->seam[g][ref->len[g]] = true;
}

/* Runs [0, nruns) of group g (in ref->runs) against its samples: each run is samples in a row of
 * its cell, weighing their sum; neighbours of one cell only at a seam or an overflow. */
static void check_runs(const struct ref *ref, uint32_t g, size_t nruns)
{
	size_t at = 0;

	for (size_t k = 0; k < nruns; k++) {
		const struct t2f_log_run *r = &ref->runs[k];
		uint64_t sum = 0;

		assert_true(r->samples >= 1);
		assert_true(at + r->samples <= ref->len[g]);
		for (size_t i = at; i < at + r->samples; i++) {
			assert_int_equal(ref->cell[g][i], r->cell);
			sum += ref->weight[g][i];
		}
		assert_int_equal(sum, r->weight);
		at += r->samples;
		if (k + 1 < nruns && r[1].cell == r->cell && !ref->seam[g][at]) {
			assert_true(ref->weight[g][at] > UINT64_MAX - r->weight);
			overflow_cuts++;
		}
	}
	assert_int_equal(at, ref->len[g]);
}

static void check_group(const struct t2f_sample_log *l, struct ref *ref, uint32_t g,
			uint64_t *s)
{
	size_t nruns = t2f_sample_log__group_runs(l, g);
	struct t2f_log_run one;
	uint64_t weight = 0;

	for (size_t i = 0; i < ref->len[g]; i++) /* summed, at most 2^64 - 1 */
		weight = ref->weight[g][i] > UINT64_MAX - weight ? UINT64_MAX :
			 weight + ref->weight[g][i];
	assert_int_equal(t2f_sample_log__group_weight(l, g), weight);
	assert_int_equal(t2f_sample_log__group_samples(l, g), ref->len[g]);
	assert_true(nruns <= ref->len[g]);
	for (size_t from = 0; from < nruns; from += 257) /* in order */
		t2f_sample_log__read(l, g, from, nruns - from < 257 ? nruns - from : 257,
				     ref->runs + from);
	check_runs(ref, g, nruns);
	for (size_t i = 0; nruns && i < 257; i++) { /* backwards, then at random */
		size_t idx = i < 128 ? nruns - 1 - i * 37 % nruns : next(s) % nruns;

		t2f_sample_log__read(l, g, idx, 1, &one);
		assert_int_equal(one.cell, ref->runs[idx].cell);
		assert_int_equal(one.samples, ref->runs[idx].samples);
		assert_int_equal(one.weight, ref->runs[idx].weight);
	}
}

static void check(const struct t2f_sample_log *l, struct ref *ref, uint64_t *s)
{
	assert_int_equal(t2f_sample_log__count(l), ref->total);
	for (uint32_t g = 0; g < GROUPS; g++)
		check_group(l, ref, g, s);
	assert_int_equal(t2f_sample_log__group_samples(l, 1000000), 0); /* never used */
	assert_int_equal(t2f_sample_log__group_runs(l, 1000000), 0);
}

static void test_add_take_read(void **state)
{
	struct ref *ref = calloc(1, sizeof(*ref));
	struct t2f_sample_log *dst, *src, *src2;
	uint32_t cell_map[50], back[50], group_map[GROUPS] = { 0 }, same[GROUPS];
	struct maps into_dst[2];
	uint64_t s = 7;

	(void)state;
	assert_non_null(ref);
	for (uint32_t c = 0; c < 50; c++) {
		cell_map[c] = 1000 + c * 3;
		back[c] = 49 - c;
	}
	for (uint32_t g = 0; g < GROUPS; g++)
		same[g] = g;
	group_map[1] = 2; /* src's groups land on dst's 2 (after its own), 11 (new) and 1 */
	group_map[2] = 11;
	group_map[9] = 1;
	into_dst[0] = (struct maps){ cell_map, group_map };
	assert_int_equal(t2f_sample_log__new(&dst), 0);
	assert_int_equal(t2f_sample_log__new(&src), 0);
	assert_int_equal(t2f_sample_log__new(&src2), 0);
	add(dst, ref, N, NULL, 0, &s);
	check(dst, ref, &s);
	mark_seams(ref);
	add(src, ref, N, into_dst, 1, &s); /* src's samples follow dst's once taken */
	assert_int_equal(t2f_sample_log__take(dst, src, cell_map, 50, group_map), 0);
	assert_int_equal(t2f_sample_log__count(src), 0);
	assert_int_equal(t2f_sample_log__group_samples(src, 1), 0);
	assert_int_equal(t2f_sample_log__group_runs(src, 1), 0);
	assert_int_equal(t2f_sample_log__take(dst, src, cell_map, 50, group_map), 0); /* empty: nothing */
	mark_seams(ref);
	add(dst, ref, N / 3, NULL, 0, &s); /* after the chunks taken last */
	check(dst, ref, &s);
	/* src2 into src (cells reversed), more of src's own, then src into dst: src's chunks from
	 * src2 are read through both maps */
	mark_seams(ref);
	into_dst[0] = (struct maps){ back, same };
	into_dst[1] = (struct maps){ cell_map, group_map };
	add(src2, ref, N / 2, into_dst, 2, &s);
	assert_int_equal(t2f_sample_log__take(src, src2, back, 50, same), 0);
	mark_seams(ref);
	add(src, ref, 5, into_dst + 1, 1, &s); /* the emptied log is usable again */
	assert_int_equal(t2f_sample_log__take(dst, src, cell_map, 50, group_map), 0);
	check(dst, ref, &s);
	assert_true(overflow_cuts > 0);
	t2f_sample_log__free(dst);
	t2f_sample_log__free(src);
	t2f_sample_log__free(src2);
	t2f_sample_log__free(NULL);
	free(ref);
}

/* The packing: 100,000 samples of one cell are one run; alternating between two cells of one
 * weight, 100,000 runs take under half the 8 bytes a sample would. */
static void test_packed(void **state)
{
	struct t2f_sample_log *l;
	struct t2f_log_run r[2];

	(void)state;
	assert_int_equal(t2f_sample_log__new(&l), 0);
	for (int i = 0; i < 100000; i++)
		assert_int_equal(t2f_sample_log__add(l, 3, 77, 200040), 0);
	assert_int_equal(t2f_sample_log__group_runs(l, 3), 1);
	t2f_sample_log__read(l, 3, 0, 1, r);
	assert_int_equal(r[0].cell, 77);
	assert_int_equal(r[0].samples, 100000);
	assert_int_equal(r[0].weight, 100000ULL * 200040);
	assert_true(t2f_sample_log__bytes(l) < 4096);
	for (uint32_t i = 0; i < 100000; i++)
		assert_int_equal(t2f_sample_log__add(l, 4, i % 2 ? 5000 : 9, 200040), 0);
	assert_int_equal(t2f_sample_log__group_runs(l, 4), 100000);
	t2f_sample_log__read(l, 4, 99998, 2, r);
	assert_int_equal(r[0].cell, 9);
	assert_int_equal(r[1].cell, 5000);
	assert_int_equal(r[1].weight, 200040);
	assert_true(t2f_sample_log__bytes(l) < 100000 * 8 / 2);
	t2f_sample_log__free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_take_read),
		cmocka_unit_test(test_packed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
