/* formats/profile.c: dense tables (1-based ids) with hash indexes for the lookup-or-add calls.
 * Every table is a growable array; the hash maps hold only ids (formats/hashmap.h). */
#include "formats/profile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats/diag.h"
#include "formats/event_name.h"
#include "formats/hashmap.h"
#include "formats/mem.h"
#include "formats/sat.h"
#include "formats/sample_log.h"

struct vec {
	void *data;
	size_t len, cap; /* elements */
};

struct node {
	t2f_node_id parent;
	t2f_frame_id frame;
	uint32_t depth;
};

struct t2f_profile {
	struct t2f_strtab *strings;
	struct vec threads, events, frames, nodes, cells, maps; /* index 0 unused but in cells/maps */
	struct t2f_hashmap *thread_ix, *frame_ix, *node_ix, *cell_ix;
	struct t2f_sample_log *log; /* NULL unless enabled */
	bool want_times;
	uint32_t frame_limit; /* 0 = none */
	uint64_t first_ns, last_ns; /* time span; 0 = no time seen */
	uint64_t read, weightless, dropped[T2F_DROP__COUNT];
	bool capped;
	uint64_t times_past, chainless;
	bool borrowed;              /* strings are another profile's (t2f_profile__new_stacks) */
};

/* Makes room for n more elements of size `elem`; 0 or -ENOMEM/-T2F_E_LIMIT. */
static int vec_reserve_n(struct vec *v, size_t elem, size_t n)
{
	size_t cap;
	void *nd;

	if (n <= v->cap - v->len)
		return 0;
	if (n > UINT32_MAX - v->len)
		return -T2F_E_LIMIT;
	for (cap = v->cap ? v->cap * 2 : 64; cap - v->len < n; cap *= 2)
		;
	if (cap > UINT32_MAX)
		return -T2F_E_LIMIT;
	nd = realloc(v->data, cap * elem);
	if (!nd)
		return -ENOMEM;
	t2f_mem__huge(nd, cap * elem);
	v->data = nd;
	v->cap = cap;
	return 0;
}

/* Makes room for one more element of size `elem`; 0 or -ENOMEM/-T2F_E_LIMIT. */
static int vec_reserve(struct vec *v, size_t elem)
{
	return vec_reserve_n(v, elem, 1);
}

#define VEC_AT(v, type, i) (&((type *)(v).data)[i])

int t2f_profile__new(struct t2f_profile **out)
{
	struct t2f_profile *p = calloc(1, sizeof(*p));
	struct vec *one_based[] = { &p->threads, &p->events, &p->frames, &p->nodes };
	size_t sizes[] = { sizeof(struct t2f_thread), sizeof(struct t2f_event),
			   sizeof(struct t2f_frame), sizeof(struct node) };

	if (!p)
		return -ENOMEM;
	if (t2f_strtab__new(&p->strings) || t2f_hashmap__new(64, &p->thread_ix) ||
	    t2f_hashmap__new(4096, &p->frame_ix) || t2f_hashmap__new(4096, &p->node_ix) ||
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

void t2f_profile__free(struct t2f_profile *p)
{
	if (!p)
		return;
	if (!p->borrowed)
		t2f_strtab__free(p->strings);
	free(p->threads.data);
	free(p->events.data);
	free(p->frames.data);
	free(p->nodes.data);
	free(p->cells.data);
	t2f_sample_log__free(p->log);
	free(p->maps.data);
	t2f_hashmap__free(p->thread_ix);
	t2f_hashmap__free(p->frame_ix);
	t2f_hashmap__free(p->node_ix);
	t2f_hashmap__free(p->cell_ix);
	free(p);
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

void t2f_profile__want_times(struct t2f_profile *p)
{
	p->want_times = true;
}

bool t2f_profile__wants_times(const struct t2f_profile *p)
{
	return p->want_times;
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
	       f->has_addr == q->key->has_addr && f->addr == q->key->addr &&
	       f->space == q->key->space && f->file == q->key->file && f->line == q->key->line &&
	       f->fn_file == q->key->fn_file && f->fn_line == q->key->fn_line;
}

void t2f_profile__limit_frames(struct t2f_profile *p, uint32_t max)
{
	p->frame_limit = max;
}

bool t2f_profile__frames_full(const struct t2f_profile *p)
{
	return p->frame_limit && p->frames.len - 1 >= p->frame_limit;
}

/* The fields frames are told apart by (an address only with has_addr). */
static struct t2f_frame frame_key(const struct t2f_frame *f)
{
	return (struct t2f_frame){ .name = f->name, .module = f->module, .kind = f->kind,
				   .has_addr = f->has_addr, .addr = f->has_addr ? f->addr : 0,
				   .space = f->has_addr ? f->space : T2F_ADDR_FILE_OFF,
				   .file = f->file, .line = f->line, .fn_file = f->fn_file,
				   .fn_line = f->fn_line };
}

static uint64_t frame_hash(const struct t2f_frame *key)
{
	return t2f_hash_u64(((uint64_t)key->name << 32 | key->module) ^
			    ((uint64_t)key->kind << 1 | key->has_addr) * 0x9e3779b97f4a7c15ULL) ^
	       t2f_hash_u64(key->addr + 1) ^
	       t2f_hash_u64(((uint64_t)key->file << 32 | key->line) + 0x51ed27);
}

int t2f_profile__frame(struct t2f_profile *p, const struct t2f_frame *f, t2f_frame_id *out)
{
	struct t2f_frame key = frame_key(f);
	struct frame_probe q = { p, &key };
	uint64_t h = frame_hash(&key);
	uint32_t id = t2f_hashmap__find(p->frame_ix, h, frame_eq, &q);
	int err;

	if (!id) {
		if (t2f_profile__frames_full(p))
			return -T2F_E_LIMIT;
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

static inline uint64_t node_hash(t2f_node_id parent, t2f_frame_id frame)
{
	return t2f_hash_u64((uint64_t)parent << 32 | frame);
}

static uint32_t node_find(const struct t2f_profile *p, t2f_node_id parent, t2f_frame_id frame,
			  uint64_t h)
{
	struct node_probe q = { p, parent, frame };

	return t2f_hashmap__find(p->node_ix, h, node_eq, &q);
}

/* Adds the node (parent, frame), known to be absent, as the next id. */
static int node_add(struct t2f_profile *p, t2f_node_id parent, t2f_frame_id frame, uint64_t h,
		    t2f_node_id *out)
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
	uint64_t h = node_hash(parent, frame);

	*out = node_find(p, parent, frame, h);
	return *out ? 0 : node_add(p, parent, frame, h, out);
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

/* Widens the time span to [first, last]; first 0 = no time. */
static void note_time(struct t2f_profile *p, uint64_t first, uint64_t last)
{
	if (!first)
		return;
	if (!p->first_ns || first < p->first_ns)
		p->first_ns = first;
	if (last > p->last_ns)
		p->last_ns = last;
}

static inline uint64_t cell_hash(t2f_node_id node, t2f_thread_id thread, t2f_event_id event)
{
	return t2f_hash_u64((uint64_t)node << 32 | thread) ^ t2f_hash_u64(~(uint64_t)event);
}

/* Adds (samples, weight) to the cell (node, thread, event), creating it at the end of the cell
 * table when new; *idx is its index. 0 or -ENOMEM/-T2F_E_LIMIT. */
static int cell_add(struct t2f_profile *p, t2f_node_id node, t2f_thread_id thread,
		    t2f_event_id event, uint64_t samples, uint64_t weight, uint32_t *idx)
{
	struct cell_probe q = { p, node, thread, event };
	uint64_t h = cell_hash(node, thread, event);
	uint32_t id = t2f_hashmap__find(p->cell_ix, h, cell_eq, &q);
	struct t2f_cell *c;
	int err;

	if (!id) {
		err = vec_reserve(&p->cells, sizeof(*c));
		if (err)
			return err;
		id = (uint32_t)p->cells.len + 1; /* hash values are 1-based */
		err = t2f_hashmap__insert(p->cell_ix, h, id);
		if (err)
			return err;
		*VEC_AT(p->cells, struct t2f_cell, id - 1) =
			(struct t2f_cell){ .node = node, .thread = thread, .event = event };
		p->cells.len++;
	}
	c = VEC_AT(p->cells, struct t2f_cell, id - 1);
	c->samples += samples;
	if (!t2f_sat_add_to(&c->weight, weight))
		p->capped = true;
	*idx = id - 1;
	return 0;
}

int t2f_profile__add_sample(struct t2f_profile *p, t2f_node_id node, t2f_thread_id thread,
			    t2f_event_id event, uint64_t weight, uint64_t time_ns)
{
	uint32_t cell;
	int err = cell_add(p, node, thread, event, 1, weight, &cell);

	if (err)
		return err;
	p->weightless += weight == 0;
	p->chainless += node == 0;
	if (time_ns == T2F_TIME_PAST)
		p->times_past++;
	else
		note_time(p, time_ns, time_ns);
	return p->log ? t2f_sample_log__add(p->log, thread, cell, weight) : 0;
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

struct t2f_sample_run t2f_profile__run_at(const struct t2f_profile *p, t2f_thread_id thread,
					  size_t idx)
{
	struct t2f_log_run r;
	const struct t2f_cell *c;

	t2f_sample_log__read(p->log, thread, idx, 1, &r);
	c = VEC_AT(p->cells, struct t2f_cell, r.cell);
	return (struct t2f_sample_run){ c->node, c->thread, c->event, r.samples, r.weight };
}

void t2f_profile__sample_runs(const struct t2f_profile *p, t2f_thread_id thread, size_t from,
			      size_t n, struct t2f_log_run *runs)
{
	t2f_sample_log__read(p->log, thread, from, n, runs);
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
	       p->maps.cap * sizeof(struct t2f_module_map) +
	       (t2f_hashmap__count(p->thread_ix) + t2f_hashmap__count(p->frame_ix) +
		t2f_hashmap__count(p->node_ix) + t2f_hashmap__count(p->cell_ix)) * 16;
}

/* ---- merging ---- */

/* src's ids → dst's, one array per table (index 0 = none maps to 0), in one allocation. */
struct id_maps {
	uint32_t *block;
	t2f_str_id *str;
	t2f_thread_id *thread;
	t2f_event_id *event;
	t2f_frame_id *frame;
	t2f_node_id *node;
	uint32_t *cell; /* 0-based, like cell indexes */
};

static int id_maps_alloc(struct id_maps *m, const struct t2f_profile *src)
{
	size_t nstr = (size_t)t2f_strtab__count(src->strings) + 1;
	size_t total = nstr + src->threads.len + src->events.len + src->frames.len +
		       src->nodes.len + src->cells.len;

	m->block = calloc(total, sizeof(*m->block));
	if (!m->block)
		return -ENOMEM;
	m->str = m->block;
	m->thread = m->str + nstr;
	m->event = m->thread + src->threads.len;
	m->frame = m->event + src->events.len;
	m->node = m->frame + src->frames.len;
	m->cell = m->node + src->nodes.len;
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

	for (size_t id = 1; id < src->threads.len; id++) {
		const struct t2f_thread *t = VEC_AT(src->threads, struct t2f_thread, id);

		err = t2f_profile__thread(dst, t->pid, t->tid, m->str[t->comm], t->input,
					  &m->thread[id]);
		if (err)
			return err;
	}
	return 0;
}

static int merge_events(struct t2f_profile *dst, const struct t2f_profile *src,
			struct id_maps *m)
{
	int err;

	for (size_t id = 1; id < src->events.len; id++) {
		const struct t2f_event *e = VEC_AT(src->events, struct t2f_event, id);

		err = t2f_profile__event(dst, m->str[e->name], e->unit, &m->event[id]);
		if (err)
			return err;
		if (e->has_period)
			t2f_profile__event_has_period(dst, m->event[id]);
	}
	return 0;
}

/* How many lookups ahead a merge loop asks for the slot its lookup will need: the loops' lookups
 * do not depend on each other (but for a node whose parent lies within that distance: its
 * prefetch is then of a wrong slot, which costs nothing else). */
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
	struct t2f_frame key = frame_key(&a);

	return frame_hash(&key);
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

	for (size_t id = 1; id < src->frames.len && id <= 2 * MERGE_AHEAD; id++)
		ring[id % (2 * MERGE_AHEAD)] = merged_frame_hash(src, m, id);
	for (size_t id = 1; id < src->frames.len; id++) {
		struct t2f_frame f = merged_frame(src, m, id);

		merge_frames_ahead(dst, src, m, id, ring);
		err = t2f_profile__frame(dst, &f, &m->frame[id]);
		if (err)
			return err;
	}
	return 0;
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
		if (a->depth != depth || fresh[a->parent])
			continue;
		h = node_hash(m->node[a->parent], m->frame[a->frame]);
		if (k == 2)
			t2f_hashmap__prefetch(dst->node_ix, h);
		else if ((c = t2f_hashmap__candidate(dst->node_ix, h)))
			__builtin_prefetch(VEC_AT(dst->nodes, struct node, c));
	}
}

/* The src nodes dst has already, looked up by depth so that the nodes ahead can be asked for
 * (find_nodes_ahead). A node under a node dst lacks is not looked up: dst lacks it too. Marks
 * the nodes dst lacks in fresh[]. */
static void find_nodes(const struct t2f_profile *dst, const struct t2f_profile *src,
		       struct id_maps *m, const uint32_t *order, uint8_t *fresh)
{
	size_t n = src->nodes.len - 1;

	for (size_t i = 0; i < n; i++) {
		uint32_t id = order[i];
		const struct node *nd = VEC_AT(src->nodes, struct node, id);

		find_nodes_ahead(dst, src, m, order, fresh, i);
		if (!fresh[nd->parent])
			m->node[id] = node_find(dst, m->node[nd->parent], m->frame[nd->frame],
						node_hash(m->node[nd->parent], m->frame[nd->frame]));
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
		t2f_node_id got;

		for (; ahead < n && ahead < id + MERGE_AHEAD; ahead++) {
			const struct node *a = VEC_AT(src->nodes, struct node, ahead);

			if (fresh[ahead])
				t2f_hashmap__prefetch(dst->node_ix,
						      node_hash(m->node[a->parent], m->frame[a->frame]));
		}
		if (!fresh[id])
			continue;
		err = node_add(dst, m->node[nd->parent], m->frame[nd->frame],
			       node_hash(m->node[nd->parent], m->frame[nd->frame]), &got);
		if (!err && got != m->node[id])
			err = -EINVAL; /* cannot happen: the ids were counted above */
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

static int merge_module_maps(struct t2f_profile *dst, const struct t2f_profile *src,
			     struct id_maps *m)
{
	int err = vec_reserve_n(&dst->maps, sizeof(struct t2f_module_map), src->maps.len);

	if (err)
		return err;
	for (size_t i = 0; i < src->maps.len; i++) {
		struct t2f_module_map *to = VEC_AT(dst->maps, struct t2f_module_map, dst->maps.len++);

		*to = *VEC_AT(src->maps, struct t2f_module_map, i);
		to->path = m->str[to->path];
		to->build_id = m->str[to->build_id];
		to->prot = m->str[to->prot];
	}
	return 0;
}

static int merge_cells(struct t2f_profile *dst, const struct t2f_profile *src,
		       struct id_maps *m)
{
	int err;

	for (size_t i = 0; i < src->cells.len; i++) {
		const struct t2f_cell *c = VEC_AT(src->cells, struct t2f_cell, i);

		if (i + MERGE_AHEAD < src->cells.len) {
			const struct t2f_cell *a = VEC_AT(src->cells, struct t2f_cell, i + MERGE_AHEAD);

			t2f_hashmap__prefetch(dst->cell_ix, cell_hash(m->node[a->node],
								      m->thread[a->thread],
								      m->event[a->event]));
		}
		err = cell_add(dst, m->node[c->node], m->thread[c->thread], m->event[c->event],
			       c->samples, c->weight, &m->cell[i]);
		if (err)
			return err;
	}
	return 0;
}

static int merge_log(struct t2f_profile *dst, struct t2f_profile *src, const struct id_maps *m)
{
	if (!dst->log || !src->log)
		return 0;
	return t2f_sample_log__take(dst->log, src->log, m->cell, src->cells.len, m->thread);
}

static void merge_counts(struct t2f_profile *dst, const struct t2f_profile *src)
{
	note_time(dst, src->first_ns, src->last_ns);
	dst->read += src->read;
	dst->weightless += src->weightless;
	dst->capped |= src->capped;
	dst->times_past += src->times_past;
	dst->chainless += src->chainless;
	for (size_t r = 0; r < T2F_DROP__COUNT; r++)
		dst->dropped[r] += src->dropped[r];
}

/* One table's merge step: fills its part of m (tables use the maps of the earlier steps). */
typedef int (*merge_step_fn)(struct t2f_profile *dst, const struct t2f_profile *src,
			     struct id_maps *m);

int t2f_profile__merge(struct t2f_profile *dst, struct t2f_profile *src)
{
	static const merge_step_fn steps[] = {
		merge_strings, merge_threads, merge_events, merge_frames,
		merge_nodes, merge_module_maps, merge_cells,
	};
	struct id_maps m;
	int err = id_maps_alloc(&m, src);

	for (size_t i = 0; !err && i < sizeof(steps) / sizeof(steps[0]); i++)
		err = steps[i](dst, src, &m);
	err = err ?: merge_log(dst, src, &m);
	if (!err)
		merge_counts(dst, src);
	free(m.block);
	return err;
}

/* ---- new stacks ---- */

int t2f_profile__new_stacks(struct t2f_profile *p, struct t2f_profile **out)
{
	struct t2f_profile *q;
	int err = t2f_profile__new(&q);

	if (err)
		return err;
	t2f_strtab__free(q->strings);
	q->strings = p->strings;
	q->borrowed = true;
	q->frame_limit = p->frame_limit;
	err = p->log ? t2f_sample_log__new(&q->log) : 0;
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

		err = cell_add(q, map[c->node], c->thread, c->event, c->samples, c->weight,
			       &cell_map[i]);
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
