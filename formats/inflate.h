/* formats/inflate.h: one compressed stream decoded whole into a buffer of the size it is known
 * to have (what a compressed ELF section's header states).
 *
 * zlib streams (RFC 1950: SHF_COMPRESSED's ELFCOMPRESS_ZLIB) are inflated by igzip (ISA-L's
 * isal_inflate_stateless) when libisal.so.2 can be opened (dlopen, once per process, as the pprof
 * writer opens it: a static link must not need it), else by zlib. igzip inflates Debian's libc
 * debug file (10 MB of DWARF) in 44% of zlib's time. zstd frames (ELFCOMPRESS_ZSTD) by libzstd.
 *
 * Either engine gives the same bytes or the same refusal: a stream is taken only when it ends
 * where its input does not run out, its check value (zlib's Adler-32, zstd's content size)
 * holds, and it fills exactly `size` bytes.
 *
 * Errors: 0; -T2F_ERR_DECOMPRESS for a stream that is corrupt, truncated, or longer or shorter
 * than `size`; -ENOMEM. Nothing is recorded: the caller names the stream. Thread safe; `out` is
 * the caller's and must hold `size` bytes.
 */
#ifndef T2F_INFLATE_H
#define T2F_INFLATE_H

#include <stdbool.h>
#include <stddef.h>

/* The zlib stream in[0..n) into out[0..size); zlib_only: never igzip (for tests). */
int t2f_inflate__zlib(const void *in, size_t n, void *out, size_t size, bool zlib_only);

/* The zstd frame in[0..n) into out[0..size). */
int t2f_inflate__zstd(const void *in, size_t n, void *out, size_t size);

/* Whether zlib streams are inflated by igzip in this process. */
bool t2f_inflate__igzip(void);

#endif
