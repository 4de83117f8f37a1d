/* symbolizer/text_syms_internal.h: a text symbol table's layout, shared by text_syms.c (built
 * from a file) and text_syms_cache.c (kept across runs: written out, mapped back). */
#ifndef T2F_TEXT_SYMS_INTERNAL_H
#define T2F_TEXT_SYMS_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbolizer/text_syms.h"

#define T2F_TS_NONE UINT32_MAX /* no module; names and lines fit 32 bits (files of at most
				* T2F_TEXT_SYMS_MAX_BYTES) */

/* A range of the final table: addresses [lo, hi) belong to the symbol starting at start. */
struct t2f_ts_range {
	uint64_t lo, hi, start;
	uint32_t name, module;      /* offsets into the names; module T2F_TS_NONE = none */
};

struct t2f_text_syms {
	char *names;                /* the names kept, each NUL-terminated */
	struct t2f_ts_range *ranges; /* sorted, disjoint */
	size_t n_ranges, n_syms;
	uint64_t bad_lines;
	size_t bytes;               /* names and ranges */
	void *map;                  /* a table mapped from the cache (names and ranges point into
				     * it; unmapped, not freed), or NULL */
	size_t map_len;
	bool partial;               /* a miss says nothing: text_syms.h __partial */
	uint64_t ref[2];            /* kallsyms: _text's and _stext's addresses, 0 for no such
				     * line (text_syms.h __kernel_ref) */
	_Atomic uint32_t refs;      /* its holders: t2f_text_syms__ref adds one, __free drops one */
};

#endif
