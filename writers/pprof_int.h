/* writers/pprof_int.h: the pprof writer's tables, shared by its files (not a public header).
 *
 * pprof_tables.c turns the profile into pprof's tables: the string table (with UTF-8 repair),
 * a function per used frame, a mapping per used module, and the locations of the used stack
 * nodes (the location starting at each node, and the node where the next location up starts).
 * pprof_gz.c compresses the encoded bytes into the output, block by block with pprof_deflate.c.
 * pprof.c encodes the Profile message.
 * Ids of locations, functions and mappings run from 1; 0 means none.
 */
#ifndef T2F_PPROF_INT_H
#define T2F_PPROF_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/buf.h"
#include "formats/hashmap.h"
#include "formats/profile.h"
#include "formats/strtab.h"
#include "writers/frame_name.h"
#include "writers/out.h"

struct t2f_pprof_loc {
	t2f_frame_id frame;   /* its innermost line's frame */
	uint32_t tail;        /* the location holding the rest of its lines (callers), 0 = none */
	uint32_t mapping;     /* 0 = none */
	uint64_t address;
};

struct t2f_pprof_map {
	t2f_str_id module;      /* profile string id of the path */
	uint64_t start, limit, pgoff;
	uint32_t build_id;      /* pprof string index, 0 = unknown */
	bool has_range;         /* start/limit/pgoff come from a module map */
	bool has_functions;     /* every frame in it has a symbol */
	bool has_filenames;     /* every function its locations' lines name has a filename */
	bool has_line_numbers;  /* every line of its locations has a line number */
	bool has_inline_frames; /* its addresses' inline chains are in its locations */
};

struct t2f_pprof_func {
	uint32_t name, system_name; /* pprof string indices */
	uint32_t filename;          /* pprof string index, 0 = unknown */
	uint32_t start_line;        /* 0 = unknown */
};

struct t2f_pprof_node {          /* side by side: a sample's walk up reads one line a node */
	uint32_t loc;                 /* the location starting there (0 = node unused) */
	t2f_node_id next;             /* the node of the next location up (0 = none) */
};

struct t2f_pprof_tables {
	const struct t2f_profile *p;
	struct t2f_strtab *strs;      /* pprof string i (≥ 1) is strtab id i; "" is index 0 */
	struct t2f_buf utf8;          /* scratch: a repaired string */
	uint32_t *frame_func;         /* per frame id: function id, 0 = frame unused */
	uint32_t *frame_map;          /* per frame id: mapping id, 0 = none */
	bool *frame_inlined;          /* per used frame id: an inlined frame */
	struct t2f_pprof_node *nodes; /* per node id: its location and the next one's node */
	struct t2f_pprof_loc *locs;   /* [1..nlocs] */
	uint32_t nlocs;
	struct t2f_pprof_func *funcs; /* [1..nfuncs] */
	uint32_t nfuncs;
	struct t2f_pprof_map *maps;   /* [1..nmaps] */
	uint32_t nmaps;
	/* while ordering (t2f_pprof_tables__order_begin to __order_end): */
	uint32_t *loc_order;          /* per old location id: its new id, 0 = not met yet */
	uint32_t nmet;                /* locations met */
	struct t2f_strtab *old_strs;  /* the string table the tables were built with */
};

/* Builds every table from the profile's cells (only the nodes, frames and modules they use).
 * `names` is the frame naming (full style). 0, -ENOMEM or -T2F_ERR_LIMIT; call
 * t2f_pprof_tables__free() after any result. */
int t2f_pprof_tables__build(struct t2f_pprof_tables *t, const struct t2f_profile *p,
			    const struct t2f_frame_name_opts *names);
void t2f_pprof_tables__free(struct t2f_pprof_tables *t);
/* The pprof string index of s[0..len) (0 for ""), adding it when new. 0, -ENOMEM or
 * -T2F_ERR_LIMIT. */
int t2f_pprof_tables__str(struct t2f_pprof_tables *t, const char *s, size_t len, uint32_t *idx);

/* Each mapping's range, file offset and build-id from the module map of its path that suits it
 * (pprof_ranges.c), once the mappings and t->frame_map are made. 0 or -ENOMEM. */
int t2f_pprof_tables__ranges(struct t2f_pprof_tables *t);

/* String indices of the caller's (sample types, label keys and comms: pprof.c) to renumber
 * with the tables. */
struct t2f_pprof_strs {
	uint32_t *idx;
	size_t n;
};
/* Renumbering the built tables in the order the samples use them (pprof_order.c), in two
 * steps around the samples' encoding, whose walk up each stack is the order's own:
 * __order_begin puts s's strings first into a new string table (t->strs from then on: strings
 * interned later follow them) and starts an empty location numbering; each location a sample
 * names is numbered as the walk meets it (t2f_pprof_tables__loc_id, in output order, leaf
 * first); __order_end, once every sample is walked, numbers the locations no sample met, moves
 * the locations to their new ids, orders the functions and the mappings (the main binary
 * first: the first whose file name starts with first_thread's comm) and moves their strings
 * into the new table after s's; t->nodes, which only the samples' walk reads, is freed then
 * (NULL). Between the two, t->locs, t->nodes and the functions keep their old ids. 0 or
 * -ENOMEM. */
int t2f_pprof_tables__order_begin(struct t2f_pprof_tables *t, struct t2f_pprof_strs *s);
uint32_t t2f_pprof_tables__meet(struct t2f_pprof_tables *t, uint32_t loc);
/* The new id of location loc (an old id, ≥ 1), numbered now if the walk had not met it. */
static inline uint32_t t2f_pprof_tables__loc_id(struct t2f_pprof_tables *t, uint32_t loc)
{
	uint32_t id = t->loc_order[loc];

	return id ? id : t2f_pprof_tables__meet(t, loc);
}
int t2f_pprof_tables__order_end(struct t2f_pprof_tables *t, t2f_thread_id first_thread);

/* Output stage: raw bytes, or gzip (fixed level, mtime 0), into out. gzip deflates each
 * drained buffer as a block of its own on two threads (pprof_gz.c) and writes the stream into
 * out on the caller's thread, inside __drain and __finish: out must not be written by anyone
 * else from the first of them to __finish. __new writes nothing: it may run on another thread,
 * its gz then used by the caller once that thread is joined. */
struct t2f_pprof_gz;
enum t2f_pprof_gz_mode {
	T2F_PPROF_RAW,        /* the protobuf as it is (tests, debugging) */
	T2F_PPROF_GZIP,       /* igzip when libisal.so.2 opens, else zlib */
	T2F_PPROF_GZIP_ZLIB,  /* zlib (tests) */
};
int t2f_pprof_gz__new(struct t2f_out *out, enum t2f_pprof_gz_mode mode,
		      struct t2f_pprof_gz **gz); /* 0, -ENOMEM */
bool t2f_pprof_gz__igzip(const struct t2f_pprof_gz *gz); /* its blocks are igzip's */
/* Consumes b's bytes as the next block (b->len becomes 0; b->p may change to another buffer of
 * gz's). 0, -ENOMEM, or -EIO when deflate fails (on an earlier buffer, when deflating runs
 * behind). */
int t2f_pprof_gz__drain(struct t2f_pprof_gz *gz, struct t2f_buf *b);
/* Consumes b's bytes (any number, 0 too) as the last block and ends the stream, as __drain
 * does. 0, -ENOMEM or -EIO. */
int t2f_pprof_gz__finish(struct t2f_pprof_gz *gz, struct t2f_buf *b);
void t2f_pprof_gz__free(struct t2f_pprof_gz *gz); /* NULL is fine */

/* A deflate engine (pprof_deflate.c): igzip's level 1 when libisal.so.2 opens and not
 * `zlib_only`, else zlib's level 1. One thread at a time. 0 or -ENOMEM. */
struct t2f_pprof_deflate;
int t2f_pprof_deflate__new(bool zlib_only, struct t2f_pprof_deflate **d);
bool t2f_pprof_deflate__igzip(const struct t2f_pprof_deflate *d);
/* Appends in[0..n) to out as raw deflate blocks that may refer back into dict[0..ndict) (the
 * 32 KiB before it at most), ending with a sync flush, or with the stream's last block when
 * `last`. The same bytes for the same arguments. 0, -ENOMEM or -EIO. */
int t2f_pprof_deflate__block(struct t2f_pprof_deflate *d, const void *dict, size_t ndict,
			     const void *in, size_t n, bool last, struct t2f_buf *out);
/* The gzip CRC-32 of p[0..n), by the engine's library. */
uint32_t t2f_pprof_deflate__crc32(const struct t2f_pprof_deflate *d, const void *p, size_t n);
void t2f_pprof_deflate__free(struct t2f_pprof_deflate *d); /* NULL is fine */

#endif
