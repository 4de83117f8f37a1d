/* symbolizer/elf_notes.c: the PT_LOAD table, the GNU build-id note and .gnu_debuglink.
 *
 * Real inputs (readelf -lW / -n / -x, Debian 12 x86-64):
 *   LOAD  0x001000 0x0000000000001000 0x0000000000001000 0x0010fd 0x0010fd R E 0x1000
 *   NOTE  0x0002c8 0x00000000000002c8 0x00000000000002c8 0x000044 0x000044 R   0x4
 *   .note.gnu.build-id: namesz 4, descsz 20, type 3 (NT_GNU_BUILD_ID), "GNU\0", 20 id bytes
 *   .gnu_debuglink: "5752dde0218ebff452dd4f4f3c659d8515e73b.debug\0" padded to 4, then the
 *                   CRC-32 of the debug file in the file's byte order
 * The build-id is taken from the first SHT_NOTE section holding one (debug files keep their
 * notes as sections while their program headers point at NOBITS data), else from PT_NOTE
 * segments (files without section headers). A note region over 64 KiB is refused.
 */
#include "symbolizer/elf_internal.h"

#include <errno.h>
#include <stdlib.h>

int t2f_elf_module__read_loads(struct t2f_elf_module *m)
{
	size_t phnum, n = 0;
	GElf_Phdr ph;

	if (elf_getphdrnum(m->elf, &phnum))
		return t2f_elf__fail(m, -T2F_ERR_ELF, "bad program header count: %s",
				     elf_errmsg(-1));
	if (!phnum)
		return 0;
	m->loads = calloc(phnum, sizeof(*m->loads));
	if (!m->loads)
		return -ENOMEM;
	for (size_t i = 0; i < phnum; i++) {
		if (!gelf_getphdr(m->elf, (int)i, &ph))
			return t2f_elf__fail(m, -T2F_ERR_ELF, "bad program header %zu: %s", i,
					     elf_errmsg(-1));
		if (ph.p_type != PT_LOAD)
			continue;
		if (!t2f_elf_in_image(ph.p_offset, ph.p_filesz, m->file_size))
			return t2f_elf__fail(m, -T2F_ERR_ELF,
					     "PT_LOAD %zu (offset %#llx, %llu bytes) is outside the file",
					     i, (unsigned long long)ph.p_offset,
					     (unsigned long long)ph.p_filesz);
		m->loads[n++] = (struct t2f_elf_load){ .p_offset = ph.p_offset,
			.p_vaddr = ph.p_vaddr, .p_filesz = ph.p_filesz, .p_memsz = ph.p_memsz,
			.p_flags = ph.p_flags };
	}
	m->n_loads = n;
	return 0;
}

/* Rounds n up to a multiple of align (a power of two); false when that overflows. */
static bool align_up(size_t n, size_t align, size_t *out)
{
	if (n > SIZE_MAX - (align - 1))
		return false;
	*out = (n + align - 1) & ~(align - 1);
	return true;
}

/* Takes the build-id out of one NT_GNU_BUILD_ID note's descriptor. */
static int take_build_id(struct t2f_elf_module *m, const unsigned char *desc, size_t len)
{
	if (len == 0)
		return 0;
	if (len > T2F_BUILD_ID_MAX)
		return T2F_ELF_WARN(m, "build-id note of %zu bytes refused (at most 64)", len);
	memcpy(m->build_id, desc, len);
	m->build_id_len = len;
	return 0;
}

/* Walks the notes of one region: each is a 12-byte header (namesz, descsz, type), then the name
 * and the descriptor, each padded to `align` (4, or 8 for 8-aligned note segments). Stops at the
 * first build-id, or quietly at a malformed note. */
static int scan_notes(struct t2f_elf_module *m, const unsigned char *p, size_t size, size_t align)
{
	size_t off = 0, name_end, desc_end;

	while (size - off >= 12 && !m->build_id_len) {
		uint32_t namesz = t2f_elf_rd32(p + off, m->big_endian);
		uint32_t descsz = t2f_elf_rd32(p + off + 4, m->big_endian);
		uint32_t type = t2f_elf_rd32(p + off + 8, m->big_endian);
		const unsigned char *name = p + off + 12;

		off += 12;
		if (namesz > size - off || !align_up(off + namesz, align, &name_end) ||
		    name_end > size || descsz > size - name_end)
			return T2F_ELF_WARN(m, "malformed note at offset %zu", off - 12);
		if (type == NT_GNU_BUILD_ID && namesz == 4 && memcmp(name, "GNU", 4) == 0)
			return take_build_id(m, p + name_end, descsz);
		if (!align_up(name_end + descsz, align, &desc_end) || desc_end > size)
			break;
		off = desc_end;
	}
	return 0;
}

/* Whether [off, off + size) (inside the file) shares bytes with the section or program header
 * table (whose bounds check_header verified). */
static bool over_headers(const struct t2f_elf_module *m, uint64_t off, uint64_t size)
{
	size_t shnum = 0, phnum = 0;
	GElf_Ehdr eh;

	if (!gelf_getehdr(m->elf, &eh) || elf_getshdrnum(m->elf, &shnum) ||
	    elf_getphdrnum(m->elf, &phnum))
		return true;
	if (shnum && off < eh.e_shoff + shnum * eh.e_shentsize && eh.e_shoff < off + size)
		return true;
	return phnum && off < eh.e_phoff + phnum * eh.e_phentsize && eh.e_phoff < off + size;
}

/* One note region of the file: bounds, the 64 KiB cap, then the notes. */
static int scan_region(struct t2f_elf_module *m, uint64_t off, uint64_t size, uint64_t align)
{
	Elf_Data *d;

	if (size == 0)
		return 0;
	if (!t2f_elf_in_image(off, size, m->file_size))
		return t2f_elf__fail(m, -T2F_ERR_ELF,
				     "note at offset %#llx (%llu bytes) is outside the file",
				     (unsigned long long)off, (unsigned long long)size);
	if (size > T2F_ELF_NOTE_MAX)
		return T2F_ELF_WARN(m, "note of %llu bytes refused (over 64 KiB)",
				    (unsigned long long)size);
	if (over_headers(m, off, size))
		return T2F_ELF_WARN(m, "note at offset %#llx (%llu bytes) refused: it overlaps the "
				    "section or program headers", (unsigned long long)off,
				    (unsigned long long)size);
	d = elf_getdata_rawchunk(m->elf, (int64_t)off, (size_t)size, ELF_T_BYTE);
	if (!d || !d->d_buf)
		return t2f_elf__fail(m, -T2F_ERR_ELF, "cannot read a note: %s", elf_errmsg(-1));
	return scan_notes(m, d->d_buf, d->d_size, align == 8 ? 8 : 4);
}

int t2f_elf_module__read_build_id(struct t2f_elf_module *m)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Phdr ph;
	size_t phnum;
	int err = 0;
	bool notes = false;

	while (!err && !m->build_id_len && (scn = elf_nextscn(m->elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			return t2f_elf__fail(m, -T2F_ERR_ELF, "bad section header: %s",
					     elf_errmsg(-1));
		if (sh.sh_type != SHT_NOTE || (sh.sh_flags & SHF_COMPRESSED))
			continue;
		notes = true;
		err = scan_region(m, sh.sh_offset, sh.sh_size, sh.sh_addralign);
	}
	/* the segments hold the same notes as the sections: read them only without the latter */
	if (err || notes || elf_getphdrnum(m->elf, &phnum))
		return err;
	for (size_t i = 0; !err && !m->build_id_len && i < phnum; i++) {
		if (!gelf_getphdr(m->elf, (int)i, &ph))
			return t2f_elf__fail(m, -T2F_ERR_ELF, "bad program header %zu", i);
		if (ph.p_type == PT_NOTE)
			err = scan_region(m, ph.p_offset, ph.p_filesz, ph.p_align);
	}
	return err;
}

/* A debuglink name we may join to a directory: no '/', no "..", not "." or empty. */
static bool debuglink_name_ok(const char *name)
{
	return name[0] && strcmp(name, ".") != 0 && !strchr(name, '/') && !strstr(name, "..");
}

/* .gnu_debuglink: the name (NUL-terminated inside the section), padding to 4, the CRC. */
static int parse_debuglink(struct t2f_elf_module *m, const unsigned char *p, size_t size)
{
	const unsigned char *nul = memchr(p, '\0', size);
	size_t crc_off;

	if (!nul)
		return T2F_ELF_WARN(m, ".gnu_debuglink refused: the name has no NUL in the section");
	if (!align_up((size_t)(nul - p) + 1, 4, &crc_off) || crc_off > size || size - crc_off < 4)
		return T2F_ELF_WARN(m, ".gnu_debuglink refused: no room for the CRC after the name");
	if (!debuglink_name_ok((const char *)p))
		return T2F_ELF_WARN(m, ".gnu_debuglink refused: unsafe file name \"%s\"",
				    (const char *)p);
	m->debuglink = strdup((const char *)p);
	if (!m->debuglink)
		return -ENOMEM;
	m->debuglink_crc = t2f_elf_rd32(p + crc_off, m->big_endian);
	return 0;
}

int t2f_elf_module__read_debuglink(struct t2f_elf_module *m)
{
	struct t2f_elf_image im = { m->elf, m->file_size, "" };
	Elf_Scn *scn = NULL;
	const char *name;
	GElf_Shdr sh;
	Elf_Data *d;

	while ((scn = elf_nextscn(m->elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			return t2f_elf__fail(m, -T2F_ERR_ELF, "bad section header: %s",
					     elf_errmsg(-1));
		if (sh.sh_type != SHT_PROGBITS)
			continue;
		name = t2f_elf_section__name(m, &im, &sh);
		if (!name || strcmp(name, ".gnu_debuglink") != 0)
			continue;
		if (!t2f_elf_in_image(sh.sh_offset, sh.sh_size, m->file_size))
			return t2f_elf__fail(m, -T2F_ERR_ELF, ".gnu_debuglink is outside the file");
		if (sh.sh_size == 0 || sh.sh_size > T2F_ELF_NOTE_MAX)
			return T2F_ELF_WARN(m, ".gnu_debuglink of %llu bytes refused",
					    (unsigned long long)sh.sh_size);
		d = elf_getdata_rawchunk(m->elf, (int64_t)sh.sh_offset, sh.sh_size, ELF_T_BYTE);
		if (!d || !d->d_buf)
			return t2f_elf__fail(m, -T2F_ERR_ELF, "cannot read .gnu_debuglink: %s",
					     elf_errmsg(-1));
		return parse_debuglink(m, d->d_buf, d->d_size);
	}
	return 0;
}

bool t2f_elf_module__stripped(struct t2f_elf_module *m)
{
	struct t2f_elf_image im = { m->elf, m->file_size, "" };
	Elf_Scn *scn = NULL;
	const char *name;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(m->elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			return false; /* unreadable headers: as found, the symbols say the rest */
		if (sh.sh_type == SHT_SYMTAB)
			return false;
		if (sh.sh_type == SHT_NOBITS)
			continue;
		name = t2f_elf_section__name(m, &im, &sh);
		if (name && strcmp(name, ".debug_info") == 0 && sh.sh_size > 0)
			return false;
	}
	return true;
}

bool t2f_elf_section__is_debug_info(const GElf_Shdr *sh, const char *name)
{
	return sh->sh_type != SHT_NOBITS && sh->sh_size != 0 && name &&
	       (strcmp(name, ".debug_info") == 0 || strcmp(name, ".zdebug_info") == 0);
}

bool t2f_elf_module__has_debug_info(struct t2f_elf_module *m)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (m->debug_info)
		return m->debug_info > 0;
	m->debug_info = 1; /* headers not readable: not known, so taken as there */
	if (elf_getshdrstrndx(m->elf, &shstrndx) != 0)
		return true;
	m->debug_info = -1;
	while ((scn = elf_nextscn(m->elf, scn))) {
		if (!gelf_getshdr(scn, &sh)) {
			m->debug_info = 1;
			break;
		}
		if (t2f_elf_section__is_debug_info(&sh, sh.sh_type == SHT_NOBITS ? NULL :
						   elf_strptr(m->elf, shstrndx, sh.sh_name))) {
			m->debug_info = 1;
			break;
		}
	}
	return m->debug_info > 0;
}
