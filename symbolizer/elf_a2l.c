/* symbolizer/elf_a2l.c: __lookup_a2l, the symbol binutils' addr2line names an address by when
 * DWARF does not name the function there (bfd's _bfd_elf_find_function, binutils 2.40).
 *
 * perf 6.1 names the frames its --call-graph dwarf unwinder finds by what `addr2line -f -i`
 * prints for them, and for code DWARF names no function of (a file without DWARF, code the line
 * table alone covers) or names without the symbol's name (a C++ DW_AT_name: "check" of
 * coll::check), addr2line prints this symbol. Measured on Debian 12: libstamp.so without DWARF,
 * stamp_v1 (LOCAL) and stamp@@STAMP_1 (GLOBAL) at one address: addr2line and perf script print
 * stamp_v1, where perf's own symbol table gives stamp@@STAMP_1; libstdc++ (.dynsym only): _Znwm.
 *
 * The rules, in bfd's terms (tests/unit/test_elf_a2l.c holds them to addr2line on the zoo):
 * - the symbols: the file's .symtab when it has one, else its .dynsym (never both, never
 *   MiniDebugInfo's), in table order;
 * - the section: the first SHF_ALLOC section (in section order) whose [sh_addr, sh_addr +
 *   sh_size) holds the address; only symbols defined in it count;
 * - candidates: not SECTION, FILE, OBJECT or TLS symbols; a sizeless symbol counts as one byte
 *   long, but a sizeless LOCAL NOTYPE hidden one (an annotation marker) not at all;
 * - the nearest start at or below the address wins, even when its size ends before it; at one
 *   start, the first in table order unless a later one is longer.
 * bfd also keeps its pick between calls (an address inside the last pick gets it again, even
 * where a symbol nested in it starts nearer): not followed here, so the pick is the same in
 * every order of lookups.
 *
 * Measured on x86-64; other machines' bfd back ends add their own rules (ARM's mapping
 * symbols), not followed.
 *
 * The index: the candidates of the chosen table sorted by (start, table order), built on the
 * first lookup; a lookup is a binary search and a walk over the symbols at one start.
 */
#include "symbolizer/elf_internal.h"

#include <errno.h>
#include <stdlib.h>

#include "formats/grow.h"

struct a2l_sym {
	uint64_t start, size;        /* st_value (ARM: the Thumb bit cleared); st_size, 1 for a
				      * sizeless one */
	uint32_t idx;                /* its record's index in the table (table order) */
	uint32_t shndx;
	unsigned char info;
};

struct a2l_sec {
	uint64_t lo, hi;
	uint32_t shndx;
};

struct t2f_elf_a2l {
	const struct t2f_elf_table *t;   /* NULL: no table */
	struct a2l_sym *syms;
	size_t n;
	struct a2l_sec *secs;            /* SHF_ALLOC sections in section order */
	size_t n_secs;
};

void t2f_elf_a2l__free(struct t2f_elf_a2l *x)
{
	if (!x)
		return;
	free(x->syms);
	free(x->secs);
	free(x);
}

/* bfd's _bfd_elf_maybe_function_sym: whether s counts, and its size. */
static bool a2l_candidate(const struct t2f_elf_rawsym *s, uint64_t *size)
{
	unsigned type = GELF_ST_TYPE(s->info);

	if (type == STT_SECTION || type == STT_FILE || type == STT_OBJECT || type == STT_TLS ||
	    s->shndx == SHN_UNDEF || s->shndx >= SHN_LORESERVE)
		return false;
	if (!s->size && GELF_ST_BIND(s->info) == STB_LOCAL && type == STT_NOTYPE &&
	    GELF_ST_VISIBILITY(s->other) == STV_HIDDEN)
		return false;
	*size = s->size ? s->size : 1;
	return true;
}

static int a2l_sym_cmp(const void *a, const void *b)
{
	const struct a2l_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The table bfd reads: the file's own .symtab, else its .dynsym. */
static const struct t2f_elf_table *a2l_table(const struct t2f_elf_module *m)
{
	const struct t2f_elf_table *dyn = NULL;

	for (unsigned i = 0; i < m->n_tables; i++) {
		const struct t2f_elf_table *t = &m->tables[i];

		if (t->mini)
			continue;
		if (!t->dynamic)
			return t;
		if (!dyn && strcmp(t->name, ".dynsym") == 0)
			dyn = t;
	}
	return dyn;
}

static int a2l_sections(struct t2f_elf_module *m, struct t2f_elf_a2l *x)
{
	Elf_Scn *scn = NULL;
	size_t cap = 0;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(m->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) || !sh.sh_size ||
		    sh.sh_addr + sh.sh_size < sh.sh_addr)
			continue;
		if (t2f_grow((void **)&x->secs, &cap, x->n_secs, 1, sizeof(*x->secs), 32, SIZE_MAX))
			return -ENOMEM;
		x->secs[x->n_secs++] = (struct a2l_sec){ sh.sh_addr, sh.sh_addr + sh.sh_size,
							 (uint32_t)elf_ndxscn(scn) };
	}
	return 0;
}

static int a2l_build(struct t2f_elf_module *m, struct t2f_elf_a2l *x)
{
	const struct t2f_elf_table *t = a2l_table(m);
	struct t2f_elf_rawsym s;
	uint64_t size;
	int err;

	x->t = t;
	if (!t || !t->count)
		return 0;
	err = a2l_sections(m, x);
	x->syms = err ? NULL : malloc(t->count * sizeof(*x->syms));
	if (err || !x->syms)
		return err ? err : -ENOMEM;
	for (size_t i = 1; i < t->count; i++) { /* record 0 is the null symbol */
		t2f_elf_table__sym(t, i, &s);
		if (a2l_candidate(&s, &size))
			x->syms[x->n++] = (struct a2l_sym){ t2f_elf_fixed_value(m, s.value), size,
							    (uint32_t)i, s.shndx, s.info };
	}
	qsort(x->syms, x->n, sizeof(*x->syms), a2l_sym_cmp);
	return 0;
}

/* The pick at addr in section sec among x->syms, or NULL. */
static const struct a2l_sym *a2l_pick(const struct t2f_elf_a2l *x, const struct a2l_sec *sec,
				      uint64_t addr)
{
	size_t lo = 0, hi = x->n, first;
	const struct a2l_sym *best = NULL;

	while (lo < hi) {                   /* lo: how many start at or below addr */
		size_t mid = lo + (hi - lo) / 2;

		if (x->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo && x->syms[lo - 1].shndx != sec->shndx && x->syms[lo - 1].start >= sec->lo)
		lo--;                       /* another section's (they overlap: .tbss) */
	if (!lo || x->syms[lo - 1].start < sec->lo || x->syms[lo - 1].shndx != sec->shndx)
		return NULL;
	first = lo - 1;
	while (first && x->syms[first - 1].start == x->syms[lo - 1].start)
		first--;
	for (size_t i = first; i < lo; i++) {
		const struct a2l_sym *c = &x->syms[i];

		if (c->shndx == sec->shndx && (!best || c->size > best->size))
			best = c;
	}
	return best;
}

int t2f_elf_module__lookup_a2l(struct t2f_elf_module *m, uint64_t elf_vaddr,
			       struct t2f_elf_sym *out)
{
	const struct a2l_sec *sec = NULL;
	const struct a2l_sym *p;
	struct t2f_elf_rawsym s;
	int err = t2f_elf_module__load_tables(m);

	if (err)
		return err;
	if (!m->a2l) {
		m->a2l = calloc(1, sizeof(*m->a2l));
		if (!m->a2l)
			return -ENOMEM;
		err = a2l_build(m, m->a2l);
		if (err) {
			t2f_elf_a2l__free(m->a2l);
			m->a2l = NULL;
			return err;
		}
	}
	for (size_t i = 0; i < m->a2l->n_secs && !sec; i++)
		if (m->a2l->secs[i].lo <= elf_vaddr && elf_vaddr < m->a2l->secs[i].hi)
			sec = &m->a2l->secs[i];
	p = sec ? a2l_pick(m->a2l, sec, elf_vaddr) : NULL;
	if (!p)
		return 0;
	t2f_elf_table__sym(m->a2l->t, p->idx, &s);
	*out = (struct t2f_elf_sym){ .name = t2f_elf_table__name(m->a2l->t, s.name),
				     .value = s.value, .size = s.size, .table = m->a2l->t->name,
				     .bind = GELF_ST_BIND(s.info), .type = GELF_ST_TYPE(s.info) };
	return 1;
}
