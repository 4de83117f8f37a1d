/* readers/perf_script_blocks.c: kept callers blocks (perf_script_blocks.h).
 *
 * Blocks with the same first PS_BLOCK_KEY bytes (by hash) form a set of up to PS_BLOCK_WAYS
 * (indexes into blocks, 1-based; `next` is the way the next block replaces). Copied bytes live
 * in an arena.
 */
#include "readers/perf_script_blocks.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats/arena.h"
#include "formats/grow.h"
#include "formats/hashmap.h"

struct block_set {
	uint64_t hash;
	uint32_t way[PS_BLOCK_WAYS];
	uint8_t next;
};

struct ps_blocks {
	struct t2f_arena *arena;
	size_t bytes;
	struct ps_block *blocks;
	uint32_t n, cap;
	struct block_set *sets;   /* value v of ix is sets[v - 1] */
	uint32_t nsets, sets_cap;
	struct t2f_hashmap *ix;
	uint32_t tries, hits;     /* lookups and hits in the current window */
	bool adding;              /* blocks are being kept (the last window's verdict) */
};

int ps_blocks__new(struct ps_blocks **out)
{
	struct ps_blocks *b = calloc(1, sizeof(*b));

	if (!b || t2f_arena__new(&b->arena) || t2f_hashmap__new(1024, &b->ix)) {
		ps_blocks__free(b);
		return -ENOMEM;
	}
	b->adding = true;
	*out = b;
	return 0;
}

void ps_blocks__free(struct ps_blocks *b)
{
	if (!b)
		return;
	t2f_arena__free(b->arena);
	t2f_hashmap__free(b->ix);
	free(b->blocks);
	free(b->sets);
	free(b);
}

void ps_blocks__reset(struct ps_blocks *b)
{
	t2f_arena__reset(b->arena);
	t2f_hashmap__clear(b->ix);
	b->bytes = 0;
	b->n = b->nsets = 0;
	b->tries = b->hits = 0;
	b->adding = true;
}

struct set_probe {
	const struct ps_blocks *b;
	uint64_t hash;
};

static bool set_eq(const void *ctx, uint32_t v)
{
	const struct set_probe *q = ctx;

	return q->b->sets[v - 1].hash == q->hash;
}

/* Counts a lookup; at the end of a window, decides whether the next one keeps blocks. */
static const struct ps_block *counted(struct ps_blocks *b, const struct ps_block *k)
{
	b->hits += k != NULL;
	if (++b->tries == PS_BLOCK_WINDOW) {
		b->adding = b->hits * 4 >= b->tries;
		b->tries = b->hits = 0;
	}
	return k;
}

const struct ps_block *ps_blocks__find(struct ps_blocks *b, const char *s, size_t avail)
{
	struct set_probe q = { b, 0 };
	const struct block_set *set;
	uint32_t v;

	if (avail <= PS_BLOCK_KEY)
		return counted(b, NULL);
	q.hash = t2f_hash_bytes(s, PS_BLOCK_KEY);
	v = t2f_hashmap__find(b->ix, q.hash, set_eq, &q);
	if (!v)
		return counted(b, NULL);
	set = &b->sets[v - 1];
	for (unsigned w = 0; w < PS_BLOCK_WAYS && set->way[w]; w++) {
		const struct ps_block *k = &b->blocks[set->way[w] - 1];

		/* the bytes in order, then the line end: the input streams in, no jump ahead */
		if (k->len < avail && memcmp(k->text, s, k->len) == 0 && s[k->len] == '\n')
			return counted(b, k);
	}
	return counted(b, NULL);
}

/* The set of blocks starting with the key of hash `hash`, made if new; NULL on ENOMEM. */
static struct block_set *set_of(struct ps_blocks *b, uint64_t hash)
{
	struct set_probe q = { b, hash };
	uint32_t v = t2f_hashmap__find(b->ix, hash, set_eq, &q);

	if (v)
		return &b->sets[v - 1];
	if (t2f_grow32((void **)&b->sets, &b->sets_cap, b->nsets, sizeof(*b->sets), 1024))
		return NULL;
	if (t2f_hashmap__insert(b->ix, hash, b->nsets + 1))
		return NULL;
	b->sets[b->nsets] = (struct block_set){ .hash = hash };
	return &b->sets[b->nsets++];
}

static int push_block(struct ps_blocks *b, const struct ps_block *k)
{
	int err = t2f_grow32((void **)&b->blocks, &b->cap, b->n, sizeof(*b->blocks), 1024);

	if (err)
		return err;
	b->blocks[b->n++] = *k;
	return 0;
}

int ps_blocks__add(struct ps_blocks *b, const char *s, size_t len, uint32_t lines,
		   t2f_node_id node, bool borrow)
{
	struct ps_block k = { .text = s, .len = (uint32_t)len, .lines = lines, .node = node };
	struct block_set *set;
	int err;

	if (!b->adding || len < PS_BLOCK_KEY || len > UINT32_MAX || b->n >= UINT32_MAX - 1 ||
	    b->nsets >= UINT32_MAX - 1 || (!borrow && len > PS_BLOCK_BYTES - b->bytes))
		return 0;
	set = set_of(b, t2f_hash_bytes(s, PS_BLOCK_KEY));
	if (!set)
		return -ENOMEM;
	if (!borrow) {
		char *copy = t2f_arena__alloc(b->arena, len);

		if (!copy)
			return -ENOMEM;
		k.text = memcpy(copy, s, len);
		b->bytes += len;
	}
	err = push_block(b, &k);
	if (err)
		return err;
	set->way[set->next] = b->n;
	set->next = (uint8_t)((set->next + 1) % PS_BLOCK_WAYS);
	return 0;
}
