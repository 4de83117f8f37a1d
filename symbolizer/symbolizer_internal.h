/* symbolizer/symbolizer_internal.h: what symbolizer.c and symbolizer_cache.c share: the
 * symbolizer's state and the steps both take. Internal to symbolizer/.
 */
#ifndef T2F_SYMBOLIZER_INTERNAL_H
#define T2F_SYMBOLIZER_INTERNAL_H

#include "formats/hashmap.h"
#include "symbolizer/module_map.h"
#include "symbolizer/symbolizer.h"
#include "symbolizer/symcache.h"

struct sym_file {
	char *path;
	uint8_t build_id[T2F_BUILD_ID_MAX];
	size_t build_id_len;
	bool path_trusted;             /* none recorded, the file at path is the trace's
				        * (t2f_module_desc.path_trusted) */
	bool searched;                 /* debug_find ran */
	enum t2f_miss file_miss;       /* T2F_HIT when files.module has symbols */
	struct t2f_debug_result files;
	struct t2f_elf_load *loads;    /* owned copy; table.loads points here */
	struct t2f_elf_module *binary; /* the same build's binary when the symbols come from another
				        * file (a debug file): asked on a miss (PLT stubs), or NULL */
	struct t2f_load_table table;
	struct t2f_dwarf *dwarf;       /* the symbol file's DWARF, opened on first use, or NULL */
	bool dwarf_tried;
	bool dwarf_unsettled;          /* dwarf opened lazily: whether it has DWARF is not yet
					* told to the cache file (t2f_symbolizer__report_dwarf) */
	struct t2f_symcache *cache;    /* an earlier run's answers (symcache.h), or NULL */
	bool cache_tried;              /* its cache file looked for (cache_try) */
	struct t2f_sym_class *klass;   /* its class source (sym_class.c), or NULL */
	bool from_cache;               /* searched through the cache: debug_find has not run */
	struct t2f_symcache_new *add;  /* this run's answers for the cache, or NULL */
	uint8_t cache_id[T2F_BUILD_ID_MAX]; /* its cache file's key: build_id, else (none
				        * recorded) the build-id of the file at path, else (the
				        * file has none, trusted by path) its path's (path_key) */
	size_t cache_id_len;           /* 0: no cache file */
	bool cache_by_path;            /* cache_id is path_key's (no build-id, path_trusted) */
	uint32_t ahead;                /* its entry in the search ahead (sym_ahead.c) + 1, or 0 */
	bool touched;                  /* looked up since its table pages were last given back */
	uint32_t lookups;              /* lookups in it since then (large tables: note_touched) */
	int8_t plain_dwarf;            /* every unit of its DWARF in a language that mangles no
					* name (dwarf.h __plain_only: no symbol index for it): 1,
					* -1 not, 0 not asked */
};

struct sym_module {
	uint32_t file;                 /* index in files */
	struct t2f_map_view view;      /* abs_ip: the process's mapping */
	struct t2f_map_view file_view; /* file_off: a view over the whole file (with the trace's
					* executable mapping, has_exec) */
};

struct memo_ent {                  /* index 0 unused: hashmap value 0 means absent */
	uint64_t elf_vaddr;
	uint64_t offset;
	uint32_t file;
	t2f_str_id name;
	enum t2f_miss miss;
};

struct name_ent {                  /* index 0 unused */
	const char *raw;
	t2f_str_id id;
};

enum { OWN_DEBUG_DIRS, OWN_SYMBOL_DIRS, OWN_CACHE, OWN_N };

#define T2F_SYM_HELD_MAX 64        /* modules whose table pages are given back together */
#define T2F_SYM_HELD_BYTES ((size_t)4 << 20) /* or fewer, when their tables are this large */
#define T2F_SYM_TOUCHED_MAX 64     /* files whose names lookups read, given back together */
#define T2F_SYM_TOUCH_LOOKUPS 4096 /* or fewer, after this many lookups in the files */
#define T2F_SYM_BIG_TABLES ((size_t)1 << 20) /* a file's tables this large: its DWARF checked
						* for plain units (symbols_done); known mapped, */
#define T2F_SYM_BIG_LOOKUPS 512    /* given back alone after this many lookups in it */

struct t2f_symbolizer {
	struct t2f_debug_find_opts find;  /* its strings point into own[] */
	char **own[OWN_N];
	enum t2f_demangle_mode demangle;
	bool perf_rules;
	bool no_lines;                 /* t2f_symbolizer_opts */
	struct t2f_decode_budget budget;  /* every file opened shares it (find.budget) */
	struct t2f_decode_budget dwarf_budget; /* the files' DWARF shares it (dwarf.h) */
	unsigned dwarf_threads;       /* t2f_symbolizer_opts.threads */
	struct t2f_strtab *names;
	struct t2f_diag *diag;
	struct sym_file *files;
	uint32_t n_files, cap_files;
	struct t2f_hashmap *file_index;
	struct sym_module *mods;
	uint32_t n_mods, cap_mods;
	struct memo_ent *memo;
	uint32_t n_memo, cap_memo;
	struct t2f_hashmap *memo_index;
	struct name_ent *name_cache;
	uint32_t n_names, cap_names;
	struct t2f_hashmap *name_index;
	uint64_t names_gen;            /* bumped when the name cache is dropped (forget_answers):
					* within one, a raw name's address is that name's */
	struct t2f_elf_module *held[T2F_SYM_HELD_MAX]; /* indexed, their table pages not given
					* back yet (elf_module.h __tables_held) */
	size_t n_held;
	size_t held_bytes;            /* their tables' bytes */
	uint32_t touched[T2F_SYM_TOUCHED_MAX]; /* files looked up since their table pages were last
					* given back (the names the lookups read) */
	uint32_t n_touched;
	uint32_t touch_lookups;       /* lookups in files since then */
	struct sym_ahead *ahead;       /* files searched ahead on a thread (sym_ahead.c), or NULL */
	uint32_t ahead_listed;         /* files it was given */
	uint32_t ahead_taken;          /* of them, taken from it (the others searched in place) */
	struct t2f_symcache_dir *cache; /* the symbol cache's directory, or NULL: none */
	uint64_t cache_opts;           /* a hash of the options that decide which file is found */
};

/* What a search reads besides the file: the options (their budget), where warnings go. */
struct t2f_sym_search {
	const struct t2f_debug_find_opts *find;
	struct t2f_diag *diag;
};
/* The file for (m's path, build-id), created on first sight. 0 or -ENOMEM. */
int t2f_sym__file_for(struct t2f_symbolizer *s, const struct t2f_module_desc *m, uint32_t *idx);
/* Runs debug_find for f with c: f's files, load table and miss. Reads nothing else of a
 * symbolizer, so it may run on another thread on a file of its own. 0 or -ENOMEM. */
int t2f_sym__search_in(const struct t2f_sym_search *c, struct sym_file *f);
/* Runs debug_find for f (its first use, or the first address its cache file lacks), or takes
 * the search made ahead (sym_ahead.c). 0 or -ENOMEM. */
int t2f_sym__file_search(struct t2f_symbolizer *s, struct sym_file *f);
/* The frame name of raw (cut, demangled, interned; cached per pointer). 0 or -ENOMEM. */
int t2f_sym__name_of(struct t2f_symbolizer *s, const char *raw, t2f_str_id *id);
/* The file of module mod as it stands (nothing searched), or NULL for an unknown id: what every
 * accessor of a module's file goes through. */
static inline struct sym_file *t2f_sym__file_of(const struct t2f_symbolizer *s,
						t2f_sym_module_id mod)
{
	return mod < s->n_mods ? &s->files[s->mods[mod].file] : NULL;
}
/* The module of id mod with its file searched: 0, -EINVAL (unknown id), -ENOMEM, or the diag's
 * strict error (its symbol cache file ignored). */
int t2f_sym__module_ready(struct t2f_symbolizer *s, t2f_sym_module_id mod,
			  const struct sym_module **out);

/* sym_ahead.c */
/* f's search made ahead, when there is one and it stands as a search made now would: true,
 * its result in f (searched), its warnings issued (*err: the diag's strict error). Else false
 * and f is to be searched now. */
bool t2f_sym__ahead_take(struct t2f_symbolizer *s, struct sym_file *f, int *err);
/* Stops the thread (the search under way ends first) and frees what was not taken. */
void t2f_sym__ahead_free(struct t2f_symbolizer *s);
/* Waits until the thread has searched all it may before more files are taken (for tests: what
 * is then taken was searched ahead). */
void t2f_sym__ahead_idle(struct t2f_symbolizer *s);

/* symbolizer_cache.c */
/* The cache's directory when o asks for one and it may be used. 0 or -ENOMEM. */
int t2f_sym__cache_dir(struct t2f_symbolizer *s, const struct t2f_symbolizer_opts *o);
/* f's cache file looked for, once: when there is one made for it, f is searched through it
 * (f->from_cache). 0, -ENOMEM, or the diag's strict error (a file ignored). */
int t2f_sym__cache_try(struct t2f_symbolizer *s, struct sym_file *f);
/* f searched on first use: through its cache file when it has one, else debug_find. */
int t2f_sym__file_ready(struct t2f_symbolizer *s, struct sym_file *f);
/* f searched for real when its cache file answered so far. 0 or -ENOMEM. */
int t2f_sym__file_real(struct t2f_symbolizer *s, struct sym_file *f);
/* The cache file's answer for e's address: true and e filled (*err: -ENOMEM), or false. */
bool t2f_sym__cached_symbol(struct t2f_symbolizer *s, struct sym_file *f, struct memo_ent *e,
			    int *err);
/* An answer kept for f's cache file (its range, raw name: NULL on a miss). */
int t2f_sym__cache_symbol(struct t2f_symbolizer *s, struct sym_file *f,
			  const struct t2f_symcache_sym *cs);
/* The file f's symbols come from, and the binary beside a debug file; NULL: none. */
const char *t2f_sym__file_used(const struct sym_file *f);
const char *t2f_sym__binary_used(const struct sym_file *f);

#endif
