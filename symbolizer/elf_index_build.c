/* symbolizer/elf_index_build.c: building the sorted address index that elf_index.c searches.
 *
 * Steps, each one pass over flat arrays:
 *   collect   every kept record of the indexed tables as one packed 8-byte key,
 *             (address & (2^40 - 1)) << 24 | record number (the tables' records numbered
 *             back to back in table order), written straight into the index block: no
 *             per-symbol structure, the symbol records stay where libelf keeps them;
 *   sort      a stable LSD radix sort on the address bits that differ between the smallest and
 *             the largest address (the libstdc++ debug build: 21 bits, 2 passes of at most 11
 *             bits), ties left in record order; keys whose addresses differ above bit 40 (or
 *             more than 2^24 records) are sorted by qsort_r instead;
 *   fill      one entry per address, the preferred symbol (elf_index.c's rules), read from its
 *             record (prefetched a few keys ahead: the records are visited in address order,
 *             which is not table order);
 *   covers    covers[i], the nearest earlier entry whose range holds ents[i].start, found by
 *             walking the chain of covers from entry i - 1 (amortized O(1), no stack);
 *   buckets   the address span cut into power-of-two buckets, about one per two entries.
 * The block is sized for every record of the indexed tables: keys, the sort's scratch and its
 * output share the entries' 24 bytes per record, and each entry k is written after the sorted
 * keys 0..k were read, so nothing else is allocated but the radix counts. Fresh pages are
 * mapped with MADV_POPULATE_* before they are filled (page faults were half of the build time
 * in a VM).
 */
#include "symbolizer/elf_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "formats/mem.h"

#define TIER_SHADOWED 4             /* rank added to .dynsym entries behind a short .symtab */
#define TABLE_SKIPPED UINT8_MAX     /* a table left out of the index */
#define UNDER_UNKNOWN 255           /* leading '_' not counted yet */

#define PACK_SHIFT 24               /* key = (address & LOW_MASK) << 24 | record number */
#define PACK_MASK ((UINT64_C(1) << PACK_SHIFT) - 1)
#define LOW_BITS (64 - PACK_SHIFT)
#define LOW_MASK ((UINT64_C(1) << LOW_BITS) - 1)
#define RADIX_BITS 11               /* at most 2048 bins per pass */
#define PREFETCH_AHEAD 8            /* sorted keys ahead whose records fill asks for */

/* The indexed tables and how their records are numbered. */
struct build {
	struct t2f_elf_module *m;
	unsigned n;                         /* indexed tables */
	uint8_t table[T2F_ELF_MAX_TABLES];  /* their index in m->tables */
	uint8_t tier[T2F_ELF_MAX_TABLES];   /* 0 or TIER_SHADOWED */
	size_t base[T2F_ELF_MAX_TABLES + 1]; /* first record number of each; base[n]: all */
	uint64_t mask;                      /* takes the record number out of a key: PACK_MASK,
					     * or all ones for unpacked keys */
};

/* One candidate symbol, read from its record. */
struct cand {
	uint64_t value, size;       /* value fixed up for lookups */
	uint32_t name;
	uint8_t table, info;        /* index in m->tables, st_info */
	uint8_t rank;               /* table tier + bind rank */
	uint8_t under;              /* leading '_' of the name, UNDER_UNKNOWN until counted */
};

uint64_t t2f_elf_fixed_value(const struct t2f_elf_module *m, uint64_t v)
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

bool t2f_elf_table_indexed(const struct t2f_elf_module *m, const struct t2f_elf_table *t)
{
	return table_tier(m, t) != TABLE_SKIPPED;
}

/* Asks the kernel to map the pages of a table we are about to read (MADV_POPULATE_READ) or of
 * a new buffer we are about to fill (MADV_POPULATE_WRITE) in one call rather than one page
 * fault at a time (Linux 5.14; a no-op where unsupported). */
static void prefault(const void *p, size_t len, bool write)
{
#if defined(MADV_POPULATE_READ) && defined(MADV_POPULATE_WRITE)
	uintptr_t page = (uintptr_t)t2f_mem__page_size(), a = (uintptr_t)p & ~(page - 1);

	if (p && len >= 16 * page)
		madvise((void *)a, (uintptr_t)p + len - a,
			write ? MADV_POPULATE_WRITE : MADV_POPULATE_READ);
#else
	(void)p;
	(void)len;
	(void)write;
#endif
}

static void build_init(struct build *b, struct t2f_elf_module *m)
{
	uint8_t tier;

	*b = (struct build){ .m = m, .mask = PACK_MASK };
	for (unsigned ti = 0; ti < m->n_tables; ti++) {
		tier = table_tier(m, &m->tables[ti]);
		if (tier == TABLE_SKIPPED)
			continue;
		b->table[b->n] = (uint8_t)ti;
		b->tier[b->n] = tier;
		b->base[b->n + 1] = b->base[b->n] + m->tables[ti].count;
		b->n++;
	}
	if (b->base[b->n] > PACK_MASK + 1)  /* record numbers too large to pack */
		b->mask = UINT64_MAX;
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

/* The indexed table slot holding record number r. */
static unsigned slot_of(const struct build *b, uint64_t r)
{
	unsigned s = 0;

	while (s + 1 < b->n && r >= b->base[s + 1])
		s++;
	return s;
}

/* The record behind key k (for a prefetch). */
static const void *record_of(const struct build *b, uint64_t k)
{
	uint64_t r = k & b->mask;
	unsigned s = slot_of(b, r);
	const struct t2f_elf_table *t = &b->m->tables[b->table[s]];

	return t->syms + (r - b->base[s]) * (t->is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym));
}

/* The candidate behind key k. */
static void cand_of(const struct build *b, uint64_t k, struct cand *c)
{
	uint64_t r = k & b->mask;
	unsigned s = slot_of(b, r);
	struct t2f_elf_rawsym raw;

	t2f_elf_table__sym(&b->m->tables[b->table[s]], r - b->base[s], &raw);
	*c = (struct cand){ t2f_elf_fixed_value(b->m, raw.value), raw.size, raw.name,
		b->table[s], raw.info, b->tier[s] + bind_rank(GELF_ST_BIND(raw.info)),
		UNDER_UNKNOWN };
}

/* Every kept record as a packed key into x[]; *n their count, *min and *max the smallest and
 * largest address. */
static void collect(const struct build *b, uint64_t *x, size_t *n, uint64_t *min, uint64_t *max)
{
	struct t2f_elf_rawsym s;
	uint64_t v;
	size_t k = 0;

	*min = UINT64_MAX;
	*max = 0;
	for (unsigned si = 0; si < b->n; si++) {
		const struct t2f_elf_table *t = &b->m->tables[b->table[si]];

		prefault(t->syms, t->count * (t->is64 ? sizeof(Elf64_Sym)
							     : sizeof(Elf32_Sym)), false);
		for (size_t i = 0; i < t->count; i++) {
			t2f_elf_table__sym(t, i, &s);
			if (!t2f_elf_rawsym__kept(&s))
				continue;
			v = t2f_elf_fixed_value(b->m, s.value);
			x[k++] = b->mask == PACK_MASK ? (v & LOW_MASK) << PACK_SHIFT | (b->base[si] + i)
						      : b->base[si] + i;
			*min = v < *min ? v : *min;
			*max = v > *max ? v : *max;
		}
	}
	*n = k;
}

/* Sorts the packed keys x[0..n) into order[] on the address bits [0, bits), stably; scratch[]
 * holds n keys. x is read by the first pass only; then the passes alternate so that the last
 * one writes order[]. 0 or -ENOMEM. */
static int radix_sort(const uint64_t *x, size_t n, unsigned bits, uint64_t *scratch,
		      uint64_t *order)
{
	unsigned np = (bits + RADIX_BITS - 1) / RADIX_BITS, width = np ? (bits + np - 1) / np : 0;
	size_t bins = (size_t)1 << width;
	const uint64_t *src = x;
	uint64_t *dst;
	uint32_t *count, *cb, sum, c;

	if (!np) {
		memmove(order, x, n * sizeof(*x));
		return 0;
	}
	count = calloc(np * bins, sizeof(*count));
	if (!count)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		for (unsigned p = 0; p < np; p++)
			count[p * bins + ((x[i] >> (PACK_SHIFT + p * width)) & (bins - 1))]++;
	for (unsigned p = 0; p < np; p++) {
		unsigned shift = PACK_SHIFT + p * width;

		cb = count + p * bins;
		sum = 0;
		for (size_t v = 0; v < bins; v++) {
			c = cb[v];
			cb[v] = sum;
			sum += c;
		}
		dst = (np - 1 - p) % 2 ? scratch : order;
		for (size_t i = 0; i < n; i++)
			dst[cb[(src[i] >> shift) & (bins - 1)]++] = src[i];
		src = dst;
	}
	free(count);
	return 0;
}

/* For qsort_r: record numbers by address, then number. */
static int by_address(const void *pa, const void *pb, void *ctx)
{
	uint64_t x = *(const uint64_t *)pa, y = *(const uint64_t *)pb;
	struct cand a, b;

	cand_of(ctx, x, &a);
	cand_of(ctx, y, &b);
	if (a.value != b.value)
		return a.value < b.value ? -1 : 1;
	return (x > y) - (x < y);
}

/* order[] = the keys x[0..n) by address, ties in record order. When the addresses differ above
 * LOW_BITS (kernels share theirs: rare) or the keys are unpacked, they are sorted as record
 * numbers (b->mask all ones) by qsort_r. */
static int sort_keys(struct build *b, uint64_t *x, size_t n, uint64_t min, uint64_t max,
		     uint64_t *scratch, uint64_t *order)
{
	unsigned bits = 0;

	if (b->mask == PACK_MASK && (min >> LOW_BITS) == (max >> LOW_BITS)) {
		while (bits < LOW_BITS && (min ^ max) >> bits)
			bits++;
		return radix_sort(x, n, bits, scratch, order);
	}
	for (size_t i = 0; i < n; i++)
		x[i] &= b->mask;
	b->mask = UINT64_MAX;
	if (n)
		qsort_r(x, n, sizeof(*x), by_address, b);
	memmove(order, x, n * sizeof(*x));
	return 0;
}

static uint8_t under(const struct t2f_elf_module *m, struct cand *c)
{
	const char *name;
	uint8_t n = 0;

	if (c->under != UNDER_UNKNOWN)
		return c->under;
	name = t2f_elf_table__name(&m->tables[c->table], c->name);
	while (name[n] == '_' && n < UNDER_UNKNOWN - 1)
		n++;
	c->under = n;
	return n;
}

/* Whether c wins over best at one address: non-zero size, then rank, then fewer leading '_'
 * (names read only on a tie); the earlier wins a full tie. */
static bool wins(const struct t2f_elf_module *m, struct cand *c, struct cand *best)
{
	if ((c->size != 0) != (best->size != 0))
		return c->size != 0;
	if (c->rank != best->rank)
		return c->rank < best->rank;
	return under(m, c) < under(m, best);
}

/* One entry per address from the sorted keys order[0..n) (which share the entries' memory:
 * entry k is written after keys 0..k were read), the preferred symbol of each. */
static void fill_entries(struct build *b, const uint64_t *order, size_t n)
{
	struct t2f_elf_module *m = b->m;
	struct cand best, c;
	size_t k = 0;

	if (n)
		cand_of(b, order[0], &c);
	for (size_t i = 0; i < n;) {
		best = c;
		for (i++; i < n; i++) {
			if (i + PREFETCH_AHEAD < n)
				__builtin_prefetch(record_of(b, order[i + PREFETCH_AHEAD]));
			cand_of(b, order[i], &c);
			if (c.value != best.value)
				break;
			if (wins(m, &c, &best))
				best = c;
		}
		m->ents[k++] = (struct t2f_elf_ent){ .start = best.value,
			.end = best.size > UINT64_MAX - best.value ? UINT64_MAX
								   : best.value + best.size,
			.name = best.name, .table = best.table, .info = best.info };
	}
	m->n_ents = k;
}

/* covers[i]: the nearest earlier entry whose range holds ents[i].start. An entry the chain
 * from i - 1 skips ends at or before ents[i].start, so it cannot cover any later entry. */
static void fill_covers(struct t2f_elf_module *m)
{
	uint32_t j;

	for (size_t i = 0; i < m->n_ents; i++) {
		j = i ? (uint32_t)(i - 1) : T2F_ELF_NONE;
		while (j != T2F_ELF_NONE && m->ents[j].end <= m->ents[i].start)
			j = m->covers[j];
		m->covers[i] = j;
		m->ents[i].covered = j != T2F_ELF_NONE;
	}
}

/* Buckets per entry count n (room for n / 2 + 2 of them, see fill_buckets). */
static size_t max_buckets(size_t n)
{
	return n / 2 + 2;
}

/* Buckets of 2^shift bytes from ents[0].start, about one per two entries; bucket[b] is the
 * first entry at or after the start of bucket b, bucket[n_buckets] == n_ents. */
static void fill_buckets(struct t2f_elf_module *m)
{
	size_t n = m->n_ents, nb, want = n / 2 ? n / 2 : 1;
	uint64_t first = n ? m->ents[0].start : 0, span = n ? m->ents[n - 1].start - first : 0;
	unsigned shift = 0;

	while (shift < 63 && (span >> shift) >= want)
		shift++;
	nb = (size_t)(span >> shift) + 1;  /* <= want + 1: nb + 1 <= max_buckets(n) */
	for (size_t bk = 0, i = 0; bk <= nb; bk++) {
		while (i < n && (m->ents[i].start - first) >> shift < bk)
			i++;
		m->buckets[bk] = (uint32_t)i;
	}
	m->bucket_shift = shift;
	m->n_buckets = nb;
}

int t2f_elf_index_build(struct t2f_elf_module *m)
{
	uint64_t *x, min, max;
	struct build b;
	size_t all, n;
	int err;

	build_init(&b, m);
	all = b.base[b.n];
	m->ents = malloc((all ? all : 1) * (sizeof(*m->ents) + sizeof(*m->covers)) +
			 max_buckets(all) * sizeof(*m->buckets));
	if (!m->ents)
		return -ENOMEM;
	m->covers = (uint32_t *)(m->ents + all);
	m->buckets = m->covers + all;
	x = (uint64_t *)m->ents;    /* keys at [0, 8n), scratch [8n, 16n), order [16n, 24n) */
	prefault(x, all * sizeof(*x), true);
	collect(&b, x, &n, &min, &max);
	prefault(x + n, 2 * n * sizeof(*x), true);
	err = sort_keys(&b, x, n, min, max, x + n, x + 2 * n);
	if (err)
		return err;
	fill_entries(&b, x + 2 * n, n);
	prefault(m->covers, m->n_ents * sizeof(*m->covers), true);
	fill_covers(m);
	fill_buckets(m);
	return 0;
}
