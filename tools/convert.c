/* tools/convert.c: one conversion (inputs → one output) and the differential one, through the
 * library (include/trace2flame.h): command-line options → session options → library calls →
 * the exit code. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "include/trace2flame.h"
#include "tools/cli_msg.h"
#include "tools/cli_opts.h"
#include "tools/clobber.h"
#include "tools/commands.h"
#include "tools/malloc_tune.h"
#include "tools/progress.h"

/* The progress bar of the input being read: drawn on a terminal for big inputs, not under -q. */
struct t2f_cli_bar {
	struct t2f_progress *bar;
	bool decided;                 /* for this input */
	bool fetching;                /* the bar is a debuginfod fetch's */
	bool quiet;
};

/* The bar: for a big input, and for each debug file fetched from a debuginfod server (the
 * network is slow whatever the size), labelled with its build-id. */
static void t2f_cli_progress(void *ctx, const char *input, uint64_t done, uint64_t total,
			     bool finished)
{
	struct t2f_cli_bar *b = ctx;
	bool fetch = strncmp(input, "debuginfod:", 11) == 0;
	char label[64];

	if (finished || fetch != b->fetching) { /* a fetch after the inputs: a bar of its own */
		t2f_progress__finish(b->bar);
		b->bar = NULL;
		b->decided = false;
		b->fetching = fetch && !finished;
		if (finished)
			return;
	}
	if (fetch)
		snprintf(label, sizeof(label), "fetching debug info %.16s...", input + 11);
	if (!b->decided && !b->quiet && t2f_progress__wanted(stderr, fetch ? 0 : total) &&
	    t2f_progress__new(stderr, total, fetch ? label : NULL, &b->bar))
		b->bar = NULL; /* out of memory: no bar */
	b->decided = true;
	t2f_progress__update(b->bar, done);
}

static void t2f_cli_session_opts(const struct t2f_cli_opts *o, struct t2f_cli_bar *bar,
				 struct t2f_options *so)
{
	*so = (struct t2f_options){
		.size = sizeof(*so),
		.formats = T2F_FORMAT_BIT(o->format),
		.fold_threads = !o->w.pid && !o->w.tid,
		.event = o->event,
		.weight_samples = o->weight_samples,
		.addrs = o->addrs,
		.raw_names = o->raw_names,
		.time_order = o->w.flamechart,
		.signals = true,
		.strict = o->strict,
		.quiet = o->quiet,
		.jobs = o->jobs,
		.max_frames = o->max_frames,
		.message = t2f_cli_message,
		.progress = t2f_cli_progress,
		.progress_ctx = bar,
		.resymbolize = o->resymbolize,
		.unsafe_build_id_match = o->unsafe_build_id_match,
		.symbol_rules = o->symbol_rules,
		.symbol_dirs = o->symbol_dirs,
		.debug_dirs = o->n_debug_dirs ? o->debug_dirs : NULL,
		.buildids = o->buildids,
		.kallsyms = o->kallsyms,
		.perf_map_dir = o->perf_map_dir,
		.offline = o->offline,
		.no_inline = o->no_inline,
		.no_cache = o->no_cache,
		.cache_max = (uint64_t)o->cache_max_mib << 20,
		.unwind_libdwfl = o->unwind_libdwfl,
		.time = o->time,
		.pids = o->pids,
		.tids = o->tids,
		.comms = o->comms,
		.off_cpu_states = o->off_cpu_states,
	};
}

static void t2f_cli_write_opts(const struct t2f_cli_opts *o, struct t2f_write_options *w)
{
	*w = o->w;
	w->size = sizeof(*w);
	w->format = o->format;
	w->diff_is_after = o->negate;
	w->no_thread_root = o->ignore_comm;
}

/* I/O failures (-errno) exit 3; bad input (-T2F_ERR_*) and running out of memory exit 1. */
static int t2f_exit_code(int err)
{
	if (!err)
		return T2F_EXIT_OK;
	if (err <= -T2F_ERR_FORMAT || err == -ENOMEM)
		return T2F_EXIT_INPUT;
	return T2F_EXIT_IO;
}

/* The library returns -EPIPE where a reader of the output went away (it never raises SIGPIPE
 * in its caller); the command line ends by SIGPIPE then, as a filter does: at once, nothing more
 * said. With SIGPIPE ignored (or blocked) the run goes on to "Broken pipe" and exit 3. */
static void t2f_cli_broken_pipe(int err)
{
	if (err == -EPIPE)
		raise(SIGPIPE);
}

/* A session for o, or NULL (said). */
static struct t2f_session *t2f_cli_session(const struct t2f_cli_opts *o, struct t2f_cli_bar *bar)
{
	struct t2f_options so;
	struct t2f_session *s;
	int err;

	t2f_cli_session_opts(o, bar, &so);
	err = t2f_session_new(&so, &s);
	if (err)
		fprintf(stderr, "trace2flame: %s\n", t2f_strerror(err));
	return err ? NULL : s;
}

/* Reads every input, then resolves. */
static int t2f_cli_read(struct t2f_session *s, char *const *inputs, size_t n)
{
	int err = 0;

	for (size_t i = 0; i < n && !err; i++)
		err = t2f_session_add_path(s, inputs[i]);
	return err ?: t2f_session_resolve(s);
}

/* What the user sees after the work: suppressed warnings, --stats, the summary, the error.
 * Frees s; returns the exit code for err. */
static int t2f_cli_end(const struct t2f_cli_opts *o, struct t2f_session *s, int err,
		       const char *output)
{
	unsigned what = T2F_REPORT_WARNINGS | (o->stats ? T2F_REPORT_STATS : 0);

	if (!s)
		return T2F_EXIT_INPUT;
	if (!err && !o->quiet && !t2f_cli_is_std(output) && isatty(STDERR_FILENO))
		what |= T2F_REPORT_SUMMARY;
	t2f_session_report(s, what);
	if (o->stats)
		fprintf(stderr, "  allocator: %s\n", t2f_malloc_tune_said());
	if (err)
		t2f_cli_error(t2f_session_error(s));
	t2f_session_free(s);
	return t2f_exit_code(err);
}

int t2f_convert(const struct t2f_cli_opts *o, char *const *inputs, size_t n, const char *output)
{
	struct t2f_cli_bar bar = { .quiet = o->quiet };
	struct t2f_session *s = t2f_cli_session(o, &bar);
	struct t2f_write_options w;
	int err = s ? t2f_cli_read(s, inputs, n) : -ENOMEM;

	t2f_cli_write_opts(o, &w);
	if (!err)
		err = t2f_session_write_path(s, &w, output);
	t2f_cli_broken_pipe(err);
	return t2f_cli_end(o, s, err, output);
}

int t2f_convert_diff(const struct t2f_cli_opts *o)
{
	/* c: the profile drawn (AFTER, or BEFORE with --negate); d: the one compared with */
	char *const *cin = &o->inputs[o->negate ? 0 : 1], *const *din = &o->inputs[o->negate ? 1 : 0];
	struct t2f_cli_bar bar = { .quiet = o->quiet };
	struct t2f_session *c, *d;
	struct t2f_write_options w;
	int err, derr;

	if (t2f_clobber__refuse(o->output, o->inputs, 2))
		return T2F_EXIT_USAGE;
	if (t2f_clobber__no_place(o->output, false))
		return T2F_EXIT_IO;
	c = t2f_cli_session(o, &bar);
	d = t2f_cli_session(o, &bar);
	err = c ? 0 : -ENOMEM;
	derr = d ? 0 : -ENOMEM;
	if (c && d && o->negate) { /* BEFORE first */
		err = t2f_cli_read(c, cin, 1);
		derr = err ? 0 : t2f_cli_read(d, din, 1);
	} else if (c && d) {
		derr = t2f_cli_read(d, din, 1);
		err = derr ? 0 : t2f_cli_read(c, cin, 1);
	}
	t2f_cli_write_opts(o, &w);
	w.diff = d;
	if (!err && !derr)
		err = t2f_session_write_path(c, &w, o->output);
	t2f_cli_broken_pipe(err);
	derr = t2f_cli_end(o, d, derr, NULL);
	err = t2f_cli_end(o, c, err, o->output);
	return derr ? derr : err;
}
