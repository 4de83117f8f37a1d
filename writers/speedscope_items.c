/* writers/speedscope_items.c: a thread's items (its log's runs, or without a log its cells) as
 * the speedscope writer reads them, and pass 1 over them: each thread's weight, the stacks and
 * frames in use, the deepest stack (writers/speedscope.c has the passes). */
#include "writers/speedscope_int.h"

#include <errno.h>
#include <stdlib.h>

#include "formats/sat.h"

/* The cells as the items need them. */
int ss_cells(struct ss *s)
{
	size_t n = t2f_profile__cell_count(s->p);

	s->cells = malloc((n ? n : 1) * sizeof(*s->cells));
	if (!s->cells)
		return -ENOMEM;
	s->all_ours = true;
	for (size_t i = 0; i < n; i++) {
		const struct t2f_cell *c = t2f_profile__cell_at(s->p, i);
		bool ours = c->event == s->event && c->thread >= 1 && c->thread <= s->thread_count;

		s->cells[i] = (struct ss_cell){ c->node, ours ? c->thread : 0, c->samples, c->weight };
		s->all_ours &= ours;
	}
	return 0;
}

/* How many items thread t has. */
size_t ss_item_count(const struct ss *s, t2f_thread_id t)
{
	if (s->use_log)
		return t2f_profile__thread_run_count(s->p, t);
	return s->cell_start[t + 1] - s->cell_start[t];
}

/* Thread t's items [from, from + n). An item that is not a sample of the written event, or weighs
 * 0 (speedscope silently drops weight 0; periods of 0 cannot normally happen), gets weight 0. */
void ss_items(const struct ss *s, t2f_thread_id t, size_t from, size_t n,
		     struct ss_item *it)
{
	struct t2f_log_run runs[SS_BATCH];

	if (s->use_log) {
		t2f_profile__sample_runs(s->p, t, from, n, runs);
	} else {
		for (size_t i = 0; i < n; i++) {
			uint32_t cell = s->cell_bucket[s->cell_start[t] + from + i];

			runs[i] = (struct t2f_log_run){ cell, 0, s->cells[cell].weight };
		}
	}
	for (size_t i = 0; i < n; i++) {
		const struct ss_cell *c = &s->cells[runs[i].cell];

		it[i].node = c->node;
		it[i].weight = !c->thread ? 0 : !s->counts ? runs[i].weight :
			       s->use_log ? runs[i].samples : c->samples;
	}
}

/* Marks the frames of node and its ancestors as used (once per node) and tracks the depth. */
static void ss_mark_stack(struct ss *s, uint8_t *seen, t2f_node_id node)
{
	uint32_t depth = t2f_profile__node_depth(s->p, node);

	if (depth > s->max_depth)
		s->max_depth = depth;
	for (; node && !seen[node]; node = t2f_profile__node_parent(s->p, node)) {
		seen[node] = 1;
		s->frame_shared[t2f_profile__node_frame(s->p, node)] = 1;
	}
}

/* Counts items of `node` on thread t weighing `weight` in all. seen: 1 = the node's frames are
 * marked; 2 = also listed in item_nodes. */
static void ss_count(struct ss *s, uint8_t *seen, t2f_thread_id t, t2f_node_id node,
		     uint64_t weight)
{
	s->totals[t] = t2f_sat_add(s->totals[t], weight);
	if (seen[node] == 2)
		return;
	ss_mark_stack(s, seen, node);
	seen[node] = 2;
	s->item_nodes[s->item_node_count++] = node;
}

/* Without weight-0 samples, a thread's items are the samples of its cells: scanned from the
 * cells, not from every logged sample. When the cells count threads of one name together
 * (t2f_profile__fold_threads), each thread's total is its log's, which holds samples of the
 * written event alone when every cell does. */
static bool ss_cells_suffice(const struct ss *s)
{
	return s->use_log && (s->counts || !t2f_profile__weightless_samples(s->p)) &&
	       (!t2f_profile__folds_threads(s->p) || s->all_ours);
}

/* Each thread's total from its log (cells folded, every one of the written event). */
static void ss_log_totals(struct ss *s)
{
	for (t2f_thread_id t = 1; t <= s->thread_count; t++)
		s->totals[t] = s->counts ? t2f_profile__thread_sample_count(s->p, t) :
			       t2f_profile__thread_log_weight(s->p, t);
}

/* Pass 1: per-thread totals, used frames, max depth. */
int ss_scan(struct ss *s)
{
	size_t nodes = (size_t)t2f_profile__node_count(s->p) + 1;
	uint8_t *seen = calloc(nodes, 1);
	struct ss_item it[SS_BATCH];

	s->item_nodes = malloc(nodes * sizeof(*s->item_nodes));
	if (!seen || !s->item_nodes) {
		free(seen);
		return -ENOMEM;
	}
	seen[0] = 2; /* the empty stack has no frames */
	if (ss_cells_suffice(s)) {
		for (size_t i = 0; i < t2f_profile__cell_count(s->p); i++) {
			const struct ss_cell *c = &s->cells[i];

			if (c->thread && c->samples)
				ss_count(s, seen, c->thread, c->node,
					 s->counts ? c->samples : c->weight);
		}
		if (t2f_profile__folds_threads(s->p))
			ss_log_totals(s);
	}
	for (t2f_thread_id t = 1; !ss_cells_suffice(s) && t <= s->thread_count; t++) {
		size_t count = ss_item_count(s, t);

		for (size_t from = 0, n; from < count; from += n) {
			n = count - from < SS_BATCH ? count - from : SS_BATCH;
			ss_items(s, t, from, n, it);
			for (size_t i = 0; i < n; i++)
				if (it[i].weight)
					ss_count(s, seen, t, it[i].node, it[i].weight);
		}
	}
	free(seen);
	return 0;
}

/* Without a log: the cells of the written event grouped by thread (in cell order). */
int ss_group_cells(struct ss *s)
{
	size_t n = t2f_profile__cell_count(s->p);
	uint32_t *start = s->cell_start, at;

	s->cell_bucket = malloc((n ? n : 1) * sizeof(*s->cell_bucket));
	if (!s->cell_bucket)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		start[s->cells[i].thread + 1] += s->cells[i].thread != 0;
	for (t2f_thread_id t = 1; t <= s->thread_count + 1; t++)
		start[t] += start[t - 1];
	for (size_t i = 0; i < n; i++) {
		t2f_thread_id t = s->cells[i].thread;

		if (t) {
			at = start[t]++;
			s->cell_bucket[at] = (uint32_t)i;
		}
	}
	for (t2f_thread_id t = s->thread_count + 1; t > 0; t--) /* back to each thread's start */
		start[t] = start[t - 1];
	start[0] = 0;
	return 0;
}
