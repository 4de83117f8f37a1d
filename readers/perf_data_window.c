/* readers/perf_data_window.c: the data section's bytes for the record decoder (perf_data_internal.h
 * t2f_perf_data__window): in place in open_mem's memory; from a file, read with pread a block at
 * a time into one reused buffer, or as t2f_perf_data__set_map asks in a window of it mapped
 * read-only (read in blocks where it cannot be mapped, or where the tests set a block size).
 *
 * Which is the cheaper depends on the host. The decoder touches a record's head, its tail and,
 * of a --call-graph dwarf sample, the stack copy's top, so mapping saves copying the rest: on
 * one VM 102 MB of 8 KiB stack copies took 13.3 ms of CPU to copy and 3.8 ms to map 4 MiB
 * windows in turn and touch those bytes. On another every page mapped cost more than its copy
 * (a 179 MB dwarf recording of a shallow program: 0.063 s read, 0.121 s mapped), and
 * frame-pointer recordings were 5-11% faster read, with a lower peak RSS (a mapping's pages
 * count in it). On a kernel whose page cache holds large folios, mapping and prefaulting 160 MB
 * took 3.5 ms against 23 ms to read it. So reading is the default, and
 * T2F_PERF_DATA_MAP_IF_CHEAPER (the session's) weighs the two at the first window of a
 * recording of stack copies (probe_map): mapped and its pages touched, then its first MiB
 * read again with pread.
 * Both leave the decoding thread the same work (the thread below maps, or reads, ahead), so the
 * cheaper of the two is kept: on a VM where a window mapped in 360-500 us and read in 440-870
 * us, a 288 MB shallow recording took 0.046 s mapped against 0.055 s read ahead (0.066 s read
 * on the decoding thread).
 *
 * A mapped window is prefaulted at once (MADV_POPULATE_READ), which also finds a file that
 * shrank since it was opened: where the mapping would give SIGBUS, the rest is read with pread,
 * which names the offset where it ends (a file cut while its window is mapped still gives
 * SIGBUS, as it does perf).
 *
 * In a recording of user stack copies (--call-graph dwarf: 8 KiB a sample) longer than one
 * window, unless the caller asked for none (t2f_perf_data__set_ahead: the session's -j 1), a
 * thread of the reader's own reads the next block (1 MiB, from a record's largest size before
 * this one ends) into a second buffer while the decoder reads this one (read_ahead_hand), or,
 * mapped, maps and prefaults the next window while the decoder reads
 * this one, and unmaps the one before the one before: that page-table work, a quarter of a
 * shallow dwarf recording's conversion, leaves the decoding thread. (In a frame-pointer
 * recording the decoding and its model cost the most; the thread saved nothing there, and the
 * window it holds mapped raised the peak memory.) The next window starts a record's largest size
 * (64 KiB) before this one ends, so that the record this one cuts lies in it. The window before
 * stays mapped, so that the stack copies of the samples read since (a round or two, flushed
 * while the next ones are read) can be walked in place (t2f_perf_data__mapped) rather than read
 * again. At most four windows are mapped at a time (the one read, the one before, the next, the
 * one being unmapped); not the file. Where the next window could not be mapped (the file
 * shrank), the decoder maps it itself, as without the thread. Otherwise the window before is
 * unmapped as the next is mapped.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "formats/bg.h"
#include "formats/clock.h"
#include "formats/mem.h"
#include "readers/perf_data_internal.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22 /* Linux 5.14 */
#endif

#define BLOCK (256u << 10)      /* data section bytes read at once (a record is at most 64 KiB) */
#define MAP_WINDOW (4u << 20)   /* data section bytes mapped at once */
#define PROBE_READ (1u << 20)   /* bytes read to weigh against a window mapped (probe_map) */
#define RECORD_MAX (64u << 10)  /* a record's largest size (its header's u16), rounded up */
#define WALK_HEAD 1024          /* bytes of a record's head walk_ahead reads */
#define READ_AHEAD (1u << 20)   /* bytes read at once where a thread reads ahead */

/* The thread's job: unmap old, then map and prefault [start, start + len) of d's file; or,
 * reading ahead (buf), read [start, start + len) into buf: got bytes (0: the read failed). */
struct t2f_pd_ahead {
	const struct t2f_perf_data *d; /* the recording: its fd, and t2f_perf_data__read_at */
	uint8_t *buf;           /* reading ahead: cap bytes, the block the decoder reads next */
	size_t cap, got;
	const uint8_t *old;
	size_t old_len;
	uint64_t start;
	size_t len;
	const uint8_t *map;     /* the window mapped, or NULL (taken, or it failed) */
	const uint8_t *cur;     /* the window being read: [cur_off, cur_off + cur_len) */
	uint64_t cur_off;
	size_t cur_len;
	uint64_t from;          /* the record being read */
	bool swap;
};

/* The record at pos, whole in the window being read or in the next one; NULL when it is in
 * neither (the walk stops). */
static const uint8_t *walk_record(const struct t2f_pd_ahead *a, uint64_t pos, uint16_t *size)
{
	uint64_t end = a->start + a->len;
	bool in_next = false;
	const uint8_t *p;
	uint16_t v;

	if (pos >= a->cur_off && pos - a->cur_off + RECORD_MAX <= a->cur_len) {
		p = a->cur + (pos - a->cur_off); /* the whole record lies in it */
	} else if (pos >= a->start && pos + 8 <= end) {
		p = a->map + (pos - a->start);
		in_next = true;
	} else {
		return NULL;
	}
	memcpy(&v, p + 6, 2);
	*size = a->swap ? __builtin_bswap16(v) : v;
	if (*size < 8 || (in_next && *size > end - pos))
		return NULL;
	return p;
}

/* The cache lines the decoder will read first of each record from the one being read to the
 * end of the next window: its head, a dwarf sample's registers and stack top, and its tail
 * (the word after a stack copy). Reading them here puts them in the shared cache before the
 * decoder asks: on a VM where mapping costs little, its loads of lines fresh from memory were
 * a quarter of its time. A record it cannot size (an AUXTRACE payload follows its record) ends
 * the walk; nothing is written. */
static void walk_ahead(const struct t2f_pd_ahead *a)
{
	uint64_t pos = a->from;
	const uint8_t *p;
	uint16_t size;

	while ((p = walk_record(a, pos, &size))) {
		for (size_t i = 0; i < WALK_HEAD && i < size; i += 64)
			(void)*(const volatile uint8_t *)(p + i); /* volatile: the load is made */
		(void)*(const volatile uint8_t *)(p + size - 1);
		pos += size;
	}
}

/* [start, start + len) of fd mapped and prefaulted, or NULL. */
static const uint8_t *map_prefaulted(int fd, uint64_t start, size_t len)
{
	void *p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, (off_t)start);

	if (p == MAP_FAILED)
		return NULL;
	if (madvise(p, len, MADV_POPULATE_READ) && errno != EINVAL) {
		/* EFAULT: the file shrank (pread says where), or out of memory, a signal */
		munmap(p, len);
		return NULL;
	}
	return p;
}

static int ahead_job(void *ctx, void *job)
{
	struct t2f_pd_ahead *a = job;

	(void)ctx;
	if (a->buf) {
		a->got = t2f_perf_data__read_at(a->d, a->buf, a->len, a->start) ? 0 : a->len;
		return 0;
	}
	if (a->old)
		munmap((void *)a->old, a->old_len);
	a->old = NULL;
	a->map = map_prefaulted(a->d->fd, a->start, a->len);
	if (a->map && a->cur)
		walk_ahead(a);
	return 0;
}

/* The job waited for: its window, if any, unmapped. */
static void ahead_drop(struct t2f_perf_data *d)
{
	if (d->ahead->map)
		munmap((void *)d->ahead->map, d->ahead->len);
	d->ahead->map = NULL;
}

/* The window read and the one before unmapped. */
static void windows_drop(struct t2f_perf_data *d)
{
	if (d->map)
		munmap((void *)d->map, d->map_len);
	if (d->prev)
		munmap((void *)d->prev, d->prev_len);
	d->map = d->prev = NULL;
	d->map_len = d->prev_len = 0;
}

void t2f_perf_data__unmap(struct t2f_perf_data *d)
{
	if (d->ahead_bg) {
		t2f_bg__wait(d->ahead_bg);
		ahead_drop(d);
		t2f_bg__free(d->ahead_bg);
		d->ahead_bg = NULL;
	}
	if (d->ahead)
		free(d->ahead->buf);
	free(d->ahead);
	d->ahead = NULL;
	windows_drop(d);
}

/* Whether an event copies user stacks: records of kilobytes, whose pages cost more to map than
 * their bytes cost to decode. */
static bool copies_stacks(const struct t2f_perf_data *d)
{
	for (size_t i = 0; i < d->n_attrs; i++)
		if (d->attrs[i].attr.sample_type & PERF_SAMPLE_STACK_USER)
			return true;
	return false;
}

/* The thread and its job, for a recording of stack copies. */
static bool ahead_start(struct t2f_perf_data *d)
{
	if (d->ahead_bg)
		return true;
	if (d->no_ahead || !copies_stacks(d)) {
		d->no_ahead = true;
		return false;
	}
	d->ahead = calloc(1, sizeof(*d->ahead));
	if (!d->ahead || t2f_bg__new(ahead_job, NULL, &d->ahead_bg)) {
		free(d->ahead);
		d->ahead = NULL;
		d->no_ahead = true;
		return false;
	}
	d->ahead->d = d;
	return true;
}

/* The current window becomes [start, start + len) at map; old (a window no longer kept, or
 * NULL) is unmapped, on the thread with the next window mapped when there is one to map. */
static void window_set(struct t2f_perf_data *d, const uint8_t *map, uint64_t start, size_t len,
		       const uint8_t *old, size_t old_len)
{
	uint64_t end = start + len, next = (end - RECORD_MAX) - (end - RECORD_MAX) % (uint64_t)t2f_mem__page_size();

	d->map = map;
	d->map_off = start;
	d->map_len = len;
	if (end >= d->end || len <= RECORD_MAX || !ahead_start(d)) {
		if (old)
			munmap((void *)old, old_len);
		return;
	}
	d->ahead->old = old;
	d->ahead->old_len = old_len;
	d->ahead->start = next;
	d->ahead->len = d->end - next < MAP_WINDOW ? (size_t)(d->end - next) : MAP_WINDOW;
	d->ahead->cur = map; /* mapped until a later job, which this one ends before */
	d->ahead->cur_off = start;
	d->ahead->cur_len = len;
	d->ahead->from = d->pos;
	d->ahead->swap = d->swap;
	t2f_bg__hand(d->ahead_bg, d->ahead); /* its jobs never fail */
}

/* The window the thread mapped, when it holds [off, off + n): 1 and *out. Else 0, with the
 * thread's window unmapped. */
static int take_ahead(struct t2f_perf_data *d, uint64_t off, size_t n, const uint8_t **out)
{
	struct t2f_pd_ahead *a = d->ahead;
	const uint8_t *map, *old;
	size_t old_len;

	if (!d->ahead_bg)
		return 0;
	t2f_bg__wait(d->ahead_bg);
	if (!a->map || off < a->start || off + n > a->start + a->len) {
		ahead_drop(d);
		return 0;
	}
	map = a->map;
	a->map = NULL;
	old = d->prev;
	old_len = d->prev_len;
	d->prev = d->map;
	d->prev_off = d->map_off;
	d->prev_len = d->map_len;
	window_set(d, map, a->start, a->len, old, old_len);
	*out = map + (off - d->map_off);
	return 1;
}

/* Loads a byte of each page of [p, p + len): the first touches, which cost a fault each where
 * prefaulting did not reach the page tables the CPU walks (on a VM whose host shadows them:
 * 1.7-2.0 ms for a 4 MiB window prefaulted in 0.2 ms). */
static void touch_pages(const uint8_t *p, size_t len)
{
	uint64_t page = (uint64_t)t2f_mem__page_size();

	for (size_t i = 0; i < len; i += page)
		(void)*(const volatile uint8_t *)(p + i); /* volatile: the load is made */
}

/* T2F_PERF_DATA_MAP_IF_CHEAPER, at the first window [start, start + len): the window mapped, or
 * NULL to read. A recording of user stack copies longer than two windows only. The window is
 * mapped, prefaulted and each page touched (the decoder touches nearly every page of stack
 * copies), then its first PROBE_READ bytes read with pread twice, the second read timed (the
 * first pays for the buffer's fresh pages, which the reused block buffer does not: 1.6-2.0 ms
 * against 0.15 ms a MiB on one VM); kept when mapping took less than reading the window would
 * take at that rate. A cold page cache makes the mapping pay the disk, and the reading is
 * kept. */
static const uint8_t *probe_map(struct t2f_perf_data *d, uint64_t start, size_t len)
{
	size_t probe = len < PROBE_READ ? len : PROBE_READ;
	uint64_t t0, map_ns, t1;
	const uint8_t *p;
	uint8_t *buf;
	bool read;

	d->probed = true;
	if (!copies_stacks(d) || d->end - start < 2 * (uint64_t)MAP_WINDOW || !(buf = malloc(probe)))
		return NULL;
	t0 = t2f_clock_ns();
	p = map_prefaulted(d->fd, start, len);
	if (p)
		touch_pages(p, len);
	map_ns = t2f_clock_ns() - t0;
	read = p && !t2f_perf_data__read_at(d, buf, probe, start);
	t1 = t2f_clock_ns();
	read = read && !t2f_perf_data__read_at(d, buf, probe, start);
	if (read) {
		d->stats.probe_map_ns = map_ns;
		d->stats.probe_read_ns = (t2f_clock_ns() - t1) * (len / probe);
		d->stats.mapped = d->stats.probe_map_ns < d->stats.probe_read_ns;
	}
	free(buf);
	if (p && !d->stats.mapped) {
		munmap((void *)p, len);
		p = NULL;
	}
	return p;
}

/* The window from off's page on, of MAP_WINDOW bytes or to the end of the data section, and at
 * least to off + n. 1 with *out, 0 when the file is not to be mapped (then read), or an error. */
static int map_window(struct t2f_perf_data *d, uint64_t off, size_t n, const uint8_t **out)
{
	uint64_t start = off - off % (uint64_t)t2f_mem__page_size();
	uint64_t len = d->end - start < MAP_WINDOW ? d->end - start : MAP_WINDOW;
	const uint8_t *p;

	if (take_ahead(d, off, n, out))
		return 1;
	windows_drop(d);
	if (len < off - start + n)
		len = off - start + n;
	p = d->map_how == T2F_PERF_DATA_MAP_IF_CHEAPER && !d->probed ?
		    probe_map(d, start, (size_t)len) : map_prefaulted(d->fd, start, (size_t)len);
	if (!p) {
		d->no_map = true;
		return 0;
	}
	window_set(d, p, start, (size_t)len, NULL, 0);
	*out = d->map + (off - start);
	return 1;
}

/* Reading ahead (a recording of stack copies, a thread allowed): the thread reads the block
 * after d->blk's into its own buffer while the decoder reads this one, starting a record's
 * largest size before this one ends, so that the record this one cuts lies in it. Not where the
 * tests set a block size, nor at the data section's end. */
static void read_ahead_hand(struct t2f_perf_data *d)
{
	uint64_t next = d->blk_off + d->blk_len - RECORD_MAX;
	struct t2f_pd_ahead *a;

	if (d->blk_size || d->blk_len < 2 * RECORD_MAX || next + RECORD_MAX >= d->end ||
	    !ahead_start(d))
		return;
	a = d->ahead;
	if (!a->buf && (a->buf = malloc(READ_AHEAD)) != NULL)
		a->cap = READ_AHEAD;
	if (!a->buf)
		return;
	a->start = next;
	a->len = d->end - next < a->cap ? (size_t)(d->end - next) : a->cap;
	a->got = 0;
	t2f_bg__hand(d->ahead_bg, a); /* its jobs never fail */
}

/* The block the thread read, when it holds [off, off + n) whole: it becomes d->blk (the old
 * one the thread's next buffer), the next is handed over, 1 and *out. Else 0. */
static int take_read_ahead(struct t2f_perf_data *d, uint64_t off, size_t n, const uint8_t **out)
{
	struct t2f_pd_ahead *a = d->ahead;
	uint8_t *b;
	size_t cap;

	if (!d->ahead_bg || !a->buf || !a->len)
		return 0;
	t2f_bg__wait(d->ahead_bg);
	if (a->got < a->len || off < a->start || off + n > a->start + a->got) {
		a->len = 0; /* a read that failed is made again, and named, by read_window */
		return 0;
	}
	b = d->blk;
	cap = d->blk_cap;
	d->blk = a->buf;
	d->blk_cap = a->cap;
	d->blk_off = a->start;
	d->blk_len = a->got;
	a->buf = b;
	a->cap = cap;
	a->len = 0;
	d->stats.read_ahead++;
	*out = d->blk + (off - d->blk_off);
	if (a->buf)
		read_ahead_hand(d);
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
	if (take_read_ahead(d, off, n, out))
		return 0;
	if (!d->blk || n > d->blk_cap) {
		uint64_t size = d->end - d->hdr.data_offset;
		size_t block = d->blk_size                              ? d->blk_size :
			       !d->no_ahead && copies_stacks(d) ? READ_AHEAD :
								  BLOCK;
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
	read_ahead_hand(d);
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
	if (d->map_how != T2F_PERF_DATA_READ && !d->no_map && !d->blk_size &&
	    (r = map_window(d, off, n, out)) != 0)
		return r < 0 ? r : 0;
	return read_window(d, off, n, out);
}

void t2f_perf_data__set_map(struct t2f_perf_data *d, enum t2f_perf_data_map how)
{
	d->map_how = how;
}

void t2f_perf_data__set_ahead(struct t2f_perf_data *d, bool ahead)
{
	d->no_ahead = !ahead;
}

const uint8_t *t2f_perf_data__mapped(const struct t2f_perf_data *d, uint64_t off, size_t n)
{
	if (d->base)
		return off <= d->len && n <= d->len - off ? d->base + off : NULL;
	if (d->map && off >= d->map_off && n <= d->map_len && off - d->map_off <= d->map_len - n)
		return d->map + (off - d->map_off);
	if (d->prev && off >= d->prev_off && n <= d->prev_len &&
	    off - d->prev_off <= d->prev_len - n)
		return d->prev + (off - d->prev_off);
	return NULL;
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
