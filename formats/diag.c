/* formats/diag.c: error strings, rate-limited warnings, the last error message. */
#include "formats/diag.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define DIAG_KINDS 64      /* distinct warning formats tracked for rate limiting */
#define DIAG_MSG_MAX 1024

struct diag_kind {
	const char *fmt;   /* the key: a string literal's address */
	uint64_t count;
};

struct t2f_diag {
	FILE *sink;
	bool strict;
	unsigned max_repeats;
	uint64_t warnings;
	struct diag_kind kinds[DIAG_KINDS];
	char last_error[DIAG_MSG_MAX];
	bool has_error;
};

const char *t2f_strerror(int err)
{
	switch (-err) {
	case T2F_E_FORMAT: return "malformed input";
	case T2F_E_TRUNCATED: return "truncated input";
	case T2F_E_UNSUPPORTED: return "unsupported input feature";
	case T2F_E_ELF: return "ELF error";
	case T2F_E_BUILDID: return "build-id mismatch";
	case T2F_E_LIMIT: return "resource limit reached";
	case T2F_E_DECOMPRESS: return "corrupt compressed stream";
	default: return strerror(-err);
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

void t2f_diag__free(struct t2f_diag *d)
{
	free(d);
}

void t2f_diag__set_strict(struct t2f_diag *d, bool strict)
{
	d->strict = strict;
}

void t2f_diag__set_max_repeats(struct t2f_diag *d, unsigned n)
{
	d->max_repeats = n;
}

static void format_located(char *buf, size_t size, const char *file, uint64_t line,
			   const char *fmt, va_list ap)
{
	int n;

	if (line)
		n = snprintf(buf, size, "%s:%llu: ", file ? file : "<input>", (unsigned long long)line);
	else
		n = snprintf(buf, size, "%s: ", file ? file : "<input>");
	if (n < 0 || (size_t)n >= size)
		n = 0;
	vsnprintf(buf + n, size - (size_t)n, fmt, ap);
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

int t2f_diag__warn(struct t2f_diag *d, const char *file, uint64_t line, const char *fmt, ...)
{
	char msg[DIAG_MSG_MAX];
	struct diag_kind *k;
	va_list ap;

	d->warnings++;
	va_start(ap, fmt);
	format_located(msg, sizeof(msg), file, line, fmt, ap);
	va_end(ap);
	if (d->strict) {
		snprintf(d->last_error, sizeof(d->last_error), "%s", msg);
		d->has_error = true;
		return -T2F_E_FORMAT;
	}
	k = kind_of(d, fmt);
	if (k && k->count++ >= d->max_repeats)
		return 0;
	if (d->sink)
		fprintf(d->sink, "trace2flame: warning: %s\n", msg);
	return 0;
}

int t2f_diag__error(struct t2f_diag *d, int err, const char *file, uint64_t line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	format_located(d->last_error, sizeof(d->last_error), file, line, fmt, ap);
	va_end(ap);
	d->has_error = true;
	return err;
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
	for (size_t i = 0; i < DIAG_KINDS && d->kinds[i].fmt; i++) {
		struct diag_kind *k = &d->kinds[i];

		if (k->count > d->max_repeats && d->sink)
			fprintf(d->sink, "trace2flame: warning: %llu more warnings like: %s\n",
				(unsigned long long)(k->count - d->max_repeats), k->fmt);
		k->count = 0;
		k->fmt = NULL;
	}
}
