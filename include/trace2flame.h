/* trace2flame.h: libtrace2flame, profile conversion as a C library.
 *
 * A session reads one or more inputs (perf script text, perf.data, .nettrace, folded stacks;
 * plain, gzip or zstd; the format found from the content) into one profile, names the frames
 * the recording left unnamed (the resolve stage), and writes the profile as collapsed stacks,
 * speedscope JSON, pprof or an SVG flame graph, to a path (atomically), a descriptor or memory.
 *
 *     struct t2f_options o = { .size = sizeof(o), .formats = T2F_FORMAT_BIT(T2F_FORMAT_PPROF) };
 *     struct t2f_write_options w = { .size = sizeof(w), .format = T2F_FORMAT_PPROF };
 *     struct t2f_session *s;
 *     int err = t2f_session_new(&o, &s);
 *     if (!err)
 *             err = t2f_session_add_path(s, "perf.data");
 *     if (!err)
 *             err = t2f_session_write_path(s, &w, "profile.pb.gz");
 *     if (err)
 *             fprintf(stderr, "%s\n", s ? t2f_session_error(s) : t2f_strerror(err));
 *     t2f_session_free(s);
 *
 * Errors: every function that can fail returns 0 or a negative code: -errno (-ENOMEM, -EINVAL
 * for a bad argument, -EIO ...), or -T2F_ERR_* (trace2flame_enums.h). t2f_strerror() names a
 * code; a session also keeps the message of its last failure ("FILE:LINE: what was
 * expected"), from t2f_session_error().
 *
 * Messages: warnings about the input (rate limited: 5 of a kind, then a count) and the notes a
 * user should see (an event left out, frames left unresolved) go, one line at a time, to the
 * message callback of the options, or to stderr when it is NULL. Errors are returned, not sent.
 * The callback runs during a library call, on the calling thread or on a thread the library
 * started for that call (-j: parser, unwinder and writer threads); never two at once, never
 * after the call returned. It must not call the library on the same session.
 *
 * Signals: the library never raises SIGPIPE in its caller, whatever its disposition. A write to
 * a pipe or socket whose reader is gone (t2f_session_write_fd, _path to "-" or a FIFO) returns
 * -EPIPE; messages to a stderr closed that way are dropped. The calling thread blocks SIGPIPE
 * during each such write and, when the write raised it, takes it (sigtimedwait) before restoring
 * its mask; a SIGPIPE already pending before the write is left alone. (The `signals` option is
 * apart: it ends the process on a SIGPIPE sent to it while a temp file exists.)
 *
 * Versioning: the library follows semantic versioning. T2F_VERSION_MAJOR, _MINOR and _PATCH
 * below are the header's version; t2f_version_number() is the library's at run time (a program
 * may run with a newer one than it was built with; never with an older one, whose missing
 * functions the dynamic linker refuses by their version node, TRACE2FLAME_0.1 for the first
 * release's, TRACE2FLAME_0.2 for the functions 0.2 added). Within one major version the ABI only
 * grows, as libbpf's does:
 *  - a struct passed by pointer starts with `size`, which the caller sets to its sizeof. The
 *    first release's sizes are frozen (T2F_*_SIZE_V1); fields are only ever added at the end
 *    (or in a `reserved` field), and no struct has tail padding, so a size tells the version.
 *  - a struct the caller fills (options, modules) may be of any size from its _SIZE_V1 up: the
 *    fields a caller's older header lacks read as zero (their default), and every byte this
 *    library does not know (`reserved` fields, a newer caller's fields past its sizeof) must be
 *    zero, else the call fails with -E2BIG: a nonzero byte there asks for something this
 *    library cannot do. Designated initializers (`= { .size = sizeof(x), ... }`) zero them.
 *    A size below _SIZE_V1 is -EINVAL.
 *  - a struct the library fills (stats, reports, symbols) is filled up to the caller's size,
 *    which must be at least its _SIZE_V1 (else -EINVAL): the fields this library does not know
 *    are set to zero, those the caller's header lacks left out; `size` is left as it was.
 *    Arrays of them (t2f_symbols_inlines) take their stride from the first element's size.
 *  - enumerations only gain values; a value this library does not know is -EINVAL.
 *  - structs the library passes to a callback (t2f_elf_symbol) only gain fields at the end: a
 *    field added in version X.Y exists when t2f_version_number() >= T2F_MAKE_VERSION(X, Y, 0).
 *
 * Ownership: strings passed in are copied or used during the call only, unless a field says
 * otherwise. Strings returned are owned by the session and valid until its next call. Buffers
 * returned to the caller (t2f_session_write_mem, t2f_demangle_name, t2f_symbol_name) are freed
 * with t2f_free().
 * Thread safety: a session is used by one thread at a time (it may start threads of its own
 * while reading and writing, -j); different sessions are independent. t2f_strerror() and
 * t2f_version() are thread safe.
 */
#ifndef TRACE2FLAME_H
#define TRACE2FLAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* enum t2f_error (T2F_ERR_*), t2f_symbol_rules, t2f_colors, t2f_module_kind, t2f_space and
 * t2f_refusal_reason. */
#include "trace2flame_enums.h"

#ifdef __cplusplus
extern "C" {
#endif

#define T2F_API __attribute__((visibility("default")))

/* This header's version; the library's: t2f_version_number(), t2f_version(). */
#define T2F_VERSION_MAJOR 0
#define T2F_VERSION_MINOR 2
#define T2F_VERSION_PATCH 0
/* A version as one number, MAJOR * 10000 + MINOR * 100 + PATCH (0.1.0: 100; 1.2.3: 10203). */
#define T2F_MAKE_VERSION(major, minor, patch) ((major) * 10000 + (minor) * 100 + (patch))
#define T2F_VERSION_NUMBER \
	T2F_MAKE_VERSION(T2F_VERSION_MAJOR, T2F_VERSION_MINOR, T2F_VERSION_PATCH)

/* The bytes of `type` up to and with its `field`: a first release's size (T2F_*_SIZE_V1). */
#define T2F_SIZE_TO(type, field) (offsetof(type, field) + sizeof(((type *)0)->field))

enum t2f_format {
	T2F_FORMAT_NONE = 0,
	T2F_FORMAT_COLLAPSED,   /* folded stacks, as flamegraph.pl and inferno read them */
	T2F_FORMAT_SPEEDSCOPE,  /* speedscope's file format (JSON) */
	T2F_FORMAT_PPROF,       /* pprof's profile.proto, gzip-compressed */
	T2F_FORMAT_SVG,         /* an interactive flame graph */
	T2F_FORMAT_FIREFOX,     /* the Firefox Profiler's processed profile (JSON; gzip when the
				 * output's name ends in .gz) */
	T2F_FORMAT_HEATMAP,     /* a heat map of the samples over time (SVG): seconds across,
				 * parts of a second down */
};
#define T2F_FORMAT_BIT(f) (1u << (f))

/* A line to show the user, without a trailing newline ("trace2flame: warning: ..."). */
typedef void (*t2f_message_fn)(void *ctx, const char *line);
/* An input being read: done of total bytes (total 0: unknown, as for a pipe): at the start,
 * after each chunk or segment of text (at most a few MiB), each .nettrace block (4 MiB), about
 * every MiB of a perf.data file, and once more with finished set when its reading ends (read
 * or failed; an input that cannot be opened, or is no trace, may have no call at all). The resolve stage reports each debug file it fetches from a debuginfod server the
 * same way, input then being "debuginfod:" and the build-id in hex. Called on the thread of the
 * add call. */
typedef void (*t2f_progress_fn)(void *ctx, const char *input, uint64_t done, uint64_t total,
				bool finished);

/* A session's options (t2f_session_new). Zero is every field's default. */
struct t2f_options {
	size_t size;                    /* sizeof(struct t2f_options) */
	const char *event;              /* the event to write (NULL: the first with samples) */
	t2f_message_fn message;         /* NULL: stderr */
	void *message_ctx;
	t2f_progress_fn progress;       /* NULL: none */
	void *progress_ctx;
	/* The resolve stage (t2f_session_resolve). */
	const char *const *symbol_dirs; /* where binaries are looked for: NULL-terminated, or
					 * NULL; then the colon-separated T2F_SYMBOL_PATH's */
	const char *const *debug_dirs;  /* debug file roots: NULL-terminated; NULL: /usr/lib/debug */
	const char *buildids;           /* a `perf buildid-list` file, or NULL */
	const char *kallsyms;           /* a kallsyms file for kernel frames, or NULL */
	const char *perf_map_dir;       /* where perf-PID.map files are, or NULL: as recorded */
	/* What will be written: T2F_FORMAT_BIT()s of the formats (0: any). Decides what the
	 * profile keeps while reading (sample times, every address, argument lists, source lines
	 * from DWARF), never the bytes of an output: each is written as by a session opened for
	 * its format alone. */
	unsigned formats;
	unsigned jobs;                  /* parser threads: 0 = one per CPU, 1 = none */
	unsigned max_frames;            /* distinct frames at most (0: 2,000,000) */
	enum t2f_symbol_rules symbol_rules;
	bool weight_samples;            /* 1 per sample instead of the period */
	bool addrs;                     /* frames perf left unnamed keep their address */
	bool raw_names;                 /* names as recorded, not demangled (symbol versions are
					 * cut all the same: "cfree", not "cfree@GLIBC_2.2.5") */
	bool time_order;                /* keep every sample in time order, as an SVG flame chart
					 * needs (speedscope keeps it anyway) */
	bool signals;                   /* while t2f_session_write_path has a temp file, SIGINT,
					 * SIGTERM, SIGHUP, SIGQUIT, SIGPIPE and SIGXFSZ remove it
					 * and end the process (handlers installed once; one such
					 * output at a time in the process); so too the temp file
					 * of a debug file being fetched from a debuginfod server */
	bool strict;                    /* the first warning is an error (T2F_ERR_FORMAT) */
	bool quiet;                     /* no messages but errors' */
	bool resymbolize;               /* resolve: every frame with an address, not only
					 * unnamed ones */
	bool unsafe_build_id_match;     /* resolve: name frames of modules with no build-id
					 * known */
	bool offline;                   /* never fetch debug files from the debuginfod servers of
					 * DEBUGINFOD_URLS (fetched when not found locally, within
					 * the bounds the T2F_DEBUGINFOD_* variables set: see the
					 * man page's ENVIRONMENT) */
	bool no_inline;                 /* no inlined functions from DWARF as frames of their own
					 * (on by default where a module's DWARF is found) */
	bool unwind_libdwfl;            /* perf.data --call-graph dwarf samples unwound by
					 * libdwfl's unwinder alone, not through the decoded rules
					 * first (slower; the frames are the same) */
	bool fold_threads;              /* no write will tell threads of one command name apart
					 * (collapsed stacks without pid or tid): when the
					 * formats allow it (formats is T2F_FORMAT_COLLAPSED
					 * alone), samples of threads of one name and input are
					 * counted together while reading, which takes much less
					 * memory on recordings of many short threads; a collapsed
					 * write with pid or tid then fails with T2F_ERR_STATE */
	uint8_t reserved[3];            /* zero */
	/* Fields after the first release (T2F_OPTIONS_SIZE_V1). Which samples are read, as perf
	 * script's options of the same names select them (docs/usage.md); the others are left
	 * out, counted in the stats (samples_filtered). NULL or "": every sample. A string this
	 * library cannot read makes t2f_session_new fail with -EINVAL, the message naming the
	 * field and what was expected going to the message callback. */
	const char *time;               /* "START,STOP" in seconds (either side empty; several
					 * ranges separated by spaces) or percentages of the
					 * input's span: "10%", "10%/2", "0%-10%", "10%/1,10%/3" */
	const char *pids, *tids;        /* comma-separated process, thread ids */
	const char *comms;              /* comma-separated command names */
	/* Past the first release's size. With event "off-cpu" or "wall" (derived from sched_switch samples and
	 * context switches: the man page's OFF-CPU TIME), the states a thread may leave the CPU
	 * in to count: letters R (preempted), S (sleeping), D (uninterruptible), O (any other),
	 * "S,D" or "SD"; NULL: all. Another letter: t2f_session_new gives -EINVAL. */
	const char *off_cpu_states;
	/* Past the first release's size. The symbol cache (docs/symbols.md, Symbol cache): what
	 * the resolve stage found for each module with a build-id is kept in $T2F_CACHE_DIR, else
	 * $XDG_CACHE_HOME/trace2flame, else ~/.cache/trace2flame, and the next run naming the same
	 * addresses of the same files reads no ELF file or DWARF again. */
	uint64_t cache_max;             /* bytes the directory may hold: the least recently used
					 * files are removed past it; 0: $T2F_CACHE_MAX, else
					 * 512 MiB */
	bool no_cache;                  /* neither read nor write the cache */
	uint8_t reserved2[7];           /* zero */
};
#define T2F_OPTIONS_SIZE_V1 T2F_SIZE_TO(struct t2f_options, reserved)

struct t2f_session;

/* How a profile is written (t2f_session_write_*). Zero is every field's default. */
struct t2f_write_options {
	size_t size;                    /* sizeof(struct t2f_write_options) */
	const char *input_name;         /* the name the output gives the input (NULL: the inputs) */
	/* SVG */
	const char *title, *subtitle, *count_name;
	/* A differential graph: this session's shape, colored by the change from diff (another
	 * session, read, resolved (t2f_session_resolve; else T2F_ERR_STATE) and not freed until
	 * the call returns). diff_is_after: diff is the later profile (this one is the earlier).
	 * Without event, both use this session's event. */
	const struct t2f_session *diff;
	double min_width;               /* SVG: narrower frames are left out, in pixels; 0: 0.1;
					 * below 0: none is */
	enum t2f_format format;
	enum t2f_colors colors;         /* SVG */
	unsigned width;                 /* SVG: pixels; 0: 1200 */
	bool pid, tid;                  /* collapsed: root frames comm-PID, comm-PID/TID */
	bool kernel, jit, inlined;      /* the _[k], _[j] and _[i] marks on kernel, JIT and
					 * inlined frames */
	bool hash, reverse, icicle, flamechart; /* SVG */
	bool diff_is_after;
	bool no_thread_root;            /* leave out the command name root (matching stacks
					 * below it) */
	uint8_t reserved[1];            /* zero */
	/* Past the first release's size. The heat map: rows per second, dividing 100 (each a
	 * whole number of 10 ms); 0: 50 (20 ms each). Another number: the write gives -EINVAL. */
	uint32_t heatmap_rows;
	uint32_t reserved2;             /* zero */
};
#define T2F_WRITE_OPTIONS_SIZE_V1 T2F_SIZE_TO(struct t2f_write_options, reserved)

/* ---- Output formats ----
 *
 * The formats this library writes, as descriptors: what they are called, which output names
 * pick them, which options change them. They are numbered densely from T2F_FORMAT_COLLAPSED to
 * t2f_format_count() (a library newer than this header may know more than the enum names).
 * Everything here is static and thread safe.
 */

/* The options that change a format's output (t2f_format_info.uses); the others are ignored by
 * it (the command line warns of them). */
enum t2f_format_uses {
	T2F_USES_WEIGHT = 1u << 0,      /* t2f_options.weight_samples */
	T2F_USES_ROOT_IDS = 1u << 1,    /* t2f_write_options.pid, .tid */
	T2F_USES_MARKS = 1u << 2,       /* t2f_write_options.kernel, .jit, .inlined;
					 * t2f_options.raw_names */
	T2F_USES_ADDRS = 1u << 3,       /* t2f_options.addrs */
	T2F_USES_SVG = 1u << 4,         /* t2f_write_options.title ... flamechart, diff */
	T2F_USES_HEATMAP = 1u << 5,     /* t2f_write_options.heatmap_rows */
};

struct t2f_format_info {
	size_t size;                    /* sizeof(struct t2f_format_info), set by the caller */
	const char *name;               /* its name, as the command line's -f takes it: "svg" */
	const char *title;              /* in a list of formats: "collapsed stacks", "SVG" */
	const char *said;               /* what messages call its output: "SVG output" */
	const char *description;        /* one line: "an interactive flame graph" */
	const char *ext;                /* the extension of an output named after its input */
	const char *const *extensions;  /* the endings of output names that pick it (the longest
					 * match wins), NULL-terminated */
	unsigned uses;                  /* enum t2f_format_uses */
	uint32_t reserved;              /* zero */
};
#define T2F_FORMAT_INFO_SIZE_V1 T2F_SIZE_TO(struct t2f_format_info, reserved)

/* The number of formats: they are 1 .. t2f_format_count(). */
T2F_API size_t t2f_format_count(void);
/* Fills out (out->size set by the caller) with format f's descriptor; the strings are static.
 * 0, or -EINVAL (a format this library does not know, NULL, a size below
 * T2F_FORMAT_INFO_SIZE_V1). */
T2F_API int t2f_format_info(enum t2f_format f, struct t2f_format_info *out);
/* The format a name gives ("collapsed", or "folded" for it, "svg" ...); T2F_FORMAT_NONE when
 * none (or NULL). */
T2F_API enum t2f_format t2f_format_by_name(const char *name);
/* The format an output's file name picks by its ending (the longest that matches:
 * "x.speedscope.json" is speedscope, "x.json" too, "x.pb.gz" pprof); T2F_FORMAT_NONE when none
 * (or NULL). */
T2F_API enum t2f_format t2f_format_by_path(const char *path);

/* A new session with options o (copied; the strings and arrays it points to must outlive the
 * session). 0, -ENOMEM, -EINVAL (o or out NULL, a size below T2F_OPTIONS_SIZE_V1, a format or
 * symbol_rules this library does not know), or -E2BIG (a nonzero byte this library does not
 * know: see Versioning). */
T2F_API int t2f_session_new(const struct t2f_options *o, struct t2f_session **out);
/* Frees s and everything it returned. NULL is fine. */
T2F_API void t2f_session_free(struct t2f_session *s);

/* Reads an input into the session's profile; its format is found from the first bytes.
 * path "-" is standard input. name: what messages call the input (NULL: "<fd N>",
 * "<memory>"). perf.data is read from a path or a descriptor of a regular file. An input in
 * which nothing is a sample (a program, a speedscope or SVG file, plain text) is the error
 * T2F_ERR_FORMAT, its message naming what the input is. 0, or a negative error (the message in
 * t2f_session_error and in the input's report, t2f_session_input): the input is then left out
 * whole, the profile and the session as before the call, and the session goes on (the next
 * input, resolve, write). -ECANCELED when t2f_session_cancel stopped it; -T2F_ERR_STATE after
 * the resolve stage. The exception: running out
 * of memory while a read input joins the profile (-ENOMEM, the message saying so) leaves the
 * profile incomplete: only t2f_session_error, _stats, _input and _free are then of use. */
T2F_API int t2f_session_add_path(struct t2f_session *s, const char *path);
T2F_API int t2f_session_add_fd(struct t2f_session *s, int fd, const char *name);
T2F_API int t2f_session_add_bytes(struct t2f_session *s, const void *data, size_t len,
				  const char *name);

/* Asks s to stop reading: the add call running on s (or, when none is, the next one) returns
 * -ECANCELED at its next check, between perf.data records (every 256), chunks or segments of
 * text (at most a few MiB) and .nettrace blocks (4 MiB), the input left out as a failed one is
 * (the session goes on: the inputs read before are kept, resolve and write work). The request
 * is then spent. The resolve stage and writes do not stop for it (a request made then waits
 * for the next add). Safe from a signal handler and from any thread (an atomic store, nothing
 * else) while s is not being freed. */
T2F_API void t2f_session_cancel(struct t2f_session *s);

/* The resolve stage: names frames left unnamed through ELF symbol tables (found by build-id
 * and path), kallsyms and perf maps, per the options; then settles the event written. Done
 * once, after the last input; the first write does it when not called. 0 or a negative error
 * (T2F_ERR_NO_EVENT when the options' event is not in the inputs). A session given no input
 * is resolved as one whose inputs hold no samples: the warning "no samples in the input" (with
 * strict, the error T2F_ERR_FORMAT), then an empty profile. */
T2F_API int t2f_session_resolve(struct t2f_session *s);

/* Writes the profile. To a path: a temp file beside it, renamed over it when complete ("-":
 * stdout), with the mode of the regular file it replaces and its owner and group where the
 * process may give them (set-user-ID and set-group-ID bits only with both; a new file 0666 &
 * ~umask); to a descriptor (not closed); or to memory (*buf the caller's: t2f_free() it; *len
 * bytes).
 * The format must be one the session was opened for. A session given no input writes an empty
 * profile, the bytes an input without samples gives (see t2f_session_resolve). 0 or a negative
 * error. */
T2F_API int t2f_session_write_path(struct t2f_session *s, const struct t2f_write_options *w,
				   const char *path);
T2F_API int t2f_session_write_fd(struct t2f_session *s, const struct t2f_write_options *w,
				 int fd);
T2F_API int t2f_session_write_mem(struct t2f_session *s, const struct t2f_write_options *w,
				  char **buf, size_t *len);

/* The message of the last failure, or "" when none. */
T2F_API const char *t2f_session_error(const struct t2f_session *s);

/* One input added (t2f_session_add_*), read or left out. */
struct t2f_input_report {
	size_t size;                    /* sizeof(struct t2f_input_report), set by the caller */
	const char *name;               /* as messages name it ("<stdin>", "<fd 3>", the path) */
	const char *message;            /* why it was left out (as t2f_session_error said), or "" */
	uint64_t bytes;                 /* bytes read of it (compressed size for .gz, .zst) */
	uint64_t samples;               /* samples read from it (0 when it was left out) */
	int error;                      /* 0: read; else the error its add returned (left out) */
	uint32_t reserved;              /* zero */
};
#define T2F_INPUT_REPORT_SIZE_V1 T2F_SIZE_TO(struct t2f_input_report, reserved)
/* The inputs added, in order: their count, and report i: 0, -ERANGE past the last, -EINVAL
 * (NULL, a size below T2F_INPUT_REPORT_SIZE_V1). The strings stay valid until the session is
 * freed. */
T2F_API size_t t2f_session_input_count(const struct t2f_session *s);
T2F_API int t2f_session_input(const struct t2f_session *s, size_t i, struct t2f_input_report *r);

struct t2f_stats {
	size_t size;                    /* sizeof(struct t2f_stats), set by the caller */
	const char *event;              /* the event written (after resolve), or NULL */
	uint64_t inputs;                /* inputs read */
	uint64_t inputs_failed;         /* inputs left out (their add failed) */
	uint64_t bytes;                 /* bytes read (compressed size for .gz, .zst) */
	uint64_t samples;               /* samples read */
	uint64_t events, threads, frames; /* distinct ones in the profile */
	uint64_t event_samples;         /* the event's samples */
	uint64_t event_weight;          /* and their summed weight */
	uint64_t warnings;              /* warnings issued (shown or not) */
	uint64_t frames_tried;          /* frames the resolve stage looked up */
	uint64_t frames_unresolved;     /* of which left unnamed */
	uint64_t frames_skipped;        /* not looked up: no build-id known, or no mapping */
	uint64_t out_bytes;             /* bytes of the last output written */
	/* Fields after the first release (T2F_STATS_SIZE_V1). */
	uint64_t samples_filtered;      /* samples left out by time, pids, tids, comms (of
					 * samples: they are read, not kept) */
	/* Past the first release's size. The kallsyms file kernel frames were named from
	 * (t2f_options.kallsyms, or the one a perf.data input picked): 1 in kallsyms_read when
	 * this session read and indexed it, 1 in kallsyms_shared when it took the table an
	 * earlier (or concurrent) session of the process read from the same, unchanged file
	 * (t2f_share_limit). */
	uint64_t kallsyms_read, kallsyms_shared;
};
#define T2F_STATS_SIZE_V1 T2F_SIZE_TO(struct t2f_stats, out_bytes)
/* Fills st (st->size set by the caller): what the session holds now, whenever it is called.
 * 0, or -EINVAL (NULL, a size below T2F_STATS_SIZE_V1). */
T2F_API int t2f_session_stats(const struct t2f_session *s, struct t2f_stats *st);

/* What the resolve stage did for one module (a path the trace named). */
struct t2f_module_report {
	size_t size;                    /* sizeof(struct t2f_module_report), set by the caller */
	const char *path;               /* as the trace names it */
	const char *file;               /* the file it was named from (ELF, kallsyms or perf map),
					 * or NULL */
	const char *build_id;           /* the build-id it was verified against (hex), or "" */
	enum t2f_module_kind kind;
	uint32_t reserved;              /* zero */
	uint64_t resolved;              /* frames named */
	uint64_t unresolved;            /* frames looked up and not named */
	uint64_t skipped;               /* frames not looked up (no build-id, no mapping) */
	uint64_t refused;               /* candidate files refused (another build-id) */
};
#define T2F_MODULE_REPORT_SIZE_V1 T2F_SIZE_TO(struct t2f_module_report, refused)
/* Modules the resolve stage looked at: their count (0 before it), and report i: 0, -ERANGE
 * past the last, -EINVAL (NULL, a size below T2F_MODULE_REPORT_SIZE_V1). */
T2F_API size_t t2f_session_module_count(const struct t2f_session *s);
T2F_API int t2f_session_module(const struct t2f_session *s, size_t i,
			       struct t2f_module_report *m);

/* What the command line prints after a conversion, through the message callback:
 * T2F_REPORT_STATS the statistics of --stats; T2F_REPORT_WARNINGS what went worse than expected
 * (counts of repeated warnings, frames left unresolved); T2F_REPORT_SUMMARY one line naming
 * the last output path written. */
enum t2f_report {
	T2F_REPORT_WARNINGS = 1u << 0,
	T2F_REPORT_STATS = 1u << 1,
	T2F_REPORT_SUMMARY = 1u << 2,
};
T2F_API void t2f_session_report(struct t2f_session *s, unsigned what);

/* ---- The symbolizer alone ----
 *
 * Modules (an ELF file by its recorded path, its build-id, or both) and addresses in one of
 * three spaces; the symbols come from the module's file or a debug file, found and verified by
 * build-id as the resolve stage does (debug directories, the debuginfod client cache, perf's
 * build-id cache, symbol directories, .gnu_debuglink, the file itself). A module without a
 * build-id is not looked up unless unsafe_build_id_match. Warnings go to the message callback.
 * Used by one thread at a time.
 */
struct t2f_symbols;

struct t2f_symbols_options {
	size_t size;                    /* sizeof(struct t2f_symbols_options) */
	const char *const *symbol_dirs; /* NULL-terminated, or NULL; then T2F_SYMBOL_PATH's */
	const char *const *debug_dirs;  /* NULL-terminated; NULL: /usr/lib/debug */
	t2f_message_fn message;         /* NULL: stderr */
	void *message_ctx;
	enum t2f_symbol_rules rules;    /* AUTO: strict */
	bool raw_names;                 /* names as in the symbol table (mangled), but without
					 * their symbol version */
	bool no_params;                 /* demangled without parameter lists */
	bool unsafe_build_id_match;
	bool offline;                   /* never fetch from DEBUGINFOD_URLS' servers */
	bool signals;                   /* while a debug file is fetched from a debuginfod server,
					 * SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE and SIGXFSZ
					 * remove its temp file and end the process (as
					 * t2f_options.signals) */
	bool cache;                     /* was reserved[0]: use the symbol cache as a session does
					 * (t2f_options.no_cache, docs/symbols.md): answers read
					 * from it, new ones written by t2f_symbols_free. A module
					 * without a build-id takes its file's own (read from its
					 * path) to be cached; false: no cache */
	uint8_t reserved[6];            /* zero */
};
#define T2F_SYMBOLS_OPTIONS_SIZE_V1 T2F_SIZE_TO(struct t2f_symbols_options, reserved)

struct t2f_module {
	size_t size;                    /* sizeof(struct t2f_module) */
	const char *path;               /* as recorded; NULL: found by build_id alone */
	const char *build_id;           /* hex, or NULL */
	uint64_t map_start, map_end, map_pgoff; /* the mapping (T2F_SPACE_ABS) */
	uint64_t p_vaddr, p_offset, page_size; /* the executable PT_LOAD segment (has_segment) */
	uint64_t exec_pgoff, exec_len;  /* the executable mapping (has_exec) */
	bool has_segment;               /* the executable PT_LOAD segment, when the trace gives it */
	bool has_exec;                  /* the file's executable mapping, for file offsets when only
					 * a debug file is found: its page offset and length */
	uint8_t reserved[6];            /* zero */
};
#define T2F_MODULE_SIZE_V1 T2F_SIZE_TO(struct t2f_module, reserved)

struct t2f_symbol {
	size_t size;                    /* sizeof(struct t2f_symbol), set by the caller */
	const char *name;               /* the function, or NULL on a miss; never with a symbol
					 * version ("cfree", not "cfree@GLIBC_2.2.5"; "malloc@plt"
					 * is no version) */
	const char *miss;               /* NULL on a hit, else why ("not found", "no file",
					 * "not ELF", "no build-id", "build-id mismatch" ...) */
	const char *file;               /* the file the symbols came from, or NULL */
	uint64_t offset;                /* of the address from the function's start */
	uint64_t elf_vaddr;             /* the address in the ELF's space, when it was mapped */
};
#define T2F_SYMBOL_SIZE_V1 T2F_SIZE_TO(struct t2f_symbol, elf_vaddr)

/* 0, -EINVAL (NULL, a size below T2F_SYMBOLS_OPTIONS_SIZE_V1, rules this library does not
 * know), -E2BIG (see Versioning), -ENOMEM. */
T2F_API int t2f_symbols_new(const struct t2f_symbols_options *o, struct t2f_symbols **out);
T2F_API void t2f_symbols_free(struct t2f_symbols *s);
/* Registers a module (copied); ids count from 0. 0, -EINVAL (no path nor build-id, a build-id
 * that is not hex, a size below T2F_MODULE_SIZE_V1), -E2BIG (see Versioning), -ENOMEM. The
 * file is looked for on the first lookup. */
T2F_API int t2f_symbols_add_module(struct t2f_symbols *s, const struct t2f_module *m,
				   uint32_t *id);
/* The function at addr (in `space`) of module id. A miss is a result (out->miss), not an
 * error. 0, -EINVAL (unknown module or space, NULL, a size below T2F_SYMBOL_SIZE_V1), -ENOMEM.
 * The strings stay valid until the next call on s. */
T2F_API int t2f_symbols_resolve(struct t2f_symbols *s, uint32_t module, enum t2f_space space,
				uint64_t addr, struct t2f_symbol *out);

/* One level of an inline chain. */
struct t2f_source_frame {
	size_t size;                    /* sizeof(struct t2f_source_frame): see below */
	const char *name;               /* demangled per the options; NULL when DWARF names none */
	const char *file;               /* the source file, or NULL */
	uint32_t line;                  /* 0 when unknown */
	uint32_t reserved;              /* zero */
};
#define T2F_SOURCE_FRAME_SIZE_V1 T2F_SIZE_TO(struct t2f_source_frame, reserved)
/* The functions whose code is at addr (in `space`) of module id, from the DWARF of its symbol
 * file, innermost first: out[0] the innermost inlined function with the line of the address,
 * each next one the function it was inlined into with the line of that call, the last the
 * function that holds the code (as `addr2line -i -f` prints them); at most max. out[0].size is
 * the array's stride, sizeof(struct t2f_source_frame) (at least T2F_SOURCE_FRAME_SIZE_V1): each
 * frame written gets that size. The number of frames (0: no DWARF covers the address), or
 * -EINVAL (NULL with max > 0, a stride below the V1 size), -ENOMEM. The strings stay valid
 * until the next call on s. */
T2F_API int t2f_symbols_inlines(struct t2f_symbols *s, uint32_t module, enum t2f_space space,
				uint64_t addr, struct t2f_source_frame *out, size_t max);

struct t2f_refused {
	size_t size;                    /* sizeof(struct t2f_refused), set by the caller */
	const char *path;
	const char *why;                /* the reason in words */
	const char *found_id;           /* the candidate's build-id (hex), or "" */
	const char *expected_id;        /* the module's (hex), or "" */
	enum t2f_refusal_reason reason;
	uint32_t reserved;              /* zero */
};
#define T2F_REFUSED_SIZE_V1 T2F_SIZE_TO(struct t2f_refused, reserved)
/* The candidate files refused for module id, known after its first lookup: their count (0 for
 * an unknown module, or one not looked up yet), and refusal i: 0, -EINVAL (unknown module,
 * NULL, a size below T2F_REFUSED_SIZE_V1), -ERANGE past the last. */
T2F_API size_t t2f_symbols_refusal_count(const struct t2f_symbols *s, uint32_t module);
T2F_API int t2f_symbols_refusal(const struct t2f_symbols *s, uint32_t module, size_t i,
				struct t2f_refused *out);

/* A function symbol as an ELF file lists it (passed to a callback: fields are only added at the
 * end, see Versioning). */
struct t2f_elf_symbol {
	const char *name;               /* raw (mangled, with its version: "cfree@GLIBC_2.2.5") */
	const char *table;              /* ".symtab", ".dynsym", ".gnu_debugdata:.symtab" ... */
	uint64_t value;                 /* st_value as stored */
	uint64_t size;
};
/* Calls fn for every function symbol (FUNC and GNU_IFUNC, defined) of the ELF file at path,
 * in each symbol table's order (MiniDebugInfo's too); a nonzero return of fn stops the walk and
 * is returned. 0 or a negative error, its message in t2f_symbols_error. */
T2F_API int t2f_symbols_each_function(struct t2f_symbols *s, const char *path,
				      int (*fn)(void *ctx, const struct t2f_elf_symbol *sym),
				      void *ctx);
/* The message of the last failure of t2f_symbols_each_function, or "". */
T2F_API const char *t2f_symbols_error(const struct t2f_symbols *s);

/* A C++ or Rust symbol name demangled (the caller's: t2f_free() it), with or without parameter
 * lists; NULL when raw is not a mangled name (or out of memory). Thread safe. */
T2F_API char *t2f_demangle_name(const char *raw, bool params);

/* ---- Text for messages (since 0.2: version node TRACE2FLAME_0.2) ---- */

/* The name a frame shows for the ELF symbol raw, as the resolve stage and t2f_symbols_resolve
 * name frames: without its symbol version ("cfree" for "cfree@GLIBC_2.2.5",
 * "__libc_start_main" for "__libc_start_main@@GLIBC_2.34"; "malloc@plt" is no version), then
 * demangled (C++, Rust) with or without parameter lists when it is a mangled name. The
 * caller's: t2f_free() it. NULL when raw is NULL or out of memory. Thread safe. */
T2F_API char *t2f_symbol_name(const char *raw, bool params);

/* A buffer for t2f_visible that holds a path shown whole. */
#define T2F_VISIBLE_MAX 4096
/* The NUL-terminated s as a terminal may show it, for a message naming what an input gave (a
 * path, a symbol, an event): s itself when it is well-formed UTF-8 without control characters
 * (C0, DEL, C1), else out, a copy in out[0..size) (size at least 8) where each control
 * character and each byte of an ill-formed sequence is written "\xNN" (a backslash of s stays
 * as it is), cut at a character with "..." when it does not fit. "" for a NULL s, and for an s
 * that needs a copy when out is NULL or size below 8. Thread safe (out is the caller's). */
T2F_API const char *t2f_visible(const char *s, char *out, size_t size);

/* The message callback the library uses when the options give none: line and a newline to
 * stderr, flushed. A stderr whose reader is gone loses the line: SIGPIPE is never raised (see
 * Signals). For a callback that changes lines before showing them as the library would; ctx
 * is unused. Thread safe as stdio is (one line may interleave with other threads' writes). */
T2F_API void t2f_message_stderr(void *ctx, const char *line);

/* ---- Shared by the sessions of a process ----
 *
 * The kallsyms file kernel frames are named from (t2f_options.kallsyms, or the one a perf.data
 * input picks: /proc/kallsyms, perf's ~/.debug copy) is read and indexed once per process and
 * the table shared, read-only, by every session that names from the same unchanged file: a
 * regular file by its path, device, inode, size and times; /proc/kallsyms by the boot (KASLR)
 * and the modules loaded (/proc/modules), and read again after 60 s (BPF programs come and
 * go). Each session holds the table it took until its resolve stage has named its kernel
 * frames (t2f_stats.kallsyms_read and kallsyms_shared count what it did). At most 4 tables
 * (256 MiB) are kept for later sessions, the least recently used let go first.
 */
/* The tables kept for later sessions from now on: at most tables (up to 16; the default 4); 0
 * keeps none (every session reads its own) and lets those kept go (each is freed when the last
 * session holding it is). Thread safe. */
T2F_API void t2f_share_limit(unsigned tables);

/* ---- The symbol cache ----
 *
 * What the resolve stage found for each module with a build-id, kept across runs
 * (t2f_options.no_cache, cache_max; docs/symbols.md, Symbol cache): one file per build-id in
 * a directory, $T2F_CACHE_DIR, else $XDG_CACHE_HOME/trace2flame, else ~/.cache/trace2flame. dir
 * NULL below is that directory. Thread safe (no state), but not against another process
 * writing the directory at the same time (a file replaced meanwhile is listed as it was).
 */
/* The directory the cache uses, malloc'd (t2f_free it), or NULL (no HOME, out of memory). */
T2F_API char *t2f_cache_dir(void);
/* Calls fn for each cache file of dir, by name: its module's build-id (hex: the file name's;
 * for a kept kallsyms table "kallsyms-" and a hash of its path), the module path it was made
 * for (the kallsyms path; "" when the file cannot be read), its bytes, its last use
 * (mtime, seconds since the epoch) and, for a file a run would ignore (and write again), why
 * (NULL when it is trusted); fn returns 0 to go on, else that value ends the walk. Every file
 * is checked as a run checks it before use (the directory: owner, mode, not a symlink; each
 * file: regular, owner, mode, magic, version, size, offsets). 0, fn's value, -ENOENT when dir
 * does not exist, -EPERM when the directory must not be used (a run ignores it too), -errno. */
T2F_API int t2f_cache_each(const char *dir,
			   int (*fn)(void *ctx, const char *build_id, const char *module,
				     uint64_t bytes, int64_t last_use, const char *problem),
			   void *ctx);
/* Removes every cache file of dir (and the temp files of writes that never finished): 0 and
 * *removed (may be NULL), -ENOENT, -EPERM as above, or -errno. */
T2F_API int t2f_cache_clear(const char *dir, uint64_t *removed);

/* Frees a buffer the library gave the caller (t2f_session_write_mem's, t2f_demangle_name's),
 * with the allocator that made it: the program's free() may be another (a static C runtime, a
 * language binding's). NULL is fine. Thread safe. */
T2F_API void t2f_free(void *p);

/* A static string naming an error code (-errno or -T2F_ERR_*), never NULL and never overwritten
 * by a later call: two results may be used together (one printf). Defined for every int: 0 is
 * "Success", any other value no code names (a positive one, INT_MIN) "unknown error". Thread
 * safe. */
T2F_API const char *t2f_strerror(int err);
/* The library's version, "MAJOR.MINOR.PATCH", and as T2F_MAKE_VERSION() makes it a number
 * (compare it with T2F_VERSION_NUMBER, the header's). Thread safe. */
T2F_API const char *t2f_version(void);
T2F_API unsigned t2f_version_number(void);

#ifdef __cplusplus
}
#endif

#endif
