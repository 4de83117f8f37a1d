/* symbolizer/elf_plt.c: names for PLT stubs ("memcpy@plt"), made from the PLT relocations.
 *
 * No symbol table names a PLT stub; `perf script` and objdump name them SYMBOL@plt after the
 * relocation that fills the stub's GOT slot. Real inputs (readelf -SW / -rW, objdump -d):
 *   workload (GNU ld, x86-64)  [13] .plt PROGBITS 0x2020 size 0x230 ES 0x10
 *                              .rela.plt: 34 R_X86_64_JUMP_SLOT, the second one at GOT 0x9008 is
 *                              _ZSt29_Rb_tree_insert_and_rebalance...; objdump: stub 0x2040
 *   libm.so.6 (GNU ld, x86-64) .rela.plt: 29 JUMP_SLOT then 2 IRELATIVE, but the GOT slots
 *                              (and so the stubs) interleave them: __stack_chk_fail's slot is
 *                              0xdf030, the 7th of .got.plt's entries after the 3 reserved
 *                              ones, and objdump shows it at 0x10090 = 0x10020 + 16 + 6 * 16,
 *                              not at its relocation index (3: 0x10060)
 *   gcc -fcf-protection -z ibtplt: .plt keeps the lazy entries, the called stubs are in
 *                              .plt.sec (16 bytes each, no header): puts@plt at .plt.sec + 0
 *   gcc -z now (GNU ld):       no .got.plt; the slots are in .got, in stub order
 *   lld (x86-64):              .plt ES 0, a 16-byte header, 16-byte stubs; IRELATIVE slots
 *                              come after the JUMP_SLOT ones and their stubs are in .iplt
 * So a stub's index is its GOT slot's rank among the PLT slots: (r_offset - first slot) / slot
 * size, where the first slot is the lowest r_offset of a JUMP_SLOT or IRELATIVE relocation.
 * Layouts: x86-64 and i386 16-byte header and stubs (.plt.sec: no header), 8- and 4-byte
 * slots; aarch64 32-byte header, 16-byte stubs, 8-byte slots. Other machines: nothing.
 * IRELATIVE stubs have no symbol and get no name. Under perf's rules (m->perf_rules) the stubs
 * are named as perf 6.1 names them instead: relocation i of .rela.plt names stub i of .plt
 * (after a header of the section's entry size), whatever its type and GOT slot, an IRELATIVE
 * one "@plt"; .plt.sec is not looked at. A stub index past the stubs' section, or a
 * slot off the slot grid, is left out; a broken relocation section (entry size, bounds, link,
 * symbol index) drops every PLT name of the module with one warning.
 */
#include "symbolizer/elf_internal.h"

#include <errno.h>
#include <stdlib.h>

#define PLT_SUFFIX "@plt"
#define PLT_SUFFIX_LEN 4

struct plt_arch {
	unsigned jump_slot, irelative;  /* relocation types */
	uint32_t header, stub, slot;    /* PLT0 bytes, stub bytes, GOT slot bytes */
	bool rela, has_sec;             /* .rela.plt (else .rel.plt); .plt.sec possible */
};

/* The layout of e_machine's PLT; false when we do not synthesise its names. */
static bool arch_of(const struct t2f_elf_module *m, struct plt_arch *a)
{
	if (m->machine == EM_X86_64 && m->is64)
		*a = (struct plt_arch){ R_X86_64_JUMP_SLOT, R_X86_64_IRELATIVE, 16, 16, 8, true, true };
	else if (m->machine == EM_386 && !m->is64)
		*a = (struct plt_arch){ R_386_JMP_SLOT, R_386_IRELATIVE, 16, 16, 4, false, true };
	else if (m->machine == EM_AARCH64 && m->is64)
		*a = (struct plt_arch){ R_AARCH64_JUMP_SLOT, R_AARCH64_IRELATIVE, 32, 16, 8, true,
					false };
	else
		return false;
	return true;
}

struct plt_sections {
	GElf_Shdr rel, plt, sec;
	bool have_rel, have_plt, have_sec;
};

/* .rela.plt / .rel.plt, .plt and .plt.sec of the file, by name and type. */
static void find_sections(struct t2f_elf_module *m, const struct plt_arch *a,
			  struct plt_sections *s)
{
	struct t2f_elf_image im = { m->elf, m->file_size, "" };
	const char *rel_name = a->rela ? ".rela.plt" : ".rel.plt";
	Elf_Scn *scn = NULL;
	const char *name;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(m->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC))
			continue;
		if (sh.sh_type != (a->rela ? SHT_RELA : SHT_REL) && sh.sh_type != SHT_PROGBITS)
			continue;
		name = t2f_elf_section__name(m, &im, &sh);
		if (!name)
			continue;
		if (sh.sh_type != SHT_PROGBITS && strcmp(name, rel_name) == 0) {
			s->rel = sh;
			s->have_rel = true;
		} else if (sh.sh_type == SHT_PROGBITS && strcmp(name, ".plt") == 0) {
			s->plt = sh;
			s->have_plt = true;
		} else if (sh.sh_type == SHT_PROGBITS && a->has_sec && strcmp(name, ".plt.sec") == 0) {
			s->sec = sh;
			s->have_sec = true;
		}
	}
}

/* Bytes before the first stub of .plt: the layout's header; under perf's rules perf 6.1's,
 * the section's entry size on x86, also when it is 0 (lld writes 0: then perf puts every stub
 * name at .plt's first byte with size 0, so they name that byte alone). */
static uint64_t plt_header(const struct t2f_elf_module *m, const struct plt_arch *a,
			   const GElf_Shdr *plt)
{
	if (m->perf_rules && m->machine != EM_AARCH64)
		return plt->sh_entsize;
	return a->header;
}

/* The .dynsym-like table loaded from section index `link` of the file, or NULL. */
static const struct t2f_elf_table *linked_table(const struct t2f_elf_module *m, uint64_t link)
{
	for (unsigned i = 0; i < m->n_tables; i++)
		if (!m->tables[i].mini && m->tables[i].shndx == link)
			return &m->tables[i];
	return NULL;
}

struct plt_input {
	const unsigned char *raw;       /* the relocation records */
	size_t entsize, count;
	const struct t2f_elf_table *dynsym;
	uint64_t stubs, n_stubs;        /* address of stub 0, number of stubs */
	uint32_t stub_size;
	const char *section;            /* ".plt" or ".plt.sec" */
};

struct plt_rel {
	uint64_t offset;
	uint32_t sym, type;
};

/* Relocation i of `raw` (file byte order, class and REL/RELA as the module's). */
static void read_rel(const struct t2f_elf_module *m, const struct plt_input *in, size_t i,
		     struct plt_rel *r)
{
	const unsigned char *p = in->raw + i * in->entsize;
	uint64_t info;

	if (m->is64) {
		r->offset = t2f_elf_rd64(p, m->big_endian);
		info = t2f_elf_rd64(p + 8, m->big_endian);
		r->sym = (uint32_t)(info >> 32);
		r->type = (uint32_t)info;
	} else {
		r->offset = t2f_elf_rd32(p, m->big_endian);
		info = t2f_elf_rd32(p + 4, m->big_endian);
		r->sym = (uint32_t)(info >> 8);
		r->type = (uint32_t)(info & 0xff);
	}
}


/* Checks the sections and maps the relocations: 1 ready, 0 nothing to name (no PLT, NOBITS in
 * a debug file), or a negative error (warned: the caller drops the PLT names). */
static int open_input(struct t2f_elf_module *m, const struct plt_arch *a,
		      const struct plt_sections *s, struct plt_input *in)
{
	size_t want = m->is64 ? (a->rela ? 24 : 16) : (a->rela ? 12 : 8);
	bool sec = s->have_sec && !m->perf_rules;
	const GElf_Shdr *stubs = sec ? &s->sec : &s->plt;
	uint64_t header = sec ? 0 : plt_header(m, a, &s->plt);
	Elf_Data *d;

	if (!s->have_rel || !s->have_plt || s->rel.sh_size == 0 || stubs->sh_size <= header)
		return 0;
	if (s->rel.sh_entsize != want || s->rel.sh_size % want ||
	    !t2f_elf_in_image(s->rel.sh_offset, s->rel.sh_size, m->file_size))
		return t2f_elf__skip(T2F_ELF_WARN(m, "PLT relocations: bad entry size or bounds, "
						  "PLT stubs left unnamed"), -T2F_ERR_ELF);
	in->dynsym = linked_table(m, s->rel.sh_link);
	if (!in->dynsym || !in->dynsym->dynamic)
		return t2f_elf__skip(T2F_ELF_WARN(m, "PLT relocations: sh_link is not a loaded "
						  "dynamic symbol table, PLT stubs left unnamed"),
				     -T2F_ERR_ELF);
	d = elf_getdata_rawchunk(m->elf, (int64_t)s->rel.sh_offset, s->rel.sh_size, ELF_T_BYTE);
	if (!d || !d->d_buf || d->d_size != s->rel.sh_size)
		return t2f_elf__skip(T2F_ELF_WARN(m, "PLT relocations unreadable: %s",
						  elf_errmsg(-1)), -T2F_ERR_ELF);
	in->raw = d->d_buf;
	in->entsize = want;
	in->count = s->rel.sh_size / want;
	in->stubs = stubs->sh_addr + header;
	in->stub_size = sec ? 16 : m->perf_rules && m->machine != EM_AARCH64 ? (uint32_t)header
									       : a->stub;
	in->n_stubs = in->stub_size ? (stubs->sh_size - header) / in->stub_size : in->count;
	in->section = sec ? ".plt.sec" : ".plt";
	return 1;
}

/* The lowest GOT slot of a stub relocation; false when there is none. */
static bool first_slot(const struct t2f_elf_module *m, const struct plt_arch *a,
		       const struct plt_input *in, uint64_t *first)
{
	struct plt_rel r;
	bool any = false;

	*first = UINT64_MAX;
	for (size_t i = 0; i < in->count; i++) {
		read_rel(m, in, i, &r);
		if ((r.type == a->jump_slot || (a->irelative && r.type == a->irelative)) &&
		    r.offset < *first) {
			*first = r.offset;
			any = true;
		}
	}
	return any;
}

/* The stub index of relocation i: by its GOT slot for a JUMP_SLOT relocation with a symbol,
 * else -1; under perf's rules i itself. -1 past the stubs. */
static int64_t stub_of(const struct t2f_elf_module *m, const struct plt_arch *a,
		       const struct plt_input *in, uint64_t first, const struct plt_rel *r,
		       size_t i)
{
	uint64_t k;

	if (m->perf_rules)
		return i < in->n_stubs ? (int64_t)i : -1;
	if (r->type != a->jump_slot || r->sym == 0 || (r->offset - first) % a->slot)
		return -1;
	k = (r->offset - first) / a->slot;
	return k < in->n_stubs ? (int64_t)k : -1;
}

/* The symbol's name and its length (bounded by the string table), or NULL when st_name is
 * outside it. */
static const char *sym_name(const struct t2f_elf_table *t, uint32_t sym, size_t *len)
{
	struct t2f_elf_rawsym s;

	t2f_elf_table__sym(t, sym, &s);
	if (s.name >= t->str_size)
		return NULL;
	*len = strlen(t->strs + s.name);  /* strs ends in NUL */
	return t->strs + s.name;
}

/* Checks every named relocation's symbol and sums the names' bytes (with "@plt" and NUL):
 * 0, or -T2F_ERR_ELF for a symbol index outside the table or a name outside its strings. */
static int measure(const struct t2f_elf_module *m, const struct plt_arch *a,
		   const struct plt_input *in, uint64_t first, size_t *n, size_t *bytes)
{
	struct plt_rel r;
	size_t len;

	*n = 0;
	*bytes = 0;
	for (size_t i = 0; i < in->count; i++) {
		read_rel(m, in, i, &r);
		if (stub_of(m, a, in, first, &r, i) < 0)
			continue;
		if (r.sym >= in->dynsym->count || !sym_name(in->dynsym, r.sym, &len))
			return -T2F_ERR_ELF;
		if (len > T2F_ELF_DECODE_MAX || *bytes > T2F_ELF_DECODE_MAX)
			return -T2F_ERR_LIMIT;
		*bytes += len + PLT_SUFFIX_LEN + 1;
		(*n)++;
	}
	return *bytes > UINT32_MAX ? -T2F_ERR_LIMIT : 0;
}

/* By address, then in relocation order (the names are written in it): perf's rules put every
 * stub at one address when .plt's entry size is 0. */
static int by_addr(const void *pa, const void *pb)
{
	const struct t2f_elf_plt_ent *a = pa, *b = pb;

	if (a->addr != b->addr)
		return (a->addr > b->addr) - (a->addr < b->addr);
	return (a->name > b->name) - (a->name < b->name);
}

/* Writes the entries and their names (measure() passed). */
static void fill(const struct t2f_elf_module *m, const struct plt_arch *a,
		 const struct plt_input *in, uint64_t first, struct t2f_elf_plt *out)
{
	struct plt_rel r;
	size_t len = 0, k = 0, pos = 0;
	const char *name;
	int64_t stub;

	for (size_t i = 0; i < in->count; i++) {
		read_rel(m, in, i, &r);
		stub = stub_of(m, a, in, first, &r, i);
		if (stub < 0)
			continue;
		name = sym_name(in->dynsym, r.sym, &len);
		out->ents[k++] = (struct t2f_elf_plt_ent){
			in->stubs + (uint64_t)stub * in->stub_size, (uint32_t)pos };
		memcpy(out->names + pos, name, len);
		memcpy(out->names + pos + len, PLT_SUFFIX, PLT_SUFFIX_LEN + 1);
		pos += len + PLT_SUFFIX_LEN + 1;
	}
	out->n = k;
}

/* The stubs' address range from the section headers: false when there is nothing to name. */
static bool stub_range(struct t2f_elf_module *m, uint64_t *lo, uint64_t *hi)
{
	struct plt_sections s = { 0 };
	struct plt_arch a;
	const GElf_Shdr *stubs = &s.plt;
	uint64_t header;
	bool sec;

	if (!arch_of(m, &a))
		return false;
	find_sections(m, &a, &s);
	sec = s.have_sec && !m->perf_rules;
	if (sec)
		stubs = &s.sec;
	header = sec ? 0 : plt_header(m, &a, &s.plt);
	if (!s.have_rel || !s.have_plt || stubs->sh_size <= header ||
	    stubs->sh_addr > UINT64_MAX - stubs->sh_size)
		return false;
	*lo = stubs->sh_addr + header;
	*hi = stubs->sh_addr + stubs->sh_size;
	return true;
}

/* The named stubs into *out: 0 (out->n may be 0: NOBITS sections of a debug file), -ENOMEM,
 * or a skip error after one warning with out empty. */
static int build(struct t2f_elf_module *m, struct t2f_elf_plt *out)
{
	struct plt_sections s = { 0 };
	struct plt_input in = { 0 };
	struct plt_arch a;
	uint64_t first;
	size_t n, bytes;
	int err;

	if (!arch_of(m, &a))
		return 0;
	find_sections(m, &a, &s);
	err = open_input(m, &a, &s, &in);
	if (err <= 0 || (!first_slot(m, &a, &in, &first) && !m->perf_rules))
		return err;
	err = measure(m, &a, &in, first, &n, &bytes);
	if (err)
		return t2f_elf__skip(T2F_ELF_WARN(m, "PLT relocations: a symbol index or name out "
						  "of range (%s), PLT stubs left unnamed",
						  t2f_strerror(err)), err);
	out->ents = malloc((n ? n : 1) * sizeof(*out->ents));
	out->names = malloc(bytes ? bytes : 1);
	if (!out->ents || !out->names)
		return -ENOMEM;
	out->stub_size = in.stub_size;
	out->section = in.section;
	fill(m, &a, &in, first, out);
	qsort(out->ents, out->n, sizeof(*out->ents), by_addr);
	return 0;
}

enum { PLT_RANGE = 1, PLT_NAMED, PLT_NONE };

/* Moves the module's PLT to its next state for a lookup inside the stubs' range. */
static int advance(struct t2f_elf_module *m, struct t2f_elf_plt *p)
{
	uint64_t lo = 0, hi = 0;
	int err;

	if (p->state == 0) {
		p->state = stub_range(m, &lo, &hi) ? PLT_RANGE : PLT_NONE;
		p->lo = lo;
		p->hi = hi;
		return 0;
	}
	err = build(m, p);
	if (err == -ENOMEM)
		return err;
	if (err) {  /* warned: the stubs stay unnamed */
		t2f_elf_plt__free(p);
		p->state = PLT_NONE;
		return 0;
	}
	p->state = PLT_NAMED;
	return 0;
}

int t2f_elf_plt__all(struct t2f_elf_module *m, const struct t2f_elf_plt **out)
{
	struct t2f_elf_plt *p = &m->plt;
	int err;

	while (p->state != PLT_NAMED && p->state != PLT_NONE) {
		err = advance(m, p);
		if (err) {
			t2f_elf_plt__free(p);
			return err;
		}
	}
	*out = p;
	return 0;
}

int t2f_elf_plt__lookup(struct t2f_elf_module *m, uint64_t elf_vaddr, struct t2f_elf_sym *out)
{
	struct t2f_elf_plt *p = &m->plt;
	size_t lo = 0, n;
	int err;

	while (p->state != PLT_NAMED) {
		if (p->state == PLT_NONE || (p->state == PLT_RANGE &&
					     (elf_vaddr < p->lo || elf_vaddr >= p->hi)))
			return 0;
		err = advance(m, p);
		if (err) {
			t2f_elf_plt__free(p);
			return err;
		}
	}
	if (elf_vaddr < p->lo || elf_vaddr >= p->hi)  /* every stub lies in the range */
		return 0;
	for (n = p->n; n > 1;) {  /* the last stub at or before elf_vaddr */
		size_t half = n / 2;

		lo = p->ents[lo + half].addr <= elf_vaddr ? lo + half : lo;
		n -= half;
	}
	if (!p->n || elf_vaddr < p->ents[lo].addr || elf_vaddr - p->ents[lo].addr >= p->stub_size)
		return 0;
	*out = (struct t2f_elf_sym){ .name = p->names + p->ents[lo].name, .value = p->ents[lo].addr,
		.size = p->stub_size, .table = p->section, .bind = STB_GLOBAL, .type = STT_FUNC };
	return 1;
}

void t2f_elf_plt__free(struct t2f_elf_plt *p)
{
	free(p->ents);
	free(p->names);
	*p = (struct t2f_elf_plt){ 0 };
}

size_t t2f_elf_plt__blind_ranges(struct t2f_elf_module *m, uint64_t (*r)[2], size_t max)
{
	static const char *const names[] = { ".plt", ".plt.sec", ".plt.got", ".iplt" };
	struct t2f_elf_image im = { m->elf, m->file_size, "" };
	Elf_Scn *scn = NULL;
	const char *name;
	GElf_Shdr sh;
	size_t n = 0;

	while (n < max && (scn = elf_nextscn(m->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOBITS || !(sh.sh_flags & SHF_ALLOC) ||
		    !sh.sh_size || sh.sh_addr > UINT64_MAX - sh.sh_size)
			continue;
		name = t2f_elf_section__name(m, &im, &sh);
		for (size_t i = 0; name && i < sizeof(names) / sizeof(names[0]); i++)
			if (strcmp(name, names[i]) == 0) {
				r[n][0] = sh.sh_addr;
				r[n++][1] = sh.sh_addr + sh.sh_size;
				break;
			}
	}
	return n;
}
