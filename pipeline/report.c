/* pipeline/report.c: event totals, event selection messages, --stats and the summary. */
#include "pipeline/report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "formats/plural.h"
#include "formats/sat.h"
#include "formats/utf8.h"

#define T2F_MB (1024.0 * 1024.0)

int t2f_report__event_totals(const struct t2f_profile *p, struct t2f_event_total **out)
{
	uint32_t n = t2f_profile__event_count(p);
	size_t cells = t2f_profile__cell_count(p);
	struct t2f_event_total *t = calloc((size_t)n + 1, sizeof(*t));

	*out = NULL;
	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < cells; i++) {
		const struct t2f_cell *c = t2f_profile__cell_at(p, i);

		if (c->event > n)
			continue; /* not a valid id: nothing to add it to */
		t[c->event].samples += c->samples;
		t[c->event].weight = t2f_sat_add(t[c->event].weight, c->weight);
		t[0].samples += c->samples;
		t[0].weight = t2f_sat_add(t[0].weight, c->weight);
	}
	*out = t;
	return 0;
}

/* An event's name as the input gave it, shown with control characters as "\xNN" (vis holds the
 * copy when one is needed). */
static const char *t2f_event_name(const struct t2f_profile *p, t2f_event_id id,
				  char vis[T2F_VISIBLE_MAX])
{
	return t2f_utf8_visible(t2f_profile__str(p, t2f_profile__event_at(p, id)->name, NULL), vis,
				T2F_VISIBLE_MAX);
}

static const char *t2f_unit_name(enum t2f_unit u)
{
	return u == T2F_UNIT_NANOSECONDS ? "ns" : "count";
}

/* "a (N samples), b (M samples)" for every event with samples except `skip`; the count listed. */
static unsigned t2f_report_list(FILE *f, const struct t2f_profile *p,
				const struct t2f_event_total *t, t2f_event_id skip)
{
	uint32_t n = t2f_profile__event_count(p);
	unsigned listed = 0;
	char vis[T2F_VISIBLE_MAX];

	for (t2f_event_id e = 1; e <= n; e++) {
		if (e == skip || !t[e].samples)
			continue;
		fprintf(f, "%s%s (%" PRIu64 " sample%s)", listed ? ", " : "",
			t2f_event_name(p, e, vis), t[e].samples, t2f_plural(t[e].samples));
		listed++;
	}
	return listed;
}

int t2f_report__pick_event(FILE *f, const struct t2f_profile *p, const struct t2f_event_total *t,
			   const char *name, t2f_event_id *out)
{
	uint32_t n = t2f_profile__event_count(p);

	*out = 0;
	if (name) {
		*out = t2f_profile__find_event(p, name);
		if (*out)
			return 0;
		fprintf(f, "no event '%s' in the input; ", name);
		if (!t[0].samples) {
			fputs("it has no samples", f);
			return -ENOENT;
		}
		fputs("it has: ", f);
		t2f_report_list(f, p, t, 0);
		return -ENOENT;
	}
	for (t2f_event_id e = 1; e <= n; e++) {
		if (t[e].samples) {
			*out = e;
			break;
		}
	}
	return 0;
}

void t2f_report__other_events(FILE *f, const char *label, const struct t2f_profile *p,
			      const struct t2f_event_total *t, t2f_event_id written)
{
	char vis[T2F_VISIBLE_MAX];

	if (!written || t[written].samples == t[0].samples)
		return;
	fprintf(f, "trace2flame: warning: %s: writing only event '%s' (%" PRIu64 " sample%s); "
		"the input also has: ", label, t2f_event_name(p, written, vis), t[written].samples,
		t2f_plural(t[written].samples));
	t2f_report_list(f, p, t, written);
	fputs("; choose one with t2f_options.event\n", f);
}

static void t2f_report_inputs(FILE *f, const struct t2f_run_stats *s)
{
	for (size_t i = 0; i < s->n_inputs; i++) {
		const struct t2f_input_stats *in = &s->inputs[i];
		char vis[T2F_VISIBLE_MAX];

		fprintf(f, "  input %s: %" PRIu64 " byte%s", t2f_utf8_visible(in->name, vis, sizeof(vis)),
			in->bytes, t2f_plural(in->bytes));
		if (in->text_bytes != in->bytes)
			fprintf(f, " (%" PRIu64 " byte%s of text)", in->text_bytes,
				t2f_plural(in->text_bytes));
		fprintf(f, ", %" PRIu64 " line%s\n", in->lines, t2f_plural(in->lines));
	}
}

/* read = kept + dropped, the drop reasons, and what event selection left out. */
static void t2f_report_samples(FILE *f, const struct t2f_profile *p,
			       const struct t2f_event_total *t, const struct t2f_run_stats *s)
{
	uint64_t read = t2f_profile__samples_read(p), dropped = 0;
	uint64_t kept = t[0].samples - s->derive.samples; /* derived ones were never read */

	for (int r = 0; r < T2F_DROP__COUNT; r++)
		dropped += t2f_profile__samples_dropped(p, (enum t2f_drop_reason)r);
	fprintf(f, "  samples: %" PRIu64 " read = %" PRIu64 " kept + %" PRIu64 " dropped", read,
		kept, dropped);
	if (read != kept + dropped)
		fprintf(f, " (MISMATCH: %" PRId64 " unaccounted)", (int64_t)(read - kept - dropped));
	fputc('\n', f);
	if (s->derived)
		fprintf(f, "    derived (off-cpu, wall): %" PRIu64 "\n", s->derive.samples);
	for (int r = 0; r < T2F_DROP__COUNT; r++)
		fprintf(f, "    dropped (%s): %" PRIu64 "\n",
			t2f_drop_reason_name((enum t2f_drop_reason)r),
			t2f_profile__samples_dropped(p, (enum t2f_drop_reason)r));
	fprintf(f, "    kept without a call chain (the thread alone): %" PRIu64 "\n",
		t2f_profile__chainless_samples(p));
	fprintf(f, "    lost while recording: %" PRIu64 " samples (LOST_SAMPLES records), %" PRIu64
		" events in %" PRIu64 " LOST records\n", t2f_profile__lost(p)->samples,
		t2f_profile__lost(p)->events, t2f_profile__lost(p)->records);
	fprintf(f, "    written: %" PRIu64 "\n", s->written ? t[s->written].samples : 0);
	fprintf(f, "    not written (other events): %" PRIu64 "\n",
		t[0].samples - (s->written ? t[s->written].samples : 0));
}

static void t2f_report_events(FILE *f, const struct t2f_profile *p,
			      const struct t2f_event_total *t, t2f_event_id written)
{
	uint32_t n = t2f_profile__event_count(p);
	char vis[T2F_VISIBLE_MAX];

	for (t2f_event_id e = 1; e <= n; e++) {
		const struct t2f_event *ev = t2f_profile__event_at(p, e);

		fprintf(f, "  event %s%s: %" PRIu64 " sample%s, weight %" PRIu64 " %s%s\n",
			t2f_event_name(p, e, vis), e == written ? " (written)" : "", t[e].samples,
			t2f_plural(t[e].samples), t[e].weight,
			ev->has_period ? t2f_unit_name(ev->unit) : "sample",
			ev->has_period ? "" : t2f_plural(t[e].weight));
	}
}

/* --call-graph dwarf samples: how their user stacks were unwound, every sample in one line. */
static void t2f_report_unwind(FILE *f, const struct t2f_profile *p, uint64_t dwarf,
			      const struct t2f_unwind_stats *u)
{
	if (!dwarf)
		return;
	fprintf(f, "    --call-graph dwarf samples: %" PRIu64 "; user stacks unwound: %" PRIu64
		" (%" PRIu64 " frame%s), without user registers (kernel threads): %" PRIu64 "\n",
		dwarf, u->samples - u->stops[T2F_UNWIND_NO_REGS], u->frames, t2f_plural(u->frames),
		dwarf - u->samples + u->stops[T2F_UNWIND_NO_REGS]);
	fprintf(f, "      walked through decoded call-frame rules: %" PRIu64 ", by libdwfl's "
		"unwinder: %" PRIu64 "\n", u->rules, u->samples - u->rules);
	for (int w = 0; w < T2F_UNWIND_STOPS; w++)
		if (u->stops[w] && w != T2F_UNWIND_NO_REGS)
			fprintf(f, "      %s %s: %" PRIu64 "\n", w ? "stopped:" : "to the end:",
				t2f_unwind_stop_name(w), u->stops[w]);
	for (size_t i = 0; i < u->n_modules; i++) {
		const struct t2f_unwind_module_stats *m = &u->modules[i];

		fprintf(f, "      stopped in %s:", m->path ? t2f_profile__str(p, m->path, NULL) :
			"[unknown]");
		for (int w = 1; w < T2F_UNWIND_STOPS; w++)
			if (m->stops[w])
				fprintf(f, " %s %" PRIu64 ";", t2f_unwind_stop_name(w), m->stops[w]);
		fputc('\n', f);
	}
}

/* perf.data inputs: what the records said besides the samples kept, and where kernel names
 * came from. */
static void t2f_report_perf_data(FILE *f, const struct t2f_profile *p,
				 const struct t2f_run_stats *s)
{
	const struct t2f_perf_data_conv_stats *c = &s->perf;

	if (!s->perf_data)
		return;
	fprintf(f, "  perf.data: %" PRIu64 " record%s, %" PRIu64 " sample%s\n", c->records,
		t2f_plural(c->records), c->samples, t2f_plural(c->samples));
	t2f_report_unwind(f, p, c->dwarf, &s->unwind);
	fprintf(f, "    records skipped (undecodable, or of no recorded event): %" PRIu64 "\n",
		c->skipped);
	if (c->probe_read_ns)
		fprintf(f, "    data section: %s (a 4 MiB window mapped in %.0f us, read in %.0f us)"
			"\n", c->mapped ? "mapped in windows" : "read in blocks",
			(double)c->probe_map_ns / 1e3, (double)c->probe_read_ns / 1e3);
	if (c->read_ahead)
		fprintf(f, "    data section: %" PRIu64 " block%s read ahead on a thread while the one "
			"before was decoded\n", c->read_ahead, t2f_plural(c->read_ahead));
	if (c->stacks_whole)
		fprintf(f, "    data section: %" PRIu64 " stack cop%s kept whole until unwound, not "
			"read again from the file\n", c->stacks_whole,
			c->stacks_whole == 1 ? "y" : "ies");
	if (c->classed)
		fprintf(f, "    user frames read as another that the symbol cache names alike: %"
			PRIu64 "\n", c->classed);
	if (c->truncated_bytes)
		fprintf(f, "    truncated: the last record's %" PRIu64 " byte%s cut off\n",
			c->truncated_bytes, c->truncated_bytes == 1 ? " is" : "s are");
	if (s->kallsyms || !c->kernel_frames)
		fprintf(f, "    kernel frames (distinct addresses): %" PRIu64 ", named from %s\n",
			c->kernel_frames, s->kallsyms ? s->kallsyms : "-");
	else
		fprintf(f, "    kernel frames (distinct addresses) unresolved: %" PRIu64 " (%s)\n",
			c->kernel_frames,
			s->kallsyms_why ? s->kallsyms_why : "no kallsyms");
}

void t2f_report__stats(FILE *f, struct t2f_profile *p, const struct t2f_event_total *t,
		       const struct t2f_run_stats *s)
{
	uint64_t bytes = 0, text = 0;

	for (size_t i = 0; i < s->n_inputs; i++) {
		bytes += s->inputs[i].bytes;
		text += s->inputs[i].text_bytes;
	}
	fputs("trace2flame: stats:\n", f);
	t2f_report_inputs(f, s);
	t2f_report_samples(f, p, t, s);
	t2f_report_perf_data(f, p, s);
	t2f_report_events(f, p, t, s->written);
	fprintf(f, "  threads: %" PRIu32 "\n  stack nodes: %" PRIu32 "\n  frames: %" PRIu32
		"\n  module maps: %" PRIu32 "\n  strings: %" PRIu32 "\n",
		t2f_profile__thread_count(p), t2f_profile__node_count(p),
		t2f_profile__frame_count(p), t2f_profile__module_map_count(p),
		t2f_strtab__count(t2f_profile__strtab(p)));
	if (s->derived)
		fprintf(f, "  off-CPU waits: %" PRIu64 " closed, %" PRIu64 " open at the end, %"
			PRIu64 " without a switch-in, %" PRIu64 " switch-outs in a state not "
			"selected, %" PRIu64 " sched_switch payloads not readable\n",
			s->derive.waits, s->derive.open_at_end, s->derive.no_switch_in,
			s->derive.not_selected, s->derive.undecoded);
	if (s->kallsyms_counts[0] || s->kallsyms_counts[1] || s->kallsyms_counts[2])
		fprintf(f, "  kallsyms: %" PRIu64 " read, %" PRIu64 " shared (read before in this "
			"process)", s->kallsyms_counts[0], s->kallsyms_counts[1]);
	if (s->kallsyms_counts[2])
		fprintf(f, ", %" PRIu64 " from the symbol cache (kept by an earlier run)",
			s->kallsyms_counts[2]);
	if (s->kallsyms_counts[3])
		fprintf(f, ", %" PRIu64 " of the reads perf's copy in ~/.debug/[kernel.kallsyms]/ "
			"(it matched /proc/kallsyms)", s->kallsyms_counts[3]);
	if (s->kallsyms_counts[0] || s->kallsyms_counts[1] || s->kallsyms_counts[2])
		fputc('\n', f);
	fprintf(f, "  warnings: %" PRIu64 "\n", s->warnings);
	fprintf(f, "  model memory: %.1f MB\n", (double)t2f_profile__bytes(p) / T2F_MB);
	fprintf(f, "  output: %" PRIu64 " byte%s\n", s->out_bytes, t2f_plural(s->out_bytes));
	fprintf(f, "  elapsed: %.3f s, %.1f MB/s (%.1f MB read, %.1f MB of text)\n", s->seconds,
		s->seconds > 0 ? (double)text / T2F_MB / s->seconds : 0.0, (double)bytes / T2F_MB,
		(double)text / T2F_MB);
	fprintf(f, "  time: read %.3f s, names %.3f s (CPU %.3f s), write %.3f s\n",
		s->read_seconds, s->names_seconds, s->names_cpu,
		s->seconds - s->read_seconds - s->names_seconds);
}

void t2f_report__summary(FILE *f, const struct t2f_profile *p, const struct t2f_event_total *t,
			 const struct t2f_run_stats *s, const char *output)
{
	char vis[T2F_VISIBLE_MAX];

	uint64_t samples = s->written ? t[s->written].samples : 0;
	uint32_t threads = t2f_profile__thread_count(p);

	fprintf(f, "trace2flame: wrote %s: %" PRIu64 " sample%s", output, samples,
		t2f_plural(samples));
	if (s->written)
		fprintf(f, " of %s", t2f_event_name(p, s->written, vis));
	fprintf(f, ", %" PRIu32 " thread%s, %" PRIu64 " byte%s in %.2f s\n", threads,
		t2f_plural(threads), s->out_bytes, t2f_plural(s->out_bytes), s->seconds);
}

static int t2f_report_cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* The distinct command names of p's threads, as string ids, into *out (malloc'd); their count,
 * or -1 when out of memory. */
static long t2f_report_comms(const struct t2f_profile *p, uint32_t **out)
{
	uint32_t nt = t2f_profile__thread_count(p);
	uint32_t *ids = malloc(((size_t)nt + 1) * sizeof(*ids));
	long k = 0;

	*out = ids;
	if (!ids)
		return -1;
	for (t2f_thread_id th = 1; th <= nt; th++)
		ids[th - 1] = t2f_profile__thread_at(p, th)->comm;
	qsort(ids, nt, sizeof(*ids), t2f_report_cmp_u32);
	for (uint32_t i = 0; i < nt; i++)
		if (k == 0 || ids[i] != ids[k - 1])
			ids[k++] = ids[i];
	return k;
}

/* Two command names equal as a differential graph's roots: spaces as '_'. */
static bool t2f_report_same_root(const char *a, size_t alen, const char *b, size_t blen)
{
	if (alen != blen)
		return false;
	for (size_t i = 0; i < alen; i++)
		if (a[i] != b[i] && !(a[i] == ' ' && b[i] == '_') && !(a[i] == '_' && b[i] == ' '))
			return false;
	return true;
}

void t2f_report__diff_roots(FILE *f, const char *before, const struct t2f_profile *pb,
			    const char *after, const struct t2f_profile *pa)
{
	uint32_t *ib, *ia;
	long nb = t2f_report_comms(pb, &ib), na = t2f_report_comms(pa, &ia);
	bool shared = nb < 0 || na < 0 || nb == 0 || na == 0;

	for (long i = 0; !shared && i < nb; i++) {
		size_t bl, al;
		const char *bs = t2f_profile__str(pb, ib[i], &bl);

		for (long j = 0; !shared && j < na; j++) {
			const char *as = t2f_profile__str(pa, ia[j], &al);

			shared = t2f_report_same_root(bs, bl, as, al);
		}
	}
	free(ib);
	free(ia);
	if (!shared)
		fprintf(f, "trace2flame: warning: %s and %s share no command name, the root of every "
			"stack, so no frame matches (each shows as new); "
			"t2f_write_options.no_thread_root compares the stacks below it\n", before,
			after);
}

void t2f_report__derived(FILE *f, const struct t2f_run_stats *s)
{
	const struct t2f_derive_counts *c = &s->derive;

	if (!s->derived || (!c->open_at_end && !c->no_switch_in && !c->undecoded))
		return;
	fprintf(f, "trace2flame: off-CPU time: %" PRIu64 " wait%s still open at the end of the "
		"recording and %" PRIu64 " whose switch-in was never seen are left out (%" PRIu64
		" counted)", c->open_at_end, t2f_plural(c->open_at_end), c->no_switch_in,
		c->waits);
	if (c->undecoded)
		fprintf(f, "; %" PRIu64 " sched_switch sample%s without a readable payload",
			c->undecoded, t2f_plural(c->undecoded));
	fputc('\n', f);
}
