/* formats/bg.c: one background job at a time (bg.h). One mutex guards the job handed over, the
 * stop flag and the first error. */
#include "formats/bg.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

struct t2f_bg {
	t2f_bg_fn fn;
	void *ctx;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	void *job;    /* handed over and not done yet, or NULL */
	bool stop;
	int err;      /* the first job error */
};

static void *bg_main(void *arg)
{
	struct t2f_bg *b = arg;

	pthread_mutex_lock(&b->mu);
	for (;;) {
		void *job;
		int err;

		while (!b->job && !b->stop)
			pthread_cond_wait(&b->cv, &b->mu);
		if (!b->job)
			break;
		job = b->job;
		pthread_mutex_unlock(&b->mu);
		err = b->fn(b->ctx, job);
		pthread_mutex_lock(&b->mu);
		b->err = b->err ?: err;
		b->job = NULL;
		pthread_cond_broadcast(&b->cv);
	}
	pthread_mutex_unlock(&b->mu);
	return NULL;
}

int t2f_bg__new(t2f_bg_fn fn, void *ctx, struct t2f_bg **out)
{
	struct t2f_bg *b = calloc(1, sizeof(*b));
	int err;

	if (!b)
		return -ENOMEM;
	b->fn = fn;
	b->ctx = ctx;
	if (pthread_mutex_init(&b->mu, NULL)) {
		free(b);
		return -ENOMEM;
	}
	if (pthread_cond_init(&b->cv, NULL)) {
		pthread_mutex_destroy(&b->mu);
		free(b);
		return -ENOMEM;
	}
	err = pthread_create(&b->th, NULL, bg_main, b);
	if (err) {
		pthread_cond_destroy(&b->cv);
		pthread_mutex_destroy(&b->mu);
		free(b);
		return -err;
	}
	*out = b;
	return 0;
}

/* With mu held: until no job runs; the first error. */
static int bg_idle(struct t2f_bg *b)
{
	while (b->job)
		pthread_cond_wait(&b->cv, &b->mu);
	return b->err;
}

int t2f_bg__wait(struct t2f_bg *b)
{
	int err;

	pthread_mutex_lock(&b->mu);
	err = bg_idle(b);
	pthread_mutex_unlock(&b->mu);
	return err;
}

int t2f_bg__hand(struct t2f_bg *b, void *job)
{
	int err;

	pthread_mutex_lock(&b->mu);
	err = bg_idle(b);
	if (!err) {
		b->job = job;
		pthread_cond_broadcast(&b->cv);
	}
	pthread_mutex_unlock(&b->mu);
	return err;
}

void t2f_bg__free(struct t2f_bg *b)
{
	if (!b)
		return;
	pthread_mutex_lock(&b->mu);
	bg_idle(b);
	b->stop = true;
	pthread_cond_broadcast(&b->cv);
	pthread_mutex_unlock(&b->mu);
	pthread_join(b->th, NULL);
	pthread_cond_destroy(&b->cv);
	pthread_mutex_destroy(&b->mu);
	free(b);
}
