/* tools/malloc_tune.c: the CLI's allocator settings (tools/malloc_tune.h). */
#include "tools/malloc_tune.h"

#include <stdlib.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define T2F_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
	__has_feature(memory_sanitizer)
#define T2F_SANITIZED 1
#endif
#endif

#if defined(__GLIBC__) && !defined(T2F_SANITIZED)
#include <malloc.h>

/* The heap grows 8 MiB at a time, and keeps up to that much free at its top: 16 MiB gave a
 * whole-machine perf.data of short processes (h15.data) 60.2-64.7 MiB of cold peak RSS against
 * 56.0-59.8 (32 MiB gave another 66 MiB), 4 MiB 54.7-57.1 MiB but 3-8% more CPU time, the heap
 * grown and trimmed again and again. Every thread allocates from the one heap, so that what
 * the reading and DWARF threads free serves the later stages (in arenas of their own it stayed
 * resident: 75 against 50 MiB of peak RSS on a whole-machine perf.data, no slower). */
#define T2F_TOP_PAD_MIB 8
#define T2F_TOP_PAD (T2F_TOP_PAD_MIB << 20)
/* Blocks under 4 MiB come from the heap, not from a mapping of their own: glibc's 128 KiB let
 * every segment's tables and every window's buffers be mapped, faulted in page by page and
 * unmapped again, each page cleared anew (a fault cost about 15 us on the benchmark VM, whose
 * host shadows the page tables). h36.data warm: 0.882x the time, cold peak RSS 49.4-49.7 ->
 * 49.6-51.2 MiB; 32 MiB gave 0.891x and 55.4-55.8 MiB, 1 MiB 0.927x. */
#define T2F_MMAP_MIN_MIB 4
#define T2F_MMAP_MIN (T2F_MMAP_MIN_MIB << 20)
#define T2F_STR_(x) #x
#define T2F_STR(x) T2F_STR_(x)

static const char *said = "glibc's defaults";

void t2f_malloc_tune(void)
{
	if (getenv("GLIBC_TUNABLES") || getenv("LD_PRELOAD")) {
		said = "the environment's (GLIBC_TUNABLES or LD_PRELOAD)";
		return;
	}
	if (getenv("T2F_MALLOC_DEFAULTS"))
		return;
	if (mallopt(M_TOP_PAD, T2F_TOP_PAD) == 1 && mallopt(M_ARENA_MAX, 1) == 1 &&
	    mallopt(M_MMAP_THRESHOLD, T2F_MMAP_MIN) == 1)
		said = "glibc, the heap grown " T2F_STR(T2F_TOP_PAD_MIB) " MiB at a time, blocks "
		       "under " T2F_STR(T2F_MMAP_MIN_MIB) " MiB from it, one arena for every thread";
}
#else
static const char *said = "not glibc's tuned (another allocator or a sanitizer build)";

void t2f_malloc_tune(void)
{
}
#endif

const char *t2f_malloc_tune_said(void)
{
	return said;
}
