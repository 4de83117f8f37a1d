/* formats/buf.h: a growable byte buffer (a value type: zero-initialised = empty).
 *
 * The buffer owns p; t2f_buf__free() releases it. p may move on every call that adds, so keep
 * offsets, not pointers into it. Not NUL-terminated unless the caller puts a NUL. Not thread safe.
 */
#ifndef T2F_BUF_H
#define T2F_BUF_H

#include <stddef.h>

struct t2f_buf {
	char *p;
	size_t len, cap;
};

/* Room for `extra` more bytes after len. 0 or -ENOMEM (also on size overflow). */
int t2f_buf__reserve(struct t2f_buf *b, size_t extra);
/* Appends s[0..len). 0 or -ENOMEM. */
int t2f_buf__put(struct t2f_buf *b, const void *s, size_t len);
/* Appends the NUL-terminated s (without its NUL). 0 or -ENOMEM. */
int t2f_buf__puts(struct t2f_buf *b, const char *s);
/* Appends b's own bytes [off, off + len): safe although p may move. 0 or -ENOMEM. */
int t2f_buf__put_self(struct t2f_buf *b, size_t off, size_t len);
void t2f_buf__free(struct t2f_buf *b); /* frees p and empties b */

#endif
