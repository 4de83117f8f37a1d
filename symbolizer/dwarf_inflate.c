/* symbolizer/dwarf_inflate.c: a file's compressed debug sections inflated before libdw opens it
 * (dwarf_internal.h: t2f_dw_inflate).
 *
 * dwarf_begin_elf inflates every compressed section whose name it knows, one after the other
 * with zlib (libelf's elf_compress), the ones no lookup here reads as well. Done here instead:
 *  - the sections lookups read (units, abbreviations, lines, strings, ranges, addresses) are
 *    inflated by formats/inflate.h (igzip when it loads) on up to `threads` threads, the
 *    largest first, and handed to libelf as the section's data, its header saying it is no
 *    longer compressed: libdw then takes them as they are (it inflates only what the header
 *    still calls compressed, and asks libelf for the data it already holds);
 *  - zstd sections too, which libelf 0.188 refuses (libdw would go without them: no DWARF);
 *  - location lists, call frames, macros and public names, which no lookup reads (15% of the
 *    compressed bytes of Debian's libc debug file), are left out: handed over empty, libdw
 *    skips them as it skips an empty section. So is the line table for lookups that read no
 *    line (no_lines: 1.3 of the 8.6 MB inflated from that file).
 * A section that does not inflate (corrupt, another size than declared) is left as it was:
 * libdw fails on it as it would have. The sizes were checked against the limits before
 * (dwarf.c: dw_inflate_fits), from the same headers. libelf is called on the calling thread
 * only; the other threads only inflate.
 */
#include "symbolizer/dwarf_internal.h"

#include <elf.h>
#include <errno.h>
#include <gelf.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "formats/inflate.h"

#define DWI_MAX_THREADS 8
#define DWI_THREAD_MIN (256u << 10) /* compressed bytes worth a thread of their own */

/* The names libdw 0.188 looks for (libdw/dwarf_begin_elf.c), less .gnu_debugaltlink: read by
 * lookups (inflated) or not (left out). */
static const char *const dwi_read[] = {
	".debug_info", ".debug_types", ".debug_abbrev", ".debug_aranges", ".debug_addr",
	".debug_line", ".debug_line_str", ".debug_str", ".debug_str_offsets", ".debug_ranges",
	".debug_rnglists",
};
static const char *const dwi_unread[] = {
	".debug_frame", ".debug_loc", ".debug_loclists", ".debug_pubnames", ".debug_macinfo",
	".debug_macro",
};

struct dwi_job {
	Elf_Scn *scn;
	GElf_Shdr sh;                /* its header, and the data libdw will be given */
	Elf_Data *d;
	const unsigned char *in;     /* the stream after the compression header */
	size_t n;
	uint32_t type;               /* ELFCOMPRESS_* */
	uint64_t size, align;        /* what the header declares */
	void *out;
	int err;
};

struct dwi_run {
	struct dwi_job *jobs;        /* largest first */
	size_t n;
	atomic_size_t next;
};

static bool dwi_named(const char *name, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(name, list[i]) == 0)
			return true;
	return false;
}

static void dwi_one(struct dwi_job *j)
{
	j->out = malloc(j->size ? j->size : 1);
	if (!j->out) {
		j->err = -ENOMEM;
		return;
	}
	j->err = j->type == ELFCOMPRESS_ZLIB ? t2f_inflate__zlib(j->in, j->n, j->out, j->size, false)
					     : t2f_inflate__zstd(j->in, j->n, j->out, j->size);
	if (j->err) {
		free(j->out);
		j->out = NULL;
	}
}

static void *dwi_worker(void *arg)
{
	struct dwi_run *r = arg;
	size_t i;

	while ((i = atomic_fetch_add(&r->next, 1)) < r->n)
		dwi_one(&r->jobs[i]);
	return NULL;
}

/* Every job, on this thread and up to threads - 1 more (fewer for few bytes). */
static void dwi_run_all(struct dwi_run *r, unsigned threads, uint64_t bytes)
{
	pthread_t t[DWI_MAX_THREADS];
	unsigned n = 0, want = threads > DWI_MAX_THREADS ? DWI_MAX_THREADS : threads;

	if (want > r->n)
		want = (unsigned)r->n;
	if (want > 1 + bytes / DWI_THREAD_MIN)
		want = (unsigned)(1 + bytes / DWI_THREAD_MIN);
	atomic_init(&r->next, 0);
	while (n + 1 < want && pthread_create(&t[n], NULL, dwi_worker, r) == 0)
		n++;
	dwi_worker(r);
	while (n)
		pthread_join(t[--n], NULL);
}

static int dwi_by_size(const void *a, const void *b)
{
	const struct dwi_job *x = a, *y = b;

	return x->n < y->n ? 1 : x->n > y->n ? -1 : 0;
}

/* The header says the section holds d (its data now). */
static void dwi_hand_over(Elf_Scn *scn, GElf_Shdr *sh, Elf_Data *d, void *buf, uint64_t size,
			  uint64_t align)
{
	d->d_buf = buf;
	d->d_size = size;
	d->d_type = ELF_T_BYTE;
	d->d_align = align ? align : 1;
	sh->sh_flags &= ~(GElf_Xword)SHF_COMPRESSED;
	sh->sh_size = size;
	sh->sh_addralign = d->d_align;
	gelf_update_shdr(scn, sh);
}

/* A compressed section libdw would read: a job (*job set, true), left out (handed over empty),
 * or left alone (not compressed in a way known here, unknown name, in a group). */
static bool dwi_take(Elf *elf, size_t shstrndx, Elf_Scn *scn, bool no_lines,
		     struct dwi_job *job)
{
	GElf_Shdr sh;
	GElf_Chdr ch;
	Elf_Data *raw, *d;
	const char *name;
	size_t hsize = gelf_fsize(elf, ELF_T_CHDR, 1, EV_CURRENT);
	bool read, unread;

	if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_COMPRESSED) || (sh.sh_flags & SHF_GROUP) ||
	    sh.sh_type == SHT_NOBITS || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
		return false;
	read = dwi_named(name, dwi_read, sizeof(dwi_read) / sizeof(*dwi_read));
	unread = dwi_named(name, dwi_unread, sizeof(dwi_unread) / sizeof(*dwi_unread)) ||
		 (no_lines && strcmp(name, ".debug_line") == 0);
	if ((!read && !unread) || !gelf_getchdr(scn, &ch) ||
	    (ch.ch_type != ELFCOMPRESS_ZLIB && ch.ch_type != ELFCOMPRESS_ZSTD) ||
	    !(raw = elf_rawdata(scn, NULL)) || !raw->d_buf || raw->d_size < hsize ||
	    !(d = elf_getdata(scn, NULL)))
		return false;
	if (unread) {
		dwi_hand_over(scn, &sh, d, d->d_buf, 0, ch.ch_addralign);
		return false;
	}
	*job = (struct dwi_job){ .scn = scn, .sh = sh, .d = d,
				 .in = (const unsigned char *)raw->d_buf + hsize,
				 .n = raw->d_size - hsize, .type = ch.ch_type, .size = ch.ch_size,
				 .align = ch.ch_addralign };
	return true;
}

static void dwi_keep(struct dwi_job *j, struct t2f_dw_bufs *keep)
{
	if (!j->out)
		return;
	keep->p[keep->n++] = j->out;
	dwi_hand_over(j->scn, &j->sh, j->d, j->out, j->size, j->align);
}

int t2f_dw_inflate(Elf *elf, unsigned threads, bool no_lines, struct t2f_dw_bufs *keep)
{
	struct dwi_run r = { 0 };
	Elf_Scn *scn = NULL;
	size_t shstrndx, nscn, cap;
	uint64_t bytes = 0;
	void **grown;
	int err = 0;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0 || elf_getshdrnum(elf, &nscn) != 0 || !nscn)
		return 0;
	cap = nscn < 64 ? nscn : 64; /* libdw reads 18 names; a file may repeat them */
	if (!(r.jobs = calloc(cap, sizeof(*r.jobs))))
		return -ENOMEM;
	while ((scn = elf_nextscn(elf, scn)) && r.n < cap)
		if (dwi_take(elf, shstrndx, scn, no_lines, &r.jobs[r.n]))
			bytes += r.jobs[r.n++].n;
	if (!r.n)
		goto out;
	if (!(grown = realloc(keep->p, (keep->n + r.n) * sizeof(*keep->p)))) {
		err = -ENOMEM;
		goto out;
	}
	keep->p = grown;
	qsort(r.jobs, r.n, sizeof(*r.jobs), dwi_by_size);
	dwi_run_all(&r, threads, bytes);
	for (size_t i = 0; i < r.n; i++) {
		if (r.jobs[i].err == -ENOMEM)
			err = -ENOMEM;
		dwi_keep(&r.jobs[i], keep);
	}
out:
	free(r.jobs);
	return err;
}

void t2f_dw_bufs__free(struct t2f_dw_bufs *b)
{
	for (size_t i = 0; i < b->n; i++)
		free(b->p[i]);
	free(b->p);
	b->p = NULL;
	b->n = 0;
}
