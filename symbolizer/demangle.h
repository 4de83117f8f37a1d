/* symbolizer/demangle.h: C++ and Rust names through libiberty.
 *
 * Rust is tried first (legacy "_ZN...17h<hash>E" and v0 "_R..."), then Itanium C++, as
 * specs show is needed: libiberty's C++ path takes legacy Rust for C++ and fails on "_R".
 * Clone suffixes (".cold", ".isra.0", ".llvm.N") are kept as libiberty prints them.
 * Thread safe (libiberty keeps its state on the stack).
 */
#ifndef T2F_DEMANGLE_H
#define T2F_DEMANGLE_H

enum t2f_demangle_mode {
	T2F_DEMANGLE_FULL = 0,     /* with parameter lists: pprof, speedscope */
	T2F_DEMANGLE_NO_PARAMS,    /* without parameter lists: collapsed stacks */
	T2F_DEMANGLE_NONE,         /* raw names */
};

/* The demangled name (malloc'd, caller frees), or NULL when raw is not a mangled name, mode is
 * NONE, or libiberty cannot decode it (the caller keeps the raw name). */
char *t2f_demangle(const char *raw, enum t2f_demangle_mode mode);

#endif
