/* tests/unit/test_hashmap.c: formats/hashmap.c — lookup through a caller-owned key array,
 * forced collisions (one hash for many keys), a lookup's candidate, growth to 1M entries, growth
 * in place with runs that wrap past the last slot, and the hash functions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "formats/hashmap.h"

/* The caller's keys: keys[value] for value 1..n (value 0 is never used). */
struct keys {
	uint64_t *k;
	size_t n;
};

struct probe {
	const struct keys *keys;
	uint64_t key;
	unsigned calls;
};

static bool key_eq(const void *ctx, uint32_t value)
{
	struct probe *p = (struct probe *)ctx;

	p->calls++;
	assert_true(value >= 1 && value <= p->keys->n);
	return p->keys->k[value] == p->key;
}

static uint32_t find(const struct t2f_hashmap *m, const struct keys *ks, uint64_t hash,
		     uint64_t key)
{
	struct probe p = { ks, key, 0 };

	return t2f_hashmap__find(m, hash, key_eq, &p);
}

static struct t2f_hashmap *map_new(size_t hint)
{
	struct t2f_hashmap *m = NULL;

	assert_int_equal(t2f_hashmap__new(hint, &m), 0);
	assert_non_null(m);
	return m;
}

static void test_insert_find_with_key_array(void **state)
{
	struct t2f_hashmap *m = map_new(0);
	uint64_t k[101];
	struct keys ks = { k, 100 };

	(void)state;
	assert_int_equal(t2f_hashmap__count(m), 0);
	assert_int_equal(find(m, &ks, t2f_hash_u64(5), 5), 0);
	for (uint32_t v = 1; v <= 100; v++) {
		k[v] = (uint64_t)v * 1000 + 3;
		assert_int_equal(find(m, &ks, t2f_hash_u64(k[v]), k[v]), 0);
		assert_int_equal(t2f_hashmap__insert(m, t2f_hash_u64(k[v]), v), 0);
	}
	assert_int_equal(t2f_hashmap__count(m), 100);
	for (uint32_t v = 1; v <= 100; v++)
		assert_int_equal(find(m, &ks, t2f_hash_u64(k[v]), k[v]), v);
	assert_int_equal(find(m, &ks, t2f_hash_u64(4), 4), 0);
	assert_int_equal(find(m, &ks, t2f_hash_u64(1003 + 1), 1003 + 1), 0);
	t2f_hashmap__free(m);
	t2f_hashmap__free(NULL);
}

/* The map compares keys only through the callback: with one hash for every key it must still
 * tell them apart (and grow while they all collide). */
static void test_forced_collisions(void **state)
{
	enum { N = 2000 };
	struct t2f_hashmap *m = map_new(4);
	uint64_t *k = calloc(N + 1, sizeof(*k));
	struct keys ks = { k, N };
	const uint64_t same = 0x1234567890abcdefULL;

	(void)state;
	assert_non_null(k);
	for (uint32_t v = 1; v <= N; v++) {
		k[v] = 77 + (uint64_t)v * 13;
		assert_int_equal(find(m, &ks, same, k[v]), 0);
		assert_int_equal(t2f_hashmap__insert(m, same, v), 0);
	}
	assert_int_equal(t2f_hashmap__count(m), N);
	for (uint32_t v = 1; v <= N; v++)
		assert_int_equal(find(m, &ks, same, k[v]), v);
	assert_int_equal(find(m, &ks, same, 1), 0); /* absent key under the crowded hash */
	t2f_hashmap__free(m);

	/* hashes equal in their high or their low half only */
	m = map_new(0);
	k[1] = 10;
	k[2] = 20;
	k[3] = 30;
	ks.n = 3;
	assert_int_equal(t2f_hashmap__insert(m, 0xaaaaaaaa00000001ULL, 1), 0);
	assert_int_equal(t2f_hashmap__insert(m, 0xaaaaaaaa00000002ULL, 2), 0);
	assert_int_equal(t2f_hashmap__insert(m, 0xbbbbbbbb00000001ULL, 3), 0);
	assert_int_equal(find(m, &ks, 0xaaaaaaaa00000001ULL, 10), 1);
	assert_int_equal(find(m, &ks, 0xaaaaaaaa00000002ULL, 20), 2);
	assert_int_equal(find(m, &ks, 0xbbbbbbbb00000001ULL, 30), 3);
	/* the right key under the wrong hash is not found */
	assert_int_equal(find(m, &ks, 0xcccccccc00000001ULL, 30), 0);
	t2f_hashmap__free(m);
	free(k);
}

/* The hash filters candidates: a lookup with a hash nobody used calls eq on no entry. */
static void test_hash_filters_before_eq(void **state)
{
	struct t2f_hashmap *m = map_new(0);
	uint64_t k[3] = { 0, 1, 2 };
	struct keys ks = { k, 2 };
	struct probe p = { &ks, 1, 0 };

	(void)state;
	assert_int_equal(t2f_hashmap__insert(m, t2f_hash_u64(1), 1), 0);
	assert_int_equal(t2f_hashmap__insert(m, t2f_hash_u64(2), 2), 0);
	assert_int_equal(t2f_hashmap__find(m, t2f_hash_u64(1), key_eq, &p), 1);
	assert_int_equal(p.calls, 1);
	p.calls = 0;
	p.key = 3;
	assert_int_equal(t2f_hashmap__find(m, t2f_hash_u64(3), key_eq, &p), 0);
	assert_int_equal(p.calls, 0);
	t2f_hashmap__free(m);
}

/* The candidate is the first entry under the hash's tag (what a lookup compares first): the one
 * inserted first of those sharing a hash, one whose hash differs only in the bits the slots do
 * not keep, or 0 when no entry has the tag. */
static void test_candidate(void **state)
{
	struct t2f_hashmap *m = map_new(0);

	(void)state;
	assert_int_equal(t2f_hashmap__candidate(m, t2f_hash_u64(1)), 0);
	assert_int_equal(t2f_hashmap__insert(m, t2f_hash_u64(1), 5), 0);
	assert_int_equal(t2f_hashmap__insert(m, t2f_hash_u64(1), 6), 0);
	assert_int_equal(t2f_hashmap__insert(m, t2f_hash_u64(2), 7), 0);
	assert_int_equal(t2f_hashmap__candidate(m, t2f_hash_u64(1)), 5);
	assert_int_equal(t2f_hashmap__candidate(m, t2f_hash_u64(2)), 7);
	assert_int_equal(t2f_hashmap__candidate(m, t2f_hash_u64(3)), 0);
	/* the same tag (high half), another low half: still the candidate */
	assert_int_equal(t2f_hashmap__insert(m, 0xaaaaaaaa00000001ULL, 8), 0);
	assert_int_equal(t2f_hashmap__candidate(m, 0xaaaaaaaa00000002ULL), 8);
	t2f_hashmap__free(m);
}

static void test_growth_to_1m(void **state)
{
	enum { N = 1000000 };
	struct t2f_hashmap *m = map_new(16);
	uint64_t *k = malloc((N + 1) * sizeof(*k));
	struct keys ks = { k, N };

	(void)state;
	assert_non_null(k);
	for (uint32_t v = 1; v <= N; v++) {
		k[v] = (uint64_t)v * 0x9e3779b97f4a7c15ULL;
		assert_int_equal(t2f_hashmap__insert(m, t2f_hash_u64(k[v]), v), 0);
	}
	assert_int_equal(t2f_hashmap__count(m), N);
	for (uint32_t v = 1; v <= N; v++)
		if (find(m, &ks, t2f_hash_u64(k[v]), k[v]) != v)
			fail_msg("value %u not found after growth", v);
	for (uint64_t x = 1; x <= 1000; x++)
		assert_int_equal(find(m, &ks, t2f_hash_u64(x * 3 + 1), x * 3 + 1), 0);
	t2f_hashmap__free(m);
	free(k);
}

/* Inserts 1..n and finds each again: 0, or the first value not found. */
static uint32_t grow_and_find(uint32_t n)
{
	struct t2f_hashmap *m = NULL;
	uint64_t *k = malloc(((size_t)n + 1) * sizeof(*k));
	struct keys ks = { k, n };
	uint32_t bad = 0;

	if (!k || t2f_hashmap__new(16, &m))
		return 1;
	for (uint32_t v = 1; v <= n; v++) {
		k[v] = (uint64_t)v * 0x9e3779b97f4a7c15ULL;
		if (t2f_hashmap__insert(m, t2f_hash_u64(k[v]), v))
			return v;
	}
	for (uint32_t v = 1; v <= n && !bad; v++)
		if (find(m, &ks, t2f_hash_u64(k[v]), k[v]) != v)
			bad = v;
	t2f_hashmap__free(m);
	free(k);
	return bad;
}

/* Where no address space can be reserved (RLIMIT_AS a little above what the process maps), a
 * table past 2 MiB of slots is malloc'd and copied as it grows, and still finds every key. In a
 * child, whose limit is its own. Not under AddressSanitizer, whose shadow needs the address
 * space. */
static void test_growth_without_reservations(void **state)
{
	pid_t pid;
	int status = 0;

	(void)state;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	skip();
#endif
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		FILE *f = fopen("/proc/self/statm", "r");
		unsigned long pages = 0;
		struct rlimit lim;

		if (!f || fscanf(f, "%lu", &pages) != 1)
			_exit(2);
		fclose(f);
		lim.rlim_cur = lim.rlim_max = pages * (unsigned long)sysconf(_SC_PAGESIZE) +
					      ((rlim_t)512 << 20);
		if (setrlimit(RLIMIT_AS, &lim) != 0)
			_exit(3);
		if (mmap(NULL, (size_t)32 << 30, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			 -1, 0) != MAP_FAILED)
			_exit(4); /* the limit does not hold: nothing is tested */
		_exit(grow_and_find(1000000) ? 1 : 0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* Tables of 2 MiB of slots or more grow in place (their entries rehashed within the grown
 * mapping). Every such growth here meets a run that wraps past the last slot: a key in 512
 * shares one tag of all ones, whose home is the last slot at every size, and the rest are
 * spread. After every growth, each key is found and absent ones are not. */
/* Inserts 1..N (one in 512 with a tag of all ones: a run that wraps past the last slot),
 * checking every value and some absent keys once each count in checks is reached (just past a
 * doubling). */
static void grow_wrapping(struct t2f_hashmap *m, const uint32_t *checks, size_t n_checks)
{
	enum { N = 1600000 };
	uint64_t *k = malloc((N + 1) * sizeof(*k)), *h = malloc((N + 1) * sizeof(*h));
	struct keys ks = { k, 0 };
	uint32_t v = 1;

	assert_non_null(k);
	assert_non_null(h);
	for (size_t c = 0; c < n_checks; c++) {
		for (; v <= checks[c]; v++) {
			k[v] = (uint64_t)v * 0x9e3779b97f4a7c15ULL;
			h[v] = v % 512 ? t2f_hash_u64(k[v]) : 0xffffffff00000000ULL | v;
			assert_int_equal(t2f_hashmap__insert(m, h[v], v), 0);
		}
		ks.n = v - 1;
		for (uint32_t w = 1; w < v; w++)
			if (find(m, &ks, h[w], k[w]) != w)
				fail_msg("value %u of %u not found after growth", w, v - 1);
		for (uint64_t x = 1; x <= 1000; x++) {
			assert_int_equal(find(m, &ks, t2f_hash_u64(x * 3 + 1), x * 3 + 1), 0);
			assert_int_equal(find(m, &ks, 0xffffffff00000000ULL | x, x * 3 + 1), 0);
		}
	}
	assert_int_equal(t2f_hashmap__count(m), checks[n_checks - 1]);
	t2f_hashmap__free(m);
	free(h);
	free(k);
}

static void test_growth_in_place_wrapping(void **state)
{
	static const uint32_t checks[] = { 196609, 393217, 786433, 1572865, 1600000 };

	(void)state;
	grow_wrapping(map_new(16), checks, sizeof(checks) / sizeof(checks[0]));
}

/* A map told to grow in whole huge pages moves its slots into a reservation at its first
 * doubling past 1 MiB (131,072 slots: at 98,305 entries), then grows there in place: every key
 * is found, and absent ones are not, after each step. */
static void test_growth_whole(void **state)
{
	static const uint32_t checks[] = { 98304, 98305, 196609, 393217 };
	struct t2f_hashmap *m = map_new(16);

	(void)state;
	t2f_hashmap__grow_whole(m);
	grow_wrapping(m, checks, sizeof(checks) / sizeof(checks[0]));
}

/* A dense map doubles at 7/8 once its slots take 2 MiB (262,144 of 8 bytes), at 3/4 below. */
static void test_growth_dense(void **state)
{
	static const uint32_t checks[] = { 98305, 196609, 229377, 458753, 917505, 1600000 };
	struct t2f_hashmap *m = NULL;

	(void)state;
	assert_int_equal(t2f_hashmap__new_dense(16, &m), 0);
	grow_wrapping(m, checks, sizeof(checks) / sizeof(checks[0]));
}

static void test_hash_bytes(void **state)
{
	char a[40], b[40];

	(void)state;
	/* deterministic, independent of where the bytes live */
	memcpy(a, "0123456789abcdefghij", 21);
	memcpy(b + 3, "0123456789abcdefghij", 21);
	assert_true(t2f_hash_bytes(a, 20) == t2f_hash_bytes(b + 3, 20));
	/* sensitive to every byte and to the length */
	b[3 + 19] = 'J';
	assert_true(t2f_hash_bytes(a, 20) != t2f_hash_bytes(b + 3, 20));
	assert_true(t2f_hash_bytes("a", 1) != t2f_hash_bytes("b", 1));
	assert_true(t2f_hash_bytes("", 0) != t2f_hash_bytes("\0", 1));
	assert_true(t2f_hash_bytes("abc", 3) != t2f_hash_bytes("abc\0", 4));
	assert_true(t2f_hash_bytes("abcdefgh", 8) != t2f_hash_bytes("abcdefgh\0", 9));
	assert_true(t2f_hash_u64(1) != t2f_hash_u64(2));
	assert_true(t2f_hash_u64(0) == t2f_hash_u64(0));
}

/* A cleared map finds nothing, counts nothing, and takes values again (its slots kept). */
static void test_clear(void **state)
{
	struct t2f_hashmap *m = map_new(0);
	uint64_t k[2001];
	struct keys ks = { k, 2000 };

	(void)state;
	for (uint32_t v = 1; v <= 2000; v++) {
		k[v] = v;
		assert_int_equal(t2f_hashmap__insert(m, t2f_hash_u64(k[v]), v), 0);
	}
	t2f_hashmap__clear(m);
	assert_int_equal(t2f_hashmap__count(m), 0);
	for (uint32_t v = 1; v <= 2000; v++)
		assert_int_equal(find(m, &ks, t2f_hash_u64(k[v]), k[v]), 0);
	for (uint32_t v = 1; v <= 10; v++) {
		k[v] = v + 5000;
		assert_int_equal(t2f_hashmap__insert(m, t2f_hash_u64(k[v]), v), 0);
	}
	ks.n = 10;
	assert_int_equal(t2f_hashmap__count(m), 10);
	for (uint32_t v = 1; v <= 10; v++)
		assert_int_equal(find(m, &ks, t2f_hash_u64(k[v]), k[v]), v);
	t2f_hashmap__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_insert_find_with_key_array),
		cmocka_unit_test(test_clear),
		cmocka_unit_test(test_forced_collisions),
		cmocka_unit_test(test_hash_filters_before_eq),
		cmocka_unit_test(test_candidate),
		cmocka_unit_test(test_growth_to_1m),
		cmocka_unit_test(test_growth_without_reservations),
		cmocka_unit_test(test_growth_in_place_wrapping),
		cmocka_unit_test(test_growth_whole),
		cmocka_unit_test(test_growth_dense),
		cmocka_unit_test(test_hash_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
