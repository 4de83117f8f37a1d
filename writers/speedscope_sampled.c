/* writers/speedscope_sampled.c: the "sampled" profiles' text (pass 4 of writers/speedscope.c):
 * each profile's head made on the calling thread, its samples and weights made by one job (up to
 * SS_WRITE_BATCH items) or cut into jobs of SS_WRITE_BATCH items, grouped into pieces that
 * writers/par_text.h formats on threads and writes in order. */
#include "writers/speedscope_int.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/buf.h"
#include "formats/decimal.h"
#include "formats/diag.h"
#include "formats/sat.h"
#include "writers/par_text.h"
#include "writers/speedscope_stacks.h"

/* Weights written lately and their digits, by a hash of the weight: runs weigh a few values
 * (a multiple of the period) again and again. */
#define SS_WEIGHT_SLOTS 16
struct ss_weights {
	struct {
		uint64_t v;
		size_t len;    /* 0: empty */
		char text[24];
	} slot[SS_WEIGHT_SLOTS];
};

#define SS_WEIGHT_ROOM 25 /* bytes reserved per run in a weights piece: a comma and 24 */

/* Appends v in decimal to b; room for 24 bytes more was reserved. */
static void ss_put_weight(struct t2f_buf *b, struct ss_weights *w, uint64_t v)
{
	size_t at = b->len, i = (size_t)((v * 0x9e3779b97f4a7c15ull) >> 60);

	if (w->slot[i].v == v && w->slot[i].len) {
		memcpy(b->p + at, w->slot[i].text, sizeof(w->slot[i].text));
		b->len += w->slot[i].len;
		return;
	}
	b->len += t2f_dec_u64(b->p + at, v);
	w->slot[i].v = v;
	w->slot[i].len = b->len - at;
	memcpy(w->slot[i].text, b->p + at, w->slot[i].len);
}

/* Appends node's stack to b, after a comma if `comma`. 0 or -ENOMEM. */
static int ss_put_stack(const struct ss *s, const struct ss_stack_view *v, t2f_node_id node,
			bool comma, struct t2f_buf *b, uint32_t *scratch)
{
	size_t len = v->len[node];
	const char *text;

	if (!v->off[node])
		return (comma ? t2f_buf__put(b, ",", 1) : 0) ?:
		       ss_stacks__put(s->stacks, node, b, scratch);
	text = v->text + v->off[node] - 1;
	if (b->cap - b->len <= len + SS_STACK_SLACK &&
	    t2f_buf__reserve(b, len + 1 + SS_STACK_SLACK))
		return -ENOMEM;
	b->p[b->len] = ',';
	b->len += comma;
	if (len <= SS_STACK_SLACK) /* one fixed-size move: the bytes past len are overwritten next */
		memcpy(b->p + b->len, text, SS_STACK_SLACK);
	else
		memcpy(b->p + b->len, text, len);
	b->len += len;
	return 0;
}

/* A thread's items read a batch at a time, up to stop. Made by ss_reader_init: a whole-machine
 * recording has thousands of threads with a few items each, and clearing the batch for each of
 * their jobs cost more than reading their items. */
struct ss_reader {
	const struct ss *s;
	t2f_thread_id thread;
	uint32_t stop, base, n;
	struct ss_item it[SS_BATCH];
};

static void ss_reader_init(struct ss_reader *r, const struct ss *s, t2f_thread_id thread,
			   uint32_t stop)
{
	r->s = s;
	r->thread = thread;
	r->stop = stop;
	r->base = 0;
	r->n = 0; /* nothing loaded: it[] is read only once loaded */
}

/* Reads the batch of items from i on, or (back) the one ending at i. */
static void ss_reader_load(struct ss_reader *r, uint32_t i, bool back)
{
	r->base = back ? (i + 1 > SS_BATCH ? i + 1 - SS_BATCH : 0) : i;
	r->n = r->stop - r->base < SS_BATCH ? r->stop - r->base : SS_BATCH;
	ss_items(r->s, r->thread, r->base, r->n, r->it);
}

/* The item at i (< stop), valid until the next call; `back`: reading backwards. */
static inline const struct ss_item *ss_item_at(struct ss_reader *r, uint32_t i, bool back)
{
	if (i - r->base >= r->n) /* also when i < base */
		ss_reader_load(r, i, back);
	return &r->it[i - r->base];
}

/* The run of items with the stack of written item i (weight-0 items inside are passed over): its
 * end and its total weight. */
static uint32_t ss_run(struct ss_reader *r, uint32_t i, uint64_t *weight)
{
	t2f_node_id node = ss_item_at(r, i, false)->node;
	uint64_t w = ss_item_at(r, i, false)->weight;

	for (const struct ss_item *it; ++i < r->stop; w = t2f_sat_add(w, it->weight)) {
		it = ss_item_at(r, i, false);
		if (it->weight && it->node != node)
			break;
	}
	*weight = w;
	return i;
}

/* The first written item in [i, end), or end. */
static uint32_t ss_next_written(struct ss_reader *r, uint32_t i, uint32_t end)
{
	while (i < end && !ss_item_at(r, i, false)->weight)
		i++;
	return i;
}

/* Whether an item before i is written, and the last one's node. */
static bool ss_written_before(struct ss_reader *r, uint32_t i, t2f_node_id *node)
{
	while (i-- > 0) {
		const struct ss_item *it = ss_item_at(r, i, true);

		if (it->weight) {
			*node = it->node;
			return true;
		}
	}
	return false;
}

/* Appends the stacks, or (of_weights) the weights, of job j's runs to b, comma-separated (with a
 * comma before a run that is not its profile's first), reading the items through r (made for the
 * job's thread: a job of both lists reads a short thread's items once). A run is a row of a
 * thread's items with the same stack, written as one sample of their summed weight: speedscope's
 * importer adds such samples into one anyway (src/lib/profile.ts, _appendSample). A run belongs
 * to the job it starts in, which reads on past its end for it. Reads s only (scratch: max_depth +
 * 1 entries). 0 or -ENOMEM. */
static int ss_format_items(const struct ss *s, const struct ss_job *j, struct ss_reader *r,
			   bool of_weights, struct t2f_buf *b, uint32_t *scratch)
{
	uint32_t i;
	struct ss_weights weights = { 0 };
	struct ss_stack_view view;
	t2f_node_id before;
	bool comma;
	int err = 0;

	i = ss_next_written(r, j->begin, j->end);
	if (i == j->end) /* nothing written here (a zero stretch: no need to look back) */
		return 0;
	if (of_weights && t2f_buf__reserve(b, (size_t)(j->end - j->begin) * SS_WEIGHT_ROOM))
		return -ENOMEM;
	ss_stacks__view(s->stacks, &view);
	comma = ss_written_before(r, j->begin, &before);
	if (comma) /* a run from the job before goes on here: it was written there */
		for (const struct ss_item *it; i < j->end; i++) {
			it = ss_item_at(r, i, false);
			if (it->weight && it->node != before)
				break;
		}
	while (!err && (i = ss_next_written(r, i, j->end)) < j->end) {
		t2f_node_id node = ss_item_at(r, i, false)->node;
		uint64_t w;

		i = ss_run(r, i, &w);
		if (of_weights) {
			b->p[b->len] = ','; /* room for SS_WEIGHT_ROOM bytes a run was reserved */
			b->len += comma;
			ss_put_weight(b, &weights, w);
		} else {
			err = ss_put_stack(s, &view, node, comma, b, scratch);
		}
		comma = true;
	}
	return err;
}

/* Appends a profile's text up to its first sample to b: the separator from the profile before
 * (first: none), then {"type":"sampled","name":…,"unit":…,"startValue":0,"endValue":…,"samples":[ */
static int ss_put_head(struct ss *s, t2f_thread_id t, const char *unit, bool first,
		       struct t2f_buf *b)
{
	int err = t2f_buf__puts(b, first ? "\n" : ",\n") ?:
		  t2f_buf__puts(b, "{\"type\":\"sampled\",\"name\":") ?:
		  ss_put_thread_name(s, t2f_profile__thread_at(s->p, t), b) ?:
		  t2f_buf__puts(b, ",\"unit\":\"") ?: t2f_buf__puts(b, unit) ?:
		  t2f_buf__puts(b, "\",\"startValue\":0,\"endValue\":");

	if (err || (err = t2f_buf__reserve(b, T2F_DEC_MAX)))
		return err;
	b->len += t2f_dec_u64(b->p + b->len, s->totals[t]);
	return t2f_buf__puts(b, ",\"samples\":[");
}

/* The jobs of a profile of n items: one for both lists, or its samples, then its weights, in
 * SS_WRITE_BATCH items a job. */
static size_t ss_jobs_of(size_t n)
{
	return n <= SS_WRITE_BATCH ? 1 : 2 * ((n + SS_WRITE_BATCH - 1) / SS_WRITE_BATCH);
}

/* Thread t's jobs, after s->job_count (room made). */
static void ss_add_jobs(struct ss *s, t2f_thread_id t, size_t head_off, size_t head_len)
{
	uint32_t end = (uint32_t)ss_item_count(s, t);

	if (end <= SS_WRITE_BATCH) {
		s->jobs[s->job_count++] = (struct ss_job){
			.thread = t, .end = end, .stop = end, .part = SS_BOTH, .last = true,
			.head_off = head_off, .head_len = (uint32_t)head_len };
		return;
	}
	for (uint8_t part = SS_SAMPLES; part <= SS_WEIGHTS; part++) {
		for (uint32_t from = 0, n; from < end; from += n) {
			n = end - from < SS_WRITE_BATCH ? end - from : SS_WRITE_BATCH;
			s->jobs[s->job_count++] = (struct ss_job){
				.thread = t, .begin = from, .end = from + n, .stop = end,
				.part = part, .last = from + n == end,
				.head_off = from == 0 && part == SS_SAMPLES ? head_off : 0,
				.head_len = from == 0 && part == SS_SAMPLES ? (uint32_t)head_len : 0 };
		}
	}
}

/* One job's text: the profile's head before its first samples, the runs, and after the last one
 * of a list "],"weights":[" or "]}". */
static int ss_job_text(const struct ss *s, const struct ss_job *j, unsigned worker,
		       struct t2f_buf *b)
{
	uint32_t *scratch = s->scratch + (size_t)worker * (s->max_depth + 1);
	struct ss_reader r;
	int err = t2f_buf__put(b, s->heads.p + j->head_off, j->head_len);

	ss_reader_init(&r, s, j->thread, j->stop);
	if (!err && j->part != SS_WEIGHTS)
		err = ss_format_items(s, j, &r, false, b, scratch) ?:
		      (j->last ? t2f_buf__puts(b, "],\"weights\":[") : 0);
	if (!err && j->part != SS_SAMPLES)
		err = ss_format_items(s, j, &r, true, b, scratch) ?:
		      (j->last ? t2f_buf__puts(b, "]}") : 0);
	return err;
}

/* One piece: the jobs of group idx, in order. */
static int ss_run_group(void *ctx, size_t idx, unsigned worker, struct t2f_buf *b)
{
	const struct ss *s = ctx;
	int err = 0;

	for (size_t i = s->group_start[idx]; !err && i < s->group_start[idx + 1]; i++)
		err = ss_job_text(s, &s->jobs[i], worker, b);
	return err;
}

/* Consecutive jobs grouped into pieces of up to SS_WRITE_BATCH items (a bigger job alone): a
 * whole-machine recording has thousands of threads with a few samples each, and a piece per
 * job cost more in handing pieces between threads than in making them. 0 or -ENOMEM. */
static int ss_group_jobs(struct ss *s)
{
	size_t items = 0;

	s->group_start = malloc((s->job_count + 1) * sizeof(*s->group_start));
	if (!s->group_start)
		return -ENOMEM;
	for (size_t i = 0; i < s->job_count; i++) {
		size_t n = (size_t)(s->jobs[i].end - s->jobs[i].begin) *
			   (s->jobs[i].part == SS_BOTH ? 2 : 1);

		if (i == 0 || items + n > SS_WRITE_BATCH) {
			s->group_start[s->group_count++] = i;
			items = 0;
		}
		items += n;
		if (items > s->group_most)
			s->group_most = items;
	}
	s->group_start[s->group_count] = s->job_count;
	return 0;
}

/* The profiles: heads made here, items formatted on s->threads threads, written in order. */
int ss_write_profiles(struct ss *s, const char *unit)
{
	bool first = true;
	size_t jobs = 0;
	int err = 0;

	for (t2f_thread_id t = 1; t <= s->thread_count; t++)
		jobs += s->totals[t] ? ss_jobs_of(ss_item_count(s, t)) : 0;
	s->jobs = malloc((jobs ? jobs : 1) * sizeof(*s->jobs));
	if (!s->jobs)
		return -ENOMEM;
	for (t2f_thread_id t = 1; !err && t <= s->thread_count; t++) {
		size_t off = s->heads.len;

		if (!s->totals[t])
			continue;
		err = ss_put_head(s, t, unit, first, &s->heads);
		if (!err && s->heads.len - off > UINT32_MAX)
			err = -T2F_ERR_LIMIT;
		if (!err)
			ss_add_jobs(s, t, off, s->heads.len - off);
		first = false;
	}
	err = err ?: ss_group_jobs(s);
	if (err)
		return err;
	t2f_out__puts(s->out, "\"profiles\":[");
	/* the piece buffers start at the largest piece's size: what its weights reserve (its
	 * samples take about as much) */
	err = t2f_par_text__run(s->group_count, s->threads, ss_run_group, s,
				s->group_most * SS_WEIGHT_ROOM, s->out);
	if (!err)
		t2f_out__puts(s->out, "]}\n");
	return err;
}
