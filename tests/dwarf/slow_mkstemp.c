/* tests/dwarf/slow_mkstemp.c: an LD_PRELOAD library whose mkstemp, for a template containing
 * "/debuginfo." (libdebuginfod's temp file of a download), makes the file and then sleeps 5 s
 * before returning: a signal sent meanwhile finds the file made and the fetch not yet told of
 * it, the window debuginfod_hostile.sh tests. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int mkstemp(char *tmpl)
{
	int (*real)(char *) = (int (*)(char *))dlsym(RTLD_NEXT, "mkstemp");
	int fd;

	if (!real)
		abort();
	fd = real(tmpl);
	if (fd >= 0 && strstr(tmpl, "/debuginfo."))
		sleep(5);
	return fd;
}
