/* formats/sym_version.h: the symbol version at the end of an ELF symbol's name, which no frame
 * name keeps.
 *
 * GNU ld writes a versioned symbol's .symtab name with its version: "cfree@GLIBC_2.2.5" (a
 * hidden version), "__libc_start_main@@GLIBC_2.34" (the default one), and perf script prints
 * those names as they are ("cfree@GLIBC_2.2.5+0x1f"). Here a version is '@' or "@@" followed by
 * [A-Za-z_][A-Za-z0-9_.]* up to the end of the name (GLIBC_2.2.5, GLIBCXX_3.4.21, CXXABI_1.3,
 * GCC_3.0, GLIBC_PRIVATE, LIBSSL_3, Base), after a name of one byte at least. "@plt" is no
 * version: perf and objdump name a PLT stub "malloc@plt".
 *
 * The cut is made where a symbol's name becomes a frame name: the symbolizer's names (before
 * they are demangled, so "_ZNSt6thread4joinEv@@GLIBCXX_3.4.11" demangles) and the names perf
 * script printed for frames of ELF files. Stateless; thread safe.
 */
#ifndef T2F_SYM_VERSION_H
#define T2F_SYM_VERSION_H

#include <stddef.h>

/* The length of name[0..len) without its symbol version: len when it has none. */
size_t t2f_sym_version_cut(const char *name, size_t len);

#endif
