/* tests/unit/test_text_api.c: the text helpers of the public header, linked with the shared
 * library as an embedder links it: t2f_visible (a string shown safely on a terminal),
 * t2f_symbol_name (a symbol's frame name: without its version, demangled) and
 * t2f_message_stderr (the default message sink: the line and a newline on stderr, never
 * SIGPIPE when stderr's reader is gone). */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <trace2flame.h>

static void test_visible(void **state)
{
	const char *clean = "/usr/lib/libc.so.6 \xc3\xa9t\xc3\xa9";
	char out[T2F_VISIBLE_MAX], small[16], longer[64];

	(void)state;
	assert_ptr_equal(t2f_visible(clean, out, sizeof(out)), clean); /* clean: itself */
	assert_string_equal(t2f_visible("a\x1b[31mb", out, sizeof(out)), "a\\x1b[31mb");
	assert_string_equal(t2f_visible("x\xffy\\z", out, sizeof(out)), "x\\xffy\\z");
	assert_string_equal(t2f_visible("\xc2\x9b" "1", out, sizeof(out)), "\\xc2\\x9b1"); /* C1 */
	assert_string_equal(t2f_visible("\x7f", out, sizeof(out)), "\\x7f");
	/* cut at a character, with "...", within the buffer */
	assert_string_equal(t2f_visible("abcdefghijklmnop\x01", small, sizeof(small)),
			    "abcdefghijkl...");
	memset(longer, 'a', sizeof(longer) - 2);
	longer[sizeof(longer) - 2] = '\n';
	longer[sizeof(longer) - 1] = '\0';
	assert_string_equal(t2f_visible(longer, small, 8), "aaaa...");
	/* no string, no room: "" (a clean string needs none) */
	assert_string_equal(t2f_visible(NULL, out, sizeof(out)), "");
	assert_string_equal(t2f_visible("a\nb", small, 7), "");
	assert_string_equal(t2f_visible("a\nb", NULL, 64), "");
	assert_ptr_equal(t2f_visible(clean, NULL, 0), clean);
}

static void check_name(const char *raw, bool params, const char *want)
{
	char *got = t2f_symbol_name(raw, params);

	assert_non_null(got);
	if (strcmp(got, want))
		fail_msg("t2f_symbol_name(\"%s\", %d): \"%s\", want \"%s\"", raw, params, got, want);
	t2f_free(got);
}

static void test_symbol_name(void **state)
{
	(void)state;
	check_name("cfree@GLIBC_2.2.5", true, "cfree");
	check_name("__libc_start_main@@GLIBC_2.34", true, "__libc_start_main");
	check_name("malloc@plt", true, "malloc@plt");               /* no version */
	check_name("main", false, "main");
	check_name("@GLIBC_2.2.5", true, "@GLIBC_2.2.5");           /* no name before it */
	check_name("_ZNSt6thread4joinEv@@GLIBCXX_3.4.11", true, "std::thread::join()");
	check_name("_ZNSt6thread4joinEv@@GLIBCXX_3.4.11", false, "std::thread::join");
	check_name("_ZN7mycrate3foo3bar17h0123456789abcdefE", true, "mycrate::foo::bar");
	check_name("_Z", true, "_Z");                               /* not mangled after all */
	assert_null(t2f_symbol_name(NULL, true));
}

/* Runs t2f_message_stderr(line) with fd 2 on fd. */
static void message_to(int fd, const char *line)
{
	int saved = dup(STDERR_FILENO);

	assert_true(saved >= 0);
	fflush(stderr);
	assert_int_equal(dup2(fd, STDERR_FILENO), STDERR_FILENO);
	t2f_message_stderr(NULL, line);
	assert_int_equal(dup2(saved, STDERR_FILENO), STDERR_FILENO);
	close(saved);
}

static void test_message_stderr(void **state)
{
	char path[] = "/tmp/t2f-text-api.XXXXXX", got[64] = { 0 };
	int fd = mkstemp(path), p[2];
	sigset_t pending;

	(void)state;
	assert_true(fd >= 0);
	unlink(path);
	message_to(fd, "trace2flame: warning: one line");
	message_to(fd, "");
	message_to(fd, NULL);                       /* nothing */
	assert_int_equal(pread(fd, got, sizeof(got) - 1, 0), 32);
	assert_string_equal(got, "trace2flame: warning: one line\n\n");
	close(fd);

	/* a reader gone, SIGPIPE's default action (the end of the process): the line is lost,
	 * the process goes on, and no SIGPIPE is left pending */
	assert_true(signal(SIGPIPE, SIG_DFL) != SIG_ERR);
	assert_int_equal(pipe(p), 0);
	close(p[0]);
	errno = 0;
	message_to(p[1], "nobody reads this");
	clearerr(stderr);
	close(p[1]);
	assert_int_equal(sigpending(&pending), 0);
	assert_int_equal(sigismember(&pending, SIGPIPE), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_visible),
		cmocka_unit_test(test_symbol_name),
		cmocka_unit_test(test_message_stderr),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
