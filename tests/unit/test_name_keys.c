/* tests/unit/test_name_keys.c: writers/name_keys.c (and formats/radix.c under it) against
 * whole texts sorted by memcmp.
 *
 * Names of up to 12 bytes drawn from a few bytes around ';' (NUL, ' ', ':', '<', 'a') after one
 * of a few long shared prefixes, so that many agree on their first 8 bytes and many are a
 * prefix of another; each name as an end and as going on. The order must be the one of the
 * texts (the name, then ';' when going on) compared bytewise, a prefix first. */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "writers/name_keys.h"

struct text {
	char s[24];
	size_t len;
};

/* The next of a fixed pseudo-random sequence (an LCG). */
static uint32_t lcg(uint32_t *seed)
{
	return *seed = *seed * 1103515245u + 12345u;
}

static int text_cmp(const struct text *x, const struct text *y)
{
	size_t n = x->len < y->len ? x->len : y->len;
	int r = memcmp(x->s, y->s, n);

	return r ? r : (x->len > y->len) - (x->len < y->len);
}

/* Sorts n random keys (distinct names) and checks their texts ascend strictly. */
static void check_random(uint32_t seed, size_t n)
{
	static const char bytes[] = { '\0', ' ', ':', '<', 'a' };
	static const char *const prefixes[] = { "", "a", "aaaaaaaa", "aaaa:aaaa<" };
	char (*names)[16] = calloc(n, sizeof(*names));
	size_t *lens = calloc(n, sizeof(*lens)), made = 0;
	struct t2f_name_key *k = calloc(2 * n, sizeof(*k));

	assert_non_null(names);
	assert_non_null(lens);
	assert_non_null(k);
	while (made < n) {
		const char *pre = prefixes[lcg(&seed) >> 16 & 3];
		size_t len = strlen(pre), extra = lcg(&seed) >> 16 & 3;
		bool dup = false;

		memcpy(names[made], pre, len);
		for (size_t i = 0; i < extra; i++)
			names[made][len++] = bytes[(lcg(&seed) >> 16) % 5];
		for (size_t j = 0; j < made && !dup; j++)
			dup = lens[j] == len && memcmp(names[j], names[made], len) == 0;
		if (dup)
			continue;
		lens[made] = len;
		k[2 * made] = (struct t2f_name_key){ names[made], (uint32_t)len, (uint32_t)made, false };
		k[2 * made + 1] = (struct t2f_name_key){ names[made], (uint32_t)len, (uint32_t)made,
							 true };
		made++;
	}
	assert_int_equal(t2f_name_keys__sort(k, 2 * n), 0);
	for (size_t i = 1; i < 2 * n; i++) {
		struct text a = { .len = k[i - 1].len + k[i - 1].on };
		struct text b = { .len = k[i].len + k[i].on };

		memcpy(a.s, k[i - 1].s, k[i - 1].len);
		memcpy(b.s, k[i].s, k[i].len);
		if (k[i - 1].on)
			a.s[k[i - 1].len] = ';';
		if (k[i].on)
			b.s[k[i].len] = ';';
		assert_true(text_cmp(&a, &b) < 0);
	}
	free(k);
	free(lens);
	free(names);
}

static void test_few(void **state)
{
	(void)state;
	for (uint32_t seed = 1; seed < 200; seed++)
		check_random(seed, 1 + seed % 8); /* 2 to 16 keys: compared whole */
}

static void test_many(void **state)
{
	(void)state;
	for (uint32_t seed = 1; seed < 20; seed++)
		check_random(seed, 40 + 7 * seed); /* radix on 8 bytes, runs compared whole */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_few),
		cmocka_unit_test(test_many),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
