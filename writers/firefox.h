/* writers/firefox.h: the Firefox Profiler's processed profile (JSON, preprocessedProfileVersion
 * 70; the profiler upgrades it on load).
 *
 * One thread per profile thread that has samples of the chosen event, in thread-id order; the
 * threads of one pid form one process (pid "P", or "P.I" for a thread of input I > 0 of a batch;
 * "unknown" when the input gave none), named by the comm of its last thread whose tid is the
 * pid (after an exec, the program's), else of its first. The stack, frame and function tables
 * are shared by every thread:
 * - a stack per used stack node, parents first;
 * - a frame per (frame, inline depth): its address in its module's file when the profile kept
 *   one (-1 else), its lib, its inline depth (inlined frames count up from the function holding
 *   them), its category by kind (User, Kernel, JIT, .NET managed; an inlined frame inherits its
 *   holder's) and the line of its code;
 * - a function per distinct (display name, lib, declaration file and line): full-style names
 *   (writers/frame_name.h), the source file in `sources`;
 * - a lib and a resource per module a frame names, with the recorded build-id as codeId and as
 *   breakpadId (its first 16 bytes as a GUID, age 0).
 * Samples are in the sample log's order; with sample times (t2f_profile__enable_sample_times)
 * each sample is one, at its time in ms after the profile's first sample (a sample without a time
 * at the one before's), else each of the log's runs is one, the runs following each other from 0
 * (folded stacks). Weights: periods in milliseconds (weightType "tracing-ms") for an event
 * counted in nanoseconds, else the event's weights (weightType "samples"); sample counts with
 * `weight_samples`. The profile's off-CPU waits (t2f_profile__keep_waits) are interval markers
 * "Off-CPU" of their thread (schema trace2flame-off-cpu: state, duration) by start time, on the
 * threads written. What perf lost is a marker on the first thread (an interval over the lost
 * records' times with sample times and such times, else an instant at 0) (a profile without samples of the event has one thread, "no
 * samples", without samples: the profiler loads no profile without threads). Output is gzip-compressed (mtime 0) with `gzip`.
 * Deterministic: the bytes do not depend on threads or timing.
 *
 * Returns 0, -ENOMEM, -EINVAL (event out of range, or a profile without a sample log),
 * -T2F_ERR_LIMIT or -EIO (deflate failed); write errors surface in t2f_out__finish(), the caller's.
 * Reads the profile only. Not thread safe (one call per profile at a time).
 */
#ifndef T2F_FIREFOX_H
#define T2F_FIREFOX_H

#include <stdbool.h>

#include "formats/profile.h"
#include "writers/out.h"

struct t2f_firefox_opts {
	t2f_event_id event;   /* 0 = the first event */
	bool weight_samples;  /* sample counts instead of periods */
	bool addrs;           /* unresolved frames show their address (writers/frame_name.h) */
	bool gzip;            /* compress the output (an output named *.gz) */
	const char *name;     /* the profile's product name (the input's name); NULL = "trace2flame" */
};

int t2f_firefox__write(const struct t2f_profile *p, const struct t2f_firefox_opts *o,
		       struct t2f_out *out);

#endif
