/* formats/profile_defer.c: cells a merge appends without the cell index (profile_int.h,
 * t2f_profile__cell_defer), indexed when their thread is looked up again.
 *
 * A merge's cells of threads new to the profile cannot be in the index, and most such threads
 * (short processes) never come back: on a whole-machine text read for pprof, 47% of the merged
 * cells (224K of 474K) belong to threads no later segment has. Each merge's deferred cells form
 * a run [lo, hi) of the cell table; `defer_of` gives each thread with deferred cells its run
 * (+ 1). Threads coming back are indexed together, one scan of their run; a run's third scan
 * indexes all it has left, so the scans read each cell at most three times. */
#include "formats/profile.h"

#include <errno.h>
#include <stdlib.h>

#include "formats/hashmap.h"
#include "formats/profile_int.h"

struct defer_run {
	uint32_t lo, hi; /* cells; hi follows the open run's last */
	uint32_t scans;
	uint32_t seen; /* the undefer call that listed it last */
};

#define WANTED 0x80000000u /* in defer_of: to index now */
#define LAST_SCAN 3

static uint32_t *defer_of(const struct t2f_profile *p, t2f_thread_id t)
{
	return VEC_AT(p->defer_of, uint32_t, t);
}

int t2f_profile__defer_begin(struct t2f_profile *p)
{
	int err = t2f_profile__vec_reserve_n(&p->defer_runs, sizeof(struct defer_run), 1);

	if (err)
		return err;
	*VEC_AT(p->defer_runs, struct defer_run, p->defer_runs.len) =
		(struct defer_run){ .lo = (uint32_t)p->cells.len, .hi = (uint32_t)p->cells.len };
	p->defer_open = true;
	return 0;
}

void t2f_profile__defer_end(struct t2f_profile *p)
{
	const struct defer_run *r;

	if (!p->defer_open)
		return;
	r = VEC_AT(p->defer_runs, struct defer_run, p->defer_runs.len);
	p->defer_runs.len += r->hi > r->lo; /* kept when it has cells */
	p->defer_open = false;
}

int t2f_profile__cell_defer(struct t2f_profile *p, t2f_node_id node, t2f_thread_id thread,
			    t2f_event_id event, uint64_t samples, uint64_t weight, uint32_t *idx)
{
	int err = p->defer_open ? 0 : -EINVAL;

	err = err ?: t2f_profile__vec_reach(&p->defer_of, sizeof(uint32_t), (size_t)thread + 1) ?:
	      t2f_profile__vec_reserve_n(&p->cells, sizeof(struct t2f_cell), 1);
	if (!err && p->repeat)
		err = t2f_profile__repeat_add(p, thread, true, weight);

	if (err)
		return err;
	*idx = t2f_profile__cell_put(p, node, thread, event, samples, weight);
	VEC_AT(p->defer_runs, struct defer_run, p->defer_runs.len)->hi = (uint32_t)p->cells.len;
	*defer_of(p, thread) = (uint32_t)p->defer_runs.len + 1;
	return 0;
}

/* Whether run r's cell c is to be indexed now (all: every cell the run still defers). */
static bool to_index(const struct t2f_profile *p, const struct t2f_cell *c, uint32_t r, bool all)
{
	uint32_t d = *defer_of(p, c->thread);

	return (d & ~WANTED) == r + 1 && (all || (d & WANTED));
}

/* Indexes run r's cells of the wanted threads, or all its deferred cells on its last scan. */
static int scan_run(struct t2f_profile *p, uint32_t r)
{
	struct defer_run *run = VEC_AT(p->defer_runs, struct defer_run, r);
	bool all = ++run->scans >= LAST_SCAN;
	int err = 0;

	for (uint32_t i = run->lo; i < run->hi && !err; i++) {
		const struct t2f_cell *c = VEC_AT(p->cells, struct t2f_cell, i);

		if (to_index(p, c, r, all))
			err = t2f_hashmap__insert(
				p->cell_ix, t2f_profile__cell_hash(c->node, c->thread, c->event),
				i + 1);
	}
	if (all && !err) {
		for (uint32_t i = run->lo; i < run->hi; i++) {
			const struct t2f_cell *c = VEC_AT(p->cells, struct t2f_cell, i);

			if (to_index(p, c, r, true))
				*defer_of(p, c->thread) = 0;
		}
		run->lo = run->hi;
	}
	return err;
}

int t2f_profile__undefer(struct t2f_profile *p, const t2f_thread_id *threads, size_t n)
{
	uint32_t call = ++p->defer_calls;
	int err = 0;

	for (size_t i = 0; i < n; i++) {
		uint32_t *d = defer_of(p, threads[i]);

		if (*d)
			*d |= WANTED;
	}
	for (size_t i = 0; i < n && !err; i++) {
		uint32_t d = *defer_of(p, threads[i]);
		struct defer_run *run;

		if (!(d & WANTED))
			continue;
		run = VEC_AT(p->defer_runs, struct defer_run, (d & ~WANTED) - 1);
		if (run->seen != call) {
			run->seen = call;
			err = scan_run(p, (d & ~WANTED) - 1);
		}
	}
	if (err) { /* the index is part-made: built again whole on the next lookup */
		t2f_profile__drop_indexes(p);
		return err;
	}
	for (size_t i = 0; i < n; i++)
		*defer_of(p, threads[i]) = 0;
	return 0;
}

void t2f_profile__defer_forget(struct t2f_profile *p)
{
	p->defer_of.len = 0;
	p->defer_runs.len = 0;
	p->defer_open = false;
}

void t2f_profile__defer_free(struct t2f_profile *p)
{
	t2f_profile__vec_free(&p->defer_of);
	t2f_profile__vec_free(&p->defer_runs);
}
