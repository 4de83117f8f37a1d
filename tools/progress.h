/* tools/progress.h: a one-line progress bar on a terminal.
 *
 *   "\r  412/1024 MB  38%  605 MB/s"   (total known)
 *   "\r  412 MB  605 MB/s"             (total unknown: standard input)
 *   "\r  LABEL  12/40 MB  30%  5 MB/s" (with a label: a debug file being fetched)
 *
 * Redrawn at most every 250 ms (a labelled bar is drawn at its first update), erased by
 * __finish(). The CLI shows it only when stderr is a
 * terminal, --quiet is not given and the input is big (t2f_progress__wanted). Not thread safe.
 */
#ifndef T2F_PROGRESS_H
#define T2F_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define T2F_PROGRESS_MIN_SIZE (64ull << 20) /* smaller inputs finish before a bar helps */

struct t2f_progress;

/* Whether a bar is worth drawing on `tty` for an input of `size` bytes (0 = unknown). */
bool t2f_progress__wanted(FILE *tty, uint64_t size);

/* tty: where to draw (borrowed); total: bytes expected, 0 = unknown; label: what is counted,
 * drawn before the numbers (copied; NULL: none). 0 or -ENOMEM. */
int t2f_progress__new(FILE *tty, uint64_t total, const char *label, struct t2f_progress **out);
/* done: bytes consumed so far. Cheap when called often: draws only every 250 ms. NULL is fine. */
void t2f_progress__update(struct t2f_progress *p, uint64_t done);
/* Erases the line and frees p. NULL is fine. */
void t2f_progress__finish(struct t2f_progress *p);

#endif
