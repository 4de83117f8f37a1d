/* writers/speedscope_int.h: the speedscope writer's state, shared by its files (not a public
 * header).
 *
 * speedscope.c runs the passes (its first comment) and writes the header, the shared frames and
 * the evented profiles; speedscope_items.c reads a thread's items and makes pass 1;
 * speedscope_json.c makes JSON strings and the profiles' names; speedscope_sampled.c writes the
 * sampled profiles, formatted on threads. Not thread safe, but for functions that say they only
 * read s.
 */
#ifndef T2F_SPEEDSCOPE_INT_H
#define T2F_SPEEDSCOPE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/buf.h"
#include "formats/profile.h"
#include "writers/frame_name.h"
#include "writers/out.h"
#include "writers/speedscope_stacks.h"

struct json_object;

/* What a job writes of its runs: their samples, their weights, or (a profile in one job) both. */
enum ss_part { SS_SAMPLES, SS_WEIGHTS, SS_BOTH };

/* A piece of the profiles' text: the samples or weights (or both) of the runs that start in items
 * [begin, end) of thread `thread`, whose items are [0, stop), after heads[head_off, + head_len);
 * `last`: the list's last piece. */
struct ss_job {
	size_t head_off;
	t2f_thread_id thread;
	uint32_t begin, end, stop;
	uint32_t head_len;
	uint8_t part;              /* enum ss_part */
	bool last;
};

struct ss {
	const struct t2f_profile *p;
	struct t2f_out *out;
	t2f_event_id event;
	const struct t2f_event *ev;  /* NULL for a profile without events */
	bool counts;               /* weights are sample counts */
	bool use_log;              /* items are log entries (else cells) */
	bool addrs;                /* t2f_speedscope_opts.addrs */
	bool evented;              /* t2f_speedscope_opts.evented, with sample times kept */
	bool all_ours;             /* every cell is of the written event */
	uint32_t thread_count;
	struct t2f_frame_names *names;
	uint32_t *frame_shared;    /* per frame id: shared index + 1; 0 = not written */
	t2f_frame_id *shared_repr; /* per shared index: the first frame id written as it */
	uint32_t shared_count;
	uint64_t *totals;          /* per thread id: sum of its weights */
	uint32_t *cell_start;      /* without a log, per thread id t: its items are the cells */
	uint32_t *cell_bucket;     /*   cell_bucket[cell_start[t] .. cell_start[t + 1]) */
	struct ss_cell *cells;     /* per cell index */
	struct ss_stacks *stacks;  /* each used node's stack text */
	uint32_t *item_nodes;      /* the distinct nodes of items, in order of first use */
	uint32_t item_node_count;
	unsigned threads;          /* formatting the items */
	uint32_t *scratch;         /* per thread: max_depth + 1 entries for ss_stacks__put */
	struct t2f_buf heads;      /* the profiles' texts before their samples */
	struct ss_job *jobs;       /* pieces of the profiles' text, in order */
	size_t job_count;
	size_t *group_start;       /* jobs made as one piece: [group_start[g], group_start[g + 1]) */
	size_t group_count;
	size_t group_most;         /* the items of the largest piece */
	uint32_t max_depth;
	struct t2f_buf name_buf;   /* a profile's name */
	struct t2f_buf utf8_buf;   /* a string with invalid UTF-8 replaced */
	struct t2f_buf plain_buf;  /* a string that needs no escaping, quoted */
	struct json_object *jstr;  /* reused to escape strings */
};

/* A cell as the items need it; thread 0: not a sample of the written event. */
struct ss_cell {
	t2f_node_id node;
	t2f_thread_id thread;
	uint64_t samples, weight;
};

struct ss_item {
	t2f_node_id node;
	uint64_t weight;
};

#define SS_BATCH 512           /* items read at a time */
#define SS_WRITE_BATCH 16384   /* items of a piece of text (writers/par_text.h) */

/* speedscope_items.c */

/* The cells as the items need them (s->cells). 0 or -ENOMEM. */
int ss_cells(struct ss *s);
/* Without a log: the cells of the written event grouped by thread (s->cell_start,
 * s->cell_bucket). 0 or -ENOMEM. */
int ss_group_cells(struct ss *s);
/* How many items thread t has. Reads s only. */
size_t ss_item_count(const struct ss *s, t2f_thread_id t);
/* Thread t's items [from, from + n) (n <= SS_BATCH) into it; weight 0 for an item that is not
 * written. Reads s only. */
void ss_items(const struct ss *s, t2f_thread_id t, size_t from, size_t n, struct ss_item *it);
/* Pass 1: s->totals, the used frames (s->frame_shared nonzero), s->item_nodes, s->max_depth.
 * 0 or -ENOMEM. */
int ss_scan(struct ss *s);

/* speedscope_json.c */

/* Writes str as a JSON string to s->out. 0 or -ENOMEM. */
int ss_put_string(struct ss *s, const char *str, size_t len);
/* Appends thread th's profile name, "comm (pid P, tid T)", as a JSON string to b. 0 or -ENOMEM. */
int ss_put_thread_name(struct ss *s, const struct t2f_thread *th, struct t2f_buf *b);

/* speedscope_sampled.c */

/* Pass 4 for sampled profiles: "profiles":[…]} of the threads with a total, in unit `unit`,
 * formatted on s->threads threads. 0 or -ENOMEM; write errors are s->out's. */
int ss_write_profiles(struct ss *s, const char *unit);

#endif
