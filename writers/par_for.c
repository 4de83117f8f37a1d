/* writers/par_for.c: a few calls run at once (par_for.h). */
#include "writers/par_for.h"

#include <pthread.h>
#include <stdbool.h>

struct call {
	void (*fn)(void *ctx, unsigned i);
	void *ctx;
	unsigned i;
};

static void *run_call(void *arg)
{
	struct call *c = arg;

	c->fn(c->ctx, c->i);
	return NULL;
}

void t2f_par_for(unsigned n, void (*fn)(void *ctx, unsigned i), void *ctx)
{
	struct call calls[T2F_PAR_FOR_MAX];
	pthread_t tid[T2F_PAR_FOR_MAX];
	bool started[T2F_PAR_FOR_MAX] = { false };

	if (n > T2F_PAR_FOR_MAX)
		n = T2F_PAR_FOR_MAX;
	for (unsigned i = 0; i < n; i++)
		calls[i] = (struct call){ fn, ctx, i };
	for (unsigned i = 1; i < n; i++)
		started[i] = pthread_create(&tid[i], NULL, run_call, &calls[i]) == 0;
	if (n)
		fn(ctx, 0);
	for (unsigned i = 1; i < n; i++) {
		if (started[i])
			pthread_join(tid[i], NULL);
		else
			fn(ctx, i);
	}
}

unsigned t2f_par_parts(size_t n, unsigned threads, size_t min)
{
	unsigned k = threads < T2F_PAR_FOR_MAX ? threads : T2F_PAR_FOR_MAX;

	while (k > 1 && n < (size_t)k * min)
		k--;
	return k ? k : 1;
}
