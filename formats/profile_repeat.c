/* formats/profile_repeat.c: a profile whose cells may repeat (t2f_profile__repeat_cells,
 * formats/profile.h).
 *
 * Such a profile takes a merge's cells as they come, appended: no cell index to look up, grow
 * or fill, no deferred runs to scan again when a thread comes back. A (node, thread, event)
 * may then have several cells, which the writer reading the profile adds up (pprof, which
 * groups its samples anyway). Per thread, flags tell which threads' cells may repeat: cells
 * that one merge appended are distinct (src's are), and so are those adds made (looked up);
 * a thread with cells from two merges, or from a merge and adds, is flagged.
 *
 * On a whole-machine text read for pprof (h35.txt: 474K merged cells of 4,640 threads, 59
 * segments), the merges' cell step took 49-81 ms with lookups and 10-39 ms appending. */
#include "formats/profile.h"

#include "formats/profile_int.h"
#include "formats/sat.h"

enum {
	CELLS_HAS = 1,      /* the thread has cells */
	CELLS_APPENDED = 2, /* some appended by a merge, not in the cell index */
	CELLS_REPEAT = 4,   /* two of them may have one node and event */
	CELLS_MERGING = 8,  /* met by the merge running now */
};

void t2f_profile__repeat_cells(struct t2f_profile *p)
{
	p->repeat = true;
}

bool t2f_profile__repeats_cells(const struct t2f_profile *p)
{
	return p->repeat;
}

bool t2f_profile__has_repeats(const struct t2f_profile *p)
{
	return p->repeated;
}

bool t2f_profile__cells_repeat(const struct t2f_profile *p, t2f_thread_id t)
{
	return t < p->cell_flags.len && (*VEC_AT(p->cell_flags, uint8_t, t) & CELLS_REPEAT);
}

static void flag(struct t2f_profile *p, t2f_thread_id t, uint8_t f)
{
	uint8_t *at = VEC_AT(p->cell_flags, uint8_t, t);

	if ((f & CELLS_REPEAT) && !(*at & CELLS_REPEAT))
		p->repeated = true;
	*at |= f;
}

int t2f_profile__repeat_add(struct t2f_profile *p, t2f_thread_id t, bool made, uint64_t weight)
{
	int err;

	if (!t2f_sat_add_to(&p->repeat_weight, weight))
		p->capped = true;
	if (!made)
		return 0;
	err = t2f_profile__vec_reach(&p->cell_flags, 1, (size_t)t + 1);
	if (err)
		return err;
	flag(p, t, *VEC_AT(p->cell_flags, uint8_t, t) & CELLS_APPENDED ? CELLS_HAS | CELLS_REPEAT
									: CELLS_HAS);
	return 0;
}

/* Flags src cell c's thread in dst (t) as it is met by this merge: its cells repeat when it
 * had some before, or when they repeat in src. */
static void flag_merged(struct t2f_profile *dst, const struct t2f_profile *src,
			const struct t2f_cell *c, t2f_thread_id t)
{
	uint8_t f = *VEC_AT(dst->cell_flags, uint8_t, t);

	if (t2f_profile__cells_repeat(src, c->thread))
		flag(dst, t, CELLS_REPEAT);
	if (f & CELLS_MERGING)
		return;
	flag(dst, t, (f & CELLS_HAS ? CELLS_REPEAT : 0) | CELLS_HAS | CELLS_APPENDED |
			     CELLS_MERGING);
}

int t2f_profile__append_cells(struct t2f_profile *dst, const struct t2f_profile *src,
			      const struct t2f_repeat_maps *m)
{
	int err = t2f_profile__vec_reserve_n(&dst->cells, sizeof(struct t2f_cell), src->cells.len) ?:
		  t2f_profile__vec_reach(&dst->cell_flags, 1, dst->threads.len + 1);

	for (size_t i = 0; !err && i < src->cells.len; i++) {
		const struct t2f_cell *c = VEC_AT(src->cells, struct t2f_cell, i);
		t2f_thread_id t = t2f_profile__folded(dst, m->thread[c->thread]);

		flag_merged(dst, src, c, t);
		if (!t2f_sat_add_to(&dst->repeat_weight, c->weight))
			dst->capped = true; /* a sum of repeated cells may pass it */
		m->cell[i] = t2f_profile__cell_put(dst, m->node[c->node], t, m->event[c->event],
						   c->samples, c->weight);
	}
	for (size_t id = 1; !err && id < src->threads.len; id++)
		*VEC_AT(dst->cell_flags, uint8_t, t2f_profile__folded(dst, m->thread[id])) &=
			(uint8_t)~CELLS_MERGING;
	return err;
}
