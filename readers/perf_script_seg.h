/* readers/perf_script_seg.h: what the parallel reader (perf_script_par.c) asks of one perf script
 * parser that reads a segment of an input (internal to readers/). Same threading and ownership as
 * perf_script.h.
 */
#ifndef T2F_PERF_SCRIPT_SEG_H
#define T2F_PERF_SCRIPT_SEG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "readers/perf_script.h"

/* For reading one input in segments with one parser each (readers/perf_script_par.h). A segment
 * starts at a line that begins a record (perf_script_par.c says which). */
/* The bytes fed stay readable and unchanged until ps is freed (a segment in memory): ps then
 * points into them instead of copying what it keeps of them. */
void t2f_perf_script__borrow_input(struct t2f_perf_script *ps);
/* Makes ps what t2f_perf_script__new(p, d, ...) makes, on its own profile (which the caller has
 * reset: t2f_profile__reset) and its name and input, keeping the memory of its caches: for the
 * next segment. Options are set again after. 0 or -ENOMEM. */
int t2f_perf_script__reset(struct t2f_perf_script *ps, struct t2f_diag *d);
/* Counts the lines fed from here on after `lines` lines read elsewhere (messages name the line
 * of the whole input). */
void t2f_perf_script__set_lines(struct t2f_perf_script *ps, uint64_t lines);
/* Whether a one-line sample's frame was looked up in its process's mappings: its result then
 * depends on the PERF_RECORD_MMAP/FORK lines of earlier segments. */
bool t2f_perf_script__used_maps(const struct t2f_perf_script *ps);
/* Whether a frame went without its address for want of a build-id (addrs_need_ids), and
 * whether ps read a build-id: a segment that did the first after an earlier one did the second
 * is read again. */
bool t2f_perf_script__dropped_addrs(const struct t2f_perf_script *ps);
bool t2f_perf_script__read_ids(const struct t2f_perf_script *ps);
/* Whether ps holds any mapping or thread-to-process record. */
bool t2f_perf_script__has_maps(const struct t2f_perf_script *ps);
/* The PERF_RECORD_MMAP, MMAP2 and FORK lines read so far, each ending with '\n'; borrowed, valid
 * until the next call on ps. */
const char *t2f_perf_script__map_lines(const struct t2f_perf_script *ps, size_t *len);
/* Takes such lines into ps's mappings only (the profile's module maps are not touched; paths
 * are interned). 0 or -ENOMEM; lines that do not parse are skipped. */
int t2f_perf_script__add_map_lines(struct t2f_perf_script *ps, const char *text, size_t len);

#endif
