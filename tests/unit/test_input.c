/* tests/unit/test_input.c: readers/input on real plain, gzip and zstd data.
 *
 * Every compressed input is made at run time with zlib (deflateInit2, gzip wrapper) or
 * ZSTD_compress, written to a file in a fresh temporary directory, then read back through
 * t2f_input. slurp() checks the chunk contract on every call (non-empty, each chunk but the last
 * ends with '\n') and concatenates the chunks, which must equal the original bytes. stdin cases
 * put a pipe (fed by a forked writer) or a regular file on fd 0.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <zlib.h>
#include <zstd.h>

#include "formats/diag.h"
#include "readers/input.h"

static char tmpdir[] = "/tmp/t2f-test-input-XXXXXX";

struct buf {
	unsigned char *p;
	size_t len;
};

/* What slurp() saw. */
struct seen {
	struct buf all;       /* concatenation of the chunks */
	size_t chunks;
	size_t max_chunk;
	int bad_chunks;       /* empty chunks, or non-final chunks not ending with '\n' */
	int rc;               /* last return of t2f_input__next */
	enum t2f_input_kind kind;
	uint64_t size, consumed;
	char name[256];
	char msg[512];        /* last diag error, "" if none */
};

static void buf_add(struct buf *b, const void *p, size_t n)
{
	b->p = realloc(b->p, b->len + n + 1);
	assert_non_null(b->p);
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void buf_free(struct buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = 0;
}

static char *tmp_path(const char *name)
{
	static char path[512];

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	return path;
}

static void write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

/* Text lines of varied length, about n bytes in total, always ending with '\n'. */
/* n letters ("abc...zab..."): one line, without its '\n', appended to b. */
static void add_letters(struct buf *b, size_t n)
{
	unsigned char *p = malloc(n);

	assert_non_null(p);
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)('a' + i % 26);
	buf_add(b, p, n);
	free(p);
}

static struct buf make_lines(size_t n, unsigned seed)
{
	struct buf b = { malloc(n + 256), 0 };
	unsigned i = 0;

	assert_non_null(b.p);
	while (b.len < n) {
		unsigned pad = (i * 7919u + seed) % 90u;
		b.len += (size_t)sprintf((char *)b.p + b.len, "%u;frame_%u;%.*s %u\n", seed, i, (int)pad,
					 "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789....",
					 i * 31u);
		i++;
	}
	return b;
}

static void gzip_member(struct buf *out, const void *p, size_t n)
{
	z_stream zs;
	uLong bound;
	size_t start = out->len;

	memset(&zs, 0, sizeof(zs));
	assert_int_equal(deflateInit2(&zs, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
	bound = deflateBound(&zs, (uLong)n) + 64;
	out->p = realloc(out->p, out->len + bound);
	assert_non_null(out->p);
	zs.next_in = (Bytef *)p;
	zs.avail_in = (uInt)n;
	zs.next_out = out->p + start;
	zs.avail_out = (uInt)bound;
	assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
	out->len = start + zs.total_out;
	deflateEnd(&zs);
}

static void zstd_frame(struct buf *out, const void *p, size_t n)
{
	size_t bound = ZSTD_compressBound(n), r;

	out->p = realloc(out->p, out->len + bound);
	assert_non_null(out->p);
	r = ZSTD_compress(out->p + out->len, bound, p, n, 1);
	assert_false(ZSTD_isError(r));
	out->len += r;
}

/* Reads path through t2f_input until the end or an error; open errors land in s->rc too. */
static void slurp(const char *path, struct seen *s)
{
	struct t2f_diag *d = NULL;
	struct t2f_input *in = NULL;
	const char *data, *msg;
	size_t len;
	int rc;

	memset(s, 0, sizeof(*s));
	assert_int_equal(t2f_diag__new(NULL, &d), 0);
	rc = t2f_input__open(path, d, &in);
	if (rc == 0) {
		snprintf(s->name, sizeof(s->name), "%s", t2f_input__name(in));
		s->kind = t2f_input__kind(in);
		while ((rc = t2f_input__next(in, &data, &len)) == 1) {
			if (len == 0 || (s->chunks > 0 && s->all.len > 0 && s->all.p[s->all.len - 1] != '\n'))
				s->bad_chunks++; /* the previous chunk lacked its '\n' yet was not the last */
			buf_add(&s->all, data, len);
			s->chunks++;
			if (len > s->max_chunk)
				s->max_chunk = len;
		}
		if (rc < 0) /* errors are sticky */
			assert_int_equal(t2f_input__next(in, &data, &len), rc);
		else
			assert_int_equal(t2f_input__next(in, &data, &len), 0);
		s->size = t2f_input__size(in);
		s->consumed = t2f_input__consumed(in);
	}
	s->rc = rc;
	msg = t2f_diag__last_error(d);
	snprintf(s->msg, sizeof(s->msg), "%s", msg ? msg : "");
	t2f_input__free(in);
	t2f_diag__free(d);
}

static void assert_same(const struct buf *got, const struct buf *want)
{
	assert_int_equal(got->len, want->len);
	assert_memory_equal(got->p, want->p, want->len);
}

static void assert_contains(const char *hay, const char *needle)
{
	if (!strstr(hay, needle))
		fail_msg("\"%s\" does not contain \"%s\"", hay, needle);
}

/* Forks a child that writes data `times` times into a pipe; returns the read end. */
static int spawn_writer(const struct buf *data, int times, pid_t *pid)
{
	int p[2];

	assert_int_equal(pipe(p), 0);
	*pid = fork();
	assert_true(*pid >= 0);
	if (*pid == 0) {
		close(p[0]);
		for (int t = 0; t < times; t++)
			for (size_t off = 0; off < data->len;) {
				ssize_t n = write(p[1], data->p + off, data->len - off);
				if (n <= 0)
					_exit(1);
				off += (size_t)n;
			}
		_exit(0);
	}
	close(p[1]);
	return p[0];
}

/* slurp("-") with fd 0 replaced by fd for the duration. */
static void slurp_stdin(int fd, struct seen *s)
{
	int saved = dup(STDIN_FILENO);

	assert_true(saved >= 0);
	assert_true(dup2(fd, STDIN_FILENO) >= 0);
	close(fd);
	slurp("-", s);
	assert_true(dup2(saved, STDIN_FILENO) >= 0);
	close(saved);
}

/* Reads path with one __next, then __read in pieces of the sizes in `pieces` (cycled), then
 * __next again after the first __read of `next_after` pieces (0: never); everything read is
 * concatenated into got. Returns the last return code. */
static int read_pieces(const char *path, const size_t *pieces, size_t npieces, size_t next_after,
		       struct buf *got)
{
	struct t2f_diag *d = NULL;
	struct t2f_input *in = NULL;
	const char *data;
	size_t len, got_n, calls = 0;
	char *piece = malloc(1u << 20);
	int rc;

	assert_non_null(piece);
	assert_int_equal(t2f_diag__new(NULL, &d), 0);
	assert_int_equal(t2f_input__open(path, d, &in), 0);
	rc = t2f_input__next(in, &data, &len);
	if (rc == 1)
		buf_add(got, data, len);
	while (rc == 1) {
		size_t cap = pieces[calls % npieces];

		assert_true(cap <= (1u << 20));
		rc = t2f_input__read(in, piece, cap, &got_n);
		if (rc == 1) {
			assert_true(got_n > 0 && got_n <= cap);
			buf_add(got, piece, got_n);
		} else {
			assert_int_equal(got_n, 0);
		}
		if (rc == 1 && ++calls == next_after && (rc = t2f_input__next(in, &data, &len)) == 1)
			buf_add(got, data, len);
	}
	if (rc == 0) /* the end stays the end */
		assert_int_equal(t2f_input__read(in, piece, 10, &got_n), 0);
	else /* errors are sticky */
		assert_int_equal(t2f_input__read(in, piece, 10, &got_n), rc);
	t2f_input__free(in);
	t2f_diag__free(d);
	free(piece);
	return rc;
}

/* __read after __next: the carry first, then bytes straight from the file or the decoder, in
 * pieces of any size; __next again after some __reads; plain, gzip and zstd. */
static void test_read_pieces(void **state)
{
	static const size_t odd[] = { 1, 7, 4096, 1u << 20, 333333, 2 };
	static const size_t big[] = { 1u << 20 };
	struct buf want = make_lines(9u << 20, 3), gz = { 0 }, zs = { 0 }, got = { 0 };
	const char *names[] = { "r.txt", "r.gz", "r.zst" };

	(void)state;
	write_file(tmp_path("r.txt"), want.p, want.len);
	gzip_member(&gz, want.p, want.len / 2);
	gzip_member(&gz, want.p + want.len / 2, want.len - want.len / 2);
	write_file(tmp_path("r.gz"), gz.p, gz.len);
	zstd_frame(&zs, want.p, want.len);
	write_file(tmp_path("r.zst"), zs.p, zs.len);
	for (size_t i = 0; i < 3; i++) {
		for (size_t next_after = 0; next_after < 4; next_after += 3) {
			assert_int_equal(read_pieces(tmp_path(names[i]), odd, 6, next_after, &got), 0);
			assert_same(&got, &want);
			buf_free(&got);
		}
		assert_int_equal(read_pieces(tmp_path(names[i]), big, 1, 0, &got), 0);
		assert_same(&got, &want);
		buf_free(&got);
		unlink(tmp_path(names[i]));
	}
	/* a truncated zstd frame: the error, sticky */
	write_file(tmp_path("t.zst"), zs.p, zs.len - 10);
	assert_int_equal(read_pieces(tmp_path("t.zst"), big, 1, 0, &got), -T2F_ERR_DECOMPRESS);
	assert_true(got.len < want.len);
	assert_memory_equal(got.p, want.p, got.len);
	unlink(tmp_path("t.zst"));
	buf_free(&got);
	buf_free(&want);
	buf_free(&gz);
	buf_free(&zs);
}

static void test_plain_multichunk(void **state)
{
	struct buf want = make_lines(40u << 20, 1);
	struct seen s;
	char *path = tmp_path("big.txt");

	write_file(path, want.p, want.len);
	slurp(path, &s);
	assert_int_equal(s.rc, 0);
	assert_int_equal(s.kind, T2F_INPUT_PLAIN);
	assert_true(s.chunks >= 3);
	assert_true(s.max_chunk <= (16u << 20));
	assert_int_equal(s.bad_chunks, 0);
	assert_int_equal(s.all.p[s.all.len - 1], '\n');
	assert_same(&s.all, &want);
	assert_int_equal(s.size, want.len);
	assert_int_equal(s.consumed, want.len);
	assert_string_equal(s.name, path);
	unlink(path);
	buf_free(&s.all);
	buf_free(&want);
}

/* path (written) read chunk by chunk gives want, with a line of `big` bytes whole in one
 * chunk; path is removed. */
static void assert_long_line_whole(const char *path, const struct buf *want, size_t big)
{
	struct seen s;

	slurp(path, &s);
	assert_int_equal(s.rc, 0);
	assert_int_equal(s.bad_chunks, 0);
	assert_true(s.max_chunk >= big + 1);
	assert_same(&s.all, want);
	unlink(path);
	buf_free(&s.all);
}

/* A first line longer than the first chunk is filled to (the reader is told by a first chunk
 * smaller than the later ones): it still comes whole, in the first chunk; also one longer than
 * the buffer the first fill's is swapped for. */
static void test_plain_long_first_line(void **state)
{
	static const size_t bigs[] = { 300u << 10, 5u << 20 };
	struct buf rest = make_lines(1u << 20, 5);
	char *path = tmp_path("first.txt");

	for (size_t i = 0; i < sizeof(bigs) / sizeof(bigs[0]); i++) {
		struct buf want = { 0 };

		add_letters(&want, bigs[i]);
		buf_add(&want, "\n", 1);
		buf_add(&want, rest.p, rest.len);
		write_file(path, want.p, want.len);
		assert_long_line_whole(path, &want, bigs[i]);
		buf_free(&want);
	}
	buf_free(&rest);
}

static void test_plain_no_trailing_newline(void **state)
{
	static const char text[] = "first line\nsecond line\nlast without newline";
	struct buf want = { (unsigned char *)text, sizeof(text) - 1 };
	struct seen s;
	char *path = tmp_path("nonl.txt");

	write_file(path, text, want.len);
	slurp(path, &s);
	assert_int_equal(s.rc, 0);
	assert_int_equal(s.bad_chunks, 0);
	assert_same(&s.all, &want);
	unlink(path);
	buf_free(&s.all);
}

static void test_empty_file(void **state)
{
	struct seen s;
	char *path = tmp_path("empty.txt");

	write_file(path, "", 0);
	slurp(path, &s);
	assert_int_equal(s.rc, 0);
	assert_int_equal(s.chunks, 0);
	assert_int_equal(s.kind, T2F_INPUT_PLAIN);
	assert_int_equal(s.size, 0);
	assert_string_equal(s.msg, "");
	unlink(path);
}

static void test_gzip_two_members(void **state)
{
	struct buf a = make_lines(3u << 20, 2), b = make_lines(5u << 20, 3), want = { 0 }, gz = { 0 };
	struct seen s;
	char *path = tmp_path("two.txt.gz");

	gzip_member(&gz, a.p, a.len);
	gzip_member(&gz, b.p, b.len);
	buf_add(&want, a.p, a.len);
	buf_add(&want, b.p, b.len);
	write_file(path, gz.p, gz.len);
	slurp(path, &s);
	assert_int_equal(s.rc, 0);
	assert_int_equal(s.kind, T2F_INPUT_GZIP);
	assert_int_equal(s.bad_chunks, 0);
	assert_true(s.chunks >= 2);
	assert_same(&s.all, &want);
	assert_int_equal(s.size, gz.len);
	assert_int_equal(s.consumed, gz.len);
	unlink(path);
	buf_free(&s.all);
	buf_free(&a);
	buf_free(&b);
	buf_free(&want);
	buf_free(&gz);
}

static void test_zstd_two_frames(void **state)
{
	/* The first frame ends mid-line: the line continues in the second frame. */
	static const char tail[] = "tail line without newline";
	struct buf a = make_lines(3u << 20, 4), b = make_lines(6u << 20, 5), want = { 0 }, zs = { 0 };
	struct seen s;
	char *path = tmp_path("two.txt.zst");

	a.len -= 5;
	buf_add(&b, tail, sizeof(tail) - 1);
	zstd_frame(&zs, a.p, a.len);
	zstd_frame(&zs, b.p, b.len);
	buf_add(&want, a.p, a.len);
	buf_add(&want, b.p, b.len);
	write_file(path, zs.p, zs.len);
	slurp(path, &s);
	assert_int_equal(s.rc, 0);
	assert_int_equal(s.kind, T2F_INPUT_ZSTD);
	assert_int_equal(s.bad_chunks, 0);
	assert_same(&s.all, &want);
	assert_int_equal(s.consumed, zs.len);
	unlink(path);
	buf_free(&s.all);
	buf_free(&a);
	buf_free(&b);
	buf_free(&want);
	buf_free(&zs);
}

/* Writes the first keep bytes of packed as name and expects a decompression error naming it. */
static void expect_decompress_error(const char *name, const struct buf *packed, size_t keep,
				    const char *what)
{
	struct seen s;
	char *path = tmp_path(name);

	write_file(path, packed->p, keep);
	slurp(path, &s);
	assert_int_equal(s.rc, -T2F_ERR_DECOMPRESS);
	assert_contains(s.msg, path);
	assert_contains(s.msg, what);
	assert_contains(s.msg, "compressed byte offset");
	unlink(path);
	buf_free(&s.all);
}

static void test_gzip_truncated(void **state)
{
	struct buf text = make_lines(2u << 20, 6), gz = { 0 };

	gzip_member(&gz, text.p, text.len);
	expect_decompress_error("cut-half.gz", &gz, gz.len / 2, "truncated gzip");
	expect_decompress_error("cut-trailer.gz", &gz, gz.len - 4, "truncated gzip");
	expect_decompress_error("cut-header.gz", &gz, 5, "truncated gzip");
	gzip_member(&gz, text.p, 1000); /* a second member cut short */
	expect_decompress_error("cut-second.gz", &gz, gz.len - 10, "truncated gzip");
	buf_free(&text);
	buf_free(&gz);
}

static void test_zstd_truncated(void **state)
{
	struct buf text = make_lines(2u << 20, 7), zs = { 0 };

	zstd_frame(&zs, text.p, text.len);
	expect_decompress_error("cut-half.zst", &zs, zs.len / 2, "truncated zstd");
	expect_decompress_error("cut-end.zst", &zs, zs.len - 1, "truncated zstd");
	expect_decompress_error("cut-magic.zst", &zs, 4, "truncated zstd");
	buf_free(&text);
	buf_free(&zs);
}

static void test_corrupt(void **state)
{
	struct buf text = make_lines(1u << 20, 8), gz = { 0 }, zs = { 0 };

	gzip_member(&gz, text.p, text.len);
	gz.p[gz.len - 6] ^= 0x55; /* CRC32 in the trailer */
	expect_decompress_error("bad-crc.gz", &gz, gz.len, "corrupt gzip");
	zstd_frame(&zs, text.p, text.len);
	zs.p[4] |= 0x08; /* the reserved bit of the frame header descriptor */
	expect_decompress_error("bad-header.zst", &zs, zs.len, "corrupt zstd");
	buf_free(&text);
	buf_free(&gz);
	buf_free(&zs);
}

static void test_gzip_long_line(void **state)
{
	size_t big = 10u << 20;
	struct buf want = make_lines(100000, 9), gz = { 0 };
	char *path = tmp_path("long.gz");

	add_letters(&want, big);
	buf_add(&want, "\nshort\n", 7);
	gzip_member(&gz, want.p, want.len);
	write_file(path, gz.p, gz.len);
	assert_long_line_whole(path, &want, big);
	buf_free(&want);
	buf_free(&gz);
}

/* __head: a regular file's first bytes (8, or fewer when shorter), plain or compressed, read at
 * open; nothing of a memory input; the chunks __next gives afterwards still start at byte 0. */
static void test_head(void **state)
{
	static const char perf[] = "PERFILE2 and more";
	struct buf gz = { 0 };
	struct t2f_input *in;
	const char *data, *chunk;
	size_t len, n;

	(void)state;
	write_file(tmp_path("h.data"), perf, sizeof(perf) - 1);
	assert_int_equal(t2f_input__open(tmp_path("h.data"), NULL, &in), 0);
	t2f_input__head(in, &data, &len);
	assert_int_equal(len, 8);
	assert_memory_equal(data, "PERFILE2", 8);
	assert_int_equal(t2f_input__next(in, &chunk, &n), 1);
	assert_int_equal(n, sizeof(perf) - 1);
	assert_memory_equal(chunk, perf, n);
	t2f_input__free(in);

	write_file(tmp_path("h.data"), "PER", 3);
	assert_int_equal(t2f_input__open(tmp_path("h.data"), NULL, &in), 0);
	t2f_input__head(in, &data, &len);
	assert_int_equal(len, 3);
	assert_memory_equal(data, "PER", 3);
	t2f_input__free(in);

	gzip_member(&gz, perf, sizeof(perf) - 1);
	write_file(tmp_path("h.gz"), gz.p, gz.len);
	assert_int_equal(t2f_input__open(tmp_path("h.gz"), NULL, &in), 0);
	assert_int_equal(t2f_input__kind(in), T2F_INPUT_GZIP);
	t2f_input__head(in, &data, &len);
	assert_int_equal(len, 8);
	assert_memory_equal(data, gz.p, 8);
	t2f_input__free(in);

	assert_int_equal(t2f_input__open_mem(perf, sizeof(perf) - 1, "mem", NULL, &in), 0);
	t2f_input__head(in, &data, &len);
	assert_int_equal(len, 0);
	t2f_input__free(in);
	unlink(tmp_path("h.data"));
	unlink(tmp_path("h.gz"));
	buf_free(&gz);
}

static void test_stdin_pipe(void **state)
{
	struct buf want = make_lines(9u << 20, 10), gz = { 0 };
	struct seen s;
	pid_t pid;
	int st;

	slurp_stdin(spawn_writer(&want, 1, &pid), &s);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_int_equal(s.rc, 0);
	assert_int_equal(s.kind, T2F_INPUT_PLAIN);
	assert_string_equal(s.name, "<stdin>");
	assert_int_equal(s.size, 0);
	assert_int_equal(s.bad_chunks, 0);
	assert_same(&s.all, &want);
	assert_int_equal(s.consumed, want.len);
	buf_free(&s.all);

	/* compressed stdin: the magic comes from the first bytes read, which are kept */
	gzip_member(&gz, want.p, want.len);
	slurp_stdin(spawn_writer(&gz, 1, &pid), &s);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_int_equal(s.rc, 0);
	assert_int_equal(s.kind, T2F_INPUT_GZIP);
	assert_int_equal(s.bad_chunks, 0);
	assert_same(&s.all, &want);
	buf_free(&s.all);
	buf_free(&want);
	buf_free(&gz);
}

static void test_stdin_tiny_and_empty_pipe(void **state)
{
	struct buf one = { (unsigned char *)"x", 1 }, none = { (unsigned char *)"", 0 };
	struct seen s;
	pid_t pid;
	int st;

	slurp_stdin(spawn_writer(&one, 1, &pid), &s);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_int_equal(s.rc, 0);
	assert_same(&s.all, &one);
	buf_free(&s.all);

	slurp_stdin(spawn_writer(&none, 1, &pid), &s);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_int_equal(s.rc, 0);
	assert_int_equal(s.chunks, 0);
}

static void test_stdin_regular_zstd(void **state)
{
	struct buf want = make_lines(1u << 20, 11), zs = { 0 };
	struct seen s;
	char *path = tmp_path("stdin.zst");
	int fd;

	zstd_frame(&zs, want.p, want.len);
	write_file(path, zs.p, zs.len);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	slurp_stdin(fd, &s);
	assert_int_equal(s.rc, 0);
	assert_int_equal(s.kind, T2F_INPUT_ZSTD);
	assert_string_equal(s.name, "<stdin>");
	assert_int_equal(s.size, zs.len);
	assert_same(&s.all, &want);
	unlink(path);
	buf_free(&s.all);
	buf_free(&want);
	buf_free(&zs);
}

static void test_line_limit(void **state)
{
	struct buf block = { malloc(1u << 20), 1u << 20 };
	struct seen s;
	pid_t pid;
	int st;

	assert_non_null(block.p);
	memset(block.p, 'x', block.len);
	/* 65 MiB without a '\n' through a pipe: one line past T2F_INPUT_MAX_LINE */
	slurp_stdin(spawn_writer(&block, (int)(T2F_INPUT_MAX_LINE >> 20) + 1, &pid), &s);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_int_equal(s.rc, -T2F_ERR_LIMIT);
	assert_int_equal(s.chunks, 0);
	assert_contains(s.msg, "<stdin>: ");
	assert_contains(s.msg, "longer than");
	buf_free(&block);
}

static void test_nonexistent(void **state)
{
	struct seen s;
	char *path = tmp_path("does-not-exist.txt");
	char want[600];

	slurp(path, &s);
	assert_int_equal(s.rc, -ENOENT);
	snprintf(want, sizeof(want), "%s: cannot open: %s", path, strerror(ENOENT));
	assert_string_equal(s.msg, want);
}

static void test_directory(void **state)
{
	struct seen s;

	slurp(tmpdir, &s);
	assert_int_equal(s.rc, -EISDIR);
	assert_contains(s.msg, tmpdir);
}

static int group_setup(void **state)
{
	signal(SIGPIPE, SIG_IGN);
	return mkdtemp(tmpdir) ? 0 : -1;
}

/* Removes the directory with whatever a failed test left in it. */
static int group_teardown(void **state)
{
	DIR *dir = opendir(tmpdir);
	struct dirent *e;

	while (dir && (e = readdir(dir)))
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			unlink(tmp_path(e->d_name));
	if (dir)
		closedir(dir);
	return rmdir(tmpdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_multichunk),
		cmocka_unit_test(test_read_pieces),
		cmocka_unit_test(test_plain_no_trailing_newline),
		cmocka_unit_test(test_empty_file),
		cmocka_unit_test(test_gzip_two_members),
		cmocka_unit_test(test_zstd_two_frames),
		cmocka_unit_test(test_gzip_truncated),
		cmocka_unit_test(test_zstd_truncated),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_gzip_long_line),
		cmocka_unit_test(test_plain_long_first_line),
		cmocka_unit_test(test_head),
		cmocka_unit_test(test_stdin_pipe),
		cmocka_unit_test(test_stdin_tiny_and_empty_pipe),
		cmocka_unit_test(test_stdin_regular_zstd),
		cmocka_unit_test(test_line_limit),
		cmocka_unit_test(test_nonexistent),
		cmocka_unit_test(test_directory),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
