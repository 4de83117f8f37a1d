/* tests/unit/test_elf_module.c: symbolizer/elf_module on the well-formed ELF fixtures that
 * tests/elf/build-fixtures.sh builds into $T2F_ELF_FIXTURES (fixtures/elf/README.md lists them).
 *
 * Expected values never come from our own code: either the fixtures' pinned layout (the symbol
 * zoo of fixtures/elf/zoo.c at 0x2000000) or the FILE.expect sidecars (support/elf_fixtures.h).
 * For every fixture: header, build-id, PT_LOADs, debuglink and each_symbol() must equal the
 * sidecar, and the lookup oracle checks the first byte, the middle, the last byte and one past
 * the end of every symbol. Then the zoo's exact answers, lld's layout, build-ids, debuglinks and
 * their CRCs, the extra symbol tables, the ARM/ppc64 address fix-ups and compressed tables.
 * PLT stubs: lookups name them as objdump does (FILE.plt), each_symbol never lists them, and a
 * corrupt .rela.plt leaves them unnamed with one warning.
 * Broken files and API details: test_elf_broken.c.
 *
 * A fixture that build-fixtures.sh skipped (its part listed in SKIPPED, tools missing) makes its
 * test skip; a fixture that is missing without being listed fails.
 */
#include <elf.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "formats/diag.h"
#include "support/elf_fixtures.h"
#include "symbolizer/elf_module.h"

/* --- every well-formed fixture against its sidecar ------------------------------------------- */

struct fixture {
	const char *rel;      /* under $T2F_ELF_FIXTURES */
	const char *part;     /* build-fixtures.sh part that makes it */
	const char *sidecar;  /* when not REL.expect */
	uint16_t machine;
	int cls;
	bool be;
	bool zoo;             /* has the full symbol zoo in a .symtab-like table */
	bool pinned;          /* zoo at ZOO_BASE */
};

static const struct fixture fixtures[] = {
	{ "gnu/prog", "gnu", NULL, EM_X86_64, 64, false, true, true },
	{ "gnu/prog-nopie", "gnu", NULL, EM_X86_64, 64, false, true, true },
	{ "gnu/prog-v2", "gnu", NULL, EM_X86_64, 64, false, true, true },
	{ "gnu/prog-noid", "gnu", NULL, EM_X86_64, 64, false, true, true },
	{ "gnu/prog-gz", "gnu", NULL, EM_X86_64, 64, false, true, true },
	{ "gnu/libfx.so", "gnu", NULL, EM_X86_64, 64, false, true, true },
	{ "stripped/prog", "gnu", NULL, EM_X86_64, 64, false, false, false },
	{ "stripped/libfx.so", "gnu", NULL, EM_X86_64, 64, false, false, false },
	{ "dl-beside/prog", "gnu", NULL, EM_X86_64, 64, false, false, false },
	{ "dl-beside/prog.debug", "gnu", NULL, EM_X86_64, 64, false, true, true },
	{ "dl-dotdebug/.debug/prog.debug", "gnu", NULL, EM_X86_64, 64, false, true, true },
	{ "dl-badcrc/prog.debug", "gnu", NULL, EM_X86_64, 64, false, true, true },
	{ "symdir/prog", "gnu", "gnu/prog.expect", EM_X86_64, 64, false, true, true },
	{ "minidebug/prog", "minidebug", NULL, EM_X86_64, 64, false, false, false },
	{ "lld/prog", "lld", NULL, EM_X86_64, 64, false, true, false },
	{ "lld/libfx.so", "lld", NULL, EM_X86_64, 64, false, true, false },
	{ "lld/libfx-pinned.so", "lld", NULL, EM_X86_64, 64, false, true, true },
	{ "m32/libfx.so", "m32", NULL, EM_386, 32, false, true, true },
	{ "cross/i686/libfx.so", "cross-i686", NULL, EM_386, 32, false, true, true },
	{ "cross/ppc64/libfx.so", "cross-ppc64", NULL, EM_PPC64, 64, true, true, true },
	{ "cross/ppc/libfx.so", "cross-ppc", NULL, EM_PPC, 32, true, true, true },
	{ "cross/mips/libfx.so", "cross-mips", NULL, EM_MIPS, 32, true, true, true },
	{ "cross/aarch64_be/libfx.so", "cross-aarch64_be", NULL, EM_AARCH64, 64, true, true, true },
	{ "cross/thumb/libfx.so", "cross-thumb", NULL, EM_ARM, 32, false, true, true },
	{ "cross/ppc64-elfv1/libfx.so", "cross-ppc64-elfv1", NULL, EM_PPC64, 64, true, true, true },
	{ "sunw/libfx.so", "sunw", NULL, EM_X86_64, 64, false, true, true },
	{ "compressed/libfx-symtab-zlib.so", "compressed", NULL, EM_X86_64, 64, false, true, true },
};

/* The header and build-id alone, read through the descriptor: what readelf says too. */
static void expect_open_id(const char *rel, const struct expect *x)
{
	struct t2f_elf_module *m = NULL;
	const uint8_t *id;
	size_t len = 99;

	assert_int_equal(t2f_elf_module__open_id(fx_path(rel), &m), 0);
	assert_int_equal(t2f_elf_module__machine(m), x->machine);
	assert_int_equal(t2f_elf_module__type(m), x->type);
	id = t2f_elf_module__build_id(m, &len);
	assert_int_equal(len, x->build_id_len);
	if (x->build_id_len)
		assert_memory_equal(id, x->build_id, len);
	else
		assert_null(id);
	t2f_elf_module__free(m);
}

static void test_fixture(void **state)
{
	const struct fixture *fx = *state;
	struct t2f_elf_module *m;
	struct expect *x;
	struct sink s;
	const uint8_t *id;
	const char *name;
	uint32_t crc;
	size_t len;

	need(fx->rel, fx->part);
	x = load_expect(fx->rel, fx->sidecar);
	sink_open(&s);
	m = open_ok(fx->rel, &s);

	assert_string_equal(t2f_elf_module__path(m), fx_path(fx->rel));
	assert_int_equal(x->machine, fx->machine);      /* the fixture is what the table says */
	assert_int_equal(x->cls, fx->cls);
	assert_int_equal(x->data_be, fx->be);
	assert_int_equal(t2f_elf_module__machine(m), x->machine);
	assert_int_equal(t2f_elf_module__type(m), x->type);

	id = t2f_elf_module__build_id(m, &len);
	assert_int_equal(len, x->build_id_len);
	if (x->build_id_len) {
		assert_non_null(id);
		assert_memory_equal(id, x->build_id, len);
	} else {
		assert_null(id);
	}
	expect_open_id(fx->rel, x);

	assert_int_equal(t2f_elf_module__load_count(m), x->n_loads);
	for (size_t i = 0; i < x->n_loads; i++) {
		const struct t2f_elf_load *l = t2f_elf_module__load_at(m, i);

		assert_non_null(l);
		assert_int_equal(l->p_offset, x->loads[i].p_offset);
		assert_int_equal(l->p_vaddr, x->loads[i].p_vaddr);
		assert_int_equal(l->p_filesz, x->loads[i].p_filesz);
		assert_int_equal(l->p_memsz, x->loads[i].p_memsz);
		assert_int_equal(l->p_flags, x->loads[i].p_flags);
	}

	name = NULL;
	crc = 0;
	assert_int_equal(t2f_elf_module__debuglink(m, &name, &crc), x->has_debuglink);
	if (x->has_debuglink) {
		assert_string_equal(name, x->debuglink);
		assert_int_equal(crc, x->debuglink_crc);
	}

	check_each_symbol(m, x, fx->rel);
	assert_int_equal(t2f_elf_module__has_symbols(m), x->n_syms > 0);
	check_lookups(m, x, fx->rel);
	/* well-formed files give no warnings */
	if (t2f_diag__warnings(s.d))
		fail_msg("%s: unexpected warnings: %s", fx->rel, sink_text(&s));

	t2f_elf_module__free(m);
	sink_close(&s);
	free(x);
}

/* --- the symbol zoo (fixtures/elf/zoo.c), exact names and addresses -------------------------- */

static int no_zoo_junk_cb(void *ctx, const struct t2f_elf_sym *s)
{
	const char *bad[] = { "fx_object", "fx_notype", "fx_abs", "fx_zoo_start" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (strcmp(s->name, bad[i]) == 0)
			fail_msg("%s: each_symbol gave %s from %s", (const char *)ctx, s->name, s->table);
	return 0;
}

static void test_zoo(void **state)
{
	const struct fixture *fx = *state;
	struct t2f_elf_module *m;
	const struct xsym *first;
	struct expect *x;
	struct sink s;
	uint64_t b;
	const char *rel = fx->rel;

	need(fx->rel, fx->part);
	x = load_expect(fx->rel, fx->sidecar);
	first = xsym_named(x, "fx_first");
	assert_non_null(first);
	b = first->fixed;
	if (fx->pinned)
		assert_int_equal(b, ZOO_BASE);
	sink_open(&s);
	m = open_ok(fx->rel, &s);

	expect_hit(m, rel, b, "fx_first", b, 0x40, STB_GLOBAL, STT_FUNC);
	expect_hit(m, rel, b + 0x20, "fx_first", b, 0x40, STB_GLOBAL, STT_FUNC);
	expect_hit(m, rel, b + 0x3f, "fx_first", b, 0x40, STB_GLOBAL, STT_FUNC);
	/* LOCAL, WEAK and GLOBAL at one address: GLOBAL */
	expect_hit(m, rel, b + 0x40, "fx_dup", b + 0x40, 0x40, STB_GLOBAL, STT_FUNC);
	expect_hit(m, rel, b + 0x7f, "fx_dup", b + 0x40, 0x40, STB_GLOBAL, STT_FUNC);
	/* __fx_under, _fx_under, fx_under: the fewest leading '_' */
	expect_hit(m, rel, b + 0x80, "fx_under", b + 0x80, 0x20, STB_GLOBAL, STT_FUNC);
	expect_hit(m, rel, b + 0x9f, "fx_under", b + 0x80, 0x20, STB_GLOBAL, STT_FUNC);
	/* sizeless: its address only */
	expect_hit(m, rel, b + 0xa0, "fx_nosize", b + 0xa0, 0, STB_GLOBAL, STT_FUNC);
	expect_miss(m, rel, b + 0xa1);
	expect_miss(m, rel, b + 0xbf);
	/* WEAK over LOCAL */
	expect_hit(m, rel, b + 0xc0, "fx_weak", b + 0xc0, 0x20, STB_WEAK, STT_FUNC);
	expect_hit(m, rel, b + 0xdf, "fx_weak", b + 0xc0, 0x20, STB_WEAK, STT_FUNC);
	/* a sized LOCAL over a sizeless GLOBAL */
	expect_hit(m, rel, b + 0xe0, "fx_sized_local", b + 0xe0, 0x20, STB_LOCAL, STT_FUNC);
	expect_hit(m, rel, b + 0xff, "fx_sized_local", b + 0xe0, 0x20, STB_LOCAL, STT_FUNC);
	expect_hit(m, rel, b + 0x100, "fx_ifunc", b + 0x100, 0x20, STB_GLOBAL, STT_GNU_IFUNC);
	expect_hit(m, rel, b + 0x11f, "fx_ifunc", b + 0x100, 0x20, STB_GLOBAL, STT_GNU_IFUNC);
	expect_hit(m, rel, b + 0x130, "_ZN4core3fmt5write17h0123456789abcdefE", b + 0x120, 0x20,
		   STB_GLOBAL, STT_FUNC);
	expect_hit(m, rel, b + 0x140, "_RNvNtCs1234_7mycrate3foo3bar", b + 0x140, 0x20, STB_GLOBAL,
		   STT_FUNC);
	expect_hit(m, rel, b + 0x17f, "_ZN2fx6Widget4pokeEi", b + 0x160, 0x20, STB_GLOBAL, STT_FUNC);
	/* an OBJECT and a NOTYPE symbol are not functions */
	expect_miss(m, rel, b + 0x180);
	expect_miss(m, rel, b + 0x190);
	expect_miss(m, rel, b + 0x19f);
	expect_hit(m, rel, b + 0x1a0, "fx_last", b + 0x1a0, 0x50, STB_GLOBAL, STT_FUNC);
	expect_hit(m, rel, b + 0x1ef, "fx_last", b + 0x1a0, 0x50, STB_GLOBAL, STT_FUNC);
	expect_miss(m, rel, b + 0x1f0);
	if (fx->pinned)
		expect_miss(m, rel, 0x20001f8); /* fx_abs: SHN_ABS */
	assert_int_equal(t2f_elf_module__each_symbol(m, no_zoo_junk_cb, (void *)rel), 0);
	assert_int_equal(t2f_diag__warnings(s.d), 0);

	t2f_elf_module__free(m);
	sink_close(&s);
	free(x);
}

/* --- specific properties --------------------------------------------------------------------- */

/* lld's PT_LOADs: p_vaddr != p_offset for the code segment (docs/design.md §4). */
static void test_lld_vaddr_offset(void **state)
{
	const char *rels[] = { "lld/prog", "lld/libfx.so" };

	(void)state;
	need(rels[0], "lld");
	for (size_t r = 0; r < 2; r++) {
		struct t2f_elf_module *m;
		struct sink s;
		bool differs = false;

		sink_open(&s);
		m = open_ok(rels[r], &s);
		assert_true(t2f_elf_module__load_count(m) >= 2);
		for (size_t i = 0; i < t2f_elf_module__load_count(m); i++) {
			const struct t2f_elf_load *l = t2f_elf_module__load_at(m, i);

			if ((l->p_flags & PF_X) && l->p_vaddr != l->p_offset)
				differs = true;
		}
		assert_true(differs);
		assert_null(t2f_elf_module__load_at(m, t2f_elf_module__load_count(m)));
		t2f_elf_module__free(m);
		sink_close(&s);
	}
}

/* DIR/.build-id/ab/cdef....debug for x's build-id; "debuginfod": debuginfod/<id>/debuginfo. */
static const char *debug_path(const char *dir, const struct expect *x)
{
	static char rel[512];
	char hex[2 * T2F_BUILD_ID_MAX + 1];

	for (size_t i = 0; i < x->build_id_len; i++)
		sprintf(hex + 2 * i, "%02x", x->build_id[i]);
	if (strcmp(dir, "debuginfod") == 0)
		snprintf(rel, sizeof(rel), "debuginfod/%s/debuginfo", hex);
	else
		snprintf(rel, sizeof(rel), "%s/.build-id/%.2s/%s.debug", dir, hex, hex + 2);
	return rel;
}

/* Build-ids: 20 bytes (GNU ld sha1), 8 bytes (lld fast), none; a debug file has its binary's. */
static void test_build_ids(void **state)
{
	struct expect *prog, *v2, *lld;
	struct t2f_elf_module *m;
	struct sink s;
	const uint8_t *id;
	size_t len;

	(void)state;
	need("gnu/prog", "gnu");
	prog = load_expect("gnu/prog", NULL);
	v2 = load_expect("gnu/prog-v2", NULL);
	assert_int_equal(prog->build_id_len, 20);
	assert_int_equal(v2->build_id_len, 20);
	assert_memory_not_equal(prog->build_id, v2->build_id, 20);
	sink_open(&s);

	m = open_ok("gnu/prog-noid", &s);
	len = 99;
	assert_null(t2f_elf_module__build_id(m, &len));
	assert_int_equal(len, 0);
	t2f_elf_module__free(m);

	m = open_ok("stripped/prog", &s);
	id = t2f_elf_module__build_id(m, &len);
	assert_int_equal(len, 20);
	assert_memory_equal(id, prog->build_id, 20);
	t2f_elf_module__free(m);

	/* the build-id tree's debug file carries prog's id; the wrong one prog-v2's */
	m = open_ok(debug_path("debug", prog), &s);
	id = t2f_elf_module__build_id(m, &len);
	assert_int_equal(len, 20);
	assert_memory_equal(id, prog->build_id, 20);
	t2f_elf_module__free(m);
	m = open_ok(debug_path("wrongid/debug", prog), &s);
	id = t2f_elf_module__build_id(m, &len);
	assert_int_equal(len, 20);
	assert_memory_equal(id, v2->build_id, 20);
	t2f_elf_module__free(m);
	m = open_ok(debug_path("debuginfod", prog), &s);
	id = t2f_elf_module__build_id(m, &len);
	assert_int_equal(len, 20);
	assert_memory_equal(id, prog->build_id, 20);
	t2f_elf_module__free(m);
	sink_close(&s);
	free(prog);
	free(v2);

	if (!exists(fx_path("lld/prog")))
		return;
	lld = load_expect("lld/prog", NULL);
	assert_int_equal(lld->build_id_len, 8);
	sink_open(&s);
	m = open_ok("lld/prog", &s);
	id = t2f_elf_module__build_id(m, &len);
	assert_int_equal(len, 8);
	assert_memory_equal(id, lld->build_id, 8);
	t2f_elf_module__free(m);
	sink_close(&s);
	free(lld);
}

/* .gnu_debuglink: name and CRC as objcopy wrote them; t2f_elf_file_crc32 of the file the link
 * names equals the stored CRC (and gzip's CRC of it); the bad-CRC variant's does not. */
static void test_debuglink_crc(void **state)
{
	struct {
		const char *bin, *debug, *debug_sidecar;
		bool crc_matches;
	} c[] = {
		{ "stripped/prog", NULL, "debug/prog.debug.expect", true },
		{ "stripped/libfx.so", NULL, "debug/libfx.so.debug.expect", true },
		{ "dl-beside/prog", "dl-beside/prog.debug", NULL, true },
		{ "dl-dotdebug/prog", "dl-dotdebug/.debug/prog.debug", NULL, true },
		{ "dl-badcrc/prog", "dl-badcrc/prog.debug", NULL, false },
	};

	(void)state;
	need("stripped/prog", "gnu");
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct expect *xb = load_expect(c[i].bin, NULL), *xd;
		struct t2f_elf_module *m;
		struct sink s;
		const char *name = NULL, *debug = c[i].debug;
		uint32_t crc = 0, file_crc = 0;
		char want_name[256];
		const char *slash;

		sink_open(&s);
		m = open_ok(c[i].bin, &s);
		assert_true(t2f_elf_module__debuglink(m, &name, &crc));
		assert_non_null(name);
		assert_string_equal(name, xb->debuglink);
		assert_int_equal(crc, xb->debuglink_crc);
		if (!debug) { /* the build-id tree: the link names <id[2:]>.debug */
			debug = debug_path("debug", xb);
			slash = strrchr(debug, '/');
			snprintf(want_name, sizeof(want_name), "%s", slash + 1);
			assert_string_equal(name, want_name);
		} else {
			slash = strrchr(debug, '/');
			assert_string_equal(name, slash + 1);
		}
		xd = load_expect(debug, c[i].debug_sidecar);
		assert_true(xd->has_crc32);
		assert_int_equal(t2f_elf_file_crc32(fx_path(debug), &file_crc), 0);
		assert_int_equal(file_crc, xd->crc32);
		if (c[i].crc_matches)
			assert_int_equal(file_crc, crc);
		else
			assert_int_not_equal(file_crc, crc);
		t2f_elf_module__free(m);
		sink_close(&s);
		free(xb);
		free(xd);
	}
}

static void test_crc32_errors(void **state)
{
	uint32_t crc = 1;
	char path[] = "/tmp/t2f-test-elf-crc-XXXXXX";
	int fd;

	(void)state;
	assert_int_equal(t2f_elf_file_crc32(fx_path("no/such/file"), &crc), -ENOENT);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(t2f_elf_file_crc32(path, &crc), 0);
	assert_int_equal(crc, 0); /* CRC-32 of nothing */
	assert_int_equal(write(fd, "123456789", 9), 9);
	assert_int_equal(t2f_elf_file_crc32(path, &crc), 0);
	assert_int_equal(crc, 0xcbf43926); /* the CRC-32 check value */
	close(fd);
	unlink(path);
}

/* The table names of MiniDebugInfo and .SUNW_ldynsym rows, and lookups that only they answer. */
static void test_extra_tables(void **state)
{
	struct {
		const char *rel, *part, *table, *only_there;
	} c[] = {
		{ "minidebug/prog", "minidebug", ".gnu_debugdata:.symtab", "fx_static_helper" },
		{ "sunw/libfx.so", "sunw", ".SUNW_ldynsym", "fx_lib_static" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct t2f_elf_module *m;
		const struct xsym *xs;
		struct t2f_elf_sym out;
		struct expect *x;
		struct sink s;

		if (!have(c[i].rel, c[i].part))
			continue;
		x = load_expect(c[i].rel, NULL);
		xs = xsym_named(x, c[i].only_there);
		assert_non_null(xs);
		assert_string_equal(xs->table, c[i].table);
		sink_open(&s);
		m = open_ok(c[i].rel, &s);
		assert_true(t2f_elf_module__has_symbols(m));
		assert_int_equal(t2f_elf_module__lookup(m, xs->fixed + 1, &out), 1);
		assert_string_equal(out.name, c[i].only_there);
		assert_string_equal(out.table, c[i].table);
		assert_int_equal(out.value, xs->fixed);
		t2f_elf_module__free(m);
		sink_close(&s);
		free(x);
	}
}

/* EM_ARM: Thumb function values are odd in the tables; each_symbol keeps them raw, lookups use
 * the even code address. */
static void test_thumb(void **state)
{
	const char *rel = "cross/thumb/libfx.so";
	struct t2f_elf_module *m;
	const struct xsym *w;
	struct t2f_elf_sym out;
	struct expect *x;
	struct sink s;

	(void)state;
	need(rel, "cross-thumb");
	x = load_expect(rel, NULL);
	w = xsym_named(x, "fx_lib_work");
	assert_non_null(w);
	assert_int_equal(w->value & 1, 1);
	assert_int_equal(w->fixed, w->value - 1);
	sink_open(&s);
	m = open_ok(rel, &s);
	assert_int_equal(t2f_elf_module__lookup(m, w->fixed, &out), 1);
	assert_true(strcmp(out.name, "fx_lib_work") == 0 || strcmp(out.name, "fx_lib_alias") == 0);
	assert_int_equal(out.value, w->fixed);
	assert_int_equal(t2f_elf_module__lookup(m, w->fixed + w->size - 1, &out), 1);
	assert_int_equal(out.value, w->fixed);
	t2f_elf_module__free(m);
	sink_close(&s);
	free(x);
}

/* ppc64 ELFv1: FUNC values point at .opd descriptors; lookups use the code address stored
 * there, each_symbol the raw descriptor address. */
static void test_ppc64_elfv1(void **state)
{
	const char *rel = "cross/ppc64-elfv1/libfx.so";
	struct t2f_elf_module *m;
	const struct xsym *w, *st;
	struct t2f_elf_sym out;
	struct expect *x;
	struct sink s;

	(void)state;
	need(rel, "cross-ppc64-elfv1");
	x = load_expect(rel, NULL);
	assert_int_equal(x->flags & 3, 1); /* abiv1 */
	w = xsym_named(x, "fx_lib_work");
	st = xsym_named(x, "fx_lib_static");
	assert_non_null(w);
	assert_non_null(st);
	assert_int_not_equal(w->fixed, w->value);
	sink_open(&s);
	m = open_ok(rel, &s);
	assert_int_equal(t2f_elf_module__lookup(m, w->fixed + 4, &out), 1);
	assert_true(strcmp(out.name, "fx_lib_work") == 0 || strcmp(out.name, "fx_lib_alias") == 0);
	assert_int_equal(out.value, w->fixed);
	assert_int_equal(out.size, w->size);
	assert_int_equal(t2f_elf_module__lookup(m, st->fixed, &out), 1);
	assert_string_equal(out.name, "fx_lib_static");
	assert_int_equal(out.value, st->fixed);
	t2f_elf_module__free(m);
	sink_close(&s);
	free(x);
}

/* zstd-compressed .symtab/.strtab: libelf 0.188 cannot decompress ch_type 2. Either the table is
 * read (the contract's "zstd where libelf supports it", or our own libzstd path), or it is
 * skipped with a warning naming the file while .dynsym still counts. */
static void test_compressed_zstd(void **state)
{
	const char *rel = "compressed/libfx-symtab-zstd.so";
	struct rows got = { 0 };
	struct t2f_elf_module *m;
	struct t2f_elf_sym out;
	struct expect *x;
	struct sink s;
	size_t n_symtab = 0, want_dynsym = 0, n_dynsym = 0;

	(void)state;
	need(rel, "compressed-zstd");
	x = load_expect(rel, NULL);
	sink_open(&s);
	m = open_ok(rel, &s);
	assert_int_equal(t2f_elf_module__each_symbol(m, collect_cb, &got), 0);
	for (size_t i = 0; i < got.n; i++) {
		n_symtab += strncmp(got.row[i], ".symtab ", 8) == 0;
		n_dynsym += strncmp(got.row[i], ".dynsym ", 8) == 0;
	}
	for (size_t i = 0; i < x->n_syms; i++)
		want_dynsym += strcmp(x->syms[i].table, ".dynsym") == 0;
	assert_int_equal(n_dynsym, want_dynsym);
	if (n_symtab == 0) {
		assert_true(t2f_diag__warnings(s.d) > 0);
		assert_non_null(strstr(sink_text(&s), fx_path(rel)));
	} else {
		t2f_elf_module__free(m);
		m = open_ok(rel, &s);
		check_each_symbol(m, x, rel);
	}
	assert_int_equal(t2f_elf_module__lookup(m, xsym_named(x, "fx_lib_work")->fixed, &out), 1);
	t2f_elf_module__free(m);
	sink_close(&s);
	free(got.row);
	free(x);
}

/* --- PLT stubs ----------------------------------------------------------------------------- */

struct plt_fixture {
	const char *rel, *part;
	uint16_t machine;
};

static const struct plt_fixture plt_fixtures[] = {
	{ "gnu/libplt.so", "plt", EM_X86_64 },
	{ "gnu/libplt-now.so", "plt", EM_X86_64 },
	{ "m32/libplt.so", "plt", EM_386 },
	{ "gnu/libplt-ibt.so", "plt-ibt", EM_X86_64 },
	{ "m32/libplt-ibt.so", "plt-ibt", EM_386 },
	{ "lld/libplt.so", "plt-lld", EM_X86_64 },
	{ "cross/aarch64/libplt.so", "plt-aarch64", EM_AARCH64 },
};

struct plt_row {
	uint64_t addr;
	char name[128];
};

/* REL.plt (objdump's stub labels, see build-fixtures.sh); the row count. */
static size_t load_plt(const char *rel, struct plt_row *rows, size_t cap)
{
	char path[512], line[256];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s.plt", fx_path(rel));
	f = fopen(path, "r");
	assert_non_null(f);
	while (n < cap && fgets(line, sizeof(line), f)) {
		unsigned long long a;

		assert_int_equal(sscanf(line, "%llx %127s", &a, rows[n].name), 2);
		rows[n++].addr = a;
	}
	fclose(f);
	return n;
}

static int no_plt_cb(void *ctx, const struct t2f_elf_sym *s)
{
	(void)ctx;
	assert_null(strstr(s->name, "@plt"));
	return 0;
}

/* Every stub objdump names SYMBOL@plt resolves to that name over its 16 bytes; the IRELATIVE
 * stubs (objdump: *ABS*...@plt) get no PLT name; the listing has no PLT entry; the real
 * functions still resolve (fx_plt_calls). */
static void test_plt(void **state)
{
	const struct plt_fixture *fx = *state;
	struct plt_row rows[16];
	struct t2f_elf_module *m;
	struct t2f_elf_sym out;
	const struct xsym *xs;
	struct expect *x;
	struct sink s;
	size_t n, named = 0;

	need(fx->rel, fx->part);
	n = load_plt(fx->rel, rows, 16);
	x = load_expect(fx->rel, NULL);
	sink_open(&s);
	m = open_ok(fx->rel, &s);
	assert_int_equal(t2f_elf_module__machine(m), fx->machine);
	for (size_t i = 0; i < n; i++) {
		int r = t2f_elf_module__lookup(m, rows[i].addr, &out);

		if (strncmp(rows[i].name, "*ABS*", 5) == 0) {
			if (r == 1)
				assert_null(strstr(out.name, "@plt"));
			continue;
		}
		named++;
		assert_int_equal(r, 1);
		assert_string_equal(out.name, rows[i].name);
		assert_int_equal(out.value, rows[i].addr);
		assert_int_equal(out.size, 16);
		assert_true(strncmp(out.table, ".plt", 4) == 0);
		assert_int_equal(t2f_elf_module__lookup(m, rows[i].addr + 15, &out), 1);
		assert_string_equal(out.name, rows[i].name);
	}
	assert_int_equal(named, 4);  /* fx_ext_first, _second, _third and _ZN2fx3extEi */
	xs = xsym_named(x, "fx_plt_calls");
	assert_non_null(xs);
	assert_int_equal(t2f_elf_module__lookup(m, xs->fixed, &out), 1);
	assert_string_equal(out.name, "fx_plt_calls");
	assert_int_equal(t2f_elf_module__each_symbol(m, no_plt_cb, NULL), 0);
	check_each_symbol(m, x, fx->rel);
	assert_string_equal(sink_text(&s), "");
	t2f_elf_module__free(m);
	sink_close(&s);
	free(x);
}

/* The answers of every PLT row and of fx_plt_calls, as `out` (n + 1 of them). */
static void plt_answers(struct t2f_elf_module *m, const struct plt_row *rows, size_t n,
			uint64_t calls, struct t2f_elf_sym *out, char (*names)[128])
{
	for (size_t i = 0; i <= n; i++) {
		int r = t2f_elf_module__lookup(m, i < n ? rows[i].addr : calls, &out[i]);

		assert_true(r == 0 || r == 1);
		snprintf(names[i], sizeof(names[i]), "%s", r ? out[i].name : "");
		if (!r)
			out[i] = (struct t2f_elf_sym){ 0 };
	}
}

/* An index let go (__drop_index) is built again by the next lookup, with the same answers (the
 * PLT names too, which go with it), under both rule sets; __name_at names nothing until then. */
static void test_drop_index(void **state)
{
	struct t2f_elf_sym before[17], after[17];
	char names[17][128], again[17][128];
	struct plt_row rows[16];
	struct expect *x;
	uint64_t calls;
	size_t n;

	(void)state;
	need("gnu/libplt.so", "plt");
	n = load_plt("gnu/libplt.so", rows, 16);
	x = load_expect("gnu/libplt.so", NULL);
	calls = xsym_named(x, "fx_plt_calls")->fixed;
	for (int perf = 0; perf < 2; perf++) {
		struct t2f_elf_module *m;
		struct sink s;

		sink_open(&s);
		m = open_ok("gnu/libplt.so", &s);
		if (perf)
			t2f_elf_module__use_perf_rules(m);
		t2f_elf_module__drop_index(m); /* nothing built yet: nothing to do */
		plt_answers(m, rows, n, calls, before, names);
		assert_string_equal(names[n], "fx_plt_calls");
		for (size_t i = 0; i < n && !perf; i++)  /* objdump's names, as test_plt */
			if (strncmp(rows[i].name, "*ABS*", 5) != 0)
				assert_string_equal(names[i], rows[i].name);
		assert_int_equal(t2f_elf_module__index(m), 0);
		assert_string_equal(t2f_elf_module__name_at(m, calls), "fx_plt_calls");
		t2f_elf_module__drop_index(m);
		assert_null(t2f_elf_module__name_at(m, calls));
		plt_answers(m, rows, n, calls, after, again);
		for (size_t i = 0; i <= n; i++) {
			assert_string_equal(again[i], names[i]);
			assert_int_equal(after[i].value, before[i].value);
			assert_int_equal(after[i].size, before[i].size);
			assert_int_equal(after[i].bind, before[i].bind);
			assert_int_equal(after[i].type, before[i].type);
			if (names[i][0])
				assert_string_equal(after[i].table, before[i].table);
		}
		assert_string_equal(t2f_elf_module__name_at(m, calls), "fx_plt_calls");
		assert_string_equal(sink_text(&s), "");
		t2f_elf_module__free(m);
		sink_close(&s);
	}
	free(x);
}

/* __has_debug_info: a file built with -g and its debug file have units; the stripped binary and
 * the binary beside its debug file have none. The same answer when the symbol tables were
 * loaded first (their walk notes it: no second walk). */
static void test_has_debug_info(void **state)
{
	static const struct { const char *rel; bool units; } files[] = {
		{ "gnu/libplt.so", true }, { "gnu/prog-gz", true }, { "dl-beside/prog.debug", true },
		{ "dl-beside/prog", false }, { "stripped/prog", false },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct t2f_elf_module *m;
		struct sink s;

		need(files[i].rel, strncmp(files[i].rel, "gnu/libplt", 10) == 0 ? "plt" : "gnu");
		for (int tables_first = 0; tables_first < 2; tables_first++) {
			sink_open(&s);
			m = open_ok(files[i].rel, &s);
			if (tables_first)
				assert_int_equal(t2f_elf_module__index(m), 0);
			assert_int_equal(t2f_elf_module__has_debug_info(m), files[i].units);
			assert_int_equal(t2f_elf_module__has_debug_info(m), files[i].units);
			t2f_elf_module__free(m);
			sink_close(&s);
		}
	}
}

/* A corrupt .rela.plt (or .dynsym below its symbol indexes): one warning naming the file, no
 * PLT name, the symbol tables still resolve. */
static void test_plt_broken(void **state)
{
	const char *bad[] = { "broken/plt-entsize", "broken/plt-size", "broken/plt-link",
			      "broken/plt-symidx" };
	struct plt_row rows[16];
	size_t n;

	(void)state;
	need("gnu/libplt.so", "plt");
	n = load_plt("gnu/libplt.so", rows, 16);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct t2f_elf_module *m;
		struct t2f_elf_sym out;
		const char *text, *at;
		struct expect *x = load_expect("gnu/libplt.so", NULL);
		struct sink s;

		sink_open(&s);
		m = open_ok(bad[i], &s);
		for (size_t j = 0; j < n; j++)
			if (t2f_elf_module__lookup(m, rows[j].addr, &out) == 1)
				assert_null(strstr(out.name, "@plt"));
		assert_int_equal(t2f_elf_module__lookup(m, xsym_named(x, "fx_plt_calls")->fixed,
							&out), 1);
		assert_string_equal(out.name, "fx_plt_calls");
		text = sink_text(&s);
		at = strstr(text, "PLT");
		assert_non_null(at);
		assert_non_null(strstr(text, bad[i]));
		assert_ptr_equal(strchr(text, '\n'), text + strlen(text) - 1);  /* one line */
		t2f_elf_module__free(m);
		sink_close(&s);
		free(x);
	}
}

int main(void)
{
	struct CMUnitTest tests[2 * sizeof(fixtures) / sizeof(fixtures[0]) + 32];
	size_t n = 0;

	if (elf_fixtures_init("test_elf_module"))
		return 1;
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		struct CMUnitTest t = cmocka_unit_test_prestate(test_fixture, (void *)&fixtures[i]);

		t.name = fixtures[i].rel;
		tests[n++] = t;
	}
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		static char names[sizeof(fixtures) / sizeof(fixtures[0])][96];
		struct CMUnitTest t = cmocka_unit_test_prestate(test_zoo, (void *)&fixtures[i]);

		if (!fixtures[i].zoo)
			continue;
		snprintf(names[i], sizeof(names[i]), "zoo %s", fixtures[i].rel);
		t.name = names[i];
		tests[n++] = t;
	}
	for (size_t i = 0; i < sizeof(plt_fixtures) / sizeof(plt_fixtures[0]); i++) {
		static char names[sizeof(plt_fixtures) / sizeof(plt_fixtures[0])][96];
		struct CMUnitTest t = cmocka_unit_test_prestate(test_plt, (void *)&plt_fixtures[i]);

		snprintf(names[i], sizeof(names[i]), "plt %s", plt_fixtures[i].rel);
		t.name = names[i];
		tests[n++] = t;
	}
	{
		const struct CMUnitTest rest[] = {
			cmocka_unit_test(test_plt_broken),
			cmocka_unit_test(test_drop_index),
			cmocka_unit_test(test_has_debug_info),
			cmocka_unit_test(test_lld_vaddr_offset),
			cmocka_unit_test(test_build_ids),
			cmocka_unit_test(test_debuglink_crc),
			cmocka_unit_test(test_crc32_errors),
			cmocka_unit_test(test_extra_tables),
			cmocka_unit_test(test_thumb),
			cmocka_unit_test(test_ppc64_elfv1),
			cmocka_unit_test(test_compressed_zstd),
		};

		for (size_t i = 0; i < sizeof(rest) / sizeof(rest[0]); i++)
			tests[n++] = rest[i];
	}
	return _cmocka_run_group_tests("elf_module", tests, n, NULL, NULL);
}
