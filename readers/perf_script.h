/* readers/perf_script.h: `perf script` text → profile.
 *
 * Push parser: feed it whole lines (chunks from readers/input end at line boundaries), in order,
 * then call __finish(). It handles every header and frame variant in docs/perf-script.md: comm with
 * spaces and digit words (the header is anchored on "TID [CPU] TIME:" from the left), pid/tid,
 * [cpu], optional period and event (with modifiers, tracepoint payloads), one-line samples without
 * a call chain, frames with or without symbol / +0xOFF / (dso), dso names with nested parentheses,
 * (inlined) frames, srcline lines, '#' lines, and PERF_RECORD_MMAP/MMAP2 (kept as module maps)
 * and COMM/FORK/EXIT side records. Frame names lose the symbol version perf prints with an ELF
 * symbol's ("cfree@GLIBC_2.2.5" is "cfree"; formats/sym_version.h), but for JIT frames (perf
 * maps name them with any text) and the dso [unknown].
 *
 * Bad lines are warnings (file:line, rate-limited through the diag) and the sample they belong to
 * is dropped and counted; in strict mode the first one is the error (-T2F_ERR_FORMAT). Binary
 * garbage (a NUL byte) is an error at once. Samples with an empty call chain are kept at the
 * root, their thread alone (t2f_profile__chainless_samples), as perf report counts them.
 *
 * Ownership: the parser borrows profile and diag (both must outlive it) and keeps no pointer into
 * fed data after a call returns. Not thread safe.
 */
#ifndef T2F_PERF_SCRIPT_H
#define T2F_PERF_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/diag.h"
#include "formats/profile.h"

struct t2f_perf_script;

/* name: shown in messages ("FILE:LINE: ..."); copied. input: the thread's input index. */
int t2f_perf_script__new(struct t2f_profile *p, struct t2f_diag *d, const char *name,
			 uint32_t input, struct t2f_perf_script **out);
void t2f_perf_script__free(struct t2f_perf_script *ps); /* NULL is fine */

/* Keep the printed address on every frame (has_addr, addr), not only on frames perf could not
 * name (the default): for re-symbolization. Frames then differ per address. Call before the
 * first feed. Call-chain addresses are DSO-relative (file offsets); a one-line sample's
 * absolute ip is turned into the file offset through its process's MMAP/MMAP2 mappings, and
 * stays absolute (space T2F_SPACE_ABS) when no mapping of its dso holds it. */
void t2f_perf_script__keep_addrs(struct t2f_perf_script *ps, bool on);

/* Whether a frame's dso says it lies in no mapping: none printed, or perf's "[unknown]". */
bool t2f_perf_script__no_mapping(const char *dso, size_t dso_len);

/* Which frames keep their address, beyond every frame with keep_addrs. By default every frame
 * perf could not name keeps it (a frame per address) and named frames do not (one frame per
 * name). wants(ctx, kind, dso, dso_len, named) is asked once per distinct frame line, named
 * telling whether perf named it: for an unnamed frame, no means equal names share one frame
 * (frames nothing will name later: no module, "[unknown]", a kernel without --kallsyms, in
 * outputs that do not show addresses, where one frame per address only multiplies stacks); for
 * a named frame, yes means it keeps its address too (its inlined functions are looked up
 * later). dso_len 0: no dso printed. wants must be callable from any thread. Call before the
 * first feed. */
typedef bool (*t2f_perf_script_addr_fn)(void *ctx, enum t2f_frame_kind kind, const char *dso,
					size_t dso_len, bool named);
void t2f_perf_script__unknown_addrs(struct t2f_perf_script *ps, t2f_perf_script_addr_fn wants,
				    void *ctx);

/* Whether a user frame (kind T2F_FRAME_USER) that wants says keeps its address keeps it only
 * once the text gave a build-id (a PERF_RECORD_MMAP2 line with one, from a recording made with
 * --buildid-mmap). For a session in which nothing else can give its module a build-id (no
 * --buildids file, no --unsafe-build-id-match, none read before): the resolve stage would not
 * look such a frame up, and one frame per address only multiplies stacks. Until a build-id is
 * read such frames share one frame per name; the lines read before it are parsed again after
 * it. Not with keep_addrs. Call before the first feed. */
void t2f_perf_script__addrs_need_ids(struct t2f_perf_script *ps, bool on);

/* Parses data[0..len): whole lines (the last may lack its '\n' only at the end of input).
 * 0, -ENOMEM, or -T2F_ERR_FORMAT (message in the diag). */
int t2f_perf_script__feed(struct t2f_perf_script *ps, const char *data, size_t len);
/* Ends the last sample. 0 or a negative error. */
int t2f_perf_script__finish(struct t2f_perf_script *ps);

/* Lines consumed so far. */
uint64_t t2f_perf_script__lines(const struct t2f_perf_script *ps);

/* Headers may lack the time (`perf script -F` without `time`): a line that is no header with a
 * time is read by perf's field widths instead (readers/perf_script_timeless.c), a sample's
 * time is 0 (unknown: outputs keep input order), and a call chain printed without any header
 * field (-F ip,dso) is a sample of an unknown thread, "[unknown]". Such a header line whose
 * fields cannot be told from a comm is a sample only when a frame line follows it. Off by
 * default; call before the first feed, the same way for every parser of one input. */
void t2f_perf_script__timeless(struct t2f_perf_script *ps, bool on);

/* Samples filter f does not keep (formats/sample_filter.h: the header's pid, tid, comm and
 * time) are read, counted as dropped (T2F_DROP_FILTERED) and their lines skipped. NULL (the
 * default): every sample is kept. f is borrowed and must outlive ps. Call before the first
 * feed. */
struct t2f_sample_filter;
void t2f_perf_script__filter(struct t2f_perf_script *ps, const struct t2f_sample_filter *f);

/* The recording's first and last sample times (ns) from the header `perf script --header`
 * prints before any sample ("# time of first sample : 13522.897229", µs as printed), in
 * head[0..len) (whole lines: the input's first); false when it has not both. Thread safe. */
bool t2f_perf_script__span(const char *head, size_t len, uint64_t *first, uint64_t *last);

/* What an input's first lines say: whether it is perf script text, and with times or not. */
enum t2f_ps_probe {
	T2F_PS_TIMED,           /* a sample header (or side record) with a time */
	T2F_PS_TIMELESS,        /* perf script lines, none with a time */
	T2F_PS_UNKNOWN,         /* nothing either way yet ('#' lines, blank lines, a few others) */
	T2F_PS_NOT_PERF_SCRIPT, /* binary data (a NUL byte before any perf script line), or
				 * T2F_PS_PROBE_LINES lines (all of them, when `whole`) none of
				 * which perf script prints */
};
#define T2F_PS_PROBE_LINES 20
/* head[0..len): the input's first bytes, whole lines; whole: they are all of it. Thread safe. */
enum t2f_ps_probe t2f_perf_script__probe(const char *head, size_t len, bool whole);

#endif
