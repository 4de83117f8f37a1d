/* readers/perf_script_par.c: segments, worker threads and the in-order merge
 * (perf_script_par.h).
 *
 * The calling thread produces segments into a ring of threads + 1 slots; workers take the next
 * unclaimed slot, and the worker that finishes the segment at the ring's head merges it and the
 * finished ones after it, in order, while the others read on (one merges at a time: `merging`).
 * One mutex guards the ring indexes, the done flags, the merging flag, the first error, the
 * buffer pool and the spare profiles and parsers; a slot's other fields belong to the thread
 * that owns it at the time (the producer until it is published, then its worker until done,
 * then the merger). The caller's profile,
 * diag and the calling thread's parser are the merger's until every segment is merged: the
 * calling thread's own messages (reading the input, growing a buffer) go to a buffered diag of
 * its own meanwhile, replayed at the end.
 */
#include "readers/perf_script_par.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "formats/derive.h"
#include "formats/grow.h"
#include "formats/mem.h"
#include "readers/perf_script.h"
#include "readers/perf_script_cut.h"
#include "readers/perf_script_seg.h"


struct par_seg {
	const char *data;
	size_t len;
	char *owned;                 /* the buffer holding data (data == owned), of owned_cap bytes */
	size_t owned_cap;
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
	bool log, times, hist;
	bool sample_times;      /* each logged sample's time too (the Firefox profile) */
	bool fold;              /* threads of one comm counted together (t2f_profile__fold_threads) */
	size_t seg_bytes, pool_cap;
	/* the caller's first chunk: its bytes not yet in cur */
	const char *first;
	size_t first_len;
	/* bytes read but not yet cut: cur[0, cur_len) of a buffer of cur_cap; filled up to lim */
	char *cur;
	size_t cur_len, cur_cap, lim;
	/* buffers of merged segments, for the next ones (the calling thread's) */
	struct par_buf { char *p; size_t cap; } pool[T2F_PAR_POOL];
	unsigned npool;
	/* profiles and parsers of merged segments, for the next ones: their tables keep their
	 * memory (t2f_profile__reset), which a new one would fault in and grow again */
	struct par_spare { struct t2f_profile *p; struct t2f_perf_script *ps; } spare[T2F_PAR_POOL];
	unsigned nspare;
	bool eof, in_order;
	/* the ring */
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	struct par_seg *ring;
	unsigned cap;
	uint64_t head, claim, tail;
	bool closed, stop;
	bool merging;
	int err;                  /* the first merge error */
	/* the calling thread's parser: mappings read so far, and segments read again */
	struct t2f_perf_script *seq;
	struct t2f_diag *own_d;   /* the calling thread's messages while segments are merged */
	struct t2f_diag *in_d;    /* the input's diag, given back at the end */
};

/* ---- producing segments (calling thread) ---- */

/* The size of a buffer for `need` bytes: from one huge page up, in whole huge pages. (Below
 * T2F_MEM_HUGE_MIN they came from the heap, a fault per 4 KiB: segments of 2, 3 or 3.5 MiB took
 * 4,000-5,800 faults on a 113 MB text where 4 MiB took 2,300, and 17-32% more time.) */
static size_t buf_cap(size_t need)
{
	size_t huge = T2F_MEM_HUGE_PAGE;

	return need < T2F_MEM_HUGE_PAGE ? need : (need + huge - 1) / huge * huge;
}

/* A buffer of at least `need` bytes (one back from the pool if there is one) into cur. */
static int cur_new(struct par *x, size_t need)
{
	size_t cap = buf_cap(need > x->seg_bytes ? need : x->seg_bytes);
	bool pooled;

	pthread_mutex_lock(&x->mu);
	pooled = x->npool && x->pool[x->npool - 1].cap >= cap;
	if (pooled) {
		x->npool--;
		x->cur = x->pool[x->npool].p;
		x->cur_cap = x->pool[x->npool].cap;
	}
	pthread_mutex_unlock(&x->mu);
	if (pooled)
		return 0;
	/* large: a fault and a TLB entry per 2 MiB, not per 4 KiB */
	x->cur = cap < T2F_MEM_HUGE_PAGE ? malloc(cap) : t2f_mem__alloc_huge(cap, &cap);
	if (!x->cur)
		return -ENOMEM;
	x->cur_cap = cap;
	return 0;
}

static void pool_put(struct par *x, char *p, size_t cap)
{
	bool kept;

	pthread_mutex_lock(&x->mu);
	kept = p && !x->closed && x->npool < T2F_PAR_POOL && cap == x->pool_cap;
	if (kept)
		x->pool[x->npool++] = (struct par_buf){ p, cap };
	pthread_mutex_unlock(&x->mu);
	if (!kept)
		free(p);
}

/* cur doubles (lim with it). */
static int cur_grow(struct par *x)
{
	if (t2f_grow((void **)&x->cur, &x->cur_cap, x->cur_cap, 1, 1, 1, SIZE_MAX))
		return t2f_diag__error(x->own_d, -ENOMEM, x->name, 0,
				       "out of memory growing a text buffer past %zu bytes", x->cur_cap);
	x->lim = x->cur_cap;
	return 0;
}

/* Reads more bytes into cur, up to lim: the first chunk's first, then the input's. Sets eof at
 * the end. 0 or a negative error. */
static int fill(struct par *x)
{
	size_t room = x->lim - x->cur_len, got;
	int r;

	if (x->first_len) {
		got = x->first_len < room ? x->first_len : room;
		memcpy(x->cur + x->cur_len, x->first, got);
		x->first += got;
		x->first_len -= got;
		x->cur_len += got;
		return 0;
	}
	r = t2f_input__read(x->in, x->cur + x->cur_len, room, &got);
	if (r < 0)
		return r;
	x->cur_len += got;
	x->eof = r == 0;
	return x->o->progress ? x->o->progress(x->o->progress_ctx, x->in) : 0;
}

/* The first `len` bytes of cur become segment s; the rest moves to a new cur (none once the
 * input is read to its end and nothing is left). */
static int cur_take(struct par *x, size_t len, struct par_seg *s)
{
	char *old = x->cur;
	size_t old_cap = x->cur_cap, rest = x->cur_len - len;
	int err = 0;

	if (x->eof && !rest) {
		x->cur = NULL;
		x->cur_cap = 0;
	} else {
		err = cur_new(x, rest);
	}
	if (err) {
		x->cur = old;
		x->cur_cap = old_cap;
		return err;
	}
	if (rest)
		memcpy(x->cur, old + len, rest);
	x->cur_len = rest;
	x->lim = x->seg_bytes > rest ? x->seg_bytes : x->cur_cap;
	*s = (struct par_seg){ .data = old, .len = len, .owned = old, .owned_cap = old_cap };
	return 0;
}

/* The next segment: 1 with *s, 0 when the input is done, or a negative error. A segment ends
 * at the last record start once lim bytes are read; with none, cur grows, and past
 * T2F_PAR_PENDING_SEGMENTS segments' worth the rest is read in order (in_order set, 0). */
static int produce(struct par *x, struct par_seg *s)
{
	for (;;) {
		size_t cut;
		int err;

		if (x->eof)
			return x->cur_len ? cur_take(x, x->cur_len, s) ?: 1 : 0;
		if (x->cur_len == x->lim) {
			if (ps_find_last_cut(x->cur, x->cur_len, &cut))
				return cur_take(x, cut, s) ?: 1;
			if (x->cur_cap / T2F_PAR_PENDING_SEGMENTS >= x->seg_bytes) {
				x->in_order = true;
				return 0;
			}
			if (x->lim == x->cur_cap && (err = cur_grow(x)) != 0)
				return err;
			x->lim = x->cur_cap;
		}
		err = fill(x);
		if (err)
			return err;
	}
}

/* ---- reading a segment ---- */

/* A spare profile and parser into s, when there is one: 1, else 0. */
static bool spare_take(struct par *x, struct par_seg *s)
{
	bool got;

	pthread_mutex_lock(&x->mu);
	got = x->nspare > 0;
	if (got) {
		x->nspare--;
		s->p = x->spare[x->nspare].p;
		s->ps = x->spare[x->nspare].ps;
	}
	pthread_mutex_unlock(&x->mu);
	return got;
}

/* s's profile and parser, empty, as t2f_profile__new and t2f_perf_script__new make them. */
static int seg_start(struct par *x, struct par_seg *s)
{
	if (!spare_take(x, s))
		return t2f_profile__new(&s->p) ?: t2f_diag__new_buffered(&s->d) ?:
		       t2f_derive__segment(s->p, x->p) ?:
		       t2f_perf_script__new(s->p, s->d, x->name, x->input, &s->ps);
	return t2f_profile__reset(s->p) ?: t2f_diag__new_buffered(&s->d) ?:
	       t2f_derive__segment(s->p, x->p) ?: t2f_perf_script__reset(s->ps, s->d);
}

static int seg_read(struct par *x, struct par_seg *s)
{
	int err = seg_start(x, s);

	if (err)
		return err;
	if (x->log)
		err = t2f_profile__enable_log(s->p);
	if (!err && x->fold)
		err = t2f_profile__fold_threads(s->p);
	if (!err && x->sample_times)
		err = t2f_profile__enable_sample_times(s->p);
	if (!err && x->hist)
		err = t2f_profile__enable_hist(s->p);
	if (err)
		return err;
	if (x->times)
		t2f_profile__want_times(s->p);
	t2f_perf_script__keep_addrs(s->ps, x->o->keep_addrs);
	t2f_perf_script__unknown_addrs(s->ps, x->o->addr_wanted, x->o->addr_ctx);
	t2f_perf_script__addrs_need_ids(s->ps, x->o->addrs_need_ids);
	t2f_perf_script__timeless(s->ps, x->o->timeless);
	t2f_perf_script__filter(s->ps, x->o->filter);
	t2f_perf_script__borrow_input(s->ps);
	return t2f_perf_script__feed(s->ps, s->data, s->len) ?: t2f_perf_script__finish(s->ps);
}

/* With mu held: whether a segment may still start (and take a spare profile and parser). */
static bool segments_to_start(const struct par *x)
{
	return !x->closed || x->claim < x->tail;
}

/* The spare profiles and parsers, once no segment will start: their tables' memory is given
 * back before the last merges, where the merged profile is largest. */
static void spares_drop(struct par *x)
{
	struct par_spare drop[T2F_PAR_POOL];
	unsigned n = 0;

	pthread_mutex_lock(&x->mu);
	if (!segments_to_start(x))
		for (; x->nspare; x->nspare--)
			drop[n++] = x->spare[x->nspare - 1];
	pthread_mutex_unlock(&x->mu);
	while (n--) {
		t2f_perf_script__free(drop[n].ps);
		t2f_profile__free(drop[n].p);
	}
}

static void seg_free(struct par *x, struct par_seg *s)
{
	bool kept = false;

	if (!s->err && s->p && s->ps) {
		pthread_mutex_lock(&x->mu);
		kept = segments_to_start(x) && x->nspare < T2F_PAR_POOL;
		if (kept)
			x->spare[x->nspare++] = (struct par_spare){ s->p, s->ps };
		pthread_mutex_unlock(&x->mu);
	}
	if (!kept) {
		t2f_perf_script__free(s->ps);
		t2f_profile__free(s->p);
	}
	t2f_diag__free(s->d);
	pool_put(x, s->owned, s->owned_cap);
	*s = (struct par_seg){ 0 };
	spares_drop(x);
}

/* ---- merging (a worker, or the calling thread once every segment is merged) ---- */

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

	if (!s->err && ((t2f_perf_script__used_maps(s->ps) && t2f_perf_script__has_maps(x->seq)) ||
			(t2f_perf_script__dropped_addrs(s->ps) && t2f_perf_script__read_ids(x->seq)) ||
			t2f_derive__merge_in_order(x->p, s->p)))
		return seg_reread(x, s);
	if (s->d && (err = t2f_diag__replay(x->d, s->d, x->res->lines)) != 0)
		return err;
	if (s->err)
		return s->err;
	err = t2f_derive__merge(x->p, s->p); /* t2f_profile__merge without derive stages */
	maps = t2f_perf_script__map_lines(s->ps, &n);
	if (!err && n)
		err = t2f_perf_script__add_map_lines(x->seq, maps, n);
	x->res->lines += t2f_perf_script__lines(s->ps);
	x->res->bytes += s->len;
	return err;
}

/* With mu held: unless another thread is merging, merges the finished segments at the ring's
 * head, in order, releasing mu while each is merged. */
static void merge_done(struct par *x)
{
	if (x->merging)
		return;
	x->merging = true;
	while (!x->stop && x->head < x->tail && x->ring[x->head % x->cap].done) {
		struct par_seg *h = &x->ring[x->head % x->cap];
		int r;

		pthread_mutex_unlock(&x->mu);
		r = seg_merge(x, h);
		seg_free(x, h);
		pthread_mutex_lock(&x->mu);
		x->head++;
		if (r && !x->err) {
			x->err = r;
			x->stop = true;
			pthread_cond_broadcast(&x->work);
		}
		pthread_cond_broadcast(&x->done);
	}
	x->merging = false;
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
		merge_done(x);
	}
	pthread_mutex_unlock(&x->mu);
	return NULL;
}

/* Feeds the complete lines of cur to the calling thread's parser (at the end, all of it) and
 * moves the rest to the front. */
static int feed_lines(struct par *x)
{
	const char *nl = x->cur_len ? memrchr(x->cur, '\n', x->cur_len) : NULL;
	size_t n = x->eof ? x->cur_len : nl ? (size_t)(nl - x->cur) + 1 : 0;
	int err = n ? t2f_perf_script__feed(x->seq, x->cur, n) : 0;

	x->res->bytes += n;
	memmove(x->cur, x->cur + n, x->cur_len - n);
	x->cur_len -= n;
	return err;
}

static int line_too_long(struct par *x)
{
	return t2f_diag__error(x->own_d, -T2F_ERR_LIMIT, x->name, t2f_perf_script__lines(x->seq) + 1,
			       "a line longer than the %u-byte limit", T2F_INPUT_MAX_LINE);
}

/* The rest of the input read into cur and fed to the calling thread's parser. */
static int feed_rest(struct par *x)
{
	int err = 0;

	while (!err) {
		err = feed_lines(x);
		if (err || x->eof)
			break;
		if (x->cur_len == x->cur_cap && x->cur_cap >= T2F_INPUT_MAX_LINE)
			err = line_too_long(x);
		else if (x->cur_len == x->cur_cap)
			err = cur_grow(x);
		err = err ?: fill(x);
	}
	return err;
}

/* in_order: the rest of the input through the calling thread's parser, in order. A line longer
 * than T2F_INPUT_MAX_LINE is an error, as in one-thread reading. */
static int read_in_order(struct par *x)
{
	int err;

	t2f_perf_script__set_lines(x->seq, x->res->lines);
	x->lim = x->cur_cap;
	err = feed_rest(x) ?: t2f_perf_script__finish(x->seq);
	x->res->lines = t2f_perf_script__lines(x->seq);
	return err;
}

/* ---- the ring ---- */

static void publish(struct par *x, const struct par_seg *s)
{
	pthread_mutex_lock(&x->mu);
	x->ring[x->tail % x->cap] = *s;
	x->tail++;
	pthread_cond_signal(&x->work);
	pthread_mutex_unlock(&x->mu);
}

/* No segment comes after this: the pooled buffers are given back (pool_put keeps none from
 * now on). */
static void close_ring(struct par *x, bool stop)
{
	struct par_buf drop[T2F_PAR_POOL];
	unsigned n;

	pthread_mutex_lock(&x->mu);
	x->closed = true;
	x->stop = x->stop || stop;
	pthread_cond_broadcast(&x->work);
	n = x->npool;
	memcpy(drop, x->pool, n * sizeof(*drop));
	x->npool = 0;
	pthread_mutex_unlock(&x->mu);
	while (n--)
		free(drop[n].p);
}

/* Until there is room for a segment (all_in: every segment is merged) or a merge failed: its
 * error, or 0. */
static int wait_room(struct par *x, bool all_in)
{
	int err;

	pthread_mutex_lock(&x->mu);
	while (!x->err && (all_in ? x->head < x->tail : x->tail - x->head == x->cap))
		pthread_cond_wait(&x->done, &x->mu);
	err = x->err;
	pthread_mutex_unlock(&x->mu);
	return err;
}

/* Produces and hands out segments until the input is read and every segment merged, or an
 * error; then the rest of the input in order if it came to that. */
static int run(struct par *x)
{
	for (;;) {
		struct par_seg s;
		int r = wait_room(x, false);

		if (r)
			return r;
		r = produce(x, &s);
		if (r < 0)
			return r;
		if (r == 0)
			break;
		publish(x, &s);
	}
	close_ring(x, false);
	return wait_room(x, true) ?: x->in_order ? read_in_order(x) : 0;
}

static int par_init(struct par *x, unsigned threads)
{
	int err;

	pthread_mutex_init(&x->mu, NULL);
	pthread_cond_init(&x->work, NULL);
	pthread_cond_init(&x->done, NULL);
	x->cap = threads + 1;
	x->ring = calloc(x->cap, sizeof(*x->ring));
	if (!x->ring || t2f_diag__new_buffered(&x->own_d))
		return -ENOMEM;
	x->in_d = t2f_input__swap_diag(x->in, x->own_d);
	err = t2f_perf_script__new(x->p, x->d, x->name, x->input, &x->seq);
	if (!err) {
		t2f_perf_script__keep_addrs(x->seq, x->o->keep_addrs);
		t2f_perf_script__unknown_addrs(x->seq, x->o->addr_wanted, x->o->addr_ctx);
		t2f_perf_script__addrs_need_ids(x->seq, x->o->addrs_need_ids);
		t2f_perf_script__timeless(x->seq, x->o->timeless);
		t2f_perf_script__filter(x->seq, x->o->filter);
	}
	return err;
}

static void par_fini(struct par *x)
{
	for (uint64_t i = x->head; x->ring && i < x->tail; i++)
		seg_free(x, &x->ring[i % x->cap]);
	free(x->ring);
	free(x->cur);
	while (x->npool)
		free(x->pool[--x->npool].p);
	for (; x->nspare; x->nspare--) {
		t2f_perf_script__free(x->spare[x->nspare - 1].ps);
		t2f_profile__free(x->spare[x->nspare - 1].p);
	}
	t2f_perf_script__free(x->seq);
	t2f_diag__free(x->own_d);
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
			 .times = t2f_profile__wants_times(p),
			 .sample_times = t2f_profile__sample_times(p),
			 .fold = t2f_profile__folds_threads(p),
			 .hist = t2f_profile__hist(p) != NULL };
	unsigned threads = o->threads ? o->threads : 1, started = 0;
	pthread_t *tids = calloc(threads, sizeof(*tids));
	int err;

	*res = (struct t2f_ps_par_result){ 0 };
	x.seg_bytes = o->segment_bytes ? o->segment_bytes : T2F_PAR_SEGMENT;
	x.pool_cap = buf_cap(x.seg_bytes);
	x.eof = first_len == 0;
	x.first = first;
	x.first_len = first_len;
	x.lim = x.seg_bytes;
	err = par_init(&x, threads) ?: (tids ? 0 : -ENOMEM) ?: cur_new(&x, 0);
	while (!err && started < threads && pthread_create(&tids[started], NULL, worker, &x) == 0)
		started++;
	if (!err && started == 0) /* not even one thread: the calling thread reads it all */
		x.in_order = true;
	if (!err)
		err = x.in_order ? read_in_order(&x) : run(&x);
	close_ring(&x, true);
	for (unsigned i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	if (x.own_d) {
		int r;

		t2f_input__swap_diag(in, x.in_d);
		r = t2f_diag__replay(d, x.own_d, 0);
		err = err ?: r;
	}
	par_fini(&x);
	free(tids);
	return err;
}
