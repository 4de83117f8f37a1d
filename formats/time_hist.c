/* formats/time_hist.c: the sparse time histogram (time_hist.h). A dense array of buckets in
 * order of first use, a hash index over (event, bucket), and the bucket used last: samples come
 * in time order per thread, so most land where the one before did and skip the index. */
#include "formats/time_hist.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "formats/grow.h"
#include "formats/hashmap.h"
#include "formats/sat.h"

struct t2f_time_hist {
	struct t2f_time_bucket *b;
	size_t n, cap;
	size_t last;                /* index + 1 of the bucket used last; 0: none */
	struct t2f_hashmap *ix;     /* (event, bucket) -> index + 1 */
};

struct probe {
	const struct t2f_time_hist *h;
	uint32_t event;
	uint64_t bucket;
};

static bool bucket_eq(const void *ctx, uint32_t value)
{
	const struct probe *q = ctx;
	const struct t2f_time_bucket *b = &q->h->b[value - 1];

	return b->bucket == q->bucket && b->event == q->event;
}

static uint64_t bucket_hash(uint32_t event, uint64_t bucket)
{
	return t2f_hash_u64(bucket ^ ((uint64_t)event << 40 | (uint64_t)event));
}

int t2f_time_hist__new(struct t2f_time_hist **out)
{
	struct t2f_time_hist *h = calloc(1, sizeof(*h));

	*out = NULL;
	if (!h || t2f_hashmap__new(64, &h->ix)) {
		free(h);
		return -ENOMEM;
	}
	*out = h;
	return 0;
}

void t2f_time_hist__free(struct t2f_time_hist *h)
{
	if (!h)
		return;
	t2f_hashmap__free(h->ix);
	free(h->b);
	free(h);
}

/* The bucket (event, bucket), added when new: its index + 1 in *idx. */
static int find_or_add(struct t2f_time_hist *h, uint32_t event, uint64_t bucket, size_t *idx)
{
	struct probe q = { h, event, bucket };
	uint64_t hash = bucket_hash(event, bucket);
	uint32_t id = t2f_hashmap__find(h->ix, hash, bucket_eq, &q);
	int err;

	if (!id) {
		err = t2f_grow((void **)&h->b, &h->cap, h->n, 1, sizeof(*h->b), 256,
			       UINT32_MAX - 1);
		if (err)
			return err;
		id = (uint32_t)h->n + 1;
		err = t2f_hashmap__insert(h->ix, hash, id);
		if (err)
			return err;
		h->b[h->n++] = (struct t2f_time_bucket){ .bucket = bucket, .event = event };
	}
	*idx = id;
	return 0;
}

static int add_to(struct t2f_time_hist *h, uint32_t event, uint64_t bucket, uint64_t samples,
		  uint64_t weight)
{
	struct t2f_time_bucket *b;
	size_t idx = h->last;
	int err;

	if (!idx || h->b[idx - 1].bucket != bucket || h->b[idx - 1].event != event) {
		err = find_or_add(h, event, bucket, &idx);
		if (err)
			return err;
		h->last = idx;
	}
	b = &h->b[idx - 1];
	b->samples = t2f_sat_add(b->samples, samples);
	b->weight = t2f_sat_add(b->weight, weight);
	return 0;
}

int t2f_time_hist__add(struct t2f_time_hist *h, uint32_t event, uint64_t time_ns,
		       uint64_t samples, uint64_t weight)
{
	uint64_t bucket = time_ns == 0 || time_ns == UINT64_MAX ? T2F_TIME_HIST_UNTIMED
			  : time_ns / T2F_TIME_HIST_NS;

	return add_to(h, event, bucket, samples, weight);
}

int t2f_time_hist__merge(struct t2f_time_hist *dst, const struct t2f_time_hist *src,
			 const uint32_t *event_map)
{
	int err = 0;

	for (size_t i = 0; i < src->n && !err; i++) {
		const struct t2f_time_bucket *b = &src->b[i];

		err = add_to(dst, event_map[b->event], b->bucket, b->samples, b->weight);
	}
	return err;
}

size_t t2f_time_hist__count(const struct t2f_time_hist *h)
{
	return h->n;
}

const struct t2f_time_bucket *t2f_time_hist__at(const struct t2f_time_hist *h, size_t idx)
{
	return &h->b[idx];
}

size_t t2f_time_hist__bytes(const struct t2f_time_hist *h)
{
	return sizeof(*h) + h->cap * sizeof(*h->b) +
	       t2f_hashmap__count(h->ix) * 2 * sizeof(uint64_t);
}
