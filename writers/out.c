/* writers/out.c: a 1 MiB buffer in front of write(2) for small writes; large ones (a piece of
 * text made elsewhere) go to write(2) straight, after what is buffered: copying them through the
 * buffer would cost a pass over every byte. The first error sticks. SIGPIPE is blocked around
 * the writes (formats/nosigpipe.h): a closed pipe is -EPIPE. */
#include "writers/out.h"

#include "formats/decimal.h"
#include "formats/grow.h"
#include "formats/nosigpipe.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OUT_BUF (1u << 20)
#define OUT_DIRECT (64u << 10) /* writes of this size or more are not copied */

struct t2f_out {
	int fd;                 /* -1: into mem */
	int err;
	char *mem;              /* the memory sink's bytes: [0, mem_len) of mem_cap */
	size_t mem_len, mem_cap;
	size_t len;
	uint64_t total;
	char buf[OUT_BUF];
};

int t2f_out__new(int fd, struct t2f_out **out)
{
	struct t2f_out *o = malloc(sizeof(*o));

	if (!o)
		return -ENOMEM;
	o->fd = fd;
	o->err = 0;
	o->mem = NULL;
	o->mem_len = o->mem_cap = 0;
	o->len = 0;
	o->total = 0;
	*out = o;
	return 0;
}

int t2f_out__new_mem(struct t2f_out **out)
{
	return t2f_out__new(-1, out);
}

void t2f_out__free(struct t2f_out *o)
{
	if (o)
		free(o->mem);
	free(o);
}

int t2f_out__take(struct t2f_out *o, char **buf, size_t *len)
{
	int err = t2f_out__finish(o);

	*buf = NULL;
	*len = 0;
	if (err)
		return err;
	if (!o->mem) { /* nothing written: an empty, still freeable buffer */
		o->mem = malloc(1);
		if (!o->mem)
			return -ENOMEM;
	}
	*buf = o->mem;
	*len = o->mem_len;
	o->mem = NULL;
	o->mem_len = o->mem_cap = 0;
	return 0;
}

static void out_drain(struct t2f_out *o, const char *p, size_t len)
{
	struct t2f_nosigpipe g;

	if (o->fd < 0 && !o->err) {
		o->err = t2f_grow((void **)&o->mem, &o->mem_cap, o->mem_len, len, 1, OUT_BUF, SIZE_MAX);
		if (!o->err && len)
			memcpy(o->mem + o->mem_len, p, len);
		o->mem_len += o->err ? 0 : len;
		return;
	}
	if (!len || o->err)
		return;
	t2f_nosigpipe__begin(&g); /* a reader gone is -EPIPE, not the caller's death */
	while (len && !o->err) {
		ssize_t n = write(o->fd, p, len);

		if (n < 0) {
			if (errno != EINTR)
				o->err = -errno;
			continue;
		}
		p += n;
		len -= (size_t)n;
	}
	t2f_nosigpipe__end(&g, o->err == -EPIPE);
}

static void out_flush(struct t2f_out *o)
{
	out_drain(o, o->buf, o->len);
	o->len = 0;
}

void t2f_out__write(struct t2f_out *o, const void *p, size_t len)
{
	o->total += len;
	if (o->err || len == 0) /* p may then be NULL (an empty buffer) */
		return;
	if (len >= OUT_DIRECT) {
		out_flush(o);
		out_drain(o, p, len);
		return;
	}
	if (len > OUT_BUF - o->len)
		out_flush(o);
	memcpy(o->buf + o->len, p, len);
	o->len += len;
}

void t2f_out__puts(struct t2f_out *o, const char *s)
{
	t2f_out__write(o, s, strlen(s));
}

void t2f_out__putc(struct t2f_out *o, char c)
{
	if (o->err) {
		o->total++;
		return;
	}
	if (o->len == OUT_BUF)
		out_flush(o);
	o->buf[o->len++] = c;
	o->total++;
}

void t2f_out__u64(struct t2f_out *o, uint64_t v)
{
	size_t n;

	if (OUT_BUF - o->len < T2F_DEC_MAX)
		out_flush(o);
	n = t2f_dec_u64(o->buf + o->len, v); /* after an error: scratch, not kept */
	o->len += o->err ? 0 : n;
	o->total += n;
}

void t2f_out__i64(struct t2f_out *o, int64_t v)
{
	size_t n;

	if (OUT_BUF - o->len < T2F_DEC_MAX)
		out_flush(o);
	n = t2f_dec_i64(o->buf + o->len, v);
	o->len += o->err ? 0 : n;
	o->total += n;
}

void t2f_out__printf(struct t2f_out *o, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(tmp)) {
		t2f_out__write(o, tmp, (size_t)n);
		return;
	}
	char *big = malloc((size_t)n + 1);

	if (!big) {
		o->err = o->err ? o->err : -ENOMEM;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	t2f_out__write(o, big, (size_t)n);
	free(big);
}

int t2f_out__finish(struct t2f_out *o)
{
	out_flush(o);
	return o->err;
}

uint64_t t2f_out__bytes(const struct t2f_out *o)
{
	return o->total;
}
