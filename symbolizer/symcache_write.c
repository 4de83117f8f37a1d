/* symbolizer/symcache_write.c: a run's answers written as a cache file (symcache.h), merged
 * with the old file's; the size limit kept by removing the least recently used files. */
#include "symbolizer/symcache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/grow.h"
#include "formats/hashmap.h"
#include "symbolizer/debug_find.h"
#include "symbolizer/symcache_fmt.h"
#include "symbolizer/symcache_internal.h"
#include "symbolizer/text_syms_cache.h"

struct new_sym {
	uint64_t vaddr, last, value;
	char *name;
	const char *raw;   /* where name was copied from, in generation gen (t2f_symcache_sym) */
	uint64_t gen;
	uint32_t miss;
};
struct new_a2l { uint64_t vaddr; char *name; };
struct new_inl { uint64_t vaddr, last; size_t first; uint32_t n; };

struct t2f_symcache_new {
	struct t2f_elf_load *loads;
	size_t n_loads;
	struct t2f_symcache_refused *refused; /* strings owned */
	size_t n_refused;
	uint64_t missing;
	enum t2f_symcache_dwarf dwarf;
	struct new_sym *syms;
	size_t n_syms, cap_syms;
	struct t2f_hashmap *sym_index;   /* syms by their fields: each answer kept once (1 + i) */
	struct new_a2l *a2l;
	size_t n_a2l, cap_a2l;
	struct new_inl *inl;
	size_t n_inl, cap_inl;
	struct t2f_dwarf_frame *frames;  /* strings owned */
	size_t n_frames, cap_frames;
	uint64_t asks;                   /* calls of __sym, __a2l, __inlines */
};

int t2f_symcache_new__new(struct t2f_symcache_new **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

static void free_refused(struct t2f_symcache_new *w)
{
	for (size_t i = 0; i < w->n_refused; i++) {
		free((char *)w->refused[i].path);
		free((char *)w->refused[i].found_id);
	}
	free(w->refused);
	w->refused = NULL;
	w->n_refused = 0;
}

void t2f_symcache_new__free(struct t2f_symcache_new *w)
{
	if (!w)
		return;
	free_refused(w);
	free(w->loads);
	for (size_t i = 0; i < w->n_syms; i++)
		free(w->syms[i].name);
	for (size_t i = 0; i < w->n_a2l; i++)
		free(w->a2l[i].name);
	for (size_t i = 0; i < w->n_frames; i++) {
		free((char *)w->frames[i].name);
		free((char *)w->frames[i].file);
		free((char *)w->frames[i].fn_file);
	}
	free(w->syms);
	t2f_hashmap__free(w->sym_index);
	free(w->a2l);
	free(w->inl);
	free(w->frames);
	free(w);
}

/* A copy of s (NULL for NULL): 0, or -ENOMEM. */
static int dup_str(const char *s, char **out)
{
	*out = s ? strdup(s) : NULL;
	return s && !*out ? -ENOMEM : 0;
}

int t2f_symcache_new__set_file(struct t2f_symcache_new *w, const struct t2f_elf_load *loads,
			       size_t n_loads, const struct t2f_symcache_refused *refused,
			       size_t n_refused, uint64_t missing, enum t2f_symcache_dwarf dw)
{
	free(w->loads);
	free_refused(w);
	w->loads = malloc((n_loads ? n_loads : 1) * sizeof(*loads));
	w->refused = calloc(n_refused ? n_refused : 1, sizeof(*refused));
	if (!w->loads || !w->refused)
		return -ENOMEM;
	if (n_loads)
		memcpy(w->loads, loads, n_loads * sizeof(*loads));
	w->n_loads = n_loads;
	for (size_t i = 0; i < n_refused; i++) {
		char *p, *id;

		if (dup_str(refused[i].path, &p))
			return -ENOMEM;
		if (dup_str(refused[i].found_id ? refused[i].found_id : "", &id)) {
			free(p);
			return -ENOMEM;
		}
		w->refused[w->n_refused++] = (struct t2f_symcache_refused){ p, refused[i].why, id };
	}
	w->missing = missing;
	w->dwarf = dw;
	return 0;
}

void t2f_symcache_new__set_dwarf(struct t2f_symcache_new *w, enum t2f_symcache_dwarf dw)
{
	w->dwarf = dw;
}

struct sym_key {
	const struct t2f_symcache_new *w;
	const struct t2f_symcache_sym *s;
};

static bool sym_eq(const void *ctx, uint32_t value)
{
	const struct sym_key *k = ctx;
	const struct new_sym *e = &k->w->syms[value - 1];

	if (e->vaddr != k->s->elf_vaddr || e->last != k->s->last || e->value != k->s->value ||
	    e->miss != k->s->miss)
		return false;
	if (!e->name || !k->s->name)
		return e->name == k->s->name;
	/* the name met before at the same place: equal without reading it (most repeats: the
	 * addresses of one function, its name's page of the file maybe not touched yet) */
	return (e->raw == k->s->name && e->gen == k->s->name_gen) ||
	       strcmp(e->name, k->s->name) == 0;
}

/* Each answer is kept once: the lookups of many addresses of one function give its range
 * again and again, and a repeat changes nothing the file is written from (sort_unique keeps
 * the first of equal answers and drops the rest). */
int t2f_symcache_new__sym(struct t2f_symcache_new *w, const struct t2f_symcache_sym *s)
{
	struct sym_key k = { w, s };
	uint64_t h = t2f_hash_u64(s->elf_vaddr ^ t2f_hash_u64(s->last));
	char *name;

	w->asks++;
	if (!w->sym_index && t2f_hashmap__new(64, &w->sym_index))
		return -ENOMEM;
	if (t2f_hashmap__find(w->sym_index, h, sym_eq, &k))
		return 0;
	if (w->n_syms >= UINT32_MAX - 1 ||
	    t2f_grow((void **)&w->syms, &w->cap_syms, w->n_syms, 1, sizeof(*w->syms), 64,
		     SIZE_MAX / sizeof(*w->syms)) || dup_str(s->name, &name))
		return -ENOMEM;
	if (t2f_hashmap__insert(w->sym_index, h, (uint32_t)w->n_syms + 1)) {
		free(name);
		return -ENOMEM;
	}
	w->syms[w->n_syms++] = (struct new_sym){ s->elf_vaddr, s->last, s->value, name, s->name,
						 s->name_gen, s->miss };
	return 0;
}

int t2f_symcache_new__a2l(struct t2f_symcache_new *w, uint64_t elf_vaddr, const char *name)
{
	char *copy;

	w->asks++;
	if (t2f_grow((void **)&w->a2l, &w->cap_a2l, w->n_a2l, 1, sizeof(*w->a2l), 16,
		     SIZE_MAX / sizeof(*w->a2l)) || dup_str(name, &copy))
		return -ENOMEM;
	w->a2l[w->n_a2l++] = (struct new_a2l){ elf_vaddr, copy };
	return 0;
}

int t2f_symcache_new__inlines(struct t2f_symcache_new *w, uint64_t lo, uint64_t last,
			      const struct t2f_dwarf_frame *frames, size_t n)
{
	w->asks++;
	if (t2f_grow((void **)&w->inl, &w->cap_inl, w->n_inl, 1, sizeof(*w->inl), 64,
		     SIZE_MAX / sizeof(*w->inl)) ||
	    t2f_grow((void **)&w->frames, &w->cap_frames, w->n_frames, n, sizeof(*w->frames), 64,
		     SIZE_MAX / sizeof(*w->frames)))
		return -ENOMEM;
	w->inl[w->n_inl++] = (struct new_inl){ lo, last, w->n_frames, (uint32_t)n };
	for (size_t k = 0; k < n; k++) {
		struct t2f_dwarf_frame *g = &w->frames[w->n_frames];
		char *name, *file, *fn_file;

		*g = frames[k];
		g->name = g->file = g->fn_file = NULL;
		w->n_frames++;  /* freed with the others from here on */
		if (dup_str(frames[k].name, &name))
			return -ENOMEM;
		g->name = name;
		if (dup_str(frames[k].file, &file))
			return -ENOMEM;
		g->file = file;
		if (dup_str(frames[k].fn_file, &fn_file))
			return -ENOMEM;
		g->fn_file = fn_file;
	}
	return 0;
}

uint64_t t2f_symcache_new__asks(const struct t2f_symcache_new *w)
{
	return w->asks;
}

/* ---- the file's bytes ---- */

struct strs {                      /* the string section, each string once */
	char *p;
	size_t n, cap;
	struct t2f_hashmap *index;     /* hash → offset + 1 */
	const char *key;
	size_t key_len;
};

static bool str_eq(const void *ctx, uint32_t value)
{
	const struct strs *s = ctx;

	return s->n - (value - 1) > s->key_len && memcmp(s->p + value - 1, s->key, s->key_len) == 0 &&
	       s->p[value - 1 + s->key_len] == '\0';
}

/* str's offset in the section (NONE for NULL). */
static int str_put(struct strs *s, const char *str, uint32_t *off)
{
	uint64_t h;
	uint32_t v;

	*off = T2F_SYMCACHE_NONE;
	if (!str)
		return 0;
	s->key = str;
	s->key_len = strlen(str);
	h = t2f_hash_bytes(str, s->key_len);
	v = t2f_hashmap__find(s->index, h, str_eq, s);
	if (v) {
		*off = v - 1;
		return 0;
	}
	if (s->n + s->key_len + 1 >= T2F_SYMCACHE_NONE - 1)
		return -E2BIG;
	if (t2f_grow((void **)&s->p, &s->cap, s->n, s->key_len + 1, 1, 4096, UINT32_MAX) ||
	    t2f_hashmap__insert(s->index, h, (uint32_t)s->n + 1))
		return -ENOMEM;
	memcpy(s->p + s->n, str, s->key_len + 1);
	*off = (uint32_t)s->n;
	s->n += s->key_len + 1;
	return 0;
}

struct out {                       /* the file being made, in memory */
	uint8_t *p;
	size_t n, cap;
};

static int put(struct out *o, const void *data, size_t len)
{
	size_t pad = (8 - o->n % 8) % 8;

	if (t2f_grow((void **)&o->p, &o->cap, o->n, pad + len, 1, 4096, SIZE_MAX / 2))
		return -ENOMEM;
	memset(o->p + o->n, 0, pad);
	o->n += pad;
	if (len)
		memcpy(o->p + o->n, data, len);
	o->n += len;
	return 0;
}

/* ---- merging a run's answers with the old file's ---- */

struct rec {                       /* one answer of either source, for sorting */
	uint64_t vaddr;
	uint64_t last;                 /* symbol answers, inline chains: the range's last address */
	uint64_t value;                /* symbol answers: the symbol's start */
	uint32_t seq;                  /* the run's first, then the old file's */
	uint32_t miss;
	uint32_t n;                    /* frames (inline chains) */
	const char *name;
	const struct t2f_dwarf_frame *frames;  /* inline chains */
};

static int rec_cmp(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	if (x->vaddr != y->vaddr)
		return x->vaddr < y->vaddr ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Two symbol answers alike: both misses, or the same symbol. */
static bool rec_same(const struct rec *x, const struct rec *y)
{
	if (x->miss || y->miss)
		return x->miss == y->miss;
	return x->value == y->value && x->name && y->name && strcmp(x->name, y->name) == 0;
}

static bool str_same(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* Two inline chains alike: the same frames, names and lines. */
static bool chain_same(const struct rec *x, const struct rec *y)
{
	if (x->n != y->n)
		return false;
	for (uint32_t i = 0; i < x->n; i++) {
		const struct t2f_dwarf_frame *a = &x->frames[i], *b = &y->frames[i];

		if (a->linkage != b->linkage || a->copy != b->copy ||
		    a->as_symbol != b->as_symbol || a->line != b->line ||
		    a->fn_line != b->fn_line || !str_same(a->name, b->name) ||
		    !str_same(a->file, b->file) || !str_same(a->fn_file, b->fn_file))
			return false;
	}
	return true;
}

enum rec_kind { REC_SYMS, REC_A2L, REC_INL };

/* Sorts recs and keeps the first of each address: the run's answer over the old file's. With
 * ranges (symbol answers, inline chains: last set), one that starts inside the range kept
 * before it joins it when it gives the same answer (the lookups may see one answer's
 * addresses in different pieces: perf's array and its tree do for symbols; a one-address line
 * row's span and its same-line neighbour's do for chains), else is dropped, so the ranges stay
 * disjoint (exact ranges of one file never overlap with different answers: this only keeps
 * the reader's search simple). */
static size_t sort_unique(struct rec *r, size_t n, enum rec_kind kind)
{
	size_t k = 0;

	qsort(r, n, sizeof(*r), rec_cmp);
	for (size_t i = 0; i < n; i++) {
		bool same;

		if (!k || (kind != REC_A2L ? r[k - 1].last < r[i].vaddr
					   : r[k - 1].vaddr != r[i].vaddr)) {
			r[k++] = r[i];
			continue;
		}
		same = kind == REC_SYMS ? rec_same(&r[k - 1], &r[i])
		       : kind == REC_INL && chain_same(&r[k - 1], &r[i]);
		if (same && r[i].last > r[k - 1].last)
			r[k - 1].last = r[i].last;
	}
	return k;
}

struct build {
	struct strs s;
	struct rec *r[3];              /* symbols, addr2line names, inline chains */
	size_t n[3];
	struct t2f_dwarf_frame *old_frames;  /* the old file's chains, copied out */
	struct out o;
};

static void build_free(struct build *b)
{
	free(b->s.p);
	t2f_hashmap__free(b->s.index);
	for (int i = 0; i < 3; i++)
		free(b->r[i]);
	free(b->old_frames);
	free(b->o.p);
}

/* Every answer of the old file (sort_unique drops those the run has too). */
static void collect_old(struct build *b, const struct t2f_symcache *old, uint32_t seq)
{
	const struct t2f_sc_sym *sy = T2F_SC_SEC(old, T2F_SC_SYMS, struct t2f_sc_sym);
	const struct t2f_sc_a2l *a = T2F_SC_SEC(old, T2F_SC_A2L, struct t2f_sc_a2l);
	const struct t2f_sc_inl *in = T2F_SC_SEC(old, T2F_SC_INL, struct t2f_sc_inl);
	struct t2f_dwarf_frame *fr = b->old_frames;

	for (uint64_t i = 0; i < old->h->sec[T2F_SC_SYMS].count; i++)
		b->r[0][b->n[0]++] = (struct rec){ .vaddr = sy[i].vaddr, .seq = seq++,
			.last = sy[i].last, .value = sy[i].value, .miss = sy[i].miss,
			.name = t2f_symcache_str(old, sy[i].name) };
	for (uint64_t i = 0; i < old->h->sec[T2F_SC_A2L].count; i++)
		b->r[1][b->n[1]++] = (struct rec){ .vaddr = a[i].vaddr, .seq = seq++,
			.name = t2f_symcache_str(old, a[i].name) };
	for (uint64_t i = 0; i < old->h->sec[T2F_SC_INL].count; i++) {
		int n = t2f_symcache_chain(old, &in[i], fr, T2F_DWARF_MAX_DEPTH);

		b->r[2][b->n[2]++] = (struct rec){ .vaddr = in[i].vaddr, .last = in[i].last,
						   .seq = seq++, .n = (uint32_t)n, .frames = fr };
		fr += n;
	}
}

static int collect(struct build *b, const struct t2f_symcache_new *w,
		   const struct t2f_symcache *old)
{
	uint64_t n_old[3] = { 0 };
	uint32_t seq = 0;

	if (old) {
		n_old[0] = old->h->sec[T2F_SC_SYMS].count;
		n_old[1] = old->h->sec[T2F_SC_A2L].count;
		n_old[2] = old->h->sec[T2F_SC_INL].count;
	}
	b->r[0] = calloc(w->n_syms + n_old[0] + 1, sizeof(struct rec));
	b->r[1] = calloc(w->n_a2l + n_old[1] + 1, sizeof(struct rec));
	b->r[2] = calloc(w->n_inl + n_old[2] + 1, sizeof(struct rec));
	b->old_frames = calloc(old ? old->h->sec[T2F_SC_FRAMES].count + 1 : 1,
			       sizeof(*b->old_frames));
	if (!b->r[0] || !b->r[1] || !b->r[2] || !b->old_frames)
		return -ENOMEM;
	for (size_t i = 0; i < w->n_syms; i++)
		b->r[0][b->n[0]++] = (struct rec){ .vaddr = w->syms[i].vaddr, .seq = seq++,
			.last = w->syms[i].last, .value = w->syms[i].value, .miss = w->syms[i].miss,
			.name = w->syms[i].name };
	for (size_t i = 0; i < w->n_a2l; i++)
		b->r[1][b->n[1]++] = (struct rec){ .vaddr = w->a2l[i].vaddr, .seq = seq++,
						   .name = w->a2l[i].name };
	for (size_t i = 0; i < w->n_inl; i++)
		b->r[2][b->n[2]++] = (struct rec){ .vaddr = w->inl[i].vaddr, .seq = seq++,
			.last = w->inl[i].last, .n = w->inl[i].n,
			.frames = w->frames ? w->frames + w->inl[i].first : NULL };
	if (old)
		collect_old(b, old, seq);
	for (int i = 0; i < 3; i++)
		b->n[i] = sort_unique(b->r[i], b->n[i], (enum rec_kind)i);
	return 0;
}

static void stat_of(const char *path, struct t2f_sc_stat *out)
{
	struct stat st;

	*out = (struct t2f_sc_stat){ 0 };
	if (path && stat(path, &st) == 0)
		*out = (struct t2f_sc_stat){ (uint64_t)st.st_size, st.st_mtim.tv_sec,
					     st.st_mtim.tv_nsec };
}

/* Appends the array of section i (n elements of size elem) to the file. */
static int section(struct build *b, struct t2f_symcache_hdr *h, int i, const void *p, size_t n,
		   size_t elem)
{
	int err = put(&b->o, NULL, 0);

	h->sec[i] = (struct t2f_sc_section){ b->o.n, n };
	return err ?: put(&b->o, p, n * elem);
}

static int emit_file(struct build *b, struct t2f_symcache_hdr *h, const struct t2f_symcache_new *w)
{
	struct t2f_sc_load *l = calloc(w->n_loads + 1, sizeof(*l));
	struct t2f_sc_refused *rf = calloc(w->n_refused + 1, sizeof(*rf));
	int err = l && rf ? 0 : -ENOMEM;

	for (size_t i = 0; i < w->n_loads; i++)
		l[i] = (struct t2f_sc_load){ w->loads[i].p_offset, w->loads[i].p_vaddr,
					     w->loads[i].p_filesz, w->loads[i].p_memsz,
					     w->loads[i].p_flags };
	for (size_t i = 0; i < w->n_refused && !err; i++) {
		rf[i].why = w->refused[i].why;
		err = str_put(&b->s, w->refused[i].path, &rf[i].path) ?:
		      str_put(&b->s, w->refused[i].found_id, &rf[i].found_id);
	}
	err = err ?: section(b, h, T2F_SC_LOADS, l, w->n_loads, sizeof(*l)) ?:
	      section(b, h, T2F_SC_REFUSED, rf, w->n_refused, sizeof(*rf));
	free(l);
	free(rf);
	return err;
}

static int emit_answers(struct build *b, struct t2f_symcache_hdr *h)
{
	size_t n_fr = 0;
	struct t2f_sc_sym *sy = calloc(b->n[0] + 1, sizeof(*sy));
	struct t2f_sc_a2l *a = calloc(b->n[1] + 1, sizeof(*a));
	struct t2f_sc_inl *in = calloc(b->n[2] + 1, sizeof(*in));
	struct t2f_sc_frame *fr;
	int err = sy && a && in ? 0 : -ENOMEM;

	for (size_t i = 0; i < b->n[2]; i++)
		n_fr += b->r[2][i].n;
	fr = calloc(n_fr + 1, sizeof(*fr));
	err = err ?: fr ? 0 : -ENOMEM;
	for (size_t i = 0; i < b->n[0] && !err; i++) {
		sy[i] = (struct t2f_sc_sym){ b->r[0][i].vaddr, b->r[0][i].last, b->r[0][i].value, 0,
					     b->r[0][i].miss };
		err = str_put(&b->s, b->r[0][i].name, &sy[i].name);
	}
	for (size_t i = 0; i < b->n[1] && !err; i++) {
		a[i].vaddr = b->r[1][i].vaddr;
		err = str_put(&b->s, b->r[1][i].name, &a[i].name);
	}
	n_fr = 0;
	for (size_t i = 0; i < b->n[2] && !err; i++) {
		in[i] = (struct t2f_sc_inl){ b->r[2][i].vaddr, b->r[2][i].last, (uint32_t)n_fr,
					     b->r[2][i].n };
		for (uint32_t k = 0; k < b->r[2][i].n && !err; k++, n_fr++) {
			const struct t2f_dwarf_frame *f = &b->r[2][i].frames[k];
			struct t2f_sc_frame *g = &fr[n_fr];

			*g = (struct t2f_sc_frame){ .line = f->line, .fn_line = f->fn_line,
				.flags = (f->linkage ? T2F_SC_LINKAGE : 0) |
					 (f->copy ? T2F_SC_COPY : 0) |
					 (f->as_symbol ? T2F_SC_AS_SYMBOL : 0) };
			err = str_put(&b->s, f->name, &g->name) ?:
			      str_put(&b->s, f->file, &g->file) ?:
			      str_put(&b->s, f->fn_file, &g->fn_file);
		}
	}
	err = err ?: section(b, h, T2F_SC_SYMS, sy, b->n[0], sizeof(*sy)) ?:
	      section(b, h, T2F_SC_A2L, a, b->n[1], sizeof(*a)) ?:
	      section(b, h, T2F_SC_INL, in, b->n[2], sizeof(*in)) ?:
	      section(b, h, T2F_SC_FRAMES, fr, n_fr, sizeof(*fr));
	free(sy);
	free(a);
	free(in);
	free(fr);
	return err;
}

/* Whether the file written holds inline chains without lines: w's, made without, or old's,
 * kept. A file of symbols alone, or whose chains all have lines, serves runs with lines too. */
static bool chains_lack_lines(const struct t2f_symcache_new *w,
			      const struct t2f_symcache_ident *id, const struct t2f_symcache *old)
{
	return (id->no_lines && w->n_inl) || (old && (old->h->flags & T2F_SC_NO_LINES));
}

/* The whole file in b->o. */
static int emit(struct build *b, const struct t2f_symcache_new *w,
		const struct t2f_symcache_ident *id, bool no_lines)
{
	struct t2f_symcache_hdr h = { .version = T2F_SYMCACHE_VERSION, .hdr_size = sizeof(h),
				      .flags = (id->perf_rules ? T2F_SC_PERF_RULES : 0) |
					       (no_lines ? T2F_SC_NO_LINES : 0),
				      .opts_hash = id->opts_hash, .dwarf = w->dwarf,
				      .missing = w->missing };
	int err;

	memcpy(h.magic, T2F_SYMCACHE_MAGIC, 8);
	if (id->build_id_len > sizeof(h.build_id))
		return -EINVAL;
	memcpy(h.build_id, id->build_id, id->build_id_len);
	h.build_id_len = (uint32_t)id->build_id_len;
	stat_of(id->module_path, &h.module_st);
	stat_of(id->file_path, &h.file_st);
	stat_of(id->binary_path, &h.binary_st);
	err = put(&b->o, &h, sizeof(h)) ?:
	      str_put(&b->s, id->module_path, &h.module_path) ?:
	      str_put(&b->s, id->file_path, &h.file_path) ?:
	      str_put(&b->s, id->binary_path, &h.binary_path) ?:
	      emit_file(b, &h, w) ?: emit_answers(b, &h);
	if (!err && !b->s.n)
		err = str_put(&b->s, "", &(uint32_t){ 0 });
	err = err ?: section(b, &h, T2F_SC_STRINGS, b->s.p, b->s.n, 1) ?: put(&b->o, NULL, 0);
	if (err)
		return err;
	h.file_size = b->o.n;
	memcpy(b->o.p, &h, sizeof(h));
	return 0;
}

int t2f_symcache_put_all(int fd, const void *p, size_t n)
{
	for (size_t done = 0; done < n;) {
		ssize_t k = write(fd, (const uint8_t *)p + done, n - done);

		if (k < 0 && errno != EINTR)
			return -errno;
		done += k > 0 ? (size_t)k : 0;
	}
	return 0;
}

int t2f_symcache_dir_put(struct t2f_symcache_dir *d, const char *name,
			 int (*fill)(int fd, void *arg), void *arg)
{
	char *tmp = NULL;
	int fd, err;

	if (asprintf(&tmp, "%s/.%s.XXXXXX", d->path, name) < 0)
		return -ENOMEM;
	fd = mkstemp(tmp);  /* 0600 */
	if (fd < 0) {
		err = -errno;
		free(tmp);
		return err;
	}
	err = fill(fd, arg);
	if (close(fd) && !err)
		err = -errno;
	if (!err && renameat(AT_FDCWD, tmp, d->fd, name))
		err = -errno;
	if (err)
		unlink(tmp);
	free(tmp);
	return err;
}

struct bytes {                     /* what put_bytes writes */
	const void *p;
	size_t n;
};

static int put_bytes(int fd, void *arg)
{
	const struct bytes *b = arg;

	return t2f_symcache_put_all(fd, b->p, b->n);
}

int t2f_symcache_new__write(struct t2f_symcache_new *w, struct t2f_symcache_dir *d,
			    const struct t2f_symcache_ident *id, const struct t2f_symcache *old)
{
	char name[2 * T2F_BUILD_ID_MAX + sizeof(T2F_SYMCACHE_SUFFIX)];
	struct build b = { 0 };
	int err;

	if (!id->build_id_len || id->build_id_len > T2F_BUILD_ID_MAX)
		return -EINVAL;
	t2f_symcache_name(id->build_id, id->build_id_len, name);
	err = t2f_hashmap__new(1024, &b.s.index) ?: collect(&b, w, old) ?:
	      emit(&b, w, id, chains_lack_lines(w, id, old)) ?:
	      t2f_symcache_dir_put(d, name, put_bytes, &(struct bytes){ b.o.p, b.o.n });
	build_free(&b);
	d->st.written += !err;
	return err;
}

/* ---- the size limit ---- */

struct cfile {
	char name[2 * T2F_BUILD_ID_MAX + 16];
	uint64_t size;
	struct timespec used;
};

static int older(const void *a, const void *b)
{
	const struct cfile *x = a, *y = b;

	if (x->used.tv_sec != y->used.tv_sec)
		return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
	if (x->used.tv_nsec != y->used.tv_nsec)
		return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Whether name is a cache file's (hex, then the suffix; or a kallsyms table's,
 * text_syms_cache.h: "kallsyms-", then 16 hex digits and the suffix). */
bool t2f_symcache_is_name(const char *name)
{
	size_t len, sl = strlen(T2F_SYMCACHE_SUFFIX), kl = strlen(T2F_KSC_PREFIX);

	if (strncmp(name, T2F_KSC_PREFIX, kl) == 0) {
		name += kl;
		if (strlen(name) != 16 + sl)
			return false;
	}
	len = strlen(name);
	if (len <= sl || len - sl > 2 * T2F_BUILD_ID_MAX ||
	    strcmp(name + len - sl, T2F_SYMCACHE_SUFFIX) != 0)
		return false;
	return strspn(name, "0123456789abcdef") == len - sl;
}

void t2f_symcache_dir__evict(struct t2f_symcache_dir *d)
{
	int fd = dup(d->fd);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct cfile *f = NULL;
	size_t n = 0, cap = 0;
	uint64_t total = 0;
	struct dirent *e;

	if (!dir) {
		if (fd >= 0)
			close(fd);
		return;
	}
	rewinddir(dir);
	while ((e = readdir(dir))) {
		struct stat st;

		if (!t2f_symcache_is_name(e->d_name) ||
		    fstatat(d->fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
			continue;
		if (t2f_grow((void **)&f, &cap, n, 1, sizeof(*f), 64, SIZE_MAX / sizeof(*f)))
			break;
		strcpy(f[n].name, e->d_name);
		f[n].size = (uint64_t)st.st_size;
		f[n].used = st.st_mtim;
		total += f[n++].size;
	}
	closedir(dir);
	if (total > d->max && n)
		qsort(f, n, sizeof(*f), older);
	for (size_t i = 0; i < n && total > d->max; i++) {
		if (unlinkat(d->fd, f[i].name, 0) == 0) {
			total -= f[i].size;
			d->st.evicted++;
		}
	}
	free(f);
}
