/* writers/par_text.c: a ring of piece buffers. Job j goes to slot j % ring; a worker claims the
 * next job when its slot has been written, the calling thread writes slot after slot. */
#include "writers/par_text.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "formats/mem.h"

#define PIECES_PER_THREAD 3

struct slot {
	struct t2f_buf text;
	bool ready;
};

struct run {
	t2f_par_text_fn fn;
	void *ctx;
	size_t jobs, ring;
	struct slot *slots;
	pthread_mutex_t lock;
	pthread_cond_t made, written; /* a piece is ready; a slot is free */
	size_t next_job, next_write;
	int err;
};

struct worker {
	struct run *r;
	unsigned id;
};

/* Claims the next job whose slot is free; false when there are none left or an error stopped. */
static bool claim(struct run *r, size_t *job)
{
	bool ok;

	pthread_mutex_lock(&r->lock);
	while (!r->err && r->next_job < r->jobs && r->next_job >= r->next_write + r->ring)
		pthread_cond_wait(&r->written, &r->lock);
	ok = !r->err && r->next_job < r->jobs;
	if (ok)
		*job = r->next_job++;
	pthread_mutex_unlock(&r->lock);
	return ok;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct run *r = w->r;
	size_t job;

	while (claim(r, &job)) {
		struct slot *s = &r->slots[job % r->ring];
		int err;

		s->text.len = 0;
		err = r->fn(r->ctx, job, w->id, &s->text);
		pthread_mutex_lock(&r->lock);
		if (err && !r->err)
			r->err = err;
		s->ready = true;
		pthread_cond_broadcast(&r->made);
		if (err) /* workers waiting for a slot stop too */
			pthread_cond_broadcast(&r->written);
		pthread_mutex_unlock(&r->lock);
	}
	pthread_mutex_lock(&r->lock); /* wake the writer should it wait on a job never made */
	pthread_cond_broadcast(&r->made);
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

/* Writes the pieces in order as they become ready; stops at the first error. */
static void write_all(struct run *r, struct t2f_out *out)
{
	for (;;) {
		struct slot *s;

		pthread_mutex_lock(&r->lock);
		s = &r->slots[r->next_write % r->ring];
		while (!r->err && r->next_write < r->jobs && !s->ready)
			pthread_cond_wait(&r->made, &r->lock);
		if (r->err || r->next_write == r->jobs) {
			pthread_mutex_unlock(&r->lock);
			return;
		}
		pthread_mutex_unlock(&r->lock);
		t2f_out__write(out, s->text.p, s->text.len);
		pthread_mutex_lock(&r->lock);
		s->ready = false;
		r->next_write++;
		pthread_cond_broadcast(&r->written);
		pthread_mutex_unlock(&r->lock);
	}
}

static int run_threads(struct run *r, unsigned threads, struct t2f_out *out)
{
	pthread_t *tids = calloc(threads, sizeof(*tids));
	struct worker *ws = calloc(threads, sizeof(*ws));
	unsigned started = 0;

	if (!tids || !ws) {
		free(tids);
		free(ws);
		return -ENOMEM;
	}
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->made, NULL);
	pthread_cond_init(&r->written, NULL);
	for (; started < threads; started++) {
		ws[started] = (struct worker){ r, started };
		if (pthread_create(&tids[started], NULL, work, &ws[started]))
			break;
	}
	if (!started)
		r->err = -EAGAIN;
	else
		write_all(r, out);
	for (unsigned i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	pthread_cond_destroy(&r->made);
	pthread_cond_destroy(&r->written);
	pthread_mutex_destroy(&r->lock);
	free(tids);
	free(ws);
	return r->err;
}

/* One thread: make a piece, write it. */
static int run_here(struct run *r, struct t2f_out *out)
{
	struct t2f_buf *b = &r->slots[0].text;
	int err = 0;

	for (size_t job = 0; !err && job < r->jobs; job++) {
		b->len = 0;
		err = r->fn(r->ctx, job, 0, b);
		if (!err)
			t2f_out__write(out, b->p, b->len);
	}
	return err;
}

/* Gives each slot's buffer `cap` bytes of room (whole huge pages when large). 0 or -ENOMEM. */
static int slots_reserve(struct run *r, size_t cap)
{
	for (size_t i = 0; cap && i < r->ring; i++) {
		struct t2f_buf *b = &r->slots[i].text;

		if (cap < T2F_PAR_TEXT_HUGE) {
			if (t2f_buf__reserve(b, cap))
				return -ENOMEM;
			continue;
		}
		b->p = t2f_mem__alloc_huge(cap, &b->cap);
		if (!b->p)
			return -ENOMEM;
	}
	return 0;
}

int t2f_par_text__run(size_t jobs, unsigned threads, t2f_par_text_fn fn, void *ctx,
		      size_t piece_cap, struct t2f_out *out)
{
	struct run r = { .fn = fn, .ctx = ctx, .jobs = jobs };
	int err;

	if (threads < 1)
		threads = 1;
	r.ring = threads > 1 ? (size_t)threads * PIECES_PER_THREAD : 1;
	r.slots = calloc(r.ring, sizeof(*r.slots));
	if (!r.slots)
		return -ENOMEM;
	err = slots_reserve(&r, jobs ? piece_cap : 0);
	if (!err)
		err = threads == 1 ? run_here(&r, out) : run_threads(&r, threads, out);
	for (size_t i = 0; i < r.ring; i++)
		t2f_buf__free(&r.slots[i].text);
	free(r.slots);
	return err;
}
