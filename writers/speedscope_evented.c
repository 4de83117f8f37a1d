/* writers/speedscope_evented.c: a thread's time spans as speedscope events
 * (writers/speedscope_evented.h). */
#include "writers/speedscope_evented.h"

#include <errno.h>
#include <stdlib.h>

#include "formats/grow.h"
#include "formats/sat.h"

#define SSE_BATCH 512 /* log runs read at a time */

struct sse_span {
	uint64_t start, end;
	t2f_node_id node;
	uint32_t seq;         /* its place in the thread's log */
};

struct sse {
	const struct t2f_profile *p;
	const struct t2f_ss_evented_opts *o;
	struct t2f_out *out;
	struct sse_span *spans;
	size_t n, cap;
	uint32_t max_depth;
	uint32_t *open, n_open; /* the frames open, root first (shared indices) */
	uint32_t *stack;        /* a span's frames, root first */
	uint64_t wait_end;      /* the latest end of a wait logged so far */
	bool comma;
};

/* The sample before in the log, whatever its event. */
struct sse_prev {
	t2f_event_id event;
	t2f_node_id node;
	uint64_t time, weight;
};

static int sse_add(struct sse *e, const struct sse_prev *s, const struct sse_prev *prev,
		   uint32_t seq)
{
	bool wait = e->o->all_waits || (e->o->waits && prev->event == e->o->waits &&
					prev->node == s->node && prev->time == s->time &&
					prev->weight == s->weight);
	uint32_t depth = t2f_profile__node_depth(e->p, s->node);
	int err = t2f_grow((void **)&e->spans, &e->cap, e->n, 1, sizeof(*e->spans), 256,
			   SIZE_MAX / sizeof(*e->spans));

	if (err)
		return err;
	struct sse_span sp = { .start = s->time, .end = t2f_sat_add(s->time, s->weight),
			       .node = s->node, .seq = seq };

	if (wait && sp.end > e->wait_end)
		e->wait_end = sp.end;
	if (!wait) { /* the period up to the sample, not into a wait logged before it */
		sp.end = s->time;
		sp.start = s->time > s->weight ? s->time - s->weight : 0;
		if (sp.start < e->wait_end)
			sp.start = e->wait_end < sp.end ? e->wait_end : sp.end;
	}
	e->spans[e->n++] = sp;
	if (depth > e->max_depth)
		e->max_depth = depth;
	return 0;
}

/* The thread's samples of the event with a time and a weight, as spans in log order. */
static int sse_collect(struct sse *e, t2f_thread_id t)
{
	size_t n = t2f_profile__thread_run_count(e->p, t);
	struct t2f_log_run runs[SSE_BATCH];
	struct sse_prev prev = { 0 }, s;
	struct t2f_time_cursor k;
	uint32_t seq = 0;
	int err = 0;

	t2f_profile__time_cursor(e->p, t, &k);
	for (size_t from = 0; from < n && !err; from += SSE_BATCH) {
		size_t m = n - from < SSE_BATCH ? n - from : SSE_BATCH;

		t2f_profile__sample_runs(e->p, t, from, m, runs);
		for (size_t i = 0; i < m && !err; i++) {
			const struct t2f_cell *c = t2f_profile__cell_at(e->p, runs[i].cell);

			for (uint32_t j = 0; j < runs[i].samples && !err; j++, seq++) {
				s = (struct sse_prev){ .event = c->event, .node = c->node };
				t2f_time_log__next(&k, &s.time, &s.weight);
				if (c->event == e->o->event && s.time && s.weight)
					err = sse_add(e, &s, &prev, seq);
				prev = s;
			}
		}
	}
	return err;
}

static int sse_cmp(const void *a, const void *b)
{
	const struct sse_span *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void sse_event(struct sse *e, char type, uint32_t frame, uint64_t at)
{
	t2f_out__puts(e->out, e->comma ? ",{\"type\":\"" : "{\"type\":\"");
	t2f_out__putc(e->out, type);
	t2f_out__puts(e->out, "\",\"frame\":");
	t2f_out__u64(e->out, frame);
	t2f_out__puts(e->out, ",\"at\":");
	t2f_out__u64(e->out, at);
	t2f_out__putc(e->out, '}');
	e->comma = true;
}

/* Closes the open frames above the first `keep`, leaf first, at `at`. */
static void sse_close(struct sse *e, uint32_t keep, uint64_t at)
{
	while (e->n_open > keep)
		sse_event(e, 'C', e->open[--e->n_open], at);
}

/* Span sp, from `start`: the frames open (the span before ended at prev_end) closed, those
 * it shares with sp kept when it begins there, and the rest of its frames opened. */
static void sse_open(struct sse *e, const struct sse_span *sp, uint64_t start, uint64_t prev_end)
{
	bool touches = start == prev_end;
	uint32_t d = 0, k = 0;

	for (t2f_node_id n = sp->node; n; n = t2f_profile__node_parent(e->p, n))
		e->stack[d++] = e->o->frame_shared[t2f_profile__node_frame(e->p, n)] - 1;
	for (uint32_t i = 0; i < d / 2; i++) { /* root first */
		uint32_t x = e->stack[i];

		e->stack[i] = e->stack[d - 1 - i];
		e->stack[d - 1 - i] = x;
	}
	while (touches && k < d && k < e->n_open && e->open[k] == e->stack[k])
		k++;
	sse_close(e, k, touches ? start : prev_end);
	for (; k < d; k++) {
		sse_event(e, 'O', e->stack[k], start);
		e->open[e->n_open++] = e->stack[k];
	}
}

int t2f_ss_evented__write(const struct t2f_profile *p, t2f_thread_id t,
			  const struct t2f_ss_evented_opts *o, struct t2f_out *out)
{
	struct sse e = { .p = p, .o = o, .out = out };
	uint64_t end = 0, first = 0;
	bool any = false;
	int err = sse_collect(&e, t);

	if (!err) {
		e.open = calloc((size_t)e.max_depth + 1, sizeof(*e.open));
		e.stack = calloc((size_t)e.max_depth + 1, sizeof(*e.stack));
		err = e.open && e.stack ? 0 : -ENOMEM;
	}
	if (err)
		goto out;
	qsort(e.spans, e.n, sizeof(*e.spans), sse_cmp);
	for (size_t i = 0; i < e.n; i++) { /* the bounds first: the head precedes the events */
		uint64_t start = any && e.spans[i].start < end ? end : e.spans[i].start;

		if (e.spans[i].end <= start)
			continue;
		first = any ? first : start;
		end = e.spans[i].end;
		any = true;
	}
	t2f_out__puts(out, "\"unit\":\"nanoseconds\",\"startValue\":");
	t2f_out__u64(out, first);
	t2f_out__puts(out, ",\"endValue\":");
	t2f_out__u64(out, end);
	t2f_out__puts(out, ",\"events\":[");
	end = 0;
	any = false;
	for (size_t i = 0; i < e.n; i++) {
		const struct sse_span *sp = &e.spans[i];
		uint64_t start = any && sp->start < end ? end : sp->start;

		if (sp->end <= start)
			continue;
		sse_open(&e, sp, start, end);
		end = sp->end;
		any = true;
	}
	sse_close(&e, 0, end);
	t2f_out__puts(out, "]}");
out:
	free(e.spans);
	free(e.open);
	free(e.stack);
	return err;
}
