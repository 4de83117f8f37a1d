/* readers/perf_script_par.c: segments, worker threads and the in-order merge
 * (perf_script_par.h).
 *
 * The calling thread produces segments into a ring of threads + 2 slots and merges finished
 * ones from its head; workers take the next unclaimed slot. One mutex guards the ring indexes
 * and the done flags; a slot's other fields belong to the thread that owns it at the time (the
 * producer until it is published, then its worker until done, then the merger).
 */
#include "readers/perf_script_par.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "formats/buf.h"
#include "readers/perf_script.h"
#include "readers/perf_script_cut.h"

struct par_seg {
	const char *data;
	size_t len;
	char *owned;                 /* stream mode: the buffer holding data */
	bool done;
	int err;
	struct t2f_profile *p;
	struct t2f_diag *d;
	struct t2f_perf_script *ps;
};

struct par {
	struct t2f_input *in;
	struct t2f_profile *p;
	struct t2f_diag *d;
	const char *name;
	uint32_t input;
	const struct t2f_ps_par_opts *o;
	struct t2f_ps_par_result *res;
	bool mapped, log, times;
	size_t seg_bytes;
	/* bytes read but not yet cut: mapped, [pend, pend + pend_len) of the file; stream, buf */
	const char *pend;
	size_t pend_len;
	struct t2f_buf buf;
	size_t cut_from;        /* pending offset before which no cut point is (0: none checked) */
	bool eof, in_order;
	/* the ring */
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	struct par_seg *ring;
	unsigned cap;
	uint64_t head, claim, tail;
	bool closed, stop;
	/* the calling thread's parser: mappings read so far, and segments read again */
	struct t2f_perf_script *seq;
};

/* ---- producing segments (calling thread) ---- */

static const char *pend_data(const struct par *x)
{
	return x->mapped ? x->pend : x->buf.p;
}

static size_t pend_size(const struct par *x)
{
	return x->mapped ? x->pend_len : x->buf.len;
}

static int pend_add(struct par *x, const char *data, size_t len)
{
	if (!x->mapped)
		return t2f_buf__put(&x->buf, data, len);
	if (!x->pend)
		x->pend = data;
	if (data != x->pend + x->pend_len)
		return t2f_diag__error(x->d, -EINVAL, x->name, 0, "mapped input out of order");
	x->pend_len += len;
	return 0;
}

/* The first `len` pending bytes become segment s. */
static int pend_take(struct par *x, size_t len, struct par_seg *s)
{
	struct t2f_buf rest = { 0 };
	int err;

	*s = (struct par_seg){ .data = pend_data(x), .len = len };
	if (x->mapped) {
		x->pend += len;
		x->pend_len -= len;
		return 0;
	}
	err = t2f_buf__put(&rest, x->buf.p + len, x->buf.len - len);
	if (err)
		return err;
	s->owned = x->buf.p;
	x->buf = rest;
	return 0;
}

/* Reads one more chunk into the pending bytes: 0, or a negative error. Sets eof at the end. */
static int read_chunk(struct par *x)
{
	const char *data;
	size_t len;
	int r = t2f_input__next(x->in, &data, &len);

	if (r < 0)
		return r;
	if (x->o->progress)
		x->o->progress(x->o->progress_ctx, x->in);
	if (r == 0) {
		x->eof = true;
		return 0;
	}
	return pend_add(x, data, len);
}

/* The next segment: 1 with *s, 0 when the input is done, or a negative error. Sets in_order
 * (and gives 0) when T2F_PAR_PENDING_SEGMENTS segments' worth of pending bytes has no cut. */
static int produce(struct par *x, struct par_seg *s)
{
	for (;;) {
		size_t cut, n = pend_size(x);
		size_t from = x->cut_from > x->seg_bytes ? x->cut_from : x->seg_bytes;
		const char *p = pend_data(x), *nl;
		int err;

		if (n >= x->seg_bytes && ps_find_cut(p, n, from, &cut)) {
			x->cut_from = 0;
			return pend_take(x, cut, s) ?: 1;
		}
		if (n > from && (nl = memrchr(p + from, '\n', n - from)) != NULL)
			x->cut_from = (size_t)(nl - p) + 1; /* lines before it were looked at */
		if (x->eof) {
			x->cut_from = 0;
			return n ? pend_take(x, n, s) ?: 1 : 0;
		}
		if (n / T2F_PAR_PENDING_SEGMENTS > x->seg_bytes) {
			x->in_order = true;
			return 0;
		}
		err = read_chunk(x);
		if (err)
			return err;
	}
}

/* ---- reading a segment ---- */

static int seg_read(const struct par *x, struct par_seg *s)
{
	int err = t2f_profile__new(&s->p) ?: t2f_diag__new_buffered(&s->d) ?:
		  t2f_perf_script__new(s->p, s->d, x->name, x->input, &s->ps);

	if (err)
		return err;
	if (x->log)
		err = t2f_profile__enable_log(s->p);
	if (err)
		return err;
	if (x->times)
		t2f_profile__want_times(s->p);
	t2f_perf_script__keep_addrs(s->ps, x->o->keep_addrs);
	t2f_perf_script__unknown_addrs(s->ps, x->o->addr_wanted, x->o->addr_ctx);
	t2f_perf_script__borrow_input(s->ps);
	if (x->mapped) /* its pages in one call rather than a fault per 64 KiB */
		t2f_input__prefault(x->in, s->data, s->data + s->len);
	err = t2f_perf_script__feed(s->ps, s->data, s->len) ?: t2f_perf_script__finish(s->ps);
	if (x->mapped) /* read: its pages can go (a second reading faults them back in) */
		t2f_input__drop(x->in, s->data, s->data + s->len);
	return err;
}

static void seg_free(struct par_seg *s)
{
	t2f_perf_script__free(s->ps);
	t2f_diag__free(s->d);
	t2f_profile__free(s->p);
	free(s->owned);
	*s = (struct par_seg){ 0 };
}

static void *worker(void *arg)
{
	struct par *x = arg;

	pthread_mutex_lock(&x->mu);
	for (;;) {
		struct par_seg *s;

		while (x->claim == x->tail && !x->closed && !x->stop)
			pthread_cond_wait(&x->work, &x->mu);
		if (x->stop || x->claim == x->tail)
			break;
		s = &x->ring[x->claim++ % x->cap];
		pthread_mutex_unlock(&x->mu);
		s->err = seg_read(x, s);
		pthread_mutex_lock(&x->mu);
		s->done = true;
		pthread_cond_broadcast(&x->done);
	}
	pthread_mutex_unlock(&x->mu);
	return NULL;
}

/* ---- merging (calling thread) ---- */

/* Reads s again with the calling thread's parser, which has the mappings read so far. */
static int seg_reread(struct par *x, const struct par_seg *s)
{
	int err;

	t2f_perf_script__set_lines(x->seq, x->res->lines);
	err = t2f_perf_script__feed(x->seq, s->data, s->len) ?: t2f_perf_script__finish(x->seq);
	x->res->lines = t2f_perf_script__lines(x->seq);
	x->res->bytes += s->len;
	return err;
}

static int seg_merge(struct par *x, const struct par_seg *s)
{
	const char *maps;
	size_t n;
	int err;

	if (!s->err && t2f_perf_script__used_maps(s->ps) && t2f_perf_script__has_maps(x->seq))
		return seg_reread(x, s);
	if (s->d && (err = t2f_diag__replay(x->d, s->d, x->res->lines)) != 0)
		return err;
	if (s->err)
		return s->err;
	err = t2f_profile__merge(x->p, s->p);
	maps = t2f_perf_script__map_lines(s->ps, &n);
	if (!err && n)
		err = t2f_perf_script__add_map_lines(x->seq, maps, n);
	x->res->lines += t2f_perf_script__lines(s->ps);
	x->res->bytes += s->len;
	return err;
}

/* in_order: the rest of the input (pending bytes, then every chunk left) through the calling
 * thread's parser, in order. */
static int read_in_order(struct par *x)
{
	const char *data;
	size_t len;
	int err;

	t2f_perf_script__set_lines(x->seq, x->res->lines);
	x->res->bytes += pend_size(x);
	err = t2f_perf_script__feed(x->seq, pend_data(x), pend_size(x));
	while (!err && (err = t2f_input__next(x->in, &data, &len)) > 0) {
		if (x->o->progress)
			x->o->progress(x->o->progress_ctx, x->in);
		x->res->bytes += len;
		err = t2f_perf_script__feed(x->seq, data, len);
	}
	err = err ?: t2f_perf_script__finish(x->seq);
	x->res->lines = t2f_perf_script__lines(x->seq);
	return err;
}

/* ---- the ring ---- */

static bool head_done(struct par *x)
{
	bool done;

	pthread_mutex_lock(&x->mu);
	done = x->head < x->tail && x->ring[x->head % x->cap].done;
	pthread_mutex_unlock(&x->mu);
	return done;
}

static void publish(struct par *x, const struct par_seg *s)
{
	pthread_mutex_lock(&x->mu);
	x->ring[x->tail % x->cap] = *s;
	x->tail++;
	pthread_cond_signal(&x->work);
	pthread_mutex_unlock(&x->mu);
}

static void close_ring(struct par *x, bool stop)
{
	pthread_mutex_lock(&x->mu);
	x->closed = true;
	x->stop = x->stop || stop;
	pthread_cond_broadcast(&x->work);
	pthread_mutex_unlock(&x->mu);
}

static void wait_head(struct par *x)
{
	pthread_mutex_lock(&x->mu);
	while (!x->ring[x->head % x->cap].done)
		pthread_cond_wait(&x->done, &x->mu);
	pthread_mutex_unlock(&x->mu);
}

/* Produces, hands out and merges until the input is read or an error. */
static int run(struct par *x)
{
	bool produced_all = false;

	for (;;) {
		struct par_seg s;
		int r;

		if (head_done(x)) {
			struct par_seg *h = &x->ring[x->head % x->cap];

			r = seg_merge(x, h);
			seg_free(h);
			x->head++;
			if (r)
				return r;
		} else if (!produced_all && x->tail - x->head < x->cap) {
			r = produce(x, &s);
			if (r < 0)
				return r;
			if (r > 0) {
				publish(x, &s);
			} else {
				produced_all = true;
				close_ring(x, false);
			}
		} else if (x->head == x->tail) {
			return x->in_order ? read_in_order(x) : 0;
		} else {
			wait_head(x);
		}
	}
}

static int par_init(struct par *x, unsigned threads)
{
	int err;

	pthread_mutex_init(&x->mu, NULL);
	pthread_cond_init(&x->work, NULL);
	pthread_cond_init(&x->done, NULL);
	x->cap = threads + 2;
	x->ring = calloc(x->cap, sizeof(*x->ring));
	if (!x->ring)
		return -ENOMEM;
	err = t2f_perf_script__new(x->p, x->d, x->name, x->input, &x->seq);
	if (!err) {
		t2f_perf_script__keep_addrs(x->seq, x->o->keep_addrs);
		t2f_perf_script__unknown_addrs(x->seq, x->o->addr_wanted, x->o->addr_ctx);
	}
	return err;
}

static void par_fini(struct par *x)
{
	for (uint64_t i = x->head; x->ring && i < x->tail; i++)
		seg_free(&x->ring[i % x->cap]);
	free(x->ring);
	t2f_buf__free(&x->buf);
	t2f_perf_script__free(x->seq);
	pthread_mutex_destroy(&x->mu);
	pthread_cond_destroy(&x->work);
	pthread_cond_destroy(&x->done);
}

int t2f_perf_script__read_parallel(struct t2f_input *in, const char *first, size_t first_len,
				   struct t2f_profile *p, struct t2f_diag *d, const char *name,
				   uint32_t input, const struct t2f_ps_par_opts *o,
				   struct t2f_ps_par_result *res)
{
	struct par x = { .in = in, .p = p, .d = d, .name = name, .input = input, .o = o, .res = res,
			 .log = t2f_profile__log_enabled(p),
			 .times = t2f_profile__wants_times(p) };
	unsigned threads = o->threads ? o->threads : 1, started = 0;
	pthread_t *tids = calloc(threads, sizeof(*tids));
	int err;

	*res = (struct t2f_ps_par_result){ 0 };
	x.mapped = t2f_input__keep_chunks(in);
	x.seg_bytes = o->segment_bytes ? o->segment_bytes
		      : x.mapped ? T2F_PAR_SEGMENT_MAPPED : T2F_PAR_SEGMENT_STREAM;
	x.eof = first_len == 0;
	err = par_init(&x, threads) ?: (tids ? 0 : -ENOMEM);
	if (!err && first_len)
		err = pend_add(&x, first, first_len);
	while (!err && started < threads && pthread_create(&tids[started], NULL, worker, &x) == 0)
		started++;
	if (!err && started == 0) /* not even one thread: the calling thread reads it all */
		x.in_order = true;
	if (!err)
		err = x.in_order ? read_in_order(&x) : run(&x);
	close_ring(&x, true);
	for (unsigned i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	par_fini(&x);
	free(tids);
	return err;
}
