/* tests/unit/test_elf_perf_rules.c: symbolizer/elf_module with perf's symbol rules
 * (t2f_elf_module__use_perf_rules) on the ELF fixtures of tests/elf/build-fixtures.sh.
 *
 * Expected values come from the zoo's pinned layout (fixtures/elf/zoo.c at 0x2000000) read with
 * perf's rules (tools/perf/util/symbol.c choose_best_symbol and symbols__fixup_end,
 * symbol-elf.c dso__load_sym): labels and objects are symbols, a sizeless symbol reaches the
 * next one, non-WEAK beats WEAK before GLOBAL beats LOCAL; and from objdump's PLT listing
 * (FILE.plt), whose stub names perf 6.1 gives out in relocation order, an IRELATIVE one as "@plt".
 */
#include <elf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "support/elf_fixtures.h"
#include "symbolizer/elf_module.h"

/* fx_object [0x180, 0x1a0) or fx_notype [0x190, 0x1a0) */
static void either(struct t2f_elf_module *m, const char *rel, uint64_t addr)
{
	struct t2f_elf_sym out;

	assert_int_equal(t2f_elf_module__lookup(m, addr, &out), 1);
	if (strcmp(out.name, "fx_object") == 0) {
		assert_int_equal(out.value, ZOO_BASE + 0x180);
		assert_int_equal(out.size, 0x20);
	} else if (strcmp(out.name, "fx_notype") == 0) {
		assert_int_equal(out.value, ZOO_BASE + 0x190);
		assert_int_equal(out.size, 0x10);
	} else {
		fail_msg("%s: lookup 0x%llx: want fx_object or fx_notype, got %s", rel,
			 (unsigned long long)addr, out.name);
	}
}

/* The zoo (fixtures/elf/zoo.c) where perf's rules answer differently from the default ones,
 * and where they agree. */
static void test_zoo(void **state)
{
	const char *const rels[] = { "gnu/prog", "gnu/libfx.so", "lld/libfx-pinned.so" };
	const char *const parts[] = { "gnu", "gnu", "lld" };
	const uint64_t b = ZOO_BASE;

	(void)state;
	for (size_t i = 0; i < sizeof(rels) / sizeof(rels[0]); i++) {
		const char *rel = rels[i];
		struct t2f_elf_module *m;
		struct sink s;

		if (!have(rel, parts[i]))
			continue;
		sink_open(&s);
		m = open_ok(rel, &s);
		t2f_elf_module__use_perf_rules(m);
		/* over the label fx_zoo_start at the same address */
		expect_hit(m, rel, b, "fx_first", b, 0x40, STB_GLOBAL, STT_FUNC);
		/* LOCAL, WEAK and GLOBAL at one address: GLOBAL, as by default */
		expect_hit(m, rel, b + 0x7f, "fx_dup", b + 0x40, 0x40, STB_GLOBAL, STT_FUNC);
		expect_hit(m, rel, b + 0x80, "fx_under", b + 0x80, 0x20, STB_GLOBAL, STT_FUNC);
		/* sizeless: reaches the next symbol (0x0c0) */
		expect_hit(m, rel, b + 0xa0, "fx_nosize", b + 0xa0, 0x20, STB_GLOBAL, STT_FUNC);
		expect_hit(m, rel, b + 0xbf, "fx_nosize", b + 0xa0, 0x20, STB_GLOBAL, STT_FUNC);
		/* LOCAL over WEAK (by default WEAK wins) */
		expect_hit(m, rel, b + 0xc0, "fx_local_w", b + 0xc0, 0x20, STB_LOCAL, STT_FUNC);
		/* a sized LOCAL and a sizeless GLOBAL after it in the table (locals come first):
		 * the sizeless one, last at its address, reaches the next symbol before the
		 * choice, and then GLOBAL wins (by default the sized one does) */
		expect_hit(m, rel, b + 0xe0, "fx_zero_global", b + 0xe0, 0x20, STB_GLOBAL,
			   STT_FUNC);
		expect_hit(m, rel, b + 0xff, "fx_zero_global", b + 0xe0, 0x20, STB_GLOBAL,
			   STT_FUNC);
		expect_hit(m, rel, b + 0x100, "fx_ifunc", b + 0x100, 0x20, STB_GLOBAL,
			   STT_GNU_IFUNC);
		/* an OBJECT is a symbol; the NOTYPE label inside it (in a text section) reaches
		 * fx_last: from 0x190 both hold the address, and which one the walk down perf's
		 * tree meets first depends on the tree's shape (the real-data check of this is
		 * tests/perf_data_route.sh against perf itself) */
		expect_hit(m, rel, b + 0x180, "fx_object", b + 0x180, 0x20, STB_GLOBAL, STT_OBJECT);
		expect_hit(m, rel, b + 0x18f, "fx_object", b + 0x180, 0x20, STB_GLOBAL, STT_OBJECT);
		either(m, rel, b + 0x190);
		either(m, rel, b + 0x19f);
		expect_hit(m, rel, b + 0x1ef, "fx_last", b + 0x1a0, 0x50, STB_GLOBAL, STT_FUNC);
		expect_miss(m, rel, b + 0x1f0);
		expect_miss(m, rel, 0x20001f8);  /* fx_abs: SHN_ABS */
		assert_int_equal(t2f_diag__warnings(s.d), 0);
		t2f_elf_module__free(m);
		sink_close(&s);
	}
}

struct plt_row {
	uint64_t addr;
	char name[128];
};

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct plt_row *)a)->name, ((const struct plt_row *)b)->name);
}

/* gnu/libplt.so (x86-64, two IRELATIVE stubs among named ones): every stub objdump lists gets a
 * "...@plt" name of 16 bytes, and the names are objdump's with the IRELATIVE ones as "@plt" (the
 * same set; perf hands them out in relocation order, objdump by GOT slot). */
static void test_plt(void **state)
{
	struct plt_row want[16], got[16];
	struct t2f_elf_module *m;
	struct t2f_elf_sym out;
	char path[512], line[256];
	size_t n = 0;
	struct sink s;
	FILE *f;

	(void)state;
	need("gnu/libplt.so", "plt");
	snprintf(path, sizeof(path), "%s.plt", fx_path("gnu/libplt.so"));
	f = fopen(path, "r");
	assert_non_null(f);
	while (n < 16 && fgets(line, sizeof(line), f)) {
		unsigned long long a;

		assert_int_equal(sscanf(line, "%llx %127s", &a, want[n].name), 2);
		want[n].addr = a;
		if (strncmp(want[n].name, "*ABS*", 5) == 0)
			strcpy(want[n].name, "@plt");
		n++;
	}
	fclose(f);
	assert_true(n >= 5);
	sink_open(&s);
	m = open_ok("gnu/libplt.so", &s);
	t2f_elf_module__use_perf_rules(m);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(t2f_elf_module__lookup(m, want[i].addr + 15, &out), 1);
		assert_int_equal(out.value, want[i].addr);
		assert_int_equal(out.size, 16);
		got[i] = want[i];
		snprintf(got[i].name, sizeof(got[i].name), "%s", out.name);
	}
	qsort(want, n, sizeof(want[0]), by_name);
	qsort(got, n, sizeof(got[0]), by_name);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(got[i].name, want[i].name);
	assert_string_equal(sink_text(&s), "");
	t2f_elf_module__free(m);
	sink_close(&s);
}

/* gnu/prog's debug file alone (debug/.build-id/..., NOBITS .plt and .plt.got): an address in
 * the PLT sections is left unnamed (the binary's stubs are not there to name it, and a sizeless
 * symbol before .plt must not take it), while the binary itself names it (as perf does:
 * test_plt); an address in .text is named the same from both. */
static void test_plt_without_binary(void **state)
{
	struct t2f_elf_module *bin, *dbg;
	struct t2f_elf_sym a, b;
	char rel[2 * T2F_BUILD_ID_MAX + 64], hex[2 * T2F_BUILD_ID_MAX + 1] = "";
	const uint8_t *id;
	size_t len = 0;
	struct sink s;

	(void)state;
	need("gnu/prog", "gnu");
	sink_open(&s);
	bin = open_ok("gnu/prog", &s);
	id = t2f_elf_module__build_id(bin, &len);
	assert_non_null(id);
	for (size_t k = 0; k < len; k++)
		snprintf(hex + 2 * k, 3, "%02x", id[k]);
	snprintf(rel, sizeof(rel), "debug/.build-id/%.2s/%s.debug", hex, hex + 2);
	dbg = open_ok(rel, &s);
	t2f_elf_module__use_perf_rules(bin);
	t2f_elf_module__use_perf_rules(dbg);
	for (uint64_t at = 0x1020; at < 0x1058; at += 4) { /* .plt, then .plt.got */
		if (t2f_elf_module__lookup(dbg, at, &a) != 0)
			fail_msg("0x%llx in the debug file's PLT named %s", (unsigned long long)at, a.name);
	}
	assert_int_equal(t2f_elf_module__lookup(bin, 0x1030, &b), 1); /* what perf's tree gives */
	assert_int_equal(t2f_elf_module__lookup(bin, 0x2000000, &b), 1); /* .text */
	assert_int_equal(t2f_elf_module__lookup(dbg, 0x2000000, &a), 1);
	assert_string_equal(a.name, b.name);
	t2f_elf_module__free(dbg);
	t2f_elf_module__free(bin);
	sink_close(&s);
}

/* aliases/libaliases.so (tests/elf/make-aliases): 12,000 functions of two names each, a
 * .strtab of about 4 MB (several of the windows its names are ranked in, elf_perf_rank.c, the
 * pages given back between them): at each, the name perf keeps (the sidecar FILE.want). */
static void test_aliases(void **state)
{
	const char *rel = "aliases/libaliases.so";
	char path[4096], line[1024];
	struct t2f_elf_module *m;
	struct sink s;
	size_t rows = 0;
	FILE *f;

	(void)state;
	need(rel, "aliases");
	snprintf(path, sizeof(path), "%s.want", fx_path(rel));
	f = fopen(path, "r");
	assert_non_null(f);
	sink_open(&s);
	m = open_ok(rel, &s);
	t2f_elf_module__use_perf_rules(m);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long addr;
		char name[1024];
		struct t2f_elf_sym out;

		assert_int_equal(sscanf(line, "%llx %1023s", &addr, name), 2);
		assert_int_equal(t2f_elf_module__lookup(m, addr + 15, &out), 1);
		if (strcmp(out.name, name) != 0 || out.value != addr)
			fail_msg("%s: 0x%llx: want %s, got %s at 0x%llx", rel, addr, name, out.name,
				 (unsigned long long)out.value);
		rows++;
	}
	fclose(f);
	assert_int_equal(rows, 12000);
	assert_int_equal(t2f_diag__warnings(s.d), 0);
	t2f_elf_module__free(m);
	sink_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zoo),
		cmocka_unit_test(test_plt),
		cmocka_unit_test(test_plt_without_binary),
		cmocka_unit_test(test_aliases),
	};

	if (elf_fixtures_init("test_elf_perf_rules"))
		return 1;
	return cmocka_run_group_tests_name("elf_perf_rules", tests, NULL, NULL);
}
