/* formats/mem.c: madvise(MADV_HUGEPAGE) on the aligned interior of a block. */
#include "formats/mem.h"

#include <stdint.h>
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
