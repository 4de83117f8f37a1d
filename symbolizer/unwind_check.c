/* symbolizer/unwind_check.c: a module's call-frame tables checked before libdw decodes a frame
 * of them (unwind_internal.h uw_cfi_usable).
 *
 * libdw (0.188, libdw/cfi.c) makes room in a frame's row for every register a rule of it names,
 * and clears it: a rule for register 2^27 - 1 (6 bytes of .eh_frame) makes it allocate and
 * clear 2 GiB for each frame decoded; each DW_CFA_remember_state copies the row. So before the
 * first frame of a table is decoded, the unwinder reads its CIEs and FDEs as libdw reads them
 * (dwarf_next_cfi along the table, each CIE's augmentation as libdw's intern_new_cie takes it,
 * each FDE's fields as intern_fde skips them) and checks every instruction stream: registers
 * below UW_CFI_REGS, rows remembered UW_CFI_DEPTH deep at most. libdw also reaches FDEs through
 * the search table of .eh_frame_hdr (found as dwarf_getcfi_elf finds it): every entry of it
 * must be an FDE of the chain. A table that fails is not used: its frames stop the unwind.
 * Compilers and linkers write nothing that fails (x86_64 and AArch64 name registers below 200).
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/grow.h"
#include "formats/hashmap.h"
#include "symbolizer/unwind_internal.h"

#define UW_CFI_REGS 4096        /* a row of 64 KiB */
#define UW_CFI_DEPTH 64

struct uw_cie {                 /* what an FDE needs of its CIE */
	Dwarf_Off off;
	uint8_t fde_enc;        /* DW_EH_PE_* of the FDE's addresses */
	bool sized;             /* 'z': the FDE's augmentation data is sized */
	size_t fde_aug;         /* else its size */
};

struct uw_scan {
	const uint8_t *b;       /* the table */
	size_t size;
	uint64_t vaddr;         /* its address (.debug_frame: 0), which aligned values use */
	bool eh, is64, msb;     /* .eh_frame; ELFCLASS64; ELFDATA2MSB */
	struct uw_cie *cies;
	size_t n_cies;
	Dwarf_Off *fdes;        /* the FDEs of the chain, in order */
	size_t n_fdes;
	bool nomem;
};

/* A LEB128 as libdw reads one (libdw/memory-access.h): 10 bytes at most, UINT64_MAX when none
 * of them ends it; the next instruction starts after them. false at end (libdw reads the byte
 * past the instructions there: a value below 128, or an error, and nothing after it). */
static bool uw_uleb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	size_t max = (size_t)(end - *p) < 10 ? (size_t)(end - *p) : 10;

	*v = 0;
	if (!max)
		return false;
	for (size_t i = 0; i < max; i++) {
		uint8_t c = *(*p)++;

		*v |= (uint64_t)(c & 0x7f) << (7 * i);
		if (!(c & 0x80))
			return true;
	}
	*v = UINT64_MAX;
	return true;
}

/* libdw's encoded_value_size (encoded-value.h), as it is: the bytes of a value of encoding enc
 * at p (for a LEB128: up to the first byte with its high bit set, end the table's end), 0 when
 * it knows none. libdw sizes the augmentation's fields and aligns values with it. */
static size_t uw_enc_size(uint8_t enc, bool is64, const uint8_t *p, const uint8_t *end)
{
	if (enc == DW_EH_PE_omit)
		return 0;
	switch (enc & 0x07) {
	case DW_EH_PE_udata2: return 2;
	case DW_EH_PE_udata4: return 4;
	case DW_EH_PE_udata8: return 8;
	case DW_EH_PE_absptr: return is64 ? 8 : 4;
	case DW_EH_PE_uleb128:
		for (const uint8_t *q = p; p && q < end;)
			if (*q++ & 0x80)
				return (size_t)(q - p);
		return 0;
	default: return 0;
	}
}

/* Moves *p past a value of encoding enc as libdw's read_encoded_value reads it in the table
 * (aligned first when the encoding says so): false where libdw fails to read it. */
static bool uw_enc_skip(const struct uw_scan *s, uint8_t enc, const uint8_t **p)
{
	const uint8_t *end = s->b + s->size;
	size_t at = (size_t)(*p - s->b), n;
	uint64_t v;

	switch (enc & 0x70) {
	case DW_EH_PE_absptr: case DW_EH_PE_pcrel: case DW_EH_PE_textrel:
	case DW_EH_PE_datarel: case DW_EH_PE_funcrel:
		break;
	case DW_EH_PE_aligned:
		n = uw_enc_size(enc, s->is64, *p, end);
		if (!n)
			return false;
		if ((s->vaddr + at) & (n - 1))
			at += n - ((s->vaddr + at) & (n - 1));
		if (at > s->size)
			return false;
		*p = s->b + at;
		break;
	default:
		return false;
	}
	switch (enc & 0x0f) {
	case DW_EH_PE_udata2: case DW_EH_PE_sdata2: n = 2; break;
	case DW_EH_PE_udata4: case DW_EH_PE_sdata4: n = 4; break;
	case DW_EH_PE_udata8: case DW_EH_PE_sdata8: n = 8; break;
	case DW_EH_PE_absptr: n = s->is64 ? 8 : 4; break;
	case DW_EH_PE_uleb128: case DW_EH_PE_sleb128: return uw_uleb(p, end, &v);
	default: return false;
	}
	if ((size_t)(end - *p) < n)
		return false;
	*p += n;
	return true;
}

/* Skips n bytes, or a LEB128 when n is 0 and leb; false past end. */
static bool uw_skip(const uint8_t **p, const uint8_t *end, size_t n)
{
	if ((size_t)(end - *p) < n)
		return false;
	*p += n;
	return true;
}

/* Whether the instructions [p, end) of table s stay in bounds as far as libdw would execute
 * them (it stops at an instruction it refuses: so does the check). loc_enc: DW_CFA_set_loc's
 * encoding. */
static bool uw_program_ok(const struct uw_scan *s, const uint8_t *p, const uint8_t *end,
			  uint8_t loc_enc)
{
	unsigned depth = 0;
	uint64_t reg, v;

	while (p < end) {
		uint8_t op = *p++;
		bool ok = true;

		if (op >> 6 == 1 || op >> 6 == 3) /* advance_loc, restore: 6-bit operands */
			continue;
		if (op >> 6 == 2) {                /* offset: a 6-bit register, an offset */
			ok = uw_uleb(&p, end, &v);
		} else {
			switch (op) {
			case DW_CFA_nop: case DW_CFA_GNU_window_save:
				break;
			case DW_CFA_remember_state:
				if (++depth > UW_CFI_DEPTH)
					return false;
				break;
			case DW_CFA_restore_state:
				depth -= depth > 0;
				break;
			case DW_CFA_set_loc:
				ok = uw_enc_skip(s, loc_enc, &p);
				break;
			case DW_CFA_advance_loc1: ok = uw_skip(&p, end, 1); break;
			case DW_CFA_advance_loc2: ok = uw_skip(&p, end, 2); break;
			case DW_CFA_advance_loc4: ok = uw_skip(&p, end, 4); break;
			case DW_CFA_MIPS_advance_loc8: ok = uw_skip(&p, end, 8); break;
			case DW_CFA_def_cfa: case DW_CFA_def_cfa_sf:
				ok = uw_uleb(&p, end, &v) && uw_uleb(&p, end, &v);
				break;
			case DW_CFA_def_cfa_register: case DW_CFA_def_cfa_offset:
			case DW_CFA_def_cfa_offset_sf: case DW_CFA_GNU_args_size:
				ok = uw_uleb(&p, end, &v);
				break;
			case DW_CFA_def_cfa_expression:
				ok = uw_uleb(&p, end, &v) && uw_skip(&p, end, v);
				break;
			/* a register given a rule: libdw makes room for it */
			case DW_CFA_undefined: case DW_CFA_same_value: case DW_CFA_restore_extended:
				ok = uw_uleb(&p, end, &reg);
				if (ok && reg >= UW_CFI_REGS)
					return false;
				break;
			case DW_CFA_offset_extended: case DW_CFA_offset_extended_sf:
			case DW_CFA_val_offset: case DW_CFA_val_offset_sf: case DW_CFA_register:
			case DW_CFA_GNU_negative_offset_extended:
				ok = uw_uleb(&p, end, &reg) && uw_uleb(&p, end, &v);
				if (ok && reg >= UW_CFI_REGS)
					return false;
				break;
			case DW_CFA_expression: case DW_CFA_val_expression:
				ok = uw_uleb(&p, end, &reg) && uw_uleb(&p, end, &v) &&
				     uw_skip(&p, end, v);
				if (ok && reg >= UW_CFI_REGS)
					return false;
				break;
			default: /* libdw refuses it: nothing after it runs */
				return true;
			}
		}
		if (!ok)
			return true; /* cut short: libdw stops there too */
	}
	return true;
}

/* A CIE: its augmentation as intern_new_cie takes it, its instructions checked. */
static bool uw_cie(struct uw_scan *s, Dwarf_Off off, const Dwarf_CIE *c)
{
	const uint8_t *d = c->augmentation_data, *end = s->b + s->size;
	struct uw_cie cie = { .off = off, .fde_enc = DW_EH_PE_absptr };
	struct uw_cie *grown;
	size_t n;

	for (const char *ap = c->augmentation; *ap; ap++) {
		if (*ap == 'z') {
			cie.sized = true;
			continue;
		}
		if (*ap == 'S')
			continue;
		if ((*ap == 'L' || *ap == 'R' || *ap == 'P') && (!d || d >= end))
			return false; /* libdw would read past the table */
		if (*ap == 'L') {
			n = uw_enc_size(*d++, s->is64, NULL, NULL);
			cie.fde_aug += cie.sized ? 0 : n;
			continue;
		}
		if (*ap == 'R') {
			cie.fde_enc = *d++;
			continue;
		}
		if (*ap == 'P') {
			uint8_t enc = *d++;

			if (!uw_skip(&d, end, uw_enc_size(enc, s->is64, d, end)))
				return false; /* libdw would read past the table */
			continue;
		}
		if (!cie.sized)
			break;
	}
	if ((cie.fde_enc & 0x0f) == DW_EH_PE_absptr)
		cie.fde_enc |= s->is64 ? DW_EH_PE_udata8 : DW_EH_PE_udata4;
	if (!uw_program_ok(s, c->initial_instructions, c->initial_instructions_end, cie.fde_enc))
		return false;
	grown = realloc(s->cies, (s->n_cies + 1) * sizeof(*s->cies));
	if (!grown) {
		s->nomem = true;
		return false;
	}
	s->cies = grown;
	s->cies[s->n_cies++] = cie;
	return true;
}

/* An FDE: its CIE one of the chain, its instructions (after the fields intern_fde skips)
 * checked. */
static bool uw_fde(struct uw_scan *s, Dwarf_Off off, const Dwarf_FDE *f)
{
	const uint8_t *p = f->start, *end = f->end;
	const struct uw_cie *cie = NULL;
	Dwarf_Off *grown;
	uint64_t len;

	for (size_t i = 0; i < s->n_cies && !cie; i++)
		if (s->cies[i].off == f->CIE_pointer)
			cie = &s->cies[i];
	if (!cie)
		return false;
	grown = realloc(s->fdes, (s->n_fdes + 1) * sizeof(*s->fdes));
	if (!grown) {
		s->nomem = true;
		return false;
	}
	s->fdes = grown;
	s->fdes[s->n_fdes++] = off;
	/* its address and length (read up to the table's end, not the FDE's: past the FDE, no
	 * instruction of it is executed) */
	if (!uw_enc_skip(s, cie->fde_enc, &p) || !uw_enc_skip(s, cie->fde_enc & 0x0f, &p) ||
	    p >= end)
		return true; /* libdw refuses the FDE, or executes nothing of it */
	if (cie->sized ? !uw_uleb(&p, end, &len) || !uw_skip(&p, end, len) :
	    !uw_skip(&p, end, cie->fde_aug))
		return true;
	return uw_program_ok(s, p, end, cie->fde_enc);
}

/* Every entry of the table, CIEs first (an FDE may name a CIE after it). */
static bool uw_chain(struct uw_scan *s, const unsigned char *ident)
{
	Elf_Data data = { .d_buf = (void *)s->b, .d_size = s->size, .d_type = ELF_T_BYTE };

	for (int pass = 0; pass < 2; pass++) {
		Dwarf_Off off = 0, next;
		Dwarf_CFI_Entry e;
		int r;

		while ((r = dwarf_next_cfi(ident, &data, s->eh, off, &next, &e)) == 0) {
			bool cie = dwarf_cfi_cie_p(&e);

			if (cie && !pass && !uw_cie(s, off, &e.cie))
				return false;
			if (!cie && pass && !uw_fde(s, off, &e.fde))
				return false;
			off = next;
		}
	}
	return true;
}

static int uw_off_cmp(const void *a, const void *b)
{
	Dwarf_Off x = *(const Dwarf_Off *)a, y = *(const Dwarf_Off *)b;

	return (x > y) - (x < y);
}

/* A value of .eh_frame_hdr at *p, encoding enc, the field at vaddr at, the header at hdr:
 * false for an encoding not read here (linkers write these: pc- or header-relative, or
 * absolute, 4 bytes). */
static bool uw_hdr_value(const uint8_t **p, const uint8_t *end, uint8_t enc, uint64_t at,
			 uint64_t hdr, bool msb, uint64_t *v)
{
	uint64_t base = (enc & 0x70) == DW_EH_PE_pcrel ? at :
			(enc & 0x70) == DW_EH_PE_datarel ? hdr : 0;
	int32_t s32;
	uint32_t u32;

	if (((enc & 0x70) != DW_EH_PE_pcrel && (enc & 0x70) != DW_EH_PE_datarel &&
	     (enc & 0x70)) || end - *p < 4)
		return false;
	memcpy(&u32, *p, 4);
	if (msb)
		u32 = __builtin_bswap32(u32);
	switch (enc & 0x0f) {
	case DW_EH_PE_sdata4:
		s32 = (int32_t)u32;
		*v = base + (uint64_t)(int64_t)s32;
		break;
	case DW_EH_PE_udata4:
		*v = base + u32;
		break;
	default:
		return false;
	}
	*p += 4;
	return true;
}

struct uw_hdr {
	uint64_t eh;            /* .eh_frame's vaddr, as the header says */
	const uint8_t *table;   /* the search table libdw uses, or NULL */
	uint64_t count;
};

/* .eh_frame_hdr b[0..size) at vaddr as libdw's parse_eh_frame_hdr and its callers read it: 1
 * (*h set), 0 when libdw takes no .eh_frame through it at all, -1 for an encoding not read
 * here. */
static int uw_hdr(const uint8_t *b, size_t size, uint64_t vaddr, bool msb, struct uw_hdr *h)
{
	const uint8_t *p = b + 4, *end = b + size;

	*h = (struct uw_hdr){ 0 };
	if (size < 4 || b[0] != 1 || b[1] == DW_EH_PE_omit)
		return 0;
	if (!uw_hdr_value(&p, end, b[1], vaddr + 4, vaddr, msb, &h->eh))
		return -1;
	if (b[2] == DW_EH_PE_omit)
		return 1;
	if (!uw_hdr_value(&p, end, b[2], vaddr + 8, vaddr, msb, &h->count))
		return -1;
	if (!h->count || b[3] == DW_EH_PE_omit || (b[3] & ~DW_EH_PE_signed) == DW_EH_PE_uleb128)
		return 1;
	if (b[3] != (DW_EH_PE_datarel | DW_EH_PE_sdata4))
		return -1;
	if (h->count > (uint64_t)(end - p) / 8)
		return 0; /* libdw refuses the header, and the .eh_frame with it */
	h->table = p;
	return 1;
}

/* Whether each FDE of the search table of header h (b at vaddr) is one of the chain, .eh_frame
 * at eh. */
static bool uw_table_ok(struct uw_scan *s, const struct uw_hdr *h, const uint8_t *b,
			uint64_t vaddr, uint64_t eh)
{
	const uint8_t *p = h->table;
	uint64_t fde;

	if (!s->n_fdes)
		return false; /* entries, and no FDE */
	qsort(s->fdes, s->n_fdes, sizeof(*s->fdes), uw_off_cmp);
	for (uint64_t i = 0; i < h->count; i++) {
		p += 4; /* the initial location */
		if (!uw_hdr_value(&p, p + 4, DW_EH_PE_datarel | DW_EH_PE_sdata4,
				  vaddr + (uint64_t)(p - b), vaddr, s->msb, &fde))
			return false;
		fde -= eh;
		if (!bsearch(&fde, s->fdes, s->n_fdes, sizeof(*s->fdes), uw_off_cmp))
			return false;
	}
	return true;
}

/* The section named name as libdw's getcfi_shdr finds it: the first, or with before, the last
 * one ahead of before (*sh its header). */
static Elf_Scn *uw_section(Elf *elf, size_t shstrndx, const char *name, Elf_Scn *before,
			   GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL, *found = NULL;
	GElf_Shdr mem;

	while ((scn = elf_nextscn(elf, scn)) && scn != before) {
		const char *n = gelf_getshdr(scn, &mem) ? elf_strptr(elf, shstrndx, mem.sh_name) :
			      NULL;

		if (n && strcmp(n, name) == 0) {
			found = scn;
			*sh = mem;
			if (!before)
				break;
		}
	}
	return found;
}

/* .eh_frame in its section, with the search table of .eh_frame_hdr when that section comes
 * before it and names it. */
static bool uw_eh_section(struct uw_scan *s, Elf *elf, size_t shstrndx, Elf_Scn *scn,
			  const GElf_Shdr *sh, const unsigned char *ident)
{
	Elf_Data *d = elf_rawdata(scn, NULL), *hd;
	GElf_Shdr hsh;
	Elf_Scn *hdr = uw_section(elf, shstrndx, ".eh_frame_hdr", scn, &hsh);
	struct uw_hdr h = { 0 };
	int r = 1;

	if (sh->sh_type == SHT_NOBITS || !d || !d->d_buf)
		return true; /* libdw reads nothing */
	hd = hdr ? elf_rawdata(hdr, NULL) : NULL;
	if (hd && hd->d_buf && (r = uw_hdr(hd->d_buf, hd->d_size, hsh.sh_addr, s->msb, &h)) < 0)
		return false;
	if (!r)
		return true; /* libdw refuses the header, and .eh_frame with it */
	s->b = d->d_buf;
	s->size = d->d_size;
	s->vaddr = sh->sh_addr;
	return uw_chain(s, ident) &&
	       (!h.table || h.eh != sh->sh_addr ||
		uw_table_ok(s, &h, hd->d_buf, hsh.sh_addr, sh->sh_addr));
}

/* .eh_frame through PT_GNU_EH_FRAME: from where its header says up to the end of the file. */
static bool uw_eh_segment(struct uw_scan *s, Elf *elf, const unsigned char *ident)
{
	size_t phnum, filesize = 0;
	const uint8_t *file = (const uint8_t *)elf_rawfile(elf, &filesize);
	struct uw_hdr h;
	GElf_Phdr ph;
	uint64_t at;
	int r;

	if (!file || elf_getphdrnum(elf, &phnum) != 0)
		return true;
	for (size_t i = 0; i < phnum; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph))
			return true;
		if (ph.p_type != PT_GNU_EH_FRAME)
			continue;
		if (ph.p_offset > filesize || ph.p_filesz > filesize - ph.p_offset)
			return true; /* libdw reads no header */
		r = uw_hdr(file + ph.p_offset, ph.p_filesz, ph.p_vaddr, s->msb, &h);
		if (r <= 0)
			return r == 0;
		at = h.eh - ph.p_vaddr + ph.p_offset;
		if (at >= filesize)
			return true;
		s->b = file + at;
		s->size = filesize - at;
		s->vaddr = h.eh;
		return uw_chain(s, ident) &&
		       (!h.table || uw_table_ok(s, &h, file + ph.p_offset, ph.p_vaddr, h.eh));
	}
	return true;
}

/* .eh_frame as libdw's dwarf_getcfi_elf finds it: the section, else through the segment. 1
 * (usable), 0 or -ENOMEM. */
static int uw_eh_ok(Elf *elf)
{
	const unsigned char *ident = (const unsigned char *)elf_getident(elf, NULL);
	struct uw_scan s = { .eh = true };
	size_t shstrndx;
	GElf_Shdr sh;
	Elf_Scn *scn = NULL;
	bool ok;

	if (!ident || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return 1; /* libdw reads nothing */
	s.is64 = ident[EI_CLASS] == ELFCLASS64;
	s.msb = ident[EI_DATA] == ELFDATA2MSB;
	if (shstrndx)
		scn = uw_section(elf, shstrndx, ".eh_frame", NULL, &sh);
	ok = scn ? uw_eh_section(&s, elf, shstrndx, scn, &sh, ident) :
	     uw_eh_segment(&s, elf, ident);
	free(s.cies);
	free(s.fdes);
	return s.nomem ? -ENOMEM : ok;
}

/* .debug_frame of the module's DWARF as libdw's dwarf_getcfi takes it (no search table): the
 * section libdw's dwarf_begin_elf took (decompressed), of those named .debug_frame,
 * .zdebug_frame or .debug_frame.dwo: each of them is checked. 1 (usable), 0 or -ENOMEM. */
static int uw_debug_ok(Dwarf *dw)
{
	Elf *elf = dwarf_getelf(dw);
	const unsigned char *ident = elf ? (const unsigned char *)elf_getident(elf, NULL) : NULL;
	struct uw_scan s = { 0 };
	size_t shstrndx;
	GElf_Shdr sh;
	Elf_Scn *scn = NULL;
	Elf_Data *d;
	int ok = 1;

	if (!ident || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return 1;
	s.is64 = ident[EI_CLASS] == ELFCLASS64;
	s.msb = ident[EI_DATA] == ELFDATA2MSB;
	while (ok == 1 && (scn = elf_nextscn(elf, scn))) {
		const char *n = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) :
			      NULL;

		if (!n || (strcmp(n, ".debug_frame") && strcmp(n, ".zdebug_frame") &&
			   strcmp(n, ".debug_frame.dwo")))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			continue;
		s.b = d->d_buf;
		s.size = d->d_size;
		ok = uw_chain(&s, ident);
		free(s.cies);
		free(s.fdes);
		s.cies = NULL;
		s.fdes = NULL;
		s.n_cies = s.n_fdes = 0;
		if (s.nomem)
			return -ENOMEM;
	}
	return ok;
}

/* ---- the verdicts, per file ---- */

struct uw_checked {
	const void *file;
	int8_t ok[2];           /* .eh_frame, .debug_frame: 1, 0, or -1 (not checked yet) */
	int8_t frame_scn;       /* a section .debug_frame may come from, in the binary or its
				 * debug file: 1, 0, or -1 (not looked for yet) */
};

struct uw_checks {
	struct uw_checked *e;
	uint32_t n, cap;
	struct t2f_hashmap *ix;
};

int uw_checks__new(struct uw_checks **out)
{
	struct uw_checks *c = calloc(1, sizeof(*c));

	if (!c || t2f_hashmap__new(64, &c->ix)) {
		free(c);
		return -ENOMEM;
	}
	*out = c;
	return 0;
}

void uw_checks__free(struct uw_checks *c)
{
	if (!c)
		return;
	t2f_hashmap__free(c->ix);
	free(c->e);
	free(c);
}

struct uw_check_probe {
	const struct uw_checks *c;
	const void *file;
};

static bool uw_check_eq(const void *ctx, uint32_t v)
{
	const struct uw_check_probe *q = ctx;

	return q->c->e[v - 1].file == q->file;
}

/* file's verdicts, made (unchecked) when new; NULL: out of memory. */
static struct uw_checked *uw_checked_of(struct uw_checks *c, const void *file)
{
	struct uw_check_probe q = { c, file };
	uint64_t h = t2f_hash_u64((uint64_t)(uintptr_t)file);
	uint32_t v = t2f_hashmap__find(c->ix, h, uw_check_eq, &q);

	if (!v) {
		if (t2f_grow32((void **)&c->e, &c->cap, c->n, sizeof(*c->e), 64) ||
		    t2f_hashmap__insert(c->ix, h, c->n + 1))
			return NULL;
		c->e[c->n++] = (struct uw_checked){ file, { -1, -1 }, -1 };
		v = c->n;
	}
	return &c->e[v - 1];
}

/* Whether elf has a section named as those libdw's dwarf_begin_elf takes .debug_frame from
 * (of any type: SHT_NOBITS ones count too). */
static bool uw_has_frame_scn(Elf *elf)
{
	size_t shstrndx;
	GElf_Shdr sh;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return true; /* not known: as if it had one */
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) :
			      NULL;

		if (!n)
			return true;
		if (!strcmp(n, ".debug_frame") || !strcmp(n, ".zdebug_frame") ||
		    !strcmp(n, ".debug_frame.dwo"))
			return true;
	}
	return false;
}

static bool uw_path_has_frame_scn(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	bool r = fd < 0 || !elf || elf_kind(elf) != ELF_K_ELF || uw_has_frame_scn(elf);

	elf_end(elf);
	if (fd >= 0)
		close(fd);
	return r;
}

int uw_debug_frame_none(struct t2f_unwinder *u, const void *file, Dwfl_Module *mod)
{
	struct uw_checked *e = uw_checked_of(u->checks, file);
	Dwarf_Addr bias;
	Elf *elf;
	const char *debug;

	if (!e)
		return -ENOMEM;
	if (e->frame_scn < 0) {
		elf = dwfl_module_getelf(mod, &bias);
		debug = u->ops.debug_file ? u->ops.debug_file(u->ops.ctx, file) : NULL;
		e->frame_scn = !elf || uw_has_frame_scn(elf) ||
			       (debug && uw_path_has_frame_scn(debug));
	}
	return e->frame_scn == 0;
}

int uw_cfi_usable(struct uw_checks *c, const void *file, Dwfl_Module *mod, bool debug)
{
	struct uw_checked *e = uw_checked_of(c, file);
	Dwarf_Addr bias;
	int8_t *ok;
	int r;

	if (!e)
		return -ENOMEM;
	ok = &e->ok[debug];
	if (*ok >= 0)
		return *ok;
	if (debug) {
		Dwarf *dw = dwfl_module_getdwarf(mod, &bias);

		r = dw ? uw_debug_ok(dw) : 1;
	} else {
		Elf *elf = dwfl_module_getelf(mod, &bias);

		r = elf ? uw_eh_ok(elf) : 1;
	}
	if (r >= 0)
		*ok = (int8_t)r;
	return r;
}
