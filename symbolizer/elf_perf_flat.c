/* symbolizer/elf_perf_flat.c: perf's symbol tree as a sorted array, where its shape does not
 * matter.
 *
 * perf's tree (elf_perf_tree.c) answers a lookup by a walk from its root that stops at the first
 * node holding the address: node [start, end] holds ip when start <= ip < end, or ip == start.
 * Its in-order sequence is the kept symbols stably sorted by start (equal starts go right), and
 * both fix-ups are defined on that sequence alone; only the walk depends on the shape. Let P be
 * the last node in that order whose start is <= ip. When no node before P holds ip (every
 * earlier end is <= ip, and none starts where P does), each node the walk meets steers it as a
 * plain search by start would: one before P holds no ip and lies below it (right), one after P
 * starts above ip (left). So the walk ends at P when P holds ip, and finds nothing otherwise,
 * whatever the shape. Only an address an earlier node reaches over (a label inside a function,
 * a sizeless `_init` stretched over the PLT stubs) needs the tree itself: lookups then say so
 * and elf_index.c builds it (for the few modules that need it, when they do).
 *
 * The array costs 32 bytes a symbol against the tree's 40; sorting it, the fix-ups and the
 * lookups run over contiguous memory.
 */
#include "symbolizer/elf_internal.h"

#include <stdlib.h>
#include <string.h>

#include "formats/grow.h"

int t2f_elf_pflat__add(struct t2f_elf_pflat *f, uint64_t start, uint64_t end, uint32_t sym)
{
	if (f->n == f->cap &&
	    t2f_grow((void **)&f->ents, &f->cap, f->n, 1, sizeof(*f->ents), 256, T2F_ELF_NONE))
		return -ENOMEM;
	f->ents[f->n++] = (struct t2f_elf_pflat_ent){ start, end, 0, sym };
	return 0;
}

/* Stable by start (an entry added earlier first at one start): the tree's in-order sequence.
 * A least-significant-digit radix sort of start - lowest start, 11 bits a pass, only as many
 * passes as the span of the starts needs. 0 or -ENOMEM. */
int t2f_elf_pflat__order(struct t2f_elf_pflat *f)
{
	struct t2f_elf_pflat_ent *a = f->ents, *b, *t;
	uint64_t lo = UINT64_MAX, span = 0;
	bool sorted = true;

	for (size_t i = 0; i < f->n; i++) {
		lo = a[i].start < lo ? a[i].start : lo;
		sorted = sorted && (i == 0 || a[i - 1].start <= a[i].start);
	}
	if (sorted)
		return 0;
	for (size_t i = 0; i < f->n; i++)
		span |= a[i].start - lo;
	b = malloc(f->n * sizeof(*b));
	if (!b)
		return -ENOMEM;
	for (unsigned shift = 0; shift < 64 && span >> shift; shift += 11) {
		size_t count[2048] = { 0 }, at = 0;

		for (size_t i = 0; i < f->n; i++)
			count[(a[i].start - lo) >> shift & 2047]++;
		for (size_t d = 0; d < 2048; d++) {
			size_t c = count[d];

			count[d] = at;
			at += c;
		}
		for (size_t i = 0; i < f->n; i++)
			b[count[(a[i].start - lo) >> shift & 2047]++] = a[i];
		t = a;
		a = b;
		b = t;
	}
	if (a != f->ents) {
		memcpy(f->ents, a, f->n * sizeof(*a));
		b = a;
	}
	free(b);
	return 0;
}

void t2f_elf_pflat__fixup_end(struct t2f_elf_pflat *f)
{
	struct t2f_elf_pflat_ent *e = f->ents;
	size_t last;

	if (!f->n)
		return;
	for (size_t i = 0; i + 1 < f->n; i++)
		if (e[i].end == e[i].start)
			e[i].end = e[i + 1].start;
	last = f->n - 1;
	if (e[last].end == e[last].start)
		e[last].end = e[last].start > UINT64_MAX - 8191 ? UINT64_MAX
			      : ((e[last].start + 4095) & ~UINT64_C(4095)) + 4096;
}

/* Notes that sym was dropped. 0 or -ENOMEM. */
static int pflat_erased(struct t2f_elf_pflat *f, uint32_t sym)
{
	if (f->n_erased == f->cap_erased &&
	    t2f_grow((void **)&f->erased, &f->cap_erased, f->n_erased, 1, sizeof(*f->erased), 16,
		     T2F_ELF_NONE))
		return -ENOMEM;
	f->erased[f->n_erased++] = sym;
	return 0;
}

int t2f_elf_pflat__fixup_duplicate(struct t2f_elf_pflat *f, t2f_elf_ptree_first_cb first,
				   void *ctx)
{
	struct t2f_elf_pflat_ent *e = f->ents;
	size_t out = 0;

	/* the tree's walk over neighbours: the survivor of a pair meets the next one */
	for (size_t next = 1; next < f->n; next++) {
		if (e[out].start != e[next].start) {
			e[++out] = e[next];
			continue;
		}
		if (first(ctx, e[out].sym, e[out].end - e[out].start, e[next].sym,
			  e[next].end - e[next].start)) {
			if (pflat_erased(f, e[next].sym))
				return -ENOMEM;
		} else {
			if (pflat_erased(f, e[out].sym))
				return -ENOMEM;
			e[out] = e[next];
		}
	}
	f->n = f->n ? out + 1 : 0;
	return 0;
}

void t2f_elf_pflat__tree(const struct t2f_elf_pflat *f, struct t2f_elf_ptree *t, size_t n)
{
	for (size_t i = 0; i < f->n; i++)
		if (f->ents[i].sym < n && f->ents[i].sym < t->n)
			t->nodes[f->ents[i].sym].end = f->ents[i].end;
	for (size_t i = 0; i < f->n_erased; i++)
		if (f->erased[i] < t->n)
			t2f_elf_ptree__erase(t, f->erased[i]);
}

int t2f_elf_pflat__finish(struct t2f_elf_pflat *f)
{
	struct t2f_elf_pflat_ent *e;
	uint64_t reach = 0; /* the highest end before i */
	int err = t2f_elf_pflat__order(f);

	if (err)
		return err;
	if (f->n && f->n < f->cap && (e = realloc(f->ents, f->n * sizeof(*e)))) {
		f->ents = e;  /* no room kept: it lives as long as the module's index */
		f->cap = f->n;
	}
	e = f->ents;
	f->shared = 0;
	for (size_t i = 0; i < f->n; i++) {
		e[i].reach = reach;
		f->shared += reach > e[i].start || (i > 0 && e[i - 1].start == e[i].start);
		reach = e[i].end > reach ? e[i].end : reach;
	}
	return 0;
}

int t2f_elf_pflat__find(const struct t2f_elf_pflat *f, uint64_t ip, uint32_t *sym,
			uint64_t *start, uint64_t *end)
{
	const struct t2f_elf_pflat_ent *base = f->ents, *e;
	size_t n = f->n;

	if (!n || ip < base[0].start)
		return 0;
	while (n > 1) {  /* the last entry whose start <= ip */
		size_t half = n / 2;

		base = base[half].start <= ip ? base + half : base;
		n -= half;
	}
	e = base;
	if (e->reach > ip || (ip == e->start && e > f->ents && e[-1].start == ip))
		return -1; /* an earlier node may hold ip too: the tree's shape decides */
	if (ip > e->end || (ip == e->end && ip != e->start))
		return 0;
	*sym = e->sym;
	*start = e->start;
	*end = e->end;
	return 1;
}

void t2f_elf_pflat__span(const struct t2f_elf_pflat *f, uint64_t ip, uint64_t *lo,
			 uint64_t *last)
{
	const struct t2f_elf_pflat_ent *base = f->ents, *e;
	size_t n = f->n;
	uint64_t s, end, a, b;

	if (!n || ip < base[0].start) { /* below every start: a miss up to the first */
		*lo = 0;
		*last = n ? base[0].start - 1 : UINT64_MAX;
		return;
	}
	while (n > 1) {
		size_t half = n / 2;

		base = base[half].start <= ip ? base + half : base;
		n -= half;
	}
	e = base;
	s = e->start;
	end = e->end;
	b = e + 1 < f->ents + f->n ? e[1].start - 1 : UINT64_MAX; /* then the next is P */
	if (ip > end || (ip == end && ip != s)) { /* a miss from the end on, as the tree's walk */
		a = end > s ? end : end == s ? s + 1 : s;
	} else {                                  /* the entry: [s, end), or s alone */
		uint64_t top = end > s ? end - 1 : s;

		a = s;
		b = top < b ? top : b;
	}
	if (a == s && e > f->ents && e[-1].start == s)
		a = s + 1;                        /* s itself is the tree's to answer */
	*lo = e->reach > a ? e->reach : a;        /* below the reach too */
	*last = b;
}

void t2f_elf_pflat__free(struct t2f_elf_pflat *f)
{
	free(f->ents);
	free(f->erased);
	*f = (struct t2f_elf_pflat){ 0 };
}
