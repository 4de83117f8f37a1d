/* symbolizer/elf_perf_rules.c: which symbols the index keeps under perf's rules.
 *
 * perf (tools/perf/util/symbol-elf.c, dso__load_sym; perf 6.1 as Debian 12 ships it) keeps,
 * from the .symtab of the file it found (else the .dynsym):
 *   functions  FUNC or GNU_IFUNC with a name, defined (st_shndx != SHN_UNDEF);
 *   objects    OBJECT with a name, defined;
 *   labels     NOTYPE with a name, not UNDEF or ABS, in a section whose name contains "text"
 *              or "data" (ld.so's `_start` and `_dl_start_user` are such labels in .text).
 * Our index also leaves out ABS and COMMON symbols and value 0 in both rule sets (no code lies
 * there). Lookups then find what a walk down perf's tree would (elf_perf_tree.c, and its
 * in-order array, elf_perf_flat.c): elf_index.c adds the kept symbols in table order, then
 * here perf's end fix-up and choice among symbols at one start (choose_best_symbol: non-zero
 * size, then non-WEAK, then GLOBAL, then fewer leading '_', then the longer name, then the
 * earlier; a "SyS" name loses; names as perf demangles them when loading), then the PLT
 * stubs (elf_plt.c) when any symbol was kept. A debug file without its binary has no PLT bytes
 * to name stubs from; with the binary, the stubs in perf's tree decide what an address in .plt
 * is named (a stub's name, nothing, or by the tree's shape the sizeless symbol before .plt:
 * _init with GNU ld, _fini with lld). Without them that cannot be reproduced, so addresses in
 * those sections are left unnamed: a miss, not a guess.
 */
#include "symbolizer/elf_internal.h"

#include <stdlib.h>

int t2f_elf_label_sections(struct t2f_elf_module *m, const struct t2f_elf_table *t,
			   uint8_t **ok, size_t *n)
{
	struct t2f_elf_image im = { t->mini ? m->mini_elf : m->elf, 0, "" };
	Elf_Scn *scn = NULL;
	const char *name;
	GElf_Shdr sh;
	size_t count;

	*ok = NULL;
	*n = 0;
	if (!im.elf || elf_getshdrnum(im.elf, &count) || !count)
		return 0;
	*ok = calloc(count, 1);
	if (!*ok)
		return -ENOMEM;
	*n = count;
	while ((scn = elf_nextscn(im.elf, scn))) {
		size_t i = elf_ndxscn(scn);

		if (i < count && gelf_getshdr(scn, &sh) &&
		    (name = t2f_elf_section__name(m, &im, &sh)))
			(*ok)[i] = strstr(name, "text") || strstr(name, "data");
	}
	return 0;
}

bool t2f_elf_perf_kept(const struct t2f_elf_rawsym *s, const uint8_t *label_ok, size_t n)
{
	unsigned type = GELF_ST_TYPE(s->info);

	if (!s->name || !s->value || s->shndx == SHN_UNDEF || s->shndx == SHN_ABS ||
	    s->shndx == SHN_COMMON)
		return false;
	if (type == STT_FUNC || type == STT_GNU_IFUNC || type == STT_OBJECT)
		return true;
	return type == STT_NOTYPE && s->shndx < n && label_ok[s->shndx];
}

/* The module whose PLT names perf's tree holds: the binary beside a debug file, else m. */
static const struct t2f_elf_module *plt_src(const struct t2f_elf_module *m)
{
	return m->plt_from ? m->plt_from : m;
}

const char *t2f_elf_pinfo__name(const struct t2f_elf_module *m, uint32_t i)
{
	const struct t2f_elf_pinfo *p = &m->pinfo[i];

	if (p->table == T2F_ELF_PINFO_PLT)
		return plt_src(m)->plt.names + p->name;
	return t2f_elf_table__name(&m->tables[p->table], p->name);
}

const char *t2f_elf_pinfo__table(const struct t2f_elf_module *m, uint32_t i)
{
	const struct t2f_elf_pinfo *p = &m->pinfo[i];

	return p->table == T2F_ELF_PINFO_PLT ? plt_src(m)->plt.section : m->tables[p->table].name;
}

/* What first_wins reads: the module, and the ranks of its names at shared starts. */
struct rules {
	const struct t2f_elf_module *m;
	const struct t2f_elf_name_rank *ranks;
};

/* perf's choose_best_symbol: whether a (earlier in the tree) wins over b. Chromium's free,
 * cfree, __libc_free, _ZdlPv ... at one address: "operator delete[]", the longest. */
static bool first_wins(void *ctx, uint32_t a, uint64_t a_size, uint32_t b, uint64_t b_size)
{
	const struct rules *r = ctx;
	const struct t2f_elf_pinfo *p = r->m->pinfo;
	unsigned ba = GELF_ST_BIND(p[a].info), bb = GELF_ST_BIND(p[b].info);

	if ((a_size == 0) != (b_size == 0))
		return a_size != 0;
	if ((ba == STB_WEAK) != (bb == STB_WEAK))
		return bb == STB_WEAK;
	if ((ba == STB_GLOBAL) != (bb == STB_GLOBAL))
		return ba == STB_GLOBAL;
	return t2f_elf_name_rank__first(&r->ranks[a], &r->ranks[b]);
}

/* The PLT stubs of m->plt_from (else m) after the n symbols: into perf's tree, else its array. */
static int add_plt(struct t2f_elf_module *m, size_t n, bool tree)
{
	struct t2f_elf_module *src = m->plt_from ? m->plt_from : m;
	const struct t2f_elf_plt *plt;
	struct t2f_elf_pinfo *grown;
	int err = t2f_elf_module__load_tables(src);

	if (err)  /* a file whose tables cannot be read names no stub (warned) */
		return err == -ENOMEM ? err : 0;
	err = t2f_elf_plt__all(src, &plt);
	if (!err && src == m) /* no binary: its stubs cannot be named, nor drawn into others */
		m->n_plt_blind = t2f_elf_plt__blind_ranges(m, m->plt_blind, T2F_ELF_PLT_BLIND);
	if (err || !plt->n)
		return err;
	grown = realloc(m->pinfo, (n + plt->n) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	m->pinfo = grown;
	if (tree && (err = t2f_elf_ptree__reserve(&m->ptree, n + plt->n)))
		return err;
	for (size_t i = 0; i < plt->n && !err; i++) {  /* by address: relocation order here */
		uint64_t a = plt->ents[i].addr;

		grown[n + i] = (struct t2f_elf_pinfo){ plt->ents[i].name, T2F_ELF_PINFO_PLT,
			GELF_ST_INFO(STB_GLOBAL, STT_FUNC) };
		err = tree ? t2f_elf_ptree__insert(&m->ptree, a, a + plt->stub_size, (uint32_t)(n + i))
		      : t2f_elf_pflat__add(&m->pflat, a, a + plt->stub_size, (uint32_t)(n + i));
	}
	return err;
}

int t2f_elf_perf_tree_finish(struct t2f_elf_module *m, size_t n)
{
	t2f_elf_pflat__tree(&m->pflat, &m->ptree, n); /* the fix-ups, as the array made them */
	return n ? add_plt(m, n, true) : 0;
}

int t2f_elf_perf_flat_finish(struct t2f_elf_module *m, size_t n)
{
	struct t2f_elf_name_rank *ranks = NULL;
	int err = t2f_elf_pflat__order(&m->pflat);

	if (err)
		return err;
	t2f_elf_pflat__fixup_end(&m->pflat);
	err = t2f_elf_perf_rank_names(m, n, &ranks) ?:
	      t2f_elf_pflat__fixup_duplicate(&m->pflat, first_wins, &(struct rules){ m, ranks });
	free(ranks);
	err = err ? err : n ? add_plt(m, n, false) : 0;
	return err ? err : t2f_elf_pflat__finish(&m->pflat);
}
