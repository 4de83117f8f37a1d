/* readers/perf_script_cut.h (internal): where a `perf script` text may be cut into segments
 * read by separate parsers (readers/perf_script_par.h). */
#ifndef T2F_PERF_SCRIPT_CUT_H
#define T2F_PERF_SCRIPT_CUT_H

#include <stdbool.h>
#include <stddef.h>

/* The last offset > 0 in p[0..len) at which a complete line (one that ends with '\n' in p)
 * begins a record: a line that starts with neither a blank, a tab, a carriage return, '\n' nor
 * '#', or one that starts with a space and parses as a sample header (perf right-aligns some
 * comms). The reader's state at such a line does not carry over from the lines before (but for
 * the mappings, see perf_script_par.h). false when there is none. */
bool ps_find_last_cut(const char *p, size_t len, size_t *cut);

#endif
