/* tests/unit/test_side_file.c: formats/side_file — regular files read whole within a size;
 * FIFOs (with no writer: opening one for reading would block), devices (/dev/zero, which never
 * ends, also through a symbolic link), directories and missing files refused without waiting;
 * a /proc file (st_size 0) read to its end; a file at the limit taken, one byte over refused. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "formats/diag.h"
#include "formats/side_file.h"

static char dir[PATH_MAX];

static void path_of(char *out, const char *name)
{
	assert_true(snprintf(out, PATH_MAX, "%s/%s", dir, name) < PATH_MAX);
}

static void write_file(const char *name, const char *text, size_t len)
{
	char p[PATH_MAX];
	FILE *f;

	path_of(p, name);
	f = fopen(p, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static int setup(void **state)
{
	const char *t = getenv("TMPDIR");

	(void)state;
	snprintf(dir, sizeof(dir), "%s/t2f-side-file.XXXXXX", t ? t : "/tmp");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_regular(void **state)
{
	char p[PATH_MAX], *text;
	size_t len;
	uint64_t size;
	int fd;

	(void)state;
	write_file("a.txt", "0123456789", 10);
	path_of(p, "a.txt");
	assert_int_equal(t2f_side_file__open(p, &fd, &size), 0);
	assert_int_equal(size, 10);
	assert_int_equal(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	close(fd);
	assert_int_equal(t2f_side_file__read(p, 10, &text, &len), 0);      /* at the limit */
	assert_int_equal(len, 10);
	assert_string_equal(text, "0123456789");
	free(text);
	assert_int_equal(t2f_side_file__read(p, 9, &text, &len), -T2F_ERR_LIMIT);
	assert_null(text);
	write_file("empty", "", 0);
	path_of(p, "empty");
	assert_int_equal(t2f_side_file__read(p, 10, &text, &len), 0);
	assert_int_equal(len, 0);
	assert_string_equal(text, "");
	free(text);
}

/* Each returns at once: the test itself would hang on a FIFO opened the plain way. */
static void test_refused(void **state)
{
	char p[PATH_MAX], *text;
	size_t len;
	int fd;

	(void)state;
	path_of(p, "fifo");
	assert_int_equal(mkfifo(p, 0600), 0);
	assert_int_equal(t2f_side_file__open(p, &fd, NULL), -T2F_ERR_NOT_FILE);
	assert_int_equal(fd, -1);
	assert_int_equal(t2f_side_file__read(p, 1 << 20, &text, &len), -T2F_ERR_NOT_FILE);
	assert_int_equal(t2f_side_file__read("/dev/zero", 1 << 20, &text, &len), -T2F_ERR_NOT_FILE);
	path_of(p, "zero.map");
	assert_int_equal(symlink("/dev/zero", p), 0);
	assert_int_equal(t2f_side_file__read(p, 1 << 20, &text, &len), -T2F_ERR_NOT_FILE);
	path_of(p, "fifo.link");
	assert_int_equal(symlink("fifo", p), 0);
	assert_int_equal(t2f_side_file__open(p, &fd, NULL), -T2F_ERR_NOT_FILE);
	assert_int_equal(t2f_side_file__read(dir, 1 << 20, &text, &len), -EISDIR);
	path_of(p, "missing");
	assert_int_equal(t2f_side_file__read(p, 1 << 20, &text, &len), -ENOENT);
	assert_null(text);
}

/* /proc files say st_size 0 and hold more: read to the end, and the limit still holds. */
static void test_proc_file(void **state)
{
	char *text;
	size_t len;

	(void)state;
	assert_int_equal(t2f_side_file__read("/proc/self/maps", 64 << 20, &text, &len), 0);
	assert_true(len > 0);
	assert_int_equal(strlen(text), len);
	assert_non_null(strstr(text, "[stack]"));
	free(text);
	assert_int_equal(t2f_side_file__read("/proc/self/maps", 16, &text, &len), -T2F_ERR_LIMIT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_regular),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_proc_file),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
