/* tests/unit/support/log_runs.h: a thread's logged samples as maximal runs, equal neighbours of
 * the log joined. Where the log cuts its runs is not fixed (a merge keeps each part's), so tests
 * that compare two logs compare these. Header-only (static inline); asserts nothing. */
#ifndef T2F_TEST_LOG_RUNS_H
#define T2F_TEST_LOG_RUNS_H

#include <stdbool.h>
#include <stddef.h>

#include "formats/profile.h"

struct log_runs {
	const struct t2f_profile *p;
	t2f_thread_id thread;
	size_t next, count;
};

static inline struct log_runs log_runs(const struct t2f_profile *p, t2f_thread_id thread)
{
	return (struct log_runs){ p, thread, 0, t2f_profile__thread_run_count(p, thread) };
}

/* The next maximal run (false after the last). Its samples may exceed a log run's. */
static inline bool log_runs_next(struct log_runs *r, struct t2f_sample_run *out, uint64_t *samples)
{
	if (r->next == r->count)
		return false;
	*out = t2f_profile__run_at(r->p, r->thread, r->next++);
	*samples = out->samples;
	while (r->next < r->count) {
		struct t2f_sample_run x = t2f_profile__run_at(r->p, r->thread, r->next);

		if (x.node != out->node || x.event != out->event)
			break;
		*samples += x.samples;
		out->weight += x.weight;
		r->next++;
	}
	return true;
}

#endif
