/* tests/fuzz/fuzz_support.h: what the fuzz targets (tests/fuzz/fuzz_*.c) share.
 *
 * Each target defines LLVMFuzzerTestOneInput. It is linked either with libFuzzer (-DT2F_FUZZ=ON,
 * clang) or with tests/fuzz/replay.c, which calls it on every file of a corpus directory, in
 * every build. A target keeps no state between calls and frees everything it allocates.
 *
 * A check that fails (FZ_CHECK) prints what differed and aborts: libFuzzer saves the input as a
 * crash, the replay test fails.
 */
#ifndef T2F_FUZZ_SUPPORT_H
#define T2F_FUZZ_SUPPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "formats/diag.h"
#include "formats/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Aborts with "fuzz: FILE:LINE: what" when cond is false. */
#define FZ_CHECK(cond, ...)                                                                    \
	do {                                                                                   \
		if (!(cond))                                                                   \
			fz_fail(__FILE__, __LINE__, __VA_ARGS__);                              \
	} while (0)

__attribute__((noreturn, format(printf, 3, 4)))
void fz_fail(const char *file, int line, const char *fmt, ...);

/* FNV-1a of data: the targets take their options and split points from it, so one input always
 * runs the same way. */
uint64_t fz_hash(const uint8_t *data, size_t size);

/* The offset just after the first '\n' at or after `pos` (size when there is none): a split of
 * text into whole lines. */
size_t fz_line_split(const uint8_t *data, size_t size, size_t pos);

/* Feeds data[0..size) to feed(ctx, piece, len) in order: in one piece when `whole`, else in
 * chunks of 1 to 1024 bytes, their sizes drawn from h (xorshift), so one input always splits
 * the same way. Stops at feed's first nonzero return, which it returns; else 0. */
int fz_feed_chunks(const uint8_t *data, size_t size, uint64_t h, bool whole,
		   int (*feed)(void *ctx, const uint8_t *piece, size_t len), void *ctx);

/* An anonymous in-memory file (memfd) holding data[0..size), rewound, and its path
 * "/proc/self/fd/N" (opening it gives a new descriptor of the same file) in path[0..path_len).
 * The descriptor (the caller closes it), or -1. */
int fz_memfd(const uint8_t *data, size_t size, char *path, size_t path_len);

/* A diag whose warnings go to a memory buffer (fz_diag_text), for comparing two runs. */
struct fz_diag {
	struct t2f_diag *d;
	FILE *sink;
	char *text;
	size_t len;
};

int fz_diag_open(struct fz_diag *fd);          /* 0 or -ENOMEM */
void fz_diag_close(struct fz_diag *fd);        /* frees everything; a zeroed one is fine */
/* Every warning so far (suppressed repeats summed up by t2f_diag__flush), then the last error;
 * valid until the next call on fd. */
const char *fz_diag_text(struct fz_diag *fd);

/* Aborts unless a and b hold the same model: threads, events, frames, stack nodes, module maps,
 * cells, the sample log, the time span and the sample counts (strings compared by content).
 * `what` names the comparison in the message. */
void fz_check_same_profile(const struct t2f_profile *a, const struct t2f_profile *b,
			   const char *what);

#endif
