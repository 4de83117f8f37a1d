/* pipeline/session.h: what a libtrace2flame session (include/trace2flame.h) holds, shared by
 * session.c (life cycle, errors, stats, reports), session_add.c (inputs added, or left out
 * whole), session_read.c (an input read) and session_write.c (the resolve stage, outputs).
 * Internal to pipeline/.
 *
 * A session moves from reading (inputs added) to resolved (frames named, the event settled) on
 * its first t2f_session_resolve or write. An input that fails is left out and the session goes
 * on; a failure while resolving, or running out of memory while an input joins the profile,
 * makes it failed for good (its profile is incomplete). Used by one thread at a time.
 */
#ifndef T2F_SESSION_H
#define T2F_SESSION_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "formats/derive.h"
#include "formats/diag.h"
#include "formats/profile.h"
#include "formats/utf8.h"
#include "include/trace2flame.h"
#include "pipeline/report.h"
#include "pipeline/inlines.h"
#include "pipeline/resymbolize.h"
#include "pipeline/sym_classes.h"

enum t2f_session_state {
	T2F_SESSION_READING = 0,
	T2F_SESSION_RESOLVED,
	T2F_SESSION_FAILED,
};

/* An input added, read or left out (t2f_session_input). */
struct t2f_session_input {
	char *name;                        /* as messages name it */
	char *message;                     /* why it was left out, or NULL */
	int error;                         /* 0, or the error its add returned */
	uint64_t bytes, samples;
};

struct t2f_session {
	struct t2f_options o;              /* the caller's, missing fields zero */
	FILE *msg;                         /* where messages go: the callback's stream, or one onto
					    * stderr (pipeline/msg_sink.h); closed by free */
	struct t2f_diag *diag;
	struct t2f_profile *profile;
	unsigned needs;                    /* what the formats need kept (enum t2f_writer_needs) */
	struct t2f_derive_opts derive;     /* the derived events asked for (kinds 0: none) */
	enum t2f_session_state state;
	int failed;                        /* the error that failed it */
	char *error;                       /* the last failure's message, or NULL */
	uint64_t start_ns;
	/* inputs */
	struct t2f_input_stats *stats;     /* one per input read; .name owned */
	char **args;                       /* each input read as given ("-", a path), owned */
	size_t n_inputs, cap_inputs;
	struct t2f_session_input *added;   /* every input added, read or left out */
	size_t n_added, cap_added;
	bool nettrace;                     /* some input was a nettrace file */
	bool elsewhere;                    /* an input not shown to be recorded on this machine */
	int64_t recorded_by;               /* the earliest end of a recording made here (mtime) */
	char *kallsyms_default;            /* perf.data: the kallsyms file picked for it */
	char **env_dirs;                   /* the unwind stage's symbol dirs (NULL until needed): */
	const char **symbol_dirs;          /* (t2f_symbol_path_join) */
	/* the resolve stage */
	struct t2f_resym_opts ropts;
	struct t2f_resym *resym;           /* NULL when no frame needed resolving */
	struct t2f_sym_classes *classes;   /* perf.data frames' classes (pipeline/sym_classes.h)
					    * and the resolve stage's symbolizer, made at the first
					    * perf.data input that may use them; NULL: none */
	t2f_frame_id *frame_as;            /* per frame id below n_frame_as: the frame the
					    * stacks hold in its place (readers/perf_data_conv.h
					    * t2f_perf_data_conv__take_frame_as), or NULL */
	size_t n_frame_as;
	struct t2f_inline_stats inl;       /* inlined functions made frames (pipeline/inlines.h) */
	struct t2f_event_total *totals;    /* indexed by event id */
	struct t2f_run_stats run;
	char label[T2F_VISIBLE_MAX];       /* the inputs as warnings name them */
	char *last_output;                 /* the last path written, for the summary */
	struct t2f_filter *filter;         /* time, pids, tids, comms read (NULL: none) */
	atomic_int cancel;                 /* t2f_session_cancel's request (any thread, signal
					    * handlers), spent by the read it stops */
};

/* Where an input's bytes are: a path ("-": stdin), a descriptor or the caller's memory. */
struct t2f_source {
	const char *path;   /* NULL unless a path */
	int fd;             /* -1 unless a descriptor */
	const void *data;   /* the bytes when neither */
	size_t len;
	uint32_t index;     /* the input's index (its threads') */
};

/* The CPU time of the whole process (every thread), in ns; 0 when the clock is not there. */
uint64_t t2f_session_cpu_ns(void);

/* A profile as the session's formats need it (sample times, the log), holding at most max
 * distinct frames. 0 or -ENOMEM. */
int t2f_session_new_profile(const struct t2f_session *s, uint32_t max, struct t2f_profile **out);

/* Reads src into s->profile and src's session state (the resolve stage's options, perf.data
 * and nettrace facts, st). 0 or a negative error, its message in the diag; the profile and
 * that state then hold part of the input (pipeline/session_add.c puts them back). */
int t2f_session_read_source(struct t2f_session *s, const struct t2f_source *src,
			    struct t2f_input_stats *st);

/* Whether named frames keep their address through the inline stage: the resolve stage names
 * them all (--resymbolize), or pprof writes them (a location per address, for pprof -lines,
 * -disasm). Which frames keep theirs while reading: pipeline/session_read.c. */
bool t2f_session_keep_addrs(const struct t2f_session *s);

/* Records err's message for t2f_session_error (the diag's last error, else "WHAT: strerror")
 * and returns err. A read or resolve failure also fails the session (fail = true). */
int t2f_session_fail(struct t2f_session *s, int err, bool fail);

/* Records the message fmt... (no location) as the last failure's and returns err; fail: the
 * session fails for good. */
int t2f_session_say(struct t2f_session *s, int err, bool fail, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The sample filter (pipeline/session_filter.c): its options read (0; -EINVAL, the message
 * said; -ENOMEM), and input's filter (*out NULL: none) given its span (first and last sample
 * time, ns), or NULL when the input gives none (why: the message's reason). 0, -ENOMEM, or
 * -T2F_ERR_UNSUPPORTED (percentages without a span; the message in the diag). */
struct t2f_sample_filter;
int t2f_session_filter_init(struct t2f_session *s);
int t2f_session_sample_filter(struct t2f_session *s, const char *input, const char *why,
			      const uint64_t *span, struct t2f_sample_filter **out);

/* Whether t2f_session_cancel asked to stop reading; the request is spent (true once). */
bool t2f_session_cancelled(struct t2f_session *s);

/* Parser and writer threads: o.jobs, 0 = one per online CPU, at most 256. */
unsigned t2f_session_jobs(const struct t2f_session *s);

/* The inputs as a warning names them: the first ("<stdin>" for -), or the first and how many
 * more; control characters shown as \xNN. Set once reading ends. */
void t2f_session_set_label(struct t2f_session *s);

/* Whether the session was opened for format f (T2F_FORMAT_BIT in o.formats, or formats 0). */
bool t2f_session_has_format(const struct t2f_session *s, enum t2f_format f);

#endif
