/* writers/par_text.h: text made in pieces on several threads, written in order.
 *
 * A writer whose output is a long run of independent pieces (job 0, 1, … n - 1) gives a function
 * that formats one piece into a buffer; worker threads format pieces while the calling thread
 * writes the finished ones to the sink in job order. At most a few pieces per thread are held,
 * so memory is bounded by the pieces' size, not the output's. The output does not depend on the
 * number of threads.
 */
#ifndef T2F_PAR_TEXT_H
#define T2F_PAR_TEXT_H

#include <stddef.h>

#include "formats/buf.h"
#include "writers/out.h"

/* Appends piece `job` to b (empty on entry). `worker` (< threads) tells which worker calls, for
 * per-worker scratch. Called on worker threads, several at once: read shared state only.
 * 0 or a negative errno. */
typedef int (*t2f_par_text_fn)(void *ctx, size_t job, unsigned worker, struct t2f_buf *b);

/* Formats jobs [0, jobs) with fn on `threads` worker threads (1 or more; 1 formats on the
 * calling thread) and writes them to out in order. piece_cap: the room each piece buffer starts
 * with (0: none, they grow as pieces need); from T2F_PAR_TEXT_HUGE on the buffers are whole huge
 * pages (formats/mem.h), which fault in 2 MiB at a time. Returns 0, the first error of fn (no
 * piece is made after it, and out then holds some of the pieces before it: discard the output),
 * -ENOMEM, or -EAGAIN when no thread could be started. Does not finish out. */
#define T2F_PAR_TEXT_HUGE ((size_t)1 << 20)
int t2f_par_text__run(size_t jobs, unsigned threads, t2f_par_text_fn fn, void *ctx,
		      size_t piece_cap, struct t2f_out *out);

#endif
