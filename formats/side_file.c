/* formats/side_file.c: regular files only, opened without blocking, read within a size
 * (side_file.h). */
#include "formats/side_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/diag.h"

static int not_regular(const struct stat *st)
{
	return S_ISDIR(st->st_mode) ? -EISDIR : -T2F_ERR_NOT_FILE;
}

int t2f_side_file__open(const char *path, int *fd, uint64_t *size)
{
	struct stat before, st;
	int f, err;

	*fd = -1;
	if (stat(path, &before) != 0)
		return -errno;
	if (!S_ISREG(before.st_mode))
		return not_regular(&before);
	f = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (f < 0)
		return -errno;
	if (fstat(f, &st) != 0) {
		err = -errno;
		close(f);
		return err;
	}
	if (!S_ISREG(st.st_mode) || st.st_dev != before.st_dev || st.st_ino != before.st_ino) {
		close(f);
		return S_ISREG(st.st_mode) ? -EAGAIN : not_regular(&st); /* replaced meanwhile */
	}
	*fd = f;
	if (size)
		*size = (uint64_t)st.st_size;
	return 0;
}

/* Room for more than *cap bytes (+ the NUL), at most max; -T2F_ERR_LIMIT at max. */
static int grow(char **buf, size_t *cap, size_t max)
{
	size_t next = *cap > max / 2 ? max : *cap < 4096 ? 4096 : 2 * *cap;
	char *nb;

	if (*cap >= max)
		return -T2F_ERR_LIMIT;
	if (next > max)
		next = max;
	nb = realloc(*buf, next + 1);
	if (!nb)
		return -ENOMEM;
	*buf = nb;
	*cap = next;
	return 0;
}

/* Reads fd to its end: into room for its size (at most max bytes), grown when the file grew
 * meanwhile (a byte read past the room says so), never past max. */
static int read_all(int fd, uint64_t size, size_t max, char **text, size_t *len)
{
	size_t cap = size < max ? (size_t)size : max, n = 0;
	char *buf = malloc(cap + 1), one;
	int err = buf ? 0 : -ENOMEM;

	while (!err) {
		bool full = n == cap;
		ssize_t got = full ? read(fd, &one, 1) : read(fd, buf + n, cap - n);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			err = -errno;
		if (got <= 0)
			break;
		if (!full)
			n += (size_t)got;
		else if (!(err = grow(&buf, &cap, max)))
			buf[n++] = one;
	}
	if (err) {
		free(buf);
		return err;
	}
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
}

int t2f_side_file__read(const char *path, size_t max, char **text, size_t *len)
{
	uint64_t size;
	int fd, err = t2f_side_file__open(path, &fd, &size);

	*text = NULL;
	*len = 0;
	if (err)
		return err;
	err = size > max ? -T2F_ERR_LIMIT : read_all(fd, size, max, text, len);
	close(fd);
	return err;
}
