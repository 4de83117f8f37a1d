/* readers/nettrace.h: a .nettrace file (EventPipe: dotnet-trace, the runtime's own writer) →
 * profile.
 *
 * Push reader: feed the file's bytes in order, in chunks of any size, then call __finish(). The
 * container (V4/V5 FastSerialization, V6 blocks) is decoded by readers/nettrace_parse.h; this
 * layer turns its events into samples. Supported: classic .NET CPU sampling (docs/nettrace.md):
 * - Microsoft-DotNETCore-SampleProfiler event 0 is one sample of its thread (ThreadId), with its
 *   managed stack (leaf first). A sample of type External (the thread was outside managed code)
 *   gets the leaf pseudo-frame "UNMANAGED_CODE_TIME", as dotnet-trace shows it.
 * - Managed frames are named from the runtime's MethodLoadVerbose/MethodUnloadVerbose and the
 *   rundown's MethodDCStartVerbose/MethodDCEndVerbose address ranges, modules from ModuleLoad/
 *   ModuleUnload and ModuleDCStart/ModuleDCEnd: "Module!Namespace.Type.Method(signature)". An
 *   address in no known method is "?!0xADDR".
 * Universal (V6) traces (record-trace, `dotnet-trace collect-linux`; nettrace_universal.h):
 * Universal.Events "cpu" samples (event "cpu", Value samples weighted like SampleProfiler ones)
 * and "cswitch" (event "cswitch", Value QPC ticks in ns), with their native stacks. Frames in
 * file mappings are left unnamed with their module (the path) and file offset, for
 * pipeline/resymbolize; the profile gets one module map per file (build-id, executable segment,
 * page size). JIT and kernel frames are named from ProcessSymbol, others "?!0xADDR". Thread
 * names come from the Thread blocks, else the process's name, else "Thread (TID)".
 * Rundown comes at the end of the file, so frames are added as unnamed addresses while reading
 * and named in __finish() (t2f_profile__set_frame_name). Memory grows with the distinct stack
 * addresses, methods and modules of the trace, never with the number of samples.
 *
 * Threads: one per (pid, tid), comm "Thread (TID)" (or the V6 thread name). Event: "cpu",
 * weighted by the trace's sampling interval (ExpectedCPUSamplingRate, 1 ms when absent) in
 * nanoseconds, or 1 per sample with T2F_NETTRACE_WEIGHT_SAMPLES. Time: ns since the trace's start.
 *
 * Accounting: every SampleProfiler, cpu and cswitch event is a sample read; one without a stack is dropped
 * (T2F_DROP_EMPTY_STACK), one whose payload is not a u32 type is dropped as malformed with a
 * warning. A truncated file is a warning (the parser's); what was read before is kept.
 *
 * Errors: -ENOMEM; -T2F_ERR_FORMAT for input that is not nettrace (NetPerf, V3 and older, is
 * refused with a message) or broken framing, message in the diag.
 * Ownership: the reader borrows profile and diag (both must outlive it) and keeps no pointer into
 * fed data after a call returns. Not thread safe.
 */
#ifndef T2F_NETTRACE_H
#define T2F_NETTRACE_H

#include <stddef.h>
#include <stdint.h>

#include "formats/diag.h"
#include "formats/profile.h"
#include "formats/sample_filter.h"

enum t2f_nettrace_weight {
	T2F_NETTRACE_WEIGHT_INTERVAL = 0, /* the sampling interval in ns (like perf's period) */
	T2F_NETTRACE_WEIGHT_SAMPLES,      /* 1 per sample */
};

struct t2f_nettrace_opts {
	enum t2f_nettrace_weight weight;
	/* Samples it does not keep (their pid, tid, thread name and time in ns since the trace's
	 * start) are counted as dropped (T2F_DROP_FILTERED). NULL: all. Borrowed. */
	const struct t2f_sample_filter *filter;
};

struct t2f_nettrace;

/* name: shown in messages; copied. input: the threads' input index. opts: copied; NULL =
 * defaults. 0 or -ENOMEM. */
int t2f_nettrace__new(struct t2f_profile *p, struct t2f_diag *d, const char *name,
		      uint32_t input, const struct t2f_nettrace_opts *opts,
		      struct t2f_nettrace **out);
void t2f_nettrace__free(struct t2f_nettrace *r); /* NULL is fine */

/* The next bytes of the file. 0 or a negative error (then the reader is done). */
int t2f_nettrace__feed(struct t2f_nettrace *r, const uint8_t *data, size_t len);
/* The end of the file: ends the parse, then names every managed frame. 0 or a negative error. */
int t2f_nettrace__finish(struct t2f_nettrace *r);

/* SampleProfiler, cpu and cswitch events seen so far (each is a sample read). */
uint64_t t2f_nettrace__samples(const struct t2f_nettrace *r);

#endif
