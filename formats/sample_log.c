/* formats/sample_log.c: per group, a sequence: chunks of samples (cell, weight below 2^32 - 1 or
 * the escape value), each new one twice the size of the one before, and, in sample order, the
 * escaped samples' (index, weight). Reading walks the chunks from the one the previous index was
 * in.
 *
 * A take moves the taken log's chunks, not their samples: each moved chunk points to a copy of
 * the take's cell map, applied when it is read. The taker (the calling thread of a parallel
 * read) then does work per chunk, not per sample; the samples are written once, by the thread
 * that parsed them. A moved chunk is cut to its length and counts as full, so adds after a take
 * go to a new chunk. */
#include "formats/sample_log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats/diag.h"
#include "formats/mem.h"

#define WEIGHT_ASIDE UINT32_MAX /* the weight is in `big` */
#define FIRST_CHUNK 256         /* samples */

struct entry {
	uint32_t cell;
	uint32_t weight;
};

struct chunk {
	struct entry *e;
	size_t len, cap;
	size_t start;          /* index of its first sample */
	const uint32_t *map;   /* cell c is map[c] (a take's map); NULL: as stored */
};

struct big_weight {
	uint64_t idx;
	uint64_t weight;
};

/* One group's samples. */
struct seq {
	struct chunk *chunks;
	size_t nchunks, chunks_cap;
	size_t len;
	struct big_weight *big;
	size_t big_len, big_cap;
};

struct t2f_sample_log {
	struct seq *g;      /* per group */
	size_t ng;          /* groups allocated */
	size_t len;         /* samples of every group */
	uint32_t **maps;    /* the cell maps of takes (owned) */
	size_t nmaps, maps_cap;
	size_t map_bytes;
};

int t2f_sample_log__new(struct t2f_sample_log **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

static void free_chunks(struct seq *l)
{
	for (size_t i = 0; i < l->nchunks; i++)
		free(l->chunks[i].e);
	free(l->chunks);
	free(l->big);
}

void t2f_sample_log__free(struct t2f_sample_log *l)
{
	if (!l)
		return;
	for (size_t g = 0; g < l->ng; g++)
		free_chunks(&l->g[g]);
	for (size_t i = 0; i < l->nmaps; i++)
		free(l->maps[i]);
	free(l->maps);
	free(l->g);
	free(l);
}

/* Room for n more elements of `size` bytes in *data (len used of cap). */
static int grow(void **data, size_t *cap, size_t len, size_t n, size_t size)
{
	size_t c;
	void *nd;

	if (n <= *cap - len)
		return 0;
	if (n > UINT32_MAX - len)
		return -T2F_E_LIMIT;
	for (c = *cap ? *cap * 2 : 16; c - len < n; c *= 2)
		;
	nd = realloc(*data, c * size);
	if (!nd)
		return -ENOMEM;
	*data = nd;
	*cap = c;
	return 0;
}

/* Appends an empty chunk of `cap` samples starting at l->len. */
static int new_chunk(struct seq *l, size_t cap)
{
	struct entry *e;
	int err = grow((void **)&l->chunks, &l->chunks_cap, l->nchunks, 1, sizeof(*l->chunks));

	if (err)
		return err;
	e = malloc(cap * sizeof(*e));
	if (!e)
		return -ENOMEM;
	t2f_mem__huge(e, cap * sizeof(*e));
	l->chunks[l->nchunks++] = (struct chunk){ e, 0, cap, l->len, NULL };
	return 0;
}

/* Appends (cell, weight) to the last chunk, which has room. */
static int put(struct seq *l, uint32_t cell, uint64_t weight)
{
	struct chunk *c = &l->chunks[l->nchunks - 1];
	int err;

	if (weight >= WEIGHT_ASIDE) {
		err = grow((void **)&l->big, &l->big_cap, l->big_len, 1, sizeof(*l->big));
		if (err)
			return err;
		l->big[l->big_len++] = (struct big_weight){ l->len, weight };
		weight = WEIGHT_ASIDE;
	}
	c->e[c->len++] = (struct entry){ cell, (uint32_t)weight };
	l->len++;
	return 0;
}

/* Room for groups 0..g. 0 or -ENOMEM. */
static int reserve_groups(struct t2f_sample_log *l, size_t g)
{
	size_t n = l->ng ? l->ng : 8;
	struct seq *ng;

	if (g < l->ng)
		return 0;
	while (n <= g)
		n *= 2;
	ng = realloc(l->g, n * sizeof(*ng));
	if (!ng)
		return -ENOMEM;
	memset(ng + l->ng, 0, (n - l->ng) * sizeof(*ng));
	l->g = ng;
	l->ng = n;
	return 0;
}

/* The uncommon add: a new chunk, a weight aside, or a new group. */
static int add_slow(struct t2f_sample_log *l, uint32_t g, uint32_t cell, uint64_t weight)
{
	struct seq *q;
	struct chunk *c;
	int err;

	if (l->len >= UINT32_MAX)
		return -T2F_E_LIMIT;
	err = reserve_groups(l, g);
	if (err)
		return err;
	q = &l->g[g];
	c = q->nchunks ? &q->chunks[q->nchunks - 1] : NULL;
	if (!c || c->len == c->cap) {
		err = new_chunk(q, c && c->cap >= FIRST_CHUNK && !c->map ? c->cap * 2 : FIRST_CHUNK);
		if (err)
			return err;
	}
	err = put(q, cell, weight);
	l->len += !err;
	return err;
}

int t2f_sample_log__add(struct t2f_sample_log *l, uint32_t g, uint32_t cell, uint64_t weight)
{
	struct seq *q = g < l->ng ? &l->g[g] : NULL;
	struct chunk *c = q && q->nchunks ? &q->chunks[q->nchunks - 1] : NULL;

	if (c && c->len < c->cap && weight < WEIGHT_ASIDE) { /* the common case */
		c->e[c->len++] = (struct entry){ cell, (uint32_t)weight };
		q->len++;
		l->len++;
		return 0;
	}
	return add_slow(l, g, cell, weight);
}

size_t t2f_sample_log__count(const struct t2f_sample_log *l)
{
	return l->len;
}

size_t t2f_sample_log__group_count(const struct t2f_sample_log *l, uint32_t g)
{
	return g < l->ng ? l->g[g].len : 0;
}

/* The chunk holding sample idx (< len), looked for from *hint on (the chunk of the index before). */
static const struct chunk *chunk_of(const struct seq *l, size_t idx, size_t *hint)
{
	size_t lo = 0, hi = l->nchunks;
	const struct chunk *c = &l->chunks[*hint < l->nchunks ? *hint : 0];

	if (idx >= c->start && idx - c->start < c->len)
		return c;
	if (*hint + 1 < l->nchunks && idx >= c[1].start && idx - c[1].start < c[1].len)
		return &l->chunks[++*hint];
	while (hi - lo > 1) { /* the last chunk starting at or before idx (empty ones too) */
		size_t mid = lo + (hi - lo) / 2;

		if (l->chunks[mid].start <= idx)
			lo = mid;
		else
			hi = mid;
	}
	while (l->chunks[lo].len == 0 || idx - l->chunks[lo].start >= l->chunks[lo].len)
		lo--; /* empty chunks share their start with the next one: step back over none */
	*hint = lo;
	return &l->chunks[lo];
}

static uint64_t big_weight(const struct seq *l, size_t idx)
{
	size_t lo = 0, hi = l->big_len;

	while (lo < hi) { /* big is in index order */
		size_t mid = lo + (hi - lo) / 2;

		if (l->big[mid].idx < idx)
			lo = mid + 1;
		else
			hi = mid;
	}
	return l->big[lo].weight;
}

uint32_t t2f_sample_log__cell(const struct t2f_sample_log *l, uint32_t g, size_t idx)
{
	size_t hint = 0;
	const struct chunk *c = chunk_of(&l->g[g], idx, &hint);
	uint32_t cell = c->e[idx - c->start].cell;

	return c->map ? c->map[cell] : cell;
}

uint64_t t2f_sample_log__weight(const struct t2f_sample_log *l, uint32_t g, size_t idx)
{
	size_t hint = 0;
	const struct chunk *c = chunk_of(&l->g[g], idx, &hint);
	const struct entry *e = &c->e[idx - c->start];

	return e->weight != WEIGHT_ASIDE ? e->weight : big_weight(&l->g[g], idx);
}

/* Entries e[0..k) of a chunk (map: its cell map, or NULL) into cells and weights; escaped
 * weights looked up from sample index `first` on. */
static void read_entries(const struct seq *q, const struct entry *e, size_t k,
			 const uint32_t *map, size_t first, uint32_t *cells, uint64_t *weights)
{
	if (map)
		for (size_t i = 0; i < k; i++)
			cells[i] = map[e[i].cell];
	else
		for (size_t i = 0; i < k; i++)
			cells[i] = e[i].cell;
	for (size_t i = 0; i < k; i++)
		weights[i] = e[i].weight != WEIGHT_ASIDE ? e[i].weight : big_weight(q, first + i);
}

void t2f_sample_log__read(const struct t2f_sample_log *l, uint32_t g, size_t from, size_t n,
			  uint32_t *cells, uint64_t *weights)
{
	const struct seq *q = &l->g[g];
	size_t hint = 0, done = 0;

	while (done < n) {
		const struct chunk *c = chunk_of(q, from + done, &hint);
		size_t at = from + done - c->start, k = c->len - at < n - done ? c->len - at : n - done;

		read_entries(q, c->e + at, k, c->map, from + done, cells + done, weights + done);
		done += k;
	}
}

/* A copy of the take's cell map (its n entries), kept by dst: *out. 0 or -ENOMEM. */
static int keep_map(struct t2f_sample_log *dst, const uint32_t *cell_map, size_t n,
		    const uint32_t **out)
{
	uint32_t *m;
	int err = grow((void **)&dst->maps, &dst->maps_cap, dst->nmaps, 1, sizeof(*dst->maps));

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

/* A chunk that src read through a map of its own (it took it from another log) gets its cells
 * written through that map first: it then takes the new map alone. */
static void settle_map(struct chunk *c)
{
	for (size_t i = 0; c->map && i < c->len; i++)
		c->e[i].cell = c->map[c->e[i].cell];
	c->map = NULL;
}

/* Room in dst for every group src's samples go to, and for their chunks and escaped weights.
 * 0 or -ENOMEM (nothing moved yet). */
static int reserve_taken(struct t2f_sample_log *dst, const struct t2f_sample_log *src,
			 const uint32_t *group_map)
{
	uint32_t top = 0;
	int err = 0;

	for (size_t g = 0; g < src->ng; g++)
		if (src->g[g].len && group_map[g] > top)
			top = group_map[g];
	err = reserve_groups(dst, top);
	for (size_t g = 0; !err && g < src->ng; g++) {
		const struct seq *s = &src->g[g];
		struct seq *d = s->len ? &dst->g[group_map[g]] : NULL;

		if (d)
			err = grow((void **)&d->chunks, &d->chunks_cap, d->nchunks, s->nchunks,
				   sizeof(*d->chunks)) ?:
			      grow((void **)&d->big, &d->big_cap, d->big_len, s->big_len,
				   sizeof(*d->big));
	}
	return err;
}

/* Moves src's chunks after dst's (room reserved), reading through map. */
static void move_seq(struct seq *dst, struct seq *src, const uint32_t *map)
{
	for (size_t i = 0; i < src->nchunks; i++) {
		struct chunk c = src->chunks[i];

		if (!c.len) {
			free(c.e);
			continue;
		}
		settle_map(&c);
		if (c.len < c.cap) { /* give back the room it will not use */
			struct entry *e = realloc(c.e, c.len * sizeof(*e));

			c.e = e ? e : c.e;
			c.cap = c.len;
		}
		c.start += dst->len;
		c.map = map;
		dst->chunks[dst->nchunks++] = c;
	}
	for (size_t i = 0; i < src->big_len; i++)
		dst->big[dst->big_len++] = (struct big_weight){ src->big[i].idx + dst->len,
								src->big[i].weight };
	dst->len += src->len;
	src->nchunks = src->len = src->big_len = 0;
}

int t2f_sample_log__take(struct t2f_sample_log *dst, struct t2f_sample_log *src,
			 const uint32_t *cell_map, size_t n_cells, const uint32_t *group_map)
{
	const uint32_t *map;
	int err;

	if (!src->len)
		return 0;
	if (src->len > UINT32_MAX - dst->len)
		return -T2F_E_LIMIT;
	err = reserve_taken(dst, src, group_map) ?: keep_map(dst, cell_map, n_cells, &map);
	if (err)
		return err;
	for (size_t g = 0; g < src->ng; g++)
		if (src->g[g].len)
			move_seq(&dst->g[group_map[g]], &src->g[g], map);
	dst->len += src->len;
	src->len = 0;
	return 0;
}

static size_t seq_bytes(const struct seq *l)
{
	size_t bytes = l->chunks_cap * sizeof(*l->chunks) + l->big_cap * sizeof(*l->big);

	for (size_t i = 0; i < l->nchunks; i++)
		bytes += l->chunks[i].cap * sizeof(struct entry);
	return bytes;
}

size_t t2f_sample_log__bytes(const struct t2f_sample_log *l)
{
	size_t bytes = l->ng * sizeof(*l->g) + l->maps_cap * sizeof(*l->maps) + l->map_bytes;

	for (size_t g = 0; g < l->ng; g++)
		bytes += seq_bytes(&l->g[g]);
	return bytes;
}
