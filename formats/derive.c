/* formats/derive.c: the derive stage's per-thread state machine (formats/derive.h). */
#include "formats/derive.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats/idindex.h"

struct wait {              /* a thread's state, by tid */
	int64_t tid;
	uint64_t out_ns;       /* when it went off CPU */
	t2f_node_id node;      /* the stack it waits in */
	t2f_thread_id thread;
	unsigned state;        /* enum t2f_cpu_state */
	bool open;
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
	bool keep_waits;              /* the profile keeps the spans (t2f_profile__keep_waits) */
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
	free(d->kind_of);
	free(d);
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

/* What samples of `event` are to the derived events (cached per event id). */
static int event_kind(struct t2f_derive *d, t2f_event_id event)
{
	const struct t2f_event *e;
	const char *name;

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
	e = t2f_profile__event_at(d->p, event);
	name = t2f_profile__str(d->p, e->name, NULL);
	if (event == d->off_cpu || event == d->wall)
		d->kind_of[event] = 3;
	else if (strcmp(name, "offcpu-time") == 0 ||
		 (strcmp(name, "cswitch") == 0 && e->unit == T2F_UNIT_NANOSECONDS))
		d->kind_of[event] = 2;
	else
		d->kind_of[event] = e->unit == T2F_UNIT_NANOSECONDS ? 1 : 3;
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

struct wait_key {
	const struct t2f_idindex *waits;
	int64_t tid;
};

static bool wait_eq(const void *ctx, uint32_t id)
{
	const struct wait_key *k = ctx;

	return ((const struct wait *)t2f_idindex__at(k->waits, id))->tid == k->tid;
}

/* The thread's state, added (closed) when new; NULL for -ENOMEM / -T2F_E_LIMIT in *err. */
static struct wait *wait_of(struct t2f_derive *d, int64_t tid, bool add, int *err)
{
	struct wait_key k = { &d->waits, tid };
	uint64_t h = t2f_hash_u64((uint64_t)tid);
	uint32_t id = t2f_idindex__find(&d->waits, h, wait_eq, &k);

	*err = 0;
	if (!id && add)
		*err = t2f_idindex__add(&d->waits, h, &(struct wait){ .tid = tid }, &id);
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

int t2f_derive__switch_in(struct t2f_derive *d, int64_t tid, uint64_t time_ns)
{
	int err;
	struct wait *w = wait_of(d, tid, false, &err);

	if (!w || !w->open)
		return 0;
	w->open = false;
	if (time_ns < w->out_ns) { /* out of order: left out, as a switch-in never seen */
		d->c.no_switch_in++;
		return 0;
	}
	d->c.waits++;
	err = d->keep_waits ? t2f_profile__add_wait(d->p, &(struct t2f_wait_span){
		w->thread, w->state, w->out_ns, time_ns }) : 0;
	return err ?: add_off(d, w->node, w->thread, time_ns - w->out_ns, w->out_ns);
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
	*out = d->c;
	d->c = (struct t2f_derive_counts){ 0 };
}
