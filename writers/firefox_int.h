/* writers/firefox_int.h: the Firefox writer's tables, shared by its files (not a public header).
 *
 * firefox_tables.c turns the profile into the shared tables (strings, stacks, frames, functions,
 * libs, sources); firefox.c writes them, the threads and their samples. Indices are the
 * profiler's (from 0); the per-id arrays hold index + 1 (0 = unused).
 */
#ifndef T2F_FIREFOX_INT_H
#define T2F_FIREFOX_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/buf.h"
#include "formats/hashmap.h"
#include "formats/profile.h"
#include "formats/strtab.h"
#include "writers/frame_name.h"

/* The categories, in meta.categories order. */
enum ff_category {
	FF_CAT_OTHER = 0,
	FF_CAT_USER,
	FF_CAT_KERNEL,
	FF_CAT_JIT,
	FF_CAT_MANAGED,
	FF_CAT__COUNT,
};

struct ff_frame {             /* a frameTable row */
	t2f_frame_id frame;
	uint8_t depth;            /* inline depth */
	uint32_t func;
	int32_t lib;              /* -1: none */
};

struct ff_func {              /* a funcTable row */
	uint32_t name;            /* stringArray index */
	int32_t lib;              /* its resource (= lib index); -1: none */
	int32_t source;           /* sources index; -1: none */
	uint32_t line;            /* 0: unknown */
};

struct ff_lib {
	t2f_str_id path;          /* the profile's string */
	t2f_str_id build_id;      /* 0: not recorded */
	uint32_t name;            /* stringArray index of its base name (its resource's name) */
};

struct ff_tables {
	const struct t2f_profile *p;
	t2f_event_id event;
	struct t2f_strtab *strs;       /* stringArray[i] is string i + 1 */
	struct t2f_frame_names *names;
	uint32_t *node_stack;          /* per node id: stack index + 1 */
	uint8_t *node_depth;           /* per used node id: its frame's inline depth */
	t2f_node_id *stack_node;       /* per stack index: its node */
	uint32_t *stack_frame;         /* per stack index: its frame index */
	uint32_t nstacks;
	struct ff_frame *frames;
	uint32_t nframes;
	struct t2f_hashmap *frame_map; /* (frame, depth) -> index + 1 */
	struct ff_func *funcs;
	uint32_t nfuncs;
	struct t2f_hashmap *func_map;
	struct ff_lib *libs;
	uint32_t nlibs;
	struct t2f_hashmap *lib_map;   /* module string -> index + 1 */
	uint32_t *sources;             /* per sources index: its file's stringArray index */
	uint32_t nsources;
	struct t2f_hashmap *source_map;
	struct t2f_buf tmp;            /* scratch */
	const void *key;               /* the key being looked up (the eq callbacks') */
};

/* Builds every table from the cells of `event` (only the nodes, frames and modules they use).
 * 0, -ENOMEM or -T2F_ERR_LIMIT; call ff_tables__free() after any result. */
int ff_tables__build(struct ff_tables *t, const struct t2f_profile *p, t2f_event_id event,
		     const struct t2f_frame_name_opts *names);
void ff_tables__free(struct ff_tables *t);
/* The stringArray index of s[0..len), added when new. 0, -ENOMEM or -T2F_ERR_LIMIT. */
int ff_tables__str(struct ff_tables *t, const char *s, size_t len, uint32_t *idx);
/* The category of a frame kind; FF_CAT__COUNT for an inlined frame (null: its holder's). */
enum ff_category ff_category_of(enum t2f_frame_kind kind);

#endif
