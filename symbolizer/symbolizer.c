/* symbolizer/symbolizer.c: modules (one per load record) point at files (one per path +
 * build-id, shared by every process that mapped them). A file is searched with debug_find on
 * its first resolve and keeps the result and the PT_LOAD table used for file_off → elf_vaddr.
 * Results are memoised per (file, elf_vaddr): per (module, elf_vaddr), with the processes'
 * copies of one module sharing it. Demangled names are cached per raw name pointer (owned by the
 * file's elf_module, stable until the symbolizer is freed). Once warm, a resolve allocates
 * nothing. */
#include "symbolizer/symbolizer.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "formats/grow.h"
#include "formats/hashmap.h"
#include "formats/sym_version.h"
#include "symbolizer/dwarf.h"
#include "symbolizer/module_map.h"
#include "symbolizer/symbolizer_internal.h"

const char *t2f_miss_name(enum t2f_miss miss)
{
	switch (miss) {
	case T2F_HIT: return "hit";
	case T2F_MISS_UNMAPPED: return "unmapped";
	case T2F_MISS_NEEDS_MAPPING:
		return "debug file only, no mapping recorded (--show-mmap-events)";
	case T2F_MISS_NO_FILE: return "no file";
	case T2F_MISS_BUILD_ID: return "build-id mismatch";
	case T2F_MISS_CRC: return "debuglink CRC mismatch";
	case T2F_MISS_NO_BUILD_ID: return "no build-id";
	case T2F_MISS_NO_SYMBOLS: return "no symbols";
	case T2F_MISS_NOT_ELF: return "not ELF";
	case T2F_MISS_NOT_REGULAR: return "not a regular file";
	case T2F_MISS_DECODE_LIMIT: return "over the decompression limit";
	case T2F_MISS_NOT_FOUND: return "not found";
	}
	return "unknown";
}

/* A NULL-terminated copy of a NULL-terminated string array, in one allocation. */
static int strv_copy(const char *const *src, char ***out)
{
	size_t n = 0, bytes = 0;
	char **v, *p;

	*out = NULL;
	if (!src)
		return 0;
	for (; src[n]; n++)
		bytes += strlen(src[n]) + 1;
	v = malloc((n + 1) * sizeof(char *) + bytes);
	if (!v)
		return -ENOMEM;
	p = (char *)(v + n + 1);
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(src[i]) + 1;

		v[i] = memcpy(p, src[i], len);
		p += len;
	}
	v[n] = NULL;
	*out = v;
	return 0;
}

/* Copies the options, so the caller's arrays need not outlive the symbolizer. */
static int copy_opts(struct t2f_symbolizer *s, const struct t2f_symbolizer_opts *o)
{
	const char *cache[] = { o->find.debuginfod_cache, NULL };
	const struct t2f_debuginfod_opts fo = {
		.progress = o->fetch_progress, .progress_ctx = o->fetch_ctx,
		.temp = o->fetch_temp, .temp_ctx = o->fetch_temp_ctx,
	};

	s->find = o->find;
	s->demangle = o->demangle;
	s->perf_rules = o->perf_rules;
	s->no_lines = o->no_lines;
	s->dwarf_threads = o->threads;
	s->find.perf_rules = o->perf_rules;
	t2f_decode_budget__init(&s->budget, o->decode_module_max, o->decode_run_max);
	t2f_decode_budget__init(&s->dwarf_budget, T2F_DWARF_DECODE_MAX, T2F_DWARF_DECODE_RUN_MAX);
	s->find.budget = &s->budget;
	if (strv_copy(o->find.debug_dirs, &s->own[OWN_DEBUG_DIRS]) ||
	    strv_copy(o->find.symbol_dirs, &s->own[OWN_SYMBOL_DIRS]) ||
	    (cache[0] && strv_copy(cache, &s->own[OWN_CACHE])))
		return -ENOMEM;
	s->find.debug_dirs = (const char *const *)s->own[OWN_DEBUG_DIRS];
	s->find.symbol_dirs = (const char *const *)s->own[OWN_SYMBOL_DIRS];
	s->find.debuginfod_cache = s->own[OWN_CACHE] ? s->own[OWN_CACHE][0] : NULL;
	s->find.fetch = NULL;
	/* without libdebuginfod there is nothing to fetch with: as offline */
	if (o->debuginfod &&
	    t2f_debuginfod__new(&fo, s->diag, &s->find.fetch) == -ENOMEM)
		return -ENOMEM;
	return 0;
}

int t2f_symbolizer__new(const struct t2f_symbolizer_opts *opts, struct t2f_strtab *names,
			struct t2f_diag *diag, struct t2f_symbolizer **out)
{
	static const struct t2f_symbolizer_opts defaults;
	struct t2f_symbolizer *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return -ENOMEM;
	s->names = names;
	s->diag = diag;
	s->n_memo = s->n_names = 1; /* index 0 stays unused */
	err = copy_opts(s, opts ? opts : &defaults) ?: t2f_sym__cache_dir(s, opts ? opts : &defaults);
	if (err) {
		t2f_symbolizer__free(s);
		return err;
	}
	if (t2f_hashmap__new(64, &s->file_index) ||
	    t2f_hashmap__new(1024, &s->memo_index) || t2f_hashmap__new(1024, &s->name_index) ||
	    t2f_grow32((void **)&s->memo, &s->cap_memo, 0, sizeof(*s->memo), 16) ||
	    t2f_grow32((void **)&s->name_cache, &s->cap_names, 0, sizeof(*s->name_cache), 16)) {
		t2f_symbolizer__free(s);
		return -ENOMEM;
	}
	*out = s;
	return 0;
}

void t2f_symbolizer__free(struct t2f_symbolizer *s)
{
	if (!s)
		return;
	t2f_sym__ahead_free(s); /* its thread reads the files' paths */
	for (uint32_t i = 0; i < s->n_files; i++) {
		free(s->files[i].path);
		free(s->files[i].loads);
		t2f_elf_module__free(s->files[i].binary);
		t2f_dwarf__free(s->files[i].dwarf);
		t2f_debug_result__free(&s->files[i].files);
		t2f_symcache__free(s->files[i].cache);
		t2f_symcache_new__free(s->files[i].add);
		t2f_sym_class__free(s->files[i].klass);
	}
	for (int i = 0; i < OWN_N; i++)
		free(s->own[i]);
	free(s->files);
	free(s->mods);
	free(s->memo);
	free(s->name_cache);
	t2f_hashmap__free(s->file_index);
	t2f_hashmap__free(s->memo_index);
	t2f_hashmap__free(s->name_index);
	t2f_debuginfod__free(s->find.fetch);
	t2f_symcache_dir__free(s->cache);
	free(s);
}

/* ---- files: one per (path, build-id) ---- */

struct file_key {
	const struct t2f_symbolizer *s;
	const char *path;
	const uint8_t *build_id;
	size_t build_id_len;
	bool path_trusted;
};

static uint64_t file_hash(const struct file_key *k)
{
	return t2f_hash_bytes(k->path, strlen(k->path)) ^
	       t2f_hash_u64(t2f_hash_bytes(k->build_id, k->build_id_len) + k->build_id_len +
			    k->path_trusted);
}

static bool file_eq(const void *ctx, uint32_t value)
{
	const struct file_key *k = ctx;
	const struct sym_file *f = &k->s->files[value - 1];

	return f->build_id_len == k->build_id_len && f->path_trusted == k->path_trusted &&
	       strcmp(f->path, k->path) == 0 &&
	       (!k->build_id_len || memcmp(f->build_id, k->build_id, k->build_id_len) == 0);
}

int t2f_sym__file_for(struct t2f_symbolizer *s, const struct t2f_module_desc *m, uint32_t *idx)
{
	size_t id_len = m->build_id && m->build_id_len <= T2F_BUILD_ID_MAX ? m->build_id_len : 0;
	struct file_key k = { s, m->path ? m->path : "", m->build_id, id_len,
			      !id_len && m->path_trusted };
	uint64_t h = file_hash(&k);
	uint32_t v = t2f_hashmap__find(s->file_index, h, file_eq, &k);
	struct sym_file *f;

	if (v) {
		*idx = v - 1;
		return 0;
	}
	if (t2f_grow32((void **)&s->files, &s->cap_files, s->n_files, sizeof(*s->files), 16))
		return -ENOMEM;
	f = &s->files[s->n_files];
	memset(f, 0, sizeof(*f));
	f->path = strdup(k.path);
	if (!f->path || t2f_hashmap__insert(s->file_index, h, s->n_files + 1)) {
		free(f->path);
		return -ENOMEM;
	}
	if (id_len)
		memcpy(f->build_id, m->build_id, id_len);
	f->build_id_len = id_len;
	f->path_trusted = k.path_trusted;
	*idx = s->n_files++;
	return 0;
}

int t2f_symbolizer__add_module(struct t2f_symbolizer *s, const struct t2f_module_desc *m,
			       t2f_sym_module_id *id)
{
	struct sym_module *mod;
	uint32_t file;
	int err;

	err = t2f_grow32((void **)&s->mods, &s->cap_mods, s->n_mods, sizeof(*s->mods), 16);
	if (!err)
		err = t2f_sym__file_for(s, m, &file);
	if (err)
		return err;
	mod = &s->mods[s->n_mods];
	mod->file = file;
	mod->view = (struct t2f_map_view){
		.map_start = m->map_start, .map_end = m->map_end, .map_pgoff = m->map_pgoff,
		.has_segment = m->has_segment, .p_vaddr = m->p_vaddr, .p_offset = m->p_offset,
		.page_size = m->page_size,
	};
	mod->file_view = (struct t2f_map_view){
		.map_end = UINT64_MAX, .has_segment = m->has_segment, .p_vaddr = m->p_vaddr,
		.p_offset = m->p_offset, .page_size = m->page_size, .has_exec = m->has_exec,
		.exec_pgoff = m->exec_pgoff, .exec_len = m->exec_len,
	};
	*id = s->n_mods++;
	return 0;
}

/* The miss of a file none of whose candidates was taken, by the refusal that says most about
 * the module's own file: one refused for its size (verified), then for another build-id, a
 * CRC, a build-id missing, no symbols, not ELF, not a regular file; no refusal at all: no
 * file. */
static enum t2f_miss miss_of_refusals(const struct t2f_debug_result *r)
{
	static const struct { enum t2f_refusal_reason why; enum t2f_miss miss; } rank[] = {
		{ T2F_REFUSAL_OVER_LIMIT, T2F_MISS_DECODE_LIMIT },
		{ T2F_REFUSAL_BUILD_ID, T2F_MISS_BUILD_ID },
		{ T2F_REFUSAL_CRC, T2F_MISS_CRC },
		{ T2F_REFUSAL_NO_BUILD_ID, T2F_MISS_NO_BUILD_ID },
		{ T2F_REFUSAL_FILE_NO_BUILD_ID, T2F_MISS_NO_BUILD_ID },
		{ T2F_REFUSAL_NO_SYMBOLS, T2F_MISS_NO_SYMBOLS },
		{ T2F_REFUSAL_UNREADABLE, T2F_MISS_NOT_ELF },
		{ T2F_REFUSAL_NOT_FILE, T2F_MISS_NOT_REGULAR },
	};

	for (size_t k = 0; k < sizeof(rank) / sizeof(rank[0]); k++)
		for (size_t i = 0; i < r->n_refused; i++)
			if (r->refused[i].why == rank[k].why)
				return rank[k].miss;
	return T2F_MISS_NO_FILE;
}

/* The binary of the found file's build (the trace's build-id, else the found file's own):
 * t2f_debug_find_binary's places, else a candidate debug_find verified but refused for having
 * no symbols (a stripped binary beside its debug file). Its PT_LOAD table has the real
 * p_offset values a separate debug file's lack (module_map.h). NULL when none; -ENOMEM in
 * *err. */
static struct t2f_elf_module *find_binary(const struct t2f_sym_search *c,
					  const struct sym_file *f, int *err)
{
	struct t2f_elf_module *bin = NULL;
	size_t len = f->build_id_len;
	const uint8_t *id = len ? f->build_id : t2f_elf_module__build_id(f->files.module, &len);

	*err = t2f_debug_find_binary(c->find, f->path, id, id ? len : 0, c->diag, &bin);
	for (size_t i = 0; !bin && !*err && i < f->files.n_refused; i++)
		if (f->files.refused[i].why == T2F_REFUSAL_NO_SYMBOLS)
			*err = t2f_debug_find_binary(c->find, f->files.refused[i].path, id,
						     id ? len : 0, c->diag, &bin);
	return bin;
}

static int copy_loads(struct sym_file *f, const struct t2f_elf_module *from)
{
	size_t n = t2f_elf_module__load_count(from);

	f->loads = calloc(n ? n : 1, sizeof(*f->loads));
	if (!f->loads)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		f->loads[i] = *t2f_elf_module__load_at(from, i);
	f->table.loads = f->loads;
	f->table.n = n;
	f->table.offsets_trusted = t2f_loads_offsets_trusted(f->loads, n);
	return 0;
}

/* The PT_LOAD table for file_off → elf_vaddr: the found file's when it is the binary, else the
 * same build's binary (find_binary), else the found file's (a debug file: only p_vaddr/p_memsz
 * usable, offsets_trusted false; a full copy of the binary: all usable). */
static int load_table(const struct t2f_sym_search *c, struct sym_file *f)
{
	const struct t2f_elf_module *found = f->files.module;
	struct t2f_elf_module *bin = NULL;
	int err = 0;

	if (strcmp(t2f_elf_module__path(found), f->path) != 0)
		bin = find_binary(c, f, &err);
	if (err)
		return err;
	err = copy_loads(f, bin ? bin : found);
	f->table.memsz_offsets = c->find->perf_rules;
	f->binary = bin;  /* kept for the lookups its debug file misses: the PLT stubs */
	return err;
}

int t2f_sym__search_in(const struct t2f_sym_search *c, struct sym_file *f)
{
	int err;

	f->searched = true;
	f->file_miss = T2F_MISS_NO_FILE;
	if (f->path_trusted)
		err = t2f_debug_find_trusted(c->find, f->path, c->diag, &f->files);
	else
		err = t2f_debug_find(c->find, f->path, f->build_id_len ? f->build_id : NULL,
				     f->build_id_len, c->diag, &f->files);
	if (err)
		return err;
	if (!f->files.module) {
		f->file_miss = miss_of_refusals(&f->files);
		return 0;
	}
	err = load_table(c, f);
	if (err)
		return err;
	f->file_miss = T2F_HIT;
	if (c->find->perf_rules && f->binary) {  /* the found file was opened so by debug_find */
		t2f_elf_module__use_perf_rules(f->binary);
		t2f_elf_module__perf_plt_from(f->files.module, f->binary);
	}
	return 0;
}

int t2f_sym__file_search(struct t2f_symbolizer *s, struct sym_file *f)
{
	const struct t2f_sym_search c = { &s->find, s->diag };
	int err;

	if (t2f_sym__ahead_take(s, f, &err))
		return err;
	return t2f_sym__search_in(&c, f);
}

/* ---- names: cut and demangled once per raw name pointer, interned in the caller's strtab ---- */

struct name_key {
	const struct t2f_symbolizer *s;
	const char *raw;
};

static bool name_eq(const void *ctx, uint32_t value)
{
	const struct name_key *k = ctx;

	return k->s->name_cache[value].raw == k->raw;
}

/* The frame name of a symbol: without its version (formats/sym_version.h: "cfree" for
 * "cfree@GLIBC_2.2.5"), then demangled per the options ("std::thread::join()" for
 * "_ZNSt6thread4joinEv@@GLIBCXX_3.4.11"). */
static int intern_name(struct t2f_symbolizer *s, const char *raw, t2f_str_id *id)
{
	size_t len = strlen(raw), keep = t2f_sym_version_cut(raw, len);
	const char *name = raw;
	char *base = NULL, *dm;
	int err;

	if (keep < len) {
		base = strndup(raw, keep);
		if (!base)
			return -ENOMEM;
		name = base;
	}
	dm = t2f_demangle(name, s->demangle);
	name = dm ? dm : name;
	err = t2f_strtab__intern(s->names, name, strlen(name), id);
	free(dm);
	free(base);
	return err;
}

int t2f_sym__name_of(struct t2f_symbolizer *s, const char *raw, t2f_str_id *id)
{
	struct name_key k = { s, raw };
	uint64_t h = t2f_hash_u64((uint64_t)(uintptr_t)raw);
	uint32_t v = t2f_hashmap__find(s->name_index, h, name_eq, &k);
	int err;

	if (v) {
		*id = s->name_cache[v].id;
		return 0;
	}
	err = intern_name(s, raw, id);
	if (err)
		return err;
	if (t2f_grow32((void **)&s->name_cache, &s->cap_names, s->n_names,
			sizeof(*s->name_cache), 16))
		return 0; /* not cached: the next hit demangles again */
	if (t2f_hashmap__insert(s->name_index, h, s->n_names))
		return 0;
	s->name_cache[s->n_names++] = (struct name_ent){ raw, *id };
	return 0;
}

/* ---- memo per (file, elf_vaddr) ---- */

struct memo_key {
	const struct t2f_symbolizer *s;
	uint32_t file;
	uint64_t elf_vaddr;
};

static uint64_t memo_hash(uint32_t file, uint64_t elf_vaddr)
{
	return t2f_hash_u64(elf_vaddr ^ ((uint64_t)file << 48 | (uint64_t)file));
}

static bool memo_eq(const void *ctx, uint32_t value)
{
	const struct memo_key *k = ctx;
	const struct memo_ent *e = &k->s->memo[value];

	return e->file == k->file && e->elf_vaddr == k->elf_vaddr;
}

static void memo_put(struct t2f_symbolizer *s, uint64_t h, const struct memo_ent *e)
{
	if (t2f_grow32((void **)&s->memo, &s->cap_memo, s->n_memo, sizeof(*s->memo), 16))
		return; /* out of memory for the memo only: the result stands, uncached */
	if (t2f_hashmap__insert(s->memo_index, h, s->n_memo))
		return;
	s->memo[s->n_memo++] = *e;
}

static void sym_from_memo(const struct memo_ent *e, struct t2f_sym *out)
{
	out->name = e->name;
	out->elf_vaddr = e->elf_vaddr;
	out->offset = e->offset;
	out->miss = e->miss;
}

/* ---- table pages given back a few modules at a time ---- */

/* The table pages of the modules indexed since the last call, given back with one read of
 * /proc/self/maps for them all. */
static void release_held(struct t2f_symbolizer *s)
{
	t2f_elf_modules__release_files(s->held, s->n_held);
	s->n_held = 0;
	s->held_bytes = 0;
}

/* m (NULL is fine), when an index was just built from its tables: given back with the next
 * few. */
static void note_held(struct t2f_symbolizer *s, struct t2f_elf_module *m)
{
	if (!m || !t2f_elf_module__tables_held(m))
		return;
	for (size_t i = 0; i < s->n_held; i++)
		if (s->held[i] == m)
			return;
	s->held[s->n_held++] = m;
	s->held_bytes += t2f_elf_module__table_bytes(m);
	if (s->n_held == T2F_SYM_HELD_MAX || s->held_bytes >= T2F_SYM_HELD_BYTES)
		release_held(s);
}

/* No file noted as looked up since its table pages were given back. */
static void forget_touched(struct t2f_symbolizer *s)
{
	for (uint32_t i = 0; i < s->n_touched; i++)
		s->files[s->touched[i]].touched = false;
	s->n_touched = 0;
	s->touch_lookups = 0;
}

/* The pages of the files looked up since the last call, given back: lookups read names all
 * over a large file's string table, which would otherwise stay resident until the end of the
 * stage (h11.data: node's 7.5 MB). Each file's whole image goes, with one read of
 * /proc/self/maps for the batch (elf_module.h __release_files, which also learns whether each
 * module's tables lie in libelf's mapping, for release_big): its tables, headers, notes and the
 * pages around the tables, which a lookup does not read again. Kept to the end of the stage, they were 12.6 MB over 155 files at h15.data's peak
 * (ctest: a test program each), and the cold peak RSS 60.9-64.3 MiB against 54.7-57.6. */
static void release_touched(struct t2f_symbolizer *s)
{
	struct t2f_elf_module *mods[2 * T2F_SYM_TOUCHED_MAX];
	size_t n = 0;

	for (uint32_t i = 0; i < s->n_touched; i++) {
		struct sym_file *f = &s->files[s->touched[i]];

		if (f->files.module)
			mods[n++] = f->files.module;
		if (f->binary)
			mods[n++] = f->binary;
	}
	t2f_elf_modules__release_files(mods, n);
	forget_touched(s);
}

/* m's tables given back alone when they are large and known to lie in libelf's mapping (no
 * /proc/self/maps to read): the names a large file's lookups read lie all over its string
 * table (h11.data: the lookups faulted in 6.5 MB of node's 7.5 MB between two
 * release_touched). */
static void release_big(struct t2f_elf_module *m)
{
	if (m && t2f_elf_module__tables_mapped(m) &&
	    t2f_elf_module__table_bytes(m) >= T2F_SYM_BIG_TABLES)
		t2f_elf_modules__release_tables(&m, 1);
}

/* A lookup in f's tables: its pages are given back with those of the next few files, a large
 * file's alone more often. */
static void note_touched(struct t2f_symbolizer *s, struct sym_file *f)
{
	if (++f->lookups == T2F_SYM_BIG_LOOKUPS) {
		release_big(f->files.module);
		release_big(f->binary);
		f->lookups = 0;
	}
	if (!f->touched) {
		if (s->n_touched == T2F_SYM_TOUCHED_MAX)
			release_touched(s);
		f->touched = true;
		s->touched[s->n_touched++] = (uint32_t)(f - s->files);
	}
	if (++s->touch_lookups == T2F_SYM_TOUCH_LOOKUPS)
		release_touched(s);
}

/* After indexes were dropped: the cache of names is keyed by where a raw name lies, and the
 * dropped indexes' PLT names are freed (that memory may hold another name later); the memo
 * saves nothing more (a later lookup asks the file again), and its room goes too. */
static void forget_answers(struct t2f_symbolizer *s)
{
	struct t2f_hashmap *memo_index;
	struct memo_ent *memo;

	t2f_hashmap__clear(s->name_index);
	s->n_names = 1;
	s->names_gen++;
	if (t2f_hashmap__new(64, &memo_index) == 0) {
		t2f_hashmap__free(s->memo_index);
		s->memo_index = memo_index;
		s->n_memo = 1;
		if ((memo = realloc(s->memo, 16 * sizeof(*memo)))) {
			s->memo = memo;
			s->cap_memo = 16;
		}
	}
}

/* Whether f's DWARF asks for no symbol's name (its units are all in languages that mangle
 * none): checked once, for a file whose symbol tables are large, whose index the DWARF lookups
 * would otherwise hold (h11.data: /usr/bin/node, 185K symbols, 111 C units; 7.5 MB of index). */
static bool sym_plain_dwarf(struct sym_file *f)
{
	struct t2f_elf_module *m = f->files.module;

	if (!f->plain_dwarf && t2f_elf_module__table_bytes(m) >= T2F_SYM_BIG_TABLES)
		f->plain_dwarf = t2f_dwarf__plain_only(t2f_elf_module__path(m)) ? 1 : -1;
	return f->plain_dwarf > 0;
}

void t2f_symbolizer__symbols_done(struct t2f_symbolizer *s)
{
	struct t2f_elf_module **mods = malloc(2 * (size_t)s->n_files * sizeof(*mods) + 1);
	size_t n = 0;

	t2f_sym__ahead_free(s); /* every file was taken, or will be searched in place */
	for (uint32_t i = 0; i < s->n_files; i++) {
		struct t2f_elf_module *m = s->files[i].files.module, *bin = s->files[i].binary;

		if (m && (!t2f_elf_module__has_debug_info(m) || sym_plain_dwarf(&s->files[i])))
			t2f_elf_module__drop_index(m); /* no DWARF unit to name by its symbols */
		if (m && mods)
			mods[n++] = m;
		if (bin && mods)
			mods[n++] = bin;
	}
	forget_touched(s); /* their pages go with every file's */
	if (mods) { /* every file's pages: the names the hits read went back in, too */
		t2f_elf_modules__release_files(mods, n);
		s->n_held = 0;
		s->held_bytes = 0;
	} else {
		release_held(s);
	}
	free(mods);
	forget_answers(s);
}

void t2f_symbolizer__dwarf_done(struct t2f_symbolizer *s)
{
	for (uint32_t i = 0; i < s->n_files; i++)
		if (s->files[i].files.module)
			t2f_elf_module__drop_index(s->files[i].files.module);
	forget_answers(s);
}

/* Looks elf_vaddr up in the file's symbols (its cache file first: *cached): fills e, and
 * keeps the answer for the cache file with the addresses it holds for. 0 or -ENOMEM. */
static int lookup_symbol(struct t2f_symbolizer *s, struct sym_file *f, struct memo_ent *e,
			 bool *cached)
{
	struct t2f_symcache_sym cs = { .elf_vaddr = e->elf_vaddr, .last = e->elf_vaddr };
	struct t2f_elf_sym sym;
	int r;

	*cached = t2f_sym__cached_symbol(s, f, e, &r);
	if (*cached || r)
		return r;
	r = t2f_sym__file_real(s, f);
	if (r)
		return r;
	if (f->file_miss != T2F_HIT) {
		e->miss = f->file_miss;
		return 0;
	}
	r = f->add ? t2f_elf_module__lookup_span(f->files.module, e->elf_vaddr, &sym,
						  &cs.elf_vaddr, &cs.last)
		   : t2f_elf_module__lookup(f->files.module, e->elf_vaddr, &sym);
	note_held(s, f->files.module);

	/* a debug file has no PLT: its binary names the stubs (perf's tree holds them already);
	 * a binary refused for its compressed symbols names none (it warned) */
	if (r == 0 && f->binary && !s->perf_rules) {
		cs.elf_vaddr = cs.last = e->elf_vaddr;
		r = t2f_elf_module__lookup(f->binary, e->elf_vaddr, &sym);
		note_held(s, f->binary);
		if (r < 0 && t2f_elf_module__over_budget(f->binary))
			r = 0;
	}
	note_touched(s, f);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		if (s->diag)
			t2f_diag__warn(s->diag, f->path, 0, "reading the symbol tables failed: %s",
				       t2f_strerror(r));
		e->miss = T2F_MISS_NO_SYMBOLS;
		return 0;
	}
	if (r == 0) {
		e->miss = cs.miss = T2F_MISS_NOT_FOUND;
		return t2f_sym__cache_symbol(s, f, &cs);
	}
	e->miss = cs.miss = T2F_HIT;
	e->offset = e->elf_vaddr - sym.value;
	cs.value = sym.value;
	cs.name = sym.name;
	cs.name_gen = s->names_gen;
	return t2f_sym__name_of(s, sym.name, &e->name) ?: t2f_sym__cache_symbol(s, f, &cs);
}

/* elf_vaddr (the file's own space) → symbol, through the memo. An answer of a cache file is
 * not kept there: asked again, the file answers as fast (a search and the name's memo), and a
 * run's stages ask each address once (a warm run of a whole-machine recording put 44,775
 * answers in the memo and found none again: 2.8% of its CPU). 0 or -ENOMEM. */
static int resolve_in_file(struct t2f_symbolizer *s, uint32_t file, uint64_t elf_vaddr,
			   struct t2f_sym *out)
{
	struct memo_key k = { s, file, elf_vaddr };
	uint64_t h = memo_hash(file, elf_vaddr);
	uint32_t v = s->n_memo > 1 ? t2f_hashmap__find(s->memo_index, h, memo_eq, &k) : 0;
	struct memo_ent e = { .elf_vaddr = elf_vaddr, .file = file };
	bool cached;
	int err;

	if (v) {
		sym_from_memo(&s->memo[v], out);
		return 0;
	}
	err = lookup_symbol(s, &s->files[file], &e, &cached);
	if (err)
		return err;
	if (!cached)
		memo_put(s, h, &e);
	sym_from_memo(&e, out);
	return 0;
}

/* One address of module mod (whose file was searched) in the space view maps from. 0 or
 * -ENOMEM. */
static int resolve_view(struct t2f_symbolizer *s, const struct sym_module *mod,
			const struct t2f_map_view *view, uint64_t addr, struct t2f_sym *out)
{
	const struct sym_file *f = &s->files[mod->file];
	uint64_t elf_vaddr = 0;

	memset(out, 0, sizeof(*out));
	if (!t2f_map_view__contains(view, addr)) {
		out->miss = T2F_MISS_UNMAPPED;
		return 0;
	}
	if (f->file_miss != T2F_HIT) {
		if (t2f_map_view__segment_vaddr(view, addr, &elf_vaddr))
			out->elf_vaddr = elf_vaddr;
		out->miss = f->file_miss;
		return 0;
	}
	if (!t2f_map_view__elf_vaddr(view, &f->table, addr, &elf_vaddr)) {
		out->miss = t2f_map_view__needs_exec(view, &f->table) ? T2F_MISS_NEEDS_MAPPING
								      : T2F_MISS_UNMAPPED;
		return 0;
	}
	return resolve_in_file(s, mod->file, elf_vaddr, out);
}

int t2f_sym__module_ready(struct t2f_symbolizer *s, t2f_sym_module_id mod,
			const struct sym_module **out)
{
	struct sym_file *f = t2f_sym__file_of(s, mod);

	if (!f)
		return -EINVAL;
	*out = &s->mods[mod];
	return t2f_sym__file_ready(s, f);
}

int t2f_symbolizer__resolve_abs(struct t2f_symbolizer *s, t2f_sym_module_id mod,
				const uint64_t *abs_ips, size_t n, struct t2f_sym *out)
{
	const struct sym_module *m;
	int err = t2f_sym__module_ready(s, mod, &m);

	for (size_t i = 0; i < n && !err; i++)
		err = resolve_view(s, m, &m->view, abs_ips[i], &out[i]);
	return err;
}

int t2f_symbolizer__resolve_file_off(struct t2f_symbolizer *s, t2f_sym_module_id mod,
				     uint64_t file_off, struct t2f_sym *out)
{
	const struct sym_module *m;
	const struct t2f_map_view *v;
	uint64_t elf_vaddr;
	int err = t2f_sym__module_ready(s, mod, &m);

	if (err)
		return err;
	v = &m->file_view;
	if (!v->has_segment)
		return resolve_view(s, m, v, file_off, out);
	/* the trace's executable segment: elf_vaddr = file_off - p_offset + p_vaddr */
	if (__builtin_add_overflow(file_off, v->p_vaddr, &elf_vaddr) || elf_vaddr < v->p_offset) {
		*out = (struct t2f_sym){ .miss = T2F_MISS_UNMAPPED };
		return 0;
	}
	return t2f_symbolizer__resolve_vaddr(s, mod, elf_vaddr - v->p_offset, out);
}

int t2f_symbolizer__resolve_vaddr(struct t2f_symbolizer *s, t2f_sym_module_id mod,
				  uint64_t elf_vaddr, struct t2f_sym *out)
{
	const struct sym_module *m;
	const struct sym_file *f;
	int err = t2f_sym__module_ready(s, mod, &m);

	if (err)
		return err;
	f = &s->files[m->file];
	memset(out, 0, sizeof(*out));
	out->elf_vaddr = elf_vaddr;
	if (f->file_miss != T2F_HIT) {
		out->miss = f->file_miss;
		return 0;
	}
	return resolve_in_file(s, m->file, elf_vaddr, out);
}

/* Where a DWARF file's supplementary file may be: as debug files are looked for. */
static size_t alt_candidates(void *ctx, const char *path, const char *name, const uint8_t *id,
			     size_t len, char (*paths)[PATH_MAX], size_t max)
{
	const struct t2f_symbolizer *s = ctx;

	return t2f_debug_find_alt(&s->find, path, name, id, len, paths, max);
}

/* The symbol that starts at elf_vaddr in a symbol file (dwarf.h symbol_at): the one its frames
 * are named by. Only reads the module, whose index t2f_symbolizer__dwarf built. */
static const char *symbol_at(void *module, uint64_t elf_vaddr)
{
	return t2f_elf_module__name_at(module, elf_vaddr);
}

/* A lazily opened handle, begun: the cache file told whether it has DWARF; without, freed. */
static int sym_settle(struct t2f_symbolizer *s, struct sym_file *f)
{
	int err = t2f_dwarf__begin(f->dwarf); /* a no-op once a lookup began it */
	bool none = t2f_dwarf__none(f->dwarf);

	if (err)
		return err;
	f->dwarf_unsettled = false;
	if (f->add)
		t2f_symcache_new__set_dwarf(f->add, none ? T2F_SYMCACHE_DW_NONE
							 : T2F_SYMCACHE_DW_YES);
	if (!none)
		return 0;
	err = t2f_dwarf__report(f->dwarf, s->diag);
	t2f_dwarf__free(f->dwarf);
	f->dwarf = NULL;
	return err;
}

static int sym_dwarf(struct t2f_symbolizer *s, t2f_sym_module_id mod, bool lazy,
		     struct t2f_dwarf **out)
{
	const struct sym_module *m;
	struct sym_file *f;
	bool again = false;
	int err = t2f_sym__module_ready(s, mod, &m);

	*out = NULL;
	if (err)
		return err;
	f = &s->files[m->file];
	err = t2f_sym__file_real(s, f);
	if (err || f->file_miss != T2F_HIT)
		return err;
	/* a lazy handle settled before anyone but lookups sees it, or before it is opened again */
	if (f->dwarf && f->dwarf_unsettled && (!lazy || t2f_dwarf__ended(f->dwarf)) &&
	    (err = sym_settle(s, f)))
		return err;
	if (f->dwarf && t2f_dwarf__ended(f->dwarf)) { /* let go after earlier lookups: again */
		err = t2f_dwarf__report(f->dwarf, s->diag);
		t2f_dwarf__free(f->dwarf);
		f->dwarf = NULL;
		f->dwarf_tried = false;
		again = true;
		if (err)
			return err;
	}
	if (!f->dwarf_tried) {
		struct t2f_dwarf_opts o = { .budget = &s->dwarf_budget, .alt_candidates = alt_candidates,
					    .ctx = s, .sym_ctx = f->files.module,
					    .threads = s->dwarf_threads, .no_lines = s->no_lines };
		bool units = t2f_elf_module__has_debug_info(f->files.module);

		f->dwarf_tried = true;
		/* a file without .debug_info is settled now: no lookups queued for a handle that
		 * begins to find nothing */
		lazy = lazy && units;
		/* built here, so that lookups on other threads only read it (no index: no copy);
		 * only a file with units asks it (the resolve stage's index may be let go) */
		if (units && f->plain_dwarf <= 0 && t2f_elf_module__index(f->files.module) == 0)
			o.symbol_at = symbol_at;
		note_held(s, f->files.module);
		release_held(s);
		err = (lazy ? t2f_dwarf__open_lazy : t2f_dwarf__open)(
			t2f_elf_module__path(f->files.module), &o, s->diag, &f->dwarf);
		if (err == -ENOMEM)
			return err;
		/* the first opening tells the cache file; a lazy one once begun (__report_dwarf) */
		f->dwarf_unsettled = !again && lazy && f->dwarf;
		if (f->add && !again && !f->dwarf_unsettled)
			t2f_symcache_new__set_dwarf(f->add, f->dwarf ? T2F_SYMCACHE_DW_YES
								     : T2F_SYMCACHE_DW_NONE);
	}
	*out = f->dwarf;
	return 0;
}

int t2f_symbolizer__dwarf(struct t2f_symbolizer *s, t2f_sym_module_id mod,
			  struct t2f_dwarf **out)
{
	return sym_dwarf(s, mod, false, out);
}

int t2f_symbolizer__dwarf_lazy(struct t2f_symbolizer *s, t2f_sym_module_id mod,
			       struct t2f_dwarf **out)
{
	return sym_dwarf(s, mod, true, out);
}

int t2f_symbolizer__a2l_name(struct t2f_symbolizer *s, t2f_sym_module_id mod, uint64_t elf_vaddr,
			     t2f_str_id *name)
{
	const struct sym_module *m;
	struct sym_file *f;
	struct t2f_elf_sym sym;
	const char *raw;
	int err = t2f_sym__module_ready(s, mod, &m);

	*name = 0;
	if (err)
		return err;
	f = &s->files[m->file];
	if (f->cache && t2f_symcache__a2l(f->cache, elf_vaddr, &raw))
		return raw ? t2f_sym__name_of(s, raw, name) : 0;
	err = t2f_sym__file_real(s, f);
	if (err || f->file_miss != T2F_HIT)
		return err;
	err = t2f_elf_module__lookup_a2l(f->files.module, elf_vaddr, &sym);
	if (err < 0)
		return err == -ENOMEM ? err : 0;
	raw = err && sym.name[0] ? sym.name : NULL;
	err = f->add ? t2f_symcache_new__a2l(f->add, elf_vaddr, raw) : 0;
	return err ?: raw ? t2f_sym__name_of(s, raw, name) : 0;
}

int t2f_symbolizer__inlines(struct t2f_symbolizer *s, t2f_sym_module_id mod, uint64_t elf_vaddr,
			    struct t2f_dwarf_frame *out, size_t max, uint64_t *lo,
			    uint64_t *last)
{
	struct t2f_dwarf *dw;
	int err = t2f_symbolizer__dwarf(s, mod, &dw);
	int n = err ? err : dw ? t2f_dwarf__lookup_span(dw, elf_vaddr, out, max, lo, last) : 0;

	err = dw ? t2f_dwarf__report(dw, s->diag) : 0;
	return n < 0 ? n : err ? err : n;
}

int t2f_symbolizer__report_dwarf(struct t2f_symbolizer *s)
{
	int err = 0;

	for (size_t i = 0; i < s->n_files && !err; i++) {
		struct sym_file *f = &s->files[i];

		if (f->dwarf && f->dwarf_unsettled)
			err = sym_settle(s, f);
		if (!err && f->dwarf)
			err = t2f_dwarf__report(f->dwarf, s->diag);
	}
	return err;
}

const struct t2f_debuginfod_stats *t2f_symbolizer__debuginfod(const struct t2f_symbolizer *s)
{
	return s->find.fetch ? t2f_debuginfod__stats(s->find.fetch) : NULL;
}

const char *t2f_symbolizer__module_binary(const struct t2f_symbolizer *s, t2f_sym_module_id mod)
{
	const struct sym_file *f = t2f_sym__file_of(s, mod);

	return f ? t2f_sym__binary_used(f) : NULL;
}

const struct t2f_debug_result *t2f_symbolizer__module_files(const struct t2f_symbolizer *s,
							     t2f_sym_module_id mod)
{
	const struct sym_file *f = t2f_sym__file_of(s, mod);

	return f ? &f->files : NULL;
}
