/* symbolizer/kernel_place.h: kernel frames of a recording looked up in a kallsyms file of
 * another time: the kernel may have sat elsewhere then (another boot under KASLR), modules
 * elsewhere or not at all.
 *
 * perf names its kernel map after a reference symbol, "[kernel.kallsyms]_text" (or _stext), and
 * records that symbol's address then as the map's pgoff. A kallsyms file places the same symbol
 * somewhere: the difference is how far the kernel image moved, and a kernel-image address is
 * looked up moved by it (as perf relocates kallsyms symbols). Modules load at places of their
 * own, which the recording and the file do not relate, so:
 *   - a frame of the kernel image ("[kernel.kallsyms]", "...vmlinux") is looked up at its
 *     address moved by the difference; a symbol found there that is a module's is refused
 *     (moved: the address was the kernel's then);
 *   - a frame of module M ("[M]") is named only by a symbol of M ("NAME\t[M]" in the file), and
 *     only when the kernel did not move: an address that now falls in another module's code, or
 *     the kernel's, was not that code then (refused: moved);
 *   - recordings whose kernels sat at different places (inputs merged) have no kernel frame
 *     named (refused: moved);
 *   - a file without the reference symbol cannot be checked: its addresses are taken as they
 *     are (UNCHECKED, for the caller to warn about).
 * Without a reference (perf script text, a recording without a kernel map) addresses are the
 * file's, and only the module rule applies.
 *
 * Ownership: the state borrows the reference name (a static string). No allocation, no error;
 * thread safe once set up (lookups read only).
 */
#ifndef T2F_KERNEL_PLACE_H
#define T2F_KERNEL_PLACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "symbolizer/text_syms.h"

enum t2f_kernel_placed {
	T2F_KERNEL_AS_FILE,     /* no reference recorded, or the same address: none moved */
	T2F_KERNEL_MOVED,       /* the kernel image moved by delta; module frames refused */
	T2F_KERNEL_UNCHECKED,   /* the file lacks the reference symbol: taken as the file's */
	T2F_KERNEL_DIFFER,      /* recordings placed differently: every kernel frame refused */
};

struct t2f_kernel_place {
	enum t2f_kernel_placed how;
	const char *ref;        /* the reference symbol ("_text"), or NULL */
	uint64_t then, now;     /* its address when recorded, and in the file (MOVED, AS_FILE) */
};

/* How kernel frames recorded with reference symbol ref at address `then` (ref NULL: none
 * recorded; differ: recordings placed differently) are looked up in the kallsyms table t. */
void t2f_kernel_place__set(struct t2f_kernel_place *k, const char *ref, uint64_t then,
			   bool differ, const struct t2f_text_syms *t);

/* The symbol naming a kernel frame of dso dso[0..len) at addr (as recorded) in t, by k's rules:
 * true and *out; false with *moved when a symbol was found or could be but k's rules refuse it,
 * false without when t has none there. */
bool t2f_kernel_place__lookup(const struct t2f_kernel_place *k, const struct t2f_text_syms *t,
			      const char *dso, size_t len, uint64_t addr, struct t2f_text_sym *out,
			      bool *moved);

/* One line for --stats (indented by four spaces) when k moved or refused anything; nothing
 * when the recording's placement was the file's. */
void t2f_kernel_place__print(FILE *f, const struct t2f_kernel_place *k);

#endif
