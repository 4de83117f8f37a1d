/* tools/malloc_tune.c: the CLI's allocator settings (tools/malloc_tune.h). */
#include "tools/malloc_tune.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define T2F_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
	__has_feature(memory_sanitizer)
#define T2F_SANITIZED 1
#endif
#endif

/* hugetlb=1: madvise(MADV_HUGEPAGE) on what malloc takes from the kernel; top_pad: the heap
 * grows 16 MiB at a time (32 MiB gave a held-out whole-machine perf.data 66 MiB of peak RSS);
 * arena_max=1: every thread allocates from the one heap, so that what the reading and DWARF
 * threads free serves the later stages (in arenas of their own it stayed resident: 75 against
 * 50 MiB of peak RSS on a whole-machine perf.data, no slower). */
#define T2F_TUNABLES \
	"glibc.malloc.hugetlb=1:glibc.malloc.top_pad=16777216:glibc.malloc.arena_max=1"

#if defined(__GLIBC__) && !defined(T2F_SANITIZED)
static const char *said = "glibc's defaults";

/* Whether /proc/self/exe is this program: not the dynamic loader started by name with the
 * program as its argument (the kernel then ran the loader as the program: no interpreter was
 * loaded, AT_BASE is 0; so it is for a static program, left alone too). */
static bool t2f_exe_is_program(void)
{
	return getauxval(AT_BASE) != 0;
}

void t2f_malloc_tune(char **argv)
{
	const char *set = getenv("GLIBC_TUNABLES");

	if (set && strcmp(set, T2F_TUNABLES) == 0) {
		said = "glibc, GLIBC_TUNABLES=" T2F_TUNABLES;
		unsetenv("GLIBC_TUNABLES");
		return;
	}
	if (set || getenv("LD_PRELOAD")) {
		said = "the environment's (GLIBC_TUNABLES or LD_PRELOAD)";
		return;
	}
	if (getenv("T2F_MALLOC_DEFAULTS") || !t2f_exe_is_program() ||
	    setenv("GLIBC_TUNABLES", T2F_TUNABLES, 1) != 0)
		return;
	execv("/proc/self/exe", argv);
	unsetenv("GLIBC_TUNABLES");
}
#else
static const char *said = "not glibc's tuned (another allocator or a sanitizer build)";

void t2f_malloc_tune(char **argv)
{
	(void)argv;
}
#endif

const char *t2f_malloc_tune_said(void)
{
	return said;
}
