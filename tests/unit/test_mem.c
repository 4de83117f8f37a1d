/* tests/unit/test_mem.c: formats/mem.c — all of a large block is marked for huge pages ("hg"
 * among the mapping's VmFlags in /proc/self/smaps), a small block is not (skipped where the
 * kernel has no transparent huge pages); blocks of whole huge pages; pages forgotten; a
 * reservation made usable as it grows, in place. */
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

/* A block's whole pages within a range read as zero once forgotten, its partial pages at
 * either end keep their bytes. */
static void test_forget(void **state)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t pg = page > 0 ? (size_t)page : 4096, len = 64 * pg;
	char *p = aligned_alloc(pg, len);

	(void)state;
	assert_non_null(p);
	memset(p, 'c', len);
	t2f_mem__forget(p + pg / 2, 10 * pg); /* the pages 1 to 9 whole, halves of 0 and 10 */
	assert_int_equal(p[pg - 1], 'c');
	assert_int_equal(p[pg], 0);
	assert_int_equal(p[10 * pg - 1], 0);
	assert_int_equal(p[10 * pg], 'c');
	assert_int_equal(p[63 * pg], 'c');
	p[5 * pg] = 'd'; /* written again */
	assert_int_equal(p[5 * pg], 'd');
	t2f_mem__forget(p, pg - 1); /* no whole page */
	assert_int_equal(p[0], 'c');
	t2f_mem__forget(NULL, len);
	free(p);
}

/* The permissions of the mapping that holds addr ("rw-p", "---p"), or "" when none does. */
static void perms_at(const void *addr, char out[5])
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512], perms[5];
	unsigned long lo, hi;

	assert_non_null(f);
	out[0] = '\0';
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perms) == 3 && (uintptr_t)addr >= lo &&
		    (uintptr_t)addr < hi)
			memcpy(out, perms, 5);
	fclose(f);
}

/* A reservation starts 2 MiB-aligned; what is committed is readable and writable and stays
 * where it is as more is committed (its bytes kept); what is not is no usable memory; after the
 * release no mapping holds it. */
static void test_reserve(void **state)
{
	size_t span = (size_t)1 << 30;
	char *p = t2f_mem__reserve(span), perms[5];

	(void)state;
	assert_non_null(p);
	assert_int_equal((uintptr_t)p % T2F_MEM_HUGE_PAGE, 0);
	perms_at(p, perms);
	assert_string_equal(perms, "---p");
	assert_int_equal(t2f_mem__commit(p, 3 * MIB + 5), 0);
	memset(p, 'r', 3 * MIB + 5);
	perms_at(p + 3 * MIB, perms);
	assert_string_equal(perms, "rw-p");
	perms_at(p + 4 * MIB, perms); /* past the page holding the last committed byte */
	assert_string_equal(perms, "---p");
	assert_int_equal(t2f_mem__commit(p, 9 * MIB), 0);
	assert_int_equal(p[0], 'r');
	assert_int_equal(p[3 * MIB + 4], 'r');
	assert_int_equal(p[3 * MIB + 5], 0);
	assert_int_equal(p[9 * MIB - 1], 0);
	p[9 * MIB - 1] = 's';
	assert_int_equal(t2f_mem__commit(p, MIB), 0); /* less than committed: nothing lost */
	assert_int_equal(p[9 * MIB - 1], 's');
	assert_int_equal(p[2 * MIB], 'r');
	t2f_mem__release(p, span);
	perms_at(p, perms);
	assert_string_equal(perms, "");
	t2f_mem__release(NULL, span);
}

/* A reservation with its first bytes committed, or NULL and nothing held when it is refused. */
static void test_reserve_committed(void **state)
{
	size_t span = (size_t)1 << 30;
	char *p = t2f_mem__reserve_committed(span, 2 * MIB + 1, false), perms[5];

	(void)state;
	assert_non_null(p);
	assert_int_equal((uintptr_t)p % T2F_MEM_HUGE_PAGE, 0);
	p[2 * MIB] = 'c';
	perms_at(p + 2 * MIB, perms);
	assert_string_equal(perms, "rw-p");
	perms_at(p + 3 * MIB, perms);
	assert_string_equal(perms, "---p");
	t2f_mem__release(p, span);
	perms_at(p, perms);
	assert_string_equal(perms, "");
	assert_null(t2f_mem__reserve_committed(SIZE_MAX / 2, MIB, false)); /* past any address space */
}

/* Committed in whole huge pages: up to the next 2 MiB boundary past the last byte asked for,
 * and no further than the reservation's end. */
static void test_commit_whole(void **state)
{
	size_t span = (size_t)1 << 30, small = 3 * MIB;
	char *p = t2f_mem__reserve(span), *q, perms[5];

	(void)state;
	assert_non_null(p);
	assert_int_equal(t2f_mem__commit_in(p, MIB + 5, span, true), 0);
	p[2 * MIB - 1] = 'w';
	perms_at(p + 2 * MIB - 1, perms);
	assert_string_equal(perms, "rw-p");
	perms_at(p + 2 * MIB, perms);
	assert_string_equal(perms, "---p");
	assert_int_equal(t2f_mem__commit_in(p, 2 * MIB + 1, span, true), 0);
	perms_at(p + 4 * MIB - 1, perms);
	assert_string_equal(perms, "rw-p");
	perms_at(p + 4 * MIB, perms);
	assert_string_equal(perms, "---p");
	assert_int_equal(p[2 * MIB - 1], 'w');
	t2f_mem__release(p, span);
	q = t2f_mem__reserve(small); /* the last huge page cut by the reservation's end */
	assert_non_null(q);
	assert_int_equal(t2f_mem__commit_in(q, 2 * MIB + 1, small, true), 0);
	q[small - 1] = 'e';
	perms_at(q + small - 1, perms);
	assert_string_equal(perms, "rw-p");
	t2f_mem__release(q, small);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_huge_block),
		cmocka_unit_test(test_alloc_huge),
		cmocka_unit_test(test_forget),
		cmocka_unit_test(test_reserve),
		cmocka_unit_test(test_reserve_committed),
		cmocka_unit_test(test_commit_whole),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
