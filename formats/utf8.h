/* formats/utf8.h: well-formed UTF-8 (Unicode §3.9, table 3-7) and its repair for writers whose
 * formats require it (speedscope JSON, pprof strings). Trace text is bytes: names may carry
 * Latin-1 or cut sequences.
 *
 * Repair replaces each maximal ill-formed prefix with one U+FFFD ("\xef\xbf\xbd"), the
 * substitution practice Unicode recommends. Stateless; thread safe.
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

#endif
