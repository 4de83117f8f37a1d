/* formats/hashmap.c: linear probing over (32-bit hash tag, value) slots, kept ≤ 75% full.
 *
 * Keys live with the caller. A slot keeps the high 32 bits of the hash as its tag; the tag both
 * places the slot (so growing needs no key access) and filters candidates before the equality
 * callback. With fewer than 2^32 values, 32 bits of placement are enough.
 *
 * Why 75%, not 50%: eight slots share a cache line, so the longer probe runs stay within one or
 * two lines, while the table is a third smaller on average and grows (rehashing every slot)
 * half as often. On a whole-machine recording's model (538K stack nodes) that is 5% fewer
 * simulated last-level misses and 80 MiB peak RSS, not 103, for -f pprof. */
#include "formats/hashmap.h"
#include "formats/bits.h"
#include "formats/mem.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Slot arrays of this size or more are made in a reservation of their own (formats/mem.h),
 * 2 MiB-aligned, asked for huge pages: every slot is written when the array is made, so a huge
 * page holds nothing that would not be touched anyway, and a whole-machine recording's indexes,
 * which double to a few MiB each, take one fault per 2 MiB instead of 512 (malloc's blocks are
 * not 2 MiB-aligned: advice alone gave them almost none). They also grow in place (map_grow):
 * the reservation's next pages are made usable and the entries rehashed there, so a doubling
 * table is never held twice and its pages never move (moved pages fault again where the host
 * shadows the page tables). On a 1.2 GB whole-machine text (822K stack nodes) the node index's
 * growth to 16 MiB took 24 MiB while it rehashed by copy, the peak of the whole run. Where no
 * address space is given (RLIMIT_AS), slots are malloc'd and copied as they grow. */
#define SLOTS_MAP_MIN T2F_MEM_HUGE_PAGE
/* t2f_hashmap__grow_whole: slot arrays of this size or more in a reservation grown in whole
 * huge pages. A profile that segments are merged into grows its indexes from a few KiB to a
 * few MiB in twenty doublings; each malloc'd one below 2 MiB was a fresh mapping faulted page
 * by page, zeroed, and unmapped again (a TLB flush on every CPU) at the next doubling: 14 ms
 * of the 118 ms of merges on a whole-machine text read for pprof. */
#define SLOTS_WHOLE_MIN ((size_t)1 << 20)

struct slot {
	uint32_t tag;
	uint32_t value; /* 0 = empty */
};

#define SLOTS_SPAN (((size_t)1 << 32) * sizeof(struct slot)) /* a reservation: 2^32 slots */

struct t2f_hashmap {
	struct slot *slots;
	size_t mask;
	size_t count;
	size_t reserved; /* bytes of the slots' reservation; 0: malloc'd */
	bool dense;      /* t2f_hashmap__new_dense */
	bool whole;      /* t2f_hashmap__grow_whole */
};

static inline uint32_t tag_of(uint64_t hash)
{
	return (uint32_t)(hash >> 32);
}

static bool mapped(size_t cap)
{
	return cap * sizeof(struct slot) >= SLOTS_MAP_MIN;
}

/* Whether m's slots, at cap, go in a reservation. */
static bool in_reservation(const struct t2f_hashmap *m, size_t cap)
{
	return mapped(cap) || (m->whole && cap * sizeof(struct slot) >= SLOTS_WHOLE_MIN);
}

static void slots_free(struct slot *slots, size_t reserved)
{
	if (reserved)
		t2f_mem__release(slots, reserved);
	else
		free(slots);
}

/* Mapped slots: in a reservation, else malloc'd. */
static struct slot *slots_map(struct t2f_hashmap *m, size_t bytes)
{
	void *r = t2f_mem__reserve_committed(SLOTS_SPAN, bytes, m->whole);

	if (!r)
		return malloc(bytes);
	m->reserved = SLOTS_SPAN;
	return r;
}

/* The slots are zeroed by writing, not left to calloc or a fresh mapping: a fresh page that a
 * lookup reads first is mapped to the shared zero page, and the insert that then writes it takes
 * a second fault whose TLB flush interrupts every other CPU the process runs on. On a
 * whole-machine recording read with -j 2 those flushes were 5% of the CPU time, most of it in
 * the merges. */
static int slots_alloc(struct t2f_hashmap *m, size_t cap)
{
	size_t bytes = cap * sizeof(*m->slots);

	if (cap > SIZE_MAX / sizeof(*m->slots))
		return -ENOMEM;
	m->slots = in_reservation(m, cap) ? slots_map(m, bytes) : malloc(bytes);
	if (!m->slots)
		return -ENOMEM;
	memset(m->slots, 0, bytes);
	m->mask = cap - 1;
	return 0;
}

/* How many entries cap slots hold before they double. */
static size_t limit(const struct t2f_hashmap *m, size_t cap)
{
	return m->dense && mapped(cap) ? cap / 8 * 7 : cap / 4 * 3;
}

static int map_new(size_t capacity_hint, bool dense, struct t2f_hashmap **out)
{
	struct t2f_hashmap *m = calloc(1, sizeof(*m));
	size_t cap = 16;

	if (!m)
		return -ENOMEM;
	m->dense = dense;
	while (limit(m, cap) < capacity_hint && cap < ((size_t)1 << 32))
		cap *= 2;
	if (slots_alloc(m, cap)) {
		free(m);
		return -ENOMEM;
	}
	*out = m;
	return 0;
}

int t2f_hashmap__new(size_t capacity_hint, struct t2f_hashmap **out)
{
	return map_new(capacity_hint, false, out);
}

int t2f_hashmap__new_dense(size_t capacity_hint, struct t2f_hashmap **out)
{
	return map_new(capacity_hint, true, out);
}

void t2f_hashmap__free(struct t2f_hashmap *m)
{
	if (!m)
		return;
	slots_free(m->slots, m->reserved);
	free(m);
}

void t2f_hashmap__grow_whole(struct t2f_hashmap *m)
{
	m->whole = true;
}

void t2f_hashmap__clear(struct t2f_hashmap *m)
{
	memset(m->slots, 0, (m->mask + 1) * sizeof(*m->slots));
	m->count = 0;
}

uint32_t t2f_hashmap__find(const struct t2f_hashmap *m, uint64_t hash, t2f_hashmap_eq_fn eq,
			   const void *ctx)
{
	uint32_t tag = tag_of(hash);

	for (size_t i = tag & m->mask;; i = (i + 1) & m->mask) {
		const struct slot *s = &m->slots[i];

		if (!s->value)
			return 0;
		if (s->tag == tag && eq(ctx, s->value))
			return s->value;
	}
}

void t2f_hashmap__prefetch(const struct t2f_hashmap *m, uint64_t hash)
{
	__builtin_prefetch(&m->slots[tag_of(hash) & m->mask]);
}

uint32_t t2f_hashmap__candidate(const struct t2f_hashmap *m, uint64_t hash)
{
	uint32_t tag = tag_of(hash);

	for (size_t i = tag & m->mask;; i = (i + 1) & m->mask) {
		const struct slot *s = &m->slots[i];

		if (!s->value || s->tag == tag)
			return s->value;
	}
}

static void place(struct slot *slots, size_t mask, uint32_t tag, uint32_t value)
{
	size_t i = tag & mask;

	while (slots[i].value)
		i = (i + 1) & mask;
	slots[i].tag = tag;
	slots[i].value = value;
}

/* Pending marks of positions below old_cap (a bitmap). */
static bool pending(const uint64_t *pend, size_t old_cap, size_t i)
{
	return i < old_cap && t2f_bit_get(pend, i);
}

static void settle(uint64_t *pend, size_t i)
{
	pend[i / 64] &= ~((uint64_t)1 << (i % 64));
}

/* Rehashes, within slots of mask + 1, the entries of its first old_cap slots (the rest empty).
 * Every entry starts pending; each in turn takes the first slot along its probe sequence that
 * is not settled (an empty one, or a pending one whose entry then moves on in its stead) and is
 * settled there. Settled slots never empty again, so each entry's probe run from its home holds
 * only settled slots at the end, as linear probing needs. */
static void rehash_in_place(struct slot *slots, size_t old_cap, size_t mask, uint64_t *pend)
{
	for (size_t i = 0; i < old_cap; i++)
		if (slots[i].value)
			t2f_bit_set(pend, i);
	for (size_t i = 0; i < old_cap; i++) {
		struct slot e = slots[i];

		if (!pending(pend, old_cap, i))
			continue;
		settle(pend, i);
		slots[i].value = 0;
		for (;;) {
			size_t j = e.tag & mask;
			struct slot next;

			while (slots[j].value && !pending(pend, old_cap, j))
				j = (j + 1) & mask;
			next = slots[j];
			slots[j] = e;
			if (!next.value)
				break;
			settle(pend, j);
			e = next;
		}
	}
}

/* A table in a reservation doubles in place: the reservation's next pages are made usable and
 * its entries are rehashed there, with a bitmap of old_cap / 8 bytes beside it. */
static int grow_in_place(struct t2f_hashmap *m, size_t cap)
{
	size_t old_cap = m->mask + 1;
	uint64_t *pend = calloc(old_cap / 64, sizeof(*pend));
	struct slot *s = m->slots;

	if (!pend || t2f_mem__commit_in(s, cap * sizeof(*s), m->reserved, m->whole)) {
		free(pend);
		return -ENOMEM;
	}
	memset(s + old_cap, 0, (cap - old_cap) * sizeof(*s));
	m->mask = cap - 1;
	rehash_in_place(s, old_cap, m->mask, pend);
	free(pend);
	return 0;
}

static int map_grow(struct t2f_hashmap *m)
{
	struct slot *old = m->slots;
	size_t old_cap = m->mask + 1;

	if (old_cap >= ((size_t)1 << 32))
		return -ENOMEM;
	if (m->reserved)
		return grow_in_place(m, old_cap * 2);
	if (slots_alloc(m, old_cap * 2)) {
		m->slots = old;
		m->mask = old_cap - 1;
		return -ENOMEM;
	}
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].value)
			place(m->slots, m->mask, old[i].tag, old[i].value);
	free(old); /* malloc'd: not in a reservation */
	return 0;
}

int t2f_hashmap__insert(struct t2f_hashmap *m, uint64_t hash, uint32_t value)
{
	int err;

	if (m->count + 1 > limit(m, m->mask + 1)) {
		err = map_grow(m);
		if (err)
			return err;
	}
	place(m->slots, m->mask, tag_of(hash), value);
	m->count++;
	return 0;
}

size_t t2f_hashmap__count(const struct t2f_hashmap *m)
{
	return m->count;
}

/* Folded 128-bit products ("multiply, then xor the halves"): 16 bytes per step, the tail read
 * as two overlapping words, so a 50-byte frame line costs four multiplications. */
__extension__ typedef unsigned __int128 hash_u128;

static inline uint64_t mix(uint64_t a, uint64_t b)
{
	hash_u128 r = (hash_u128)a * b;

	return (uint64_t)r ^ (uint64_t)(r >> 64);
}

static inline uint64_t rd64(const unsigned char *p)
{
	uint64_t w;

	memcpy(&w, p, 8);
	return w;
}

static inline uint64_t rd32(const unsigned char *p)
{
	uint32_t w;

	memcpy(&w, p, 4);
	return w;
}

#define HASH_K0 0xa0761d6478bd642fULL
#define HASH_K1 0xe7037ed1a0b428dbULL
#define HASH_K2 0x8ebc6af09c88c6e3ULL

uint64_t t2f_hash_bytes(const void *p, size_t len)
{
	const unsigned char *b = p;
	uint64_t seed = HASH_K0 ^ mix(len ^ HASH_K1, HASH_K2);
	uint64_t a = 0, c = 0;

	if (len > 16) {
		size_t n = len;

		for (; n > 16; n -= 16, b += 16)
			seed = mix(rd64(b) ^ HASH_K1, rd64(b + 8) ^ seed);
		a = rd64(b + n - 16);
		c = rd64(b + n - 8);
	} else if (len >= 8) {
		a = rd64(b);
		c = rd64(b + len - 8);
	} else if (len >= 4) {
		a = rd32(b);
		c = rd32(b + len - 4);
	} else if (len > 0) {
		a = (uint64_t)b[0] << 16 | (uint64_t)b[len >> 1] << 8 | b[len - 1];
	}
	return mix(HASH_K2 ^ len, mix(a ^ HASH_K1, c ^ seed));
}
