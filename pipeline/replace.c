/* pipeline/replace.c: swap and unlink, else rename (see replace.h). */
#include "pipeline/replace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

int t2f_replace(const char *from, const char *to)
{
	struct stat st;

	if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_EXCHANGE) == 0) {
		if (fstatat(AT_FDCWD, from, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return 0; /* `to` is in place; what it held is gone already */
		if (!S_ISDIR(st.st_mode)) {
			unlink(from);
			return 0;
		}
		if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_EXCHANGE) < 0)
			return -errno; /* a directory that cannot be put back */
	}
	return rename(from, to) < 0 ? -errno : 0;
}
