/* tests/unit/test_symbolizer.c: symbolizer/symbolizer.c and module_map.c — abs_ip → file_off →
 * elf_vaddr on GNU ld and lld objects (lld: p_vaddr != p_offset) with synthetic perf MMAP2
 * records (map_start = a bias + PAGE_DOWN(p_vaddr), pgoff = PAGE_DOWN(p_offset), as
 * docs/perf-addresses.md measured) and with the nettrace formula (has_segment); every function
 * of each file, at its start, middle and last byte; separate debug files with and without the
 * binary; the miss reasons; memo, file sharing and demangling.
 *
 * Expected values come from the FILE.expect sidecars that tests/elf/build-fixtures.sh writes
 * from readelf at test time ($T2F_ELF_FIXTURES). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/diag.h"
#include "support/fixture_env.h"
#include "formats/strtab.h"
#include "symbolizer/module_map.h"
#include "symbolizer/symbolizer.h"

#define PAGE 4096ULL
#define BIAS 0x7f1234560000ULL   /* where our synthetic process loaded a PIE / .so */
#define MAX_LOADS 16
#define MAX_SYMS 512


struct fx_sym {
	uint64_t value, size;   /* value: the FIXED column (the address a lookup uses) */
	char name[256];
};

struct fx_file {
	char path[PATH_MAX];
	unsigned type;          /* e_type */
	char build_id[2 * T2F_BUILD_ID_MAX + 1];
	struct t2f_elf_load loads[MAX_LOADS];
	size_t n_loads;
	struct fx_sym syms[MAX_SYMS];   /* sized FUNC/IFUNC symbols of every table */
	size_t n_syms;
};

/* ---- helpers ---- */

/* A formatted shell command, which must succeed (support/fixture_env.h fx_shell). */
#define run_cmd(...) assert_int_equal(fx_shell(__VA_ARGS__), 0)

static uint64_t page_down(uint64_t x)
{
	return x & ~(PAGE - 1);
}

static uint64_t page_up(uint64_t x)
{
	return page_down(x + PAGE - 1);
}

static void parse_expect_line(struct fx_file *f, const char *line)
{
	struct t2f_elf_load *l = &f->loads[f->n_loads];
	char table[64], type[16], bind[16], value[32], fixed[32], size[32];
	struct fx_sym *y = &f->syms[f->n_syms];
	unsigned pf;

	if (sscanf(line, "type %u", &f->type) == 1)
		return;
	if (sscanf(line, "buildid %128s", f->build_id) == 1)
		return;
	if (sscanf(line, "load %" SCNx64 " %" SCNx64 " %" SCNx64 " %" SCNx64 " %u", &l->p_offset,
		   &l->p_vaddr, &l->p_filesz, &l->p_memsz, &pf) == 5) {
		l->p_flags = (pf & 4 ? 4 : 0) | (pf & 2 ? 2 : 0) | (pf & 1 ? 1 : 0); /* PF_R|W|X */
		assert_true(++f->n_loads < MAX_LOADS);
		return;
	}
	if (sscanf(line, "sym %63s %31s %31s %15s %15s %31s %255s", table, value, size, type, bind,
		   fixed, y->name) == 7) {
		y->value = strtoull(fixed, NULL, 16);
		y->size = strtoull(size, NULL, 16);
		if (y->size)
			assert_true(++f->n_syms < MAX_SYMS);
	}
}

/* Reads FILE.expect of fixture `rel`. */
static void load_fixture(const char *rel, struct fx_file *f)
{
	char path[PATH_MAX], line[1024];
	FILE *in;

	memset(f, 0, sizeof(*f));
	pathf(f->path, "%s/%s", fx_root, rel);
	in = fopen(pathf(path, "%s.expect", f->path), "r");
	assert_non_null(in);
	while (fgets(line, sizeof(line), in))
		parse_expect_line(f, line);
	fclose(in);
	assert_true(f->n_loads > 0);
	assert_true(f->n_syms > 0);
}

/* True when some sized symbol at `value` is called `name` (aliases are one function). */
static bool is_alias(const struct fx_file *f, uint64_t value, const char *name)
{
	for (size_t i = 0; i < f->n_syms; i++)
		if (f->syms[i].value == value && strcmp(f->syms[i].name, name) == 0)
			return true;
	return false;
}

/* The executable PT_LOAD holding elf_vaddr, or -1. */
static int exec_segment_of(const struct fx_file *f, uint64_t elf_vaddr)
{
	for (size_t i = 0; i < f->n_loads; i++) {
		const struct t2f_elf_load *l = &f->loads[i];

		if ((l->p_flags & 1) && elf_vaddr >= l->p_vaddr && elf_vaddr < l->p_vaddr + l->p_memsz)
			return (int)i;
	}
	return -1;
}

static uint64_t bias_of(const struct fx_file *f)
{
	return f->type == 2 ? 0 : BIAS; /* ET_EXEC loads at its link addresses */
}

struct sym_env {
	struct t2f_strtab *names;
	struct t2f_symbolizer *s;
};

/* A symbolizer that sees only debug_dir (NULL: an empty one) and no debuginfod cache. */
static void env_new(struct sym_env *e, const char *debug_dir, enum t2f_demangle_mode mode)
{
	char none[PATH_MAX], cache[PATH_MAX];
	const char *dirs[] = { debug_dir ? debug_dir : pathf(none, "%s/none", tmp), NULL };
	struct t2f_symbolizer_opts o = {
		.find = { .debug_dirs = dirs, .debuginfod_cache = pathf(cache, "%s/no-cache", tmp) },
		.demangle = mode,
	};

	assert_int_equal(t2f_strtab__new(&e->names), 0);
	assert_int_equal(t2f_symbolizer__new(&o, e->names, diag, &e->s), 0);
}

static void env_free(struct sym_env *e)
{
	t2f_symbolizer__free(e->s);
	t2f_strtab__free(e->names);
}

static const char *name_of(const struct sym_env *e, const struct t2f_sym *y)
{
	return t2f_strtab__str(e->names, y->name, NULL);
}

static void desc_init(struct t2f_module_desc *d, const char *path, const struct fx_file *f,
		      uint8_t *id_buf)
{
	memset(d, 0, sizeof(*d));
	d->path = path;
	if (f->build_id[0]) {
		assert_true(t2f_build_id_parse(f->build_id, id_buf, T2F_BUILD_ID_MAX, &d->build_id_len));
		d->build_id = id_buf;
	}
}

enum record_kind { REC_MMAP2, REC_NETTRACE };

/* One module per executable PT_LOAD of f, as a process would have mapped it. mods[i] is the
 * module of f->loads[i] (unused for other segments). */
static void add_exec_mappings(struct sym_env *e, const char *path, const struct fx_file *f,
			      enum record_kind kind, t2f_sym_module_id *mods)
{
	uint8_t id[T2F_BUILD_ID_MAX];
	uint64_t bias = bias_of(f);

	for (size_t i = 0; i < f->n_loads; i++) {
		const struct t2f_elf_load *l = &f->loads[i];
		struct t2f_module_desc d;

		if (!(l->p_flags & 1))
			continue;
		desc_init(&d, path, f, id);
		d.map_start = bias + page_down(l->p_vaddr);
		d.map_end = bias + page_up(l->p_vaddr + l->p_memsz);
		d.map_pgoff = page_down(l->p_offset);
		if (kind == REC_NETTRACE) {
			d.has_segment = true;
			d.p_vaddr = l->p_vaddr;
			d.p_offset = l->p_offset;
			d.page_size = PAGE;
			d.map_pgoff = 0xbad000; /* not used by the nettrace formula */
		}
		assert_int_equal(t2f_symbolizer__add_module(e->s, &d, &mods[i]), 0);
	}
}

/* The same address as a file offset (t2f_symbolizer__resolve_file_off) hits where the absolute
 * ip did, with the same symbol: through the file's PT_LOAD table, or the segment a nettrace
 * record carries. Only a debug file without its binary may miss there: a file offset needs the
 * executable mapping the trace recorded (has_exec), which these modules do not give. */
static void check_file_off(struct sym_env *e, const struct fx_file *f, t2f_sym_module_id mod,
			   int seg, uint64_t elf_vaddr, const struct t2f_sym *want)
{
	const struct t2f_elf_load *l = &f->loads[seg];
	uint64_t file_off = elf_vaddr - l->p_vaddr + l->p_offset;
	struct t2f_sym got;

	assert_int_equal(t2f_symbolizer__resolve_file_off(e->s, mod, file_off, &got), 0);
	if ((got.miss == T2F_HIT && (want->miss != T2F_HIT || got.name != want->name ||
				     got.offset != want->offset || got.elf_vaddr != want->elf_vaddr)) ||
	    (got.miss != T2F_HIT && want->miss == T2F_HIT && got.miss != T2F_MISS_NEEDS_MAPPING))
		fail_msg("%s: file_off 0x%llx: got %s (%s), the absolute ip gave %s (%s)", f->path,
			 (unsigned long long)file_off, name_of(e, &got), t2f_miss_name(got.miss),
			 name_of(e, want), t2f_miss_name(want->miss));
}

/* Resolves the start, middle and last byte of every function of f through its mappings, as
 * absolute ips and as file offsets. strict: every address must hit; else a miss is allowed but
 * a wrong name never is. Returns the number of hits. */
static size_t check_every_function(struct sym_env *e, const struct fx_file *f,
				   const t2f_sym_module_id *mods, bool strict)
{
	size_t hits = 0;

	for (size_t i = 0; i < f->n_syms; i++) {
		const struct fx_sym *y = &f->syms[i];
		uint64_t offs[3] = { 0, y->size / 2, y->size - 1 };
		int seg = exec_segment_of(f, y->value);

		assert_true(seg >= 0);
		for (int k = 0; k < 3; k++) {
			uint64_t abs_ip = bias_of(f) + y->value + offs[k];
			struct t2f_sym out;

			assert_int_equal(t2f_symbolizer__resolve_abs(e->s, mods[seg], &abs_ip, 1, &out), 0);
			check_file_off(e, f, mods[seg], seg, y->value + offs[k], &out);
			if (!strict && out.miss != T2F_HIT)
				continue;
			if (out.miss != T2F_HIT || !is_alias(f, y->value, name_of(e, &out)) ||
			    out.offset != offs[k] || out.elf_vaddr != y->value + offs[k])
				fail_msg("%s: %s+0x%llx at abs_ip 0x%llx: got %s (%s) +0x%llx, elf_vaddr 0x%llx",
					 f->path, y->name, (unsigned long long)offs[k],
					 (unsigned long long)abs_ip, name_of(e, &out),
					 t2f_miss_name(out.miss), (unsigned long long)out.offset,
					 (unsigned long long)out.elf_vaddr);
			hits++;
		}
	}
	return hits;
}

static void check_file(const char *rel, enum record_kind kind)
{
	struct fx_file *f = malloc(sizeof(*f));
	t2f_sym_module_id mods[MAX_LOADS];
	struct sym_env e;

	assert_non_null(f);
	load_fixture(rel, f);
	env_new(&e, NULL, T2F_DEMANGLE_NONE);
	add_exec_mappings(&e, f->path, f, kind, mods);
	assert_int_equal(check_every_function(&e, f, mods, true), 3 * f->n_syms);
	env_free(&e);
	free(f);
}

/* Whether the ELF fixture part that built rel is there (optional parts may be SKIPPED). */
static bool have(const char *rel)
{
	char path[PATH_MAX];

	if (access(pathf(path, "%s/%s.expect", fx_root, rel), R_OK) == 0)
		return true;
	fprintf(stderr, "  (no %s: its fixture part was skipped)\n", rel);
	return false;
}

/* ---- address arithmetic on real objects ---- */

static const char *const objects[] = {
	"gnu/prog", "gnu/prog-nopie", "gnu/libfx.so",
	"lld/prog", "lld/libfx.so", "lld/libfx-pinned.so",
};

static void test_mmap2_every_function(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(objects) / sizeof(objects[0]); i++)
		if (have(objects[i]))
			check_file(objects[i], REC_MMAP2);
}

static void test_nettrace_every_function(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(objects) / sizeof(objects[0]); i++)
		if (have(objects[i]))
			check_file(objects[i], REC_NETTRACE);
}

/* The lld layout is the one where file_off != elf_vaddr: make sure the fixture has it. */
static void test_lld_fixture_has_vaddr_ne_offset(void **state)
{
	struct fx_file *f = malloc(sizeof(*f));
	bool differs = false;

	(void)state;
	assert_non_null(f);
	if (have("lld/prog")) {
		load_fixture("lld/prog", f);
		for (size_t i = 0; i < f->n_loads; i++)
			differs |= (f->loads[i].p_flags & 1) && f->loads[i].p_vaddr != f->loads[i].p_offset;
		assert_true(differs);
	}
	free(f);
}

/* Stripped binary at its path + its debug file in a build-id tree: symbols from the debug file,
 * PT_LOAD offsets from the binary (the debug file's are rewritten). */
static void test_stripped_binary_with_debug_file(void **state)
{
	struct fx_file *f = malloc(sizeof(*f));
	t2f_sym_module_id mods[MAX_LOADS];
	char path[PATH_MAX], dbg[PATH_MAX];
	struct sym_env e;

	(void)state;
	assert_non_null(f);
	load_fixture("gnu/prog", f); /* the same build as stripped/prog */
	env_new(&e, pathf(dbg, "%s/debug", fx_root), T2F_DEMANGLE_NONE);
	add_exec_mappings(&e, pathf(path, "%s/stripped/prog", fx_root), f, REC_MMAP2, mods);
	assert_int_equal(check_every_function(&e, f, mods, true), 3 * f->n_syms);
	assert_non_null(t2f_symbolizer__module_files(e.s, mods[1])->module);
	assert_non_null(strstr(t2f_elf_module__path(t2f_symbolizer__module_files(e.s, mods[1])->module),
			       "/.build-id/"));
	env_free(&e);
	free(f);
}

/* Only a debug file (the binary is not on this machine): one executable segment (lld prog): all
 * resolve through the segment formula; several (GNU prog with the pinned zoo): never a wrong
 * name, a miss where the mapping is ambiguous. */
static void check_debug_only(const char *rel, const char *debug_dir, bool strict)
{
	struct fx_file *f = malloc(sizeof(*f));
	t2f_sym_module_id mods[MAX_LOADS];
	char gone[PATH_MAX];
	struct sym_env e;
	size_t hits;

	assert_non_null(f);
	load_fixture(rel, f);
	env_new(&e, debug_dir, T2F_DEMANGLE_NONE);
	add_exec_mappings(&e, pathf(gone, "%s/gone/%s", tmp, rel), f, REC_MMAP2, mods);
	hits = check_every_function(&e, f, mods, strict);
	if (strict)
		assert_int_equal(hits, 3 * f->n_syms);
	else
		assert_true(hits > 0);
	env_free(&e);
	free(f);
}

static void test_debug_file_only(void **state)
{
	char dbg[PATH_MAX], file[PATH_MAX];
	struct fx_file *f = malloc(sizeof(*f));

	(void)state;
	assert_non_null(f);
	check_debug_only("gnu/prog", pathf(dbg, "%s/debug", fx_root), false);
	if (have("lld/prog")) {
		load_fixture("lld/prog", f);
		pathf(file, "%s/dbg/.build-id/%.2s/%s.debug", tmp, f->build_id, f->build_id + 2);
		run_cmd("mkdir -p \"$(dirname '%s')\" && objcopy --only-keep-debug '%s' '%s'", file,
			f->path, file);
		check_debug_only("lld/prog", pathf(dbg, "%s/dbg", tmp), true);
	}
	free(f);
}

/* ---- module_map arithmetic by hand (the numbers of docs/design.md §4) ---- */

static void test_map_arithmetic(void **state)
{
	/* lld-14 PIE: LOAD 0x000780 0x1780 R E; perf: [0x557fb65d9000(0x1000) @ 0] */
	const struct t2f_elf_load lld[] = {
		{ .p_offset = 0, .p_vaddr = 0, .p_filesz = 0x77c, .p_memsz = 0x77c, .p_flags = 4 },
		{ .p_offset = 0x780, .p_vaddr = 0x1780, .p_filesz = 0x300, .p_memsz = 0x300, .p_flags = 5 },
	};
	struct t2f_load_table t = { lld, 2, true, false };
	struct t2f_map_view v = { .map_start = 0x557fb65d9000, .map_end = 0x557fb65da000 };
	uint64_t elf_vaddr = 0;

	(void)state;
	/* file_off 0x800 = elf_vaddr 0x1800 (treating file_off as elf_vaddr is off by a page) */
	assert_true(t2f_map_view__elf_vaddr(&v, &t, 0x557fb65d9800, &elf_vaddr));
	assert_int_equal(elf_vaddr, 0x1800);
	/* nettrace: abs_ip - map_start + PAGE_DOWN(p_vaddr) */
	v.has_segment = true;
	v.p_vaddr = 0x1780;
	v.p_offset = 0x780;
	v.page_size = 4096;
	assert_true(t2f_map_view__elf_vaddr(&v, &t, 0x557fb65d9800, &elf_vaddr));
	assert_int_equal(elf_vaddr, 0x1800);
	/* outside the mapping */
	assert_false(t2f_map_view__elf_vaddr(&v, &t, 0x557fb65d8fff, &elf_vaddr));
	assert_false(t2f_map_view__elf_vaddr(&v, &t, 0x557fb65da000, &elf_vaddr));
	/* a debug file's table (p_offset/p_filesz rewritten): the executable segment */
	{
		const struct t2f_elf_load dbg[] = {
			{ .p_offset = 0, .p_vaddr = 0, .p_filesz = 0x2fc, .p_memsz = 0x77c, .p_flags = 4 },
			{ .p_offset = 0, .p_vaddr = 0x1780, .p_filesz = 0, .p_memsz = 0x300, .p_flags = 5 },
		};
		struct t2f_load_table td = { dbg, 2, t2f_loads_offsets_trusted(dbg, 2), false };

		assert_false(td.offsets_trusted);
		v.has_segment = false;
		assert_true(t2f_map_view__elf_vaddr(&v, &td, 0x557fb65d9800, &elf_vaddr));
		assert_int_equal(elf_vaddr, 0x1800);
		/* before the segment's first byte: in no PT_LOAD */
		assert_false(t2f_map_view__elf_vaddr(&v, &td, 0x557fb65d9700, &elf_vaddr));
	}
	/* overflow: pgoff near 2^64 */
	v = (struct t2f_map_view){ .map_start = 0x1000, .map_pgoff = UINT64_MAX - 10 };
	assert_false(t2f_map_view__elf_vaddr(&v, &t, 0x2000, &elf_vaddr));
	/* perf's rules (memsz_offsets): a file offset past the file bytes of every segment but
	 * inside one's memory size maps through that segment (libLLVM-14.so.1: a 0x695a000-byte
	 * r-x reservation mapping over a .bss object at file offset 0x68fcd48, RW segment
	 * p_offset 0x61620a0 p_vaddr 0x61630a0 filesz 0x77cde0 memsz 0x7f6c49) */
	{
		const struct t2f_elf_load llvm[] = {
			{ .p_offset = 0, .p_vaddr = 0, .p_filesz = 0x6161880, .p_memsz = 0x6161880,
			  .p_flags = 5 },
			{ .p_offset = 0x61620a0, .p_vaddr = 0x61630a0, .p_filesz = 0x77cde0,
			  .p_memsz = 0x7f6c49, .p_flags = 6 },
		};
		struct t2f_load_table tl = { llvm, 2, true, false };

		v = (struct t2f_map_view){ .map_start = 0x7f64ee200000, .map_end = 0x7f64f4b5a000 };
		assert_false(t2f_map_view__elf_vaddr(&v, &tl, 0x7f64ee200000 + 0x68fcd48, &elf_vaddr));
		tl.memsz_offsets = true;
		assert_true(t2f_map_view__elf_vaddr(&v, &tl, 0x7f64ee200000 + 0x68fcd48, &elf_vaddr));
		assert_int_equal(elf_vaddr, 0x68fdd48);
		/* past the memory size too: still in no segment */
		assert_false(t2f_map_view__elf_vaddr(&v, &tl, 0x7f64ee200000 + 0x6959000, &elf_vaddr));
		/* inside the file bytes: unchanged */
		assert_true(t2f_map_view__elf_vaddr(&v, &tl, 0x7f64ee200000 + 0x1000, &elf_vaddr));
		assert_int_equal(elf_vaddr, 0x1000);
	}
}

/* ---- miss reasons ---- */

static void test_miss_reasons(void **state)
{
	struct fx_file *f = malloc(sizeof(*f)), *v2 = malloc(sizeof(*v2));
	uint8_t id[T2F_BUILD_ID_MAX];
	struct t2f_module_desc d;
	t2f_sym_module_id m;
	struct sym_env e;
	struct t2f_sym out;
	uint64_t abs_ip;
	char path[PATH_MAX];
	uint64_t last = 0, object = 0;

	(void)state;
	assert_non_null(f);
	assert_non_null(v2);
	load_fixture("gnu/libfx.so", f);
	load_fixture("gnu/prog-v2", v2);
	env_new(&e, NULL, T2F_DEMANGLE_NONE);
	for (size_t i = 0; i < f->n_syms; i++)
		if (strcmp(f->syms[i].name, "fx_last") == 0)
			last = f->syms[i].value + f->syms[i].size;
	object = last - 0x1f0 + 0x180;   /* fx_object: an OBJECT inside .text.fxzoo */
	assert_true(last != 0);

	/* one mapping over the whole file, far longer than it */
	desc_init(&d, f->path, f, id);
	d.map_start = BIAS;
	d.map_end = BIAS + 0x10000000;
	assert_int_equal(t2f_symbolizer__add_module(e.s, &d, &m), 0);
	abs_ip = BIAS - 1;
	assert_int_equal(t2f_symbolizer__resolve_abs(e.s, m, &abs_ip, 1, &out), 0);
	assert_int_equal(out.miss, T2F_MISS_UNMAPPED);
	abs_ip = BIAS + 0x8000000; /* mapped, but past every PT_LOAD's file bytes */
	assert_int_equal(t2f_symbolizer__resolve_abs(e.s, m, &abs_ip, 1, &out), 0);
	assert_int_equal(out.miss, T2F_MISS_UNMAPPED);

	/* not found: the zoo's gap after fx_last, and an OBJECT; via the elf_vaddr entry point */
	assert_int_equal(t2f_symbolizer__resolve_vaddr(e.s, m, last + 1, &out), 0);
	assert_int_equal(out.miss, T2F_MISS_NOT_FOUND);
	assert_int_equal(out.name, 0);
	assert_int_equal(t2f_symbolizer__resolve_vaddr(e.s, m, object, &out), 0);
	assert_int_equal(out.miss, T2F_MISS_NOT_FOUND);

	/* no file */
	desc_init(&d, pathf(path, "%s/gone/libfx.so", tmp), f, id);
	assert_int_equal(t2f_symbolizer__add_module(e.s, &d, &m), 0);
	assert_int_equal(t2f_symbolizer__resolve_vaddr(e.s, m, 0x1000, &out), 0);
	assert_int_equal(out.miss, T2F_MISS_NO_FILE);

	/* build-id mismatch: the trace recorded prog-v2, gnu/prog is on disk */
	desc_init(&d, pathf(path, "%s/gnu/prog", fx_root), v2, id);
	assert_int_equal(t2f_symbolizer__add_module(e.s, &d, &m), 0);
	abs_ip = 0x1000;
	assert_int_equal(t2f_symbolizer__resolve_abs(e.s, m, &abs_ip, 1, &out), 0);
	assert_int_equal(out.miss, T2F_MISS_BUILD_ID);
	assert_int_equal(t2f_symbolizer__module_files(e.s, m)->refused[0].why, T2F_REFUSAL_BUILD_ID);

	/* no symbols: a stripped PIE exports no function and its debug file is not found */
	d = (struct t2f_module_desc){ .path = pathf(path, "%s/stripped/prog", fx_root) };
	assert_int_equal(t2f_symbolizer__add_module(e.s, &d, &m), 0);
	assert_int_equal(t2f_symbolizer__resolve_vaddr(e.s, m, 0x1000, &out), 0);
	assert_int_equal(out.miss, T2F_MISS_NO_SYMBOLS);

	/* unknown module id */
	assert_int_equal(t2f_symbolizer__resolve_vaddr(e.s, 999, 0x1000, &out), -EINVAL);
	assert_null(t2f_symbolizer__module_files(e.s, 999));

	assert_string_equal(t2f_miss_name(T2F_HIT), "hit");
	assert_string_equal(t2f_miss_name(T2F_MISS_UNMAPPED), "unmapped");
	assert_string_equal(t2f_miss_name(T2F_MISS_NO_FILE), "no file");
	assert_string_equal(t2f_miss_name(T2F_MISS_BUILD_ID), "build-id mismatch");
	assert_string_equal(t2f_miss_name(T2F_MISS_CRC), "debuglink CRC mismatch");
	assert_string_equal(t2f_miss_name(T2F_MISS_NO_BUILD_ID), "no build-id");
	assert_string_equal(t2f_miss_name(T2F_MISS_NO_SYMBOLS), "no symbols");
	assert_string_equal(t2f_miss_name(T2F_MISS_NOT_ELF), "not ELF");
	assert_string_equal(t2f_miss_name(T2F_MISS_NOT_REGULAR), "not a regular file");
	assert_string_equal(t2f_miss_name(T2F_MISS_NOT_FOUND), "not found");
	env_free(&e);
	free(f);
	free(v2);
}

/* ---- memo, sharing, names ---- */

static uint64_t value_of(const struct fx_file *f, const char *name)
{
	for (size_t i = 0; i < f->n_syms; i++)
		if (strcmp(f->syms[i].name, name) == 0)
			return f->syms[i].value;
	fail_msg("%s: no symbol %s", f->path, name);
	return 0;
}

/* Two processes mapping one library share its file; one name is interned once. */
static void test_memo_and_sharing(void **state)
{
	struct fx_file *f = malloc(sizeof(*f));
	t2f_sym_module_id a[MAX_LOADS], b[MAX_LOADS];
	struct t2f_sym out[4];
	struct sym_env e;
	uint64_t hot, ips[4];
	uint32_t count;
	int seg;

	(void)state;
	assert_non_null(f);
	load_fixture("gnu/prog", f);
	env_new(&e, NULL, T2F_DEMANGLE_NONE);
	add_exec_mappings(&e, f->path, f, REC_MMAP2, a);
	add_exec_mappings(&e, f->path, f, REC_MMAP2, b);
	hot = value_of(f, "fx_hot_loop");
	seg = exec_segment_of(f, hot);
	assert_true(a[seg] != b[seg]);
	ips[0] = BIAS + hot;
	ips[1] = BIAS + hot + 1;
	ips[2] = BIAS + hot;
	ips[3] = 0; /* unmapped, in the middle of a batch */
	assert_int_equal(t2f_symbolizer__resolve_abs(e.s, a[seg], ips, 4, out), 0);
	count = t2f_strtab__count(e.names);
	assert_string_equal(name_of(&e, &out[0]), "fx_hot_loop");
	assert_int_equal(out[1].name, out[0].name);
	assert_int_equal(out[1].offset, 1);
	assert_int_equal(out[2].name, out[0].name);
	assert_int_equal(out[3].miss, T2F_MISS_UNMAPPED);
	assert_int_equal(t2f_symbolizer__resolve_abs(e.s, b[seg], ips, 3, out), 0);
	assert_int_equal(t2f_strtab__count(e.names), count);
	assert_ptr_equal(t2f_symbolizer__module_files(e.s, a[seg]),
			 t2f_symbolizer__module_files(e.s, b[seg]));
	env_free(&e);
	free(f);
}

static void check_demangled(const char *raw, enum t2f_demangle_mode mode, const char *want)
{
	struct fx_file *f = malloc(sizeof(*f));
	uint8_t id[T2F_BUILD_ID_MAX];
	struct t2f_module_desc d;
	struct t2f_sym out;
	t2f_sym_module_id m;
	struct sym_env e;

	assert_non_null(f);
	load_fixture("gnu/libfx.so", f);
	env_new(&e, NULL, mode);
	desc_init(&d, f->path, f, id);
	assert_int_equal(t2f_symbolizer__add_module(e.s, &d, &m), 0);
	assert_int_equal(t2f_symbolizer__resolve_vaddr(e.s, m, value_of(f, raw) + 4, &out), 0);
	assert_int_equal(out.miss, T2F_HIT);
	assert_int_equal(out.offset, 4);
	assert_string_equal(name_of(&e, &out), want);
	env_free(&e);
	free(f);
}

static void test_demangle_modes(void **state)
{
	(void)state;
	check_demangled("_ZN2fx6Widget4pokeEi", T2F_DEMANGLE_FULL, "fx::Widget::poke(int)");
	check_demangled("_ZN2fx6Widget4pokeEi", T2F_DEMANGLE_NO_PARAMS, "fx::Widget::poke");
	check_demangled("_ZN2fx6Widget4pokeEi", T2F_DEMANGLE_NONE, "_ZN2fx6Widget4pokeEi");
	check_demangled("_ZN4core3fmt5write17h0123456789abcdefE", T2F_DEMANGLE_FULL,
			"core::fmt::write");
	check_demangled("fx_first", T2F_DEMANGLE_FULL, "fx_first");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		FX_TEST(test_map_arithmetic),
		FX_TEST(test_lld_fixture_has_vaddr_ne_offset),
		FX_TEST(test_mmap2_every_function),
		FX_TEST(test_nettrace_every_function),
		FX_TEST(test_stripped_binary_with_debug_file),
		FX_TEST(test_debug_file_only),
		FX_TEST(test_miss_reasons),
		FX_TEST(test_memo_and_sharing),
		FX_TEST(test_demangle_modes),
	};

	return cmocka_run_group_tests(tests, fx_group_setup, fx_group_teardown);
}
