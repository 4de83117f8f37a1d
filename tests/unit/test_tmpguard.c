/* tests/unit/test_tmpguard.c: pipeline/tmpguard.c — create, rename and remove; one file at a time;
 * and, in child processes, a signal that unlinks the file and ends the process by itself: caught
 * on another thread than the caller's; pending while the caller renames (the renamed file and a
 * later file of the old name stay); ignored when the handlers were installed (it stays guarded).
 * An adopted file (made by other code): unlinked by a signal with the guarded file, the later
 * of two adopted, and not once released; adopted by the end of its name, the one held open
 * unlinked and one of the same name's end, closed, left. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdbool.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "support/fixture_env.h"
#include "pipeline/tmpguard.h"

static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* Creates a guarded file tmp/.out.XXXXXX, its name in tmpl. 0, or -1 (for a child process,
 * which must not fail a cmocka assertion). */
static int guard_file(char *tmpl)
{
	int fd;

	pathf(tmpl, "%s/.out.XXXXXX", tmp);
	fd = t2f_tmpguard__create(tmpl);
	if (fd < 0 || close(fd) < 0 || strstr(tmpl, "XXXXXX") || !exists(tmpl))
		return -1;
	return 0;
}

static void guard(char *tmpl)
{
	assert_int_equal(guard_file(tmpl), 0);
}

static void test_rename_and_remove(void **state)
{
	char tmpl[PATH_MAX], other[PATH_MAX], out[PATH_MAX];

	guard(tmpl);
	pathf(other, "%s/.other.XXXXXX", tmp);
	assert_int_equal(t2f_tmpguard__create(other), -EBUSY);
	assert_true(strstr(other, "XXXXXX") != NULL);
	pathf(out, "%s/no-such-dir/out", tmp);
	assert_int_equal(t2f_tmpguard__rename(out), -ENOENT); /* still guarded */
	pathf(out, "%s/out", tmp);
	assert_int_equal(t2f_tmpguard__rename(out), 0);
	assert_true(exists(out));
	assert_false(exists(tmpl));
	assert_int_equal(t2f_tmpguard__rename(out), -EBUSY); /* nothing guarded */

	guard(tmpl);
	t2f_tmpguard__remove();
	assert_false(exists(tmpl));
	t2f_tmpguard__remove(); /* nothing guarded: nothing done */
	assert_true(exists(out));
}

static void test_too_long(void **state)
{
	char tmpl[PATH_MAX + 1];

	memset(tmpl, 'a', PATH_MAX - 6);
	memcpy(tmpl + PATH_MAX - 6, "XXXXXX", 7);
	assert_int_equal(t2f_tmpguard__create(tmpl), -ENAMETOOLONG);
}

/* Runs fn in a child process; its wait status. The child ends in 60 s at the latest (SIGALRM).
 * These tests run before any file is guarded in this process: the children install the
 * handlers themselves. */
static int in_child(void (*fn)(char *tmpl), char *tmpl)
{
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (pid == 0) {
		alarm(60);
		fn(tmpl);
		_exit(0);
	}
	pathf(tmpl, "%s/.out.", tmp); /* the name is the child's: found by listing */
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

/* A file named tmp/.out.* exists. */
static bool guarded_left(void)
{
	char cmd[PATH_MAX + 64];

	pathf(cmd, "ls -A %s | grep -q '^\\.out\\.'", tmp);
	return system(cmd) == 0;
}

static void *wait_forever(void *arg)
{
	for (;;)
		pause();
	return arg;
}

/* The caller's thread blocks SIGTERM: a worker takes it, unlinks the file and ends the process. */
static void term_on_worker(char *tmpl)
{
	pthread_t t;
	sigset_t set;

	if (guard_file(tmpl) || pthread_create(&t, NULL, wait_forever, NULL))
		_exit(100);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	kill(getpid(), SIGTERM);
	wait_forever(NULL);
}

static void test_signal_on_worker(void **state)
{
	char tmpl[PATH_MAX];
	int status = in_child(term_on_worker, tmpl);

	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGTERM);
	assert_false(guarded_left());
}

/* SIGINT pending (blocked) across the rename, then let in after a new file took the old temp
 * name (another run's temp file): it ends the process and leaves both files alone. */
static void int_after_rename(char *tmpl)
{
	char out[PATH_MAX];
	sigset_t set;

	if (guard_file(tmpl))
		_exit(100);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	raise(SIGINT);
	pathf(out, "%s/out", tmp);
	if (t2f_tmpguard__rename(out) || close(open(tmpl, O_CREAT | O_EXCL | O_WRONLY, 0600)))
		_exit(101);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	_exit(102);
}

static void test_pending_across_rename(void **state)
{
	char tmpl[PATH_MAX], out[PATH_MAX];
	int status = in_child(int_after_rename, tmpl);

	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGINT);
	assert_true(guarded_left());
	assert_true(exists(pathf(out, "%s/out", tmp)));
}

/* SIGHUP ignored before the first create stays ignored: the file is still there to remove. */
static void hup_ignored(char *tmpl)
{
	signal(SIGHUP, SIG_IGN);
	if (guard_file(tmpl))
		_exit(100);
	raise(SIGHUP);
	if (!exists(tmpl))
		_exit(101);
	t2f_tmpguard__remove();
	_exit(exists(tmpl) ? 102 : 0);
}

static void test_ignored_stays_ignored(void **state)
{
	char tmpl[PATH_MAX];
	int status = in_child(hup_ignored, tmpl);

	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_false(guarded_left());
}

/* A file tmp/.out.adopted.N made here (as another library would), then adopted. */
static int adopt_file(char *path, int n)
{
	pathf(path, "%s/.out.adopted.%d", tmp, n);
	if (close(open(path, O_CREAT | O_EXCL | O_WRONLY, 0600)) || t2f_tmpguard__adopt(path))
		return -1;
	return 0;
}

/* A guarded file and two adopted ones, one after the other: SIGTERM unlinks the guarded file and
 * the second adopted one; the first, replaced, stays. */
static void term_adopted(char *tmpl)
{
	char first[PATH_MAX], second[PATH_MAX];

	if (guard_file(tmpl) || adopt_file(first, 1) || adopt_file(second, 2))
		_exit(100);
	raise(SIGTERM);
	_exit(101);
}

static void test_adopted_unlinked(void **state)
{
	char tmpl[PATH_MAX], path[PATH_MAX];
	int status = in_child(term_adopted, tmpl);

	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGTERM);
	assert_true(exists(pathf(path, "%s/.out.adopted.1", tmp)));
	assert_false(exists(pathf(path, "%s/.out.adopted.2", tmp)));
	unlink(pathf(path, "%s/.out.adopted.1", tmp));
	assert_false(guarded_left());
}

/* Adopted, then released: SIGTERM ends the process and leaves the file. */
static void term_released(char *tmpl)
{
	char path[PATH_MAX];

	if (adopt_file(path, 3))
		_exit(100);
	t2f_tmpguard__follow(NULL, NULL, false);
	raise(SIGTERM);
	_exit(101);
}

static void test_released_stays(void **state)
{
	char tmpl[PATH_MAX], path[PATH_MAX];
	int status = in_child(term_released, tmpl);

	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGTERM);
	assert_true(exists(pathf(path, "%s/.out.adopted.3", tmp)));
	unlink(path);
}

/* Two files tmp/.out.open.AAAAAA, closed, and tmp/.out.open.BBBBBB, held open, adopted by the
 * end of their names: SIGTERM unlinks the open one only. */
static void term_open(char *tmpl)
{
	char path[PATH_MAX], tail[PATH_MAX];

	if (close(open(pathf(path, "%s/.out.open.AAAAAA", tmp), O_CREAT | O_EXCL | O_WRONLY,
		       0600)) ||
	    open(pathf(path, "%s/.out.open.BBBBBB", tmp), O_CREAT | O_EXCL | O_WRONLY, 0600) < 0)
		_exit(100);
	pathf(tail, "/%s/.out.open.", strrchr(tmp, '/') + 1);
	if (t2f_tmpguard__adopt_open(tail))
		_exit(101);
	raise(SIGTERM);
	_exit(102);
}

static void test_open_unlinked(void **state)
{
	char tmpl[PATH_MAX], path[PATH_MAX];
	int status = in_child(term_open, tmpl);

	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGTERM);
	assert_true(exists(pathf(path, "%s/.out.open.AAAAAA", tmp)));
	assert_false(exists(pathf(path, "%s/.out.open.BBBBBB", tmp)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		/* first: no file guarded in this process yet (see in_child) */
		FX_TEST(test_signal_on_worker),
		FX_TEST(test_pending_across_rename),
		FX_TEST(test_ignored_stays_ignored),
		FX_TEST(test_adopted_unlinked),
		FX_TEST(test_released_stays),
		FX_TEST(test_open_unlinked),
		FX_TEST(test_rename_and_remove),
		FX_TEST(test_too_long),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
