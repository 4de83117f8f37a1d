/* formats/diag.h: error codes and diagnostics shared by every module.
 *
 * Fallible functions return 0 or a negative code: -errno, or -T2F_ERR_* (enum t2f_error of
 * include/trace2flame_enums.h, the library's codes: from 5000 up so they never equal an errno).
 * A function that fails on bad input also records a message in the diag it was given
 * ("FILE:LINE: what was expected"), which the CLI prints.
 *
 * Warnings are for recoverable input problems: each is counted under its format string (pass a
 * string literal) and printed at most max_repeats times; t2f_diag__flush() prints how many were
 * suppressed. In strict mode the first warning becomes the error (-T2F_ERR_FORMAT).
 *
 * Thread safety: a diag is used by one thread at a time; a worker thread records into a buffered
 * diag of its own, replayed into the real one afterwards (t2f_diag__new_buffered).
 */
#ifndef T2F_DIAG_H
#define T2F_DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "include/trace2flame_enums.h" /* enum t2f_error: the codes, T2F_ERR_* */

/* A static string for -errno or -T2F_ERR_*, "unknown error" for any other int; never NULL, never
 * overwritten. Thread safe. */
const char *t2f_strerror(int err);

struct t2f_diag;

/* sink: where warnings go (stderr in the CLI); NULL = count only. Returns 0 or -ENOMEM. */
int t2f_diag__new(FILE *sink, struct t2f_diag **out);
void t2f_diag__free(struct t2f_diag *d); /* NULL is fine */

void t2f_diag__set_strict(struct t2f_diag *d, bool strict);
void t2f_diag__set_max_repeats(struct t2f_diag *d, unsigned n); /* default 5 */

/* A recoverable input problem at file:line (line 0 = none). fmt must be a string literal: it is
 * the rate-limiting key. Returns 0, or -T2F_ERR_FORMAT in strict mode (the message then becomes the
 * error, as t2f_diag__error would record it). */
int t2f_diag__warn(struct t2f_diag *d, const char *file, uint64_t line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Records a fatal error message "file:line: ..." (line 0: "file: ...") and returns err unchanged,
 * so a caller can `return t2f_diag__error(d, -T2F_ERR_FORMAT, ...)`. */
int t2f_diag__error(struct t2f_diag *d, int err, const char *file, uint64_t line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* The last recorded error message, or NULL; owned by d, valid until the next call on d. */
const char *t2f_diag__last_error(const struct t2f_diag *d);

/* Total warnings issued (printed or not). */
uint64_t t2f_diag__warnings(const struct t2f_diag *d);

/* Whether d has recorded an error (t2f_diag__error, a strict warning, or a replayed one). */
bool t2f_diag__has_error(const struct t2f_diag *d);
/* Forgets the recorded error (before a new step whose own error is wanted); the counts stay. */
void t2f_diag__clear_error(struct t2f_diag *d);

/* Prints "N more warnings like: <fmt>" lines for suppressed repeats, then resets the counters.
 * Warnings replayed (below) under a format for which d's table of 64 formats had no room, and
 * not kept by the buffered diag, are reported as "N more warnings of other kinds".
 * Does nothing on a buffered diag. */
void t2f_diag__flush(struct t2f_diag *d);

/* Buffered diags, for a worker thread that parses part of an input without knowing the line
 * number it starts at: warnings and the error are recorded with their line numbers within the
 * part, and the thread that owns the real diag replays them later with the part's offset.
 *
 * t2f_diag__new_buffered makes a diag that records instead of printing: each warning keeps its
 * format key, file (copied: its owner may be freed before the replay), line and message; at most
 * max_repeats (at least one) messages per format are kept (set it to the destination's with
 * t2f_diag__set_max_repeats before the first warning), further ones are only counted. Formats
 * past the table of 64 share one such allowance. An error recorded with t2f_diag__error is kept
 * with its file and line too. Never strict (t2f_diag__set_strict is ignored). A message that
 * cannot be stored for lack of memory is counted as suppressed. 0 or -ENOMEM. */
int t2f_diag__new_buffered(struct t2f_diag **out);

/* Replays buffered diag src into dst, in the order src recorded them, as if each warning had been
 * issued on dst with its line number plus line_offset (line 0 stays 0): dst's rate limit, counts
 * (t2f_diag__warnings includes src's suppressed ones) and strict mode apply, and the suppressed
 * counts of src join dst's so flush() prints what it would have printed had dst seen every
 * warning. Then src's error, if it has one, becomes dst's last error (its line shifted likewise).
 * Exact as long as src's max_repeats equals dst's and the formats fit dst's table.
 * Replaying several buffered diags in input order equals issuing all their warnings in order.
 * src is not changed; its thread must be done with it. dst may itself be buffered.
 * 0; -T2F_ERR_FORMAT when dst is strict and a replayed warning became its error (replay stops
 * there, src's error is not replayed); -EINVAL when src is not buffered or is dst. */
int t2f_diag__replay(struct t2f_diag *dst, const struct t2f_diag *src, uint64_t line_offset);

#endif
