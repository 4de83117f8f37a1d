/* symbolizer/text_syms.h: address → name tables read from text files: a kallsyms copy (kernel
 * frames) and a perf map file, /tmp/perf-PID.map (JIT frames). Addresses are absolute in both
 * files, as `perf script` prints kernel and JIT frames: no address arithmetic.
 *
 * kallsyms ("ADDR TYPE NAME" or "ADDR TYPE NAME\t[MODULE]", ADDR hex without 0x):
 *   - only text symbols are kept: types t, T, w, W; others (data, read-only, ...) are skipped;
 *   - there are no sizes: a symbol ends where the next kept symbol starts. The last symbol, and
 *     the last one before the kernel/module or module/module boundary, ends at
 *     roundup(start + 4096, 4096) (never past the next start), so an address far beyond the
 *     text is not named after it;
 *   - aliases (several names at one address): the LAST line wins, as perf names them (measured
 *     with perf 6.1: `perf script --kallsyms FILE` names the frames after the later alias);
 *   - a file whose text symbols are all at address 0 is an error: kernel.kptr_restrict hid the
 *     addresses from the reader that copied it.
 * perf map ("START SIZE NAME", START and SIZE hex, each with or without 0x as perf takes them:
 *   the JVM writes 0x; NAME the rest of the line, spaces included): a symbol covers
 *   [START, START + SIZE) (SIZE 0: START only). Entries may overlap (code re-jitted at the
 *   same address): the LATER line wins over the part it covers. perf itself is not consistent
 *   there (measured with perf 6.1: the name depends on the order of its search tree, not on the
 *   line order; adding unrelated lines, or an earlier wider entry, changes the answer); the later
 *   line is the code that ran last.
 * Lines that fit neither form are skipped with a warning "FILE:LINE: ..." (rate-limited through
 * the diag; in strict mode the first one is the error) and counted.
 *
 * Memory: the file is read in chunks of 1 MiB (a longer line grows the buffer), at most
 * T2F_TEXT_SYMS_MAX_BYTES (larger is -T2F_ERR_LIMIT), and parsed as it is read: the table keeps
 * the names and at most one range per line (kallsyms) or two (perf maps). Names longer than
 * T2F_TEXT_SYMS_MAX_NAME are skipped as bad lines.
 *
 * Ownership: the table owns its names; pointers returned by lookup live until _free. Lookups do
 * not modify the table: concurrent lookups are safe once loading is done. A table may have several
 * holders (__ref; the process's shared kallsyms tables, text_syms_share.h): each gives its hold
 * back with __free, and the last one frees it; __ref and __free are thread safe.
 */
#ifndef T2F_TEXT_SYMS_H
#define T2F_TEXT_SYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/diag.h"

#define T2F_TEXT_SYMS_MAX_BYTES ((size_t)1 << 30)
#define T2F_TEXT_SYMS_MAX_NAME 4096

enum t2f_text_syms_format {
	T2F_TEXT_SYMS_KALLSYMS,
	T2F_TEXT_SYMS_PERF_MAP,
};

struct t2f_text_sym {
	const char *name;
	const char *module;  /* kallsyms "[MODULE]" without brackets; NULL for the kernel itself and
			      * for perf maps */
	uint64_t start;      /* the symbol's first address */
	uint64_t offset;     /* the looked-up address - start */
};

struct t2f_text_syms;

/* Reads file `path` in format fmt into *out. 0; -errno when it cannot be opened or read;
 * -T2F_ERR_NOT_FILE (-EISDIR) when it is not a regular file (formats/side_file.h: a FIFO never
 * blocks, a link to /dev/zero is refused unread); -T2F_ERR_LIMIT when it is larger than
 * T2F_TEXT_SYMS_MAX_BYTES; -T2F_ERR_FORMAT for a kallsyms
 * file with no text symbol, or with every address 0, or (strict mode) a bad line; -ENOMEM.
 * Every error is recorded in d with the file name (and line). */
int t2f_text_syms__load(enum t2f_text_syms_format fmt, const char *path, struct t2f_diag *d,
			struct t2f_text_syms **out);
/* The same from memory (text[0..len) is copied; `file` names it in messages). */
int t2f_text_syms__parse(enum t2f_text_syms_format fmt, const char *file, const char *text,
			 size_t len, struct t2f_diag *d, struct t2f_text_syms **out);
void t2f_text_syms__free(struct t2f_text_syms *s); /* NULL is fine; drops one hold */
struct t2f_text_syms *t2f_text_syms__ref(struct t2f_text_syms *s); /* one more hold: s */

/* The symbol holding addr: true and *out filled, or false (outside every symbol). */
bool t2f_text_syms__lookup(const struct t2f_text_syms *s, uint64_t addr, struct t2f_text_sym *out);

/* kallsyms: the address of the kernel's symbol `name` ("_text" or "_stext": where perf's kernel
 * map says the kernel sat when recorded): true and *addr, or false when the file has no such
 * text line of the kernel itself (the first one counts). */
bool t2f_text_syms__kernel_ref(const struct t2f_text_syms *s, const char *name, uint64_t *addr);

size_t t2f_text_syms__count(const struct t2f_text_syms *s);   /* symbols kept */
uint64_t t2f_text_syms__bad_lines(const struct t2f_text_syms *s); /* lines skipped with a warning */
size_t t2f_text_syms__bytes(const struct t2f_text_syms *s);      /* the memory it holds */
/* Whether s holds only part of its file (a /proc/kallsyms table kept across runs,
 * text_syms_cache.h): a lookup that finds nothing says nothing, and the file itself must be
 * read for that address. */
bool t2f_text_syms__partial(const struct t2f_text_syms *s);

#endif
