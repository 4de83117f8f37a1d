/* symbolizer/text_syms_cache.h: kallsyms tables kept across runs, in the symbol cache's
 * directory (symcache.h: the same directory, size limit, eviction and trust rules), so that a
 * run naming kernel frames neither has the kernel format /proc/kallsyms nor parses it.
 *
 * A table is kept for the file it was read from, under a key that changes whenever the file
 * could name an address otherwise:
 *   - a regular file (a --kallsyms copy, perf's ~/.debug/[kernel.kallsyms]/ID/kallsyms): its
 *     path, device, inode, size, and modification and change times (nanoseconds; a file
 *     written again has a new change time whatever its modification time says). The whole
 *     table is kept: a lookup that finds nothing is final.
 *   - /proc/kallsyms (a procfs file): the boot (/proc/sys/kernel/random/boot_id: a new boot
 *     places the kernel anew), the modules (a hash of /proc/modules without the use counts: a
 *     module loaded, unloaded or placed elsewhere changes it; nothing is kept while a module is
 *     loading or unloading), and the file's first 4 KiB (kernel.kptr_restrict hiding the
 *     addresses from this reader now, or anything else that moves the kernel's own symbols).
 *     BPF programs, BPF and ftrace trampolines and kprobe pages come and go during a boot
 *     without changing any of these: they are the lines whose [MODULE] is no module of
 *     /proc/modules ([bpf], [__builtin__ftrace], ...). So only part of the table is kept
 *     (t2f_text_syms__partial): the ranges of the kernel's and the modules' own symbols that
 *     end where the next symbol of the same kernel or module starts. Such a range lies inside
 *     one piece of code loaded whole (the kernel image, a module's text), where no other code
 *     can be placed later, so it names its addresses as the whole file would. Every other
 *     address (a BPF program, a module's last function, which a later allocation may follow)
 *     is not in the kept table, and the caller reads the file itself for it.
 * A file read with a bad line, or whose key is not the same before and after the read, is not
 * kept. What the key cannot see: a module unloaded and another build of it loaded at the same
 * address with the same size and at the same place in the module list.
 *
 * A file, "kallsyms-HASH.t2fsym" (HASH: 16 hex digits of the path's hash), one per path,
 * replaced when its key changes: a header (struct t2f_ksc_hdr in text_syms_cache.c: magic,
 * format version, sizes, the key, the path), the ranges and the names, mapped read-only and
 * used in place. Opened as symcache.h opens its files (O_NOFOLLOW inside the directory, a
 * regular file owned by the user and writable by no one else); every offset, range and name is
 * checked at open; a file that fails is ignored (*bad, *why) and written again after the read.
 *
 * The tests put $T2F_TEST_BOOT_ID in place of the boot id (a new boot without rebooting).
 *
 * Errors: -errno; nothing here ends the process. Thread safe (no state).
 */
#ifndef T2F_TEXT_SYMS_CACHE_H
#define T2F_TEXT_SYMS_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "symbolizer/symcache.h"
#include "symbolizer/text_syms.h"

#define T2F_KSC_PREFIX "kallsyms-"

/* What a table of a file is kept under (above). */
struct t2f_text_syms_key {
	bool keep;                   /* false: the file's tables are not kept */
	bool proc;
	char boot[64];               /* procfs: */
	uint64_t modules, head;
	uint64_t dev, ino, size;     /* a regular file: */
	int64_t mtime_sec, mtime_nsec, ctime_sec, ctime_nsec;
};

/* The key of path now (k->keep false when it has none). */
void t2f_text_syms__key(const char *path, struct t2f_text_syms_key *k);

/* The table kept for path under k in d: 0 and *out (a hold: t2f_text_syms__free), or 0 and
 * *out NULL when none is (absent, another key; *bad with *why when a file was ignored as
 * untrusted or broken). -ENOMEM. */
int t2f_text_syms__cache_get(struct t2f_symcache_dir *d, const char *path,
			     const struct t2f_text_syms_key *k, struct t2f_text_syms **out,
			     bool *bad, const char **why);

/* Whether d keeps a table of path under k, by its header alone (what __cache_get checks
 * further may still refuse it). */
bool t2f_text_syms__cache_has(struct t2f_symcache_dir *d, const char *path,
			      const struct t2f_text_syms_key *k);

/* Keeps t, read from path under k (taken before the read), in d when path's key is still k and
 * t was read without a bad line. 0 (also when not kept) or -errno. */
int t2f_text_syms__cache_put(struct t2f_symcache_dir *d, const char *path,
			     const struct t2f_text_syms_key *k, const struct t2f_text_syms *t);

/* Leaves in t (read from /proc/kallsyms, not mapped) only the ranges a kept table of it holds
 * (above: the kernel's and the modules' of /proc/modules now, each ending where the same
 * one's next starts), and makes it partial. 0 or -ENOMEM (t unchanged). */
int t2f_text_syms__keep_stable(struct t2f_text_syms *t);

/* Checks the kept table at fd as __cache_get does (any key): 0 and *path (malloc'd, the file
 * it was read from), or -T2F_ERR_FORMAT with *why, or -ENOMEM. */
int t2f_text_syms__cache_check_fd(int fd, char **path, const char **why);

#endif
