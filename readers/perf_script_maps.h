/* readers/perf_script_maps.h: each process's file mappings, from PERF_RECORD_MMAP/MMAP2 lines,
 * so the perf script reader can turn a one-line sample's absolute ip (and the perf.data
 * conversion, perf_data_conv.c, every user-space ip) into the file offset that
 * call-chain lines print (docs/perf-addresses.md):
 *
 *   file_off = ip - map_start + map_pgoff      (the latest mapping of the process holding ip)
 *
 * Mappings are kept per pid in the order they were read; a later mapping over the same range
 * (exec, dlopen after dlclose) wins. Memory: 32 bytes per mapping plus the pid and tid indexes,
 * and, for a process looked up often, 12 bytes per segment of its address space (at most two
 * per mapping).
 * Internal to readers/. Not thread safe.
 */
#ifndef T2F_PERF_SCRIPT_MAPS_H
#define T2F_PERF_SCRIPT_MAPS_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/profile.h"

struct ps_maps;

int ps_maps__new(struct ps_maps **out); /* 0 or -ENOMEM */
void ps_maps__free(struct ps_maps *m);  /* NULL is fine */

/* Whether m holds no mapping and no thread's process. */
bool ps_maps__empty(const struct ps_maps *m);

/* Adds [start, start + len) at file offset pgoff of `path` to process pid. A zero length or a
 * range that wraps is ignored. 0 or -ENOMEM. */
int ps_maps__add(struct ps_maps *m, int64_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		 t2f_str_id path);

/* A new process pid forked from ppid starts with ppid's mappings (perf's FORK record): those
 * ppid has then are shared when pid has none, else copied. 0 or -ENOMEM. */
int ps_maps__fork(struct ps_maps *m, int64_t ppid, int64_t pid);

/* Process pid ended (perf's EXIT record of its first thread): the index of its mappings is let
 * go. Its mappings stay, so a sample written after still finds them (by a walk, which may build
 * the index again); the answers do not change. */
void ps_maps__exit(struct ps_maps *m, int64_t pid);

/* How many mappings pid has (0: none): changes whenever a mapping is added to pid, so a result
 * cached with it stays valid while it does not change. */
uint32_t ps_maps__generation(const struct ps_maps *m, int64_t pid);

/* Threads: a sample header printed without its pid ("comm TID time: ...", perf script's
 * default) is matched to its process through the PERF_RECORD_FORK / MMAP lines that name it.
 * __set_pid records tid's process (0 or -ENOMEM); __pid_of gives it, or tid itself when unknown
 * (a process's first thread has tid == pid). */
int ps_maps__set_pid(struct ps_maps *m, int64_t tid, int64_t pid);
int64_t ps_maps__pid_of(const struct ps_maps *m, int64_t tid);

/* pid's latest mapping holding ip: its path and ip's file offset in it. false when none. May
 * build an index of pid's mappings (a failed allocation only leaves it out). */
bool ps_maps__find(struct ps_maps *m, int64_t pid, uint64_t ip, t2f_str_id *path,
		   uint64_t *file_off);

/* pid's latest mapping holding ip: [*start, *end) at file offset *pgoff of *path. Changes
 * nothing, so threads may call it at once while nobody changes m. */
bool ps_maps__mapping(const struct ps_maps *m, int64_t pid, uint64_t ip, uint64_t *start,
		      uint64_t *end, uint64_t *pgoff, t2f_str_id *path);

/* The file offset of ip in pid's latest mapping holding it, when that mapping is of `path`
 * (as ps_maps__find). */
bool ps_maps__file_off(struct ps_maps *m, int64_t pid, uint64_t ip, t2f_str_id path,
		       uint64_t *file_off);

/* The kind of a frame whose dso perf prints as dso[0..len): KERNEL for "[...]" names (but
 * "[unknown]") and vmlinux, JIT for exactly /tmp/perf-PID.map (formats/perf_map.h), else USER. */
enum t2f_frame_kind ps_dso_kind(const char *dso, size_t len);

#endif
