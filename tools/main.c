/* tools/main.c: trace2flame: argv → readers → one profile → a writer → the output file (or, for
 * `trace2flame diff`, two profiles → one differential SVG).
 *
 * Order matters for the "never clobber" rule: every input is read (and --event checked) before
 * the output's temp file is created, so a bad input leaves an existing output untouched.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "formats/diag.h"
#include "formats/profile.h"
#include "formats/utf8.h"
#include "pipeline/reader_table.h"
#include "pipeline/writer_table.h"
#include "readers/input.h"
#include "readers/perf_data.h"
#include "readers/perf_data_conv.h"
#include "readers/perf_script.h"
#include "readers/perf_script_par.h"
#include "tools/cli_opts.h"
#include "tools/commands.h"
#include "tools/outfile.h"
#include "tools/progress.h"
#include "tools/report.h"
#include "tools/resymbolize.h"

/* One conversion: some inputs → one profile → one output. */
struct t2f_conv {
	const struct t2f_cli_opts *opts;
	char *const *inputs;
	size_t n_inputs;
	const char *output;                /* NULL or "-": stdout */
	struct t2f_diag *diag;
	struct t2f_profile *profile;
	struct t2f_input_stats *stats;     /* one per input */
	struct t2f_event_total *totals;    /* indexed by event id */
	struct t2f_run_stats run;
	struct t2f_resym *resym;           /* NULL when no frame needed resolving */
	struct t2f_resym_opts ropts;
	bool nettrace;                     /* some input was a nettrace file */
	char *kallsyms_default;            /* perf.data: the kallsyms file picked for it */
	bool elsewhere;                    /* an input not shown to be recorded on this machine */
	int64_t recorded_by;               /* the earliest end of a recording made here (mtime) */
	const struct t2f_conv *diff_other; /* a differential graph against this conversion */
	uint64_t start_ns;
	char label[T2F_VISIBLE_MAX];       /* the inputs as warnings name them (t2f_conv_label) */
	const struct t2f_writer *writer;   /* the output format */
	unsigned needs;                    /* what it needs kept (enum t2f_writer_needs) */
};

/* What a warning about the whole conversion names: its input ("<stdin>" for -), or the first
 * and how many more; control characters shown as \xNN. */
static void t2f_conv_label(struct t2f_conv *c)
{
	char vis[T2F_VISIBLE_MAX];
	const char *first = t2f_utf8_visible(t2f_cli_is_std(c->inputs[0]) ? "<stdin>" : c->inputs[0],
					     vis, sizeof(vis) - 64);

	if (c->n_inputs == 1)
		snprintf(c->label, sizeof(c->label), "%s", first);
	else
		snprintf(c->label, sizeof(c->label), "%s and %zu more input%s", first, c->n_inputs - 1,
			 c->n_inputs == 2 ? "" : "s");
}

static uint64_t t2f_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* I/O failures (-errno) exit 3; bad input (-T2F_E_*) and running out of memory exit 1. */
static int t2f_exit_code(int err)
{
	if (err <= -T2F_E_FORMAT || err == -ENOMEM)
		return T2F_EXIT_INPUT;
	return T2F_EXIT_IO;
}

/* Which frames perf could not name keep their address: all when the output shows addresses
 * (--addrs, pprof locations), else those re-symbolization will try to name; the others share
 * one frame per name. */
static bool t2f_addr_wanted(void *ctx, enum t2f_frame_kind kind, const char *dso, size_t len)
{
	return t2f_resym__wants(ctx, kind, dso, len);
}

/* Whether every frame keeps its printed address: re-symbolization names them all afterwards, or
 * pprof writes them (a location per address in its mapping, for pprof -lines, -disasm). */
static bool t2f_keep_addrs(const struct t2f_conv *c)
{
	return c->opts->resymbolize || (c->needs & T2F_NEEDS_ADDRS);
}

static t2f_perf_script_addr_fn t2f_addr_filter(const struct t2f_conv *c)
{
	if (c->opts->addrs || (c->needs & T2F_NEEDS_ADDRS))
		return NULL;
	return t2f_addr_wanted;
}

/* One streaming reader (pipeline/reader_table.h), or perf script text for the parallel
 * reader. */
struct t2f_reader {
	const struct t2f_reader_desc *desc;
	void *r;                       /* desc's reader; NULL for the parallel reader */
	bool parallel;
};

/* Parser threads for -j (0: one per online CPU). */
static unsigned t2f_jobs(const struct t2f_cli_opts *o)
{
	long n = o->jobs ? (long)o->jobs : sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1u : n > 256 ? 256u : (unsigned)n;
}

/* Parser threads pay off for perf script text with -j above 1, and one thread too for
 * compressed input (it is decompressed on the calling thread meanwhile). */
static bool t2f_wants_parallel(const struct t2f_conv *c, const struct t2f_input *in)
{
	return t2f_jobs(c->opts) > 1 || t2f_input__kind(in) != T2F_INPUT_PLAIN;
}

/* Picks the reader by the input's first bytes (t2f_reader__detect); perf script text goes to
 * the parallel reader, which makes parsers of its own, when that pays off. */
static int t2f_reader__open(struct t2f_conv *c, size_t i, struct t2f_input *in,
			    const char *head, size_t len, struct t2f_reader *r)
{
	const struct t2f_read_opts ro = {
		.weight_samples = c->opts->weight_samples,
		.keep_addrs = t2f_keep_addrs(c),
		.addr_wanted = t2f_addr_filter(c),
		.addr_ctx = &c->ropts,
	};

	r->desc = t2f_reader__detect(head, len);
	c->nettrace |= (r->desc->traits & T2F_READER_MODULE_NAMES) != 0;
	r->parallel = (r->desc->traits & T2F_READER_PARALLEL) && t2f_wants_parallel(c, in);
	if (r->parallel)
		return 0;
	return r->desc->open(c->profile, c->diag, t2f_input__name(in), (uint32_t)i, &ro, &r->r);
}

static void t2f_reader__free(struct t2f_reader *r)
{
	if (r->desc)
		r->desc->free(r->r);
}

static void t2f_progress_cb(void *ctx, const struct t2f_input *in)
{
	t2f_progress__update(ctx, t2f_input__consumed(in));
}

/* perf script text with parser threads (readers/perf_script_par.h). T2F_SEGMENT_SIZE (bytes)
 * overrides the segment size: for tests. */
static int t2f_read_parallel(struct t2f_conv *c, size_t i, struct t2f_input *in,
			     const char *data, size_t len, struct t2f_progress *bar)
{
	const char *seg = getenv("T2F_SEGMENT_SIZE");
	struct t2f_ps_par_opts po = {
		.threads = t2f_jobs(c->opts),
		.segment_bytes = seg ? strtoull(seg, NULL, 10) : 0,
		.keep_addrs = t2f_keep_addrs(c),
		.addr_wanted = t2f_addr_filter(c),
		.addr_ctx = &c->ropts,
		.progress = bar ? t2f_progress_cb : NULL,
		.progress_ctx = bar,
	};
	struct t2f_ps_par_result res;
	int err = t2f_perf_script__read_parallel(in, data, len, c->profile, c->diag,
						 t2f_input__name(in), (uint32_t)i, &po, &res);

	c->stats[i].lines = res.lines;
	c->stats[i].text_bytes = res.bytes;
	return err;
}

#define T2F_BINARY_BLOCK ((size_t)4 << 20) /* a nettrace file is read in blocks of this size */

/* The next chunk for reader r: lines for text; for a nettrace file, blocks of any bytes (a binary
 * file need not have a '\n' every so often). */
static int t2f_next_chunk(const struct t2f_reader *r, struct t2f_input *in, char *block,
			  const char **data, size_t *len)
{
	if (!(r->desc->traits & T2F_READER_BINARY))
		return t2f_input__next(in, data, len);
	*data = block;
	return t2f_input__read(in, block, T2F_BINARY_BLOCK, len);
}

/* The first chunk data[0..len) and every next one through reader r, in this thread. */
static int t2f_read_chunks(struct t2f_reader *r, struct t2f_input *in, const char *data,
			   size_t len, struct t2f_progress *bar, struct t2f_input_stats *st)
{
	bool binary = r->desc->traits & T2F_READER_BINARY;
	char *block = binary ? malloc(T2F_BINARY_BLOCK) : NULL;
	int err;

	if (binary && !block)
		return -ENOMEM;
	/* Chunks are at most a few MiB: the bar moves after each. */
	for (err = len ? 1 : 0; err > 0; err = t2f_next_chunk(r, in, block, &data, &len)) {
		err = r->desc->feed(r->r, data, len);
		if (err)
			break;
		t2f_progress__update(bar, t2f_input__consumed(in));
		st->text_bytes += len;
	}
	free(block);
	return err ?: r->desc->finish(r->r);
}

/* Whether perf.data input i was recorded on this machine: its HOSTNAME and OSRELEASE features
 * are the running system's (as perf decides to trust the files at the recorded paths). Then
 * *end is the file's mtime: when perf finished writing it. */
static bool t2f_recorded_here(const struct t2f_conv *c, size_t i, const struct t2f_perf_data *pd,
			      int64_t *end)
{
	const struct t2f_perf_features *f = t2f_perf_data__features(pd);
	struct utsname u;
	struct stat st;

	if (!f->hostname || !f->osrelease || uname(&u) != 0 || strcmp(f->hostname, u.nodename) ||
	    strcmp(f->osrelease, u.release) || stat(c->inputs[i], &st) != 0)
		return false;
	*end = (int64_t)st.st_mtime;
	return true;
}

/* perf.data input: every frame is named after reading (--resymbolize), by perf's symbol rules
 * unless --symbol-rules strict, kernel frames through --kallsyms, else the first perf.data
 * input's pick (t2f_resym__default_kallsyms). */
static void t2f_conv_perf_kallsyms(struct t2f_conv *c, const struct t2f_perf_data *pd, bool here)
{
	char hex[41];

	c->ropts.all = true;
	c->ropts.perf_rules = c->opts->symbol_rules != T2F_CLI_RULES_STRICT;
	c->run.perf_data = true;
	if (c->opts->kallsyms || c->kallsyms_default || c->run.kallsyms_why)
		return;
	c->kallsyms_default = t2f_resym__default_kallsyms(
		t2f_perf_data_conv__kernel_build_id(pd, hex) ? hex : NULL, here, &c->run.kallsyms_why);
	c->ropts.kallsyms = c->kallsyms_default;
}

static void t2f_add_perf_stats(struct t2f_perf_data_conv_stats *to,
			       const struct t2f_perf_data_conv_stats *s)
{
	to->records += s->records;
	to->samples += s->samples;
	to->lost += s->lost;
	to->dwarf += s->dwarf;
	to->skipped += s->skipped;
	to->truncated_bytes += s->truncated_bytes;
	to->kernel_frames += s->kernel_frames;
}

/* A perf.data file, read from its path: the reader needs the file itself, so one on stdin or
 * compressed (.gz, .zst) is refused with a message saying what to do instead. */
static int t2f_read_perf_data(struct t2f_conv *c, size_t i, struct t2f_input *in)
{
	struct t2f_perf_data_conv_opts po = { .input = (uint32_t)i, .addr_wanted = t2f_addr_filter(c),
					      .addr_ctx = &c->ropts };
	struct t2f_perf_data *pd = NULL;
	struct t2f_perf_data_conv *pc = NULL;
	int64_t end = 0;
	bool here;
	int err;

	if (t2f_cli_is_std(c->inputs[i]) || t2f_input__kind(in) != T2F_INPUT_PLAIN)
		return t2f_diag__error(c->diag, -T2F_E_UNSUPPORTED, t2f_input__name(in), 0,
				       "perf.data is read from a named, uncompressed file only (not "
				       "stdin, gzip or zstd): save it to a file, or pipe `perf script "
				       "-i FILE` instead");
	err = t2f_perf_data__open(c->inputs[i], c->diag, &pd);
	if (!err) {
		here = t2f_recorded_here(c, i, pd, &end);
		c->elsewhere |= !here;
		if (here && (!c->recorded_by || end < c->recorded_by))
			c->recorded_by = end;
		t2f_conv_perf_kallsyms(c, pd, here);
		err = t2f_perf_data_conv__new(pd, c->profile, c->diag, &po, &pc);
	}
	if (!err)
		err = t2f_perf_data_conv__run(pc);
	if (pc)
		t2f_add_perf_stats(&c->run.perf, t2f_perf_data_conv__stats(pc));
	t2f_perf_data_conv__free(pc);
	t2f_perf_data__free(pd);
	return err;
}

/* Reads inputs[i] into the profile (thread input index i). */
static int t2f_read_input(struct t2f_conv *c, size_t i)
{
	struct t2f_input_stats *st = &c->stats[i];
	struct t2f_reader rd = { 0 };
	struct t2f_progress *bar = NULL;
	struct t2f_input *in = NULL;
	const char *data = NULL;
	size_t len = 0;
	bool whole_file = false;
	int err;

	st->name = t2f_cli_is_std(c->inputs[i]) ? "<stdin>" : c->inputs[i];
	err = t2f_input__open(c->inputs[i], c->diag, &in);
	if (err)
		goto done;
	err = t2f_input__next(in, &data, &len);
	if (err < 0)
		goto done;
	if (err == 0)
		len = 0;
	if (t2f_perf_data__detect(data, len)) {
		err = t2f_read_perf_data(c, i, in);
		st->text_bytes = t2f_input__size(in);
		whole_file = true;
		goto done;
	}
	c->elsewhere = true; /* text says nothing of the machine it was recorded on */
	err = t2f_reader__open(c, i, in, data, len, &rd);
	if (err)
		goto done;
	if (!c->opts->quiet && t2f_progress__wanted(stderr, t2f_input__size(in))) {
		err = t2f_progress__new(stderr, t2f_input__size(in), &bar);
		if (err)
			goto done;
	}
	if (rd.parallel) {
		err = t2f_read_parallel(c, i, in, data, len, bar);
	} else {
		err = t2f_read_chunks(&rd, in, data, len, bar, st);
		st->lines = rd.desc->traits & T2F_READER_LINES ? rd.desc->lines(rd.r) : 0;
	}
done:
	if (err == -ENOMEM)
		t2f_diag__error(c->diag, err, st->name, 0, "out of memory while reading it");
	if (err == -T2F_E_LIMIT && t2f_profile__frames_full(c->profile))
		t2f_diag__error(c->diag, err, st->name, 0,
				"more than %u distinct frames (--max-frames N raises the limit)",
				c->opts->max_frames);
	st->bytes = in ? t2f_input__consumed(in) : 0;
	if (whole_file) /* perf.data: read by its own reader */
		st->bytes = st->text_bytes;
	t2f_progress__finish(bar);
	t2f_reader__free(&rd);
	t2f_input__free(in);
	return err;
}

/* What the chosen writer is given (event: the one written, once settled). */
static void t2f_conv_write_opts(const struct t2f_conv *c, struct t2f_write_opts *wo)
{
	const struct t2f_cli_opts *o = c->opts;

	*wo = (struct t2f_write_opts){
		.event = c->run.written,
		.weight_samples = o->weight_samples,
		.pid = o->pid,
		.tid = o->tid,
		.names = { .raw_names = o->raw_names, .kernel = o->kernel, .jit = o->jit,
			   .addrs = o->addrs },
		.input = c->n_inputs > 1 ? c->label
			 : t2f_cli_is_std(c->inputs[0]) ? "standard input" : c->inputs[0],
		.threads = t2f_jobs(o),
		.svg = {
			.title = o->title,
			.subtitle = o->subtitle,
			.count_name = o->count_name,
			.width = o->width,
			.min_width = o->min_width,
			.colors = (enum t2f_svg_colors)o->colors,
			.hash = o->hash,
			.reverse = o->reverse,
			.icicle = o->icicle,
			.flamechart = o->flamechart,
			.diff = c->diff_other ? c->diff_other->profile : NULL,
			.diff_event = c->diff_other ? c->diff_other->run.written : 0,
			.diff_is_after = o->negate,
			.no_thread_root = o->ignore_comm,
		},
	};
}

/* The output format and what it needs kept while reading. */
static void t2f_conv_writer(struct t2f_conv *c)
{
	struct t2f_write_opts wo;

	c->writer = t2f_writer__of(c->opts->format);
	t2f_conv_write_opts(c, &wo);
	c->needs = c->writer->needs(&wo);
}

/* Runs the chosen writer into f, then commits f. */
static int t2f_write(struct t2f_conv *c, struct t2f_outfile *f)
{
	struct t2f_out *out = t2f_outfile__out(f);
	struct t2f_write_opts wo;
	int err;

	t2f_conv_write_opts(c, &wo);
	err = c->writer->write(c->profile, &wo, out);
	c->run.out_bytes = t2f_out__bytes(out);
	if (err)
		return t2f_diag__error(c->diag, err, t2f_outfile__name(f), 0, "cannot write (%s)",
				       t2f_strerror(err));
	return t2f_outfile__commit(f);
}

/* What re-symbolization will be asked to do (t2f_resym__run), known before reading. */
static void t2f_conv_resym_opts(struct t2f_conv *c)
{
	const struct t2f_cli_opts *o = c->opts;

	c->ropts = (struct t2f_resym_opts){
		.all = o->resymbolize,
		.symbol_dirs = o->symbol_dirs,
		.debug_dirs = o->n_debug_dirs ? o->debug_dirs : NULL,
		.buildids = o->buildids,
		.unsafe_build_id_match = o->unsafe_build_id_match,
		.no_params = !(c->needs & T2F_NEEDS_PARAMS),
		.kallsyms = o->kallsyms,
		.perf_map_dir = o->perf_map_dir,
		.perf_rules = o->symbol_rules == T2F_CLI_RULES_PERF,
	};
}

/* Names the frames perf could not (every frame with an address with --resymbolize): user frames
 * through the symbolizer, kernel frames through --kallsyms, JIT frames through perf maps. */
static int t2f_resymbolize(struct t2f_conv *c)
{
	c->ropts.nettrace = c->nettrace;
	c->ropts.trust_by = c->elsewhere ? 0 : c->recorded_by;
	return t2f_resym__run(c->profile, &c->ropts, c->diag, &c->resym);
}

/* What saturated instead of wrapping (formats/sat.h), said once per conversion, naming its
 * (first) input. 0, or -T2F_E_FORMAT under --strict. */
static int t2f_warn_saturated(struct t2f_conv *c)
{
	const char *in = c->label;
	uint64_t past = t2f_profile__times_past(c->profile);
	int err = 0;

	if (t2f_profile__weights_capped(c->profile))
		err = t2f_diag__warn(c->diag, in, 0, "weights summed past 18446744073709551615 were "
				     "capped there: the largest totals are not exact");
	if (!err && past)
		err = t2f_diag__warn(c->diag, in, 0, "%" PRIu64 " samples have times past 2^64 ns: "
				     "left out of the time span", past);
	if (!err && c->opts->format == T2F_FORMAT_PPROF && c->run.written &&
	    c->totals[c->run.written].weight > (uint64_t)INT64_MAX)
		err = t2f_diag__warn(c->diag, in, 0, "pprof values are signed 64-bit numbers: sums "
				     "past 9223372036854775807 are written as that");
	return err;
}

/* What the input lacked that the output shows, said without --stats: no samples at all (a
 * warning, an error under --strict); samples of --call-graph dwarf, whose user stacks are not
 * unwound here, and what keeps them. 0 or -T2F_E_FORMAT (--strict). */
static int t2f_warn_lacking(struct t2f_conv *c)
{
	uint64_t dwarf = c->run.perf.dwarf;

	if (dwarf && !c->opts->quiet)
		fprintf(stderr, "trace2flame: warning: %s: %" PRIu64 " samples were recorded with "
			"--call-graph dwarf: their user frames are not unwound here, only the kernel "
			"part of their call chain is kept (perf script -i %s | trace2flame - keeps "
			"them)\n", c->label, dwarf, c->n_inputs == 1 ? c->label : "FILE");
	if (t2f_profile__samples_read(c->profile) == 0)
		return t2f_diag__warn(c->diag, c->label, 0, "no samples in the input: the output is "
				      "empty");
	return 0;
}

/* Reads every input and settles the event: `event` when given, else the first with samples.
 * 0, or a negative error already reported (*reported) or recorded in the diag. */
static int t2f_convert_read(struct t2f_conv *c, const char *event, bool *reported)
{
	const struct t2f_cli_opts *o = c->opts;
	int err = 0;

	if (c->needs & T2F_NEEDS_LOG)
		err = t2f_profile__enable_log(c->profile);
	if (err)
		return err;
	if (c->needs & T2F_NEEDS_TIMES)
		t2f_profile__want_times(c->profile);
	for (size_t i = 0; i < c->n_inputs; i++) {
		err = t2f_read_input(c, i);
		if (err)
			return err;
	}
	c->run.read_seconds = (double)(t2f_now_ns() - c->start_ns) / 1e9;
	err = t2f_warn_lacking(c);
	if (err)
		return err;
	c->run.kallsyms = c->ropts.kallsyms;
	err = t2f_resymbolize(c) ?: t2f_report__event_totals(c->profile, &c->totals);
	c->run.names_seconds = (double)(t2f_now_ns() - c->start_ns) / 1e9 - c->run.read_seconds;
	if (err)
		return err;
	err = t2f_report__pick_event(stderr, c->profile, c->totals, event, &c->run.written);
	if (err) {
		*reported = true;
		return err;
	}
	if (!o->quiet && !event)
		t2f_report__other_events(stderr, c->label, c->profile, c->totals, c->run.written);
	return t2f_warn_saturated(c);
}

/* Writes the output of a profile already read. */
static int t2f_convert_write(struct t2f_conv *c)
{
	struct t2f_outfile *f = NULL;
	int err = t2f_outfile__open(c->output, c->diag, &f);

	if (!err)
		err = t2f_write(c, f);
	t2f_outfile__free(f);
	return err;
}

/* What the user sees after the work: suppressed warnings, --stats, the summary. */
static void t2f_convert_report(struct t2f_conv *c, bool ok)
{
	const struct t2f_cli_opts *o = c->opts;

	t2f_diag__flush(c->diag);
	c->run.inputs = c->stats;
	c->run.n_inputs = c->n_inputs;
	c->run.warnings = t2f_diag__warnings(c->diag);
	c->run.seconds = (double)(t2f_now_ns() - c->start_ns) / 1e9;
	if (o->stats && c->totals)
		t2f_report__stats(stderr, c->profile, c->totals, &c->run);
	if (o->stats)
		t2f_resym__print_stats(stderr, c->resym);
	else if (!o->quiet)
		t2f_resym__warn(stderr, c->resym, c->label);
	if (ok && !o->quiet && !t2f_cli_is_std(c->output) && isatty(STDERR_FILENO))
		t2f_report__summary(stderr, c->profile, c->totals, &c->run, c->output);
}

/* Sets up a conversion: its diag, stats and empty profile. 0 or a negative error (already
 * printed when there is no diag). */
static int t2f_conv__init(struct t2f_conv *c)
{
	int err;

	c->start_ns = t2f_now_ns();
	err = t2f_diag__new(stderr, &c->diag);
	if (err) {
		fprintf(stderr, "trace2flame: %s\n", t2f_strerror(err));
		return err;
	}
	t2f_diag__set_strict(c->diag, c->opts->strict);
	t2f_conv_label(c);
	t2f_conv_writer(c);
	t2f_conv_resym_opts(c);
	c->stats = calloc(c->n_inputs, sizeof(*c->stats));
	err = c->stats ? t2f_profile__new(&c->profile) : -ENOMEM;
	if (!err)
		t2f_profile__limit_frames(c->profile, c->opts->max_frames);
	return err;
}

/* Reports, frees the conversion and returns its exit code for `err`. */
static int t2f_conv__end(struct t2f_conv *c, int err, bool reported)
{
	bool had_diag = c->diag != NULL;
	char vis[T2F_VISIBLE_MAX];
	const char *msg;

	if (had_diag) {
		t2f_convert_report(c, !err);
		msg = t2f_diag__last_error(c->diag);
		if (err && !reported && msg)
			fprintf(stderr, "trace2flame: %s\n", msg);
		else if (err && !reported) /* no message: name what was converted */
			fprintf(stderr, "trace2flame: %s%s: %s\n",
				t2f_utf8_visible(c->inputs[0], vis, sizeof(vis)),
				c->n_inputs > 1 ? " (and the other inputs)" : "", t2f_strerror(err));
	}
	t2f_resym__free(c->resym);
	free(c->kallsyms_default);
	free(c->totals);
	free(c->stats);
	t2f_profile__free(c->profile);
	t2f_diag__free(c->diag);
	if (!err)
		return T2F_EXIT_OK;
	if (!had_diag)
		return T2F_EXIT_INPUT;
	return reported ? T2F_EXIT_INPUT : t2f_exit_code(err);
}

/* Whether output is one of the inputs (same file: tools/outfile.h), said on stderr: trace2flame
 * never replaces an input with its output. */
static bool t2f_clobbers_input(const char *output, char *const *inputs, size_t n)
{
	char vout[T2F_VISIBLE_MAX], vin[T2F_VISIBLE_MAX];
	int i = t2f_outfile__clobbers(output, inputs, n);

	if (i < 0)
		return false;
	fprintf(stderr, "trace2flame: %s: the output would replace the input %s; choose another "
		"output\n", t2f_utf8_visible(output, vout, sizeof(vout)),
		t2f_utf8_visible(inputs[i], vin, sizeof(vin)));
	return true;
}

/* inputs → output; returns the exit code. */
static int t2f_convert(const struct t2f_cli_opts *o, char *const *inputs, size_t n,
		       const char *output)
{
	struct t2f_conv c = { .opts = o, .inputs = inputs, .n_inputs = n, .output = output };
	bool reported = false;
	int err = t2f_conv__init(&c);

	if (!err)
		err = t2f_convert_read(&c, o->event, &reported);
	if (!err)
		err = t2f_convert_write(&c);
	return t2f_conv__end(&c, err, reported);
}

int t2f_convert_diff(const struct t2f_cli_opts *o)
{
	/* c: the profile drawn (AFTER, or BEFORE with --negate); d: the one compared with */
	struct t2f_conv c = { .opts = o, .inputs = &o->inputs[o->negate ? 0 : 1], .n_inputs = 1,
			      .output = o->output };
	struct t2f_conv d = { .opts = o, .inputs = &o->inputs[o->negate ? 1 : 0], .n_inputs = 1 };
	bool reported = false, dreported = false;
	int err, derr;

	if (t2f_clobbers_input(o->output, o->inputs, 2))
		return T2F_EXIT_USAGE;
	c.diff_other = &d;
	err = t2f_conv__init(&c);
	derr = t2f_conv__init(&d);
	if (!err && !derr) {
		/* BEFORE first; AFTER's event (named by --event, else its first) in both */
		struct t2f_conv *first = o->negate ? &c : &d, *second = o->negate ? &d : &c;

		derr = t2f_convert_read(first, o->event, &dreported);
		if (!derr)
			err = t2f_convert_read(second, o->event, &reported);
	}
	if (!err && !derr && !o->event && c.run.written != 0 && d.run.written != 0) {
		/* each picked its first event: write BEFORE's weights of AFTER's event */
		struct t2f_conv *after = o->negate ? &d : &c, *before = o->negate ? &c : &d;
		size_t len;
		const char *name = t2f_profile__str(after->profile,
			t2f_profile__event_at(after->profile, after->run.written)->name, &len);
		t2f_event_id ev = t2f_profile__find_event(before->profile, name);

		if (ev)
			before->run.written = ev;
	}
	if (!err && !derr && !o->ignore_comm && !o->quiet) {
		const struct t2f_conv *b = o->negate ? &c : &d, *a = o->negate ? &d : &c;

		t2f_report__diff_roots(stderr, b->label, b->profile, a->label, a->profile);
	}
	if (!err && !derr)
		err = t2f_convert_write(&c);
	derr = t2f_conv__end(&d, derr, dreported);
	err = t2f_conv__end(&c, err, reported);
	return derr ? derr : err;
}

/* --each: "DIR/" + the input's base name minus .gz/.zst minus its last extension + the format's
 * extension ("x/a.perf.txt.zst" → "DIR/a.perf.folded"). NULL when out of memory. */
static char *t2f_each_output(const char *dir, const char *input, enum t2f_format fmt)
{
	const char *slash = strrchr(input, '/');
	const char *base = slash ? slash + 1 : input;
	const char *sep = dir[0] && dir[strlen(dir) - 1] == '/' ? "" : "/";
	static const char *const zips[] = { ".gz", ".zst" };
	size_t len = strlen(base);
	const char *dot;
	char *name;

	for (size_t i = 0; i < sizeof(zips) / sizeof(zips[0]); i++) {
		size_t zlen = strlen(zips[i]);

		if (len > zlen && memcmp(base + len - zlen, zips[i], zlen) == 0) {
			len -= zlen;
			break;
		}
	}
	dot = memrchr(base, '.', len);
	if (dot && dot > base)
		len = (size_t)(dot - base);
	if (asprintf(&name, "%s%s%.*s%s", dir, sep, (int)len, base, t2f_writer__of(fmt)->ext) < 0)
		return NULL;
	return name;
}

/* Index of an earlier input with the same output name, or -1. */
static int t2f_each_clash(char *const *names, int i)
{
	for (int j = 0; j < i; j++)
		if (names[j] && strcmp(names[j], names[i]) == 0)
			return j;
	return -1;
}

/* --each: one conversion per input; goes on past failures. The exit status is the worst of
 * those a run of each input alone would have: 3 when an input could not be read or an output
 * not written, else 1 when an input was bad (or skipped: its output clashed). */
static int t2f_run_each(const struct t2f_cli_opts *o)
{
	char **names = calloc((size_t)o->n_inputs, sizeof(*names));
	int failed = 0, worst = T2F_EXIT_OK, serr;
	struct stat st;

	if (!names) {
		fprintf(stderr, "trace2flame: %s\n", t2f_strerror(-ENOMEM));
		return T2F_EXIT_INPUT;
	}
	serr = stat(o->output, &st) < 0 ? errno : 0;
	if (serr || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "trace2flame: %s: %s\n", o->output,
			serr ? strerror(serr) : "not a directory");
		free(names);
		return T2F_EXIT_IO;
	}
	for (int i = 0; i < o->n_inputs; i++) {
		int j, rc = T2F_EXIT_INPUT;

		names[i] = t2f_each_output(o->output, o->inputs[i], o->format);
		j = names[i] ? t2f_each_clash(names, i) : -1;
		if (!names[i])
			fprintf(stderr, "trace2flame: %s: %s\n", o->inputs[i], t2f_strerror(-ENOMEM));
		else if (j >= 0)
			fprintf(stderr, "trace2flame: %s: its output %s is also that of %s; skipped\n",
				o->inputs[i], names[i], o->inputs[j]);
		else if (t2f_clobbers_input(names[i], o->inputs, (size_t)o->n_inputs))
			fprintf(stderr, "trace2flame: %s: skipped\n", o->inputs[i]);
		else
			rc = t2f_convert(o, &o->inputs[i], 1, names[i]);
		failed += rc != T2F_EXIT_OK;
		if (rc == T2F_EXIT_IO || worst == T2F_EXIT_OK)
			worst = rc;
	}
	for (int i = 0; i < o->n_inputs; i++)
		free(names[i]);
	free(names);
	if (failed)
		fprintf(stderr, "trace2flame: %d of %d inputs failed\n", failed, o->n_inputs);
	return worst;
}

int main(int argc, char **argv)
{
	struct t2f_cli_opts o;

	if (argc > 1 && strcmp(argv[1], "symbols") == 0)
		return t2f_cmd_symbols(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "resolve") == 0)
		return t2f_cmd_resolve(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "diff") == 0)
		return t2f_cmd_diff(argc - 1, argv + 1);
	if (t2f_cli_opts__parse(&o, argc, argv, stdout, stderr))
		return T2F_EXIT_USAGE;
	if (o.help || o.version)
		return fflush(stdout) == 0 && !ferror(stdout) ? T2F_EXIT_OK : T2F_EXIT_IO;
	t2f_cli_opts__warn_ignored(&o, stderr);
	if (o.each)
		return t2f_run_each(&o);
	if (t2f_clobbers_input(o.output, o.inputs, (size_t)o.n_inputs))
		return T2F_EXIT_USAGE;
	return t2f_convert(&o, o.inputs, (size_t)o.n_inputs, o.output);
}
