/* formats/radix.c: a stable LSD radix sort of (key, value) pairs (radix.h). */
#include "formats/radix.h"

#include <string.h>

#define DIGIT_BITS 8
#define BINS (1u << DIGIT_BITS)

/* One pass on the digit at `shift`: src into dst, stably. */
static void pass(const struct t2f_radix_pair *src, struct t2f_radix_pair *dst, size_t n,
		 unsigned shift)
{
	size_t at[BINS] = { 0 }, sum = 0;

	for (size_t i = 0; i < n; i++)
		at[(src[i].key >> shift) & (BINS - 1)]++;
	for (unsigned b = 0; b < BINS; b++) {
		size_t c = at[b];

		at[b] = sum;
		sum += c;
	}
	for (size_t i = 0; i < n; i++)
		dst[at[(src[i].key >> shift) & (BINS - 1)]++] = src[i];
}

void t2f_radix__sort(struct t2f_radix_pair *p, struct t2f_radix_pair *scratch, size_t n)
{
	struct t2f_radix_pair *src = p, *dst = scratch, *t;
	uint64_t all = 0, any = 0;

	if (n < 2)
		return;
	all = ~all;
	for (size_t i = 0; i < n; i++) {
		all &= p[i].key;
		any |= p[i].key;
	}
	for (unsigned shift = 0; shift < 64; shift += DIGIT_BITS) {
		if ((((all ^ any) >> shift) & (BINS - 1)) == 0) /* one digit for every key */
			continue;
		pass(src, dst, n, shift);
		t = src;
		src = dst;
		dst = t;
	}
	if (src != p)
		memcpy(p, src, n * sizeof(*p));
}
