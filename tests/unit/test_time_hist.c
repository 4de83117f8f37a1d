/* tests/unit/test_time_hist.c: formats/time_hist.c — samples land in their event's 10 ms bucket
 * (ends: the last ns of one bucket, the first of the next), untimed ones in one bucket of their
 * own, memory grows with the buckets hit and not with the span (a few samples centuries apart),
 * sums saturate, merges map events and add up; and the profile keeps it only when enabled, also
 * through t2f_profile__merge. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "formats/profile.h"
#include "formats/time_hist.h"

/* The bucket (event, bucket), or NULL. */
static const struct t2f_time_bucket *find(const struct t2f_time_hist *h, uint32_t ev,
					  uint64_t bucket)
{
	for (size_t i = 0; i < t2f_time_hist__count(h); i++) {
		const struct t2f_time_bucket *b = t2f_time_hist__at(h, i);

		if (b->event == ev && b->bucket == bucket)
			return b;
	}
	return NULL;
}

static void test_buckets(void **state)
{
	struct t2f_time_hist *h;
	const struct t2f_time_bucket *b;

	(void)state;
	assert_int_equal(t2f_time_hist__new(&h), 0);
	assert_int_equal(t2f_time_hist__add(h, 1, 372139999999ull, 1, 10), 0); /* 372.13 s */
	assert_int_equal(t2f_time_hist__add(h, 1, 372140000000ull, 1, 20), 0); /* 372.14 s */
	assert_int_equal(t2f_time_hist__add(h, 1, 372149999999ull, 2, 30), 0);
	assert_int_equal(t2f_time_hist__add(h, 2, 372140000000ull, 1, 5), 0);  /* another event */
	assert_int_equal(t2f_time_hist__add(h, 1, 0, 1, 7), 0);                /* no time */
	assert_int_equal(t2f_time_hist__add(h, 1, UINT64_MAX, 1, 8), 0);       /* past 2^64 ns */
	assert_int_equal(t2f_time_hist__count(h), 4);
	b = find(h, 1, 37213);
	assert_non_null(b);
	assert_int_equal(b->samples, 1);
	assert_int_equal(b->weight, 10);
	b = find(h, 1, 37214);
	assert_non_null(b);
	assert_int_equal(b->samples, 3);
	assert_int_equal(b->weight, 50);
	b = find(h, 2, 37214);
	assert_non_null(b);
	assert_int_equal(b->weight, 5);
	b = find(h, 1, T2F_TIME_HIST_UNTIMED);
	assert_non_null(b);
	assert_int_equal(b->samples, 2);
	assert_int_equal(b->weight, 15);
	/* saturating */
	assert_int_equal(t2f_time_hist__add(h, 2, 372140000000ull, UINT64_MAX, UINT64_MAX), 0);
	b = find(h, 2, 37214);
	assert_int_equal(b->samples, UINT64_MAX);
	assert_int_equal(b->weight, UINT64_MAX);
	t2f_time_hist__free(h);
	t2f_time_hist__free(NULL);
}

/* A few samples centuries apart take a few buckets, not a grid of the span. */
static void test_sparse(void **state)
{
	struct t2f_time_hist *h;

	(void)state;
	assert_int_equal(t2f_time_hist__new(&h), 0);
	for (uint64_t t = 1; t < UINT64_MAX / 2; t = t * 3 + 1)
		assert_int_equal(t2f_time_hist__add(h, 1, t, 1, 1), 0);
	assert_true(t2f_time_hist__count(h) < 64);
	assert_true(t2f_time_hist__bytes(h) < 64 * 1024);
	t2f_time_hist__free(h);
}

static void test_merge(void **state)
{
	struct t2f_time_hist *a, *b;
	const uint32_t map[] = { 0, 2, 1 }; /* b's event 1 is a's 2 and the other way */

	(void)state;
	assert_int_equal(t2f_time_hist__new(&a), 0);
	assert_int_equal(t2f_time_hist__new(&b), 0);
	assert_int_equal(t2f_time_hist__add(a, 1, 1000000000, 1, 1), 0);
	assert_int_equal(t2f_time_hist__add(b, 2, 1000000000, 4, 40), 0);
	assert_int_equal(t2f_time_hist__add(b, 1, 1000000000, 2, 20), 0);
	assert_int_equal(t2f_time_hist__add(b, 1, 0, 3, 30), 0);
	assert_int_equal(t2f_time_hist__merge(a, b, map), 0);
	assert_int_equal(t2f_time_hist__count(a), 3);
	assert_int_equal(find(a, 1, 100)->samples, 5);
	assert_int_equal(find(a, 1, 100)->weight, 41);
	assert_int_equal(find(a, 2, 100)->samples, 2);
	assert_int_equal(find(a, 2, T2F_TIME_HIST_UNTIMED)->weight, 30);
	t2f_time_hist__free(a);
	t2f_time_hist__free(b);
}

/* Kept only when enabled (times asked for then too); follows a merge. */
static void test_profile(void **state)
{
	struct t2f_profile *plain, *p, *q;
	t2f_str_id name;
	t2f_thread_id th;
	t2f_event_id ev;

	(void)state;
	assert_int_equal(t2f_profile__new(&plain), 0);
	assert_int_equal(t2f_profile__new(&p), 0);
	assert_int_equal(t2f_profile__new(&q), 0);
	assert_null(t2f_profile__hist(plain));
	assert_int_equal(t2f_profile__enable_hist(p), 0);
	assert_int_equal(t2f_profile__enable_hist(q), 0);
	assert_true(t2f_profile__wants_times(p));
	assert_false(t2f_profile__wants_times(plain));
	for (int i = 0; i < 3; i++) {
		struct t2f_profile *x = i == 0 ? plain : i == 1 ? p : q;

		assert_int_equal(t2f_profile__intern(x, "cpu-clock", 9, &name), 0);
		assert_int_equal(t2f_profile__event(x, name, T2F_UNIT_NANOSECONDS, &ev), 0);
		assert_int_equal(t2f_profile__thread(x, 1, 1, 0, 0, &th), 0);
		assert_int_equal(t2f_profile__add_sample(x, 0, th, ev, 100, 2015000000ull), 0);
		assert_int_equal(t2f_profile__add_sample(x, 0, th, ev, 100, 2019999999ull), 0);
	}
	assert_null(t2f_profile__hist(plain));
	assert_int_equal(t2f_profile__merge(p, q), 0);
	assert_int_equal(t2f_time_hist__count(t2f_profile__hist(p)), 1);
	assert_int_equal(find(t2f_profile__hist(p), ev, 201)->samples, 4);
	assert_int_equal(find(t2f_profile__hist(p), ev, 201)->weight, 400);
	t2f_profile__free(plain);
	t2f_profile__free(p);
	t2f_profile__free(q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buckets),
		cmocka_unit_test(test_sparse),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_profile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
