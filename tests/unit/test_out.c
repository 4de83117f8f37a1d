/* tests/unit/test_out.c: writers/out.c — buffering across the 1 MiB boundary, number formatting,
 * printf (short and longer than its stack buffer), and sticky write errors (/dev/full, a pipe
 * without a reader). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "writers/out.h"

#define MIB (1u << 20)

/* A sink over an anonymous temp file. */
struct tmp {
	FILE *f;
	int fd;
	struct t2f_out *o;
};

static void tmp_open(struct tmp *t)
{
	t->f = tmpfile();
	assert_non_null(t->f);
	t->fd = fileno(t->f);
	assert_int_equal(t2f_out__new(t->fd, &t->o), 0);
	assert_non_null(t->o);
}

static off_t tmp_size(const struct tmp *t)
{
	struct stat st;

	assert_int_equal(fstat(t->fd, &st), 0);
	return st.st_size;
}

/* The file's whole content (NUL-terminated for convenience). */
static char *tmp_read(const struct tmp *t, size_t *len)
{
	off_t size = tmp_size(t);
	char *buf = malloc((size_t)size + 1);
	size_t got = 0;

	assert_non_null(buf);
	while (got < (size_t)size) {
		ssize_t n = pread(t->fd, buf + got, (size_t)size - got, (off_t)got);

		assert_true(n > 0);
		got += (size_t)n;
	}
	buf[got] = '\0';
	*len = got;
	return buf;
}

static void tmp_close(struct tmp *t)
{
	t2f_out__free(t->o);
	fclose(t->f);
}

/* Formats through the sink and returns the text written. */
static char *render(void (*fn)(struct t2f_out *, const void *), const void *arg, size_t *len)
{
	struct tmp t;
	char *s;

	tmp_open(&t);
	fn(t.o, arg);
	assert_int_equal(t2f_out__finish(t.o), 0);
	s = tmp_read(&t, len);
	assert_int_equal(t2f_out__bytes(t.o), *len);
	tmp_close(&t);
	return s;
}

static void test_small_writes_are_buffered(void **state)
{
	struct tmp t;
	char *s;
	size_t len;

	(void)state;
	tmp_open(&t);
	t2f_out__puts(t.o, "hello");
	t2f_out__putc(t.o, ' ');
	t2f_out__write(t.o, "world\n", 6);
	assert_int_equal(t2f_out__bytes(t.o), 12);
	assert_int_equal(tmp_size(&t), 0); /* nothing reaches the fd before a flush */
	assert_int_equal(t2f_out__finish(t.o), 0);
	s = tmp_read(&t, &len);
	assert_string_equal(s, "hello world\n");
	free(s);
	/* finish can be called again and writes nothing twice */
	assert_int_equal(t2f_out__finish(t.o), 0);
	assert_int_equal(tmp_size(&t), 12);
	tmp_close(&t);
	t2f_out__free(NULL);
}

/* 3 MiB through every entry point in odd-sized pieces: pieces that straddle the 1 MiB buffer
 * end, pieces of 64 KiB and more (written straight, after what is buffered), putc exactly at a
 * full buffer. */
static void test_3mib_odd_pieces(void **state)
{
	const size_t total = 3 * MIB;
	static const size_t sizes[] = { 1, 7, 4093, 65537, MIB - 1, 2, MIB + 3, 13, 300000, 1 };
	char *expect = malloc(total), *got;
	size_t off = 0, k = 0, len;
	struct tmp t;

	(void)state;
	assert_non_null(expect);
	for (size_t i = 0; i < total; i++)
		expect[i] = (char)('a' + (i * 7 + i / 4099) % 26);
	tmp_open(&t);
	while (off < total) {
		size_t n = sizes[k++ % (sizeof(sizes) / sizeof(sizes[0]))];

		if (n > total - off)
			n = total - off;
		if (n == 1)
			t2f_out__putc(t.o, expect[off]);
		else
			t2f_out__write(t.o, expect + off, n);
		off += n;
		assert_int_equal(t2f_out__bytes(t.o), off);
		/* at most one buffer's worth is held back */
		assert_true((size_t)tmp_size(&t) + MIB >= off);
	}
	assert_int_equal(t2f_out__finish(t.o), 0);
	assert_int_equal(tmp_size(&t), (off_t)total);
	got = tmp_read(&t, &len);
	assert_int_equal(len, total);
	assert_memory_equal(got, expect, total);
	free(got);
	tmp_close(&t);
	free(expect);
}

static void test_putc_at_full_buffer(void **state)
{
	struct tmp t;
	char *chunk = malloc(MIB), *got;
	size_t len;

	(void)state;
	assert_non_null(chunk);
	memset(chunk, 'x', MIB);
	tmp_open(&t);
	for (size_t at = 0; at < MIB - 1; at += 1000) /* small writes are buffered */
		t2f_out__write(t.o, chunk, MIB - 1 - at < 1000 ? MIB - 1 - at : 1000);
	t2f_out__putc(t.o, 'y');    /* buffer now exactly full */
	assert_int_equal(tmp_size(&t), 0);
	t2f_out__putc(t.o, 'z');    /* must flush first */
	t2f_out__puts(t.o, "end");
	assert_int_equal(t2f_out__finish(t.o), 0);
	got = tmp_read(&t, &len);
	assert_int_equal(len, MIB + 4);
	assert_memory_equal(got, chunk, MIB - 1);
	assert_memory_equal(got + MIB - 1, "yzend", 5);
	free(got);
	free(chunk);
	tmp_close(&t);
}

static void put_u64s(struct t2f_out *o, const void *arg)
{
	static const uint64_t v[] = { 0, 1, 9, 10, 99, 100, 1001001, 4294967295u,
				      4294967296u, 10000000000000000000u, UINT64_MAX };

	(void)arg;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		t2f_out__u64(o, v[i]);
		t2f_out__putc(o, ' ');
	}
}

static void put_i64s(struct t2f_out *o, const void *arg)
{
	static const int64_t v[] = { 0, 1, -1, 42, -42, -1000000, INT64_MAX, INT64_MIN,
				     INT64_MIN + 1 };

	(void)arg;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		t2f_out__i64(o, v[i]);
		t2f_out__putc(o, ' ');
	}
}

static void test_numbers(void **state)
{
	size_t len;
	char *s;

	(void)state;
	s = render(put_u64s, NULL, &len);
	assert_string_equal(s, "0 1 9 10 99 100 1001001 4294967295 4294967296 "
			       "10000000000000000000 18446744073709551615 ");
	free(s);
	s = render(put_i64s, NULL, &len);
	assert_string_equal(s, "0 1 -1 42 -42 -1000000 9223372036854775807 "
			       "-9223372036854775808 -9223372036854775807 ");
	free(s);
}

static void put_printf(struct t2f_out *o, const void *arg)
{
	const char *big = arg;

	t2f_out__printf(o, "[%d|%s|%05.1f|%" PRIx64 "]", -7, "ab", 3.14159, (uint64_t)0xbeef);
	t2f_out__printf(o, "<%s>", big); /* longer than any stack buffer */
	t2f_out__printf(o, "%s", "");
}

static void test_printf(void **state)
{
	char *big = malloc(5001), *expect = malloc(6000), *s;
	size_t len;

	(void)state;
	assert_non_null(big);
	assert_non_null(expect);
	for (size_t i = 0; i < 5000; i++)
		big[i] = (char)('0' + i % 10);
	big[5000] = '\0';
	snprintf(expect, 6000, "[-7|ab|003.1|beef]<%s>", big);
	s = render(put_printf, big, &len);
	assert_int_equal(len, strlen(expect));
	assert_string_equal(s, expect);
	free(s);
	free(big);
	free(expect);
}

static void test_dev_full_enospc(void **state)
{
	int fd = open("/dev/full", O_WRONLY | O_CLOEXEC);
	struct t2f_out *o;
	char *chunk;

	(void)state;
	if (fd < 0)
		skip();
	chunk = calloc(1, 2 * MIB);
	assert_non_null(chunk);
	assert_int_equal(t2f_out__new(fd, &o), 0);
	t2f_out__puts(o, "small");
	assert_int_equal(t2f_out__finish(o), -ENOSPC);
	/* the error sticks: later writes are accepted and ignored */
	t2f_out__write(o, chunk, 2 * MIB);
	t2f_out__putc(o, 'x');
	t2f_out__u64(o, 12345);
	assert_int_equal(t2f_out__finish(o), -ENOSPC);
	assert_int_equal(t2f_out__bytes(o), 5 + 2 * MIB + 1 + 5);
	t2f_out__free(o);

	/* a large write fails during the emission, not only at finish */
	assert_int_equal(t2f_out__new(fd, &o), 0);
	t2f_out__write(o, chunk, 2 * MIB);
	t2f_out__puts(o, "after");
	assert_int_equal(t2f_out__finish(o), -ENOSPC);
	t2f_out__free(o);
	free(chunk);
	close(fd);
}

static void test_closed_pipe_epipe(void **state)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	struct t2f_out *o;
	int fds[2];
	char *chunk;

	(void)state;
	assert_int_equal(sigaction(SIGPIPE, &ign, &old), 0);
	assert_int_equal(pipe(fds), 0);
	close(fds[0]);
	chunk = calloc(1, 3 * MIB);
	assert_non_null(chunk);
	assert_int_equal(t2f_out__new(fds[1], &o), 0);
	t2f_out__write(o, chunk, 100);
	t2f_out__write(o, chunk, 3 * MIB); /* flushes: the error is seen here */
	t2f_out__write(o, chunk, 3 * MIB);
	t2f_out__printf(o, "%d", 5);
	assert_int_equal(t2f_out__finish(o), -EPIPE);
	assert_int_equal(t2f_out__finish(o), -EPIPE);
	t2f_out__free(o);
	free(chunk);
	close(fds[1]);
	assert_int_equal(sigaction(SIGPIPE, &old, NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_writes_are_buffered),
		cmocka_unit_test(test_3mib_odd_pieces),
		cmocka_unit_test(test_putc_at_full_buffer),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_printf),
		cmocka_unit_test(test_dev_full_enospc),
		cmocka_unit_test(test_closed_pipe_epipe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
