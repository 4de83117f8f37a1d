/* formats/profile_vec.c: the profile's growable tables (struct vec, formats/profile_int.h):
 * malloc'd while small, then grown in a reservation whose pages never move. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/grow.h"
#include "formats/mem.h"
#include "formats/profile_int.h"

/* A table past VEC_IN_PLACE bytes grows in a reservation (formats/mem.h) of VEC_SPAN, or of
 * room for UINT32_MAX elements when that is less or when it outgrows VEC_SPAN: its pages are
 * not moved as it grows. On a VM whose host shadows the page tables (the benchmark machine of
 * docs/performance.md), a whole-machine text's cells moved by realloc took 4-12 ms more to read
 * once afterwards. */
#define VEC_IN_PLACE ((size_t)2 << 20)
#define VEC_SPAN ((size_t)64 << 30)
/* The tables of a profile that others are merged into (t2f_profile__grow_whole) go in a
 * reservation from this size on, committed in whole huge pages: they grow to MiBs by doubling,
 * and page by page each doubling faulted in its 4 KiB pages one by one. */
#define VEC_WHOLE_MIN ((size_t)1 << 20)

/* 0, -ENOMEM, or 1 when no address space was given or made usable (the table then grows by
 * realloc). */
static int vec_in_place(struct vec *v, size_t elem, size_t cap)
{
	size_t most = elem * (size_t)UINT32_MAX, span = most < VEC_SPAN ? most : VEC_SPAN;
	void *r;

	if (v->reserved && cap * elem <= v->reserved)
		return t2f_mem__commit_in(v->data, cap * elem, v->reserved, v->whole);
	if (cap * elem > span)
		span = most;
	r = t2f_mem__reserve_committed(span, cap * elem, v->whole);
	if (!r)
		return v->reserved ? -ENOMEM : 1;
	if (v->len) /* an empty table may have no block yet */
		memcpy(r, v->data, v->len * elem);
	t2f_profile__vec_free(v);
	v->data = r;
	v->reserved = span;
	return 0;
}

int t2f_profile__vec_reserve_n(struct vec *v, size_t elem, size_t n)
{
	size_t cap = v->cap ? v->cap : 64;
	int err;

	if (n <= v->cap - v->len)
		return 0;
	if (v->len > UINT32_MAX || n > UINT32_MAX - v->len)
		return -T2F_ERR_LIMIT;
	while (cap < v->len + n)
		cap = cap > UINT32_MAX / 2 ? UINT32_MAX : cap * 2;
	if (cap * elem >= (v->whole ? VEC_WHOLE_MIN : VEC_IN_PLACE) &&
	    (err = vec_in_place(v, elem, cap)) <= 0) {
		if (!err)
			v->cap = cap;
		return err;
	}
	err = t2f_grow(&v->data, &v->cap, v->len, n, elem, 64, UINT32_MAX);
	if (!err)
		t2f_mem__huge(v->data);
	return err;
}

int t2f_profile__vec_reach(struct vec *v, size_t elem, size_t len)
{
	size_t old = v->len;
	int err;

	if (len <= old)
		return 0;
	err = t2f_profile__vec_reserve_n(v, elem, len - old);
	if (err)
		return err;
	memset((char *)v->data + old * elem, 0, (len - old) * elem);
	v->len = len;
	return 0;
}

void t2f_profile__vec_free(struct vec *v)
{
	if (v->reserved)
		t2f_mem__release(v->data, v->reserved);
	else
		free(v->data);
}
