/* symbolizer/text_syms_cache.c: kallsyms tables kept across runs (text_syms_cache.h). */
#include "symbolizer/text_syms_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "formats/diag.h"
#include "formats/side_file.h"
#include "symbolizer/symcache_internal.h"
#include "symbolizer/text_syms_internal.h"

#define T2F_KSC_MAGIC "T2FKSYM\n"
#define T2F_KSC_VERSION 2u
#define T2F_KSC_PROC_MAGIC 0x9fa0 /* PROC_SUPER_MAGIC, statfs(2) */
#define T2F_KSC_HEAD 4096u        /* the bytes of /proc/kallsyms in the key */
#define T2F_KSC_MODULES_MAX ((size_t)16 << 20)
#define T2F_KSC_FNV_BASIS 1469598103934665603ull
#define T2F_KSC_FNV_PRIME 1099511628211ull

/* The file: this header, then (8-byte aligned) the path (path_len bytes, its NUL included),
 * the ranges (struct t2f_ts_range) and the names (n_names bytes, the last one NUL). */
struct t2f_ksc_hdr {
	char magic[8];
	uint32_t version, hdr_size;   /* T2F_KSC_VERSION, sizeof(struct t2f_ksc_hdr) */
	uint64_t file_size;
	uint32_t proc, partial;
	char boot[64];
	uint64_t modules, head, dev, ino, size;
	int64_t mtime_sec, mtime_nsec, ctime_sec, ctime_nsec;
	uint64_t n_syms;
	uint64_t path_off, path_len, ranges_off, n_ranges, names_off, n_names;
	uint64_t ref[2];              /* the table's _text and _stext (text_syms_internal.h) */
};

_Static_assert(sizeof(struct t2f_ksc_hdr) == 240, "the layout tests/cache/kcraft.c reads");

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ ((const unsigned char *)p)[i]) * T2F_KSC_FNV_PRIME;
	return h;
}

/* /proc/modules: each line's fields but the use count (the third) hashed; false when a module
 * is loading or unloading (its state, the fifth field, is not "Live"). An absent file (no
 * module support) hashes as empty. */
static bool modules_hash(uint64_t *h)
{
	char *text = NULL;
	size_t len = 0;
	int err = t2f_side_file__read("/proc/modules", T2F_KSC_MODULES_MAX, &text, &len);
	bool live = true;

	*h = T2F_KSC_FNV_BASIS;
	if (err)
		return err == -ENOENT;
	for (size_t at = 0; at < len;) {
		char *nl = memchr(text + at, '\n', len - at);
		size_t end = nl ? (size_t)(nl - text) : len;
		unsigned field = 0;

		for (size_t i = at; i < end; i++) {
			if (text[i] == ' ') {
				field++;
				if (field == 4)
					live &= end - i > 5 && memcmp(text + i + 1, "Live", 4) == 0 &&
						(text[i + 5] == ' ' || i + 5 == end);
			}
			if (field != 2 && !(field == 3 && text[i] == ' '))
				*h = fnv(*h, text + i, 1);
		}
		*h = fnv(*h, "\n", 1);
		at = end + 1;
	}
	free(text);
	return live;
}

/* The boot id without its newline ($T2F_TEST_BOOT_ID in its place, for the tests). */
static bool boot_id(char *out, size_t size)
{
	const char *test = getenv("T2F_TEST_BOOT_ID");
	char *text = NULL;
	size_t len = 0;

	if (test && *test) {
		snprintf(out, size, "%s", test);
		return true;
	}
	if (t2f_side_file__read("/proc/sys/kernel/random/boot_id", size - 1, &text, &len))
		return false;
	while (len && (text[len - 1] == '\n' || text[len - 1] == ' '))
		len--;
	memcpy(out, text, len);
	out[len] = '\0';
	free(text);
	return len > 0;
}

/* The hash of the file's first T2F_KSC_HEAD bytes (all of them when it is shorter). */
static bool head_hash(const char *path, uint64_t *h)
{
	char buf[T2F_KSC_HEAD];
	size_t n = 0;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return false;
	while (n < sizeof(buf)) {
		ssize_t got = read(fd, buf + n, sizeof(buf) - n);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	*h = fnv(T2F_KSC_FNV_BASIS, buf, n);
	return n > 0;
}

void t2f_text_syms__key(const char *path, struct t2f_text_syms_key *k)
{
	struct statfs fs;
	struct stat st;

	memset(k, 0, sizeof(*k));
	if (stat(path, &st) != 0 || statfs(path, &fs) != 0 || !S_ISREG(st.st_mode))
		return;
	k->proc = fs.f_type == T2F_KSC_PROC_MAGIC;
	if (k->proc) {
		k->keep = boot_id(k->boot, sizeof(k->boot)) && modules_hash(&k->modules) &&
			  head_hash(path, &k->head);
		return;
	}
	k->dev = (uint64_t)st.st_dev;
	k->ino = (uint64_t)st.st_ino;
	k->size = (uint64_t)st.st_size;
	k->mtime_sec = st.st_mtim.tv_sec;
	k->mtime_nsec = st.st_mtim.tv_nsec;
	k->ctime_sec = st.st_ctim.tv_sec;
	k->ctime_nsec = st.st_ctim.tv_nsec;
	k->keep = true;
}

/* The header's key fields of k (the rest zero). */
static void key_fields(const struct t2f_text_syms_key *k, struct t2f_ksc_hdr *h)
{
	memset(h, 0, sizeof(*h));
	h->proc = k->proc;
	h->partial = k->proc;
	memcpy(h->boot, k->boot, sizeof(h->boot));
	h->modules = k->modules;
	h->head = k->head;
	h->dev = k->dev;
	h->ino = k->ino;
	h->size = k->size;
	h->mtime_sec = k->mtime_sec;
	h->mtime_nsec = k->mtime_nsec;
	h->ctime_sec = k->ctime_sec;
	h->ctime_nsec = k->ctime_nsec;
}

static bool same_key(const struct t2f_ksc_hdr *h, const struct t2f_text_syms_key *k)
{
	struct t2f_ksc_hdr want;

	key_fields(k, &want);
	return h->proc == want.proc && h->partial == want.partial &&
	       memcmp(h->boot, want.boot, sizeof(want.boot)) == 0 && h->modules == want.modules &&
	       h->head == want.head && h->dev == want.dev && h->ino == want.ino &&
	       h->size == want.size && h->mtime_sec == want.mtime_sec &&
	       h->mtime_nsec == want.mtime_nsec && h->ctime_sec == want.ctime_sec &&
	       h->ctime_nsec == want.ctime_nsec;
}

/* "kallsyms-HASH.t2fsym" of path. */
static void file_name(const char *path, char out[64])
{
	snprintf(out, 64, T2F_KSC_PREFIX "%016" PRIx64 "%s",
		 fnv(T2F_KSC_FNV_BASIS, path, strlen(path)), T2F_SYMCACHE_SUFFIX);
}

/* ---- a file checked and mapped ---- */

static bool sec_ok(uint64_t off, uint64_t count, size_t elem, size_t size)
{
	uint64_t bytes;

	return off % 8 == 0 && off >= sizeof(struct t2f_ksc_hdr) && off <= size &&
	       !__builtin_mul_overflow(count, (uint64_t)elem, &bytes) && bytes <= size - off;
}

/* The structure of the mapped file p[0..size): NULL, or what is wrong. */
static const char *check_map(const uint8_t *p, size_t size)
{
	const struct t2f_ksc_hdr *h = (const void *)p;
	const struct t2f_ts_range *r;
	const char *names, *path;

	if (size < sizeof(*h) || memcmp(h->magic, T2F_KSC_MAGIC, 8) != 0)
		return "not a cache file (magic)";
	if (h->version != T2F_KSC_VERSION || h->hdr_size != sizeof(*h))
		return "another format version";
	if (h->file_size != size)
		return "its size is not the one its header states (truncated?)";
	if (h->proc > 1 || h->partial > 1 || h->boot[sizeof(h->boot) - 1] != '\0' ||
	    h->n_syms > h->n_ranges)
		return "a broken header";
	if (!sec_ok(h->path_off, h->path_len, 1, size) ||
	    !sec_ok(h->ranges_off, h->n_ranges, sizeof(*r), size) ||
	    !sec_ok(h->names_off, h->n_names, 1, size) || h->n_names > UINT32_MAX)
		return "a section out of bounds";
	path = (const char *)p + h->path_off;
	names = (const char *)p + h->names_off;
	if (!h->path_len || path[h->path_len - 1] != '\0' || strlen(path) != h->path_len - 1 ||
	    !h->n_names || names[h->n_names - 1] != '\0')
		return "its strings are not terminated";
	r = (const void *)(p + h->ranges_off);
	for (uint64_t i = 0; i < h->n_ranges; i++)
		if (r[i].lo >= r[i].hi || r[i].start > r[i].lo || (i && r[i].lo < r[i - 1].hi) ||
		    r[i].name >= h->n_names ||
		    (r[i].module != T2F_TS_NONE && r[i].module >= h->n_names))
			return "an offset out of bounds (or ranges out of order)";
	return NULL;
}

/* fd (a file of the directory) mapped and checked: NULL and *map, *size; or why not (*err
 * -ENOMEM when that is why). */
static const char *map_fd(int fd, void **map, size_t *size, int *err)
{
	const char *why = t2f_symcache_map_fd(fd, sizeof(struct t2f_ksc_hdr), map, size, err);

	if (why)
		return why;
	why = check_map(*map, *size);
	if (why) {
		munmap(*map, *size);
		*map = NULL;
	}
	return why;
}

int t2f_text_syms__cache_check_fd(int fd, char **path, const char **why)
{
	const struct t2f_ksc_hdr *h;
	size_t size = 0;
	void *map;
	int err;

	*path = NULL;
	*why = map_fd(fd, &map, &size, &err);
	if (*why)
		return err ? err : -T2F_ERR_FORMAT;
	h = map;
	*path = strdup((const char *)map + h->path_off);
	munmap(map, size);
	return *path ? 0 : -ENOMEM;
}

int t2f_text_syms__cache_get(struct t2f_symcache_dir *d, const char *path,
			     const struct t2f_text_syms_key *k, struct t2f_text_syms **out,
			     bool *bad, const char **why)
{
	const struct t2f_ksc_hdr *h;
	struct t2f_text_syms *t;
	char name[64];
	size_t size = 0;
	void *map;
	int fd, err;

	*out = NULL;
	*bad = false;
	if (!k->keep)
		return 0;
	file_name(path, name);
	fd = openat(d->fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		*bad = errno != ENOENT;
		*why = errno == ELOOP ? "a symlink" : "it cannot be opened";
		return 0;
	}
	*why = map_fd(fd, &map, &size, &err);
	if (*why) {
		close(fd);
		*bad = !err;
		return err;
	}
	h = map;
	if (strcmp((const char *)map + h->path_off, path) != 0 || !same_key(h, k)) {
		close(fd);
		munmap(map, size);
		return 0;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		close(fd);
		munmap(map, size);
		return -ENOMEM;
	}
	(void)futimens(fd, NULL); /* its last use, for the eviction */
	close(fd);
	t->map = map;
	t->map_len = size;
	t->names = (char *)map + h->names_off;
	t->ranges = (struct t2f_ts_range *)(void *)((char *)map + h->ranges_off);
	t->n_ranges = (size_t)h->n_ranges;
	t->n_syms = (size_t)h->n_syms;
	t->partial = h->partial;
	memcpy(t->ref, h->ref, sizeof(t->ref));
	t->bytes = size;
	atomic_init(&t->refs, 1);
	*out = t;
	return 0;
}

bool t2f_text_syms__cache_has(struct t2f_symcache_dir *d, const char *path,
			      const struct t2f_text_syms_key *k)
{
	struct t2f_ksc_hdr h;
	char name[64], *got;
	size_t len = strlen(path) + 1;
	bool has = false;
	struct stat st;
	int fd;

	if (!k->keep)
		return false;
	file_name(path, name);
	fd = openat(d->fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	got = malloc(len);
	if (got && !fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
	    !(st.st_mode & (S_IWGRP | S_IWOTH)) && pread(fd, &h, sizeof(h), 0) == sizeof(h) &&
	    memcmp(h.magic, T2F_KSC_MAGIC, 8) == 0 && h.version == T2F_KSC_VERSION &&
	    h.hdr_size == sizeof(h) && h.file_size == (uint64_t)st.st_size && same_key(&h, k) &&
	    h.path_len == len && pread(fd, got, len, (off_t)h.path_off) == (ssize_t)len)
		has = memcmp(got, path, len) == 0;
	free(got);
	close(fd);
	return has;
}

/* ---- writing one ---- */

/* Whether module (a [MODULE] name of /proc/kallsyms) is a module of /proc/modules' text. */
static bool listed(const char *text, size_t len, const char *module)
{
	size_t ml = strlen(module);

	for (size_t at = 0; at < len;) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t end = nl ? (size_t)(nl - text) : len;

		if (end - at > ml && memcmp(text + at, module, ml) == 0 && text[at + ml] == ' ')
			return true;
		at = end + 1;
	}
	return false;
}

/* Which ranges of t a /proc/kallsyms file keeps (text_syms_cache.h): keep[i]. 0 or -errno. */
static int stable_ranges(const struct t2f_text_syms *t, bool *keep)
{
	char *text = NULL;
	size_t len = 0;
	uint32_t last = T2F_TS_NONE - 1;
	bool last_ok = false, *ok;
	int err = t2f_side_file__read("/proc/modules", T2F_KSC_MODULES_MAX, &text, &len);

	if (err && err != -ENOENT)
		return err;
	ok = calloc(t->n_ranges + 1, sizeof(*ok));
	if (!ok) {
		free(text);
		return -ENOMEM;
	}
	for (size_t i = 0; i < t->n_ranges; i++) { /* the kernel's, or a listed module's */
		uint32_t m = t->ranges[i].module;

		if (m != last)
			last_ok = m == T2F_TS_NONE || (text && listed(text, len, t->names + m));
		last = m;
		ok[i] = last_ok;
	}
	for (size_t i = 0; i < t->n_ranges; i++) { /* ending where the same one's next starts */
		const struct t2f_ts_range *r = &t->ranges[i], *n = r + 1;

		keep[i] = ok[i] && i + 1 < t->n_ranges && ok[i + 1] && n->lo == r->hi &&
			  (r->module == T2F_TS_NONE || n->module == T2F_TS_NONE
				   ? r->module == n->module
				   : strcmp(t->names + r->module, t->names + n->module) == 0);
	}
	free(ok);
	free(text);
	return 0;
}

int t2f_text_syms__keep_stable(struct t2f_text_syms *t)
{
	bool *keep = calloc(t->n_ranges + 1, sizeof(*keep));
	size_t n = 0;
	int err = keep && !t->map ? stable_ranges(t, keep) : -ENOMEM;

	for (size_t i = 0; !err && i < t->n_ranges; i++)
		if (keep[i])
			t->ranges[n++] = t->ranges[i];
	if (!err) {
		t->bytes -= (t->n_ranges - n) * sizeof(*t->ranges);
		t->n_ranges = t->n_syms = n;
		t->partial = true;
	}
	free(keep);
	return err;
}

static size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* The file's bytes into fd: h (its key set), the path, the ranges kept, the names. */
static int write_file(int fd, struct t2f_ksc_hdr *h, const char *path,
		      const struct t2f_text_syms *t, const bool *keep)
{
	static const uint8_t zero[8];
	size_t n = 0, names_len = t->bytes - t->n_ranges * sizeof(*t->ranges);
	struct t2f_ts_range *kept = keep ? malloc(t->n_ranges * sizeof(*kept)) : NULL;
	int err = 0;

	if (keep && !kept)
		return -ENOMEM;
	for (size_t i = 0; i < t->n_ranges; i++) { /* the ranges kept, copied to write at once */
		if (keep && keep[i])
			kept[n] = t->ranges[i];
		n += !keep || keep[i];
	}
	memcpy(h->magic, T2F_KSC_MAGIC, 8);
	h->version = T2F_KSC_VERSION;
	h->hdr_size = sizeof(*h);
	h->n_syms = keep ? n : t->n_syms;
	memcpy(h->ref, t->ref, sizeof(h->ref));
	h->path_off = sizeof(*h);
	h->path_len = strlen(path) + 1;
	h->ranges_off = align8(h->path_off + h->path_len);
	h->n_ranges = n;
	h->names_off = h->ranges_off + n * sizeof(*t->ranges);
	h->n_names = names_len;
	h->file_size = h->names_off + names_len;
	err = t2f_symcache_put_all(fd, h, sizeof(*h)) ?:
	      t2f_symcache_put_all(fd, path, h->path_len) ?:
	      t2f_symcache_put_all(fd, zero, h->ranges_off - h->path_off - h->path_len) ?:
	      t2f_symcache_put_all(fd, kept ? kept : t->ranges, n * sizeof(*t->ranges)) ?:
	      t2f_symcache_put_all(fd, t->names, names_len);
	free(kept);
	return err;
}

struct file_put {                  /* write_file's arguments, for t2f_symcache_dir_put */
	struct t2f_ksc_hdr *h;
	const char *path;
	const struct t2f_text_syms *t;
	const bool *keep;
};

static int fill(int fd, void *arg)
{
	struct file_put *a = arg;

	return write_file(fd, a->h, a->path, a->t, a->keep);
}

int t2f_text_syms__cache_put(struct t2f_symcache_dir *d, const char *path,
			     const struct t2f_text_syms_key *k, const struct t2f_text_syms *t)
{
	struct t2f_text_syms_key now;
	struct t2f_ksc_hdr h;
	char name[64];
	bool *keep = NULL;
	int err = 0;

	if (!k->keep || t->bad_lines || t->map || !t->n_ranges ||
	    t->bytes <= t->n_ranges * sizeof(*t->ranges))
		return 0;
	t2f_text_syms__key(path, &now);
	key_fields(k, &h);
	if (!now.keep || !same_key(&h, &now))
		return 0; /* the file changed while it was read */
	if (k->proc && !t->partial) { /* a partial table holds only such ranges already */
		keep = calloc(t->n_ranges + 1, sizeof(*keep));
		err = keep ? stable_ranges(t, keep) : -ENOMEM;
	}
	file_name(path, name);
	if (!err) {
		struct file_put a = { &h, path, t, keep };

		err = t2f_symcache_dir_put(d, name, fill, &a);
		d->st.written += !err;
	}
	free(keep);
	return err;
}
