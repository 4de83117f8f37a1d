/* formats/sample_log.c: two growable arrays: the samples (cell, weight below 2^32 - 1, or the
 * escape value) and, in sample order, the escaped samples' (index, weight). */
#include "formats/sample_log.h"

#include <errno.h>
#include <stdlib.h>

#include "formats/diag.h"
#include "formats/mem.h"

#define WEIGHT_ASIDE UINT32_MAX /* the weight is in `big` */

struct entry {
	uint32_t cell;
	uint32_t weight;
};

struct big_weight {
	uint64_t idx;
	uint64_t weight;
};

struct t2f_sample_log {
	struct entry *e;
	size_t len, cap;
	struct big_weight *big;
	size_t big_len, big_cap;
};

int t2f_sample_log__new(struct t2f_sample_log **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void t2f_sample_log__free(struct t2f_sample_log *l)
{
	if (!l)
		return;
	free(l->e);
	free(l->big);
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
	for (c = *cap ? *cap * 2 : 1024; c - len < n; c *= 2)
		;
	nd = realloc(*data, c * size);
	if (!nd)
		return -ENOMEM;
	t2f_mem__huge(nd, c * size);
	*data = nd;
	*cap = c;
	return 0;
}

/* Appends (cell, weight) at l->len; room was made for it. */
static int put(struct t2f_sample_log *l, uint32_t cell, uint64_t weight)
{
	int err;

	if (weight >= WEIGHT_ASIDE) {
		err = grow((void **)&l->big, &l->big_cap, l->big_len, 1, sizeof(*l->big));
		if (err)
			return err;
		l->big[l->big_len++] = (struct big_weight){ l->len, weight };
		weight = WEIGHT_ASIDE;
	}
	l->e[l->len++] = (struct entry){ cell, (uint32_t)weight };
	return 0;
}

int t2f_sample_log__add(struct t2f_sample_log *l, uint32_t cell, uint64_t weight)
{
	if (l->len < l->cap && weight < WEIGHT_ASIDE) { /* the common case */
		l->e[l->len++] = (struct entry){ cell, (uint32_t)weight };
		return 0;
	}
	return grow((void **)&l->e, &l->cap, l->len, 1, sizeof(*l->e)) ?: put(l, cell, weight);
}

size_t t2f_sample_log__count(const struct t2f_sample_log *l)
{
	return l->len;
}

uint32_t t2f_sample_log__cell(const struct t2f_sample_log *l, size_t idx)
{
	return l->e[idx].cell;
}

uint64_t t2f_sample_log__weight(const struct t2f_sample_log *l, size_t idx)
{
	size_t lo = 0, hi = l->big_len;

	if (l->e[idx].weight != WEIGHT_ASIDE)
		return l->e[idx].weight;
	while (lo < hi) { /* big is in index order */
		size_t mid = lo + (hi - lo) / 2;

		if (l->big[mid].idx < idx)
			lo = mid + 1;
		else
			hi = mid;
	}
	return l->big[lo].weight;
}

void t2f_sample_log__read(const struct t2f_sample_log *l, const uint32_t *idx, size_t from,
			  size_t n, uint32_t *cells, uint64_t *weights)
{
	for (size_t i = 0; i < n; i++) {
		size_t k = idx ? idx[i] : from + i;
		const struct entry *e = &l->e[k];

		cells[i] = e->cell;
		weights[i] = e->weight != WEIGHT_ASIDE ? e->weight : t2f_sample_log__weight(l, k);
	}
}

int t2f_sample_log__append(struct t2f_sample_log *dst, const struct t2f_sample_log *src,
			   const uint32_t *cell_map)
{
	size_t next_big = 0;
	int err = grow((void **)&dst->e, &dst->cap, dst->len, src->len, sizeof(*dst->e));

	for (size_t i = 0; !err && i < src->len; i++) {
		const struct entry *e = &src->e[i];

		if (e->weight == WEIGHT_ASIDE)
			err = put(dst, cell_map[e->cell], src->big[next_big++].weight);
		else
			dst->e[dst->len++] = (struct entry){ cell_map[e->cell], e->weight };
	}
	return err;
}

size_t t2f_sample_log__bytes(const struct t2f_sample_log *l)
{
	return l->cap * sizeof(*l->e) + l->big_cap * sizeof(*l->big);
}
