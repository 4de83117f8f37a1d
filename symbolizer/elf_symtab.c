/* symbolizer/elf_symtab.c: the symbol tables of a module and their listing (__each_symbol).
 *
 * Real inputs (readelf -SW, -Ws):
 *   [ 6] .dynsym   DYNSIM  ... ES 18 Lk 7     libc.so.6: 3044 entries, names in .dynstr
 *   [36] .symtab   SYMTAB  ... ES 18 Lk 37    libstdc++ debug build: 12207 entries
 *   .SUNW_ldynsym  sh_type 0x6ffffff3, ES 18, Lk = .dynstr (Solaris; synthetic files only)
 *   .gnu_debugdata PROGBITS, an xz stream holding an ELF image whose .symtab is the table
 *                  ".gnu_debugdata:.symtab" (MiniDebugInfo, Fedora-style binaries)
 * Tables come in section order (a MiniDebugInfo table where .gnu_debugdata is). A broken table
 * (entry size, string table: not SHT_STRTAB, overlapping the records, not NUL-terminated;
 * bounds, decoding) is warned about and skipped; the others count. A module whose compressed
 * tables and MiniDebugInfo image would pass a decompression limit (elf_budget.c) is refused:
 * the tables read so far are freed and the error (-T2F_ERR_LIMIT) sticks.
 * The records and strings stay where libelf keeps them: nothing is copied per symbol.
 */
#include "symbolizer/elf_internal.h"

#include <errno.h>
#include <stdlib.h>

#define DEBUGDATA_PREFIX ".gnu_debugdata:"

/* Whether two sections' bytes in the file share any (sizes already checked against the image). */
static bool sections_overlap(const GElf_Shdr *a, const GElf_Shdr *b)
{
	if (a->sh_type == SHT_NOBITS || b->sh_type == SHT_NOBITS || !a->sh_size || !b->sh_size)
		return false;
	return a->sh_offset < b->sh_offset + b->sh_size && b->sh_offset < a->sh_offset + a->sh_size;
}

/* The string table a symbol table (header `symsh`) links to: SHT_STRTAB, in the image, apart
 * from the symbols, ending in NUL. */
static int load_strings(struct t2f_elf_module *m, const struct t2f_elf_image *im,
			const char *name, const GElf_Shdr *symsh, struct t2f_elf_table *t)
{
	uint32_t link = (uint32_t)symsh->sh_link;
	Elf_Scn *scn = elf_getscn(im->elf, link);
	const void *buf;
	GElf_Shdr sh;
	size_t size;
	int err;

	if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type != SHT_STRTAB || link == 0)
		return t2f_elf__skip(T2F_ELF_WARN(m, "%s%s: sh_link %u is not a string table",
						  im->prefix, name, link), -T2F_ERR_ELF);
	if (t2f_elf_in_image(sh.sh_offset, sh.sh_size, im->size) && sections_overlap(symsh, &sh))
		return t2f_elf__skip(T2F_ELF_WARN(m, "%s%s: its string table (section %u) overlaps it",
						  im->prefix, name, link), -T2F_ERR_ELF);
	err = t2f_elf_section__data(m, im, scn, &sh, ELF_T_BYTE, &buf, &size, &t->own_strs);
	if (err)
		return err;
	if (!size || ((const char *)buf)[size - 1] != '\0')
		return t2f_elf__skip(T2F_ELF_WARN(m, "%s%s: its string table does not end in NUL",
						  im->prefix, name), -T2F_ERR_ELF);
	t->strs = buf;
	t->str_size = size;
	return 0;
}

/* The table's displayed name: the section name, prefixed inside MiniDebugInfo. */
static int table_name(const struct t2f_elf_image *im, const char *name, struct t2f_elf_table *t)
{
	size_t a = strlen(im->prefix), b = strlen(name);

	if (!a) {
		t->name = name;
		return 0;
	}
	t->name_buf = malloc(a + b + 1);
	if (!t->name_buf)
		return -ENOMEM;
	memcpy(t->name_buf, im->prefix, a);
	memcpy(t->name_buf + a, name, b + 1);
	t->name = t->name_buf;
	return 0;
}

static void free_table(struct t2f_elf_table *t)
{
	free(t->name_buf);
	free(t->own_syms);
	free(t->own_strs);
	memset(t, 0, sizeof(*t));
}

/* One SHT_SYMTAB / SHT_DYNSYM / SHT_SUNW_LDYNSYM section: records, count, strings. */
static int add_table(struct t2f_elf_module *m, const struct t2f_elf_image *im, Elf_Scn *scn,
		     const GElf_Shdr *sh)
{
	const char *name = t2f_elf_section__name(m, im, sh);
	size_t entsize = gelf_fsize(im->elf, ELF_T_SYM, 1, EV_CURRENT), size;
	struct t2f_elf_table *t = &m->tables[m->n_tables];
	const void *buf;
	int err;

	if (!name)
		name = "<corrupt>";
	if (sh->sh_type == SHT_NOBITS)
		return 0;
	if (m->n_tables == T2F_ELF_MAX_TABLES)
		return t2f_elf__skip(T2F_ELF_WARN(m, "%s%s: more than 8 symbol tables, ignored",
						  im->prefix, name), -T2F_ERR_LIMIT);
	if (!entsize || sh->sh_entsize != entsize)
		return t2f_elf__skip(T2F_ELF_WARN(m, "%s%s: entry size %llu, expected %zu",
						  im->prefix, name,
						  (unsigned long long)sh->sh_entsize, entsize),
				     -T2F_ERR_ELF);
	err = t2f_elf_section__data(m, im, scn, sh, ELF_T_SYM, &buf, &size, &t->own_syms);
	if (!err && size / entsize >= T2F_ELF_MAX_SYMS)
		err = t2f_elf__skip(T2F_ELF_WARN(m, "%s%s: %zu symbols refused (too many)",
						 im->prefix, name, size / entsize), -T2F_ERR_LIMIT);
	if (!err)
		err = load_strings(m, im, name, sh, t);
	if (!err)
		err = table_name(im, name, t);
	if (err) {
		free_table(t);
		return err;
	}
	t->syms = buf;
	t->count = size / entsize;
	t->is64 = gelf_getclass(im->elf) == ELFCLASS64;
	t->dynamic = sh->sh_type != SHT_SYMTAB;
	t->mini = im->elf != m->elf;
	t->shndx = elf_ndxscn(scn);
	m->n_tables++;
	return 0;
}

/* ppc64 ELFv1 (e_flags & 3 != 2): FUNC values point at function descriptors in .opd, whose
 * first 8 bytes are the code address; keep the section's bytes for the lookup fix-up. */
static void keep_opd(struct t2f_elf_module *m, const GElf_Shdr *sh)
{
	Elf_Data *d;

	if (m->machine != EM_PPC64 || (m->flags & 3) == 2 || sh->sh_size < 8 ||
	    !t2f_elf_in_image(sh->sh_offset, sh->sh_size, m->file_size))
		return;
	d = elf_getdata_rawchunk(m->elf, (int64_t)sh->sh_offset, sh->sh_size, ELF_T_BYTE);
	if (!d || !d->d_buf || d->d_size != sh->sh_size)
		return;
	m->opd = d->d_buf;
	m->opd_addr = sh->sh_addr;
	m->opd_size = sh->sh_size;
}

static int load_image(struct t2f_elf_module *m, const struct t2f_elf_image *im);

/* Checks the MiniDebugInfo image's headers against its size, then loads its tables. */
static int load_debugdata_image(struct t2f_elf_module *m, size_t size)
{
	struct t2f_elf_image im = { NULL, size, DEBUGDATA_PREFIX };
	const char *problem = "not an ELF image";

	m->mini_elf = elf_memory(m->mini_buf, size);
	im.elf = m->mini_elf;
	if (im.elf && elf_kind(im.elf) == ELF_K_ELF)
		problem = t2f_elf_headers_problem(im.elf, size);
	if (problem)
		return t2f_elf__skip(T2F_ELF_WARN(m, ".gnu_debugdata: %s", problem), -T2F_ERR_ELF);
	return load_image(m, &im);
}

/* .gnu_debugdata: the xz stream decoded into memory, opened with elf_memory(). */
static int load_debugdata(struct t2f_elf_module *m, const struct t2f_elf_image *im,
			  Elf_Scn *scn, const GElf_Shdr *sh)
{
	const void *xz;
	void *own = NULL;
	size_t xz_size, size;
	int err;

	err = t2f_elf_section__data(m, im, scn, sh, ELF_T_BYTE, &xz, &xz_size, &own);
	if (!err && xz_size)
		err = t2f_elf_xz_decode(m, xz, xz_size, &m->mini_buf, &size);
	free(own);
	if (err || !xz_size)
		return err;
	return load_debugdata_image(m, size);
}

/* Every symbol table of an image in section order; in the file itself also .gnu_debugdata
 * and .opd. */
static int load_image(struct t2f_elf_module *m, const struct t2f_elf_image *im)
{
	bool outer = im->elf == m->elf;
	Elf_Scn *scn = NULL;
	const char *name;
	GElf_Shdr sh;
	size_t shstrndx;
	/* __has_debug_info's answer, from the names read here: a second walk would fault the
	 * headers in again after their pages went back (h11.data: 8 MB at once) */
	int8_t debug_info = -1;
	int err = 0;

	if (outer && elf_getshdrstrndx(im->elf, &shstrndx) != 0)
		debug_info = 0; /* not known */
	while ((scn = elf_nextscn(im->elf, scn))) {
		if (!gelf_getshdr(scn, &sh)) {
			if (outer)
				return t2f_elf__fail(m, -T2F_ERR_ELF, "bad section header %zu: %s",
						     elf_ndxscn(scn), elf_errmsg(-1));
			return t2f_elf__skip(T2F_ELF_WARN(m, ".gnu_debugdata: bad section header"),
					     -T2F_ERR_ELF);
		}
		name = outer && sh.sh_type != SHT_NOBITS ? t2f_elf_section__name(m, im, &sh) : NULL;
		if (t2f_elf_section__is_debug_info(&sh, name))
			debug_info = 1;
		if (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM ||
		    sh.sh_type == SHT_SUNW_LDYNSYM) {
			err = add_table(m, im, scn, &sh);
		} else if (outer && sh.sh_type == SHT_PROGBITS && name) {
			if (strcmp(name, ".gnu_debugdata") == 0 && !m->mini_buf)
				err = load_debugdata(m, im, scn, &sh);
			else if (strcmp(name, ".opd") == 0)
				keep_opd(m, &sh);
		}
		if (t2f_elf__fatal(err))
			return err;
		if (m->over_budget)
			return -T2F_ERR_LIMIT;
	}
	if (outer && !m->debug_info)
		m->debug_info = debug_info;
	return 0;
}

int t2f_elf_module__load_tables(struct t2f_elf_module *m)
{
	struct t2f_elf_image im = { m->elf, m->file_size, "" };
	int err;

	if (m->tables_state)
		return m->tables_state < 0 ? m->tables_state : 0;
	err = load_image(m, &im);
	if (m->over_budget)  /* refused whole: what we decoded goes now (libelf's zlib: at __free) */
		t2f_elf_module__free_tables(m);
	m->tables_state = err ? err : 1;
	return err;
}

void t2f_elf_module__free_tables(struct t2f_elf_module *m)
{
	for (unsigned i = 0; i < m->n_tables; i++)
		free_table(&m->tables[i]);
	m->n_tables = 0;
	m->tables_mapped = false;
	if (m->mini_elf)
		elf_end(m->mini_elf);
	m->mini_elf = NULL;
	free(m->mini_buf);
	m->mini_buf = NULL;
}

int t2f_elf_module__each_symbol(struct t2f_elf_module *m, t2f_elf_sym_cb cb, void *ctx)
{
	struct t2f_elf_rawsym s;
	struct t2f_elf_sym out;
	int err = t2f_elf_module__load_tables(m);

	for (unsigned ti = 0; !err && ti < m->n_tables; ti++) {
		const struct t2f_elf_table *t = &m->tables[ti];

		for (size_t i = 0; !err && i < t->count; i++) {
			t2f_elf_table__sym(t, i, &s);
			if (!t2f_elf_rawsym__kept(&s))
				continue;
			out = (struct t2f_elf_sym){ .name = t2f_elf_table__name(t, s.name),
				.value = s.value, .size = s.size, .table = t->name,
				.bind = GELF_ST_BIND(s.info), .type = GELF_ST_TYPE(s.info) };
			err = cb(ctx, &out);
		}
	}
	return err;
}

bool t2f_elf_module__has_symbols(struct t2f_elf_module *m)
{
	struct t2f_elf_rawsym s;

	if (t2f_elf_module__load_tables(m))
		return false;
	if (m->index_state > 0)
		return m->n_ents > 0;
	for (unsigned ti = 0; ti < m->n_tables; ti++) {
		for (size_t i = 0; i < m->tables[ti].count; i++) {
			t2f_elf_table__sym(&m->tables[ti], i, &s);
			if (m->perf_rules ? t2f_elf_perf_kept(&s, NULL, 0) : t2f_elf_rawsym__kept(&s))
				return true;
		}
	}
	return false;
}
