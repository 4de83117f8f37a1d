/* writers/speedscope_evented.h: a thread's samples of off-CPU or wall-clock time as a speedscope
 * "evented" profile: spans at their real times (writers/speedscope.h).
 *
 * Each sample of the event with a time becomes a span of its stack: a wait (every sample of
 * "off-cpu"; of "wall", a sample that follows the thread's "off-cpu" sample of the same stack,
 * time and weight in the log, as the derive stage adds them) from its time, its switch-out or
 * the start of its part inside the --time ranges, for its weight in ns; any other sample (on
 * CPU) for its period up to its time, but not before the end of a wait logged before it (the
 * period reaching back into time the thread was off CPU). The spans are taken by start time
 * (then log order); a span that begins before the one before it ended begins at that end
 * instead, and one that then ends before it begins is left out, so the events nest. Each span
 * opens its frames root first and closes them leaf first; a span that begins where the one
 * before ended keeps the frames they share open. Times ("at", startValue, endValue) are the trace's, in ns.
 *
 * Memory: a span per sample of the thread. Returns 0 or -ENOMEM. Reads the profile only.
 */
#ifndef T2F_SPEEDSCOPE_EVENTED_H
#define T2F_SPEEDSCOPE_EVENTED_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/profile.h"
#include "writers/out.h"

struct t2f_ss_evented_opts {
	t2f_event_id event;           /* the event written */
	bool all_waits;               /* every sample is a wait (event "off-cpu") */
	t2f_event_id waits;           /* else the event whose samples tell waits ("off-cpu"), 0 */
	const uint32_t *frame_shared; /* per frame id: its index in shared.frames + 1 */
};

/* Writes thread t's profile after its name: "unit":"nanoseconds","startValue":S,
 * "endValue":E,"events":[...]} */
int t2f_ss_evented__write(const struct t2f_profile *p, t2f_thread_id t,
			  const struct t2f_ss_evented_opts *o, struct t2f_out *out);

#endif
