/* pipeline/resym_kallsyms.h: the kallsyms table the resolve stage (resymbolize.c) names kernel
 * frames from.
 *
 * Ownership: the table returned is a hold (symbolizer/text_syms.h: t2f_text_syms__free). Not
 * thread safe beyond what text_syms_share.h and text_syms_cache.h allow (one session's).
 */
#ifndef T2F_RESYM_KALLSYMS_H
#define T2F_RESYM_KALLSYMS_H

#include <stdbool.h>

#include "formats/diag.h"
#include "pipeline/resymbolize.h"
#include "symbolizer/text_syms.h"

/* The table of o->kallsyms: the one the symbol cache keeps from an earlier run (o->cache; not
 * when `whole`: a kept /proc/kallsyms table is partial, symbolizer/text_syms_cache.h, and a
 * read made because it lacked an address is not kept again), else the process's table of that
 * file (text_syms_share.h), else the file read (from o->kallsyms_read when it loads that path)
 * and kept in the symbol cache; counted in o->kallsyms_counts. 0 and *out; or the read's error
 * (reported in d), or the warning's under --strict when a kept file was ignored. */
int t2f_resym__kallsyms(const struct t2f_resym_opts *o, struct t2f_diag *d, bool whole,
			struct t2f_text_syms **out);

#endif
