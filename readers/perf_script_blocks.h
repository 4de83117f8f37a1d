/* readers/perf_script_blocks.h (internal): the callers' lines of call chains seen before.
 *
 * A call-chain sample is a header, its leaf frame line, its callers' frame lines and an empty
 * line. The callers' lines of a hot path repeat byte for byte from sample to sample (the leaf's
 * address moves, the return addresses do not), so the perf script reader keeps each callers block
 * it parsed cleanly (no warning, no cut) with the stack node it led to; a later sample whose
 * callers' bytes equal a kept block takes that node without reading the block's lines again.
 * The result is the same as reading them: equal bytes parse to equal frames.
 *
 * Blocks are found by their first PS_BLOCK_KEY bytes (a frame line is longer: a tab, a
 * 16-column address, a blank and more), so a lookup needs neither the first line's end nor its
 * frame: up to PS_BLOCK_WAYS blocks per key, the oldest replaced; the whole block is compared. At most PS_BLOCK_BYTES bytes of blocks are kept;
 * past that none are added (lookups go on). Where call chains seldom repeat (addresses of code
 * without symbols, JIT code) keeping blocks costs more than it saves: lookups are counted in
 * windows of PS_BLOCK_WINDOW, and after a window with fewer than one hit in four, the next
 * window adds no blocks. Not thread safe.
 */
#ifndef T2F_PERF_SCRIPT_BLOCKS_H
#define T2F_PERF_SCRIPT_BLOCKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/profile.h"

#define PS_BLOCK_WAYS 4
#define PS_BLOCK_BYTES (8u << 20)
#define PS_BLOCK_WINDOW 4096
#define PS_BLOCK_KEY 20

struct ps_block {
	const char *text;   /* the block's lines, each with its '\n' */
	uint32_t len;
	uint32_t lines;
	t2f_node_id node;   /* the stack node of the callers, root first */
};

struct ps_blocks;

int ps_blocks__new(struct ps_blocks **out); /* 0 or -ENOMEM */
void ps_blocks__free(struct ps_blocks *b);  /* NULL is fine */
/* Forgets every block, as ps_blocks__new left b, keeping the memory. */
void ps_blocks__reset(struct ps_blocks *b);

/* A kept block that s[0..avail) starts with and that is followed there by an empty line
 * (s[len] == '\n'), or NULL. */
const struct ps_block *ps_blocks__find(struct ps_blocks *b, const char *s, size_t avail);

/* Keeps s[0..len) (`lines` whole lines) with `node`: a copy, or s itself when `borrow` (s then
 * stays readable and unchanged while b lives). 0 or -ENOMEM; a block shorter than the key or
 * too long, or a copy past PS_BLOCK_BYTES, is not kept (0). */
int ps_blocks__add(struct ps_blocks *b, const char *s, size_t len, uint32_t lines,
		   t2f_node_id node, bool borrow);

#endif
