/* tools/cmd_collect.c: `trace2flame collect [OPTIONS] DIR|FILE... -o STORE`: a build-id tree of
 * debug-only copies (tools/collect.h), and its summary on stdout:
 *
 *   $ trace2flame collect /opt/app -o /srv/symbols
 *   files seen: 812
 *   ELF files: 64
 *   kept: 41 (0 in place of a worse copy)
 *   ...
 */
#include "tools/commands.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/cli_opts.h"
#include "tools/collect.h"

static const struct option collect_long_opts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "max-depth", required_argument, NULL, 'D' },
	{ "max-files", required_argument, NULL, 'F' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void collect_help(FILE *f)
{
	fprintf(f,
		"Usage: trace2flame collect [OPTIONS] DIR|FILE... -o STORE\n"
		"Copy the symbols and DWARF of the x86_64 and aarch64 executables and shared\n"
		"libraries under each DIR (ELF files with a GNU build-id and a .symtab or\n"
		"DWARF) into STORE/.build-id/ab/cdef....debug, debug-only (as objcopy\n"
		"--only-keep-debug, without .gdb_index, DWARF compressed), one file per\n"
		"build-id: the one with DWARF, else with a symbol table, else the first in name\n"
		"order. STORE is what --debug-dir and `debuginfod -F` read. Symbolic links are\n"
		"not followed (but operands).\n"
		"\n"
		"  -o, --output STORE   the store (created when missing)\n"
		"  --max-depth N        enter directories at most N deep (default %u)\n"
		"  --max-files N        stop after N files (default %u)\n"
		"  -q, --quiet          no summary\n"
		"\n"
		"Exit status: 0 ok (files that fail inside a DIR are warnings), 1 a FILE is not\n"
		"collected, 2 usage error, 3 an operand cannot be read or STORE not written.\n",
		T2F_COLLECT_MAX_DEPTH, T2F_COLLECT_MAX_FILES);
}

/* A count in [1, max]: 0, or -EINVAL reported. */
static int count_arg(const char *opt, const char *arg, uint64_t max, uint64_t *out)
{
	char *end;
	uintmax_t v;

	errno = 0;
	v = strtoumax(arg, &end, 10);
	if (arg[0] < '0' || arg[0] > '9' || *end || errno || v == 0 || v > max)
		return t2f_cli_usage_error(stderr, "collect", "%s needs a count from 1 to %" PRIu64
					   ", not '%s'", opt, max, arg);
	*out = v;
	return 0;
}

/* Options into *o, *first the first operand. 1: --help printed; -EINVAL: a usage error. */
static int parse_args(struct t2f_collect_opts *o, bool *quiet, int argc, char **argv,
		      int *first)
{
	uint64_t depth = T2F_COLLECT_MAX_DEPTH;
	bool help = false;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:qh", collect_long_opts, NULL)) != -1) {
		if (c == 'o')
			o->store = optarg;
		else if (c == 'D' && count_arg("--max-depth", optarg, 4096, &depth))
			return -EINVAL;
		else if (c == 'F' && count_arg("--max-files", optarg, UINT64_MAX, &o->max_files))
			return -EINVAL;
		else if (c == 'q')
			*quiet = true;
		else if (c == 'h')
			help = true;
		else if (c == ':')
			return t2f_cli_usage_error(stderr, "collect", "%s needs an argument",
						   argv[optind - 1]);
		else if (c == '?')
			return t2f_cli_usage_error(stderr, "collect", "unknown option '%s'",
						   argv[optind - 1]);
	}
	if (help) {
		collect_help(stdout);
		return 1;
	}
	if (!o->store || !o->store[0])
		return t2f_cli_usage_error(stderr, "collect", "needs -o STORE");
	if (optind >= argc)
		return t2f_cli_usage_error(stderr, "collect", "needs at least one DIR or FILE");
	o->max_depth = (unsigned)depth;
	*first = optind;
	return 0;
}

int t2f_cmd_collect(int argc, char **argv)
{
	struct t2f_collect_opts o = { .max_files = T2F_COLLECT_MAX_FILES, .err = stderr };
	struct t2f_collect_stats st;
	bool quiet = false;
	int first = 0, err, rc;

	err = parse_args(&o, &quiet, argc, argv, &first);
	if (err)
		return err > 0 ? T2F_EXIT_OK : T2F_EXIT_USAGE;
	rc = t2f_collect__run(&o, argv + first, argc - first, &st);
	if (!quiet)
		t2f_collect__summary(&st, stdout);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "trace2flame: collect: cannot write the summary: %s\n",
			strerror(errno));
		return T2F_EXIT_IO;
	}
	return rc;
}
