/* writers/collapsed.h: collapsed ("folded") stacks, as flamegraph.pl and inferno read them.
 *
 * One line per distinct stack: "root;frame;...;leaf N\n", root first, lines sorted bytewise, equal
 * lines merged. The root frame is the thread's comm with spaces as '_' ("comm-PID" with `pid`,
 * "comm-PID/TID" with `tid`, '?' for an unknown pid). N is the event's summed weight (period), or
 * the sample count with `weight_samples`. Only one event is written: `event`, or the first event
 * of the profile when 0. Frame names follow writers/frame_name.h (collapsed style).
 *
 * The frames are named and the lines' texts written in up to `threads` parts at once (from 16384
 * frames or lines; writers/par_for.h); the output does not depend on `threads`. The lines' order
 * is worked out a name at a time (writers/name_keys.h), not by comparing whole lines.
 *
 * Returns 0 or -ENOMEM; write errors surface in t2f_out__finish(). Reads the profile only.
 */
#ifndef T2F_COLLAPSED_H
#define T2F_COLLAPSED_H

#include <stdbool.h>

#include "formats/profile.h"
#include "writers/frame_name.h"
#include "writers/out.h"

struct t2f_collapsed_opts {
	t2f_event_id event;     /* 0 = the first event */
	bool weight_samples;    /* count samples instead of summing periods */
	bool pid, tid;          /* root frame comm-PID / comm-PID/TID */
	struct t2f_frame_name_opts names; /* .collapsed is forced on */
	unsigned threads;       /* threads naming, writing and sorting; 0 or 1: the calling thread
				 * only (names.threads is set from it) */
};

int t2f_collapsed__write(const struct t2f_profile *p, const struct t2f_collapsed_opts *o,
			 struct t2f_out *out);

#endif
