/* tools/collect_elf.c: an ELF file's build-id and symbols, and its debug-only copy (the sections
 * `objcopy --only-keep-debug` keeps, without .gdb_index, DWARF compressed), through libelf.
 *
 * The copy is laid out here (ELF header, program headers, then the sections in their order),
 * then the program headers that still have bytes in the file (PT_PHDR, PT_NOTE) are pointed at
 * them and the file is written.
 */
#include "tools/collect_elf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <elf.h>
#include <gelf.h>

#include "include/trace2flame.h"

#ifndef NT_GO_BUILDID
#define NT_GO_BUILDID 4  /* the Go toolchain's build id note: name "Go", a string */
#endif

static int fail(int err, char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail(int err, char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return err;
}

static int elf_fail(char *why, size_t len, const char *what)
{
	return fail(-T2F_ERR_ELF, why, len, "%s: %s", what, elf_errmsg(-1));
}

int t2f_collect_elf__init(void)
{
	return elf_version(EV_CURRENT) == EV_NONE ? -T2F_ERR_ELF : 0;
}

const char *t2f_collect_elf__skip_name(enum t2f_collect_skip skip)
{
	switch (skip) {
	case T2F_COLLECT_KEEP: return "kept";
	case T2F_COLLECT_SKIP_MACHINE: return "neither x86_64 nor aarch64";
	case T2F_COLLECT_SKIP_TYPE: return "neither an executable nor a shared library";
	case T2F_COLLECT_SKIP_NO_ID: return "no GNU build-id";
	case T2F_COLLECT_SKIP_GO_ONLY: return "a Go build id but no GNU build-id";
	case T2F_COLLECT_SKIP_ID_SIZE: return "a build-id of an unusable size";
	case T2F_COLLECT_SKIP_NO_SYMBOLS: return "neither .symtab nor DWARF";
	case T2F_COLLECT_SKIP_N: break;
	}
	return "?";
}

/* The notes of one SHT_NOTE section: the GNU build-id into info (the first one), Go's noted. */
static int scan_notes(Elf_Scn *scn, struct t2f_collect_info *info, bool *go, char *why,
		      size_t len)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;

	if (!d)
		return elf_fail(why, len, "a note section");
	while ((next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		const char *name = (const char *)d->d_buf + name_off;

		if (nh.n_namesz == 4 && memcmp(name, "GNU", 4) == 0 &&
		    nh.n_type == NT_GNU_BUILD_ID && info->id_len == 0) {
			if (nh.n_descsz < 2 || nh.n_descsz > T2F_COLLECT_ID_MAX)
				info->skip = T2F_COLLECT_SKIP_ID_SIZE;
			else {
				memcpy(info->id, (const char *)d->d_buf + desc_off, nh.n_descsz);
				info->id_len = nh.n_descsz;
			}
		} else if (nh.n_namesz == 3 && memcmp(name, "Go", 3) == 0 &&
			   nh.n_type == NT_GO_BUILDID) {
			*go = true;
		}
		off = next;
	}
	return 0;
}

static bool has_bytes(const GElf_Shdr *sh)
{
	return sh->sh_type != SHT_NOBITS && sh->sh_size > 0;
}

/* The program and section header tables inside the file (libelf reads a file whose section
 * headers are past its end as one without sections). */
static int check_tables(Elf *e, const GElf_Ehdr *eh, char *why, size_t len)
{
	size_t size = 0, shnum, phnum;

	if (!elf_rawfile(e, &size) || elf_getshdrnum(e, &shnum) != 0 ||
	    elf_getphdrnum(e, &phnum) != 0)
		return elf_fail(why, len, "the ELF header");
	if (eh->e_shoff == 0 && eh->e_phoff == 0)
		return 0;
	if (eh->e_shoff > size || (uint64_t)eh->e_shentsize * shnum > size - eh->e_shoff ||
	    eh->e_phoff > size || (uint64_t)eh->e_phentsize * phnum > size - eh->e_phoff)
		return fail(-T2F_ERR_ELF, why, len, "truncated: its header tables (%zu section "
			    "headers at %llu, %zu program headers at %llu) end past its %zu bytes",
			    shnum, (unsigned long long)eh->e_shoff, phnum,
			    (unsigned long long)eh->e_phoff, size);
	return 0;
}

int t2f_collect_elf__probe(Elf *e, struct t2f_collect_info *info, char *why, size_t len)
{
	bool symtab = false, dwarf = false, go = false;
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	int err;

	memset(info, 0, sizeof(*info));
	if (elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh))
		return elf_fail(why, len, "the ELF header");
	if (eh.e_machine != EM_X86_64 && eh.e_machine != EM_AARCH64) {
		info->skip = T2F_COLLECT_SKIP_MACHINE;
		return 0;
	}
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
		info->skip = T2F_COLLECT_SKIP_TYPE;
		return 0;
	}
	err = check_tables(e, &eh, why, len);
	if (err)
		return err;
	if (elf_getshdrstrndx(e, &shstrndx) != 0)
		return elf_fail(why, len, "the section names");
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		const char *name;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			return elf_fail(why, len, "a section header");
		if (!has_bytes(&sh))
			continue;
		if (sh.sh_type == SHT_NOTE) {
			err = scan_notes(scn, info, &go, why, len);
			if (err)
				return err;
		}
		name = elf_strptr(e, shstrndx, sh.sh_name);
		if (!name)
			return elf_fail(why, len, "a section name");
		symtab |= sh.sh_type == SHT_SYMTAB;
		dwarf |= strcmp(name, ".debug_info") == 0 || strcmp(name, ".zdebug_info") == 0;
	}
	info->rank = dwarf ? T2F_COLLECT_DWARF : symtab ? T2F_COLLECT_SYMTAB : T2F_COLLECT_NOTHING;
	if (info->skip)
		return 0;
	if (info->id_len == 0)
		info->skip = go ? T2F_COLLECT_SKIP_GO_ONLY : T2F_COLLECT_SKIP_NO_ID;
	else if (info->rank == T2F_COLLECT_NOTHING)
		info->skip = T2F_COLLECT_SKIP_NO_SYMBOLS;
	return 0;
}

/* ---- the copy ---- */

struct copy {
	Elf *in, *out;
	size_t shnum;
	size_t n_out;          /* sections in the copy, the null one included */
	size_t *map;           /* input section index -> output's; 0: dropped */
	size_t *old_off;       /* input section index -> its sh_offset */
	void **owned;          /* buffers the output's data points at (freed after writing) */
	size_t n_owned;
	char *why;
	size_t len;
};

static bool dropped(const char *name)
{
	return strcmp(name, ".gdb_index") == 0;
}

static bool is_debug(const char *name)
{
	return strncmp(name, ".debug_", 7) == 0;
}

static void *own(struct copy *c, size_t size)
{
	void *p = malloc(size ? size : 1);

	if (p)
		c->owned[c->n_owned++] = p;
	return p;
}

/* The symbol table's section indexes renumbered (sections after .gdb_index move down; a
 * symbol of a dropped section becomes SHN_ABS). Its data is a copy the output owns. */
static int renumber_symbols(struct copy *c, Elf_Data *d, Elf_Data *xd)
{
	size_t n = d->d_size / gelf_fsize(c->out, ELF_T_SYM, 1, EV_CURRENT);

	for (size_t i = 0; i < n; i++) {
		GElf_Sym sym;
		Elf32_Word x = 0;
		size_t ndx;

		if (!gelf_getsymshndx(d, xd, (int)i, &sym, &x))
			return elf_fail(c->why, c->len, "a symbol");
		ndx = sym.st_shndx == SHN_XINDEX ? x : sym.st_shndx;
		if (ndx == 0 || (sym.st_shndx != SHN_XINDEX && ndx >= SHN_LORESERVE) ||
		    ndx >= c->shnum)
			continue;
		ndx = c->map[ndx];
		if (ndx == 0)
			sym.st_shndx = SHN_ABS, x = 0;
		else if (ndx >= SHN_LORESERVE)
			sym.st_shndx = SHN_XINDEX, x = (Elf32_Word)ndx;
		else
			sym.st_shndx = (uint16_t)ndx, x = 0;
		if (!gelf_update_symshndx(d, xd, (int)i, &sym, x))
			return elf_fail(c->why, c->len, "a symbol");
	}
	return 0;
}

/* The output section's data: the input's (borrowed; a copy when it is a symbol table or its
 * index table and sections were dropped), compressed when it is DWARF. */
static int copy_data(struct copy *c, Elf_Scn *from, Elf_Scn *to, const GElf_Shdr *sh,
		     const char *name)
{
	bool renumber = c->map[c->shnum] != 0 && (sh->sh_type == SHT_SYMTAB ||
			 sh->sh_type == SHT_DYNSYM || sh->sh_type == SHT_SYMTAB_SHNDX);
	Elf_Data *src = renumber ? elf_getdata(from, NULL) : elf_rawdata(from, NULL);
	Elf_Data *dst;

	if (!src)
		return elf_fail(c->why, c->len, name);
	dst = elf_newdata(to);
	if (!dst)
		return elf_fail(c->why, c->len, name);
	*dst = *src;
	if (renumber) {
		dst->d_buf = own(c, src->d_size);
		if (!dst->d_buf)
			return fail(-ENOMEM, c->why, c->len, "%s", strerror(ENOMEM));
		memcpy(dst->d_buf, src->d_buf, src->d_size);
	}
	if (is_debug(name) && !(sh->sh_flags & SHF_COMPRESSED) && sh->sh_size > 0 &&
	    elf_compress(to, ELFCOMPRESS_ZLIB, ELF_CHF_FORCE) < 0)
		return elf_fail(c->why, c->len, name);
	return 0;
}

/* Which sections are kept, and their indexes in the copy (map[shnum] set when some is not). */
static int map_sections(struct copy *c, size_t shstrndx)
{
	size_t n_out = 1;

	for (size_t i = 1; i < c->shnum; i++) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(elf_getscn(c->in, i), &sh) ||
		    !(name = elf_strptr(c->in, shstrndx, sh.sh_name)))
			return elf_fail(c->why, c->len, "a section header");
		c->old_off[i] = sh.sh_offset;
		if (dropped(name))
			c->map[c->shnum] = 1;
		else
			c->map[i] = n_out++;
	}
	c->n_out = n_out;
	return 0;
}

/* Every kept section: its header (allocated ones but notes made NOBITS) and data. */
static int copy_sections(struct copy *c, size_t shstrndx)
{
	for (size_t i = 1; i < c->shnum; i++) {
		Elf_Scn *from = elf_getscn(c->in, i), *to;
		GElf_Shdr sh;
		const char *name;
		int err;

		if (!c->map[i])
			continue;
		if (!gelf_getshdr(from, &sh) || !(name = elf_strptr(c->in, shstrndx, sh.sh_name)))
			return elf_fail(c->why, c->len, "a section header");
		to = elf_newscn(c->out);
		if (!to)
			return elf_fail(c->why, c->len, name);
		if ((sh.sh_flags & SHF_ALLOC) && sh.sh_type != SHT_NOTE)
			sh.sh_type = SHT_NOBITS;
		sh.sh_link = sh.sh_link < c->shnum ? (GElf_Word)c->map[sh.sh_link] : 0;
		if (sh.sh_type == SHT_REL || sh.sh_type == SHT_RELA ||
		    (sh.sh_flags & SHF_INFO_LINK))
			sh.sh_info = sh.sh_info < c->shnum ? (GElf_Word)c->map[sh.sh_info] : 0;
		if (!gelf_update_shdr(to, &sh))
			return elf_fail(c->why, c->len, name);
		if (sh.sh_type == SHT_NOBITS)
			continue;
		err = copy_data(c, from, to, &sh, name);
		if (err)
			return err;
	}
	return 0;
}

/* The symbol tables renumbered once every section is in place (an index table may follow its
 * symbol table). */
static int renumber_all(struct copy *c)
{
	Elf_Scn *scn = NULL;

	if (!c->map[c->shnum])
		return 0;
	while ((scn = elf_nextscn(c->out, scn)) != NULL) {
		Elf_Scn *xs = NULL, *s = NULL;
		GElf_Shdr sh;
		int err;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		while ((s = elf_nextscn(c->out, s)) != NULL) {
			GElf_Shdr xh;

			if (gelf_getshdr(s, &xh) && xh.sh_type == SHT_SYMTAB_SHNDX &&
			    xh.sh_link == elf_ndxscn(scn))
				xs = s;
		}
		err = renumber_symbols(c, elf_getdata(scn, NULL),
				       xs ? elf_getdata(xs, NULL) : NULL);
		if (err)
			return err;
	}
	return 0;
}

/* Where the input's file bytes [off, off + size) are in the copy: one section starts at off, and
 * every section within the range moved as far as it did and kept its bytes uncompressed. */
static bool moved_to(struct copy *c, uint64_t off, uint64_t size, uint64_t *new_off)
{
	bool found = false;
	uint64_t delta = 0, end = off;

	for (size_t i = 1; i < c->shnum; i++) {
		GElf_Shdr sh;

		if (!c->map[i] || c->old_off[i] < off || c->old_off[i] - off >= size)
			continue;
		if (!gelf_getshdr(elf_getscn(c->out, c->map[i]), &sh) || sh.sh_type == SHT_NOBITS ||
		    (sh.sh_flags & SHF_COMPRESSED))
			return false;
		if (!found && c->old_off[i] != off)
			return false;
		if (!found)
			delta = sh.sh_offset - c->old_off[i];
		else if (sh.sh_offset - c->old_off[i] != delta)
			return false;
		found = true;
		if (c->old_off[i] + sh.sh_size > end)
			end = c->old_off[i] + sh.sh_size;
	}
	if (!found || end < off + size)
		return false;
	*new_off = off + delta;
	return true;
}

/* A segment's p_offset once its bytes are gone: in the file (readers check it against the file's
 * size) and congruent to p_vaddr modulo p_align as the gABI wants, else 0. */
static uint64_t gone_offset(const GElf_Phdr *ph, uint64_t end)
{
	uint64_t off = ph->p_align > 1 ? ph->p_vaddr % ph->p_align : 0;

	return off <= end ? off : 0;
}

/* The program headers as the input has them, but where the bytes went: PT_PHDR at the new
 * table, PT_NOTE and PT_GNU_PROPERTY at their sections, a first PT_LOAD that is not executable
 * over the ELF header and the program headers (as objcopy leaves it), p_filesz 0 elsewhere (an
 * executable segment without bytes tells readers its offsets are not the binary's). */
static int copy_phdrs(struct copy *c, size_t phnum)
{
	uint64_t end, heads;
	GElf_Ehdr eh;

	if (!gelf_getehdr(c->out, &eh))
		return elf_fail(c->why, c->len, "the ELF header");
	heads = eh.e_phoff + (uint64_t)eh.e_phentsize * phnum;
	end = eh.e_shoff + (uint64_t)eh.e_shentsize * c->n_out;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		uint64_t off;

		if (!gelf_getphdr(c->in, (int)i, &ph))
			return elf_fail(c->why, c->len, "a program header");
		if (ph.p_type == PT_PHDR)
			ph.p_offset = eh.e_phoff;
		else if (ph.p_type == PT_LOAD && ph.p_offset == 0 && !(ph.p_flags & PF_X) &&
			 ph.p_filesz >= heads)
			ph.p_filesz = heads;
		else if ((ph.p_type == PT_NOTE || ph.p_type == PT_GNU_PROPERTY) &&
			 moved_to(c, ph.p_offset, ph.p_filesz, &off))
			ph.p_offset = off;
		else
			ph.p_filesz = 0, ph.p_offset = gone_offset(&ph, end);
		if (!gelf_update_phdr(c->out, (int)i, &ph))
			return elf_fail(c->why, c->len, "a program header");
	}
	return 0;
}

static int copy_headers(struct copy *c, size_t shstrndx, size_t phnum)
{
	GElf_Ehdr eh;

	if (!gelf_getehdr(c->in, &eh) || !gelf_newehdr(c->out, gelf_getclass(c->in)))
		return elf_fail(c->why, c->len, "the ELF header");
	if (phnum && !gelf_newphdr(c->out, phnum))
		return elf_fail(c->why, c->len, "the program headers");
	if (c->n_out >= SHN_LORESERVE)  /* extended numbering, which the copy does not write */
		return fail(-T2F_ERR_UNSUPPORTED, c->why, c->len,
			    "%zu sections (at most %d are copied)", c->n_out - 1,
			    SHN_LORESERVE - 1);
	eh.e_shstrndx = shstrndx < c->shnum ? (GElf_Half)c->map[shstrndx] : 0;
	if (!gelf_update_ehdr(c->out, &eh))
		return elf_fail(c->why, c->len, "the ELF header");
	return 0;
}

static uint64_t align_up(uint64_t off, uint64_t align)
{
	return align > 1 ? (off + align - 1) / align * align : off;
}

/* The copy's file offsets, set here (ELF_F_LAYOUT): the ELF header, the program headers, the
 * sections in their order, each at its alignment (NOBITS ones taking no room), then the section
 * header table. */
static int lay_out(struct copy *c, size_t phnum)
{
	int class = gelf_getclass(c->out);
	uint64_t off = gelf_fsize(c->out, ELF_T_EHDR, 1, EV_CURRENT);
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;

	if (!gelf_getehdr(c->out, &eh))
		return elf_fail(c->why, c->len, "the ELF header");
	eh.e_phoff = phnum ? off : 0;
	off += gelf_fsize(c->out, ELF_T_PHDR, phnum, EV_CURRENT);
	while ((scn = elf_nextscn(c->out, scn)) != NULL) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			return elf_fail(c->why, c->len, "a section header");
		sh.sh_offset = align_up(off, sh.sh_addralign);
		if (sh.sh_type != SHT_NOBITS)
			off = sh.sh_offset + sh.sh_size;
		if (!gelf_update_shdr(scn, &sh))
			return elf_fail(c->why, c->len, "a section header");
	}
	eh.e_shoff = align_up(off, class == ELFCLASS64 ? 8 : 4);
	if (!gelf_update_ehdr(c->out, &eh))
		return elf_fail(c->why, c->len, "the ELF header");
	elf_flagelf(c->out, ELF_C_SET, ELF_F_LAYOUT);
	return 0;
}

static int write_copy(struct copy *c)
{
	size_t shstrndx, phnum;
	int err;

	if (elf_getshdrnum(c->in, &c->shnum) != 0 || elf_getshdrstrndx(c->in, &shstrndx) != 0 ||
	    elf_getphdrnum(c->in, &phnum) != 0)
		return elf_fail(c->why, c->len, "the ELF header");
	c->map = calloc(c->shnum + 1, sizeof(*c->map));
	c->old_off = calloc(c->shnum + 1, sizeof(*c->old_off));
	c->owned = calloc(c->shnum + 1, sizeof(*c->owned));
	if (!c->map || !c->old_off || !c->owned)
		return fail(-ENOMEM, c->why, c->len, "%s", strerror(ENOMEM));
	err = map_sections(c, shstrndx);
	if (!err)
		err = copy_headers(c, shstrndx, phnum);
	if (!err)
		err = copy_sections(c, shstrndx);
	if (!err)
		err = renumber_all(c);
	if (!err)
		err = lay_out(c, phnum);
	if (!err)
		err = copy_phdrs(c, phnum);
	if (!err && elf_update(c->out, ELF_C_WRITE) < 0)
		err = elf_fail(c->why, c->len, "writing the copy");
	return err;
}

int t2f_collect_elf__write_debug(Elf *e, int fd, char *why, size_t len)
{
	struct copy c = { .in = e, .why = why, .len = len };
	int err;

	c.out = elf_begin(fd, ELF_C_WRITE, NULL);
	if (!c.out)
		return elf_fail(why, len, "the copy");
	err = write_copy(&c);
	elf_end(c.out);
	for (size_t i = 0; i < c.n_owned; i++)
		free(c.owned[i]);
	free(c.owned);
	free(c.old_off);
	free(c.map);
	return err;
}
