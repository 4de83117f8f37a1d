/* symbolizer/elf_index.c: __lookup over the sorted address index, and perf's tree.
 *
 * The index (built on the first lookup by elf_index_build.c) holds every kept symbol of every
 * table, with the arch fix-ups:
 *   EM_ARM      Thumb functions have odd values (hot_loop 0x621 = code at 0x620): bit 0 cleared
 *   ppc64 ELFv1 hot_loop 0x1feb8 lies in .opd (a descriptor); its first 8 bytes (file byte
 *               order) are the code address, which is what samples hit
 * Tables: every .symtab (MiniDebugInfo's too) and .SUNW_ldynsym / .dynsym, except a .dynsym
 * of a file whose own .symtab has at least as many records: a linked .symtab lists every
 * exported function again (libstdc++'s debug build: 4,916 .dynsym and 9,836 .symtab functions,
 * 8,020 addresses), and perf and addr2line read only the .symtab too. A .dynsym beside a shorter
 * .symtab (symbols stripped out of it) is indexed behind it.
 * Several symbols at one address keep one entry: non-zero size first, then a .symtab entry over
 * a .dynsym one when both tables are indexed (a MiniDebugInfo .symtab holds only the functions
 * that are not exported: its entries compete with .dynsym ones on equal terms), then GLOBAL
 * (or GNU_UNIQUE) > WEAK > LOCAL, then fewer leading '_', then table and symbol order (libc:
 * `malloc` over `__libc_malloc`). Names are read for the '_' count only when the earlier rules
 * tie (aliases such as C1/C2 constructors).
 * Under perf's rules (m->perf_rules, elf_module.h) the kept symbols are elf_perf_rules.c's, a
 * .dynsym is left out beside any .symtab, and no index is built: lookups find what a walk down
 * perf's tree would (perf_tree): in the tree's in-order array (elf_perf_flat.c), or where the
 * tree's shape decides, in the tree itself (elf_perf_tree.c), built then; n_ents then counts
 * the kept symbols.
 * PLT stubs (elf_plt.c: "memcpy@plt", sized by the stub) are not in the index: a lookup the
 * index misses asks elf_plt.c, which names them only when an address falls among them, so at
 * one address any symbol of a table wins over a stub name, and __each_symbol lists the tables'
 * symbols alone.
 *
 * Layout, 30 bytes per entry: ents[] (24 bytes each, by address: start, end, name offset,
 * table, st_info, whether a cover exists: all a hit needs, so a hit reads neither the symbol
 * record nor the name), covers[] (4 bytes, read only when an entry ends before the address and
 * has a cover) and a bucket table: the address span cut into power-of-two buckets, about one
 * per two entries, each holding the index of its first entry. A lookup reads its bucket's
 * bounds, then runs a branch-free lower bound over those few entries (a conditional move per
 * step) for the last start <= addr, whose end is on the same cache line: two cache lines per
 * hit, and per miss past a symbol's end. When an entry ends before addr, an earlier symbol may
 * still contain it (a function with a nested FUNC label, a sizeless marker inside one), so
 * covers[i] chains to the nearest earlier entry whose range holds ents[i].start: every symbol
 * containing addr is on that chain, nearest start first.
 */
#include "symbolizer/elf_internal.h"

#include <errno.h>
#include <stdlib.h>

/* One table's symbols that perf keeps, added to perf's tree (else its array) as node payloads
 * *n... with m->pinfo (room for every record) naming them. 0 or -ENOMEM. */
static int perf_table(struct t2f_elf_module *m, unsigned ti, size_t *n, bool tree)
{
	const struct t2f_elf_table *t = &m->tables[ti];
	struct t2f_elf_rawsym s;
	uint8_t *label_ok;
	size_t n_secs;
	uint64_t v;
	int err = t2f_elf_label_sections(m, t, &label_ok, &n_secs);

	for (size_t i = 0; i < t->count && !err; i++) {
		t2f_elf_table__sym(t, i, &s);
		if (!t2f_elf_perf_kept(&s, label_ok, n_secs))
			continue;
		v = t2f_elf_fixed_value(m, s.value);
		m->pinfo[*n] = (struct t2f_elf_pinfo){ s.name, (uint8_t)ti, s.info };
		err = tree ? t2f_elf_ptree__insert(&m->ptree, v, v + s.size, (uint32_t)*n)
		      : t2f_elf_pflat__add(&m->pflat, v, v + s.size, (uint32_t)*n);
		(*n)++;
	}
	free(label_ok);
	return err;
}

/* Under perf's rules: the kept symbols (in table order) into perf's tree (else its array),
 * m->pinfo naming its nodes (the same names either way). 0 or -ENOMEM. */
static int perf_tree(struct t2f_elf_module *m, bool tree)
{
	struct t2f_elf_pinfo *shrunk;
	size_t all = 0, n = 0;
	int err = 0;

	for (unsigned ti = 0; ti < m->n_tables; ti++)
		if (t2f_elf_table_indexed(m, &m->tables[ti]))
			all += m->tables[ti].count;
	free(m->pinfo);
	m->pinfo = malloc((all ? all : 1) * sizeof(*m->pinfo));
	if (!m->pinfo)
		return -ENOMEM;
	for (unsigned ti = 0; ti < m->n_tables && !err; ti++)
		if (t2f_elf_table_indexed(m, &m->tables[ti]))
			err = perf_table(m, ti, &n, tree);
	m->n_ents = n;
	if (err)
		return err;
	if (n < all && (shrunk = realloc(m->pinfo, (n ? n : 1) * sizeof(*m->pinfo))))
		m->pinfo = shrunk;  /* room for the kept symbols only */
	return tree ? t2f_elf_perf_tree_finish(m, n) : t2f_elf_perf_flat_finish(m, n);
}

/* perf's tree itself, for the lookups its array leaves to it (elf_perf_flat.c). 0 or -ENOMEM
 * (then the index is freed: the module fails as a failed build would). */
static int perf_tree_build(struct t2f_elf_module *m)
{
	int err;

	m->ptree = (struct t2f_elf_ptree){ .root = T2F_ELF_NONE };
	/* the array's build counted the kept symbols: no room to double into (add_plt adds the
	 * stubs' room) */
	err = t2f_elf_ptree__reserve(&m->ptree, m->n_ents);
	err = err ?: perf_tree(m, true);
	if (err) {
		t2f_elf_module__free_index(m);
		m->index_state = err;
		return err;
	}
	m->ptree_built = true;
	t2f_elf_pflat__free(&m->pflat);  /* the tree answers every lookup from now on */
	m->tables_held = true;           /* read again for the tree */
	return 0;
}

static int build_index(struct t2f_elf_module *m)
{
	int err = t2f_elf_module__load_tables(m);

	if (!err)
		err = m->perf_rules ? perf_tree(m, false) : t2f_elf_index_build(m);
	if (err)
		t2f_elf_module__free_index(m);
	else
		m->tables_held = true; /* given back by the module's owner (__release_tables) */
	m->index_state = err ? err : 1;
	return err;
}

void t2f_elf_module__use_perf_rules(struct t2f_elf_module *m)
{
	if (m->index_state == 0)
		m->perf_rules = true;
}

void t2f_elf_module__perf_plt_from(struct t2f_elf_module *m, struct t2f_elf_module *from)
{
	if (m->index_state == 0)
		m->plt_from = from;
}

void t2f_elf_module__free_index(struct t2f_elf_module *m)
{
	free(m->ents);  /* covers and buckets share this block */
	m->ents = NULL;
	m->covers = NULL;
	m->buckets = NULL;
	m->n_ents = 0;
	t2f_elf_plt__free(&m->plt);
	t2f_elf_pflat__free(&m->pflat);
	t2f_elf_ptree__free(&m->ptree);
	m->ptree_built = false;
	free(m->pinfo);
	m->pinfo = NULL;
}

void t2f_elf_module__drop_index(struct t2f_elf_module *m)
{
	if (m->index_state <= 0)
		return;
	t2f_elf_module__free_index(m);
	m->index_state = 0;
}

/* The hit's symbol; its size is end - start (saturated at the top of the address space). */
static void fill_sym(const struct t2f_elf_module *m, const struct t2f_elf_ent *e,
		     struct t2f_elf_sym *out)
{
	const struct t2f_elf_table *t = &m->tables[e->table];

	*out = (struct t2f_elf_sym){ .name = t2f_elf_table__name(t, e->name), .value = e->start,
		.size = e->end - e->start, .table = t->name, .bind = GELF_ST_BIND(e->info),
		.type = GELF_ST_TYPE(e->info) };
}

/* The last entry whose start is <= addr (ents[0].start <= addr). */
static size_t last_at_or_before(const struct t2f_elf_module *m, uint64_t addr)
{
	uint64_t b = (addr - m->ents[0].start) >> m->bucket_shift;
	const struct t2f_elf_ent *base;
	size_t lo, n;

	if (b >= m->n_buckets)
		return m->n_ents - 1;
	lo = m->buckets[b];
	lo = lo ? lo - 1 : 0;  /* starts <= addr: it lies in an earlier bucket, or is ents[0] */
	base = m->ents + lo;
	n = m->buckets[b + 1] - lo;
	while (n > 1) {  /* compiles to a conditional move */
		size_t half = n / 2;

		base = base[half].start <= addr ? base + half : base;
		n -= half;
	}
	return (size_t)(base - m->ents);
}

/* Under perf's rules: what the walk down perf's tree finds: from the tree once it is built,
 * else from its array where the tree's shape does not matter (elf_perf_flat.c); -1 when it
 * does. */
static int perf_lookup(const struct t2f_elf_module *m, uint64_t elf_vaddr,
		       struct t2f_elf_sym *out)
{
	uint64_t start, end;
	uint32_t i;
	int r;

	for (size_t k = 0; k < m->n_plt_blind; k++)
		if (elf_vaddr >= m->plt_blind[k][0] && elf_vaddr < m->plt_blind[k][1])
			return 0;
	if (m->ptree_built)
		r = t2f_elf_ptree__find(&m->ptree, elf_vaddr, &i, &start, &end);
	else if ((r = t2f_elf_pflat__find(&m->pflat, elf_vaddr, &i, &start, &end)) < 0)
		return -1;
	if (r <= 0)
		return 0;
	*out = (struct t2f_elf_sym){ .name = t2f_elf_pinfo__name(m, i), .value = start,
		.size = end - start, .table = t2f_elf_pinfo__table(m, i),
		.bind = GELF_ST_BIND(m->pinfo[i].info), .type = GELF_ST_TYPE(m->pinfo[i].info) };
	return 1;
}

/* The lookups that do not search the index: the first one (which builds it, or fails to) and
 * those under perf's rules. Kept out of line so that the index's lookups save few registers. */
__attribute__((noinline))
static int other_lookup(struct t2f_elf_module *m, uint64_t elf_vaddr, struct t2f_elf_sym *out)
{
	int err;

	if (m->index_state <= 0) {
		err = m->index_state ? m->index_state : build_index(m);
		if (err)
			return err;
	}
	if (!m->perf_rules)
		return t2f_elf_module__lookup(m, elf_vaddr, out);
	err = perf_lookup(m, elf_vaddr, out);
	if (err < 0) {
		err = perf_tree_build(m);
		if (err)
			return err;
		err = perf_lookup(m, elf_vaddr, out);
	}
	return err;
}

int t2f_elf_module__lookup(struct t2f_elf_module *m, uint64_t elf_vaddr, struct t2f_elf_sym *out)
{
	size_t i;

	if (m->index_state <= 0 || m->perf_rules)
		return other_lookup(m, elf_vaddr, out);
	if (!m->n_ents || elf_vaddr < m->ents[0].start)
		return t2f_elf_plt__lookup(m, elf_vaddr, out);
	for (i = last_at_or_before(m, elf_vaddr);; i = m->covers[i]) {
		const struct t2f_elf_ent *e = &m->ents[i];

		if (elf_vaddr < e->end || elf_vaddr == e->start) {
			fill_sym(m, e, out);
			return 1;
		}
		if (!e->covered)
			return t2f_elf_plt__lookup(m, elf_vaddr, out);
	}
}

/* Under perf's rules: the span of perf_lookup's answer (its PLT sections a debug file lacks
 * first, then the tree's walk, or the array's entry when the tree was not needed). */
static void perf_span(const struct t2f_elf_module *m, uint64_t ip, uint64_t *lo, uint64_t *last)
{
	uint64_t a, b;

	if (m->ptree_built)
		t2f_elf_ptree__span(&m->ptree, ip, &a, &b);
	else
		t2f_elf_pflat__span(&m->pflat, ip, &a, &b);
	for (size_t k = 0; k < m->n_plt_blind; k++) {
		uint64_t b0 = m->plt_blind[k][0], b1 = m->plt_blind[k][1];

		if (b0 >= b1)
			continue;
		if (ip >= b0 && ip < b1) {  /* a miss wherever a blind range holds it */
			a = b0;
			b = b1 - 1;
			break;
		}
		if (b1 <= ip && b1 > a)
			a = b1;
		if (b0 > ip && b0 - 1 < b)
			b = b0 - 1;
	}
	*lo = a;
	*last = b;
}

int t2f_elf_module__lookup_span(struct t2f_elf_module *m, uint64_t elf_vaddr,
				struct t2f_elf_sym *out, uint64_t *lo, uint64_t *last)
{
	int r = t2f_elf_module__lookup(m, elf_vaddr, out);
	const struct t2f_elf_ent *e;
	size_t i;

	*lo = *last = elf_vaddr;
	if (r < 0 || m->index_state <= 0)
		return r;
	if (m->perf_rules) {
		perf_span(m, elf_vaddr, lo, last);
		return r;
	}
	/* the index: a hit on the last entry starting at or before elf_vaddr, within its size,
	 * holds up to its end or the next entry's start (a miss, a nested or a PLT hit: itself) */
	if (r != 1 || !m->n_ents || elf_vaddr < m->ents[0].start)
		return r;
	i = last_at_or_before(m, elf_vaddr);
	e = &m->ents[i];
	if (elf_vaddr >= e->end || out->value != e->start)
		return r;
	*lo = e->start;
	*last = e->end - 1;
	if (i + 1 < m->n_ents && m->ents[i + 1].start - 1 < *last)
		*last = m->ents[i + 1].start - 1;
	return r;
}

int t2f_elf_module__index(struct t2f_elf_module *m)
{
	if (m->index_state == 0)
		build_index(m);
	/* __name_at may not build anything: the tree too, when some lookups need it */
	if (m->index_state > 0 && m->perf_rules && m->pflat.shared && !m->ptree_built)
		perf_tree_build(m);
	return m->index_state < 0 ? m->index_state : 0;
}

const char *t2f_elf_module__name_at(const struct t2f_elf_module *m, uint64_t elf_vaddr)
{
	const struct t2f_elf_ent *e;
	struct t2f_elf_sym sym;

	if (m->index_state <= 0)
		return NULL;
	if (m->perf_rules)
		return perf_lookup(m, elf_vaddr, &sym) == 1 && sym.value == elf_vaddr ? sym.name : NULL;
	if (!m->n_ents || elf_vaddr < m->ents[0].start)
		return NULL;
	e = &m->ents[last_at_or_before(m, elf_vaddr)];
	return e->start == elf_vaddr ? t2f_elf_table__name(&m->tables[e->table], e->name) : NULL;
}
