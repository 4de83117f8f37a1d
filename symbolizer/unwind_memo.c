/* symbolizer/unwind_memo.c: unwinds already done, reused (unwind_memo.h). */
#include "symbolizer/unwind_memo.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define UW_MEMO_SLOTS (1u << 14)
#define UW_MEMO_FRAMES 128      /* frames recorded per unwind (the rest are not reused) */
#define UW_MEMO_READS 1024      /* reads recorded per unwind (an unwind past it is not kept) */

struct uw_read {                /* one memory read of the unwinder, in order */
	uint64_t addr, value;
	bool ok;
};

struct uw_entry {
	uint64_t serial;        /* 0: empty or being recorded */
	struct uw_key key;      /* key.stack: not kept */
	size_t n_frames, n_ips, n_reads;
	bool overflow;          /* more reads than kept */
	struct uw_state st[UW_MEMO_FRAMES];
	uint32_t reads[UW_MEMO_FRAMES];   /* the first read from frame k on */
	size_t before[UW_MEMO_FRAMES];    /* ips written before frame k */
	struct uw_read log[UW_MEMO_READS];
	uint64_t ips[UW_MEMO_FRAMES];
	enum t2f_unwind_stop why;
	uint64_t stop_pc;
};

struct uw_slot {
	uint64_t serial;
	uint32_t entry, frame;
};

struct uw_memo {
	struct uw_entry e[UW_MEMO_ENTRIES];
	struct uw_slot *slots;
	uint64_t serial;
	uint32_t next;          /* the entry recorded next */
	bool recording;
};

int uw_memo__new(struct uw_memo **out)
{
	struct uw_memo *m = calloc(1, sizeof(*m));

	if (m)
		m->slots = calloc(UW_MEMO_SLOTS, sizeof(*m->slots));
	if (!m || !m->slots) {
		free(m);
		return -ENOMEM;
	}
	*out = m;
	return 0;
}

void uw_memo__free(struct uw_memo *m)
{
	if (!m)
		return;
	free(m->slots);
	free(m);
}

static uint32_t uw_slot_of(uint64_t session, const struct uw_state *s)
{
	uint64_t h = s->pc * 0x9e3779b97f4a7c15ull ^ session * 0xc2b2ae3d27d4eb4full ^
		     s->regs[7] * 0x165667b19e3779f9ull ^ s->regs[31];

	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return (uint32_t)(h >> 50) & (UW_MEMO_SLOTS - 1);
}

void uw_memo__begin(struct uw_memo *m, const struct uw_key *k)
{
	struct uw_entry *e = &m->e[m->next];

	e->serial = 0;
	e->key = *k;
	e->key.stack = NULL;
	e->n_frames = 0;
	e->n_reads = 0;
	e->overflow = false;
	m->recording = true;
}

void uw_memo__frame(struct uw_memo *m, const struct uw_state *s, size_t ips_before)
{
	struct uw_entry *e = &m->e[m->next];

	if (!m->recording || e->n_frames == UW_MEMO_FRAMES)
		return;
	e->st[e->n_frames] = *s;
	e->before[e->n_frames] = ips_before;
	e->reads[e->n_frames] = (uint32_t)e->n_reads;
	e->n_frames++;
}

void uw_memo__read(struct uw_memo *m, uint64_t addr, bool ok, uint64_t value)
{
	struct uw_entry *e = &m->e[m->next];

	if (!m->recording || !e->n_frames) /* reads before the first frame recorded: not needed */
		return;
	if (e->n_reads == UW_MEMO_READS) {
		e->overflow = true;
		return;
	}
	e->log[e->n_reads++] = (struct uw_read){ addr, ok ? value : 0, ok };
}

void uw_memo__end(struct uw_memo *m, const uint64_t *ips, size_t n, enum t2f_unwind_stop why,
		  uint64_t stop_pc)
{
	struct uw_entry *e = &m->e[m->next];

	if (!m->recording)
		return;
	m->recording = false;
	if (n > UW_MEMO_FRAMES || !e->n_frames || e->overflow)
		return;
	memcpy(e->ips, ips, n * sizeof(*ips));
	e->n_ips = n;
	e->why = why;
	e->stop_pc = stop_pc;
	e->serial = ++m->serial;
	for (uint32_t k = 0; k < e->n_frames; k++)
		m->slots[uw_slot_of(e->key.session, &e->st[k])] =
			(struct uw_slot){ e->serial, m->next, k };
	m->next = (m->next + 1) % UW_MEMO_ENTRIES;
}

static bool uw_same_state(const struct uw_state *a, const struct uw_state *b)
{
	if (a->pc != b->pc || a->have != b->have)
		return false;
	for (unsigned r = 0; r < T2F_UNWIND_NREGS; r++)
		if ((a->have & (1ull << r)) && a->regs[r] != b->regs[r])
			return false;
	return true;
}

/* Whether each read e's unwind made from log[from] on gives the same in k's copy: the same
 * value, or the same failure. */
static bool uw_same_reads(const struct uw_entry *e, const struct uw_key *k, uint32_t from)
{
	for (size_t i = from; i < e->n_reads; i++) {
		const struct uw_read *r = &e->log[i];
		bool in = r->addr >= k->sp0 && r->addr <= k->end && k->end - r->addr >= 8;
		uint64_t v;

		if (in != r->ok)
			return false;
		if (!in)
			continue;
		memcpy(&v, k->stack + (r->addr - k->sp0), 8);
		if (v != r->value)
			return false;
	}
	return true;
}

bool uw_memo__find(const struct uw_memo *m, const struct uw_key *k, const struct uw_state *s,
		   struct uw_hit *out)
{
	const struct uw_slot *sl = &m->slots[uw_slot_of(k->session, s)];
	const struct uw_entry *e;

	if (!sl->serial)
		return false;
	e = &m->e[sl->entry];
	/* an unwind cut by the frame limit may have gone on from a shallower frame */
	if (e->serial != sl->serial || e->why == T2F_UNWIND_CAP || e->key.session != k->session ||
	    e->key.gen != k->gen || !uw_same_state(&e->st[sl->frame], s) ||
	    !uw_same_reads(e, k, e->reads[sl->frame]))
		return false;
	out->ips = e->ips + e->before[sl->frame];
	out->n = e->n_ips - e->before[sl->frame];
	out->why = e->why;
	out->stop_pc = e->stop_pc;
	return true;
}
