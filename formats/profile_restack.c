/* formats/profile_restack.c: t2f_profile__new_stacks and t2f_profile__restack
 * (formats/profile.h): a profile's cells moved onto another set of stacks. */
#include "formats/profile.h"

#include <errno.h>
#include <stdlib.h>

#include "formats/hashmap.h"
#include "formats/profile_int.h"
#include "formats/sample_log.h"

/* *ix (empty) replaced by an index made for n entries. */
static int presize(struct t2f_hashmap **ix, size_t n)
{
	struct t2f_hashmap *m;
	int err = t2f_hashmap__new(n, &m);

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
		err = presize(&q->frame_ix, p->frames.len) ?: presize(&q->node_ix, p->nodes.len) ?:
		      presize(&q->cell_ix, p->cells.len);
	err = err ?: p->log ? t2f_sample_log__new(&q->log) : 0;
	if (err) {
		t2f_profile__free(q);
		return err;
	}
	*out = q;
	return 0;
}

static void swap_vec(struct vec *a, struct vec *b)
{
	struct vec t = *a;

	*a = *b;
	*b = t;
}

static void swap_ix(struct t2f_hashmap **a, struct t2f_hashmap **b)
{
	struct t2f_hashmap *t = *a;

	*a = *b;
	*b = t;
}

/* p's cells into q's table at their new nodes; cell_map[i]: where p's cell i went. */
static int restack_cells(struct t2f_profile *p, struct t2f_profile *q, const t2f_node_id *map,
			 uint32_t *cell_map)
{
	int err;

	for (size_t i = 0; i < p->cells.len; i++) {
		const struct t2f_cell *c = VEC_AT(p->cells, struct t2f_cell, i);

		err = t2f_profile__cell_add(q, map[c->node], c->thread, c->event, c->samples,
					    c->weight, &cell_map[i]);
		if (err)
			return err;
	}
	return 0;
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
	uint32_t *cell_map = malloc((p->cells.len + 1) * sizeof(*cell_map));
	int err;

	if (!cell_map)
		return -ENOMEM;
	err = restack_cells(p, stacks, map, cell_map) ?: restack_log(p, stacks, cell_map);
	free(cell_map);
	if (err)
		return err;
	p->capped |= stacks->capped;
	struct t2f_sample_log *log = p->log;

	swap_vec(&p->frames, &stacks->frames);
	swap_vec(&p->nodes, &stacks->nodes);
	swap_vec(&p->cells, &stacks->cells);
	swap_ix(&p->frame_ix, &stacks->frame_ix);
	swap_ix(&p->node_ix, &stacks->node_ix);
	swap_ix(&p->cell_ix, &stacks->cell_ix);
	p->log = stacks->log;
	stacks->log = log;
	return 0;
}
