/* pipeline/writer_table.h: the output formats, one descriptor each.
 *
 * A descriptor says what a format is called (-f NAME, the file extensions that pick it, the one
 * --each gives), what the profile must keep while it is read for it (the sample log, sample
 * times, each sample's time, off-CPU waits, the time histogram, every frame's address, argument
 * lists), which options change its output (the others are warned of), and how it is written.
 * Adding a format is a value at the end of enum t2f_format (include/trace2flame.h) and its
 * descriptor at the end of the table (writer_table.c): the session, the public t2f_format_*
 * functions, the command line and the tests take every format from here.
 *
 * A format that cannot be written for some profiles (the heat map without sample times) says
 * so in check(), before the caller creates the output.
 *
 * Who finishes the output: the caller. write() emits into the sink and returns its own error
 * (-ENOMEM, -EINVAL, -T2F_ERR_LIMIT); write errors of the sink surface in the caller's
 * t2f_out__finish().
 *
 * enum t2f_format is the public header's. The table is static and read only: thread safe.
 */
#ifndef T2F_WRITER_TABLE_H
#define T2F_WRITER_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "formats/profile.h"
#include "include/trace2flame.h"
#include "writers/frame_name.h"
#include "writers/out.h"
#include "writers/svg.h"


/* Everything a writer may be given; each reads the fields its `uses` names (and event). */
struct t2f_write_opts {
	t2f_event_id event;              /* 0 = the first event */
	bool weight_samples;             /* sample counts instead of periods */
	bool pid, tid;                   /* collapsed root frames comm-PID / comm-PID/TID */
	struct t2f_frame_name_opts names; /* .collapsed is set per format */
	const char *input;               /* the input's name (speedscope's name, pprof's comment);
					  * NULL = none */
	bool input_given;                /* input is the caller's name, not the inputs' */
	unsigned threads;                /* threads formatting; 0 or 1: the calling thread only */
	bool gzip;                       /* the output's name ends in .gz (the Firefox profile) */
	struct t2f_svg_opts svg;         /* SVG's own fields (title ... diff); its event, weight
					  * and names are set from the fields above */
	unsigned heatmap_rows;           /* the heat map's rows per second; 0: its default */
	bool derived;                    /* a derived event (off-cpu, wall) was asked for */
};

/* What the profile must keep while the inputs are read (t2f_writer.needs). */
enum t2f_writer_needs {
	T2F_NEEDS_LOG = 1u << 0,    /* every sample in time order (t2f_profile__enable_log) */
	T2F_NEEDS_TIMES = 1u << 1,  /* the first and last sample time (t2f_profile__want_times) */
	T2F_NEEDS_ADDRS = 1u << 2,  /* every frame's address (but in no mapping: --addrs) */
	T2F_NEEDS_PARAMS = 1u << 3, /* demangled names keep their argument lists */
	T2F_NEEDS_SAMPLE_TIMES = 1u << 4, /* each logged sample's time and weight
					   * (t2f_profile__enable_sample_times) */
	T2F_NEEDS_WAITS = 1u << 5,  /* the derive stage's off-CPU waits as spans
				     * (t2f_profile__keep_waits) */
	T2F_NEEDS_HIST = 1u << 6,   /* samples per 10 ms and event (t2f_profile__enable_hist) */
	T2F_NEEDS_THREADS = 1u << 7, /* each thread's own cells: threads of one comm told apart
				      * (without it the session may t2f_profile__fold_threads) */
	T2F_NEEDS_LINES = 1u << 8,  /* frames' source files and lines: DWARF line tables read
				     * (without it the inline stage reads none: t2f_resym_opts) */
	T2F_NEEDS_MERGED_CELLS = 1u << 9, /* each stack, thread and event in one cell (without
					   * it, merges append cells: t2f_profile__repeat_cells) */
};

struct t2f_writer {
	enum t2f_format format;
	const char *name;               /* as -f names it */
	const char *const *aliases;     /* other names -f takes ("folded"), NULL-terminated, or
					 * NULL */
	const char *said;               /* in messages: "collapsed output" */
	const char *title;              /* in lists of formats: "collapsed stacks", "SVG" */
	const char *description;        /* one line for lists of formats (--list-formats) */
	const char *ext;                /* the extension --each gives its outputs */
	const char *const *extensions;  /* the output names that pick it, NULL-terminated */
	unsigned uses;                  /* enum t2f_format_uses (include/trace2flame.h) */
	/* enum t2f_writer_needs bits for these options */
	unsigned (*needs)(const struct t2f_write_opts *o);
	int (*write)(const struct t2f_profile *p, const struct t2f_write_opts *o,
		     struct t2f_out *out);
	/* What write would refuse for this profile, said in msg[0..len) for the user (the
	 * input's name is not in it): 0 or write's error. NULL: write refuses nothing. Called
	 * before the output is created, so a refused write leaves no file. */
	int (*check)(const struct t2f_profile *p, const struct t2f_write_opts *o, char *msg,
		     size_t len);
};

/* The number of formats: the table holds T2F_FORMAT_COLLAPSED .. t2f_writer__count(), in the
 * enum's order. */
size_t t2f_writer__count(void);
/* The descriptor of a format; NULL for T2F_FORMAT_NONE or out of range. */
const struct t2f_writer *t2f_writer__of(enum t2f_format f);
/* The format -f NAME names (or one of its aliases); NULL when none. */
const struct t2f_writer *t2f_writer__by_name(const char *name);
/* The format an output's name picks by its extension (the longest that matches: x.speedscope.json
 * is speedscope, x.json too); NULL when none. */
const struct t2f_writer *t2f_writer__by_path(const char *path);

#endif
