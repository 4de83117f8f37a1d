/* readers/perf_data_internal.h: the perf.data reader's state, shared by readers/perf_data*.c
 * (internal to readers/). */
#ifndef T2F_PERF_DATA_INTERNAL_H
#define T2F_PERF_DATA_INTERNAL_H

#include <string.h>

#include "formats/arena.h"
#include "readers/perf_data.h"

struct t2f_bg;
struct t2f_pd_ahead;

struct t2f_perf_id {                 /* one entry of the id → attr table (sorted by id) */
	uint64_t id;
	uint32_t attr;
};

struct t2f_perf_data {
	struct t2f_diag *diag;
	char *name;
	const uint8_t *base;         /* open_mem: the whole file; __open: NULL (read with pread) */
	size_t len;                  /* the file's size */
	int fd;                      /* __open: the file (read with pread); else -1 */
	uint8_t *tmp;                /* __open: header, attr and feature bytes just read */
	size_t tmp_cap;
	uint64_t ids_bytes;          /* bytes of attr id sections read so far (bounded by len) */
	bool swap;                   /* big-endian file */

	struct t2f_perf_header hdr;
	struct t2f_perf_attr *attrs;
	size_t n_attrs;
	struct t2f_arena *arena;     /* attrs' ids, names, feature strings and tables */
	struct t2f_perf_id *id_table;
	size_t n_id_table, cap_id_table;
	struct t2f_perf_features feat;

	/* iteration */
	uint64_t pos, end;           /* next record offset in the data section, its end */
	uint8_t *blk;                /* __open: data section bytes [blk_off, blk_off + blk_len) */
	size_t blk_len, blk_cap;
	size_t blk_size;             /* bytes read at once; 0: the default (BLOCK) */
	uint64_t blk_off;
	const uint8_t *map;          /* __open: data section bytes [map_off, map_off + map_len) mapped,
				      * or NULL (perf_data_window.c) */
	uint64_t map_off;
	size_t map_len;
	enum t2f_perf_data_map map_how; /* __set_map */
	bool probed;                 /* T2F_PERF_DATA_MAP_IF_CHEAPER: weighed at the first window */
	bool no_map;                 /* the file could not be mapped: read with pread */
	const uint8_t *prev;         /* with ahead_bg: the window before, still mapped: [prev_off,
				      * prev_off + prev_len) */
	uint64_t prev_off;
	size_t prev_len;
	struct t2f_bg *ahead_bg;     /* maps and prefaults the next window and unmaps old ones while
				      * this one is read; NULL until the first window of a recording
				      * of stack copies longer than one (perf_data_window.c) */
	struct t2f_pd_ahead *ahead;  /* its job (perf_data_window.c) */
	bool no_ahead;               /* no thread: not asked for (__set_ahead), no stack copies, or
				      * the thread could not start */
	bool done;
	struct t2f_perf_record rec;
	uint64_t *chain;             /* normalised callchain */
	size_t chain_cap;
	uint64_t regs[64];           /* REGS_USER, in host order */
	struct t2f_perf_data_stats stats;

	/* PERF_RECORD_COMPRESSED */
	void *zstd;                  /* ZSTD_DCtx */
	uint8_t *dbuf;               /* decompressed records; [dpos, dlen) not yet delivered */
	size_t dpos, dlen, dcap;
	uint64_t dbase;              /* stream offset of dbuf[0] */
	uint64_t comp_record;        /* file offset of the compressed record being delivered */
	char zwhere[64];             /* ": compressed data, offset N" for its records' warnings */
};

/* byte-order helpers: read a field of the file at p */
static inline uint64_t t2f_pd_u64(const struct t2f_perf_data *d, const void *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return d->swap ? __builtin_bswap64(v) : v;
}

static inline uint32_t t2f_pd_u32(const struct t2f_perf_data *d, const void *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return d->swap ? __builtin_bswap32(v) : v;
}

static inline uint16_t t2f_pd_u16(const struct t2f_perf_data *d, const void *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return d->swap ? __builtin_bswap16(v) : v;
}

/* perf_data.c: n bytes of the file at off into dst (fd mode); 0, or -errno / -T2F_ERR_FORMAT
 * when the file ends early (it shrank after open), the diag naming the offset. */
int t2f_perf_data__pread(struct t2f_perf_data *d, void *dst, size_t n, uint64_t off);

/* perf_data_window.c: the n bytes of the data section at off (off + n <= d->end; off never
 * below the last call's) → *out, valid until the next call: in open_mem's memory, in a mapped
 * window of the file, or read into d->blk. 0, -ENOMEM or a read error (the diag names the
 * offset). */
int t2f_perf_data__window(struct t2f_perf_data *d, uint64_t off, size_t n, const uint8_t **out);
/* Unmaps the windows and stops the thread that maps ahead (at the end). */
void t2f_perf_data__unmap(struct t2f_perf_data *d);

/* perf_data_records.c */
/* Tests: read the data section `bytes` (at least 1) at a time; before the first __next(). */
void t2f_perf_data__set_block(struct t2f_perf_data *d, size_t bytes);
void t2f_perf_data__start(struct t2f_perf_data *d);
int t2f_perf_data__id_add(struct t2f_perf_data *d, uint64_t id, uint32_t attr);
void t2f_perf_data__id_sort(struct t2f_perf_data *d);
/* perf_data_zstd.c: decompresses one COMPRESSED record's payload after the bytes still in
 * dbuf; 0 or -T2F_ERR_DECOMPRESS / -ENOMEM / -T2F_ERR_LIMIT (diag names the offset). */
int t2f_perf_data__inflate(struct t2f_perf_data *d, const uint8_t *src, size_t n, uint64_t off);
void t2f_perf_data__inflate_free(struct t2f_perf_data *d);

#endif
