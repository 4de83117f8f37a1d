/* formats/radix.h: a stable LSD radix sort of (key, value) pairs.
 *
 * Only the key bits that differ between the pairs are sorted on, 8 at a time, so keys that
 * share their high bits (small ranks, text prefixes of one length) take few passes.
 *
 * Ownership: the caller's arrays. Errors: none. Threads: none of its own.
 */
#ifndef T2F_RADIX_H
#define T2F_RADIX_H

#include <stddef.h>
#include <stdint.h>

struct t2f_radix_pair {
	uint64_t key;
	uint64_t val;
};

/* Sorts p[0..n) by key, ascending, pairs of equal keys in their order; scratch holds n pairs
 * (its contents are left undefined). */
void t2f_radix__sort(struct t2f_radix_pair *p, struct t2f_radix_pair *scratch, size_t n);

#endif
