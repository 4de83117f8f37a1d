/* readers/perf_data_trace.h: tracepoint payloads of perf.data samples (PERF_SAMPLE_RAW), decoded
 * through the formats the file itself carries (its HEADER_TRACING_DATA feature section: the
 * kernel's format files, as perf read them from tracefs), with libtraceevent. Only what the
 * derive stage needs (formats/derive.h): sched:sched_switch's prev_pid, prev_state, next_pid.
 *
 * The section (tools/perf/util/trace-event-read.c's layout): "\x17\x08\x44tracing", a version
 * string, the file's byte order (1: big endian) and long size (1 byte each), the page size (u32),
 * "header_page" and "header_event" (each a u64 size and that many bytes), ftrace's formats (u32
 * count, each a u64 size and text), then the event formats (u32 systems; each a system name,
 * u32 count, each a u64 size and text); what follows (kallsyms, printk formats, cmdlines) is
 * not read. Counts and sizes are checked against the section; a section that breaks the
 * layout, or whose sched_switch format libtraceevent refuses, is a warning and no decoder.
 *
 * Ownership: the decoder keeps no pointer into the section. Errors: -ENOMEM, or -T2F_ERR_FORMAT
 * (a warning in strict mode). Not thread safe; internal to readers/.
 */
#ifndef T2F_PERF_DATA_TRACE_H
#define T2F_PERF_DATA_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/diag.h"

struct t2f_pd_switch {
	int64_t prev_pid, next_pid;
	uint64_t prev_state;  /* the kernel's bits (formats/derive.h t2f_cpu_state_of_bits) */
};

struct t2f_pd_trace;

/* A decoder from the section sec[0..len) of the file `name`; *out NULL (and 0) when the section
 * has no sched:sched_switch format or cannot be read (warned). */
int t2f_pd_trace__new(const uint8_t *sec, size_t len, struct t2f_diag *d, const char *name,
		      struct t2f_pd_trace **out);
void t2f_pd_trace__free(struct t2f_pd_trace *t); /* NULL is fine */

/* The tracepoint id of sched:sched_switch (a tracepoint attr's config). */
uint64_t t2f_pd_trace__switch_id(const struct t2f_pd_trace *t);
/* A sched_switch sample's payload raw[0..size): false when a field lies past its end. */
bool t2f_pd_trace__switch(const struct t2f_pd_trace *t, const uint8_t *raw, uint32_t size,
			  struct t2f_pd_switch *sw);

#endif
