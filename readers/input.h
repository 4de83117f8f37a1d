/* readers/input.h: the bytes of one input, whatever their packaging.
 *
 * Plain, gzip (1f 8b) and zstd (28 b5 2f fd) inputs are told apart by their first bytes, not by
 * their names; "-" is standard input. A plain regular file is mmap'd and handed out in place; a
 * stream (pipe, or decompressed data) is read in large blocks. Either way t2f_input__next() gives
 * chunks that end just after a '\n' (only the last chunk may lack one), so a line never spans two
 * chunks and a line-based parser keeps no copy.
 *
 * Ownership: the input owns every chunk; a chunk stays valid until the next __next() or __free().
 * Errors: -errno for I/O, -T2F_E_DECOMPRESS for a corrupt or truncated stream, -T2F_E_LIMIT for a line longer
 * than T2F_INPUT_MAX_LINE; each also records "NAME: what" in the diag. Not thread safe.
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
void t2f_input__free(struct t2f_input *in); /* NULL is fine */

/* Next chunk of (decompressed) bytes ending at a line boundary: 1 with *data and *len set, 0 at the
 * end of the input, or a negative error. Empty inputs give 0 at once. */
int t2f_input__next(struct t2f_input *in, const char **data, size_t *len);

/* For readers that work on several chunks at once. When the input is a mapped file, __next()
 * stops dropping the pages of chunks given out and true is returned: chunks then follow each
 * other in memory and stay valid until __free(). Otherwise false (streams reuse their buffer:
 * a chunk is valid until the next __next()). */
bool t2f_input__keep_chunks(struct t2f_input *in);
/* Drops the resident pages wholly inside [from, to) of a kept mapping, to keep memory flat; the
 * bytes stay readable (they are read back from the file). Thread safe; no-op when not mapped. */
void t2f_input__drop(const struct t2f_input *in, const char *from, const char *to);

/* Maps the pages of [from, to) of a kept mapping in one call (MADV_POPULATE_READ, Linux 5.14)
 * instead of one fault per 64 KiB as they are first read: on a 1.15 GB file, 9% less wall time
 * for the parallel reader (docs/performance.md). Thread safe; no-op when not mapped or when the
 * kernel does not know the advice. */
void t2f_input__prefault(const struct t2f_input *in, const char *from, const char *to);

const char *t2f_input__name(const struct t2f_input *in);   /* "-" shown as "<stdin>" */
enum t2f_input_kind t2f_input__kind(const struct t2f_input *in);
/* Size on disk (compressed) when known (regular files), else 0; and how much of it has been
 * consumed so far: for a progress bar. */
uint64_t t2f_input__size(const struct t2f_input *in);
uint64_t t2f_input__consumed(const struct t2f_input *in);

#endif
