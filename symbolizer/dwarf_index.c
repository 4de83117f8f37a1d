/* symbolizer/dwarf_index.c: a file's units by address, and one unit's functions, inlined calls
 * and their ranges, indexed on first use within the limits of dwarf.h. */
#include "symbolizer/dwarf_internal.h"

#include <dwarf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/grow.h"
#include "formats/plural.h"

size_t t2f_dw_count_at(const void *base, size_t n, size_t size, uint64_t addr)
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

/* ---- units ---- */

static int dw_add_unit(struct t2f_dwarf *dw, uint32_t index, uint64_t lo, uint64_t hi)
{
	int err;

	if (lo >= hi)
		return 0;
	err = t2f_grow((void **)&dw->units, &dw->cap_units, dw->n_units, 1, sizeof(*dw->units),
		       64, T2F_DWARF_UNIT_SPANS_MAX);
	if (!err)
		dw->units[dw->n_units++] = (struct dw_unit){ .lo = lo, .hi = hi, .index = index };
	return err;
}

static int dw_unit_cmp(const void *a, const void *b)
{
	const struct dw_unit *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* One unit and its ranges. */
static int dw_scan_unit(struct t2f_dwarf *dw, Dwarf_Die *cu, uint64_t bytes)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t r = 0;
	size_t kept = 0;
	uint32_t index = (uint32_t)dw->n_idx;
	int err = t2f_grow((void **)&dw->idx, &dw->cap_idx, dw->n_idx, 1, sizeof(*dw->idx), 64,
			   T2F_DWARF_UNITS_MAX);

	if (!err)
		dw->idx[dw->n_idx++] = (struct dw_index){ .cu = *cu, .bytes = bytes };
	while (!err && kept < DW_MAX_DIE_RANGES && (r = dwarf_ranges(cu, r, &base, &lo, &hi)) > 0) {
		err = dw_add_unit(dw, index, lo, hi);
		kept++;
	}
	return err;
}

/* Every unit's address ranges, once; past a limit, the units left are left out, said once. */
int t2f_dw_scan_units(struct t2f_dwarf *dw)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	int err = 0;

	while (!err && dwarf_nextcu(dw->dbg, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(dw->dbg, off + hsize, &cu))
			err = dw_scan_unit(dw, &cu, next > off ? next - off : 0);
		off = next;
	}
	if (err == -T2F_ERR_LIMIT) {
		err = t2f_diag__warn(dw->notes, dw->path, 0, "DWARF units left out from unit 0x%llx "
				     "on: over the limits of %u units and %u unit address ranges "
				     "per file", (unsigned long long)off, T2F_DWARF_UNITS_MAX,
				     T2F_DWARF_UNIT_SPANS_MAX);
	}
	if (!err && dw->n_units)
		qsort(dw->units, dw->n_units, sizeof(*dw->units), dw_unit_cmp);
	return err;
}

/* The unit whose range holds addr, or NULL. Ranges of units do not overlap in sane DWARF; in
 * other DWARF the latest-starting one is taken. */
struct dw_index *t2f_dw_unit_of(struct t2f_dwarf *dw, uint64_t addr)
{
	size_t lo = t2f_dw_count_at(dw->units, dw->n_units, sizeof(*dw->units), addr);

	if (lo == 0 || addr >= dw->units[lo - 1].hi)
		return NULL;
	return &dw->idx[dw->units[lo - 1].index];
}

/* ---- one unit's index ---- */

static const char *dw_str_attr(Dwarf_Die *die, unsigned name)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(die, name, &a) ? dwarf_formstring(&a) : NULL;
}

/* The linkage name (*linkage set), else DW_AT_name, through the abstract origin and the
 * specification; NULL when longer than T2F_DWARF_NAME_MAX (counted). */
static const char *dw_name(struct t2f_dwarf *dw, Dwarf_Die *die, bool *linkage)
{
	const char *n = dw_str_attr(die, DW_AT_linkage_name);

	if (!n)
		n = dw_str_attr(die, DW_AT_MIPS_linkage_name);
	*linkage = n != NULL;
	if (!n)
		n = dw_str_attr(die, DW_AT_name);
	if (n && strnlen(n, T2F_DWARF_NAME_MAX + 1) > T2F_DWARF_NAME_MAX) {
		dw->long_names++;
		return NULL;
	}
	return n;
}

bool t2f_dw_plain_lang(int lang)
{
	switch (lang) {
	case DW_LANG_C89:
	case DW_LANG_C:
	case DW_LANG_C99:
	case DW_LANG_C11:
	case DW_LANG_UPC:
	case DW_LANG_Cobol74:
	case DW_LANG_Cobol85:
	case DW_LANG_Fortran77:
	case DW_LANG_Pascal83:
	case DW_LANG_PLI:
	case DW_LANG_Mips_Assembler:
		return true;
	default:
		return false;
	}
}

/* Whether a unit's language nests no function in another but through GNU C's nested
 * functions: C and assembler (Pascal and PL/I nest procedures, C++ local classes and lambdas). */
static bool dw_flat_lang(int lang)
{
	switch (lang) {
	case DW_LANG_C89:
	case DW_LANG_C:
	case DW_LANG_C99:
	case DW_LANG_C11:
	case DW_LANG_Mips_Assembler:
		return true;
	default:
		return false;
	}
}

static uint64_t dw_udata(Dwarf_Die *die, unsigned name)
{
	Dwarf_Attribute a;
	Dwarf_Word v = 0;

	if (!dwarf_attr(die, name, &a) || dwarf_formudata(&a, &v) != 0)
		return 0;
	return v;
}

/* The function's declaration (through the abstract origin and the specification): its file,
 * as the unit's paths give it when the attribute is the unit's own, else through the unit that
 * holds it when its line table may be read, and its line. Neither without line tables. */
static const char *dw_decl(struct t2f_dwarf *dw, const struct dw_index *u, Dwarf_Die *die,
			   uint32_t *line)
{
	Dwarf_Attribute a;
	Dwarf_Word v;
	int ln = 0;

	*line = 0;
	if (dw->no_lines)
		return NULL;
	*line = dwarf_decl_line(die, &ln) == 0 && ln > 0 ? (uint32_t)ln : 0;
	if (!dwarf_attr_integrate(die, DW_AT_decl_file, &a) || dwarf_formudata(&a, &v) != 0)
		return NULL;
	if (a.cu == u->cu.cu)
		return v < u->n_files ? u->paths[v] : NULL;
	return t2f_dw_foreign_ok(dw, a.cu) ? dwarf_decl_file(die) : NULL;
}

/* Room for one more range of the unit, within the unit's and the file's limits. */
static int dw_room(struct t2f_dwarf *dw, struct dw_index *u)
{
	if (dw->ranges_read >= T2F_DWARF_FILE_RANGES_MAX)
		return -T2F_ERR_LIMIT;
	dw->ranges_read++;
	return t2f_grow((void **)&u->own, &u->cap_ranges, u->n_ranges, 1, sizeof(*u->own), 64,
			T2F_DWARF_UNIT_RANGES_MAX);
}

static int dw_span_cmp(const void *a, const void *b)
{
	const struct dw_span *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* A subprogram or inlined subroutine: recorded with its ranges (sorted) when it has code.
 * *rec: its index, or DW_NONE when it has no code. */
static int dw_add_func(struct t2f_dwarf *dw, struct dw_index *u, Dwarf_Die *die, bool inlined,
		       uint32_t parent, uint32_t depth, uint32_t *rec)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t r = 0;
	size_t before = u->n_ranges, kept = 0;
	uint32_t id = (uint32_t)u->n_funcs;
	struct dw_func *f;
	bool linkage;
	uint64_t file;
	int err = 0;

	*rec = DW_NONE;
	while (!err && kept < DW_MAX_DIE_RANGES && (r = dwarf_ranges(die, r, &base, &lo, &hi)) > 0) {
		if (lo < hi && !(err = dw_room(dw, u)))
			u->own[u->n_ranges++] = (struct dw_span){ lo, hi };
		kept++;
	}
	if (err || u->n_ranges == before)
		return err;
	qsort(u->own + before, u->n_ranges - before, sizeof(*u->own), dw_span_cmp);
	err = t2f_grow((void **)&u->funcs, &u->cap_funcs, u->n_funcs, 1, sizeof(*u->funcs), 64,
		       UINT32_MAX - 1);
	if (err)
		return err;
	file = inlined && !dw->no_lines ? dw_udata(die, DW_AT_call_file) : 0;
	f = &u->funcs[id];
	*f = (struct dw_func){
		.parent = parent,
		.first = (uint32_t)before,
		.count = (uint32_t)(u->n_ranges - before),
		.depth = depth,
		.inlined = inlined,
		.call_file = inlined && file < u->n_files ? (uint32_t)file : DW_NONE,
		.call_line = inlined && !dw->no_lines ? (uint32_t)dw_udata(die, DW_AT_call_line) : 0,
	};
	f->name = dw_name(dw, die, &linkage);
	f->linkage = linkage && f->name;
	f->as_symbol = f->name && (linkage || u->plain);
	f->unqualified = f->name && !linkage && !u->plain;
	f->die = dwarf_dieoffset(die);
	f->decl_file = dw_decl(dw, u, die, &f->decl_line);
	u->n_funcs++;
	*rec = id;
	return 0;
}

/* Whether one of func's ranges holds an address of dw->want (sorted). */
static bool dw_wanted(const struct t2f_dwarf *dw, const struct dw_index *u, uint32_t func)
{
	const struct dw_func *f = &u->funcs[func];

	for (uint32_t i = f->first; i < f->first + f->count; i++) {
		uint64_t lo = u->own[i].lo;
		/* the wanted addresses below lo: the next one is the first at or above it */
		size_t k = lo ? t2f_dw_count_at(dw->want, dw->n_want, sizeof(*dw->want), lo - 1) : 0;

		if (k < dw->n_want && dw->want[k] < u->own[i].hi)
			return true;
	}
	return false;
}

/* Whether a DIE's children may be code: functions, blocks and namespaces hold the concrete
 * functions and inlined calls. Types do only inside a function (a lambda's or a local class's
 * operator()); elsewhere a member function's concrete DIE sits outside its class, pointing at
 * its declaration there, and the types' members (most of a C++ unit) are not walked. Variables
 * and parameters never hold code. */
static bool dw_may_hold_code(int tag, bool in_function)
{
	switch (tag) {
	case DW_TAG_class_type:
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
		return in_function;
	case DW_TAG_subprogram:
	case DW_TAG_inlined_subroutine:
	case DW_TAG_lexical_block:
	case DW_TAG_namespace:
	case DW_TAG_module:
	case DW_TAG_try_block:
	case DW_TAG_catch_block:
		return true;
	default:
		return false;
	}
}

/* Every subprogram and inlined subroutine with code, depth first, without recursion. With
 * dw->want (and not u->whole), a subprogram holding none of its addresses is shallow: the
 * inlined calls inside it are not recorded (its nested subprograms, whose code lies
 * elsewhere, are, each judged by its own ranges). In a flat unit (C) the DIEs inside a
 * shallow subprogram are not walked at all (u->skipped): they hold no other function but a
 * GNU C nested one, which a lookup finding no function then finds by indexing the unit again
 * in full. A tenth of a cold whole-machine run's instructions with libpython's DWARF. */
static int dw_walk_unit(struct t2f_dwarf *dw, struct dw_index *u)
{
	struct dw_walk *stack = dw->walk;
	bool judge = dw->want && !u->whole;
	size_t top = 0;
	int err = 0;

	u->skipped = false;
	if (dwarf_child(&u->cu, &stack[0].die) == 0) {
		stack[0].parent = DW_NONE;
		stack[0].depth = 0;
		stack[0].shallow = false;
		top = 1;
	}
	while (top && !err) {
		struct dw_walk *w = &stack[top - 1];
		int tag = dwarf_tag(&w->die);
		uint32_t rec = DW_NONE, depth = w->depth;
		bool shallow = w->shallow;
		Dwarf_Die child;

		if (tag == DW_TAG_subprogram || (tag == DW_TAG_inlined_subroutine && !w->shallow))
			err = dw_add_func(dw, u, &w->die, tag == DW_TAG_inlined_subroutine,
					  w->parent, w->depth, &rec);
		if (!err && judge && rec != DW_NONE && tag == DW_TAG_subprogram) {
			shallow = u->funcs[rec].shallow = !dw_wanted(dw, u, rec);
			u->skipped |= shallow && u->flat;
		}
		if (!err && !(shallow && u->flat && tag == DW_TAG_subprogram) &&
		    dw_may_hold_code(tag, rec != DW_NONE || w->parent != DW_NONE) &&
		    dwarf_child(&w->die, &child) == 0 && top < DW_MAX_NESTING) {
			stack[top] = (struct dw_walk){ .die = child,
						       .parent = rec != DW_NONE ? rec : w->parent,
						       .depth = rec != DW_NONE ? depth + 1 : depth,
						       .shallow = shallow };
			top++;
			continue;
		}
		/* no children: the next sibling, here or of the nearest ancestor that has one */
		while (top && dwarf_siblingof(&stack[top - 1].die, &stack[top - 1].die) != 0)
			top--;
	}
	return err;
}

/* Every file of the unit as addr2line shows it: a relative path joined to the unit's
 * directory. Kept in the arena (stable); the line table fits the limits (t2f_dw_lines_fit). */
static int dw_unit_paths(struct t2f_dwarf *dw, struct dw_index *u)
{
	const char *dir = dw_str_attr(&u->cu, DW_AT_comp_dir);

	if (dwarf_getsrcfiles(&u->cu, &u->files, &u->n_files) != 0 || !u->n_files) {
		u->files = NULL;
		u->n_files = 0;
		return 0;
	}
	if (u->n_files > UINT32_MAX - 1)
		u->n_files = UINT32_MAX - 1;
	u->paths = t2f_arena__alloc(dw->arena, u->n_files * sizeof(*u->paths));
	if (!u->paths)
		return -ENOMEM;
	for (size_t i = 0; i < u->n_files; i++) {
		const char *f = dwarf_filesrc(u->files, i, NULL, NULL);
		size_t len = f && dir && f[0] != '/' ? strlen(dir) + 1 + strlen(f) : 0;
		char *joined = len ? t2f_arena__alloc(dw->arena, len + 1) : NULL;

		if (len && !joined)
			return -ENOMEM;
		if (joined)
			snprintf(joined, len + 1, "%s/%s", dir, f);
		u->paths[i] = joined ? joined : f;
	}
	return 0;
}

/* By start, then depth, then DIE order: of functions with the same code at one depth (an
 * assembler's aliases, __memmove_avx512_unaligned_erms and __memcpy_avx512_unaligned_erms) the
 * later DIE is taken, as binutils' addr2line takes it (and so perf). */
static int dw_start_cmp(const void *a, const void *b)
{
	const struct dw_start *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return x->func < y->func ? -1 : x->func > y->func;
}

/* Every range's start, sorted by (lo, depth). */
static int dw_sort_starts(struct dw_index *u)
{
	u->starts = malloc(u->n_ranges * sizeof(*u->starts));
	if (!u->starts)
		return -ENOMEM;
	for (size_t f = 0; f < u->n_funcs; f++)
		for (uint32_t i = u->funcs[f].first; i < u->funcs[f].first + u->funcs[f].count; i++)
			u->starts[i] = (struct dw_start){ u->own[i].lo, (uint32_t)f,
							  u->funcs[f].depth };
	qsort(u->starts, u->n_ranges, sizeof(*u->starts), dw_start_cmp);
	return 0;
}

void t2f_dw_unit_free(struct dw_index *u)
{
	free(u->funcs);
	free(u->own);
	free(u->starts);
	free(u->copies);
	u->funcs = NULL;
	u->own = NULL;
	u->starts = NULL;
	u->copies = NULL;
	u->n_funcs = u->cap_funcs = u->n_ranges = u->cap_ranges = u->n_copies = 0;
	u->copies_made = false;
}

/* A unit over a limit: left out, its memory given back, said once. */
static int dw_drop(struct t2f_dwarf *dw, struct dw_index *u)
{
	unsigned long long at = dwarf_dieoffset(&u->cu);

	t2f_dw_unit_free(u);
	u->state = DW_UNIT_DROPPED;
	if (dw->ranges_read >= T2F_DWARF_FILE_RANGES_MAX) {
		dw->full = true;
		return t2f_diag__warn(dw->notes, dw->path, 0, "DWARF units left out from unit 0x%llx "
				      "on: the units indexed read %u address ranges, the file's "
				      "limit", at, T2F_DWARF_FILE_RANGES_MAX);
	}
	return t2f_diag__warn(dw->notes, dw->path, 0, "DWARF unit at 0x%llx left out: more than "
			      "%u address ranges of functions and inlined calls", at,
			      T2F_DWARF_UNIT_RANGES_MAX);
}

/* Names left out for their length, said once per unit. */
static int dw_said_long_names(struct t2f_dwarf *dw, struct dw_index *u, uint64_t before)
{
	if (dw->long_names == before)
		return 0;
	uint64_t n = dw->long_names - before;

	return t2f_diag__warn(dw->notes, dw->path, 0, "DWARF unit at 0x%llx: %llu name%s longer "
			      "than %u bytes left out", (unsigned long long)dwarf_dieoffset(&u->cu),
			      (unsigned long long)n, t2f_plural(n), T2F_DWARF_NAME_MAX);
}

int t2f_dw_index_unit(struct t2f_dwarf *dw, struct dw_index *u)
{
	uint64_t long_names = dw->long_names;
	int err, lang;

	if (dw->full || (!dw->no_lines && !t2f_dw_lines_fit(dw, &u->cu))) {
		u->state = DW_UNIT_DROPPED;
		return 0;
	}
	u->state = DW_UNIT_DONE;
	lang = dwarf_srclang(&u->cu);
	u->plain = t2f_dw_plain_lang(lang);
	u->flat = dw_flat_lang(lang);
	err = (dw->no_lines ? 0 : dw_unit_paths(dw, u)) ?: dw_walk_unit(dw, u);
	if (err == -T2F_ERR_LIMIT)
		return dw_drop(dw, u);
	err = err ?: dw_said_long_names(dw, u, long_names);
	if (err || !u->n_ranges)
		return err;
	return dw_sort_starts(u);
}

/* Whether one of func's ranges (sorted, not overlapping in sane DWARF) holds addr: the last
 * starting at or before it. */
static bool dw_func_has(const struct dw_index *u, uint32_t func, uint64_t addr)
{
	const struct dw_func *f = &u->funcs[func];
	size_t at = t2f_dw_count_at(u->own + f->first, f->count, sizeof(*u->own), addr);

	return at && addr < u->own[f->first + at - 1].hi;
}

/* The innermost function whose code holds addr, or DW_NONE: the deepest range starting last at
 * or before addr, or, when that one ended before addr, the nearest enclosing function that
 * holds it (ranges nest: a range holding addr and starting before that one encloses it). At
 * most DW_MAX_NESTING levels, each a binary search. */
uint32_t t2f_dw_innermost(const struct dw_index *u, uint64_t addr)
{
	size_t lo = t2f_dw_count_at(u->starts, u->n_ranges, sizeof(*u->starts), addr);
	uint32_t f, steps = 0;

	if (lo == 0)
		return DW_NONE;
	f = u->starts[lo - 1].func;
	while (f != DW_NONE && !dw_func_has(u, f, addr) && steps++ < DW_MAX_NESTING)
		f = u->funcs[f].parent;
	return steps > DW_MAX_NESTING ? DW_NONE : f;
}
