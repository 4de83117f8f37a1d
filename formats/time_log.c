/* formats/time_log.c: per group, one growable byte array of records (time_log.h).
 *
 * A record: head = zigzag(time - previous time) << 2 | kind, then by kind: T_SAME nothing more,
 * T_WEIGHT the weight, T_WHOLE the time and the weight (when the difference does not fit 62
 * bits). Both the previous time and weight start at 0 in every group. */
#include "formats/time_log.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "formats/grow.h"
#include "formats/varint.h"

#define MAX_RECORD 30 /* bytes: head 10, time 10, weight 10 */

enum { T_SAME, T_WEIGHT, T_WHOLE };

struct group {
	uint8_t *b;
	size_t len, cap;
	uint64_t time, weight; /* the last sample's */
};

struct t2f_time_log {
	struct group *g;
	size_t ng;
};

int t2f_time_log__new(struct t2f_time_log **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void t2f_time_log__free(struct t2f_time_log *l)
{
	if (!l)
		return;
	for (size_t g = 0; g < l->ng; g++)
		free(l->g[g].b);
	free(l->g);
	free(l);
}

static uint64_t get_num(const uint8_t **pp, const uint8_t *end)
{
	const uint8_t *p = *pp;
	uint64_t v = 0;

	for (unsigned shift = 0; p < end; shift += 7) {
		uint8_t c = *p++;

		if (shift < 64)
			v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			break;
	}
	*pp = p;
	return v;
}

/* Room for group g and a record in it. 0 or -ENOMEM. */
static int reserve(struct t2f_time_log *l, uint32_t g)
{
	struct group *q;
	int err;

	if (g >= l->ng) {
		size_t n = l->ng;

		err = t2f_grow((void **)&l->g, &n, g, 1, sizeof(*l->g), 8, SIZE_MAX);
		if (err)
			return err;
		memset(l->g + l->ng, 0, (n - l->ng) * sizeof(*l->g));
		l->ng = n;
	}
	q = &l->g[g];
	return t2f_grow((void **)&q->b, &q->cap, q->len, MAX_RECORD, 1, 256, SIZE_MAX);
}

int t2f_time_log__add(struct t2f_time_log *l, uint32_t g, uint64_t time_ns, uint64_t weight)
{
	struct group *q;
	uint8_t *p;
	int64_t d;
	uint64_t zz;
	bool whole;
	int err = g < l->ng && l->g[g].cap - l->g[g].len >= MAX_RECORD ? 0 : reserve(l, g);

	if (err)
		return err;
	q = &l->g[g];
	p = q->b + q->len;
	d = (int64_t)(time_ns - q->time); /* modulo 2^64, as intended */
	zz = (uint64_t)d << 1 ^ (uint64_t)(d >> 63);
	whole = zz >> 62 != 0;
	if (whole) {
		p += t2f_varint__put(p, T_WHOLE);
		p += t2f_varint__put(p, time_ns);
		p += t2f_varint__put(p, weight);
	} else {
		p += t2f_varint__put(p, zz << 2 | (weight == q->weight ? T_SAME : T_WEIGHT));
		if (weight != q->weight)
			p += t2f_varint__put(p, weight);
	}
	q->len = (size_t)(p - q->b);
	q->time = time_ns;
	q->weight = weight;
	return 0;
}

void t2f_time_log__start(const struct t2f_time_log *l, uint32_t g, struct t2f_time_cursor *k)
{
	const struct group *q = g < l->ng ? &l->g[g] : NULL;

	*k = (struct t2f_time_cursor){ q ? q->b : NULL, q ? q->b + q->len : NULL, 0, 0 };
}

void t2f_time_log__next(struct t2f_time_cursor *k, uint64_t *time_ns, uint64_t *weight)
{
	uint64_t head, zz;

	if (k->p >= k->end) {
		*time_ns = *weight = 0;
		return;
	}
	head = get_num(&k->p, k->end);
	if ((head & 3) == T_WHOLE) {
		k->time = get_num(&k->p, k->end);
		k->weight = get_num(&k->p, k->end);
	} else {
		zz = head >> 2;
		k->time += (uint64_t)(zz & 1 ? ~(zz >> 1) : zz >> 1);
		if ((head & 3) == T_WEIGHT)
			k->weight = get_num(&k->p, k->end);
	}
	*time_ns = k->time;
	*weight = k->weight;
}

int t2f_time_log__take(struct t2f_time_log *dst, struct t2f_time_log *src,
		       const uint32_t *group_map)
{
	struct t2f_time_cursor k;
	uint64_t t, w;
	int err = 0;

	for (uint32_t g = 0; g < src->ng && !err; g++) {
		if (!src->g[g].len)
			continue; /* group_map has entries for the groups src has samples of */
		t2f_time_log__start(src, g, &k);
		while (k.p < k.end && !err) {
			t2f_time_log__next(&k, &t, &w);
			err = t2f_time_log__add(dst, group_map[g], t, w);
		}
		free(src->g[g].b);
		src->g[g] = (struct group){ 0 };
	}
	return err;
}

size_t t2f_time_log__bytes(const struct t2f_time_log *l)
{
	size_t bytes = l->ng * sizeof(*l->g);

	for (size_t g = 0; g < l->ng; g++)
		bytes += l->g[g].cap;
	return bytes;
}
