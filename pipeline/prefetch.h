/* pipeline/prefetch.h: a kallsyms table loaded on a thread of its own while the conversion goes
 * on, taken later (symbolizer/text_syms.h: t2f_text_syms__load's rules), or the table the symbol
 * cache keeps for it mapped and checked there (symbolizer/text_syms_cache.h).
 *
 * Used for the kallsyms file of a perf.data input: reading /proc/kallsyms is the kernel
 * formatting some 200K lines, which can overlap reading the recording, and so can its parse
 * and writing the table into the symbol cache (7 MB for 122K symbols); with the table kept,
 * checking its 3.8 MB of ranges can.
 *
 * Messages: the thread's load keeps them to itself. A load that failed or skipped a bad line is
 * not handed over: the caller loads the file again with its own diag, so every message (and
 * strict mode) is as a load of its own would have them.
 *
 * Ownership: the path is copied; the table taken is the caller's hold. Errors: -ENOMEM or
 * pthread_create's (negated) from __start. One calling thread.
 */
#ifndef T2F_PREFETCH_H
#define T2F_PREFETCH_H

#include <stdbool.h>

#include "symbolizer/text_syms.h"
#include "symbolizer/text_syms_cache.h"

struct t2f_prefetch;

/* Where a table loaded well is kept for later runs (symbolizer/text_syms_cache.h), on the same
 * thread right after the load, as the resolve stage would keep it: the symbol cache's directory
 * (the default one) with this size limit. */
struct t2f_prefetch_keep {
	bool cache;                  /* false: not kept */
	uint64_t cache_max;          /* 0: $T2F_CACHE_MAX, else the default */
};

/* Starts loading the kallsyms file path; keep may be NULL (not kept). from_cache: maps the
 * table the symbol cache (keep's limit) keeps for path instead, and loads nothing; none there,
 * or one ignored, takes as a failed load (1). 0 or an error (see above). */
int t2f_prefetch__start(const char *path, const struct t2f_prefetch_keep *keep, bool from_cache,
			struct t2f_prefetch **out);

/* Whether pf is loading path (pf may be NULL): a table of the whole file. */
bool t2f_prefetch__is(const struct t2f_prefetch *pf, const char *path);
/* Whether pf is mapping the table the symbol cache keeps for path (a partial one for
 * /proc/kallsyms). */
bool t2f_prefetch__keeps(const struct t2f_prefetch *pf, const char *path);

/* Waits for the load: 0 and *out, the table (a hold: t2f_text_syms__free), *key (when not
 * NULL) the file's key taken before the load (symbolizer/text_syms_cache.h: what the table may
 * be kept under) and *kept (when not NULL) whether the thread kept it in the symbol cache; 1
 * when it failed or skipped a line (load it again: see above). Once only: a second call gives
 * -EINVAL. */
int t2f_prefetch__take(struct t2f_prefetch *pf, struct t2f_text_syms **out,
		       struct t2f_text_syms_key *key, bool *kept);

/* Waits for the load if it was not taken, frees its table. NULL is fine. */
void t2f_prefetch__free(struct t2f_prefetch *pf);

#endif
