/* tests/unit/test_decode_budget.c: the decompression limits of symbolizer/elf_module.h, on the
 * bombs tests/elf/build-fixtures.sh writes with tests/elf/make-bomb (bomb/: every table a zlib
 * .symtab of the FUNC "f" at 0x1000, size 0x10, so 0x1003 resolves to f+0x3 whenever a table is
 * read). A file over the per-file limit is refused with one warning naming it, the section and
 * the bytes; its addresses miss with T2F_MISS_DECODE_LIMIT and the other files of the
 * symbolizer resolve. The per-run limit counts the bytes of every file, a refused one's too, and
 * refuses the files after it; a file that decompresses nothing still resolves. An xz
 * MiniDebugInfo image is decoded no further than what is left. Without a budget a module has the
 * default per-file limit: the 2 GiB bomb is refused after its 5 MB image.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "formats/strtab.h"
#include "support/elf_fixtures.h"
#include "symbolizer/symbolizer.h"

#define MIB (1ull << 20)
#define F_ADDR 0x1003   /* inside "f" (0x1000, size 0x10) */

struct run {
	struct sink s;
	struct t2f_strtab *names;
	struct t2f_symbolizer *sym;
};

/* A symbolizer with these limits (0: the defaults) whose search finds only the files given. */
static void run_open(struct run *r, uint64_t module_max, uint64_t run_max)
{
	static const char *const no_dirs[] = { "/nonexistent/t2f-debug", NULL };
	struct t2f_symbolizer_opts o = {
		.find = { .debug_dirs = no_dirs, .debuginfod_cache = "/nonexistent/t2f-debuginfod",
			  .perf_cache = "/nonexistent/t2f-perf" },
		.demangle = T2F_DEMANGLE_NONE,
		.decode_module_max = module_max,
		.decode_run_max = run_max,
	};

	sink_open(&r->s);
	assert_int_equal(t2f_strtab__new(&r->names), 0);
	assert_int_equal(t2f_symbolizer__new(&o, r->names, r->s.d, &r->sym), 0);
}

static void run_close(struct run *r)
{
	t2f_symbolizer__free(r->sym);
	t2f_strtab__free(r->names);
	sink_close(&r->s);
}

/* Adds fixture REL as a module of its own and resolves addr there: the miss reason; on a hit the
 * name (unless NULL) and offset must be `name`+off. */
static enum t2f_miss resolve(struct run *r, const char *rel, uint64_t addr, const char *name,
			     uint64_t off, t2f_sym_module_id *idp)
{
	struct t2f_module_desc d = { .path = fx_path(rel) };
	t2f_sym_module_id id;
	struct t2f_sym out;

	assert_int_equal(t2f_symbolizer__add_module(r->sym, &d, &id), 0);
	assert_int_equal(t2f_symbolizer__resolve_vaddr(r->sym, id, addr, &out), 0);
	if (out.miss == T2F_HIT && name)
		assert_string_equal(t2f_strtab__str(r->names, out.name, NULL), name);
	if (out.miss == T2F_HIT)
		assert_int_equal(out.offset, off);
	if (idp)
		*idp = id;
	return out.miss;
}

/* 0x1003 of a bomb. */
static enum t2f_miss resolve_f(struct run *r, const char *rel, t2f_sym_module_id *id)
{
	return resolve(r, rel, F_ADDR, "f", 3, id);
}

/* The sink holds `line` as a whole line ("trace2flame: warning: " then line). */
static void expect_line(struct sink *s, const char *line)
{
	char want[1024];

	snprintf(want, sizeof(want), "trace2flame: warning: %s\n", line);
	if (!strstr(sink_text(s), want))
		fail_msg("no line \"%s\" in:\n%s", want, sink_text(s));
}

/* How many warnings say "symbols refused". */
static size_t refusals(struct sink *s)
{
	size_t n = 0;

	for (const char *p = sink_text(s); (p = strstr(p, ": symbols refused: ")); p++)
		n++;
	return n;
}

/* Module id's search refused exactly REL, as over the decompression limit. */
static void expect_refused(struct run *r, t2f_sym_module_id id, const char *rel)
{
	const struct t2f_debug_result *res = t2f_symbolizer__module_files(r->sym, id);

	assert_non_null(res);
	assert_null(res->module);
	assert_int_equal(res->n_refused, 1);
	assert_string_equal(res->refused[0].path, fx_path(rel));
	assert_int_equal(res->refused[0].why, T2F_REFUSAL_OVER_LIMIT);
	assert_string_equal(t2f_refusal_name(T2F_REFUSAL_OVER_LIMIT), "over the decompression limit");
	assert_string_equal(t2f_miss_name(T2F_MISS_DECODE_LIMIT), "over the decompression limit");
}

static void need_bombs(void)
{
	need("bomb/symtab-3x1m", "bombs");
}

/* 3 tables of 1 MiB under a 2 MiB limit per file: the third is refused before it is decoded,
 * the file misses, one warning; a file of 1 MiB in the same symbolizer resolves. */
static void test_file_over_limit(void **state)
{
	char line[1024];
	t2f_sym_module_id id;
	struct run r;

	(void)state;
	need_bombs();
	run_open(&r, 2 * MIB, 64 * MIB);
	assert_int_equal(resolve_f(&r, "bomb/symtab-3x1m", &id), T2F_MISS_DECODE_LIMIT);
	snprintf(line, sizeof(line), "%s: symbols refused: .symtab decompresses to 1048576 bytes, "
		 "over the limit of 2 MiB per file (2097152 bytes decompressed before it)",
		 fx_path("bomb/symtab-3x1m"));
	expect_line(&r.s, line);
	expect_refused(&r, id, "bomb/symtab-3x1m");
	assert_int_equal(resolve_f(&r, "bomb/symtab-1m-a", NULL), T2F_HIT);
	assert_int_equal(resolve(&r, "bomb/symtab-3x1m", 0x1004, "f", 4, NULL),
			 T2F_MISS_DECODE_LIMIT);  /* the same file: searched once */
	assert_int_equal(refusals(&r.s), 1);
	assert_int_equal(t2f_diag__warnings(r.s.d), 1);
	run_close(&r);
}

/* A run of 3 MiB: the refused 3x1m file decoded 2 MiB of it, 1m-a takes the last MiB, 1m-b is
 * refused for the run (its own limit would hold it), and so are the files after it; a file that
 * decompresses nothing (gnu/libfx.so: fx_lib_work or its alias) still resolves. */
static void test_run_limit(void **state)
{
	struct expect *x;
	const struct xsym *w;
	t2f_sym_module_id id;
	char line[1024];
	struct run r;

	(void)state;
	need_bombs();
	need("gnu/libfx.so", "gnu");
	x = load_expect("gnu/libfx.so", NULL);
	w = xsym_named(x, "fx_lib_work");
	assert_non_null(w);
	run_open(&r, 2 * MIB, 3 * MIB);
	assert_int_equal(resolve_f(&r, "bomb/symtab-3x1m", NULL), T2F_MISS_DECODE_LIMIT);
	assert_int_equal(resolve_f(&r, "bomb/symtab-1m-a", NULL), T2F_HIT);
	assert_int_equal(resolve_f(&r, "bomb/symtab-1m-b", &id), T2F_MISS_DECODE_LIMIT);
	snprintf(line, sizeof(line), "%s: symbols refused: .symtab decompresses to 1048576 bytes, "
		 "over the limit of 3 MiB for all files of the run (3145728 bytes decompressed "
		 "before it)", fx_path("bomb/symtab-1m-b"));
	expect_line(&r.s, line);
	expect_refused(&r, id, "bomb/symtab-1m-b");
	assert_int_equal(resolve_f(&r, "bomb/symtab-1m-c", NULL), T2F_MISS_DECODE_LIMIT);
	assert_int_equal(resolve(&r, "gnu/libfx.so", w->fixed + 1, NULL, 1, NULL), T2F_HIT);
	assert_int_equal(refusals(&r.s), 3);
	run_close(&r);
	free(x);
}

/* The MiniDebugInfo image of two 1 MiB tables: it resolves under 3 MiB; under 1 MiB the image
 * fits and its first table is refused; under 4096 bytes the image itself stops at 4097. */
static void test_minidebuginfo(void **state)
{
	const char *rel = "bomb/debugdata-2x1m";
	char line[1024];
	struct run r;

	(void)state;
	need_bombs();
	run_open(&r, 3 * MIB, 3 * MIB);
	assert_int_equal(resolve_f(&r, rel, NULL), T2F_HIT);
	assert_int_equal(t2f_diag__warnings(r.s.d), 0);
	run_close(&r);

	run_open(&r, MIB, 0);
	assert_int_equal(resolve_f(&r, rel, NULL), T2F_MISS_DECODE_LIMIT);
	snprintf(line, sizeof(line), "%s: symbols refused: .gnu_debugdata:.symtab decompresses to "
		 "1048576 bytes, over the limit of 1 MiB per file (", fx_path(rel));
	if (!strstr(sink_text(&r.s), line))
		fail_msg("no \"%s\" in:\n%s", line, sink_text(&r.s));
	assert_int_equal(refusals(&r.s), 1);
	run_close(&r);

	run_open(&r, 4096, 0);
	assert_int_equal(resolve_f(&r, rel, NULL), T2F_MISS_DECODE_LIMIT);
	snprintf(line, sizeof(line), "%s: symbols refused: .gnu_debugdata decompresses to more than "
		 "4096 bytes, over the limit of 4096 bytes per file (0 bytes decompressed before it)",
		 fx_path(rel));
	expect_line(&r.s, line);
	assert_int_equal(refusals(&r.s), 1);
	run_close(&r);
}

/* No budget: the default per-file limit. The 2 GiB bomb's first 256 MiB table is refused once
 * its image is decoded; lookups and the listing give -T2F_ERR_LIMIT; a small bomb loads. */
static void test_default_limit(void **state)
{
	struct t2f_elf_module *m;
	struct t2f_elf_sym out;
	char line[1024];
	struct sink s;

	(void)state;
	need("bomb/debugdata-8x256m", "bombs");
	sink_open(&s);
	m = open_ok("bomb/debugdata-8x256m", &s);
	assert_false(t2f_elf_module__has_symbols(m));
	assert_true(t2f_elf_module__over_budget(m));
	assert_int_equal(t2f_elf_module__lookup(m, F_ADDR, &out), -T2F_ERR_LIMIT);
	snprintf(line, sizeof(line), "%s: symbols refused: .gnu_debugdata:.symtab decompresses to "
		 "268435456 bytes, over the limit of 128 MiB per file (",
		 fx_path("bomb/debugdata-8x256m"));
	if (!strstr(sink_text(&s), line))
		fail_msg("no \"%s\" in:\n%s", line, sink_text(&s));
	assert_int_equal(refusals(&s), 1);
	t2f_elf_module__free(m);

	m = open_ok("bomb/symtab-3x1m", &s);
	assert_int_equal(t2f_elf_module__lookup(m, F_ADDR, &out), 1);
	assert_string_equal(out.name, "f");
	assert_false(t2f_elf_module__over_budget(m));
	assert_int_equal(refusals(&s), 1);
	t2f_elf_module__free(m);
	sink_close(&s);
}

/* Two modules given one budget share its run limit; set_budget after the tables were read is
 * ignored. */
static void test_shared_budget(void **state)
{
	struct t2f_elf_module *a, *b;
	struct t2f_decode_budget budget;
	struct t2f_elf_sym out;
	struct sink s;

	(void)state;
	need_bombs();
	t2f_decode_budget__init(&budget, 0, 3 * MIB);
	assert_int_equal(budget.module_max, T2F_DECODE_MODULE_MAX);
	sink_open(&s);
	a = open_ok("bomb/symtab-3x1m", &s);
	b = open_ok("bomb/symtab-1m-a", &s);
	t2f_elf_module__set_budget(a, &budget);
	assert_int_equal(t2f_elf_module__lookup(a, F_ADDR, &out), 1);
	assert_int_equal(atomic_load(&budget.used), 3 * MIB);
	t2f_elf_module__set_budget(b, &budget);
	assert_int_equal(t2f_elf_module__lookup(b, F_ADDR, &out), -T2F_ERR_LIMIT);
	assert_true(t2f_elf_module__over_budget(b));
	t2f_decode_budget__init(&budget, 0, 0);
	t2f_elf_module__set_budget(b, &budget);  /* read already: stays refused */
	assert_int_equal(t2f_elf_module__lookup(b, F_ADDR, &out), -T2F_ERR_LIMIT);
	assert_int_equal(refusals(&s), 1);
	t2f_elf_module__free(a);
	t2f_elf_module__free(b);
	sink_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file_over_limit),
		cmocka_unit_test(test_run_limit),
		cmocka_unit_test(test_minidebuginfo),
		cmocka_unit_test(test_default_limit),
		cmocka_unit_test(test_shared_budget),
	};

	if (elf_fixtures_init("test_decode_budget"))
		return 1;
	return cmocka_run_group_tests_name("decode_budget", tests, NULL, NULL);
}
