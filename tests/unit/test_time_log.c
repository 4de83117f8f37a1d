/* tests/unit/test_time_log.c: formats/time_log.c against plain arrays: times that go forward by
 * a few ms, back, to 0 (unknown) and across the whole 64-bit range (written whole), weights that
 * stay or change, in several groups; a take appending one log's groups to another's through a
 * group map (the taken log left empty); the bytes a sample of steady times and weights takes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "formats/time_log.h"

#define N 5000
#define GROUPS 4

static uint64_t next(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 33;
}

static uint64_t some_time(uint64_t *s, uint64_t before)
{
	switch (next(s) % 16) {
	case 0: return 0;
	case 1: return UINT64_MAX - next(s);
	case 2: return before - next(s) % 1000000;
	case 3: return next(s) << 31;
	default: return before + 250000 + next(s) % 4000;
	}
}

/* Reads group g of l and compares it with times[0..n), weights[0..n); then one past the end. */
static void check_group(const struct t2f_time_log *l, uint32_t g, const uint64_t *times,
			const uint64_t *weights, size_t n)
{
	struct t2f_time_cursor k;
	uint64_t t, w;

	t2f_time_log__start(l, g, &k);
	for (size_t i = 0; i < n; i++) {
		t2f_time_log__next(&k, &t, &w);
		assert_int_equal(t, times[i]);
		assert_int_equal(w, weights[i]);
	}
	t2f_time_log__next(&k, &t, &w);
	assert_int_equal(t, 0);
	assert_int_equal(w, 0);
}

static void test_add_read_take(void **state)
{
	static uint64_t times[GROUPS][2 * N], weights[GROUPS][2 * N];
	static const uint32_t map[GROUPS] = { 3, 2, 1, 0 };
	struct t2f_time_log *a, *b;
	size_t len[GROUPS] = { 0 };
	uint64_t s = 7;

	(void)state;
	assert_int_equal(t2f_time_log__new(&a), 0);
	assert_int_equal(t2f_time_log__new(&b), 0);
	for (size_t i = 0; i < N; i++) {
		uint32_t g = (uint32_t)(next(&s) % GROUPS);
		uint64_t before = len[g] ? times[g][len[g] - 1] : 0;
		uint64_t w = next(&s) % 8 ? 250000 : next(&s) << (next(&s) % 32);

		times[g][len[g]] = some_time(&s, before);
		weights[g][len[g]] = w;
		assert_int_equal(t2f_time_log__add(a, g, times[g][len[g]], w), 0);
		len[g]++;
	}
	for (uint32_t g = 0; g < GROUPS; g++)
		check_group(a, g, times[g], weights[g], len[g]);
	/* b holds samples of group 1 (a's group 2 goes there), then takes a */
	assert_int_equal(t2f_time_log__add(b, 1, 99, 5), 0);
	assert_int_equal(t2f_time_log__take(b, a, map), 0);
	{
		uint64_t t[2 * N + 1] = { 99 }, w[2 * N + 1] = { 5 };

		for (size_t i = 0; i < len[2]; i++) {
			t[i + 1] = times[2][i];
			w[i + 1] = weights[2][i];
		}
		check_group(b, 1, t, w, len[2] + 1);
	}
	check_group(b, 3, times[0], weights[0], len[0]);
	check_group(b, 0, times[3], weights[3], len[3]);
	for (uint32_t g = 0; g < GROUPS; g++)
		check_group(a, g, NULL, NULL, 0);
	t2f_time_log__free(a);
	t2f_time_log__free(b);
}

/* A sample every ~250 us of one weight takes 3 bytes (the array grows by doubling: 6 at most). */
static void test_packed(void **state)
{
	struct t2f_time_log *l;
	uint64_t t = 25084964132403ULL, s = 3;

	(void)state;
	assert_int_equal(t2f_time_log__new(&l), 0);
	for (int i = 0; i < 100000; i++) {
		t += 240000 + next(&s) % 20000;
		assert_int_equal(t2f_time_log__add(l, 0, t, 250000), 0);
	}
	assert_true(t2f_time_log__bytes(l) <= 100000 * 6);
	t2f_time_log__free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_read_take),
		cmocka_unit_test(test_packed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
