/* tests/unit/test_session_sigpipe.c: libtrace2flame never raises SIGPIPE in the process that
 * embeds it. SIGPIPE keeps its default action (which ends the process) throughout: writing a
 * session to a pipe or socket whose reader is gone, to standard output closed the same way, and
 * messages to such a standard error, each returns -EPIPE or loses the message; the test process
 * lives, no SIGPIPE is left pending and the signal mask is as it was. The same from 4 threads at
 * once, and with SIGPIPE blocked by the caller (then still blocked, none pending). */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include <trace2flame.h>

/* Enough distinct stacks that the output passes a pipe's 64 KiB buffer. */
static char *input;
static size_t input_len;

static int make_input(void **state)
{
	size_t cap = 2u << 20;

	(void)state;
	input = malloc(cap);
	if (!input)
		return -1;
	for (int i = 0; i < 40000; i++)
		input_len += (size_t)snprintf(input + input_len, cap - input_len,
					      "main;work_%d;leaf_%d 1\n", i, i);
	return 0;
}

static int free_input(void **state)
{
	(void)state;
	free(input);
	return 0;
}

static void ignore(void *ctx, const char *line)
{
	(void)ctx;
	(void)line;
}

static struct t2f_session *session(bool quiet_callback)
{
	struct t2f_options o = { .size = sizeof(o), .jobs = 1,
				 .message = quiet_callback ? ignore : NULL };
	struct t2f_session *s;

	assert_int_equal(t2f_session_new(&o, &s), 0);
	assert_int_equal(t2f_session_add_bytes(s, input, input_len, "stacks"), 0);
	return s;
}

/* A pipe whose read end is closed: fds[1] is the write end. */
static void dead_pipe(int fds[2])
{
	assert_int_equal(pipe(fds), 0);
	close(fds[0]);
	fds[0] = -1;
}

static bool sigpipe_pending(void)
{
	sigset_t set;

	assert_int_equal(sigpending(&set), 0);
	return sigismember(&set, SIGPIPE) == 1;
}

static bool sigpipe_blocked(void)
{
	sigset_t set;

	assert_int_equal(pthread_sigmask(SIG_BLOCK, NULL, &set), 0);
	return sigismember(&set, SIGPIPE) == 1;
}

static void assert_default_action(void)
{
	struct sigaction sa;

	assert_int_equal(sigaction(SIGPIPE, NULL, &sa), 0);
	assert_true(sa.sa_handler == SIG_DFL);
}

static void test_write_fd_pipe(void **state)
{
	struct t2f_write_options w = { .size = sizeof(w), .format = T2F_FORMAT_COLLAPSED };
	struct t2f_session *s = session(true);
	int fds[2];

	(void)state;
	assert_default_action();
	dead_pipe(fds);
	assert_int_equal(t2f_session_write_fd(s, &w, fds[1]), -EPIPE);
	assert_non_null(strstr(t2f_session_error(s), "Broken pipe"));
	assert_false(sigpipe_pending());
	assert_false(sigpipe_blocked());
	close(fds[1]);
	t2f_session_free(s);
}

static void test_write_fd_socket(void **state)
{
	struct t2f_write_options w = { .size = sizeof(w), .format = T2F_FORMAT_SPEEDSCOPE };
	struct t2f_session *s = session(true);
	int sv[2];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	close(sv[0]);
	assert_int_equal(t2f_session_write_fd(s, &w, sv[1]), -EPIPE);
	assert_false(sigpipe_pending());
	close(sv[1]);
	t2f_session_free(s);
}

/* Standard output and standard error (the default message sink) closed by their readers. */
static void test_std_streams(void **state)
{
	static const char warns[] = "main;a 1\nnot a folded line\nmain;b 1\n";
	struct t2f_write_options w = { .size = sizeof(w), .format = T2F_FORMAT_SVG };
	struct t2f_options o = { .size = sizeof(o), .jobs = 1 };
	int out = dup(STDOUT_FILENO), err = dup(STDERR_FILENO), fds[2];
	struct t2f_session *s = session(false);

	(void)state;
	assert_true(out >= 0 && err >= 0);
	fflush(stdout);
	fflush(stderr);
	dead_pipe(fds);
	assert_true(dup2(fds[1], STDOUT_FILENO) >= 0);
	assert_true(dup2(fds[1], STDERR_FILENO) >= 0);
	close(fds[1]);
	assert_int_equal(t2f_session_write_path(s, &w, "-"), -EPIPE);
	t2f_session_free(s);
	/* a warning to the dead stderr, and the report */
	assert_int_equal(t2f_session_new(&o, &s), 0);
	assert_int_equal(t2f_session_add_bytes(s, warns, strlen(warns), "warns"), 0);
	assert_int_equal(t2f_session_resolve(s), 0);
	t2f_session_report(s, T2F_REPORT_STATS | T2F_REPORT_WARNINGS);
	t2f_session_free(s);
	assert_true(dup2(out, STDOUT_FILENO) >= 0);
	assert_true(dup2(err, STDERR_FILENO) >= 0);
	close(out);
	close(err);
	clearerr(stdout);
	clearerr(stderr);
	assert_false(sigpipe_pending());
}

/* The caller blocks SIGPIPE itself: it stays blocked, and the library's is not left pending. */
static void test_caller_blocks(void **state)
{
	struct t2f_write_options w = { .size = sizeof(w), .format = T2F_FORMAT_COLLAPSED };
	struct t2f_session *s = session(true);
	sigset_t set, old;
	int fds[2];

	(void)state;
	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	assert_int_equal(pthread_sigmask(SIG_BLOCK, &set, &old), 0);
	dead_pipe(fds);
	assert_int_equal(t2f_session_write_fd(s, &w, fds[1]), -EPIPE);
	assert_true(sigpipe_blocked());
	assert_false(sigpipe_pending());
	assert_int_equal(pthread_sigmask(SIG_SETMASK, &old, NULL), 0);
	close(fds[1]);
	t2f_session_free(s);
}

static void *writer(void *arg)
{
	struct t2f_write_options w = { .size = sizeof(w), .format = T2F_FORMAT_COLLAPSED };
	struct t2f_session *s = arg;
	intptr_t bad = 0;

	for (int i = 0; i < 20; i++) {
		int fds[2];

		if (pipe(fds) != 0)
			return (void *)1;
		close(fds[0]);
		bad += t2f_session_write_fd(s, &w, fds[1]) != -EPIPE;
		close(fds[1]);
		if (!bad) { /* the failed write left the session usable for writes */
			struct t2f_stats st = { .size = sizeof(st) };

			bad += t2f_session_stats(s, &st) != 0;
		}
	}
	return (void *)bad;
}

/* Threads write their own sessions to dead pipes at the same time. */
static void test_threads(void **state)
{
	struct t2f_session *s[4];
	pthread_t t[4];

	(void)state;
	for (int i = 0; i < 4; i++) {
		s[i] = session(true);
		assert_int_equal(t2f_session_resolve(s[i]), 0);
	}
	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&t[i], NULL, writer, s[i]), 0);
	for (int i = 0; i < 4; i++) {
		void *bad;

		assert_int_equal(pthread_join(t[i], &bad), 0);
		assert_null(bad);
		t2f_session_free(s[i]);
	}
	assert_false(sigpipe_pending());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_fd_pipe),
		cmocka_unit_test(test_write_fd_socket),
		cmocka_unit_test(test_std_streams),
		cmocka_unit_test(test_caller_blocks),
		cmocka_unit_test(test_threads),
	};

	signal(SIGPIPE, SIG_DFL); /* whatever the test was started with */
	return cmocka_run_group_tests(tests, make_input, free_input);
}
