/* pipeline/prefetch.h: a side file read on a thread of its own while the conversion goes on,
 * taken whole later (formats/side_file.h: t2f_side_file__read's rules and errors).
 *
 * Used for the kallsyms file of a perf.data input: reading /proc/kallsyms is the kernel
 * formatting some 200K lines, which can overlap reading the recording.
 *
 * Ownership: the path is copied; the text taken is the caller's. Errors: -ENOMEM or
 * pthread_create's (negated) from __start; the read's from __take. One calling thread.
 */
#ifndef T2F_PREFETCH_H
#define T2F_PREFETCH_H

#include <stdbool.h>
#include <stddef.h>

struct t2f_prefetch;

/* Starts reading path (at most max bytes). 0 or an error (see above). */
int t2f_prefetch__start(const char *path, size_t max, struct t2f_prefetch **out);

/* Whether pf is reading path (pf may be NULL). */
bool t2f_prefetch__is(const struct t2f_prefetch *pf, const char *path);

/* Waits for the read: 0 and the NUL-terminated text (malloc'd, the caller's) and its length,
 * or t2f_side_file__read's error. Once only: a second call gives -EINVAL. */
int t2f_prefetch__take(struct t2f_prefetch *pf, char **text, size_t *len);

/* Waits for the read if it was not taken, frees its text. NULL is fine. */
void t2f_prefetch__free(struct t2f_prefetch *pf);

#endif
