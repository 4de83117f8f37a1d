/* writers/pprof_deflate.c: one block of raw deflate after its dictionary, by igzip or zlib, and
 * a block's CRC-32 by the same library.
 *
 * igzip (ISA-L, level 1) deflates whole-machine profiles 5-6x as fast as zlib's level 1, for
 * about 1.5% more bytes; its CRC-32 (carry-less multiplies) takes a sixth of zlib's time. It is
 * opened with dlopen (libisal.so.2), as libdebuginfod is: Debian has no static archive of it,
 * and a static link of trace2flame must not need it. Without it, zlib's level 1 deflates the
 * same blocks. Either engine gives the same bytes on every run.
 *
 * igzip's bytes depend on the output room it is given, so it is given room for any outcome
 * (the input stored, and more), never a room that depends on the buffer's past: one call per
 * piece of input does it.
 *
 * They also depend, for a block without history, on where the stream's state lies in memory:
 * igzip's level-1 body (ISA-L 2.30, igzip_icf_body_h1_gr_bt.asm, .write_first_byte) takes the
 * hash of the block's third byte from a register that still holds the state's address, so that
 * byte is looked up and filed in a slot chosen by where the state lies. Under address-space
 * randomization about one process in a thousand then finds other matches in the block (tiny
 * profiles most often): another valid stream, other bytes. So a block without a dictionary
 * starts with zlib: its first HEAD bytes are zlib's, sync-flushed, and igzip deflates the rest
 * with those bytes as its dictionary, a path that never runs the first-byte code.
 */
#include "writers/pprof_int.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>

#include <isa-l/igzip_lib.h>
#include <zlib.h>

#define ISAL_LEVEL 1
#define ISAL_LEVEL_BUF ISAL_DEF_LVL1_DEFAULT /* igzip's suggested working memory for it */
#define ZLIB_LEVEL 1
#define SLACK (64u << 10)        /* output room beyond the input and an eighth */
#define PIECE (1u << 30)         /* input per igzip or zlib call (their lengths are 32-bit) */
#define HEAD 256u                /* a block's first bytes, zlib's when it has no dictionary */

struct t2f_pprof_deflate {
	void *lib;                     /* dlopen'ed libisal.so.2; NULL: zlib */
	void (*init)(struct isal_zstream *);
	void (*reset)(struct isal_zstream *);
	int (*set_dict)(struct isal_zstream *, uint8_t *, uint32_t);
	int (*deflate)(struct isal_zstream *);
	uint32_t (*crc)(uint32_t, const unsigned char *, uint64_t); /* the gzip CRC-32 */
	struct isal_zstream is;
	unsigned char *level_buf;
	z_stream zs;                   /* the engine (zlib), or the heads of igzip's blocks */
	bool zs_ok;
};

/* igzip's functions: true when all are there. */
static bool isal_load(struct t2f_pprof_deflate *d)
{
	d->lib = dlopen("libisal.so.2", RTLD_NOW | RTLD_LOCAL);
	if (!d->lib)
		return false;
	*(void **)&d->init = dlsym(d->lib, "isal_deflate_init");
	*(void **)&d->reset = dlsym(d->lib, "isal_deflate_reset");
	*(void **)&d->set_dict = dlsym(d->lib, "isal_deflate_set_dict");
	*(void **)&d->deflate = dlsym(d->lib, "isal_deflate");
	*(void **)&d->crc = dlsym(d->lib, "crc32_gzip_refl");
	if (d->init && d->reset && d->set_dict && d->deflate && d->crc)
		return true;
	dlclose(d->lib);
	d->lib = NULL;
	return false;
}

/* zlib's stream: the engine's, or (opened at the first head) igzip's heads'. 0 or -ENOMEM. */
static int zlib_open(struct t2f_pprof_deflate *d)
{
	if (!d->zs_ok)
		d->zs_ok = deflateInit2(&d->zs, ZLIB_LEVEL, Z_DEFLATED, -15, 8,
					Z_DEFAULT_STRATEGY) == Z_OK;
	return d->zs_ok ? 0 : -ENOMEM;
}

int t2f_pprof_deflate__new(bool zlib_only, struct t2f_pprof_deflate **out)
{
	struct t2f_pprof_deflate *d = calloc(1, sizeof(*d));

	*out = NULL;
	if (!d)
		return -ENOMEM;
	if (!zlib_only && isal_load(d)) {
		if (!(d->level_buf = malloc(ISAL_LEVEL_BUF))) {
			t2f_pprof_deflate__free(d);
			return -ENOMEM;
		}
		d->init(&d->is);
		d->is.level = ISAL_LEVEL;
		d->is.level_buf = d->level_buf;
		d->is.level_buf_size = ISAL_LEVEL_BUF;
		d->is.gzip_flag = IGZIP_DEFLATE;
	} else if (zlib_open(d)) {
		free(d);
		return -ENOMEM;
	}
	*out = d;
	return 0;
}

bool t2f_pprof_deflate__igzip(const struct t2f_pprof_deflate *d)
{
	return d->lib != NULL;
}

void t2f_pprof_deflate__free(struct t2f_pprof_deflate *d)
{
	if (!d)
		return;
	if (d->zs_ok)
		deflateEnd(&d->zs);
	free(d->level_buf);
	if (d->lib)
		dlclose(d->lib);
	free(d);
}

/* ---- igzip ---- */

/* One piece: room for any outcome, then one call. Room left means igzip took all of the piece
 * and flushed what was asked; an end not reached then is an error. */
static int isal_piece(struct t2f_pprof_deflate *d, const unsigned char *p, uint32_t n,
		      int flush, bool end, struct t2f_buf *out)
{
	size_t room = (size_t)n + n / 8 + SLACK;

	if (t2f_buf__reserve(out, room))
		return -ENOMEM;
	d->is.next_in = (uint8_t *)p;
	d->is.avail_in = n;
	d->is.next_out = (uint8_t *)out->p + out->len;
	d->is.avail_out = (uint32_t)room;
	d->is.flush = (uint16_t)flush;
	d->is.end_of_stream = end;
	if (d->deflate(&d->is) != COMP_OK || d->is.avail_out == 0 ||
	    (end && d->is.internal_state.state != ZSTATE_END))
		return -EIO;
	out->len += room - d->is.avail_out;
	return 0;
}

/* ---- zlib ---- */

/* Deflates next_in with `flush` into out, growing it until zlib is done. */
static int zlib_run(z_stream *zs, int flush, struct t2f_buf *out)
{
	int rc;

	do {
		if (t2f_buf__reserve(out, SLACK * 4))
			return -ENOMEM;
		zs->next_out = (unsigned char *)out->p + out->len;
		zs->avail_out = (uInt)(out->cap - out->len < PIECE ? out->cap - out->len : PIECE);
		rc = deflate(zs, flush);
		if (rc == Z_STREAM_ERROR)
			return -EIO;
		out->len = (size_t)((char *)zs->next_out - out->p);
	} while (zs->avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
	return 0;
}

static int zlib_block(struct t2f_pprof_deflate *d, const unsigned char *dict, size_t ndict,
		      const unsigned char *in, size_t n, bool last, struct t2f_buf *out)
{
	size_t off = 0, k;
	int err = zlib_open(d);

	if (err)
		return err;
	if (deflateReset(&d->zs) != Z_OK)
		return -EIO;
	if (ndict && deflateSetDictionary(&d->zs, dict, (uInt)ndict) != Z_OK)
		return -EIO;
	d->zs.next_in = (unsigned char *)in; /* deflate moves it on; NULL when empty */
	do {
		k = n - off < PIECE ? n - off : PIECE;
		d->zs.avail_in = (uInt)k;
		off += k;
		err = zlib_run(&d->zs, off < n ? Z_NO_FLUSH : last ? Z_FINISH : Z_SYNC_FLUSH, out);
	} while (!err && off < n);
	return err;
}

/* ---- igzip, after zlib's head ---- */

static int isal_block(struct t2f_pprof_deflate *d, const unsigned char *dict, size_t ndict,
		      const unsigned char *in, size_t n, bool last, struct t2f_buf *out)
{
	size_t off = 0, k;
	int err = 0;

	if (!ndict && n) { /* no history: zlib's head, then the rest after it (see the top) */
		off = n < HEAD ? n : HEAD;
		err = zlib_block(d, NULL, 0, in, off, last && off == n, out);
		if (err || off == n)
			return err;
		dict = in;
		ndict = off;
	}
	d->reset(&d->is);
	if (ndict && d->set_dict(&d->is, (uint8_t *)dict, (uint32_t)ndict) != COMP_OK)
		return -EIO;
	do {
		k = n - off < PIECE ? n - off : PIECE;
		err = isal_piece(d, n ? in + off : in, (uint32_t)k,
				 off + k < n ? NO_FLUSH : SYNC_FLUSH, last && off + k == n, out);
		off += k;
	} while (!err && off < n);
	return err;
}

uint32_t t2f_pprof_deflate__crc32(const struct t2f_pprof_deflate *d, const void *p, size_t n)
{
	uLong crc = crc32(0L, Z_NULL, 0);

	if (d->lib)
		return n ? d->crc(0, p, n) : 0;
	for (size_t off = 0, k; off < n; off += k) {
		k = n - off < PIECE ? n - off : PIECE;
		crc = crc32(crc, (const unsigned char *)p + off, (uInt)k);
	}
	return (uint32_t)crc;
}

int t2f_pprof_deflate__block(struct t2f_pprof_deflate *d, const void *dict, size_t ndict,
			     const void *in, size_t n, bool last, struct t2f_buf *out)
{
	return d->lib ? isal_block(d, dict, ndict, in, n, last, out) :
			zlib_block(d, dict, ndict, in, n, last, out);
}
