/* tools/malloc_tune.h: the CLI's allocator settings.
 *
 * A conversion builds a few large tables that grow as it reads (frames, stack nodes, their
 * indexes, the text it writes): with glibc's defaults the heap grows by small steps and every
 * thread gets a heap of its own. Before its conversion the CLI has glibc's malloc (mallopt)
 * grow the heap 8 MiB at a time, serve blocks under 4 MiB from it (not from mappings of their
 * own, unmapped when freed) and serve every thread from the one heap: what the reading and
 * DWARF threads free is reused by the later stages (docs/performance.md has the numbers). Not
 * done when the environment holds GLIBC_TUNABLES or LD_PRELOAD (the user's own allocator or
 * settings win), when T2F_MALLOC_DEFAULTS is set, or in sanitizer builds. Huge pages are not
 * asked for: on a VM that gives freed memory back to its host, the kernel clearing each new
 * 2 MiB page cost more than they saved (docs/performance.md).
 * The library never does this: a program using libtrace2flame keeps its own allocator.
 *
 * Not thread safe: call from main before any thread starts.
 */
#ifndef T2F_MALLOC_TUNE_H
#define T2F_MALLOC_TUNE_H

/* Sets the allocator up as above, or leaves it as it is. */
void t2f_malloc_tune(void);

/* What the allocator runs with, for --stats: a static string. */
const char *t2f_malloc_tune_said(void);

#endif
