/* writers/firefox_write.h: the Firefox writer's state while it writes, shared by its files
 * (not a public header).
 *
 * firefox.c writes the profile (meta, libs, threads, the shared tables) with the text helpers of
 * firefox_text.c, which append to s->b and drain it into the output (raw or gzip) every
 * FF_DRAIN_AT bytes; firefox_cpu.c writes the samples' CPU time column. One thread: the
 * writer's. The text helpers record their first error in s->err and do nothing after it.
 */
#ifndef T2F_FIREFOX_WRITE_H
#define T2F_FIREFOX_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/buf.h"
#include "formats/profile.h"
#include "writers/firefox.h"
#include "writers/firefox_int.h"

#define FF_DRAIN_AT (1u << 20)
#define FF_BATCH 1024u           /* log runs read at a time */
#define FF_NS_PER_MS 1000000u

/* How a run's time and weight are written (ff_weight_mode). */
enum ff_weight {
	FF_W_NS,       /* periods in nanoseconds: weights in ms ("tracing-ms"), time advances by them */
	FF_W_PERIODS,  /* periods of a counted event: weights as they are, time 1 ms a sample */
	FF_W_COUNTS,   /* no periods (1 a sample, or a folded line's count): 1 ms a count */
	FF_W_SAMPLES,  /* sample counts (weight_samples): time as the event's kind says */
};

struct ff_thread {
	t2f_thread_id id;
	uint32_t first;          /* the index of its process's first thread */
	t2f_thread_id process;   /* on that first one: the thread naming the process */
	size_t runs;             /* its samples table's length: its runs of the event in the log,
				  * or with sample times its samples of the event */
};

struct ff_wait {
	t2f_thread_id thread;
	uint64_t start_ns;
	size_t idx;              /* the profile's (t2f_profile__wait_at) */
};

struct ff {
	const struct t2f_profile *p;
	const struct t2f_firefox_opts *o;
	struct ff_tables t;
	t2f_event_id event;
	enum ff_weight mode;
	bool ns_time;            /* time advances by the ns periods (else 1 ms a unit) */
	struct t2f_buf b;
	struct t2f_buf utf8;
	struct t2f_pprof_gz *gz;
	int err;                 /* the first error of the text helpers */
	struct ff_thread *threads;
	uint32_t nthreads;
	struct t2f_log_run *runs; /* [FF_BATCH] */
	uint32_t lost_name;      /* stringArray index of the lost-samples marker's name */
	uint32_t off_name;       /* stringArray index of the off-CPU markers' name */
	bool timed;              /* samples at the times they were taken (else a made-up timeline) */
	uint64_t base_ns;        /* with timed: the time 0 ms stands for (the first sample's) */
	struct ff_wait *waits;   /* the profile's off-CPU waits by (thread, start) */
	size_t nwaits, next_wait; /* ... and the first one not written yet */
	bool cpu_deltas;         /* a threadCPUDelta column, in ns (ff_cpu_deltas) */
	bool cpu_waits;          /* ... where a sample that is a wait kept has none ("wall") */
};

/* ---- text (firefox_text.c) ---- */

void ff_put(struct ff *s, const char *p, size_t n);
void ff_puts(struct ff *s, const char *p);
void ff_u64(struct ff *s, uint64_t v);
void ff_i64(struct ff *s, int64_t v);
/* ns as milliseconds, exactly ("1.25", "3", "0.000001"), into out: its length. */
size_t ff_ms_text(char *out, size_t size, uint64_t ns);
void ff_ms(struct ff *s, uint64_t ns);
/* str[0..len) as a JSON string: ill-formed UTF-8 repaired, control characters (a terminal's
 * escape sequences among them) made spaces (formats/utf8.h), '"' and '\\' escaped. */
void ff_str(struct ff *s, const char *str, size_t len);
void ff_cstr(struct ff *s, const char *str);
void ff_pstr(struct ff *s, t2f_str_id id);

/* ---- a thread's samples (firefox.c) ---- */

typedef int (*ff_run_fn)(struct ff *s, const struct t2f_cell *c, const struct t2f_log_run *r,
			 void *arg);
typedef void (*ff_sample_fn)(struct ff *s, const struct t2f_cell *c, uint64_t time_ns,
			     uint64_t weight, void *arg);

/* Calls fn on each run of the event in thread t's log, in order, neighbours of one cell joined;
 * stops at fn's error. 0 or the first error. */
int ff_each_run(struct ff *s, t2f_thread_id t, ff_run_fn fn, void *arg);
/* With sample times: calls fn on each sample of the event in thread t's log, in order, with its
 * time and its weight. 0 or s->err. */
int ff_each_sample(struct ff *s, t2f_thread_id t, ff_sample_fn fn, void *arg);

/* Thread t's off-CPU waits, s->waits[*from, *to) (by start): threads are written in id order,
 * and the waits of the threads before t (s->next_wait on) are passed for good. */
void ff_thread_waits(struct ff *s, t2f_thread_id t, size_t *from, size_t *to);

/* ---- CPU time (firefox_cpu.c) ---- */

/* Whether the samples tables get a threadCPUDelta column; sets s->cpu_waits. Call once the
 * threads are picked and s->ns_time, s->timed and s->waits are set. */
bool ff_cpu_deltas(struct ff *s);
/* Closes the weight column and writes thread t's threadCPUDelta column but its closing ']'.
 * 0 or an error. */
int ff_write_cpu_column(struct ff *s, t2f_thread_id t);

#endif
