/* formats/derive.h: events derived from the sample stream before the profile aggregates it:
 * off-CPU time and wall-clock time (docs/design.md §3, "Derived events").
 *
 * A reader that finds a derive stage on its profile (t2f_profile__derive: NULL unless a derived
 * event was asked for, so plain conversions pay one test per record) hands it, in time order
 * per thread, what the derived events need:
 *
 * - every sample it added (t2f_derive__sample): samples of a time-based event (unit
 *   nanoseconds: cpu-clock, task-clock, .nettrace's cpu) are the on-CPU part of "wall";
 *   samples of perf's own `offcpu-time` event (`perf record --off-cpu`, period in ns) and of
 *   .nettrace's `cswitch` (ns off CPU) are off-CPU time as they are;
 * - each `sched:sched_switch` sample whose prev_pid is the thread: it goes off CPU then, in the
 *   stack the sample recorded, in the state prev_state gives (t2f_derive__switch_out);
 * - each switch-in of a thread (t2f_derive__switch_in): a sched_switch whose next_pid it is,
 *   or a PERF_RECORD_SWITCH in.
 *
 * Per thread (keyed by tid) a wait opens at a switch-out and closes at the thread's next
 * switch-in: the time between is a sample of "off-cpu" (and of "wall") in the switch-out's
 * stack, weighted in nanoseconds. A switch-in with no wait open (the first, or a second one)
 * closes nothing; a switch-out while a wait is open (its switch-in never seen) drops the open
 * wait, counted; t2f_derive__end counts the waits still open at the end of an input and forgets
 * them. Nothing is guessed. When the profile keeps waits (t2f_profile__keep_waits, before the
 * stage is made), each closed wait is also handed to it as a span (t2f_profile__add_wait).
 * With --time ranges (t2f_derive__clip) only the parts of a wait inside them count.
 *
 * Ownership: the profile owns its derive stage (t2f_profile__enable_derive). Not thread safe:
 * called by the thread that adds samples (t2f_profile__add_sample's); t2f_derive__segment
 * reads whole's options only (fixed once made), so segments may be made while whole is
 * merged into.
 */
#ifndef T2F_DERIVE_H
#define T2F_DERIVE_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/profile.h"

enum t2f_derive_kind {
	T2F_DERIVE_OFF_CPU = 1u << 0, /* event "off-cpu" */
	T2F_DERIVE_WALL = 1u << 1,    /* event "wall": on-CPU ns + off-CPU ns */
};

/* What an event's samples measure in time, by its name and unit (an event not in nanoseconds
 * measures none, but perf's `offcpu-time`, whatever unit its reader gave it): the derived
 * "wall" both on- and off-CPU time; the derived "off-cpu" off-CPU time; `offcpu-time` (perf
 * record --off-cpu) and .nettrace's `cswitch` off-CPU time as recorded, each sample a wait of
 * its own; any other (cpu-clock, task-clock, .nettrace's cpu) on-CPU time. */
enum t2f_time_kind {
	T2F_TIME_NONE,
	T2F_TIME_ON_CPU,
	T2F_TIME_OFF_CPU,
	T2F_TIME_OFF_CPU_RECORDED,
	T2F_TIME_WALL,
};
enum t2f_time_kind t2f_derive__time_kind(const struct t2f_profile *p, t2f_event_id event);

/* Thread states at a switch-out (sched_switch's prev_state), as bits of a selection. */
enum t2f_cpu_state {
	T2F_STATE_R = 1u << 0,     /* runnable: preempted ("R", "R+") */
	T2F_STATE_S = 1u << 1,     /* interruptible sleep */
	T2F_STATE_D = 1u << 2,     /* uninterruptible sleep (disk, some locks) */
	T2F_STATE_OTHER = 1u << 3, /* stopped, traced, dead, parked, idle ... */
	T2F_STATE_ALL = 0xf,
};

/* The state perf script prints ("S", "R+", "D|K"): its first letter's. */
unsigned t2f_cpu_state_of_text(const char *s, size_t len);
/* The state of a sched_switch's numeric prev_state, as its print format names it: the kernel's
 * TASK_REPORT bits (0x1 S, 0x2 D, 0x4 .. 0x80 the rest) or none: R; the TASK_REPORT_MAX bit
 * (0x100) only adds "+" (preempted). */
unsigned t2f_cpu_state_of_bits(uint64_t prev_state);
/* "S,D" or "SD" (letters R, S, D, O for other; case-insensitive; ',' or ' ' between): the
 * selection in *mask, or false for any other character or an empty list. */
bool t2f_cpu_states_parse(const char *s, unsigned *mask);

struct t2f_derive_opts {
	unsigned kinds;   /* enum t2f_derive_kind */
	unsigned states;  /* enum t2f_cpu_state: which switch-outs open a wait (0: all) */
};

/* What an input's derive stage saw (t2f_derive__end). */
struct t2f_derive_counts {
	uint64_t samples;     /* samples the stage added (to "off-cpu", "wall") */
	uint64_t waits;       /* waits closed: derived off-CPU spans */
	uint64_t open_at_end; /* waits still open when the input ended (left out) */
	uint64_t no_switch_in; /* a wait dropped by its thread's next switch-out (left out) */
	uint64_t not_selected; /* switch-outs in a state not selected */
	uint64_t undecoded;   /* sched_switch samples whose payload could not be read (left out) */
};

struct t2f_derive;

/* Both 0 or a negative error (-ENOMEM, -T2F_ERR_LIMIT: the profile's). */
int t2f_derive__sample(struct t2f_derive *d, t2f_node_id node, t2f_thread_id thread,
		       t2f_event_id event, uint64_t weight, uint64_t time_ns);
int t2f_derive__switch_out(struct t2f_derive *d, int64_t tid, uint64_t time_ns, t2f_node_id node,
			   t2f_thread_id thread, unsigned state);
int t2f_derive__switch_in(struct t2f_derive *d, int64_t tid, uint64_t time_ns);
/* The --time ranges of the input about to be read (formats/sample_filter.h; sf NULL or without
 * ranges: none): a wait then counts only its parts inside them, each part (its overlap with a
 * range; ranges that overlap or touch as one) a sample of its own at the part's start, and a
 * span when the profile keeps them; a range START,STOP holds the ns START to STOP, both
 * included. The readers still hand over the sched_switch samples outside the ranges (their
 * switches, without the sample). Copied; forgotten at t2f_derive__end; d NULL is fine. 0 or
 * -ENOMEM. */
struct t2f_sample_filter;
int t2f_derive__clip(struct t2f_derive *d, const struct t2f_sample_filter *sf);
/* A sched_switch sample whose payload the reader could not decode: counted. */
void t2f_derive__undecoded(struct t2f_derive *d);
/* The input ended: counts the waits still open, forgets every wait, and gives the counts of
 * the input (then zeroed). */
void t2f_derive__end(struct t2f_derive *d, struct t2f_derive_counts *out);

/* Reading an input in consecutive segments, each into a profile of its own (the parallel
 * perf script reader): t2f_derive__segment gives segment profile seg a derive stage like the
 * one of the profile `whole` will be merged into (none when whole has none); it keeps each
 * thread's first switch in the segment (a switch-in may close, a switch-out drops, a wait an
 * earlier segment left open) and leaves the waits open at the segment's end open.
 * t2f_derive__merge merges seg into whole (t2f_profile__merge; with derive stages on both):
 * the waits whole has open meet the segment's first switches, the samples they derive placed
 * where one-thread reading adds them, and the segment's open waits stay open in whole, so that
 * merging the segments in order gives what reading the input whole gives, samples, ids, order
 * and counts. That holds but for a wait closed in the segment of a thread whose samples the
 * segment logged before (t2f_profile__enable_log): t2f_derive__merge_in_order says so, and
 * the segment is then to be read again in order, into whole. 0 or a negative error
 * (t2f_profile__merge's: whole is then to be discarded). */
int t2f_derive__segment(struct t2f_profile *seg, const struct t2f_profile *whole);
bool t2f_derive__merge_in_order(const struct t2f_profile *whole, const struct t2f_profile *seg);
int t2f_derive__merge(struct t2f_profile *whole, struct t2f_profile *seg);

/* For formats/profile.c. */
int t2f_derive__new(struct t2f_profile *p, const struct t2f_derive_opts *o,
		    struct t2f_derive **out);
void t2f_derive__free(struct t2f_derive *d);

#endif
