/* formats/diag.h: error codes and diagnostics shared by every module.
 *
 * Fallible functions return 0 or a negative code: -errno, or -T2F_E_* (from 5000 up so they never
 * equal an errno). A function that fails on bad input also records a message in the diag it was
 * given ("FILE:LINE: what was expected"), which the CLI prints.
 *
 * Warnings are for recoverable input problems: each is counted under its format string (pass a
 * string literal) and printed at most max_repeats times; t2f_diag__flush() prints how many were
 * suppressed. In strict mode the first warning becomes the error (-T2F_E_FORMAT).
 *
 * Thread safety: a diag is used by one thread at a time.
 */
#ifndef T2F_DIAG_H
#define T2F_DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum t2f_errc {
	T2F_E_FORMAT = 5000,  /* input breaks its format's rules; the diag has file:line */
	T2F_E_TRUNCATED,      /* input ended in the middle of a record */
	T2F_E_UNSUPPORTED,    /* well-formed input using a feature we do not implement */
	T2F_E_ELF,            /* libelf failed */
	T2F_E_BUILDID,        /* a candidate debug file's build-id did not match */
	T2F_E_LIMIT,          /* a configured resource limit was reached */
	T2F_E_DECOMPRESS,     /* a gzip/zstd stream is corrupt */
};

/* Static string for -errno or -T2F_E_*; never NULL. */
const char *t2f_strerror(int err);

struct t2f_diag;

/* sink: where warnings go (stderr in the CLI); NULL = count only. Returns 0 or -ENOMEM. */
int t2f_diag__new(FILE *sink, struct t2f_diag **out);
void t2f_diag__free(struct t2f_diag *d); /* NULL is fine */

void t2f_diag__set_strict(struct t2f_diag *d, bool strict);
void t2f_diag__set_max_repeats(struct t2f_diag *d, unsigned n); /* default 5 */

/* A recoverable input problem at file:line (line 0 = none). fmt must be a string literal: it is
 * the rate-limiting key. Returns 0, or -T2F_E_FORMAT in strict mode (the message then becomes the
 * error, as t2f_diag__error would record it). */
int t2f_diag__warn(struct t2f_diag *d, const char *file, uint64_t line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Records a fatal error message "file:line: ..." (line 0: "file: ...") and returns err unchanged,
 * so a caller can `return t2f_diag__error(d, -T2F_E_FORMAT, ...)`. */
int t2f_diag__error(struct t2f_diag *d, int err, const char *file, uint64_t line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* The last recorded error message, or NULL; owned by d, valid until the next call on d. */
const char *t2f_diag__last_error(const struct t2f_diag *d);

/* Total warnings issued (printed or not). */
uint64_t t2f_diag__warnings(const struct t2f_diag *d);

/* Prints "N more warnings like: <fmt>" lines for suppressed repeats, then resets the counters. */
void t2f_diag__flush(struct t2f_diag *d);

#endif
