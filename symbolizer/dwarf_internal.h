/* symbolizer/dwarf_internal.h: what dwarf.c (the file: open, limits, the supplementary file,
 * out-of-memory), dwarf_index.c (units, their functions and ranges) and dwarf_lines.c (the cost
 * of a line table) share. Not a public interface. */
#ifndef T2F_DWARF_INTERNAL_H
#define T2F_DWARF_INTERNAL_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/arena.h"
#include "formats/diag.h"
#include "formats/hashmap.h"
#include "symbolizer/dwarf.h"
#include "symbolizer/elf_module.h"

#define DW_NONE UINT32_MAX
#define DW_MAX_NESTING 256       /* DIE tree depth walked; deeper children are not indexed */
#define DW_MAX_DIE_RANGES 65536  /* address ranges kept per DIE */

struct dw_span {                 /* [lo, hi) of a function: its slice of dw_index.own */
	uint64_t lo, hi;
};

struct dw_start {                /* a range start, for the innermost search */
	uint64_t lo;
	uint32_t func;
	uint32_t depth;
};

struct dw_func {                 /* a subprogram or inlined subroutine with code */
	uint32_t parent;             /* the enclosing one, or DW_NONE */
	uint32_t first, count;       /* its ranges: own[first .. first + count), sorted by lo */
	uint32_t depth;              /* among the indexed ones (0: a subprogram) */
	bool inlined;                /* DW_TAG_inlined_subroutine */
	bool linkage;                /* name is a linkage name */
	bool as_symbol;              /* t2f_dwarf_frame.as_symbol */
	bool unqualified;            /* name is a C++-like DW_AT_name not yet qualified by its
				      * scopes nor named by an out-of-line copy (dwarf_names.c) */
	bool copy;                   /* name is its out-of-line copy's (t2f_dwarf_frame.copy) */
	bool shallow;                /* a subprogram holding no address of t2f_dwarf.want: its
				      * inlined calls were not recorded (its nested subprograms
				      * were) */
	const char *name;            /* NULL: none, or one longer than T2F_DWARF_NAME_MAX */
	uint64_t die;                /* unqualified: the DIE's offset in the file's DWARF */
	uint32_t call_file;          /* inlined: the file it was called from (index), or DW_NONE */
	uint32_t call_line;
	const char *decl_file;       /* DW_AT_decl_file's path, or NULL */
	uint32_t decl_line;
};

struct dw_copy {                 /* a function's out-of-line copy (dwarf_names.c) */
	const void *key;             /* the DIE its origins and specifications end at */
	uint64_t entry;              /* where its code starts */
	uint32_t func;               /* its index in the unit's funcs */
	bool settled;                /* the first of a key's copies: name looked for */
	const char *name;            /* ... and found (in the arena), or NULL */
};

enum dw_state { DW_UNIT_NEW, DW_UNIT_DONE, DW_UNIT_DROPPED };

struct dw_index {                /* one unit, indexed on first use */
	Dwarf_Die cu;
	uint64_t bytes;              /* its length in .debug_info, header included */
	enum dw_state state;
	bool plain;                  /* its language mangles no name (t2f_dw_plain_lang) */
	bool flat;                   /* C or assembler: a function's DIE holds no code of other
				      * functions but GNU C nested ones' (dw_flat_lang) */
	bool skipped;                /* the DIEs inside a shallow subprogram of a flat unit were
				      * not walked: an address of no function indexed may be in a
				      * nested one (dwarf.c indexes the unit again in full) */
	const char **paths;          /* per file index: its path as addr2line shows it */
	struct dw_func *funcs;
	size_t n_funcs, cap_funcs;
	struct dw_span *own;         /* every function's ranges, in function order */
	size_t n_ranges, cap_ranges;
	struct dw_start *starts;     /* every range's start, sorted by (lo, depth) */
	Dwarf_Files *files;
	size_t n_files;
	struct dw_copy *copies;      /* its functions without a linkage name that have code, by
				      * key then DIE order; made on the first name asked for */
	size_t n_copies;
	bool copies_made;
	bool whole;                  /* indexed again without t2f_dwarf.want (dwarf.c) */
};

struct dw_unit {
	uint64_t lo, hi;             /* one range of the unit (a unit with several has several);
				      * lo first (t2f_dw_count_at) */
	uint32_t index;              /* into idx: the unit's state, shared by its ranges */
};

struct dw_walk {                 /* one level of the DIE walk */
	Dwarf_Die die;
	uint32_t parent;             /* the nearest recorded function above, or DW_NONE */
	uint32_t depth;
	bool shallow;                /* inside a shallow subprogram: inlined calls not recorded */
};

struct dw_qual {                 /* a declaration's qualified name */
	const void *key;             /* the DIE's bytes in its section (unique across files) */
	const char *name;            /* in the arena */
};

struct dw_sections {             /* a file's line tables and the strings they name */
	const uint8_t *line, *line_str, *str;
	size_t line_size, line_str_size, str_size;
};

struct dw_line_cost {            /* what libdw and the index keep for one line table */
	uint64_t files;              /* file entries */
	uint64_t path_bytes;         /* the joined paths */
	uint64_t longest;            /* the longest path */
	uint64_t rows;               /* rows its programs make (an upper bound) */
};

struct dw_checked {              /* a line table judged */
	const Dwarf *dbg;
	uint64_t offset;
	bool ok;
};

struct t2f_dw_bufs {              /* sections inflated for libdw (dwarf_inflate.c) */
	void **p;
	size_t n;
};

struct t2f_dwarf {
	char *path;
	int fd, alt_fd;
	Elf *elf, *alt_elf, *null_elf;
	Dwarf *dbg, *alt, *null_alt; /* the file, its verified supplementary file, the empty one
				      * libdw gets when there is none (dwarf.c) */
	unsigned char null_image[512];
	struct dw_sections secs, alt_secs;
	struct t2f_dw_bufs inflated;  /* the sections libelf holds for libdw, the file's and the
				       * supplementary file's: freed after them */
	unsigned threads;            /* t2f_dwarf_opts */
	bool no_lines;               /* t2f_dwarf_opts */
	struct t2f_elf_mapped image;  /* the file's mapped pages, given back as units are read */
	uint64_t image_read;         /* .debug_info bytes of the units indexed since the pages
				      * were last given back (dwarf.c DW_IMAGE_HELD) */
	const char *(*symbol_at)(void *sym_ctx, uint64_t elf_vaddr); /* t2f_dwarf_opts */
	void *sym_ctx;
	struct t2f_arena *arena;     /* the units' source paths, joined to their directories */
	struct dw_unit *units;       /* every range of every unit, sorted by lo */
	size_t n_units, cap_units;
	struct dw_index *idx;        /* one per unit */
	size_t n_idx, cap_idx;
	struct dw_walk *walk;        /* the DIE walk's stack (DW_MAX_NESTING levels) */
	struct dw_checked *checked;  /* line tables judged (dwarf_lines.c), in that order */
	size_t n_checked, cap_checked;
	struct t2f_hashmap *memo;    /* (Dwarf, offset) → its index in checked + 1 */
	struct dw_qual *quals;       /* names qualified by their scopes (dwarf_names.c) */
	size_t n_quals, cap_quals;
	struct t2f_hashmap *qual_memo; /* a name's DIE → its index in quals + 1 */
	uint64_t ranges_read;        /* by every unit indexed (T2F_DWARF_FILE_RANGES_MAX) */
	uint64_t rows, path_bytes;   /* of the line tables accepted */
	uint64_t long_names;         /* names left out for their length */
	bool full;                   /* a file limit was reached: no further unit is indexed */
	bool broken;                 /* libdw ran out of memory: nothing more is asked of it */
	bool ended;                  /* t2f_dwarf__end let go of the file */
	bool pending;                /* opened lazily, libdw not begun yet (t2f_dwarf__begin) */
	bool none;                   /* begun lazily: the file has no DWARF (or libdw failed) */
	uint64_t weight;             /* its debug sections' bytes (t2f_dwarf__weight) */
	const uint64_t *want;        /* t2f_dwarf__want: the lookups to come, sorted (borrowed) */
	size_t n_want;
	struct t2f_diag *notes;      /* warnings of lookups (buffered: any thread) */
};

/* dwarf_index.c: whether a unit's language names functions as their symbols are named,
 * DW_AT_name then being the symbol's name: the languages binutils demangles nothing of (its
 * mangle_style 0). */
bool t2f_dw_plain_lang(int lang);

/* dwarf_inflate.c: elf's compressed debug sections that lookups read, inflated on up to
 * `threads` threads and handed to libelf as their sections' data, before dwarf_begin_elf (which
 * then inflates nothing); those no lookup reads handed over empty (.debug_line too when
 * no_lines: t2f_dwarf_opts). Their buffers are added to
 * keep (the caller frees them with t2f_dw_bufs__free after elf_end). 0 or -ENOMEM; a section
 * that does not inflate is left for libdw. On the thread that uses elf. */
int t2f_dw_inflate(Elf *elf, unsigned threads, bool no_lines, struct t2f_dw_bufs *keep);
void t2f_dw_bufs__free(struct t2f_dw_bufs *b);

/* dwarf_index.c */
/* How many of the n records at base (each `size` bytes, sorted by a leading uint64_t lo) start
 * at or before addr: the last of them is at that count - 1. */
size_t t2f_dw_count_at(const void *base, size_t n, size_t size, uint64_t addr);
int t2f_dw_scan_units(struct t2f_dwarf *dw);
struct dw_index *t2f_dw_unit_of(struct t2f_dwarf *dw, uint64_t addr);
int t2f_dw_index_unit(struct t2f_dwarf *dw, struct dw_index *u);
uint32_t t2f_dw_innermost(const struct dw_index *u, uint64_t addr);
void t2f_dw_unit_free(struct dw_index *u);

/* dwarf_span.c: the range [*lo, *last] around addr over which a lookup finds the same unit u
 * (NULL: none), innermost function f and line row: the same chain. Just addr when u was left
 * out (another run, reading units in another order, may read it). */
void t2f_dw_span(struct t2f_dwarf *dw, struct dw_index *u, uint32_t f, uint64_t addr,
		 uint64_t *lo, uint64_t *last);

/* dwarf_names.c: the name of unit u's function f when DWARF gives it no linkage name: the
 * linkage name of its out-of-line copy in u (the copy's symbol, less its clone suffixes), else
 * DW_AT_name qualified by the namespaces and types that hold its declaration (once per
 * declaration). Its name unchanged when it cannot be (no copy named, no scope, a longer name
 * than T2F_DWARF_NAME_MAX), or -ENOMEM. */
int t2f_dw_qualify(struct t2f_dwarf *dw, struct dw_index *u, struct dw_func *f);

/* dwarf_lines.c: the line table at off of s (a unit whose compilation directory has comp_len
 * bytes). 0 and *out, or -T2F_ERR_FORMAT when libdw could not read it either. */
int t2f_dw_line_cost(const struct dw_sections *s, uint64_t off, size_t comp_len,
		     struct dw_line_cost *out);
/* Whether the unit's line table (DW_AT_stmt_list) fits the unit's and the file's limits; a
 * table that fits is added to the file's totals. false with a warning naming the unit. */
bool t2f_dw_lines_fit(struct t2f_dwarf *dw, Dwarf_Die *cu);
/* Whether libdw may read the line table of the unit cu belongs to, when it is not the unit
 * being indexed (an abstract origin's DW_AT_decl_file): checked once per unit. */
bool t2f_dw_foreign_ok(struct t2f_dwarf *dw, Dwarf_CU *cu);

#endif
