/* readers/perf_data_window.c: the data section's bytes for the record decoder (perf_data_internal.h
 * t2f_perf_data__window): in place in open_mem's memory; from a file, in a window of it mapped
 * read-only, or read with pread a block at a time where it cannot be mapped (or the tests set a
 * block size).
 *
 * Mapping, not pread: the decoder touches a record's head, its tail and, of a --call-graph
 * dwarf sample, the stack copy's top; a copy of the whole section costs more than mapping its
 * pages (102 MB of 8 KiB stack copies: 13.3 ms of CPU to copy, 3.8 ms to map 4 MiB windows in
 * turn and touch those bytes, on Linux 6.18). A window is prefaulted at once
 * (MADV_POPULATE_READ), which also finds a file that shrank since it was opened: where the
 * mapping would give SIGBUS, the rest is read with pread, which names the offset where it ends
 * (a file cut while its window is mapped still gives SIGBUS, as it does perf). The window before
 * is unmapped, so the mapping adds one window to the memory in use, not the file.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "readers/perf_data_internal.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22 /* Linux 5.14 */
#endif

#define BLOCK (256u << 10)      /* data section bytes read at once (a record is at most 64 KiB) */
#define MAP_WINDOW (4u << 20)   /* data section bytes mapped at once */

void t2f_perf_data__unmap(struct t2f_perf_data *d)
{
	if (d->map)
		munmap((void *)d->map, d->map_len);
	d->map = NULL;
	d->map_len = 0;
}

/* The window from off's page on, of MAP_WINDOW bytes or to the end of the data section, and at
 * least to off + n. 1 with *out, 0 when the file is not to be mapped (then read), or an error. */
static int map_window(struct t2f_perf_data *d, uint64_t off, size_t n, const uint8_t **out)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t start = off - off % (uint64_t)(page > 0 ? page : 4096);
	uint64_t len = d->end - start < MAP_WINDOW ? d->end - start : MAP_WINDOW;
	void *p;

	t2f_perf_data__unmap(d);
	if (len < off - start + n)
		len = off - start + n;
	p = mmap(NULL, (size_t)len, PROT_READ, MAP_PRIVATE, d->fd, (off_t)start);
	if (p == MAP_FAILED) {
		d->no_map = true;
		return 0;
	}
	if (madvise(p, (size_t)len, MADV_POPULATE_READ) && errno != EINVAL) {
		/* EFAULT: the file shrank (pread says where), or out of memory, a signal */
		munmap(p, (size_t)len);
		d->no_map = true;
		return 0;
	}
	d->map = p;
	d->map_off = start;
	d->map_len = (size_t)len;
	*out = d->map + (off - start);
	return 1;
}

/* The bytes at off from d->blk, read a block at a time (grown to n when a record is larger);
 * the bytes of a record the last block cut are moved to the front and the rest read after
 * them. */
static int read_window(struct t2f_perf_data *d, uint64_t off, size_t n, const uint8_t **out)
{
	uint64_t have_end = d->blk_off + d->blk_len;
	size_t keep = 0, want;
	int err;

	if (off >= d->blk_off && off + n <= have_end) {
		*out = d->blk + (off - d->blk_off);
		return 0;
	}
	if (!d->blk || n > d->blk_cap) {
		uint64_t size = d->end - d->hdr.data_offset;
		size_t block = d->blk_size ? d->blk_size : BLOCK;
		size_t cap = size < block ? (size_t)size : block;
		uint8_t *b;

		if (cap < n)
			cap = n;
		if (!(b = realloc(d->blk, cap)))
			return -ENOMEM;
		d->blk = b;
		d->blk_cap = cap;
	}
	if (off >= d->blk_off && off < have_end) {
		keep = (size_t)(have_end - off);
		memmove(d->blk, d->blk + (off - d->blk_off), keep);
	}
	want = d->end - off < d->blk_cap ? (size_t)(d->end - off) : d->blk_cap;
	d->blk_off = off;
	d->blk_len = 0;
	err = t2f_perf_data__pread(d, d->blk + keep, want - keep, off + keep);
	if (err)
		return err;
	d->blk_len = want;
	*out = d->blk;
	return 0;
}

int t2f_perf_data__window(struct t2f_perf_data *d, uint64_t off, size_t n, const uint8_t **out)
{
	int r;

	if (d->base) {
		*out = d->base + off;
		return 0;
	}
	if (d->map && off >= d->map_off && off + n <= d->map_off + d->map_len) {
		*out = d->map + (off - d->map_off);
		return 0;
	}
	if (!d->no_map && !d->blk_size && (r = map_window(d, off, n, out)) != 0)
		return r < 0 ? r : 0;
	return read_window(d, off, n, out);
}

bool t2f_perf_data__file_offset(const struct t2f_perf_data *d, const struct t2f_perf_record *rec,
				const void *at, uint64_t *off)
{
	const uint8_t *p = at;

	if (d->base || rec->in_compressed)
		return false;
	if (d->map && p >= d->map && p < d->map + d->map_len)
		*off = d->map_off + (uint64_t)(p - d->map);
	else
		*off = d->blk_off + (uint64_t)(p - d->blk);
	return true;
}
