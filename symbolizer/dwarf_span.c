/* symbolizer/dwarf_span.c: the addresses around a looked-up one over which a lookup gives the
 * same chain (dwarf.h __lookup_span): the same unit, the same innermost function (then the
 * same levels out to the holding function) and the same line table row. */
#include "symbolizer/dwarf_internal.h"

static void sp_cut(uint64_t *lo, uint64_t *last, uint64_t from, uint64_t to)
{
	*lo = from > *lo ? from : *lo;
	*last = to < *last ? to : *last;
}

/* The unit search (t2f_dw_unit_of): the last unit range starting at or before addr decides,
 * holding addr or not, until the next one starts. */
static void sp_unit(const struct t2f_dwarf *dw, uint64_t addr, uint64_t *lo, uint64_t *last)
{
	size_t k = t2f_dw_count_at(dw->units, dw->n_units, sizeof(*dw->units), addr);
	uint64_t next = k < dw->n_units ? dw->units[k].lo - 1 : UINT64_MAX;
	const struct dw_unit *e = k ? &dw->units[k - 1] : NULL;

	if (!e)
		sp_cut(lo, last, 0, next);
	else if (addr >= e->hi)
		sp_cut(lo, last, e->hi, next);
	else
		sp_cut(lo, last, e->lo, e->hi - 1 < next ? e->hi - 1 : next);
}

/* The innermost search (t2f_dw_innermost), which found f: between the last range start at or
 * before addr and the next one, every function's last range starting at or before an address
 * is the same, so the walk up from that start skips the same functions (those whose range ended
 * by addr: they hold nothing from their range's end on) and stops at f while f's range lasts.
 * false when the walk is not the one that found f (past DW_MAX_NESTING). */
static bool sp_func(const struct dw_index *u, uint32_t f, uint64_t addr, uint64_t *lo,
		    uint64_t *last)
{
	size_t s = t2f_dw_count_at(u->starts, u->n_ranges, sizeof(*u->starts), addr);
	uint32_t g, steps = 0;

	if (s < u->n_ranges)
		sp_cut(lo, last, 0, u->starts[s].lo - 1);
	if (!s)
		return f == DW_NONE;
	sp_cut(lo, last, u->starts[s - 1].lo, UINT64_MAX);
	for (g = u->starts[s - 1].func; g != DW_NONE; g = u->funcs[g].parent) {
		const struct dw_func *fn = &u->funcs[g];
		size_t at = t2f_dw_count_at(u->own + fn->first, fn->count, sizeof(*u->own), addr);
		const struct dw_span *r = at ? &u->own[fn->first + at - 1] : NULL;

		if (r && addr < r->hi) {
			sp_cut(lo, last, r->lo, r->hi - 1);
			break;
		}
		if (steps++ >= DW_MAX_NESTING)
			return false;
		if (r)
			sp_cut(lo, last, r->hi, UINT64_MAX);
	}
	return g == f;
}

#define SP_ROW_GROUPS 256  /* rows of one address looked at each way when widening */

struct sp_row {                  /* what a lookup takes from a line table row */
	uint64_t at;
	bool end;                    /* an end of sequence: no line */
	int line;
	Dwarf_Files *files;
	size_t file;
};

static bool sp_row(Dwarf_Lines *lines, size_t i, struct sp_row *r)
{
	Dwarf_Line *l = dwarf_onesrcline(lines, i);
	Dwarf_Addr at;

	*r = (struct sp_row){ 0 };
	if (!l || dwarf_lineaddr(l, &at) != 0 || dwarf_lineendsequence(l, &r->end) != 0)
		return false;
	r->at = at;
	return r->end || (dwarf_lineno(l, &r->line) == 0 &&
			  dwarf_line_file(l, &r->files, &r->file) == 0);
}

/* Whether the rows of one address from i on (step +1 or -1 within [0, n)) all give ref's
 * line; *next: the first index past them. */
static bool sp_group_same(Dwarf_Lines *lines, size_t n, size_t i, int step,
			  const struct sp_row *ref, size_t *next)
{
	struct sp_row r;
	uint64_t at = 0;

	for (size_t k = i; k < n; k += (size_t)step) {
		if (!sp_row(lines, k, &r))
			return false;
		if (k != i && r.at != at) {
			*next = k;
			return true;
		}
		at = r.at;
		if (r.end || r.line != ref->line || r.files != ref->files || r.file != ref->file)
			return false;
	}
	*next = step < 0 ? SIZE_MAX : n;
	return true;
}

/* [*from, *to], the addresses of row a - 1 (the one found), widened over the neighbouring rows
 * that give the same line (the same file and number; rows differ in columns, views, statement
 * marks too), as far as [lo, last] (what the other cuts left) reaches. Any of the rows of one
 * address may be the one found: all of them must agree. */
static void sp_widen(Dwarf_Lines *lines, size_t n, size_t a, uint64_t lo, uint64_t last,
		     uint64_t *from, uint64_t *to)
{
	struct sp_row ref, r;
	size_t down, up = a;

	if (!sp_row(lines, a - 1, &ref) || ref.end ||
	    !sp_group_same(lines, n, a - 1, -1, &ref, &down))
		return;
	for (int g = 0; g < SP_ROW_GROUPS && down != SIZE_MAX && *from > lo; g++) {
		if (!sp_row(lines, down, &r) || !sp_group_same(lines, n, down, -1, &ref, &down))
			break;
		*from = r.at;
	}
	for (int g = 0; g < SP_ROW_GROUPS && up < n && *to < last; g++) {
		if (!sp_group_same(lines, n, up, 1, &ref, &up) || (up < n && !sp_row(lines, up, &r)))
			break;
		*to = up < n ? r.at - 1 : UINT64_MAX;
	}
}

/* The row search (dwarf_getsrc_die) compares addresses with the rows' only: between the last
 * row address at or before addr and the next greater one, it finds the same row (libdw keeps
 * the rows sorted by address); then the rows around that give the same line. */
static void sp_line(struct dw_index *u, uint64_t addr, uint64_t *lo, uint64_t *last)
{
	Dwarf_Lines *lines;
	size_t n, a = 0, b;
	uint64_t from = 0, to = UINT64_MAX;
	Dwarf_Addr at;

	if (dwarf_getsrclines(&u->cu, &lines, &n) != 0 || !n)
		return;
	b = n;
	while (a < b) {  /* a: the rows at or before addr */
		size_t mid = a + (b - a) / 2;

		if (dwarf_lineaddr(dwarf_onesrcline(lines, mid), &at) != 0) {
			*lo = *last = addr;
			return;
		}
		if (at <= addr)
			a = mid + 1;
		else
			b = mid;
	}
	if (a && dwarf_lineaddr(dwarf_onesrcline(lines, a - 1), &at) == 0)
		from = at;
	else if (a)
		from = to = addr;
	if (a < n && dwarf_lineaddr(dwarf_onesrcline(lines, a), &at) == 0)
		to = at - 1;
	else if (a < n)
		from = to = addr;
	if (a && from != to)
		sp_widen(lines, n, a, *lo, *last, &from, &to);
	sp_cut(lo, last, from, to);
}

void t2f_dw_span(struct t2f_dwarf *dw, struct dw_index *u, uint32_t f, uint64_t addr,
		 uint64_t *lo, uint64_t *last)
{
	*lo = 0;
	*last = UINT64_MAX;
	sp_unit(dw, addr, lo, last);
	if (!u)
		return;
	if (u->state != DW_UNIT_DONE || !sp_func(u, f, addr, lo, last)) {
		*lo = *last = addr;  /* a unit left out may be read in another run */
		return;
	}
	if (!dw->no_lines)
		sp_line(u, addr, lo, last);
}
