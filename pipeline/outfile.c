/* pipeline/outfile.c: temp file beside the target + rename (see outfile.h). */
#include "pipeline/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pipeline/replace.h"
#include "pipeline/tmpguard.h"

struct t2f_outfile {
	struct t2f_diag *diag;
	bool guard;        /* the temp file is removed on a fatal signal (pipeline/tmpguard.h) */
	struct t2f_out *out;
	char *path;        /* the target; NULL for stdout */
	char *tmp;         /* the temp file while it exists */
	int fd;            /* -1 once closed */
	bool replaces;     /* the target is a regular file: target is its stat */
	struct stat target;
};

/* The longest file name the directory of path (its first dir_len bytes) takes. */
static size_t t2f_name_max(const char *path, size_t dir_len)
{
	char *dir = dir_len ? strndup(path, dir_len) : NULL;
	long max = dir || !dir_len ? pathconf(dir ? dir : ".", _PC_NAME_MAX) : -1;

	free(dir);
	return max > 0 ? (size_t)max : NAME_MAX;
}

/* "dir/name" → "dir/.name.XXXXXX"; -EISDIR when the path names a directory ("dir/"). A name too
 * long for the temp name to fit the directory's limit is cut (at a UTF-8 character boundary):
 * mkstemp keeps the temp name unique. -ENAMETOOLONG when the name itself is too long. */
static int t2f_outfile_tmp_name(const char *path, char **out)
{
	const char *slash = strrchr(path, '/');
	size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
	const char *base = path + dir_len;
	size_t len = strlen(base), max, size;
	size_t extra = sizeof("..XXXXXX") - 1; /* two dots and mkstemp's six letters */
	char *tmp;

	if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
		return -EISDIR;
	max = t2f_name_max(path, dir_len);
	if (len > max)
		return -ENAMETOOLONG;
	if (len + extra > max) {
		len = max > extra ? max - extra : 0;
		while (len && ((unsigned char)base[len] & 0xc0) == 0x80)
			len--;
	}
	size = dir_len + len + extra + 1;
	tmp = malloc(size);
	if (!tmp)
		return -ENOMEM;
	snprintf(tmp, size, "%.*s.%.*s.XXXXXX", (int)dir_len, path, (int)len, base);
	*out = tmp;
	return 0;
}

static mode_t t2f_umask(void)
{
	mode_t m = umask(0);

	umask(m);
	return m;
}

/* The temp file's owner, group and mode: those of the file it replaces (a profile kept private
 * stays so), else a new file's 0666 & ~umask. An owner or group this process may not give
 * (EPERM: not root, nor a member of the group; EINVAL: no such id in this user namespace) is
 * left as created; set-user-ID and set-group-ID bits are kept only with both. 0 or -errno. */
static int t2f_outfile_attrs(struct t2f_outfile *f)
{
	const struct stat *t = &f->target;
	bool owned = true;
	mode_t mode;

	if (!f->replaces) {
		mode = 0666 & ~t2f_umask();
	} else {
		if (fchown(f->fd, t->st_uid, t->st_gid) < 0) {
			if (errno != EPERM && errno != EINVAL)
				return -errno;
			owned = false;
			if (fchown(f->fd, (uid_t)-1, t->st_gid) < 0 && errno != EPERM &&
			    errno != EINVAL)
				return -errno;
		}
		mode = t->st_mode & (owned ? 07777 : 01777);
	}
	return fchmod(f->fd, mode) < 0 ? -errno : 0;
}

static int t2f_outfile_create(struct t2f_outfile *f)
{
	int err = t2f_outfile_tmp_name(f->path, &f->tmp);

	if (err)
		return t2f_diag__error(f->diag, err, f->path, 0, "cannot write here (%s)",
				       t2f_strerror(err));
	f->fd = f->guard ? t2f_tmpguard__create(f->tmp) : mkostemp(f->tmp, O_CLOEXEC);
	if (f->fd < 0 && !f->guard)
		f->fd = -errno;
	if (f->fd < 0) {
		err = f->fd;
		free(f->tmp);
		f->tmp = NULL;
		return t2f_diag__error(f->diag, err, f->path, 0,
				       "cannot create a temporary file beside it (%s)", t2f_strerror(err));
	}
	err = t2f_outfile_attrs(f);
	if (err)
		return t2f_diag__error(f->diag, err, f->path, 0, "cannot set the mode or owner "
				       "of %s (%s)", f->tmp, t2f_strerror(err));
	return 0;
}

/* An existing target that is not a regular file (/dev/null, a FIFO) is opened and written in
 * place: renaming over it would replace the device. A directory is refused. A regular one is
 * kept in f->target. 1 when it was opened, 0 when the target is a regular file or absent, or
 * -errno (recorded). */
static int t2f_outfile_special(struct t2f_outfile *f)
{
	struct stat st;
	int err;

	if (stat(f->path, &st) < 0)
		return 0;
	if (S_ISREG(st.st_mode)) {
		f->replaces = true;
		f->target = st;
		return 0;
	}
	if (S_ISDIR(st.st_mode))
		return t2f_diag__error(f->diag, -EISDIR, f->path, 0, "cannot write (%s)",
				       t2f_strerror(-EISDIR));
	f->fd = open(f->path, O_WRONLY | O_CLOEXEC);
	if (f->fd < 0) {
		err = -errno;
		return t2f_diag__error(f->diag, err, f->path, 0, "cannot open (%s)",
				       t2f_strerror(err));
	}
	return 1;
}

/* "-" or NULL: standard output. */
static bool t2f_is_stdout(const char *path)
{
	return !path || strcmp(path, "-") == 0;
}

int t2f_outfile__open(const char *path, bool guard, struct t2f_diag *d, struct t2f_outfile **out)
{
	struct t2f_outfile *f = calloc(1, sizeof(*f));
	const char *name = t2f_is_stdout(path) ? "<stdout>" : path;
	int err = -ENOMEM;

	*out = NULL;
	if (!f)
		goto done;
	f->diag = d;
	f->guard = guard;
	f->fd = STDOUT_FILENO;
	if (!t2f_is_stdout(path)) {
		f->fd = -1;
		f->path = strdup(path);
		err = f->path ? t2f_outfile_special(f) : -ENOMEM;
		if (err == 0)
			err = t2f_outfile_create(f);
		if (err < 0)
			goto done;
	}
	err = t2f_out__new(f->fd, &f->out);
done:
	if (err == -ENOMEM)
		t2f_diag__error(d, err, name, 0, "%s", t2f_strerror(err));
	if (err) {
		t2f_outfile__free(f);
		return err;
	}
	*out = f;
	return 0;
}

struct t2f_out *t2f_outfile__out(struct t2f_outfile *f)
{
	return f->out;
}

const char *t2f_outfile__name(const struct t2f_outfile *f)
{
	return f->path ? f->path : "<stdout>";
}

int t2f_outfile__commit(struct t2f_outfile *f)
{
	int err = t2f_out__finish(f->out);

	if (err)
		return t2f_diag__error(f->diag, err, t2f_outfile__name(f), 0, "cannot write (%s)",
				       t2f_strerror(err));
	if (!f->path)
		return 0;
	err = close(f->fd) < 0 ? -errno : 0;
	f->fd = -1;
	if (err)
		return t2f_diag__error(f->diag, err, f->path, 0, "cannot write (%s)", t2f_strerror(err));
	if (!f->tmp)
		return 0; /* written in place (not a regular file) */
	err = f->guard ? t2f_tmpguard__rename(f->path) : t2f_replace(f->tmp, f->path);
	if (err)
		return t2f_diag__error(f->diag, err, f->path, 0, "cannot replace it with %s (%s)",
				       f->tmp, t2f_strerror(err));
	free(f->tmp);
	f->tmp = NULL; /* renamed: nothing left to clean up */
	return 0;
}

void t2f_outfile__free(struct t2f_outfile *f)
{
	if (!f)
		return;
	if (f->path && f->fd >= 0)
		close(f->fd);
	if (f->tmp && f->guard)
		t2f_tmpguard__remove();
	else if (f->tmp)
		unlink(f->tmp);
	t2f_out__free(f->out);
	free(f->tmp);
	free(f->path);
	free(f);
}
