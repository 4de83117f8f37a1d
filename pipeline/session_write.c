/* pipeline/session_write.c: the resolve stage and the outputs of a session
 * (t2f_session_resolve, t2f_session_write_path, _fd, _mem).
 *
 * Order matters for the "never clobber" rule: the resolve stage (every input read, the event
 * checked) runs before the output's temp file is created, so a bad input leaves an existing
 * output untouched.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "formats/clock.h"
#include "formats/plural.h"
#include "formats/sat.h"
#include "pipeline/outfile.h"
#include "pipeline/session.h"
#include "pipeline/versioned.h"
#include "pipeline/writer_table.h"

/* --call-graph dwarf samples whose user stacks stopped short of their outermost frame: how
 * many, and the main reasons, said without --stats. */
static void t2f_warn_unwind(struct t2f_session *s)
{
	const struct t2f_unwind_stats *u = &s->run.unwind;
	uint64_t short_ = u->samples - u->stops[T2F_UNWIND_END] - u->stops[T2F_UNWIND_NO_REGS];
	const char *sep = "";

	if (!short_ || s->o.quiet)
		return;
	fprintf(s->msg, "trace2flame: warning: %s: %" PRIu64 " of %" PRIu64 " user stack%s "
		"(--call-graph dwarf) stop%s before %s outermost frame (", s->label, short_,
		u->samples, t2f_plural(u->samples), short_ == 1 ? "s" : "",
		short_ == 1 ? "its" : "their");
	for (int w = T2F_UNWIND_END + 1; w < T2F_UNWIND_STOPS; w++) {
		if (!u->stops[w] || w == T2F_UNWIND_NO_REGS)
			continue;
		fprintf(s->msg, "%s%s: %" PRIu64, sep, t2f_unwind_stop_name(w), u->stops[w]);
		sep = ", ";
	}
	fprintf(s->msg, ")%s; T2F_REPORT_STATS lists them by module\n",
		u->stops[T2F_UNWIND_MEMORY] ? "; a larger copy keeps more: perf record "
		"--call-graph dwarf,65528" : "");
}

/* What perf lost while recording (PERF_RECORD_LOST, LOST_SAMPLES), in perf report's terms: its
 * "Total Lost Samples" and "lost N chunks". */
static void t2f_warn_lost(struct t2f_session *s)
{
	const struct t2f_lost *l = t2f_profile__lost(s->profile);
	uint64_t read = t2f_profile__samples_read(s->profile);

	if ((!l->samples && !l->records) || s->o.quiet)
		return;
	fprintf(s->msg, "trace2flame: warning: %s: the recording lost ", s->label);
	if (l->samples) /* as a share of the samples there would have been, as perf report says */
		fprintf(s->msg, "%" PRIu64 " of %" PRIu64 " samples (%.1f%%)%s", l->samples,
			t2f_sat_add(read, l->samples),
			100.0 * (double)l->samples / ((double)read + (double)l->samples),
			l->records ? " and " : "");
	if (l->records)
		fprintf(s->msg, "%" PRIu64 " chunk%s (%" PRIu64 " events)", l->records,
			l->records == 1 ? "" : "s", l->events);
	fputs(": perf could not keep up, and the profile lacks them; a larger buffer (perf record "
	      "-m) or a lower frequency (-F) loses fewer\n", s->msg);
}

/* What the inputs lacked that the output shows, said without asking: what the recording lost;
 * no samples at all (a warning, an error when strict); user stacks of --call-graph dwarf
 * samples cut short. 0 or -T2F_ERR_FORMAT (strict). */
static int t2f_warn_lacking(struct t2f_session *s)
{
	t2f_warn_lost(s);
	t2f_warn_unwind(s);
	if (t2f_profile__samples_read(s->profile) == 0)
		return t2f_diag__warn(s->diag, s->label, 0, "no samples in the input: the output is "
				      "empty");
	return 0;
}

/* What saturated instead of wrapping (formats/sat.h), said once per session. 0, or
 * -T2F_ERR_FORMAT when strict. */
static int t2f_warn_saturated(struct t2f_session *s)
{
	uint64_t past = t2f_profile__times_past(s->profile);
	int err = 0;

	if (t2f_profile__weights_capped(s->profile))
		err = t2f_diag__warn(s->diag, s->label, 0, "weights summed past "
				     "18446744073709551615 were capped there: the largest totals "
				     "are not exact");
	if (!err && past)
		err = t2f_diag__warn(s->diag, s->label, 0, "%" PRIu64 " sample%s time%s past "
				     "2^64 ns: left out of the time span", past,
				     past == 1 ? " has a" : "s have", t2f_plural(past));
	return err;
}

/* The event to write: the options' when given (T2F_ERR_NO_EVENT, its message listing the events
 * there are, when absent), else the first with samples. */
static int t2f_pick_event(struct t2f_session *s)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int err;

	if (!f)
		return -ENOMEM;
	err = t2f_report__pick_event(f, s->profile, s->totals, s->o.event, &s->run.written);
	fclose(f);
	if (err == -ENOENT) {
		err = t2f_session_say(s, -T2F_ERR_NO_EVENT, true, "%s", text ? text : "");
	}
	free(text);
	return err;
}

/* Inlined functions as frames of their own, where DWARF was found. */
static int t2f_inline(struct t2f_session *s)
{
	const struct t2f_inline_opts io = { .no_params = s->ropts.no_params,
					    .drop_addrs = !t2f_session_keep_addrs(s),
					    .drop_unnamed = !s->o.addrs,
					    .threads = t2f_session_jobs(s) };
	int err;

	if (s->o.no_inline || !s->resym)
		return 0;
	err = t2f_inlines__expand(s->profile, s->resym, &io, &s->inl);
	if (err == -ENOMEM || err == -T2F_ERR_LIMIT)
		t2f_diag__error(s->diag, err, s->label, 0, "%s while making inlined functions frames",
				err == -ENOMEM ? "out of memory" : "too many frames");
	return err;
}

/* Names the frames perf could not, counts the events, settles the event. */
static int t2f_resolve(struct t2f_session *s)
{
	uint64_t cpu = t2f_session_cpu_ns();
	int err;

	t2f_session_set_label(s);
	s->run.read_seconds = (double)(t2f_clock_ns() - s->start_ns) / 1e9;
	/* beside the resolve stage and the writer's tables; not begun: the writer makes them */
	(void)t2f_profile__sums_begin(s->profile);
	err = t2f_warn_lacking(s);
	if (err)
		return err;
	s->run.kallsyms = s->ropts.kallsyms;
	s->ropts.kallsyms_counts = s->run.kallsyms_counts;
	s->ropts.kallsyms_lazy = !s->o.kallsyms; /* picked for a recording: read when needed */
	s->ropts.nettrace = s->nettrace;
	s->ropts.trust_by = s->elsewhere ? 0 : s->recorded_by;
	/* nothing looks the profile up from here on (the inline stage builds its new stacks
	 * elsewhere): the memory of its indexes is the symbol files' meanwhile */
	t2f_profile__drop_indexes(s->profile);
	s->ropts.sym = t2f_sym_classes__take(s->classes); /* taken by the run */
	s->ropts.frame_as = s->frame_as;
	s->ropts.n_frame_as = s->n_frame_as;
	err = t2f_resym__run(s->profile, &s->ropts, s->diag, &s->resym);
	s->ropts.sym = NULL;
	err = err ?: t2f_inline(s);
	if (!err)
		t2f_resym__save(s->resym);
	err = err ?: t2f_report__event_totals(s->profile, &s->totals);
	s->run.names_seconds = (double)(t2f_clock_ns() - s->start_ns) / 1e9 -
			       s->run.read_seconds;
	s->run.names_cpu = (double)(t2f_session_cpu_ns() - cpu) / 1e9;
	if (err)
		return err;
	err = t2f_pick_event(s);
	if (err)
		return err;
	if (!s->o.quiet && !s->o.event)
		t2f_report__other_events(s->msg, s->label, s->profile, s->totals, s->run.written);
	return t2f_warn_saturated(s);
}

int t2f_session_resolve(struct t2f_session *s)
{
	int err;

	if (!s)
		return -EINVAL;
	if (s->state == T2F_SESSION_RESOLVED)
		return 0;
	if (s->state == T2F_SESSION_FAILED)
		return t2f_session_say(s, -T2F_ERR_STATE, false, "an earlier step failed (%s): the "
				       "profile is incomplete", t2f_strerror(s->failed));
	err = t2f_resolve(s);
	if (err == -T2F_ERR_NO_EVENT) /* said */
		return err;
	if (err)
		return t2f_session_fail(s, err, true);
	s->state = T2F_SESSION_RESOLVED;
	return 0;
}

/* With a differential graph and no event asked for, each profile picked its first: BEFORE
 * writes AFTER's event (when it has it). *mine, *theirs: the events this and the other write. */
static void t2f_diff_events(const struct t2f_session *s, const struct t2f_write_options *w,
			    t2f_event_id *mine, t2f_event_id *theirs)
{
	const struct t2f_session *after = w->diff_is_after ? w->diff : s;
	const struct t2f_session *before = w->diff_is_after ? s : w->diff;
	const char *name;
	t2f_event_id ev;

	*mine = s->run.written;
	*theirs = w->diff->run.written;
	if (s->o.event || !*mine || !*theirs)
		return;
	name = t2f_profile__str(after->profile,
			       t2f_profile__event_at(after->profile, after->run.written)->name,
			       NULL);
	ev = t2f_profile__find_event(before->profile, name);
	if (ev && before == s)
		*mine = ev;
	else if (ev)
		*theirs = ev;
}

/* An SVG of the derived event wall shows its off-CPU part (formats/derive.h): the event
 * off-cpu, derived beside it; 0 for any other event. */
static t2f_event_id t2f_split_event(const struct t2f_session *s, t2f_event_id ev)
{
	const struct t2f_event *e = ev ? t2f_profile__event_at(s->profile, ev) : NULL;

	if (!e || !(s->derive.kinds & T2F_DERIVE_WALL) ||
	    strcmp(t2f_profile__str(s->profile, e->name, NULL), "wall") != 0)
		return 0;
	return t2f_profile__find_event(s->profile, "off-cpu");
}

/* What the writer is given. */
static void t2f_write_opts_of(const struct t2f_session *s, const struct t2f_write_options *w,
			      struct t2f_write_opts *wo)
{
	t2f_event_id mine = s->run.written, theirs = 0;

	if (w->diff)
		t2f_diff_events(s, w, &mine, &theirs);
	*wo = (struct t2f_write_opts){
		.event = mine,
		.weight_samples = s->o.weight_samples,
		.pid = w->pid,
		.tid = w->tid,
		.names = { .raw_names = s->o.raw_names, .kernel = w->kernel, .jit = w->jit,
			   .inlined = w->inlined, .addrs = s->o.addrs },
		.input = w->input_name ? w->input_name
			 : s->n_inputs != 1 ? s->label /* "no input" too */
			 : strcmp(s->args[0], "-") == 0 ? "standard input" : s->args[0],
		.input_given = w->input_name != NULL,
		.threads = t2f_session_jobs(s),
		.heatmap_rows = w->heatmap_rows,
		.derived = s->derive.kinds != 0,
		.svg = {
			.title = w->title,
			.subtitle = w->subtitle,
			.count_name = w->count_name,
			.width = w->width,
			.min_width = w->min_width,
			.colors = w->colors,
			.hash = w->hash,
			.reverse = w->reverse,
			.icicle = w->icicle,
			.flamechart = w->flamechart,
			.diff = w->diff ? w->diff->profile : NULL,
			.diff_event = theirs,
			.diff_is_after = w->diff_is_after,
			.no_thread_root = w->no_thread_root,
			.split_event = t2f_split_event(s, mine),
		},
	};
}

/* Said once per write: what the format cannot hold exactly. 0 or -T2F_ERR_FORMAT (strict). */
static int t2f_warn_format(struct t2f_session *s, const struct t2f_write_options *w)
{
	t2f_event_id ev = s->run.written;

	if (w->format == T2F_FORMAT_PPROF && ev && s->totals[ev].weight > (uint64_t)INT64_MAX)
		return t2f_diag__warn(s->diag, s->label, 0, "pprof values are signed 64-bit "
				      "numbers: sums past 9223372036854775807 are written as that");
	return 0;
}

/* Checks a write's arguments and the session's state, resolving first if need be, then says
 * what the format cannot hold exactly. 0, or the error, recorded. */
static int t2f_write_check(struct t2f_session *s, const struct t2f_write_options *wopts,
			   struct t2f_write_options *w)
{
	const struct t2f_writer *wr;
	struct t2f_write_opts wo;
	int err;

	err = t2f_versioned__in(w, sizeof(*w), wopts, T2F_WRITE_OPTIONS_SIZE_V1) ?:
	      t2f_versioned__zero(w->reserved, sizeof(w->reserved)) ?:
	      t2f_versioned__zero(&w->reserved2, sizeof(w->reserved2));
	if (err)
		return t2f_session_say(s, err, false, "bad write options: %s", err == -E2BIG ?
				       "a field this library does not know is set (a newer header's)"
				       : "NULL, or a size below the first version's");
	wr = t2f_writer__of(w->format);
	if (!wr || (w->diff && (w->diff == s || w->format != T2F_FORMAT_SVG)) ||
	    (unsigned)w->colors > T2F_COLORS_KIND)
		return t2f_session_say(s, -EINVAL, false, "bad write options: an unknown format "
				       "or colors, or a differential graph that is not SVG or "
				       "against itself");
	t2f_write_opts_of(s, w, &wo);
	if (s->profile && t2f_profile__folds_threads(s->profile) &&
	    (wr->needs(&wo) & T2F_NEEDS_THREADS))
		return t2f_session_say(s, -T2F_ERR_STATE, false, "%s: it tells threads of one name "
				       "apart, which the session counted together (fold_threads)",
				       wr->said);
	if (!t2f_session_has_format(s, w->format) ||
	    (wr->needs(&wo) & ~s->needs & ~T2F_NEEDS_THREADS))
		return t2f_session_say(s, -T2F_ERR_STATE, false, "%s: not among the formats the "
				       "session was opened for (or it needs the samples in time "
				       "order: time_order)", wr->said);
	if (w->diff && w->diff->state != T2F_SESSION_RESOLVED)
		return t2f_session_say(s, -T2F_ERR_STATE, false, "the session compared with is not "
				       "resolved");
	if (w->diff && t2f_profile__repeats_cells(w->diff->profile))
		return t2f_session_say(s, -T2F_ERR_STATE, false, "the session compared with was "
				       "opened for pprof alone (its cells are not merged)");
	err = t2f_session_resolve(s);
	if (!err && (err = t2f_warn_format(s, w)))
		t2f_session_fail(s, err, false);
	if (!err && wr->check) {
		char msg[512];

		t2f_write_opts_of(s, w, &wo); /* the event is settled now */
		err = wr->check(s->profile, &wo, msg, sizeof(msg));
		if (err)
			return t2f_session_say(s, err, false, "%s: %s", s->label, msg);
	}
	return err;
}

/* Runs the writer into out; the caller finishes out. */
static int t2f_write_into(struct t2f_session *s, const struct t2f_write_options *w,
			  struct t2f_out *out, const char *name)
{
	struct t2f_write_opts wo;
	int err;

	if (w->diff && !w->no_thread_root && !s->o.quiet) {
		const struct t2f_session *b = w->diff_is_after ? s : w->diff;
		const struct t2f_session *a = w->diff_is_after ? w->diff : s;

		t2f_report__diff_roots(s->msg, b->label, b->profile, a->label, a->profile);
	}
	/* writers look nothing up: the memory of the lookup indexes is theirs meanwhile */
	t2f_profile__drop_indexes(s->profile);
	t2f_write_opts_of(s, w, &wo);
	wo.gzip = strlen(name) > 3 && strcmp(name + strlen(name) - 3, ".gz") == 0;
	err = t2f_writer__of(w->format)->write(s->profile, &wo, out);
	s->run.out_bytes = t2f_out__bytes(out);
	if (err)
		return t2f_diag__error(s->diag, err, name, 0, "cannot write (%s)",
				       t2f_strerror(err));
	return 0;
}

int t2f_session_write_path(struct t2f_session *s, const struct t2f_write_options *wopts,
			   const char *path)
{
	struct t2f_write_options w;
	struct t2f_outfile *f = NULL;
	int err;

	if (!s)
		return -EINVAL;
	free(s->last_output);
	s->last_output = NULL;
	err = t2f_write_check(s, wopts, &w);
	if (err)
		return err; /* recorded */
	err = t2f_outfile__open(path, s->o.signals, s->diag, &f);
	if (!err)
		err = t2f_write_into(s, &w, t2f_outfile__out(f), t2f_outfile__name(f)) ?:
		      t2f_outfile__commit(f);
	t2f_outfile__free(f);
	if (!err && path && strcmp(path, "-") != 0)
		s->last_output = strdup(path);
	return err ? t2f_session_fail(s, err, false) : 0;
}

int t2f_session_write_fd(struct t2f_session *s, const struct t2f_write_options *wopts, int fd)
{
	struct t2f_write_options w;
	struct t2f_out *out = NULL;
	char name[32];
	int err;

	if (!s)
		return -EINVAL;
	if (fd < 0)
		return t2f_session_say(s, -EBADF, false, "a negative file descriptor");
	snprintf(name, sizeof(name), "<fd %d>", fd);
	err = t2f_write_check(s, wopts, &w);
	if (err)
		return err; /* recorded */
	err = t2f_out__new(fd, &out);
	if (!err)
		err = t2f_write_into(s, &w, out, name);
	if (!err && (err = t2f_out__finish(out)))
		t2f_diag__error(s->diag, err, name, 0, "cannot write (%s)", t2f_strerror(err));
	t2f_out__free(out);
	return err ? t2f_session_fail(s, err, false) : 0;
}

int t2f_session_write_mem(struct t2f_session *s, const struct t2f_write_options *wopts,
			  char **buf, size_t *len)
{
	struct t2f_write_options w;
	struct t2f_out *out = NULL;
	int err;

	if (!s)
		return -EINVAL;
	if (!buf || !len)
		return t2f_session_say(s, -EINVAL, false, "no place for the output's bytes (NULL)");
	*buf = NULL;
	*len = 0;
	err = t2f_write_check(s, wopts, &w);
	if (err)
		return err; /* recorded */
	err = t2f_out__new_mem(&out);
	if (!err)
		err = t2f_write_into(s, &w, out, "<memory>");
	if (!err && (err = t2f_out__take(out, buf, len)))
		t2f_diag__error(s->diag, err, "<memory>", 0, "cannot write (%s)", t2f_strerror(err));
	t2f_out__free(out);
	return err ? t2f_session_fail(s, err, false) : 0;
}
