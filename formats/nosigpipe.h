/* formats/nosigpipe.h: writes that never raise SIGPIPE in the process that embeds the library.
 *
 * Writing to a pipe or socket whose reader is gone sends SIGPIPE to the writing thread, and its
 * default action ends the whole process: a library must return -EPIPE instead. Between
 * __begin() and __end() the calling thread blocks SIGPIPE; a SIGPIPE its writes raised meanwhile
 * stays pending on the thread and __end() takes it (sigtimedwait, no wait) before restoring the
 * mask, unless one was pending already when __begin() ran (then it is the caller's, and stays).
 * One limit, as in every such scheme: a SIGPIPE another process sends the thread between the
 * failed write and __end() is taken with it.
 *
 * Threads: each thread its own scope (signal masks are per thread); a scope begins and ends on
 * one thread, and scopes do not nest. errno is preserved.
 */
#ifndef T2F_NOSIGPIPE_H
#define T2F_NOSIGPIPE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct t2f_nosigpipe {
	sigset_t old;           /* the thread's mask before __begin() */
	bool pending;           /* a SIGPIPE was pending already: not ours to take */
};

void t2f_nosigpipe__begin(struct t2f_nosigpipe *g);
/* epipe: a write of the scope failed with EPIPE (its SIGPIPE is then taken). */
void t2f_nosigpipe__end(struct t2f_nosigpipe *g, bool epipe);

/* write(2) inside a scope of its own: the same result and errno (EPIPE, never SIGPIPE). */
ssize_t t2f_write_nosigpipe(int fd, const void *p, size_t len);

#endif
