/* writers/pprof_gz.c: the encoded profile, deflated into a gzip stream (or passed through raw).
 *
 * zlib's gzip wrapper (windowBits 15 + 16) with no header set writes mtime 0, no name and the
 * build's OS code: the same input gives the same bytes on every run.
 *
 * Deflating runs on a thread of its own while the encoder fills the next buffer: a drained
 * buffer is swapped with the one the thread has finished, so the encoder waits only when it is
 * a whole buffer ahead. It is still one deflate stream fed the same bytes in the same order:
 * the output does not change. The thread alone touches zs and the output while it is busy;
 * the caller's thread does again once it is idle (the end of the stream). Without a thread
 * (pthread_create failed), drains deflate on the caller's thread.
 */
#include "writers/pprof_int.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include <zlib.h>

#define GZ_LEVEL 1 /* zlib's fastest: 1.6x faster than 6 for 6% more bytes on 220k stacks */
#define GZ_CHUNK (256u << 10)

struct t2f_pprof_gz {
	struct t2f_out *out;
	bool raw;
	z_stream zs;
	unsigned char chunk[GZ_CHUNK];
	/* the deflating thread */
	bool threaded;
	pthread_t tid;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct t2f_buf job;   /* the bytes being deflated */
	bool busy, quit;
	int err;              /* the first failure of a job */
};

static int deflate_buf(struct t2f_pprof_gz *g, const struct t2f_buf *b);

static void *gz_thread(void *arg)
{
	struct t2f_pprof_gz *g = arg;

	pthread_mutex_lock(&g->mu);
	for (;;) {
		while (!g->busy && !g->quit)
			pthread_cond_wait(&g->cv, &g->mu);
		if (!g->busy)
			break;
		pthread_mutex_unlock(&g->mu);
		int err = deflate_buf(g, &g->job);
		pthread_mutex_lock(&g->mu);
		g->err = g->err ?: err;
		g->busy = false;
		pthread_cond_broadcast(&g->cv);
	}
	pthread_mutex_unlock(&g->mu);
	return NULL;
}

/* Waits until the thread has no job; its first error, or 0. */
static int gz_idle(struct t2f_pprof_gz *g)
{
	int err;

	pthread_mutex_lock(&g->mu);
	while (g->busy)
		pthread_cond_wait(&g->cv, &g->mu);
	err = g->err;
	pthread_mutex_unlock(&g->mu);
	return err;
}

static void gz_start(struct t2f_pprof_gz *g)
{
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->cv, NULL);
	g->threaded = pthread_create(&g->tid, NULL, gz_thread, g) == 0;
	if (!g->threaded) {
		pthread_mutex_destroy(&g->mu);
		pthread_cond_destroy(&g->cv);
	}
}

int t2f_pprof_gz__new(struct t2f_out *out, bool raw, struct t2f_pprof_gz **gz)
{
	struct t2f_pprof_gz *g = calloc(1, sizeof(*g));

	if (!g)
		return -ENOMEM;
	g->out = out;
	g->raw = raw;
	if (!raw && deflateInit2(&g->zs, GZ_LEVEL, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(g);
		return -ENOMEM;
	}
	if (!raw)
		gz_start(g);
	*gz = g;
	return 0;
}

/* Runs deflate over next_in with `flush`, writing every produced chunk. */
static int gz_run(struct t2f_pprof_gz *g, int flush)
{
	int rc;

	do {
		g->zs.next_out = g->chunk;
		g->zs.avail_out = GZ_CHUNK;
		rc = deflate(&g->zs, flush);
		if (rc == Z_STREAM_ERROR)
			return -EIO;
		t2f_out__write(g->out, g->chunk, GZ_CHUNK - g->zs.avail_out);
	} while (g->zs.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
	return 0;
}

/* All of b's bytes through deflate. */
static int deflate_buf(struct t2f_pprof_gz *g, const struct t2f_buf *b)
{
	int err = 0;

	for (size_t off = 0; !err && off < b->len;) {
		size_t n = b->len - off < (1u << 30) ? b->len - off : (1u << 30);

		g->zs.next_in = (unsigned char *)b->p + off;
		g->zs.avail_in = (uInt)n;
		err = gz_run(g, Z_NO_FLUSH);
		off += n;
	}
	return err;
}

int t2f_pprof_gz__drain(struct t2f_pprof_gz *g, struct t2f_buf *b)
{
	struct t2f_buf done;
	int err = 0;

	if (g->raw)
		t2f_out__write(g->out, b->p, b->len);
	else if (!g->threaded)
		err = deflate_buf(g, b);
	else if ((err = gz_idle(g)) == 0) {
		done = g->job;
		pthread_mutex_lock(&g->mu);
		g->job = *b;
		g->busy = true;
		pthread_cond_broadcast(&g->cv);
		pthread_mutex_unlock(&g->mu);
		*b = done; /* the finished job's buffer, for the encoder to fill again */
	}
	b->len = 0;
	return err;
}

int t2f_pprof_gz__finish(struct t2f_pprof_gz *g)
{
	int err;

	if (g->raw)
		return 0;
	if (g->threaded && (err = gz_idle(g)) != 0)
		return err;
	g->zs.next_in = NULL;
	g->zs.avail_in = 0;
	return gz_run(g, Z_FINISH);
}

void t2f_pprof_gz__free(struct t2f_pprof_gz *g)
{
	if (!g)
		return;
	if (g->threaded) {
		gz_idle(g);
		pthread_mutex_lock(&g->mu);
		g->quit = true;
		pthread_cond_broadcast(&g->cv);
		pthread_mutex_unlock(&g->mu);
		pthread_join(g->tid, NULL);
		pthread_mutex_destroy(&g->mu);
		pthread_cond_destroy(&g->cv);
	}
	if (!g->raw)
		deflateEnd(&g->zs);
	t2f_buf__free(&g->job);
	free(g);
}
