/* symbolizer/symcache_list.c: the cache directory's files listed, checked and removed
 * (symcache.h), for `trace2flame cache`. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbolizer/symcache.h"
#include "symbolizer/symcache_internal.h"
#include "symbolizer/text_syms_cache.h"

/* One directory entry named as a cache file: checked as a run checks it. */
static int each_one(struct t2f_symcache_dir *d, const char *name, t2f_symcache_each_fn fn,
		    void *ctx)
{
	char id_hex[2 * T2F_BUILD_ID_MAX + 1];
	const char *problem = NULL;
	char *module = NULL;
	struct stat st;
	size_t len = strlen(name) - strlen(T2F_SYMCACHE_SUFFIX);
	int fd, err;

	memcpy(id_hex, name, len);
	id_hex[len] = '\0';
	if (fstatat(d->fd, name, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : -errno;  /* removed meanwhile */
	fd = openat(d->fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		problem = errno == ELOOP ? "a symlink" : "it cannot be opened";
	} else {
		char got[2 * T2F_BUILD_ID_MAX + 1];

		bool ksyms = strncmp(name, T2F_KSC_PREFIX, strlen(T2F_KSC_PREFIX)) == 0;

		err = ksyms ? t2f_text_syms__cache_check_fd(fd, &module, &problem)
			    : t2f_symcache__check_fd(fd, got, &module, &problem);
		close(fd);
		if (err == -ENOMEM)
			return err;
		if (!err && !ksyms && strcmp(got, id_hex) != 0)
			problem = "made for another build-id than its name's";
	}
	err = fn(ctx, id_hex, module ? module : "", (uint64_t)st.st_size, st.st_mtim.tv_sec,
		 problem);
	free(module);
	return err;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of d's entries that are cache files (or, with temps, also the temp files a write
 * leaves: ".NAME.XXXXXX"), sorted; NULL-terminated, malloc'd (one free per name and the
 * array). */
static int names_of(struct t2f_symcache_dir *d, bool temps, char ***out)
{
	int fd = dup(d->fd);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	char **v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	int err = 0;

	if (!dir) {
		err = -errno;
		if (fd >= 0)
			close(fd);
		return err;
	}
	rewinddir(dir);
	while (!err && (e = readdir(dir))) {
		bool temp = temps && e->d_name[0] == '.' && strstr(e->d_name, T2F_SYMCACHE_SUFFIX ".");

		if (!temp && !t2f_symcache_is_name(e->d_name))
			continue;
		if (n + 1 >= cap) {
			char **w = realloc(v, (cap = cap ? 2 * cap : 64) * sizeof(*v));

			if (!w) {
				err = -ENOMEM;
				break;
			}
			v = w;
		}
		v[n] = strdup(e->d_name);
		err = v[n] ? 0 : -ENOMEM;
		n += !err;
	}
	closedir(dir);
	if (v)
		v[n] = NULL;
	if (!err && v)
		qsort(v, n, sizeof(*v), by_name);
	*out = v;
	return err;
}

static void free_names(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

int t2f_symcache_dir__each(struct t2f_symcache_dir *d, t2f_symcache_each_fn fn, void *ctx)
{
	char **v;
	int err = names_of(d, false, &v);

	for (size_t i = 0; !err && v && v[i]; i++)
		err = each_one(d, v[i], fn, ctx);
	free_names(v);
	return err;
}

int t2f_symcache_dir__clear(struct t2f_symcache_dir *d, uint64_t *removed)
{
	char **v;
	int err = names_of(d, true, &v);

	*removed = 0;
	for (size_t i = 0; !err && v && v[i]; i++) {
		if (unlinkat(d->fd, v[i], 0) == 0)
			(*removed)++;
		else if (errno != ENOENT)
			err = -errno;
	}
	free_names(v);
	return err;
}
