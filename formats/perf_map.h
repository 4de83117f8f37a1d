/* formats/perf_map.h: the name of a perf map, the symbol file a JIT writes for perf
 * (/tmp/perf-PID.map, one "START SIZE NAME" line per function).
 *
 * A trace names it as a dso (perf script's "(/tmp/perf-1234.map)", a perf.data MMAP of anonymous
 * memory). Only that exact shape is a perf map: "/tmp/perf-" then the decimal pid (1 to 10
 * digits, no sign, no leading zero, at most INT32_MAX) then ".map". Whoever opens the file
 * builds its path from the pid alone, never from the text the trace gave, so a dso such as
 * "/tmp/perf-1/../../home/u/x.map" names no file. Stateless; thread safe.
 */
#ifndef T2F_PERF_MAP_H
#define T2F_PERF_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Whether dso[0..len) is exactly "/tmp/perf-PID.map"; its pid into *pid (when not NULL). */
bool t2f_perf_map_pid(const char *dso, size_t len, int32_t *pid);

#endif
