/* readers/pprof.h: a pprof profile (perftools.profiles.Profile, profile.proto of
 * github.com/google/pprof), gzip'd or raw (readers/input.h decompresses) → profile.
 *
 * Push reader: feed the (decompressed) bytes in order, in chunks of any size, then call
 * __finish(), which decodes the message: its fields may come in any order (the string table is
 * usually last), so the bytes are kept until then, at most T2F_PPROF_MAX_BYTES.
 *
 * What is read:
 * - Sample types. Pairs "samples/count" + "EVENT/UNIT" (one event; "samples-weight" there is
 *   the event "samples", whose name the first column took), or "EVENT-samples/count" +
 *   "EVENT/UNIT" (or "EVENT-weight/UNIT") per event, as trace2flame's pprof writer writes them
 *   and as Go writes CPU profiles, are read as every event with its sample counts and weights,
 *   unless `event` names a sample type none of them is. Otherwise one column is read, as event
 *   TYPE weighted by the column's values, each pprof sample one sample: the column `event` names
 *   (by its type, or "type/unit"), else the profile's default_sample_type, else the last, as
 *   pprof picks it (`event` "type/unit" names the event so). Units: "nanoseconds" is
 *   T2F_UNIT_NANOSECONDS, any other a count; the weight column of period_type marks its event
 *   as having periods.
 * - Samples: their locations (leaf first), values (one per sample type), and the labels "pid"
 *   and "tid" (numbers) and "thread" (a string), the thread's root as trace2flame's writer
 *   writes it; a sample with none of the three is a thread of unknown pid, tid 0, named by the
 *   basename of the first mapping's file. Other labels are ignored. Values of 0 in every column
 *   read add nothing; a negative value drops the sample (T2F_DROP_MALFORMED, a warning).
 * - Locations: a location's lines are its inline chain, innermost first: the last line is the
 *   frame holding the code (with the location's address and mapping), the others frames of kind
 *   T2F_FRAME_INLINED on top of it. A frame is named by its function's system_name, else its
 *   name; a function without system_name named "[...]" (trace2flame's name for a frame it could
 *   not name) and a location without lines leave the frame unnamed, so the resolve stage names
 *   it from its mapping's file (pipeline/resymbolize.h). A function's filename and start_line
 *   are where it is (t2f_frame.fn_file, fn_line; without start_line its code's file), a line's
 *   line the line of the frame's code. The kind follows the mapping's file as perf script text's
 *   does (readers/perf_script_maps.h: "[kernel.kallsyms]" kernel, "/tmp/perf-PID.map" JIT).
 * - Addresses: a file offset (T2F_SPACE_FILE_OFF): inside its mapping's [memory_start,
 *   memory_limit) address - memory_start + file_offset, else the address as it is (what
 *   trace2flame's writer does with the file offsets of modules it has no mapping range of).
 * - Mappings: one module map each (pid unknown) with its range, file offset, file and build-id
 *   (lowercase hex when it is hex; another build-id is left out).
 * - duration_nanos: t2f_profile__add_duration. Comments "input: NAME" (trace2flame's): the
 *   profile's inputs (t2f_profile__add_input_name).
 *
 * Limits (hostile input): T2F_PPROF_MAX_BYTES decoded bytes, T2F_PPROF_MAX_TABLE strings,
 * functions, mappings, locations and lines each, T2F_PPROF_MAX_DEPTH locations a sample,
 * T2F_PPROF_MAX_TYPES sample types; nesting is the message's own (Profile, Location, Line), no
 * other is descended into. Past one: -T2F_ERR_LIMIT. A malformed message (a bad varint, a length
 * past its end, an unknown id, a string index out of the table): -T2F_ERR_FORMAT or
 * -T2F_ERR_TRUNCATED. Every message names the file and the byte offset (of the decoded bytes).
 *
 * Ownership: borrows profile and diag (both must outlive it); keeps the fed bytes (copied). Not
 * thread safe.
 */
#ifndef T2F_PPROF_READER_H
#define T2F_PPROF_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/diag.h"
#include "formats/profile.h"

#define T2F_PPROF_MAX_BYTES ((size_t)1 << 30) /* decoded bytes of one profile: 1 GiB */
#define T2F_PPROF_MAX_TABLE (1u << 24)        /* entries of each table */
#define T2F_PPROF_MAX_DEPTH (1u << 16)        /* locations of one sample */
#define T2F_PPROF_MAX_TYPES 1024u             /* sample types */

struct t2f_pprof_read_opts {
	const char *event;   /* the sample type to read (NULL: see above); copied */
	size_t max_bytes;    /* 0: T2F_PPROF_MAX_BYTES (a smaller one: tests) */
};

/* True when head[0..len) (an input's first decoded bytes) starts like a Profile message: every
 * field whose key and length are in it has a Profile field's number and wire type, the first
 * is one, and a sample_type in it is a well-formed ValueType. */
bool t2f_pprof__detect(const char *head, size_t len);

struct t2f_pprof_reader;

/* name: shown in messages; copied. input: the threads' input index. 0 or -ENOMEM. */
int t2f_pprof_reader__new(struct t2f_profile *p, struct t2f_diag *d, const char *name,
			  uint32_t input, const struct t2f_pprof_read_opts *o,
			  struct t2f_pprof_reader **out);
void t2f_pprof_reader__free(struct t2f_pprof_reader *r); /* NULL is fine */
/* 0, -ENOMEM or -T2F_ERR_LIMIT (past max_bytes; message in the diag). */
int t2f_pprof_reader__feed(struct t2f_pprof_reader *r, const char *data, size_t len);
/* Decodes the profile into the profile: 0 or an error above (message in the diag). */
int t2f_pprof_reader__finish(struct t2f_pprof_reader *r);

#endif
