/* formats/sample_log.c: per group, a sequence of chunks of run records, each new chunk twice the
 * size of the one before (up to MAX_CHUNK), and the group's last run, still open, kept aside
 * until a sample of another cell closes it.
 *
 * A record is LEB128 numbers: the cell index, then count << 2 | kind, then by kind: W_EACH, the
 * weight of each sample (which W_SAME records after it in the chunk repeat); W_SAME, nothing;
 * W_SUM, the run's weight (its samples did not all weigh the same). Every MARK-th record of a
 * chunk is an entry point: its byte offset is kept, and it is never W_SAME, so decoding can start
 * there.
 *
 * Chunks up to PIECE_MAX bytes are cut from the log's arena of BLOCK-sized blocks (a group's first
 * chunk kept in its seq), bigger ones have a block of their own.
 *
 * A take moves the taken log's chunks, not their runs: each moved chunk points to a copy of the
 * take's cell map, applied when it is read, and the taken log's arena blocks go with them. The
 * taker (the calling thread of a parallel read) then does work per chunk, not per sample; the
 * runs are written once, by the thread that parsed them. A moved chunk counts as full (one of
 * its own is cut to its length), so adds after a take go to a new chunk. */
#include "formats/grow.h"
#include "formats/sample_log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats/diag.h"
#include "formats/mem.h"
#include "formats/sat.h"
#include "formats/varint.h"

#define MARK 32                  /* an entry point every MARK records */
#define MAX_RECORD 20            /* bytes: cell 5, count and kind 5, weight 10 */
#define MIN_RECORD 2
#define FIRST_CHUNK 64           /* bytes */
#define MAX_CHUNK (64u << 20)    /* bytes: offsets fit 32 bits */
#define PIECE_MAX 16384          /* bytes: chunks up to this size are cut from the arena */
#define FIRST_BLOCK (32u << 10)  /* bytes of the arena's first block; PIECE_MAX fits */
#define BLOCK (256u << 10)       /* bytes of an arena block, at most */

enum { W_SAME, W_EACH, W_SUM };

/* A run as the encoder sees it: `uniform` when each of its samples weighs `each`. */
struct run {
	uint32_t cell, samples;
	uint64_t weight, each;
	bool uniform;
};

/* A chunk's memory: cap bytes of records, then (from the next multiple of 4) its marks, the byte
 * offsets of records 0, MARK, 2 MARK, … (marks_of). Cut from the log's arena, or its own block
 * (`own`, from malloc) when bigger than PIECE_MAX. */
struct chunk {
	uint8_t *b;
	const uint32_t *map;    /* cell c is map[c] (a take's map); NULL: as stored */
	uint64_t each;          /* the weight W_SAME means, when has_each */
	uint32_t len, cap;      /* bytes */
	uint32_t runs;          /* records in it */
	uint32_t start;         /* group index of its first run */
	bool has_each, own;
};

/* One group's runs: its chunks (the first in place, the others in `more`) and the open run. */
struct seq {
	struct chunk first;
	struct chunk *more;     /* chunks 1 .. nchunks - 1 */
	uint32_t nchunks, more_cap;
	uint32_t runs;          /* in the chunks */
	uint32_t samples;       /* in the chunks and the open run */
	uint64_t weight;        /* theirs, summed (at most 2^64 - 1) */
	struct run open;
	bool has_open;
};

/* Memory the small chunks are cut from, in blocks freed together: a whole-machine recording has
 * tens of thousands of threads with a chunk or two each, and a malloc, realloc and free of each
 * cost more than their records. */
struct block {
	struct block *next;
	size_t used, cap;
	uint8_t data[];
};

struct t2f_sample_log {
	struct seq *g;      /* per group */
	size_t ng, g_cap;   /* groups in use (0..ng - 1), room for groups */
	size_t len;         /* samples of every group */
	uint32_t **maps;    /* the cell maps of takes (owned) */
	size_t nmaps, maps_cap;
	size_t map_bytes;
	struct block *blocks; /* the arena: the block cut from first, then older and taken ones */
	size_t block_bytes;
};

int t2f_sample_log__new(struct t2f_sample_log **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

static struct chunk *chunk_at(struct seq *q, size_t i)
{
	return i ? &q->more[i - 1] : &q->first;
}

static const struct chunk *chunk_at_c(const struct seq *q, size_t i)
{
	return i ? &q->more[i - 1] : &q->first;
}

static size_t marks_off(size_t cap)
{
	return (cap + 3) & ~(size_t)3;
}

static size_t marks_room(size_t cap)
{
	return cap / MIN_RECORD / MARK + 1;
}

static uint32_t *marks_of(const struct chunk *c)
{
	return (uint32_t *)(void *)(c->b + marks_off(c->cap));
}

static void free_chunk(struct chunk *c)
{
	if (c->own)
		free(c->b);
	c->b = NULL;
}

static void free_chunks(struct seq *q)
{
	for (size_t i = 0; i < q->nchunks; i++)
		free_chunk(chunk_at(q, i));
	free(q->more);
}

static void free_blocks(struct block *b)
{
	while (b) {
		struct block *next = b->next;

		free(b);
		b = next;
	}
}

void t2f_sample_log__free(struct t2f_sample_log *l)
{
	if (!l)
		return;
	for (size_t g = 0; g < l->ng; g++)
		free_chunks(&l->g[g]);
	for (size_t i = 0; i < l->nmaps; i++)
		free(l->maps[i]);
	free_blocks(l->blocks);
	free(l->maps);
	free(l->g);
	free(l);
}

/* ---- records ---- */

static inline uint64_t get_num(const uint8_t **pp)
{
	const uint8_t *p = *pp;
	uint64_t v = *p & 0x7f;

	for (unsigned shift = 7; *p++ & 0x80; shift += 7)
		v |= (uint64_t)(*p & 0x7f) << shift;
	*pp = p;
	return v;
}

/* Appends r's record to c, which has room for one. */
static void encode(struct chunk *c, const struct run *r)
{
	uint8_t *p = c->b + c->len;
	unsigned kind = W_SUM;

	if (c->runs % MARK == 0) {
		marks_of(c)[c->runs / MARK] = c->len;
		c->has_each = false;
	}
	if (r->uniform) {
		kind = c->has_each && c->each == r->each ? W_SAME : W_EACH;
		c->each = r->each;
		c->has_each = true;
	}
	p += t2f_varint__put(p, r->cell);
	p += t2f_varint__put(p, (uint64_t)r->samples << 2 | kind);
	if (kind != W_SAME)
		p += t2f_varint__put(p, kind == W_EACH ? r->each : r->weight);
	c->len = (size_t)(p - c->b);
	c->runs++;
}

/* Decoding from an entry point on. */
struct cursor {
	const uint8_t *p;
	uint64_t each;
};

static inline void decode(struct cursor *k, struct run *r)
{
	uint64_t head;

	r->cell = (uint32_t)get_num(&k->p);
	head = get_num(&k->p);
	r->samples = (uint32_t)(head >> 2);
	r->uniform = (head & 3) != W_SUM;
	if ((head & 3) == W_EACH)
		k->each = get_num(&k->p);
	r->each = k->each;
	r->weight = r->uniform ? r->samples * k->each : get_num(&k->p);
}

/* A cursor at record `at` of c: at its entry point, then past the records before it. */
static struct cursor seek(const struct chunk *c, size_t at)
{
	struct cursor k = { c->b + marks_of(c)[at / MARK], 0 };
	struct run skip;

	for (size_t i = at % MARK; i > 0; i--)
		decode(&k, &skip);
	return k;
}

/* ---- adding ---- */

/* A piece of `bytes` (a multiple of 4) cut from l's arena. NULL when out of memory. */
static uint8_t *cut_piece(struct t2f_sample_log *l, size_t bytes)
{
	struct block *b = l->blocks;
	uint8_t *p;

	if (!b || b->cap - b->used < bytes) { /* each block as big as those before, up to BLOCK */
		size_t cap = l->block_bytes < FIRST_BLOCK ? FIRST_BLOCK :
			     l->block_bytes < BLOCK ? l->block_bytes : BLOCK;

		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->next = l->blocks;
		b->used = 0;
		b->cap = cap;
		l->blocks = b;
		l->block_bytes += cap;
	}
	p = b->data + b->used;
	b->used += bytes;
	return p;
}

/* An empty chunk of `cap` bytes in *c, cut from l's arena or (bigger) its own. 0 or -ENOMEM. */
static int chunk_init(struct t2f_sample_log *l, struct chunk *c, size_t cap)
{
	size_t bytes = marks_off(cap) + marks_room(cap) * sizeof(uint32_t);

	*c = (struct chunk){ .cap = (uint32_t)cap, .own = bytes > PIECE_MAX };
	c->b = c->own ? malloc(bytes) : cut_piece(l, bytes);
	if (!c->b)
		return -ENOMEM;
	if (c->own)
		t2f_mem__huge(c->b);
	return 0;
}

/* Room for n chunks in q. 0 or -ENOMEM. */
static int reserve_chunks(struct seq *q, size_t n)
{
	size_t cap = q->more_cap;
	int err;

	if (n <= (size_t)q->more_cap + 1)
		return 0;
	err = t2f_grow((void **)&q->more, &cap, q->nchunks ? q->nchunks - 1 : 0,
		       n - (q->nchunks ? q->nchunks : 1), sizeof(*q->more), 2, UINT32_MAX);
	q->more_cap = (uint32_t)cap;
	return err;
}

/* Appends an empty chunk, its size following the last one's. */
static int new_chunk(struct t2f_sample_log *l, struct seq *q)
{
	const struct chunk *last = q->nchunks ? chunk_at(q, q->nchunks - 1) : NULL;
	size_t cap = last && !last->map && last->cap >= FIRST_CHUNK ? (size_t)last->cap * 2 :
		     FIRST_CHUNK;
	int err = reserve_chunks(q, (size_t)q->nchunks + 1);

	if (err)
		return err;
	err = chunk_init(l, chunk_at(q, q->nchunks), cap < MAX_CHUNK ? cap : MAX_CHUNK);
	if (err)
		return err;
	chunk_at(q, q->nchunks++)->start = q->runs;
	return 0;
}

/* Writes the open run into the chunks. 0 or -ENOMEM (then it stays open). */
static int close_run(struct t2f_sample_log *l, struct seq *q)
{
	struct chunk *c = q->nchunks ? chunk_at(q, q->nchunks - 1) : NULL;
	int err;

	if (!q->has_open)
		return 0;
	if (!c || c->map || c->cap - c->len < MAX_RECORD) {
		err = new_chunk(l, q);
		if (err)
			return err;
		c = chunk_at(q, q->nchunks - 1);
	}
	encode(c, &q->open);
	q->runs++;
	q->has_open = false;
	return 0;
}

/* Groups 0..g, the new ones empty. 0 or -ENOMEM. Only the groups in use are touched: room past
 * them is left to the kernel to give when used. */
static int reserve_groups(struct t2f_sample_log *l, size_t g)
{
	int err;

	if (g < l->ng) /* every sample that opens a run asks */
		return 0;
	err = t2f_grow((void **)&l->g, &l->g_cap, l->ng, g + 1 - l->ng, sizeof(*l->g), 8,
		       SIZE_MAX);
	if (err)
		return err;
	memset(l->g + l->ng, 0, (g + 1 - l->ng) * sizeof(*l->g));
	l->ng = g + 1;
	return 0;
}

/* The uncommon add: a sample that opens a run (and closes the one before), or a new group. */
static int add_slow(struct t2f_sample_log *l, uint32_t g, uint32_t cell, uint64_t weight)
{
	struct seq *q;
	int err;

	if (l->len >= UINT32_MAX)
		return -T2F_ERR_LIMIT;
	err = reserve_groups(l, g);
	if (err)
		return err;
	q = &l->g[g];
	err = close_run(l, q);
	if (err)
		return err;
	q->open = (struct run){ cell, 1, weight, weight, true };
	q->has_open = true;
	q->samples++;
	q->weight = t2f_sat_add(q->weight, weight);
	l->len++;
	return 0;
}

int t2f_sample_log__add(struct t2f_sample_log *l, uint32_t g, uint32_t cell, uint64_t weight)
{
	struct seq *q = g < l->ng ? &l->g[g] : NULL;
	struct run *r = q && q->has_open ? &q->open : NULL;

	if (r && r->cell == cell && r->samples < UINT32_MAX && weight <= UINT64_MAX - r->weight &&
	    l->len < UINT32_MAX) { /* the common case: the run goes on */
		r->samples++;
		r->weight += weight;
		r->uniform &= weight == r->each;
		q->samples++;
		q->weight = t2f_sat_add(q->weight, weight);
		l->len++;
		return 0;
	}
	return add_slow(l, g, cell, weight);
}

/* ---- reading ---- */

size_t t2f_sample_log__count(const struct t2f_sample_log *l)
{
	return l->len;
}

size_t t2f_sample_log__group_samples(const struct t2f_sample_log *l, uint32_t g)
{
	return g < l->ng ? l->g[g].samples : 0;
}

uint64_t t2f_sample_log__group_weight(const struct t2f_sample_log *l, uint32_t g)
{
	return g < l->ng ? l->g[g].weight : 0;
}

size_t t2f_sample_log__group_runs(const struct t2f_sample_log *l, uint32_t g)
{
	return g < l->ng ? l->g[g].runs + l->g[g].has_open : 0;
}

/* The chunk holding run idx (< runs), looked for from *hint on (the chunk of the index before). */
static const struct chunk *chunk_of(const struct seq *q, size_t idx, size_t *hint)
{
	size_t lo = 0, hi = q->nchunks, h = *hint < q->nchunks ? *hint : 0;
	const struct chunk *c = chunk_at_c(q, h);

	if (idx >= c->start && idx - c->start < c->runs)
		return c;
	if (h + 1 < q->nchunks) {
		c = chunk_at_c(q, h + 1);
		if (idx >= c->start && idx - c->start < c->runs) {
			*hint = h + 1;
			return c;
		}
	}
	while (hi - lo > 1) { /* the last chunk starting at or before idx */
		size_t mid = lo + (hi - lo) / 2;

		if (chunk_at_c(q, mid)->start <= idx)
			lo = mid;
		else
			hi = mid;
	}
	*hint = lo;
	return chunk_at_c(q, lo);
}

/* Records [at, at + n) of c into out. */
static void read_chunk(const struct chunk *c, size_t at, size_t n, struct t2f_log_run *out)
{
	struct cursor k = seek(c, at);
	struct run r;

	for (size_t i = 0; i < n; i++) {
		decode(&k, &r);
		out[i] = (struct t2f_log_run){ c->map ? c->map[r.cell] : r.cell, r.samples,
					       r.weight };
	}
}

void t2f_sample_log__read(const struct t2f_sample_log *l, uint32_t g, size_t from, size_t n,
			  struct t2f_log_run *runs)
{
	const struct seq *q = &l->g[g];
	size_t hint = 0, done = 0;

	while (done < n && from + done < q->runs) {
		const struct chunk *c = chunk_of(q, from + done, &hint);
		size_t at = from + done - c->start, k = c->runs - at < n - done ? c->runs - at : n - done;

		read_chunk(c, at, k, runs + done);
		done += k;
	}
	if (done < n) /* the open run */
		runs[done] = (struct t2f_log_run){ q->open.cell, q->open.samples, q->open.weight };
}

/* ---- taking ---- */

/* A copy of the take's cell map (its n entries), kept by dst: *out. 0 or -ENOMEM. */
static int keep_map(struct t2f_sample_log *dst, const uint32_t *cell_map, size_t n,
		    const uint32_t **out)
{
	uint32_t *m;
	int err = t2f_grow((void **)&dst->maps, &dst->maps_cap, dst->nmaps, 1,
			sizeof(*dst->maps), 16, UINT32_MAX);

	if (err)
		return err;
	m = malloc((n ? n : 1) * sizeof(*m));
	if (!m)
		return -ENOMEM;
	memcpy(m, cell_map, n * sizeof(*m));
	dst->maps[dst->nmaps++] = m;
	dst->map_bytes += n * sizeof(*m);
	*out = m;
	return 0;
}

/* A chunk that src reads through a map of its own (it took it from another log) is written
 * again with its cells mapped: it then takes the new map alone. 0 or -ENOMEM (c unchanged). */
static int settle_map(struct t2f_sample_log *src, struct chunk *c)
{
	struct chunk n;
	struct cursor k;
	struct run r;
	int err;

	if (!c->map)
		return 0;
	err = chunk_init(src, &n, (size_t)c->runs * MAX_RECORD); /* runs > 0: chunks without are
								   * not moved */
	if (err)
		return err;
	k = seek(c, 0);
	for (size_t i = 0; i < c->runs; i++) {
		decode(&k, &r);
		r.cell = c->map[r.cell];
		encode(&n, &r);
	}
	n.start = c->start;
	free_chunk(c);
	*c = n;
	return 0;
}

/* Closes the open runs of the groups a take touches (src's, and dst's that src's go to) and
 * settles src's mapped chunks; finds the highest dst group. 0 or -ENOMEM (samples unchanged). */
static int prepare_take(struct t2f_sample_log *dst, struct t2f_sample_log *src,
			const uint32_t *group_map, uint32_t *top)
{
	int err = 0;

	*top = 0;
	for (size_t g = 0; !err && g < src->ng; g++) {
		struct seq *s = &src->g[g];

		if (!s->samples)
			continue;
		*top = group_map[g] > *top ? group_map[g] : *top;
		err = close_run(src, s);
		for (size_t i = 0; !err && i < s->nchunks; i++)
			err = settle_map(src, chunk_at(s, i));
		if (!err && group_map[g] < dst->ng)
			err = close_run(dst, &dst->g[group_map[g]]);
	}
	return err;
}

/* Room in dst for every group src's samples go to and for their chunks. 0 or -ENOMEM (nothing
 * moved yet). */
static int reserve_taken(struct t2f_sample_log *dst, const struct t2f_sample_log *src,
			 const uint32_t *group_map, uint32_t top)
{
	int err = reserve_groups(dst, top);

	for (size_t g = 0; !err && g < src->ng; g++) {
		const struct seq *s = &src->g[g];
		struct seq *d = s->samples ? &dst->g[group_map[g]] : NULL;

		if (d)
			err = reserve_chunks(d, (size_t)d->nchunks + s->nchunks);
	}
	return err;
}

/* Gives back the room an own chunk will not use: its records cut to their length, its marks
 * moved after them. */
static void trim_chunk(struct chunk *c)
{
	size_t nmarks = (c->runs + MARK - 1) / MARK, at = marks_off(c->len);
	uint8_t *b;

	if (!c->own || c->len == c->cap)
		return;
	memmove(c->b + at, marks_of(c), nmarks * sizeof(uint32_t));
	c->cap = c->len;
	b = realloc(c->b, at + nmarks * sizeof(uint32_t));
	c->b = b ? b : c->b;
}

/* Moves src's chunks after dst's (room reserved, open runs closed), reading through map. */
static void move_seq(struct seq *dst, struct seq *src, const uint32_t *map)
{
	for (size_t i = 0; i < src->nchunks; i++) {
		struct chunk c = *chunk_at(src, i);

		if (!c.runs) {
			free_chunk(&c);
			continue;
		}
		trim_chunk(&c);
		c.start += dst->runs;
		c.map = map;
		*chunk_at(dst, dst->nchunks++) = c;
	}
	dst->runs += src->runs;
	dst->samples += src->samples;
	dst->weight = t2f_sat_add(dst->weight, src->weight);
	src->nchunks = src->runs = src->samples = 0;
	src->weight = 0;
}

/* Puts src's arena blocks behind dst's first one (which dst goes on cutting from). */
static void take_blocks(struct t2f_sample_log *dst, struct t2f_sample_log *src)
{
	struct block *last = src->blocks;

	if (!last)
		return;
	while (last->next)
		last = last->next;
	if (dst->blocks) {
		last->next = dst->blocks->next;
		dst->blocks->next = src->blocks;
	} else {
		dst->blocks = src->blocks;
	}
	dst->block_bytes += src->block_bytes;
	src->blocks = NULL;
	src->block_bytes = 0;
}

int t2f_sample_log__take(struct t2f_sample_log *dst, struct t2f_sample_log *src,
			 const uint32_t *cell_map, size_t n_cells, const uint32_t *group_map)
{
	const uint32_t *map;
	uint32_t top;
	int err;

	if (!src->len)
		return 0;
	if (src->len > UINT32_MAX - dst->len)
		return -T2F_ERR_LIMIT;
	err = prepare_take(dst, src, group_map, &top) ?:
	      reserve_taken(dst, src, group_map, top) ?:
	      keep_map(dst, cell_map, n_cells, &map);
	if (err)
		return err;
	for (size_t g = 0; g < src->ng; g++)
		if (src->g[g].samples)
			move_seq(&dst->g[group_map[g]], &src->g[g], map);
	take_blocks(dst, src);
	dst->len += src->len;
	src->len = 0;
	return 0;
}

static size_t seq_bytes(const struct seq *q)
{
	size_t bytes = q->more_cap * sizeof(*q->more);

	for (size_t i = 0; i < q->nchunks; i++) {
		const struct chunk *c = chunk_at_c(q, i);

		if (c->own)
			bytes += marks_off(c->cap) + marks_room(c->cap) * sizeof(uint32_t);
	}
	return bytes;
}

size_t t2f_sample_log__bytes(const struct t2f_sample_log *l)
{
	size_t bytes = l->g_cap * sizeof(*l->g) + l->maps_cap * sizeof(*l->maps) + l->map_bytes +
		       l->block_bytes;

	for (size_t g = 0; g < l->ng; g++)
		bytes += seq_bytes(&l->g[g]);
	return bytes;
}
