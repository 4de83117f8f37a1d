/* symbolizer/symcache.h: the persistent symbol cache, one file per module build-id.
 *
 * What the symbolizer answered for a file (symbolizer.h) is kept so that the next run that
 * names the same addresses of the same build opens no ELF file and no DWARF: per range of
 * addresses in the file's own space (elf_vaddr) over which the answer holds, the symbol answer
 * (raw name, the symbol's start, miss), and the inline chain with its lines (dwarf.h frames:
 * the range t2f_dwarf__lookup_span gives), so that other addresses of the same functions and
 * lines are answered too; per address, the name binutils' addr2line gives it (__a2l); per
 * file, what
 * the search found (the file used, the binary beside a debug file, the refused candidates),
 * the PT_LOAD table that maps file offsets, and whether the file has DWARF. An address not in
 * the cache is answered by the files as without a cache, and the file is written again with it.
 *
 * The directory: $T2F_CACHE_DIR, else $XDG_CACHE_HOME/trace2flame, else
 * $HOME/.cache/trace2flame (made 0700). It is used only when it is a directory (not a symlink)
 * owned by the user and writable by no one else; else one warning and no cache.
 *
 * A file, NAME = the build-id in hex plus ".t2fsym", read by mmap:
 *   header (struct t2f_symcache_hdr: magic, format version, its size, the whole size, the
 *   build-id, the options that change answers (perf's symbol rules) and a hash of the search
 *   options, the identities (path, size, mtime) of the module's path, the file used and the
 *   binary), then 8-byte aligned sections: strings (NUL-terminated, the last byte NUL), the
 *   PT_LOAD table, refused candidates, symbol answers (ranges, sorted and disjoint),
 *   addr2line names, inline chains (ranges, sorted and disjoint) and their frames, each array
 *   sorted by address.
 * Opened only with O_NOFOLLOW inside the directory, a regular file owned by the user and
 * writable by no one else; every section and every string offset and frame index in it is
 * checked at open (bounds only: no strings are parsed). A file that fails is ignored (counted
 * as bad, one warning a run) and written again. Files are written whole, to a temp file made
 * by mkstemp in the directory, mode 0600, renamed over the old one. After a write, the files
 * are removed oldest use first (mtime, touched on each use) while they pass the size limit.
 *
 * Errors: -errno; nothing here ends the process. Not thread safe (one symbolizer's).
 */
#ifndef T2F_SYMCACHE_H
#define T2F_SYMCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "symbolizer/dwarf.h"
#include "symbolizer/elf_module.h"

#define T2F_SYMCACHE_MAX_DEFAULT (512ull << 20)  /* bytes the directory may hold */
#define T2F_SYMCACHE_SUFFIX ".t2fsym"

enum t2f_symcache_dwarf { T2F_SYMCACHE_DW_UNKNOWN, T2F_SYMCACHE_DW_NONE, T2F_SYMCACHE_DW_YES };

/* What a file was named from, as its header keeps it and the run compares it. */
struct t2f_symcache_ident {
	const uint8_t *build_id;
	size_t build_id_len;
	const char *module_path;       /* the trace's path */
	const char *file_path;         /* the file the symbols came from */
	const char *binary_path;       /* the binary beside a debug file, or NULL */
	bool perf_rules;
	bool no_lines;                 /* inline chains without files and lines (dwarf.h): a file
				       * written with such chains says so, and only a run with
				       * no_lines takes it (a run with no_lines takes any) */
	uint64_t opts_hash;            /* the search options (debug dirs, symbol dirs, ...) */
};

struct t2f_symcache_refused {      /* a candidate the search refused (debug_find.h) */
	const char *path;
	uint32_t why;                  /* enum t2f_refusal_reason */
	const char *found_id;          /* hex, "" when none */
};

struct t2f_symcache_sym {          /* a symbol answer, the same at every address of a range */
	uint64_t elf_vaddr, last;      /* the range [elf_vaddr, last] (elf_module.h __lookup_span) */
	uint64_t value;                /* the symbol's start (a hit): offset = address - value */
	const char *name;              /* raw; NULL on a miss */
	uint32_t miss;                 /* enum t2f_miss */
	uint64_t name_gen;             /* answers of one name_gen with one name pointer have one
					* name (the memory is not reused for another meanwhile) */
};

struct t2f_symcache;               /* an open file (mmap'd) */
struct t2f_symcache_dir;           /* the directory and the run's counts */
struct t2f_symcache_ahead;         /* files opened ahead on a thread (symcache_ahead.h) */

struct t2f_symcache_stats {
	uint64_t hits;                 /* files opened and used */
	uint64_t misses;               /* files not there (or for another module path, options) */
	uint64_t bad;                  /* files ignored as untrusted or broken */
	uint64_t written;              /* files written (new, or with new answers) */
	uint64_t evicted;              /* files removed for the size limit */
	uint64_t answers;              /* addresses answered from the cache */
	uint64_t looked_up;            /* addresses the files answered (then written) */
};

/* ---- the directory ---- */

/* The directory's path (above), malloc'd, or NULL (out of memory, or no HOME). */
char *t2f_symcache_default_dir(void);
/* Opens the directory dir (NULL: the default), making it (0700) when absent and create is set;
 * max: its size limit (0: $T2F_CACHE_MAX, else T2F_SYMCACHE_MAX_DEFAULT). 0 and *out; *out NULL
 * with *why (static text) when it must not be used (absent, without create: -ENOENT).
 * -ENOMEM. */
int t2f_symcache_dir__open(const char *dir, uint64_t max, bool create,
			   struct t2f_symcache_dir **out, const char **why);
void t2f_symcache_dir__free(struct t2f_symcache_dir *d); /* NULL is fine */
const char *t2f_symcache_dir__path(const struct t2f_symcache_dir *d);
struct t2f_symcache_stats *t2f_symcache_dir__stats(struct t2f_symcache_dir *d);
/* Files opened ahead (symcache_ahead.h) that __open takes from before it opens one itself, when
 * they are of d's directory; a (NULL: none) must outlive d. */
void t2f_symcache_dir__ahead(struct t2f_symcache_dir *d, struct t2f_symcache_ahead *a);
/* Whether d holds an entry named for build-id id[0..len) (a file, or anything else there):
 * what __open would look at. */
bool t2f_symcache_dir__has(const struct t2f_symcache_dir *d, const uint8_t *id, size_t len);
/* Takes the first bad file's warning: true once per directory. */
bool t2f_symcache_dir__warn_once(struct t2f_symcache_dir *d);
/* Removes the oldest files while the directory holds more than its limit. */
void t2f_symcache_dir__evict(struct t2f_symcache_dir *d);

/* Each cache file of d, by name: fn(ctx, build-id hex, module path or "", bytes, mtime,
 * problem: NULL when a run would use it, else why it would be ignored). fn's nonzero value
 * ends the walk and is returned; else 0 or -errno. */
typedef int (*t2f_symcache_each_fn)(void *ctx, const char *id_hex, const char *module,
				    uint64_t bytes, int64_t mtime, const char *problem);
int t2f_symcache_dir__each(struct t2f_symcache_dir *d, t2f_symcache_each_fn fn, void *ctx);
/* Removes every cache file of d, and temp files left by writes: 0 and *removed, or -errno. */
int t2f_symcache_dir__clear(struct t2f_symcache_dir *d, uint64_t *removed);

/* ---- one file ---- */

/* The file of build-id id in d, when it is there, trusted and made for id (the header's
 * identity equal to id's, the files it names unchanged: size and mtime): 0 and *out; 0 and
 * *out NULL when absent, different or bad (counted in d's stats; *bad set when bad, with
 * *why). -ENOMEM. Touches the file's mtime. */
int t2f_symcache__open(struct t2f_symcache_dir *d, const struct t2f_symcache_ident *id,
		       struct t2f_symcache **out, bool *bad, const char **why);
/* Checks the file at fd (a cache file, any build-id) as __open does; 0 (trusted) or
 * -T2F_ERR_* with *why. Fills *id_hex (2 * T2F_BUILD_ID_MAX + 1) and *module (malloc'd) when 0. */
int t2f_symcache__check_fd(int fd, char *id_hex, char **module, const char **why);
void t2f_symcache__free(struct t2f_symcache *c); /* NULL is fine */

enum t2f_symcache_dwarf t2f_symcache__dwarf(const struct t2f_symcache *c);
const char *t2f_symcache__file_path(const struct t2f_symcache *c);
const char *t2f_symcache__binary_path(const struct t2f_symcache *c); /* NULL: none */
size_t t2f_symcache__load_count(const struct t2f_symcache *c);
void t2f_symcache__load_at(const struct t2f_symcache *c, size_t i, struct t2f_elf_load *out);
size_t t2f_symcache__refused_count(const struct t2f_symcache *c);
void t2f_symcache__refused_at(const struct t2f_symcache *c, size_t i,
			      struct t2f_symcache_refused *out);
uint64_t t2f_symcache__missing(const struct t2f_symcache *c); /* candidates that did not exist */

/* The answer of the range holding elf_vaddr: true and *out (strings in the mapping, valid until
 * __free). */
bool t2f_symcache__sym(const struct t2f_symcache *c, uint64_t elf_vaddr,
		       struct t2f_symcache_sym *out);
/* The addr2line name at elf_vaddr: true and *name (NULL: none). */
bool t2f_symcache__a2l(const struct t2f_symcache *c, uint64_t elf_vaddr, const char **name);
/* The inline chain of the range holding elf_vaddr, innermost first, into out[0..max): its
 * length, -1 when the cache has no answer for the address. */
int t2f_symcache__inlines(const struct t2f_symcache *c, uint64_t elf_vaddr,
			  struct t2f_dwarf_frame *out, size_t max);

/* The class of elf_vaddr's answers: addresses of c with equal keys get the same symbol answer
 * (but for their offset from the symbol) and, with `inlines`, the same inline chain, both at
 * the address and at the address - 1 (where a return address's chain is looked up). True and
 * *key; false when c lacks one of those answers, or they differ between the two addresses. */
bool t2f_symcache__class(const struct t2f_symcache *c, uint64_t elf_vaddr, bool inlines,
			 uint64_t *key);

/* The parts of a coarser class, for outputs that show no address of a frame and no source
 * line: the symbol answer (a range's, or a miss, whichever range it is in) and, with
 * `inlines`, the inline ranges at the address and at the address - 1, whose chains may
 * differ from those of other addresses by their lines alone (t2f_symcache__same_names).
 * True and *out; false as above. */
struct t2f_symcache_parts {
	uint64_t sym;                  /* a hit's range start; 0 for a miss */
	uint32_t miss;                 /* enum t2f_miss */
	uint32_t at, prev;             /* the inline ranges (indexes) at the address and before;
					* UINT32_MAX without `inlines` */
};
bool t2f_symcache__class_parts(const struct t2f_symcache *c, uint64_t elf_vaddr, bool inlines,
			       struct t2f_symcache_parts *out);
/* Whether the chains of inline ranges i and j (of a __class_parts answer, UINT32_MAX: none)
 * name the same functions alike: names and their kinds, not files or lines; a hash of what it
 * compares. */
bool t2f_symcache__same_names(const struct t2f_symcache *c, uint32_t i, uint32_t j);
uint64_t t2f_symcache__names_hash(const struct t2f_symcache *c, uint32_t i);

/* ---- writing one: what a run found, added to what the old file held ---- */

struct t2f_symcache_new;

int t2f_symcache_new__new(struct t2f_symcache_new **out); /* 0 or -ENOMEM */
void t2f_symcache_new__free(struct t2f_symcache_new *w);  /* NULL is fine */
/* The file-level facts (copied): the PT_LOAD table, the refused candidates, the candidates
 * missing, the DWARF state. 0 or -ENOMEM. */
int t2f_symcache_new__set_file(struct t2f_symcache_new *w, const struct t2f_elf_load *loads,
			       size_t n_loads, const struct t2f_symcache_refused *refused,
			       size_t n_refused, uint64_t missing, enum t2f_symcache_dwarf dw);
void t2f_symcache_new__set_dwarf(struct t2f_symcache_new *w, enum t2f_symcache_dwarf dw);
/* Answers (strings copied). 0 or -ENOMEM. */
int t2f_symcache_new__sym(struct t2f_symcache_new *w, const struct t2f_symcache_sym *s);
int t2f_symcache_new__a2l(struct t2f_symcache_new *w, uint64_t elf_vaddr, const char *name);
/* The chain of every address of [lo, last]. */
int t2f_symcache_new__inlines(struct t2f_symcache_new *w, uint64_t lo, uint64_t last,
			      const struct t2f_dwarf_frame *frames, size_t n);
/* The answers given since __new (file facts aside), repeats counted: what its lookups cost;
 * 0: nothing to write. */
uint64_t t2f_symcache_new__asks(const struct t2f_symcache_new *w);
/* Writes id's file in d: w's answers and the file facts, plus old's answers (may be NULL) at
 * addresses w lacks. Atomic (temp file, rename), 0600. 0 or -errno (nothing left behind). */
int t2f_symcache_new__write(struct t2f_symcache_new *w, struct t2f_symcache_dir *d,
			    const struct t2f_symcache_ident *id, const struct t2f_symcache *old);

#endif
