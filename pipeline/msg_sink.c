/* pipeline/msg_sink.c: fopencookie() with a write function that cuts lines, or that writes to
 * stderr with SIGPIPE held off. */
#include "pipeline/msg_sink.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "formats/grow.h"
#include "formats/nosigpipe.h"
#include "include/trace2flame.h"

struct t2f_msg_sink {
	void (*fn)(void *ctx, const char *line);
	void *ctx;
	char *line;          /* the unfinished line, NUL-terminated when handed over */
	size_t len, cap;
};

#define T2F_MSG_LINE_MAX ((size_t)1 << 20) /* a longer line is handed over in pieces */

static void t2f_msg_emit(struct t2f_msg_sink *m)
{
	m->line[m->len] = '\0';
	m->fn(m->ctx, m->line);
	m->len = 0;
}

static ssize_t t2f_msg_write(void *cookie, const char *buf, size_t n)
{
	struct t2f_msg_sink *m = cookie;

	for (size_t i = 0; i < n; i++) {
		if (buf[i] != '\n' && m->len + 1 >= m->cap &&
		    t2f_grow((void **)&m->line, &m->cap, m->len, 2, 1, 256, T2F_MSG_LINE_MAX))
			t2f_msg_emit(m); /* at the limit, or out of memory: what there is so far */
		if (buf[i] == '\n')
			t2f_msg_emit(m);
		else if (m->len + 1 < m->cap)
			m->line[m->len++] = buf[i];
	}
	return (ssize_t)n;
}

static int t2f_msg_close(void *cookie)
{
	struct t2f_msg_sink *m = cookie;

	if (m->len)
		t2f_msg_emit(m);
	free(m->line);
	free(m);
	return 0;
}

/* Standard error's writes, SIGPIPE held off; best effort, as messages to stderr always were. */
static ssize_t t2f_msg_stderr_write(void *cookie, const char *buf, size_t n)
{
	struct t2f_nosigpipe g;
	bool epipe = false;

	(void)cookie;
	t2f_nosigpipe__begin(&g);
	if (fwrite(buf, 1, n, stderr) < n || fflush(stderr) != 0)
		epipe = errno == EPIPE;
	t2f_nosigpipe__end(&g, epipe);
	return (ssize_t)n;
}

FILE *t2f_msg_sink__stderr(void)
{
	cookie_io_functions_t io = { .write = t2f_msg_stderr_write };
	FILE *f = fopencookie(NULL, "w", io);

	if (f)
		setvbuf(f, NULL, _IONBF, 0);
	return f;
}

FILE *t2f_msg_sink__open(void (*fn)(void *ctx, const char *line), void *ctx)
{
	struct t2f_msg_sink *m = calloc(1, sizeof(*m));
	cookie_io_functions_t io = { .write = t2f_msg_write, .close = t2f_msg_close };
	FILE *f;

	if (!m)
		return NULL;
	m->fn = fn;
	m->ctx = ctx;
	m->line = malloc(256);
	m->cap = m->line ? 256 : 0;
	f = m->line ? fopencookie(m, "w", io) : NULL;
	if (!f) {
		free(m->line);
		free(m);
		return NULL;
	}
	setvbuf(f, NULL, _IOLBF, 0);
	return f;
}

void t2f_message_stderr(void *ctx, const char *line)
{
	struct t2f_nosigpipe g;
	bool failed;

	(void)ctx;
	if (!line)
		return;
	t2f_nosigpipe__begin(&g);
	failed = fputs(line, stderr) == EOF || fputc('\n', stderr) == EOF || fflush(stderr) != 0;
	t2f_nosigpipe__end(&g, failed && errno == EPIPE);
}
