/* tools/cli_opts.h: the trace2flame command line, parsed into one struct.
 *
 * t2f_cli_opts__parse() reads argv with getopt_long, checks the combinations and settles the
 * output format (-f wins over the -o extension; no -o or "-o -" means collapsed on stdout). It
 * prints usage errors itself ("trace2flame: ..." plus a hint to --help) on `err`, and --help /
 * --version on `out`.
 *
 * Ownership: every string in the struct points into argv (nothing to free). getopt keeps global
 * state, so parse once per process.
 */
#ifndef T2F_CLI_OPTS_H
#define T2F_CLI_OPTS_H

#include <stdbool.h>
#include <stdio.h>

#include "include/trace2flame.h"

/* Process exit codes (documented in --help and docs/trace2flame.1). */
enum t2f_exit {
	T2F_EXIT_OK = 0,
	T2F_EXIT_INPUT = 1,  /* bad input: parse error, --event not found, a failed --each input */
	T2F_EXIT_USAGE = 2,  /* bad command line */
	T2F_EXIT_IO = 3,     /* cannot open/read an input, cannot write the output */
};

#define T2F_CLI_MAX_DIRS 32     /* --symbol-path / --debug-dir given at most this many times */

struct t2f_cli_opts {
	const char *output;        /* -o: a file, a directory with --each; NULL = stdout */
	enum t2f_format format;    /* decided when parsing ends (T2F_FORMAT_NONE only before) */
	const char *event;         /* --event NAME, or NULL for the first event with samples */
	bool weight_samples;       /* --weight samples */
	/* The writer's options (include/trace2flame.h): --pid, --tid (root frame comm-PID /
	 * comm-PID/TID), --kernel, --jit (_[k] / _[j] suffixes; --all sets both), and the SVG
	 * ones below (--colors too); format and the differential fields are set from the others. */
	struct t2f_write_options w;
	bool addrs, raw_names;
	bool stats, quiet, strict, each;
	unsigned jobs;             /* -j N: parser threads; 0 = one per online CPU */
	unsigned max_frames;       /* --max-frames N: distinct frames at most */
#define T2F_CLI_MAX_FRAMES 2000000u
	/* re-symbolization (pipeline/resymbolize.h) */
	bool resymbolize;          /* --resymbolize: every user frame, not only unknown ones */
	bool unsafe_build_id_match;
	const char *buildids;      /* --buildids FILE */
	const char *kallsyms;      /* --kallsyms FILE: kernel frames */
	const char *perf_map_dir;  /* --perf-map-dir DIR: JIT frames (perf-PID.map files) */
	bool offline;              /* --offline: no debuginfod fetches */
	bool no_inline;            /* --no-inline */
	bool no_cache;             /* --no-cache */
	unsigned cache_max_mib;    /* --cache-max MIB (0: not given) */
	bool unwind_libdwfl;       /* --unwind-libdwfl */
	enum t2f_symbol_rules symbol_rules; /* --symbol-rules (AUTO when not given) */
	const char *symbol_dirs[T2F_CLI_MAX_DIRS + 1]; /* --symbol-path, NULL-terminated */
	const char *debug_dirs[T2F_CLI_MAX_DIRS + 2];  /* --debug-dir, then /usr/lib/debug,
							 * NULL-terminated */
	int n_symbol_dirs, n_debug_dirs;
	/* SVG flame graph: --title, --subtitle, --countname, --width, --minwidth (0 given is
	 * stored as -1: none left out), --hash, --reverse, --icicle, --flamechart and --colors
	 * in w */
	bool colors_given;         /* --colors given (hot, the default, too) */
	bool diff;                 /* trace2flame diff: inputs[0] BEFORE, inputs[1] AFTER; SVG */
	bool negate;               /* --negate: diff draws BEFORE's shape */
	bool ignore_comm;          /* --ignore-comm: diff matches stacks below the command name */
	const char *off_cpu_states; /* --off-cpu-state LETTERS, or NULL */
	bool help, version;        /* already printed: exit 0 */
	bool list_formats;         /* --list-formats: printed too */
	char **inputs;             /* argv's INPUT operands ("-" = stdin) */
	int n_inputs;
	/* which samples are read: --time, --pids, --tids, --comms (formats/sample_filter.h) */
	const char *time, *pids, *tids, *comms;
};

/* Fills *o from argv. 0: run (or o->help / o->version were printed: exit 0); -EINVAL: a usage
 * error, already reported on err (exit T2F_EXIT_USAGE). */
int t2f_cli_opts__parse(struct t2f_cli_opts *o, int argc, char **argv, FILE *out, FILE *err);

/* The index in argv of the first operand: the first argument that is neither an option nor an
 * option's argument (options of the conversion: getopt_long's rules); -1 when there is none
 * before the end or "--". For the subcommand named after options ("trace2flame -q diff ..."). */
int t2f_cli_first_operand(int argc, char **argv);

/* The same for `trace2flame diff` (argv[0] = "diff"): exactly two INPUTs, BEFORE and AFTER; the
 * format is SVG (-f svg or none). */
int t2f_cli_opts__parse_diff(struct t2f_cli_opts *o, int argc, char **argv, FILE *out, FILE *err);

/* One warning on err per option given that the chosen format does not use (--title with
 * collapsed output, --colors in a differential graph); nothing under -q. */
void t2f_cli_opts__warn_ignored(const struct t2f_cli_opts *o, FILE *err);

/* Prints "trace2flame: [CMD: ]MESSAGE" and the --help hint to err; returns -EINVAL. cmd is the
 * subcommand ("symbols", "resolve") or NULL. */
int t2f_cli_usage_error(FILE *err, const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* --debuginfod URL: the server goes first in DEBUGINFOD_URLS, which libdebuginfod reads (the
 * process's environment changes: call before any thread starts). 0, or -EINVAL reported on err
 * (a URL with blanks or empty; cmd as for t2f_cli_usage_error). */
int t2f_cli_add_debuginfod(FILE *err, const char *cmd, const char *url);

/* The extension --each gives outputs of format f (".folded", ".svg"). */
const char *t2f_cli_format_ext(enum t2f_format f);

/* True when `path` is standard input/output ("-"); NULL counts as stdout. */
bool t2f_cli_is_std(const char *path);

/* Appends /usr/lib/debug to a NULL-terminated list of --debug-dir directories that has room for
 * one more and does not hold it yet: the directories given are searched first, then the
 * system's. */
void t2f_cli_add_system_debug_dir(const char **dirs);


#endif
