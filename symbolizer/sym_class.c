/* symbolizer/sym_class.c: class sources (symbolizer.h t2f_symbolizer__class): a file's cache
 * file and its PT_LOAD table, copied so that keys are read on another thread while the
 * symbolizer goes on. */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats/grow.h"
#include "formats/hashmap.h"
#include "symbolizer/symbolizer_internal.h"

struct cls_rep {                   /* a (symbol answer, chain names) met first at range inl */
	uint64_t sym;
	uint32_t miss, inl;
};

struct cls_names {                 /* the ids of (symbol, chain names) pairs, from 1 */
	struct t2f_hashmap *ix;
	struct cls_rep *reps;
	size_t n, cap;
};

struct t2f_sym_class {
	const struct t2f_symcache *cache;
	bool inlines;                  /* keys hold the inline chains too */
	bool lines;                    /* frames show their lines: else keys of names */
	struct cls_names *names;       /* without lines (NULL: not made yet) */
	size_t n;
	struct t2f_elf_load loads[];   /* the file's, in its order */
};

/* Whether frames of f are named through its cache file alone, f's offsets mapped by the
 * binary's own table; *inlines cleared when the file has no DWARF (no chain is looked up). */
static bool class_usable(const struct sym_file *f, bool *inlines)
{
	enum t2f_symcache_dwarf dw;

	if (!f->from_cache || !f->cache || f->file_miss != T2F_HIT || !f->table.offsets_trusted)
		return false;
	dw = t2f_symcache__dwarf(f->cache);
	if (*inlines && dw == T2F_SYMCACHE_DW_UNKNOWN)
		return false;
	*inlines = *inlines && dw == T2F_SYMCACHE_DW_YES;
	return true;
}

static void names_free(struct t2f_sym_class *k)
{
	if (k->names) {
		t2f_hashmap__free(k->names->ix);
		free(k->names->reps);
		free(k->names);
		k->names = NULL;
	}
}

void t2f_sym_class__free(struct t2f_sym_class *k)
{
	if (k)
		names_free(k);
	free(k);
}

int t2f_symbolizer__class(struct t2f_symbolizer *s, const char *path, const uint8_t *build_id,
			  size_t len, bool inlines, bool lines, struct t2f_sym_class **out)
{
	const struct t2f_module_desc desc = { .path = path, .build_id = build_id,
					      .build_id_len = len };
	struct sym_file *f;
	uint32_t idx;
	int err;

	*out = NULL;
	if (!len || len > T2F_BUILD_ID_MAX)
		return 0;
	err = t2f_sym__file_for(s, &desc, &idx);
	f = err ? NULL : &s->files[idx];
	err = err ?: t2f_sym__cache_try(s, f);
	if (err || !class_usable(f, &inlines))
		return err;
	if (!f->klass) {
		f->klass = malloc(sizeof(*f->klass) + f->table.n * sizeof(f->klass->loads[0]));
		if (!f->klass)
			return -ENOMEM;
		f->klass->cache = f->cache;
		f->klass->inlines = inlines;
		f->klass->lines = lines;
		f->klass->names = NULL;
		f->klass->n = f->table.n;
		if (f->table.n)
			memcpy(f->klass->loads, f->table.loads, f->table.n * sizeof(f->table.loads[0]));
	}
	*out = f->klass->inlines == inlines && f->klass->lines == lines ? f->klass : NULL;
	return 0;
}

/* The first executable PT_LOAD whose file bytes hold off, as file offsets are mapped
 * (module_map.c), or NULL. */
static const struct t2f_elf_load *class_segment(const struct t2f_sym_class *k, uint64_t off)
{
	for (size_t i = 0; i < k->n; i++) {
		const struct t2f_elf_load *seg = &k->loads[i];

		if ((seg->p_flags & PF_X) && off >= seg->p_offset && off - seg->p_offset < seg->p_filesz)
			return seg;
	}
	return NULL;
}

struct names_probe {
	const struct t2f_sym_class *k;
	struct cls_rep r;
};

static bool names_eq(const void *ctx, uint32_t v)
{
	const struct names_probe *q = ctx;
	const struct cls_rep *r = &q->k->names->reps[v - 1];

	return r->sym == q->r.sym && r->miss == q->r.miss &&
	       t2f_symcache__same_names(q->k->cache, r->inl, q->r.inl);
}

/* The id of (the symbol answer of pt, the names of inline range inl's chain), from 1; 0: none
 * (out of memory, or 2^32 - 2 given). */
static uint32_t names_id(const struct t2f_sym_class *k, const struct t2f_symcache_parts *pt,
			 uint32_t inl)
{
	struct cls_names *c = k->names;
	const struct names_probe q = { k, { pt->sym, pt->miss, inl } };
	uint64_t h = t2f_hash_u64(pt->sym ^ (uint64_t)pt->miss << 56 ^
				  t2f_symcache__names_hash(k->cache, inl));
	uint32_t v = t2f_hashmap__find(c->ix, h, names_eq, &q);

	if (v)
		return v;
	if (t2f_grow((void **)&c->reps, &c->cap, c->n, 1, sizeof(*c->reps), 256, UINT32_MAX - 2) ||
	    t2f_hashmap__insert(c->ix, h, (uint32_t)c->n + 1))
		return 0;
	c->reps[c->n] = q.r;
	return (uint32_t)++c->n;
}

/* The key of elf_vaddr when no address or line shows: the ids of (symbol answer, chain names)
 * at the address and at the address - 1 (each id holds the symbol answer, so the pair does).
 * The misses of a file are one answer, whichever range between its symbols they are in. */
static bool names_key(struct t2f_sym_class *k, uint64_t va, uint64_t *key)
{
	struct t2f_symcache_parts pt;
	uint32_t at, prev;

	if (!k->names) {
		k->names = calloc(1, sizeof(*k->names));
		if (!k->names || t2f_hashmap__new(256, &k->names->ix)) {
			names_free(k);
			return false;
		}
	}
	if (!t2f_symcache__class_parts(k->cache, va, k->inlines, &pt))
		return false;
	at = names_id(k, &pt, pt.at);
	prev = pt.prev == pt.at || !at ? at : names_id(k, &pt, pt.prev);
	*key = (uint64_t)at << 32 | prev;
	return at && prev;
}

bool t2f_sym_class__key(struct t2f_sym_class *k, uint64_t off, uint64_t *key)
{
	const struct t2f_elf_load *seg = off ? class_segment(k, off) : NULL;
	uint64_t va;

	if (!seg || off == seg->p_offset ||
	    __builtin_add_overflow(off - seg->p_offset, seg->p_vaddr, &va))
		return false;
	if (!k->lines)
		return names_key(k, va, key);
	return t2f_symcache__class(k->cache, va, k->inlines, key);
}

int t2f_symbolizer__resolve_file_off_like(struct t2f_symbolizer *s, t2f_sym_module_id mod,
					  uint64_t file_off, const struct t2f_sym *like,
					  struct t2f_sym *out)
{
	const struct sym_module *m;
	const struct sym_file *f;
	uint64_t va;
	int err = t2f_sym__module_ready(s, mod, &m);

	if (err)
		return err;
	f = &s->files[m->file];
	if (!f->klass || !f->cache || f->file_miss != T2F_HIT || m->file_view.has_segment ||
	    !t2f_map_view__elf_vaddr(&m->file_view, &f->table, file_off, &va))
		return t2f_symbolizer__resolve_file_off(s, mod, file_off, out);
	*out = *like;
	out->elf_vaddr = va;
	/* modulo 2^64: like's offset from the symbol's start, moved by the distance */
	out->offset = like->miss == T2F_HIT ? like->offset + (va - like->elf_vaddr) : 0;
	t2f_symcache_dir__stats(s->cache)->answers++;
	return 0;
}
