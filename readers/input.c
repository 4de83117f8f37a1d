/* readers/input.c: plain, gzip and zstd inputs handed out in line-aligned chunks.
 *
 * open() looks at the first bytes (pread() on a regular file; on anything else a first read()
 * whose bytes are kept) to tell plain, gzip and zstd apart. Every input is then read with read():
 * bytes are decoded into one buffer until it is full or the data ends; the chunk is the buffer up
 * to its last '\n', and the unfinished line after it (the carry) is moved to the front on the
 * next call. When the carry fills the whole buffer (one line longer than the buffer), the buffer
 * doubles, up to T2F_INPUT_MAX_LINE. Compressed bytes are read in blocks into `raw` and fed to
 * zlib's inflate (windowBits 15+32 reads the gzip header; after Z_STREAM_END a following member
 * restarts the decoder with inflateReset) or to ZSTD_decompressStream (which chains frames by
 * itself). __read() hands out the carry, then decodes (or reads) straight into the caller's
 * buffer.
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
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>
#include <zstd.h>

#include "formats/grow.h"
#include "formats/mem.h"

#define INPUT_STREAM_BUF (4u << 20)  /* the decoded buffer after the first chunk (huge pages) */
#define INPUT_FIRST_FILL (256u << 10) /* decoded bytes before the first chunk is looked at */
#define INPUT_RAW_BLOCK (1u << 20)   /* compressed bytes per read(); they expand several times */

struct t2f_input {
	struct t2f_diag *diag;
	char *name;
	enum t2f_input_kind kind;
	int fd;                 /* -1 once closed, or for bytes in memory; stdin is never closed */
	const char *mem;        /* the bytes of a memory input not read yet (the caller's) */
	size_t mem_left;
	bool own_fd;
	int err;                /* sticky error, 0 if none */
	uint64_t size;          /* st_size of a regular file, else 0 */
	uint64_t raw_read;      /* bytes read() from fd so far */
	bool raw_eof;           /* read() returned 0 */

	/* buf[0, len) is data, [carry, len) the unfinished line after the last chunk,
	 * [0, scan) was already searched and holds no '\n' past carry. */
	char *buf;
	size_t cap, len, carry, scan;
	size_t fill_cap;        /* a fill stops there (below cap until the first chunk is out) */
	uint64_t out_off;       /* decompressed offset of buf[0] */
	bool dec_done;          /* no more decoded bytes will come */
	unsigned char *raw;     /* compressed bytes [raw_pos, raw_len) not yet decoded */
	size_t raw_pos, raw_len;
	z_stream zs;
	bool zs_live, member_open;
	ZSTD_DCtx *zd;
	size_t zret;            /* last ZSTD_decompressStream result: 0 = at a frame boundary */
	unsigned char head[8];  /* a regular file's first bytes, read at open */
	size_t head_len;
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

	if (in->fd < 0) { /* a memory input */
		n = (ssize_t)(cap < in->mem_left ? cap : in->mem_left);
		if (n)
			memcpy(dst, in->mem, (size_t)n);
		in->mem += n;
		in->mem_left -= (size_t)n;
		in->raw_eof = n == 0;
		in->raw_read += (uint64_t)n;
		return n;
	}
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
		return input_fail(in, -T2F_ERR_DECOMPRESS,
				  "truncated %s data: input ends inside a %s at compressed byte offset %llu",
				  kind_name(in->kind), in->kind == T2F_INPUT_GZIP ? "member" : "frame",
				  (unsigned long long)t2f_input__consumed(in));
	return input_fail(in, -T2F_ERR_DECOMPRESS,
			  "corrupt %s data at compressed byte offset %llu: %s", kind_name(in->kind),
			  (unsigned long long)t2f_input__consumed(in), why);
}

/* The decoded bytes go to a target: the input's own buffer, or the caller's (__read). */
struct target {
	char *p;
	size_t cap, len;
};

/* The three decoders below each add some bytes to t->p[len, cap) or set dec_done. */
static int plain_step(struct t2f_input *in, struct target *t)
{
	long n = 0;

	if (!in->raw_eof)
		n = input_read(in, t->p + t->len, t->cap - t->len);
	if (n < 0)
		return (int)n;
	t->len += (size_t)n;
	in->dec_done = in->raw_eof;
	return 0;
}

static int gzip_step(struct t2f_input *in, struct target *t)
{
	int have = raw_refill(in), ret;
	size_t len0 = t->len, pos0 = in->raw_pos;

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
	in->zs.next_out = (Bytef *)t->p + t->len;
	in->zs.avail_out = (uInt)(t->cap - t->len < UINT32_MAX ? t->cap - t->len : UINT32_MAX);
	ret = inflate(&in->zs, Z_NO_FLUSH);
	in->raw_pos = in->raw_len - in->zs.avail_in;
	t->len = (size_t)((char *)in->zs.next_out - t->p);
	if (ret == Z_STREAM_END)
		in->member_open = false;
	else if (ret != Z_OK && ret != Z_BUF_ERROR)
		return decode_error(in, true, in->zs.msg ? in->zs.msg : "inflate failed");
	if (ret != Z_STREAM_END && t->len == len0 && in->raw_pos == pos0)
		return decode_error(in, have, "the decoder makes no progress");
	return 0;
}

static int zstd_step(struct t2f_input *in, struct target *t)
{
	int have = raw_refill(in);
	ZSTD_inBuffer src = { in->raw, in->raw_len, in->raw_pos };
	ZSTD_outBuffer dst = { t->p, t->cap, t->len };
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
	if (dst.pos == t->len && src.pos == in->raw_pos && r != 0)
		return decode_error(in, have, "the decoder makes no progress");
	in->raw_pos = src.pos;
	t->len = dst.pos;
	in->zret = r;
	return 0;
}

/* Decodes into t until it is full or the data ends. */
static int decode_into(struct t2f_input *in, struct target *t)
{
	int err = 0;

	while (!err && t->len < t->cap && !in->dec_done) {
		if (in->kind == T2F_INPUT_GZIP)
			err = gzip_step(in, t);
		else if (in->kind == T2F_INPUT_ZSTD)
			err = zstd_step(in, t);
		else
			err = plain_step(in, t);
	}
	return err;
}

static int stream_fill(struct t2f_input *in)
{
	struct target t = { in->buf, in->fill_cap < in->cap ? in->fill_cap : in->cap, in->len };
	int err = decode_into(in, &t);

	in->len = t.len;
	return err;
}

/* The first fill's buffer (INPUT_FIRST_FILL bytes, plain pages) swapped for INPUT_STREAM_BUF
 * bytes of whole huge pages once the input is read on: a reader that reads on into buffers of
 * its own after the first chunk (t2f_input__read) never faults a huge page in for it. */
static int stream_widen(struct t2f_input *in)
{
	size_t cap;
	char *buf = t2f_mem__alloc_huge(INPUT_STREAM_BUF, &cap);

	if (!buf)
		return input_fail(in, -ENOMEM, "cannot grow the line buffer past %zu bytes",
				  in->cap);
	memcpy(buf, in->buf, in->len);
	free(in->buf);
	in->buf = buf;
	in->cap = cap;
	return 0;
}

static int stream_grow(struct t2f_input *in)
{
	if (in->cap < INPUT_STREAM_BUF)
		return stream_widen(in);
	if (in->cap >= T2F_INPUT_MAX_LINE)
		return input_fail(in, -T2F_ERR_LIMIT,
				  "the line at byte offset %llu (decompressed) is longer than the %u-byte limit",
				  (unsigned long long)in->out_off, T2F_INPUT_MAX_LINE);
	if (t2f_grow((void **)&in->buf, &in->cap, in->cap, 1, 1, 1, T2F_INPUT_MAX_LINE))
		return input_fail(in, -ENOMEM, "cannot grow the line buffer past %zu bytes",
				  in->cap);
	return 0;
}

/* Moves the carry to the front of the buffer. */
static void stream_shift(struct t2f_input *in)
{
	memmove(in->buf, in->buf + in->carry, in->len - in->carry);
	in->out_off += in->carry;
	in->len -= in->carry;
	in->scan = in->scan > in->carry ? in->scan - in->carry : 0;
	in->carry = 0;
}

static int stream_next(struct t2f_input *in, const char **data, size_t *len)
{
	char *nl;
	int err;

	stream_shift(in);
	if (in->fill_cap == SIZE_MAX && in->cap < INPUT_STREAM_BUF && (err = stream_widen(in)))
		return err;
	for (;;) {
		err = stream_fill(in);
		if (err)
			return err;
		nl = memrchr(in->buf + in->scan, '\n', in->len - in->scan);
		in->scan = in->len;
		if (nl || in->dec_done) {
			in->carry = nl ? (size_t)(nl + 1 - in->buf) : in->len;
			in->fill_cap = SIZE_MAX;
			*data = in->buf;
			*len = in->carry;
			return in->carry > 0;
		}
		if (in->fill_cap < INPUT_STREAM_BUF) { /* the first fill found no line end: */
			in->fill_cap = SIZE_MAX;       /* fill on (stream_grow widens first) */
			continue;
		}
		err = stream_grow(in);
		if (err)
			return err;
	}
}

/* Stream mode setup. sniff: kind unknown yet, read the first bytes (kept) to find it. */
static int stream_init(struct t2f_input *in, bool sniff)
{
	long n;

	/* plain pages for the first chunk (stream_widen: huge ones after it) */
	in->buf = malloc(INPUT_FIRST_FILL);
	if (!in->buf)
		return -ENOMEM;
	in->cap = INPUT_FIRST_FILL;
	/* the first chunk only tells the reader: readers that read on in threads of their own
	 * start sooner (a 4 MiB read came before them: 1.7 ms of a 37 ms run) */
	in->fill_cap = INPUT_FIRST_FILL;
	while (sniff && in->len < 4 && !in->raw_eof) {
		n = input_read(in, in->buf + in->len, INPUT_FIRST_FILL - in->len);
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

/* A regular file with bytes from off on: find the kind with pread, then read it. */
static int input_open_regular(struct t2f_input *in, off_t off)
{
	ssize_t n = pread(in->fd, in->head, sizeof(in->head), off);

	if (n < 0)
		return input_fail(in, -errno, "read error: %s", strerror(errno));
	in->head_len = (size_t)n;
	in->kind = magic_kind(in->head, in->head_len);
	posix_fadvise(in->fd, off, 0, POSIX_FADV_SEQUENTIAL); /* a larger read-ahead from disk */
	return stream_init(in, false);
}

/* The input on in->fd (named, open): regular files from their offset, anything else streamed. */
static int input_start(struct t2f_input *in)
{
	struct stat st;
	off_t off;

	if (fstat(in->fd, &st) != 0)
		return input_fail(in, -errno, "cannot stat: %s", strerror(errno));
	if (S_ISDIR(st.st_mode))
		return input_fail(in, -EISDIR, "cannot open: %s", strerror(EISDIR));
	off = S_ISREG(st.st_mode) ? lseek(in->fd, 0, SEEK_CUR) : -1;
	if (S_ISREG(st.st_mode))
		in->size = (uint64_t)st.st_size;
	if (off >= 0 && off < st.st_size)
		return input_open_regular(in, off);
	return stream_init(in, true);
}

/* A new input named name, reading fd (closed by __free when own_fd) or, when fd < 0, mem. */
static int input_new(int fd, bool own_fd, const char *name, struct t2f_diag *diag,
		     struct t2f_input **out)
{
	struct t2f_input *in = calloc(1, sizeof(*in));

	*out = NULL;
	if (!in || !(in->name = strdup(name))) {
		if (own_fd && fd >= 0)
			close(fd);
		free(in);
		return -ENOMEM;
	}
	in->diag = diag;
	in->fd = fd;
	in->own_fd = own_fd;
	*out = in;
	return 0;
}

/* Ends an open: in on success, else freed; -ENOMEM recorded. */
static int input_opened(struct t2f_input *in, int err, struct t2f_input **out)
{
	if (err == -ENOMEM)
		err = input_fail(in, err, "out of memory");
	if (err) {
		t2f_input__free(in);
		return err;
	}
	*out = in;
	return 0;
}

int t2f_input__open(const char *path, struct t2f_diag *diag, struct t2f_input **out)
{
	bool is_stdin = strcmp(path, "-") == 0;
	int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	int err = fd < 0 ? -errno : 0;
	struct t2f_input *in;

	*out = NULL;
	if (input_new(fd, !is_stdin && fd >= 0, is_stdin ? "<stdin>" : path, diag, &in))
		return -ENOMEM;
	if (err)
		return input_opened(in, input_fail(in, err, "cannot open: %s", strerror(-err)), out);
	return input_opened(in, input_start(in), out);
}

int t2f_input__open_fd(int fd, const char *name, struct t2f_diag *diag, struct t2f_input **out)
{
	struct t2f_input *in;

	*out = NULL;
	if (fd < 0)
		return -EBADF;
	if (input_new(fd, false, name, diag, &in))
		return -ENOMEM;
	return input_opened(in, input_start(in), out);
}

int t2f_input__open_mem(const void *data, size_t len, const char *name, struct t2f_diag *diag,
			struct t2f_input **out)
{
	struct t2f_input *in;

	*out = NULL;
	if (input_new(-1, false, name, diag, &in))
		return -ENOMEM;
	in->mem = data;
	in->mem_left = len;
	in->size = len;
	return input_opened(in, stream_init(in, true), out);
}

void t2f_input__free(struct t2f_input *in)
{
	if (!in)
		return;
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

bool t2f_input__ended(const struct t2f_input *in)
{
	return in->dec_done && in->carry == in->len;
}

void t2f_input__peek(const struct t2f_input *in, const char **data, size_t *len)
{
	*data = in->buf;
	*len = in->buf ? in->len : 0;
}

void t2f_input__head(const struct t2f_input *in, const char **data, size_t *len)
{
	*data = (const char *)in->head;
	*len = in->head_len;
}

int t2f_input__next(struct t2f_input *in, const char **data, size_t *len)
{
	int ret;

	*data = NULL;
	*len = 0;
	if (in->err)
		return in->err;
	ret = stream_next(in, data, len);
	if (ret < 0)
		in->err = ret;
	return ret;
}

/* The carry first (what __next read past its last chunk), then straight into dst. */
static int input_read_into(struct t2f_input *in, char *dst, size_t cap, size_t *got)
{
	struct target t = { dst, cap, 0 };
	size_t n = in->len - in->carry < cap ? in->len - in->carry : cap;

	memcpy(dst, in->buf + in->carry, n);
	in->carry += n;
	t.len = n;
	if (in->carry == in->len) { /* the buffer is empty: the next bytes bypass it */
		in->out_off += in->len;
		in->len = in->carry = in->scan = 0;
	}
	if (t.len < cap && in->len == 0) {
		int err = decode_into(in, &t);

		in->out_off += t.len - n;
		if (err)
			return err;
	}
	*got = t.len;
	return t.len > 0;
}

int t2f_input__read(struct t2f_input *in, char *dst, size_t cap, size_t *got)
{
	int ret;

	*got = 0;
	if (in->err)
		return in->err;
	if (cap == 0)
		return 0;
	ret = input_read_into(in, dst, cap, got);
	if (ret < 0) {
		in->err = ret;
		*got = 0;
	}
	return ret;
}

struct t2f_diag *t2f_input__swap_diag(struct t2f_input *in, struct t2f_diag *diag)
{
	struct t2f_diag *old = in->diag;

	in->diag = diag;
	return old;
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
	return in->raw_read - (in->raw_len - in->raw_pos);
}
