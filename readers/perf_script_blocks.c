/* readers/perf_script_blocks.c: kept callers blocks (perf_script_blocks.h).
 *
 * ways[line] holds up to PS_BLOCK_WAYS indexes (1-based) into blocks; next[line] is the way the
 * next block of that line replaces. The bytes live in an arena.
 */
#include "readers/perf_script_blocks.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats/arena.h"

struct ps_blocks {
	struct t2f_arena *arena;
	size_t bytes;
	struct ps_block *blocks;
	uint32_t n, cap;
	uint32_t (*ways)[PS_BLOCK_WAYS];
	uint8_t *next;
	uint32_t lines_cap;     /* entries in ways and next */
	uint32_t tries, hits;   /* lookups and hits in the current window */
	bool adding;            /* blocks are being kept (the last window's verdict) */
};

int ps_blocks__new(struct ps_blocks **out)
{
	struct ps_blocks *b = calloc(1, sizeof(*b));

	if (!b || t2f_arena__new(&b->arena)) {
		free(b);
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
	free(b->blocks);
	free(b->ways);
	free(b->next);
	free(b);
}

bool ps_blocks__adding(const struct ps_blocks *b)
{
	return b->adding;
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

const struct ps_block *ps_blocks__find(struct ps_blocks *b, uint32_t line, const char *s,
				       size_t avail)
{
	if (line >= b->lines_cap)
		return counted(b, NULL);
	for (unsigned w = 0; w < PS_BLOCK_WAYS; w++) {
		uint32_t i = b->ways[line][w];
		const struct ps_block *k;

		if (!i)
			break;
		k = &b->blocks[i - 1];
		if (k->len < avail && s[k->len] == '\n' && memcmp(k->text, s, k->len) == 0)
			return counted(b, k);
	}
	return counted(b, NULL);
}

/* Room for line entry `line` in ways/next. */
static int grow_lines(struct ps_blocks *b, uint32_t line)
{
	uint32_t cap = b->lines_cap ? b->lines_cap : 1024;
	void *nw, *nn;

	while (cap <= line)
		cap *= 2;
	nw = realloc(b->ways, (size_t)cap * sizeof(*b->ways));
	if (!nw)
		return -ENOMEM;
	b->ways = nw;
	nn = realloc(b->next, cap);
	if (!nn)
		return -ENOMEM;
	b->next = nn;
	memset(b->ways + b->lines_cap, 0, (size_t)(cap - b->lines_cap) * sizeof(*b->ways));
	memset(b->next + b->lines_cap, 0, cap - b->lines_cap);
	b->lines_cap = cap;
	return 0;
}

static int push_block(struct ps_blocks *b, const struct ps_block *k)
{
	if (b->n == b->cap) {
		uint32_t cap = b->cap ? b->cap * 2 : 1024;
		struct ps_block *nb = realloc(b->blocks, (size_t)cap * sizeof(*nb));

		if (!nb)
			return -ENOMEM;
		b->blocks = nb;
		b->cap = cap;
	}
	b->blocks[b->n++] = *k;
	return 0;
}

int ps_blocks__add(struct ps_blocks *b, uint32_t line, const char *s, size_t len, uint32_t lines,
		   t2f_node_id node, bool borrow)
{
	struct ps_block k = { .text = s, .len = (uint32_t)len, .lines = lines, .node = node };
	uint8_t *way;
	int err;

	if (!b->adding || len == 0 || len > UINT32_MAX || b->n == UINT32_MAX - 1 ||
	    (!borrow && len > PS_BLOCK_BYTES - b->bytes))
		return 0;
	if (line >= b->lines_cap && (err = grow_lines(b, line)) != 0)
		return err;
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
	way = &b->next[line];
	b->ways[line][*way] = b->n;
	*way = (uint8_t)((*way + 1) % PS_BLOCK_WAYS);
	return 0;
}
