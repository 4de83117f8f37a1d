/* symbolizer/dwarf.h: inlined functions and source lines from an ELF file's DWARF (libdw).
 *
 * For an address in the file's own space (elf_vaddr), the chain of functions whose code is
 * there: the innermost inlined function with the source line of the address, then each function
 * it was inlined into with the line of that call, out to the function that holds the code; as
 * `addr2line -i -f` prints it. DWARF 2-5 is libdw's. Compressed debug sections (SHF_COMPRESSED,
 * zlib or zstd) are inflated here when the file is opened, the ones lookups read only, on up to
 * opts->threads threads, by igzip when it loads (formats/inflate.h), and handed to libdw
 * inflated (dwarf_inflate.c); libdw inflates GNU .zdebug ones itself. libelf 0.188 cannot
 * inflate zstd: without this, such a file would have no DWARF.
 *
 * Lazy per compilation unit: an address finds its unit (each unit's ranges), and the first
 * address of a unit indexes it once: every subprogram and inlined subroutine with its address
 * ranges (sorted), parent, name and call site, and every range's start sorted by address.
 * Later addresses of the unit are a binary search and a walk up to the function, a binary
 * search per level (at most 256 levels). Units with no address are never read.
 *
 * The file is data from anywhere (a debuginfod server, a trace's debug tree), and libdw keeps no
 * limit of its own, so what it is given is bounded first; past a limit, one warning names the
 * file (and the unit) and what is left out, and the file's ELF symbols still name its frames:
 *  - only a regular file is opened, without blocking (formats/side_file.h);
 *  - decompression (every compressed debug section is inflated when the file is opened): the
 *    sizes the sections declare are added up before, and a file over T2F_DWARF_DECODE_MAX, or
 *    over what its budget has left (opts->budget, shared by the files of a symbolizer), is not
 *    opened;
 *  - the supplementary file (.gnu_debugaltlink, dwz; DWARF 5 .debug_sup forms use it too) is
 *    found by the caller (opts->find_alt) and taken only when it is a regular file with the
 *    build-id the link names, under the same limits; libdw never looks for one itself (it would
 *    open whatever sits at the named path, a FIFO included, and use it unverified): without a
 *    verified one, names and declarations kept there are left out;
 *  - a unit's line table is measured before libdw reads it (dwarf_lines.c): its paths (each at
 *    most T2F_DWARF_PATH_MAX bytes, T2F_DWARF_UNIT_PATHS_MAX together) and rows
 *    (T2F_DWARF_UNIT_ROWS_MAX); over them the unit is left out; the file's tables together at
 *    most T2F_DWARF_FILE_PATHS_MAX and T2F_DWARF_FILE_ROWS_MAX;
 *  - address ranges: T2F_DWARF_UNIT_RANGES_MAX per unit (over it, the unit is left out),
 *    T2F_DWARF_FILE_RANGES_MAX read by the units of a file, T2F_DWARF_UNITS_MAX units and
 *    T2F_DWARF_UNIT_SPANS_MAX unit ranges per file (past these, the units left are left out);
 *  - names longer than T2F_DWARF_NAME_MAX are left out (counted per unit): such a level has no
 *    name, as a DIE without one;
 *  - libdw's out-of-memory handler, which ends the process, is replaced: an allocation that
 *    fails inside libdw leaves the handle broken (its DWARF is left out from then on, warned),
 *    and the call returns.
 * The unit limits sit far above real units: the largest units of Debian's libc and libstdc++
 * debug files hold 1,099 ranges and 14,012 rows, a C++ unit of 60 instantiations of std::map,
 * std::sort and std::regex (g++ -O2 -g) 97,918 ranges and 251,566 rows. The file limits keep
 * libdw's line state near 1 GiB: a profile that hits thousands of units of a browser-sized
 * program can reach them, and its later units are then left out (warned).
 *
 * Names are raw (the linkage name when there is one, else DW_AT_name, each through the abstract
 * origin or specification; in a language that mangles names and without a linkage name, the
 * linkage name of the function's out-of-line copy in the unit when it has one and
 * opts->symbol_at names it, else DW_AT_name qualified by the namespaces and types holding the
 * declaration, "app::tally": dwarf_names.c); strings are libdw's or the index's, valid until
 * __free.
 * Ownership: the handle owns its file descriptors and libdw state. Not thread safe; handles
 * share no state, so different handles may be used on different threads at once.
 */
#ifndef T2F_DWARF_H
#define T2F_DWARF_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/diag.h"

struct t2f_dwarf;

struct t2f_dwarf_frame {
	const char *name;       /* raw; NULL when DWARF names none (code of no function DIE, such
				 * as a thunk: the line table still places it) */
	bool linkage;           /* name is a linkage (mangled) name, not DW_AT_name */
	bool copy;              /* name is the linkage name of the function's out-of-line copy
				 * (its symbol's, less clone suffixes), DWARF giving none;
				 * linkage is set */
	bool as_symbol;         /* name is what the function's symbol is called: a linkage name, or
				 * DW_AT_name in a language without mangling (C, assembler, Fortran
				 * 77, ...); not a C++ or Rust DW_AT_name ("check" of coll::check).
				 * binutils' addr2line prints these names, and the symbol for others */
	const char *file;       /* source file of `line`; NULL when unknown */
	uint32_t line;          /* 0 when unknown */
	const char *fn_file;    /* where the function is declared (DW_AT_decl_file); NULL when
				 * unknown or nameless */
	uint32_t fn_line;       /* its DW_AT_decl_line; 0 when unknown */
};

#define T2F_DWARF_MAX_DEPTH 64  /* inline levels kept; deeper chains are cut at the outer end */

#define T2F_DWARF_DECODE_MAX (1ull << 30)      /* debug section bytes a file may inflate */
#define T2F_DWARF_DECODE_RUN_MAX (2ull << 30)  /* ... the files of one budget together */
#define T2F_DWARF_PATH_MAX 4096u               /* bytes of one source path */
#define T2F_DWARF_UNIT_PATHS_MAX (16u << 20)   /* bytes of source paths of a unit */
#define T2F_DWARF_FILE_PATHS_MAX (128u << 20)  /* ... of the units of a file */
#define T2F_DWARF_UNIT_ROWS_MAX (2u << 20)     /* line table rows of a unit */
#define T2F_DWARF_FILE_ROWS_MAX (16u << 20)    /* ... of the units of a file */
#define T2F_DWARF_UNIT_RANGES_MAX (4u << 20)   /* function and inlined call ranges of a unit */
#define T2F_DWARF_FILE_RANGES_MAX (16u << 20)  /* ... read for the units of a file */
#define T2F_DWARF_UNITS_MAX (1u << 20)         /* units of a file */
#define T2F_DWARF_UNIT_SPANS_MAX (8u << 20)    /* units' own address ranges in a file */
#define T2F_DWARF_NAME_MAX 4096u               /* bytes of a function's name */

struct t2f_decode_budget;

struct t2f_dwarf_opts {
	struct t2f_decode_budget *budget;  /* what the files of a symbolizer may inflate together
					    * (elf_module.h; borrowed, thread safe), or NULL:
					    * T2F_DWARF_DECODE_MAX per file only */
	/* The supplementary file `name` (as .gnu_debugaltlink names it) of build-id id[0..len)
	 * for the debug file at `path`: candidate paths, best first, into paths[0..max) (each
	 * PATH_MAX bytes); their number. The candidates are verified here. NULL: none. */
	size_t (*alt_candidates)(void *ctx, const char *path, const char *name, const uint8_t *id,
				 size_t len, char (*paths)[PATH_MAX], size_t max);
	void *ctx;
	/* The raw name of the symbol that starts at elf_vaddr in the file whose DWARF this is, as
	 * its frames are named (valid until __free), or NULL: names a function DWARF gives no
	 * linkage name by its out-of-line copy (dwarf_names.c). Called by lookups, on their
	 * thread. NULL: not asked. */
	const char *(*symbol_at)(void *sym_ctx, uint64_t elf_vaddr);
	void *sym_ctx;
	unsigned threads;  /* that may inflate one file's debug sections at once (0 or 1: the
			    * thread opening it) */
	bool no_lines;     /* lookups read no line table: their frames have no file, line or
			    * declaration (fn_file, fn_line), an address of no function finds
			    * nothing, and the span around an address is its functions' (a line
			    * table read whole and sorted by libdw is most of a cold lookup's cost:
			    * for outputs that show no lines) */
};

/* path's DWARF: 0 and *out set; 0 and *out NULL when the file has no DWARF or is refused (over
 * a limit: warned in d); -errno when it cannot be opened (recorded in d). */
int t2f_dwarf__open(const char *path, const struct t2f_dwarf_opts *opts, struct t2f_diag *d,
		    struct t2f_dwarf **out);
/* As __open, but what costs waits for __begin (or the first __lookup), on the thread that
 * makes it: here the file is opened as ELF and what its compressed debug sections declare is
 * checked against the limits and taken from the budget (so which files a spent budget refuses
 * does not depend on threads), warned in d; there libdw inflates the sections and the units'
 * ranges are read, warnings waiting for __report. A file that names a supplementary file is
 * opened at once, as by __open (finding and verifying that file asks opts on this thread).
 * 0 and *out (NULL: not an ELF file, or refused), or -errno (recorded in d). Whether the file
 * has DWARF is known after __begin: __none. */
int t2f_dwarf__open_lazy(const char *path, const struct t2f_dwarf_opts *opts, struct t2f_diag *d,
			 struct t2f_dwarf **out);
/* Whether every unit of path's DWARF is known to be in a language that mangles no name (C,
 * assembler: dwarf_index.c), so that lookups in it never ask opts->symbol_at. Known only where
 * that is cheap: its own .debug_info, not compressed, no supplementary file, compile units
 * alone (at most T2F_DWARF_PLAIN_UNITS), each with its language; false otherwise. Reads the
 * file on the calling thread; thread safe (no state). */
#define T2F_DWARF_PLAIN_UNITS 65536
bool t2f_dwarf__plain_only(const char *path);

/* What __open_lazy left for later, done (nothing for a handle __open made, or begun): 0, or
 * -ENOMEM. On the thread that may use the handle. */
int t2f_dwarf__begin(struct t2f_dwarf *dw);
/* Whether __begin found no DWARF (or libdw failed: warned): lookups then find nothing. */
bool t2f_dwarf__none(const struct t2f_dwarf *dw);
/* The bytes of the file's debug sections as libdw will hold them (compressed ones inflated), as
 * the file declares them when it was opened: what beginning the file and its lookups are likely
 * to cost, for a caller that spreads handles over threads. 0 for a file without any. */
uint64_t t2f_dwarf__weight(const struct t2f_dwarf *dw);
void t2f_dwarf__free(struct t2f_dwarf *dw); /* NULL is fine */
/* Lets go of the file once no more lookups are wanted: libdw's and libelf's state (line tables,
 * units, inflated debug sections, the mapping), the index and the descriptors. The handle
 * stays for __report (its warnings are kept) and __free; strings earlier lookups gave are no
 * longer valid, and a later __lookup gives -EINVAL. NULL or an ended handle is fine. On the
 * thread that may use the handle. */
void t2f_dwarf__end(struct t2f_dwarf *dw);
bool t2f_dwarf__ended(const struct t2f_dwarf *dw); /* whether __end let go of the file */

/* The bytes libdw would inflate opening path: what its compressed debug sections declare (0
 * when it has none or is not a regular ELF file). For callers that hand a file to libdw or
 * libdwfl themselves. */
uint64_t t2f_dwarf__inflated(const char *path);

/* What lookups left out (units over a limit, long names, memory), as warnings naming the file:
 * replayed into d and forgotten. On d's thread, while no lookup runs on dw. 0, or d's strict
 * error. */
int t2f_dwarf__report(struct t2f_dwarf *dw, struct t2f_diag *d);

/* The addresses the lookups to come will ask (sorted ascending; borrowed until the next call;
 * NULL or n 0: not known, the default): a unit indexed meanwhile records the inlined calls of
 * only the functions that hold one of them (every function's own ranges still, and the
 * functions nested in it), which is most of the indexing's work in a large unit. A lookup
 * elsewhere in such a unit later indexes it again in full: every answer and span is as
 * without. The limits on ranges and the warnings of names left out for their length count
 * what was indexed (a unit indexed again says its long names again). On the thread of the
 * handle's lookups. */
void t2f_dwarf__want(struct t2f_dwarf *dw, const uint64_t *addrs, size_t n);

/* The chain at elf_vaddr, innermost first, into out[0..max): the number of frames (0 when no
 * unit covers the address, the unit is left out, or neither a function nor the line table
 * does; one nameless frame with the line when only the line table does), or -ENOMEM; -EINVAL
 * after __end. Warnings wait for __report. */
int t2f_dwarf__lookup(struct t2f_dwarf *dw, uint64_t elf_vaddr, struct t2f_dwarf_frame *out,
		      size_t max);
/* __lookup, and the addresses [*lo, *last] around elf_vaddr where a lookup gives the same
 * chain (the same frames, names and lines): the ranges of the unit, of the innermost function
 * (less the ranges of the ones nested in it) and of the line table row that hold elf_vaddr.
 * Just elf_vaddr when that cannot be told (a unit left out, an error). */
int t2f_dwarf__lookup_span(struct t2f_dwarf *dw, uint64_t elf_vaddr,
			   struct t2f_dwarf_frame *out, size_t max, uint64_t *lo, uint64_t *last);

#endif
