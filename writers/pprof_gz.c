/* writers/pprof_gz.c: the encoded profile, deflated into a gzip stream (or passed through raw).
 *
 * Every drained buffer is a block, deflated on its own as raw deflate so that two threads can
 * deflate two blocks at once while the encoder fills the next buffer. Block i goes to slot
 * i % 2, each slot with its thread (formats/bg.h), its deflate engine (igzip or zlib:
 * pprof_deflate.c), its input buffer (swapped with the encoder's: no copy), its output and the
 * CRC-32 of its bytes. Its dictionary is the last 32 KiB of the bytes before it (kept from each
 * block as it is handed over, before its buffer can go back to the encoder), so a block refers
 * back into earlier ones as a single stream would, and the ratio stays that of a single
 * stream's. Every block but the last ends with a sync flush (byte-aligned, so the blocks
 * concatenate into one deflate stream); the last one finishes it, even when empty.
 *
 * The caller's thread writes the stream in block order, from the first block handed over on (so
 * that __new may run on another thread, beside the tables): a fixed gzip header (magic, deflate,
 * no flags, mtime 0, XFL 4 = fastest level, OS 3 = Unix), the blocks' outputs, then the
 * trailer (the blocks' CRCs combined in order, the length mod 2^32). Block i - 2 is written
 * when block i is handed to its slot, after block i - 3 (written when block i - 1 was handed);
 * __finish writes the last two. The block boundaries are the drain boundaries, so the bytes
 * are the same on every run whatever the timing, and without threads (they could not start)
 * the caller's thread deflates each block itself into the same bytes.
 *
 * Threads: while a block is handed over, its slot (engine, buffers, dictionary, CRC) is its
 * thread's alone; the caller's thread touches the slot again after t2f_bg__wait. The window
 * tail, the counters, the combined CRC and out are the caller thread's only. Memory: the two
 * slots' input and output buffers, whatever the size of the profile.
 */
#include "writers/pprof_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "formats/bg.h"

#define GZ_WINDOW (32u << 10)    /* deflate's window: a block's dictionary */

struct gz_slot {
	struct t2f_pprof_deflate *engine;
	bool last;                       /* the block ends the stream */
	struct t2f_buf in;               /* the block's raw bytes */
	struct t2f_buf out;              /* its deflated bytes */
	unsigned char dict[GZ_WINDOW];   /* the bytes before it (up to 32 KiB) */
	size_t ndict;
	uLong crc;                       /* CRC-32 of in */
};

struct t2f_pprof_gz {
	struct t2f_out *out;
	bool raw;
	bool igzip;                      /* the slots deflate with igzip */
	struct gz_slot slot[2];
	struct t2f_bg *bg[2];            /* slot i's thread; NULL: the caller's thread */
	uint64_t handed, written;        /* blocks handed over, blocks written to out */
	unsigned char tail[GZ_WINDOW];   /* the last bytes handed over (up to 32 KiB) */
	size_t ntail;
	uLong crc;                       /* CRC-32 of the blocks written */
	uint32_t isize;                  /* bytes handed over, mod 2^32 */
};

static const unsigned char gz_head[10] = {
	0x1f, 0x8b, /* magic */
	8,          /* CM: deflate */
	0,          /* FLG: no name, comment, extra field or header CRC */
	0, 0, 0, 0, /* MTIME: none */
	4,          /* XFL: the fastest level */
	3,          /* OS: Unix */
};

/* ---- one block (on its slot's thread) ---- */

/* The slot's block: its CRC, and its bytes deflated after its dictionary. 0, -EIO or -ENOMEM. */
static int block_deflate(struct gz_slot *s)
{
	s->out.len = 0;
	s->crc = t2f_pprof_deflate__crc32(s->engine, s->in.p, s->in.len);
	return t2f_pprof_deflate__block(s->engine, s->dict, s->ndict, s->in.p, s->in.len, s->last,
					&s->out);
}

static int gz_job(void *ctx, void *job)
{
	(void)ctx;
	return block_deflate(job);
}

/* ---- the stream (on the caller's thread) ---- */

int t2f_pprof_gz__new(struct t2f_out *out, enum t2f_pprof_gz_mode mode,
		      struct t2f_pprof_gz **gz)
{
	struct t2f_pprof_gz *g = calloc(1, sizeof(*g));

	if (!g)
		return -ENOMEM;
	g->out = out;
	g->raw = mode == T2F_PPROF_RAW;
	for (int k = 0; !g->raw && k < 2; k++) {
		struct gz_slot *s = &g->slot[k];

		if (t2f_pprof_deflate__new(mode == T2F_PPROF_GZIP_ZLIB, &s->engine)) {
			t2f_pprof_gz__free(g);
			return -ENOMEM;
		}
		g->igzip = t2f_pprof_deflate__igzip(s->engine) && (k == 0 || g->igzip);
		if (t2f_bg__new(gz_job, NULL, &g->bg[k]))
			g->bg[k] = NULL; /* this slot deflates on the caller's thread */
	}
	g->crc = crc32(0L, Z_NULL, 0);
	*gz = g;
	return 0;
}

/* Writes the blocks before block n (each after its thread is done), in order. 0 or the first
 * error of a block. */
static int gz_write_before(struct t2f_pprof_gz *g, uint64_t n)
{
	while (g->written < n) {
		unsigned k = (unsigned)(g->written & 1);
		struct gz_slot *s = &g->slot[k];
		int err = g->bg[k] ? t2f_bg__wait(g->bg[k]) : 0;

		if (err)
			return err;
		t2f_out__write(g->out, s->out.p, s->out.len);
		g->crc = crc32_combine(g->crc, s->crc, (z_off_t)s->in.len);
		g->written++;
	}
	return 0;
}

/* The last GZ_WINDOW bytes handed over, with p[0..len) appended. */
static void gz_tail_add(struct t2f_pprof_gz *g, const char *p, size_t len)
{
	size_t keep;

	if (len == 0)
		return;
	if (len >= GZ_WINDOW) {
		memcpy(g->tail, p + len - GZ_WINDOW, GZ_WINDOW);
		g->ntail = GZ_WINDOW;
		return;
	}
	keep = g->ntail < GZ_WINDOW - len ? g->ntail : GZ_WINDOW - len;
	memmove(g->tail, g->tail + g->ntail - keep, keep);
	memcpy(g->tail + keep, p, len);
	g->ntail = keep + len;
}

/* Hands b's bytes over as the next block (b gets the slot's previous buffer, emptied), once the
 * block that slot held is written. 0 or an error. */
static int gz_hand(struct t2f_pprof_gz *g, struct t2f_buf *b, bool last)
{
	unsigned k = (unsigned)(g->handed & 1);
	struct gz_slot *s = &g->slot[k];
	struct t2f_buf done;
	int err;

	if (!g->handed)
		t2f_out__write(g->out, gz_head, sizeof(gz_head));
	err = gz_write_before(g, g->handed ? g->handed - 1 : 0);
	if (err)
		return err;
	done = s->in;
	s->in = *b;
	*b = done;
	b->len = 0;
	s->last = last;
	memcpy(s->dict, g->tail, g->ntail);
	s->ndict = g->ntail;
	gz_tail_add(g, s->in.p, s->in.len);
	g->isize += (uint32_t)s->in.len;
	g->handed++;
	return g->bg[k] ? t2f_bg__hand(g->bg[k], s) : block_deflate(s);
}

int t2f_pprof_gz__drain(struct t2f_pprof_gz *g, struct t2f_buf *b)
{
	if (g->raw) {
		t2f_out__write(g->out, b->p, b->len);
		b->len = 0;
		return 0;
	}
	return b->len ? gz_hand(g, b, false) : 0;
}

static void put_le32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

int t2f_pprof_gz__finish(struct t2f_pprof_gz *g, struct t2f_buf *b)
{
	unsigned char trailer[8];
	int err;

	if (g->raw)
		return t2f_pprof_gz__drain(g, b);
	err = gz_hand(g, b, true) ?: gz_write_before(g, g->handed);
	if (err)
		return err;
	put_le32(trailer, (uint32_t)g->crc);
	put_le32(trailer + 4, g->isize);
	t2f_out__write(g->out, trailer, sizeof(trailer));
	return 0;
}

bool t2f_pprof_gz__igzip(const struct t2f_pprof_gz *g)
{
	return g->igzip;
}

void t2f_pprof_gz__free(struct t2f_pprof_gz *g)
{
	if (!g)
		return;
	for (int k = 0; k < 2; k++) {
		struct gz_slot *s = &g->slot[k];

		t2f_bg__free(g->bg[k]);
		t2f_pprof_deflate__free(s->engine);
		t2f_buf__free(&s->in);
		t2f_buf__free(&s->out);
	}
	free(g);
}
