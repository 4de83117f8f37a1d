/* writers/name_keys.c: texts of names joined by ';', ordered a level at a time
 * (name_keys.h). Many keys are sorted on their texts' first 8 bytes by a radix sort, then the
 * runs that agree on those compared whole; a few by comparing them whole. */
#include "writers/name_keys.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats/radix.h"

#define FEW 16 /* keys sorted by insertion */

/* The byte of key k at i (i at or past its name's end), or -1 past its text's end. */
static int key_byte(const struct t2f_name_key *k, size_t i)
{
	if (i < k->len)
		return (unsigned char)k->s[i];
	return i == k->len && k->on ? ';' : -1;
}

static int key_cmp(const void *a, const void *b)
{
	const struct t2f_name_key *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int r = memcmp(x->s, y->s, n);

	if (r)
		return r;
	if (x->len == y->len) /* one name: its end before its going on */
		return (int)x->on - (int)y->on;
	/* one name is a prefix of the other: the next byte decides (no name holds a ';') */
	return key_byte(x, n) - key_byte(y, n);
}

static void insertion(struct t2f_name_key *k, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct t2f_name_key v = k[i];
		size_t j = i;

		for (; j > 0 && key_cmp(&k[j - 1], &v) > 0; j--)
			k[j] = k[j - 1];
		k[j] = v;
	}
}

static void sort_whole(struct t2f_name_key *k, size_t n)
{
	if (n <= FEW)
		insertion(k, n);
	else
		qsort(k, n, sizeof(*k), key_cmp);
}

/* The text's first 8 bytes, big-endian, zeros past its end: keys in this order are in the
 * text order, or agree on it (a text shorter than 8 bytes against one with zeros there too). */
static uint64_t key_prefix(const struct t2f_name_key *k)
{
	uint64_t v = 0;

	for (size_t i = 0; i < 8; i++) {
		int b = key_byte(k, i);

		v = v << 8 | (uint64_t)(b < 0 ? 0 : b);
		if (b < 0) {
			v <<= 8 * (7 - i);
			break;
		}
	}
	return v;
}

int t2f_name_keys__sort(struct t2f_name_key *k, size_t n)
{
	struct t2f_radix_pair *pairs;
	struct t2f_name_key *out;

	if (n <= FEW) {
		insertion(k, n);
		return 0;
	}
	pairs = malloc(2 * n * sizeof(*pairs) + n * sizeof(*out));
	if (!pairs)
		return -ENOMEM;
	out = (struct t2f_name_key *)(pairs + 2 * n);
	for (size_t i = 0; i < n; i++)
		pairs[i] = (struct t2f_radix_pair){ key_prefix(&k[i]), i };
	t2f_radix__sort(pairs, pairs + n, n);
	for (size_t i = 0; i < n; i++)
		out[i] = k[pairs[i].val];
	for (size_t i = 0, j; i < n; i = j) { /* runs of one prefix, compared whole */
		for (j = i + 1; j < n && pairs[j].key == pairs[i].key; j++)
			;
		sort_whole(out + i, j - i);
	}
	memcpy(k, out, n * sizeof(*k));
	free(pairs);
	return 0;
}
