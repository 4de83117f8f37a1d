/* formats/diag.c: error strings, rate-limited warnings, the last error message; buffered diags
 * that record warnings for a later replay into another diag. */
#include "formats/diag.h"
#include "formats/grow.h"
#include "formats/plural.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "formats/utf8.h"
#include "include/trace2flame.h" /* t2f_strerror is exported by the library */

#define DIAG_KINDS 64      /* distinct warning formats tracked for rate limiting */
#define DIAG_MSG_MAX 1024
#define T2F_UNKNOWN_ERROR "unknown error"

struct diag_kind {
	const char *fmt;   /* the key: a string literal's address */
	uint64_t count;
	uint64_t kept;     /* buffered diags: how many of count were recorded */
};

/* A recorded warning of a buffered diag; its strings are offsets into the text buffer. */
struct diag_rec {
	const char *fmt;
	uint64_t line;
	size_t file, msg;
	bool has_file;     /* false: the warning gave no file (NULL) */
};

/* What a buffered diag keeps for t2f_diag__replay. Bounded: at most max_repeats (at least one)
 * records per kind, plus as many for every format past the kinds table together. */
struct diag_buffer {
	struct diag_rec *recs;
	size_t len, cap;
	char *text;        /* NUL-terminated file names and message bodies */
	size_t text_len, text_cap;
	struct diag_kind overflow; /* formats that found the kinds table full */
	char *err_file;    /* the recorded error: file (a copy; NULL = none), line, body */
	uint64_t err_line;
	char err_msg[DIAG_MSG_MAX];
};

struct t2f_diag {
	FILE *sink;
	bool strict;
	unsigned max_repeats;
	uint64_t warnings;
	uint64_t unkeyed;  /* replayed suppressed warnings whose format found the table full */
	struct diag_kind kinds[DIAG_KINDS];
	char last_error[DIAG_MSG_MAX];
	bool has_error;
	struct diag_buffer *buf; /* non-NULL for a buffered diag */
};

/* Every int has a text: a known negative code its own, 0 glibc's "Success", anything else (a
 * positive value, INT_MIN, a number no errno names) one fixed text. Only static strings, never
 * strerror()'s buffer, so two calls in one printf() and calls on several threads do not meet. */
const char *t2f_strerror(int err)
{
	const char *text;

	if (err > 0 || err == INT_MIN) /* -INT_MIN does not exist */
		return T2F_UNKNOWN_ERROR;
	switch (-err) {
	case T2F_ERR_FORMAT: return "malformed input";
	case T2F_ERR_TRUNCATED: return "truncated input";
	case T2F_ERR_UNSUPPORTED: return "unsupported input feature";
	case T2F_ERR_ELF: return "ELF error";
	case T2F_ERR_BUILD_ID: return "build-id mismatch";
	case T2F_ERR_LIMIT: return "resource limit reached";
	case T2F_ERR_DECOMPRESS: return "corrupt compressed stream";
	case T2F_ERR_NOT_FILE: return "not a regular file";
	case T2F_ERR_NO_EVENT: return "no such event in the input";
	case T2F_ERR_STATE: return "call out of order";
	default:
		text = strerrordesc_np(-err);
		return text ? text : T2F_UNKNOWN_ERROR;
	}
}

int t2f_diag__new(FILE *sink, struct t2f_diag **out)
{
	struct t2f_diag *d = calloc(1, sizeof(*d));

	if (!d)
		return -ENOMEM;
	d->sink = sink;
	d->max_repeats = 5;
	*out = d;
	return 0;
}

int t2f_diag__new_buffered(struct t2f_diag **out)
{
	struct t2f_diag *d;
	int err = t2f_diag__new(NULL, &d);

	if (err)
		return err;
	d->buf = calloc(1, sizeof(*d->buf));
	if (!d->buf) {
		free(d);
		return -ENOMEM;
	}
	*out = d;
	return 0;
}

void t2f_diag__free(struct t2f_diag *d)
{
	if (d && d->buf) {
		free(d->buf->recs);
		free(d->buf->text);
		free(d->buf->err_file);
		free(d->buf);
	}
	free(d);
}

void t2f_diag__set_strict(struct t2f_diag *d, bool strict)
{
	d->strict = strict && !d->buf;
}

void t2f_diag__set_max_repeats(struct t2f_diag *d, unsigned n)
{
	d->max_repeats = n;
}

/* "file:line: body" (line 0: "file: body"; no file: "<input>") into out, truncated to size.
 * Control characters and ill-formed UTF-8 from an input (in a path, a name) show as "\xNN". */
static void located(char *out, size_t size, const char *file, uint64_t line, const char *body)
{
	char vfile[DIAG_MSG_MAX / 2], vbody[DIAG_MSG_MAX];
	const char *f = t2f_utf8_visible(file ? file : "<input>", vfile, sizeof(vfile));
	int n;

	if (line)
		n = snprintf(out, size, "%s:%llu: ", f, (unsigned long long)line);
	else
		n = snprintf(out, size, "%s: ", f);
	if (n < 0 || (size_t)n >= size)
		n = 0;
	snprintf(out + n, size - (size_t)n, "%s", t2f_utf8_visible(body, vbody, sizeof(vbody)));
}

/* A warning's format as a reader sees it: each conversion ("%s", "%llu") becomes "...", "%%"
 * becomes "%". Into out, truncated to size. */
static void fmt_template(char *out, size_t size, const char *fmt)
{
	size_t o = 0;

	for (const char *p = fmt; *p && o + 4 < size; p++) {
		if (*p != '%') {
			out[o++] = *p;
			continue;
		}
		if (p[1] == '%') {
			out[o++] = *++p;
			continue;
		}
		p += strspn(p + 1, "-+ #0123456789.*hljztL") + 1; /* to the conversion */
		memcpy(out + o, "...", 3);
		o += 3;
		if (!*p)
			break;
	}
	out[o] = '\0';
}

/* The counter for fmt, or NULL when the table is full (then it is always printed). */
static struct diag_kind *kind_of(struct t2f_diag *d, const char *fmt)
{
	for (size_t i = 0; i < DIAG_KINDS; i++) {
		if (d->kinds[i].fmt == fmt)
			return &d->kinds[i];
		if (!d->kinds[i].fmt) {
			d->kinds[i].fmt = fmt;
			return &d->kinds[i];
		}
	}
	return NULL;
}

/* Copies s (with its NUL) to the end of b's text; *off = where. 0 or -ENOMEM. */
static int push_text(struct diag_buffer *b, const char *s, size_t *off)
{
	size_t len = strlen(s) + 1;

	if (t2f_grow((void **)&b->text, &b->text_cap, b->text_len, len, 1, 16, SIZE_MAX))
		return -ENOMEM;
	memcpy(b->text + b->text_len, s, len);
	*off = b->text_len;
	b->text_len += len;
	return 0;
}

/* Where b's text holds file: the previous record's copy when it is the same name, else a new
 * copy. 0 or -ENOMEM. */
static int file_text(struct diag_buffer *b, const char *file, size_t *off)
{
	const struct diag_rec *prev = b->len ? &b->recs[b->len - 1] : NULL;

	if (prev && prev->has_file && strcmp(b->text + prev->file, file) == 0) {
		*off = prev->file;
		return 0;
	}
	return push_text(b, file, off);
}

/* Appends a record; on -ENOMEM b is unchanged. */
static int push_rec(struct diag_buffer *b, const char *fmt, const char *file, uint64_t line,
		    const char *body)
{
	struct diag_rec r = { .fmt = fmt, .line = line, .has_file = file != NULL };
	size_t mark = b->text_len;

	if (t2f_grow((void **)&b->recs, &b->cap, b->len, 1, sizeof(r), 16, SIZE_MAX))
		return -ENOMEM;
	if ((file && file_text(b, file, &r.file)) || push_text(b, body, &r.msg)) {
		b->text_len = mark;
		return -ENOMEM;
	}
	b->recs[b->len++] = r;
	return 0;
}

/* A buffered diag's warning: counted under its kind, recorded while the kind has room. A record
 * that finds no memory is counted as suppressed. */
static void record(struct t2f_diag *d, const char *fmt, const char *file, uint64_t line,
		   const char *body)
{
	struct diag_kind *k = kind_of(d, fmt);
	uint64_t keep = d->max_repeats ? d->max_repeats : 1;

	if (!k)
		k = &d->buf->overflow;
	k->count++;
	if (k->kept < keep && push_rec(d->buf, fmt, file, line, body) == 0)
		k->kept++;
}

/* One warning issued on d (t2f_diag__warn after formatting, and t2f_diag__replay). */
static int issue(struct t2f_diag *d, const char *fmt, const char *file, uint64_t line,
		 const char *body)
{
	char msg[DIAG_MSG_MAX];
	struct diag_kind *k;

	d->warnings++;
	if (d->buf) {
		record(d, fmt, file, line, body);
		return 0;
	}
	if (d->strict) {
		located(d->last_error, sizeof(d->last_error), file, line, body);
		d->has_error = true;
		return -T2F_ERR_FORMAT;
	}
	k = kind_of(d, fmt);
	if ((k && k->count++ >= d->max_repeats) || !d->sink)
		return 0;
	located(msg, sizeof(msg), file, line, body);
	fprintf(d->sink, "trace2flame: warning: %s\n", msg);
	return 0;
}

int t2f_diag__warn(struct t2f_diag *d, const char *file, uint64_t line, const char *fmt, ...)
{
	char body[DIAG_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(body, sizeof(body), fmt, ap);
	va_end(ap);
	return issue(d, fmt, file, line, body);
}

/* Copies s; NULL for NULL or when out of memory. */
static char *copy_str(const char *s)
{
	size_t len = s ? strlen(s) + 1 : 0;
	char *c = len ? malloc(len) : NULL;

	if (c)
		memcpy(c, s, len);
	return c;
}

/* Makes "file:line: body" d's last error; a buffered diag also keeps the parts for replay (a
 * file name it cannot copy is replayed as "<input>"). */
static void set_error(struct t2f_diag *d, const char *file, uint64_t line, const char *body)
{
	struct diag_buffer *b = d->buf;

	located(d->last_error, sizeof(d->last_error), file, line, body);
	d->has_error = true;
	if (!b)
		return;
	free(b->err_file);
	b->err_file = copy_str(file);
	b->err_line = line;
	snprintf(b->err_msg, sizeof(b->err_msg), "%s", body);
}

int t2f_diag__error(struct t2f_diag *d, int err, const char *file, uint64_t line, const char *fmt, ...)
{
	char body[DIAG_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(body, sizeof(body), fmt, ap);
	va_end(ap);
	set_error(d, file, line, body);
	return err;
}

static uint64_t shift_line(uint64_t line, uint64_t offset)
{
	return line ? line + offset : 0;
}

/* Adds the warnings src counted but did not record to dst's counters, as if issued on dst after
 * the recorded ones (which they all follow within their kind). A kind dst has no room for
 * joins dst's count of suppressed warnings of other kinds. */
static void replay_suppressed(struct t2f_diag *dst, const struct t2f_diag *src)
{
	const struct diag_buffer *b = src->buf;
	uint64_t lost = b->overflow.count - b->overflow.kept;

	for (size_t i = 0; i < DIAG_KINDS && src->kinds[i].fmt; i++) {
		const struct diag_kind *sk = &src->kinds[i];
		struct diag_kind *k;

		if (sk->count == sk->kept)
			continue;
		k = kind_of(dst, sk->fmt);
		if (k)
			k->count += sk->count - sk->kept;
		else
			lost += sk->count - sk->kept;
	}
	if (dst->buf)
		dst->buf->overflow.count += lost;
	else
		dst->unkeyed += lost;
	dst->warnings += src->warnings - b->len;
}

int t2f_diag__replay(struct t2f_diag *dst, const struct t2f_diag *src, uint64_t line_offset)
{
	const struct diag_buffer *b = src->buf;
	int err;

	if (!b || dst == src)
		return -EINVAL;
	for (size_t i = 0; i < b->len; i++) {
		const struct diag_rec *r = &b->recs[i];

		err = issue(dst, r->fmt, r->has_file ? b->text + r->file : NULL,
			    shift_line(r->line, line_offset), b->text + r->msg);
		if (err)
			return err;
	}
	replay_suppressed(dst, src);
	if (src->has_error)
		set_error(dst, b->err_file, shift_line(b->err_line, line_offset), b->err_msg);
	return 0;
}

bool t2f_diag__has_error(const struct t2f_diag *d)
{
	return d->has_error;
}

void t2f_diag__clear_error(struct t2f_diag *d)
{
	d->has_error = false;
	d->last_error[0] = '\0';
}

const char *t2f_diag__last_error(const struct t2f_diag *d)
{
	return d->has_error ? d->last_error : NULL;
}

uint64_t t2f_diag__warnings(const struct t2f_diag *d)
{
	return d->warnings;
}

void t2f_diag__flush(struct t2f_diag *d)
{
	if (d->buf)
		return; /* its counts are for t2f_diag__replay */
	for (size_t i = 0; i < DIAG_KINDS && d->kinds[i].fmt; i++) {
		struct diag_kind *k = &d->kinds[i];

		if (k->count > d->max_repeats && d->sink) {
			char like[DIAG_MSG_MAX];

			fmt_template(like, sizeof(like), k->fmt);
			fprintf(d->sink, "trace2flame: warning: %llu more warning%s like: %s\n",
				(unsigned long long)(k->count - d->max_repeats),
				t2f_plural(k->count - d->max_repeats), like);
		}
		k->count = 0;
		k->fmt = NULL;
	}
	if (d->unkeyed && d->sink)
		fprintf(d->sink, "trace2flame: warning: %llu more warning%s of other kinds\n",
			(unsigned long long)d->unkeyed, t2f_plural(d->unkeyed));
	d->unkeyed = 0;
}
