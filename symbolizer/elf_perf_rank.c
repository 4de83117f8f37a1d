/* symbolizer/elf_perf_rank.c: what perf's choice among symbols at one start reads of their
 * names, read once per symbol in string-table order.
 *
 * choose_best_symbol (elf_perf_rules.c) ends on the names as perf demangles them: fewer leading
 * '_', then the longer, then not "SyS". On a large C++ file most symbols share their start with
 * another (h11.data: /usr/bin/node, 82K comparisons over 69K starts): compared pair by pair,
 * the names were read all over its 7.5 MB string table, whose pages (a fault maps 64 KiB or a
 * whole large folio) then all stayed resident until the index was built. Here each symbol at a
 * shared start has its rank worked out once, a window of the table at a time, the table's pages
 * given back after each window.
 */
#include "symbolizer/elf_internal.h"
#include "symbolizer/demangle.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define RANK_WINDOW_SHIFT 20 /* string table bytes whose names are read between givings back */

/* The rank of one name (demangled when it is mangled). */
static struct t2f_elf_name_rank rank_of(const char *raw)
{
	char *d = t2f_demangle(raw, T2F_DEMANGLE_NO_PARAMS);
	const char *s = d ? d : raw;
	size_t under = strspn(s, "_"), len = strlen(s);
	struct t2f_elf_name_rank r = {
		.len = len > UINT32_MAX ? UINT32_MAX : (uint32_t)len,
		.under = under > INT32_MAX ? INT32_MAX : (uint32_t)under,
		.sys = strncmp(s, "SyS", 3) == 0 || strncmp(s, "compat_SyS", 10) == 0,
	};

	free(d);
	return r;
}

bool t2f_elf_name_rank__first(const struct t2f_elf_name_rank *a,
			      const struct t2f_elf_name_rank *b)
{
	if (a->under != b->under)
		return a->under < b->under;
	if (a->len != b->len)
		return a->len > b->len;
	return !a->sys;
}

/* Whether the entry at i of the ordered array shares its start with a neighbour. */
static bool shared_start(const struct t2f_elf_pflat *f, size_t i)
{
	return (i > 0 && f->ents[i - 1].start == f->ents[i].start) ||
	       (i + 1 < f->n && f->ents[i + 1].start == f->ents[i].start);
}

/* The windows' numbering: table ti's windows start at first[ti]; *count of them in all. */
static void windows(const struct t2f_elf_module *m, size_t *first, size_t *count)
{
	size_t k = 0;

	for (unsigned ti = 0; ti < m->n_tables; ti++) {
		first[ti] = k;
		k += (m->tables[ti].str_size >> RANK_WINDOW_SHIFT) + 1;
	}
	*count = k;
}

/* The window payload i's name starts in. */
static size_t window_of(const struct t2f_elf_module *m, const size_t *first, uint32_t i)
{
	const struct t2f_elf_pinfo *p = &m->pinfo[i];
	const struct t2f_elf_table *t = &m->tables[p->table];
	size_t off = p->name < t->str_size ? p->name : t->str_size;

	return first[p->table] + (off >> RANK_WINDOW_SHIFT);
}

/* The payloads at shared starts, grouped by window (a counting sort): at[w]..at[w + 1] in
 * syms. 0 or -ENOMEM. */
static int group(const struct t2f_elf_module *m, const size_t *first, size_t nw, size_t *at,
		 uint32_t **syms)
{
	const struct t2f_elf_pflat *f = &m->pflat;
	size_t k = 0;

	memset(at, 0, (nw + 1) * sizeof(*at));
	for (size_t i = 0; i < f->n; i++)
		if (shared_start(f, i)) {
			at[window_of(m, first, f->ents[i].sym) + 1]++;
			k++;
		}
	*syms = malloc((k ? k : 1) * sizeof(**syms));
	if (!*syms)
		return -ENOMEM;
	for (size_t w = 0; w < nw; w++)
		at[w + 1] += at[w];
	for (size_t i = 0; i < f->n; i++)
		if (shared_start(f, i)) {
			size_t w = window_of(m, first, f->ents[i].sym);

			(*syms)[at[w]++] = f->ents[i].sym;
		}
	for (size_t w = nw; w > 0; w--) /* at[w] ended where window w starts: back one */
		at[w] = at[w - 1];
	at[0] = 0;
	return 0;
}

int t2f_elf_perf_rank_names(struct t2f_elf_module *m, size_t n, struct t2f_elf_name_rank **out)
{
	size_t first[T2F_ELF_MAX_TABLES], nw, *at;
	uint32_t *syms = NULL;
	bool big;
	int err;

	*out = NULL;
	windows(m, first, &nw);
	big = nw > m->n_tables; /* a table of more than one window */
	at = malloc((nw + 1) * sizeof(*at));
	*out = malloc((n ? n : 1) * sizeof(**out));
	err = at && *out ? group(m, first, nw, at, &syms) : -ENOMEM;
	for (size_t w = 0; !err && w < nw; w++) {
		for (size_t j = at[w]; j < at[w + 1]; j++)
			(*out)[syms[j]] = rank_of(t2f_elf_pinfo__name(m, syms[j]));
		if (big && at[w] < at[w + 1]) /* the pages read: only a file mapping's go */
			t2f_elf_module__release_tables(m);
	}
	free(at);
	free(syms);
	if (err) {
		free(*out);
		*out = NULL;
	}
	return err;
}
