/* pipeline/inline_lookup.c: queued DWARF lookups, a handle's on one thread, results per part;
 * the threads take the handles costliest first, each ended after its last lookup, its strings
 * copied first. */
#include "pipeline/inline_lookup.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "formats/arena.h"
#include "formats/grow.h"
#include "formats/hashmap.h"
#include "writers/par_for.h"

#define INL_KNOWN UINT32_MAX         /* a query answered before (__add_known) */
#define INL_NONE UINT32_MAX          /* the end of a handle's queries */

struct inl_query {
	uint32_t handle;             /* into handles, or INL_KNOWN: first is into known */
	uint32_t n;                  /* the chain's length, after __run */
	uint64_t vaddr;
	uint64_t lo, last;           /* the addresses with the same chain, after __run */
	size_t first;                /* into its part's frames */
	uint32_t next;               /* the handle's next query, or INL_NONE */
};

struct inl_handle {
	struct t2f_dwarf *dw;
	size_t queries;
	uint32_t head, tail;         /* its queries, in the order they were added */
	unsigned part;
};

struct inl_part {                    /* one thread's results */
	struct t2f_dwarf_frame *frames;
	size_t n, cap;
	int err;
	struct t2f_arena *arena;     /* the strings of its chains, each once (with __run's end) */
	struct t2f_hashmap *str_index;
	const char **strs;
	size_t n_strs, cap_strs;
	uint64_t ended;              /* handles it ended */
};

struct t2f_inl_lookups {
	struct inl_query *q;
	size_t n_q, cap_q;
	struct inl_handle *h;
	size_t n_h, cap_h;
	uint32_t last;               /* the handle of the last lookup added */
	struct inl_part parts[T2F_PAR_FOR_MAX];
	unsigned n_parts;
	struct inl_part known;       /* the chains given by __add_known */
	bool end;                    /* __run ends each handle after its lookups */
	uint32_t *order;             /* the handles in the order __run's threads take them */
	_Atomic size_t next;         /* into order: the next handle to take */
};

int t2f_inl_lookups__new(struct t2f_inl_lookups **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void t2f_inl_lookups__free(struct t2f_inl_lookups *l)
{
	if (!l)
		return;
	for (unsigned i = 0; i < T2F_PAR_FOR_MAX; i++) {
		free(l->parts[i].frames);
		t2f_arena__free(l->parts[i].arena);
		t2f_hashmap__free(l->parts[i].str_index);
		free(l->parts[i].strs);
	}
	free(l->known.frames);
	free(l->order);
	free(l->q);
	free(l->h);
	free(l);
}

/* dw's index in the handles, added on first sight. */
static int inl_handle_of(struct t2f_inl_lookups *l, struct t2f_dwarf *dw, uint32_t *out)
{
	int err;

	if (l->n_h && l->h[l->last].dw == dw) {
		*out = l->last;
		return 0;
	}
	for (size_t i = 0; i < l->n_h; i++) {
		if (l->h[i].dw == dw) {
			*out = l->last = (uint32_t)i;
			return 0;
		}
	}
	err = t2f_grow((void **)&l->h, &l->cap_h, l->n_h, 1, sizeof(*l->h), 16, UINT32_MAX);
	if (err)
		return err;
	l->h[l->n_h] = (struct inl_handle){ .dw = dw, .head = INL_NONE, .tail = INL_NONE };
	*out = l->last = (uint32_t)l->n_h++;
	return 0;
}

int t2f_inl_lookups__add(struct t2f_inl_lookups *l, struct t2f_dwarf *dw, uint64_t elf_vaddr,
			 uint32_t *idx)
{
	uint32_t h;
	int err = inl_handle_of(l, dw, &h) ?:
		  t2f_grow((void **)&l->q, &l->cap_q, l->n_q, 1, sizeof(*l->q), 256, UINT32_MAX);

	if (err)
		return err;
	l->h[h].queries++;
	l->q[l->n_q] = (struct inl_query){ .handle = h, .vaddr = elf_vaddr, .lo = elf_vaddr,
					   .last = elf_vaddr, .next = INL_NONE };
	if (l->h[h].tail == INL_NONE)
		l->h[h].head = (uint32_t)l->n_q;
	else
		l->q[l->h[h].tail].next = (uint32_t)l->n_q;
	l->h[h].tail = (uint32_t)l->n_q;
	*idx = (uint32_t)l->n_q++;
	return 0;
}

int t2f_inl_lookups__add_known(struct t2f_inl_lookups *l, const struct t2f_dwarf_frame *frames,
			       size_t n, uint32_t *idx)
{
	struct inl_part *p = &l->known;
	int err = t2f_grow((void **)&l->q, &l->cap_q, l->n_q, 1, sizeof(*l->q), 256, UINT32_MAX) ?:
		  t2f_grow((void **)&p->frames, &p->cap, p->n, n, sizeof(*p->frames), 256,
			   SIZE_MAX / sizeof(*frames));

	if (err)
		return err;
	if (n)
		memcpy(p->frames + p->n, frames, n * sizeof(*frames));
	l->q[l->n_q] = (struct inl_query){ .handle = INL_KNOWN, .n = (uint32_t)n, .first = p->n };
	p->n += n;
	*idx = (uint32_t)l->n_q++;
	return 0;
}

bool t2f_inl_lookups__known(const struct t2f_inl_lookups *l, uint32_t idx)
{
	return l->q[idx].handle == INL_KNOWN;
}

struct inl_load {
	uint64_t weight;
	size_t queries;
	uint32_t handle;
};

static int inl_busier(const void *a, const void *b)
{
	const struct inl_load *x = a, *y = b;

	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	if (x->queries != y->queries)
		return x->queries > y->queries ? -1 : 1;
	return x->handle < y->handle ? -1 : x->handle > y->handle;
}

/* The order the threads take the handles in: the costliest first (the most DWARF to read, then
 * the most lookups), so the last to finish is a small one; without memory for it, as added. */
static void inl_order(struct t2f_inl_lookups *l)
{
	struct inl_load *order = malloc(l->n_h * sizeof(*order) + 1);

	free(l->order);
	l->order = malloc(l->n_h * sizeof(*l->order) + 1);
	for (size_t i = 0; l->order && i < l->n_h; i++)
		l->order[i] = (uint32_t)i;
	if (!order || !l->order) {
		free(order);
		return;
	}
	for (size_t i = 0; i < l->n_h; i++)
		order[i] = (struct inl_load){ t2f_dwarf__weight(l->h[i].dw), l->h[i].queries,
					      (uint32_t)i };
	qsort(order, l->n_h, sizeof(*order), inl_busier);
	for (size_t k = 0; k < l->n_h; k++)
		l->order[k] = order[k].handle;
	free(order);
}

struct inl_str_key {
	const struct inl_part *p;
	const char *s;
	size_t len;
};

static bool inl_str_eq(const void *ctx, uint32_t value)
{
	const struct inl_str_key *k = ctx;
	const char *have = k->p->strs[value - 1];

	return strncmp(have, k->s, k->len) == 0 && have[k->len] == '\0';
}

/* *sp as the part's own copy (one per distinct string): 0 or -ENOMEM. */
static int inl_own(struct inl_part *p, const char **sp)
{
	struct inl_str_key k = { p, *sp, *sp ? strlen(*sp) : 0 };
	uint64_t hash;
	uint32_t v;
	char *copy;

	if (!*sp)
		return 0;
	if (!p->arena && (t2f_arena__new(&p->arena) || t2f_hashmap__new(256, &p->str_index)))
		return -ENOMEM;
	hash = t2f_hash_bytes(k.s, k.len);
	v = t2f_hashmap__find(p->str_index, hash, inl_str_eq, &k);
	if (v) {
		*sp = p->strs[v - 1];
		return 0;
	}
	copy = t2f_arena__strndup(p->arena, k.s, k.len);
	if (!copy || t2f_grow((void **)&p->strs, &p->cap_strs, p->n_strs, 1, sizeof(*p->strs), 256,
			      UINT32_MAX - 1) ||
	    t2f_hashmap__insert(p->str_index, hash, (uint32_t)p->n_strs + 1))
		return -ENOMEM;
	p->strs[p->n_strs++] = copy;
	*sp = copy;
	return 0;
}

/* The strings of frames [from, p->n) as the part's own, before their handle ends. */
static int inl_own_all(struct inl_part *p, size_t from)
{
	int err = 0;

	for (size_t i = from; i < p->n && !err; i++)
		err = inl_own(p, &p->frames[i].name) ?: inl_own(p, &p->frames[i].file) ?:
		      inl_own(p, &p->frames[i].fn_file);
	return err;
}

static int inl_u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Handle h's addresses, sorted (malloc'd; NULL without memory: the handle is then told none). */
static uint64_t *inl_wanted(const struct t2f_inl_lookups *l, uint32_t h)
{
	uint64_t *want = malloc(l->h[h].queries * sizeof(*want) + 1);
	size_t n = 0;

	if (!want)
		return NULL;
	for (uint32_t i = l->h[h].head; i != INL_NONE; i = l->q[i].next)
		want[n++] = l->q[i].vaddr;
	qsort(want, n, sizeof(*want), inl_u64_cmp);
	return want;
}

/* Every lookup of handle h, into part p; the handle told them first (t2f_dwarf__want: the
 * units it indexes leave out the inlined calls of the functions none of them is in). */
static int inl_run_handle(struct t2f_inl_lookups *l, struct inl_part *p, uint32_t h)
{
	struct t2f_dwarf_frame lv[T2F_DWARF_MAX_DEPTH];
	uint64_t *want = inl_wanted(l, h);
	int err = 0;

	t2f_dwarf__want(l->h[h].dw, want, want ? l->h[h].queries : 0);
	for (uint32_t i = l->h[h].head; i != INL_NONE && !err; i = l->q[i].next) {
		struct inl_query *q = &l->q[i];
		int n = t2f_dwarf__lookup_span(l->h[h].dw, q->vaddr, lv, T2F_DWARF_MAX_DEPTH,
					       &q->lo, &q->last);

		err = n < 0 ? n : t2f_grow((void **)&p->frames, &p->cap, p->n, (size_t)n,
					   sizeof(*p->frames), 256, SIZE_MAX / sizeof(*lv));
		if (err)
			break;
		if (n)
			memcpy(p->frames + p->n, lv, (size_t)n * sizeof(*lv));
		q->first = p->n;
		q->n = (uint32_t)n;
		p->n += (size_t)n;
	}
	t2f_dwarf__want(l->h[h].dw, NULL, 0);
	free(want);
	return err;
}

/* The next handle in l->order no part took yet, or INL_NONE. */
static uint32_t inl_take(struct t2f_inl_lookups *l)
{
	size_t k = atomic_fetch_add_explicit(&l->next, 1, memory_order_relaxed);

	if (k >= l->n_h)
		return INL_NONE;
	return l->order ? l->order[k] : (uint32_t)k;
}

/* Handles as they come (inl_take), until none is left; with l->end, each ended after its
 * lookups, what they gave copied first. A handle's results are its part's: which part runs
 * which handle changes no chain. */
static void inl_run_part(void *ctx, unsigned part)
{
	struct t2f_inl_lookups *l = ctx;
	struct inl_part *p = &l->parts[part];

	for (uint32_t h = inl_take(l); h != INL_NONE && !p->err; h = inl_take(l)) {
		size_t from = p->n;

		l->h[h].part = part;
		p->err = inl_run_handle(l, p, h);
		if (!p->err && l->end && !t2f_dwarf__none(l->h[h].dw)) {
			p->err = inl_own_all(p, from);
			t2f_dwarf__end(l->h[h].dw);
			p->ended++;
		}
	}
}

int t2f_inl_lookups__run(struct t2f_inl_lookups *l, unsigned threads, bool end)
{
	unsigned n = threads < 1 ? 1 : threads > T2F_PAR_FOR_MAX ? T2F_PAR_FOR_MAX : threads;

	l->end = end;
	l->n_parts = l->n_h < n ? (unsigned)(l->n_h ? l->n_h : 1) : n;
	inl_order(l);
	atomic_store(&l->next, 0);
	t2f_par_for(l->n_parts, inl_run_part, l);
	for (unsigned i = 0; i < l->n_parts; i++)
		if (l->parts[i].err)
			return l->parts[i].err;
	return 0;
}

size_t t2f_inl_lookups__handles(const struct t2f_inl_lookups *l)
{
	size_t n = 0;

	for (size_t i = 0; i < l->n_h; i++)
		n += !t2f_dwarf__none(l->h[i].dw);
	return n;
}

bool t2f_inl_lookups__no_dwarf(const struct t2f_inl_lookups *l, uint32_t idx)
{
	return l->q[idx].handle != INL_KNOWN && t2f_dwarf__none(l->h[l->q[idx].handle].dw);
}

uint64_t t2f_inl_lookups__ended(const struct t2f_inl_lookups *l)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < l->n_parts; i++)
		n += l->parts[i].ended;
	return n;
}

int t2f_inl_lookups__get(const struct t2f_inl_lookups *l, uint32_t idx,
			 const struct t2f_dwarf_frame **frames)
{
	const struct inl_query *q = &l->q[idx];

	/* a part that found no chain has no frames at all: no pointer into them */
	if (q->handle == INL_KNOWN)
		*frames = q->n ? l->known.frames + q->first : NULL;
	else
		*frames = q->n ? l->parts[l->h[q->handle].part].frames + q->first : NULL;
	return (int)q->n;
}

void t2f_inl_lookups__span(const struct t2f_inl_lookups *l, uint32_t idx, uint64_t *lo,
			   uint64_t *last)
{
	*lo = l->q[idx].lo;
	*last = l->q[idx].last;
}
