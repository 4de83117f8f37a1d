/* symbolizer/symcache.c: the cache directory, and a cache file opened, checked and read
 * (symcache.h; the layout: symcache_fmt.h). */
#include "symbolizer/symcache.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/diag.h"
#include "formats/hashmap.h"
#include "symbolizer/debug_find.h"
#include "symbolizer/symcache_fmt.h"
#include "symbolizer/symcache_internal.h"

/* ---- the directory ---- */

static char *join(const char *a, const char *b)
{
	char *p = NULL;

	return asprintf(&p, "%s/%s", a, b) < 0 ? NULL : p;
}

char *t2f_symcache_default_dir(void)
{
	const char *env = getenv("T2F_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");

	if (env && *env)
		return strdup(env);
	if (xdg && xdg[0] == '/')
		return join(xdg, "trace2flame");
	if (!home || home[0] != '/')
		return NULL;
	return join(home, ".cache/trace2flame");
}

/* "512M", "1G", "1048576": bytes; 0 when it does not parse. */
static uint64_t parse_size(const char *s)
{
	char *end;
	unsigned long long v;
	unsigned shift = 0;

	if (!s || !*s)
		return 0;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return 0;
	switch (*end) {
	case 'K': case 'k': shift = 10; end++; break;
	case 'M': case 'm': shift = 20; end++; break;
	case 'G': case 'g': shift = 30; end++; break;
	default: break;
	}
	if (*end || v > (UINT64_MAX >> shift))
		return 0;
	return (uint64_t)v << shift;
}

/* Makes dir (and its parent when it is missing), 0700. */
static void make_dir(const char *dir)
{
	char parent[PATH_MAX];
	char *slash;

	if (mkdir(dir, 0700) == 0 || errno != ENOENT || strlen(dir) >= sizeof(parent))
		return;
	strcpy(parent, dir);
	slash = strrchr(parent, '/');
	if (!slash || slash == parent)
		return;
	*slash = '\0';
	if (mkdir(parent, 0700) == 0 || errno == EEXIST)
		(void)mkdir(dir, 0700);
}

int t2f_symcache_dir__open(const char *dir, uint64_t max, bool create,
			   struct t2f_symcache_dir **out, const char **why)
{
	struct t2f_symcache_dir *d;
	struct stat st, fst;
	char *path = dir ? strdup(dir) : t2f_symcache_default_dir();
	int fd;

	*out = NULL;
	*why = "no cache directory (neither HOME nor XDG_CACHE_HOME is set)";
	if (!path)
		return dir || getenv("HOME") ? -ENOMEM : 0;
	if (create)
		make_dir(path);
	*why = "it is not a directory (or is a symlink)";
	if (lstat(path, &st)) {
		if (errno != ENOENT || create)
			goto refuse;
		free(path);
		*why = "it does not exist";
		return -ENOENT;
	}
	if (!S_ISDIR(st.st_mode))
		goto refuse;
	*why = "it is not owned by the user";
	if (st.st_uid != geteuid())
		goto refuse;
	*why = "it is writable by the group or others";
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		goto refuse;
	*why = "it cannot be opened";
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		goto refuse;
	if (fstat(fd, &fst) || fst.st_dev != st.st_dev || fst.st_ino != st.st_ino) {
		close(fd);
		goto refuse;
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		close(fd);
		free(path);
		return -ENOMEM;
	}
	d->fd = fd;
	d->dev = fst.st_dev;
	d->ino = fst.st_ino;
	d->path = path;
	d->max = max ? max : parse_size(getenv("T2F_CACHE_MAX"));
	if (!d->max)
		d->max = T2F_SYMCACHE_MAX_DEFAULT;
	*out = d;
	return 0;
refuse:
	free(path);
	return 0;
}

void t2f_symcache_dir__free(struct t2f_symcache_dir *d)
{
	if (!d)
		return;
	close(d->fd);
	free(d->path);
	free(d);
}

const char *t2f_symcache_dir__path(const struct t2f_symcache_dir *d)
{
	return d->path;
}

struct t2f_symcache_stats *t2f_symcache_dir__stats(struct t2f_symcache_dir *d)
{
	return &d->st;
}

bool t2f_symcache_dir__warn_once(struct t2f_symcache_dir *d)
{
	bool first = !d->warned;

	d->warned = true;
	return first;
}

void t2f_symcache_name(const uint8_t *id, size_t len, char *out)
{
	t2f_build_id_hex(id, len, out);
	strcat(out, T2F_SYMCACHE_SUFFIX);
}

/* ---- one file: checked at open ---- */

static bool sec_ok(const struct t2f_symcache *c, int i, size_t elem)
{
	const struct t2f_sc_section *s = &c->h->sec[i];
	uint64_t bytes;

	return s->off % 8 == 0 && s->off >= sizeof(*c->h) && s->off <= c->size &&
	       !__builtin_mul_overflow(s->count, (uint64_t)elem, &bytes) &&
	       bytes <= c->size - s->off;
}

static bool str_ok(const struct t2f_symcache *c, uint32_t off, bool none_ok)
{
	return off < c->n_str || (none_ok && off == T2F_SYMCACHE_NONE);
}

const char *t2f_symcache_str(const struct t2f_symcache *c, uint32_t off)
{
	return off == T2F_SYMCACHE_NONE ? NULL : c->str + off;
}

/* Every offset and index of the arrays in bounds. */
static bool arrays_ok(const struct t2f_symcache *c)
{
	const struct t2f_symcache_hdr *h = c->h;
	const struct t2f_sc_refused *rf = T2F_SC_SEC(c, T2F_SC_REFUSED, struct t2f_sc_refused);
	const struct t2f_sc_sym *sy = T2F_SC_SEC(c, T2F_SC_SYMS, struct t2f_sc_sym);
	const struct t2f_sc_a2l *a = T2F_SC_SEC(c, T2F_SC_A2L, struct t2f_sc_a2l);
	const struct t2f_sc_inl *in = T2F_SC_SEC(c, T2F_SC_INL, struct t2f_sc_inl);
	const struct t2f_sc_frame *fr = T2F_SC_SEC(c, T2F_SC_FRAMES, struct t2f_sc_frame);

	for (uint64_t i = 0; i < h->sec[T2F_SC_REFUSED].count; i++)
		if (!str_ok(c, rf[i].path, false) || !str_ok(c, rf[i].found_id, false))
			return false;
	for (uint64_t i = 0; i < h->sec[T2F_SC_SYMS].count; i++)
		if (!str_ok(c, sy[i].name, true) || sy[i].miss > 63 || sy[i].last < sy[i].vaddr ||
		    (i && sy[i].vaddr <= sy[i - 1].last))
			return false;
	for (uint64_t i = 0; i < h->sec[T2F_SC_A2L].count; i++)
		if (!str_ok(c, a[i].name, true))
			return false;
	for (uint64_t i = 0; i < h->sec[T2F_SC_INL].count; i++)
		if (in[i].n > T2F_DWARF_MAX_DEPTH || in[i].first > h->sec[T2F_SC_FRAMES].count ||
		    in[i].n > h->sec[T2F_SC_FRAMES].count - in[i].first ||
		    in[i].last < in[i].vaddr || (i && in[i].vaddr <= in[i - 1].last))
			return false;
	for (uint64_t i = 0; i < h->sec[T2F_SC_FRAMES].count; i++)
		if (!str_ok(c, fr[i].name, true) || !str_ok(c, fr[i].file, true) ||
		    !str_ok(c, fr[i].fn_file, true))
			return false;
	return true;
}

/* The structure of the mapped file: magic, version, sizes, sections, offsets. */
static const char *check_map(struct t2f_symcache *c)
{
	static const size_t elem[T2F_SC_N] = {
		1, sizeof(struct t2f_sc_load), sizeof(struct t2f_sc_refused),
		sizeof(struct t2f_sc_sym), sizeof(struct t2f_sc_a2l), sizeof(struct t2f_sc_inl),
		sizeof(struct t2f_sc_frame),
	};
	const struct t2f_symcache_hdr *h = c->h;

	if (c->size < sizeof(*h) || memcmp(h->magic, T2F_SYMCACHE_MAGIC, 8) != 0)
		return "not a cache file (magic)";
	if (h->version != T2F_SYMCACHE_VERSION || h->hdr_size != sizeof(*h))
		return "another format version";
	if (h->file_size != c->size)
		return "its size is not the one its header states (truncated?)";
	if (h->build_id_len > sizeof(h->build_id) || h->dwarf > T2F_SYMCACHE_DW_YES)
		return "a broken header";
	for (int i = 0; i < T2F_SC_N; i++)
		if (!sec_ok(c, i, elem[i]))
			return "a section out of bounds";
	c->str = T2F_SC_SEC(c, T2F_SC_STRINGS, char);
	c->n_str = h->sec[T2F_SC_STRINGS].count;
	if (!c->n_str || c->str[c->n_str - 1] != '\0')
		return "its strings are not terminated";
	if (!str_ok(c, h->module_path, false) || !str_ok(c, h->file_path, false) ||
	    !str_ok(c, h->binary_path, true) || !arrays_ok(c))
		return "an offset out of bounds (or ranges out of order)";
	return NULL;
}

const char *t2f_symcache_map_fd(int fd, size_t min, void **map, size_t *size, int *err)
{
	struct stat st;

	*err = 0;
	*map = NULL;
	if (fstat(fd, &st))
		return "it cannot be read";
	if (!S_ISREG(st.st_mode))
		return "not a regular file";
	if (st.st_uid != geteuid())
		return "not owned by the user";
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return "writable by the group or others";
	if ((uint64_t)st.st_size < min)
		return "truncated";
	*size = (size_t)st.st_size;
	*map = mmap(NULL, *size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (*map == MAP_FAILED) {
		*map = NULL;
		*err = errno == ENOMEM ? -ENOMEM : 0;
		return "it cannot be mapped";
	}
	return NULL;
}

/* The descriptor of a trusted regular file: a mapping checked by check_map. */
static const char *map_fd(int fd, struct t2f_symcache *c, int *err)
{
	void *p;
	const char *why = t2f_symcache_map_fd(fd, sizeof(struct t2f_symcache_hdr), &p, &c->size,
					      err);

	if (why)
		return why;
	c->base = p;
	c->h = p;
	return check_map(c);
}

static void unmap(struct t2f_symcache *c)
{
	if (c->base)
		munmap((void *)c->base, c->size);
	c->base = NULL;
}

int t2f_symcache__check_fd(int fd, char *id_hex, char **module, const char **why)
{
	struct t2f_symcache c = { 0 };
	int err;

	*why = map_fd(fd, &c, &err);
	if (*why) {
		unmap(&c);
		return err ? err : -T2F_ERR_FORMAT;
	}
	t2f_build_id_hex(c.h->build_id, c.h->build_id_len, id_hex);
	*module = strdup(c.str + c.h->module_path);
	unmap(&c);
	return *module ? 0 : -ENOMEM;
}

/* A path's stat, taken once per path (a module's path is most often the file its symbols
 * came from, and its binary too). */
struct path_stat {
	const char *path;
	bool there;
	struct stat st;
};

/* Whether path is as the writer saw it: the same size and mtime, or not there (NULL, or no
 * stat: all zero, as symcache_write.c's stat_of records it) both times. A module whose recorded
 * path is gone (a rebuilt tree, a deleted binary) is named from other files: still the same.
 * The stat goes to ps[i]; one of an earlier path of ps[0..i) is taken again. */
static bool same_stat(const char *path, const struct t2f_sc_stat *want, struct path_stat *ps,
		      int i)
{
	int k = 0;

	while (k < i && !(path && ps[k].path && strcmp(ps[k].path, path) == 0))
		k++;
	if (k < i) {
		ps[i] = ps[k];
	} else {
		ps[i].path = path;
		ps[i].there = path && stat(path, &ps[i].st) == 0;
	}
	ps = &ps[i];
	if (!ps->there)
		return want->size == 0 && want->mtime_sec == 0 && want->mtime_nsec == 0;
	return (uint64_t)ps->st.st_size == want->size && ps->st.st_mtim.tv_sec == want->mtime_sec &&
	       ps->st.st_mtim.tv_nsec == want->mtime_nsec;
}

/* Whether the file was made for id, by the same options, from files not changed since, and
 * holds lines unless id goes without them. */
static bool same_ident(const struct t2f_symcache *c, const struct t2f_symcache_ident *id)
{
	const struct t2f_symcache_hdr *h = c->h;
	struct path_stat ps[3];

	return !!(h->flags & T2F_SC_PERF_RULES) == id->perf_rules &&
	       (id->no_lines || !(h->flags & T2F_SC_NO_LINES)) && h->opts_hash == id->opts_hash &&
	       strcmp(c->str + h->module_path, id->module_path) == 0 &&
	       same_stat(id->module_path, &h->module_st, ps, 0) &&
	       same_stat(c->str + h->file_path, &h->file_st, ps, 1) &&
	       same_stat(t2f_symcache_str(c, h->binary_path), &h->binary_st, ps, 2);
}

bool t2f_symcache_dir__has(const struct t2f_symcache_dir *d, const uint8_t *id, size_t len)
{
	char name[2 * T2F_BUILD_ID_MAX + sizeof(T2F_SYMCACHE_SUFFIX)];
	struct stat st;

	if (!len || len > T2F_BUILD_ID_MAX)
		return false;
	t2f_symcache_name(id, len, name);
	return fstatat(d->fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* c's top index (struct t2f_symcache): without memory for it, none. */
static void index_syms(struct t2f_symcache *c)
{
	const struct t2f_sc_sym *sy = T2F_SC_SEC(c, T2F_SC_SYMS, struct t2f_sc_sym);
	uint64_t n = c->h->sec[T2F_SC_SYMS].count, k = (n + T2F_SC_TOP_STEP - 1) / T2F_SC_TOP_STEP;

	if (n <= T2F_SC_TOP_STEP || !(c->top = malloc(k * sizeof(*c->top))))
		return;
	for (uint64_t i = 0; i < k; i++)
		c->top[i] = sy[i * T2F_SC_TOP_STEP].vaddr;
	c->n_top = k;
}

void t2f_symcache_try(int dirfd, const uint8_t *id, size_t len, struct t2f_symcache_try *t)
{
	char name[2 * T2F_BUILD_ID_MAX + sizeof(T2F_SYMCACHE_SUFFIX)];
	int fd;

	*t = (struct t2f_symcache_try){ .opened = false };
	t2f_symcache_name(id, len, name);
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		t->open_errno = errno;
		return;
	}
	t->opened = true;
	t->c = calloc(1, sizeof(*t->c));
	t->why = t->c ? map_fd(fd, t->c, &t->err) : NULL;
	t->err = t->c ? t->err : -ENOMEM;
	close(fd); /* the mapping stays */
	if (!t->why && !t->err &&
	    (t->c->h->build_id_len != len || memcmp(t->c->h->build_id, id, len) != 0))
		t->why = "made for another build-id";
	if (t->why || t->err) {
		t2f_symcache__free(t->c);
		t->c = NULL;
	} else {
		index_syms(t->c);
	}
}

void t2f_symcache_try_drop(struct t2f_symcache_try *t)
{
	t2f_symcache__free(t->c);
	*t = (struct t2f_symcache_try){ .opened = false };
}

int t2f_symcache__open(struct t2f_symcache_dir *d, const struct t2f_symcache_ident *id,
		       struct t2f_symcache **out, bool *bad, const char **why)
{
	char name[2 * T2F_BUILD_ID_MAX + sizeof(T2F_SYMCACHE_SUFFIX)];
	struct t2f_symcache_try t;
	int err;

	*out = NULL;
	*bad = false;
	if (!t2f_symcache_ahead_take(d->ahead, d, id->build_id, id->build_id_len, &t))
		t2f_symcache_try(d->fd, id->build_id, id->build_id_len, &t);
	if (!t.opened) {
		*bad = t.open_errno != ENOENT;
		*why = t.open_errno == ELOOP ? "a symlink" : "it cannot be opened";
		d->st.misses += !*bad;
		d->st.bad += *bad;
		return 0;
	}
	err = t.err;
	if (t.why || err) {
		*why = t.why;
		*bad = !err;
		d->st.bad += *bad;
	} else if (!same_ident(t.c, id)) {
		d->st.misses++;
	} else {
		/* its last use, for the eviction */
		t2f_symcache_name(id->build_id, id->build_id_len, name);
		(void)utimensat(d->fd, name, NULL, AT_SYMLINK_NOFOLLOW);
		d->st.hits++;
		*out = t.c;
		return 0;
	}
	t2f_symcache_try_drop(&t);
	return err;
}

void t2f_symcache_dir__ahead(struct t2f_symcache_dir *d, struct t2f_symcache_ahead *a)
{
	d->ahead = a;
}

void t2f_symcache__free(struct t2f_symcache *c)
{
	if (!c)
		return;
	unmap(c);
	free(c->top);
	free(c);
}

enum t2f_symcache_dwarf t2f_symcache__dwarf(const struct t2f_symcache *c)
{
	return (enum t2f_symcache_dwarf)c->h->dwarf;
}

const char *t2f_symcache__file_path(const struct t2f_symcache *c)
{
	return c->str + c->h->file_path;
}

const char *t2f_symcache__binary_path(const struct t2f_symcache *c)
{
	return t2f_symcache_str(c, c->h->binary_path);
}

size_t t2f_symcache__load_count(const struct t2f_symcache *c)
{
	return (size_t)c->h->sec[T2F_SC_LOADS].count;
}

void t2f_symcache__load_at(const struct t2f_symcache *c, size_t i, struct t2f_elf_load *out)
{
	const struct t2f_sc_load *l = T2F_SC_SEC(c, T2F_SC_LOADS, struct t2f_sc_load) + i;

	*out = (struct t2f_elf_load){ .p_offset = l->p_offset, .p_vaddr = l->p_vaddr,
				      .p_filesz = l->p_filesz, .p_memsz = l->p_memsz,
				      .p_flags = (uint32_t)l->p_flags };
}

size_t t2f_symcache__refused_count(const struct t2f_symcache *c)
{
	return (size_t)c->h->sec[T2F_SC_REFUSED].count;
}

void t2f_symcache__refused_at(const struct t2f_symcache *c, size_t i,
			      struct t2f_symcache_refused *out)
{
	const struct t2f_sc_refused *r = T2F_SC_SEC(c, T2F_SC_REFUSED, struct t2f_sc_refused) + i;

	*out = (struct t2f_symcache_refused){ .path = c->str + r->path, .why = r->why,
					      .found_id = c->str + r->found_id };
}

uint64_t t2f_symcache__missing(const struct t2f_symcache *c)
{
	return c->h->missing;
}

/* The address of element i of arr (stride bytes apart, the address first). */
static inline uint64_t addr_at(const uint8_t *arr, uint64_t i, size_t stride)
{
	uint64_t at;

	memcpy(&at, arr + i * stride, sizeof(at));
	return at;
}

/* The index of the first element of a sorted array (stride bytes apart, the address first)
 * whose address is at least va. Halves without a branch on the comparison (a conditional
 * move): a run's lookups land anywhere, so such a branch is mispredicted every other step. */
static uint64_t lower_bound(const uint8_t *arr, uint64_t n, size_t stride, uint64_t va)
{
	uint64_t base = 0, len = n;

	if (!n)
		return 0;
	while (len > 1) {
		uint64_t half = len / 2;

		base = addr_at(arr, base + half - 1, stride) < va ? base + half : base;
		len -= half;
	}
	return base + (addr_at(arr, base, stride) < va);
}

#define FIND(c, i, type, va, out)                                                          \
	do {                                                                               \
		const type *arr_ = T2F_SC_SEC(c, i, type);                                        \
		uint64_t n_ = (c)->h->sec[i].count;                                        \
		uint64_t k_ = lower_bound((const uint8_t *)arr_, n_, sizeof(type), va);    \
		(out) = k_ < n_ && arr_[k_].vaddr == (va) ? &arr_[k_] : NULL;              \
	} while (0)

/* The range of the ranges array arr[0..n) (sorted and disjoint: checked at open) holding va,
 * given k, the index of the first range starting at or above va: the one starting at va, else
 * the one before it when it reaches va; or NULL. */
#define RANGE_FROM(arr, n, k, va, out)                                                     \
	do {                                                                               \
		uint64_t k_ = (k);                                                         \
		(out) = k_ < (n) && (arr)[k_].vaddr == (va) ? &(arr)[k_]                   \
		      : k_ && (arr)[k_ - 1].last >= (va) ? &(arr)[k_ - 1] : NULL;           \
	} while (0)

/* The same, k found by a search of the whole array. */
#define RANGE_AT(arr, n, va, out)                                                          \
	RANGE_FROM(arr, n, lower_bound((const uint8_t *)(arr), n, sizeof(*(arr)), va), va, out)

/* The index of the first symbol whose address is at least va: the top index searched first
 * (its 8-byte addresses lie in a few cache lines, where the symbols' 32-byte entries took a
 * line a step), then the block of T2F_SC_TOP_STEP symbols it leaves, asked for at once before
 * its search steps through it. */
static uint64_t sym_lower_bound(const struct t2f_symcache *c, const struct t2f_sc_sym *sy,
				uint64_t n, uint64_t va)
{
	uint64_t j, lo, hi;

	if (!c->top)
		return lower_bound((const uint8_t *)sy, n, sizeof(*sy), va);
	j = lower_bound((const uint8_t *)c->top, c->n_top, sizeof(*c->top), va);
	if (!j)
		return 0;
	lo = (j - 1) * T2F_SC_TOP_STEP; /* below va: the first of block j - 1 */
	hi = j < c->n_top ? j * T2F_SC_TOP_STEP : n;
	for (uint64_t i = lo; i < hi; i += 2)
		__builtin_prefetch(&sy[i]);
	return lo + lower_bound((const uint8_t *)(sy + lo), hi - lo, sizeof(*sy), va);
}

bool t2f_symcache__sym(const struct t2f_symcache *c, uint64_t elf_vaddr,
		       struct t2f_symcache_sym *out)
{
	const struct t2f_sc_sym *sy = T2F_SC_SEC(c, T2F_SC_SYMS, struct t2f_sc_sym), *e;
	uint64_t n = c->h->sec[T2F_SC_SYMS].count;

	RANGE_FROM(sy, n, sym_lower_bound(c, sy, n, elf_vaddr), elf_vaddr, e);
	if (!e)
		return false;
	*out = (struct t2f_symcache_sym){ .elf_vaddr = e->vaddr, .last = e->last,
					  .value = e->value, .name = t2f_symcache_str(c, e->name),
					  .miss = e->miss };
	return true;
}

bool t2f_symcache__a2l(const struct t2f_symcache *c, uint64_t elf_vaddr, const char **name)
{
	const struct t2f_sc_a2l *e;

	FIND(c, T2F_SC_A2L, struct t2f_sc_a2l, elf_vaddr, e);
	if (!e)
		return false;
	*name = t2f_symcache_str(c, e->name);
	return true;
}

int t2f_symcache__inlines(const struct t2f_symcache *c, uint64_t elf_vaddr,
			  struct t2f_dwarf_frame *out, size_t max)
{
	const struct t2f_sc_inl *e;

	RANGE_AT(T2F_SC_SEC(c, T2F_SC_INL, struct t2f_sc_inl), c->h->sec[T2F_SC_INL].count,
		 elf_vaddr, e);
	if (!e)
		return -1;
	return t2f_symcache_chain(c, e, out, max);
}

/* The symbol range holding both elf_vaddr and elf_vaddr - 1, or NULL. */
static const struct t2f_sc_sym *class_sym(const struct t2f_symcache *c, uint64_t elf_vaddr)
{
	const struct t2f_sc_sym *sy = T2F_SC_SEC(c, T2F_SC_SYMS, struct t2f_sc_sym), *s;
	uint64_t n = c->h->sec[T2F_SC_SYMS].count;

	if (!elf_vaddr)
		return NULL;
	RANGE_FROM(sy, n, sym_lower_bound(c, sy, n, elf_vaddr), elf_vaddr, s);
	return s && s->vaddr != elf_vaddr ? s : NULL; /* elf_vaddr - 1 in the range too */
}

bool t2f_symcache__class(const struct t2f_symcache *c, uint64_t elf_vaddr, bool inlines,
			 uint64_t *key)
{
	const struct t2f_sc_sym *s = class_sym(c, elf_vaddr);
	const struct t2f_sc_inl *in;

	if (!s)
		return false;
	*key = s->vaddr;
	if (!inlines)
		return true;
	RANGE_AT(T2F_SC_SEC(c, T2F_SC_INL, struct t2f_sc_inl), c->h->sec[T2F_SC_INL].count,
		 elf_vaddr, in);
	if (!in || in->vaddr == elf_vaddr)
		return false;
	/* the start of the two ranges' overlap: an address in both, so no other pair has it */
	*key = in->vaddr > s->vaddr ? in->vaddr : s->vaddr;
	return true;
}

bool t2f_symcache__class_parts(const struct t2f_symcache *c, uint64_t elf_vaddr, bool inlines,
			       struct t2f_symcache_parts *out)
{
	const struct t2f_sc_inl *base = T2F_SC_SEC(c, T2F_SC_INL, struct t2f_sc_inl), *in, *prev;
	const struct t2f_sc_sym *s = class_sym(c, elf_vaddr);
	uint64_t n = c->h->sec[T2F_SC_INL].count;

	if (!s)
		return false;
	out->miss = s->miss;
	out->sym = s->miss ? 0 : s->vaddr; /* T2F_HIT is 0 */
	out->at = out->prev = UINT32_MAX;
	if (!inlines)
		return true;
	RANGE_AT(base, n, elf_vaddr, in);
	prev = in && in->vaddr < elf_vaddr ? in : NULL;
	if (in && !prev)
		RANGE_AT(base, n, elf_vaddr - 1, prev);
	if (!in || !prev || (uint64_t)(in - base) >= UINT32_MAX ||
	    (uint64_t)(prev - base) >= UINT32_MAX) /* (UINT32_MAX: none) */
		return false;
	out->at = (uint32_t)(in - base);
	out->prev = (uint32_t)(prev - base);
	return true;
}

/* The inline chain of range i, its frames' names and flags (not their lines). */
static const struct t2f_sc_frame *names_of(const struct t2f_symcache *c, uint32_t i,
					   uint32_t *n)
{
	const struct t2f_sc_inl *e = &T2F_SC_SEC(c, T2F_SC_INL, struct t2f_sc_inl)[i];

	*n = e->n;
	return T2F_SC_SEC(c, T2F_SC_FRAMES, struct t2f_sc_frame) + e->first;
}

uint64_t t2f_symcache__names_hash(const struct t2f_symcache *c, uint32_t i)
{
	uint32_t n = 0;
	const struct t2f_sc_frame *f = i == UINT32_MAX ? NULL : names_of(c, i, &n);
	uint64_t h = t2f_hash_u64(n);

	for (uint32_t k = 0; k < n; k++)
		h = t2f_hash_u64(h ^ ((uint64_t)f[k].name << 8 | f[k].flags));
	return h;
}

bool t2f_symcache__same_names(const struct t2f_symcache *c, uint32_t i, uint32_t j)
{
	uint32_t n, m;
	const struct t2f_sc_frame *a, *b;

	if (i == UINT32_MAX || j == UINT32_MAX)
		return i == j;
	a = names_of(c, i, &n);
	b = names_of(c, j, &m);
	if (n != m)
		return false;
	for (uint32_t k = 0; k < n; k++)
		if (a[k].name != b[k].name || a[k].flags != b[k].flags)
			return false;
	return true;
}

int t2f_symcache_chain(const struct t2f_symcache *c, const struct t2f_sc_inl *e,
		       struct t2f_dwarf_frame *out, size_t max)
{
	const struct t2f_sc_frame *fr = T2F_SC_SEC(c, T2F_SC_FRAMES, struct t2f_sc_frame);
	uint32_t n;

	n = e->n < max ? e->n : (uint32_t)max;
	for (uint32_t k = 0; k < n; k++) {
		const struct t2f_sc_frame *f = &fr[e->first + k];

		out[k] = (struct t2f_dwarf_frame){
			.name = t2f_symcache_str(c, f->name), .linkage = f->flags & T2F_SC_LINKAGE,
			.copy = f->flags & T2F_SC_COPY, .as_symbol = f->flags & T2F_SC_AS_SYMBOL,
			.file = t2f_symcache_str(c, f->file), .line = f->line,
			.fn_file = t2f_symcache_str(c, f->fn_file), .fn_line = f->fn_line,
		};
	}
	return (int)n;
}
