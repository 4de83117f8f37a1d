/* pipeline/writer_table.c: the output formats (writer_table.h). */
#include "pipeline/writer_table.h"

#include <string.h>

#include "writers/collapsed.h"
#include "writers/firefox.h"
#include "writers/heatmap.h"
#include "writers/pprof.h"
#include "writers/speedscope.h"

/* Collapsed output and SVG cut names at their argument lists unless --raw-names keeps them. */
static unsigned t2f_needs_params(const struct t2f_write_opts *o)
{
	return o->names.raw_names ? T2F_NEEDS_PARAMS : 0;
}

/* Roots are the threads' comms, unless pids or tids are written. */
static unsigned t2f_collapsed_needs(const struct t2f_write_opts *o)
{
	return T2F_NEEDS_MERGED_CELLS | t2f_needs_params(o) |
	       (o->pid || o->tid ? T2F_NEEDS_THREADS : 0);
}

static int t2f_collapsed_write(const struct t2f_profile *p, const struct t2f_write_opts *o,
			       struct t2f_out *out)
{
	struct t2f_collapsed_opts co = {
		.event = o->event,
		.weight_samples = o->weight_samples,
		.pid = o->pid,
		.tid = o->tid,
		.names = o->names,
		.threads = o->threads,
	};

	co.names.collapsed = true;
	return t2f_collapsed__write(p, &co, out);
}

/* speedscope: the sample log, whose runs are per thread (cells may count threads of one name
 * together); for off-CPU and wall time the samples' times too (spans), and each thread's cells. */
static unsigned t2f_speedscope_needs(const struct t2f_write_opts *o)
{
	return T2F_NEEDS_MERGED_CELLS | T2F_NEEDS_LOG | T2F_NEEDS_PARAMS | T2F_NEEDS_LINES |
	       (o->derived ? T2F_NEEDS_SAMPLE_TIMES | T2F_NEEDS_THREADS : 0);
}

static int t2f_speedscope_write(const struct t2f_profile *p, const struct t2f_write_opts *o,
				struct t2f_out *out)
{
	struct t2f_speedscope_opts so = {
		.event = o->event,
		.weight_samples = o->weight_samples,
		.addrs = o->names.addrs,
		.name = o->input,
		.threads = o->threads,
		.evented = o->derived,
	};

	return t2f_speedscope__write(p, &so, out);
}

/* pprof: a location per address (pprof -lines, -disasm), the profile's duration; it adds the
 * cells of one stack and thread up itself (merged cells not needed). */
static unsigned t2f_pprof_needs(const struct t2f_write_opts *o)
{
	return T2F_NEEDS_TIMES | T2F_NEEDS_ADDRS | T2F_NEEDS_PARAMS | T2F_NEEDS_THREADS |
	       T2F_NEEDS_LINES;
}

static int t2f_pprof_write(const struct t2f_profile *p, const struct t2f_write_opts *o,
			   struct t2f_out *out)
{
	struct t2f_pprof_opts po = {
		.event = o->event,
		.input = o->input,
		.input_given = o->input_given,
		.names = o->names,
	};

	po.names.collapsed = false;
	return t2f_pprof__write(p, &po, out);
}

static unsigned t2f_svg_needs(const struct t2f_write_opts *o)
{
	return T2F_NEEDS_MERGED_CELLS | t2f_needs_params(o) | T2F_NEEDS_THREADS | T2F_NEEDS_LINES |
	       (o->svg.flamechart ? T2F_NEEDS_LOG : 0);
}

static int t2f_svg_write(const struct t2f_profile *p, const struct t2f_write_opts *o,
			 struct t2f_out *out)
{
	struct t2f_svg_opts vo = o->svg;

	vo.event = o->event;
	vo.weight_samples = o->weight_samples;
	vo.names = o->names;
	return t2f_svg__write(p, &vo, out);
}

/* The Firefox profile: the sample log (samples in order) with each sample's time, addresses for
 * its frame table, off-CPU waits for its markers. */
static unsigned t2f_firefox_needs(const struct t2f_write_opts *o)
{
	return T2F_NEEDS_MERGED_CELLS | T2F_NEEDS_LOG | T2F_NEEDS_SAMPLE_TIMES | T2F_NEEDS_WAITS |
	       T2F_NEEDS_ADDRS | T2F_NEEDS_PARAMS | T2F_NEEDS_THREADS | T2F_NEEDS_LINES;
}

static int t2f_firefox_write(const struct t2f_profile *p, const struct t2f_write_opts *o,
			     struct t2f_out *out)
{
	struct t2f_firefox_opts fo = {
		.event = o->event,
		.weight_samples = o->weight_samples,
		.addrs = o->names.addrs,
		.gzip = o->gzip,
		.name = o->input,
	};

	return t2f_firefox__write(p, &fo, out);
}

/* The heat map: samples per 10 ms of the event (and their times, which readers then parse). */
static unsigned t2f_heatmap_needs(const struct t2f_write_opts *o)
{
	return T2F_NEEDS_MERGED_CELLS | T2F_NEEDS_HIST | T2F_NEEDS_TIMES | T2F_NEEDS_THREADS;
}

static struct t2f_heatmap_opts t2f_heatmap_opts_of(const struct t2f_write_opts *o)
{
	return (struct t2f_heatmap_opts){
		.event = o->event,
		.weight_samples = o->weight_samples,
		.rows = o->heatmap_rows,
		.name = o->input,
	};
}

static int t2f_heatmap_write(const struct t2f_profile *p, const struct t2f_write_opts *o,
			     struct t2f_out *out)
{
	struct t2f_heatmap_opts ho = t2f_heatmap_opts_of(o);

	return t2f_heatmap__write(p, &ho, out);
}

static int t2f_heatmap_check(const struct t2f_profile *p, const struct t2f_write_opts *o,
			     char *msg, size_t len)
{
	struct t2f_heatmap_opts ho = t2f_heatmap_opts_of(o);

	return t2f_heatmap__check(p, &ho, msg, len);
}

static const char *const t2f_collapsed_aliases[] = { "folded", NULL };
static const char *const t2f_collapsed_exts[] = { ".folded", ".collapsed", NULL };
static const char *const t2f_speedscope_exts[] = { ".speedscope.json", ".json", NULL };
static const char *const t2f_pprof_exts[] = { ".pb.gz", ".pprof", NULL };
static const char *const t2f_svg_exts[] = { ".svg", NULL };
static const char *const t2f_firefox_exts[] = { ".profile.json", ".profile.json.gz", NULL };
static const char *const t2f_heatmap_exts[] = { ".heatmap.svg", NULL };

static const struct t2f_writer t2f_writers[] = {
	{
		.format = T2F_FORMAT_COLLAPSED, .name = "collapsed",
		.aliases = t2f_collapsed_aliases, .said = "collapsed output",
		.title = "collapsed stacks",
		.description = "folded stacks, as flamegraph.pl and inferno read them",
		.ext = ".folded", .extensions = t2f_collapsed_exts,
		.uses = T2F_USES_WEIGHT | T2F_USES_ROOT_IDS | T2F_USES_MARKS | T2F_USES_ADDRS,
		.needs = t2f_collapsed_needs, .write = t2f_collapsed_write,
	},
	{
		.format = T2F_FORMAT_SPEEDSCOPE, .name = "speedscope", .said = "speedscope output",
		.title = "speedscope", .description = "speedscope's file format (JSON)",
		.ext = ".speedscope.json", .extensions = t2f_speedscope_exts,
		.uses = T2F_USES_WEIGHT | T2F_USES_ADDRS,
		.needs = t2f_speedscope_needs, .write = t2f_speedscope_write,
	},
	{
		.format = T2F_FORMAT_PPROF, .name = "pprof", .said = "pprof output",
		.title = "pprof", .description = "pprof's profile.proto, gzip-compressed",
		.ext = ".pb.gz", .extensions = t2f_pprof_exts, .uses = T2F_USES_ADDRS,
		.needs = t2f_pprof_needs, .write = t2f_pprof_write,
	},
	{
		.format = T2F_FORMAT_SVG, .name = "svg", .said = "SVG output", .title = "SVG",
		.description = "an interactive flame graph (or icicle graph, flame chart)",
		.ext = ".svg", .extensions = t2f_svg_exts,
		.uses = T2F_USES_WEIGHT | T2F_USES_MARKS | T2F_USES_ADDRS | T2F_USES_SVG,
		.needs = t2f_svg_needs, .write = t2f_svg_write,
	},
	{
		.format = T2F_FORMAT_FIREFOX, .name = "firefox", .said = "Firefox Profiler output",
		.title = "Firefox Profiler profiles",
		.description = "the Firefox Profiler's processed profile (JSON; gzip by .gz)",
		.ext = ".profile.json",
		.extensions = t2f_firefox_exts, .uses = T2F_USES_WEIGHT | T2F_USES_ADDRS,
		.needs = t2f_firefox_needs, .write = t2f_firefox_write,
	},
	{
		.format = T2F_FORMAT_HEATMAP, .name = "heatmap", .said = "heat map output",
		.title = "heat maps",
		.description = "a heat map of the samples over time (SVG): seconds across, 20 ms "
			       "rows down",
		.ext = ".heatmap.svg", .extensions = t2f_heatmap_exts,
		.uses = T2F_USES_WEIGHT | T2F_USES_HEATMAP,
		.needs = t2f_heatmap_needs, .write = t2f_heatmap_write, .check = t2f_heatmap_check,
	},
};

/* Rows in the order of enum t2f_format, from T2F_FORMAT_COLLAPSED (tests/unit/test_writer_table.c
 * checks it). */
#define T2F_N_WRITERS (sizeof(t2f_writers) / sizeof(t2f_writers[0]))

size_t t2f_writer__count(void)
{
	return T2F_N_WRITERS;
}

const struct t2f_writer *t2f_writer__of(enum t2f_format f)
{
	if (f < T2F_FORMAT_COLLAPSED || (size_t)f > T2F_N_WRITERS)
		return NULL;
	return &t2f_writers[f - T2F_FORMAT_COLLAPSED];
}

static bool t2f_writer_named(const struct t2f_writer *w, const char *name)
{
	if (strcmp(w->name, name) == 0)
		return true;
	for (const char *const *a = w->aliases; a && *a; a++)
		if (strcmp(*a, name) == 0)
			return true;
	return false;
}

const struct t2f_writer *t2f_writer__by_name(const char *name)
{
	for (size_t i = 0; i < T2F_N_WRITERS; i++)
		if (t2f_writer_named(&t2f_writers[i], name))
			return &t2f_writers[i];
	return NULL;
}
const struct t2f_writer *t2f_writer__by_path(const char *path)
{
	const struct t2f_writer *best = NULL;
	size_t len = strlen(path), best_len = 0;

	for (size_t i = 0; i < T2F_N_WRITERS; i++) {
		for (const char *const *e = t2f_writers[i].extensions; *e; e++) {
			size_t elen = strlen(*e);

			if (len > elen && elen > best_len && strcmp(path + len - elen, *e) == 0) {
				best = &t2f_writers[i];
				best_len = elen;
			}
		}
	}
	return best;
}
