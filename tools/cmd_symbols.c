/* tools/cmd_symbols.c: `trace2flame symbols [--demangle] FILE...`: the kept FUNC symbols of each
 * ELF file, one per line, in the form the parity test compares with readelf:
 *
 *   $ trace2flame symbols /usr/lib/x86_64-linux-gnu/libc.so.6
 *   /usr/lib/x86_64-linux-gnu/libc.so.6	.dynsym	29560	a0	__libc_start_main
 *
 * FILE<TAB>TABLE<TAB>VALUE<TAB>SIZE<TAB>NAME: TABLE the section name (".gnu_debugdata:.symtab"
 * for MiniDebugInfo), VALUE raw st_value in lowercase hex without 0x (no arch fix-ups), SIZE
 * decimal, NAME raw, or with --demangle as a frame shows it: without its symbol version
 * ("cfree" for "cfree@GLIBC_2.2.5"), demangled (full). Sizeless symbols are not listed.
 * A file that fails is reported as "trace2flame: FILE: message" and the others still run.
 */
#include "tools/commands.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "include/trace2flame.h"
#include "tools/cli_msg.h"
#include "tools/cli_opts.h"

static const struct option symbols_long_opts[] = {
	{ "demangle", no_argument, NULL, 'd' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct symbols_run {
	struct t2f_symbols *sym;
	const char *file;
	bool demangle;
	int write_err;      /* stdout failed (0 or -errno) */
};

static void symbols_help(FILE *f)
{
	fputs("Usage: trace2flame symbols [--demangle] FILE...\n"
	      "List the function symbols of each ELF FILE (.symtab, .dynsym, .SUNW_ldynsym,\n"
	      "MiniDebugInfo): FILE<TAB>TABLE<TAB>VALUE<TAB>SIZE<TAB>NAME per symbol, VALUE in hex,\n"
	      "SIZE in decimal; FUNC and IFUNC, defined, with a value and a size.\n"
	      "\n"
	      "  --demangle   print names as frames show them: C++ and Rust names demangled,\n"
	      "               without symbol versions (cfree, not cfree@GLIBC_2.2.5)\n"
	      "\n"
	      "Exit status: 0 ok, 1 some FILE is not a valid ELF file, 2 usage error,\n"
	      "3 some FILE cannot be read.\n",
	      f);
}

/* Options; *first is the index of the first FILE. 1: --help printed. */
static int parse_args(struct symbols_run *r, int argc, char **argv, int *first)
{
	bool help = false;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", symbols_long_opts, NULL)) != -1) {
		if (c == 'd')
			r->demangle = true;
		else if (c == 'h')
			help = true;
		else
			return t2f_cli_usage_error(stderr, "symbols", "unknown option '%s'", argv[optind - 1]);
	}
	if (help) {
		symbols_help(stdout);
		return 1;
	}
	if (optind >= argc)
		return t2f_cli_usage_error(stderr, "symbols", "needs at least one FILE");
	*first = optind;
	return 0;
}

static int print_sym(void *ctx, const struct t2f_elf_symbol *sym)
{
	struct symbols_run *r = ctx;
	char *pretty = NULL, vis[T2F_VISIBLE_MAX];

	if (sym->size == 0)
		return 0;
	if (r->demangle)
		pretty = t2f_symbol_name(sym->name, true); /* NULL: out of memory, printed raw */
	if (printf("%s\t%s\t%" PRIx64 "\t%" PRIu64 "\t%s\n", r->file, sym->table, sym->value,
		   sym->size, t2f_visible(pretty ? pretty : sym->name, vis, sizeof(vis))) < 0)
		r->write_err = errno ? -errno : -EIO;
	t2f_free(pretty);
	return r->write_err;
}

/* One FILE: 0, or its error (already reported). */
static int list_file(struct symbols_run *r, const char *file)
{
	int err;

	r->file = file;
	err = t2f_symbols_each_function(r->sym, file, print_sym, r);
	if (err && err != r->write_err)
		fprintf(stderr, "trace2flame: %s\n", t2f_symbols_error(r->sym));
	return err;
}

int t2f_cmd_symbols(int argc, char **argv)
{
	struct t2f_symbols_options o = { .size = sizeof(o), .signals = true,
					 .message = t2f_cli_message };
	struct symbols_run r = { 0 };
	bool unreadable = false, failed = false;
	int first = 0, err;

	err = parse_args(&r, argc, argv, &first);
	if (err)
		return err > 0 ? T2F_EXIT_OK : T2F_EXIT_USAGE;
	err = t2f_symbols_new(&o, &r.sym);
	if (err) {
		fprintf(stderr, "trace2flame: %s\n", t2f_strerror(err));
		return T2F_EXIT_INPUT;
	}
	for (int i = first; i < argc && !r.write_err; i++) {
		err = list_file(&r, argv[i]);
		if (err && err > -T2F_ERR_FORMAT && err != -ENOMEM)
			unreadable = true;   /* -errno: open/read failed */
		else if (err)
			failed = true;
	}
	t2f_symbols_free(r.sym);
	if (fflush(stdout) != 0 || r.write_err) {
		fprintf(stderr, "trace2flame: cannot write the output: %s\n",
			strerror(r.write_err ? -r.write_err : errno));
		return T2F_EXIT_IO;
	}
	return unreadable ? T2F_EXIT_IO : failed ? T2F_EXIT_INPUT : T2F_EXIT_OK;
}
