/* formats/profile_merge.c: t2f_profile__merge (formats/profile.h): a profile appended to
 * another, table by table, each src id mapped to dst's. */
#include "formats/profile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats/hashmap.h"
#include "formats/profile_int.h"
#include "formats/sample_log.h"
#include "formats/time_log.h"

/* src's ids → dst's, one array per table (index 0 = none maps to 0), in one allocation. */
struct id_maps {
	uint32_t *block;
	t2f_str_id *str;
	t2f_thread_id *thread;
	t2f_event_id *event;
	t2f_frame_id *frame;
	t2f_node_id *node;
	uint32_t *cell; /* 0-based, like cell indexes */
	uint32_t frames_before, nodes_before; /* dst's counts before the merge: what it added
					       * comes after */
	uint32_t threads_before;
	/* the samples merged in between src's (t2f_profile__merge_at): their events and cells */
	const struct t2f_merge_sample *ins;
	size_t n_ins;
	t2f_event_id *ins_event;
	uint32_t *ins_cell;
};

static int id_maps_alloc(struct id_maps *m, const struct t2f_profile *src, size_t n_ins)
{
	size_t nstr = (size_t)t2f_strtab__count(src->strings) + 1;
	size_t total = nstr + src->threads.len + src->events.len + src->frames.len +
		       src->nodes.len + src->cells.len + 2 * n_ins;

	m->block = calloc(total, sizeof(*m->block));
	if (!m->block)
		return -ENOMEM;
	m->str = m->block;
	m->thread = m->str + nstr;
	m->event = m->thread + src->threads.len;
	m->frame = m->event + src->events.len;
	m->node = m->frame + src->frames.len;
	m->cell = m->node + src->nodes.len;
	m->ins_event = m->cell + src->cells.len;
	m->ins_cell = m->ins_event + n_ins;
	return 0;
}

static int merge_strings(struct t2f_profile *dst, const struct t2f_profile *src,
			 struct id_maps *m)
{
	uint32_t n = t2f_strtab__count(src->strings);
	size_t len;
	int err;

	for (uint32_t id = 1; id <= n; id++) {
		const char *s = t2f_strtab__str(src->strings, id, &len);

		err = t2f_strtab__intern(dst->strings, s, len, &m->str[id]);
		if (err)
			return err;
	}
	return 0;
}

static int merge_threads(struct t2f_profile *dst, const struct t2f_profile *src,
			 struct id_maps *m)
{
	int err;

	m->threads_before = (uint32_t)dst->threads.len;
	for (size_t id = 1; id < src->threads.len; id++) {
		const struct t2f_thread *t = VEC_AT(src->threads, struct t2f_thread, id);

		err = t2f_profile__thread(dst, t->pid, t->tid, m->str[t->comm], t->input,
					  &m->thread[id]);
		if (err)
			return err;
	}
	return 0;
}

/* The events of the inserted samples [*j, those before src's event `before`), in dst, as
 * their adding would have made them (unit nanoseconds, with a period). */
static int insert_events(struct t2f_profile *dst, struct id_maps *m, size_t *j, size_t before)
{
	for (; *j < m->n_ins && m->ins[*j].src_events < before; ++*j) {
		const char *name = m->ins[*j].event;
		t2f_str_id s;
		int err = t2f_strtab__intern(dst->strings, name, strlen(name), &s) ?:
			  t2f_profile__event(dst, s, T2F_UNIT_NANOSECONDS, &m->ins_event[*j]);

		if (err)
			return err;
		t2f_profile__event_has_period(dst, m->ins_event[*j]);
	}
	return 0;
}

static int merge_events(struct t2f_profile *dst, const struct t2f_profile *src,
			struct id_maps *m)
{
	size_t j = 0;
	int err;

	for (size_t id = 1; id < src->events.len; id++) {
		const struct t2f_event *e = VEC_AT(src->events, struct t2f_event, id);

		err = insert_events(dst, m, &j, id) ?:
		      t2f_profile__event(dst, m->str[e->name], e->unit, &m->event[id]);
		if (err)
			return err;
		if (e->has_period)
			t2f_profile__event_has_period(dst, m->event[id]);
	}
	return insert_events(dst, m, &j, SIZE_MAX);
}

/* How many lookups ahead a merge loop asks for the slot its lookup will need; the loops that
 * also ask for the key a slot names ask for the slot twice as far ahead, and for the key at this
 * distance. Nodes are looked up by depth, so that the parent of a node ahead is mapped. */
#define MERGE_AHEAD 8

/* src's frame id with dst's string ids. */
static struct t2f_frame merged_frame(const struct t2f_profile *src, const struct id_maps *m,
				     size_t id)
{
	struct t2f_frame f = *VEC_AT(src->frames, struct t2f_frame, id);

	f.name = m->str[f.name];
	f.module = m->str[f.module];
	f.file = m->str[f.file];
	f.fn_file = m->str[f.fn_file];
	return f;
}

/* src frame id's hash in dst (its key with dst's string ids). */
static uint64_t merged_frame_hash(const struct t2f_profile *src, const struct id_maps *m,
				  size_t id)
{
	struct t2f_frame a = merged_frame(src, m, id);
	struct t2f_frame key = t2f_profile__frame_key(&a);

	return t2f_profile__frame_hash(&key);
}

/* Asks for the slot of the frame 2 * MERGE_AHEAD on, and for the frame its slot names of the
 * one MERGE_AHEAD on (the slot is there by then): a frame dst has is compared in dst's array. */
static void merge_frames_ahead(const struct t2f_profile *dst, const struct t2f_profile *src,
			       const struct id_maps *m, size_t id, uint64_t *ring)
{
	size_t far = id + 2 * MERGE_AHEAD, near = id + MERGE_AHEAD;
	uint32_t c;

	if (far < src->frames.len) {
		ring[far % (2 * MERGE_AHEAD)] = merged_frame_hash(src, m, far);
		t2f_hashmap__prefetch(dst->frame_ix, ring[far % (2 * MERGE_AHEAD)]);
	}
	if (near < src->frames.len &&
	    (c = t2f_hashmap__candidate(dst->frame_ix, ring[near % (2 * MERGE_AHEAD)])))
		__builtin_prefetch(VEC_AT(dst->frames, struct t2f_frame, c));
}

static int merge_frames(struct t2f_profile *dst, const struct t2f_profile *src,
			struct id_maps *m)
{
	uint64_t ring[2 * MERGE_AHEAD]; /* the hashes of the frames ahead */
	int err;

	m->frames_before = (uint32_t)dst->frames.len;
	for (size_t id = 1; id < src->frames.len && id <= 2 * MERGE_AHEAD; id++)
		ring[id % (2 * MERGE_AHEAD)] = merged_frame_hash(src, m, id);
	for (size_t id = 1; id < src->frames.len; id++) {
		struct t2f_frame f = merged_frame(src, m, id), key = t2f_profile__frame_key(&f);
		uint64_t h = ring[id % (2 * MERGE_AHEAD)]; /* before the slot takes a frame ahead's */

		merge_frames_ahead(dst, src, m, id, ring);
		err = t2f_profile__frame_hashed(dst, &key, h, &m->frame[id]);
		if (err)
			return err;
	}
	return 0;
}

static int merge_lefts(struct t2f_profile *dst, const struct t2f_profile *src,
		       struct id_maps *m)
{
	return t2f_profile__merge_lefts(dst, src, m->frame);
}

/* src's node ids (1..) by depth, in id order within a depth: a node comes after its parent. */
static int nodes_by_depth(const struct t2f_profile *src, uint32_t **out)
{
	size_t n = src->nodes.len;
	uint32_t max = 0, *order, *at;

	for (size_t id = 1; id < n; id++)
		if (VEC_AT(src->nodes, struct node, id)->depth > max)
			max = VEC_AT(src->nodes, struct node, id)->depth;
	order = malloc(n * sizeof(*order));
	at = calloc((size_t)max + 2, sizeof(*at));
	if (!order || !at) {
		free(order);
		free(at);
		return -ENOMEM;
	}
	for (size_t id = 1; id < n; id++) /* at[d + 1]: nodes of depth d, then where depth d starts */
		at[VEC_AT(src->nodes, struct node, id)->depth + 1]++;
	for (uint32_t d = 1; d <= max + 1; d++)
		at[d] += at[d - 1];
	for (size_t id = 1; id < n; id++)
		order[at[VEC_AT(src->nodes, struct node, id)->depth]++] = (uint32_t)id;
	free(at);
	*out = order;
	return 0;
}

/* Src node nd's hash in dst: its parent's and frame's dst ids (mapped by then). */
static uint64_t mapped_node_hash(const struct id_maps *m, const struct node *nd)
{
	return t2f_profile__node_hash(m->node[nd->parent], m->frame[nd->frame]);
}

/* Whether dst may have src node nd: not when dst lacks its parent, or its frame is one this
 * merge added (dst's nodes name only the frames it had). */
static bool known(const struct id_maps *m, const uint8_t *fresh, const struct node *nd)
{
	return !fresh[nd->parent] && m->frame[nd->frame] < m->frames_before;
}

/* For find_nodes at order[i]: asks for the slot of the node 2 * MERGE_AHEAD places on, and
 * for the node its slot names of the one MERGE_AHEAD on (the slot is there by then), when it
 * has the current node's depth: its parent, one level up, is mapped by then. */
static void find_nodes_ahead(const struct t2f_profile *dst, const struct t2f_profile *src,
			     const struct id_maps *m, const uint32_t *order, const uint8_t *fresh,
			     size_t i)
{
	size_t n = src->nodes.len - 1;
	uint32_t depth = VEC_AT(src->nodes, struct node, order[i])->depth, c;

	for (size_t k = 1; k <= 2; k++) {
		const struct node *a;
		uint64_t h;

		if (i + k * MERGE_AHEAD >= n)
			return;
		a = VEC_AT(src->nodes, struct node, order[i + k * MERGE_AHEAD]);
		if (a->depth != depth || !known(m, fresh, a))
			continue;
		h = mapped_node_hash(m, a);
		if (k == 2)
			t2f_hashmap__prefetch(dst->node_ix, h);
		else if ((c = t2f_hashmap__candidate(dst->node_ix, h)))
			__builtin_prefetch(VEC_AT(dst->nodes, struct node, c));
	}
}

/* The src nodes dst has already, looked up by depth so that the nodes ahead can be asked for
 * (find_nodes_ahead). A node under a node dst lacks, or of a frame new to dst, is not looked
 * up: dst lacks it too. Marks the nodes dst lacks in fresh[]. */
static void find_nodes(const struct t2f_profile *dst, const struct t2f_profile *src,
		       struct id_maps *m, const uint32_t *order, uint8_t *fresh)
{
	size_t n = src->nodes.len - 1;

	for (size_t i = 0; i < n; i++) {
		uint32_t id = order[i];
		const struct node *nd = VEC_AT(src->nodes, struct node, id);

		find_nodes_ahead(dst, src, m, order, fresh, i);
		if (known(m, fresh, nd))
			m->node[id] = t2f_profile__node_find(dst, m->node[nd->parent],
							     m->frame[nd->frame], mapped_node_hash(m, nd));
		fresh[id] = !m->node[id];
	}
}

/* The nodes dst lacks, added in src's id order: the ids they get are known before (the next
 * ones, in that order), so every slot can be prefetched. */
static int add_nodes(struct t2f_profile *dst, const struct t2f_profile *src, struct id_maps *m,
		     const uint8_t *fresh)
{
	size_t n = src->nodes.len;
	uint32_t next = (uint32_t)dst->nodes.len;
	int err = 0;

	for (size_t id = 1; id < n; id++)
		if (fresh[id])
			m->node[id] = next++;
	for (size_t id = 1, ahead = 1; !err && id < n; id++) {
		const struct node *nd = VEC_AT(src->nodes, struct node, id);

		for (; ahead < n && ahead < id + MERGE_AHEAD; ahead++) {
			const struct node *a = VEC_AT(src->nodes, struct node, ahead);

			if (fresh[ahead])
				t2f_hashmap__prefetch(dst->node_ix, mapped_node_hash(m, a));
		}
		if (!fresh[id])
			continue;
		err = t2f_profile__node_add(dst, m->node[nd->parent], m->frame[nd->frame],
					    mapped_node_hash(m, nd), &m->node[id]); /* counted above */
	}
	return err;
}

/* Every src node maps to dst's node of the same path, found or added. The nodes added get the
 * ids a merge in src's id order would give them: a src path that dst lacks is not made by
 * another src node of this merge (src's paths are distinct, and so are their frames in dst). */
static int merge_nodes(struct t2f_profile *dst, const struct t2f_profile *src,
		       struct id_maps *m)
{
	uint32_t *order = NULL;
	uint8_t *fresh;
	int err;

	m->nodes_before = (uint32_t)dst->nodes.len;
	if (src->nodes.len <= 1) /* the root alone */
		return 0;
	fresh = calloc(src->nodes.len, 1); /* fresh[0]: the root, which dst has */
	err = fresh ? nodes_by_depth(src, &order) : -ENOMEM;

	if (!err) {
		find_nodes(dst, src, m, order, fresh);
		err = add_nodes(dst, src, m, fresh);
	}
	free(order);
	free(fresh);
	return err;
}

/* The module maps, appended; and the input names. */
static int merge_module_maps(struct t2f_profile *dst, const struct t2f_profile *src,
			     struct id_maps *m)
{
	int err = t2f_profile__vec_reserve_n(&dst->maps, sizeof(struct t2f_module_map), src->maps.len);

	if (err)
		return err;
	for (size_t i = 0; i < src->maps.len; i++) {
		struct t2f_module_map *to = VEC_AT(dst->maps, struct t2f_module_map, dst->maps.len++);

		*to = *VEC_AT(src->maps, struct t2f_module_map, i);
		to->path = m->str[to->path];
		to->build_id = m->str[to->build_id];
		to->prot = m->str[to->prot];
	}
	for (size_t i = 0; !err && i < src->n_inputs; i++)
		err = t2f_profile__add_input_name(dst, m->str[src->inputs[i]]);
	return err;
}

/* The inserted samples [*j, those before src's cell `before`) into dst's cells, as
 * t2f_profile__add_sample adds a sample (their log entries: merge_log). */
static int insert_cells(struct t2f_profile *dst, struct id_maps *m, size_t *j, size_t before)
{
	for (; *j < m->n_ins && m->ins[*j].src_cells < before; ++*j) {
		const struct t2f_merge_sample *s = &m->ins[*j];
		int err = t2f_profile__cell_add(dst, s->node, s->thread, m->ins_event[*j], 1,
						s->weight, &m->ins_cell[*j]);

		if (err)
			return err;
		dst->weightless += s->weight == 0;
		dst->chainless += s->node == 0;
		if (s->time_ns == T2F_TIME_PAST)
			dst->times_past++;
		else
			t2f_profile__note_time(dst, s->time_ns, s->time_ns);
	}
	return 0;
}

/* Whether src cell c's thread is one this merge added to dst (as dst counts it), with src's
 * threads distinct in dst: but for threads dst folds and src does not (two of src's threads of
 * one comm count under one of dst's). */
static bool thread_is_new(const struct t2f_profile *dst, const struct t2f_profile *src,
			  const struct id_maps *m, const struct t2f_cell *c)
{
	return (src->fold || !dst->fold) &&
	       t2f_profile__folded(dst, m->thread[c->thread]) >= m->threads_before;
}

/* Whether src cell c is new to dst, so that it is appended without a lookup: at a node or of
 * a thread this merge added to dst. Such a cell is distinct from src's other cells there: src's
 * cells are distinct, and so are their nodes, threads and events in dst, but for threads dst
 * folds and src does not. The samples inserted in between are at nodes and of threads dst
 * had. */
static bool cell_is_new(const struct t2f_profile *dst, const struct t2f_profile *src,
			const struct id_maps *m, const struct t2f_cell *c)
{
	return (src->fold || !dst->fold) &&
	       (m->node[c->node] >= m->nodes_before || thread_is_new(dst, src, m, c));
}

/* A cell of a thread new to dst is appended unindexed (profile_defer.c): most such threads
 * never come back. */
static int merge_cell(struct t2f_profile *dst, const struct t2f_profile *src,
		      const struct id_maps *m, size_t i)
{
	const struct t2f_cell *c = VEC_AT(src->cells, struct t2f_cell, i);
	t2f_node_id node = m->node[c->node];

	if (thread_is_new(dst, src, m, c))
		return t2f_profile__cell_defer(dst, node,
					       t2f_profile__folded(dst, m->thread[c->thread]),
					       m->event[c->event], c->samples, c->weight,
					       &m->cell[i]);
	if (cell_is_new(dst, src, m, c))
		return t2f_profile__cell_append(dst, node, m->thread[c->thread],
						m->event[c->event], c->samples, c->weight,
						&m->cell[i]);
	return t2f_profile__cell_add(dst, node, m->thread[c->thread], m->event[c->event],
				     c->samples, c->weight, &m->cell[i]);
}

/* src cell i's hash in dst. */
static uint64_t merged_cell_hash(const struct t2f_profile *dst, const struct t2f_profile *src,
				 const struct id_maps *m, size_t i)
{
	const struct t2f_cell *a = VEC_AT(src->cells, struct t2f_cell, i);

	return t2f_profile__cell_hash(m->node[a->node], t2f_profile__folded(dst, m->thread[a->thread]),
				      m->event[a->event]);
}

/* Asks for the slot of the cell 2 * MERGE_AHEAD on (where its lookup starts, or where its
 * insertion goes for a new cell), and for the cell its slot names of the one MERGE_AHEAD on
 * (the slot is there by then), as merge_frames_ahead does, unless that one is new. A cell of a
 * thread new to dst needs neither. */
static void merge_cells_ahead(const struct t2f_profile *dst, const struct t2f_profile *src,
			      const struct id_maps *m, size_t i, uint64_t *ring)
{
	size_t far = i + 2 * MERGE_AHEAD, near = i + MERGE_AHEAD;
	uint32_t c;

	if (far < src->cells.len &&
	    !thread_is_new(dst, src, m, VEC_AT(src->cells, struct t2f_cell, far))) {
		ring[far % (2 * MERGE_AHEAD)] = merged_cell_hash(dst, src, m, far);
		t2f_hashmap__prefetch(dst->cell_ix, ring[far % (2 * MERGE_AHEAD)]);
	}
	if (near < src->cells.len &&
	    !cell_is_new(dst, src, m, VEC_AT(src->cells, struct t2f_cell, near)) &&
	    (c = t2f_hashmap__candidate(dst->cell_ix, ring[near % (2 * MERGE_AHEAD)])))
		__builtin_prefetch(VEC_AT(dst->cells, struct t2f_cell, c - 1));
}

/* Indexes the unindexed cells of the threads dst had that src has, before they are looked up
 * (below, and by the samples inserted in between): in one call, so that each run of such cells
 * is read once. */
static int undefer_returning(struct t2f_profile *dst, const struct t2f_profile *src,
			     const struct id_maps *m)
{
	t2f_thread_id *back = NULL;
	size_t n = 0;
	int err;

	for (size_t id = 1; id < src->threads.len; id++) {
		t2f_thread_id t = t2f_profile__folded(dst, m->thread[id]);

		if (!t2f_profile__deferred(dst, t))
			continue;
		if (!back && !(back = malloc(src->threads.len * sizeof(*back))))
			return -ENOMEM;
		back[n++] = t;
	}
	err = n ? t2f_profile__undefer(dst, back, n) : 0;
	free(back);
	return err;
}

static int merge_cells(struct t2f_profile *dst, const struct t2f_profile *src,
		       struct id_maps *m)
{
	uint64_t ring[2 * MERGE_AHEAD]; /* the hashes of the cells ahead */
	size_t j = 0;
	int err;

	if (dst->repeat && !m->n_ins && !dst->log) /* appended as they are (profile_repeat.c) */
		return t2f_profile__append_cells(dst, src, &(struct t2f_repeat_maps){
			m->thread, m->node, m->event, m->cell });
	err = undefer_returning(dst, src, m) ?: t2f_profile__defer_begin(dst);

	for (size_t i = 0; i < src->cells.len && i < 2 * MERGE_AHEAD; i++)
		ring[i % (2 * MERGE_AHEAD)] = merged_cell_hash(dst, src, m, i);
	for (size_t i = 0; !err && i < src->cells.len; i++) {
		err = insert_cells(dst, m, &j, i + 1);
		if (err)
			break;
		merge_cells_ahead(dst, src, m, i, ring);
		err = merge_cell(dst, src, m, i);
	}
	t2f_profile__defer_end(dst);
	return err ?: insert_cells(dst, m, &j, SIZE_MAX);
}

/* The inserted samples come first in their threads' logs: src has none of their threads'
 * samples before them (t2f_profile__merge_at). */
static int merge_log(struct t2f_profile *dst, struct t2f_profile *src, const struct id_maps *m)
{
	int err = 0;

	if (!dst->log)
		return 0;
	for (size_t j = 0; !err && j < m->n_ins; j++) {
		err = t2f_sample_log__add(dst->log, m->ins[j].thread, m->ins_cell[j],
					  m->ins[j].weight);
		if (!err && dst->times)
			err = t2f_time_log__add(dst->times, m->ins[j].thread, m->ins[j].time_ns,
						m->ins[j].weight);
	}
	if (err || !src->log)
		return err;
	err = t2f_sample_log__take(dst->log, src->log, m->cell, src->cells.len, m->thread);
	if (err || !dst->times || !src->times)
		return err;
	return t2f_time_log__take(dst->times, src->times, m->thread);
}

/* The waits src kept, after dst's, on dst's threads. */
static int merge_waits(struct t2f_profile *dst, const struct t2f_profile *src,
		       const struct id_maps *m)
{
	int err = 0;

	for (size_t i = 0; i < src->waits.len && !err; i++) {
		struct t2f_wait_span w = *VEC_AT(src->waits, struct t2f_wait_span, i);

		w.thread = m->thread[w.thread];
		err = t2f_profile__add_wait(dst, &w);
	}
	return err;
}

static void merge_counts(struct t2f_profile *dst, const struct t2f_profile *src)
{
	t2f_profile__note_time(dst, src->first_ns, src->last_ns);
	dst->read += src->read;
	dst->weightless += src->weightless;
	dst->capped |= src->capped;
	dst->times_past += src->times_past;
	dst->chainless += src->chainless;
	t2f_profile__add_duration(dst, src->duration_ns);
	t2f_profile__count_lost(dst, &src->lost);
	for (size_t r = 0; r < T2F_DROP__COUNT; r++)
		dst->dropped[r] += src->dropped[r];
}

/* One table's merge step: fills its part of m (tables use the maps of the earlier steps). */
typedef int (*merge_step_fn)(struct t2f_profile *dst, const struct t2f_profile *src,
			     struct id_maps *m);

int t2f_profile__merge_at(struct t2f_profile *dst, struct t2f_profile *src,
			  const struct t2f_merge_sample *ins, size_t n_ins,
			  const struct t2f_merge_ids *ids)
{
	static const merge_step_fn steps[] = {
		merge_strings, merge_threads, merge_events, merge_frames,
		merge_lefts, merge_nodes, merge_module_maps, merge_cells,
	};
	struct id_maps m = { 0 };
	int err;

	t2f_profile__sums_drop(dst);
	err = t2f_profile__indexes(dst) ?: id_maps_alloc(&m, src, n_ins);

	t2f_profile__grow_whole(dst);
	m.ins = ins;
	m.n_ins = n_ins;
	for (size_t i = 0; !err && i < sizeof(steps) / sizeof(steps[0]); i++)
		err = steps[i](dst, src, &m);
	err = err ?: merge_log(dst, src, &m) ?: merge_waits(dst, src, &m);
	if (!err && dst->hist && src->hist)
		err = t2f_time_hist__merge(dst->hist, src->hist, m.event);
	if (!err)
		merge_counts(dst, src);
	for (size_t i = 0; !err && ids && i < ids->n; i++) {
		ids->node[i] = m.node[ids->node[i]];
		ids->thread[i] = m.thread[ids->thread[i]];
	}
	free(m.block);
	return err;
}

int t2f_profile__merge(struct t2f_profile *dst, struct t2f_profile *src)
{
	return t2f_profile__merge_at(dst, src, NULL, 0, NULL);
}
