/* pipeline/tmpguard.c: a temp file unlinked by a fatal signal (see tmpguard.h).
 *
 * One atomic word says who owns the file: its low two bits are a state, the bits above a signal
 * caught while the caller was busy with the file.
 *   IDLE   no file
 *   ARMED  a file, the handlers' to unlink
 *   BUSY   the caller is creating, renaming or unlinking it, its thread blocking the signals;
 *          a handler on another thread records its signal and returns, and the caller acts on
 *          it when the step is done
 *   DYING  a handler took the word and ends the process; nothing else touches the file
 * A handler moves ARMED or IDLE to DYING, or BUSY to BUSY + its signal, by compare-and-swap:
 * whoever swaps from ARMED owns the file, so exactly one of the caller and the handlers unlinks
 * or renames it. A lock-free atomic is safe to use in a handler (C11 7.14.1.1); a volatile
 * sig_atomic_t could not be swapped.
 *
 * The adopted file has a word of its own, IDLE, ARMED or DYING: its path (or the end of it, for
 * a file looked for among the open descriptors) is written only while the word is IDLE, by the
 * adopting thread with the signals blocked, and read by a handler only after it swapped ARMED
 * for DYING. A handler takes that word first (to DYING whatever it held), then goes on with the
 * other.
 */
#include "pipeline/tmpguard.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipeline/replace.h"

_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the handlers need a lock-free atomic int");

enum { T2F_TG_IDLE, T2F_TG_ARMED, T2F_TG_BUSY, T2F_TG_DYING, T2F_TG_STATE = 3, T2F_TG_SIG = 2 };

static const int t2f_tg_signals[] = { SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGTERM, SIGXFSZ };

static atomic_int t2f_tg_word;          /* T2F_TG_* | signal << T2F_TG_SIG */
static char t2f_tg_path[PATH_MAX];      /* the file; written only while BUSY */
static atomic_int t2f_tg_adopted;       /* T2F_TG_IDLE, _ARMED or _DYING */
static char t2f_tg_adopted_path[PATH_MAX]; /* written only while IDLE */
static bool t2f_tg_adopted_open;        /* the path is the end of an open file's; ditto */
static sigset_t t2f_tg_set;             /* t2f_tg_signals, blocked while BUSY and in a handler */
static pthread_once_t t2f_tg_once = PTHREAD_ONCE_INIT; /* the handlers installed */

/* Ends the process by sig: the default action, then sig raised on this thread. In a handler (sig
 * blocked until it returns) or with sig blocked, the signal stays pending until then. Uses only
 * async-signal-safe calls. */
static void t2f_tg_die(int sig)
{
	struct sigaction sa = { .sa_handler = SIG_DFL };

	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
	raise(sig);
}

/* Whether link (len bytes) ends with tail and then six letters or digits. Async-signal-safe. */
static bool t2f_tg_tail_is(const char *link, size_t len, const char *tail)
{
	size_t tl = strlen(tail);

	if (len < tl + 6 || memcmp(link + len - 6 - tl, tail, tl) != 0)
		return false;
	for (size_t i = len - 6; i < len; i++) {
		char ch = link[i];

		if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')))
			return false;
	}
	return true;
}

/* The path descriptor fd (its name in /proc/self/fd) holds open, in link: its length, or -1.
 * Async-signal-safe. */
static ssize_t t2f_tg_fd_path(const char *fd, char *link, size_t size)
{
	char name[64] = "/proc/self/fd/";
	size_t at = strlen(name), len = strlen(fd);
	ssize_t n;

	if (len >= sizeof(name) - at)
		return -1;
	memcpy(name + at, fd, len + 1);
	n = readlink(name, link, size - 1);
	if (n > 0)
		link[n] = '\0';
	return n;
}

/* Unlinks the first file this process holds open whose path ends with tail and then six letters
 * or digits. Async-signal-safe: system calls and buffers on the stack only. */
static void t2f_tg_unlink_open(const char *tail)
{
	_Alignas(struct dirent64) char buf[2048];
	char link[PATH_MAX];
	int dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ssize_t n;

	if (dir < 0)
		return;
	while ((n = getdents64(dir, buf, sizeof(buf))) > 0) {
		for (ssize_t at = 0; at < n;) {
			const struct dirent64 *e = (const struct dirent64 *)(buf + at);
			ssize_t len = t2f_tg_fd_path(e->d_name, link, sizeof(link));

			at += e->d_reclen;
			if (len > 0 && t2f_tg_tail_is(link, (size_t)len, tail)) {
				unlink(link);
				close(dir);
				return;
			}
		}
	}
	close(dir);
}

static void t2f_tg_handler(int sig)
{
	int saved = errno;
	int w;

	if (atomic_exchange(&t2f_tg_adopted, T2F_TG_DYING) == T2F_TG_ARMED) {
		if (t2f_tg_adopted_open)
			t2f_tg_unlink_open(t2f_tg_adopted_path);
		else
			unlink(t2f_tg_adopted_path);
	}
	w = atomic_load(&t2f_tg_word);

	for (;;) {
		int state = w & T2F_TG_STATE;
		int next = state == T2F_TG_BUSY ? w | sig << T2F_TG_SIG : T2F_TG_DYING;

		/* another handler ends the process, or will once the caller's step is done */
		if (state == T2F_TG_DYING || (state == T2F_TG_BUSY && w >> T2F_TG_SIG))
			break;
		if (!atomic_compare_exchange_weak(&t2f_tg_word, &w, next))
			continue;
		if (state == T2F_TG_ARMED)
			unlink(t2f_tg_path);
		if (state != T2F_TG_BUSY)
			t2f_tg_die(sig);
		break;
	}
	errno = saved;
}

/* Installs the handler for every signal whose disposition is the default one. */
static void t2f_tg_install(void)
{
	struct sigaction sa = { .sa_handler = t2f_tg_handler, .sa_flags = SA_RESTART };
	struct sigaction old;

	sigemptyset(&t2f_tg_set);
	for (size_t i = 0; i < sizeof(t2f_tg_signals) / sizeof(t2f_tg_signals[0]); i++)
		sigaddset(&t2f_tg_set, t2f_tg_signals[i]);
	sa.sa_mask = t2f_tg_set;
	for (size_t i = 0; i < sizeof(t2f_tg_signals) / sizeof(t2f_tg_signals[0]); i++)
		if (sigaction(t2f_tg_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
			sigaction(t2f_tg_signals[i], &sa, NULL);
}

/* A handler on another thread took the word (DYING) and is ending the process: wait for it,
 * touching nothing (exiting now could cut its unlink short). */
static _Noreturn void t2f_tg_wait_end(void)
{
	for (;;)
		pause();
}

/* Blocks the signals in this thread and moves the word from `from` to BUSY. 0, or -EBUSY when
 * the word is in another state (waits for the end when a handler has it). */
static int t2f_tg_enter(int from, sigset_t *old)
{
	int w = from;

	pthread_sigmask(SIG_BLOCK, &t2f_tg_set, old);
	if (atomic_compare_exchange_strong(&t2f_tg_word, &w, T2F_TG_BUSY))
		return 0;
	if (w == T2F_TG_DYING)
		t2f_tg_wait_end();
	pthread_sigmask(SIG_SETMASK, old, NULL);
	return -EBUSY;
}

/* Moves the word from BUSY to `to` and restores the signal mask; when a signal was caught
 * meanwhile, removes the file if it exists (`to` is ARMED) and ends the process by it instead. */
static void t2f_tg_leave(int to, const sigset_t *old)
{
	int w = T2F_TG_BUSY;
	sigset_t one;

	if (atomic_compare_exchange_strong(&t2f_tg_word, &w, to)) {
		pthread_sigmask(SIG_SETMASK, old, NULL);
		return;
	}
	atomic_store(&t2f_tg_word, T2F_TG_DYING);
	if (to == T2F_TG_ARMED)
		unlink(t2f_tg_path);
	t2f_tg_die(w >> T2F_TG_SIG);
	sigemptyset(&one);
	sigaddset(&one, w >> T2F_TG_SIG);
	pthread_sigmask(SIG_UNBLOCK, &one, NULL); /* delivered here: the process ends */
	t2f_tg_wait_end();
}

int t2f_tmpguard__create(char *tmpl)
{
	size_t len = strlen(tmpl);
	sigset_t old;
	int fd, err;

	if (len >= sizeof(t2f_tg_path))
		return -ENAMETOOLONG;
	pthread_once(&t2f_tg_once, t2f_tg_install);
	err = t2f_tg_enter(T2F_TG_IDLE, &old);
	if (err)
		return err;
	memcpy(t2f_tg_path, tmpl, len + 1);
	fd = mkstemp(t2f_tg_path);
	err = fd < 0 ? -errno : 0;
	t2f_tg_leave(fd < 0 ? T2F_TG_IDLE : T2F_TG_ARMED, &old);
	if (err)
		return err;
	memcpy(tmpl, t2f_tg_path, len);
	return fd;
}

int t2f_tmpguard__rename(const char *to)
{
	sigset_t old;
	int err = t2f_tg_enter(T2F_TG_ARMED, &old);

	if (err)
		return err;
	err = t2f_replace(t2f_tg_path, to);
	t2f_tg_leave(err ? T2F_TG_ARMED : T2F_TG_IDLE, &old);
	return err;
}

void t2f_tmpguard__remove(void)
{
	sigset_t old;

	if (t2f_tg_enter(T2F_TG_ARMED, &old))
		return;
	unlink(t2f_tg_path);
	t2f_tg_leave(T2F_TG_IDLE, &old);
}

/* Moves the adopted file's word from `from` to `to`; when a handler took it (DYING), waits for
 * the end of the process. */
static void t2f_tg_adopted_move(int from, int to)
{
	int w = from;

	if (!atomic_compare_exchange_strong(&t2f_tg_adopted, &w, to) && w == T2F_TG_DYING)
		t2f_tg_wait_end();
}

/* Adopts path, a file's or the end of an open one's. */
static int t2f_tg_adopt(const char *path, bool open)
{
	size_t len = strlen(path);
	sigset_t old;

	if (len >= sizeof(t2f_tg_adopted_path))
		return -ENAMETOOLONG;
	pthread_once(&t2f_tg_once, t2f_tg_install);
	pthread_sigmask(SIG_BLOCK, &t2f_tg_set, &old);
	t2f_tg_adopted_move(T2F_TG_ARMED, T2F_TG_IDLE);
	if (atomic_load(&t2f_tg_adopted) == T2F_TG_DYING)
		t2f_tg_wait_end();
	memcpy(t2f_tg_adopted_path, path, len + 1);
	t2f_tg_adopted_open = open;
	t2f_tg_adopted_move(T2F_TG_IDLE, T2F_TG_ARMED);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return 0;
}

int t2f_tmpguard__adopt(const char *path)
{
	return t2f_tg_adopt(path, false);
}

int t2f_tmpguard__adopt_open(const char *tail)
{
	return t2f_tg_adopt(tail, true);
}

void t2f_tmpguard__release(void)
{
	sigset_t old;

	pthread_sigmask(SIG_BLOCK, &t2f_tg_set, &old);
	t2f_tg_adopted_move(T2F_TG_ARMED, T2F_TG_IDLE);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void t2f_tmpguard__follow(void *ctx, const char *path, bool named)
{
	(void)ctx;
	if (path)
		t2f_tg_adopt(path, !named);
	else
		t2f_tmpguard__release();
}
