/* writers/pprof.h: pprof (perftools.profiles.Profile, gzip-compressed protobuf).
 *
 * What is written (profile.proto; docs/design.md §6):
 * - sample_type: two columns per event, in event-id order: its sample count and its summed
 *   weight. One event: "samples/count", "<event>/<unit>" ("cpu-clock/nanoseconds"); several:
 *   "<event>-samples/count", "<event>/<unit>". A name already taken gets "-weight" appended.
 *   default_sample_type is the weight column of `event`; period_type/period (the mean period,
 *   rounded) when that event carried periods.
 * - sample: one per (stack, thread), values for every event (0 where it has none), locations
 *   leaf first, labels pid (numeric, left out when unknown), tid (numeric), thread (comm).
 *   Samples come in order of the profile's cells, so output is deterministic.
 * - mapping: one per module path, ids in frame-id order of first use, except that the first
 *   module whose basename begins with the comm of thread 1 comes first (pprof reads mapping[0]
 *   as the main binary). memory_start/limit, file_offset and build_id come from the first
 *   module map with that path, when the profile has one; has_functions when every frame of the
 *   module has a symbol.
 * - location: one per distinct frame run: a frame with the (inlined) frames inlined into it.
 *   In the profile an inlined frame sits on the stack below the frame it is inlined into; such a
 *   run becomes one location whose lines list the innermost function first (frames with
 *   addresses are folded only when the addresses agree), each line with the line of its frame's
 *   code (the frame's `line`: the address's line for the innermost, the line of the inlined
 *   call for the others; left out when unknown). Locations take the mapping and address
 *   of their outermost frame; a DSO-relative address inside the mapping's file range is moved
 *   into it (memory_start + addr - file_offset), other addresses are written as recorded.
 *   Frames whose own locations would hold the same function, line, mapping and address (the
 *   profile keeps them apart: one named late, one address in two spaces) share one, as the
 *   profile read back from this pprof has them.
 * - function: one per distinct (display name, raw name, filename, start_line): name as
 *   writers/frame_name.h gives it (full style), system_name the name as the input recorded it
 *   (left out for unnamed frames), filename and start_line where the function is
 *   (t2f_frame__fn_position: its declaration's file and line, else its code's file and no
 *   start_line; each left out when unknown).
 * - string_table: "" first, then each distinct string once, in order of first use; strings that
 *   are not valid UTF-8 have each bad sequence replaced by U+FFFD, and control characters
 *   (C0, DEL, C1: formats/utf8.h) become spaces, as `go tool pprof` prints strings raw.
 * - comment: "trace2flame VERSION", then "input: NAME" for each of the profile's input names
 *   (t2f_profile__input_name_at: a merge of pprof files names the inputs they were made from),
 *   or for the options' input when the profile has none or input_given; time_nanos from the
 *   options; duration_nanos the profile's duration (t2f_profile__duration: the inputs' spans
 *   summed), else its time span (t2f_profile__time_span), when it has one.
 * The protobuf is gzip-compressed at a fixed level (igzip's when libisal.so.2 opens, else
 * zlib's) with a zeroed header mtime, so equal profiles give equal bytes with one engine.
 *
 * Returns 0, -ENOMEM, -EINVAL (event out of range) or -T2F_ERR_LIMIT (an id space is full); write
 * errors surface in t2f_out__finish(), the caller's. Reads the profile only. Threads: the call
 * starts its own (grouping the samples beside the tables, deflating two blocks at a time) and
 * joins them before it returns; without them it does the same work on the caller's thread.
 */
#ifndef T2F_PPROF_H
#define T2F_PPROF_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/profile.h"
#include "writers/frame_name.h"
#include "writers/out.h"

struct t2f_pprof_opts {
	t2f_event_id event;       /* default sample type and period: this event (0 = the first) */
	const char *input;        /* the input's name for the comment; NULL = none */
	bool input_given;         /* input is the caller's: written instead of the profile's input
				   * names */
	int64_t time_nanos;       /* collection time, ns since the epoch; 0 = not written */
	bool raw;                 /* write the protobuf uncompressed (tests, debugging) */
	struct t2f_frame_name_opts names; /* .collapsed is forced off */
};

int t2f_pprof__write(const struct t2f_profile *p, const struct t2f_pprof_opts *o,
		     struct t2f_out *out);

#endif
