/* pipeline/inline_lookup.h: many DWARF lookups at once (symbolizer/dwarf.h), spread over
 * threads a handle at a time.
 *
 * Lookups are queued with the handle of their module's DWARF, then run: up to `threads` threads
 * take the handles one at a time as they finish the last, the costliest first (t2f_dwarf__weight,
 * then the most lookups), each handle's lookups on one thread, as handles share nothing and one
 * handle is not thread safe. Results do not depend on the number of threads nor on which thread
 * took a handle: a lookup's chain depends only on its handle and address.
 *
 * Ownership: the set owns its results (valid until __free); it borrows the handles, which must
 * not be used elsewhere during __run. Not thread safe itself.
 *
 * Memory: a handle's libdw state (line tables, inflated sections, its index) is the largest
 * part of a lookup's cost, so __run may end each handle (t2f_dwarf__end) as soon as its last
 * lookup is done, on the thread that ran them, the strings of its chains copied into the set
 * first (each distinct string once per thread): at most `threads` files are then open at a
 * time, not every file the profile touches.
 */
#ifndef T2F_INLINE_LOOKUP_H
#define T2F_INLINE_LOOKUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbolizer/dwarf.h"

struct t2f_inl_lookups;

int t2f_inl_lookups__new(struct t2f_inl_lookups **out); /* 0 or -ENOMEM */
void t2f_inl_lookups__free(struct t2f_inl_lookups *l);   /* NULL is fine */

/* Queues the chain at elf_vaddr of dw; *idx: its index, from 0. 0, -ENOMEM or -T2F_ERR_LIMIT. */
int t2f_inl_lookups__add(struct t2f_inl_lookups *l, struct t2f_dwarf *dw, uint64_t elf_vaddr,
			 uint32_t *idx);
/* A chain known already (the symbol cache's: symbolizer.h __cached_inlines), innermost first:
 * copied (its strings borrowed); __get gives it at *idx, __run skips it. 0, -ENOMEM or
 * -T2F_ERR_LIMIT. */
int t2f_inl_lookups__add_known(struct t2f_inl_lookups *l, const struct t2f_dwarf_frame *frames,
			       size_t n, uint32_t *idx);
/* Whether lookup idx was added by __add_known. */
bool t2f_inl_lookups__known(const struct t2f_inl_lookups *l, uint32_t idx);
/* Runs every queued lookup on up to `threads` threads (0 or 1: this one), a handle's lookups in
 * the order they were added; with end, each handle ended after them (above). 0, or the first
 * error of a lookup (-ENOMEM). */
int t2f_inl_lookups__run(struct t2f_inl_lookups *l, unsigned threads, bool end);
/* Whether lookup idx's handle turned out to have no DWARF in __run (t2f_dwarf__none: a handle
 * opened lazily); valid until its owner settles the handle. */
bool t2f_inl_lookups__no_dwarf(const struct t2f_inl_lookups *l, uint32_t idx);
/* The handles with DWARF lookups were queued for, and those __run ended. */
size_t t2f_inl_lookups__handles(const struct t2f_inl_lookups *l);
uint64_t t2f_inl_lookups__ended(const struct t2f_inl_lookups *l);
/* Lookup idx's chain, innermost first: its length (0: none, *frames NULL) and *frames. */
int t2f_inl_lookups__get(const struct t2f_inl_lookups *l, uint32_t idx,
			 const struct t2f_dwarf_frame **frames);
/* The addresses [*lo, *last] that have the chain of lookup idx (run, not known: dwarf.h
 * __lookup_span). */
void t2f_inl_lookups__span(const struct t2f_inl_lookups *l, uint32_t idx, uint64_t *lo,
			   uint64_t *last);

#endif
