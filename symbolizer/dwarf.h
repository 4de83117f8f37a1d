/* symbolizer/dwarf.h: inlined functions and source lines from an ELF file's DWARF (libdw).
 *
 * For an address in the file's own space (elf_vaddr), the chain of functions whose code is
 * there: the innermost inlined function with the source line of the address, then each function
 * it was inlined into with the line of that call, out to the function that holds the code; as
 * `addr2line -i -f` prints it. DWARF 4 and 5, compressed sections and a supplementary file
 * (.gnu_debugaltlink, dwz) are libdw's.
 *
 * Lazy per compilation unit: an address finds its unit (through .debug_aranges, else each
 * unit's ranges), and the first address of a unit indexes it once: every subprogram and
 * inlined subroutine with its address ranges, parent, name and call site, sorted by address.
 * Later addresses of the unit are a binary search and a walk up to the function. Units with no
 * address are never read.
 *
 * Names are raw (the linkage name when there is one, else DW_AT_name, each through the abstract
 * origin or specification); strings are libdw's or the index's, valid until __free.
 * Ownership: the handle owns its file descriptor and libdw state. Not thread safe; handles
 * share no state, so different handles may be used on different threads at once.
 */
#ifndef T2F_DWARF_H
#define T2F_DWARF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/diag.h"

struct t2f_dwarf;

struct t2f_dwarf_frame {
	const char *name;       /* raw; NULL when DWARF names none (code of no function DIE, such
				 * as a thunk: the line table still places it) */
	bool linkage;           /* name is a linkage (mangled) name, not DW_AT_name */
	const char *file;       /* source file of `line`; NULL when unknown */
	uint32_t line;          /* 0 when unknown */
	const char *fn_file;    /* where the function is declared (DW_AT_decl_file); NULL when
				 * unknown or nameless */
	uint32_t fn_line;       /* its DW_AT_decl_line; 0 when unknown */
};

#define T2F_DWARF_MAX_DEPTH 64  /* inline levels kept; deeper chains are cut at the outer end */

/* path's DWARF: 0 and *out set; 0 and *out NULL when the file has no .debug_info; -errno when
 * it cannot be opened (recorded in d). */
int t2f_dwarf__open(const char *path, struct t2f_diag *d, struct t2f_dwarf **out);
void t2f_dwarf__free(struct t2f_dwarf *dw); /* NULL is fine */

/* The chain at elf_vaddr, innermost first, into out[0..max): the number of frames (0 when no
 * unit covers the address, or neither a function nor the line table does; one nameless frame
 * with the line when only the line table does), or -ENOMEM. */
int t2f_dwarf__lookup(struct t2f_dwarf *dw, uint64_t elf_vaddr, struct t2f_dwarf_frame *out,
		      size_t max);

#endif
