/* pipeline/vdso.c: this process's vdso, copied out of its own mapping. */
#include "pipeline/vdso.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define T2F_VDSO_MAX (1u << 20) /* a vdso is a few pages */

int t2f_vdso__perf_copy(const char *hex, char **path)
{
	const char *home = getenv("HOME");

	*path = NULL;
	if (home && asprintf(path, "%s/.debug/[vdso]/%s/vdso", home, hex) < 0) {
		*path = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* The [vdso] mapping of this process: 0 and [*start, *end), or -ENOENT. */
static int t2f_vdso_range(uintptr_t *start, uintptr_t *end)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int err = -ENOENT;

	if (!f)
		return -ENOENT;
	while (err && fgets(line, sizeof(line), f)) {
		uintmax_t lo, hi;

		if (strstr(line, "[vdso]") && sscanf(line, "%jx-%jx", &lo, &hi) == 2 && lo < hi &&
		    hi - lo <= T2F_VDSO_MAX) {
			*start = (uintptr_t)lo;
			*end = (uintptr_t)hi;
			err = 0;
		}
	}
	fclose(f);
	return err;
}

int t2f_vdso__dump(char **path)
{
	const char *dir = getenv("TMPDIR");
	uintptr_t start, end;
	int fd, err = t2f_vdso_range(&start, &end);
	ssize_t n;

	*path = NULL;
	if (err)
		return err;
	if (asprintf(path, "%s/t2f-vdso.XXXXXX", dir && *dir ? dir : "/tmp") < 0) {
		*path = NULL;
		return -ENOMEM;
	}
	fd = mkstemp(*path);
	if (fd < 0) {
		err = -errno;
		free(*path);
		*path = NULL;
		return err;
	}
	n = write(fd, (const void *)start, end - start);
	err = n == (ssize_t)(end - start) ? 0 : n < 0 ? -errno : -EIO;
	if (close(fd) != 0 && !err)
		err = -errno;
	if (err) {
		unlink(*path);
		free(*path);
		*path = NULL;
	}
	return err;
}
