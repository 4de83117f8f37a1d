/* symbolizer/elf_pages.c: the pages of a module's symbol and string tables given back to the
 * kernel once its index holds what lookups need.
 *
 * libelf maps the file read-only and private (elf_module.c: ELF_C_READ_MMAP), and building an
 * index reads every record and many names: on a whole-machine recording about a hundred files'
 * tables, 11 MB of resident file pages, held until the end although a lookup then reads only
 * the names of its hits. MADV_DONTNEED drops those pages from this process; a later read
 * faults them in again from the file (the page cache keeps them), unchanged. Only whole pages
 * of a mapping /proc/self/maps shows as a file's and not writable are given back, so no byte
 * can be lost: never a decoded table (ours), nor a file libelf read into memory when it could
 * not map it. Without /proc, nothing is given back. An index built marks its module's tables
 * held (elf_index.c) and its owner gives back those of many modules at once, reading
 * /proc/self/maps once for all of them (the symbolizer: a few modules at a time, then every
 * module's at the end of its lookups, when the names the hits faulted in go too).
 */
#include "symbolizer/elf_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "formats/mem.h"

struct span {
	uintptr_t lo, hi;            /* whole pages: [lo, hi) */
};

/* The whole pages of [p, p + n). */
static struct span page_span(const void *p, size_t n, uintptr_t page)
{
	uintptr_t a = (uintptr_t)p, lo = (a + page - 1) & ~(page - 1);
	uintptr_t hi = a + n < a ? 0 : (a + n) & ~(page - 1);

	return (struct span){ lo, p && lo < hi ? hi : lo };
}

/* Gives back each span of s[0..n) that lies inside one read-only file mapping. */
static void give_back(struct span *s, size_t n)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		uintptr_t lo, hi;
		char perms[5];
		unsigned long long inode = 0;

		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %4s %*s %*s %llu", &lo, &hi, perms,
			   &inode) != 4 || perms[1] != '-' || inode == 0)
			continue;
		for (size_t i = 0; i < n; i++)
			if (s[i].lo < s[i].hi && s[i].lo >= lo && s[i].hi <= hi) {
				madvise((void *)s[i].lo, s[i].hi - s[i].lo, MADV_DONTNEED);
				s[i].hi = s[i].lo; /* done */
			}
	}
	fclose(f);
}

/* The whole pages of m's tables that may lie in libelf's mapping, appended to s; their count. */
static size_t table_spans(const struct t2f_elf_module *m, struct span *s, uintptr_t page)
{
	size_t n = 0;

	for (unsigned i = 0; i < m->n_tables; i++) {
		const struct t2f_elf_table *t = &m->tables[i];
		size_t rec = t->is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);

		if (t->mini)  /* decoded from .gnu_debugdata: our memory */
			continue;
		if (!t->own_syms && t->count <= SIZE_MAX / rec)
			s[n++] = page_span(t->syms, t->count * rec, page);
		if (!t->own_strs)
			s[n++] = page_span(t->strs, t->str_size, page);
	}
	return n;
}

size_t t2f_elf_module__table_bytes(const struct t2f_elf_module *m)
{
	struct span s[2 * T2F_ELF_MAX_TABLES];
	size_t n = table_spans(m, s, 1), bytes = 0;

	for (size_t i = 0; i < n; i++)
		bytes += s[i].hi - s[i].lo;
	return bytes;
}

/* The spans s[0..n) given back (give_back marks them lo == hi), or every one empty. */
static bool all_given(const struct span *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i].lo < s[i].hi)
			return false;
	return true;
}

/* Gives back the table spans of mods[0..n): those of a module found in the mapping before
 * directly, the others after one read of /proc/self/maps for them all (a module all of whose
 * spans it finds is then known). s has room for every module's spans; at[] for n + 1 starts. */
static void release_spans(struct t2f_elf_module *const *mods, size_t n, struct span *s,
			  size_t *at, uintptr_t page)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		size_t j = k;

		at[i] = k;
		if (mods[i]->tables_state > 0)
			k += table_spans(mods[i], s + k, page);
		if (mods[i]->tables_mapped) {
			for (; j < k; j++)
				if (s[j].lo < s[j].hi)
					madvise((void *)s[j].lo, s[j].hi - s[j].lo, MADV_DONTNEED);
			k = at[i];
		}
		mods[i]->tables_held = false;
	}
	at[n] = k;
	if (k)
		give_back(s, k);
	for (size_t i = 0; i < n; i++) /* unknown before, all found now */
		if (!mods[i]->tables_mapped && at[i] < at[i + 1])
			mods[i]->tables_mapped = all_given(s + at[i], at[i + 1] - at[i]);
}

void t2f_elf_modules__release_tables(struct t2f_elf_module *const *mods, size_t n)
{
	struct span one[2 * T2F_ELF_MAX_TABLES], *s = one;
	size_t one_at[2], *at = one_at;
	uintptr_t page = (uintptr_t)t2f_mem__page_size();

	if (n > 1 && (n > SIZE_MAX / sizeof(one) - 1 || !(s = malloc(n * sizeof(one))) ||
		      !(at = malloc((n + 1) * sizeof(*at))))) {
		if (s != one)
			free(s);
		for (size_t i = 0; i < n; i++)  /* no room for one batch: one module at a time */
			t2f_elf_modules__release_tables(&mods[i], 1);
		return;
	}
	if (n)
		release_spans(mods, n, s, at, page);
	if (s != one) {
		free(s);
		free(at);
	}
}

/* The whole pages of the image libelf holds of m's file. */
static struct span image_span(Elf *e, uintptr_t page)
{
	size_t n = 0;
	const char *raw = e ? elf_rawfile(e, &n) : NULL;

	return page_span(raw, raw ? n : 0, page);
}

/* Each file's image, and the tables of a module not known to lie in the mapping (which the
 * same read of /proc/self/maps then tells, as release_spans does). */
void t2f_elf_modules__release_files(struct t2f_elf_module *const *mods, size_t n)
{
	uintptr_t page = (uintptr_t)t2f_mem__page_size();
	struct span *s = n <= SIZE_MAX / sizeof(*s) / (1 + 2 * T2F_ELF_MAX_TABLES) - 1 ?
				 malloc((n + 1) * (1 + 2 * T2F_ELF_MAX_TABLES) * sizeof(*s)) : NULL;
	size_t *at = malloc((n + 1) * sizeof(*at)), k = 0;

	if (!s || !at) {
		free(s);
		free(at);
		t2f_elf_modules__release_tables(mods, n);
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (mods[i]->elf)
			s[k++] = image_span(mods[i]->elf, page);
	for (size_t i = 0; i < n; i++) {
		at[i] = k;
		if (!mods[i]->tables_mapped && mods[i]->tables_state > 0)
			k += table_spans(mods[i], s + k, page);
		mods[i]->tables_held = false;
	}
	at[n] = k;
	if (k)
		give_back(s, k);
	for (size_t i = 0; i < n; i++) /* unknown before, all found now */
		if (at[i] < at[i + 1])
			mods[i]->tables_mapped = all_given(s + at[i], at[i + 1] - at[i]);
	free(s);
	free(at);
}

void t2f_elf_mapped__find(struct Elf *e, struct t2f_elf_mapped *img)
{
	struct span s = image_span(e, (uintptr_t)t2f_mem__page_size()), in = s;
	FILE *f = s.lo < s.hi ? fopen("/proc/self/maps", "re") : NULL;
	char line[512];

	*img = (struct t2f_elf_mapped){ 0, 0 };
	while (f && fgets(line, sizeof(line), f)) {
		uintptr_t lo, hi;
		char perms[5];
		unsigned long long inode = 0;

		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %4s %*s %*s %llu", &lo, &hi, perms,
			   &inode) == 4 && perms[1] == '-' && inode != 0 && in.lo >= lo && in.hi <= hi) {
			*img = (struct t2f_elf_mapped){ in.lo, in.hi };
			break;
		}
	}
	if (f)
		fclose(f);
}

void t2f_elf_mapped__give_back(const struct t2f_elf_mapped *img)
{
	if (img->lo < img->hi)
		madvise((void *)img->lo, img->hi - img->lo, MADV_DONTNEED);
}

void t2f_elf_module__release_tables(struct t2f_elf_module *m)
{
	t2f_elf_modules__release_tables(&m, 1);
}

bool t2f_elf_module__tables_held(const struct t2f_elf_module *m)
{
	return m->tables_held;
}

bool t2f_elf_module__tables_mapped(const struct t2f_elf_module *m)
{
	return m->tables_mapped;
}
