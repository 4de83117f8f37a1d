/* formats/hashmap.h: open-addressing index from a 64-bit hash to dense u32 values (ids).
 *
 * The map stores only (hash, value); the caller owns the keys (usually an array indexed by the
 * value) and answers equality through a callback. That keeps one copy of each key and lets ids be
 * array indexes. Value 0 is reserved (means "absent"). Not thread safe.
 */
#ifndef T2F_HASHMAP_H
#define T2F_HASHMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* True when the caller's key behind `value` equals the key being looked up (in ctx). */
typedef bool (*t2f_hashmap_eq_fn)(const void *ctx, uint32_t value);

struct t2f_hashmap;

int t2f_hashmap__new(size_t capacity_hint, struct t2f_hashmap **out); /* 0 or -ENOMEM */
/* A map kept ≤ 7/8 full, not 3/4, once its slots take 2 MiB or more: less memory for longer
 * probe runs, for a large index whose lookups mostly find their key (a profile's stack
 * nodes). 0 or -ENOMEM. */
int t2f_hashmap__new_dense(size_t capacity_hint, struct t2f_hashmap **out);
void t2f_hashmap__free(struct t2f_hashmap *m); /* NULL is fine */
/* From its next doubling on, once its slots take 1 MiB, m grows in place in a reservation of
 * its own committed in whole huge pages (formats/mem.h): for an index that is known to grow
 * large (a profile that others are merged into), at the cost of up to 2 MiB unused. */
void t2f_hashmap__grow_whole(struct t2f_hashmap *m);
/* Removes every value, keeping the slots (a map used again for keys of the same kind). */
void t2f_hashmap__clear(struct t2f_hashmap *m);

/* The value whose key equals ctx's, or 0. */
uint32_t t2f_hashmap__find(const struct t2f_hashmap *m, uint64_t hash, t2f_hashmap_eq_fn eq,
			   const void *ctx);
/* Asks the CPU to load the slot where a lookup of hash starts (a hint: a loop of independent
 * lookups calls it some iterations ahead, so their cache misses overlap). */
void t2f_hashmap__prefetch(const struct t2f_hashmap *m, uint64_t hash);
/* The value of the first entry whose hash's tag matches hash's, or 0: the likely answer of a
 * lookup, whose key a loop can ask the CPU for once the slot itself is there (after
 * __prefetch). */
uint32_t t2f_hashmap__candidate(const struct t2f_hashmap *m, uint64_t hash);
/* Adds value (≠ 0) under hash; the caller has checked it is absent. 0 or -ENOMEM. */
int t2f_hashmap__insert(struct t2f_hashmap *m, uint64_t hash, uint32_t value);
size_t t2f_hashmap__count(const struct t2f_hashmap *m);

/* Fast 64-bit hashes (not cryptographic). */
uint64_t t2f_hash_bytes(const void *p, size_t len);
static inline uint64_t t2f_hash_u64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

#endif
