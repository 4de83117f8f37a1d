/* symbolizer/dwarf.c: a file's DWARF through libdw, opened within the limits of dwarf.h: the
 * file, its compressed sections, its supplementary file, libdw's out-of-memory handler; and the
 * lookup of an address's chain. The units' index is dwarf_index.c's, line tables
 * dwarf_lines.c's. */
#include "symbolizer/dwarf_internal.h"

#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <gelf.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/side_file.h"
#include "symbolizer/elf_module.h"

#define DW_ALT_CANDIDATES 16

/* ---- libdw out of memory ---- */

/* Where libdw's out-of-memory handler goes back to on this thread: the guarded call running. */
static _Thread_local jmp_buf *dw_oom_at;

/* libdw's handler may not return (it would use the NULL it got). Every call into libdw on a
 * handle's Dwarf runs under dw_guarded, so there is always a way back. */
__attribute__((noreturn)) static void dw_oom(void)
{
	if (dw_oom_at)
		longjmp(*dw_oom_at, 1);
	abort();
}

typedef int (*dw_step_fn)(struct t2f_dwarf *dw, void *arg);

/* step(dw, arg), with an out-of-memory in libdw ending it here: the handle is then broken
 * (libdw's state may be half made: it is never used again, nor freed), said once, and the call
 * returns 0. */
static int dw_guarded(struct t2f_dwarf *dw, dw_step_fn step, void *arg)
{
	jmp_buf here;
	jmp_buf *volatile outer = dw_oom_at;
	int err;

	if (setjmp(here)) {
		dw_oom_at = outer;
		dw->broken = true;
		t2f_diag__warn(dw->notes, dw->path, 0, "libdw ran out of memory: the file's DWARF "
			       "is left out from here on");
		return 0;
	}
	dw_oom_at = &here;
	err = step(dw, arg);
	dw_oom_at = outer;
	return err;
}

/* ---- the files ---- */

/* path as an ELF file, when it is a regular one: 0 and *fd, *elf; 0 and *elf NULL when it is
 * not an ELF file; -errno or -T2F_ERR_NOT_FILE. */
static int dw_elf_open(const char *path, int *fd, Elf **elf)
{
	int err = t2f_side_file__open(path, fd, NULL);

	*elf = NULL;
	if (err)
		return err;
	*elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (*elf && elf_kind(*elf) != ELF_K_ELF) {
		elf_end(*elf);
		*elf = NULL;
	}
	return 0;
}

static uint64_t dw_sum(uint64_t a, uint64_t b)
{
	return b > UINT64_MAX - a ? UINT64_MAX : a + b;
}

/* The bytes of elf's debug sections: *inflated, what libdw inflates when it opens elf (what
 * the compressed ones declare: SHF_COMPRESSED's header; GNU .zdebug's "ZLIB" and big-endian
 * size), and *held, all of them as libdw will hold them (a compressed one by its declared
 * size): what reading its DWARF is about to cost, to schedule lookups by. */
static void dw_debug_sizes(Elf *elf, uint64_t *inflated, uint64_t *held)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	*inflated = *held = 0;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		GElf_Chdr ch;
		Elf_Data *raw;
		const char *name;
		uint64_t n = 0;
		bool debug, zdebug;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    sh.sh_type == SHT_NOBITS)
			continue;
		debug = strncmp(name, ".debug", 6) == 0;
		zdebug = strncmp(name, ".zdebug", 7) == 0;
		if ((sh.sh_flags & SHF_COMPRESSED) && debug) {
			n = gelf_getchdr(scn, &ch) ? ch.ch_size : 0;
		} else if (zdebug && (raw = elf_rawdata(scn, NULL)) && raw->d_size >= 12 &&
			   memcmp(raw->d_buf, "ZLIB", 4) == 0) {
			for (int i = 0; i < 8; i++)
				n = n << 8 | ((const uint8_t *)raw->d_buf)[4 + i];
		}
		*inflated = dw_sum(*inflated, n);
		if (debug || zdebug)
			*held = dw_sum(*held, n ? n : sh.sh_size);
	}
}

static uint64_t dw_inflated(Elf *elf)
{
	uint64_t inflated, held;

	dw_debug_sizes(elf, &inflated, &held);
	return inflated;
}

uint64_t t2f_dwarf__inflated(const char *path)
{
	uint64_t n = 0;
	Elf *elf;
	int fd;

	elf_version(EV_CURRENT);
	if (dw_elf_open(path, &fd, &elf) != 0)
		return 0;
	if (elf) {
		n = dw_inflated(elf);
		elf_end(elf);
	}
	close(fd);
	return n;
}

/* Whether elf's compressed debug sections fit the file's limit and what the budget has left
 * (then taken); else a warning naming path. */
static bool dw_inflate_fits(Elf *elf, const char *path, struct t2f_decode_budget *b,
			    struct t2f_diag *d)
{
	uint64_t n = dw_inflated(elf), used = 0;

	if (n > T2F_DWARF_DECODE_MAX) {
		t2f_diag__warn(d, path, 0, "DWARF left out: its debug sections inflate to %llu "
			       "bytes, over the limit of %llu MiB per file", (unsigned long long)n,
			       T2F_DWARF_DECODE_MAX >> 20);
		return false;
	}
	if (b && n && !t2f_decode_budget__take(b, n, &used)) {
		t2f_diag__warn(d, path, 0, "DWARF left out: its debug sections inflate to %llu "
			       "bytes, over what is left of the limit of %llu MiB for all files "
			       "(%llu bytes inflated before)", (unsigned long long)n,
			       (unsigned long long)(b->run_max >> 20), (unsigned long long)used);
		return false;
	}
	return true;
}

/* A file's line tables and strings, once libdw has inflated them. */
static void dw_sections_of(Elf *elf, struct dw_sections *s)
{
	static const char *const names[] = { "line", "line_str", "str" };
	const uint8_t **data[] = { &s->line, &s->line_str, &s->str };
	size_t *size[] = { &s->line_size, &s->line_str_size, &s->str_size };
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	memset(s, 0, sizeof(*s));
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *dat;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		name += strncmp(name, ".debug_", 7) == 0 ? 7 : strncmp(name, ".zdebug_", 8) == 0 ? 8
											: 0;
		for (size_t i = 0; i < 3; i++) {
			if (strcmp(name, names[i]) == 0 && !*data[i] &&
			    (dat = elf_getdata(scn, NULL)) && dat->d_buf) {
				*data[i] = dat->d_buf;
				*size[i] = dat->d_size;
			}
		}
	}
}

/* ---- the supplementary file ---- */

/* An ELF file with nothing but a one-byte .debug_info: the supplementary file libdw is given
 * when no verified one is found, so that it never looks for one itself; what a unit keeps there
 * (DW_FORM_GNU_strp_alt, DW_FORM_GNU_ref_alt, their DWARF 5 forms) is then not found. */
static int dw_null_alt(struct t2f_dwarf *dw)
{
	static const char names[] = "\0.shstrtab\0.debug_info";
	unsigned char *img = dw->null_image;
	Elf64_Ehdr eh = { .e_type = ET_REL, .e_version = EV_CURRENT, .e_shoff = 96,
			  .e_ehsize = sizeof(Elf64_Ehdr), .e_shentsize = sizeof(Elf64_Shdr),
			  .e_shnum = 3, .e_shstrndx = 1 };
	Elf64_Shdr sh[3] = {
		{ 0 },
		{ .sh_name = 1, .sh_type = SHT_STRTAB, .sh_offset = 64, .sh_size = sizeof(names),
		  .sh_addralign = 1 },
		{ .sh_name = 11, .sh_type = SHT_PROGBITS, .sh_offset = 64 + sizeof(names),
		  .sh_size = 1, .sh_addralign = 1 },
	};

	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	memset(img, 0, sizeof(dw->null_image));
	memcpy(img, &eh, sizeof(eh));
	memcpy(img + 64, names, sizeof(names));
	memcpy(img + 96, sh, sizeof(sh));
	dw->null_elf = elf_memory((char *)img, 96 + sizeof(sh));
	dw->null_alt = dw->null_elf ? dwarf_begin_elf(dw->null_elf, DWARF_C_READ, NULL) : NULL;
	if (!dw->null_alt)
		return -ENOMEM;
	dwarf_new_oom_handler(dw->null_alt, dw_oom);
	return 0;
}

/* Whether elf's build-id is id[0..len). */
static bool dw_id_is(Elf *elf, const uint8_t *id, size_t len)
{
	const void *own;
	ssize_t n = dwelf_elf_gnu_build_id(elf, &own);

	return n > 0 && (size_t)n == len && memcmp(own, id, len) == 0;
}

/* Candidate `path` as the supplementary file: 1 taken, 0 not (not there, not a regular ELF
 * file, another build-id, over the limits: *why says which), -ENOMEM. */
static int dw_try_alt(struct t2f_dwarf *dw, const char *path, const uint8_t *id, size_t len,
		      const struct t2f_dwarf_opts *o, struct t2f_diag *d, const char **why)
{
	Dwarf *alt = NULL;
	Elf *elf;
	int fd, err = dw_elf_open(path, &fd, &elf);

	if (err) {
		if (err != -ENOENT)
			*why = err == -T2F_ERR_NOT_FILE ? "not a regular file" : "cannot be read";
		return 0;
	}
	if (!elf)
		*why = "not an ELF file";
	else if (!dw_id_is(elf, id, len))
		*why = "another build-id";
	else if (!dw_inflate_fits(elf, path, o->budget, d))
		*why = "over the decompression limit";
	else if ((err = t2f_dw_inflate(elf, dw->threads, dw->no_lines, &dw->inflated)))
		*why = "out of memory";
	else if (!(alt = dwarf_begin_elf(elf, DWARF_C_READ, NULL)))
		*why = "no DWARF";
	if (!alt) {
		if (elf)
			elf_end(elf);
		close(fd);
		return 0;
	}
	dwarf_new_oom_handler(alt, dw_oom);
	dwarf_setalt(alt, dw->null_alt); /* its own link, if any, is not followed */
	dw->alt_fd = fd;
	dw->alt_elf = elf;
	dw->alt = alt;
	dw_sections_of(elf, &dw->alt_secs);
	return 1;
}

/* The supplementary file the DWARF names, verified, as libdw's; else the empty one, said. */
static int dw_attach_alt(struct t2f_dwarf *dw, const struct t2f_dwarf_opts *o, struct t2f_diag *d)
{
	char (*paths)[PATH_MAX] = NULL;
	const char *name, *why = "not found";
	const void *id;
	ssize_t len = dwelf_dwarf_gnu_debugaltlink(dw->dbg, &name, &id);
	size_t n = 0;
	int err = dw_null_alt(dw), taken = 0;

	if (err || len <= 0) {
		dwarf_setalt(dw->dbg, dw->null_alt);
		return err;
	}
	if (o->alt_candidates && (paths = malloc(DW_ALT_CANDIDATES * sizeof(*paths))))
		n = o->alt_candidates(o->ctx, dw->path, name, id, (size_t)len, paths,
				      DW_ALT_CANDIDATES);
	for (size_t i = 0; i < n && !taken; i++)
		taken = dw_try_alt(dw, paths[i], id, (size_t)len, o, d, &why);
	free(paths);
	dwarf_setalt(dw->dbg, taken ? dw->alt : dw->null_alt);
	if (!taken)
		t2f_diag__warn(d, dw->path, 0, "supplementary DWARF file %s: %s; names and "
			       "declarations kept there are left out", name, why);
	return 0;
}

/* ---- the chain ---- */

/* The path of a line table row: the unit's file it names. */
static const char *dw_line_path(const struct dw_index *u, Dwarf_Line *line)
{
	Dwarf_Files *files;
	size_t idx;

	if (dwarf_line_file(line, &files, &idx) == 0 && files == u->files && idx < u->n_files)
		return u->paths[idx];
	return dwarf_linesrc(line, NULL, NULL);
}

struct dw_query {
	uint64_t addr;
	struct t2f_dwarf_frame *out;
	size_t max;
	int n;
	uint64_t lo, last;           /* where the chain is the same (dwarf_span.c) */
};

/* Unit u indexed again, every function's inlined calls recorded (its ranges given back to the
 * file's count first). 0 or -ENOMEM. */
static int dw_index_whole(struct t2f_dwarf *dw, struct dw_index *u)
{
	dw->ranges_read -= u->n_ranges < dw->ranges_read ? u->n_ranges : dw->ranges_read;
	t2f_dw_unit_free(u);
	u->state = DW_UNIT_NEW;
	u->whole = true;
	return t2f_dw_index_unit(dw, u);
}

/* The pages the units indexed before touched, given back before unit u's once those units hold
 * DW_IMAGE_HELD bytes of .debug_info: a large file's pages do not pile up as its units are read,
 * and the sections every unit reads (abbreviations, strings, line tables) are not faulted in
 * again for each small unit. A cold whole-machine run's two largest files (libpython, 2,434
 * lookups; 1,305 in another): 207 and 117 ms given back before every unit, 200 and 105 ms with
 * 1 MiB (peak RSS 52.6 -> 54.2 MiB); never given back, 155-188 ms but 64 MiB at the peak. */
#define DW_IMAGE_HELD ((uint64_t)1 << 20)
static void dw_hold_image(struct t2f_dwarf *dw, const struct dw_index *u)
{
	if (dw->image_read && dw->image_read + u->bytes > DW_IMAGE_HELD) {
		t2f_elf_mapped__give_back(&dw->image);
		dw->image_read = 0;
	}
	dw->image_read += u->bytes;
}

static int dw_chain(struct t2f_dwarf *dw, void *arg)
{
	struct dw_query *q = arg;
	struct dw_index *u = t2f_dw_unit_of(dw, q->addr);
	struct t2f_dwarf_frame *out = q->out;
	Dwarf_Line *line;
	uint32_t f;
	size_t n;
	int err, lineno = 0;

	if (!q->max)
		return 0;
	if (u && u->state == DW_UNIT_NEW) {
		dw_hold_image(dw, u);
		if ((err = t2f_dw_index_unit(dw, u)))
			return err;
	}
	if (!u || u->state != DW_UNIT_DONE) {
		t2f_dw_span(dw, u, DW_NONE, q->addr, &q->lo, &q->last);
		return 0;
	}
	f = t2f_dw_innermost(u, q->addr);
	/* an address t2f_dwarf__want did not name, or one of a function not walked */
	if (f != DW_NONE ? u->funcs[f].shallow : u->skipped) {
		if ((err = dw_index_whole(dw, u)))
			return err;
		if (u->state != DW_UNIT_DONE) {
			t2f_dw_span(dw, u, DW_NONE, q->addr, &q->lo, &q->last);
			return 0;
		}
		f = t2f_dw_innermost(u, q->addr);
	}
	for (uint32_t g = f, k = 0; g != DW_NONE && k < q->max; g = u->funcs[g].parent, k++)
		if ((err = t2f_dw_qualify(dw, u, &u->funcs[g])))
			return err;
	line = dw->no_lines ? NULL : dwarf_getsrc_die(&u->cu, q->addr);
	if (line)
		dwarf_lineno(line, &lineno);
	t2f_dw_span(dw, u, f, q->addr, &q->lo, &q->last);
	if (f == DW_NONE && lineno <= 0)
		return 0;
	out[0] = (struct t2f_dwarf_frame){ .name = f != DW_NONE ? u->funcs[f].name : NULL,
					   .linkage = f != DW_NONE && u->funcs[f].linkage,
					   .copy = f != DW_NONE && u->funcs[f].copy,
					   .as_symbol = f != DW_NONE && u->funcs[f].as_symbol,
					   .file = line ? dw_line_path(u, line) : NULL,
					   .line = lineno > 0 ? (uint32_t)lineno : 0 };
	q->n = 1;
	if (f == DW_NONE)
		return 0;
	out[0].fn_file = u->funcs[f].decl_file;
	out[0].fn_line = u->funcs[f].decl_line;
	/* each caller at the line of the call into the level inside it, out to the function */
	for (n = 1; n < q->max && u->funcs[f].inlined && u->funcs[f].parent != DW_NONE; n++) {
		const struct dw_func *in = &u->funcs[f];

		out[n] = (struct t2f_dwarf_frame){ .name = u->funcs[in->parent].name,
						   .linkage = u->funcs[in->parent].linkage,
						   .copy = u->funcs[in->parent].copy,
						   .as_symbol = u->funcs[in->parent].as_symbol,
						   .file = in->call_file != DW_NONE
							   ? u->paths[in->call_file] : NULL,
						   .line = in->call_line,
						   .fn_file = u->funcs[in->parent].decl_file,
						   .fn_line = u->funcs[in->parent].decl_line };
		f = in->parent;
	}
	q->n = (int)n;
	return 0;
}

void t2f_dwarf__want(struct t2f_dwarf *dw, const uint64_t *addrs, size_t n)
{
	dw->want = n ? addrs : NULL;
	dw->n_want = addrs ? n : 0;
}

int t2f_dwarf__lookup(struct t2f_dwarf *dw, uint64_t elf_vaddr, struct t2f_dwarf_frame *out,
		      size_t max)
{
	uint64_t lo, last;

	return t2f_dwarf__lookup_span(dw, elf_vaddr, out, max, &lo, &last);
}

int t2f_dwarf__lookup_span(struct t2f_dwarf *dw, uint64_t elf_vaddr,
			   struct t2f_dwarf_frame *out, size_t max, uint64_t *lo, uint64_t *last)
{
	struct dw_query q = { .addr = elf_vaddr, .out = out, .max = max, .lo = elf_vaddr,
			      .last = elf_vaddr };
	int err;

	*lo = *last = elf_vaddr;
	if (dw->ended)
		return -EINVAL;
	if (dw->pending && (err = t2f_dwarf__begin(dw)))
		return err;
	if (dw->none || dw->broken)
		return 0;
	err = dw_guarded(dw, dw_chain, &q);
	if (err || dw->broken)
		return err ? err : 0;
	*lo = q.lo;
	*last = q.last;
	return q.n;
}

/* ---- the handle ---- */

int t2f_dwarf__report(struct t2f_dwarf *dw, struct t2f_diag *d)
{
	struct t2f_diag *fresh;
	int err;

	if (!t2f_diag__warnings(dw->notes))
		return 0;
	err = t2f_diag__replay(d, dw->notes, 0);
	if (t2f_diag__new_buffered(&fresh) == 0) {
		t2f_diag__free(dw->notes);
		dw->notes = fresh;
	}
	return err;
}

/* Lets go of what the handle holds of the file: the index, libdw's and libelf's state (line
 * tables, units, inflated sections, the mapping) and the descriptors. */
static void dw_release(struct t2f_dwarf *dw)
{
	for (size_t i = 0; i < dw->n_idx; i++)
		t2f_dw_unit_free(&dw->idx[i]);
	free(dw->idx);
	free(dw->units);
	free(dw->walk);
	free(dw->checked);
	t2f_hashmap__free(dw->memo);
	t2f_hashmap__free(dw->qual_memo);
	free(dw->quals);
	t2f_arena__free(dw->arena);
	if (!dw->broken) { /* else libdw's state may be half made: left as it is */
		if (dw->dbg)
			dwarf_end(dw->dbg);
		if (dw->alt)
			dwarf_end(dw->alt);
		if (dw->null_alt)
			dwarf_end(dw->null_alt);
		if (dw->null_elf)
			elf_end(dw->null_elf);
		if (dw->alt_elf)
			elf_end(dw->alt_elf);
		if (dw->elf)
			elf_end(dw->elf);
		t2f_dw_bufs__free(&dw->inflated);
	}
	if (dw->alt_fd >= 0)
		close(dw->alt_fd);
	if (dw->fd >= 0)
		close(dw->fd);
	dw->idx = NULL;
	dw->units = NULL;
	dw->walk = NULL;
	dw->checked = NULL;
	dw->memo = dw->qual_memo = NULL;
	dw->quals = NULL;
	dw->arena = NULL;
	dw->n_idx = dw->n_units = dw->n_checked = dw->n_quals = 0;
	dw->dbg = dw->alt = dw->null_alt = NULL;
	dw->elf = dw->alt_elf = dw->null_elf = NULL;
	dw->fd = dw->alt_fd = -1;
	dw->image = (struct t2f_elf_mapped){ 0, 0 };
	dw->image_read = 0;
}

void t2f_dwarf__end(struct t2f_dwarf *dw)
{
	if (!dw || dw->ended)
		return;
	dw_release(dw);
	dw->ended = true;
}

bool t2f_dwarf__ended(const struct t2f_dwarf *dw)
{
	return dw->ended;
}

void t2f_dwarf__free(struct t2f_dwarf *dw)
{
	if (!dw)
		return;
	dw_release(dw);
	t2f_diag__free(dw->notes);
	free(dw->path);
	free(dw);
}

static int dw_scan(struct t2f_dwarf *dw, void *arg)
{
	(void)arg;
	return t2f_dw_scan_units(dw);
}

/* The file as an ELF file whose debug sections fit the limits (their inflated bytes taken from
 * the budget): 0 (dw->elf NULL: not an ELF file, or refused: warned in d), or -errno (in d). */
static int dw_file(struct t2f_dwarf *dw, const struct t2f_dwarf_opts *o, struct t2f_diag *d)
{
	int err = dw_elf_open(dw->path, &dw->fd, &dw->elf);

	if (err)
		return t2f_diag__error(d, err, dw->path, 0, "cannot open: %s", t2f_strerror(err));
	if (dw->elf && !dw_inflate_fits(dw->elf, dw->path, o->budget, d)) {
		elf_end(dw->elf);
		dw->elf = NULL;
	}
	return 0;
}

/* Whether elf names a supplementary file (.gnu_debugaltlink, DWARF 5 .debug_sup). */
static bool dw_linked(Elf *elf)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return true; /* not known: opened at once, as such a file is */
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (gelf_getshdr(scn, &sh) && (name = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    (strcmp(name, ".gnu_debugaltlink") == 0 || strcmp(name, ".debug_sup") == 0))
			return true;
	}
	return false;
}

/* Whether elf has a .debug_info of its own that libdw takes as it is (not compressed). */
static bool dw_info_plain(Elf *elf)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	bool found = false;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			return false;
		if (strcmp(name, ".zdebug_info") == 0 ||
		    (strcmp(name, ".debug_info") == 0 &&
		     (found || sh.sh_type == SHT_NOBITS || (sh.sh_flags & SHF_COMPRESSED))))
			return false;
		found = found || strcmp(name, ".debug_info") == 0;
	}
	return found;
}

/* Every unit of dbg a compile unit in a plain language (at least one, at most the limit). */
static bool dw_units_plain(Dwarf *dbg)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Half version;
	Dwarf_Die die;
	uint8_t type;
	size_t n = 0;
	int r;

	while ((r = dwarf_get_units(dbg, cu, &cu, &version, &type, &die, NULL)) == 0) {
		if (type != DW_UT_compile || ++n > T2F_DWARF_PLAIN_UNITS ||
		    !t2f_dw_plain_lang(dwarf_srclang(&die)))
			return false;
	}
	return r == 1 && n > 0;
}

bool t2f_dwarf__plain_only(const char *path)
{
	jmp_buf here;
	jmp_buf *volatile outer = dw_oom_at;
	Dwarf *volatile dbg = NULL;
	volatile bool plain = false;
	Elf *elf;
	int fd;

	elf_version(EV_CURRENT);
	if (dw_elf_open(path, &fd, &elf) != 0)
		return false;
	if (elf && !dw_linked(elf) && dw_info_plain(elf)) {
		if (setjmp(here) == 0) {
			dw_oom_at = &here;
			dbg = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
			if (dbg) {
				dwarf_new_oom_handler(dbg, dw_oom);
				plain = dw_units_plain(dbg);
				dwarf_end(dbg);
			}
		} else {
			plain = false; /* out of memory in libdw: its state is left (dw_guarded) */
		}
		dw_oom_at = outer;
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return plain;
}

/* libdw on the file (inflating its compressed debug sections), the supplementary file, the
 * units' ranges: 0 (dw->dbg NULL: no DWARF), or -ENOMEM. Warnings into d. */
static int dw_read(struct t2f_dwarf *dw, const struct t2f_dwarf_opts *o, struct t2f_diag *d)
{
	int err = t2f_dw_inflate(dw->elf, dw->threads, dw->no_lines, &dw->inflated);

	if (err)
		return err;
	dw->dbg = dwarf_begin_elf(dw->elf, DWARF_C_READ, NULL);
	if (!dw->dbg)
		return 0;
	dwarf_new_oom_handler(dw->dbg, dw_oom);
	dw_sections_of(dw->elf, &dw->secs);
	t2f_elf_mapped__find(dw->elf, &dw->image);
	return dw_attach_alt(dw, o, d) ?: dw_guarded(dw, dw_scan, NULL);
}

/* A handle for path, nothing opened. 0 or -ENOMEM (*out may then be a handle to free). */
static int dw_new(const char *path, const struct t2f_dwarf_opts *o, struct t2f_dwarf **out)
{
	struct t2f_dwarf *dw = calloc(1, sizeof(*dw));

	*out = dw;
	if (!dw)
		return -ENOMEM;
	elf_version(EV_CURRENT);
	dw->fd = dw->alt_fd = -1;
	dw->symbol_at = o->symbol_at;
	dw->sym_ctx = o->sym_ctx;
	dw->threads = o->threads;
	dw->no_lines = o->no_lines;
	dw->path = strdup(path);
	return !dw->path ? -ENOMEM : t2f_diag__new_buffered(&dw->notes);
}

/* What the index and lookups keep: 0 or -ENOMEM. */
static int dw_state(struct t2f_dwarf *dw)
{
	dw->walk = malloc(DW_MAX_NESTING * sizeof(*dw->walk));
	return !dw->walk ? -ENOMEM : t2f_arena__new(&dw->arena) ?:
	       t2f_hashmap__new(16, &dw->memo) ?: t2f_hashmap__new(16, &dw->qual_memo);
}

static int dw_open(const char *path, const struct t2f_dwarf_opts *opts, bool lazy,
		   struct t2f_diag *d, struct t2f_dwarf **out)
{
	static const struct t2f_dwarf_opts none;
	const struct t2f_dwarf_opts *o = opts ? opts : &none;
	struct t2f_dwarf *dw;
	int err = dw_new(path, o, &dw) ?: dw_file(dw, o, d);

	*out = NULL;
	if (!err && dw->elf) {
		uint64_t inflated;

		dw_debug_sizes(dw->elf, &inflated, &dw->weight);
	}
	if (!err && dw->elf && lazy && !dw_linked(dw->elf)) {
		/* nothing kept open until __begin: many files may wait at once */
		elf_end(dw->elf);
		close(dw->fd);
		dw->elf = NULL;
		dw->fd = -1;
		dw->pending = true;
		*out = dw;
		return 0;
	}
	if (!err && dw->elf)
		err = dw_state(dw) ?: dw_read(dw, o, d);
	if (dw && dw->notes)
		err = err ?: t2f_dwarf__report(dw, d);
	if (err || !dw->dbg || dw->broken)
		t2f_dwarf__free(dw);
	else
		*out = dw;
	return err;
}

int t2f_dwarf__open(const char *path, const struct t2f_dwarf_opts *opts, struct t2f_diag *d,
		    struct t2f_dwarf **out)
{
	return dw_open(path, opts, false, d, out);
}

int t2f_dwarf__open_lazy(const char *path, const struct t2f_dwarf_opts *opts, struct t2f_diag *d,
			 struct t2f_dwarf **out)
{
	return dw_open(path, opts, true, d, out);
}

int t2f_dwarf__begin(struct t2f_dwarf *dw)
{
	static const struct t2f_dwarf_opts none; /* a file that names no supplementary file */
	int err;

	if (!dw->pending)
		return 0;
	dw->pending = false;
	/* the file again: checked as when it was opened (its budget taken then) */
	err = dw_elf_open(dw->path, &dw->fd, &dw->elf);
	if (err)
		t2f_diag__warn(dw->notes, dw->path, 0, "DWARF left out: cannot open: %s",
			       t2f_strerror(err));
	else if (dw->elf && !dw_inflate_fits(dw->elf, dw->path, NULL, dw->notes))
		dw_release(dw);
	err = err || !dw->elf ? 0 : dw_state(dw) ?: dw_read(dw, &none, dw->notes);
	if (err || !dw->dbg || dw->broken) {
		dw->none = true;
		dw_release(dw);
	}
	return err;
}

bool t2f_dwarf__none(const struct t2f_dwarf *dw)
{
	return dw->none;
}

uint64_t t2f_dwarf__weight(const struct t2f_dwarf *dw)
{
	return dw->weight;
}
