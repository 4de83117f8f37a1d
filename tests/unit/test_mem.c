/* tests/unit/test_mem.c: formats/mem.c — all of a large block is marked for huge pages ("hg"
 * among the mapping's VmFlags in /proc/self/smaps), a small block is not (skipped where the
 * kernel has no transparent huge pages); blocks of whole huge pages. */
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

#include "formats/mem.h"

#define MIB ((size_t)1 << 20)

/* True when the mapping that holds addr has `hg` among its VmFlags. */
static bool marked_huge(const void *addr)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	bool inside = false, hg = false;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
			inside = (uintptr_t)addr >= lo && (uintptr_t)addr < hi;
		else if (inside && strncmp(line, "VmFlags:", 8) == 0)
			hg = strstr(line, " hg") != NULL;
	}
	fclose(f);
	return hg;
}

/* A large block is marked from its first page to its last, a small one not at all. The block
 * stays one mapping, so glibc's realloc moves it (mremap keeps the mark) instead of copying it
 * into a new, unmarked one. */
static void test_huge_block(void **state)
{
	char *small = malloc(T2F_MEM_HUGE_MIN - 4096), *p = malloc(16 * MIB), *q;

	(void)state;
	if (access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) != 0)
		skip();
	assert_non_null(small);
	assert_non_null(p);
	t2f_mem__huge(small);
	assert_false(marked_huge(small + T2F_MEM_HUGE_MIN / 2));
	assert_false(marked_huge(p + 8 * MIB));
	t2f_mem__huge(p);
	assert_true(marked_huge(p));
	assert_true(marked_huge(p + 8 * MIB));
	assert_true(marked_huge(p + 16 * MIB - 1));
	memset(p, 'b', 16 * MIB);
	q = realloc(p, 32 * MIB);
	assert_non_null(q);
	assert_int_equal(q[16 * MIB - 1], 'b');
#ifndef __SANITIZE_ADDRESS__ /* glibc's realloc; AddressSanitizer's copies whatever the mapping */
	assert_true(marked_huge(q + 24 * MIB));
#endif
	t2f_mem__huge(NULL);
	free(q);
	free(small);
}

/* Whole huge pages: aligned, the size rounded up, marked; realloc keeps the bytes. */
static void test_alloc_huge(void **state)
{
	size_t cap = 0;
	char *p = t2f_mem__alloc_huge(3 * MIB + 1, &cap), *q;

	(void)state;
	assert_non_null(p);
	assert_int_equal((uintptr_t)p % (2 * MIB), 0);
	assert_int_equal(cap, 4 * MIB);
	memset(p, 'a', cap);
	if (access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) == 0)
		assert_true(marked_huge(p + 2 * MIB));
	q = realloc(p, 8 * MIB);
	assert_non_null(q);
	assert_int_equal(q[4 * MIB - 1], 'a');
	free(q);
	assert_null(t2f_mem__alloc_huge(0, &cap));
	assert_null(t2f_mem__alloc_huge(SIZE_MAX - 5, &cap)); /* rounding up would wrap */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_huge_block),
		cmocka_unit_test(test_alloc_huge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
