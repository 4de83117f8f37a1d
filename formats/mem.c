/* formats/mem.c: madvise(MADV_HUGEPAGE) on a block's pages; blocks of whole huge pages. */
#include "formats/mem.h"

#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define HUGE_PAGE ((uintptr_t)2 << 20)

void t2f_mem__huge(void *block)
{
#ifdef MADV_HUGEPAGE
	size_t len = block ? malloc_usable_size(block) : 0;
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t mask = page > 0 ? (uintptr_t)page - 1 : 4095;
	uintptr_t from = (uintptr_t)block & ~mask, to = ((uintptr_t)block + len + mask) & ~mask;

	if (len >= T2F_MEM_HUGE_MIN)
		(void)madvise((void *)from, to - from, MADV_HUGEPAGE);
#else
	(void)block;
#endif
}

void *t2f_mem__alloc_huge(size_t len, size_t *cap)
{
	size_t c = (len + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1);
	void *p;

	if (len == 0 || c < len)
		return NULL;
	p = aligned_alloc(HUGE_PAGE, c);
	if (!p)
		return NULL;
#ifdef MADV_HUGEPAGE
	(void)madvise(p, c, MADV_HUGEPAGE);
#endif
	*cap = c;
	return p;
}
