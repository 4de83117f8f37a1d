/* readers/perf_data_zstd.c: PERF_RECORD_COMPRESSED (perf record -z). Each such record's payload
 * is zstd data holding records in the file's byte order; a record may begin in one compressed
 * record and end in the next, so the bytes not yet delivered are kept at the front of the
 * buffer and the next payload is decompressed after them (readers/perf_data.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <zstd.h>

#include "formats/grow.h"
#include "readers/perf_data_internal.h"

/* the most decompressed bytes held at once: one payload's records plus a partial record */
#define DBUF_MAX (256u << 20)
/* One payload's bytes: perf compresses one ring-buffer chunk at a time, so no payload expands
 * past the COMPRESSED feature's mmap_len (perf reads them into a buffer of that size); a file
 * without the feature gets the most the buffer holds. */
static size_t payload_max(const struct t2f_perf_data *d)
{
	const struct t2f_perf_features *f = &d->feat;

	if (f->has_compressed && f->comp_mmap_len && f->comp_mmap_len < DBUF_MAX / 2)
		return (size_t)f->comp_mmap_len;
	return DBUF_MAX / 2;
}

static int grow(struct t2f_perf_data *d, size_t need, uint64_t off)
{
	if (need > DBUF_MAX)
		return t2f_diag__error(d->diag, -T2F_ERR_LIMIT, d->name, 0, "offset %" PRIu64
				       ": compressed record expands past %u MiB", off,
				       DBUF_MAX >> 20);
	return t2f_grow((void **)&d->dbuf, &d->dcap, 0, need, 1, 1u << 16, DBUF_MAX);
}

int t2f_perf_data__inflate(struct t2f_perf_data *d, const uint8_t *src, size_t n, uint64_t off)
{
	ZSTD_inBuffer in = { src, n, 0 };
	size_t left = d->dlen - d->dpos, max = payload_max(d);
	int err;

	if (!d->zstd && !(d->zstd = ZSTD_createDCtx()))
		return -ENOMEM;
	if (left && d->dpos)
		memmove(d->dbuf, d->dbuf + d->dpos, left);
	d->dbase += d->dpos;
	d->dpos = 0;
	d->dlen = left;
	/* until the input is consumed and the output had room: zstd keeps what did not fit */
	for (bool full = true; in.pos < in.size || full;) {
		ZSTD_outBuffer out;
		size_t r, in_before = in.pos;

		err = grow(d, d->dlen + ZSTD_DStreamOutSize(), off);
		if (err)
			return err;
		out = (ZSTD_outBuffer){ d->dbuf, d->dcap, d->dlen };
		r = ZSTD_decompressStream(d->zstd, &out, &in);
		if (ZSTD_isError(r))
			return t2f_diag__error(d->diag, -T2F_ERR_DECOMPRESS, d->name, 0, "offset %"
					       PRIu64 ": compressed record: %s", off,
					       ZSTD_getErrorName(r));
		if (out.pos == d->dlen && in.pos == in_before && out.pos < out.size &&
		    in.pos == in.size)
			break; /* the last call filled the buffer exactly: nothing was left */
		if (out.pos == d->dlen && in.pos == in_before && out.pos < out.size)
			return t2f_diag__error(d->diag, -T2F_ERR_DECOMPRESS, d->name, 0, "offset %"
					       PRIu64 ": compressed record makes no progress", off);
		d->dlen = out.pos;
		full = out.pos == out.size;
		if (d->dlen - left > max)
			return t2f_diag__error(
				d->diag, -T2F_ERR_LIMIT, d->name, 0,
				"offset %" PRIu64 ": compressed record expands past %zu bytes (%s)",
				off, max,
				max == DBUF_MAX / 2 ? "this reader's limit"
						    : "the COMPRESSED feature's mmap_len");
	}
	return 0;
}

void t2f_perf_data__inflate_free(struct t2f_perf_data *d)
{
	ZSTD_freeDCtx(d->zstd);
	free(d->dbuf);
	d->zstd = NULL;
	d->dbuf = NULL;
}
