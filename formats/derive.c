/* formats/derive.c: the derive stage's per-thread state machine (formats/derive.h). */
#include "formats/derive.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats/grow.h"
#include "formats/idindex.h"
#include "formats/sample_filter.h"

struct wait {              /* a thread's state, by tid */
	int64_t tid;
	uint64_t out_ns;       /* when it went off CPU */
	t2f_node_id node;      /* the stack it waits in */
	t2f_thread_id thread;
	unsigned state;        /* enum t2f_cpu_state */
	bool open;
};

/* A segment's first switch of a thread (t2f_derive__segment): what it does to a wait the
 * segments before left open. */
struct head {
	int64_t tid;
	uint64_t in_ns;        /* a switch-in's time */
	bool in;               /* a switch-in (it closes the wait) or a switch-out (drops it) */
	bool logged;           /* the segment has logged samples of the thread before it */
	uint32_t events;       /* the segment profile's events and cells then */
	size_t cells;
};

/* A part of the time a wait may count in: ns [start, end), end UINT64_MAX when open. */
struct clip_range {
	uint64_t start, end;
};

struct t2f_derive {
	struct t2f_profile *p;
	struct t2f_derive_opts o;
	struct t2f_idindex waits;
	t2f_event_id off_cpu, wall;   /* 0 until the first derived sample */
	t2f_event_id offcpu_time;     /* perf's offcpu-time event, once seen (0: not yet) */
	/* per event id: 0 unknown yet, 1 on-CPU time, 2 offcpu-time, 3 neither */
	uint8_t *kind_of;
	size_t n_kind;
	struct t2f_derive_counts c;
	bool segment;          /* a segment's stage: heads kept, waits left open at its end */
	struct head *heads;
	size_t n_heads, cap_heads;
	bool keep_waits;       /* the profile keeps the spans (t2f_profile__keep_waits) */
	struct clip_range *clip; /* the input's --time ranges (t2f_derive__clip) */
	size_t n_clip;
	bool clipped;          /* waits count only within clip[0..n_clip) */
};

unsigned t2f_cpu_state_of_text(const char *s, size_t len)
{
	if (!len)
		return T2F_STATE_OTHER;
	switch (s[0]) {
	case 'R': return T2F_STATE_R;
	case 'S': return T2F_STATE_S;
	case 'D': return T2F_STATE_D;
	default: return T2F_STATE_OTHER;
	}
}

unsigned t2f_cpu_state_of_bits(uint64_t prev_state)
{
	uint64_t s = prev_state & 0xff; /* 0x100 (preempted) only adds perf's "+" */

	if (!s)
		return T2F_STATE_R;
	if (s & 0x1)
		return T2F_STATE_S;
	return s & 0x2 ? T2F_STATE_D : T2F_STATE_OTHER;
}

bool t2f_cpu_states_parse(const char *s, unsigned *mask)
{
	unsigned m = 0;

	for (; *s; s++) {
		switch (*s | 0x20) {
		case 'r': m |= T2F_STATE_R; break;
		case 's': m |= T2F_STATE_S; break;
		case 'd': m |= T2F_STATE_D; break;
		case 'o': m |= T2F_STATE_OTHER; break;
		default:
			if (*s != ',' && *s != ' ')
				return false;
		}
	}
	*mask = m;
	return m != 0;
}

int t2f_derive__new(struct t2f_profile *p, const struct t2f_derive_opts *o,
		    struct t2f_derive **out)
{
	struct t2f_derive *d = calloc(1, sizeof(*d));

	if (!d || t2f_idindex__init(&d->waits, sizeof(struct wait), 256)) {
		free(d);
		return -ENOMEM;
	}
	d->p = p;
	d->o = *o;
	d->keep_waits = t2f_profile__keeps_waits(p);
	if (!d->o.states)
		d->o.states = T2F_STATE_ALL;
	*out = d;
	return 0;
}

void t2f_derive__free(struct t2f_derive *d)
{
	if (!d)
		return;
	t2f_idindex__release(&d->waits);
	free(d->heads);
	free(d->kind_of);
	free(d->clip);
	free(d);
}

static int clip_cmp(const void *a, const void *b)
{
	const struct clip_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The union of sf's ranges (ns START to STOP, both kept; 0: open), sorted, ranges that overlap
 * or touch made one, as half-open [start, end). */
static int clip_ranges(const struct t2f_sample_filter *sf, struct clip_range **out, size_t *n_out)
{
	size_t n = t2f_sample_filter__ranges(sf, NULL, NULL, 0), k = 0;
	uint64_t *start = calloc(n + 1, sizeof(*start)), *end = calloc(n + 1, sizeof(*end));
	struct clip_range *r = calloc(n + 1, sizeof(*r));
	int err = start && end && r ? 0 : -ENOMEM;

	if (!err) {
		t2f_sample_filter__ranges(sf, start, end, n);
		for (size_t i = 0; i < n; i++)
			r[i] = (struct clip_range){ start[i], !end[i] || end[i] == UINT64_MAX ?
						    UINT64_MAX : end[i] + 1 };
		qsort(r, n, sizeof(*r), clip_cmp);
		for (size_t i = 0; i < n; i++) {
			if (r[i].end <= r[i].start)
				continue;
			if (k && r[i].start <= r[k - 1].end) {
				if (r[i].end > r[k - 1].end)
					r[k - 1].end = r[i].end;
				continue;
			}
			r[k++] = r[i];
		}
	}
	free(start);
	free(end);
	if (err) {
		free(r);
		return err;
	}
	*out = r;
	*n_out = k;
	return 0;
}

int t2f_derive__clip(struct t2f_derive *d, const struct t2f_sample_filter *sf)
{
	struct clip_range *r = NULL;
	size_t n = 0;
	int err;

	if (!d)
		return 0;
	if (t2f_sample_filter__has_ranges(sf) && (err = clip_ranges(sf, &r, &n)))
		return err;
	free(d->clip);
	d->clip = r;
	d->n_clip = n;
	d->clipped = r != NULL;
	return 0;
}

static int derived_event(struct t2f_derive *d, const char *name, t2f_event_id *id)
{
	t2f_str_id s;
	int err;

	if (*id)
		return 0;
	err = t2f_profile__intern(d->p, name, strlen(name), &s) ?:
	      t2f_profile__event(d->p, s, T2F_UNIT_NANOSECONDS, id);
	if (!err)
		t2f_profile__event_has_period(d->p, *id);
	return err;
}

/* One derived sample of event `name` (*id: its id, 0 until made). */
static int add(struct t2f_derive *d, const char *name, t2f_event_id *id, t2f_node_id node,
	       t2f_thread_id thread, uint64_t weight, uint64_t time_ns)
{
	int err = derived_event(d, name, id) ?:
		  t2f_profile__add_sample(d->p, node, thread, *id, weight, time_ns);

	d->c.samples += !err;
	return err;
}

/* Adds an off-CPU span (or perf's offcpu-time sample) to the derived events asked for. */
static int add_off(struct t2f_derive *d, t2f_node_id node, t2f_thread_id thread, uint64_t ns,
		   uint64_t time_ns)
{
	int err = 0;

	if (d->o.kinds & T2F_DERIVE_OFF_CPU)
		err = add(d, "off-cpu", &d->off_cpu, node, thread, ns, time_ns);
	if (!err && (d->o.kinds & T2F_DERIVE_WALL))
		err = add(d, "wall", &d->wall, node, thread, ns, time_ns);
	return err;
}

enum t2f_time_kind t2f_derive__time_kind(const struct t2f_profile *p, t2f_event_id event)
{
	const struct t2f_event *e = t2f_profile__event_at(p, event);
	const char *name = t2f_profile__str(p, e->name, NULL);

	if (strcmp(name, "offcpu-time") == 0) /* whatever unit its reader gave it */
		return T2F_TIME_OFF_CPU_RECORDED;
	if (e->unit != T2F_UNIT_NANOSECONDS)
		return T2F_TIME_NONE;
	if (strcmp(name, "wall") == 0)
		return T2F_TIME_WALL;
	if (strcmp(name, "off-cpu") == 0)
		return T2F_TIME_OFF_CPU;
	if (strcmp(name, "cswitch") == 0)
		return T2F_TIME_OFF_CPU_RECORDED;
	return T2F_TIME_ON_CPU;
}

/* What samples of `event` are to the derived events (cached per event id). */
static int event_kind(struct t2f_derive *d, t2f_event_id event)
{
	enum t2f_time_kind kind;

	if (event < d->n_kind && d->kind_of[event])
		return d->kind_of[event];
	if (event >= d->n_kind) {
		size_t n = (size_t)event + 16;
		uint8_t *k = realloc(d->kind_of, n);

		if (!k)
			return -ENOMEM;
		memset(k + d->n_kind, 0, n - d->n_kind);
		d->kind_of = k;
		d->n_kind = n;
	}
	kind = t2f_derive__time_kind(d->p, event);
	if (event == d->off_cpu || event == d->wall)
		d->kind_of[event] = 3;
	else if (kind == T2F_TIME_OFF_CPU_RECORDED)
		d->kind_of[event] = 2;
	else
		d->kind_of[event] = kind == T2F_TIME_ON_CPU ? 1 : 3;
	return d->kind_of[event];
}

int t2f_derive__sample(struct t2f_derive *d, t2f_node_id node, t2f_thread_id thread,
		       t2f_event_id event, uint64_t weight, uint64_t time_ns)
{
	int k = event_kind(d, event);

	if (k < 0)
		return k;
	if (k == 2)
		return add_off(d, node, thread, weight, time_ns);
	if (k == 1 && (d->o.kinds & T2F_DERIVE_WALL))
		return add(d, "wall", &d->wall, node, thread, weight, time_ns);
	return 0;
}

/* Whether the segment logged a sample of a thread numbered tid yet. */
static bool logged(const struct t2f_derive *d, int64_t tid)
{
	uint32_t n = t2f_profile__thread_count(d->p);

	for (t2f_thread_id t = 1; t2f_profile__log_enabled(d->p) && t <= n; t++)
		if (t2f_profile__thread_at(d->p, t)->tid == tid &&
		    t2f_profile__thread_sample_count(d->p, t))
			return true;
	return false;
}

/* A segment's first switch of tid, as a switch-out (switch_in sets in and in_ns). */
static int add_head(struct t2f_derive *d, int64_t tid)
{
	if (!d->segment)
		return 0;
	int err = t2f_grow((void **)&d->heads, &d->cap_heads, d->n_heads, 1, sizeof(*d->heads),
			   64, SIZE_MAX / sizeof(*d->heads));

	if (err)
		return err;
	d->heads[d->n_heads++] = (struct head){ .tid = tid, .logged = logged(d, tid),
						.events = t2f_profile__event_count(d->p),
						.cells = t2f_profile__cell_count(d->p) };
	return 0;
}

struct wait_key {
	const struct t2f_idindex *waits;
	int64_t tid;
};

static bool wait_eq(const void *ctx, uint32_t id)
{
	const struct wait_key *k = ctx;

	return ((const struct wait *)t2f_idindex__at(k->waits, id))->tid == k->tid;
}

/* The thread's state, added (closed) when new; NULL for -ENOMEM / -T2F_ERR_LIMIT in *err. A
 * segment's stage adds every thread it meets and keeps its first switch as a head. */
static struct wait *wait_of(struct t2f_derive *d, int64_t tid, bool add, int *err)
{
	struct wait_key k = { &d->waits, tid };
	uint64_t h = t2f_hash_u64((uint64_t)tid);
	uint32_t id = t2f_idindex__find(&d->waits, h, wait_eq, &k);

	*err = 0;
	if (!id && (add || d->segment)) {
		*err = t2f_idindex__add(&d->waits, h, &(struct wait){ .tid = tid }, &id) ?:
		       add_head(d, tid);
		if (*err)
			return NULL;
	}
	return id ? t2f_idindex__at(&d->waits, id) : NULL;
}

int t2f_derive__switch_out(struct t2f_derive *d, int64_t tid, uint64_t time_ns, t2f_node_id node,
			   t2f_thread_id thread, unsigned state)
{
	struct wait *w;
	int err;

	if (tid <= 0) /* the idle task, one per CPU */
		return 0;
	if (!(state & d->o.states)) {
		d->c.not_selected++;
		w = wait_of(d, tid, false, &err);
		if (err)
			return err;
		if (w && w->open) {
			w->open = false;
			d->c.no_switch_in++;
		}
		return 0;
	}
	w = wait_of(d, tid, true, &err);
	if (!w)
		return err;
	if (w->open)
		d->c.no_switch_in++;
	*w = (struct wait){ .tid = tid, .out_ns = time_ns, .node = node, .thread = thread,
			    .state = state, .open = true };
	return 0;
}

/* The first range a wait that began at out may meet (an index of d->clip). */
static size_t first_piece(const struct t2f_derive *d, uint64_t out)
{
	size_t lo = 0, hi = d->n_clip;

	while (lo < hi) { /* the first range ending after out */
		size_t mid = lo + (hi - lo) / 2;

		if (d->clip[mid].end <= out)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The next part of the wait [out, in) that counts, from range *i on, into *p: without ranges
 * the whole wait (once), else its overlap with a range, when not empty. False when none is
 * left. */
static bool next_piece(const struct t2f_derive *d, uint64_t out, uint64_t in, size_t *i,
		       struct clip_range *p)
{
	if (!d->clipped) {
		*p = (struct clip_range){ out, in };
		return (*i)++ == 0;
	}
	for (; *i < d->n_clip && d->clip[*i].start < in; (*i)++) {
		const struct clip_range *r = &d->clip[*i];

		p->start = r->start > out ? r->start : out;
		p->end = r->end < in ? r->end : in;
		if (p->end > p->start) {
			(*i)++;
			return true;
		}
	}
	return false;
}

int t2f_derive__switch_in(struct t2f_derive *d, int64_t tid, uint64_t time_ns)
{
	struct clip_range p;
	size_t heads = d->n_heads;
	int err;
	struct wait *w = wait_of(d, tid, false, &err);

	if (d->n_heads > heads) {
		d->heads[heads].in = true;
		d->heads[heads].in_ns = time_ns;
	}
	if (!w || !w->open)
		return err;
	w->open = false;
	if (time_ns < w->out_ns) { /* out of order: left out, as a switch-in never seen */
		d->c.no_switch_in++;
		return 0;
	}
	d->c.waits++;
	for (size_t i = first_piece(d, w->out_ns); !err && next_piece(d, w->out_ns, time_ns, &i, &p);) {
		err = d->keep_waits ? t2f_profile__add_wait(d->p, &(struct t2f_wait_span){
			w->thread, w->state, p.start, p.end }) : 0;
		err = err ?: add_off(d, w->node, w->thread, p.end - p.start, p.start);
	}
	return err;
}

void t2f_derive__undecoded(struct t2f_derive *d)
{
	d->c.undecoded++;
}

void t2f_derive__end(struct t2f_derive *d, struct t2f_derive_counts *out)
{
	for (uint32_t id = 1; id <= d->waits.n; id++) {
		struct wait *w = t2f_idindex__at(&d->waits, id);

		d->c.open_at_end += w->open;
		w->open = false;
	}
	free(d->clip);
	d->clip = NULL;
	d->n_clip = 0;
	d->clipped = false;
	*out = d->c;
	d->c = (struct t2f_derive_counts){ 0 };
}

int t2f_derive__segment(struct t2f_profile *seg, const struct t2f_profile *whole)
{
	const struct t2f_derive *w = t2f_profile__derive(whole);
	int err;

	if (w && w->keep_waits)
		t2f_profile__keep_waits(seg); /* before the stage is made */
	err = w ? t2f_profile__enable_derive(seg, &w->o) : 0;

	if (!err && w) {
		struct t2f_derive *d = t2f_profile__derive(seg);

		d->segment = true;
		if (w->clipped) {
			d->clip = calloc(w->n_clip + 1, sizeof(*d->clip));
			if (!d->clip)
				return -ENOMEM;
			if (w->n_clip)
				memcpy(d->clip, w->clip, w->n_clip * sizeof(*d->clip));
			d->n_clip = w->n_clip;
			d->clipped = true;
		}
	}
	return err;
}

bool t2f_derive__merge_in_order(const struct t2f_profile *whole, const struct t2f_profile *seg)
{
	struct t2f_derive *d = t2f_profile__derive(whole), *s = t2f_profile__derive(seg);
	int err;

	for (size_t i = 0; d && s && i < s->n_heads; i++) {
		const struct head *h = &s->heads[i];
		struct wait *w = h->in && h->logged ? wait_of(d, h->tid, false, &err) : NULL;

		if (w && w->open && h->in_ns >= w->out_ns)
			return true;
	}
	return false;
}

/* One sample joined: m, as event `event`, into *ins (grown; *n of *cap used). 0 or -ENOMEM. */
static int join_one(struct t2f_merge_sample **ins, size_t *n, size_t *cap,
		    const struct t2f_merge_sample *m, const char *event)
{
	int err = t2f_grow((void **)ins, cap, *n, 1, sizeof(**ins), 16,
			   SIZE_MAX / sizeof(**ins));

	if (!err) {
		(*ins)[*n] = *m;
		(*ins)[(*n)++].event = event;
	}
	return err;
}

/* The samples the segment's heads derive from dst's open waits, into *ins (allocated, their
 * count in *n_out; one or two per part of a wait that counts); the waits they close or drop are
 * closed, the closed ones kept as spans when the profile keeps them. 0 or -ENOMEM. */
static int join_heads(struct t2f_derive *d, const struct t2f_derive *s,
		      struct t2f_merge_sample **ins, size_t *n_out)
{
	size_t n = 0, cap = 0;
	int err = 0;

	for (size_t i = 0; !err && i < s->n_heads; i++) {
		const struct head *h = &s->heads[i];
		struct wait *w = wait_of(d, h->tid, false, &err);
		struct t2f_merge_sample m;
		struct clip_range p;

		if (!w || !w->open)
			continue;
		w->open = false;
		if (!h->in || h->in_ns < w->out_ns) { /* as switch_out and switch_in do */
			d->c.no_switch_in++;
			continue;
		}
		d->c.waits++;
		for (size_t k = first_piece(d, w->out_ns);
		     !err && next_piece(d, w->out_ns, h->in_ns, &k, &p);) {
			if (d->keep_waits)
				err = t2f_profile__add_wait(d->p, &(struct t2f_wait_span){
					w->thread, w->state, p.start, p.end });
			m = (struct t2f_merge_sample){ .src_events = h->events,
						       .src_cells = h->cells, .node = w->node,
						       .thread = w->thread,
						       .weight = p.end - p.start,
						       .time_ns = p.start };
			if (!err && (d->o.kinds & T2F_DERIVE_OFF_CPU))
				err = join_one(ins, &n, &cap, &m, "off-cpu");
			if (!err && (d->o.kinds & T2F_DERIVE_WALL))
				err = join_one(ins, &n, &cap, &m, "wall");
		}
	}
	*n_out = n;
	return err;
}

/* The segment's waits open at its end, into dst's waits (ids: their dst node and thread). */
static int keep_tails(struct t2f_derive *d, const struct t2f_derive *s,
		      const struct t2f_merge_ids *ids)
{
	size_t k = 0;
	int err = 0;

	for (uint32_t id = 1; !err && id <= s->waits.n; id++) {
		const struct wait *t = t2f_idindex__at(&s->waits, id);
		struct wait *w;

		if (!t->open)
			continue;
		w = wait_of(d, t->tid, true, &err);
		if (w)
			*w = (struct wait){ .tid = t->tid, .out_ns = t->out_ns, .node = ids->node[k],
					    .thread = ids->thread[k], .state = t->state,
					    .open = true };
		k++;
	}
	return err;
}

static void add_counts(struct t2f_derive_counts *to, const struct t2f_derive_counts *c)
{
	to->samples += c->samples;
	to->waits += c->waits;
	to->no_switch_in += c->no_switch_in;
	to->not_selected += c->not_selected;
	to->undecoded += c->undecoded;
}

int t2f_derive__merge(struct t2f_profile *dst, struct t2f_profile *seg)
{
	struct t2f_derive *d = t2f_profile__derive(dst), *s = t2f_profile__derive(seg);
	struct t2f_merge_sample *ins = NULL;
	struct t2f_merge_ids ids = { 0 };
	size_t n = 0;
	int err;

	if (!d || !s)
		return t2f_profile__merge(dst, seg);
	for (uint32_t id = 1; id <= s->waits.n; id++)
		ids.n += ((struct wait *)t2f_idindex__at(&s->waits, id))->open;
	ids.node = calloc(ids.n + 1, sizeof(*ids.node));
	ids.thread = calloc(ids.n + 1, sizeof(*ids.thread));
	err = ids.node && ids.thread ? 0 : -ENOMEM;
	for (uint32_t id = 1, k = 0; !err && id <= s->waits.n; id++) {
		const struct wait *t = t2f_idindex__at(&s->waits, id);

		if (t->open) {
			ids.node[k] = t->node;
			ids.thread[k++] = t->thread;
		}
	}
	err = err ?: join_heads(d, s, &ins, &n);
	err = err ?: t2f_profile__merge_at(dst, seg, ins, n, &ids) ?: keep_tails(d, s, &ids);
	if (!err) {
		add_counts(&d->c, &s->c);
		d->c.samples += n;
	}
	free(ins);
	free(ids.node);
	free(ids.thread);
	return err;
}
