/* writers/par_for.h: a few calls run at once, one thread each.
 *
 * For a writer's pass split into parts of about equal work (sorting parts of the lines, filling
 * parts of the buckets): part 0 runs on the calling thread, every other part on a thread of its
 * own, and the call returns when all are done. A part whose thread cannot be started runs on the
 * calling thread afterwards, so every part always runs exactly once.
 */
#ifndef T2F_PAR_FOR_H
#define T2F_PAR_FOR_H

#include <stddef.h>

#define T2F_PAR_FOR_MAX 8 /* parts at most */

/* Calls fn(ctx, i) for every i in [0, n), n <= T2F_PAR_FOR_MAX, at once on up to n threads.
 * fn must only touch what part i owns (and read shared state). */
void t2f_par_for(unsigned n, void (*fn)(void *ctx, unsigned i), void *ctx);
/* How many parts n items make for `threads` threads: at most threads and T2F_PAR_FOR_MAX, and
 * fewer while a part would have fewer than `min` items; at least 1. */
unsigned t2f_par_parts(size_t n, unsigned threads, size_t min);

#endif
