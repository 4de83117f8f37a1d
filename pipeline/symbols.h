/* pipeline/symbols.h: what a t2f_symbols handle (include/trace2flame.h) holds, shared by
 * symbols.c (modules, lookups, demangling) and symbols_files.c (refused candidates, an ELF
 * file's function symbols). Internal to pipeline/. Used by one thread at a time.
 */
#ifndef T2F_SYMBOLS_H
#define T2F_SYMBOLS_H

#include <stdio.h>

#include "formats/diag.h"
#include "formats/strtab.h"
#include "include/trace2flame.h"
#include "symbolizer/symbolizer.h"

struct t2f_symbols {
	FILE *msg;                  /* stderr, or the callback's stream (owned) */
	struct t2f_diag *diag;
	struct t2f_strtab *names;
	struct t2f_symbolizer *sym;
	enum t2f_demangle_mode demangle;
	bool cache;                 /* the symbol cache is used (t2f_symbols_options.cache) */
	char *error;                /* the last failure's message of each_function, or NULL */
};

#endif
