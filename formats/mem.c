/* formats/mem.c: madvise(MADV_HUGEPAGE) on a block's pages; blocks of whole huge pages;
 * reservations made usable as they grow. */
#include "formats/mem.h"

#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define HUGE_PAGE ((uintptr_t)T2F_MEM_HUGE_PAGE)

size_t t2f_mem__page_size(void)
{
	long page = sysconf(_SC_PAGESIZE);

	return page > 0 ? (size_t)page : 4096;
}

static uintptr_t page_mask(void)
{
	return (uintptr_t)t2f_mem__page_size() - 1;
}

void t2f_mem__huge(void *block)
{
#ifdef MADV_HUGEPAGE
	size_t len = block ? malloc_usable_size(block) : 0;
	uintptr_t mask = page_mask();
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

void t2f_mem__forget(void *p, size_t len)
{
	uintptr_t mask = page_mask();
	uintptr_t from = ((uintptr_t)p + mask) & ~mask, to = ((uintptr_t)p + len) & ~mask;

	if (p && to > from)
		(void)madvise((void *)from, to - from, MADV_DONTNEED);
}

void *t2f_mem__reserve(size_t bytes)
{
	size_t span = bytes + HUGE_PAGE;
	char *r, *a;

	if (span < bytes)
		return NULL;
	r = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (r == MAP_FAILED)
		return NULL;
	a = (char *)(((uintptr_t)r + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1));
	if (a > r)
		munmap(r, (size_t)(a - r));
	if (r + span > a + bytes)
		munmap(a + bytes, (size_t)(r + span - (a + bytes)));
	return a;
}

int t2f_mem__commit(void *base, size_t bytes)
{
	size_t len = (bytes + page_mask()) & ~page_mask();

	if (mprotect(base, len, PROT_READ | PROT_WRITE) != 0)
		return -ENOMEM;
#ifdef MADV_HUGEPAGE
	(void)madvise(base, len, MADV_HUGEPAGE);
#endif
	return 0;
}

int t2f_mem__commit_in(void *base, size_t bytes, size_t span, bool whole)
{
	if (whole)
		bytes = span - bytes < HUGE_PAGE ? span : (bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	return t2f_mem__commit(base, bytes);
}

void *t2f_mem__reserve_committed(size_t span, size_t bytes, bool whole)
{
	void *r = t2f_mem__reserve(span);

	if (r && t2f_mem__commit_in(r, bytes, span, whole) == 0)
		return r;
	t2f_mem__release(r, span);
	return NULL;
}

void t2f_mem__release(void *base, size_t bytes)
{
	if (base)
		munmap(base, bytes);
}
