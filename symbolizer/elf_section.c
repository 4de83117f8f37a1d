/* symbolizer/elf_section.c: a section's bytes, bounded and decompressed; the MiniDebugInfo xz.
 *
 * Real inputs:
 * - .symtab/.dynsym: libelf hands them out as ELF_T_SYM in memory order (on a same-endian file
 *   a pointer into the mapping, otherwise a converted copy);
 * - .SUNW_ldynsym (sh_type 0x6ffffff3): libelf does not know the type and gives ELF_T_BYTE, so
 *   it is read with elf_getdata_rawchunk(..., ELF_T_SYM), which converts class and byte order;
 * - SHF_COMPRESSED sections start with an Elf32_Chdr (12 bytes: type, size, align) or an
 *   Elf64_Chdr (24 bytes: type, reserved, size, align) in file byte order; ch_type 1 is zlib
 *   (/usr/lib/debug: every .debug_* section; libelf inflates it with elf_compress(scn, 0, 0)),
 *   ch_type 2 is one zstd frame (objcopy --compress-debug-sections=zstd; libelf 0.188 refuses
 *   it, so libzstd decodes it here). Symbol tables are not compressed by any tool seen, but a
 *   crafted or future file may do it, and the same code serves both;
 * - .gnu_debugdata (MiniDebugInfo, GDB manual recipe): an xz stream "fd 37 7a 58 5a 00" holding
 *   a small ET_DYN/ET_EXEC image with a .symtab of the non-exported functions.
 * Every decoded size is capped at T2F_ELF_DECODE_MAX, and counted against the module's
 * decompression limits (elf_budget.c) before it is decoded: a compressed section by the size its
 * header states, the xz image by stopping at what is left.
 */
#include "symbolizer/elf_internal.h"

#include <errno.h>
#include <stdlib.h>

#include <lzma.h>
#include <zstd.h>

#include "formats/grow.h"

#define XZ_FIRST_CAP (64u << 10)  /* first output buffer for MiniDebugInfo; doubles */

const char *t2f_elf_section__name(struct t2f_elf_module *m, const struct t2f_elf_image *im,
				  const GElf_Shdr *sh)
{
	size_t shstrndx;

	(void)m;
	if (elf_getshdrstrndx(im->elf, &shstrndx))
		return NULL;
	return elf_strptr(im->elf, shstrndx, sh->sh_name);
}

static bool image_big_endian(Elf *e)
{
	const char *ident = elf_getident(e, NULL);

	return ident && ident[EI_DATA] == ELFDATA2MSB;
}

/* Converts n file-order symbol records into a new memory-order buffer (*own). */
static int to_mem_syms(struct t2f_elf_module *m, Elf *e, const void *raw, size_t n,
		       const void **buf, size_t *size, void **own)
{
	size_t fsz = gelf_fsize(e, ELF_T_SYM, 1, EV_CURRENT);
	size_t bytes = fsz ? n / fsz * fsz : 0;
	Elf_Data src = { .d_buf = (void *)raw, .d_type = ELF_T_SYM, .d_size = bytes,
			 .d_version = EV_CURRENT };
	Elf_Data dst = { .d_type = ELF_T_SYM, .d_size = bytes, .d_version = EV_CURRENT };

	dst.d_buf = malloc(bytes ? bytes : 1);  /* Elf32/64_Sym: same size in memory and file */
	if (!dst.d_buf)
		return -ENOMEM;
	if (!gelf_xlatetom(e, &dst, &src, image_big_endian(e) ? ELFDATA2MSB : ELFDATA2LSB)) {
		free(dst.d_buf);
		return t2f_elf__skip(T2F_ELF_WARN(m, "cannot convert a symbol table: %s",
						  elf_errmsg(-1)), -T2F_ERR_ELF);
	}
	*own = dst.d_buf;
	*buf = dst.d_buf;
	*size = dst.d_size;
	return 0;
}

/* Decodes the zstd frame after a compression header into a new buffer of exactly `want` bytes. */
static int zstd_decode(struct t2f_elf_module *m, const char *name, const unsigned char *in,
		       size_t in_size, size_t want, void **out)
{
	void *buf = malloc(want ? want : 1);
	size_t got;

	if (!buf)
		return -ENOMEM;
	got = ZSTD_decompress(buf, want, in, in_size);
	if (ZSTD_isError(got) || got != want) {
		free(buf);
		return t2f_elf__skip(T2F_ELF_WARN(m, "%s: corrupt zstd section (%s)", name,
						  ZSTD_isError(got) ? ZSTD_getErrorName(got)
								    : "wrong size"),
				     -T2F_ERR_DECOMPRESS);
	}
	*out = buf;
	return 0;
}

/* zlib through libelf: elf_compress(scn, 0, 0) replaces the section data by the inflated one. */
static int zlib_data(struct t2f_elf_module *m, const char *name, Elf_Scn *scn, uint64_t want,
		     Elf_Data **out)
{
	Elf_Data *d;

	if (elf_compress(scn, 0, 0) < 0 || !(d = elf_getdata(scn, NULL)) || d->d_size != want) {
		return t2f_elf__skip(T2F_ELF_WARN(m, "%s: cannot inflate the zlib section: %s",
						  name, elf_errmsg(-1)), -T2F_ERR_DECOMPRESS);
	}
	*out = d;
	return 0;
}

/* An SHF_COMPRESSED section: the header, the size cap, then zlib or zstd. */
static int compressed_data(struct t2f_elf_module *m, const struct t2f_elf_image *im,
			   Elf_Scn *scn, const char *name, Elf_Type type,
			   const void **buf, size_t *size, void **own)
{
	bool is64 = gelf_getclass(im->elf) == ELFCLASS64, be = image_big_endian(im->elf);
	size_t hsize = is64 ? sizeof(Elf64_Chdr) : sizeof(Elf32_Chdr);
	Elf_Data *raw = elf_rawdata(scn, NULL), *d;
	const unsigned char *p;
	uint64_t want;
	uint32_t ch_type;
	void *dec = NULL;
	int err;

	if (!raw || !raw->d_buf || raw->d_size < hsize)
		return t2f_elf__skip(T2F_ELF_WARN(m, "%s: bad compression header", name),
				     -T2F_ERR_ELF);
	p = raw->d_buf;
	ch_type = t2f_elf_rd32(p, be);
	want = is64 ? t2f_elf_rd64(p + 8, be) : t2f_elf_rd32(p + 4, be);
	if (want > T2F_ELF_DECODE_MAX)
		return t2f_elf__skip(T2F_ELF_WARN(m, "%s: decompressed size %llu refused (over %u MiB)",
						  name, (unsigned long long)want,
						  T2F_ELF_DECODE_MAX >> 20), -T2F_ERR_LIMIT);
	if (ch_type != ELFCOMPRESS_ZLIB && ch_type != ELFCOMPRESS_ZSTD)
		return t2f_elf__skip(T2F_ELF_WARN(m, "%s: unknown compression type %u", name,
						  ch_type), -T2F_ERR_UNSUPPORTED);
	err = t2f_elf_module__charge(m, im->prefix, name, want, true);
	if (err)
		return err;
	if (ch_type == ELFCOMPRESS_ZLIB) {
		err = zlib_data(m, name, scn, want, &d);
		if (err)
			return err;
		if (type != ELF_T_SYM || d->d_type == ELF_T_SYM) {
			*buf = d->d_buf;
			*size = d->d_size;
			return 0;
		}
		return to_mem_syms(m, im->elf, d->d_buf, d->d_size, buf, size, own);
	}
	err = zstd_decode(m, name, p + hsize, raw->d_size - hsize, (size_t)want, &dec);
	if (err || type != ELF_T_SYM) {
		*own = dec;
		*buf = dec;
		*size = err ? 0 : (size_t)want;
		return err;
	}
	err = to_mem_syms(m, im->elf, dec, (size_t)want, buf, size, own);
	free(dec);
	return err;
}

int t2f_elf_section__data(struct t2f_elf_module *m, const struct t2f_elf_image *im,
			  Elf_Scn *scn, const GElf_Shdr *sh, Elf_Type type,
			  const void **buf, size_t *size, void **own)
{
	const char *name = t2f_elf_section__name(m, im, sh);
	Elf_Data *d;

	*own = NULL;
	*buf = NULL;
	*size = 0;
	if (!name)
		name = "<corrupt>";
	if (sh->sh_type == SHT_NOBITS)
		return 0;
	if (!t2f_elf_in_image(sh->sh_offset, sh->sh_size, im->size))
		return t2f_elf__skip(T2F_ELF_WARN(m, "%s%s: offset %#llx + %llu bytes is outside the file",
						  im->prefix, name, (unsigned long long)sh->sh_offset,
						  (unsigned long long)sh->sh_size), -T2F_ERR_ELF);
	if (sh->sh_flags & SHF_COMPRESSED)
		return compressed_data(m, im, scn, name, type, buf, size, own);
	d = type == ELF_T_SYM && sh->sh_type == SHT_SUNW_LDYNSYM ? NULL : elf_getdata(scn, NULL);
	if (!d || d->d_type != type)  /* .SUNW_ldynsym: ELF_T_BYTE from elf_getdata */
		d = elf_getdata_rawchunk(im->elf, (int64_t)sh->sh_offset, sh->sh_size, type);
	if (!d)
		return t2f_elf__skip(T2F_ELF_WARN(m, "%s%s: cannot read: %s", im->prefix, name,
						  elf_errmsg(-1)), -T2F_ERR_ELF);
	*buf = d->d_buf;
	*size = d->d_buf ? d->d_size : 0;
	return 0;
}

/* Once the decoder stopped (r) with got bytes out, at most limit + 1: counts them against the
 * module's limits (they fit: limit is what was left), then the outcome. Over the cap the image
 * is skipped, over what the module may still decode the module is refused; a corrupt stream is
 * skipped. */
static int xz_result(struct t2f_elf_module *m, lzma_ret r, uint64_t got, size_t limit)
{
	int err;

	if (got > limit && limit < T2F_ELF_DECODE_MAX)
		return t2f_elf_module__charge(m, "", ".gnu_debugdata", limit, false);
	err = t2f_elf_module__charge(m, "", ".gnu_debugdata", got > limit ? limit : got, true);
	if (err)
		return err;
	if (got > limit)
		return t2f_elf__skip(T2F_ELF_WARN(m, ".gnu_debugdata: image over %u MiB refused",
						  T2F_ELF_DECODE_MAX >> 20), -T2F_ERR_LIMIT);
	if (r != LZMA_STREAM_END)
		return t2f_elf__skip(T2F_ELF_WARN(m, ".gnu_debugdata: corrupt xz stream (lzma error %d)",
						  (int)r), -T2F_ERR_DECOMPRESS);
	return 0;
}

int t2f_elf_xz_decode(struct t2f_elf_module *m, const void *in, size_t in_size,
		      void **out, size_t *out_size)
{
	uint64_t left = t2f_elf_module__decode_left(m);
	size_t limit = left < T2F_ELF_DECODE_MAX ? (size_t)left : T2F_ELF_DECODE_MAX;
	size_t cap = limit < XZ_FIRST_CAP ? limit + 1 : XZ_FIRST_CAP;  /* limit + 1: over it */
	lzma_stream s = LZMA_STREAM_INIT;
	unsigned char *buf = malloc(cap);
	lzma_ret r;
	int err = 0;

	if (!buf)
		return -ENOMEM;
	if (lzma_stream_decoder(&s, T2F_ELF_DECODE_MAX, 0) != LZMA_OK) {
		err = -ENOMEM;
		goto out;
	}
	s.next_in = in;
	s.avail_in = in_size;
	s.next_out = buf;
	s.avail_out = cap;
	while ((r = lzma_code(&s, LZMA_FINISH)) == LZMA_OK) {
		if (s.avail_out)
			continue;
		if (s.total_out > limit)
			break;
		if (t2f_grow((void **)&buf, &cap, cap, 1, 1, 1, limit + 1)) {
			err = -ENOMEM;
			goto out;
		}
		s.next_out = buf + s.total_out;
		s.avail_out = cap - s.total_out;
	}
	err = xz_result(m, r, s.total_out, limit);
	if (err)
		goto out;
	*out_size = s.total_out;
	*out = buf;
	buf = NULL;
out:
	lzma_end(&s);
	free(buf);
	return err;
}
