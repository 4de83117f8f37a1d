/* writers/out.h: buffered output sink over a file descriptor or into memory, for every writer.
 *
 * Writes are buffered (1 MiB) and never fail individually: the first write(2) error is kept and
 * every later write is ignored, so a writer can emit freely and check once with
 * t2f_out__finish(). A pipe or socket whose reader is gone is -EPIPE, never SIGPIPE: the
 * calling thread blocks it during each write(2) and takes the one raised (formats/nosigpipe.h).
 * The sink does not own the fd; it owns its memory until __take(). Not thread safe.
 */
#ifndef T2F_OUT_H
#define T2F_OUT_H

#include <stddef.h>
#include <stdint.h>

struct t2f_out;

int t2f_out__new(int fd, struct t2f_out **out); /* 0 or -ENOMEM */
/* A sink into memory: -ENOMEM (from __finish) when the bytes do not fit. 0 or -ENOMEM. */
int t2f_out__new_mem(struct t2f_out **out);
/* Frees the sink without flushing. NULL is fine. */
void t2f_out__free(struct t2f_out *o);

void t2f_out__write(struct t2f_out *o, const void *p, size_t len);
void t2f_out__puts(struct t2f_out *o, const char *s);
void t2f_out__putc(struct t2f_out *o, char c);
void t2f_out__u64(struct t2f_out *o, uint64_t v);  /* decimal */
void t2f_out__i64(struct t2f_out *o, int64_t v);   /* decimal */
void t2f_out__printf(struct t2f_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Flushes the buffer; 0, or the first -errno seen by any write. */
int t2f_out__finish(struct t2f_out *o);
uint64_t t2f_out__bytes(const struct t2f_out *o); /* bytes accepted so far */
/* A memory sink's bytes, after __finish: *buf malloc'd (free() it; never NULL on success, also
 * for 0 bytes), *len bytes. The sink is empty afterwards. 0 or the sink's error. */
int t2f_out__take(struct t2f_out *o, char **buf, size_t *len);

#endif
