/* formats/profile.c: dense tables (1-based ids) with hash indexes for the lookup-or-add calls.
 * Every table is a growable array (profile_vec.c); the hash maps hold only ids
 * (formats/hashmap.h). Merging is in profile_merge.c (the cells it appends unindexed in
 * profile_defer.c), re-stacking in profile_restack.c; the struct is in profile_int.h. */
#include "formats/profile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats/derive.h"
#include "formats/diag.h"
#include "formats/event_name.h"
#include "formats/grow.h"
#include "formats/hashmap.h"
#include "formats/profile_int.h"
#include "formats/sat.h"
#include "formats/sample_log.h"
#include "formats/time_log.h"

/* Makes room for one more element of size `elem`; 0 or -ENOMEM/-T2F_ERR_LIMIT. */
static int vec_reserve(struct vec *v, size_t elem)
{
	return t2f_profile__vec_reserve_n(v, elem, 1);
}

int t2f_profile__new(struct t2f_profile **out)
{
	struct t2f_profile *p = calloc(1, sizeof(*p));
	struct vec *one_based[] = { &p->threads, &p->events, &p->frames, &p->nodes };
	size_t sizes[] = { sizeof(struct t2f_thread), sizeof(struct t2f_event),
			   sizeof(struct t2f_frame), sizeof(struct node) };

	if (!p)
		return -ENOMEM;
	if (t2f_strtab__new(&p->strings) || t2f_hashmap__new(64, &p->thread_ix) ||
	    t2f_hashmap__new(4096, &p->frame_ix) || t2f_hashmap__new_dense(4096, &p->node_ix) ||
	    t2f_hashmap__new(4096, &p->cell_ix))
		goto fail;
	/* Slot 0 of the id tables is the "none" entry, zeroed. */
	for (size_t i = 0; i < 4; i++) {
		if (vec_reserve(one_based[i], sizes[i]))
			goto fail;
		memset(one_based[i]->data, 0, sizes[i]);
		one_based[i]->len = 1;
	}
	*out = p;
	return 0;
fail:
	t2f_profile__free(p);
	return -ENOMEM;
}

/* Frees what p holds but the memory t2f_profile__reset keeps. */
static void free_unkept(struct t2f_profile *p)
{
	t2f_sample_log__free(p->log);
	t2f_time_log__free(p->times);
	t2f_profile__vec_free(&p->waits);
	t2f_time_hist__free(p->hist);
	t2f_derive__free(p->derive);
	t2f_profile__vec_free(&p->maps);
	free(p->inputs);
	t2f_profile__vec_free(&p->folds);
	t2f_profile__sums_drop(p); /* its job reads the cells and their flags */
	t2f_profile__vec_free(&p->cell_flags);
	t2f_hashmap__free(p->comm_ix);
	t2f_profile__defer_free(p);
}

void t2f_profile__free(struct t2f_profile *p)
{
	if (!p)
		return;
	free_unkept(p);
	t2f_profile__free_lefts(p);
	if (!p->borrowed)
		t2f_strtab__free(p->strings);
	t2f_profile__vec_free(&p->threads);
	t2f_profile__vec_free(&p->events);
	t2f_profile__vec_free(&p->frames);
	t2f_profile__vec_free(&p->nodes);
	t2f_profile__vec_free(&p->cells);
	t2f_hashmap__free(p->thread_ix);
	t2f_hashmap__free(p->frame_ix);
	t2f_hashmap__free(p->node_ix);
	t2f_hashmap__free(p->cell_ix);
	free(p);
}

/* A table emptied to its "none" entry, zeroed (the one-based tables), keeping its memory. */
static void vec_empty(struct vec *v, size_t elem, size_t keep)
{
	v->len = keep;
	if (keep)
		memset(v->data, 0, elem);
}

/* An index emptied, or made when it was dropped (dense: t2f_hashmap__new_dense). */
static int index_again(struct t2f_hashmap **ix, bool dense)
{
	if (!*ix)
		return dense ? t2f_hashmap__new_dense(4096, ix) : t2f_hashmap__new(4096, ix);
	t2f_hashmap__clear(*ix);
	return 0;
}

int t2f_profile__reset(struct t2f_profile *p)
{
	struct t2f_profile kept = {
		.strings = p->strings, .threads = p->threads, .events = p->events,
		.frames = p->frames, .nodes = p->nodes, .cells = p->cells,
		.thread_ix = p->thread_ix, .frame_ix = p->frame_ix, .node_ix = p->node_ix,
		.cell_ix = p->cell_ix, .lefts = p->lefts, .left_ix = p->left_ix,
	};

	if (p->borrowed)
		return -EINVAL;
	free_unkept(p);
	*p = kept;
	t2f_strtab__clear(p->strings);
	vec_empty(&p->threads, sizeof(struct t2f_thread), 1);
	vec_empty(&p->events, sizeof(struct t2f_event), 1);
	vec_empty(&p->frames, sizeof(struct t2f_frame), 1);
	vec_empty(&p->nodes, sizeof(struct node), 1);
	vec_empty(&p->cells, sizeof(struct t2f_cell), 0);
	vec_empty(&p->lefts, sizeof(struct t2f_left_addr), 0);
	if (p->left_ix)
		t2f_hashmap__clear(p->left_ix);
	return index_again(&p->thread_ix, false) ?: index_again(&p->frame_ix, false) ?:
	       index_again(&p->node_ix, true) ?: index_again(&p->cell_ix, false);
}

struct t2f_strtab *t2f_profile__strtab(struct t2f_profile *p)
{
	return p->strings;
}

int t2f_profile__intern(struct t2f_profile *p, const char *s, size_t len, t2f_str_id *id)
{
	return t2f_strtab__intern(p->strings, s, len, id);
}

const char *t2f_profile__str(const struct t2f_profile *p, t2f_str_id id, size_t *len)
{
	return t2f_strtab__str(p->strings, id, len);
}

int t2f_profile__enable_log(struct t2f_profile *p)
{
	return p->log ? 0 : t2f_sample_log__new(&p->log);
}

bool t2f_profile__log_enabled(const struct t2f_profile *p)
{
	return p->log != NULL;
}

int t2f_profile__enable_sample_times(struct t2f_profile *p)
{
	int err = t2f_profile__enable_log(p);

	p->want_times = true;
	return err || p->times ? err : t2f_time_log__new(&p->times);
}

bool t2f_profile__sample_times(const struct t2f_profile *p)
{
	return p->times != NULL;
}

void t2f_profile__time_cursor(const struct t2f_profile *p, t2f_thread_id thread,
			      struct t2f_time_cursor *k)
{
	if (p->times)
		t2f_time_log__start(p->times, thread, k);
	else
		*k = (struct t2f_time_cursor){ 0 };
}

void t2f_profile__keep_waits(struct t2f_profile *p)
{
	p->keep_waits = true;
}

bool t2f_profile__keeps_waits(const struct t2f_profile *p)
{
	return p->keep_waits;
}

int t2f_profile__add_wait(struct t2f_profile *p, const struct t2f_wait_span *w)
{
	int err;

	if (!p->keep_waits)
		return 0;
	err = vec_reserve(&p->waits, sizeof(*w));
	if (!err)
		*VEC_AT(p->waits, struct t2f_wait_span, p->waits.len++) = *w;
	return err;
}

size_t t2f_profile__wait_count(const struct t2f_profile *p)
{
	return p->waits.len;
}

const struct t2f_wait_span *t2f_profile__wait_at(const struct t2f_profile *p, size_t idx)
{
	return VEC_AT(p->waits, struct t2f_wait_span, idx);
}

int t2f_profile__enable_hist(struct t2f_profile *p)
{
	p->want_times = true;
	return p->hist ? 0 : t2f_time_hist__new(&p->hist);
}

const struct t2f_time_hist *t2f_profile__hist(const struct t2f_profile *p)
{
	return p->hist;
}

void t2f_profile__want_times(struct t2f_profile *p)
{
	p->want_times = true;
}

bool t2f_profile__wants_times(const struct t2f_profile *p)
{
	return p->want_times;
}

int t2f_profile__enable_derive(struct t2f_profile *p, const struct t2f_derive_opts *o)
{
	if (p->derive || !o->kinds)
		return 0;
	return t2f_derive__new(p, o, &p->derive);
}

struct t2f_derive *t2f_profile__derive(const struct t2f_profile *p)
{
	return p->derive;
}

/* ---- threads ---- */

struct thread_probe {
	const struct t2f_profile *p;
	const struct t2f_thread *key;
};

static bool thread_eq(const void *ctx, uint32_t id)
{
	const struct thread_probe *q = ctx;
	const struct t2f_thread *t = VEC_AT(q->p->threads, struct t2f_thread, id);

	return t->pid == q->key->pid && t->tid == q->key->tid && t->comm == q->key->comm &&
	       t->input == q->key->input;
}

static uint64_t comm_hash(t2f_str_id comm, uint32_t input)
{
	return t2f_hash_u64((uint64_t)comm << 32 | input);
}

struct comm_probe {
	const struct t2f_profile *p;
	t2f_str_id comm;
	uint32_t input;
};

static bool comm_eq(const void *ctx, uint32_t id)
{
	const struct comm_probe *q = ctx;
	const struct t2f_thread *t = VEC_AT(q->p->threads, struct t2f_thread, id);

	return t->comm == q->comm && t->input == q->input;
}

/* With fold: thread id (just added) gets the first thread of its comm and input. */
static int fold_thread(struct t2f_profile *p, t2f_thread_id id)
{
	const struct t2f_thread *t = VEC_AT(p->threads, struct t2f_thread, id);
	struct comm_probe q = { p, t->comm, t->input };
	uint64_t h = comm_hash(t->comm, t->input);
	uint32_t first = t2f_hashmap__find(p->comm_ix, h, comm_eq, &q);
	int err = t2f_profile__vec_reserve_n(&p->folds, sizeof(uint32_t), id + 1 - p->folds.len);

	if (!err && !first)
		err = t2f_hashmap__insert(p->comm_ix, h, id);
	if (err)
		return err;
	*VEC_AT(p->folds, uint32_t, id) = first ? first : id;
	p->folds.len = id + 1;
	return 0;
}

int t2f_profile__fold_threads(struct t2f_profile *p)
{
	int err;

	if (p->fold)
		return 0;
	err = t2f_hashmap__new(64, &p->comm_ix) ?:
	      t2f_profile__vec_reserve_n(&p->folds, sizeof(uint32_t), p->threads.len);
	if (err)
		return err;
	*VEC_AT(p->folds, uint32_t, 0) = 0;
	p->folds.len = 1;
	for (size_t i = 1; !err && i < p->threads.len; i++)
		err = fold_thread(p, (t2f_thread_id)i);
	p->fold = !err;
	return err;
}

bool t2f_profile__folds_threads(const struct t2f_profile *p)
{
	return p->fold;
}

int t2f_profile__thread(struct t2f_profile *p, int64_t pid, int64_t tid, t2f_str_id comm,
			uint32_t input, t2f_thread_id *out)
{
	struct t2f_thread key = { pid, tid, comm, input };
	struct thread_probe q = { p, &key };
	uint64_t h = t2f_hash_u64((uint64_t)pid * 31 + (uint64_t)tid) ^ t2f_hash_u64(comm) ^
		     ((uint64_t)input << 7);
	uint32_t id = t2f_hashmap__find(p->thread_ix, h, thread_eq, &q);
	int err;

	if (!id) {
		err = vec_reserve(&p->threads, sizeof(key));
		if (err)
			return err;
		id = (uint32_t)p->threads.len;
		err = t2f_hashmap__insert(p->thread_ix, h, id);
		if (err)
			return err;
		*VEC_AT(p->threads, struct t2f_thread, id) = key;
		p->threads.len++;
		if (p->fold && (err = fold_thread(p, id)) != 0)
			return err;
	}
	*out = id;
	return 0;
}

/* ---- events (few: a linear search) ---- */

int t2f_profile__event(struct t2f_profile *p, t2f_str_id name, enum t2f_unit unit,
		       t2f_event_id *out)
{
	struct t2f_event *e;
	int err;

	for (size_t i = 1; i < p->events.len; i++) {
		if (VEC_AT(p->events, struct t2f_event, i)->name == name) {
			*out = (t2f_event_id)i;
			return 0;
		}
	}
	err = vec_reserve(&p->events, sizeof(*e));
	if (err)
		return err;
	e = VEC_AT(p->events, struct t2f_event, p->events.len);
	*e = (struct t2f_event){ .name = name, .unit = unit };
	*out = (t2f_event_id)p->events.len++;
	return 0;
}

void t2f_profile__event_has_period(struct t2f_profile *p, t2f_event_id event)
{
	VEC_AT(p->events, struct t2f_event, event)->has_period = true;
}

static t2f_event_id t2f_profile_find_event(const struct t2f_profile *p, const char *name,
					   size_t len)
{
	for (size_t i = 1; i < p->events.len; i++) {
		const struct t2f_event *e = VEC_AT(p->events, struct t2f_event, i);
		size_t elen;
		const char *s = t2f_strtab__str(p->strings, e->name, &elen);

		if (elen == len && memcmp(s, name, len) == 0)
			return (t2f_event_id)i;
	}
	return 0;
}

t2f_event_id t2f_profile__find_event(const struct t2f_profile *p, const char *name)
{
	size_t len = strlen(name);

	return t2f_profile_find_event(p, name, len) ?:
	       t2f_profile_find_event(p, name, t2f_event_name_len(name, len));
}

/* ---- the lookup indexes: dropped by t2f_profile__drop_indexes, built again on use ---- */

void t2f_profile__drop_indexes(struct t2f_profile *p)
{
	t2f_hashmap__free(p->frame_ix);
	t2f_hashmap__free(p->node_ix);
	t2f_hashmap__free(p->cell_ix);
	p->frame_ix = p->node_ix = p->cell_ix = NULL;
	t2f_profile__defer_forget(p);
}

void t2f_profile__grow_whole(struct t2f_profile *p)
{
	p->whole = p->frames.whole = p->nodes.whole = p->cells.whole = true;
	if (p->frame_ix) {
		t2f_hashmap__grow_whole(p->frame_ix);
		t2f_hashmap__grow_whole(p->node_ix);
		t2f_hashmap__grow_whole(p->cell_ix);
	}
}

/* The frame, node and cell indexes of the tables as they are, each sized for its table. */
static int build_indexes(struct t2f_profile *p)
{
	int err = t2f_hashmap__new(p->frames.len, &p->frame_ix) ?:
		  t2f_hashmap__new_dense(p->nodes.len, &p->node_ix) ?:
		  t2f_hashmap__new(p->cells.len, &p->cell_ix);

	if (!err && p->whole)
		t2f_profile__grow_whole(p);

	for (size_t id = 1; !err && id < p->frames.len; id++) {
		struct t2f_frame key =
			t2f_profile__frame_key(VEC_AT(p->frames, struct t2f_frame, id));

		err = t2f_hashmap__insert(p->frame_ix, t2f_profile__frame_hash(&key), (uint32_t)id);
	}
	for (size_t id = 1; !err && id < p->nodes.len; id++) {
		const struct node *n = VEC_AT(p->nodes, struct node, id);

		err = t2f_hashmap__insert(p->node_ix, t2f_profile__node_hash(n->parent, n->frame),
					  (uint32_t)id);
	}
	for (size_t i = 0; !err && i < p->cells.len; i++) {
		const struct t2f_cell *c = VEC_AT(p->cells, struct t2f_cell, i);

		err = t2f_hashmap__insert(p->cell_ix,
					  t2f_profile__cell_hash(c->node, c->thread, c->event),
					  (uint32_t)i + 1);
	}
	if (err)
		t2f_profile__drop_indexes(p);
	return err;
}

int t2f_profile__indexes(struct t2f_profile *p)
{
	return p->frame_ix ? 0 : build_indexes(p);
}

/* ---- frames ---- */

struct frame_probe {
	const struct t2f_profile *p;
	const struct t2f_frame *key;
};

static bool frame_eq(const void *ctx, uint32_t id)
{
	const struct frame_probe *q = ctx;
	const struct t2f_frame *f = VEC_AT(q->p->frames, struct t2f_frame, id);

	return f->name == q->key->name && f->module == q->key->module && f->kind == q->key->kind &&
	       f->has_addr == q->key->has_addr && f->unwound == q->key->unwound &&
	       f->addr_left == q->key->addr_left &&
	       f->addr == q->key->addr &&
	       f->space == q->key->space && f->file == q->key->file && f->line == q->key->line &&
	       f->fn_file == q->key->fn_file && f->fn_line == q->key->fn_line &&
	       f->module_names == q->key->module_names;
}

void t2f_profile__limit_frames(struct t2f_profile *p, uint32_t max)
{
	p->frame_limit = max;
}

bool t2f_profile__frames_full(const struct t2f_profile *p)
{
	return p->frame_limit &&
	       (p->frames.len - 1 >= p->frame_limit || p->lefts.len >= p->frame_limit);
}

int t2f_profile__frame(struct t2f_profile *p, const struct t2f_frame *f, t2f_frame_id *out)
{
	struct t2f_frame key = t2f_profile__frame_key(f);

	return t2f_profile__frame_hashed(p, &key, t2f_profile__frame_hash(&key), out);
}

int t2f_profile__frame_hashed(struct t2f_profile *p, const struct t2f_frame *k, uint64_t h,
			      t2f_frame_id *out)
{
	struct t2f_frame key = *k;
	struct frame_probe q = { p, &key };
	int err = t2f_profile__indexes(p);
	uint32_t id = err ? 0 : t2f_hashmap__find(p->frame_ix, h, frame_eq, &q);

	if (err)
		return err;
	if (!id) {
		if (t2f_profile__frames_full(p))
			return -T2F_ERR_LIMIT;
		err = vec_reserve(&p->frames, sizeof(key));
		if (err)
			return err;
		id = (uint32_t)p->frames.len;
		err = t2f_hashmap__insert(p->frame_ix, h, id);
		if (err)
			return err;
		*VEC_AT(p->frames, struct t2f_frame, id) = key;
		p->frames.len++;
	}
	*out = id;
	return 0;
}

int t2f_profile__set_frame_name(struct t2f_profile *p, t2f_frame_id id, t2f_str_id name)
{
	if (id == 0 || id >= p->frames.len)
		return -EINVAL;
	VEC_AT(p->frames, struct t2f_frame, id)->name = name;
	return 0;
}

/* ---- the stack trie ---- */

struct node_probe {
	const struct t2f_profile *p;
	t2f_node_id parent;
	t2f_frame_id frame;
};

static bool node_eq(const void *ctx, uint32_t id)
{
	const struct node_probe *q = ctx;
	const struct node *n = VEC_AT(q->p->nodes, struct node, id);

	return n->parent == q->parent && n->frame == q->frame;
}

uint32_t t2f_profile__node_find(const struct t2f_profile *p, t2f_node_id parent,
				t2f_frame_id frame, uint64_t h)
{
	struct node_probe q = { p, parent, frame };

	return t2f_hashmap__find(p->node_ix, h, node_eq, &q);
}

int t2f_profile__node_add(struct t2f_profile *p, t2f_node_id parent, t2f_frame_id frame,
			  uint64_t h, t2f_node_id *out)
{
	uint32_t id;
	int err = vec_reserve(&p->nodes, sizeof(struct node));

	if (err)
		return err;
	id = (uint32_t)p->nodes.len;
	err = t2f_hashmap__insert(p->node_ix, h, id);
	if (err)
		return err;
	*VEC_AT(p->nodes, struct node, id) = (struct node){
		parent, frame, VEC_AT(p->nodes, struct node, parent)->depth + 1 };
	p->nodes.len++;
	*out = id;
	return 0;
}

int t2f_profile__child(struct t2f_profile *p, t2f_node_id parent, t2f_frame_id frame,
		       t2f_node_id *out)
{
	uint64_t h = t2f_profile__node_hash(parent, frame);
	int err = t2f_profile__indexes(p);

	if (err)
		return err;
	*out = t2f_profile__node_find(p, parent, frame, h);
	return *out ? 0 : t2f_profile__node_add(p, parent, frame, h, out);
}

int t2f_profile__child_unindexed(struct t2f_profile *p, t2f_node_id parent, t2f_frame_id frame,
				 t2f_node_id *out)
{
	int err = t2f_profile__indexes(p) ?: vec_reserve(&p->nodes, sizeof(struct node));
	uint32_t id = (uint32_t)p->nodes.len;

	if (err)
		return err;
	*VEC_AT(p->nodes, struct node, id) = (struct node){
		parent, frame, VEC_AT(p->nodes, struct node, parent)->depth + 1 };
	p->nodes.len++;
	*out = id;
	return 0;
}

/* ---- samples ---- */

struct cell_probe {
	const struct t2f_profile *p;
	t2f_node_id node;
	t2f_thread_id thread;
	t2f_event_id event;
};

static bool cell_eq(const void *ctx, uint32_t id)
{
	const struct cell_probe *q = ctx;
	const struct t2f_cell *c = VEC_AT(q->p->cells, struct t2f_cell, id - 1);

	return c->node == q->node && c->thread == q->thread && c->event == q->event;
}

void t2f_profile__note_time(struct t2f_profile *p, uint64_t first, uint64_t last)
{
	if (!first)
		return;
	if (!p->first_ns || first < p->first_ns)
		p->first_ns = first;
	if (last > p->last_ns)
		p->last_ns = last;
}

/* Adds the cell (node, thread, event), absent (thread folded already; h its hash), at the end of
 * the table, with (samples, weight). */
static int cell_new(struct t2f_profile *p, t2f_node_id node, t2f_thread_id thread,
		    t2f_event_id event, uint64_t h, uint64_t samples, uint64_t weight,
		    uint32_t *idx)
{
	int err = vec_reserve(&p->cells, sizeof(struct t2f_cell)) ?:
		  t2f_hashmap__insert(p->cell_ix, h, (uint32_t)p->cells.len + 1); /* 1-based */

	if (err)
		return err;
	*idx = t2f_profile__cell_put(p, node, thread, event, samples, weight);
	return 0;
}

int t2f_profile__cell_append(struct t2f_profile *p, t2f_node_id node, t2f_thread_id thread,
			     t2f_event_id event, uint64_t samples, uint64_t weight, uint32_t *idx)
{
	int err = t2f_profile__indexes(p);

	if (err)
		return err;
	thread = t2f_profile__folded(p, thread);
	if (p->repeat && (err = t2f_profile__repeat_add(p, thread, true, weight)) != 0)
		return err;
	return cell_new(p, node, thread, event, t2f_profile__cell_hash(node, thread, event),
			samples, weight, idx);
}

t2f_thread_id t2f_profile__cell_thread(const struct t2f_profile *p, t2f_thread_id thread)
{
	return t2f_profile__folded(p, thread);
}

/* The cell (node, thread, event) found and added to, or made; `watched`: p's cells may repeat
 * (profile_repeat.c), which this counts. Inlined with `watched` a constant. */
static inline int cell_lookup_add(struct t2f_profile *p, t2f_node_id node, t2f_thread_id thread,
				  t2f_event_id event, uint64_t samples, uint64_t weight,
				  uint32_t *idx, bool watched)
{
	struct cell_probe q = { p, node, thread, event };
	uint64_t h = t2f_profile__cell_hash(node, thread, event);
	uint32_t id = t2f_hashmap__find(p->cell_ix, h, cell_eq, &q);
	struct t2f_cell *c;
	int err;

	if (watched && p->repeat && (err = t2f_profile__repeat_add(p, thread, !id, weight)) != 0)
		return err;
	if (!id)
		return cell_new(p, node, thread, event, h, samples, weight, idx);
	c = VEC_AT(p->cells, struct t2f_cell, id - 1);
	c->samples = t2f_sat_add(c->samples, samples);
	if (!t2f_sat_add_to(&c->weight, weight))
		p->capped = true;
	*idx = id - 1;
	return 0;
}

/* cell_add_at in a profile with cells left unindexed (profile_defer.c) or that may repeat: out
 * of line, so that a sample's cell in a segment's profile (neither) pays one test for them. */
static __attribute__((noinline)) int cell_add_watched(struct t2f_profile *p, t2f_node_id node,
						      t2f_thread_id thread, t2f_event_id event,
						      uint64_t samples, uint64_t weight,
						      uint32_t *idx)
{
	int err = t2f_profile__deferred(p, thread) ? t2f_profile__undefer(p, &thread, 1) : 0;

	return err ?: cell_lookup_add(p, node, thread, event, samples, weight, idx, true);
}

/* t2f_profile__cell_add with the cell's thread given (folded): reads no thread table. */
static int cell_add_at(struct t2f_profile *p, t2f_node_id node, t2f_thread_id thread,
		       t2f_event_id event, uint64_t samples, uint64_t weight, uint32_t *idx)
{
	int err = t2f_profile__indexes(p);

	if (err)
		return err;
	if (p->defer_of.len || p->repeat)
		return cell_add_watched(p, node, thread, event, samples, weight, idx);
	return cell_lookup_add(p, node, thread, event, samples, weight, idx, false);
}

int t2f_profile__cell_add(struct t2f_profile *p, t2f_node_id node, t2f_thread_id thread,
			  t2f_event_id event, uint64_t samples, uint64_t weight, uint32_t *idx)
{
	return cell_add_at(p, node, t2f_profile__folded(p, thread), event, samples, weight, idx);
}

int t2f_profile__add_sample(struct t2f_profile *p, t2f_node_id node, t2f_thread_id thread,
			    t2f_event_id event, uint64_t weight, uint64_t time_ns)
{
	return t2f_profile__add_sample_to(p, node, thread, t2f_profile__folded(p, thread), event,
					  weight, time_ns);
}

int t2f_profile__add_sample_to(struct t2f_profile *p, t2f_node_id node, t2f_thread_id thread,
			       t2f_thread_id cell_thread, t2f_event_id event, uint64_t weight,
			       uint64_t time_ns)
{
	uint32_t cell;
	int err = cell_add_at(p, node, cell_thread, event, 1, weight, &cell);

	if (err)
		return err;
	p->weightless += weight == 0;
	p->chainless += node == 0;
	if (time_ns == T2F_TIME_PAST)
		p->times_past++;
	else
		t2f_profile__note_time(p, time_ns, time_ns);
	if (p->hist && (err = t2f_time_hist__add(p->hist, event, time_ns, 1, weight)))
		return err;
	if (!p->log)
		return 0;
	err = t2f_sample_log__add(p->log, thread, cell, weight);
	if (err || !p->times)
		return err;
	return t2f_time_log__add(p->times, thread, time_ns == T2F_TIME_PAST ? 0 : time_ns, weight);
}

int t2f_profile__add_samples(struct t2f_profile *p, t2f_node_id node, t2f_thread_id thread,
			     t2f_event_id event, uint64_t samples, uint64_t weight)
{
	uint32_t cell;
	int err = t2f_profile__cell_add(p, node, thread, event, samples, weight, &cell);

	if (err)
		return err;
	p->read = t2f_sat_add(p->read, samples);
	if (weight == 0)
		p->weightless = t2f_sat_add(p->weightless, samples);
	if (node == 0)
		p->chainless = t2f_sat_add(p->chainless, samples);
	if (!p->log)
		return 0;
	err = t2f_sample_log__add(p->log, thread, cell, weight);
	return err || !p->times ? err : t2f_time_log__add(p->times, thread, 0, weight);
}

void t2f_profile__add_duration(struct t2f_profile *p, uint64_t ns)
{
	p->duration_ns = t2f_sat_add(p->duration_ns, ns);
}

uint64_t t2f_profile__duration(const struct t2f_profile *p) { return p->duration_ns; }

int t2f_profile__add_input_name(struct t2f_profile *p, t2f_str_id name)
{
	int err = t2f_grow((void **)&p->inputs, &p->inputs_cap, p->n_inputs, 1, sizeof(*p->inputs),
			   4, SIZE_MAX / sizeof(*p->inputs));

	if (!err)
		p->inputs[p->n_inputs++] = name;
	return err;
}

size_t t2f_profile__input_name_count(const struct t2f_profile *p) { return p->n_inputs; }

t2f_str_id t2f_profile__input_name_at(const struct t2f_profile *p, size_t i)
{
	return p->inputs[i];
}

int t2f_profile__add_module_map(struct t2f_profile *p, const struct t2f_module_map *m)
{
	int err = vec_reserve(&p->maps, sizeof(*m));

	if (err)
		return err;
	*VEC_AT(p->maps, struct t2f_module_map, p->maps.len++) = *m;
	return 0;
}

/* ---- read access ---- */

uint32_t t2f_profile__thread_count(const struct t2f_profile *p) { return (uint32_t)p->threads.len - 1; }
uint32_t t2f_profile__event_count(const struct t2f_profile *p) { return (uint32_t)p->events.len - 1; }
uint32_t t2f_profile__str_count(const struct t2f_profile *p)
{
	return t2f_strtab__count(p->strings);
}
uint32_t t2f_profile__frame_count(const struct t2f_profile *p) { return (uint32_t)p->frames.len - 1; }
uint32_t t2f_profile__node_count(const struct t2f_profile *p) { return (uint32_t)p->nodes.len - 1; }
uint32_t t2f_profile__module_map_count(const struct t2f_profile *p) { return (uint32_t)p->maps.len; }
size_t t2f_profile__cell_count(const struct t2f_profile *p) { return p->cells.len; }
size_t t2f_profile__sample_log_count(const struct t2f_profile *p)
{
	return p->log ? t2f_sample_log__count(p->log) : 0;
}

const struct t2f_thread *t2f_profile__thread_at(const struct t2f_profile *p, t2f_thread_id id)
{
	return VEC_AT(p->threads, struct t2f_thread, id);
}

const struct t2f_event *t2f_profile__event_at(const struct t2f_profile *p, t2f_event_id id)
{
	return VEC_AT(p->events, struct t2f_event, id);
}

const struct t2f_frame *t2f_profile__frame_at(const struct t2f_profile *p, t2f_frame_id id)
{
	return VEC_AT(p->frames, struct t2f_frame, id);
}

const struct t2f_module_map *t2f_profile__module_map_at(const struct t2f_profile *p, uint32_t idx)
{
	return VEC_AT(p->maps, struct t2f_module_map, idx);
}

t2f_node_id t2f_profile__node_parent(const struct t2f_profile *p, t2f_node_id node)
{
	return VEC_AT(p->nodes, struct node, node)->parent;
}

t2f_frame_id t2f_profile__node_frame(const struct t2f_profile *p, t2f_node_id node)
{
	return VEC_AT(p->nodes, struct node, node)->frame;
}

uint32_t t2f_profile__node_depth(const struct t2f_profile *p, t2f_node_id node)
{
	return VEC_AT(p->nodes, struct node, node)->depth;
}

const struct t2f_cell *t2f_profile__cell_at(const struct t2f_profile *p, size_t idx)
{
	return VEC_AT(p->cells, struct t2f_cell, idx);
}

size_t t2f_profile__thread_sample_count(const struct t2f_profile *p, t2f_thread_id thread)
{
	return p->log ? t2f_sample_log__group_samples(p->log, thread) : 0;
}

size_t t2f_profile__thread_run_count(const struct t2f_profile *p, t2f_thread_id thread)
{
	return p->log ? t2f_sample_log__group_runs(p->log, thread) : 0;
}

uint64_t t2f_profile__thread_log_weight(const struct t2f_profile *p, t2f_thread_id thread)
{
	return p->log ? t2f_sample_log__group_weight(p->log, thread) : 0;
}

struct t2f_sample_run t2f_profile__run_at(const struct t2f_profile *p, t2f_thread_id thread,
					  size_t idx)
{
	struct t2f_log_run r;
	const struct t2f_cell *c;

	t2f_sample_log__read(p->log, thread, idx, 1, &r);
	c = VEC_AT(p->cells, struct t2f_cell, r.cell);
	return (struct t2f_sample_run){ c->node, thread, c->event, r.samples, r.weight };
}

void t2f_profile__sample_runs(const struct t2f_profile *p, t2f_thread_id thread, size_t from,
			      size_t n, struct t2f_log_run *runs)
{
	t2f_sample_log__read(p->log, thread, from, n, runs);
}

void t2f_profile__note_span(struct t2f_profile *p, uint64_t first, uint64_t last)
{
	t2f_profile__note_time(p, first, last);
}

bool t2f_profile__time_span(const struct t2f_profile *p, uint64_t *first, uint64_t *last)
{
	if (!p->first_ns)
		return false;
	*first = p->first_ns;
	*last = p->last_ns;
	return true;
}

/* ---- accounting ---- */

const char *t2f_drop_reason_name(enum t2f_drop_reason r)
{
	static const char *const names[T2F_DROP__COUNT] = {
		[T2F_DROP_EMPTY_STACK] = "empty call chain",
		[T2F_DROP_MALFORMED] = "malformed sample",
		[T2F_DROP_TRUNCATED] = "truncated at end of input",
		[T2F_DROP_UNKNOWN_STACK] = "stack id never defined",
		[T2F_DROP_FILTERED] = ("filtered out by t2f_options.time, t2f_options.pids, "
				       "t2f_options.tids, t2f_options.comms"),
	};
	return (unsigned)r < T2F_DROP__COUNT ? names[r] : "unknown";
}

void t2f_profile__count_read(struct t2f_profile *p) { p->read++; }
void t2f_profile__count_drop(struct t2f_profile *p, enum t2f_drop_reason r) { p->dropped[r]++; }
uint64_t t2f_profile__samples_read(const struct t2f_profile *p) { return p->read; }
uint64_t t2f_profile__weightless_samples(const struct t2f_profile *p) { return p->weightless; }
bool t2f_profile__weights_capped(const struct t2f_profile *p) { return p->capped; }
uint64_t t2f_profile__times_past(const struct t2f_profile *p) { return p->times_past; }
uint64_t t2f_profile__chainless_samples(const struct t2f_profile *p) { return p->chainless; }
const struct t2f_lost *t2f_profile__lost(const struct t2f_profile *p) { return &p->lost; }

void t2f_profile__count_lost(struct t2f_profile *p, const struct t2f_lost *l)
{
	p->lost.records = t2f_sat_add(p->lost.records, l->records);
	p->lost.events = t2f_sat_add(p->lost.events, l->events);
	p->lost.samples = t2f_sat_add(p->lost.samples, l->samples);
	if (l->first_ns && (!p->lost.first_ns || l->first_ns < p->lost.first_ns))
		p->lost.first_ns = l->first_ns;
	if (l->last_ns > p->lost.last_ns)
		p->lost.last_ns = l->last_ns;
}

uint64_t t2f_profile__samples_dropped(const struct t2f_profile *p, enum t2f_drop_reason r)
{
	return p->dropped[r];
}

size_t t2f_profile__bytes(const struct t2f_profile *p)
{
	return t2f_strtab__bytes(p->strings) + p->threads.cap * sizeof(struct t2f_thread) +
	       p->events.cap * sizeof(struct t2f_event) + p->frames.cap * sizeof(struct t2f_frame) +
	       p->nodes.cap * sizeof(struct node) + p->cells.cap * sizeof(struct t2f_cell) +
	       (p->log ? t2f_sample_log__bytes(p->log) : 0) +
	       (p->times ? t2f_time_log__bytes(p->times) : 0) +
	       p->waits.cap * sizeof(struct t2f_wait_span) +
	       (p->hist ? t2f_time_hist__bytes(p->hist) : 0) +
	       p->maps.cap * sizeof(struct t2f_module_map) + p->folds.cap * sizeof(uint32_t) +
	       /* the indexes as built, dropped for writing or not: one entry per frame, node, cell */
	       (t2f_hashmap__count(p->thread_ix) + (p->frames.len - 1) + (p->nodes.len - 1) +
		p->cells.len) * 16;
}

