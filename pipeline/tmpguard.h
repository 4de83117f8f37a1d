/* pipeline/tmpguard.h: the temp files a fatal signal removes before the process dies: one made
 * here, one adopted.
 *
 * While a temp file is guarded, SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGTERM and SIGXFSZ (a file
 * size limit reached while writing it) unlink it, then end the process by the same signal with
 * its default action (exit status 128+N in a shell; a core where SIGQUIT and SIGXFSZ make one).
 * The handlers are installed by the first __create() or __adopt() and stay: with nothing
 * guarded they only end the process as the default action would, so the SIGPIPE the command
 * line raises when its standard output was closed by its reader (the library's writes return
 * -EPIPE instead: formats/nosigpipe.h) still ends a run by SIGPIPE. A signal ignored when the
 * handlers are installed (SIGHUP under nohup, SIGPIPE ignored by the parent) stays ignored: no
 * handler is installed for it. SIGKILL cannot be caught: it (or a crash, or a power loss)
 * leaves the temp file behind.
 *
 * The calling thread blocks these signals while it creates, renames or unlinks the file, and
 * one atomic word hands the file between it and a handler, which may run on any thread: a
 * handler never unlinks a file after it was renamed into place, nor a later file that took its
 * name; a signal caught during such a step is acted on right after it.
 *
 * A second file, one some other code creates and renames (libdebuginfod's download of a debug
 * file), may be adopted by its path while it exists: the handlers unlink it too, before the
 * guarded file. Its owner renames or removes it itself and releases it after; a signal caught
 * in between unlinks the old name, then free (barring another file made under that same random
 * name meanwhile). Before its name is known, such a file may be adopted by the end of its name
 * instead (__adopt_open): the handlers then look among the process's open descriptors for it
 * (/proc/self/fd), so that a signal caught between its making and its adoption by name removes
 * it too. The file is not guarded before it is adopted.
 *
 * Thread safety: one file at a time per process, created, renamed and removed by one thread at a
 * time, and one adopted file, adopted and released by one thread at a time; the handlers run on
 * any thread.
 */
#ifndef T2F_TMPGUARD_H
#define T2F_TMPGUARD_H

#include <stdbool.h>

/* mkstemp(tmpl) (tmpl ends with "XXXXXX", which are replaced), the new file guarded. The fd, or
 * -errno: mkstemp's, -ENAMETOOLONG for a tmpl of PATH_MAX bytes or more, -EBUSY when a file is
 * guarded already. */
int t2f_tmpguard__create(char *tmpl);
/* Moves the guarded file to `to` (pipeline/replace.h: over a file there, swapped with it and
 * that file unlinked, all with the signals blocked); it is no longer guarded. 0, or -errno
 * (still guarded; -EBUSY when no file is guarded). */
int t2f_tmpguard__rename(const char *to);
/* Unlinks the guarded file, if any; it is no longer guarded. */
void t2f_tmpguard__remove(void);

/* The file at path (made by someone else) is unlinked by the handlers until __release(); it
 * replaces a file adopted before. Installs the handlers as __create() does. 0, or
 * -ENAMETOOLONG for a path of PATH_MAX bytes or more (nothing adopted then). */
int t2f_tmpguard__adopt(const char *path);
/* Adopts the file, not yet made or not yet named, that one of this process's descriptors will
 * hold open and whose path ends with tail and then six letters or digits (mkstemp's): the
 * handlers unlink the first such file they find open; it replaces a file adopted before. 0, or
 * -ENAMETOOLONG for a tail of PATH_MAX bytes or more. */
int t2f_tmpguard__adopt_open(const char *tail);
/* The adopted file, if any, is no longer unlinked by a signal. */
void t2f_tmpguard__release(void);
/* __adopt(path) when named, __adopt_open(path) when not, or __release() when path is NULL: the
 * shape of a callback told of a temp file and of its end (symbolizer/debuginfod.h); ctx is not
 * used. */
void t2f_tmpguard__follow(void *ctx, const char *path, bool named);

#endif
