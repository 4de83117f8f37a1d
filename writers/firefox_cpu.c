/* writers/firefox_cpu.c: each sample's CPU time, the threadCPUDelta column of the Firefox
 * profile (firefox_write.h). */
#include "writers/firefox_write.h"

#include "formats/derive.h"

/* Whether the samples table gets a threadCPUDelta column (ns), so that the profiler draws how
 * busy a thread was and sums its CPU time: for an event of on-CPU time each sample's period;
 * for "wall" (with sample times) each on-CPU sample's period and none for a sample that is an
 * off-CPU wait the profile kept; but not when the profile holds recorded off-CPU samples
 * (offcpu-time, cswitch), which no kept wait tells apart. Off-CPU time alone gets no column:
 * the profiler would draw no activity at all. */
bool ff_cpu_deltas(struct ff *s)
{
	uint32_t n = t2f_profile__event_count(s->p);

	if (!s->ns_time || !s->nthreads)
		return false;
	switch (t2f_derive__time_kind(s->p, s->event)) {
	case T2F_TIME_ON_CPU:
		return true;
	case T2F_TIME_WALL:
		if (!s->timed || !t2f_profile__keeps_waits(s->p))
			return false;
		for (t2f_event_id e = 1; e <= n; e++)
			if (t2f_derive__time_kind(s->p, e) == T2F_TIME_OFF_CPU_RECORDED)
				return false;
		s->cpu_waits = true;
		return true;
	default:
		return false;
	}
}

struct ff_cpu_cursor {
	const struct ff_wait *w, *end; /* the thread's waits not passed yet */
	bool first;
	bool idle;                     /* the idle task's: no CPU used */
};

/* Whether the sample at time_ns of this weight is one of the thread's waits: a wait's sample is
 * at its start, weighing its length. */
static bool ff_is_wait(const struct ff *s, struct ff_cpu_cursor *k, uint64_t time_ns,
		       uint64_t weight)
{
	while (k->w < k->end && k->w->start_ns < time_ns)
		k->w++;
	for (const struct ff_wait *w = k->w; w < k->end && w->start_ns == time_ns; w++) {
		const struct t2f_wait_span *sp = t2f_profile__wait_at(s->p, w->idx);

		if (sp->end_ns - sp->start_ns == weight)
			return true;
	}
	return false;
}

static void ff_cpu_delta(struct ff *s, struct ff_cpu_cursor *k, uint64_t ns)
{
	ff_puts(s, k->first ? "" : ",");
	k->first = false;
	ff_u64(s, k->idle ? 0 : ns);
}

/* The idle task (tid 0, "swapper"; perf script text often prints no pid): its samples are a CPU
 * idling, which the profiler would otherwise count as the busiest thread's CPU time. */
static bool ff_idle_task(const struct t2f_thread *th)
{
	return th->tid == 0 && (th->pid == 0 || th->pid == T2F_PID_UNKNOWN);
}

static void ff_sample_cpu(struct ff *s, const struct t2f_cell *c, uint64_t time_ns,
			  uint64_t weight, void *arg)
{
	struct ff_cpu_cursor *k = arg;

	(void)c;
	ff_cpu_delta(s, k, s->cpu_waits && ff_is_wait(s, k, time_ns, weight) ? 0 : weight);
}

static int ff_cpu_col(struct ff *s, const struct t2f_cell *c, const struct t2f_log_run *r,
		      void *arg)
{
	(void)c;
	ff_cpu_delta(s, arg, r->weight);
	return 0;
}

int ff_write_cpu_column(struct ff *s, t2f_thread_id t)
{
	struct ff_cpu_cursor k = { .first = true,
				   .idle = ff_idle_task(t2f_profile__thread_at(s->p, t)) };
	size_t from, to;

	if (s->waits) {
		ff_thread_waits(s, t, &from, &to);
		k.w = s->waits + from;
		k.end = s->waits + to;
	}
	ff_puts(s, "],\"threadCPUDelta\":[");
	return s->timed ? ff_each_sample(s, t, ff_sample_cpu, &k) : ff_each_run(s, t, ff_cpu_col, &k);
}
