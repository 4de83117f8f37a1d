/* writers/pprof.c: the Profile message, encoded field by field into a buffer that is handed to
 * the gzip stage every MiB, so memory is bounded by the tables, not by the output.
 *
 * Field order: sample_type, sample, mapping, location, function, time/duration, period,
 * comment, default_sample_type, then string_table last (every string is interned by then).
 * Samples: cells grouped by (node, thread) in order of first appearance (one event: each cell
 * is its own sample, no grouping, but for cells that repeat an earlier one: t2f_profile__sums);
 * each thread's labels are encoded once and copied.
 */
#include "writers/pprof.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats/bg.h"
#include "formats/bits.h"
#include "formats/diag.h"
#include "formats/hashmap.h"
#include "formats/pb_wire.h"
#include "formats/sat.h"
#include "writers/pprof_int.h"

/* Encoded bytes handed to the deflate threads at a time (a block): the last block is deflated
 * after the encoding ends, so smaller blocks leave less of it for the end (held9.txt, 2.9 MB
 * encoded: 1 MiB blocks 47.8 ms, 256 KiB 46.7 ms, 1,000 bytes fewer out). */
#define DRAIN_AT (256u << 10)
#define SAMPLE_AHEAD 8 /* samples ahead whose stacks' nodes are asked for (prefetch_stack) */

/* Profile field numbers (profile.proto). */
enum {
	PF_SAMPLE_TYPE = 1, PF_SAMPLE = 2, PF_MAPPING = 3, PF_LOCATION = 4, PF_FUNCTION = 5,
	PF_STRING_TABLE = 6, PF_TIME_NANOS = 9, PF_DURATION_NANOS = 10, PF_PERIOD_TYPE = 11,
	PF_PERIOD = 12, PF_COMMENT = 13, PF_DEFAULT_SAMPLE_TYPE = 14,
};

struct pp_group {
	t2f_node_id node;
	t2f_thread_id thread;
};

/* The samples: the cells grouped by (node, thread), in order of first appearance (one event:
 * each cell is its own sample), and their values. Grouped on a thread of its own while the tables
 * are built (group_cells reads only the cells), into a block of its own, in cache lines of its
 * own. */
struct pp_groups {
	const struct t2f_profile *p;
	size_t cols;               /* values a sample: 2 * events */
	bool by_cell;              /* sample g is cell g (one event, no threads merged): group
				    * and values are not made (a whole-machine text's 363K cells:
				    * 8.7 MB of fresh pages, a fifth of the writer's) */
	const struct t2f_cell_sums *sums; /* by_cell, but the profile's cells repeat: a cell
					   * set in `repeats` is no sample, one set in `repeated`
					   * has its repeats' values added */
	const uint64_t *repeats, *repeated;
	struct t2f_cell_sums *own_sums;   /* sums made here (none began) */
	bool sums_begun;                  /* the profile makes them (t2f_profile__sums_begin):
					   * waited for on the writer's thread */
	struct pp_group *group;
	size_t n;
	uint64_t *values;          /* [n * cols] */
	t2f_thread_id *rep;        /* per thread: the first with its labels */
};

struct pp {
	const struct t2f_profile *p;
	const struct t2f_pprof_opts *o;
	struct t2f_pprof_tables t;
	struct t2f_pprof_gz *gz;
	struct t2f_buf enc;
	uint32_t nevents;
	t2f_event_id event;        /* default sample type and period */
	uint32_t *type_name;       /* [2 * nevents]: count and weight column names */
	uint32_t *type_unit;
	struct pp_groups *g;       /* the samples */
	uint32_t *chain;           /* per used node: how many bytes its location ids up to the
				    * root take packed (a sample's ids are its node's) */
	struct t2f_buf labels;     /* each thread's encoded Label fields */
	size_t *label_off;         /* thread t's labels: [label_off[t], label_off[t + 1]) */
	bool *used;                /* per thread: some sample's (after grouping, the first with
				    * its labels) */
	uint64_t *comments;        /* string indices */
	size_t ncomments;
};

static int drain(struct pp *s)
{
	return s->enc.len >= DRAIN_AT ? t2f_pprof_gz__drain(s->gz, &s->enc) : 0;
}

static int str(struct pp *s, const char *text, uint32_t *idx)
{
	return t2f_pprof_tables__str(&s->t, text, strlen(text), idx);
}

/* ---- sample types ---- */

static bool name_taken(const struct pp *s, size_t n, uint32_t idx)
{
	for (size_t i = 0; i < n; i++)
		if (s->type_name[i] == idx)
			return true;
	return false;
}

/* "<event>" (or "<event>-weight" when that name is taken by an earlier column). */
static int weight_name(struct pp *s, const struct t2f_event *ev, size_t col, struct t2f_buf *b)
{
	size_t len;
	const char *name = t2f_profile__str(s->p, ev->name, &len);
	int err;

	b->len = 0;
	err = t2f_buf__put(b, name, len) ?:
	      t2f_pprof_tables__str(&s->t, b->p ? b->p : "", b->len, &s->type_name[col]);
	if (err || (b->len && !name_taken(s, col, s->type_name[col])))
		return err;
	err = t2f_buf__put(b, "-weight", 7);
	return err ?: t2f_pprof_tables__str(&s->t, b->p, b->len, &s->type_name[col]);
}

static int sample_types(struct pp *s)
{
	struct t2f_buf b = { 0 };
	int err = 0;

	s->type_name = calloc(2 * (size_t)s->nevents + 1, sizeof(*s->type_name));
	s->type_unit = calloc(2 * (size_t)s->nevents + 1, sizeof(*s->type_unit));
	if (!s->type_name || !s->type_unit)
		return -ENOMEM;
	for (uint32_t e = 1; !err && e <= s->nevents; e++) {
		const struct t2f_event *ev = t2f_profile__event_at(s->p, e);
		size_t col = 2 * (size_t)(e - 1), len;
		const char *name = t2f_profile__str(s->p, ev->name, &len);

		b.len = 0;
		if (s->nevents == 1)
			err = t2f_buf__put(&b, "samples", 7);
		else
			err = t2f_buf__put(&b, name, len) ?: t2f_buf__put(&b, "-samples", 8);
		err = err ?: t2f_pprof_tables__str(&s->t, b.p, b.len, &s->type_name[col]) ?:
		      str(s, "count", &s->type_unit[col]) ?: weight_name(s, ev, col + 1, &b) ?:
		      str(s, ev->unit == T2F_UNIT_NANOSECONDS ? "nanoseconds" : "count",
			  &s->type_unit[col + 1]);
	}
	t2f_buf__free(&b);
	return err;
}

static int put_value_type(struct t2f_buf *b, uint32_t field, uint32_t type, uint32_t unit)
{
	size_t m;

	return t2f_pb__open(b, field, &m) ?: t2f_pb__put_uint64(b, 1, type) ?:
	       t2f_pb__put_uint64(b, 2, unit) ?: t2f_pb__close(b, m);
}

/* ---- samples ---- */

struct group_probe {
	const struct pp_groups *g;
	struct pp_group key;
};

static bool group_eq(const void *ctx, uint32_t v)
{
	const struct group_probe *q = ctx;
	const struct pp_group *g = &q->g->group[v - 1];

	return g->node == q->key.node && g->thread == q->key.thread;
}

struct thread_probe {
	const struct t2f_profile *p;
	const struct t2f_thread *key;
};

static bool thread_eq(const void *ctx, uint32_t v)
{
	const struct thread_probe *q = ctx;
	const struct t2f_thread *t = t2f_profile__thread_at(q->p, v);

	return t->pid == q->key->pid && t->tid == q->key->tid && t->comm == q->key->comm;
}

/* Per thread, the first thread with its labels (pid, tid, comm): threads of several inputs
 * with equal labels are one in pprof, so that its samples are the ones reading the output back
 * gives. *merged: some thread is another's. */
static int thread_reps(struct pp_groups *gs, bool *merged)
{
	uint32_t n = t2f_profile__thread_count(gs->p);
	struct t2f_hashmap *m = NULL;
	int err = t2f_hashmap__new(n, &m);

	*merged = false;
	gs->rep = calloc((size_t)n + 1, sizeof(*gs->rep));
	if (!err && !gs->rep)
		err = -ENOMEM;
	for (t2f_thread_id t = 1; !err && t <= n; t++) {
		const struct t2f_thread *th = t2f_profile__thread_at(gs->p, t);
		struct thread_probe q = { gs->p, th };
		uint64_t h = t2f_hash_u64((uint64_t)th->pid * 31 + (uint64_t)th->tid) ^
			     t2f_hash_u64(th->comm);

		gs->rep[t] = t2f_hashmap__find(m, h, thread_eq, &q);
		*merged |= gs->rep[t] != 0;
		if (!gs->rep[t]) {
			gs->rep[t] = t;
			err = t2f_hashmap__insert(m, h, t);
		}
	}
	t2f_hashmap__free(m);
	return err;
}

/* by_cell with repeated cells: the samples are the first cells (t2f_profile__sums), the others
 * skipped where samples are written (a repeat's stack and thread are its first's: walking it
 * again changes nothing). */
static int take_sums(struct pp_groups *gs)
{
	int err = t2f_profile__sums(gs->p, &gs->sums, &gs->own_sums);

	if (err)
		return err;
	gs->repeats = t2f_cell_sums__repeats(gs->sums);
	gs->repeated = t2f_cell_sums__repeated(gs->sums);
	return 0;
}

/* Whether group g is a repeat of an earlier one (no sample of its own). */
static bool is_repeat(const struct pp_groups *gs, size_t g)
{
	return gs->repeats && t2f_bit_get(gs->repeats, g);
}

/* The sample (group) index of every cell: itself with one event and no threads merged (by_cell),
 * else by (node, thread's labels). */
static int group_cells(struct pp_groups *gs)
{
	size_t cells = t2f_profile__cell_count(gs->p), cols = gs->cols, n = 0;
	struct t2f_hashmap *m = NULL;
	bool merged;
	int err = thread_reps(gs, &merged);

	if (!err && cols <= 2 && !merged) {
		gs->by_cell = true;
		gs->n = cells;
		if (cells >= UINT32_MAX - 1)
			return -T2F_ERR_LIMIT;
		return t2f_profile__has_repeats(gs->p) && !gs->sums_begun ? take_sums(gs) : 0;
	}
	gs->group = malloc((cells + 1) * sizeof(*gs->group));
	/* not calloc: a row is zeroed when its group is made, so each page is first written. Read
	 * first (calloc's fresh pages are the shared zero page until written), every page faulted
	 * twice, the second time copying it and flushing the other CPUs' TLBs (ci5k.txt: 7% of the
	 * run's CPU) */
	gs->values = cells + 1 <= SIZE_MAX / sizeof(*gs->values) / (cols ? cols : 1) ?
		     malloc((cells + 1) * cols * sizeof(*gs->values)) : NULL;
	if (!err && (!gs->group || !gs->values))
		err = -ENOMEM;
	if (err || (err = t2f_hashmap__new(cells, &m)))
		return err;
	for (size_t i = 0; !err && i < cells; i++) {
		const struct t2f_cell *c = t2f_profile__cell_at(gs->p, i);
		struct group_probe q = { gs, { c->node, gs->rep[c->thread] } };
		uint64_t h = t2f_hash_u64((uint64_t)c->node << 32 | c->thread);
		size_t g = t2f_hashmap__find(m, h, group_eq, &q);
		uint64_t *v;

		if (!g) {
			if (n >= UINT32_MAX - 1) {
				err = -T2F_ERR_LIMIT;
				break;
			}
			gs->group[n++] = q.key;
			g = n;
			memset(&gs->values[(g - 1) * cols], 0, cols * sizeof(*gs->values));
			err = t2f_hashmap__insert(m, h, (uint32_t)g);
		}
		v = &gs->values[(g - 1) * cols + 2 * (size_t)(c->event - 1)];
		v[0] = t2f_sat_add(v[0], c->samples);
		v[1] = t2f_sat_add(v[1], c->weight);
	}
	t2f_hashmap__free(m);
	for (size_t i = 0; i < n * cols; i++) /* values are int64 */
		gs->values[i] = (uint64_t)t2f_sat_i64(gs->values[i]);
	gs->n = n;
	return err;
}

/* What the thread beside the tables does: the samples' grouping, then the gzip stage made (its
 * engines, their threads and the header: 0.8-1.2 ms on h43.txt, off the writer's path). */
struct pp_beside {
	struct pp_groups *g;
	struct t2f_out *out;
	enum t2f_pprof_gz_mode mode;
	struct t2f_pprof_gz *gz;
};

static int beside_job(void *ctx, void *job)
{
	struct pp_beside *b = job;

	(void)ctx;
	return group_cells(b->g) ?: t2f_pprof_gz__new(b->out, b->mode, &b->gz);
}

static void groups_free(struct pp_groups *gs)
{
	if (!gs)
		return;
	free(gs->group);
	free(gs->values);
	free(gs->rep);
	t2f_cell_sums__free(gs->own_sums);
	free(gs);
}

/* Sample g's stack and thread. */
static struct pp_group group_at(const struct pp_groups *gs, size_t g)
{
	const struct t2f_cell *c;

	if (!gs->by_cell)
		return gs->group[g];
	c = t2f_profile__cell_at(gs->p, g);
	return (struct pp_group){ c->node, c->thread };
}

/* Sample g's values: in gs->values, or made in tmp from its cell (by_cell: one event). */
static const uint64_t *values_at(const struct pp_groups *gs, size_t g, uint64_t tmp[2])
{
	const struct t2f_cell *c;

	if (!gs->by_cell)
		return gs->values + g * gs->cols;
	c = t2f_profile__cell_at(gs->p, g);
	tmp[0] = c->samples;
	tmp[1] = c->weight;
	if (gs->repeated && t2f_bit_get(gs->repeated, g))
		t2f_cell_sums__add(gs->sums, (uint32_t)g, tmp);
	tmp[0] = (uint64_t)t2f_sat_i64(tmp[0]);
	tmp[1] = (uint64_t)t2f_sat_i64(tmp[1]);
	return tmp;
}

static int put_label(struct t2f_buf *b, uint32_t key, bool num, int64_t v)
{
	size_t m;

	return t2f_pb__open(b, 3, &m) ?: t2f_pb__put_uint64(b, 1, key) ?:
	       t2f_pb__put_int64(b, num ? 3 : 2, v) ?: t2f_pb__close(b, m);
}

/* Labels pid (when known), tid and thread (the comm, when not empty) per thread. */
static int thread_labels(struct pp *s)
{
	uint32_t n = t2f_profile__thread_count(s->p), kpid, ktid, kthread;
	int err = str(s, "pid", &kpid) ?: str(s, "tid", &ktid) ?: str(s, "thread", &kthread);

	s->label_off = malloc(((size_t)n + 2) * sizeof(*s->label_off));
	if (!s->label_off)
		return -ENOMEM;
	s->label_off[0] = s->label_off[1] = 0;
	for (uint32_t i = 1; !err && i <= n; i++) {
		const struct t2f_thread *th = t2f_profile__thread_at(s->p, i);
		uint32_t comm;
		size_t len;
		const char *c = t2f_profile__str(s->p, th->comm, &len);

		s->label_off[i + 1] = s->labels.len;
		if (!s->used[i]) /* no sample names it */
			continue;
		if (th->pid != T2F_PID_UNKNOWN)
			err = put_label(&s->labels, kpid, true, th->pid);
		err = err ?: put_label(&s->labels, ktid, true, th->tid) ?:
		      t2f_pprof_tables__str(&s->t, c, len, &comm);
		if (!err && comm)
			err = put_label(&s->labels, kthread, false, comm);
		s->label_off[i + 1] = s->labels.len;
	}
	return err;
}

/* Asks the CPU for the first node of the stack of sample g + 2 * SAMPLE_AHEAD, and for the
 * second of g + SAMPLE_AHEAD's (its first is there by then): the walk up a stack, one node's
 * next after another, otherwise waits for each (on wm, 283K samples: 0.022 -> 0.018 s). */
static void prefetch_stack(const struct pp *s, size_t g)
{
	if (g + 2 * SAMPLE_AHEAD < s->g->n) {
		t2f_node_id nd = group_at(s->g, g + 2 * SAMPLE_AHEAD).node;

		__builtin_prefetch(&s->t.nodes[nd]);
		__builtin_prefetch(&s->chain[nd]);
	}
	if (g + SAMPLE_AHEAD < s->g->n) {
		t2f_node_id nd = group_at(s->g, g + SAMPLE_AHEAD).node;

		__builtin_prefetch(&s->t.nodes[s->t.nodes[nd].next]);
	}
}

/* Each used node's chain: how many locations its stack names, up to the root (a node's next is
 * below it: one pass up the ids), for a sample's room. 0, -ENOMEM, or -T2F_ERR_LIMIT for a
 * sample's ids past 4 GB. */
static int chains(struct pp *s)
{
	uint32_t n = t2f_profile__node_count(s->p);

	s->chain = calloc((size_t)n + 1, sizeof(*s->chain));
	if (!s->chain)
		return -ENOMEM;
	for (t2f_node_id nd = 1; nd <= n; nd++) {
		uint32_t up;

		if (!s->t.nodes[nd].loc)
			continue;
		up = s->chain[s->t.nodes[nd].next];
		if (up > UINT32_MAX / 5 - 16)
			return -T2F_ERR_LIMIT;
		s->chain[nd] = 1 + up;
	}
	return 0;
}

#define SAMPLE_HEAD 4 /* a Sample's key and length, its ids' key and length: a byte each */

/* One Sample: its location ids, innermost first, then its values (both packed), then its
 * thread's labels, written at a cursor in one reservation (one room check a message, not one a
 * field). The ids are numbered as the walk up the stack meets them (the order's, pprof_int.h),
 * so they are written first, SAMPLE_HEAD bytes on, and moved on when the lengths before them
 * take more (ids or a message of 128 bytes or more). */
static int put_sample(struct pp *s, size_t g)
{
	const struct pp_group gr = group_at(s->g, g);
	size_t cols = s->g->cols, nloc, nval, body, head;
	size_t lo = s->label_off[gr.thread], hi = s->label_off[gr.thread + 1];
	uint64_t tmp[2];
	const uint64_t *v = values_at(s->g, g, tmp);
	char *at, *ids, *w;

	nval = t2f_pb__packed_u64_size(v, cols);
	if (t2f_buf__reserve(&s->enc, 24 + 5 * (size_t)s->chain[gr.node] + nval + (hi - lo)))
		return -ENOMEM;
	at = s->enc.p + s->enc.len;
	ids = w = at + SAMPLE_HEAD;
	for (t2f_node_id nd = gr.node; nd; nd = s->t.nodes[nd].next)
		w = t2f_pb__at_varint(w, t2f_pprof_tables__loc_id(&s->t, s->t.nodes[nd].loc));
	nloc = (size_t)(w - ids);
	body = (nloc ? 1 + t2f_pb__varint_size(nloc) + nloc : 0) +
	       (cols ? 1 + t2f_pb__varint_size(nval) + nval : 0) + (hi - lo);
	head = 1 + t2f_pb__varint_size(body) + (nloc ? 1 + t2f_pb__varint_size(nloc) : 0);
	if (head != SAMPLE_HEAD && nloc)
		memmove(at + head, ids, nloc);
	w = t2f_pb__at_varint(t2f_pb__at_key(at, PF_SAMPLE, T2F_PB_LEN), body);
	if (nloc)
		w = t2f_pb__at_varint(t2f_pb__at_key(w, 1, T2F_PB_LEN), nloc) + nloc;
	if (cols)
		w = t2f_pb__at_varint(t2f_pb__at_key(w, 2, T2F_PB_LEN), nval);
	for (size_t c = 0; c < cols; c++)
		w = t2f_pb__at_varint(w, v[c]);
	if (hi > lo)
		memcpy(w, s->labels.p + lo, hi - lo);
	s->enc.len = (size_t)(w - s->enc.p) + (hi - lo);
	return drain(s);
}

/* ---- tables ---- */

static int prof_module(struct pp *s, t2f_str_id id, uint32_t *idx)
{
	size_t len;
	const char *path = t2f_profile__str(s->p, id, &len);

	return t2f_pprof_tables__str(&s->t, path, len, idx);
}

static int put_mapping(struct pp *s, uint32_t id)
{
	const struct t2f_pprof_map *mp = &s->t.maps[id];
	struct t2f_buf *b = &s->enc;
	uint32_t file;
	size_t m;
	int err = t2f_pb__open(b, PF_MAPPING, &m) ?: t2f_pb__put_uint64(b, 1, id);

	if (!err && mp->has_range)
		err = t2f_pb__put_uint64(b, 2, mp->start) ?: t2f_pb__put_uint64(b, 3, mp->limit) ?:
		      t2f_pb__put_uint64(b, 4, mp->pgoff);
	err = err ?: prof_module(s, mp->module, &file) ?: t2f_pb__put_uint64(b, 5, file);
	if (!err && mp->build_id)
		err = t2f_pb__put_uint64(b, 6, mp->build_id);
	if (!err && mp->has_functions)
		err = t2f_pb__put_bool(b, 7, true);
	if (!err && mp->has_filenames)
		err = t2f_pb__put_bool(b, 8, true);
	if (!err && mp->has_line_numbers)
		err = t2f_pb__put_bool(b, 9, true);
	if (!err && mp->has_inline_frames)
		err = t2f_pb__put_bool(b, 10, true);
	return err ?: t2f_pb__close(b, m) ?: drain(s);
}

/* A Location, then its Lines, innermost first, each written at a cursor (a Line's size is known
 * before it is written). */
static int put_location(struct pp *s, uint32_t id)
{
	const struct t2f_pprof_loc *l = &s->t.locs[id];
	struct t2f_buf *b = &s->enc;
	size_t m;
	char *w;
	int err = t2f_pb__open(b, PF_LOCATION, &m) ?: t2f_buf__reserve(b, 3 * 11);

	if (err)
		return err;
	w = t2f_pb__at_uint64(b->p + b->len, 1, id);
	if (l->mapping)
		w = t2f_pb__at_uint64(w, 2, l->mapping);
	if (l->address)
		w = t2f_pb__at_uint64(w, 3, l->address);
	b->len = (size_t)(w - b->p);
	for (uint32_t i = id; i; i = s->t.locs[i].tail) { /* innermost first */
		t2f_frame_id f = s->t.locs[i].frame;
		uint64_t func = s->t.frame_func[f], line = t2f_profile__frame_at(s->p, f)->line;
		size_t body = 1 + t2f_pb__varint_size(func) + (line ? 1 + t2f_pb__varint_size(line) : 0);

		if (t2f_buf__reserve(b, 2 + body)) /* (a body of 32-bit values: a 1-byte length) */
			return -ENOMEM;
		w = t2f_pb__at_varint(t2f_pb__at_key(b->p + b->len, 4, T2F_PB_LEN), body);
		w = t2f_pb__at_uint64(w, 1, func);
		if (line)
			w = t2f_pb__at_uint64(w, 2, line);
		b->len = (size_t)(w - b->p);
	}
	return t2f_pb__close(b, m) ?: drain(s);
}

static int put_function(struct pp *s, uint32_t id)
{
	const struct t2f_pprof_func *f = &s->t.funcs[id];
	struct t2f_buf *b = &s->enc;
	size_t m;
	int err = t2f_pb__open(b, PF_FUNCTION, &m) ?: t2f_pb__put_uint64(b, 1, id) ?:
		  t2f_pb__put_uint64(b, 2, f->name);

	if (!err && f->system_name)
		err = t2f_pb__put_uint64(b, 3, f->system_name);
	if (!err && f->filename)
		err = t2f_pb__put_uint64(b, 4, f->filename);
	if (!err && f->start_line)
		err = t2f_pb__put_int64(b, 5, f->start_line);
	return err ?: t2f_pb__close(b, m) ?: drain(s);
}

/* ---- scalars ---- */

/* The event's mean period, rounded; 0 without samples. */
static uint64_t mean_period(const struct t2f_profile *p, t2f_event_id ev)
{
	size_t n = t2f_profile__cell_count(p);
	uint64_t samples = 0, weight = 0;

	for (size_t i = 0; i < n; i++) {
		const struct t2f_cell *c = t2f_profile__cell_at(p, i);

		if (c->event == ev) {
			samples = t2f_sat_add(samples, c->samples);
			weight = t2f_sat_add(weight, c->weight);
		}
	}
	return samples ? t2f_sat_add(weight, samples / 2) / samples : 0;
}

static int put_scalars(struct pp *s)
{
	struct t2f_buf *b = &s->enc;
	uint64_t first = 0, last = 0, period;
	int err = 0;

	if (s->o->time_nanos)
		err = t2f_pb__put_int64(b, PF_TIME_NANOS, s->o->time_nanos);
	if (!err && t2f_profile__duration(s->p))
		err = t2f_pb__put_int64(b, PF_DURATION_NANOS, t2f_sat_i64(t2f_profile__duration(s->p)));
	else if (!err && t2f_profile__time_span(s->p, &first, &last) && last > first)
		err = t2f_pb__put_int64(b, PF_DURATION_NANOS, t2f_sat_i64(last - first));
	if (!err && s->event && t2f_profile__event_at(s->p, s->event)->has_period &&
	    (period = mean_period(s->p, s->event)))
		err = put_value_type(b, PF_PERIOD_TYPE, s->type_name[2 * (s->event - 1) + 1],
				     s->type_unit[2 * (s->event - 1) + 1]) ?:
		      t2f_pb__put_int64(b, PF_PERIOD, t2f_sat_i64(period));
	if (!err && s->ncomments)
		err = t2f_pb__put_packed_u64(b, PF_COMMENT, s->comments, s->ncomments);
	if (!err && s->event)
		err = t2f_pb__put_uint64(b, PF_DEFAULT_SAMPLE_TYPE,
					 s->type_name[2 * (s->event - 1) + 1]);
	return err;
}

/* "input: NAME" into the comments. */
static int input_comment(struct pp *s, const char *name, size_t len, struct t2f_buf *b)
{
	b->len = 0;
	return t2f_buf__put(b, "input: ", 7) ?: t2f_buf__put(b, name, len) ?:
	       t2f_pprof_tables__str(&s->t, b->p, b->len, (uint32_t *)&s->comments[s->ncomments++]);
}

static int comments(struct pp *s)
{
	size_t names = s->o->input_given ? 0 : t2f_profile__input_name_count(s->p);
	struct t2f_buf b = { 0 };
	uint32_t idx;
	int err;

	s->comments = calloc(names + 2, sizeof(*s->comments));
	if (!s->comments)
		return -ENOMEM;
	err = str(s, "trace2flame " T2F_VERSION, &idx);
	s->comments[s->ncomments++] = idx;
	for (size_t i = 0; !err && i < names; i++) {
		size_t len;
		const char *name = t2f_profile__str(s->p, t2f_profile__input_name_at(s->p, i), &len);

		err = input_comment(s, name, len, &b);
	}
	if (!err && !names && s->o->input)
		err = input_comment(s, s->o->input, strlen(s->o->input), &b);
	t2f_buf__free(&b);
	return err;
}

static int put_strings(struct pp *s)
{
	uint32_t n = t2f_strtab__count(s->t.strs);
	int err = t2f_pb__put_bytes(&s->enc, PF_STRING_TABLE, "", 0);

	for (uint32_t i = 1; !err && i <= n; i++) {
		size_t len;
		const char *text = t2f_strtab__str(s->t.strs, i, &len);

		err = t2f_pb__put_bytes(&s->enc, PF_STRING_TABLE, text, len) ?: drain(s);
	}
	return err;
}

/* ---- the message ---- */

/* The strings renumbered (pprof_order.c, t2f_pprof_tables__order_begin): the sample types'
 * first, the label keys, the comms of the threads samples name; the tables follow as the
 * samples are encoded (encode). */
static int order(struct pp *s)
{
	size_t cols = 2 * (size_t)s->nevents, n = 0;
	uint32_t nthreads = t2f_profile__thread_count(s->p);
	uint32_t *idx = malloc((2 * cols + 3 + nthreads) * sizeof(*idx));
	struct t2f_pprof_strs strs = { idx, 0 };
	int err;

	s->used = calloc((size_t)nthreads + 1, sizeof(*s->used));
	err = idx && s->used ? 0 : -ENOMEM;
	if (!err) {
		memcpy(idx, s->type_name, cols * sizeof(*idx));
		memcpy(idx + cols, s->type_unit, cols * sizeof(*idx));
		err = str(s, "pid", &idx[2 * cols]) ?: str(s, "tid", &idx[2 * cols + 1]) ?:
		      str(s, "thread", &idx[2 * cols + 2]);
		n = 2 * cols + 3;
	}
	for (size_t g = 0; !err && g < s->g->n; g++) {
		t2f_thread_id t = group_at(s->g, g).thread;
		size_t len;
		const char *comm;

		if (s->used[t])
			continue;
		s->used[t] = true;
		comm = t2f_profile__str(s->p, t2f_profile__thread_at(s->p, t)->comm, &len);
		err = t2f_pprof_tables__str(&s->t, comm, len, &idx[n++]);
	}
	strs.n = n;
	err = err ?: t2f_pprof_tables__order_begin(&s->t, &strs);
	if (!err) {
		memcpy(s->type_name, idx, cols * sizeof(*idx));
		memcpy(s->type_unit, idx + cols, cols * sizeof(*idx));
	}
	free(idx);
	return err;
}

/* The tables, and beside them on a thread of its own the samples' grouping (wm: 4 ms of the
 * 30 the tables take, when the other CPU idles) and the gzip stage; on this thread when none
 * starts. */
static int prepare(struct pp *s, struct t2f_out *out)
{
	size_t gsize = (sizeof(*s->g) + 63) / 64 * 64;
	struct t2f_bg *bg = NULL;
	struct pp_beside b = { .out = out,
			       .mode = s->o->raw ? T2F_PPROF_RAW : T2F_PPROF_GZIP };
	int err, gerr;

	s->g = b.g = aligned_alloc(64, gsize);
	if (!s->g)
		return -ENOMEM;
	*s->g = (struct pp_groups){ .p = s->p, .cols = 2 * (size_t)s->nevents,
				    .sums_begun = t2f_profile__sums_begun(s->p) };
	if (t2f_bg__new(beside_job, NULL, &bg) == 0 && t2f_bg__hand(bg, &b) != 0) {
		t2f_bg__free(bg);
		bg = NULL;
	}
	err = t2f_pprof_tables__build(&s->t, s->p, &s->o->names) ?: sample_types(s);
	gerr = bg ? t2f_bg__wait(bg) : beside_job(NULL, &b);
	t2f_bg__free(bg);
	s->gz = b.gz;
	if (!gerr && s->g->by_cell && s->g->sums_begun && t2f_profile__has_repeats(s->p))
		gerr = take_sums(s->g);
	return err ?: gerr ?: order(s) ?: chains(s) ?: thread_labels(s);
}

static int encode(struct pp *s)
{
	int err = 0;

	for (size_t c = 0; !err && c < 2 * (size_t)s->nevents; c++)
		err = put_value_type(&s->enc, PF_SAMPLE_TYPE, s->type_name[c], s->type_unit[c]);
	for (size_t g = 0; !err && g < s->g->n; g++) {
		prefetch_stack(s, g);
		if (!is_repeat(s->g, g))
			err = put_sample(s, g);
	}
	/* the tables in the order the samples met them, then the strings after theirs */
	err = err ?: t2f_pprof_tables__order_end(&s->t, s->g->n ? group_at(s->g, 0).thread : 0) ?:
	      comments(s);
	for (uint32_t i = 1; !err && i <= s->t.nmaps; i++)
		err = put_mapping(s, i);
	for (uint32_t i = 1; !err && i <= s->t.nlocs; i++)
		err = put_location(s, i);
	for (uint32_t i = 1; !err && i <= s->t.nfuncs; i++)
		err = put_function(s, i);
	return err ?: put_scalars(s) ?: put_strings(s);
}

static void release(struct pp *s)
{
	t2f_pprof_tables__free(&s->t);
	t2f_pprof_gz__free(s->gz);
	t2f_buf__free(&s->enc);
	t2f_buf__free(&s->labels);
	free(s->type_name);
	free(s->type_unit);
	groups_free(s->g);
	free(s->chain);
	free(s->label_off);
	free(s->used);
	free(s->comments);
}

int t2f_pprof__write(const struct t2f_profile *p, const struct t2f_pprof_opts *o,
		     struct t2f_out *out)
{
	struct pp s = { .p = p, .o = o, .nevents = t2f_profile__event_count(p) };
	int err;

	if (o->event > s.nevents) {
		err = -EINVAL;
		goto done;
	}
	s.event = o->event ? o->event : (s.nevents ? 1 : 0);
	err = prepare(&s, out) ?: encode(&s) ?: t2f_pprof_gz__finish(s.gz, &s.enc);
done:
	release(&s);
	return err;
}
