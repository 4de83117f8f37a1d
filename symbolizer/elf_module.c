/* symbolizer/elf_module.c: opening an ELF file, its header checks, accessors, the file CRC.
 *
 * The file is opened with elf_begin(ELF_C_READ_MMAP), then elf_cntl(ELF_C_FDREAD) makes libelf
 * stop using the descriptor (it keeps the mapping, or reads the whole file when mmap failed),
 * so the descriptor is closed before open() returns and a module holds none.
 *
 * Headers are checked against the file size before anything trusts them: real files look like
 *   libc.so.6   ELF64 LSB DYN, 14 program headers at 64, 66 section headers at 1920776
 *   prog.debug  (objcopy --only-keep-debug) PT_LOAD p_filesz 0 for every segment but the first
 * The other readers (notes, symbol tables) live in elf_notes.c, elf_symtab.c, elf_index.c and
 * elf_index_build.c.
 */
#include "symbolizer/elf_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <zlib.h>

#include "formats/plural.h"
#include "formats/side_file.h"

#define CRC_BLOCK (1u << 20)  /* t2f_elf_file_crc32 reads this many bytes at a time */

int t2f_elf__fail(const struct t2f_elf_module *m, int err, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!m->diag)
		return err;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return t2f_diag__error(m->diag, err, m->path, 0, "%s", msg);
}

/* Whether `count` headers of `entsize` bytes at `off` lie inside the file. */
static bool headers_fit(uint64_t off, uint64_t count, uint64_t entsize, uint64_t file_size)
{
	if (count == 0)
		return true;
	return entsize && off <= file_size && count <= (file_size - off) / entsize;
}

/* Section 0's sh_size, sh_link and sh_info as the file has them: they hold the counts the ELF
 * header escapes (e_shnum 0 with e_shoff set, e_phnum PN_XNUM, e_shstrndx SHN_XINDEX), which
 * libelf clamps to what fits in the file. false when section 0 is not inside the image. */
static bool section0(Elf *e, const GElf_Ehdr *eh, uint64_t size, GElf_Shdr *s0)
{
	size_t ent = gelf_fsize(e, ELF_T_SHDR, 1, EV_CURRENT);
	Elf_Data *d;

	if (!ent || !eh->e_shoff || eh->e_shentsize != ent ||
	    !t2f_elf_in_image(eh->e_shoff, ent, size))
		return false;
	d = elf_getdata_rawchunk(e, (int64_t)eh->e_shoff, ent, ELF_T_SHDR);
	if (!d || !d->d_buf || d->d_size < ent)
		return false;
	if (gelf_getclass(e) == ELFCLASS64) {
		Elf64_Shdr s;

		memcpy(&s, d->d_buf, sizeof(s));
		*s0 = (GElf_Shdr){ .sh_size = s.sh_size, .sh_link = s.sh_link, .sh_info = s.sh_info };
	} else {
		Elf32_Shdr s;

		memcpy(&s, d->d_buf, sizeof(s));
		*s0 = (GElf_Shdr){ .sh_size = s.sh_size, .sh_link = s.sh_link, .sh_info = s.sh_info };
	}
	return true;
}

struct header_counts {
	uint64_t shnum, phnum, shstrndx;
};

/* The header counts as the file states them, escapes resolved through section 0 (libelf
 * pretends truncated section headers are absent and clamps the counts to what fits, so its
 * own view is compared only once the file's counts are known to fit). NULL or the problem. */
static const char *header_counts(Elf *e, const GElf_Ehdr *eh, uint64_t size,
				 struct header_counts *c)
{
	bool escaped = (eh->e_shnum == 0 && eh->e_shoff) || eh->e_phnum == PN_XNUM ||
		       eh->e_shstrndx == SHN_XINDEX;
	GElf_Shdr s0 = { 0 };

	if (escaped && !section0(e, eh, size, &s0))
		return "extended numbering, but section 0 is not in the file";
	c->shnum = eh->e_shnum || !eh->e_shoff ? eh->e_shnum : s0.sh_size;
	c->phnum = eh->e_phnum == PN_XNUM ? s0.sh_info : eh->e_phnum;
	c->shstrndx = eh->e_shstrndx == SHN_XINDEX ? s0.sh_link : eh->e_shstrndx;
	return NULL;
}

const char *t2f_elf_headers_problem(Elf *e, uint64_t size)
{
	struct header_counts c;
	size_t lib_shnum, lib_phnum, lib_shstrndx;
	const char *problem;
	GElf_Ehdr eh;

	if (!gelf_getehdr(e, &eh))
		return "bad ELF header";
	problem = header_counts(e, &eh, size, &c);
	if (problem)
		return problem;
	if (c.shnum && (eh.e_shentsize != gelf_fsize(e, ELF_T_SHDR, 1, EV_CURRENT) ||
			!headers_fit(eh.e_shoff, c.shnum, eh.e_shentsize, size)))
		return "the section headers do not fit in the file";
	if (c.phnum && (eh.e_phentsize != gelf_fsize(e, ELF_T_PHDR, 1, EV_CURRENT) ||
			!headers_fit(eh.e_phoff, c.phnum, eh.e_phentsize, size)))
		return "the program headers do not fit in the file";
	if (c.shnum && c.shstrndx >= c.shnum)
		return "bad section name table index";
	if (elf_getshdrnum(e, &lib_shnum) || elf_getphdrnum(e, &lib_phnum) ||
	    lib_shnum != c.shnum || lib_phnum != c.phnum)
		return "bad section or program header count";
	if (c.shnum && (elf_getshdrstrndx(e, &lib_shstrndx) || lib_shstrndx != c.shstrndx))
		return "bad section name table index";
	return NULL;
}

/* The ELF header: class, byte order, and where the section and program headers are. */
static int check_header(struct t2f_elf_module *m)
{
	const char *problem;
	GElf_Ehdr eh;

	if (elf_kind(m->elf) != ELF_K_ELF)
		return t2f_elf__fail(m, -T2F_ERR_ELF, "not an ELF file");
	if (!gelf_getehdr(m->elf, &eh))
		return t2f_elf__fail(m, -T2F_ERR_ELF, "bad ELF header: %s", elf_errmsg(-1));
	if (eh.e_ident[EI_CLASS] != ELFCLASS32 && eh.e_ident[EI_CLASS] != ELFCLASS64)
		return t2f_elf__fail(m, -T2F_ERR_ELF, "bad ELF class %u", eh.e_ident[EI_CLASS]);
	if (eh.e_ident[EI_DATA] != ELFDATA2LSB && eh.e_ident[EI_DATA] != ELFDATA2MSB)
		return t2f_elf__fail(m, -T2F_ERR_ELF, "bad ELF byte order %u", eh.e_ident[EI_DATA]);
	m->is64 = eh.e_ident[EI_CLASS] == ELFCLASS64;
	m->big_endian = eh.e_ident[EI_DATA] == ELFDATA2MSB;
	m->machine = eh.e_machine;
	m->entry = eh.e_entry;
	m->type = eh.e_type;
	m->flags = eh.e_flags;
	problem = t2f_elf_headers_problem(m->elf, m->file_size);
	if (problem)
		return t2f_elf__fail(m, -T2F_ERR_ELF,
				     "%s (%llu byte%s; %u section header%s at %llu, "
				     "%u program header%s at %llu)",
				     problem, (unsigned long long)m->file_size,
				     t2f_plural(m->file_size), eh.e_shnum, t2f_plural(eh.e_shnum),
				     (unsigned long long)eh.e_shoff, eh.e_phnum,
				     t2f_plural(eh.e_phnum), (unsigned long long)eh.e_phoff);
	return 0;
}

/* Why libelf did not see an ELF file: "\177ELF" with an unknown EI_CLASS / EI_DATA (libelf
 * refuses those), or something else. */
static int not_elf(struct t2f_elf_module *m, int fd)
{
	unsigned char id[EI_NIDENT];

	if (pread(fd, id, sizeof(id), 0) == (ssize_t)sizeof(id) && memcmp(id, ELFMAG, SELFMAG) == 0)
		return t2f_elf__fail(m, -T2F_ERR_ELF, "unsupported ELF class %u or byte order %u",
				     id[EI_CLASS], id[EI_DATA]);
	return t2f_elf__fail(m, -T2F_ERR_ELF, "not an ELF file");
}

/* A regular file opened without blocking (formats/side_file.h) + elf_begin; afterwards libelf
 * needs no descriptor. */
static int open_elf(struct t2f_elf_module *m)
{
	int fd, err = t2f_side_file__open(m->path, &fd, &m->file_size);

	if (err == -T2F_ERR_NOT_FILE || err == -EISDIR)
		return t2f_elf__fail(m, err, "not a regular file");
	if (err)
		return t2f_elf__fail(m, err, "cannot open: %s", t2f_strerror(err));
	m->elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!m->elf) {
		err = t2f_elf__fail(m, -T2F_ERR_ELF, "libelf cannot read it: %s", elf_errmsg(-1));
		goto out;
	}
	if (elf_kind(m->elf) != ELF_K_ELF)
		err = not_elf(m, fd);
	else if (elf_cntl(m->elf, ELF_C_FDREAD))
		err = t2f_elf__fail(m, -EIO, "cannot read the file: %s", elf_errmsg(-1));
out:
	close(fd);
	return err;
}

/* A module of path, nothing read yet (*out NULL on error). 0, -ENOMEM or -T2F_ERR_ELF. */
static int module_new(const char *path, struct t2f_diag *d, struct t2f_elf_module **out)
{
	struct t2f_elf_module *m;

	*out = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return d ? t2f_diag__error(d, -T2F_ERR_ELF, path, 0, "libelf: %s", elf_errmsg(-1))
			 : -T2F_ERR_ELF;
	m = calloc(1, sizeof(*m));
	if (!m || !(m->path = strdup(path))) {
		free(m);
		return -ENOMEM;
	}
	m->diag = d;
	*out = m;
	return 0;
}

int t2f_elf_module__open(const char *path, struct t2f_diag *d, struct t2f_elf_module **out)
{
	struct t2f_elf_module *m;
	int err = module_new(path, d, &m);

	*out = NULL;
	if (err)
		return err;
	err = open_elf(m);
	if (!err)
		err = check_header(m);
	if (!err)
		err = t2f_elf_module__read_loads(m);
	if (!err)
		err = t2f_elf_module__read_build_id(m);
	if (!err)
		err = t2f_elf_module__read_debuglink(m);
	if (err) {
		t2f_elf_module__free(m);
		return err;
	}
	*out = m;
	return 0;
}

int t2f_elf_module__open_id(const char *path, struct t2f_elf_module **out)
{
	struct t2f_elf_module *m;
	int fd = -1, err = module_new(path, NULL, &m);

	*out = NULL;
	if (err)
		return err;
	err = t2f_side_file__open(path, &fd, &m->file_size);
	if (!err && !(m->elf = elf_begin(fd, ELF_C_READ, NULL))) /* read as asked: no mapping */
		err = -T2F_ERR_ELF;
	err = err ?: check_header(m) ?: t2f_elf_module__read_build_id(m);
	if (fd >= 0)
		close(fd);
	if (err) {
		t2f_elf_module__free(m);
		return err;
	}
	*out = m;
	return 0;
}

int t2f_elf_module__file_id(const char *path, uint8_t *id, size_t *len)
{
	struct t2f_elf_module *m = NULL;
	const uint8_t *got = NULL;
	int err = t2f_elf_module__open_id(path, &m);

	*len = 0;
	if (!err)
		got = t2f_elf_module__build_id(m, len);
	if (got && *len && *len <= T2F_BUILD_ID_MAX)
		memcpy(id, got, *len);
	else
		*len = 0;
	t2f_elf_module__free(m);
	return err == -ENOMEM ? err : 0;
}

void t2f_elf_module__free(struct t2f_elf_module *m)
{
	if (!m)
		return;
	t2f_elf_module__free_index(m);
	t2f_elf_a2l__free(m->a2l);
	t2f_elf_module__free_tables(m);
	if (m->elf)
		elf_end(m->elf);
	free(m->loads);
	free(m->debuglink);
	free(m->path);
	free(m);
}

const char *t2f_elf_module__path(const struct t2f_elf_module *m)
{
	return m->path;
}

uint16_t t2f_elf_module__machine(const struct t2f_elf_module *m)
{
	return m->machine;
}

uint64_t t2f_elf_module__entry(const struct t2f_elf_module *m)
{
	return m->entry;
}

uint16_t t2f_elf_module__type(const struct t2f_elf_module *m)
{
	return m->type;
}

const uint8_t *t2f_elf_module__build_id(const struct t2f_elf_module *m, size_t *len)
{
	*len = m->build_id_len;
	return m->build_id_len ? m->build_id : NULL;
}

bool t2f_elf_module__debuglink(const struct t2f_elf_module *m, const char **name, uint32_t *crc)
{
	if (!m->debuglink)
		return false;
	*name = m->debuglink;
	*crc = m->debuglink_crc;
	return true;
}

size_t t2f_elf_module__load_count(const struct t2f_elf_module *m)
{
	return m->n_loads;
}

const struct t2f_elf_load *t2f_elf_module__load_at(const struct t2f_elf_module *m, size_t i)
{
	return i < m->n_loads ? &m->loads[i] : NULL;
}

int t2f_elf_file_crc32(const char *path, uint32_t *crc)
{
	unsigned char *buf;
	uLong c = crc32(0L, Z_NULL, 0);
	ssize_t n;
	int fd, err = 0;

	err = t2f_side_file__open(path, &fd, NULL);
	if (err)
		return err;
	buf = malloc(CRC_BLOCK);
	if (!buf) {
		err = -ENOMEM;
		goto out;
	}
	for (;;) {
		n = read(fd, buf, CRC_BLOCK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			goto out;
		}
		if (n == 0)
			break;
		c = crc32(c, buf, (uInt)n);
	}
	*crc = (uint32_t)c;
out:
	free(buf);
	close(fd);
	return err;
}
