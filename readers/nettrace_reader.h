/* readers/nettrace_reader.h: the nettrace reader's insides, for tests and --stats (internal to
 * readers/ and tests/unit/test_nettrace.c).
 *
 * nt_reader__sink() gives the callbacks the reader hands its container parser: a test can call
 * them with hand-built nt_trace / nt_event records instead of feeding file bytes. The counters
 * are read-only views, valid while the reader lives.
 */
#ifndef T2F_NETTRACE_READER_H
#define T2F_NETTRACE_READER_H

#include <stdint.h>

#include "readers/nettrace.h"
#include "readers/nettrace_parse.h"

struct nt_reader_stats {
	uint64_t samples;          /* SampleProfiler events (samples read) */
	uint64_t untyped_samples;  /* of which the payload held no u32 type */
	uint64_t methods, modules; /* method / module events decoded */
	uint64_t bad_payloads;     /* method / module events too short (warned, ignored) */
	uint64_t frames_named;     /* after __finish: managed addresses named from a method */
	uint64_t frames_unnamed;   /* and those left "Module!0xADDR" or "?!0xADDR" */
};

void nt_reader__sink(struct t2f_nettrace *r, struct nt_sink *out);
const struct nt_reader_stats *nt_reader__stats(const struct t2f_nettrace *r);
/* What __finish() does after the parser's end: names every managed, JIT and kernel frame the
 * reader made (universal file frames are named by pipeline/resymbolize).
 * 0 or -ENOMEM. */
int nt_reader__name_frames(struct t2f_nettrace *r);

#endif
