/* readers/input.c: plain, gzip and zstd inputs handed out in line-aligned chunks.
 *
 * open() looks at the first bytes (pread() on a regular file; on anything else a first read()
 * whose bytes are kept) and picks one of two modes:
 *
 * - map: a plain regular file of non-zero size is mmap'd read-only (MAP_PRIVATE,
 *   MADV_SEQUENTIAL). next() hands out [pos, pos + 16 MiB) cut back to just after its last '\n',
 *   or, when one line is longer than that, forward to the end of that line: no copy at all. The
 *   pages of chunks already given out are dropped (MADV_DONTNEED) so resident memory stays flat.
 *   Lines are not limited here (nothing is copied). A file truncated by someone else while it is
 *   mapped raises SIGBUS, as with any mmap reader.
 *
 * - stream: pipes, gzip, zstd, empty files, and files mmap refuses. Bytes are decoded into one
 *   buffer until it is full or the data ends; the chunk is the buffer up to its last '\n', and the
 *   unfinished line after it (the carry) is moved to the front on the next call. When the carry
 *   fills the whole buffer (one line longer than the buffer), the buffer doubles, up to
 *   T2F_INPUT_MAX_LINE. Compressed bytes are read in blocks into `raw` and fed to zlib's inflate
 *   (windowBits 15+32 reads the gzip header; after Z_STREAM_END a following member restarts the
 *   decoder with inflateReset) or to ZSTD_decompressStream (which chains frames by itself).
 *
 * Truncation: when the compressed input ends and the decoder is still inside a member/frame, it
 * is called once more with no input; if it makes no progress the rest of the data is missing.
 * Errors are sticky: after one, every next() returns it again.
 */
#include "readers/input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>
#include <zstd.h>

#define INPUT_MAP_CHUNK (16u << 20)  /* map mode: bytes per chunk before the cut to a '\n' */
#define INPUT_STREAM_BUF (4u << 20)  /* stream mode: first size of the decoded buffer */
#define INPUT_RAW_BLOCK (1u << 20)   /* compressed bytes per read(); they expand several times */

struct t2f_input {
	struct t2f_diag *diag;
	char *name;
	enum t2f_input_kind kind;
	int fd;                 /* -1 once closed; stdin is never closed */
	bool own_fd;
	int err;                /* sticky error, 0 if none */
	uint64_t size;          /* st_size of a regular file, else 0 */
	uint64_t raw_read;      /* bytes read() from fd so far */
	bool raw_eof;           /* read() returned 0 */

	/* map mode (map != NULL) */
	char *map;
	size_t map_len, map_pos, map_dropped;
	bool map_keep;          /* chunks stay mapped: the caller drops pages (t2f_input__drop) */

	/* stream mode: buf[0, len) is data, [carry, len) the unfinished line after the last chunk,
	 * [0, scan) was already searched and holds no '\n' past carry. */
	char *buf;
	size_t cap, len, carry, scan;
	uint64_t out_off;       /* decompressed offset of buf[0] */
	bool dec_done;          /* no more decoded bytes will come */
	unsigned char *raw;     /* compressed bytes [raw_pos, raw_len) not yet decoded */
	size_t raw_pos, raw_len;
	z_stream zs;
	bool zs_live, member_open;
	ZSTD_DCtx *zd;
	size_t zret;            /* last ZSTD_decompressStream result: 0 = at a frame boundary */
};

__attribute__((format(printf, 3, 4)))
static int input_fail(struct t2f_input *in, int err, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!in->diag)
		return err;
	return t2f_diag__error(in->diag, err, in->name, 0, "%s", msg);
}

static const char *kind_name(enum t2f_input_kind kind)
{
	return kind == T2F_INPUT_GZIP ? "gzip" : kind == T2F_INPUT_ZSTD ? "zstd" : "plain";
}

static enum t2f_input_kind magic_kind(const unsigned char *p, size_t n)
{
	if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b)
		return T2F_INPUT_GZIP;
	if (n >= 4 && p[0] == 0x28 && p[1] == 0xb5 && p[2] == 0x2f && p[3] == 0xfd)
		return T2F_INPUT_ZSTD;
	return T2F_INPUT_PLAIN;
}

/* read() up to cap bytes into dst: the count (0 at end of input, also setting raw_eof) or -errno. */
static long input_read(struct t2f_input *in, void *dst, size_t cap)
{
	ssize_t n;

	do
		n = read(in->fd, dst, cap);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return input_fail(in, -errno, "read error: %s", strerror(errno));
	if (n == 0)
		in->raw_eof = true;
	in->raw_read += (uint64_t)n;
	return n;
}

/* Makes compressed bytes available in raw: 1 if some are, 0 at the end of input, or an error. */
static int raw_refill(struct t2f_input *in)
{
	long n;

	if (in->raw_pos < in->raw_len)
		return 1;
	if (in->raw_eof)
		return 0;
	n = input_read(in, in->raw, INPUT_RAW_BLOCK);
	if (n < 0)
		return (int)n;
	in->raw_pos = 0;
	in->raw_len = (size_t)n;
	return n > 0;
}

static int decode_error(struct t2f_input *in, bool have_input, const char *why)
{
	if (!have_input)
		return input_fail(in, -T2F_E_DECOMPRESS,
				  "truncated %s data: input ends inside a %s at compressed byte offset %llu",
				  kind_name(in->kind), in->kind == T2F_INPUT_GZIP ? "member" : "frame",
				  (unsigned long long)t2f_input__consumed(in));
	return input_fail(in, -T2F_E_DECOMPRESS, "corrupt %s data at compressed byte offset %llu: %s",
			  kind_name(in->kind), (unsigned long long)t2f_input__consumed(in), why);
}

/* The three decoders below each add some bytes to buf[len, cap) or set dec_done. */
static int plain_step(struct t2f_input *in)
{
	long n = 0;

	if (!in->raw_eof)
		n = input_read(in, in->buf + in->len, in->cap - in->len);
	if (n < 0)
		return (int)n;
	in->len += (size_t)n;
	in->dec_done = in->raw_eof;
	return 0;
}

static int gzip_step(struct t2f_input *in)
{
	int have = raw_refill(in), ret;
	size_t len0 = in->len, pos0 = in->raw_pos;

	if (have < 0)
		return have;
	if (!in->member_open) {
		if (!have) {
			in->dec_done = true;
			return 0;
		}
		if (inflateReset(&in->zs) != Z_OK)
			return decode_error(in, true, "inflateReset failed");
		in->member_open = true;
	}
	in->zs.next_in = in->raw + in->raw_pos;
	in->zs.avail_in = (uInt)(in->raw_len - in->raw_pos);
	in->zs.next_out = (Bytef *)in->buf + in->len;
	in->zs.avail_out = (uInt)(in->cap - in->len);
	ret = inflate(&in->zs, Z_NO_FLUSH);
	in->raw_pos = in->raw_len - in->zs.avail_in;
	in->len = in->cap - in->zs.avail_out;
	if (ret == Z_STREAM_END)
		in->member_open = false;
	else if (ret != Z_OK && ret != Z_BUF_ERROR)
		return decode_error(in, true, in->zs.msg ? in->zs.msg : "inflate failed");
	if (ret != Z_STREAM_END && in->len == len0 && in->raw_pos == pos0)
		return decode_error(in, have, "the decoder makes no progress");
	return 0;
}

static int zstd_step(struct t2f_input *in)
{
	int have = raw_refill(in);
	ZSTD_inBuffer src = { in->raw, in->raw_len, in->raw_pos };
	ZSTD_outBuffer dst = { in->buf, in->cap, in->len };
	size_t r;

	if (have < 0)
		return have;
	if (!have && in->zret == 0) {
		in->dec_done = true;
		return 0;
	}
	r = ZSTD_decompressStream(in->zd, &dst, &src);
	if (ZSTD_isError(r))
		return decode_error(in, true, ZSTD_getErrorName(r));
	if (dst.pos == in->len && src.pos == in->raw_pos && r != 0)
		return decode_error(in, have, "the decoder makes no progress");
	in->raw_pos = src.pos;
	in->len = dst.pos;
	in->zret = r;
	return 0;
}

static int stream_fill(struct t2f_input *in)
{
	int err = 0;

	while (!err && in->len < in->cap && !in->dec_done) {
		if (in->kind == T2F_INPUT_GZIP)
			err = gzip_step(in);
		else if (in->kind == T2F_INPUT_ZSTD)
			err = zstd_step(in);
		else
			err = plain_step(in);
	}
	return err;
}

static int stream_grow(struct t2f_input *in)
{
	size_t cap = in->cap * 2 < T2F_INPUT_MAX_LINE ? in->cap * 2 : T2F_INPUT_MAX_LINE;
	char *buf;

	if (in->cap >= T2F_INPUT_MAX_LINE)
		return input_fail(in, -T2F_E_LIMIT,
				  "the line at byte offset %llu (decompressed) is longer than the %u-byte limit",
				  (unsigned long long)in->out_off, T2F_INPUT_MAX_LINE);
	buf = realloc(in->buf, cap);
	if (!buf)
		return input_fail(in, -ENOMEM, "cannot grow the line buffer to %zu bytes", cap);
	in->buf = buf;
	in->cap = cap;
	return 0;
}

static int stream_next(struct t2f_input *in, const char **data, size_t *len)
{
	char *nl;
	int err;

	memmove(in->buf, in->buf + in->carry, in->len - in->carry);
	in->out_off += in->carry;
	in->len -= in->carry;
	in->scan -= in->carry;
	in->carry = 0;
	for (;;) {
		err = stream_fill(in);
		if (err)
			return err;
		nl = memrchr(in->buf + in->scan, '\n', in->len - in->scan);
		in->scan = in->len;
		if (nl || in->dec_done) {
			in->carry = nl ? (size_t)(nl + 1 - in->buf) : in->len;
			*data = in->buf;
			*len = in->carry;
			return in->carry > 0;
		}
		err = stream_grow(in);
		if (err)
			return err;
	}
}

static int map_next(struct t2f_input *in, const char **data, size_t *len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), start = in->map_pos, n = in->map_len - start;
	size_t drop = start / page * page;
	const char *p = in->map + start, *nl;

	if (drop > in->map_dropped && !in->map_keep) { /* the previous chunk is no longer valid */
		madvise(in->map + in->map_dropped, drop - in->map_dropped, MADV_DONTNEED);
		in->map_dropped = drop;
	}
	if (n == 0)
		return 0;
	if (n > INPUT_MAP_CHUNK) {
		nl = memrchr(p, '\n', INPUT_MAP_CHUNK);
		if (!nl)
			nl = memchr(p + INPUT_MAP_CHUNK, '\n', n - INPUT_MAP_CHUNK);
		if (nl)
			n = (size_t)(nl + 1 - p);
	}
	in->map_pos += n;
	*data = p;
	*len = n;
	return 1;
}

/* Stream mode setup. sniff: kind unknown yet, read the first bytes (kept) to find it. */
static int stream_init(struct t2f_input *in, bool sniff)
{
	long n;

	in->cap = INPUT_STREAM_BUF;
	in->buf = malloc(in->cap);
	if (!in->buf)
		return -ENOMEM;
	while (sniff && in->len < 4 && !in->raw_eof) {
		n = input_read(in, in->buf + in->len, INPUT_RAW_BLOCK - in->len);
		if (n < 0)
			return (int)n;
		in->len += (size_t)n;
	}
	if (sniff)
		in->kind = magic_kind((const unsigned char *)in->buf, in->len);
	if (in->kind == T2F_INPUT_PLAIN)
		return 0;
	in->raw = malloc(INPUT_RAW_BLOCK);
	if (!in->raw)
		return -ENOMEM;
	memcpy(in->raw, in->buf, in->len);
	in->raw_len = in->len;
	in->len = 0;
	in->zret = 1;
	if (in->kind == T2F_INPUT_ZSTD) {
		in->zd = ZSTD_createDCtx();
		return in->zd ? 0 : -ENOMEM;
	}
	if (inflateInit2(&in->zs, 15 + 32) != Z_OK)
		return -ENOMEM;
	in->zs_live = true;
	return 0;
}

/* A regular file with bytes from off on: find the kind with pread, then map or stream it. */
static int input_open_regular(struct t2f_input *in, off_t off)
{
	unsigned char magic[4];
	ssize_t n = pread(in->fd, magic, sizeof(magic), off);
	void *map;

	if (n < 0)
		return input_fail(in, -errno, "read error: %s", strerror(errno));
	in->kind = magic_kind(magic, (size_t)n);
	if (in->kind != T2F_INPUT_PLAIN || (size_t)in->size != in->size)
		return stream_init(in, false);
	map = mmap(NULL, (size_t)in->size, PROT_READ, MAP_PRIVATE, in->fd, 0);
	if (map == MAP_FAILED)
		return stream_init(in, false);
	madvise(map, (size_t)in->size, MADV_SEQUENTIAL);
	in->map = map;
	in->map_len = (size_t)in->size;
	in->map_pos = (size_t)off;
	return 0;
}

int t2f_input__open(const char *path, struct t2f_diag *diag, struct t2f_input **out)
{
	bool is_stdin = strcmp(path, "-") == 0;
	struct t2f_input *in = calloc(1, sizeof(*in));
	struct stat st;
	off_t off;
	int err;

	*out = NULL;
	if (!in)
		return -ENOMEM;
	in->diag = diag;
	in->fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	in->own_fd = !is_stdin && in->fd >= 0;
	err = in->fd < 0 ? -errno : 0;
	in->name = strdup(is_stdin ? "<stdin>" : path);
	if (!in->name) {
		err = -ENOMEM;
		goto done;
	}
	if (err) {
		err = input_fail(in, err, "cannot open: %s", strerror(-err));
		goto done;
	}
	if (fstat(in->fd, &st) != 0) {
		err = input_fail(in, -errno, "cannot stat: %s", strerror(errno));
		goto done;
	}
	if (S_ISDIR(st.st_mode)) {
		err = input_fail(in, -EISDIR, "cannot open: %s", strerror(EISDIR));
		goto done;
	}
	off = S_ISREG(st.st_mode) ? lseek(in->fd, 0, SEEK_CUR) : -1;
	if (S_ISREG(st.st_mode))
		in->size = (uint64_t)st.st_size;
	if (off >= 0 && off < st.st_size)
		err = input_open_regular(in, off);
	else
		err = stream_init(in, true);
	if (err == -ENOMEM)
		err = input_fail(in, err, "out of memory");
done:
	if (err) {
		t2f_input__free(in);
		return err;
	}
	*out = in;
	return 0;
}

void t2f_input__free(struct t2f_input *in)
{
	if (!in)
		return;
	if (in->map)
		munmap(in->map, in->map_len);
	if (in->own_fd)
		close(in->fd);
	if (in->zs_live)
		inflateEnd(&in->zs);
	ZSTD_freeDCtx(in->zd);
	free(in->raw);
	free(in->buf);
	free(in->name);
	free(in);
}

int t2f_input__next(struct t2f_input *in, const char **data, size_t *len)
{
	int ret;

	*data = NULL;
	*len = 0;
	if (in->err)
		return in->err;
	ret = in->map ? map_next(in, data, len) : stream_next(in, data, len);
	if (ret < 0)
		in->err = ret;
	return ret;
}

bool t2f_input__keep_chunks(struct t2f_input *in)
{
	in->map_keep = in->map != NULL;
	return in->map_keep;
}

void t2f_input__drop(const struct t2f_input *in, const char *from, const char *to)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = ((uintptr_t)from + page - 1) / page * page, b = (uintptr_t)to / page * page;

	if (in->map && from >= in->map && to <= in->map + in->map_len && b > a)
		madvise((void *)a, b - a, MADV_DONTNEED);
}

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22 /* Linux 5.14; glibc 2.36's headers may not have it */
#endif

void t2f_input__prefault(const struct t2f_input *in, const char *from, const char *to)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)from / page * page;

	if (in->map && from >= in->map && to <= in->map + in->map_len && to > from)
		madvise((void *)a, (uintptr_t)to - a, MADV_POPULATE_READ);
}

const char *t2f_input__name(const struct t2f_input *in)
{
	return in->name;
}

enum t2f_input_kind t2f_input__kind(const struct t2f_input *in)
{
	return in->kind;
}

uint64_t t2f_input__size(const struct t2f_input *in)
{
	return in->size;
}

uint64_t t2f_input__consumed(const struct t2f_input *in)
{
	if (in->map)
		return in->map_pos;
	return in->raw_read - (in->raw_len - in->raw_pos);
}
