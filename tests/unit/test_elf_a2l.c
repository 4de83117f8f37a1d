/* tests/unit/test_elf_a2l.c: t2f_elf_module__lookup_a2l, the symbol binutils' addr2line names
 * an address by (symbolizer/elf_a2l.c), against addr2line itself: the FILE.a2l sidecars of
 * tests/elf/build-fixtures.sh give its answer for every byte of the symbol zoo
 * (fixtures/elf/zoo.c at 0x2000000: aliases in several bindings, sizeless symbols, an object,
 * a NOTYPE label, an ABS symbol, gaps), from a .symtab (GNU ld and lld order their symbols
 * differently) and from a .dynsym alone (the stripped library). The pick differs from both of
 * our other rules: fx_dup_local (the first at its address) where they give fx_dup.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "support/elf_fixtures.h"
#include "symbolizer/elf_module.h"

/* Every line of REL.a2l: our pick's name equals addr2line's ("??": no pick). The count of
 * addresses compared. */
static size_t check_file(const char *rel, const char *part)
{
	struct t2f_elf_module *m;
	char path[512], line[256], want[128];
	size_t n = 0, bad = 0;
	struct sink s;
	FILE *f;

	if (!have(rel, part))
		return 0;
	snprintf(path, sizeof(path), "%s.a2l", fx_path(rel));
	f = fopen(path, "r");
	assert_non_null(f);
	sink_open(&s);
	m = open_ok(rel, &s);
	while (fgets(line, sizeof(line), f)) {
		struct t2f_elf_sym out;
		unsigned long long a;
		const char *got;
		int r;

		assert_int_equal(sscanf(line, "%llx %127s", &a, want), 2);
		r = t2f_elf_module__lookup_a2l(m, a, &out);
		assert_true(r == 0 || r == 1);
		got = r ? out.name : "??";
		if (strcmp(got, want) != 0 && bad++ < 5)
			print_message("%s: 0x%llx: addr2line names %s, lookup_a2l %s\n", rel, a,
				      want, got);
		n++;
	}
	fclose(f);
	t2f_elf_module__free(m);
	sink_close(&s);
	assert_int_equal(bad, 0);
	assert_int_equal(n, 512);
	return n;
}

static void test_zoo(void **state)
{
	(void)state;
	check_file("gnu/prog", "gnu");
	check_file("gnu/libfx.so", "gnu");
	check_file("lld/libfx-pinned.so", "lld");
	check_file("stripped/libfx.so", "gnu");
}

/* Where the rules part: three symbols at 0x40, listed LOCAL, WEAK, GLOBAL. __lookup (default
 * and perf's rules) gives the GLOBAL fx_dup; addr2line the first, fx_dup_local. */
static void test_first_alias(void **state)
{
	struct t2f_elf_module *m;
	struct t2f_elf_sym out;
	struct sink s;

	(void)state;
	need("gnu/libfx.so", "gnu");
	sink_open(&s);
	m = open_ok("gnu/libfx.so", &s);
	assert_int_equal(t2f_elf_module__lookup_a2l(m, ZOO_BASE + 0x50, &out), 1);
	assert_string_equal(out.name, "fx_dup_local");
	assert_int_equal(out.value, ZOO_BASE + 0x40);
	assert_string_equal(out.table, ".symtab");
	assert_int_equal(t2f_elf_module__lookup(m, ZOO_BASE + 0x50, &out), 1);
	assert_string_equal(out.name, "fx_dup");
	t2f_elf_module__free(m);
	sink_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zoo),
		cmocka_unit_test(test_first_alias),
	};

	if (elf_fixtures_init("test_elf_a2l"))
		return 1;
	return cmocka_run_group_tests_name("elf_a2l", tests, NULL, NULL);
}
