/* tools/cmd_resolve.c: `trace2flame resolve FILE ADDR...`: ELF virtual address → function, the
 * way `addr2line -f -e FILE ADDR` answers from symbol tables, through the same debug-file search
 * and verification as a conversion (symbolizer/debug_find.h).
 *
 *   $ trace2flame resolve --symbol-path ./debug ./prog 0x1690 16A0
 *   0x1690	work+0x10	./debug/.build-id/ed/023084a68e6185.debug
 *   0x16a0	?? (not found)	./debug/.build-id/ed/023084a68e6185.debug
 *
 * Addresses are printed as 0x and lowercase hex whatever their spelling; an ADDR that is not
 * hex is said on stderr and the others are still resolved (exit 1).
 */
#include "tools/commands.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "include/trace2flame.h"
#include "tools/cli_msg.h"
#include "tools/cli_opts.h"

#define RESOLVE_MAX_DIRS 64
#define RESOLVE_BUILD_ID_MAX 64 /* bytes */

enum resolve_opt {
	RESOLVE_OPT_SYMBOL_PATH = 256,
	RESOLVE_OPT_DEBUG_DIR,
	RESOLVE_OPT_BUILD_ID,
	RESOLVE_OPT_UNSAFE,
	RESOLVE_OPT_DEMANGLE,
	RESOLVE_OPT_INLINES,
	RESOLVE_OPT_OFFLINE,
	RESOLVE_OPT_DEBUGINFOD,
	RESOLVE_OPT_NO_CACHE,
};

static const struct option resolve_long_opts[] = {
	{ "symbol-path", required_argument, NULL, RESOLVE_OPT_SYMBOL_PATH },
	{ "debug-dir", required_argument, NULL, RESOLVE_OPT_DEBUG_DIR },
	{ "build-id", required_argument, NULL, RESOLVE_OPT_BUILD_ID },
	{ "unsafe-build-id-match", no_argument, NULL, RESOLVE_OPT_UNSAFE },
	{ "demangle", required_argument, NULL, RESOLVE_OPT_DEMANGLE },
	{ "inlines", no_argument, NULL, RESOLVE_OPT_INLINES },
	{ "offline", no_argument, NULL, RESOLVE_OPT_OFFLINE },
	{ "debuginfod", required_argument, NULL, RESOLVE_OPT_DEBUGINFOD },
	{ "no-cache", no_argument, NULL, RESOLVE_OPT_NO_CACHE },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct resolve_args {
	const char *symbol_dirs[RESOLVE_MAX_DIRS + 1];
	size_t n_symbol_dirs;
	const char *debug_dirs[RESOLVE_MAX_DIRS + 2]; /* then /usr/lib/debug */
	size_t n_debug_dirs;
	const char *build_id;      /* hex, or NULL */
	bool unsafe;
	bool raw, no_params;       /* --demangle none, no-params */
	bool inlines;              /* --inlines: the DWARF inline chain with file:line */
	bool offline;              /* --offline: no debuginfod fetches */
	bool no_cache;             /* --no-cache: the symbol cache neither read nor written */
	const char *file;
	char **addrs;
	int n_addrs;
	bool help;
};

static void resolve_help(FILE *f)
{
	fputs("Usage: trace2flame resolve [OPTIONS] FILE ADDR...\n"
	      "Print the function at each ELF virtual address ADDR (hex, 0x optional) of FILE,\n"
	      "as ADDR<TAB>function+0xOFFSET<TAB>file the symbol came from, or\n"
	      "ADDR<TAB>?? (reason)<TAB>file on a miss; ADDR as 0x and lowercase hex. FILE's\n"
	      "symbols are searched like in a conversion: build-id trees, debuginfod cache,\n"
	      ".gnu_debuglink, symbol dirs, FILE, then the debuginfod servers. An ADDR that is\n"
	      "not hex is said on standard error; the others are still resolved.\n"
	      "\n"
	      "  --symbol-path DIR        also search DIR (repeatable; then T2F_SYMBOL_PATH,\n"
	      "                           colon-separated)\n"
	      "  --debug-dir DIR          debug directory (repeatable; searched before /usr/lib/debug)\n"
	      "  --build-id HEX           the build-id FILE was recorded with (default: FILE's)\n"
	      "  --unsafe-build-id-match  use files whose build-id cannot be verified\n"
	      "  --demangle MODE          full (default) | no-params | none\n"
	      "  --inlines                also print, from DWARF, the functions inlined at ADDR\n"
	      "                           innermost first, one a line: ADDR<TAB>  function<TAB>\n"
	      "                           file:line (the last is the function holding the code)\n"
	      "  --offline                never fetch from the debuginfod servers of\n"
	      "                           DEBUGINFOD_URLS (by default: when nothing is found here)\n"
	      "  --debuginfod URL         ask this server too, first (repeatable)\n"
	      "  --no-cache               neither read nor write the symbol cache (as a\n"
	      "                           conversion, it keeps the answers per build-id)\n"
	      "\n"
	      "Exit status: 0 all resolved, 1 some address not resolved or not hex, 2 usage\n"
	      "error, 3 FILE unreadable (or not ELF) and no symbols found for it.\n",
	      f);
}

static int parse_demangle(const char *arg, struct resolve_args *a)
{
	a->raw = strcmp(arg, "none") == 0;
	a->no_params = strcmp(arg, "no-params") == 0;
	if (!a->raw && !a->no_params && strcmp(arg, "full") != 0)
		return t2f_cli_usage_error(stderr, "resolve", "unknown --demangle mode '%s' (known: "
					   "full, no-params, none)", arg);
	return 0;
}

static int add_dir(const char **dirs, size_t *n, const char *dir, const char *opt)
{
	if (*n >= RESOLVE_MAX_DIRS)
		return t2f_cli_usage_error(stderr, "resolve", "more than %d %s options", RESOLVE_MAX_DIRS, opt);
	dirs[(*n)++] = dir;
	dirs[*n] = NULL;
	return 0;
}

/* An even number of hex digits, at most RESOLVE_BUILD_ID_MAX bytes. */
static bool is_build_id(const char *s)
{
	size_t n = strlen(s);

	return n && n % 2 == 0 && n <= 2 * RESOLVE_BUILD_ID_MAX &&
	       strspn(s, "0123456789abcdefABCDEF") == n;
}

static int parse_opt(struct resolve_args *a, int c, char **argv)
{
	switch (c) {
	case RESOLVE_OPT_SYMBOL_PATH:
		return add_dir(a->symbol_dirs, &a->n_symbol_dirs, optarg, "--symbol-path");
	case RESOLVE_OPT_DEBUG_DIR:
		return add_dir(a->debug_dirs, &a->n_debug_dirs, optarg, "--debug-dir");
	case RESOLVE_OPT_BUILD_ID:
		if (!is_build_id(optarg))
			return t2f_cli_usage_error(stderr, "resolve", "--build-id '%s' is not a hex build-id", optarg);
		a->build_id = optarg;
		return 0;
	case RESOLVE_OPT_UNSAFE:
		a->unsafe = true;
		return 0;
	case RESOLVE_OPT_DEMANGLE:
		return parse_demangle(optarg, a);
	case RESOLVE_OPT_INLINES:
		a->inlines = true;
		return 0;
	case RESOLVE_OPT_OFFLINE:
		a->offline = true;
		return 0;
	case RESOLVE_OPT_NO_CACHE:
		a->no_cache = true;
		return 0;
	case RESOLVE_OPT_DEBUGINFOD:
		return t2f_cli_add_debuginfod(stderr, "resolve", optarg);
	case 'h':
		a->help = true;
		return 0;
	case ':':
		return t2f_cli_usage_error(stderr, "resolve", "option '%s' needs an argument", argv[optind - 1]);
	default:
		return t2f_cli_usage_error(stderr, "resolve", "unknown option '%s'", argv[optind - 1]);
	}
}

static int parse_args(struct resolve_args *a, int argc, char **argv)
{
	int c, err;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", resolve_long_opts, NULL)) != -1) {
		err = parse_opt(a, c, argv);
		if (err)
			return err;
	}
	if (a->help)
		return 0;
	if (argc - optind < 2)
		return t2f_cli_usage_error(stderr, "resolve", "needs FILE and at least one ADDR");
	if (a->n_debug_dirs)
		t2f_cli_add_system_debug_dir(a->debug_dirs);
	a->file = argv[optind];
	a->addrs = argv + optind + 1;
	a->n_addrs = argc - optind - 1;
	return 0;
}

/* Hex, 0x optional. */
static bool parse_addr(const char *s, uint64_t *addr)
{
	char *end;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	if (!*s || !strchr("0123456789abcdefABCDEF", *s))
		return false;
	errno = 0;
	*addr = strtoull(s, &end, 16);
	return errno == 0 && *end == '\0';
}

static void print_refused(const struct t2f_symbols *s, uint32_t mod)
{
	size_t n = t2f_symbols_refusal_count(s, mod);

	for (size_t i = 0; i < n; i++) {
		struct t2f_refused e = { .size = sizeof(e) };
		char vis[T2F_VISIBLE_MAX];

		if (t2f_symbols_refusal(s, mod, i, &e))
			continue;
		fprintf(stderr, "trace2flame: refused %s: %s", t2f_visible(e.path, vis, sizeof(vis)),
			e.why);
		if (e.reason == T2F_REFUSAL_BUILD_ID)
			fprintf(stderr, " (expected %s, found %s)", e.expected_id,
				e.found_id[0] ? e.found_id : "none");
		else if (e.reason == T2F_REFUSAL_FILE_NO_BUILD_ID)
			fprintf(stderr, " (expected %s)", e.expected_id);
		else if (e.reason == T2F_REFUSAL_NO_BUILD_ID)
			fputs(" (give --build-id HEX, or --unsafe-build-id-match)", stderr);
		fputc('\n', stderr);
	}
}

/* Names and paths from the files with control characters as "\xNN". */
static void print_sym(uint64_t addr, const struct t2f_symbol *sym, const char *module)
{
	char vname[T2F_VISIBLE_MAX], vmod[T2F_VISIBLE_MAX];

	module = t2f_visible(module, vmod, sizeof(vmod));
	if (!sym->miss)
		printf("0x%" PRIx64 "\t%s+0x%" PRIx64 "\t%s\n", addr,
		       t2f_visible(sym->name, vname, sizeof(vname)), sym->offset, module);
	else
		printf("0x%" PRIx64 "\t?? (%s)\t%s\n", addr, sym->miss, module);
}

/* --inlines: "ADDR<TAB>  function<TAB>file:line" per level, innermost first ("??" unknown). */
static int print_inlines(struct t2f_symbols *s, uint32_t mod, uint64_t vaddr)
{
	struct t2f_source_frame f[64] = { { .size = sizeof(f[0]) } }; /* the stride */
	char vname[T2F_VISIBLE_MAX], vfile[T2F_VISIBLE_MAX];
	int n = t2f_symbols_inlines(s, mod, T2F_SPACE_ELF_VADDR, vaddr, f, 64);

	for (int i = 0; i < n; i++) {
		printf("0x%" PRIx64 "\t  %s\t%s:", vaddr,
		       f[i].name ? t2f_visible(f[i].name, vname, sizeof(vname)) : "??",
		       f[i].file ? t2f_visible(f[i].file, vfile, sizeof(vfile)) : "??");
		if (f[i].line)
			printf("%u\n", f[i].line);
		else
			puts("?");
	}
	return n < 0 ? n : 0;
}

struct resolve_run {
	struct t2f_symbols *sym;
	uint32_t mod;
};

static int run_open(struct resolve_run *r, const struct resolve_args *a)
{
	struct t2f_symbols_options o = {
		.size = sizeof(o),
		.debug_dirs = a->n_debug_dirs ? a->debug_dirs : NULL,
		.symbol_dirs = a->symbol_dirs,
		.unsafe_build_id_match = a->unsafe,
		.raw_names = a->raw,
		.no_params = a->no_params,
		.offline = a->offline,
		.signals = true,
		.cache = !a->no_cache,
		.message = t2f_cli_message,
	};
	struct t2f_module m = { .size = sizeof(m), .path = a->file, .build_id = a->build_id };

	return t2f_symbols_new(&o, &r->sym) ?: t2f_symbols_add_module(r->sym, &m, &r->mod);
}

/* Exit 3 when nothing was found and FILE itself cannot be read as an ELF file: said alone (the
 * other refusals, build-id advice among them, would not help). */
static bool file_unreadable(const struct resolve_run *r, const struct resolve_args *a,
			    const struct t2f_symbol *first)
{
	size_t n = t2f_symbols_refusal_count(r->sym, r->mod);
	char vis[T2F_VISIBLE_MAX];

	if (first->file)
		return false;
	if (access(a->file, R_OK) != 0) {
		fprintf(stderr, "trace2flame: cannot read %s: %s\n",
			t2f_visible(a->file, vis, sizeof(vis)), strerror(errno));
		return true;
	}
	for (size_t i = 0; i < n; i++) {
		struct t2f_refused e = { .size = sizeof(e) };

		if (t2f_symbols_refusal(r->sym, r->mod, i, &e) == 0 &&
		    (e.reason == T2F_REFUSAL_UNREADABLE || e.reason == T2F_REFUSAL_NOT_FILE) &&
		    strcmp(e.path, a->file) == 0) {
			fprintf(stderr, "trace2flame: %s: %s\n", t2f_visible(a->file, vis,
										 sizeof(vis)), e.why);
			return true;
		}
	}
	return false;
}

/* One ADDR's lines; 0, or the exit code that ends the command. */
static int resolve_one(struct resolve_run *r, const struct resolve_args *a, uint64_t addr,
		       bool first, bool *missed)
{
	struct t2f_symbol sym = { .size = sizeof(sym) };
	int err = t2f_symbols_resolve(r->sym, r->mod, T2F_SPACE_ELF_VADDR, addr, &sym);

	if (err) {
		fprintf(stderr, "trace2flame: %s\n", t2f_strerror(err));
		return T2F_EXIT_IO;
	}
	if (first) { /* the files were looked for on the first address */
		if (file_unreadable(r, a, &sym))
			return T2F_EXIT_IO;
		print_refused(r->sym, r->mod);
	}
	print_sym(addr, &sym, sym.file ? sym.file : a->file);
	*missed |= sym.miss != NULL;
	err = a->inlines ? print_inlines(r->sym, r->mod, addr) : 0;
	if (err) {
		fprintf(stderr, "trace2flame: %s\n", t2f_strerror(err));
		return T2F_EXIT_IO;
	}
	return 0;
}

static int resolve_all(struct resolve_run *r, const struct resolve_args *a)
{
	bool missed = false, first = true;
	char vis[T2F_VISIBLE_MAX];
	uint64_t addr;
	int rc;

	for (int i = 0; i < a->n_addrs; i++) {
		if (!parse_addr(a->addrs[i], &addr)) {
			fprintf(stderr, "trace2flame: resolve: '%s' is not a hex address\n",
				t2f_visible(a->addrs[i], vis, sizeof(vis)));
			missed = true;
			continue;
		}
		rc = resolve_one(r, a, addr, first, &missed);
		if (rc)
			return rc;
		first = false;
	}
	return missed ? T2F_EXIT_INPUT : T2F_EXIT_OK;
}

int t2f_cmd_resolve(int argc, char **argv)
{
	struct resolve_args a = { 0 };
	struct resolve_run r = { 0 };
	int rc;

	if (parse_args(&a, argc, argv))
		return T2F_EXIT_USAGE;
	if (a.help) {
		resolve_help(stdout);
		return T2F_EXIT_OK;
	}
	rc = T2F_EXIT_IO;
	if (run_open(&r, &a)) {
		fprintf(stderr, "trace2flame: %s\n", t2f_strerror(-ENOMEM));
		goto out;
	}
	rc = resolve_all(&r, &a);
	if (fflush(stdout) != 0 || ferror(stdout))
		rc = T2F_EXIT_IO;
out:
	t2f_symbols_free(r.sym);
	return rc;
}
