/* writers/svg.h: an interactive SVG flame graph, self-contained (its script and style inline, no
 * network), with the DOM flame graph users know: text elements with the ids "title", "subtitle"
 * (when given), "details", "unzoom", "search", "ignorecase" and "matched"; a group "frames" with
 * one <g> per frame holding <title>NAME (N COUNTNAME, P%)</title>, a <rect> and a <text> label.
 * A frame whose function's source position is known (t2f_frame__fn_position: its declaration's
 * file and line, else its code's file alone) ends its title with it, after the counts, where the
 * script (which takes a title's name and weight up to its last " (") does not read it:
 * <title>NAME (N COUNTNAME, P%) at FILE:LINE</title>; a position holding " (" or a control
 * character is left out. A frame merges the frames of one display name on one path; when their
 * functions' positions differ (overloads whose argument lists were cut, static functions of one
 * name) it shows what they all share: the file when only the lines differ, else nothing.
 * The script (writers/svg_script.js) zooms on click, searches by regular expression (Ctrl-F, F3;
 * Ctrl-I toggles case), shows the hovered frame on the details line, and keeps the zoom and the
 * search in the URL (?x=&y=&s=).
 *
 * Layout: the root "all" holds one frame per thread name (comm, as in collapsed output), then the
 * stacks root first (leaf first with `reverse`), merged by display name (writers/frame_name.h,
 * collapsed style) and sorted bytewise among siblings, so x order carries no meaning. Widths are
 * proportional to the event's weight (periods, or sample counts with `weight_samples`). Frames
 * narrower than `min_width` pixels are left out with their descendants (their weight stays in the
 * parent), which bounds the output by the image width, not by the input's size. With `flamechart`
 * the siblings are in time order instead (the profile's sample log, one run of equal stacks per
 * frame), per thread.
 *
 * Names are repaired to UTF-8, stripped of control characters and XML-escaped. The output depends
 * only on the profile and the options (no clock, no randomness, no hash order).
 *
 * Differential graph (`diff` set): the shape is the profile's, and each frame's fill shows how its
 * share of the total changed against the other profile `diff` (the same display path, weighed by
 * `diff_event` with the same options): red where the drawn profile's share is larger, blue where
 * it is smaller, white where equal, the saturation proportional to the change (the largest change
 * in the graph is the most saturated). With `diff_is_after` the drawn profile is the earlier one
 * (the colours still say how AFTER differs from BEFORE). Titles read
 * "NAME (N COUNTNAME, P%; before|after M COUNTNAME, Q%; +D.DD%)": the drawn weight first (the script reads
 * it), then the other profile's, then the change of share in percentage points (after - before).
 * Frames only in the other profile are not drawn. Thread names have their spaces turned into '_'
 * (as in collapsed output), so a folded input matches the profile it was written from.
 *
 * Returns 0, -ENOMEM, or -EINVAL (flamechart without a sample log, or with `diff`); write errors surface in
 * t2f_out__finish(). Reads the profile only. A profile without samples of the event gives a
 * valid SVG that says "ERROR: No valid input".
 */
#ifndef T2F_SVG_H
#define T2F_SVG_H

#include <stdbool.h>

#include "formats/profile.h"
#include "include/trace2flame_enums.h"
#include "writers/frame_name.h"
#include "writers/out.h"

struct t2f_svg_opts {
	t2f_event_id event;        /* 0 = the first event */
	bool weight_samples;       /* sample counts instead of periods */
	const char *title;         /* NULL: "Flame Graph", "Icicle Graph" or "Flame Chart" */
	const char *subtitle;      /* NULL: none */
	const char *count_name;    /* NULL: "samples" for counts, else the event's unit */
	unsigned width;            /* image width in px; 0 = 1200 */
	double min_width;          /* px: frames narrower are left out; 0: 0.1, below 0: none is
				    * (as the library's t2f_write_options.min_width) */
	enum t2f_colors colors;    /* HOT (the default) ... KIND: user red, kernel orange,
				    * jit/managed green, inlined aqua */
	bool hash;                 /* colour from the name alone (same name, same colour across
				    * graphs); else a fixed sequence in output order */
	bool reverse;              /* stacks leaf first */
	bool icicle;               /* root at the top */
	bool flamechart;           /* time order (needs the sample log) */
	struct t2f_frame_name_opts names; /* .collapsed is forced on */
	const struct t2f_profile *diff; /* non-NULL: a differential graph against this profile */
	t2f_event_id diff_event;   /* its event (0 = the first) */
	bool diff_is_after;        /* `diff` is the later profile (the drawn one is BEFORE) */
	bool no_thread_root;       /* stacks start under "all", without their thread's name (not
				    * for flamechart) */
	t2f_event_id split_event;  /* not 0: an event of p that is part of the drawn one (off-cpu
				    * of wall): each frame is coloured by that part's share, from
				    * red (none) to blue (all), and its title gives both parts */
};

int t2f_svg__write(const struct t2f_profile *p, const struct t2f_svg_opts *o, struct t2f_out *out);

#endif
