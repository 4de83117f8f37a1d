/* symbolizer/elf_index.c: the sorted address index and __lookup.
 *
 * Built on the first lookup from every kept symbol of every table, with the arch fix-ups:
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
 * tie (aliases such as C1/C2 constructors), with a prefetch a few records ahead.
 * Under perf's rules (m->perf_rules, elf_module.h) the kept symbols are elf_perf_rules.c's, a
 * .dynsym is left out beside any .symtab, and no index is built: lookups walk perf's tree
 * (perf_tree, elf_perf_tree.c); n_ents then counts the kept symbols.
 * PLT stubs (elf_plt.c: "memcpy@plt", sized by the stub) are not in the index: a lookup the
 * index misses asks elf_plt.c, which names them only when an address falls among them, so at
 * one address any symbol of a table wins over a stub name, and __each_symbol lists the tables'
 * symbols alone.
 *
 * Layout, 30 bytes per entry: keys[] (the addresses, strictly increasing, searched alone so a
 * probe touches 8 bytes), ents[] (16 bytes: end, name offset, table, st_info: all a hit needs,
 * so a hit reads neither the symbol record nor the name), covers[] (4 bytes, read on the rare
 * miss path) and a bucket table: the address span cut into power-of-two buckets, about one per
 * two entries, each holding the index of its first key. A lookup reads its bucket's bounds,
 * then runs a branch-free lower bound over those few keys (a conditional move per step) for the
 * last key <= addr, then checks that entry's range: three cache lines. When an entry ends
 * before addr, an earlier symbol may still contain it (a function with a nested FUNC label, a
 * sizeless marker inside one), so covers[i] chains to the nearest earlier entry whose range
 * holds keys[i]: every symbol containing addr is on that chain, nearest start first.
 *
 * Building: one pass over the tables in order, a stable LSD radix sort of packed
 * (address, index) keys (passes of at most 11 bits), a pass keeping the preferred symbol
 * per address, a stack pass for covers[], a pass for the buckets. The sort works inside the
 * final keys+ents block, so the build touches about twice the index size. Fresh pages are
 * mapped up front with MADV_POPULATE_* (page faults were half of the build time in a VM).
 */
#include "symbolizer/elf_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

struct build_ent {              /* 24 bytes while sorting */
	uint64_t value, size;
	uint32_t name;              /* st_name */
	uint8_t table, info;        /* table index, st_info */
	uint8_t rank;               /* table tier (0 or 4) + bind rank (bind_rank) */
	uint8_t under;              /* leading '_' of the name, at most 254; UNDER_UNKNOWN */
};

#define UNDER_UNKNOWN 255           /* not counted yet */
#define TIER_SHADOWED 4             /* rank added to .dynsym entries behind a short .symtab */
#define TABLE_SKIPPED UINT8_MAX     /* a table left out of the index */

/* The lookup address of a kept symbol. */
static uint64_t fixed_value(const struct t2f_elf_module *m, uint64_t v)
{
	uint64_t code;

	if (m->machine == EM_ARM)
		return v & ~(uint64_t)1;
	if (m->opd && v >= m->opd_addr && v - m->opd_addr <= m->opd_size - 8) {
		code = t2f_elf_rd64(m->opd + (v - m->opd_addr), m->big_endian);
		return code ? code : v;  /* 0: left to a relocation, keep the descriptor */
	}
	return v;
}

static uint8_t bind_rank(unsigned char bind)
{
	switch (bind) {
	case STB_GLOBAL:
	case STB_GNU_UNIQUE: return 0;
	case STB_WEAK: return 1;
	case STB_LOCAL: return 2;
	default: return 3;
	}
}

static uint8_t leading_underscores(const char *name)
{
	uint8_t n = 0;

	while (name[n] == '_' && n < UNDER_UNKNOWN - 1)
		n++;
	return n;
}

/* The rank a table's entries start from: 0; for a .dynsym-like table of a file with its own
 * .symtab, TABLE_SKIPPED when that .symtab has at least as many records (a linked .symtab holds
 * every .dynsym function; perf and addr2line read only the .symtab as well), else
 * TIER_SHADOWED (a .symtab cut short: its entries decide where both tables have one). */
static uint8_t table_tier(const struct t2f_elf_module *m, const struct t2f_elf_table *t)
{
	size_t most = 0;

	if (!t->dynamic)
		return 0;
	for (unsigned ti = 0; ti < m->n_tables; ti++) {
		const struct t2f_elf_table *u = &m->tables[ti];

		if (!u->dynamic && !u->mini && u->count > most)
			most = u->count;
	}
	if (!most)
		return 0;
	if (m->perf_rules)  /* perf reads the .symtab alone when there is one */
		return TABLE_SKIPPED;
	return most >= t->count ? TABLE_SKIPPED : TIER_SHADOWED;
}

/* Asks the kernel to map the pages of a table we are about to read (MADV_POPULATE_READ) or of
 * a new buffer we are about to fill (MADV_POPULATE_WRITE) in one call rather than one page
 * fault at a time (Linux 5.14; a no-op where unsupported). Page faults were half of the build
 * time of the libstdc++ debug build's index in a VM. */
static void prefault(const void *p, size_t len, bool write)
{
#if defined(MADV_POPULATE_READ) && defined(MADV_POPULATE_WRITE)
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), a = (uintptr_t)p & ~(page - 1);

	if (p && len >= 16 * page)
		madvise((void *)a, (uintptr_t)p + len - a,
			write ? MADV_POPULATE_WRITE : MADV_POPULATE_READ);
#else
	(void)p;
	(void)len;
	(void)write;
#endif
}

/* Table t's kept symbols with their lookup addresses, appended to a[*k]; *min and *max the
 * smallest and largest address so far. Under perf's rules the labels need the section names:
 * 0 or -ENOMEM. */
static int collect_table(struct t2f_elf_module *m, unsigned ti, uint8_t tier, struct build_ent *a,
			 size_t *k, uint64_t *min, uint64_t *max)
{
	const struct t2f_elf_table *t = &m->tables[ti];
	struct t2f_elf_rawsym s;
	uint8_t *label_ok = NULL;
	size_t n_secs = 0;
	int err = m->perf_rules ? t2f_elf_label_sections(m, t, &label_ok, &n_secs) : 0;

	if (err)
		return err;
	prefault(t->syms, t->count * (t->is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym)), false);
	if (!tier)  /* the names a tie break reads; a shadowed table's are rarely read */
		prefault(t->strs, t->str_size, false);
	for (size_t i = 0; i < t->count; i++) {
		t2f_elf_table__sym(t, i, &s);
		if (m->perf_rules ? !t2f_elf_perf_kept(&s, label_ok, n_secs)
				  : !t2f_elf_rawsym__kept(&s))
			continue;
		a[*k] = (struct build_ent){ fixed_value(m, s.value), s.size, s.name, (uint8_t)ti,
			s.info, tier + bind_rank(GELF_ST_BIND(s.info)), UNDER_UNKNOWN };
		*min = a[*k].value < *min ? a[*k].value : *min;
		*max = a[*k].value > *max ? a[*k].value : *max;
		(*k)++;
	}
	free(label_ok);
	return 0;
}

/* Every kept symbol with its lookup address, into a[] (room for every record of every
 * table); *n the count, *min and *max the smallest and largest address. 0 or -ENOMEM. */
static int collect(struct t2f_elf_module *m, struct build_ent *a, size_t *n, uint64_t *min,
		   uint64_t *max)
{
	uint8_t tier;
	int err = 0;

	*n = 0;
	*min = UINT64_MAX;
	*max = 0;
	for (unsigned ti = 0; ti < m->n_tables && !err; ti++) {
		tier = table_tier(m, &m->tables[ti]);
		if (tier != TABLE_SKIPPED)
			err = collect_table(m, ti, tier, a, n, min, max);
	}
	return err;
}

#define PACK_SHIFT 24                       /* order[i] = (value - min) << 24 | index in a[] */
#define PACK_MASK ((UINT64_C(1) << PACK_SHIFT) - 1)

#define RADIX_BITS 11                       /* at most 2048 bins per pass */

/* order[] = the indexes of a[] by address, ties in table order: a stable LSD radix sort of
 * (value - min) << 24 | index on the address bits only, in as few passes of at most 11 bits as
 * the span needs (the libstdc++ debug build: 21 bits, 2 passes of 8 bytes per symbol instead
 * of sorting 24-byte records). The first pass reads a[] directly; the passes alternate between
 * order[] and tmp[], starting where they end in order[]. Needs n <= 2^24 and a span < 2^40. */
static int sort_packed(const struct build_ent *a, size_t n, uint64_t min, uint64_t span,
		       uint64_t *order, uint64_t *tmp)
{
	unsigned bits = 0, np, width, shift;
	uint64_t *src = NULL, *dst, key;
	uint32_t *count, *cb, sum, c;
	size_t bins;

	while (bits < 64 && span >> bits)
		bits++;
	np = (bits + RADIX_BITS - 1) / RADIX_BITS;
	width = np ? (bits + np - 1) / np : 0;
	bins = (size_t)1 << width;
	count = calloc(np * bins + 1, sizeof(*count));
	if (!count)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		for (unsigned p = 0; p < np; p++)
			count[p * bins + (((a[i].value - min) >> (p * width)) & (bins - 1))]++;
	dst = np % 2 ? order : tmp;
	for (size_t i = 0; !np && i < n; i++)
		order[i] = i;
	for (unsigned p = 0; p < np; p++) {
		cb = count + p * bins;
		shift = p * width + PACK_SHIFT;
		sum = 0;
		for (size_t v = 0; v < bins; v++) {
			c = cb[v];
			cb[v] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++) {
			key = src ? src[i] : (a[i].value - min) << PACK_SHIFT | i;
			dst[cb[(key >> shift) & (bins - 1)]++] = key;
		}
		src = dst;
		dst = dst == order ? tmp : order;
	}
	free(count);
	return 0;
}

/* For qsort_r: indexes of a[] by address, then index. */
static int by_value(const void *pa, const void *pb, void *ctx)
{
	const struct build_ent *a = ctx;
	uint64_t x = *(const uint64_t *)pa, y = *(const uint64_t *)pb;

	if (a[x].value != a[y].value)
		return a[x].value < a[y].value ? -1 : 1;
	return (x > y) - (x < y);
}

/* order[] = the indexes of a[] by address; *mask takes an index out of order[i]. */
static int sort_order(const struct build_ent *a, size_t n, uint64_t min, uint64_t max,
		      uint64_t *order, uint64_t *tmp, uint64_t *mask)
{
	if (n <= PACK_MASK && (max - min) >> (64 - PACK_SHIFT) == 0) {
		*mask = PACK_MASK;
		return sort_packed(a, n, min, n ? max - min : 0, order, tmp);
	}
	*mask = UINT64_MAX;
	for (size_t i = 0; i < n; i++)  /* addresses over 2^40 apart, or 16M symbols: rare */
		order[i] = i;
	if (n)
		qsort_r(order, n, sizeof(*order), by_value, (void *)a);
	return 0;
}

/* The leading '_' of e's name. */
static uint8_t under(const struct t2f_elf_module *m, struct build_ent *e)
{
	if (e->under == UNDER_UNKNOWN)
		e->under = leading_underscores(t2f_elf_table__name(&m->tables[e->table], e->name));
	return e->under;
}

/* The rules before the name's '_': < 0 when a wins over b, 0 on a tie. */
static int coarse_cmp(const struct build_ent *a, const struct build_ent *b)
{
	if ((a->size != 0) != (b->size != 0))
		return a->size != 0 ? -1 : 1;
	return (int)a->rank - (int)b->rank;
}

#define PREFETCH_AHEAD 16             /* records ahead whose names fill_entries asks for */

/* When order[j] and order[j + 1] tie on one address, asks the cache for both names: the tie
 * break reads them, and each is a miss somewhere in a string table of up to megabytes. */
static void prefetch_tie(const struct t2f_elf_module *m, const struct build_ent *a,
			 const uint64_t *order, uint64_t mask, size_t j)
{
	const struct build_ent *x = &a[order[j] & mask], *y = &a[order[j + 1] & mask];

	if (x->value != y->value || coarse_cmp(x, y) != 0)
		return;
	__builtin_prefetch(t2f_elf_table__name(&m->tables[x->table], x->name));
	__builtin_prefetch(t2f_elf_table__name(&m->tables[y->table], y->name));
}

/* The preferred symbol of order[i..end) (one address); ties keep the earlier one. Names are
 * read only when the best two tie on the other rules. */
static const struct build_ent *pick(const struct t2f_elf_module *m, struct build_ent *a,
				    const uint64_t *order, uint64_t mask, size_t i, size_t end)
{
	struct build_ent *best = &a[order[i] & mask], *c, *win = NULL;
	bool tied = false;
	int d;

	for (size_t j = i + 1; j < end; j++) {
		c = &a[order[j] & mask];
		d = coarse_cmp(c, best);
		if (d < 0)
			best = c;
		tied = d < 0 ? false : tied || d == 0;
	}
	if (!tied)
		return best;
	for (size_t j = i; j < end; j++) {
		c = &a[order[j] & mask];
		if (coarse_cmp(c, best) == 0 && (!win || under(m, c) < under(m, win)))
			win = c;
	}
	return win;
}

/* One entry per address, the preferred symbol, in the order of order[] (which is m->keys: an
 * entry k is written after order[0..k] were read). */
static void fill_entries(struct t2f_elf_module *m, struct build_ent *a, const uint64_t *order,
			 uint64_t mask, size_t n)
{
	const struct build_ent *best;
	size_t k = 0, i = 0, end;

	while (i < n) {
		if (i + PREFETCH_AHEAD + 1 < n)
			prefetch_tie(m, a, order, mask, i + PREFETCH_AHEAD);
		best = &a[order[i] & mask];
		for (end = i + 1; end < n && a[order[end] & mask].value == best->value; end++)
			;
		if (end - i > 1)
			best = pick(m, a, order, mask, i, end);
		i = end;
		m->keys[k] = best->value;
		m->ents[k++] = (struct t2f_elf_ent){
			.end = best->size > UINT64_MAX - best->value
				? UINT64_MAX : best->value + best->size,
			.name = best->name, .table = best->table, .info = best->info };
	}
	m->n_ents = k;
}

/* covers[i]: the nearest earlier entry whose range holds keys[i]. `stack` has n_ents slots. */
static void fill_covers(struct t2f_elf_module *m, uint32_t *stack)
{
	size_t sp = 0;

	for (size_t i = 0; i < m->n_ents; i++) {
		while (sp && m->ents[stack[sp - 1]].end <= m->keys[i])
			sp--;
		m->covers[i] = sp ? stack[sp - 1] : T2F_ELF_NONE;
		stack[sp++] = (uint32_t)i;
	}
}

/* Buckets per entry count n (room for n / 2 + 2 of them, see fill_buckets). */
static size_t max_buckets(size_t n)
{
	return n / 2 + 2;
}

/* Buckets of 2^shift bytes from keys[0], about one per two entries; bucket[b] is the first
 * entry at or after the start of bucket b, bucket[n_buckets] == n_ents. */
static void fill_buckets(struct t2f_elf_module *m)
{
	size_t n = m->n_ents, nb, want = n / 2 ? n / 2 : 1;
	uint64_t span = n ? m->keys[n - 1] - m->keys[0] : 0;
	unsigned shift = 0;

	while (shift < 63 && (span >> shift) >= want)
		shift++;
	nb = (size_t)(span >> shift) + 1;  /* <= want + 1: nb + 1 <= max_buckets(n) */
	for (size_t b = 0, i = 0; b <= nb; b++) {
		while (i < n && (m->keys[i] - m->keys[0]) >> shift < b)
			i++;
		m->buckets[b] = (uint32_t)i;
	}
	m->bucket_shift = shift;
	m->n_buckets = nb;
}

/* One block for the index of n symbols: keys (8 bytes each), ents (16), covers (4), buckets
 * (4 per two). The sort's order[] and scratch live in keys and ents while it runs. */
static int alloc_index(struct t2f_elf_module *m, size_t n)
{
	size_t bytes = n * (sizeof(*m->keys) + sizeof(*m->ents) + sizeof(*m->covers)) +
		       max_buckets(n) * sizeof(*m->buckets);

	m->keys = malloc(bytes);
	if (!m->keys)
		return -ENOMEM;
	prefault(m->keys, bytes, true);
	m->ents = (struct t2f_elf_ent *)(m->keys + n);
	m->covers = (uint32_t *)(m->ents + n);
	m->buckets = m->covers + n;
	return 0;
}

/* Under perf's rules: perf's tree of the kept symbols a[0..n) (table order), m->pinfo naming
 * its nodes. 0 or -ENOMEM. */
static int perf_tree(struct t2f_elf_module *m, const struct build_ent *a, size_t n)
{
	int err = 0;

	m->ptree = (struct t2f_elf_ptree){ .root = T2F_ELF_NONE };
	m->pinfo = malloc((n ? n : 1) * sizeof(*m->pinfo));
	if (!m->pinfo)
		return -ENOMEM;
	for (size_t i = 0; i < n && !err; i++) {
		const struct t2f_elf_table *t = &m->tables[a[i].table];

		m->pinfo[i] = (struct t2f_elf_pinfo){ t2f_elf_table__name(t, a[i].name), t->name,
			a[i].info };
		err = t2f_elf_ptree__insert(&m->ptree, a[i].value, a[i].value + a[i].size,
					    (uint32_t)i);
	}
	return err ? err : t2f_elf_perf_tree_finish(m, n);
}

static int build_index(struct t2f_elf_module *m)
{
	struct build_ent *a = NULL;
	uint64_t min, max, mask;
	size_t all = 0, n = 0;
	int err = t2f_elf_module__load_tables(m);

	if (err)
		goto out;
	for (unsigned ti = 0; ti < m->n_tables; ti++)
		if (table_tier(m, &m->tables[ti]) != TABLE_SKIPPED)
			all += m->tables[ti].count;
	a = malloc((all ? all : 1) * sizeof(*a));
	if (!a) {
		err = -ENOMEM;
		goto out;
	}
	prefault(a, all * sizeof(*a), true);
	err = collect(m, a, &n, &min, &max);
	if (!err && m->perf_rules) {  /* lookups walk perf's tree instead of the index */
		err = perf_tree(m, a, n);
		m->n_ents = err ? 0 : n;
		goto out;
	}
	if (!err)
		err = alloc_index(m, n);
	if (err)
		goto out;
	err = sort_order(a, n, min, max, m->keys, (uint64_t *)m->ents, &mask);
	if (err)
		goto out;
	fill_entries(m, a, m->keys, mask, n);
	fill_covers(m, (uint32_t *)a);  /* a is no longer needed: 24 >= 4 bytes per entry */
	fill_buckets(m);
out:
	free(a);
	if (err)
		t2f_elf_module__free_index(m);
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
	free(m->keys);  /* ents, covers and buckets share this block */
	m->keys = NULL;
	m->ents = NULL;
	m->covers = NULL;
	m->buckets = NULL;
	m->n_ents = 0;
	t2f_elf_plt__free(&m->plt);
	t2f_elf_ptree__free(&m->ptree);
	free(m->pinfo);
	m->pinfo = NULL;
}

/* The hit's symbol; its size is end - value (saturated at the top of the address space). */
static void fill_sym(const struct t2f_elf_module *m, size_t i, struct t2f_elf_sym *out)
{
	const struct t2f_elf_ent *e = &m->ents[i];
	const struct t2f_elf_table *t = &m->tables[e->table];

	*out = (struct t2f_elf_sym){ .name = t2f_elf_table__name(t, e->name), .value = m->keys[i],
		.size = e->end - m->keys[i], .table = t->name, .bind = GELF_ST_BIND(e->info),
		.type = GELF_ST_TYPE(e->info) };
}

/* The last entry whose key is <= addr (keys[0] <= addr). */
static size_t last_at_or_before(const struct t2f_elf_module *m, uint64_t addr)
{
	uint64_t off = addr - m->keys[0], b = off >> m->bucket_shift;
	const uint64_t *base;
	size_t lo, n;

	if (b >= m->n_buckets)
		return m->n_ents - 1;
	lo = m->buckets[b];
	lo = lo ? lo - 1 : 0;  /* keys[lo] <= addr: it lies in an earlier bucket, or is keys[0] */
	base = m->keys + lo;
	n = m->buckets[b + 1] - lo;
	while (n > 1) {  /* compiles to a conditional move */
		size_t half = n / 2;

		base = base[half] <= addr ? base + half : base;
		n -= half;
	}
	return (size_t)(base - m->keys);
}

/* Under perf's rules: the walk down perf's tree (elf_perf_tree.c). */
static int perf_lookup(const struct t2f_elf_module *m, uint64_t elf_vaddr,
		       struct t2f_elf_sym *out)
{
	uint64_t start, end;
	uint32_t i;

	for (size_t k = 0; k < m->n_plt_blind; k++)
		if (elf_vaddr >= m->plt_blind[k][0] && elf_vaddr < m->plt_blind[k][1])
			return 0;
	if (!t2f_elf_ptree__find(&m->ptree, elf_vaddr, &i, &start, &end))
		return 0;
	*out = (struct t2f_elf_sym){ .name = m->pinfo[i].name, .value = start, .size = end - start,
		.table = m->pinfo[i].table, .bind = GELF_ST_BIND(m->pinfo[i].info),
		.type = GELF_ST_TYPE(m->pinfo[i].info) };
	return 1;
}

int t2f_elf_module__lookup(struct t2f_elf_module *m, uint64_t elf_vaddr, struct t2f_elf_sym *out)
{
	size_t i;
	int err;

	if (m->index_state <= 0) {
		err = m->index_state ? m->index_state : build_index(m);
		if (err)
			return err;
	}
	if (m->perf_rules)
		return perf_lookup(m, elf_vaddr, out);
	if (!m->n_ents || elf_vaddr < m->keys[0])
		return t2f_elf_plt__lookup(m, elf_vaddr, out);
	for (i = last_at_or_before(m, elf_vaddr);; i = m->covers[i]) {
		if (elf_vaddr < m->ents[i].end || elf_vaddr == m->keys[i]) {
			fill_sym(m, i, out);
			return 1;
		}
		if (m->covers[i] == T2F_ELF_NONE)
			return t2f_elf_plt__lookup(m, elf_vaddr, out);
	}
}
