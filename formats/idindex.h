/* formats/idindex.h: records found by key. An array of fixed-size records with dense ids from 1
 * (record id is at position id - 1) and a hash index over them (formats/hashmap.h): the caller
 * hashes a key and answers whether the record behind an id equals it. One array and one index
 * where readers kept an array, its count, its capacity, its growth and a hashmap each.
 *
 * Ownership: the index owns its records (copied in by __add); pointers from __at stay valid
 * until the next __add. Not thread safe.
 */
#ifndef T2F_IDINDEX_H
#define T2F_IDINDEX_H

#include <stddef.h>
#include <stdint.h>

#include "formats/hashmap.h"

struct t2f_idindex {
	void *items;               /* records, `size` bytes each */
	uint32_t n, cap;           /* in use, allocated */
	size_t size;
	struct t2f_hashmap *ix;
};

/* An empty index of `size`-byte records, room for about `hint`. 0 or -ENOMEM. */
int t2f_idindex__init(struct t2f_idindex *x, size_t size, size_t hint);
/* Frees the records and the index; the struct may be zeroed or initialized. */
void t2f_idindex__release(struct t2f_idindex *x);

/* The id of the record whose key equals ctx's (eq(ctx, id)), or 0. */
static inline uint32_t t2f_idindex__find(const struct t2f_idindex *x, uint64_t hash,
					 t2f_hashmap_eq_fn eq, const void *ctx)
{
	return t2f_hashmap__find(x->ix, hash, eq, ctx);
}

/* Appends a copy of *item under hash (the caller found none equal); its id in *id.
 * 0, -ENOMEM, or -T2F_ERR_LIMIT (2^31 records). */
int t2f_idindex__add(struct t2f_idindex *x, uint64_t hash, const void *item, uint32_t *id);

/* Record id (1 ≤ id ≤ n). */
static inline void *t2f_idindex__at(const struct t2f_idindex *x, uint32_t id)
{
	return (char *)x->items + (size_t)(id - 1) * x->size;
}

#endif
