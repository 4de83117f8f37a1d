/* readers/nettrace.c: nettrace events → profile samples (nettrace.h).
 *
 * The container parser (nettrace_parse.h) calls on_trace once, then on_event per row. Samples
 * go into the profile at once, their managed frames as unnamed addresses (one frame per distinct
 * IP, found through a hash index); method and module events fill an nt_names table, and
 * __finish() names every frame this reader made.
 */
#include "readers/nettrace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/buf.h"
#include "formats/derive.h"
#include "formats/hashmap.h"
#include "formats/idindex.h"
#include "formats/sat.h"
#include "readers/nettrace_clr.h"
#include "readers/nettrace_parse.h"
#include "readers/nettrace_reader.h"
#include "readers/nettrace_universal.h"

#define DEFAULT_INTERVAL_NS 1000000u /* the runtime's default sampling period: 1 ms */
#define KIND_CACHE 64                /* metadata → event kind, direct-mapped on the metadata id */

struct ip_ent {
	uint64_t ip;
	t2f_frame_id frame;
};

struct thread_ent {
	int64_t pid, tid;
	t2f_thread_id id;
};

struct kind_slot {
	const struct nt_meta *meta;
	enum nt_clr_event kind;
	enum nt_uni_event uni;
};

struct t2f_nettrace {
	struct t2f_profile *p;
	struct t2f_diag *d;
	char *name;
	uint32_t input;
	struct t2f_nettrace_opts opts;
	struct nt_parser *parser;
	struct nt_names *names;
	struct nt_uni *uni;             /* universal (V6) state, made at the first such event */
	/* from the Trace object */
	bool have_trace;
	int64_t sync_qpc, qpc_freq, pid;
	uint64_t page_size;             /* SystemPageSize (V6), 0 unknown */
	uint64_t weight;                /* per sample */
	t2f_event_id event;             /* "cpu", made at the first sample */
	t2f_event_id cswitch;           /* "cswitch" (universal), made at the first one */
	t2f_frame_id unmanaged;         /* the UNMANAGED_CODE_TIME leaf, made at first use */
	struct t2f_idindex ips;         /* managed frames by IP (struct ip_ent) */
	struct t2f_idindex threads;     /* threads by (pid, tid) (struct thread_ent) */
	struct kind_slot kinds[KIND_CACHE];
	struct t2f_buf buf;
	struct nt_reader_stats stats;
	bool finished;
};

static int on_trace(void *ctx, const struct nt_trace *t);
static int on_event(void *ctx, const struct nt_event *e);

int t2f_nettrace__new(struct t2f_profile *p, struct t2f_diag *d, const char *name,
		      uint32_t input, const struct t2f_nettrace_opts *opts,
		      struct t2f_nettrace **out)
{
	struct t2f_nettrace *r = calloc(1, sizeof(*r));
	struct nt_sink sink;
	int err;

	if (!r)
		return -ENOMEM;
	r->p = p;
	r->d = d;
	r->input = input;
	if (opts)
		r->opts = *opts;
	r->name = strdup(name);
	r->pid = -1;
	err = !r->name ? -ENOMEM : 0;
	err = err ?: t2f_idindex__init(&r->ips, sizeof(struct ip_ent), 4096) ?:
	      t2f_idindex__init(&r->threads, sizeof(struct thread_ent), 64) ?:
	      nt_names__new(&r->names);
	nt_reader__sink(r, &sink);
	err = err ?: nt_parser__new(name, d, &sink, &r->parser);
	if (err) {
		t2f_nettrace__free(r);
		return err;
	}
	*out = r;
	return 0;
}

void t2f_nettrace__free(struct t2f_nettrace *r)
{
	if (!r)
		return;
	nt_parser__free(r->parser);
	nt_names__free(r->names);
	nt_uni__free(r->uni);
	t2f_idindex__release(&r->ips);
	t2f_idindex__release(&r->threads);
	t2f_buf__free(&r->buf);
	free(r->name);
	free(r);
}

void nt_reader__sink(struct t2f_nettrace *r, struct nt_sink *out)
{
	*out = (struct nt_sink){ .ctx = r, .trace = on_trace, .event = on_event };
}

const struct nt_reader_stats *nt_reader__stats(const struct t2f_nettrace *r)
{
	return &r->stats;
}

uint64_t t2f_nettrace__samples(const struct t2f_nettrace *r)
{
	return r->stats.samples;
}

int t2f_nettrace__feed(struct t2f_nettrace *r, const uint8_t *data, size_t len)
{
	return nt_parser__feed(r->parser, data, len);
}

/* ---- the trace ---- */

static int on_trace(void *ctx, const struct nt_trace *t)
{
	struct t2f_nettrace *r = ctx;
	uint64_t interval = t->sampling_ns ? t->sampling_ns : DEFAULT_INTERVAL_NS;

	r->have_trace = true;
	r->sync_qpc = t->sync_qpc;
	r->qpc_freq = t->qpc_freq > 0 ? t->qpc_freq : 0;
	r->pid = t->pid;
	r->page_size = t->page_size;
	r->weight = r->opts.weight == T2F_NETTRACE_WEIGHT_SAMPLES ? 1 : interval;
	return 0;
}

/* d QPC ticks → ns (0 when the frequency is unknown), UINT64_MAX when it does not fit. */
static uint64_t ticks_ns(const struct t2f_nettrace *r, uint64_t d)
{
	uint64_t freq = (uint64_t)r->qpc_freq;
	long double ns;

	if (!freq)
		return 0;
	if (freq <= UINT64_MAX / 1000000000u) /* d % freq × 10⁹ fits */
		return t2f_sat_add(t2f_sat_mul(d / freq, 1000000000u),
				   d % freq * 1000000000u / freq);
	ns = (long double)d * 1e9L / (long double)freq;
	return ns >= 18446744073709551615.0L ? UINT64_MAX : (uint64_t)ns;
}

/* QPC ticks → ns since the trace's start (0 before it, or when the frequency is unknown;
 * T2F_TIME_PAST when it does not fit). */
static uint64_t time_ns(const struct t2f_nettrace *r, int64_t ts)
{
	if (ts <= r->sync_qpc)
		return 0;
	return ticks_ns(r, (uint64_t)ts - (uint64_t)r->sync_qpc);
}

/* ---- threads ---- */

struct thread_probe {
	const struct t2f_nettrace *r;
	int64_t pid, tid;
};

static bool thread_eq(const void *ctx, uint32_t v)
{
	const struct thread_probe *q = ctx;
	const struct thread_ent *t = t2f_idindex__at(&q->r->threads, v);

	return t->pid == q->pid && t->tid == q->tid;
}

static int new_thread(struct t2f_nettrace *r, const struct nt_event *e, int64_t pid, uint64_t h,
		      t2f_thread_id *out)
{
	char label[48];
	const char *comm = label;
	size_t len;
	t2f_str_id id;
	uint32_t ix;
	int err;

	if (e->thread_name && e->thread_name[0]) {
		comm = e->thread_name;
		len = strlen(comm);
	} else if (r->uni && nt_uni__process_name(r->uni, pid)) {
		comm = t2f_profile__str(r->p, nt_uni__process_name(r->uni, pid), &len);
	} else {
		len = (size_t)snprintf(label, sizeof(label), "Thread (%lld)", (long long)e->tid);
	}
	err = t2f_profile__intern(r->p, comm, len, &id) ?:
	      t2f_profile__thread(r->p, pid < 0 ? T2F_PID_UNKNOWN : pid, e->tid, id, r->input, out);
	if (err)
		return err;
	return t2f_idindex__add(&r->threads, h, &(struct thread_ent){ pid, e->tid, *out }, &ix);
}

static int lookup_thread(struct t2f_nettrace *r, const struct nt_event *e, t2f_thread_id *out)
{
	int64_t pid = e->pid >= 0 ? e->pid : r->pid;
	struct thread_probe q = { r, pid, e->tid };
	uint64_t h = t2f_hash_u64((uint64_t)pid * 0x9e3779b97f4a7c15ull ^ (uint64_t)e->tid);
	uint32_t hit = t2f_idindex__find(&r->threads, h, thread_eq, &q);

	if (hit) {
		*out = ((const struct thread_ent *)t2f_idindex__at(&r->threads, hit))->id;
		return 0;
	}
	return new_thread(r, e, pid, h, out);
}

/* ---- frames ---- */

struct ip_probe {
	const struct t2f_nettrace *r;
	uint64_t ip;
};

static bool ip_eq(const void *ctx, uint32_t v)
{
	const struct ip_probe *q = ctx;

	return ((const struct ip_ent *)t2f_idindex__at(&q->r->ips, v))->ip == q->ip;
}

/* The frame of managed address ip: unnamed until __finish(). */
static int ip_frame(struct t2f_nettrace *r, uint64_t ip, t2f_frame_id *out)
{
	struct t2f_frame f = { .addr = ip, .kind = T2F_FRAME_MANAGED, .has_addr = true,
			       .space = T2F_SPACE_ABS, .module_names = true };
	struct ip_probe q = { r, ip };
	uint64_t h = t2f_hash_u64(ip);
	uint32_t hit = t2f_idindex__find(&r->ips, h, ip_eq, &q), ix;

	if (hit) {
		*out = ((const struct ip_ent *)t2f_idindex__at(&r->ips, hit))->frame;
		return 0;
	}
	return t2f_profile__frame(r->p, &f, out) ?:
	       t2f_idindex__add(&r->ips, h, &(struct ip_ent){ ip, *out }, &ix);
}

static int unmanaged_frame(struct t2f_nettrace *r, t2f_frame_id *out)
{
	static const char label[] = "UNMANAGED_CODE_TIME";
	struct t2f_frame f = { .kind = T2F_FRAME_MANAGED };
	int err;

	if (!r->unmanaged) {
		err = t2f_profile__intern(r->p, label, sizeof(label) - 1, &f.name) ?:
		      t2f_profile__frame(r->p, &f, &r->unmanaged);
		if (err)
			return err;
	}
	*out = r->unmanaged;
	return 0;
}

/* ---- events ---- */

static int uni_get(struct t2f_nettrace *r)
{
	int err;

	if (r->uni)
		return 0;
	err = nt_uni__new(r->p, r->input, &r->uni);
	if (!err)
		nt_uni__set_page_size(r->uni, r->page_size);
	return err;
}

/* A sample into the profile, and to its derive stage when a derived event was asked for: "cpu"
 * is on-CPU time, "cswitch" off-CPU time (formats/derive.h). */
static int nt_add_sample(struct t2f_nettrace *r, t2f_node_id node, t2f_thread_id thread,
			 t2f_event_id event, uint64_t weight, uint64_t time)
{
	struct t2f_derive *d = t2f_profile__derive(r->p);
	int err = t2f_profile__add_sample(r->p, node, thread, event, weight, time);

	return err || !d ? err : t2f_derive__sample(d, node, thread, event, weight, time);
}

static int cpu_event(struct t2f_nettrace *r)
{
	bool counts = r->opts.weight == T2F_NETTRACE_WEIGHT_SAMPLES;
	t2f_str_id name;
	int err;

	if (r->event)
		return 0;
	err = t2f_profile__intern(r->p, "cpu", 3, &name) ?:
	      t2f_profile__event(r->p, name, counts ? T2F_UNIT_COUNT : T2F_UNIT_NANOSECONDS,
				 &r->event);
	if (!err && !counts)
		t2f_profile__event_has_period(r->p, r->event);
	return err;
}

/* Whether the filter keeps sample e (its thread made to learn its name when the filter looks
 * at names). */
static bool sample_kept(struct t2f_nettrace *r, const struct nt_event *e)
{
	const struct t2f_sample_filter *f = r->opts.filter;
	int64_t pid = e->pid >= 0 ? e->pid : r->pid;
	const char *comm = NULL;
	t2f_thread_id thread;
	size_t len = 0;

	if (!t2f_sample_filter__keep_time(f, time_ns(r, e->timestamp)))
		return false;
	if (t2f_sample_filter__wants_comm(f) && lookup_thread(r, e, &thread) == 0)
		comm = t2f_profile__str(r->p, t2f_profile__thread_at(r->p, thread)->comm, &len);
	return t2f_sample_filter__keep_thread(f, pid, e->tid, comm, len);
}

/* Every sample is read (counted); one the filter leaves out, or without a stack is dropped
 * (false): its stack id named no stack, or an empty one. Settles the weight of one sample on
 * the first. */
static bool sample_start(struct t2f_nettrace *r, const struct nt_event *e)
{
	r->stats.samples++;
	t2f_profile__count_read(r->p);
	if (r->opts.filter && !sample_kept(r, e)) {
		t2f_profile__count_drop(r->p, T2F_DROP_FILTERED);
		return false;
	}
	if (!e->stack_len) {
		t2f_profile__count_drop(r->p, e->stack_unknown ? T2F_DROP_UNKNOWN_STACK
							       : T2F_DROP_EMPTY_STACK);
		return false;
	}
	if (!r->weight)
		r->weight = r->opts.weight == T2F_NETTRACE_WEIGHT_SAMPLES ? 1 : DEFAULT_INTERVAL_NS;
	return true;
}

/* SampleProfiler event 0: payload u32 Type (1 External, 2 Managed), the stack leaf first. A
 * payload without its type keeps the sample, without the External leaf. */
static int on_sample(struct t2f_nettrace *r, const struct nt_event *e)
{
	t2f_node_id node = 0;
	t2f_thread_id thread;
	t2f_frame_id frame;
	uint32_t type = 0;
	int err;

	if (!sample_start(r, e))
		return 0;
	if (!nt_clr_sample_decode(e->payload, e->payload_len, &type))
		r->stats.untyped_samples++;
	err = cpu_event(r) ?: lookup_thread(r, e, &thread);
	for (uint32_t i = e->stack_len; i-- > 0 && !err;) /* root first */
		err = ip_frame(r, e->stack[i], &frame) ?: t2f_profile__child(r->p, node, frame, &node);
	if (!err && type == NT_SAMPLE_EXTERNAL)
		err = unmanaged_frame(r, &frame) ?: t2f_profile__child(r->p, node, frame, &node);
	return err ?: nt_add_sample(r, node, thread, r->event, r->weight,
				    time_ns(r, e->timestamp));
}

static int cswitch_event(struct t2f_nettrace *r)
{
	t2f_str_id name;
	int err;

	if (r->cswitch)
		return 0;
	err = cpu_event(r) ?: /* "cpu" first: the default event when both have samples */
	      t2f_profile__intern(r->p, "cswitch", 7, &name) ?:
	      t2f_profile__event(r->p, name, T2F_UNIT_NANOSECONDS, &r->cswitch);
	if (!err)
		t2f_profile__event_has_period(r->p, r->cswitch);
	return err;
}

/* Universal.Events cpu / cswitch: payload varuint Value, the stack leaf first. cpu: Value
 * samples (1 when absent or 0), each weighing the sampling interval (or 1 with
 * T2F_NETTRACE_WEIGHT_SAMPLES); cswitch: Value QPC ticks off CPU, weighed in ns. */
static int on_uni_sample(struct t2f_nettrace *r, const struct nt_event *e, bool cswitch)
{
	t2f_thread_id thread;
	t2f_node_id node;
	uint64_t value = 0, weight;
	int err;

	if (!sample_start(r, e))
		return 0;
	if (!nt_uni_value_decode(e->payload, e->payload_len, &value))
		r->stats.untyped_samples++;
	if (cswitch)
		weight = ticks_ns(r, value);
	else
		weight = t2f_sat_mul(value ? value : 1, r->weight);
	err = (cswitch ? cswitch_event(r) : cpu_event(r)) ?: lookup_thread(r, e, &thread) ?:
	      nt_uni__stack(r->uni, e->pid >= 0 ? e->pid : r->pid, e->stack, e->stack_len, &node);
	return err ?: nt_add_sample(r, node, thread, cswitch ? r->cswitch : r->event, weight,
				    time_ns(r, e->timestamp));
}

static int on_universal(struct t2f_nettrace *r, const struct nt_event *e, enum nt_uni_event kind)
{
	int64_t pid = e->pid >= 0 ? e->pid : r->pid;
	int err = uni_get(r);

	if (err)
		return err;
	if (kind == NT_UNI_CPU || kind == NT_UNI_CSWITCH)
		return on_uni_sample(r, e, kind == NT_UNI_CSWITCH);
	err = nt_uni__system(r->uni, kind, pid, e->payload, e->payload_len);
	if (err == NT_UNI_BAD_BUILD_ID) {
		r->stats.bad_payloads++;
		return t2f_diag__warn(r->d, r->name, 0,
				      "offset %llu: module metadata: build_id is not 2 to %u hex digits "
				      "(an even count): kept without one, its frames cannot be verified",
				      (unsigned long long)e->offset, NT_BUILD_ID_HEX_MAX);
	}
	if (err != 1)
		return err;
	r->stats.bad_payloads++;
	return t2f_diag__warn(r->d, r->name, 0,
			      "offset %llu: Universal.System event %u too short for its fields: ignored",
			      (unsigned long long)e->offset, e->meta->event_id);
}

static int on_method(struct t2f_nettrace *r, const struct nt_event *e)
{
	struct nt_clr_method m;

	if (!nt_clr_method_decode(e->payload, e->payload_len, &m)) {
		r->stats.bad_payloads++;
		return t2f_diag__warn(r->d, r->name, 0,
				      "offset %llu: method event too short for its fields (u64 ×3, u32 ×3, 3 UTF-16 strings): ignored",
				      (unsigned long long)e->offset);
	}
	r->stats.methods++;
	return nt_names__add_method(r->names, &m);
}

static int on_module(struct t2f_nettrace *r, const struct nt_event *e)
{
	struct nt_clr_module m;

	if (!nt_clr_module_decode(e->payload, e->payload_len, &m)) {
		r->stats.bad_payloads++;
		return t2f_diag__warn(r->d, r->name, 0,
				      "offset %llu: module event too short for its fields (u64 ×2, u32 ×2, 2 UTF-16 strings): ignored",
				      (unsigned long long)e->offset);
	}
	r->stats.modules++;
	return nt_names__add_module(r->names, &m);
}

static const struct kind_slot *kind_of(struct t2f_nettrace *r, const struct nt_meta *m)
{
	struct kind_slot *s = &r->kinds[m->id % KIND_CACHE];

	if (s->meta != m) {
		s->meta = m;
		s->kind = nt_clr_classify(m);
		s->uni = s->kind == NT_CLR_OTHER ? nt_uni_classify(m) : NT_UNI_OTHER;
	}
	return s;
}

static int on_event(void *ctx, const struct nt_event *e)
{
	struct t2f_nettrace *r = ctx;
	const struct kind_slot *k;

	if (!e->meta)
		return 0;
	k = kind_of(r, e->meta);
	if (k->uni != NT_UNI_OTHER)
		return on_universal(r, e, k->uni);
	switch (k->kind) {
	case NT_CLR_SAMPLE:
		return on_sample(r, e);
	case NT_CLR_METHOD:
		return on_method(r, e);
	case NT_CLR_MODULE:
		return on_module(r, e);
	default:
		return 0;
	}
}

/* ---- the end: names ---- */

int nt_reader__name_frames(struct t2f_nettrace *r)
{
	enum nt_name_kind kind;
	t2f_str_id id;
	int err = nt_names__seal(r->names);

	for (uint32_t i = 1; i <= r->ips.n && !err; i++) {
		const struct ip_ent *e = t2f_idindex__at(&r->ips, i);

		err = nt_names__format(r->names, e->ip, &r->buf, &kind) ?:
		      t2f_profile__intern(r->p, r->buf.p, r->buf.len, &id) ?:
		      t2f_profile__set_frame_name(r->p, e->frame, id);
		if (kind == NT_NAME_METHOD)
			r->stats.frames_named++;
		else
			r->stats.frames_unnamed++;
	}
	if (!err && r->uni)
		err = nt_uni__finish(r->uni);
	return err;
}

int t2f_nettrace__finish(struct t2f_nettrace *r)
{
	int err;

	if (r->finished)
		return 0;
	r->finished = true;
	err = nt_parser__finish(r->parser);
	return err ?: nt_reader__name_frames(r);
}
