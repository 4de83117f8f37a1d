/* pipeline/sniff.h: what an input that no reader takes looks like, for the message that refuses
 * it.
 *
 * Readers are picked by an input's first bytes (pipeline/reader_table.h) and perf script text
 * takes whatever no other format claims; when that input holds nothing perf script prints (a
 * program, an output of trace2flame, a text file), the run fails with a message naming what the
 * input looks like and what trace2flame reads. Stateless; thread safe.
 */
#ifndef T2F_SNIFF_H
#define T2F_SNIFF_H

#include <stddef.h>

#include "readers/input.h"

/* What trace2flame reads, for messages: "perf.data files, perf script text, ...". */
#define T2F_SNIFF_READS "trace2flame reads perf.data files, perf script text, folded stacks, " \
			".nettrace traces and pprof profiles (plain, gzip or zstd)"

/* What head[0..len), an input's first (decompressed) bytes, looks like, as a phrase ("an ELF
 * executable (...)", "speedscope JSON, which trace2flame writes but does not read", "plain text
 * (its first line: ...)"), with what to do instead where that is known; kind: the input's
 * packaging (a gzip'd protobuf is a pprof profile), name: the input as messages name it. Into
 * buf[0..size); returns buf. */
const char *t2f_sniff__describe(const char *head, size_t len, enum t2f_input_kind kind,
				const char *name, char *buf, size_t size);

#endif
