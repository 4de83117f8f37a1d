/* symbolizer/symcache_internal.h: what symcache.c and symcache_write.c share. */
#ifndef T2F_SYMCACHE_INTERNAL_H
#define T2F_SYMCACHE_INTERNAL_H

#include <sys/types.h>

#include "symbolizer/symcache.h"
#include "symbolizer/symcache_fmt.h"

struct t2f_symcache_dir {
	int fd;                        /* the directory, opened O_NOFOLLOW */
	dev_t dev;                     /* its identity */
	ino_t ino;
	struct t2f_symcache_ahead *ahead; /* files opened ahead (symcache_ahead.h), or NULL */
	char *path;
	uint64_t max;                  /* bytes */
	bool warned;
	struct t2f_symcache_stats st;
};

struct t2f_symcache {              /* a file mapped and checked (symcache.c) */
	const uint8_t *base;
	size_t size;
	const struct t2f_symcache_hdr *h;
	const char *str;
	uint64_t n_str;
	uint64_t *top;                 /* every T2F_SC_TOP_STEP-th symbol's address (malloc'd; */
	uint64_t n_top;                /* NULL: the symbols are searched whole) */
};

#define T2F_SC_TOP_STEP 32         /* symbols (1 KiB) per entry of struct t2f_symcache's top */

/* Section i of c as an array of type. */
#define T2F_SC_SEC(c, i, type) ((const type *)((c)->base + (c)->h->sec[i].off))

/* The string at off (NULL for T2F_SYMCACHE_NONE); off was checked at open. */
const char *t2f_symcache_str(const struct t2f_symcache *c, uint32_t off);

/* The chain of e (an element of c's inline chains) into out[0..max): its length. */
int t2f_symcache_chain(const struct t2f_symcache *c, const struct t2f_sc_inl *e,
		       struct t2f_dwarf_frame *out, size_t max);

/* The file name of build-id id: hex + T2F_SYMCACHE_SUFFIX into out
 * (2 * T2F_BUILD_ID_MAX + sizeof(T2F_SYMCACHE_SUFFIX)). */
void t2f_symcache_name(const uint8_t *id, size_t len, char *out);
/* Whether name is a cache file's: lowercase hex, then T2F_SYMCACHE_SUFFIX. */
bool t2f_symcache_is_name(const char *name);

/* fd mapped read-only when it is a regular file the user owns, writable by no one else, of at
 * least min bytes: NULL, *map and *size (the caller unmaps); or why not (*map NULL; *err
 * -ENOMEM when that is why, else 0). */
const char *t2f_symcache_map_fd(int fd, size_t min, void **map, size_t *size, int *err);

/* The file of build-id id[0..len) in the directory dirfd opened, mapped and checked as
 * t2f_symcache__open does (and closed: the mapping stays), nothing counted or touched: opened
 * (false: open_errno says why), c (NULL: why says, or err is -ENOMEM). */
struct t2f_symcache_try {
	bool opened;
	int open_errno, err;
	struct t2f_symcache *c;
	const char *why;
};
void t2f_symcache_try(int dirfd, const uint8_t *id, size_t len, struct t2f_symcache_try *t);
void t2f_symcache_try_drop(struct t2f_symcache_try *t); /* unmaps */

/* What a opened ahead for build-id id[0..len) in d's directory (the same directory: its
 * identity), taken out of a: true and *t; false when a is NULL or has no such file. Waits for
 * a's thread the first time. symcache_ahead.c. */
bool t2f_symcache_ahead_take(struct t2f_symcache_ahead *a, const struct t2f_symcache_dir *d,
			     const uint8_t *id, size_t len, struct t2f_symcache_try *t);

/* n bytes at p into fd, written again after EINTR: 0 or a negative errno. */
int t2f_symcache_put_all(int fd, const void *p, size_t n);

/* File name of d made atomically: fill(fd, arg) writes a temp file (0600) beside it, renamed
 * over name when fill and close succeed. 0 or a negative errno (the temp file removed). */
int t2f_symcache_dir_put(struct t2f_symcache_dir *d, const char *name,
			 int (*fill)(int fd, void *arg), void *arg);

#endif
