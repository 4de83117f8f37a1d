/* writers/heatmap.h: a heat map of one event's samples over time, as an SVG image.
 *
 * Seconds run across (one column per second, from the second of the first timed sample to the
 * second of the last, in the trace's own clock: perf's seconds since boot), parts of a second
 * down (`rows` rows per second, each 1000 / rows ms; 50 rows of 20 ms by default, as FlameScope
 * draws them). A cell's colour is its weight (the event's periods summed), or its sample count
 * with weight_samples, on a scale from the lightest cell to the heaviest; cells without samples
 * are grey. Each cell's tooltip (<title>) gives its time range, samples and weight, and the
 * `--time START,STOP` argument that selects exactly its samples (both ends in ns, the stop one
 * ns before the next cell: perf script's --time keeps both ends), so a flame graph of that
 * moment is `trace2flame IN --time START,STOP -o x.svg`; a click on a cell shows that on a line
 * below, to be copied (a few lines of script, no data in them). A legend shows the scale.
 *
 * The data is the profile's time histogram (formats/time_hist.h, 10 ms buckets), which the
 * profile keeps only when asked (t2f_profile__enable_hist). Samples without a time are not
 * drawn (the subtitle counts them). Names from the input (the event, the input's name) are
 * escaped; nothing else from the input is shown.
 *
 * t2f_heatmap__check says what write would refuse, as a message for the user: no histogram or
 * no timed sample of the event (-T2F_ERR_UNSUPPORTED: folded stacks have no times), rows that do
 * not divide 100 (-EINVAL), more than T2F_HEATMAP_MAX_COLUMNS seconds (-T2F_ERR_LIMIT: the output
 * would be too wide; --time cuts a part). write returns 0, those errors, or -ENOMEM; write
 * errors surface in t2f_out__finish(). Reads the profile only.
 */
#ifndef T2F_HEATMAP_H
#define T2F_HEATMAP_H

#include <stdbool.h>
#include <stddef.h>

#include "formats/profile.h"
#include "writers/out.h"

#define T2F_HEATMAP_ROWS 50             /* rows per second by default (20 ms each) */
#define T2F_HEATMAP_MAX_COLUMNS 10000u  /* seconds a heat map spans at most */

struct t2f_heatmap_opts {
	t2f_event_id event;     /* 0 = the first event */
	bool weight_samples;    /* colour by sample counts instead of summed periods */
	unsigned rows;          /* rows per second, dividing 100; 0: T2F_HEATMAP_ROWS */
	const char *name;       /* the input's name for the title (any bytes); NULL: none */
};

int t2f_heatmap__check(const struct t2f_profile *p, const struct t2f_heatmap_opts *o, char *msg,
		       size_t msg_len);
int t2f_heatmap__write(const struct t2f_profile *p, const struct t2f_heatmap_opts *o,
		       struct t2f_out *out);

#endif
