/* readers/perf_script_int.h: the perf script parser's state, shared by the files that make it
 * (perf_script.c: the line state machine; perf_script_seg.c: what the parallel reader asks of
 * a segment's parser). Internal to readers/; same threading and ownership as perf_script.h.
 */
#ifndef T2F_PERF_SCRIPT_INT_H
#define T2F_PERF_SCRIPT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/buf.h"
#include "readers/perf_script.h"
#include "readers/perf_script_parse.h"

struct t2f_arena;
struct t2f_hashmap;
struct ps_blocks;
struct ps_maps;

#define PS_MAX_DEPTH (1u << 20) /* frames in one sample; deeper samples are cut, with a warning */

enum ps_state {
	PS_IDLE,     /* between samples */
	PS_IN,       /* collecting the frames of a sample */
	PS_SKIP,     /* inside a record whose lines are ignored */
};

/* Where the reader stands in a call-chain sample, for the callers' block memo. */
enum ps_block_phase {
	BLK_NONE,
	BLK_AFTER_HEADER,  /* the next line is the leaf */
	BLK_AT_CALLERS,    /* the next line is the first caller's: look the block up there */
	BLK_COLLECT,       /* reading a block that was not kept: keep it at its empty line */
};

struct line_entry {
	const char *text;  /* the frame line, unindented: in the fed bytes if borrowed, else a copy */
	uint32_t len;
	t2f_frame_id frame;
	bool abs;          /* a one-line sample's frame (absolute ip): then also */
	uint32_t gen;      /* its process's mapping generation (ps_maps__generation) */
	int64_t pid;       /* and its process */
};

/* The run of sample times whose span alone is wanted (perf_script_times.c). */
struct ps_time_run {
	uint64_t hi, lo;        /* the run's latest time, its first and last 8 bytes big-endian */
	uint8_t len, dot;       /* its length (0: no run) and where its '.' is */
	uint64_t pend_hi, pend_lo; /* the time of the sample being read, until it is added */
	uint8_t pend_len;       /* 0: none to commit */
	uint8_t pend_dot;
	bool pend_in;           /* it is inside the run (its sample notes no time) */
};

/* The time of the memo header h (at line): 0 when it lies in the run, else its time in ns (the
 * sample notes it); pending for the run unless it can take no part in one. */
uint64_t ps_times__pend(struct ps_time_run *r, const char *line, const struct ps_header *h);
/* The pending time, its sample added, into the run: the time in ns of the run it ended, or 0. */
uint64_t ps_times__commit(struct ps_time_run *r);
/* Ends the run: its latest time in ns, or 0 without a run. */
uint64_t ps_times__end(struct ps_time_run *r);

/* What the sample headers' times are read for. */
enum ps_times {
	PS_TIMES_NONE,          /* nothing: not converted */
	PS_TIMES_SPAN,          /* the profile's time span alone (struct ps_time_run) */
	PS_TIMES_EACH,          /* each sample's own (ranges, the derive stage, a time log) */
};

/* The previous header's thread and event, reused while the next header repeats them. */
struct last_thread {
	int64_t pid, tid;
	char comm[64];
	size_t len;
	t2f_thread_id id; /* 0 = nothing cached */
};

struct last_event {
	char name[64];
	size_t len;
	t2f_event_id id;
};

struct t2f_perf_script {
	struct t2f_profile *p;
	struct t2f_diag *d;
	char *name;
	uint32_t input;
	uint64_t line_no;
	enum ps_state state;
	bool partial_line;   /* the last line fed had no '\n' */
	/* the sample being collected */
	t2f_thread_id thread;
	t2f_event_id event;
	uint64_t weight, time_ns;
	t2f_frame_id *frames;
	size_t nframes, frames_cap;
	bool cut_warned;
	bool keep_addrs;     /* keep the printed address on every frame */
	t2f_perf_script_addr_fn addr_wanted; /* NULL: every unnamed frame keeps its address */
	void *addr_ctx;
	bool addrs_need_ids; /* t2f_perf_script__addrs_need_ids */
	bool ids_read;       /* a PERF_RECORD_MMAP line with a build-id was read */
	bool dropped_addrs;  /* a frame went without its address for want of a build-id */
	int64_t pid, tid;    /* the sample's process (-1 when not printed: found on a one-line
			      * sample's first use, ps_maps__pid_of) and thread */
	struct ps_maps *maps; /* each process's mappings (PERF_RECORD_MMAP/MMAP2 lines) */
	struct t2f_buf map_lines; /* those lines and the FORK lines, as read */
	bool used_maps;      /* a one-line sample's frame was looked up in maps */
	bool borrow;         /* fed bytes outlive ps (t2f_perf_script__borrow_input) */
	/* frame line cache */
	struct t2f_arena *arena;
	struct t2f_hashmap *line_ix;
	struct line_entry *lines;
	uint32_t nlines, lines_cap;
	t2f_frame_id unknown_frame; /* the frame of every `ADDR [unknown] ([unknown])` line, once
				     * known to keep no address (unknown_line); 0: not yet */
	struct last_thread last_thread;
	struct last_event last_event;
	struct ps_header_memo header_memo;
	enum ps_times times;    /* set as each feed starts */
	struct ps_time_run run;
	/* callers' block memo */
	struct ps_blocks *blocks;
	enum ps_block_phase phase;
	bool chain_started;     /* the line just read began a call-chain sample */
	const char *blk_start;  /* BLK_COLLECT: the block's first byte, in the data being fed */
	uint64_t blk_line;      /* and its first line's number */
	t2f_node_id base_node;  /* the stack node the sample's frames hang from (0: the root) */
	t2f_node_id leaf_parent; /* set by end_sample: the node its leaf was added under */
	/* headers without times */
	bool timeless;          /* t2f_perf_script__timeless */
	struct t2f_buf pending; /* a header line waiting for its first frame line (a copy) */
	uint64_t pending_line;  /* its line number; 0: none waits */
	bool pending_partial;   /* it was the input's last line, cut inside (no '\n') */
	const struct t2f_sample_filter *filter; /* t2f_perf_script__filter (NULL: none) */
	bool pid_warned;        /* said that the text prints no pids for the filter */
	/* the derive stage (formats/derive.h), NULL unless a derived event was asked for */
	struct t2f_derive *derive;
	int64_t sw_out;         /* the sample is a sched_switch: the thread it takes off CPU */
	unsigned sw_state;      /* and its state (enum t2f_cpu_state); sw_out -1: none */
	t2f_thread_id sw_thread; /* the profile's thread for sw_out */
	bool switch_only;       /* a sched_switch outside the --time ranges: its switches alone */
};

#endif
