/* formats/mem.c: madvise(MADV_HUGEPAGE) on the aligned interior of a block; blocks of whole huge
 * pages. */
#include "formats/mem.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#define HUGE_PAGE ((uintptr_t)2 << 20)

void t2f_mem__huge(void *p, size_t len)
{
#ifdef MADV_HUGEPAGE
	uintptr_t from = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	uintptr_t to = ((uintptr_t)p + len) & ~(HUGE_PAGE - 1);

	if (len >= T2F_MEM_HUGE_MIN && to > from)
		(void)madvise((void *)from, to - from, MADV_HUGEPAGE);
#else
	(void)p;
	(void)len;
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
