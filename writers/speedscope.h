/* writers/speedscope.h: speedscope JSON (https://www.speedscope.app/file-format-schema.json).
 *
 * One "sampled" profile per thread that has samples of the chosen event, in thread-id order, named
 * "comm (pid P, tid T)" ("comm (tid T)" for an unknown pid; "comm" alone when neither is known,
 * as for folded stacks; a comm ending in " (TID)", .nettrace's "Thread (TID)", loses it). Samples are root first, in input (time) order when the profile kept its sample
 * log, else one entry per stack. Weights are the event's weights: periods in its unit
 * (nanoseconds for cpu-clock), or for an event without periods 1 a sample or what a folded line
 * counted (unit "none"); sample counts with `weight_samples`.
 * shared.frames holds each distinct frame object once: "name" the display name (full style,
 * writers/frame_name.h); "file" and "line" where its function is (t2f_frame__fn_position: the
 * declaration's file and line, else the code's file alone), else "file" the module; each left
 * out when unknown. Frames of one function that differ only in the line of their code (the
 * frame's `line`) are one frame object, so a function is not split per source line.
 * "exporter" is "trace2flame@VERSION", "name" is `name`, "activeProfileIndex" the heaviest thread
 * that is not the kernel's idle task (pid 0; the heaviest of all when there is no other).
 * Streams its output: memory is bounded by the frames, the used stacks and the samples' order
 * (4 bytes a sample). The output does not depend on `threads`.
 * With `evented` (and the samples' times kept: t2f_profile__sample_times) each thread's profile
 * is instead an "evented" one, its samples as spans at their times, in ns
 * (writers/speedscope_evented.h); written on the calling thread.
 *
 * Returns 0, -ENOMEM, -EINVAL (event out of range) or -T2F_ERR_LIMIT (over 2^32 samples); write
 * errors surface in t2f_out__finish(), the caller's. Reads the profile only.
 */
#ifndef T2F_SPEEDSCOPE_H
#define T2F_SPEEDSCOPE_H

#include <stdbool.h>

#include "formats/profile.h"
#include "writers/out.h"

struct t2f_speedscope_opts {
	t2f_event_id event;   /* 0 = the first event */
	bool weight_samples;  /* sample counts instead of periods */
	bool addrs;           /* unresolved frames show their address (writers/frame_name.h) */
	const char *name;     /* the profile group's name (the input's name); NULL = "trace2flame" */
	unsigned threads;     /* threads formatting the samples; 0 or 1: the calling thread only */
	bool evented;         /* off-CPU or wall time: "evented" profiles of spans at their
			       * times (writers/speedscope_evented.h), when the profile kept the
			       * sample times; else "sampled" ones */
};

int t2f_speedscope__write(const struct t2f_profile *p, const struct t2f_speedscope_opts *o,
			  struct t2f_out *out);

#endif
