/* formats/profile_left.c: the addresses frames were made without (t2f_profile__leave_addr,
 * formats/profile.h), a set of (frame, address) pairs in their order of first use. */
#include "formats/profile.h"

#include <errno.h>
#include <stdlib.h>

#include "formats/hashmap.h"
#include "formats/profile_int.h"

struct left_probe {
	const struct t2f_profile *p;
	struct t2f_left_addr key;
};

static bool left_eq(const void *ctx, uint32_t v)
{
	const struct left_probe *q = ctx;
	const struct t2f_left_addr *e = VEC_AT(q->p->lefts, struct t2f_left_addr, v - 1);

	return e->frame == q->key.frame && e->addr == q->key.addr;
}

static uint64_t left_hash(t2f_frame_id frame, uint64_t addr)
{
	return t2f_hash_u64(addr ^ ((uint64_t)frame << 40 | frame));
}

/* t2f_profile__leave_addr with the pair's hash h (left_hash), p's index made. */
static int leave_hashed(struct t2f_profile *p, t2f_frame_id frame, uint64_t addr, uint64_t h)
{
	struct left_probe q = { p, { frame, addr } };
	int err;

	if (t2f_hashmap__find(p->left_ix, h, left_eq, &q))
		return 0;
	if (t2f_profile__frames_full(p)) /* a left address counts as the frame it would be */
		return -T2F_ERR_LIMIT;
	if (p->lefts.len >= UINT32_MAX - 1)
		return -ENOMEM;
	err = t2f_profile__vec_reserve_n(&p->lefts, sizeof(q.key), 1);
	if (err)
		return err;
	*VEC_AT(p->lefts, struct t2f_left_addr, p->lefts.len) = q.key;
	p->lefts.len++;
	return t2f_hashmap__insert(p->left_ix, h, (uint32_t)p->lefts.len);
}

int t2f_profile__leave_addr(struct t2f_profile *p, t2f_frame_id frame, uint64_t addr)
{
	if (!p->left_ix && t2f_hashmap__new(1024, &p->left_ix))
		return -ENOMEM;
	return leave_hashed(p, frame, addr, left_hash(frame, addr));
}

size_t t2f_profile__left_addr_count(const struct t2f_profile *p)
{
	return p->lefts.len;
}

t2f_frame_id t2f_profile__left_addr_frame(const struct t2f_profile *p, size_t i)
{
	return VEC_AT(p->lefts, struct t2f_left_addr, i)->frame;
}

#define LEFT_AHEAD 8 /* pairs between asking for a slot and for the entry it names */

/* src's pair i mapped into dst: its hash there. */
static uint64_t mapped_left_hash(const struct t2f_profile *src, const t2f_frame_id *frame_map,
				 size_t i)
{
	const struct t2f_left_addr *e = VEC_AT(src->lefts, struct t2f_left_addr, i);

	return left_hash(frame_map[e->frame], e->addr);
}

/* Asks for the slot of the pair 2 * LEFT_AHEAD on, and for the entry its slot names of the one
 * LEFT_AHEAD on (the slot is there by then): the lookups, one per pair, otherwise wait for
 * each miss in turn (ci5k.txt: 203K pairs merged, 72K kept). ring: the hashes of the pairs
 * ahead, each made once. */
static void merge_lefts_ahead(const struct t2f_profile *dst, const struct t2f_profile *src,
			      const t2f_frame_id *frame_map, size_t i, uint64_t *ring)
{
	size_t far = i + 2 * LEFT_AHEAD, near = i + LEFT_AHEAD;
	uint32_t c;

	if (far < src->lefts.len) {
		ring[far % (2 * LEFT_AHEAD)] = mapped_left_hash(src, frame_map, far);
		t2f_hashmap__prefetch(dst->left_ix, ring[far % (2 * LEFT_AHEAD)]);
	}
	if (near < src->lefts.len &&
	    (c = t2f_hashmap__candidate(dst->left_ix, ring[near % (2 * LEFT_AHEAD)])))
		__builtin_prefetch(VEC_AT(dst->lefts, struct t2f_left_addr, c - 1));
}

int t2f_profile__merge_lefts(struct t2f_profile *dst, const struct t2f_profile *src,
			     const t2f_frame_id *frame_map)
{
	uint64_t ring[2 * LEFT_AHEAD];
	int err = 0;

	if (src->lefts.len && !dst->left_ix && t2f_hashmap__new(1024, &dst->left_ix))
		return -ENOMEM;
	for (size_t i = 0; i < src->lefts.len && i < 2 * LEFT_AHEAD; i++)
		ring[i % (2 * LEFT_AHEAD)] = mapped_left_hash(src, frame_map, i);
	for (size_t i = 0; i < src->lefts.len && !err; i++) {
		const struct t2f_left_addr *e = VEC_AT(src->lefts, struct t2f_left_addr, i);
		uint64_t h = ring[i % (2 * LEFT_AHEAD)]; /* before the slot takes a pair ahead's */

		merge_lefts_ahead(dst, src, frame_map, i, ring);
		err = leave_hashed(dst, frame_map[e->frame], e->addr, h);
	}
	return err;
}

void t2f_profile__free_lefts(struct t2f_profile *p)
{
	t2f_profile__vec_free(&p->lefts);
	t2f_hashmap__free(p->left_ix);
	p->lefts = (struct vec){ 0 };
	p->left_ix = NULL;
}
