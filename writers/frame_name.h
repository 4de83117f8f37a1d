/* writers/frame_name.h: the name a writer shows for each frame of a profile.
 *
 * Computed once per frame (not per sample) into one table, or for one frame at a time
 * (t2f_frame_name__put). Rules, for every style:
 * - a frame without a symbol, or named "[unknown]", in a known module is "[<module basename>]"
 *   ("[unknown]" when the module is unknown too); with `addrs`, "[<basename> <ADDR>]" (hex, as perf prints it);
 * - control characters (C0, DEL, C1: formats/utf8.h) become spaces.
 * Collapsed style (`collapsed`): ';' becomes ':', and the argument list is cut at the first '('
 * outside <>, [], {} unless the name there starts "(anonymous namespace)", with a function
 * template's return type ("long ns::f<long>(long)" is "ns::f<long>"): a name demangled with
 * parameter lists shows as one demangled without (`raw_names` keeps it whole);
 * `kernel` and `jit` append "_[k]" / "_[j]" to frames of that kind, and inlined frames get "_[i]"
 * when `inlined` is set.
 *
 * Ownership: the table owns every name; names are valid until __free(). Not thread safe (but
 * __new's own parts, writers/par_for.h); the one-frame functions keep no state.
 *
 * t2f_frame__fn_position() says where a frame's function is, as every writer shows it.
 */
#ifndef T2F_FRAME_NAME_H
#define T2F_FRAME_NAME_H

#include <stdbool.h>
#include <stddef.h>

#include "formats/buf.h"
#include "formats/profile.h"

struct t2f_frame_name_opts {
	bool collapsed;  /* collapsed-stack rules above */
	bool raw_names;  /* keep argument lists (collapsed style) */
	bool kernel;     /* append _[k] to kernel frames */
	bool jit;        /* append _[j] to jit frames */
	bool inlined;    /* append _[i] to inlined frames */
	bool addrs;      /* show addresses of unresolved frames */
	unsigned threads; /* __new names the frames in up to this many parts at once (0, 1: on
			   * the calling thread); the table is the same */
};

struct t2f_frame_names;

int t2f_frame_names__new(const struct t2f_profile *p, const struct t2f_frame_name_opts *o,
			 struct t2f_frame_names **out); /* 0 or -ENOMEM */
void t2f_frame_names__free(struct t2f_frame_names *n); /* NULL is fine */
/* Name of frame id (1..frame_count); never NULL, not NUL-terminated. */
const char *t2f_frame_names__get(const struct t2f_frame_names *n, t2f_frame_id id, size_t *len);

/* What a frame's name is made of under o (the rules above): two frames with equal keys have the
 * same name (frames with different keys may too). Unused fields are 0. */
struct t2f_frame_name_key {
	t2f_str_id name;
	t2f_str_id module;    /* the name is the module's ("[libc.so.6]") */
	bool has_addr;        /* ... with this address */
	uint64_t addr;
	uint32_t kind;        /* the frame's kind + 1 when a suffix names it */
};
void t2f_frame_name__key(const struct t2f_profile *p, const struct t2f_frame *f,
			 const struct t2f_frame_name_opts *o, struct t2f_frame_name_key *k);
/* The same name's key, finer, without reading the name's text (a cache miss a frame where
 * frames are many) unless o shows addresses: the module is kept whether the name is known or
 * not, so that frames of one name in two modules have two keys. */
void t2f_frame_name__key_unread(const struct t2f_profile *p, const struct t2f_frame *f,
				const struct t2f_frame_name_opts *o, struct t2f_frame_name_key *k);
/* Appends the name key k (made by t2f_frame_name__key or __key_unread under the same o) says
 * to b, for a writer that names only some frames. 0 or -ENOMEM. */
int t2f_frame_name__put(const struct t2f_profile *p, const struct t2f_frame_name_key *k,
			const struct t2f_frame_name_opts *o, struct t2f_buf *b);

/* The function's source position: the file and line of its declaration (fn_file, fn_line), else
 * the file of the frame's code with no line (a line there is the code's, not the function's);
 * 0 = unknown. Two frames of one function at different lines of its code give the same. */
void t2f_frame__fn_position(const struct t2f_frame *f, t2f_str_id *file, uint32_t *line);

#endif
