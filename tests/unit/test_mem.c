/* tests/unit/test_mem.c: formats/mem.c — the aligned interior of a large block is marked for
 * huge pages ("hg" among the mapping's VmFlags in /proc/self/smaps), a small block is not
 * (skipped where the kernel has no transparent huge pages); blocks of whole huge pages. */
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

static void test_huge_interior(void **state)
{
	size_t len = 16 * MIB;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *aligned;

	(void)state;
	if (access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) != 0)
		skip();
	assert_true(p != MAP_FAILED);
	aligned = (char *)(((uintptr_t)p + 2 * MIB - 1) & ~(uintptr_t)(2 * MIB - 1));
	t2f_mem__huge(p + 1, T2F_MEM_HUGE_MIN - 1); /* below the minimum: left alone */
	assert_false(marked_huge(aligned + 2 * MIB));
	t2f_mem__huge(p + 1, len - 1);
	assert_true(marked_huge(aligned + 2 * MIB));
	assert_int_equal(munmap(p, len), 0);
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
		cmocka_unit_test(test_huge_interior),
		cmocka_unit_test(test_alloc_huge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
