/* symbolizer/kallsyms_copy.h: perf's copy of /proc/kallsyms standing in for the file itself.
 *
 * perf record keeps a copy of /proc/kallsyms in its build-id cache,
 * $HOME/.debug/[kernel.kallsyms]/BUILD-ID/kallsyms (BUILD-ID: the running kernel's). Reading
 * that regular file costs a fraction of reading /proc/kallsyms, which the kernel formats line
 * by line on every read. The copy may be from another boot of the same kernel (placed
 * elsewhere) or from before modules came and went, so it stands in only when it is checked to
 * name the addresses it is used for as /proc/kallsyms would now:
 *   - the kernel loads no module now (/proc/modules absent or empty): the kernel image's symbols
 *     are then all the file holds besides code that comes and goes (BPF programs, trampolines);
 *   - its first bytes, through the first text symbol's line, are /proc/kallsyms's: the same
 *     kernel image at the same place (the build-id fixes where each symbol lies in the image,
 *     the first text symbol where the image lies), and addresses shown to this reader alike
 *     (kernel.kptr_restrict);
 *   - it has no bad line.
 * The table then holds only the ranges of the kernel image's own symbols that end where the
 * next one starts (text_syms_cache.h, t2f_text_syms__keep_stable) and is partial
 * (t2f_text_syms__partial): an address outside them is the caller's to look up in
 * /proc/kallsyms read whole, as with a table the symbol cache keeps.
 *
 * Errors: -errno (-ENOMEM); a copy that cannot stand in is no error. Nothing here ends the
 * process. Thread safe (no state).
 */
#ifndef T2F_KALLSYMS_COPY_H
#define T2F_KALLSYMS_COPY_H

#include <stdbool.h>
#include <sys/stat.h>

#include "formats/diag.h"
#include "symbolizer/text_syms.h"

#define T2F_PROC_KALLSYMS "/proc/kallsyms"

/* The running kernel's build-id (/sys/kernel/notes) as 40 hex digits at most, NUL-terminated;
 * false when it has none. */
bool t2f_kallsyms__running_id(char hex[41]);

/* perf's copy for the kernel of build-id hex, $HOME/.debug/[kernel.kallsyms]/HEX/kallsyms, when
 * stat finds it (*st filled): malloc'd, or NULL. */
char *t2f_kallsyms__perf_copy(const char *hex, struct stat *st);

/* The kallsyms file at path: for /proc/kallsyms with copy_ok, the partial table of perf's
 * copy when it stands in (above), else the file read whole (text_syms.h, warnings into d).
 * 0 and *out (t2f_text_syms__free), or -errno as t2f_text_syms__load. */
int t2f_kallsyms__load(const char *path, bool copy_ok, struct t2f_diag *d,
		       struct t2f_text_syms **out);

#endif
