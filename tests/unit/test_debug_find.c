/* tests/unit/test_debug_find.c: symbolizer/debug_find.c — every place of the search order finds
 * the right file, in order; a wrong build-id or CRC is refused with both ids; a module without a
 * build-id is refused unless unsafe; untrusted debuglink names are not followed; build-id hex.
 *
 * Uses the ELF fixtures of tests/elf/build-fixtures.sh ($T2F_ELF_FIXTURES, see
 * fixtures/elf/README.md); layouts the fixtures do not have (SSQP keys, debug-dir mirrors,
 * $HOME / $XDG_CACHE_HOME caches) are made from them in a temp directory per test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/diag.h"
#include "support/fixture_env.h"
#include "symbolizer/debug_find.h"

/* fx() and tp() return one of RING static buffers: a test may keep that many at once. */
#define RING 64

static char id_prog[2 * T2F_BUILD_ID_MAX + 1], id_prog_v2[2 * T2F_BUILD_ID_MAX + 1];
static char id_lld[2 * T2F_BUILD_ID_MAX + 1];

/* ---- helpers ---- */

static const char *fx(const char *rel)
{
	static char buf[RING][PATH_MAX];
	static int i;

	i = (i + 1) % RING;
	pathf(buf[i], "%s/%s", fx_root, rel);
	return buf[i];
}

static const char *tp(const char *rel)
{
	static char buf[RING][PATH_MAX];
	static int i;

	i = (i + 1) % RING;
	pathf(buf[i], "%s/%s", tmp, rel);
	return buf[i];
}

static void mkdirs(const char *path)
{
	char buf[PATH_MAX];

	pathf(buf, "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(buf, 0755);
		*p = '/';
	}
	mkdir(buf, 0755);
}

/* Copies from to `to`, creating to's directories. */
static void copy(const char *from, const char *to)
{
	char dir[PATH_MAX], buf[1 << 16];
	int in, out;
	ssize_t n;

	pathf(dir, "%s", to);
	*strrchr(dir, '/') = '\0';
	mkdirs(dir);
	in = open(from, O_RDONLY);
	assert_true(in >= 0);
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, (size_t)n), n);
	close(in);
	close(out);
}

/* The "buildid HEX" line of FILE.expect. */
static void expect_build_id(const char *rel, char *hex)
{
	char path[PATH_MAX], line[512];
	FILE *f;

	pathf(path, "%s.expect", fx(rel));
	f = fopen(path, "r");
	assert_non_null(f);
	hex[0] = '\0';
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "buildid %128s", hex) == 1)
			break;
	fclose(f);
	assert_true(hex[0] != '\0');
}

struct run {
	const char *debug_dirs[4];
	const char *symbol_dirs[4];
	const char *cache;
	const char *perf_cache;
	bool unsafe;
	bool trusted;                 /* t2f_debug_find_trusted (id_hex then NULL) */
	struct t2f_debug_result r;
};

/* debug_find with the run's dirs (defaults: an empty debug dir, no symbol dirs, an empty
 * debuginfod cache, so nothing of the machine's leaks in). id_hex NULL: no trace build-id. */
static void find(struct run *run, const char *binary, const char *id_hex)
{
	uint8_t id[T2F_BUILD_ID_MAX];
	size_t len = 0;
	struct t2f_debug_find_opts o = {
		.debug_dirs = run->debug_dirs[0] ? run->debug_dirs : (const char *const[]){ tp("none"), NULL },
		.symbol_dirs = run->symbol_dirs,
		.debuginfod_cache = run->cache ? run->cache : tp("no-cache"),
		.perf_cache = run->perf_cache ? run->perf_cache : tp("no-perf-cache"),
		.unsafe_build_id_match = run->unsafe,
	};

	if (run->trusted) {
		assert_int_equal(t2f_debug_find_trusted(&o, binary, diag, &run->r), 0);
		return;
	}
	if (id_hex)
		assert_true(t2f_build_id_parse(id_hex, id, sizeof(id), &len));
	assert_int_equal(t2f_debug_find(&o, binary, id_hex ? id : NULL, len, diag, &run->r), 0);
}

static const char *found(const struct run *run)
{
	return run->r.module ? t2f_elf_module__path(run->r.module) : "(none)";
}

static void assert_found(struct run *run, const char *path)
{
	assert_string_equal(found(run), path);
	t2f_debug_result__free(&run->r);
}

static const struct t2f_debug_refused *refused(const struct run *run, const char *path)
{
	for (size_t i = 0; i < run->r.n_refused; i++)
		if (strcmp(run->r.refused[i].path, path) == 0)
			return &run->r.refused[i];
	return NULL;
}

static const char *debug_tree_file(const char *hex)
{
	static char buf[PATH_MAX];

	pathf(buf, "debug/.build-id/%.2s/%s.debug", hex, hex + 2);
	return buf;
}

/* ---- build-id text, names, path lists (no fixtures) ---- */

static void test_build_id_parse(void **state)
{
	uint8_t b[T2F_BUILD_ID_MAX];
	char hex[2 * T2F_BUILD_ID_MAX + 1];
	size_t len = 99;

	(void)state;
	assert_true(t2f_build_id_parse("00aBcD7f", b, sizeof(b), &len));
	assert_int_equal(len, 4);
	assert_memory_equal(b, "\x00\xab\xcd\x7f", 4);
	t2f_build_id_hex(b, len, hex);
	assert_string_equal(hex, "00abcd7f");
	assert_false(t2f_build_id_parse("", b, sizeof(b), &len));
	assert_false(t2f_build_id_parse("abc", b, sizeof(b), &len));       /* odd */
	assert_false(t2f_build_id_parse("0xabcd", b, sizeof(b), &len));    /* not hex */
	assert_false(t2f_build_id_parse("ab/cd", b, sizeof(b), &len));
	assert_false(t2f_build_id_parse("../../etc", b, sizeof(b), &len));
	assert_false(t2f_build_id_parse("abcdef", b, 2, &len));            /* too long */
	assert_true(t2f_build_id_parse("abcd", b, 2, &len));
}

/* Every public refusal reason (the library's t2f_refused.reason is the symbolizer's own value)
 * has its words (t2f_refused.why), as the man page and the resolve command show them. */
static void test_refusal_names(void **state)
{
	static const struct { enum t2f_refusal_reason why; const char *name; } all[] = {
		{ T2F_REFUSAL_BUILD_ID, "build-id mismatch" },
		{ T2F_REFUSAL_CRC, "debuglink CRC mismatch" },
		{ T2F_REFUSAL_NO_BUILD_ID, "no build-id to verify against" },
		{ T2F_REFUSAL_NO_SYMBOLS, "no symbols" },
		{ T2F_REFUSAL_UNREADABLE, "not a readable ELF file" },
		{ T2F_REFUSAL_NOT_FILE, "not a regular file" },
		{ T2F_REFUSAL_OVER_LIMIT, "over the decompression limit" },
		{ T2F_REFUSAL_FILE_NO_BUILD_ID, "no build-id in the file" },
	};

	(void)state;
	/* the public values, 1 up, dense: the table has them all */
	assert_int_equal(T2F_REFUSAL_BUILD_ID, 1);
	assert_int_equal(T2F_REFUSAL_FILE_NO_BUILD_ID, sizeof(all) / sizeof(all[0]));
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		assert_int_equal(all[i].why, (int)i + 1);
		assert_string_equal(t2f_refusal_name(all[i].why), all[i].name);
	}
	assert_string_equal(t2f_refusal_name((enum t2f_refusal_reason)0), "refused");
	assert_string_equal(t2f_refusal_name((enum t2f_refusal_reason)9), "refused");
}

static void test_symbol_path_split(void **state)
{
	char **v = NULL;

	(void)state;
	assert_int_equal(t2f_symbol_path_split("/a::b/c:", &v), 2);
	assert_string_equal(v[0], "/a");
	assert_string_equal(v[1], "b/c");
	assert_null(v[2]);
	free(v);
	assert_int_equal(t2f_symbol_path_split(NULL, &v), 0);
	assert_null(v[0]);
	free(v);
	assert_int_equal(t2f_symbol_path_split(":::", &v), 0);
	free(v);
	assert_int_equal(t2f_symbol_path_split("one", &v), 1);
	assert_string_equal(v[0], "one");
	free(v);
}

/* ---- each place of the search order ---- */

static void test_build_id_tree(void **state)
{
	struct run run = { .debug_dirs = { fx("debug") } };

	(void)state;
	find(&run, fx("stripped/prog"), NULL);
	assert_int_equal(run.r.n_refused, 0);
	assert_string_equal(run.r.expected_id, id_prog);
	assert_found(&run, fx(debug_tree_file(id_prog)));
	/* the first of several debug dirs that has it */
	run = (struct run){ .debug_dirs = { tp("empty"), fx("debug") } };
	find(&run, fx("stripped/prog"), id_prog);
	assert_true(run.r.n_missing >= 1);
	assert_found(&run, fx(debug_tree_file(id_prog)));
}

static void test_debuginfod_cache(void **state)
{
	struct run run = { .cache = fx("debuginfod") };
	char want[PATH_MAX];

	(void)state;
	pathf(want, "%s/%s/debuginfo", fx("debuginfod"), id_prog);
	find(&run, fx("stripped/prog"), NULL);
	assert_found(&run, want);
}

/* The cache from the environment: $DEBUGINFOD_CACHE_PATH, $XDG_CACHE_HOME, then $HOME. */
static void test_debuginfod_cache_env(void **state)
{
	struct t2f_debug_find_opts o = { .debug_dirs = (const char *const[]){ tp("none"), NULL } };
	struct t2f_debug_result r;
	char rel[PATH_MAX], want[3][PATH_MAX];
	const char *src = fx(debug_tree_file(id_prog));
	char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;

	(void)state;
	pathf(rel, "env/%s/debuginfo", id_prog);
	pathf(want[0], "%s", tp(rel));
	pathf(rel, "xdg/debuginfod_client/%s/debuginfo", id_prog);
	pathf(want[1], "%s", tp(rel));
	pathf(rel, "home/.cache/debuginfod_client/%s/debuginfo", id_prog);
	pathf(want[2], "%s", tp(rel));
	for (int i = 0; i < 3; i++)
		copy(src, want[i]);

	setenv("DEBUGINFOD_CACHE_PATH", tp("env"), 1);
	setenv("XDG_CACHE_HOME", tp("xdg"), 1);
	setenv("HOME", tp("home"), 1);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(t2f_debug_find(&o, fx("stripped/prog"), NULL, 0, diag, &r), 0);
		assert_non_null(r.module);
		assert_string_equal(t2f_elf_module__path(r.module), want[i]);
		t2f_debug_result__free(&r);
		unsetenv(i == 0 ? "DEBUGINFOD_CACHE_PATH" : "XDG_CACHE_HOME");
	}
	if (home)
		setenv("HOME", home, 1);
	else
		unsetenv("HOME");
	free(home);
}

/* perf's build-id cache as perf record leaves it: .build-id/ab/cdef... is a link to a directory
 * per file and build-id holding `debug` (perf buildid-cache -a of a debug file) and `elf`. */
static void make_perf_cache(const char *root, const char *name, const char *src)
{
	char dir[PATH_MAX], link[PATH_MAX], target[PATH_MAX], file[PATH_MAX];

	pathf(dir, "%s/srv/prog/%s", root, id_prog);
	pathf(file, "%s/%s", dir, name);
	copy(src, file);
	pathf(link, "%s/.build-id/%.2s", root, id_prog);
	mkdirs(link);
	pathf(link, "%s/.build-id/%.2s/%s", root, id_prog, id_prog + 2);
	pathf(target, "../../srv/prog/%s", id_prog);
	assert_int_equal(symlink(target, link), 0);
}

static void test_perf_cache(void **state)
{
	struct run run = { .perf_cache = tp("perf") };
	char want[PATH_MAX];

	(void)state;
	make_perf_cache(tp("perf"), "elf", fx(debug_tree_file(id_prog)));
	pathf(want, "%s/.build-id/%.2s/%s/elf", tp("perf"), id_prog, id_prog + 2);
	find(&run, fx("stripped/prog"), NULL);
	assert_found(&run, want);
	pathf(want, "%s/srv/prog/%s/debug", tp("perf"), id_prog);
	copy(fx(debug_tree_file(id_prog)), want);
	pathf(want, "%s/.build-id/%.2s/%s/debug", tp("perf"), id_prog, id_prog + 2);
	find(&run, fx("stripped/prog"), NULL);
	assert_found(&run, want);                                     /* debug before elf */
	find(&run, fx("stripped/prog"), id_prog_v2);
	assert_null(run.r.module);                                    /* another build: not here */
	t2f_debug_result__free(&run.r);
}

/* $PERF_BUILDID_DIR, and an unpacked perf archive given as a symbol dir. */
static void test_perf_cache_env_and_symbol_dir(void **state)
{
	struct t2f_debug_find_opts o = { .debug_dirs = (const char *const[]){ tp("none"), NULL },
		.debuginfod_cache = tp("no-cache") };
	struct run run = { .symbol_dirs = { tp("archive"), NULL } };
	struct t2f_debug_result r;
	char want[PATH_MAX];

	(void)state;
	make_perf_cache(tp("env"), "debug", fx(debug_tree_file(id_prog)));
	setenv("PERF_BUILDID_DIR", tp("env"), 1);
	assert_int_equal(t2f_debug_find(&o, fx("stripped/prog"), NULL, 0, diag, &r), 0);
	unsetenv("PERF_BUILDID_DIR");
	pathf(want, "%s/.build-id/%.2s/%s/debug", tp("env"), id_prog, id_prog + 2);
	assert_non_null(r.module);
	assert_string_equal(t2f_elf_module__path(r.module), want);
	t2f_debug_result__free(&r);

	make_perf_cache(tp("archive"), "elf", fx(debug_tree_file(id_prog)));
	pathf(want, "%s/.build-id/%.2s/%s/elf", tp("archive"), id_prog, id_prog + 2);
	find(&run, fx("stripped/prog"), NULL);
	assert_found(&run, want);
}

static void test_debuglink_beside_and_dot_debug(void **state)
{
	struct run run = { 0 };

	(void)state;
	find(&run, fx("dl-beside/prog"), NULL);
	assert_found(&run, fx("dl-beside/prog.debug"));
	find(&run, fx("dl-dotdebug/prog"), NULL);
	assert_found(&run, fx("dl-dotdebug/.debug/prog.debug"));
}

/* DIR/<canonical dir of the binary>/NAME under a debug dir. */
static void test_debuglink_under_debug_dir(void **state)
{
	char canon[PATH_MAX], want[PATH_MAX];
	struct run run = { .debug_dirs = { tp("dbg") } };

	(void)state;
	copy(fx("dl-beside/prog"), tp("bin/prog"));
	assert_non_null(realpath(tp("bin"), canon));
	pathf(want, "%s%s/prog.debug", tp("dbg"), canon);
	copy(fx("dl-beside/prog.debug"), want);
	find(&run, tp("bin/prog"), NULL);
	assert_found(&run, want);
}

static void test_debuglink_bad_crc(void **state)
{
	struct run run = { 0 };
	const struct t2f_debug_refused *e;

	(void)state;
	find(&run, fx("dl-badcrc/prog"), NULL);
	assert_null(run.r.module);
	e = refused(&run, fx("dl-badcrc/prog.debug"));
	assert_non_null(e);
	assert_int_equal(e->why, T2F_REFUSAL_CRC);
	assert_string_equal(e->found_id, id_prog); /* its build-id was right: only the CRC differs */
	e = refused(&run, fx("dl-badcrc/prog"));
	assert_non_null(e);
	assert_int_equal(e->why, T2F_REFUSAL_NO_SYMBOLS);
	t2f_debug_result__free(&run.r);
}

static void test_symbol_dir_build_id_tree(void **state)
{
	struct run run = { .symbol_dirs = { tp("x"), fx("debug") } };

	(void)state;
	find(&run, fx("stripped/prog"), NULL);
	assert_found(&run, fx(debug_tree_file(id_prog)));
}

/* SSQP keys (dotnet symstore conventions): _.debug/elf-buildid-sym-<id>/_.debug and
 * <name>/elf-buildid-<id>/<name>; ids under 20 bytes zero-padded to 20, or not (PerfView). */
static void test_ssqp(void **state)
{
	char rel[PATH_MAX], want[PATH_MAX], padded[PATH_MAX];
	struct run run = { .symbol_dirs = { tp("ssqp") } };

	(void)state;
	pathf(rel, "ssqp/_.debug/elf-buildid-sym-%s/_.debug", id_prog);
	pathf(want, "%s", tp(rel));
	copy(fx(debug_tree_file(id_prog)), want);
	find(&run, fx("stripped/prog"), NULL);
	assert_found(&run, want);

	/* the fixture's store holds both keys: the debug file's comes first */
	pathf(rel, "ssqp/_.debug/elf-buildid-sym-%s/_.debug", id_prog);
	run = (struct run){ .symbol_dirs = { fx("ssqp") } };
	find(&run, tp("gone/prog"), id_prog);
	assert_found(&run, fx(rel));

	/* the binary key alone */
	pathf(rel, "bin/prog/elf-buildid-%s/prog", id_prog);
	pathf(want, "%s", tp(rel));
	copy(fx("gnu/prog"), want);
	run = (struct run){ .symbol_dirs = { tp("bin") } };
	find(&run, tp("gone/prog"), id_prog);
	assert_found(&run, want);
	/* ... looked up lowercased too */
	find(&run, tp("gone/PROG"), id_prog);
	assert_found(&run, want);

	/* lld's 8-byte id: padded to 20 bytes */
	pathf(padded, "%s%0*d", id_lld, (int)(40 - strlen(id_lld)), 0);
	pathf(rel, "pad/_.debug/elf-buildid-sym-%s/_.debug", padded);
	pathf(want, "%s", tp(rel));
	copy(fx("lld/prog"), want);
	run = (struct run){ .symbol_dirs = { tp("pad") } };
	find(&run, tp("gone/prog"), id_lld);
	assert_found(&run, want);
	/* ... and unpadded */
	pathf(rel, "nopad/_.debug/elf-buildid-sym-%s/_.debug", id_lld);
	pathf(want, "%s", tp(rel));
	copy(fx("lld/prog"), want);
	run = (struct run){ .symbol_dirs = { tp("nopad") } };
	find(&run, tp("gone/prog"), id_lld);
	assert_found(&run, want);
}

static void test_symbol_dir_copies(void **state)
{
	struct run run = { .symbol_dirs = { fx("symdir") } };

	(void)state;
	find(&run, fx("stripped/prog"), NULL);
	assert_found(&run, fx("symdir/prog"));
}

static void test_binary_itself(void **state)
{
	struct run run = { 0 };

	(void)state;
	find(&run, fx("gnu/prog"), NULL);
	assert_int_equal(run.r.n_refused, 0);
	assert_found(&run, fx("gnu/prog"));
	find(&run, fx("gnu/prog"), id_prog);
	assert_found(&run, fx("gnu/prog"));
}

/* Build-id tree, debuginfod cache, debuglink, symbol dirs, binary: the first one wins. */
static void test_order(void **state)
{
	struct run run = {
		.debug_dirs = { fx("debug") }, .cache = fx("debuginfod"),
		.symbol_dirs = { fx("symdir") },
	};
	char cache_file[PATH_MAX];

	(void)state;
	pathf(cache_file, "%s/%s/debuginfo", fx("debuginfod"), id_prog);
	find(&run, fx("dl-beside/prog"), NULL);
	assert_found(&run, fx(debug_tree_file(id_prog)));
	run.debug_dirs[0] = NULL;
	find(&run, fx("dl-beside/prog"), NULL);
	assert_found(&run, cache_file);
	run.cache = NULL;
	find(&run, fx("dl-beside/prog"), NULL);
	assert_found(&run, fx("dl-beside/prog.debug"));
	find(&run, fx("stripped/prog"), NULL); /* its debuglink names nothing beside it */
	assert_found(&run, fx("symdir/prog"));
}

/* ---- refusals ---- */

static void test_wrong_build_id(void **state)
{
	struct run run = { .debug_dirs = { fx("wrongid/debug"), fx("debug") } };
	const struct t2f_debug_refused *e;
	char wrong[PATH_MAX];

	(void)state;
	pathf(wrong, "%s/%s", fx("wrongid"), debug_tree_file(id_prog));
	find(&run, fx("stripped/prog"), NULL);
	e = refused(&run, wrong);
	assert_non_null(e);
	assert_int_equal(e->why, T2F_REFUSAL_BUILD_ID);
	assert_string_equal(e->found_id, id_prog_v2);
	assert_string_equal(run.r.expected_id, id_prog);
	assert_found(&run, fx(debug_tree_file(id_prog))); /* the search went on */

	/* alone: refused, nothing found */
	run = (struct run){ .debug_dirs = { fx("wrongid/debug") } };
	find(&run, fx("stripped/prog"), NULL);
	assert_null(run.r.module);
	assert_non_null(refused(&run, wrong));
	t2f_debug_result__free(&run.r);
}

/* The trace recorded another build than the one at the path: the binary is refused. */
static void test_binary_of_another_build(void **state)
{
	struct run run = { 0 };
	const struct t2f_debug_refused *e;

	(void)state;
	find(&run, fx("gnu/prog"), id_prog_v2);
	assert_null(run.r.module);
	assert_string_equal(run.r.expected_id, id_prog_v2);
	e = refused(&run, fx("gnu/prog"));
	assert_non_null(e);
	assert_int_equal(e->why, T2F_REFUSAL_BUILD_ID);
	assert_string_equal(e->found_id, id_prog);
	t2f_debug_result__free(&run.r);
}

static void test_no_build_id(void **state)
{
	struct run run = { .symbol_dirs = { fx("symdir") } };
	const struct t2f_debug_refused *e;

	(void)state;
	find(&run, fx("gnu/prog-noid"), NULL);
	assert_null(run.r.module);
	assert_int_equal(run.r.n_refused, 1);
	e = refused(&run, fx("gnu/prog-noid"));
	assert_non_null(e);
	assert_int_equal(e->why, T2F_REFUSAL_NO_BUILD_ID);
	assert_string_equal(run.r.expected_id, "");
	t2f_debug_result__free(&run.r);
	/* a missing binary and no trace id: nothing refused, the binary missing */
	find(&run, tp("gone/prog"), NULL);
	assert_null(run.r.module);
	assert_int_equal(run.r.n_refused, 0);
	assert_int_equal(run.r.n_missing, 1);
	t2f_debug_result__free(&run.r);

	run.unsafe = true;
	find(&run, fx("gnu/prog-noid"), NULL);
	assert_found(&run, fx("gnu/prog-noid"));
	find(&run, tp("gone/prog"), NULL); /* the first candidate with symbols */
	assert_found(&run, fx("symdir/prog"));
}

/* A binary known to be the trace's file (recorded here): its own build-id is the reference when
 * it has one; without one, the binary itself is taken and nothing else is searched. */
static void test_trusted_path(void **state)
{
	struct run run = { .symbol_dirs = { fx("symdir") }, .trusted = true };

	(void)state;
	find(&run, fx("gnu/prog-noid"), NULL);
	assert_int_equal(run.r.n_refused, 0);
	assert_string_equal(run.r.expected_id, "");
	assert_found(&run, fx("gnu/prog-noid"));
	find(&run, tp("gone/prog"), NULL); /* symdir/prog is not taken: nothing verifies it */
	assert_null(run.r.module);
	assert_int_equal(run.r.n_refused, 0);
	t2f_debug_result__free(&run.r);
	find(&run, fx("gnu/prog"), NULL); /* searched as with its id: symdir's copy comes first */
	assert_found(&run, fx("symdir/prog"));
	assert_string_equal(run.r.expected_id, id_prog);
}

static void test_unsafe_takes_a_mismatch_last(void **state)
{
	struct run run = { .debug_dirs = { fx("wrongid/debug") }, .unsafe = true };
	char wrong[PATH_MAX];
	const struct t2f_debug_refused *e;

	(void)state;
	pathf(wrong, "%s/%s", fx("wrongid"), debug_tree_file(id_prog));
	find(&run, fx("stripped/prog"), NULL);
	assert_null(refused(&run, wrong));
	assert_found(&run, wrong);
	/* a verified file later in the order still wins; the mismatch is then refused */
	run.debug_dirs[1] = fx("debug");
	find(&run, fx("stripped/prog"), NULL);
	e = refused(&run, wrong);
	assert_non_null(e);
	assert_int_equal(e->why, T2F_REFUSAL_BUILD_ID);
	assert_found(&run, fx(debug_tree_file(id_prog)));
}

/* Debuglink names with '/' or ".." are never followed, even when the file is there. */
static void test_untrusted_debuglink(void **state)
{
	static const struct {
		const char *fixture, *plant;
	} cases[] = {
		{ "broken/debuglink-slash", "u/sub/libfx.debug" },
		{ "broken/debuglink-dotdot-slash", "libfx.so.debug" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct run run = { 0 };

		copy(fx(cases[i].fixture), tp("u/libfx.so"));
		copy(fx(debug_tree_file(id_prog)), tp(cases[i].plant));
		find(&run, tp("u/libfx.so"), NULL);
		assert_null(refused(&run, tp(cases[i].plant)));
		assert_found(&run, tp("u/libfx.so")); /* the binary itself: it has a .symtab */
	}
}

/* Trace build-ids of 1 byte (no "ab/cdef..." split: the build-id trees are not asked, so
 * DIR/.build-id/ab/.debug is never opened) and of 64 bytes (the longest: every candidate path
 * is built and missed, nothing outside the given dirs is opened). */
static void test_hostile_id_lengths(void **state)
{
	struct run run = { .debug_dirs = { tp("dbg") }, .symbol_dirs = { tp("sym") },
			   .cache = tp("cache"), .perf_cache = tp("perf") };
	char id64[2 * T2F_BUILD_ID_MAX + 1];

	(void)state;
	copy(fx(debug_tree_file(id_prog)), tp("dbg/.build-id/ab/.debug"));
	copy(fx(debug_tree_file(id_prog)), tp("sym/.build-id/ab/.debug"));
	find(&run, tp("gone/prog"), "ab");
	assert_null(run.r.module);
	assert_int_equal(run.r.n_refused, 0);
	assert_string_equal(run.r.expected_id, "ab");
	t2f_debug_result__free(&run.r);

	memset(id64, 'f', sizeof(id64) - 1);
	id64[sizeof(id64) - 1] = '\0';
	find(&run, tp("gone/prog"), id64);
	assert_null(run.r.module);
	assert_int_equal(run.r.n_refused, 0);
	assert_true(run.r.n_missing >= 8);
	assert_string_equal(run.r.expected_id, id64);
	t2f_debug_result__free(&run.r);
}

static void test_unreadable(void **state)
{
	struct run run = { .debug_dirs = { tp("dbg") } };
	char rel[PATH_MAX];
	const struct t2f_debug_refused *e;

	(void)state;
	pathf(rel, "dbg/.build-id/%.2s/%s.debug", id_prog, id_prog + 2);
	copy(fx("broken/not-elf"), tp(rel));
	find(&run, fx("gnu/prog"), NULL);
	e = refused(&run, tp(rel));
	assert_non_null(e);
	assert_int_equal(e->why, T2F_REFUSAL_UNREADABLE);
	assert_found(&run, fx("gnu/prog"));
	/* the binary itself not ELF, no trace id */
	find(&run, fx("broken/not-elf"), NULL);
	assert_null(run.r.module);
	e = refused(&run, fx("broken/not-elf"));
	assert_non_null(e);
	assert_int_equal(e->why, T2F_REFUSAL_UNREADABLE);
	t2f_debug_result__free(&run.r);
}

static void test_missing_is_no_refusal(void **state)
{
	struct run run = { .symbol_dirs = { tp("a"), tp("b") } };

	(void)state;
	find(&run, tp("gone/prog"), id_prog);
	assert_null(run.r.module);
	assert_int_equal(run.r.n_refused, 0);
	assert_true(run.r.n_missing >= 4);
	t2f_debug_result__free(&run.r);
}

static void test_long_paths_skipped(void **state)
{
	static char dir[PATH_MAX + 64];
	struct run run = { 0 };

	(void)state;
	memset(dir, 'd', sizeof(dir) - 1);
	dir[0] = '/';
	run.symbol_dirs[0] = dir;
	run.debug_dirs[0] = dir;
	find(&run, fx("gnu/prog"), NULL);
	assert_found(&run, fx("gnu/prog"));
}

static int group_setup(void **state)
{
	if (fx_group_setup(state))
		return -1;
	expect_build_id("gnu/prog", id_prog);
	expect_build_id("gnu/prog-v2", id_prog_v2);
	expect_build_id("lld/prog", id_lld);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		FX_TEST(test_build_id_parse),
		FX_TEST(test_refusal_names),
		FX_TEST(test_symbol_path_split),
		FX_TEST(test_build_id_tree),
		FX_TEST(test_debuginfod_cache),
		FX_TEST(test_debuginfod_cache_env),
		FX_TEST(test_perf_cache),
		FX_TEST(test_perf_cache_env_and_symbol_dir),
		FX_TEST(test_debuglink_beside_and_dot_debug),
		FX_TEST(test_debuglink_under_debug_dir),
		FX_TEST(test_debuglink_bad_crc),
		FX_TEST(test_symbol_dir_build_id_tree),
		FX_TEST(test_ssqp),
		FX_TEST(test_symbol_dir_copies),
		FX_TEST(test_binary_itself),
		FX_TEST(test_order),
		FX_TEST(test_wrong_build_id),
		FX_TEST(test_binary_of_another_build),
		FX_TEST(test_no_build_id),
		FX_TEST(test_trusted_path),
		FX_TEST(test_unsafe_takes_a_mismatch_last),
		FX_TEST(test_untrusted_debuglink),
		FX_TEST(test_hostile_id_lengths),
		FX_TEST(test_unreadable),
		FX_TEST(test_missing_is_no_refusal),
		FX_TEST(test_long_paths_skipped),
	};

	return cmocka_run_group_tests(tests, group_setup, fx_group_teardown);
}
