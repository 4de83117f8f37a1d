/* symbolizer/symbolizer_cache.c: the symbolizer's side of the symbol cache (symcache.h): a
 * file searched through its cache file, answers taken from it and kept for it. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/hashmap.h"
#include "symbolizer/symbolizer_internal.h"

static uint64_t hash_strv(uint64_t h, const char *const *v)
{
	for (size_t i = 0; v && v[i]; i++)
		h = t2f_hash_u64(h ^ t2f_hash_bytes(v[i], strlen(v[i]) + 1));
	return t2f_hash_u64(h + 1);
}

/* What decides which file a search takes, beside the files themselves: a cache file made under
 * other options is not used (symcache.h). */
static uint64_t search_hash(const struct t2f_symbolizer *s, const struct t2f_symbolizer_opts *o)
{
	const char *home = getenv("HOME");
	const char *env[] = { s->find.debuginfod_cache, s->find.perf_cache,
			      getenv("DEBUGINFOD_CACHE_PATH"), home,
			      o->debuginfod ? getenv("DEBUGINFOD_URLS") : NULL };
	const char *perf_dir = getenv("PERF_BUILDID_DIR");
	uint64_t h = hash_strv(hash_strv(0, s->find.debug_dirs), s->find.symbol_dirs);
	char dflt[PATH_MAX];

	for (size_t i = 0; i < sizeof(env) / sizeof(env[0]); i++)  /* "": unset */
		h = t2f_hash_u64(h ^ (env[i] && *env[i] ? t2f_hash_bytes(env[i], strlen(env[i]) + 1)
							 : 7));
	/* perf sets PERF_BUILDID_DIR for what it runs, to ~/.debug when it was unset: the same */
	if (home && perf_dir && snprintf(dflt, sizeof(dflt), "%s/.debug", home) > 0 &&
	    strcmp(perf_dir, dflt) == 0)
		perf_dir = NULL;
	h = t2f_hash_u64(h ^ (perf_dir ? t2f_hash_bytes(perf_dir, strlen(perf_dir) + 1) : 7));
	return t2f_hash_u64(h ^ (uint64_t)s->find.unsafe_build_id_match << 1 ^
			    (uint64_t)s->perf_rules << 2 ^ (uint64_t)o->debuginfod << 3);
}

/* The symbol cache's directory when the options ask for it and it may be used (else a
 * warning, and none). 0, -ENOMEM, or the diag's strict error (the warning). */
int t2f_sym__cache_dir(struct t2f_symbolizer *s, const struct t2f_symbolizer_opts *o)
{
	const char *why = NULL;
	int err;

	if (!o->cache)
		return 0;
	err = t2f_symcache_dir__open(o->cache_dir, o->cache_max, true, &s->cache, &why);
	if (err)
		return err;
	if (s->cache)
		t2f_symcache_dir__ahead(s->cache, o->cache_ahead);
	if (!s->cache && s->diag) {
		char *dir = o->cache_dir ? NULL : t2f_symcache_default_dir();
		const char *shown = o->cache_dir ? o->cache_dir : dir ? dir : "(no directory)";

		err = t2f_diag__warn(s->diag, shown, 0, "symbol cache not used: %s", why);
		free(dir);
	}
	s->cache_opts = search_hash(s, o);
	return err;
}

/* ---- the symbol cache (symcache.h) ---- */

/* The path of the file the symbols come from (NULL: none). */
const char *t2f_sym__file_used(const struct sym_file *f)
{
	if (f->files.module)
		return t2f_elf_module__path(f->files.module);
	return f->from_cache && f->cache ? t2f_symcache__file_path(f->cache) : NULL;
}

const char *t2f_sym__binary_used(const struct sym_file *f)
{
	if (f->binary)
		return t2f_elf_module__path(f->binary);
	return f->from_cache && f->cache ? t2f_symcache__binary_path(f->cache) : NULL;
}

static struct t2f_symcache_ident cache_ident(const struct t2f_symbolizer *s,
					     const struct sym_file *f)
{
	return (struct t2f_symcache_ident){
		.build_id = f->cache_id, .build_id_len = f->cache_id_len, .module_path = f->path,
		.file_path = t2f_sym__file_used(f), .binary_path = t2f_sym__binary_used(f),
		.perf_rules = s->perf_rules, .no_lines = s->no_lines, .opts_hash = s->cache_opts,
	};
}

/* What the cache file says of the search: the file's PT_LOAD table and refused candidates. */
static int file_from_cache(struct t2f_symbolizer *s, struct sym_file *f)
{
	const struct t2f_symcache *c = f->cache;
	size_t n = t2f_symcache__load_count(c), nr = t2f_symcache__refused_count(c);

	f->loads = calloc(n ? n : 1, sizeof(*f->loads));
	f->files.refused = calloc(nr ? nr : 1, sizeof(*f->files.refused));
	if (!f->loads || !f->files.refused)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		t2f_symcache__load_at(c, i, &f->loads[i]);
	f->table = (struct t2f_load_table){ .loads = f->loads, .n = n,
		.offsets_trusted = t2f_loads_offsets_trusted(f->loads, n),
		.memsz_offsets = s->perf_rules };
	for (size_t i = 0; i < nr; i++) {
		struct t2f_debug_refused *r = &f->files.refused[i];
		struct t2f_symcache_refused cr;

		t2f_symcache__refused_at(c, i, &cr);
		r->path = strdup(cr.path);
		if (!r->path)
			return -ENOMEM;
		f->files.n_refused++;
		r->why = (enum t2f_refusal_reason)cr.why;
		snprintf(r->found_id, sizeof(r->found_id), "%s", cr.found_id);
	}
	f->files.n_missing = (size_t)t2f_symcache__missing(c);
	if (!f->cache_by_path) /* else the search's: none */
		t2f_build_id_hex(f->cache_id, f->cache_id_len, f->files.expected_id);
	f->file_miss = T2F_HIT;
	f->from_cache = true;
	return 0;
}

/* The file's cache file, when there is one made for it: then debug_find waits until an
 * address is not in it. 0, -ENOMEM, or the diag's strict error (a file ignored). */
static int cache_open(struct t2f_symbolizer *s, struct sym_file *f)
{
	struct t2f_symcache_ident id = cache_ident(s, f);
	const char *why = NULL;
	bool bad;
	int err = t2f_symcache__open(s->cache, &id, &f->cache, &bad, &why);

	if (!err && bad && s->diag && t2f_symcache_dir__warn_once(s->cache))
		err = t2f_diag__warn(s->diag, t2f_symcache_dir__path(s->cache), 0,
				     "a symbol cache file ignored (%s): it is written again", why);
	return err ? err : f->cache ? file_from_cache(s, f) : 0;
}

/* This run's answers for the file, with what its search found; from the search on. */
static int cache_start(struct t2f_symbolizer *s, struct sym_file *f)
{
	struct t2f_symcache_refused *rf;
	enum t2f_symcache_dwarf dw = f->cache ? t2f_symcache__dwarf(f->cache)
					      : T2F_SYMCACHE_DW_UNKNOWN;
	char hex[2 * T2F_BUILD_ID_MAX + 1];
	int err;

	if (!s->cache || !f->cache_id_len || f->file_miss != T2F_HIT || f->add)
		return 0;
	/* a module recorded without a build-id: the search's reference (the binary's own id) must
	 * be the one its cache file is keyed by (the file was not replaced in between); one keyed
	 * by its path has none, and its file's size and mtime go in the header */
	t2f_build_id_hex(f->cache_id, f->cache_id_len, hex);
	if (strcmp(f->cache_by_path ? "" : hex, f->files.expected_id) != 0)
		return 0;
	rf = calloc(f->files.n_refused + 1, sizeof(*rf));
	err = rf ? t2f_symcache_new__new(&f->add) : -ENOMEM;
	for (size_t i = 0; i < f->files.n_refused && !err; i++)
		rf[i] = (struct t2f_symcache_refused){ f->files.refused[i].path,
						       (uint32_t)f->files.refused[i].why,
						       f->files.refused[i].found_id };
	err = err ?: t2f_symcache_new__set_file(f->add, f->table.loads, f->table.n, rf,
						f->files.n_refused, f->files.n_missing, dw);
	free(rf);
	return err;
}

/* The file searched for real, when its cache file answered so far: debug_find runs now, and
 * what the cache said of the search is replaced by what it found. 0 or -ENOMEM. */
int t2f_sym__file_real(struct t2f_symbolizer *s, struct sym_file *f)
{
	int err;

	if (!f->from_cache)
		return 0;
	f->from_cache = false;
	t2f_debug_result__free(&f->files);
	memset(&f->files, 0, sizeof(f->files));
	free(f->loads);
	f->loads = NULL;
	err = t2f_sym__file_search(s, f);
	return err ?: cache_start(s, f);
}

/* The key of a file without a build-id that the run trusts by its path (recorded on this
 * machine, not changed since: a Go program, a binary linked with --build-id=none): "path" and
 * the 64-bit hash of the path, 12 bytes, a length GNU ld, gold and lld never give a build-id.
 * Keys alike share a file name, and the header's module path and file sizes and mtimes tell
 * them apart (the other one's file is not used). */
static size_t path_key(const char *path, uint8_t *id)
{
	uint64_t h = t2f_hash_bytes(path, strlen(path));

	memcpy(id, "path", 4);
	memcpy(id + 4, &h, sizeof(h));
	return 12;
}

/* Whether f has a cache file key (f->cache_id): the build-id the trace recorded, else the one
 * of the file at its path, as debug_find takes it for the reference then (a regular ELF file
 * with a build-id note), else, trusted by its path, the path's: its cache file's header keeps
 * that file's size and mtime, and one made for another file is not used. */
static bool cache_key(struct sym_file *f)
{
	size_t len = 0;

	if (f->build_id_len) {
		memcpy(f->cache_id, f->build_id, f->build_id_len);
		f->cache_id_len = f->build_id_len;
		return true;
	}
	(void)t2f_elf_module__file_id(f->path, f->cache_id, &len); /* out of memory: no key */
	f->cache_by_path = !len && f->path_trusted;
	if (f->cache_by_path)
		len = path_key(f->path, f->cache_id);
	f->cache_id_len = len;
	return len > 0;
}

int t2f_sym__cache_try(struct t2f_symbolizer *s, struct sym_file *f)
{
	int err;

	if (f->cache_tried || f->searched)
		return 0;
	f->cache_tried = true;
	if (!s->cache || !cache_key(f))
		return 0;
	err = cache_open(s, f);
	f->searched = err || f->from_cache;
	return err;
}

/* The file searched on first use: through its cache file when it has one, else debug_find. */
int t2f_sym__file_ready(struct t2f_symbolizer *s, struct sym_file *f)
{
	int err;

	if (f->searched)
		return 0;
	err = t2f_sym__cache_try(s, f);
	if (err || f->searched)
		return err;
	err = t2f_sym__file_search(s, f);
	return err ?: cache_start(s, f);
}

/* The answer the file's cache holds for e's address: true and e filled, or false. */
bool t2f_sym__cached_symbol(struct t2f_symbolizer *s, struct sym_file *f, struct memo_ent *e,
			  int *err)
{
	struct t2f_symcache_sym cs;

	*err = 0;
	if (!f->cache || !t2f_symcache__sym(f->cache, e->elf_vaddr, &cs))
		return false;
	t2f_symcache_dir__stats(s->cache)->answers++;
	e->miss = (enum t2f_miss)cs.miss;
	e->offset = e->miss == T2F_HIT ? e->elf_vaddr - cs.value : 0;
	if (e->miss == T2F_HIT)
		*err = cs.name ? t2f_sym__name_of(s, cs.name, &e->name) : 0;
	return true;
}

/* An answer into the file's cache file (raw name: NULL on a miss). */
int t2f_sym__cache_symbol(struct t2f_symbolizer *s, struct sym_file *f,
			  const struct t2f_symcache_sym *cs)
{
	if (!f->add)
		return 0;
	t2f_symcache_dir__stats(s->cache)->looked_up++;
	return t2f_symcache_new__sym(f->add, cs);
}

int t2f_symbolizer__cached_dwarf(struct t2f_symbolizer *s, t2f_sym_module_id mod)
{
	const struct sym_module *m;
	const struct sym_file *f;
	int err = t2f_sym__module_ready(s, mod, &m);

	if (err)
		return err;
	f = &s->files[m->file];
	if (f->file_miss != T2F_HIT)
		return 0;
	if (!f->cache || t2f_symcache__dwarf(f->cache) == T2F_SYMCACHE_DW_UNKNOWN)
		return 2;
	return t2f_symcache__dwarf(f->cache) == T2F_SYMCACHE_DW_YES;
}

int t2f_symbolizer__cached_inlines(struct t2f_symbolizer *s, t2f_sym_module_id mod,
				   uint64_t elf_vaddr, struct t2f_dwarf_frame *out, size_t max)
{
	const struct sym_file *f = t2f_sym__file_of(s, mod);
	int n = f && f->cache ? t2f_symcache__inlines(f->cache, elf_vaddr, out, max) : -1;

	if (n >= 0)
		t2f_symcache_dir__stats(s->cache)->answers++;
	return n;
}

int t2f_symbolizer__note_inlines(struct t2f_symbolizer *s, t2f_sym_module_id mod,
				 uint64_t elf_vaddr, uint64_t lo, uint64_t last,
				 const struct t2f_dwarf_frame *frames, size_t n)
{
	const struct sym_file *f = t2f_sym__file_of(s, mod);
	struct t2f_dwarf_frame tmp[1];

	if (!f || !f->add || (f->cache && t2f_symcache__inlines(f->cache, elf_vaddr, tmp, 0) >= 0))
		return 0;
	t2f_symcache_dir__stats(s->cache)->looked_up++;
	return t2f_symcache_new__inlines(f->add, lo, last, frames, n);
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* f's old cache file when this run's search took the same files (its answers still hold),
 * else NULL. */
static const struct t2f_symcache *same_files(const struct sym_file *f,
					      const struct t2f_symcache_ident *id)
{
	if (!f->cache || !same_str(t2f_symcache__file_path(f->cache), id->file_path) ||
	    !same_str(t2f_symcache__binary_path(f->cache), id->binary_path))
		return NULL;
	return f->cache;
}

static bool same_key(const struct sym_file *f, const struct sym_file *g)
{
	return f->cache_id_len == g->cache_id_len &&
	       memcmp(f->cache_id, g->cache_id, f->cache_id_len) == 0;
}

/* The files of one cache file name: the first file with it, whether a file of them was served by
 * its cache file, and the one of them asked the most this run (the first of equals). */
struct key_owner {
	uint32_t first, most;
	uint64_t asks;
	bool served;
};

struct key_probe {
	const struct t2f_symbolizer *s;
	const struct key_owner *own;
	const struct sym_file *f;
};

static bool key_eq(const void *ctx, uint32_t v)
{
	const struct key_probe *q = ctx;

	return same_key(q->f, &q->s->files[q->own[v - 1].first]);
}

/* Which file keeps each cache file name this run: own[k] for the k-th name, keyed[i] its k + 1
 * for file i (0: no cache file). One build-id under two module paths (hard links, such as
 * /usr/bin/git and /usr/lib/git-core/git) has one name and two searches: the file its cache
 * file served keeps it, else the one asked more (the first of equals); the other is looked up in
 * its files each run, where writing both would replace each other's file every run. */
static int key_owners(const struct t2f_symbolizer *s, struct key_owner *own, uint32_t *keyed)
{
	struct t2f_hashmap *ix;
	uint32_t n = 0;
	int err = t2f_hashmap__new(s->n_files, &ix);

	for (uint32_t i = 0; !err && i < s->n_files; i++) {
		const struct sym_file *f = &s->files[i];
		struct key_probe q = { s, own, f };
		uint64_t h = t2f_hash_bytes(f->cache_id, f->cache_id_len);
		uint64_t asks = f->add ? t2f_symcache_new__asks(f->add) : 0;
		uint32_t k;

		if (!f->cache_id_len)
			continue;
		k = t2f_hashmap__find(ix, h, key_eq, &q);
		if (!k) {
			own[n] = (struct key_owner){ .first = i, .most = i, .asks = asks };
			k = ++n;
			err = t2f_hashmap__insert(ix, h, k);
		} else if (asks > own[k - 1].asks) {
			own[k - 1].most = i;
			own[k - 1].asks = asks;
		}
		own[k - 1].served |= f->cache != NULL;
		keyed[i] = k;
	}
	t2f_hashmap__free(ix);
	return err;
}

/* Whether file i's new answers go to its cache file (key_owners). */
static bool cache_keeps(const struct t2f_symbolizer *s, const struct key_owner *own,
			const uint32_t *keyed, uint32_t i)
{
	const struct key_owner *o = &own[keyed[i] - 1];

	if (s->files[i].cache) /* it served file i: file i's new answers join it */
		return true;
	return !o->served && o->most == i;
}

void t2f_symbolizer__cache_save(struct t2f_symbolizer *s)
{
	struct key_owner *own = s->cache ? calloc(s->n_files + 1, sizeof(*own)) : NULL;
	uint32_t *keyed = s->cache ? calloc(s->n_files + 1, sizeof(*keyed)) : NULL;
	bool wrote = false;

	if (own && keyed && key_owners(s, own, keyed) == 0) {
		for (uint32_t i = 0; i < s->n_files; i++) {
			struct sym_file *f = &s->files[i];
			struct t2f_symcache_ident id;

			if (!f->add || !t2f_symcache_new__asks(f->add) || !keyed[i] ||
			    !cache_keeps(s, own, keyed, i))
				continue;
			id = cache_ident(s, f);
			wrote |= t2f_symcache_new__write(f->add, s->cache, &id,
							 same_files(f, &id)) == 0;
		}
	}
	free(own);
	free(keyed);
	/* (after all the writes: key_owners counted every file's asks) */
	for (uint32_t i = 0; s->cache && i < s->n_files; i++) {
		struct sym_file *f = &s->files[i];

		if (f->add && t2f_symcache_new__asks(f->add)) {
			t2f_symcache_new__free(f->add);
			f->add = NULL;
		}
	}
	if (wrote)
		t2f_symcache_dir__evict(s->cache);
}

const struct t2f_symcache_stats *t2f_symbolizer__cache_stats(const struct t2f_symbolizer *s,
							      const char **dir)
{
	*dir = s->cache ? t2f_symcache_dir__path(s->cache) : NULL;
	return s->cache ? t2f_symcache_dir__stats(s->cache) : NULL;
}

const char *t2f_symbolizer__module_file(const struct t2f_symbolizer *s, t2f_sym_module_id mod)
{
	const struct sym_file *f = t2f_sym__file_of(s, mod);

	return f ? t2f_sym__file_used(f) : NULL;
}

