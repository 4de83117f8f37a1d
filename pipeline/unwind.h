/* pipeline/unwind.h: the unwind stage: user stacks of perf.data samples recorded with
 * --call-graph dwarf, found while the file is read (the reader's t2f_perf_data_unwind_fn) by the
 * symbolizer's unwinder (symbolizer/unwind.h).
 *
 * Files: each mapped file's binary (for .eh_frame and its program headers) is looked for as the
 * symbolizer finds binaries (t2f_debug_find_binary: the recorded path, the symbol dirs, perf's
 * build-id cache) and verified by the build-id the recording gave; a file the recording gave no
 * build-id for is used only when the recording was made on this machine and the file has not
 * changed since (trust_by), or with unsafe_build_id_match. [vdso] is perf's cached copy of its
 * build-id, or this machine's own when recorded here. The debug file (for .debug_frame) is found
 * by t2f_debug_find when the binary's tables do not cover an address. Each file is searched once.
 * libdwfl inflates every compressed debug section of a debug file it opens, once per session
 * (up to T2F_UNWIND_SESSIONS per thread), for .debug_frame alone: a debug file whose sections
 * would inflate past T2F_UNWIND_DEBUG_INFLATE_MAX is not used (Debian's libc debug file: 9.8
 * MB); its addresses that .eh_frame does not cover stop there ("no rules").
 *
 * Counts: every sample given to the stage ends in one stop reason (t2f_unwind_stop); those that
 * did not reach the outermost frame are also counted per module of the frame where they stopped.
 *
 * Ownership: the stage borrows the profile (for strings; read from the threads while the reader
 * waits) and diag; it owns its files' paths and the unwinders. Not thread safe.
 */
#ifndef T2F_PIPELINE_UNWIND_H
#define T2F_PIPELINE_UNWIND_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "formats/diag.h"
#include "formats/profile.h"
#include "readers/perf_data_conv.h"
#include "symbolizer/unwind.h"

#define T2F_UNWIND_DEBUG_INFLATE_MAX (64ull << 20) /* bytes a debug file may inflate */

struct t2f_unwind_stage_opts {
	const char *arch;                 /* uname -m of the recording (perf's ARCH); NULL: host */
	const char *const *debug_dirs;    /* NULL: /usr/lib/debug */
	const char *const *symbol_dirs;   /* NULL-terminated, or NULL */
	bool unsafe_build_id_match;
	int64_t trust_by;                 /* recorded here: files not newer than this (mtime) are
					   * used without a build-id; 0: never */
	unsigned jobs;                    /* threads a batch is shared by (0: 1) */
	bool libdwfl;                     /* libdwfl's unwinder alone (t2f_unwinder__libdwfl) */
};

struct t2f_unwind_module_stats {
	t2f_str_id path;                  /* the mapping's path as recorded */
	uint64_t stops[T2F_UNWIND_STOPS]; /* samples that stopped in it, by reason */
};

struct t2f_unwind_stats {
	uint64_t samples;                 /* samples given to the stage */
	uint64_t stops[T2F_UNWIND_STOPS]; /* by reason (END: unwound to the outermost frame) */
	uint64_t frames;                  /* user frames found */
	uint64_t rules;                   /* samples walked through decoded rules alone */
	const struct t2f_unwind_module_stats *modules; /* stops other than END, per module */
	size_t n_modules;
};

struct t2f_unwind_stage;

/* 0, -ENOMEM; T2F_ERR_UNSUPPORTED when the architecture cannot be unwound (diag says so). */
int t2f_unwind_stage__new(const struct t2f_unwind_stage_opts *o, struct t2f_profile *p,
			  struct t2f_diag *d, struct t2f_unwind_stage **out);
void t2f_unwind_stage__free(struct t2f_unwind_stage *st); /* NULL is fine */

/* The reader's callback (t2f_perf_data_unwind_fn); ctx is the stage. The batch is cut into
 * up to `jobs` runs of consecutive samples, each unwound on its own thread by its own unwinder
 * (with its own files and sessions), so the frames do not depend on jobs. */
int t2f_unwind_stage__sample(void *ctx, const struct t2f_perf_data_conv *c,
			     struct t2f_perf_unwind_sample *s, size_t n);

/* Adds the stage's counts to *to (modules merged by path; to->modules is owned by *to:
 * t2f_unwind_stats__free). 0 or -ENOMEM. */
int t2f_unwind_stage__add_stats(const struct t2f_unwind_stage *st, struct t2f_unwind_stats *to);
void t2f_unwind_stats__free(struct t2f_unwind_stats *s);

#endif
