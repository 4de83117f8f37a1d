/* formats/bits.h: sets of ids as arrays of 64-bit words (bit i of words[i / 64]); the caller
 * owns and sizes the words (n / 64 + 1 for ids 0..n). No threads of its own. */
#ifndef T2F_BITS_H
#define T2F_BITS_H

#include <stdbool.h>
#include <stdint.h>

static inline bool t2f_bit_get(const uint64_t *words, uint64_t i)
{
	return words[i / 64] >> (i % 64) & 1;
}

static inline void t2f_bit_set(uint64_t *words, uint64_t i)
{
	words[i / 64] |= (uint64_t)1 << (i % 64);
}

#endif
