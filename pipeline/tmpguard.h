/* pipeline/tmpguard.h: the one temp file a fatal signal removes before the process dies.
 *
 * While a temp file is guarded, SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGTERM and SIGXFSZ (a file
 * size limit reached while writing it) unlink it, then end the process by the same signal with
 * its default action (exit status 128+N in a shell; a core where SIGQUIT and SIGXFSZ make one).
 * The handlers are installed by the first __create() and stay: with nothing guarded they only
 * end the process as the default action would, so the SIGPIPE the command line raises when its
 * standard output was closed by its reader (the library's writes return -EPIPE instead:
 * formats/nosigpipe.h) still ends a run by SIGPIPE. A signal ignored when the handlers are
 * installed (SIGHUP under nohup, SIGPIPE ignored by the parent) stays ignored: no handler is
 * installed for it. SIGKILL cannot be caught: it (or a crash, or a power loss) leaves the temp
 * file behind.
 *
 * The calling thread blocks these signals while it creates, renames or unlinks the file, and
 * one atomic word hands the file between it and a handler, which may run on any thread: a
 * handler never unlinks a file after it was renamed into place, nor a later file that took its
 * name; a signal caught during such a step is acted on right after it.
 *
 * Thread safety: one file at a time per process, created, renamed and removed by one thread at a
 * time; the handlers run on any thread.
 */
#ifndef T2F_TMPGUARD_H
#define T2F_TMPGUARD_H

/* mkstemp(tmpl) (tmpl ends with "XXXXXX", which are replaced), the new file guarded. The fd, or
 * -errno: mkstemp's, -ENAMETOOLONG for a tmpl of PATH_MAX bytes or more, -EBUSY when a file is
 * guarded already. */
int t2f_tmpguard__create(char *tmpl);
/* Renames the guarded file to `to`; it is no longer guarded. 0, or -errno (still guarded;
 * -EBUSY when no file is guarded). */
int t2f_tmpguard__rename(const char *to);
/* Unlinks the guarded file, if any; it is no longer guarded. */
void t2f_tmpguard__remove(void);

#endif
