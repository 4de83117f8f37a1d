/* symbolizer/dwarf_span.c: the addresses around a looked-up one over which a lookup gives the
 * same chain (dwarf.h __lookup_span): the same unit, the same innermost function (then the
 * same levels out to the holding function) and the same line table row. */
#include "symbolizer/dwarf_internal.h"

#include <string.h>

/* How many of the n records at base (each `size` bytes, sorted by a leading uint64_t lo) start
 * at or before addr. */
static size_t sp_count_at(const void *base, size_t n, size_t size, uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t start;

		memcpy(&start, (const char *)base + mid * size, sizeof(start));
		if (start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void sp_cut(uint64_t *lo, uint64_t *last, uint64_t from, uint64_t to)
{
	*lo = from > *lo ? from : *lo;
	*last = to < *last ? to : *last;
}

/* The unit search (t2f_dw_unit_of): the last unit range starting at or before addr decides,
 * holding addr or not, until the next one starts. */
static void sp_unit(const struct t2f_dwarf *dw, uint64_t addr, uint64_t *lo, uint64_t *last)
{
	size_t k = sp_count_at(dw->units, dw->n_units, sizeof(*dw->units), addr);
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
	size_t s = sp_count_at(u->starts, u->n_ranges, sizeof(*u->starts), addr);
	uint32_t g, steps = 0;

	if (s < u->n_ranges)
		sp_cut(lo, last, 0, u->starts[s].lo - 1);
	if (!s)
		return f == DW_NONE;
	sp_cut(lo, last, u->starts[s - 1].lo, UINT64_MAX);
	for (g = u->starts[s - 1].func; g != DW_NONE; g = u->funcs[g].parent) {
		const struct dw_func *fn = &u->funcs[g];
		size_t at = sp_count_at(u->own + fn->first, fn->count, sizeof(*u->own), addr);
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

/* The row search (dwarf_getsrc_die) compares addresses with the rows' only: between the last
 * row address at or before addr and the next greater one, it finds the same row (libdw keeps
 * the rows sorted by address). */
static void sp_line(struct dw_index *u, uint64_t addr, uint64_t *lo, uint64_t *last)
{
	Dwarf_Lines *lines;
	size_t n, a = 0, b;
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
		sp_cut(lo, last, at, UINT64_MAX);
	else if (a)
		*lo = *last = addr;
	if (a < n && dwarf_lineaddr(dwarf_onesrcline(lines, a), &at) == 0)
		sp_cut(lo, last, 0, at - 1);
	else if (a < n)
		*lo = *last = addr;
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
	sp_line(u, addr, lo, last);
}
