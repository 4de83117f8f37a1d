/* tools/malloc_tune.h: the CLI's allocator settings.
 *
 * A conversion builds a few large tables that grow as it reads (frames, stack nodes, their
 * indexes, the text it writes): with glibc's defaults the heap grows by small steps, in 4 KiB
 * pages, and a whole-machine recording spends a third of its CPU time in page faults and the
 * copies of growing tables. glibc takes its allocator settings from GLIBC_TUNABLES, read only
 * when a process starts; so before its first conversion the CLI starts itself once more, the
 * same pid and arguments (execv of /proc/self/exe), with huge pages for the heap (a hint the
 * kernel may ignore), the heap grown 16 MiB at a time and one heap for every thread (what
 * worker threads free is then reused by the later stages; docs/performance.md has the
 * numbers). Not done for small inputs (main.c asks only from
 * T2F_MALLOC_TUNE_MIN bytes, a --call-graph dwarf recording weighed by its samples:
 * tools/input_weight.h), nor when the environment already holds GLIBC_TUNABLES or
 * LD_PRELOAD (the user's own allocator or settings win), when T2F_MALLOC_DEFAULTS is set, in
 * sanitizer builds, when the program was started through the dynamic loader by name, or when
 * the start fails (the conversion then runs as it is).
 * The library never does this: a program using libtrace2flame keeps its own allocator.
 *
 * Not thread safe: call from main before any thread starts.
 */
#ifndef T2F_MALLOC_TUNE_H
#define T2F_MALLOC_TUNE_H

#include <stdint.h>

/* Input bytes from which the CLI asks for the settings: below, the start costs more than the
 * settings save (about 3 ms against a 10 ms conversion). */
#define T2F_MALLOC_TUNE_MIN ((uint64_t)4 << 20)

/* Starts the program again with the settings (does not return then), or returns: the settings
 * are in force, or were not wanted or could not be had. GLIBC_TUNABLES is taken out of the
 * environment again once in force, so that programs started later do not inherit it. */
void t2f_malloc_tune(char **argv);

/* What the allocator runs with, for --stats: a static string. */
const char *t2f_malloc_tune_said(void);

#endif
