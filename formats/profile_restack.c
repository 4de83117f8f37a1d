/* formats/profile_restack.c: t2f_profile__new_stacks and t2f_profile__restack
 * (formats/profile.h): a profile's cells moved onto another set of stacks. */
#include "formats/profile.h"

#include <errno.h>
#include <stdlib.h>

#include "formats/hashmap.h"
#include "formats/mem.h"
#include "formats/sat.h"
#include "formats/profile_int.h"
#include "formats/sample_log.h"

/* *ix (empty) replaced by an index made for n entries (dense: t2f_hashmap__new_dense). */
static int presize(struct t2f_hashmap **ix, size_t n, bool dense)
{
	struct t2f_hashmap *m;
	int err = dense ? t2f_hashmap__new_dense(n, &m) : t2f_hashmap__new(n, &m);

	if (err)
		return err;
	t2f_hashmap__free(*ix);
	*ix = m;
	return 0;
}

int t2f_profile__new_stacks(struct t2f_profile *p, bool as_many, struct t2f_profile **out)
{
	struct t2f_profile *q;
	int err = t2f_profile__new(&q);

	if (err)
		return err;
	t2f_strtab__free(q->strings);
	q->strings = p->strings;
	q->borrowed = true;
	q->frame_limit = p->frame_limit;
	if (as_many)
		err = presize(&q->frame_ix, p->frames.len, false);
	err = err ?: p->log ? t2f_sample_log__new(&q->log) : 0;
	if (err) {
		t2f_profile__free(q);
		return err;
	}
	*out = q;
	return 0;
}

void t2f_profile__forget_nodes_below(struct t2f_profile *p, t2f_node_id below)
{
	if (below > 1 && below <= p->nodes.len)
		t2f_mem__forget(p->nodes.data, (size_t)below * sizeof(struct node));
}

int t2f_profile__presize_nodes(struct t2f_profile *q, size_t n)
{
	return q->nodes.len > 1 ? -EINVAL : presize(&q->node_ix, n, true);
}

static void swap_vec(struct vec *a, struct vec *b)
{
	struct vec t = *a;

	*a = *b;
	*b = t;
}

#define SHARED UINT32_MAX /* owner: a new node two old nodes with cells moved to */

/* The cells meeting p's cell i at its new node: i's new node, thread and event. */
struct meet_probe {
	const struct t2f_profile *p;
	const t2f_node_id *map;
	size_t i;
};

static bool meet_eq(const void *ctx, uint32_t value)
{
	const struct meet_probe *k = ctx;
	const struct t2f_cell *a = VEC_AT(k->p->cells, struct t2f_cell, value - 1);
	const struct t2f_cell *b = VEC_AT(k->p->cells, struct t2f_cell, k->i);

	return k->map[a->node] == k->map[b->node] && a->thread == b->thread &&
	       a->event == b->event;
}

static uint64_t meet_hash(const struct t2f_profile *p, const t2f_node_id *map, size_t i)
{
	const struct t2f_cell *c = VEC_AT(p->cells, struct t2f_cell, i);

	return t2f_profile__cell_hash(map[c->node], c->thread, c->event);
}

/* Per new node (n_new + 1 of them): the old node (+ 1) whose cells moved there, or SHARED when
 * cells of two old nodes did; *shared: the cells at SHARED nodes. NULL when out of memory. */
static uint32_t *cell_owners(const struct t2f_profile *p, const t2f_node_id *map, size_t n_new,
			     size_t *shared)
{
	uint32_t *owner = calloc(n_new + 1, sizeof(*owner));

	*shared = 0;
	for (size_t i = 0; owner && i < p->cells.len; i++) {
		const struct t2f_cell *c = VEC_AT(p->cells, struct t2f_cell, i);
		uint32_t *o = &owner[map[c->node]];

		if (*o == 0)
			*o = c->node + 1;
		else if (*o != c->node + 1)
			*o = SHARED;
	}
	for (size_t i = 0; owner && i < p->cells.len; i++)
		*shared += owner[map[VEC_AT(p->cells, struct t2f_cell, i)->node]] == SHARED;
	return owner;
}

/* Where each of p's cells goes (cell_map[i]), changing nothing: in p's cell order, a cell that
 * meets none before it takes the next place, one that does the place of the first it meets.
 * Cells meet only at a node cells of two old nodes moved to (an old node's cells differ in
 * thread or event): only those are looked up. *kept: the cells left. 0 or -ENOMEM. */
static int cell_places(const struct t2f_profile *p, const t2f_node_id *map, size_t n_new,
		       uint32_t *cell_map, size_t *kept)
{
	struct t2f_hashmap *meet = NULL;
	size_t shared;
	uint32_t *owner = cell_owners(p, map, n_new, &shared);
	int err = owner ? t2f_hashmap__new(shared, &meet) : -ENOMEM;

	*kept = 0;
	for (size_t i = 0; !err && i < p->cells.len; i++) {
		const struct t2f_cell *c = VEC_AT(p->cells, struct t2f_cell, i);
		struct meet_probe k = { p, map, i };
		uint64_t h;
		uint32_t first;

		if (owner[map[c->node]] != SHARED) {
			cell_map[i] = (uint32_t)(*kept)++;
			continue;
		}
		h = meet_hash(p, map, i);
		first = t2f_hashmap__find(meet, h, meet_eq, &k);
		if (first) {
			cell_map[i] = cell_map[first - 1];
			continue;
		}
		err = t2f_hashmap__insert(meet, h, (uint32_t)i + 1);
		cell_map[i] = (uint32_t)(*kept)++;
	}
	t2f_hashmap__free(meet);
	free(owner);
	return err;
}

/* p's cells moved to their places (cell_places) in their own table: each kept cell at its new
 * node, the others added up into it. */
static void cells_move(struct t2f_profile *p, const t2f_node_id *map, const uint32_t *cell_map,
		       size_t kept)
{
	size_t next = 0;

	for (size_t i = 0; i < p->cells.len; i++) {
		struct t2f_cell *c = VEC_AT(p->cells, struct t2f_cell, i);
		struct t2f_cell *to = VEC_AT(p->cells, struct t2f_cell, cell_map[i]);

		if (cell_map[i] == next) { /* at or before i: a forward copy */
			*to = *c;
			to->node = map[c->node];
			next++;
			continue;
		}
		to->samples = t2f_sat_add(to->samples, c->samples);
		if (!t2f_sat_add_to(&to->weight, c->weight))
			p->capped = true;
	}
	p->cells.len = kept;
}

static int restack_log(struct t2f_profile *p, struct t2f_profile *q, const uint32_t *cell_map)
{
	uint32_t *threads;
	int err;

	if (!p->log)
		return 0;
	threads = malloc(p->threads.len * sizeof(*threads));
	if (!threads)
		return -ENOMEM;
	for (size_t t = 0; t < p->threads.len; t++)
		threads[t] = (uint32_t)t;
	err = t2f_sample_log__take(q->log, p->log, cell_map, p->cells.len, threads);
	free(threads);
	return err;
}

int t2f_profile__restack(struct t2f_profile *p, struct t2f_profile *stacks,
			 const t2f_node_id *map)
{
	uint32_t *cell_map;
	size_t kept = 0;
	int err;

	t2f_profile__sums_drop(p);
	cell_map = malloc((p->cells.len + 1) * sizeof(*cell_map));
	err = cell_map ? 0 : -ENOMEM;

	err = err ?: cell_places(p, map, t2f_profile__node_count(stacks), cell_map, &kept) ?:
	      restack_log(p, stacks, cell_map);
	if (err) {
		free(cell_map);
		return err;
	}
	cells_move(p, map, cell_map, kept);
	free(cell_map);
	p->capped |= stacks->capped;
	struct t2f_sample_log *log = p->log;

	/* p's indexes are of its old stacks, stacks' of frames and nodes alone: both go, and the
	 * next lookup builds p's again (writers make none) */
	t2f_profile__drop_indexes(p);
	t2f_profile__drop_indexes(stacks);
	swap_vec(&p->frames, &stacks->frames);
	swap_vec(&p->nodes, &stacks->nodes);
	p->log = stacks->log;
	stacks->log = log;
	return 0;
}
