/* symbolizer/text_syms_share.c: the process's kallsyms tables, by file identity
 * (text_syms_share.h). */
#include "symbolizer/text_syms_share.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>

#include "formats/side_file.h"

#define T2F_TS_SHARE_CAP 16u
#define T2F_TS_PROC_MAGIC 0x9fa0 /* PROC_SUPER_MAGIC, statfs(2) */
#define T2F_TS_MODULES_MAX ((size_t)16 << 20)

/* What a table was read from. */
struct t2f_ts_key {
	dev_t dev;
	ino_t ino;
	bool proc;
	off_t size;                  /* a regular file: */
	struct timespec mtime, ctime;
	char boot[64];               /* procfs: the boot id and the modules' hash */
	uint64_t modules;
};

struct t2f_ts_shared {
	char *path;                  /* NULL: a free slot */
	struct t2f_ts_key key;
	struct t2f_text_syms *t;     /* the share's own hold */
	uint64_t used;               /* the tick of its last use */
	struct timespec read_at;     /* CLOCK_MONOTONIC */
};

static pthread_mutex_t t2f_ts_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t t2f_ts_once = PTHREAD_ONCE_INIT;
static struct t2f_ts_shared t2f_ts_tables[T2F_TS_SHARE_CAP];
static unsigned t2f_ts_max = T2F_TEXT_SYMS_SHARE_MAX;
static uint64_t t2f_ts_tick;

static void t2f_ts_lock_fork(void)
{
	pthread_mutex_lock(&t2f_ts_lock);
}

static void t2f_ts_unlock_fork(void)
{
	pthread_mutex_unlock(&t2f_ts_lock);
}

/* A fork while another thread reads a table (a batch's workers forked from a process that
 * converts) waits for the read, so the child's lock is never held by a thread it lacks. */
static void t2f_ts_init(void)
{
	pthread_atfork(t2f_ts_lock_fork, t2f_ts_unlock_fork, t2f_ts_unlock_fork);
}

static void t2f_ts_enter(void)
{
	pthread_once(&t2f_ts_once, t2f_ts_init);
	pthread_mutex_lock(&t2f_ts_lock);
}

/* FNV-1a over /proc/modules, each line without its third field (the use count, which changes
 * while a module is merely used). An absent file (no module support) hashes as empty. */
static int t2f_ts_modules_hash(uint64_t *h)
{
	char *text = NULL;
	size_t len = 0;
	int err = t2f_side_file__read("/proc/modules", T2F_TS_MODULES_MAX, &text, &len);
	unsigned field = 0;

	*h = 1469598103934665603ull;
	if (err)
		return err == -ENOENT ? 0 : err;
	for (size_t i = 0; i < len; i++) {
		char c = text[i];

		if (c == '\n')
			field = 0;
		else if (c == ' ')
			field++;
		if (field == 2 || (field == 3 && c == ' '))
			continue;
		*h = (*h ^ (unsigned char)c) * 1099511628211ull;
	}
	free(text);
	return 0;
}

/* The boot id, without its newline. */
static int t2f_ts_boot_id(char *out, size_t size)
{
	char *text = NULL;
	size_t len = 0;
	int err = t2f_side_file__read("/proc/sys/kernel/random/boot_id", size - 1, &text, &len);

	if (err)
		return err;
	while (len && (text[len - 1] == '\n' || text[len - 1] == ' '))
		len--;
	memcpy(out, text, len);
	out[len] = '\0';
	free(text);
	return len ? 0 : -ENOENT;
}

static int t2f_ts_key_of(const char *path, struct t2f_ts_key *k)
{
	struct statfs fs;
	struct stat st;

	memset(k, 0, sizeof(*k));
	if (stat(path, &st) != 0 || statfs(path, &fs) != 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -T2F_ERR_NOT_FILE;
	k->dev = st.st_dev;
	k->ino = st.st_ino;
	k->proc = fs.f_type == T2F_TS_PROC_MAGIC;
	if (k->proc)
		return t2f_ts_boot_id(k->boot, sizeof(k->boot)) ?: t2f_ts_modules_hash(&k->modules);
	k->size = st.st_size;
	k->mtime = st.st_mtim;
	k->ctime = st.st_ctim;
	return 0;
}

static bool t2f_ts_key_eq(const struct t2f_ts_key *a, const struct t2f_ts_key *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->proc == b->proc && a->size == b->size &&
	       a->mtime.tv_sec == b->mtime.tv_sec && a->mtime.tv_nsec == b->mtime.tv_nsec &&
	       a->ctime.tv_sec == b->ctime.tv_sec && a->ctime.tv_nsec == b->ctime.tv_nsec &&
	       strcmp(a->boot, b->boot) == 0 && a->modules == b->modules;
}

static void t2f_ts_drop(struct t2f_ts_shared *e)
{
	free(e->path);
	t2f_text_syms__free(e->t);
	memset(e, 0, sizeof(*e));
}

/* The table read from path as k says, or NULL; a /proc one read too long ago is let go. Under
 * the lock. */
static struct t2f_ts_shared *t2f_ts_find(const char *path, const struct t2f_ts_key *k)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	for (unsigned i = 0; i < T2F_TS_SHARE_CAP; i++) {
		struct t2f_ts_shared *e = &t2f_ts_tables[i];

		if (!e->path || strcmp(e->path, path) != 0 || !t2f_ts_key_eq(&e->key, k))
			continue;
		if (k->proc && now.tv_sec - e->read_at.tv_sec > T2F_TEXT_SYMS_SHARE_PROC_AGE) {
			t2f_ts_drop(e);
			return NULL;
		}
		e->used = ++t2f_ts_tick;
		return e;
	}
	return NULL;
}

/* Lets the least recently used tables go while more than max, or more than the bytes, are
 * kept. Under the lock. */
static void t2f_ts_trim(unsigned max)
{
	for (;;) {
		struct t2f_ts_shared *lru = NULL;
		size_t bytes = 0;
		unsigned n = 0;

		for (unsigned i = 0; i < T2F_TS_SHARE_CAP; i++) {
			struct t2f_ts_shared *e = &t2f_ts_tables[i];

			if (!e->path)
				continue;
			n++;
			bytes += t2f_text_syms__bytes(e->t);
			if (!lru || e->used < lru->used)
				lru = e;
		}
		if (n <= max && bytes <= T2F_TEXT_SYMS_SHARE_BYTES)
			return;
		t2f_ts_drop(lru);
	}
}

/* Keeps t (a new hold) as the table of path and k, when the bounds allow. Under the lock. */
static void t2f_ts_keep(const char *path, const struct t2f_ts_key *k, struct t2f_text_syms *t)
{
	struct t2f_ts_shared *slot = NULL;

	if (t2f_ts_max == 0 || t2f_text_syms__bytes(t) > T2F_TEXT_SYMS_SHARE_BYTES)
		return;
	for (unsigned i = 0; i < T2F_TS_SHARE_CAP; i++) {
		struct t2f_ts_shared *e = &t2f_ts_tables[i];

		if (e->path && strcmp(e->path, path) == 0) /* an older read of the file */
			t2f_ts_drop(e);
	}
	t2f_ts_trim(t2f_ts_max - 1);
	for (unsigned i = 0; i < T2F_TS_SHARE_CAP && !slot; i++)
		if (!t2f_ts_tables[i].path)
			slot = &t2f_ts_tables[i];
	if (!slot)
		return;
	slot->path = strdup(path);
	if (!slot->path)
		return;
	slot->key = *k;
	slot->t = t2f_text_syms__ref(t);
	slot->used = ++t2f_ts_tick;
	clock_gettime(CLOCK_MONOTONIC, &slot->read_at);
	t2f_ts_trim(t2f_ts_max);
}

int t2f_text_syms__shared(const char *path, bool whole, t2f_text_syms_read_fn read, void *ctx,
			  struct t2f_text_syms **out, bool *shared)
{
	struct t2f_ts_shared *e;
	struct t2f_ts_key k;
	int err;

	*out = NULL;
	*shared = false;
	if (t2f_ts_key_of(path, &k) != 0)
		return read(ctx, path, out);
	t2f_ts_enter();
	e = t2f_ts_find(path, &k);
	if (e && !(whole && t2f_text_syms__partial(e->t))) {
		*out = t2f_text_syms__ref(e->t);
		*shared = true;
		pthread_mutex_unlock(&t2f_ts_lock);
		return 0;
	}
	err = read(ctx, path, out);
	if (!err && t2f_text_syms__bad_lines(*out) == 0)
		t2f_ts_keep(path, &k, *out); /* in place of a partial one read before */
	pthread_mutex_unlock(&t2f_ts_lock);
	return err;
}

bool t2f_text_syms__share_has(const char *path)
{
	struct t2f_ts_key k;
	bool has;

	if (t2f_ts_key_of(path, &k) != 0)
		return false;
	t2f_ts_enter();
	has = t2f_ts_find(path, &k) != NULL;
	pthread_mutex_unlock(&t2f_ts_lock);
	return has;
}

void t2f_text_syms__share_limit(unsigned max)
{
	t2f_ts_enter();
	t2f_ts_max = max < T2F_TS_SHARE_CAP ? max : T2F_TS_SHARE_CAP;
	t2f_ts_trim(t2f_ts_max);
	pthread_mutex_unlock(&t2f_ts_lock);
}
