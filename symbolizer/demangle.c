/* symbolizer/demangle.c: C++ and Rust names through libiberty (see demangle.h).
 *
 * Order: rust_demangle_callback first (legacy "_ZN...17h<hash>E" and v0 "_R..."), then
 * cplus_demangle_v3_callback (Itanium C++). That is what libiberty's own auto style
 * (cplus_demangle, c++filt) does; cplus_demangle_v3 alone would print legacy Rust as C++ with
 * the hash ("std::io::Write::write_fmt::h27d5816343ef7990") and fails on "_R".
 *
 * Modes:
 *   FULL      DMGL_PARAMS|DMGL_ANSI: "app::deep_worker(int) [clone .cold]", what `c++filt -i`
 *             prints.
 *   NO_PARAMS DMGL_ANSI: libiberty then prints only the function's name: no return type, no
 *             parameter list, no trailing cv/ref qualifiers of member functions, no
 *             "[clone .cold]" suffixes ("app::deep_worker"); template arguments and the
 *             parameter lists inside them or inside lambda names stay
 *             ("app::sort_worker(int)::{lambda(long, int)#3}"). This equals perf script's
 *             default output for every name of the corpus (fixtures/demangle/perf_pairs.txt,
 *             with the '@' handling below for "std::_Rb_tree_insert_and_rebalance@plt").
 *             Rust has no parameter lists; both Rust modes print the same.
 *             DMGL_ANSI makes no difference without DMGL_PARAMS (checked on 101,404 names).
 *             Without DMGL_PARAMS libiberty's C++ path also ignores bytes after a complete
 *             encoding ("_Z3foov!x" gives "foo", FULL gives NULL); perf prints the same.
 *   NONE      NULL.
 *
 * Symbol versions and PLT names: a name with '@' ("_ZNSt6thread4joinEv@GLIBCXX_3.4.11",
 * "_ZN3foo3barEv@plt") is demangled up to the '@' and the rest is appended unchanged
 * ("std::thread::join()@GLIBCXX_3.4.11"), as `nm | c++filt` and binutils' bfd_demangle do;
 * libiberty alone refuses it in FULL mode and drops the suffix in NO_PARAMS mode.
 *
 * Hostile names. The binaries and traces we read are untrusted input.
 *   - Stack: cp-demangle.c keeps its component arrays on the stack (72 bytes per input byte) but
 *     refuses names whose component estimate (2 per byte) exceeds DEMANGLE_RECURSION_LIMIT
 *     (2048), so C++ names longer than 1024 bytes stay mangled (so do they in c++filt and perf);
 *     we keep that limit (no DMGL_NO_RECURSE_LIMIT). Parsing recursion is capped by libiberty in
 *     both demanglers. Legacy Rust is decoded without recursion at any length.
 *   - Input length: names longer than T2F_DEMANGLE_MAX_IN (64 KiB) are refused without calling
 *     libiberty (no real symbol is near that: the longest of libLLVM-15, libclang-cpp-14 and
 *     librustc_driver are 613, 488 and 657 bytes).
 *   - Output size: substitutions (C++ "S_") and back-references (Rust v0 "B<n>_") let a short
 *     name expand exponentially: 206 bytes of C++ give 13.6 MB in 0.12 s, 209 bytes of v0 give
 *     50 MB in 1.1 s, and each 10 more bytes double that; libiberty has no limit for this and
 *     neither the allocating API nor the callback can stop it. So we use the callback API and
 *     leave it with longjmp once the output passes T2F_DEMANGLE_MAX_OUT (256 KiB, ~2 ms of
 *     work): the name is then refused (NULL). This is safe because the callback paths allocate
 *     nothing (all libiberty state is on the stack; objdump of libiberty.a: the only malloc
 *     calls of cp-demangle.o are in the allocating wrappers), with one exception: rust-demangle.c
 *     decodes a punycode identifier into a malloc'd buffer, prints it with one callback and
 *     frees it; a jump from that call would leak the buffer (valgrind: 32 bytes in a quarter of
 *     crafted v0 names). So Rust output is dropped after the limit until a text that cannot be
 *     such an identifier comes (see sink_put), or libiberty returns and we refuse the name.
 *
 * Thread safety: all state is on the caller's stack; libiberty's callback paths keep theirs on
 * the stack too and read no mutable globals (current_demangling_style is only used by
 * cplus_demangle, which we do not call).
 */
#include "symbolizer/demangle.h"

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <demangle.h> /* libiberty, from /usr/include/libiberty */

#include "formats/grow.h"

#define T2F_DEMANGLE_MAX_IN  (64u * 1024u)
#define T2F_DEMANGLE_MAX_OUT (256u * 1024u)

/* Output of one libiberty call: a small inline buffer (most names fit), then the heap. */
struct sink {
	char *heap;     /* NULL while the text is in small[] */
	size_t len;
	size_t cap;     /* of heap */
	int over;       /* the output passed T2F_DEMANGLE_MAX_OUT, or ENOMEM */
	int rust;       /* the Rust demangler is running, see sink_put */
	jmp_buf abort;  /* taken once `over` is set, see sink_put */
	char small[512];
};

static char *sink_data(struct sink *k)
{
	return k->heap ? k->heap : k->small;
}

static void sink_put(const char *s, size_t n, void *opaque)
{
	struct sink *k = opaque;
	size_t need;

	if (n == 0) /* libiberty passes (NULL, 0) at times */
		return;
	if (k->over) {
		/* rust-demangle.c prints a punycode identifier with one call while the buffer it
		 * decoded it into is allocated. Such a text holds only [0-9A-Za-z_] and bytes
		 * >= 0x80 (decoded code points start at 128), so we leave on the first text that
		 * has other ASCII ("::", ", ", "<"): it never comes from inside that window. */
		size_t i;

		if (!k->rust)
			longjmp(k->abort, 1);
		for (i = 0; i < n; i++) {
			unsigned char c = (unsigned char)s[i];

			if (c < 0x80 && c != '_' && !(c >= '0' && c <= '9') &&
			    !((c | 0x20) >= 'a' && (c | 0x20) <= 'z'))
				longjmp(k->abort, 1);
		}
		return;
	}
	if (n > T2F_DEMANGLE_MAX_OUT - k->len) { /* the longjmp comes with the next text */
		k->over = 1;
		return;
	}
	need = k->len + n;
	if (need > (k->heap ? k->cap : sizeof(k->small))) {
		bool was_small = !k->heap; /* then k->cap is 0 */

		if (t2f_grow((void **)&k->heap, &k->cap, k->len, n, 1, 2 * sizeof(k->small),
			     SIZE_MAX)) {
			k->over = 1;
			return;
		}
		if (was_small)
			memcpy(k->heap, k->small, k->len);
	}
	memcpy(sink_data(k) + k->len, s, n);
	k->len = need;
}

typedef int (*demangle_fn)(const char *, int, demangle_callbackref, void *);

/* 1 when fn decoded raw into k, 0 when it did not or was stopped. setjmp is here, not in the
 * caller, so that the only objects changed between setjmp and longjmp (*k) are not automatic
 * objects of the function that called setjmp (C11 7.13.2.1p3). */
static int run(demangle_fn fn, const char *raw, int opts, struct sink *k)
{
	if (setjmp(k->abort) != 0)
		return 0;
	return fn(raw, opts, sink_put, k) != 0 && !k->over;
}

static void sink_reset(struct sink *k)
{
	free(k->heap);
	k->heap = NULL;
	k->len = 0;
	k->cap = 0;
	k->over = 0;
}

/* The demangled name + suffix (malloc'd), or NULL. */
static char *demangle_name(const char *name, int opts, const char *suffix)
{
	struct sink k;
	size_t slen = strlen(suffix);
	char *out = NULL;

	k.heap = NULL;
	k.len = 0;
	k.cap = 0;
	k.over = 0;
	k.rust = 1;
	if (!run(rust_demangle_callback, name, opts, &k)) {
		sink_reset(&k);
		k.rust = 0;
		if (!run(cplus_demangle_v3_callback, name, opts, &k))
			goto out;
	}
	if (k.len == 0)
		goto out;
	if (k.heap && k.cap - k.len > slen) {
		out = k.heap;
		k.heap = NULL;
	} else {
		out = malloc(k.len + slen + 1);
		if (!out)
			goto out;
		memcpy(out, sink_data(&k), k.len);
	}
	memcpy(out + k.len, suffix, slen + 1);
out:
	free(k.heap);
	return out;
}

char *t2f_demangle(const char *raw, enum t2f_demangle_mode mode)
{
	char small[256], *copy = small, *out;
	const char *at;
	size_t len;
	int opts;

	switch (mode) {
	case T2F_DEMANGLE_FULL:
		opts = DMGL_PARAMS | DMGL_ANSI;
		break;
	case T2F_DEMANGLE_NO_PARAMS:
		opts = DMGL_ANSI;
		break;
	default:
		return NULL;
	}
	/* Every name either demangler accepts starts with '_' ("_Z", "_R", "_GLOBAL_"). */
	if (!raw || raw[0] != '_')
		return NULL;
	len = strnlen(raw, T2F_DEMANGLE_MAX_IN + 1);
	if (len > T2F_DEMANGLE_MAX_IN)
		return NULL;
	at = memchr(raw, '@', len);
	if (!at)
		return demangle_name(raw, opts, "");

	/* "_ZNSt6thread4joinEv@GLIBCXX_3.4.11", "..@@VER", "..@plt": '@' is in no mangling. */
	len = (size_t)(at - raw);
	if (len >= sizeof(small)) {
		copy = malloc(len + 1);
		if (!copy)
			return NULL;
	}
	memcpy(copy, raw, len);
	copy[len] = '\0';
	out = demangle_name(copy, opts, at);
	if (copy != small)
		free(copy);
	return out;
}
