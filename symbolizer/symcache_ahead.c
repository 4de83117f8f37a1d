/* symbolizer/symcache_ahead.c: symbol cache files opened ahead on a thread (symcache_ahead.h). */
#include "symbolizer/symcache_ahead.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbolizer/symcache_internal.h"

struct ahead_file {
	uint8_t id[T2F_BUILD_ID_MAX];
	size_t len;
	bool taken;
	struct t2f_symcache_try t;
};

struct t2f_symcache_ahead {
	char *dir;                   /* NULL: the default */
	struct ahead_file *files;
	size_t n;
	bool opened;                 /* the directory could be opened: dev, ino */
	dev_t dev;
	ino_t ino;
	pthread_t th;
	bool joined;
};

static void *ahead_main(void *arg)
{
	struct t2f_symcache_ahead *a = arg;
	struct t2f_symcache_dir *d = NULL;
	const char *why;

	if (t2f_symcache_dir__open(a->dir, 0, false, &d, &why) || !d)
		return NULL;
	a->opened = true;
	a->dev = d->dev;
	a->ino = d->ino;
	for (size_t i = 0; i < a->n; i++)
		t2f_symcache_try(d->fd, a->files[i].id, a->files[i].len, &a->files[i].t);
	t2f_symcache_dir__free(d);
	return NULL;
}

int t2f_symcache_ahead__start(const char *dir, const uint8_t *const *ids, const size_t *lens,
			      size_t n, struct t2f_symcache_ahead **out)
{
	struct t2f_symcache_ahead *a = calloc(1, sizeof(*a));
	int err;

	*out = NULL;
	if (!a || !(a->files = calloc(n ? n : 1, sizeof(*a->files))) ||
	    (dir && !(a->dir = strdup(dir)))) {
		t2f_symcache_ahead__free(a);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		if (!lens[i] || lens[i] > T2F_BUILD_ID_MAX)
			continue;
		memcpy(a->files[a->n].id, ids[i], lens[i]);
		a->files[a->n].len = lens[i];
		a->n++;
	}
	a->joined = true; /* no thread yet */
	if (!a->n) {
		t2f_symcache_ahead__free(a);
		return 0;
	}
	err = pthread_create(&a->th, NULL, ahead_main, a);
	if (err) {
		t2f_symcache_ahead__free(a);
		return -err;
	}
	a->joined = false;
	*out = a;
	return 0;
}

bool t2f_symcache_ahead_take(struct t2f_symcache_ahead *a, const struct t2f_symcache_dir *d,
			     const uint8_t *id, size_t len, struct t2f_symcache_try *t)
{
	if (!a)
		return false;
	if (!a->joined)
		pthread_join(a->th, NULL);
	a->joined = true;
	if (!a->opened || a->dev != d->dev || a->ino != d->ino)
		return false;
	for (size_t i = 0; i < a->n; i++) {
		struct ahead_file *f = &a->files[i];

		if (f->taken || f->len != len || memcmp(f->id, id, len) != 0)
			continue;
		f->taken = true;
		*t = f->t;
		f->t = (struct t2f_symcache_try){ .opened = false };
		return true;
	}
	return false;
}

void t2f_symcache_ahead__free(struct t2f_symcache_ahead *a)
{
	if (!a)
		return;
	if (!a->joined)
		pthread_join(a->th, NULL);
	for (size_t i = 0; a->files && i < a->n; i++)
		t2f_symcache_try_drop(&a->files[i].t);
	free(a->files);
	free(a->dir);
	free(a);
}
