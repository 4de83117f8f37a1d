/* formats/sample_log.c: chunks of samples (cell, weight below 2^32 - 1 or the escape value), each
 * new one twice the size of the one before, and, in sample order, the escaped samples'
 * (index, weight). Reading walks the chunks from the one the previous index was in. A take copies
 * into the taker's chunks: they grow large (huge pages, few faults) while the small chunks of
 * the log taken are freed for the next one to use. */
#include "formats/sample_log.h"

#include <errno.h>
#include <stdlib.h>

#include "formats/diag.h"
#include "formats/mem.h"

#define WEIGHT_ASIDE UINT32_MAX /* the weight is in `big` */
#define FIRST_CHUNK 1024        /* samples */

struct entry {
	uint32_t cell;
	uint32_t weight;
};

struct chunk {
	struct entry *e;
	size_t len, cap;
	size_t start; /* index of its first sample */
};

struct big_weight {
	uint64_t idx;
	uint64_t weight;
};

struct t2f_sample_log {
	struct chunk *chunks;
	size_t nchunks, chunks_cap;
	size_t len;
	struct big_weight *big;
	size_t big_len, big_cap;
};

int t2f_sample_log__new(struct t2f_sample_log **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

static void free_chunks(struct t2f_sample_log *l)
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
	free_chunks(l);
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

/* Appends an empty chunk of `cap` samples (0: none allocated) starting at l->len. */
static int new_chunk(struct t2f_sample_log *l, size_t cap)
{
	struct entry *e = NULL;
	int err = grow((void **)&l->chunks, &l->chunks_cap, l->nchunks, 1, sizeof(*l->chunks));

	if (err)
		return err;
	if (cap) {
		e = malloc(cap * sizeof(*e));
		if (!e)
			return -ENOMEM;
		t2f_mem__huge(e, cap * sizeof(*e));
	}
	l->chunks[l->nchunks++] = (struct chunk){ e, 0, cap, l->len };
	return 0;
}

/* Appends (cell, weight) to the last chunk, which has room. */
static int put(struct t2f_sample_log *l, uint32_t cell, uint64_t weight)
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

int t2f_sample_log__add(struct t2f_sample_log *l, uint32_t cell, uint64_t weight)
{
	struct chunk *c = l->nchunks ? &l->chunks[l->nchunks - 1] : NULL;
	int err;

	if (c && c->len < c->cap && weight < WEIGHT_ASIDE) { /* the common case */
		c->e[c->len++] = (struct entry){ cell, (uint32_t)weight };
		l->len++;
		return 0;
	}
	if (l->len >= UINT32_MAX)
		return -T2F_E_LIMIT;
	if (!c || c->len == c->cap) {
		err = new_chunk(l, c && c->cap >= FIRST_CHUNK ? c->cap * 2 : FIRST_CHUNK);
		if (err)
			return err;
	}
	return put(l, cell, weight);
}

size_t t2f_sample_log__count(const struct t2f_sample_log *l)
{
	return l->len;
}

/* The chunk holding sample idx (< len), looked for from *hint on (the chunk of the index before). */
static const struct chunk *chunk_of(const struct t2f_sample_log *l, size_t idx, size_t *hint)
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

static uint64_t big_weight(const struct t2f_sample_log *l, size_t idx)
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

static const struct entry *entry_at(const struct t2f_sample_log *l, size_t idx, size_t *hint)
{
	const struct chunk *c = chunk_of(l, idx, hint);

	return &c->e[idx - c->start];
}

uint32_t t2f_sample_log__cell(const struct t2f_sample_log *l, size_t idx)
{
	size_t hint = 0;

	return entry_at(l, idx, &hint)->cell;
}

uint64_t t2f_sample_log__weight(const struct t2f_sample_log *l, size_t idx)
{
	size_t hint = 0;
	const struct entry *e = entry_at(l, idx, &hint);

	return e->weight != WEIGHT_ASIDE ? e->weight : big_weight(l, idx);
}

/* Samples [from, from + n), chunk by chunk. */
static void read_range(const struct t2f_sample_log *l, size_t from, size_t n, uint32_t *cells,
		       uint64_t *weights)
{
	size_t hint = 0, done = 0;

	while (done < n) {
		const struct chunk *c = chunk_of(l, from + done, &hint);
		size_t at = from + done - c->start, k = c->len - at < n - done ? c->len - at : n - done;

		for (size_t i = 0; i < k; i++) {
			const struct entry *e = &c->e[at + i];

			cells[done + i] = e->cell;
			weights[done + i] = e->weight != WEIGHT_ASIDE ? e->weight :
					    big_weight(l, from + done + i);
		}
		done += k;
	}
}

void t2f_sample_log__read(const struct t2f_sample_log *l, const uint32_t *idx, size_t from,
			  size_t n, uint32_t *cells, uint64_t *weights)
{
	size_t hint = 0;

	if (!idx) {
		read_range(l, from, n, cells, weights);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const struct chunk *c = &l->chunks[hint];
		const struct entry *e;

		if (idx[i] < c->start || idx[i] - c->start >= c->len)
			c = chunk_of(l, idx[i], &hint);
		e = &c->e[idx[i] - c->start];
		cells[i] = e->cell;
		weights[i] = e->weight != WEIGHT_ASIDE ? e->weight : big_weight(l, idx[i]);
	}
}

/* Room for n more samples: the last chunk's, and if short a new chunk for the rest. */
static int reserve(struct t2f_sample_log *l, size_t n)
{
	const struct chunk *c = l->nchunks ? &l->chunks[l->nchunks - 1] : NULL;
	size_t room = c ? c->cap - c->len : 0, cap = c && c->cap >= FIRST_CHUNK ? c->cap * 2 : FIRST_CHUNK;

	if (n <= room)
		return 0;
	while (cap < n - room)
		cap *= 2;
	return new_chunk(l, cap);
}

/* Appends src's samples to dst's chunks from chunk ci on (it has room; those after it are empty),
 * cells mapped. */
static void copy_mapped(struct t2f_sample_log *dst, size_t ci, const struct t2f_sample_log *src,
			const uint32_t *cell_map)
{
	for (size_t i = 0; i < src->nchunks; i++) {
		const struct entry *e = src->chunks[i].e;

		for (size_t j = 0, n = src->chunks[i].len; j < n;) {
			struct chunk *c = &dst->chunks[ci];
			size_t k = c->cap - c->len < n - j ? c->cap - c->len : n - j;

			for (size_t x = 0; x < k; x++)
				c->e[c->len + x] = (struct entry){ cell_map[e[j + x].cell], e[j + x].weight };
			c->len += k;
			j += k;
			if (c->len == c->cap && ci + 1 < dst->nchunks) {
				dst->chunks[ci + 1].start = c->start + c->len;
				ci++;
			}
		}
	}
}

int t2f_sample_log__take(struct t2f_sample_log *dst, struct t2f_sample_log *src,
			 const uint32_t *cell_map)
{
	size_t ci;
	int err;

	if (!src->len)
		return 0;
	if (src->len > UINT32_MAX - dst->len)
		return -T2F_E_LIMIT;
	err = grow((void **)&dst->big, &dst->big_cap, dst->big_len, src->big_len, sizeof(*dst->big));
	ci = dst->nchunks && dst->chunks[dst->nchunks - 1].len < dst->chunks[dst->nchunks - 1].cap
	     ? dst->nchunks - 1 : dst->nchunks;
	err = err ?: reserve(dst, src->len);
	if (err)
		return err;
	copy_mapped(dst, ci, src, cell_map);
	for (size_t i = 0; i < src->big_len; i++)
		dst->big[dst->big_len++] = (struct big_weight){ src->big[i].idx + dst->len,
								src->big[i].weight };
	dst->len += src->len;
	for (size_t i = 0; i < src->nchunks; i++)
		free(src->chunks[i].e);
	src->nchunks = src->len = src->big_len = 0;
	return 0;
}

size_t t2f_sample_log__bytes(const struct t2f_sample_log *l)
{
	size_t bytes = l->chunks_cap * sizeof(*l->chunks) + l->big_cap * sizeof(*l->big);

	for (size_t i = 0; i < l->nchunks; i++)
		bytes += l->chunks[i].cap * sizeof(struct entry);
	return bytes;
}
