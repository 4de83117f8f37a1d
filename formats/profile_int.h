/* formats/profile_int.h: the profile's tables, shared by profile.c (building and reading),
 * profile_merge.c and profile_restack.c; not a public header. Ownership and threads as in
 * formats/profile.h.
 */
#ifndef T2F_PROFILE_INT_H
#define T2F_PROFILE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/bg.h"
#include "formats/hashmap.h"
#include "formats/profile.h"
#include "formats/strtab.h"
#include "formats/time_log.h"

struct vec {
	void *data;
	size_t len, cap; /* elements */
	size_t reserved; /* bytes of address space data grows in (t2f_mem__reserve); 0: malloc'd */
	bool whole;      /* from VEC_WHOLE_MIN bytes on, in a reservation grown in whole huge
			  * pages (t2f_profile__grow_whole) */
};

struct node {
	t2f_node_id parent;
	t2f_frame_id frame;
	uint32_t depth;
};

struct t2f_profile {
	struct t2f_strtab *strings;
	struct vec threads, events, frames, nodes, cells, maps; /* index 0 unused but in cells/maps */
	struct t2f_hashmap *thread_ix, *frame_ix, *node_ix, *cell_ix;
	struct t2f_sample_log *log; /* NULL unless enabled */
	struct t2f_time_log *times; /* each logged sample's time: NULL unless enabled */
	struct vec waits;           /* struct t2f_wait_span, kept only with keep_waits */
	bool keep_waits;
	struct t2f_time_hist *hist; /* NULL unless enabled */
	bool want_times;
	bool whole;                 /* t2f_profile__grow_whole: its indexes made again grow so too */
	struct t2f_derive *derive;  /* NULL unless a derived event was asked for */
	uint32_t frame_limit; /* 0 = none */
	uint64_t first_ns, last_ns; /* time span; 0 = no time seen */
	uint64_t read, weightless, dropped[T2F_DROP__COUNT];
	bool capped;
	uint64_t times_past, chainless;
	struct t2f_lost lost;
	uint64_t duration_ns;       /* t2f_profile__add_duration's sum */
	t2f_str_id *inputs;         /* t2f_profile__add_input_name's */
	size_t n_inputs, inputs_cap;
	bool borrowed;              /* strings are another profile's (t2f_profile__new_stacks) */
	/* t2f_profile__fold_threads: folds (u32 per thread id) gives each thread the first thread
	 * of its comm and input, which its cells are counted under; comm_ix finds it */
	bool fold;
	struct vec folds;
	struct t2f_hashmap *comm_ix;
	/* profile_defer.c: cells a merge appended without cell_ix; defer_of (u32 per thread id)
	 * gives a thread with such cells its run in defer_runs + 1, else 0 */
	struct vec defer_of, defer_runs;
	bool defer_open; /* a run begun */
	uint32_t defer_calls;
	/* profile_repeat.c: with repeat (t2f_profile__repeat_cells), merges append cells unmerged;
	 * cell_flags (u8 per thread id) tells whose cells may repeat (repeated: some thread's) */
	bool repeat, repeated;
	struct vec cell_flags;
	uint64_t repeat_weight;     /* the weights merged or added, summed: past UINT64_MAX, the
				     * sum of a cell's repeats may be too (capped is set) */
	/* profile_sums.c: the cells with their repeats added up, made on sums_bg */
	struct t2f_cell_sums *sums;
	struct t2f_bg *sums_bg;
	/* t2f_profile__leave_addr's (frame, address) pairs (struct t2f_left_addr), each once */
	struct vec lefts;
	struct t2f_hashmap *left_ix; /* NULL until the first */
};

struct t2f_left_addr {
	t2f_frame_id frame;
	uint64_t addr;
};

/* profile_left.c: the merge step of the left addresses (src's frames mapped by frame_map), and
 * freeing them. 0 or -ENOMEM. */
int t2f_profile__merge_lefts(struct t2f_profile *dst, const struct t2f_profile *src,
			     const t2f_frame_id *frame_map);
void t2f_profile__free_lefts(struct t2f_profile *p);

#define VEC_AT(v, type, i) (&((type *)(v).data)[i])

/* The thread whose cells count thread t's samples: t, or with t2f_profile__fold_threads the
 * first thread of its comm and input. */
static inline t2f_thread_id t2f_profile__folded(const struct t2f_profile *p, t2f_thread_id t)
{
	return p->fold && t < p->folds.len ? *VEC_AT(p->folds, uint32_t, t) : t;
}

/* p is merged into (a reader's segments, or inputs): its frame, node and cell tables and their
 * indexes will grow large, so they grow in whole huge pages from 1 MiB on
 * (t2f_mem__commit_in, t2f_hashmap__grow_whole). */
void t2f_profile__grow_whole(struct t2f_profile *p);
/* Makes room for n more elements of size `elem`; 0 or -ENOMEM/-T2F_ERR_LIMIT. */
int t2f_profile__vec_reserve_n(struct vec *v, size_t elem, size_t n);
/* Makes v at least len elements long, the new ones zeroed (a table per id). 0 or
 * -ENOMEM/-T2F_ERR_LIMIT. */
int t2f_profile__vec_reach(struct vec *v, size_t elem, size_t len);
void t2f_profile__vec_free(struct vec *v);

/* The fields frames are told apart by (an address only with has_addr). */
static inline struct t2f_frame t2f_profile__frame_key(const struct t2f_frame *f)
{
	return (struct t2f_frame){ .name = f->name, .module = f->module, .kind = f->kind,
				   .has_addr = f->has_addr, .unwound = f->unwound,
				   .addr_left = f->addr_left,
				   .addr = f->has_addr ? f->addr : 0,
				   .space = f->has_addr ? f->space : T2F_SPACE_FILE_OFF,
				   .file = f->file, .line = f->line, .fn_file = f->fn_file,
				   .fn_line = f->fn_line, .module_names = f->module_names };
}

static inline uint64_t t2f_profile__frame_hash(const struct t2f_frame *key)
{
	return t2f_hash_u64(((uint64_t)key->name << 32 | key->module) ^
			    ((uint64_t)key->module_names << 40 | (uint64_t)key->kind << 2 |
			     (uint64_t)key->unwound << 1 | key->has_addr) *
			    0x9e3779b97f4a7c15ULL) ^
	       t2f_hash_u64(key->addr + 1) ^
	       t2f_hash_u64(((uint64_t)key->file << 32 | key->line) + 0x51ed27);
}

static inline uint64_t t2f_profile__node_hash(t2f_node_id parent, t2f_frame_id frame)
{
	return t2f_hash_u64((uint64_t)parent << 32 | frame);
}

static inline uint64_t t2f_profile__cell_hash(t2f_node_id node, t2f_thread_id thread,
					      t2f_event_id event)
{
	return t2f_hash_u64((uint64_t)node << 32 | thread) ^ t2f_hash_u64(~(uint64_t)event);
}

/* t2f_profile__frame of a key (t2f_profile__frame_key) whose hash the caller has: h. */
int t2f_profile__frame_hashed(struct t2f_profile *p, const struct t2f_frame *key, uint64_t h,
			      t2f_frame_id *out);
/* Builds the frame, node and cell indexes again when t2f_profile__drop_indexes dropped them:
 * what every lookup-or-add of those tables calls first. 0 or -ENOMEM. */
int t2f_profile__indexes(struct t2f_profile *p);
/* The node (parent, frame), or 0; h is its hash. The indexes must be there. */
uint32_t t2f_profile__node_find(const struct t2f_profile *p, t2f_node_id parent,
				t2f_frame_id frame, uint64_t h);
/* Adds the node (parent, frame), known to be absent, as the next id. 0 or -ENOMEM or
 * -T2F_ERR_LIMIT. */
int t2f_profile__node_add(struct t2f_profile *p, t2f_node_id parent, t2f_frame_id frame,
			  uint64_t h, t2f_node_id *out);
/* Adds (samples, weight) to the cell (node, thread, event), creating it at the end of the cell
 * table when new; *idx is its index. 0 or -ENOMEM/-T2F_ERR_LIMIT. */
int t2f_profile__cell_add(struct t2f_profile *p, t2f_node_id node, t2f_thread_id thread,
			  t2f_event_id event, uint64_t samples, uint64_t weight, uint32_t *idx);
/* t2f_profile__cell_add of a cell known to be absent: added at the end without a lookup. */
int t2f_profile__cell_append(struct t2f_profile *p, t2f_node_id node, t2f_thread_id thread,
			     t2f_event_id event, uint64_t samples, uint64_t weight, uint32_t *idx);
/* profile_defer.c. A merge appends cells absent from p (of threads it added) with
 * t2f_profile__cell_defer between __defer_begin and __defer_end, without indexing them;
 * t2f_profile__undefer indexes the deferred cells of `threads` (it drops the indexes on an
 * error), which every lookup of a thread's cells (t2f_profile__deferred) calls first.
 * __defer_forget: the cells are indexed again whole or gone; __defer_free frees. 0, -ENOMEM or
 * -T2F_ERR_LIMIT. */
int t2f_profile__defer_begin(struct t2f_profile *p);
int t2f_profile__cell_defer(struct t2f_profile *p, t2f_node_id node, t2f_thread_id thread,
			    t2f_event_id event, uint64_t samples, uint64_t weight, uint32_t *idx);
void t2f_profile__defer_end(struct t2f_profile *p);
int t2f_profile__undefer(struct t2f_profile *p, const t2f_thread_id *threads, size_t n);
void t2f_profile__defer_forget(struct t2f_profile *p);
void t2f_profile__defer_free(struct t2f_profile *p);

static inline bool t2f_profile__deferred(const struct t2f_profile *p, t2f_thread_id t)
{
	return t < p->defer_of.len && *VEC_AT(p->defer_of, uint32_t, t);
}

/* Writes the cell (node, thread, event) with (samples, weight) at the end of p's cell table,
 * room made for it (t2f_profile__vec_reserve_n); its index. */
static inline uint32_t t2f_profile__cell_put(struct t2f_profile *p, t2f_node_id node,
					     t2f_thread_id thread, t2f_event_id event,
					     uint64_t samples, uint64_t weight)
{
	*VEC_AT(p->cells, struct t2f_cell, p->cells.len) = (struct t2f_cell){
		.node = node, .thread = thread, .event = event, .samples = samples,
		.weight = weight };
	return (uint32_t)p->cells.len++;
}

/* profile_repeat.c. A cell of thread t got `weight` from an add (made: a new cell); with
 * repeat set. 0 or -ENOMEM. */
int t2f_profile__repeat_add(struct t2f_profile *p, t2f_thread_id t, bool made, uint64_t weight);
/* src ids to dst's, for t2f_profile__append_cells: threads, nodes and events, and the dst
 * index each src cell gets (filled). */
struct t2f_repeat_maps {
	const t2f_thread_id *thread;
	const t2f_node_id *node;
	const t2f_event_id *event;
	uint32_t *cell;
};
/* The merge step of cells into dst with repeat set: src's cells appended as they are, their
 * threads flagged. 0, -ENOMEM or -T2F_ERR_LIMIT. */
int t2f_profile__append_cells(struct t2f_profile *dst, const struct t2f_profile *src,
			      const struct t2f_repeat_maps *m);
/* profile_sums.c: the sums made or being made dropped (waited for first), before p's cells
 * change. */
void t2f_profile__sums_drop(struct t2f_profile *p);

/* Widens the time span to [first, last]; first 0 = no time. */
void t2f_profile__note_time(struct t2f_profile *p, uint64_t first, uint64_t last);

#endif
