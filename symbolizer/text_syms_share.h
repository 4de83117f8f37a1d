/* symbolizer/text_syms_share.h: kallsyms tables read once per process and shared by every
 * session that names kernel frames from the same file (a library user's sessions, each input of
 * `--each`, a batch worker converting many recordings).
 *
 * A table read earlier is used again while its file is the one it was read from:
 *   - a regular file (a --kallsyms copy, perf's ~/.debug/[kernel.kallsyms]/ID/kallsyms): the same
 *     path, device, inode, size, and modification and change times (nanoseconds);
 *   - a procfs file (/proc/kallsyms): the same path and inode, the same boot
 *     (/proc/sys/kernel/random/boot_id: KASLR places the kernel anew at each boot), the same
 *     modules (a hash of /proc/modules without the use counts: a module loaded, unloaded or
 *     placed elsewhere changes it), and read at most T2F_TEXT_SYMS_SHARE_PROC_AGE seconds ago
 *     (BPF programs and trampolines come and go without a module: they are seen that late at
 *     most; a fresh read of the file is then taken).
 * A file whose identity cannot be taken (stat fails, no boot id) is read for each caller and not
 * kept. Only tables read without a bad line are kept, so that a later caller misses no warning
 * (and strict mode fails alike).
 *
 * Bounds: at most T2F_TEXT_SYMS_SHARE_MAX tables (t2f_text_syms__share_limit changes it; 0 keeps
 * none) holding T2F_TEXT_SYMS_SHARE_BYTES together; past either, the least recently used is let
 * go: its holders keep their hold, and the last one frees it (text_syms.h).
 *
 * Threads: every function is thread safe (one mutex). A read holds it, so callers asking at once
 * for the same file read it once; the table's lookups are read-only (text_syms.h). A fork waits
 * for a read under way (pthread_atfork), so a child never inherits the mutex held.
 */
#ifndef T2F_TEXT_SYMS_SHARE_H
#define T2F_TEXT_SYMS_SHARE_H

#include <stdbool.h>

#include "symbolizer/text_syms.h"

#define T2F_TEXT_SYMS_SHARE_MAX 4u
#define T2F_TEXT_SYMS_SHARE_BYTES ((size_t)256 << 20)
#define T2F_TEXT_SYMS_SHARE_PROC_AGE 60 /* seconds */

/* Reads a table of path into *out (0 or an error, as t2f_text_syms__load gives them). */
typedef int (*t2f_text_syms_read_fn)(void *ctx, const char *path, struct t2f_text_syms **out);

/* The kallsyms table of path: the process's (*shared true) while its file is unchanged (with
 * whole, not a partial one: text_syms.h __partial), else read(ctx, path, out) (*shared false)
 * and kept for later callers, in place of the one before, when the bounds allow. 0 and *out, a
 * hold the caller gives back with t2f_text_syms__free; or read's error. */
int t2f_text_syms__shared(const char *path, bool whole, t2f_text_syms_read_fn read, void *ctx,
			  struct t2f_text_syms **out, bool *shared);

/* Whether t2f_text_syms__shared(path) would take the process's table now (it may be let go
 * before). */
bool t2f_text_syms__share_has(const char *path);

/* The tables kept at most from now on (at most 16); the ones past it are let go. */
void t2f_text_syms__share_limit(unsigned max);

#endif
