/* formats/profile_batch.c: frames and stacks of many samples at once (formats/profile.h), their
 * lookups interleaved so that their cache misses overlap.
 *
 * A whole-machine recording's tables (frames, stack nodes, cells and their indexes) are larger
 * than the CPU's caches, and each lookup of a stack's walk needs the one before it: one sample
 * at a time, every step waits for memory. Here the walks of several samples go step by step
 * side by side, each step in three passes (the index slot asked for, then the node its tag
 * names, then the comparison), and a walk leaves at its first node not found. What is left is
 * then added in sample order, root first, by t2f_profile__child: the nodes found first existed
 * before the batch, so every node gets the id one sample at a time would give it.
 */
#include "formats/profile.h"

#include "formats/hashmap.h"
#include "formats/profile_int.h"

#define STACK_LANES 16 /* walks side by side */
#define FRAME_AHEAD 8  /* frames asked for ahead of their lookup */

int t2f_profile__frames(struct t2f_profile *p, size_t n, const struct t2f_frame *f,
			t2f_frame_id *out)
{
	uint64_t ring[FRAME_AHEAD];
	int err = t2f_profile__indexes(p);

	for (size_t i = 0; i < n + FRAME_AHEAD && !err; i++) {
		if (i < n) {
			struct t2f_frame key = t2f_profile__frame_key(&f[i]);

			ring[i % FRAME_AHEAD] = t2f_profile__frame_hash(&key);
			t2f_hashmap__prefetch(p->frame_ix, ring[i % FRAME_AHEAD]);
		}
		if (i >= FRAME_AHEAD / 2 && i - FRAME_AHEAD / 2 < n) {
			uint32_t c = t2f_hashmap__candidate(p->frame_ix,
							    ring[(i - FRAME_AHEAD / 2) % FRAME_AHEAD]);

			if (c && c < p->frames.len)
				__builtin_prefetch(VEC_AT(p->frames, struct t2f_frame, c));
		}
		if (i >= FRAME_AHEAD - 1 && i - (FRAME_AHEAD - 1) < n)
			err = t2f_profile__frame(p, &f[i - (FRAME_AHEAD - 1)],
						 &out[i - (FRAME_AHEAD - 1)]);
	}
	return err;
}

/* Walks the lanes [0, m) as far as the trie already goes: out[i] the deepest node found,
 * pos[i] and left[i] the frame it stopped at and how many remain. */
static void walk_found(const struct t2f_profile *p, size_t m, const t2f_frame_id *frames,
		       size_t *pos, uint32_t *left, t2f_node_id *out)
{
	uint64_t h[STACK_LANES];
	unsigned act[STACK_LANES];
	size_t na = 0;

	for (size_t i = 0; i < m; i++)
		if (left[i])
			act[na++] = (unsigned)i;
	while (na) {
		size_t keep = 0;

		for (size_t k = 0; k < na; k++) {
			unsigned i = act[k];

			h[i] = t2f_profile__node_hash(out[i], frames[pos[i]]);
			t2f_hashmap__prefetch(p->node_ix, h[i]);
		}
		for (size_t k = 0; k < na; k++) {
			uint32_t c = t2f_hashmap__candidate(p->node_ix, h[act[k]]);

			if (c && c < p->nodes.len)
				__builtin_prefetch(VEC_AT(p->nodes, struct node, c));
		}
		for (size_t k = 0; k < na; k++) {
			unsigned i = act[k];
			uint32_t id = t2f_profile__node_find(p, out[i], frames[pos[i]], h[i]);

			if (!id)
				continue;
			out[i] = id;
			pos[i]++;
			if (--left[i])
				act[keep++] = i;
		}
		na = keep;
	}
}

int t2f_profile__stacks(struct t2f_profile *p, size_t n, const uint32_t *len,
			const t2f_frame_id *frames, t2f_node_id *out)
{
	size_t at = 0;
	int err = t2f_profile__indexes(p);

	for (size_t g = 0; g < n && !err; g += STACK_LANES) {
		size_t m = n - g < STACK_LANES ? n - g : STACK_LANES;
		size_t pos[STACK_LANES];
		uint32_t left[STACK_LANES];

		for (size_t i = 0; i < m; i++) {
			pos[i] = at;
			left[i] = len[g + i];
			at += len[g + i];
			out[g + i] = 0;
		}
		walk_found(p, m, frames, pos, left, out + g);
		for (size_t i = 0; i < m && !err; i++)
			for (; left[i] && !err; left[i]--)
				err = t2f_profile__child(p, out[g + i], frames[pos[i]++], &out[g + i]);
	}
	return err;
}

void t2f_profile__prefetch_child(const struct t2f_profile *p, t2f_node_id parent,
				 t2f_frame_id frame)
{
	if (p->node_ix)
		t2f_hashmap__prefetch(p->node_ix, t2f_profile__node_hash(parent, frame));
}

void t2f_profile__prefetch_cell(const struct t2f_profile *p, t2f_node_id node,
				t2f_thread_id cell_thread, t2f_event_id event, bool entry)
{
	uint64_t h;
	uint32_t c;

	if (!p->cell_ix)
		return;
	h = t2f_profile__cell_hash(node, cell_thread, event);
	if (!entry) {
		t2f_hashmap__prefetch(p->cell_ix, h);
		return;
	}
	c = t2f_hashmap__candidate(p->cell_ix, h);
	if (c && c - 1 < p->cells.len)
		__builtin_prefetch(VEC_AT(p->cells, struct t2f_cell, c - 1), 1);
}
