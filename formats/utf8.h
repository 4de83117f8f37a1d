/* formats/utf8.h: well-formed UTF-8 (Unicode §3.9, table 3-7) and its repair for writers whose
 * formats require it (speedscope JSON, pprof strings); strings from inputs made harmless for
 * outputs and terminals. Trace text is bytes: names may carry Latin-1, cut sequences, or
 * control characters (a terminal's escape sequences among them).
 *
 * Repair replaces each maximal ill-formed prefix with one U+FFFD ("\xef\xbf\xbd"), the
 * substitution practice Unicode recommends. Control characters are C0 (U+0000..U+001F), DEL
 * (U+007F) and C1 (U+0080..U+009F: a terminal may take U+009B for ESC [). Stateless; thread
 * safe.
 */
#ifndef T2F_UTF8_H
#define T2F_UTF8_H

#include <stdbool.h>
#include <stddef.h>

#include "formats/buf.h"

/* The length (1..4) of the well-formed sequence at s[0..n), n >= 1; or 0 when it is ill-formed,
 * and then *bad is the length of its maximal ill-formed prefix (>= 1). */
size_t t2f_utf8_seq(const unsigned char *s, size_t n, size_t *bad);

/* Whether s[0..len) is well-formed UTF-8. */
bool t2f_utf8_valid(const char *s, size_t len);

/* s[0..len) repaired into b (b->len is reset first; no NUL appended). 0 or -ENOMEM. */
int t2f_utf8_repair(struct t2f_buf *b, const char *s, size_t len);

/* In place: each control character of s[0..len) becomes the one byte `with` (a C1 one, two
 * bytes long, shrinks to one); other bytes, well-formed or not, stay. Returns the new length. */
size_t t2f_utf8_squash_controls(char *s, size_t len, char with);

/* Whether s[0..len) is well-formed UTF-8 without control characters. */
bool t2f_utf8_clean(const char *s, size_t len);

/* s[0..len) repaired into b as t2f_utf8_repair does, with every control character replaced by
 * the NUL-terminated ctl of at most 3 bytes ("" drops it). b->len is reset first; no NUL
 * appended. 0, -ENOMEM, or -EINVAL for a longer ctl. */
int t2f_utf8_sanitize(struct t2f_buf *b, const char *s, size_t len, const char *ctl);

/* The NUL-terminated s as a terminal may show it: s itself when it is clean (above), else a copy
 * in out[0..size) (size >= 8) where each control character and each byte of an ill-formed
 * sequence is written "\xNN" (a backslash of s stays as it is), cut at a character with "..."
 * when it does not fit. For messages naming what an input gave (paths, names, event names). */
const char *t2f_utf8_visible(const char *s, char *out, size_t size);

/* a buffer for t2f_utf8_visible that holds a path shown whole (the public header's
 * T2F_VISIBLE_MAX for t2f_visible, the same value) */
#define T2F_VISIBLE_MAX 4096

#endif
