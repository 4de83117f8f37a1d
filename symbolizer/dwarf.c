/* symbolizer/dwarf.c: inline chains and lines from DWARF through libdw, indexed per unit. */
#include "symbolizer/dwarf.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/arena.h"
#include "formats/grow.h"

#define DW_NONE UINT32_MAX
#define DW_MAX_NESTING 256       /* DIE tree depth walked; deeper children are not indexed */
#define DW_MAX_RANGES 65536      /* address ranges kept per DIE */

struct dw_range {                /* [lo, hi) of one DIE */
	uint64_t lo, hi;
	uint32_t die;
	uint32_t depth;              /* of the DIE among the indexed ones (0: a subprogram) */
};

struct dw_func {                 /* a subprogram or inlined subroutine with code */
	uint32_t parent;             /* the enclosing one, or DW_NONE */
	uint32_t first, count;       /* its ranges: own[first .. first + count) */
	bool inlined;                /* DW_TAG_inlined_subroutine */
	bool linkage;                /* name is a linkage name */
	const char *name;
	uint32_t call_file;          /* inlined: the file it was called from (index), or DW_NONE */
	uint32_t call_line;
	const char *decl_file;       /* DW_AT_decl_file's path, or NULL */
	uint32_t decl_line;
};

struct dw_unit {
	uint64_t lo, hi;             /* one range of the unit (a unit with several has several);
				      * lo first, as in dw_range (dw_last_at) */
	uint32_t index;              /* into idx: the unit's state, shared by its ranges */
};

struct dw_index {                /* one unit, indexed on first use */
	Dwarf_Die cu;
	bool done;
	const char **paths;          /* per file index: its path as addr2line shows it */
	struct dw_func *funcs;
	size_t n_funcs, cap_funcs;
	struct dw_range *own;        /* every function's ranges, in function order */
	size_t n_ranges, cap_ranges;
	struct dw_range *ranges;     /* the same sorted by (lo, depth) */
	Dwarf_Files *files;
	size_t n_files;
};

struct t2f_dwarf {
	int fd;
	Dwarf *dbg;
	struct t2f_arena *arena;     /* the units' source paths, joined to their directories */
	struct dw_unit *units;       /* every range of every unit, sorted by lo */
	size_t n_units, cap_units;
	struct dw_index *idx;        /* one per unit */
	size_t n_idx, cap_idx;
};

/* ---- units ---- */

/* How many of the n records at base (each `size` bytes, sorted by a leading uint64_t lo) start
 * at or before addr: the last of them is at that count - 1. */
static size_t dw_last_at(const void *base, size_t n, size_t size, uint64_t addr)
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

static int dw_add_unit(struct t2f_dwarf *dw, uint32_t index, uint64_t lo, uint64_t hi)
{
	int err;

	if (lo >= hi)
		return 0;
	err = t2f_grow((void **)&dw->units, &dw->cap_units, dw->n_units, 1, sizeof(*dw->units),
		       64, SIZE_MAX / sizeof(*dw->units));
	if (!err)
		dw->units[dw->n_units++] = (struct dw_unit){ .lo = lo, .hi = hi, .index = index };
	return err;
}

static int dw_unit_cmp(const void *a, const void *b)
{
	const struct dw_unit *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Every unit's address ranges, once. */
static int dw_scan_units(struct t2f_dwarf *dw)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	int err = 0;

	while (!err && dwarf_nextcu(dw->dbg, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		Dwarf_Addr base, lo, hi;
		ptrdiff_t r = 0;
		size_t kept = 0;
		uint32_t index = (uint32_t)dw->n_idx;

		if (dwarf_offdie(dw->dbg, off + hsize, &cu)) {
			err = t2f_grow((void **)&dw->idx, &dw->cap_idx, dw->n_idx, 1,
				       sizeof(*dw->idx), 64, UINT32_MAX - 1);
			if (!err)
				dw->idx[dw->n_idx++] = (struct dw_index){ .cu = cu };
			while (!err && kept < DW_MAX_RANGES &&
			       (r = dwarf_ranges(&cu, r, &base, &lo, &hi)) > 0) {
				err = dw_add_unit(dw, index, lo, hi);
				kept++;
			}
		}
		off = next;
	}
	if (!err && dw->n_units)
		qsort(dw->units, dw->n_units, sizeof(*dw->units), dw_unit_cmp);
	return err;
}

/* The unit whose range holds addr, or NULL. Ranges of units do not overlap in sane DWARF; in
 * other DWARF the latest-starting one is taken. */
static struct dw_index *dw_unit_of(struct t2f_dwarf *dw, uint64_t addr)
{
	size_t lo = dw_last_at(dw->units, dw->n_units, sizeof(*dw->units), addr);

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
 * specification. */
static const char *dw_name(Dwarf_Die *die, bool *linkage)
{
	const char *n = dw_str_attr(die, DW_AT_linkage_name);

	if (!n)
		n = dw_str_attr(die, DW_AT_MIPS_linkage_name);
	*linkage = n != NULL;
	return n ? n : dw_str_attr(die, DW_AT_name);
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
 * as the unit's paths give it when the attribute is the unit's own, and its line. */
static const char *dw_decl(const struct dw_index *u, Dwarf_Die *die, uint32_t *line)
{
	Dwarf_Attribute a;
	Dwarf_Word v;
	int ln = 0;

	*line = dwarf_decl_line(die, &ln) == 0 && ln > 0 ? (uint32_t)ln : 0;
	if (!dwarf_attr_integrate(die, DW_AT_decl_file, &a) || dwarf_formudata(&a, &v) != 0)
		return NULL;
	if (a.cu == u->cu.cu && v < u->n_files)
		return u->paths[v];
	return dwarf_decl_file(die);
}

static int dw_add_range(struct dw_index *u, uint32_t func, uint32_t depth, uint64_t lo,
			uint64_t hi)
{
	int err = t2f_grow((void **)&u->own, &u->cap_ranges, u->n_ranges, 1, sizeof(*u->own), 64,
			   UINT32_MAX - 1);

	if (!err)
		u->own[u->n_ranges++] = (struct dw_range){ .lo = lo, .hi = hi, .die = func,
							   .depth = depth };
	return err;
}

/* A subprogram or inlined subroutine: recorded with its ranges when it has code. *rec: its
 * index, or DW_NONE when it has no code. */
static int dw_add_func(struct dw_index *u, Dwarf_Die *die, bool inlined, uint32_t parent,
		       uint32_t depth, uint32_t *rec)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t r = 0;
	size_t before = u->n_ranges, kept = 0;
	uint32_t id = (uint32_t)u->n_funcs;
	const char *name;
	bool linkage;
	uint64_t file;
	int err = 0;

	*rec = DW_NONE;
	while (!err && kept < DW_MAX_RANGES && (r = dwarf_ranges(die, r, &base, &lo, &hi)) > 0) {
		if (lo < hi)
			err = dw_add_range(u, id, depth, lo, hi);
		kept++;
	}
	if (err || u->n_ranges == before)
		return err;
	err = t2f_grow((void **)&u->funcs, &u->cap_funcs, u->n_funcs, 1, sizeof(*u->funcs), 64,
		       UINT32_MAX - 1);
	if (err)
		return err;
	file = inlined ? dw_udata(die, DW_AT_call_file) : 0;
	name = dw_name(die, &linkage);
	u->funcs[id] = (struct dw_func){
		.parent = parent,
		.first = (uint32_t)before,
		.count = (uint32_t)(u->n_ranges - before),
		.inlined = inlined,
		.linkage = linkage,
		.name = name,
		.call_file = inlined && file < u->n_files ? (uint32_t)file : DW_NONE,
		.call_line = inlined ? (uint32_t)dw_udata(die, DW_AT_call_line) : 0,
	};
	u->funcs[id].decl_file = dw_decl(u, die, &u->funcs[id].decl_line);
	u->n_funcs++;
	*rec = id;
	return 0;
}

struct dw_walk {                 /* one level of the DIE walk */
	Dwarf_Die die;
	uint32_t parent;             /* the nearest recorded function above, or DW_NONE */
	uint32_t depth;
};

/* Every subprogram and inlined subroutine with code, depth first, without recursion. */
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

static int dw_walk_unit(struct dw_index *u)
{
	struct dw_walk *stack = malloc(DW_MAX_NESTING * sizeof(*stack));
	size_t top = 0;
	int err = 0;

	if (!stack)
		return -ENOMEM;
	if (dwarf_child(&u->cu, &stack[0].die) == 0) {
		stack[0].parent = DW_NONE;
		stack[0].depth = 0;
		top = 1;
	}
	while (top && !err) {
		struct dw_walk *w = &stack[top - 1];
		int tag = dwarf_tag(&w->die);
		uint32_t rec = DW_NONE, depth = w->depth;
		Dwarf_Die child;

		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine)
			err = dw_add_func(u, &w->die, tag == DW_TAG_inlined_subroutine, w->parent,
					  w->depth, &rec);
		if (!err && dw_may_hold_code(tag, rec != DW_NONE || w->parent != DW_NONE) &&
		    dwarf_child(&w->die, &child) == 0 && top < DW_MAX_NESTING) {
			stack[top] = (struct dw_walk){ .die = child,
						       .parent = rec != DW_NONE ? rec : w->parent,
						       .depth = rec != DW_NONE ? depth + 1 : depth };
			top++;
			continue;
		}
		/* no children: the next sibling, here or of the nearest ancestor that has one */
		while (top && dwarf_siblingof(&stack[top - 1].die, &stack[top - 1].die) != 0)
			top--;
	}
	free(stack);
	return err;
}

static int dw_range_cmp(const void *a, const void *b)
{
	const struct dw_range *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->depth < y->depth ? -1 : x->depth > y->depth;
}

/* Every file of the unit as addr2line shows it: a relative path joined to the unit's
 * directory. Kept in the arena (stable). */
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

static int dw_index_unit(struct t2f_dwarf *dw, struct dw_index *u)
{
	int err;

	u->done = true;
	err = dw_unit_paths(dw, u) ?: dw_walk_unit(u);
	if (err || !u->n_ranges)
		return err;
	u->ranges = malloc(u->n_ranges * sizeof(*u->ranges));
	if (!u->ranges)
		return -ENOMEM;
	memcpy(u->ranges, u->own, u->n_ranges * sizeof(*u->ranges));
	qsort(u->ranges, u->n_ranges, sizeof(*u->ranges), dw_range_cmp);
	return 0;
}

/* Whether one of func's ranges holds addr. */
static bool dw_func_has(const struct dw_index *u, uint32_t func, uint64_t addr)
{
	const struct dw_func *f = &u->funcs[func];

	for (uint32_t i = f->first; i < f->first + f->count; i++)
		if (u->own[i].lo <= addr && addr < u->own[i].hi)
			return true;
	return false;
}

/* The innermost function whose code holds addr, or DW_NONE: the deepest range starting last at
 * or before addr, or, when that one ended before addr, the nearest enclosing function that
 * holds it (ranges nest: a range holding addr and starting before that one encloses it). */
static uint32_t dw_innermost(const struct dw_index *u, uint64_t addr)
{
	size_t lo = dw_last_at(u->ranges, u->n_ranges, sizeof(*u->ranges), addr);
	uint32_t f, steps = 0;

	if (lo == 0)
		return DW_NONE;
	f = u->ranges[lo - 1].die;
	while (f != DW_NONE && !dw_func_has(u, f, addr) && steps++ < DW_MAX_NESTING)
		f = u->funcs[f].parent;
	return steps > DW_MAX_NESTING ? DW_NONE : f;
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

int t2f_dwarf__lookup(struct t2f_dwarf *dw, uint64_t elf_vaddr, struct t2f_dwarf_frame *out,
		      size_t max)
{
	struct dw_index *u = dw_unit_of(dw, elf_vaddr);
	Dwarf_Line *line;
	uint32_t f;
	size_t n = 0;
	int err, lineno = 0;

	if (!u || !max)
		return 0;
	if (!u->done && (err = dw_index_unit(dw, u)))
		return err;
	f = dw_innermost(u, elf_vaddr);
	line = dwarf_getsrc_die(&u->cu, elf_vaddr);
	if (line)
		dwarf_lineno(line, &lineno);
	if (f == DW_NONE && lineno <= 0)
		return 0;
	out[0] = (struct t2f_dwarf_frame){ .name = f != DW_NONE ? u->funcs[f].name : NULL,
					   .linkage = f != DW_NONE && u->funcs[f].linkage,
					   .file = line ? dw_line_path(u, line) : NULL,
					   .line = lineno > 0 ? (uint32_t)lineno : 0 };
	if (f == DW_NONE)
		return 1;
	out[0].fn_file = u->funcs[f].decl_file;
	out[0].fn_line = u->funcs[f].decl_line;
	/* each caller at the line of the call into the level inside it, out to the function */
	for (n = 1; n < max && u->funcs[f].inlined && u->funcs[f].parent != DW_NONE; n++) {
		const struct dw_func *in = &u->funcs[f];

		out[n] = (struct t2f_dwarf_frame){ .name = u->funcs[in->parent].name,
						   .linkage = u->funcs[in->parent].linkage,
						   .file = in->call_file != DW_NONE
							   ? u->paths[in->call_file] : NULL,
						   .line = in->call_line,
						   .fn_file = u->funcs[in->parent].decl_file,
						   .fn_line = u->funcs[in->parent].decl_line };
		f = in->parent;
	}
	return (int)n;
}

/* ---- the file ---- */

void t2f_dwarf__free(struct t2f_dwarf *dw)
{
	if (!dw)
		return;
	for (size_t i = 0; i < dw->n_idx; i++) {
		free(dw->idx[i].funcs);
		free(dw->idx[i].ranges);
		free(dw->idx[i].own);
	}
	free(dw->idx);
	free(dw->units);
	t2f_arena__free(dw->arena);
	if (dw->dbg)
		dwarf_end(dw->dbg);
	close(dw->fd);
	free(dw);
}

int t2f_dwarf__open(const char *path, struct t2f_diag *d, struct t2f_dwarf **out)
{
	struct t2f_dwarf *dw = calloc(1, sizeof(*dw));
	int err = 0;

	*out = NULL;
	if (!dw)
		return -ENOMEM;
	dw->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (dw->fd < 0) {
		err = t2f_diag__error(d, -errno, path, 0, "cannot open: %s", strerror(errno));
		free(dw);
		return err;
	}
	dw->dbg = dwarf_begin(dw->fd, DWARF_C_READ);
	if (dw->dbg)
		err = t2f_arena__new(&dw->arena) ?: dw_scan_units(dw);
	if (err || !dw->dbg)
		t2f_dwarf__free(dw);
	else
		*out = dw;
	return err;
}
