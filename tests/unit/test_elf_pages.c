/* tests/unit/test_elf_pages.c: a module's symbol and string tables given back once indexed
 * (symbolizer/elf_pages.c) lose no byte: pages of our own memory (here a malloc'd table, as a
 * decoded one, or as a file libelf read instead of mapping) are never given back, and a
 * read-only mapping of a file reads the same afterwards (faulted in again from the file).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "support/fixture_env.h"
#include "symbolizer/elf_internal.h"

#define RECS 8192                       /* 192 KiB of Elf64_Sym: many whole pages */

static void fill(unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 7 + 1);
}

static bool intact(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != (unsigned char)(i * 7 + 1))
			return false;
	return true;
}

/* A module whose one table's records and names are syms[0..n) and strs[0..n). */
static struct t2f_elf_module *module_over(const void *syms, const char *strs, size_t n)
{
	struct t2f_elf_module *m = calloc(1, sizeof(*m));

	assert_non_null(m);
	m->n_tables = 1;
	m->tables_state = 1;  /* loaded */
	m->tables[0] = (struct t2f_elf_table){ .name = ".symtab", .syms = syms,
					       .count = n / sizeof(Elf64_Sym), .strs = strs,
					       .str_size = n, .is64 = true };
	return m;
}

static void test_own_memory_kept(void **state)
{
	size_t n = RECS * sizeof(Elf64_Sym);
	unsigned char *syms = malloc(n), *strs = malloc(n);
	struct t2f_elf_module *m;

	(void)state;
	assert_non_null(syms);
	assert_non_null(strs);
	fill(syms, n);
	fill(strs, n);
	m = module_over(syms, (const char *)strs, n);
	t2f_elf_module__release_tables(m);
	assert_true(intact(syms, n));
	assert_true(intact(strs, n));
	free(m);
	free(syms);
	free(strs);
}

static void test_file_mapping_reads_the_same(void **state)
{
	size_t n = RECS * sizeof(Elf64_Sym);
	unsigned char *buf = malloc(n);
	char path[PATH_MAX];
	struct t2f_elf_module *m;
	unsigned char *map;
	FILE *f;

	(void)state;
	assert_non_null(buf);
	fill(buf, n);
	f = fopen(pathf(path, "%s/tables", tmp), "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
	f = fopen(path, "rb");
	assert_non_null(f);
	map = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fileno(f), 0);
	assert_true(map != MAP_FAILED);
	assert_true(intact(map, n));    /* resident */
	m = module_over(map, (const char *)map, n);
	t2f_elf_module__release_tables(m);
	assert_true(intact(map, n));
	munmap(map, n);
	fclose(f);
	free(m);
	free(buf);
}

/* The Rss (kB) /proc/self/smaps shows for the mapping starting at p, or -1. */
static long rss_kb(const void *p)
{
	FILE *f = fopen("/proc/self/smaps", "re");
	char line[512];
	bool in = false;
	long kb = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		char perms[5];

		if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perms) == 3)  /* a mapping's first line */
			in = lo == (unsigned long)(uintptr_t)p;
		else if (in && sscanf(line, "Rss: %ld kB", &kb) == 1)
			break;
	}
	fclose(f);
	return in ? kb : -1;
}

/* Two modules' tables in two read-only file mappings and one in our memory, given back in one
 * call (__release_tables, or __release_files of modules without an ELF image): both mappings
 * hold no resident page afterwards and read the same, their modules' tables known to be mapped
 * then; our memory is untouched, its module's not. */
static void batch(bool files)
{
	size_t n = RECS * sizeof(Elf64_Sym);
	unsigned char *buf = malloc(n), *map[2];
	struct t2f_elf_module *m[3];
	char path[PATH_MAX];
	FILE *f;

	assert_non_null(buf);
	fill(buf, n);
	f = fopen(pathf(path, "%s/batch", tmp), "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
	f = fopen(path, "rb");
	assert_non_null(f);
	for (int i = 0; i < 2; i++) {
		map[i] = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fileno(f), 0);
		assert_true(map[i] != MAP_FAILED);
		assert_true(intact(map[i], n));    /* resident */
		assert_true(rss_kb(map[i]) > 0);
		m[i] = module_over(map[i], (const char *)map[i], n);
		m[i]->tables_held = true;
	}
	m[2] = module_over(buf, (const char *)buf, n);
	if (files)
		t2f_elf_modules__release_files(m, 3);
	else
		t2f_elf_modules__release_tables(m, 3);
	assert_false(t2f_elf_module__tables_mapped(m[2]));
	for (int i = 0; i < 2; i++) {
		assert_int_equal(rss_kb(map[i]), 0);
		assert_false(t2f_elf_module__tables_held(m[i]));
		assert_true(t2f_elf_module__tables_mapped(m[i]));
		assert_true(intact(map[i], n));
		munmap(map[i], n);
		free(m[i]);
	}
	assert_true(intact(buf, n));
	free(m[2]);
	fclose(f);
	free(buf);
}

static void test_batch(void **state)
{
	(void)state;
	batch(false);
	batch(true);
}

/* The sum of a mapping's bytes (every page read, so resident). */
static uint64_t sum(const unsigned char *p, size_t n)
{
	uint64_t t = 0;

	for (size_t i = 0; i < n; i++)
		t += p[i] * (i % 251 + 1);
	return t;
}

/* A module's whole file given back (not only its tables): the mapping holds no resident page
 * afterwards and reads the same. This test program is the ELF file. */
static void test_release_files(void **state)
{
	char self[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	struct t2f_elf_module *m;
	const unsigned char *raw;
	size_t n = 0;
	uint64_t before;

	(void)state;
	assert_true(len > 0);
	self[len] = '\0';
	assert_int_equal(t2f_elf_module__open(self, NULL, &m), 0);
	raw = (const unsigned char *)elf_rawfile(m->elf, &n);
	assert_non_null(raw);
	before = sum(raw, n);
	assert_true(rss_kb(raw) > 0);
	m->tables_held = true;
	t2f_elf_modules__release_files(&m, 1);
	assert_true(rss_kb(raw) <= sysconf(_SC_PAGESIZE) / 1024); /* the file's last page, partial */
	assert_false(t2f_elf_module__tables_held(m));
	assert_int_equal(sum(raw, n), before);
	t2f_elf_module__free(m);
}

/* An image libelf mapped is found and given back whole, and reads the same; one in our memory
 * (elf_memory) is never given back. */
static void test_mapped(void **state)
{
	char self[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	struct t2f_elf_mapped span;
	const unsigned char *raw;
	unsigned char *copy;
	uint64_t before;
	size_t n = 0;
	Elf *e;
	FILE *f;

	(void)state;
	assert_true(len > 0);
	self[len] = '\0';
	f = fopen(self, "rb");
	assert_non_null(f);
	elf_version(EV_CURRENT);
	e = elf_begin(fileno(f), ELF_C_READ_MMAP, NULL);
	assert_non_null(e);
	raw = (const unsigned char *)elf_rawfile(e, &n);
	assert_non_null(raw);
	before = sum(raw, n);
	t2f_elf_mapped__find(e, &span);
	assert_true(span.lo >= (uintptr_t)raw && span.hi <= (uintptr_t)raw + n);
	assert_true(span.hi - span.lo + 8192 > n);  /* its whole pages */
	t2f_elf_mapped__give_back(&span);
	assert_true(rss_kb(raw) <= sysconf(_SC_PAGESIZE) / 1024);
	assert_int_equal(sum(raw, n), before);
	elf_end(e);

	copy = malloc(n);
	assert_non_null(copy);
	assert_non_null(f = freopen(self, "rb", f));
	assert_int_equal(fread(copy, 1, n, f), n);
	e = elf_memory((char *)copy, n);
	assert_non_null(e);
	t2f_elf_mapped__find(e, &span);
	assert_true(span.lo == span.hi);
	t2f_elf_mapped__give_back(&span);
	assert_int_equal(sum(copy, n), before);
	elf_end(e);
	free(copy);
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_own_memory_kept),
		FX_TEST(test_file_mapping_reads_the_same),
		FX_TEST(test_batch),
		cmocka_unit_test(test_release_files),
		cmocka_unit_test(test_mapped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
