/* tools/cli_opts.c: argv → struct t2f_cli_opts (getopt_long), with the usage checks. */
#include "tools/cli_opts.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tools/cli_msg.h"

#ifndef T2F_VERSION
#define T2F_VERSION "unknown"
#endif

enum t2f_long_only {
	T2F_OPT_EVENT = 256,
	T2F_OPT_WEIGHT,
	T2F_OPT_PID,
	T2F_OPT_TID,
	T2F_OPT_KERNEL,
	T2F_OPT_JIT,
	T2F_OPT_ALL,
	T2F_OPT_ADDRS,
	T2F_OPT_RAW_NAMES,
	T2F_OPT_STATS,
	T2F_OPT_STRICT,
	T2F_OPT_EACH,
	T2F_OPT_RESYMBOLIZE,
	T2F_OPT_MAX_FRAMES,
	T2F_OPT_SYMBOL_PATH,
	T2F_OPT_DEBUG_DIR,
	T2F_OPT_UNSAFE_BUILD_ID,
	T2F_OPT_BUILDIDS,
	T2F_OPT_KALLSYMS,
	T2F_OPT_PERF_MAP_DIR,
	T2F_OPT_OFFLINE,
	T2F_OPT_NO_INLINE,
	T2F_OPT_NO_CACHE,
	T2F_OPT_CACHE_MAX,
	T2F_OPT_UNWIND_LIBDWFL,
	T2F_OPT_DEBUGINFOD,
	T2F_OPT_SYMBOL_RULES,
	T2F_OPT_TITLE,
	T2F_OPT_SUBTITLE,
	T2F_OPT_COUNTNAME,
	T2F_OPT_WIDTH,
	T2F_OPT_MINWIDTH,
	T2F_OPT_COLORS,
	T2F_OPT_HASH,
	T2F_OPT_REVERSE,
	T2F_OPT_ICICLE,
	T2F_OPT_FLAMECHART,
	T2F_OPT_NEGATE,
	T2F_OPT_IGNORE_COMM,
	T2F_OPT_LIST_FORMATS,
	T2F_OPT_TIME,
	T2F_OPT_PIDS,
	T2F_OPT_TIDS,
	T2F_OPT_COMMS,
	T2F_OPT_OFF_CPU_STATE,
	T2F_OPT_HEATMAP_ROWS,
};

#define T2F_SHORT_OPTS ":o:f:j:qhV"

static const struct option t2f_long_opts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "format", required_argument, NULL, 'f' },
	{ "event", required_argument, NULL, T2F_OPT_EVENT },
	{ "weight", required_argument, NULL, T2F_OPT_WEIGHT },
	{ "pid", no_argument, NULL, T2F_OPT_PID },
	{ "tid", no_argument, NULL, T2F_OPT_TID },
	{ "kernel", no_argument, NULL, T2F_OPT_KERNEL },
	{ "jit", no_argument, NULL, T2F_OPT_JIT },
	{ "all", no_argument, NULL, T2F_OPT_ALL },
	{ "addrs", no_argument, NULL, T2F_OPT_ADDRS },
	{ "raw-names", no_argument, NULL, T2F_OPT_RAW_NAMES },
	{ "stats", no_argument, NULL, T2F_OPT_STATS },
	{ "quiet", no_argument, NULL, 'q' },
	{ "jobs", required_argument, NULL, 'j' },
	{ "strict", no_argument, NULL, T2F_OPT_STRICT },
	{ "each", no_argument, NULL, T2F_OPT_EACH },
	{ "resymbolize", no_argument, NULL, T2F_OPT_RESYMBOLIZE },
	{ "max-frames", required_argument, NULL, T2F_OPT_MAX_FRAMES },
	{ "symbol-path", required_argument, NULL, T2F_OPT_SYMBOL_PATH },
	{ "debug-dir", required_argument, NULL, T2F_OPT_DEBUG_DIR },
	{ "unsafe-build-id-match", no_argument, NULL, T2F_OPT_UNSAFE_BUILD_ID },
	{ "buildids", required_argument, NULL, T2F_OPT_BUILDIDS },
	{ "kallsyms", required_argument, NULL, T2F_OPT_KALLSYMS },
	{ "perf-map-dir", required_argument, NULL, T2F_OPT_PERF_MAP_DIR },
	{ "offline", no_argument, NULL, T2F_OPT_OFFLINE },
	{ "no-inline", no_argument, NULL, T2F_OPT_NO_INLINE },
	{ "no-cache", no_argument, NULL, T2F_OPT_NO_CACHE },
	{ "cache-max", required_argument, NULL, T2F_OPT_CACHE_MAX },
	{ "unwind-libdwfl", no_argument, NULL, T2F_OPT_UNWIND_LIBDWFL },
	{ "off-cpu-state", required_argument, NULL, T2F_OPT_OFF_CPU_STATE },
	{ "heatmap-rows", required_argument, NULL, T2F_OPT_HEATMAP_ROWS },
	{ "debuginfod", required_argument, NULL, T2F_OPT_DEBUGINFOD },
	{ "symbol-rules", required_argument, NULL, T2F_OPT_SYMBOL_RULES },
	{ "title", required_argument, NULL, T2F_OPT_TITLE },
	{ "subtitle", required_argument, NULL, T2F_OPT_SUBTITLE },
	{ "countname", required_argument, NULL, T2F_OPT_COUNTNAME },
	{ "width", required_argument, NULL, T2F_OPT_WIDTH },
	{ "minwidth", required_argument, NULL, T2F_OPT_MINWIDTH },
	{ "colors", required_argument, NULL, T2F_OPT_COLORS },
	{ "hash", no_argument, NULL, T2F_OPT_HASH },
	{ "reverse", no_argument, NULL, T2F_OPT_REVERSE },
	{ "icicle", no_argument, NULL, T2F_OPT_ICICLE },
	{ "inverted", no_argument, NULL, T2F_OPT_ICICLE },
	{ "flamechart", no_argument, NULL, T2F_OPT_FLAMECHART },
	{ "negate", no_argument, NULL, T2F_OPT_NEGATE },
	{ "ignore-comm", no_argument, NULL, T2F_OPT_IGNORE_COMM },
	{ "list-formats", no_argument, NULL, T2F_OPT_LIST_FORMATS },
	{ "time", required_argument, NULL, T2F_OPT_TIME },
	{ "pids", required_argument, NULL, T2F_OPT_PIDS },
	{ "tids", required_argument, NULL, T2F_OPT_TIDS },
	{ "comms", required_argument, NULL, T2F_OPT_COMMS },
	{ "comm", required_argument, NULL, T2F_OPT_COMMS },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

#define T2F_HELP_COL 22   /* where an option's text starts in --help */
#define T2F_HELP_WIDTH 78 /* and where its lines end */

/* An option's --help text after its name, lead ("  -f, --format FMT"), wrapped at spaces. */
static void t2f_cli_help_para(FILE *f, const char *lead, const char *text)
{
	size_t col = (size_t)fprintf(f, "%-*s", T2F_HELP_COL, lead);

	for (const char *w = text + strspn(text, " "); *w; w += strspn(w, " ")) {
		size_t len = strcspn(w, " ");

		if (col > T2F_HELP_COL && col + 1 + len > T2F_HELP_WIDTH) {
			col = (size_t)fprintf(f, "\n%*s", T2F_HELP_COL, "") - 1;
		} else if (col > T2F_HELP_COL) {
			fputc(' ', f);
			col++;
		}
		col += (size_t)fprintf(f, "%.*s", (int)len, w);
		w += len;
	}
	fputc('\n', f);
}

/* "A, B and C": the titles of the formats whose output `uses` changes, into buf ("every format"
 * when all do). */
static const char *t2f_cli_titles(unsigned uses, char *buf, size_t size)
{
	size_t count = t2f_format_count(), n = 0, at = 0;
	const char *last = NULL;

	buf[0] = '\0';
	for (int f = T2F_FORMAT_COLLAPSED; (size_t)f <= count; f++) {
		struct t2f_format_info fi = { .size = sizeof(fi) };

		if (t2f_format_info((enum t2f_format)f, &fi) || !(fi.uses & uses))
			continue;
		if (last && at < size)
			at += (size_t)snprintf(buf + at, size - at, "%s%s", n > 1 ? ", " : "",
					       last);
		last = fi.title;
		n++;
	}
	if (n == count && n > 2)
		snprintf(buf, size, "every format");
	else if (last && at < size)
		snprintf(buf + at, size - at, "%s%s", n > 1 ? " and " : "", last);
	return buf;
}

/* The heading of the frame name options: the formats each changes. */
static void t2f_cli_help_names(FILE *f)
{
	char marks[160], addrs[160];

	fprintf(f, "Frame names (for %s; --addrs for %s):\n",
		t2f_cli_titles(T2F_USES_MARKS, marks, sizeof(marks)),
		t2f_cli_titles(T2F_USES_ADDRS, addrs, sizeof(addrs)));
}

/* -f's text: the formats' names and the output names that pick them, from the library. */
static void t2f_cli_help_formats(FILE *f)
{
	char names[256] = "", exts[512] = "", text[1024];
	size_t n = 0, e = 0;

	for (int i = T2F_FORMAT_COLLAPSED; (size_t)i <= t2f_format_count(); i++) {
		struct t2f_format_info fi = { .size = sizeof(fi) };

		if (t2f_format_info((enum t2f_format)i, &fi))
			continue;
		if (n < sizeof(names))
			n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s", n ? " | " : "",
					      fi.name);
		for (const char *const *x = fi.extensions; *x && e < sizeof(exts); x++)
			e += (size_t)snprintf(exts + e, sizeof(exts) - e, "%s%s", e ? ", " : "",
					      *x);
	}
	snprintf(text, sizeof(text), "%s (default: from the -o extension: %s; collapsed on stdout)",
		 names, exts);
	t2f_cli_help_para(f, "  -f, --format FMT", text);
	t2f_cli_help_para(f, "      --list-formats",
			  "list the output formats, their file name endings");
}

/* --list-formats: per format its name, the output names' endings that pick it and a line on it. */
static void t2f_cli_list_formats(FILE *f)
{
	for (int i = T2F_FORMAT_COLLAPSED; (size_t)i <= t2f_format_count(); i++) {
		struct t2f_format_info fi = { .size = sizeof(fi) };
		char exts[128] = "";
		size_t at = 0;

		if (t2f_format_info((enum t2f_format)i, &fi))
			continue;
		for (const char *const *x = fi.extensions; *x && at < sizeof(exts); x++)
			at += (size_t)snprintf(exts + at, sizeof(exts) - at, "%s%s", at ? " " : "",
					       *x);
		fprintf(f, "%-11s %-23s %s\n", fi.name, exts, fi.description);
	}
}

static void t2f_cli_help(FILE *f)
{
	fputs("Usage: trace2flame [OPTIONS] INPUT... [-o OUTPUT]\n"
	      "       trace2flame diff [OPTIONS] BEFORE AFTER [-o OUTPUT.svg]\n"
	      "       trace2flame symbols [--demangle] FILE...\n"
	      "       trace2flame resolve [OPTIONS] FILE ADDR...\n"
	      "       trace2flame collect [OPTIONS] DIR|FILE... -o STORE\n"
	      "Convert profiler output (perf.data files; perf script text, folded stacks or\n"
	      ".nettrace, plain, gzip or zstd, - for standard input) into collapsed stacks,\n"
	      "speedscope JSON, pprof, an interactive SVG flame graph, a Firefox Profiler\n"
	      "profile or a heat map of the samples over time. Several INPUTs are merged into\n"
	      "one profile, their threads kept apart.\n"
	      "\n"
	      "diff draws AFTER's flame graph (SVG) coloured by how each frame's share of the\n"
	      "total changed since BEFORE: red grew, blue shrank, white unchanged. Frames only\n"
	      "in BEFORE are not drawn; --negate draws BEFORE's shape instead (frames gone\n"
	      "from AFTER then show in blue). Both inputs are read with the same options;\n"
	      "stacks match from their root, the command name: --ignore-comm compares\n"
	      "programs of different names.\n"
	      "\n"
	      "symbols lists the function symbols of ELF files as trace2flame sees them;\n"
	      "resolve names addresses of an ELF file (function+offset), its debug file found\n"
	      "as in a conversion; collect copies the symbols and DWARF of the programs and\n"
	      "libraries under DIRs into a build-id tree for --debug-dir and debuginfod: see\n"
	      "'trace2flame symbols --help', 'trace2flame resolve --help', 'trace2flame\n"
	      "collect --help'. Options given before a command's name are the command's.\n"
	      "\n"
	      "Output:\n"
	      "  -o, --output FILE   write FILE (atomically: a temp file renamed on success);\n"
	      "                      - or no -o: standard output. With --each: a directory\n", f);
	t2f_cli_help_formats(f);
	fputs(
	      "      --each          convert every INPUT to its own file in the -o DIR, named\n"
	      "                      after the input (a.perf.txt.zst -> a.perf.folded)\n"
	      "\n"
	      "Samples:\n"
	      "      --event NAME    write only event NAME (default: the recording's first);\n"
	      "                      off-cpu: ns off CPU, from sched:sched_switch samples and\n"
	      "                      context switches; wall: on-CPU (cpu-clock, task-clock)\n"
	      "                      plus off-CPU ns\n"
	      "      --off-cpu-state S  off-cpu, wall: count only waits begun in these states:\n"
	      "                      R (preempted), S (sleeping), D (uninterruptible), O (other);\n"
	      "                      e.g. SD (default: all)\n"
	      "      --weight W      period (sum of periods, default) | samples (counts)\n"
	      "      --time RANGES   only samples in these times: START,STOP in seconds (either\n"
	      "                      may be empty; several ranges separated by spaces), or\n"
	      "                      percentages of the recording: 10%, 10%/2 (the second\n"
	      "                      10%), 0%-10%, several joined by commas (10%/1,10%/3)\n"
	      "      --pids LIST     only these processes (comma-separated ids)\n"
	      "      --tids LIST     only these threads (comma-separated ids)\n"
	      "      --comms LIST    only threads of these command names (comma-separated;\n"
	      "                      also --comm)\n"
	      "\n"
	      , f);
	t2f_cli_help_names(f);
	fputs(
	      "      --pid           root frame comm-PID (collapsed only)\n"
	      "      --tid           root frame comm-PID/TID (collapsed only)\n"
	      "      --kernel        append _[k] to kernel frames\n"
	      "      --jit           append _[j] to JIT frames\n"
	      "      --all           --kernel and --jit, and append _[i] to inlined frames\n"
	      "      --addrs         show addresses of unresolved frames\n"
	      "      --raw-names     keep argument lists in function names\n"
	      "\n"
	      "SVG flame graph (-f svg):\n"
	      "      --title TEXT    title (default Flame Graph, Icicle Graph, Flame Chart)\n"
	      "      --subtitle TEXT a second line under the title\n"
	      "      --countname NAME  what widths count (default: samples, ns or the event)\n"
	      "      --width PX      image width (default 1200)\n"
	      "      --minwidth PX   leave out frames narrower than PX (default 0.1)\n"
	      "      --colors PAL    hot (default) | mem | io | module | kind (kernel,\n"
	      "                      jit, inlined, user)\n"
	      "      --hash          colour by name: a function keeps its colour across graphs\n"
	      "      --reverse       stacks leaf first (merged from the leaf)\n"
	      "      --icicle        root at the top (also --inverted)\n"
	      "      --flamechart    siblings in time order, one tree per thread\n"
	      "      --negate        diff: draw BEFORE's shape, not AFTER's\n"
	      "      --ignore-comm   diff: leave out the command name at the root, so stacks\n"
	      "                      of programs of different names compare\n"
	      "\n"
	      "Heat map (-f heatmap, OUT.heatmap.svg):\n"
	      "      --heatmap-rows N  rows per second: 1, 2, 4, 5, 10, 20, 25, 50 (default:\n"
	      "                      20 ms each) or 100; a cell's tooltip gives its --time\n"
	      "\n"
	      "Symbols (frames perf could not name, when their address was printed):\n"
	      "      --resymbolize   resolve every frame with an address, replacing perf's names\n"
	      "      --symbol-path DIR  a directory of binaries or debug files (repeatable;\n"
	      "                      then $T2F_SYMBOL_PATH, colon-separated)\n"
	      "      --debug-dir DIR a debug directory with a .build-id tree (repeatable;\n"
	      "                      searched before /usr/lib/debug)\n"
	      "      --buildids FILE build-ids per path, `perf buildid-list` format\n"
	      "      --unsafe-build-id-match  accept files whose build-id differs or is unknown\n"
	      "      --kallsyms FILE name kernel frames from FILE, a copy of /proc/kallsyms\n"
	      "                      made as root on the recording machine\n"
	      "      --perf-map-dir DIR  look up JIT frames (dso /tmp/perf-PID.map) in\n"
	      "                      DIR/perf-PID.map (default: the path perf printed)\n"
	      "      --no-inline     no inlined functions (from DWARF) as frames of their own\n"
	      "      --no-cache      neither read nor write the symbol cache (by build-id, in\n"
	      "                      $T2F_CACHE_DIR, else ~/.cache/trace2flame; see `cache`)\n"
	      "      --cache-max MIB the cache's size limit (default: $T2F_CACHE_MAX bytes,\n"
	      "                      else 512 MiB); least recently used files go first\n"
	      "      --unwind-libdwfl  unwind --call-graph dwarf samples with libdwfl's own\n"
	      "                      unwinder only (slower; the same frames)\n"
	      "      --offline       never fetch debug files from the debuginfod servers of\n"
	      "                      DEBUGINFOD_URLS (by default fetched when not found here)\n"
	      "      --debuginfod URL  ask this server too, before DEBUGINFOD_URLS' (repeatable)\n"
	      "      --symbol-rules R  perf | strict: which symbol names a frame (default:\n"
	      "                      perf for perf.data inputs, else strict). perf: as perf\n"
	      "                      picks them (labels, sizeless symbols reaching the next,\n"
	      "                      the longest alias); strict: functions with a size,\n"
	      "                      GLOBAL over WEAK over LOCAL aliases\n"
	      "\n"
	      "Speed:\n"
	      "  -j, --jobs N        read perf script text or perf.data, sort folded lines and\n"
	      "                      format speedscope samples with N threads (default: one\n"
	      "                      per CPU); the output is the same for every N\n"
	      "\n"
	      "Diagnostics:\n"
	      "      --stats         print input, sample and model statistics on stderr\n"
	      "  -q, --quiet         no progress bar, no summary, no warnings about the event\n"
	      "                      chosen, unnamed frames or options that do nothing\n"
	      "      --strict        the first input warning is an error\n"
	      "      --max-frames N  fail when the inputs hold more than N distinct frames\n"
	      "                      (default 2000000, under 1 GB of memory)\n"
	      "  -h, --help          show this help\n"
	      "  -V, --version       show the version\n"
	      "\n"
	      "Exit status:\n"
	      "  0  success\n"
	      "  1  bad input (parse error, --event not found)\n"
	      "  2  usage error\n"
	      "  3  I/O error (cannot open or read an input, cannot write the output)\n"
	      "  With --each: the worst status of its inputs, 3 before 1.\n",
	      f);
}

int t2f_cli_usage_error(FILE *err, const char *cmd, const char *fmt, ...)
{
	const char *sep = cmd ? " " : "";
	va_list ap;

	fprintf(err, "trace2flame: %s%s", cmd ? cmd : "", cmd ? ": " : "");
	va_start(ap, fmt);
	vfprintf(err, fmt, ap);
	va_end(ap);
	fprintf(err, "\nTry 'trace2flame %s%s--help' for more information.\n", cmd ? cmd : "", sep);
	return -EINVAL;
}

void t2f_cli_add_system_debug_dir(const char **dirs)
{
	size_t n = 0;

	for (; dirs[n]; n++)
		if (strcmp(dirs[n], "/usr/lib/debug") == 0)
			return;
	dirs[n] = "/usr/lib/debug";
	dirs[n + 1] = NULL;
}

int t2f_cli_add_debuginfod(FILE *err, const char *cmd, const char *url)
{
	const char *env = getenv("DEBUGINFOD_URLS");
	char *urls;
	int rc;

	if (!url[0] || strpbrk(url, " \t\n"))
		return t2f_cli_usage_error(err, cmd, "--debuginfod '%s': want one server URL", url);
	if (asprintf(&urls, "%s%s%s", url, env && env[0] ? " " : "", env ? env : "") < 0)
		return t2f_cli_usage_error(err, cmd, "out of memory");
	rc = setenv("DEBUGINFOD_URLS", urls, 1);
	free(urls);
	return rc ? t2f_cli_usage_error(err, cmd, "out of memory") : 0;
}

const char *t2f_cli_format_ext(enum t2f_format f)
{
	struct t2f_format_info fi = { .size = sizeof(fi) };

	return t2f_format_info(f, &fi) ? "" : fi.ext;
}

bool t2f_cli_is_std(const char *path)
{
	return !path || strcmp(path, "-") == 0;
}

/* Whether the option argv[i] (it starts with '-') is followed by its argument in argv[i + 1], as
 * getopt_long reads it: a short option taking one at the end of its cluster ("-o", "-qo"), a
 * long one (or an unambiguous abbreviation) taking one, without "=". */
static bool t2f_cli_takes_next(const char *arg)
{
	const struct option *hit = NULL;
	size_t len;

	if (arg[1] != '-') {
		for (const char *c = arg + 1; *c; c++) {
			const char *at = strchr(T2F_SHORT_OPTS + 1, *c);

			if (*c != ':' && at && at[1] == ':')
				return c[1] == '\0';
		}
		return false;
	}
	if (strchr(arg, '='))
		return false;
	len = strlen(arg + 2);
	for (const struct option *l = t2f_long_opts; l->name; l++) {
		if (strncmp(l->name, arg + 2, len) != 0)
			continue;
		if (l->name[len] == '\0')
			return l->has_arg == required_argument;
		if (hit && hit->val != l->val)
			return false; /* ambiguous: getopt says so */
		hit = l;
	}
	return hit && hit->has_arg == required_argument;
}

int t2f_cli_first_operand(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			return -1;
		if (argv[i][0] != '-' || argv[i][1] == '\0')
			return i;
		i += t2f_cli_takes_next(argv[i]);
	}
	return -1;
}

/* An output that is neither a file nor a directory (/dev/null, /dev/stdout, a FIFO): written as
 * standard output is, collapsed unless -f says otherwise. A directory (without --each) takes
 * no format either: it is refused before any input is read (t2f_clobber__no_place), as a
 * directory rather than as a name of no format. */
static bool t2f_cli_is_device_or_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && !S_ISREG(st.st_mode);
}

/* The formats' names ("collapsed, speedscope ...": exts false), or the output names that pick
 * them ("*.folded, *.collapsed ... or *.svg"), into buf. */
static const char *t2f_cli_format_list(bool exts, char *buf, size_t size)
{
	size_t count = t2f_format_count(), at = 0;

	buf[0] = '\0';
	for (int f = T2F_FORMAT_COLLAPSED; (size_t)f <= count; f++) {
		struct t2f_format_info fi = { .size = sizeof(fi) };
		const char *name[2] = { NULL, NULL };

		if (t2f_format_info((enum t2f_format)f, &fi))
			continue;
		name[0] = fi.name;
		for (const char *const *x = exts ? fi.extensions : name; *x && at < size; x++) {
			bool last = (size_t)f == count && !x[1];

			at += (size_t)snprintf(buf + at, size - at, "%s%s%s",
					       !at ? "" : last && exts ? " or " : ", ",
					       exts ? "*" : "", *x);
		}
	}
	return buf;
}

/* -f NAME. */
static int t2f_cli_set_format(struct t2f_cli_opts *o, const char *arg, FILE *err)
{
	char names[256];

	o->format = t2f_format_by_name(arg);
	if (o->format)
		return 0;
	return t2f_cli_usage_error(err, NULL, "unknown format '%s' (known: %s)", arg,
				   t2f_cli_format_list(false, names, sizeof(names)));
}

/* arg as one of `n` keywords (what: "weight", "symbol rules"): its index into *out, or a usage
 * error listing them. */
static int t2f_cli_keyword(const char *arg, const char *const *words, int n, const char *what,
			   int *out, FILE *err)
{
	char known[128];
	size_t at = 0;

	known[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (strcmp(arg, words[i]) == 0) {
			*out = i;
			return 0;
		}
		if (at < sizeof(known))
			at += (size_t)snprintf(known + at, sizeof(known) - at, "%s%s", i ? ", " : "",
					       words[i]);
	}
	return t2f_cli_usage_error(err, NULL, "unknown %s '%s' (known: %s)", what, arg, known);
}

static int t2f_cli_set_weight(struct t2f_cli_opts *o, const char *arg, FILE *err)
{
	static const char *const words[] = { "period", "samples" };
	int i = 0, ret = t2f_cli_keyword(arg, words, 2, "weight", &i, err);

	if (!ret)
		o->weight_samples = i == 1;
	return ret;
}

static int t2f_cli_set_rules(struct t2f_cli_opts *o, const char *arg, FILE *err)
{
	static const char *const words[] = { "perf", "strict" };
	int i = 0, ret = t2f_cli_keyword(arg, words, 2, "symbol rules", &i, err);

	if (!ret)
		o->symbol_rules = i == 0 ? T2F_RULES_PERF : T2F_RULES_STRICT;
	return ret;
}

/* --colors: the words in the order of enum t2f_colors. */
static int t2f_cli_set_colors(struct t2f_cli_opts *o, const char *arg, FILE *err)
{
	static const char *const words[] = {
		[T2F_COLORS_HOT] = "hot", [T2F_COLORS_MEM] = "mem", [T2F_COLORS_IO] = "io",
		[T2F_COLORS_MODULE] = "module", [T2F_COLORS_KIND] = "kind",
	};
	int i = 0, ret = t2f_cli_keyword(arg, words, (int)(sizeof(words) / sizeof(words[0])),
					 "colors", &i, err);

	if (!ret)
		o->w.colors = (enum t2f_colors)i;
	return ret;
}

/* A whole number in [min, max] for option `opt`; what it counts is `what`. */
static int t2f_cli_uint(const char *arg, unsigned long min, unsigned long max, const char *opt,
			const char *what, unsigned *out, FILE *err)
{
	char *end;
	unsigned long v = strtoul(arg, &end, 10);

	if (end == arg || *end || arg[0] == '-' || v < min || v > max)
		return t2f_cli_usage_error(err, NULL, "%s '%s': want %s, %lu to %lu", opt, arg, what,
					   min, max);
	*out = (unsigned)v;
	return 0;
}

/* --minwidth: pixels, 0 or more. */
static int t2f_cli_set_min_width(struct t2f_cli_opts *o, const char *arg, FILE *err)
{
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || *end || !(v >= 0 && v <= 100000))
		return t2f_cli_usage_error(err, NULL, "--minwidth '%s': want pixels, 0 or more", arg);
	o->w.min_width = v == 0 ? -1 : v; /* the library's: 0 is the default, below 0 none */
	return 0;
}

/* --heatmap-rows: rows per second that are a whole number of 10 ms (a divisor of 100). */
static int t2f_cli_set_heatmap_rows(struct t2f_cli_opts *o, const char *arg, FILE *err)
{
	unsigned v;

	if (t2f_cli_uint(arg, 1, 100, "--heatmap-rows", "rows per second", &v, err))
		return -EINVAL;
	if (100 % v)
		return t2f_cli_usage_error(err, NULL, "--heatmap-rows '%s': want rows of a whole "
					   "number of 10 ms: 1, 2, 4, 5, 10, 20, 25, 50 or 100", arg);
	o->w.heatmap_rows = v;
	return 0;
}

/* --off-cpu-state: letters R, S, D, O (any case), ',' or ' ' between. */
static int t2f_cli_set_states(struct t2f_cli_opts *o, const char *arg, FILE *err)
{
	size_t letters = strspn(arg, "RSDOrsdo, ");

	if (arg[letters] || !strpbrk(arg, "RSDOrsdo"))
		return t2f_cli_usage_error(err, NULL, "--off-cpu-state '%s': want letters R "
					   "(preempted), S, D, O (other), e.g. SD", arg);
	o->off_cpu_states = arg;
	return 0;
}

/* A repeatable directory option. */
static int t2f_cli_add_dir(const char **dirs, int *n, const char *arg, const char *opt, FILE *err)
{
	if (*n >= T2F_CLI_MAX_DIRS)
		return t2f_cli_usage_error(err, NULL, "%s given more than %d times", opt, T2F_CLI_MAX_DIRS);
	dirs[(*n)++] = arg;
	dirs[*n] = NULL;
	return 0;
}

/* One option; 0 or -EINVAL (reported). */
static int t2f_cli_option(struct t2f_cli_opts *o, int c, char **argv, FILE *err)
{
	switch (c) {
	case 'o': o->output = optarg; return 0;
	case 'f': return t2f_cli_set_format(o, optarg, err);
	case T2F_OPT_EVENT: o->event = optarg; return 0;
	case T2F_OPT_WEIGHT: return t2f_cli_set_weight(o, optarg, err);
	case T2F_OPT_PID: o->w.pid = true; return 0;
	case T2F_OPT_TID: o->w.pid = o->w.tid = true; return 0;
	case T2F_OPT_KERNEL: o->w.kernel = true; return 0;
	case T2F_OPT_JIT: o->w.jit = true; return 0;
	case T2F_OPT_ALL: o->w.kernel = o->w.jit = o->w.inlined = true; return 0;
	case T2F_OPT_ADDRS: o->addrs = true; return 0;
	case T2F_OPT_RAW_NAMES: o->raw_names = true; return 0;
	case T2F_OPT_STATS: o->stats = true; return 0;
	case 'q': o->quiet = true; return 0;
	case 'j': return t2f_cli_uint(optarg, 1, 256, "-j", "a number of threads", &o->jobs, err);
	case T2F_OPT_STRICT: o->strict = true; return 0;
	case T2F_OPT_EACH: o->each = true; return 0;
	case T2F_OPT_RESYMBOLIZE: o->resymbolize = true; return 0;
	case T2F_OPT_MAX_FRAMES:
		return t2f_cli_uint(optarg, 1, 4000000000UL, "--max-frames", "a number of frames",
				    &o->max_frames, err);
	case T2F_OPT_SYMBOL_PATH:
		return t2f_cli_add_dir(o->symbol_dirs, &o->n_symbol_dirs, optarg, "--symbol-path", err);
	case T2F_OPT_DEBUG_DIR:
		return t2f_cli_add_dir(o->debug_dirs, &o->n_debug_dirs, optarg, "--debug-dir", err);
	case T2F_OPT_UNSAFE_BUILD_ID: o->unsafe_build_id_match = true; return 0;
	case T2F_OPT_BUILDIDS: o->buildids = optarg; return 0;
	case T2F_OPT_KALLSYMS: o->kallsyms = optarg; return 0;
	case T2F_OPT_PERF_MAP_DIR: o->perf_map_dir = optarg; return 0;
	case T2F_OPT_OFFLINE: o->offline = true; return 0;
	case T2F_OPT_NO_INLINE: o->no_inline = true; return 0;
	case T2F_OPT_NO_CACHE: o->no_cache = true; return 0;
	case T2F_OPT_CACHE_MAX:
		return t2f_cli_uint(optarg, 1, 1u << 20, "--cache-max", "MiB", &o->cache_max_mib,
				    err);
	case T2F_OPT_UNWIND_LIBDWFL: o->unwind_libdwfl = true; return 0;
	case T2F_OPT_OFF_CPU_STATE: return t2f_cli_set_states(o, optarg, err);
	case T2F_OPT_DEBUGINFOD: return t2f_cli_add_debuginfod(err, NULL, optarg);
	case T2F_OPT_SYMBOL_RULES: return t2f_cli_set_rules(o, optarg, err);
	case T2F_OPT_TITLE: o->w.title = optarg; return 0;
	case T2F_OPT_SUBTITLE: o->w.subtitle = optarg; return 0;
	case T2F_OPT_COUNTNAME: o->w.count_name = optarg; return 0;
	case T2F_OPT_WIDTH:
		return t2f_cli_uint(optarg, 100, 100000, "--width", "pixels", &o->w.width, err);
	case T2F_OPT_MINWIDTH: return t2f_cli_set_min_width(o, optarg, err);
	case T2F_OPT_COLORS: o->colors_given = true; return t2f_cli_set_colors(o, optarg, err);
	case T2F_OPT_HASH: o->w.hash = true; return 0;
	case T2F_OPT_REVERSE: o->w.reverse = true; return 0;
	case T2F_OPT_ICICLE: o->w.icicle = true; return 0;
	case T2F_OPT_FLAMECHART: o->w.flamechart = true; return 0;
	case T2F_OPT_NEGATE: o->negate = true; return 0;
	case T2F_OPT_IGNORE_COMM: o->ignore_comm = true; return 0;
	case T2F_OPT_LIST_FORMATS: o->list_formats = true; return 0;
	case T2F_OPT_TIME: o->time = optarg; return 0;
	case T2F_OPT_PIDS: o->pids = optarg; return 0;
	case T2F_OPT_TIDS: o->tids = optarg; return 0;
	case T2F_OPT_COMMS: o->comms = optarg; return 0;
	case T2F_OPT_HEATMAP_ROWS: return t2f_cli_set_heatmap_rows(o, optarg, err);
	case 'h': o->help = true; return 0;
	case 'V': o->version = true; return 0;
	case ':':
		return t2f_cli_usage_error(err, NULL, "option '%s' needs an argument", argv[optind - 1]);
	default:
		/* A known option reported with '?' is a long one given "=ARG" it does not take. */
		if (optopt >= 256 || (optopt && strchr(T2F_SHORT_OPTS, optopt)))
			return t2f_cli_usage_error(err, NULL, "option '%s' takes no argument", argv[optind - 1]);
		if (optopt)
			return t2f_cli_usage_error(err, NULL, "unknown option '-%c'", optopt);
		return t2f_cli_usage_error(err, NULL, "unknown option '%s'", argv[optind - 1]);
	}
}

/* trace2flame diff: two inputs, SVG output (an output named for another format is refused). */
static int t2f_cli_check_diff(struct t2f_cli_opts *o, FILE *err)
{
	enum t2f_format named;

	if (o->n_inputs < 2)
		return t2f_cli_usage_error(err, "diff", "%s", o->n_inputs ? "no AFTER given"
								     : "no BEFORE and AFTER given");
	if (o->n_inputs > 2)
		return t2f_cli_usage_error(err, "diff", "extra operand '%s' (want BEFORE AFTER)",
					   o->inputs[2]);
	if (t2f_cli_is_std(o->inputs[0]) && t2f_cli_is_std(o->inputs[1]))
		return t2f_cli_usage_error(err, "diff", "standard input (-) given more than once");
	if (o->each || o->w.flamechart)
		return t2f_cli_usage_error(err, "diff", "%s does not apply to a differential graph",
					   o->each ? "--each" : "--flamechart");
	if (o->format && o->format != T2F_FORMAT_SVG)
		return t2f_cli_usage_error(err, "diff", "writes SVG only (-f svg)");
	named = t2f_cli_is_std(o->output) ? T2F_FORMAT_NONE : t2f_format_by_path(o->output);
	if (!o->format && named && named != T2F_FORMAT_SVG)
		return t2f_cli_usage_error(err, "diff", "writes SVG only: '%s' names another format; "
					   "name the output *.svg", o->output);
	o->format = T2F_FORMAT_SVG;
	return 0;
}

/* The first line a session's options made the library say. */
static void t2f_cli_keep_first(void *ctx, const char *line)
{
	char **first = ctx;

	if (!*first)
		*first = strdup(line);
}

/* --time, --pids, --tids, --comms: checked by the library (a session made with them alone), so
 * a mistake is a usage error naming the option before anything is read. */
static int t2f_cli_check_filter(const struct t2f_cli_opts *o, FILE *err)
{
	static const char prefix[] = "trace2flame: error: ";
	char *said = NULL, *flags;
	struct t2f_options so = {
		.size = sizeof(so), .time = o->time, .pids = o->pids, .tids = o->tids,
		.comms = o->comms, .message = t2f_cli_keep_first, .message_ctx = &said,
	};
	struct t2f_session *s = NULL;
	int ret;

	if (!o->time && !o->pids && !o->tids && !o->comms)
		return 0;
	ret = t2f_session_new(&so, &s);
	t2f_session_free(s);
	if (!ret) {
		free(said);
		return 0;
	}
	if (said && strncmp(said, prefix, sizeof(prefix) - 1) == 0)
		flags = t2f_cli_as_flags("", said + sizeof(prefix) - 1);
	else
		flags = t2f_cli_as_flags("", said ? said : t2f_strerror(ret));
	t2f_cli_usage_error(err, NULL, "%s", flags ? flags : t2f_strerror(ret));
	free(flags);
	free(said);
	return ret;
}

/* The combinations getopt cannot check, and the output format. */
static int t2f_cli_check(struct t2f_cli_opts *o, FILE *err)
{
	int stdin_uses = 0;
	char exts[512];

	if (t2f_cli_check_filter(o, err))
		return -EINVAL;
	if (o->diff)
		return t2f_cli_check_diff(o, err);
	if (o->negate || o->ignore_comm)
		return t2f_cli_usage_error(err, NULL, "%s is for 'trace2flame diff'",
					   o->negate ? "--negate" : "--ignore-comm");

	if (o->n_inputs == 0)
		return t2f_cli_usage_error(err, NULL, "no INPUT given (use - for standard input)");
	for (int i = 0; i < o->n_inputs; i++)
		stdin_uses += t2f_cli_is_std(o->inputs[i]);
	if (stdin_uses > 1)
		return t2f_cli_usage_error(err, NULL, "standard input (-) given more than once");
	if (o->each) {
		if (t2f_cli_is_std(o->output))
			return t2f_cli_usage_error(err, NULL, "--each needs -o DIR, the output directory");
		if (stdin_uses)
			return t2f_cli_usage_error(err, NULL, "--each cannot read standard input (-)");
		if (!o->format)
			o->format = T2F_FORMAT_COLLAPSED;
		return 0;
	}
	if (o->format)
		return 0;
	if (t2f_cli_is_std(o->output) || t2f_cli_is_device_or_dir(o->output)) {
		o->format = T2F_FORMAT_COLLAPSED;
		return 0;
	}
	o->format = t2f_format_by_path(o->output);
	if (!o->format)
		return t2f_cli_usage_error(err, NULL, "cannot tell the output format of '%s': "
					   "name it %s, or use -f FMT", o->output,
					   t2f_cli_format_list(true, exts, sizeof(exts)));
	return 0;
}

void t2f_cli_opts__warn_ignored(const struct t2f_cli_opts *o, FILE *err)
{
	static const char change[] = "its colours show the change";
	struct t2f_format_info w = { .size = sizeof(w) };
	const struct {
		bool given;
		const char *name;
		unsigned uses;    /* the T2F_USES_ bit; 0: does nothing here at all */
		const char *why;  /* NULL: the formats it is for */
	} opts[] = {
		{ o->w.tid, "--tid", T2F_USES_ROOT_IDS, NULL },
		{ o->w.pid && !o->w.tid, "--pid", T2F_USES_ROOT_IDS, NULL },
		{ o->w.inlined, "--all", T2F_USES_MARKS, NULL },
		{ o->w.kernel && !o->w.jit, "--kernel", T2F_USES_MARKS, NULL },
		{ o->w.jit && !o->w.kernel, "--jit", T2F_USES_MARKS, NULL },
		{ o->raw_names, "--raw-names", T2F_USES_MARKS, NULL },
		{ o->addrs, "--addrs", T2F_USES_ADDRS, NULL },
		{ o->weight_samples, "--weight samples", T2F_USES_WEIGHT,
		  o->format == T2F_FORMAT_PPROF ? "a pprof profile keeps both sample counts and "
		  "weights: choose with pprof -sample_index" : NULL },
		{ o->w.title, "--title", T2F_USES_SVG, NULL },
		{ o->w.subtitle, "--subtitle", T2F_USES_SVG, NULL },
		{ o->w.count_name, "--countname", T2F_USES_SVG, NULL },
		{ o->w.width, "--width", T2F_USES_SVG, NULL },
		{ o->w.min_width != 0, "--minwidth", T2F_USES_SVG, NULL },
		{ o->colors_given, "--colors", o->diff ? 0 : T2F_USES_SVG, o->diff ? change : NULL },
		{ o->w.hash, "--hash", o->diff ? 0 : T2F_USES_SVG, o->diff ? change : NULL },
		{ o->w.reverse, "--reverse", T2F_USES_SVG, NULL },
		{ o->w.icicle, "--icicle", T2F_USES_SVG, NULL },
		{ o->w.flamechart, "--flamechart", T2F_USES_SVG, NULL },
		{ o->w.heatmap_rows, "--heatmap-rows", T2F_USES_HEATMAP, NULL },
	};
	char why[160];

	if (o->quiet || t2f_format_info(o->format, &w))
		return;
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (opts[i].given && !(opts[i].uses & w.uses))
			fprintf(err, "trace2flame: warning: %s does nothing for %s (%s%s)\n",
				opts[i].name, o->diff ? "a differential graph" : w.said,
				opts[i].why ? "" : "it is for ",
				opts[i].why ? opts[i].why
					    : t2f_cli_titles(opts[i].uses, why, sizeof(why)));
}

static int t2f_cli_parse(struct t2f_cli_opts *o, bool diff, int argc, char **argv, FILE *out,
			 FILE *err)
{
	int c, ret;

	memset(o, 0, sizeof(*o));
	o->diff = diff;
	o->max_frames = T2F_CLI_MAX_FRAMES;
	opterr = 0; /* our own messages, without argv[0]'s path */
	while ((c = getopt_long(argc, argv, T2F_SHORT_OPTS, t2f_long_opts, NULL)) != -1) {
		ret = t2f_cli_option(o, c, argv, err);
		if (ret)
			return ret;
	}
	if (o->help || o->version || o->list_formats) {
		if (o->help)
			t2f_cli_help(out);
		else if (o->version)
			fputs("trace2flame " T2F_VERSION "\n", out);
		else
			t2f_cli_list_formats(out);
		return 0;
	}
	o->inputs = argv + optind;
	o->n_inputs = argc - optind;
	if (o->n_debug_dirs)
		t2f_cli_add_system_debug_dir(o->debug_dirs);
	return t2f_cli_check(o, err);
}

int t2f_cli_opts__parse(struct t2f_cli_opts *o, int argc, char **argv, FILE *out, FILE *err)
{
	return t2f_cli_parse(o, false, argc, argv, out, err);
}

int t2f_cli_opts__parse_diff(struct t2f_cli_opts *o, int argc, char **argv, FILE *out, FILE *err)
{
	return t2f_cli_parse(o, true, argc, argv, out, err);
}
