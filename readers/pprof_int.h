/* readers/pprof_int.h: the pprof reader's state, shared by its files (not a public header).
 *
 * pprof.c feeds, detects and reads the samples; pprof_tables.c reads the tables (strings,
 * sample types, mappings, functions, locations), indexes them by id, picks the columns read
 * and makes a location's frames when a sample first needs them.
 */
#ifndef T2F_PPROF_INT_H_READER
#define T2F_PPROF_INT_H_READER

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/diag.h"
#include "formats/hashmap.h"
#include "formats/profile.h"

#define PP_NO_COL UINT32_MAX

struct pp_str {
	uint32_t off, len;       /* in buf (buf holds at most 1 GiB: offsets fit) */
};

struct pp_value_type {
	uint64_t type, unit;     /* string indices */
};

struct pp_mapping {
	uint64_t id, start, limit, offset, file, build_id;
};

struct pp_function {
	uint64_t id, name, system_name, file;
	int64_t start_line;
};

struct pp_line {
	uint64_t func;           /* function id, then (after indexing) its index + 1 */
	int64_t line;
};

struct pp_location {
	uint64_t id, mapping, address;
	uint32_t line0, nlines;  /* lines[line0 .. line0 + nlines), innermost first */
};

/* A location's frames in frames[], root first, once made (nframes 0: not yet): apart from the
 * locations, so that samples find the frames of those made in a small array. */
struct pp_made {
	uint32_t frame0, nframes;
};

struct pp_event {
	t2f_event_id id;
	uint32_t count_col;      /* PP_NO_COL: each pprof sample is one */
	uint32_t weight_col;
};

struct t2f_pprof_reader {
	struct t2f_profile *p;
	struct t2f_diag *d;
	char *name;
	char *event;
	uint32_t input;
	size_t max_bytes;
	uint8_t *buf;
	size_t len, cap;

	struct pp_str *strs;
	uint32_t nstrs;
	size_t strs_cap;
	t2f_str_id *str_id;      /* per string: its profile id + 1 (0: not interned yet) */
	struct pp_value_type *types;
	uint32_t ntypes;
	size_t types_cap;
	struct pp_mapping *maps;
	uint32_t nmaps;
	size_t maps_cap;
	struct pp_function *funcs;
	uint32_t nfuncs;
	size_t funcs_cap;
	struct pp_location *locs;
	uint32_t nlocs;
	size_t locs_cap;
	struct pp_line *lines;
	uint32_t nlines;
	size_t lines_cap;
	struct pp_made *made;    /* per location */
	t2f_frame_id *frames;    /* the locations' frames, made as samples use them */
	size_t nframes, frames_cap;
	struct t2f_hashmap *map_ix, *func_ix, *loc_ix; /* id → index + 1 */
	bool dense[3];           /* mappings', functions', locations' ids are 1..n: no map */
	uint64_t default_type;   /* string index */
	uint64_t period_type;    /* string index of its type */
	int64_t duration;
	uint64_t *comments;      /* string indices */
	size_t ncomments, comments_cap;
	const uint8_t *table_at; /* where the tables' checks point (the first sample type) */

	struct pp_event *events;
	uint32_t nevents;
	t2f_str_id main_comm;    /* an unlabelled sample's thread name */

	uint64_t *locs_tmp, *vals_tmp; /* one sample's */
	size_t nlocs_tmp, nvals_tmp, locs_tmp_cap, vals_cap;
};

/* Records "NAME: byte offset N (decoded): WHAT: why" and returns err. */
int pp_fail(struct t2f_pprof_reader *r, int err, const uint8_t *at, const char *what);

struct t2f_pb_field;
/* Calls fn(r, field, where it starts) on each top-level field of the profile, in order: 0, fn's
 * first error, or a malformed field's (pp_fail). */
int pp_walk(struct t2f_pprof_reader *r,
	    int (*fn)(struct t2f_pprof_reader *r, const struct t2f_pb_field *f, const uint8_t *at));

int pp_tables_read(struct t2f_pprof_reader *r);   /* pass (1) */
int pp_tables_index(struct t2f_pprof_reader *r);  /* ids, checks of string indices */
int pp_events(struct t2f_pprof_reader *r);        /* the columns read, their events */
int pp_module_maps(struct t2f_pprof_reader *r);   /* the mappings as module maps */
int pp_scalars(struct t2f_pprof_reader *r);       /* duration, inputs */
void pp_tables_free(struct t2f_pprof_reader *r);

/* String i (< nstrs) equals s. */
bool pp_str_is(const struct t2f_pprof_reader *r, uint64_t i, const char *s);
/* String i (< nstrs) as a profile string id (0 for ""). 0 or -ENOMEM. */
int pp_intern(struct t2f_pprof_reader *r, uint64_t i, t2f_str_id *out);
/* The index + 1 of location `id`, 0 when there is none. */
uint32_t pp_location_index(const struct t2f_pprof_reader *r, uint64_t id);
/* Location loc's (index + 1) frames, root first, made the first time. 0, -ENOMEM or
 * -T2F_ERR_LIMIT. */
int pp_location_frames(struct t2f_pprof_reader *r, uint32_t loc, const t2f_frame_id **fr,
		       size_t *n);

#endif
