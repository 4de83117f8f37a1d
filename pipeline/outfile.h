/* pipeline/outfile.h: the output of one conversion, written atomically.
 *
 * A named output is written to a temp file beside it (same directory, ".BASENAME.XXXXXX";
 * BASENAME cut, between UTF-8 characters, when the temp name would be longer than the directory
 * takes) and moved over the target by __commit() (pipeline/replace.h: an existing target is
 * swapped with it and then unlinked, which ext4 does much faster than a rename over it; no
 * fsync either way). The temp file gets the mode, owner and group
 * of the regular file it replaces (the owner and group where the process may give them: as
 * root, or a group it is in; set-user-ID and set-group-ID bits only with both), a new output
 * mode 0666 & ~umask. __free() without a successful __commit() unlinks the temp file, so a
 * failed run never leaves a half-written or clobbered output. Standard output ("-" or NULL)
 * and an existing target that is not a regular file (/dev/null, a FIFO) are written directly;
 * an existing directory is refused (-EISDIR).
 *
 * Signals (when opened with guard): while the temp file exists, SIGHUP, SIGINT, SIGQUIT,
 * SIGPIPE, SIGTERM and SIGXFSZ unlink it and end the process by the same signal
 * (pipeline/tmpguard.h; signals ignored on entry stay ignored). SIGKILL cannot be caught: it
 * or a crash can leave a ".BASENAME.XXXXXX" file behind (the new output not yet in place, or
 * the replaced one not yet unlinked; the target itself is whole, and the temp file safe to
 * delete). A power loss before the kernel wrote the new output back can leave it empty.
 *
 * Errors return -errno and record "OUTPUT: what happened (strerror)" in the diag.
 * Ownership: the outfile copies the path and owns the fd and the t2f_out it hands out.
 * Thread safety: one guarded named output at a time per process (__open() of a second one
 * before the first is freed fails with -EBUSY; unguarded ones are independent), each opened,
 * committed and freed on one thread; the writers may use several threads meanwhile.
 */
#ifndef T2F_OUTFILE_H
#define T2F_OUTFILE_H

#include <stdbool.h>

#include "formats/diag.h"
#include "writers/out.h"

struct t2f_outfile;

/* Creates the temp file (or wraps stdout), guarded against signals when guard is set. diag must
 * outlive the outfile. */
int t2f_outfile__open(const char *path, bool guard, struct t2f_diag *d, struct t2f_outfile **out);
/* The sink writers write to; owned by f. */
struct t2f_out *t2f_outfile__out(struct t2f_outfile *f);
/* The name shown in messages: the target path, or "<stdout>". */
const char *t2f_outfile__name(const struct t2f_outfile *f);
/* Flushes, closes and moves the temp file over the target. 0 or -errno (recorded). */
int t2f_outfile__commit(struct t2f_outfile *f);
/* Unlinks an uncommitted temp file, frees everything. NULL is fine. */
void t2f_outfile__free(struct t2f_outfile *f);

#endif
