/* readers/perf_script_par.h: `perf script` text read by several threads.
 *
 * The input is cut into segments at lines that begin a record: a line that starts with neither a
 * blank nor '#', or a blank-led line that parses as a sample header. From such a line on, what
 * the reader does does not depend on the lines before it, with one exception below. Worker
 * threads read the segments, each into a profile and a buffered diag of its own; the calling
 * thread merges them into the caller's profile and diag in input order (t2f_profile__merge,
 * t2f_diag__replay with the line count of the segments before). That gives the profile, the
 * warnings and the line numbers that one parser reading the whole input gives: the output does
 * not depend on the thread count or the segment size.
 *
 * The exception: a one-line sample's frame is turned into a file offset through its process's
 * PERF_RECORD_MMAP/FORK lines, which may lie in earlier segments. The calling thread keeps the
 * mapping lines of the segments merged so far; a segment that looked frames up while earlier
 * segments had such lines is read again by the calling thread with them.
 *
 * Derived events (formats/derive.h): each segment's derive stage keeps its threads' first
 * switches and the waits open at its end; the merge closes the waits earlier segments left open
 * with them, in input order (t2f_derive__merge). A segment where that would need a sample
 * placed after samples of its thread the segment logged is read again by the calling thread.
 *
 * The calling thread reads (and decompresses) the input straight into segment buffers of
 * T2F_PAR_SEGMENT bytes while the workers parse; a segment ends at the last record start in its
 * buffer, and the bytes after it begin the next buffer; a plain file too is copied, not
 * mapped (docs/performance.md: page tables cost more than the copy). Buffers of merged segments
 * are used again, so resident memory does not grow with the input, and so are their profiles and
 * parsers, emptied (t2f_profile__reset, t2f_perf_script__reset), so that their tables keep the
 * memory they grew to. A worker's parser points into its
 * segment rather than copying what it keeps (t2f_perf_script__borrow_input). At most
 * threads + 1 segments are in flight. Text with no record start for T2F_PAR_PENDING_SEGMENTS
 * segments' worth of bytes is read on by the calling thread alone, in order (memory stays
 * bounded).
 */
#ifndef T2F_PERF_SCRIPT_PAR_H
#define T2F_PERF_SCRIPT_PAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/diag.h"
#include "formats/profile.h"
#include "readers/input.h"
#include "readers/perf_script.h"

#define T2F_PAR_SEGMENT (4u << 20) /* default segment size: see docs/performance.md */
#define T2F_PAR_PENDING_SEGMENTS 16
#define T2F_PAR_POOL 8              /* segment buffers kept for use again */

struct t2f_ps_par_opts {
	unsigned threads;        /* worker threads, at least 1 */
	size_t segment_bytes;    /* 0: the defaults above */
	bool keep_addrs;         /* t2f_perf_script__keep_addrs */
	bool timeless;           /* t2f_perf_script__timeless */
	t2f_perf_script_addr_fn addr_wanted; /* t2f_perf_script__unknown_addrs */
	void *addr_ctx;
	bool addrs_need_ids;     /* t2f_perf_script__addrs_need_ids */
	const struct t2f_sample_filter *filter; /* t2f_perf_script__filter */
	/* called on the calling thread after each chunk taken from the input (a segment's worth at
	 * most), may be NULL; a nonzero return stops the read and is its result */
	int (*progress)(void *ctx, const struct t2f_input *in);
	void *progress_ctx;
};

struct t2f_ps_par_result {
	uint64_t lines;          /* lines read */
	uint64_t bytes;          /* (decompressed) text bytes read */
};

/* Reads input `in` into p. The caller took its first chunk first[0..first_len) with
 * t2f_input__next (to tell the format) and has not called __next since; first_len 0 means
 * the input is empty. name: for messages; input: the threads' input index. 0 or a negative
 * error (its message in d). The result is filled either way. */
int t2f_perf_script__read_parallel(struct t2f_input *in, const char *first, size_t first_len,
				   struct t2f_profile *p, struct t2f_diag *d, const char *name,
				   uint32_t input, const struct t2f_ps_par_opts *o,
				   struct t2f_ps_par_result *res);

#endif
