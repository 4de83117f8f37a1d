/* writers/pprof_gz.c: the encoded profile, deflated into a gzip stream (or passed through raw).
 *
 * zlib's gzip wrapper (windowBits 15 + 16) with no header set writes mtime 0, no name and the
 * build's OS code: the same input gives the same bytes on every run.
 *
 * Deflating runs on a thread of its own (formats/bg.h) while the encoder fills the next buffer:
 * a drained buffer is swapped with the one the thread has finished, so the encoder waits only
 * when it is a whole buffer ahead. It is still one deflate stream fed the same bytes in the same
 * order: the output does not change. The thread alone touches zs and the output while a job
 * runs; the caller's thread does again once it is idle (the end of the stream). Without a
 * thread (it could not start), drains deflate on the caller's thread.
 */
#include "writers/pprof_int.h"

#include <errno.h>
#include <stdlib.h>

#include <zlib.h>

#include "formats/bg.h"

#define GZ_LEVEL 1 /* zlib's fastest: 1.6x faster than 6 for 6% more bytes on 220k stacks */
#define GZ_CHUNK (256u << 10)

struct t2f_pprof_gz {
	struct t2f_out *out;
	bool raw;
	z_stream zs;
	unsigned char chunk[GZ_CHUNK];
	struct t2f_bg *bg;    /* the deflating thread; NULL: none */
	struct t2f_buf job;   /* the bytes handed to it */
};

static int deflate_buf(struct t2f_pprof_gz *g, const struct t2f_buf *b);

static int gz_job(void *ctx, void *job)
{
	return deflate_buf(ctx, job);
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
	if (!raw && t2f_bg__new(gz_job, g, &g->bg))
		g->bg = NULL; /* deflate on the caller's thread */
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
	else if (!g->bg)
		err = deflate_buf(g, b);
	else if ((err = t2f_bg__wait(g->bg)) == 0) {
		done = g->job;
		g->job = *b;
		err = t2f_bg__hand(g->bg, &g->job);
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
	if (g->bg && (err = t2f_bg__wait(g->bg)) != 0)
		return err;
	g->zs.next_in = NULL;
	g->zs.avail_in = 0;
	return gz_run(g, Z_FINISH);
}

void t2f_pprof_gz__free(struct t2f_pprof_gz *g)
{
	if (!g)
		return;
	t2f_bg__free(g->bg);
	if (!g->raw)
		deflateEnd(&g->zs);
	t2f_buf__free(&g->job);
	free(g);
}
