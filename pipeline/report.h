/* pipeline/report.h: what a session tells the user about a conversion besides the output itself:
 * per-event sample totals, the event it writes (and the others it leaves out), --stats, and the
 * one-line summary. Everything goes to the FILE given (stderr in the CLI). Reads the profile only.
 */
#ifndef T2F_REPORT_H
#define T2F_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "formats/derive.h"
#include "formats/profile.h"
#include "pipeline/unwind.h"
#include "readers/perf_data_conv.h"

/* Samples and weight kept for one event, summed over the profile's cells. */
struct t2f_event_total {
	uint64_t samples;
	uint64_t weight;
};

/* One calloc'd array indexed by event id (1..event_count; [0] is the sum over every event).
 * 0 or -ENOMEM; free() it. */
int t2f_report__event_totals(const struct t2f_profile *p, struct t2f_event_total **out);

/* The event to write: `name` when given, else the first event that kept samples (0 when the
 * profile has none). -ENOENT when `name` is not in the profile: the error, listing the events
 * present, is printed on f (one line, no newline). */
int t2f_report__pick_event(FILE *f, const struct t2f_profile *p, const struct t2f_event_total *t,
			   const char *name, t2f_event_id *out);

/* The once-per-run warning when `written` is not the only event with samples; label names the
 * input(s) it is about. */
void t2f_report__other_events(FILE *f, const char *label, const struct t2f_profile *p,
			      const struct t2f_event_total *t, t2f_event_id written);

/* A warning on f naming both inputs and --ignore-comm when two profiles share no command name
 * (the root of a differential graph's stacks, its spaces as '_' as in collapsed output).
 * Nothing is said when out of memory. */
void t2f_report__diff_roots(FILE *f, const char *before, const struct t2f_profile *pb,
			    const char *after, const struct t2f_profile *pa);

/* What --stats shows about one input. */
struct t2f_input_stats {
	const char *name;
	uint64_t bytes;       /* read from disk or the pipe (compressed size for .gz/.zst) */
	uint64_t text_bytes;  /* after decompression */
	uint64_t lines;
};

struct t2f_run_stats {
	const struct t2f_input_stats *inputs;
	size_t n_inputs;
	t2f_event_id written;  /* the event written (0: none) */
	uint64_t warnings;
	uint64_t out_bytes;
	double seconds;        /* reading and writing */
	double read_seconds;   /* of which reading the inputs */
	double names_seconds;  /* and naming frames (re-symbolization) */
	double names_cpu;      /* the process's CPU seconds while naming (all its threads') */
	bool perf_data;        /* some input was a perf.data file: */
	struct t2f_perf_data_conv_stats perf; /* summed over them */
	struct t2f_unwind_stats unwind; /* their --call-graph dwarf samples' user stacks */
	const char *kallsyms;  /* the kallsyms file kernel frames were named from, or NULL, */
	const char *kallsyms_why; /* and then why none (static text) */
	uint64_t kallsyms_counts[4]; /* it was read: [0]; the process's table taken: [1]; the
				      * symbol cache's table of an earlier run taken: [2]; of the
				      * reads, perf's copy (symbolizer/kallsyms_copy.h): [3] */
	bool derived;          /* a derived event was asked for (formats/derive.h): */
	struct t2f_derive_counts derive; /* summed over the inputs */
};

void t2f_report__stats(FILE *f, struct t2f_profile *p, const struct t2f_event_total *t,
		       const struct t2f_run_stats *s);

/* What the derive stage left out (waits without their end), unless nothing: a line to f. */
void t2f_report__derived(FILE *f, const struct t2f_run_stats *s);

/* "trace2flame: wrote OUTPUT: N samples of EVENT, S stacks, T threads in X s". */
void t2f_report__summary(FILE *f, const struct t2f_profile *p, const struct t2f_event_total *t,
			 const struct t2f_run_stats *s, const char *output);

#endif
