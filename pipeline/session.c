/* pipeline/session.c: a session's life cycle, errors, stats and reports
 * (include/trace2flame.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "formats/clock.h"
#include "formats/derive.h"
#include "pipeline/msg_sink.h"
#include "formats/sample_filter.h"
#include "pipeline/session.h"
#include "pipeline/versioned.h"
#include "pipeline/writer_table.h"
#include "symbolizer/symcache_ahead.h"

#define T2F_DEFAULT_MAX_FRAMES 2000000u

uint64_t t2f_session_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Keeps text (malloc'd, or NULL when out of memory) as the last failure's message. */
static int t2f_session_keep(struct t2f_session *s, int err, bool fail, char *text)
{
	free(s->error);
	s->error = text;
	if (fail && s->state != T2F_SESSION_FAILED) {
		s->state = T2F_SESSION_FAILED;
		s->failed = err;
	}
	return err;
}

int t2f_session_fail(struct t2f_session *s, int err, bool fail)
{
	const char *msg = t2f_diag__last_error(s->diag);
	char vis[T2F_VISIBLE_MAX];
	char *text = NULL;

	if (msg)
		text = strdup(msg);
	else if (s->n_inputs)
		(void)!asprintf(&text, "%s%s: %s", t2f_utf8_visible(s->args[0], vis, sizeof(vis)),
				s->n_inputs > 1 ? " (and the other inputs)" : "", t2f_strerror(err));
	else
		text = strdup(t2f_strerror(err));
	return t2f_session_keep(s, err, fail, text);
}

int t2f_session_say(struct t2f_session *s, int err, bool fail, const char *fmt, ...)
{
	char *text = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	va_end(ap);
	return t2f_session_keep(s, err, fail, text);
}

/* A signal handler may cancel: the flag must be lock-free. */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "atomic_int is not lock-free");

void t2f_session_cancel(struct t2f_session *s)
{
	if (s)
		atomic_store(&s->cancel, 1);
}

bool t2f_session_cancelled(struct t2f_session *s)
{
	return atomic_load_explicit(&s->cancel, memory_order_relaxed) &&
	       atomic_exchange(&s->cancel, 0);
}

unsigned t2f_session_jobs(const struct t2f_session *s)
{
	long n = s->o.jobs ? (long)s->o.jobs : sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1u : n > 256 ? 256u : (unsigned)n;
}

void t2f_session_set_label(struct t2f_session *s)
{
	char vis[T2F_VISIBLE_MAX];
	const char *first;

	if (!s->n_inputs) {
		snprintf(s->label, sizeof(s->label), "no input");
		return;
	}
	first = t2f_utf8_visible(s->stats[0].name, vis, sizeof(vis) - 64);
	if (s->n_inputs == 1)
		snprintf(s->label, sizeof(s->label), "%s", first);
	else
		snprintf(s->label, sizeof(s->label), "%s and %zu more input%s", first,
			 s->n_inputs - 1, s->n_inputs == 2 ? "" : "s");
}

bool t2f_session_has_format(const struct t2f_session *s, enum t2f_format f)
{
	return t2f_writer__of(f) && (!s->o.formats || (s->o.formats & T2F_FORMAT_BIT(f)));
}

/* What the formats the session may write need kept while reading. */
static unsigned t2f_session_needs(const struct t2f_session *s)
{
	struct t2f_write_opts wo = { .names = { .raw_names = s->o.raw_names },
				     .svg = { .flamechart = s->o.time_order },
				     .derived = s->derive.kinds != 0 };
	unsigned needs = 0;

	for (int f = T2F_FORMAT_COLLAPSED; t2f_writer__of(f); f++)
		if (t2f_session_has_format(s, f))
			needs |= t2f_writer__of(f)->needs(&wo);
	return needs;
}

/* The derived events the options ask for: event "off-cpu" or "wall" (formats/derive.h), with
 * the states selected. 0 or -EINVAL (a state letter this library does not know). */
static int t2f_session_derive_opts(struct t2f_session *s)
{
	const char *ev = s->o.event;

	s->derive = (struct t2f_derive_opts){ 0 };
	if (s->o.off_cpu_states && !t2f_cpu_states_parse(s->o.off_cpu_states, &s->derive.states))
		return -EINVAL;
	if (ev && strcmp(ev, "off-cpu") == 0)
		s->derive.kinds = T2F_DERIVE_OFF_CPU;
	else if (ev && strcmp(ev, "wall") == 0) /* off-cpu too: the SVG shows wall's parts */
		s->derive.kinds = T2F_DERIVE_WALL | T2F_DERIVE_OFF_CPU;
	s->run.derived = s->derive.kinds != 0;
	return 0;
}

/* What the resolve stage will be asked to do (t2f_resym__run), known before reading. */
static void t2f_session_resym_opts(struct t2f_session *s)
{
	const struct t2f_options *o = &s->o;

	s->ropts = (struct t2f_resym_opts){
		.all = o->resymbolize,
		.symbol_dirs = o->symbol_dirs,
		.debug_dirs = o->debug_dirs,
		.buildids = o->buildids,
		.unsafe_build_id_match = o->unsafe_build_id_match,
		.no_params = !(s->needs & T2F_NEEDS_PARAMS),
		.no_lines = !(s->needs & T2F_NEEDS_LINES),
		.kallsyms = o->kallsyms,
		.perf_map_dir = o->perf_map_dir,
		.perf_rules = o->symbol_rules == T2F_RULES_PERF,
		.offline = o->offline,
		.inlines = !o->no_inline,
		.progress = o->progress,
		.progress_ctx = o->progress_ctx,
		.signals = o->signals,
		.cache = !o->no_cache,
		.cache_max = o->cache_max,
		.threads = t2f_session_jobs(s),
	};
}

bool t2f_session_keep_addrs(const struct t2f_session *s)
{
	return s->o.resymbolize || (s->needs & T2F_NEEDS_ADDRS);
}

static int t2f_session_init(struct t2f_session *s)
{
	int err;

	s->msg = s->o.message ? t2f_msg_sink__open(s->o.message, s->o.message_ctx)
			      : t2f_msg_sink__stderr();
	if (!s->msg)
		return -ENOMEM;
	err = t2f_diag__new(s->msg, &s->diag);
	if (err)
		return err;
	t2f_diag__set_strict(s->diag, s->o.strict);
	if (!s->o.max_frames)
		s->o.max_frames = T2F_DEFAULT_MAX_FRAMES;
	err = t2f_session_derive_opts(s);
	if (err)
		return err;
	s->needs = t2f_session_needs(s); /* after the derived events: speedscope's needs */
	t2f_session_resym_opts(s);
	err = t2f_session_filter_init(s);
	if (err)
		return err;
	return t2f_session_new_profile(s, s->o.max_frames, &s->profile);
}

int t2f_session_new_profile(const struct t2f_session *s, uint32_t max, struct t2f_profile **out)
{
	struct t2f_profile *p;
	int err = t2f_profile__new(&p);

	if (err)
		return err;
	t2f_profile__limit_frames(p, max);
	if (s->needs & T2F_NEEDS_TIMES)
		t2f_profile__want_times(p);
	if (s->needs & T2F_NEEDS_WAITS)
		t2f_profile__keep_waits(p); /* before the derive stage is made */
	err = s->needs & T2F_NEEDS_LOG ? t2f_profile__enable_log(p) : 0;
	if (!err && s->o.fold_threads && !(s->needs & T2F_NEEDS_THREADS))
		err = t2f_profile__fold_threads(p);
	if (!err && (s->needs & T2F_NEEDS_SAMPLE_TIMES))
		err = t2f_profile__enable_sample_times(p);
	if (!err && (s->needs & T2F_NEEDS_HIST))
		err = t2f_profile__enable_hist(p);
	if (!err)
		err = t2f_profile__enable_derive(p, &s->derive);
	/* merges append cells unmerged when every writer adds them up itself (pprof) */
	if (!err && !(s->needs & (T2F_NEEDS_MERGED_CELLS | T2F_NEEDS_LOG)) && !s->derive.kinds)
		t2f_profile__repeat_cells(p);
	if (err) {
		t2f_profile__free(p);
		p = NULL;
	}
	*out = p;
	return err;
}

void t2f_session_free(struct t2f_session *s)
{
	for (size_t i = 0; s && i < s->n_inputs; i++) {
		free((char *)s->stats[i].name);
		free(s->args[i]);
	}
	if (!s)
		return;
	for (size_t i = 0; i < s->n_added; i++) {
		free(s->added[i].name);
		free(s->added[i].message);
	}
	free(s->added);
	free(s->stats);
	free(s->args);
	t2f_resym__free(s->resym);
	t2f_sym_classes__free(s->classes);
	free(s->frame_as);
	t2f_symcache_ahead__free(s->ropts.cache_ahead); /* after the symbolizers borrowing it */
	t2f_prefetch__free(s->ropts.kallsyms_read);
	free(s->kallsyms_default);
	free(s->env_dirs);
	free(s->symbol_dirs);
	t2f_unwind_stats__free(&s->run.unwind);
	free(s->totals);
	t2f_profile__free(s->profile);
	t2f_filter__free(s->filter);
	t2f_diag__free(s->diag);
	if (s->msg)
		fclose(s->msg);
	free(s->error);
	free(s->last_output);
	free(s);
}

/* The T2F_FORMAT_BIT()s of every format the writer table has. */
static unsigned t2f_session_known_formats(void)
{
	unsigned bits = 0;

	for (int f = T2F_FORMAT_COLLAPSED; t2f_writer__of(f); f++)
		bits |= T2F_FORMAT_BIT(f);
	return bits;
}

int t2f_session_new(const struct t2f_options *o, struct t2f_session **out)
{
	struct t2f_session *s;
	int err;

	if (!out)
		return -EINVAL;
	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->start_ns = t2f_clock_ns();
	err = t2f_versioned__in(&s->o, sizeof(s->o), o, T2F_OPTIONS_SIZE_V1) ?:
	      t2f_versioned__zero(s->o.reserved, sizeof(s->o.reserved)) ?:
	      t2f_versioned__zero(s->o.reserved2, sizeof(s->o.reserved2));
	if (!err && (s->o.formats & ~t2f_session_known_formats() ||
		     (unsigned)s->o.symbol_rules > T2F_RULES_STRICT))
		err = -EINVAL; /* a format or rules this library does not know */
	if (!err)
		err = t2f_session_init(s);
	if (err)
		t2f_session_free(s);
	*out = err ? NULL : s;
	return err;
}

const char *t2f_session_error(const struct t2f_session *s)
{
	return s && s->error ? s->error : "";
}

int t2f_session_stats(const struct t2f_session *s, struct t2f_stats *st)
{
	struct t2f_stats all = { .size = sizeof(all) };
	t2f_event_id ev = s ? s->run.written : 0;

	if (!s || t2f_versioned__check_out(st, T2F_STATS_SIZE_V1))
		return -EINVAL;
	all.inputs = s->n_inputs;
	all.inputs_failed = s->n_added - s->n_inputs;
	for (size_t i = 0; i < s->n_inputs; i++)
		all.bytes += s->stats[i].bytes;
	all.samples = t2f_profile__samples_read(s->profile);
	all.events = t2f_profile__event_count(s->profile);
	all.threads = t2f_profile__thread_count(s->profile);
	all.frames = t2f_profile__frame_count(s->profile);
	if (ev && s->totals) {
		all.event = t2f_profile__str(s->profile, t2f_profile__event_at(s->profile, ev)->name,
					     NULL);
		all.event_samples = s->totals[ev].samples;
		all.event_weight = s->totals[ev].weight;
	}
	all.warnings = t2f_diag__warnings(s->diag);
	t2f_resym__counts(s->resym, &all.frames_tried, &all.frames_unresolved,
			  &all.frames_skipped);
	all.out_bytes = s->run.out_bytes;
	all.samples_filtered = t2f_profile__samples_dropped(s->profile, T2F_DROP_FILTERED);
	all.kallsyms_read = s->run.kallsyms_counts[0];
	all.kallsyms_shared = s->run.kallsyms_counts[1];
	t2f_versioned__out(st, &all, sizeof(all));
	return 0;
}

size_t t2f_session_module_count(const struct t2f_session *s)
{
	return s ? t2f_resym__module_count(s->resym) : 0;
}

int t2f_session_module(const struct t2f_session *s, size_t i, struct t2f_module_report *m)
{
	struct t2f_module_report all = { .size = sizeof(all) };

	if (!s || t2f_versioned__check_out(m, T2F_MODULE_REPORT_SIZE_V1))
		return -EINVAL;
	if (i >= t2f_resym__module_count(s->resym))
		return -ERANGE;
	t2f_resym__module(s->resym, i, &all);
	t2f_versioned__out(m, &all, sizeof(all));
	return 0;
}

void t2f_session_report(struct t2f_session *s, unsigned what)
{
	if (!s)
		return;
	if (what & T2F_REPORT_WARNINGS)
		t2f_diag__flush(s->diag);
	s->run.inputs = s->stats;
	s->run.n_inputs = s->n_inputs;
	s->run.warnings = t2f_diag__warnings(s->diag);
	s->run.seconds = (double)(t2f_clock_ns() - s->start_ns) / 1e9;
	if ((what & T2F_REPORT_STATS) && s->totals)
		t2f_report__stats(s->msg, s->profile, s->totals, &s->run);
	if (what & T2F_REPORT_STATS) {
		t2f_resym__print_stats(s->msg, s->resym);
		t2f_inlines__print_stats(s->msg, &s->inl);
	} else if ((what & T2F_REPORT_WARNINGS) && !s->o.quiet)
		t2f_resym__warn(s->msg, s->resym, s->label);
	if ((what & T2F_REPORT_WARNINGS) && !s->o.quiet)
		t2f_report__derived(s->msg, &s->run);
	if ((what & T2F_REPORT_SUMMARY) && s->last_output && s->state != T2F_SESSION_FAILED)
		t2f_report__summary(s->msg, s->profile, s->totals, &s->run, s->last_output);
	fflush(s->msg);
}

const char *t2f_version(void)
{
	return T2F_VERSION;
}

unsigned t2f_version_number(void)
{
	return T2F_VERSION_NUMBER;
}
