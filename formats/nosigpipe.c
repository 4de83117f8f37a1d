/* formats/nosigpipe.c: SIGPIPE blocked around writes, and taken when they raised it (see
 * nosigpipe.h). */
#include "formats/nosigpipe.h"

#include <errno.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

static void t2f_pipe_set(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGPIPE);
}

void t2f_nosigpipe__begin(struct t2f_nosigpipe *g)
{
	int saved = errno;
	sigset_t pipe, pending;

	t2f_pipe_set(&pipe);
	pthread_sigmask(SIG_BLOCK, &pipe, &g->old);
	g->pending = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1;
	errno = saved;
}

void t2f_nosigpipe__end(struct t2f_nosigpipe *g, bool epipe)
{
	static const struct timespec now = { 0, 0 };
	int saved = errno;
	sigset_t pipe;

	t2f_pipe_set(&pipe);
	if (epipe && !g->pending)
		while (sigtimedwait(&pipe, NULL, &now) < 0 && errno == EINTR)
			;
	pthread_sigmask(SIG_SETMASK, &g->old, NULL);
	errno = saved;
}

ssize_t t2f_write_nosigpipe(int fd, const void *p, size_t len)
{
	struct t2f_nosigpipe g;
	ssize_t n;

	t2f_nosigpipe__begin(&g);
	n = write(fd, p, len);
	t2f_nosigpipe__end(&g, n < 0 && errno == EPIPE);
	return n;
}
