/* readers/input.h: the bytes of one input, whatever their packaging.
 *
 * Plain, gzip (1f 8b) and zstd (28 b5 2f fd) inputs are told apart by their first bytes, not by
 * their names; "-" is standard input. Every input is read in large blocks. t2f_input__next()
 * gives chunks that end just after a '\n' (only the last chunk may lack one), so a line never
 * spans two chunks; the first is small (about 256 KiB, or its first line), enough to tell the
 * reader, which may then read on in threads of its own.
 * t2f_input__read() fills a buffer of the caller's with the next bytes, for readers that cut
 * the text themselves.
 *
 * Ownership: the input owns every chunk; a chunk stays valid until the next __next() or __free().
 * Errors: -errno for I/O, -T2F_ERR_DECOMPRESS for a corrupt or truncated stream, -T2F_ERR_LIMIT
 * for a line longer than T2F_INPUT_MAX_LINE; each also records "NAME: what" in the diag. Not
 * thread safe.
 */
#ifndef T2F_INPUT_H
#define T2F_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/diag.h"

#define T2F_INPUT_MAX_LINE (64u << 20) /* longest line accepted from a stream: 64 MiB */

enum t2f_input_kind { T2F_INPUT_PLAIN, T2F_INPUT_GZIP, T2F_INPUT_ZSTD };

struct t2f_input;

/* path "-" reads standard input. diag must outlive the input. */
int t2f_input__open(const char *path, struct t2f_diag *diag, struct t2f_input **out);
/* The same for an open descriptor (read from its current offset; never closed) or for bytes in
 * memory (the caller's: they must outlive the input), shown as `name` in messages. -EBADF for
 * fd < 0. */
int t2f_input__open_fd(int fd, const char *name, struct t2f_diag *diag, struct t2f_input **out);
int t2f_input__open_mem(const void *data, size_t len, const char *name, struct t2f_diag *diag,
			struct t2f_input **out);
void t2f_input__free(struct t2f_input *in); /* NULL is fine */

/* Next chunk of (decompressed) bytes ending at a line boundary: 1 with *data and *len set, 0 at the
 * end of the input, or a negative error. Empty inputs give 0 at once. */
int t2f_input__next(struct t2f_input *in, const char **data, size_t *len);

/* The next decoded bytes, up to cap, into dst: the rest of the input's buffer after the last
 * chunk __next gave, then bytes read or decoded straight into dst; not cut at a line. 1 with
 * *got > 0 (fewer than cap only at the end of the input), 0 at the end, or a negative error (as
 * __next; *got 0). __next may follow and gives the bytes after these. */
int t2f_input__read(struct t2f_input *in, char *dst, size_t cap, size_t *got);

/* The bytes decoded so far from the start of the last chunk __next gave: that chunk and what was
 * read past it (for telling a binary format by more than its first line). Valid until the next
 * call on the input. */
void t2f_input__peek(const struct t2f_input *in, const char **data, size_t *len);

/* A regular file's first bytes (up to 8, fewer when it is shorter), read when it was opened,
 * whatever its kind; none (*len 0) for other inputs. Telling a binary format read from the file
 * itself by them spares reading a first chunk. Valid until __free. */
void t2f_input__head(const struct t2f_input *in, const char **data, size_t *len);

/* Whether the chunks handed out so far are the whole input (no byte is left after them). */
bool t2f_input__ended(const struct t2f_input *in);

/* Where the input records its errors from now on (NULL: nowhere); returns the diag it used. */
struct t2f_diag *t2f_input__swap_diag(struct t2f_input *in, struct t2f_diag *diag);
const char *t2f_input__name(const struct t2f_input *in);   /* "-" shown as "<stdin>" */
enum t2f_input_kind t2f_input__kind(const struct t2f_input *in);
/* Size on disk (compressed) when known (regular files), else 0; and how much of it has been
 * consumed so far: for a progress bar. */
uint64_t t2f_input__size(const struct t2f_input *in);
uint64_t t2f_input__consumed(const struct t2f_input *in);

#endif
