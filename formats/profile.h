/* formats/profile.h: the profile model every reader fills and every writer reads.
 *
 * Strings are interned (t2f_str_id). Threads, events, modules, frames and stack nodes are dense
 * u32 ids from 1 in order of first appearance (0 = none; stack node 0 is the empty stack), so a
 * writer that walks ids in order is deterministic.
 *
 * A sample adds (samples 1, weight w) to the cell (stack node, thread, event). When the sample log
 * is enabled (t2f_profile__enable_log, before the first sample), every sample is also appended, in
 * input order (formats/sample_log.h: its cell and weight, samples in a row with the same cell as
 * one run): writers that keep input order (speedscope, the flame chart) read it. Of the samples'
 * times only the span is kept, unless each logged sample's time is asked for too
 * (t2f_profile__enable_sample_times: formats/time_log.h, the Firefox profile). Off-CPU waits
 * the derive stage closes are kept as spans only when asked (t2f_profile__keep_waits). When the
 * time histogram is enabled (t2f_profile__enable_hist, the heat map), how many samples of each
 * event fell in each 10 ms is kept too (formats/time_hist.h).
 *
 * Ownership: the profile owns everything it returns; pointers it returns (strings, frame and cell
 * structs) are borrowed and valid until the next call that adds to the profile. Not thread safe,
 * but for one split: while one thread calls only t2f_profile__frame, t2f_profile__child,
 * t2f_profile__add_sample_to, __frames, __stacks and __prefetch_cell (they touch the frames,
 * nodes, cells, log, time span, time histogram and their own counters alone), one other thread
 * may add strings, threads, events and module maps, and asks t2f_profile__cell_thread for the
 * cell threads the first passes (t2f_profile__add_sample reads the thread table: not in the
 * split).
 */
#ifndef T2F_PROFILE_H
#define T2F_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/sample_log.h"
#include "formats/strtab.h"
#include "formats/time_log.h"
#include "formats/time_hist.h"
#include "include/trace2flame_enums.h"

typedef uint32_t t2f_thread_id;
typedef uint32_t t2f_event_id;
typedef uint32_t t2f_module_id;
typedef uint32_t t2f_frame_id;
typedef uint32_t t2f_node_id;

#define T2F_PID_UNKNOWN (-1) /* a thread whose pid the input did not give */

/* A frame's kind: the kind of the module its code is in (the library's enum t2f_module_kind, as
 * the resolve stage reports its modules), or one that only frames have. */
enum t2f_frame_kind {
	T2F_FRAME_USER = T2F_MODULE_USER,
	T2F_FRAME_KERNEL = T2F_MODULE_KERNEL,
	T2F_FRAME_JIT = T2F_MODULE_JIT,
	T2F_FRAME_INLINED,     /* a function inlined into the frame above (pipeline/inlines.h) */
	T2F_FRAME_MANAGED,     /* .NET managed code (nettrace) */
};

enum t2f_unit {
	T2F_UNIT_COUNT = 0,    /* events, page faults, samples */
	T2F_UNIT_NANOSECONDS,  /* cpu-clock, task-clock periods */
};

struct t2f_thread {
	int64_t pid;          /* T2F_PID_UNKNOWN when not known */
	int64_t tid;
	t2f_str_id comm;
	uint32_t input;       /* index of the input it came from (batch mode), from 0 */
};

struct t2f_event {
	t2f_str_id name;      /* without modifiers: "cpu-clock", "sched:sched_switch" */
	enum t2f_unit unit;
	bool has_period;      /* some sample of this event carried a period */
};

/* A module map: an address range of a process backed by a file (perf MMAP/MMAP2 records,
 * nettrace ProcessMapping). */
struct t2f_module_map {
	int64_t pid;          /* T2F_PID_UNKNOWN: no process's (the kernel's, a pprof input's) */
	uint32_t input;       /* index of the input it came from, as its threads' (t2f_thread) */
	uint64_t start, len, pgoff;
	t2f_str_id path;
	t2f_str_id build_id;  /* lowercase hex, 0 when not recorded */
	t2f_str_id prot;      /* "r-xp" as printed, 0 when not printed */
	bool has_segment;     /* the input gave the file's executable PT_LOAD (nettrace universal
			       * traces' mapping metadata): */
	uint64_t p_vaddr, p_offset;  /* its p_vaddr and p_offset (only with has_segment) */
	uint64_t page_size;   /* the recording system's page size; 0 when not recorded */
};

/* A frame: what one entry of a call chain names. Frames are deduplicated on every field. */
struct t2f_frame {
	t2f_str_id name;      /* symbol as the input gave it (perf's +0xOFF removed); 0 = unknown */
	t2f_str_id module;    /* dso path as printed ("[kernel.kallsyms]", "/usr/lib/libc.so.6"); 0 = none */
	uint64_t addr;        /* address as printed, kept only when has_addr (unresolved frames, or
			       * every frame when the reader was asked to keep addresses) */
	enum t2f_frame_kind kind;
	bool has_addr;
	bool addr_left;       /* made without its address: no build-id was known for its module
			       * when it was read, so nothing could name it by address; the
			       * addresses left out are t2f_profile__leave_addr's */
	bool unwound;         /* a user frame found by unwinding a `--call-graph dwarf` sample's
			       * stack copy: perf names those from DWARF, not from its symbol
			       * table (pipeline/inlines.h) */
	/* What addr means (docs/design.md §4; only with has_addr, else FILE_OFF): FILE_OFF, an
	 * offset in the module's file (what perf script prints on call-chain lines, the
	 * DSO-relative address; what a reader computes for file-backed frames), or ABS, an
	 * absolute ip in the process (perf's one-line samples without a mapping, nettrace JIT and
	 * kernel frames); never ELF_VADDR. The public enumeration's zero is ABS: every frame with
	 * an address says its space. */
	enum t2f_space space;
	/* Source positions, from DWARF (pipeline/inlines.h); 0 = unknown. Those of the code the
	 * frame's address is in: for the innermost function the address's own line, for a
	 * function something was inlined into the line of that inlined call. */
	t2f_str_id file;
	uint32_t line;
	/* Where the function itself starts: its declaration's file and line (DW_AT_decl_file,
	 * DW_AT_decl_line: pprof's Function.start_line, speedscope's frame line). */
	t2f_str_id fn_file;
	uint32_t fn_line;
	/* Named as its input names frames, "FILE!function" or "FILE!0xFILE_OFF" (FILE the module
	 * path's last component), by the resolve stage when the reader leaves it unnamed: the
	 * frames of .nettrace traces (pipeline/resymbolize.h), not those of other inputs beside
	 * them. */
	bool module_names;
};

/* One weight cell: every sample of one stack on one thread for one event. */
struct t2f_cell {
	t2f_node_id node;
	t2f_thread_id thread;
	t2f_event_id event;
	uint64_t samples;
	uint64_t weight;      /* sum of periods (1 per sample for events without a period) */
};

/* Logged samples (only with the log enabled): a run of samples in a row of one thread with one
 * cell; `thread` is the thread whose log it is (its cell's may be another with
 * t2f_profile__fold_threads). */
struct t2f_sample_run {
	t2f_node_id node;
	t2f_thread_id thread;
	t2f_event_id event;
	uint32_t samples;     /* 1 or more */
	uint64_t weight;      /* their sum */
};

struct t2f_profile;

int t2f_profile__new(struct t2f_profile **out); /* 0 or -ENOMEM */
void t2f_profile__free(struct t2f_profile *p);  /* NULL is fine */
/* Makes p what t2f_profile__new makes (nothing enabled, no derive stage), keeping the memory of
 * its strings, tables and indexes for what is added next: a reader of many pieces of an input,
 * each into a profile of its own (readers/perf_script_par.h), uses its profiles again. Not for a
 * profile whose strings are borrowed (t2f_profile__new_stacks). 0 or -ENOMEM/-EINVAL. */
int t2f_profile__reset(struct t2f_profile *p);

struct t2f_strtab *t2f_profile__strtab(struct t2f_profile *p);
/* Shorthands for the profile's strtab. */
int t2f_profile__intern(struct t2f_profile *p, const char *s, size_t len, t2f_str_id *id);
const char *t2f_profile__str(const struct t2f_profile *p, t2f_str_id id, size_t *len);
/* Whether s[0..len) names nothing: empty, or perf's "[unknown]" (a symbol or dso it could not
 * name). Frames so named are shown by their module. */
static inline bool t2f_unknown_name(const char *s, size_t len)
{
	return len == 0 || (len == 9 && __builtin_memcmp(s, "[unknown]", 9) == 0);
}

/* Keep a log of every sample, each thread's in input order (speedscope, the flame chart). Call
 * before adding samples. 0 or -ENOMEM. */
int t2f_profile__enable_log(struct t2f_profile *p);
bool t2f_profile__log_enabled(const struct t2f_profile *p);
/* Keep each logged sample's time and weight too (formats/time_log.h): enables the log, asks
 * readers for times. Call before adding samples. 0 or -ENOMEM. Without it, nothing of the
 * times is kept but their span (no cost per sample). */
int t2f_profile__enable_sample_times(struct t2f_profile *p);
bool t2f_profile__sample_times(const struct t2f_profile *p);
/* A cursor on the thread's logged samples' times and weights, from its first, in the order of
 * its runs (t2f_profile__sample_runs: a run of n samples takes the next n); one that gives
 * time 0 without sample times. */
void t2f_profile__time_cursor(const struct t2f_profile *p, t2f_thread_id thread,
			      struct t2f_time_cursor *k);

/* Off-CPU waits the derive stage closed (formats/derive.h), kept in the order they closed only
 * after t2f_profile__keep_waits (a writer that shows them: the Firefox profile's markers);
 * t2f_profile__add_wait does nothing otherwise. Merged (threads mapped); the stack is not kept. */
struct t2f_wait_span {
	t2f_thread_id thread;
	unsigned state;        /* enum t2f_cpu_state (formats/derive.h) */
	uint64_t start_ns, end_ns;
};
void t2f_profile__keep_waits(struct t2f_profile *p);
bool t2f_profile__keeps_waits(const struct t2f_profile *p);
int t2f_profile__add_wait(struct t2f_profile *p, const struct t2f_wait_span *w); /* 0, -ENOMEM */
size_t t2f_profile__wait_count(const struct t2f_profile *p);
const struct t2f_wait_span *t2f_profile__wait_at(const struct t2f_profile *p, size_t idx);

/* Keep the time histogram (formats/time_hist.h: samples and weight per event and 10 ms, for
 * the heat map); asks for times too (t2f_profile__want_times). Call before adding samples.
 * 0 or -ENOMEM. t2f_profile__hist: it, or NULL when not enabled. */
int t2f_profile__enable_hist(struct t2f_profile *p);
const struct t2f_time_hist *t2f_profile__hist(const struct t2f_profile *p);
/* Asks readers for each sample's time (the time span: pprof's duration). Readers whose times
 * cost a parse give them only when asked; a time given is always counted. */
void t2f_profile__want_times(struct t2f_profile *p);
bool t2f_profile__wants_times(const struct t2f_profile *p);

/* The derive stage (formats/derive.h), made for the derived events o asks for (none: nothing).
 * Call before reading. 0 or -ENOMEM. t2f_profile__derive: it, or NULL when none was asked for:
 * readers hand it what the derived events need only then. Not merged (t2f_profile__merge adds
 * the samples it derived, as any). */
struct t2f_derive_opts;
struct t2f_derive;
int t2f_profile__enable_derive(struct t2f_profile *p, const struct t2f_derive_opts *o);
struct t2f_derive *t2f_profile__derive(const struct t2f_profile *p);

/* At most `max` distinct frames (0: as many as ids allow), and as many left addresses
 * (t2f_profile__leave_addr); past it t2f_profile__frame or __leave_addr, and so a merge, fails
 * with -T2F_ERR_LIMIT. Bounds the memory a hostile input can make the model take. */
void t2f_profile__limit_frames(struct t2f_profile *p, uint32_t max);
/* Whether a failure was that limit: the frame table holds `max` frames. */
bool t2f_profile__frames_full(const struct t2f_profile *p);

/* The addresses frames were made without (t2f_frame.addr_left): a reader records each (frame,
 * address) pair it left out, each kept once, so that the resolve stage counts the frames it
 * could not name as one an address, as it would have had them. Frame ids of the profile as read
 * (the inline stage's new stacks carry none); merges map them. 0 or -ENOMEM. */
int t2f_profile__leave_addr(struct t2f_profile *p, t2f_frame_id frame, uint64_t addr);
/* How many pairs, and the frame of the i-th (0-based, i below the count). */
size_t t2f_profile__left_addr_count(const struct t2f_profile *p);
t2f_frame_id t2f_profile__left_addr_frame(const struct t2f_profile *p, size_t i);

/* Counts the samples of threads with one comm and input under the first such thread: a cell
 * is then (stack node, that thread, event), and cell_at's thread is that thread, not the one
 * the sample was given (threads are kept as ever: t2f_profile__thread gives each its own id).
 * For writers that show threads of one name together (collapsed stacks without pids or tids,
 * SVG, speedscope): recordings of many short threads make far fewer cells. The sample log stays
 * per thread (its runs are the thread's own samples, their cells the folded ones). 0 or
 * -ENOMEM. A merge folds what it adds into dst as dst folds (src's folding does not matter). */
int t2f_profile__fold_threads(struct t2f_profile *p);
bool t2f_profile__folds_threads(const struct t2f_profile *p);

/* Lets p's cells repeat: a merge into p then appends src's cells as they are, without looking
 * them up, so one (node, thread, event) may have several cells, whose samples and weights are
 * its own; adds still look their cell up. For a writer that adds cells of one node and thread
 * up itself (pprof), not for the sample log or merges with samples in between (they merge
 * cells as ever). A thread's cells may repeat only when t2f_profile__cells_repeat says so
 * (__has_repeats: some thread's may). Set before the first merge; t2f_profile__reset unsets
 * it. */
void t2f_profile__repeat_cells(struct t2f_profile *p);
bool t2f_profile__repeats_cells(const struct t2f_profile *p);
bool t2f_profile__has_repeats(const struct t2f_profile *p);
bool t2f_profile__cells_repeat(const struct t2f_profile *p, t2f_thread_id t);

/* The cells of a profile whose cells repeat (t2f_profile__has_repeats) with their repeats
 * added up, for writers, as bits per cell (formats/bits.h): a cell set in
 * t2f_cell_sums__repeats repeats an earlier cell of its stack, thread and event (a writer
 * leaves it out); one set in __repeated has such repeats, whose samples and weight __add adds
 * to v (saturating, as the profile's own sums; v[0] samples, v[1] weight). The first cells,
 * in cell order, are what merging the cells would have made.
 * t2f_profile__sums_begin makes them on a thread of its own (0, or an error: nothing began):
 * the caller goes on with p meanwhile, but adds no sample (a merge into p, a restack and a
 * reset wait for them and drop them first). t2f_profile__sums, on the thread that began them,
 * waits for them (borrowed: valid until p's cells change or p is freed), or makes them now
 * into *mine (the caller's: t2f_cell_sums__free); 0 or -ENOMEM. */
struct t2f_cell_sums;
int t2f_profile__sums_begin(struct t2f_profile *p);
bool t2f_profile__sums_begun(const struct t2f_profile *p); /* waiting for them may block */
int t2f_profile__sums(const struct t2f_profile *p, const struct t2f_cell_sums **out,
		      struct t2f_cell_sums **mine);
const uint64_t *t2f_cell_sums__repeats(const struct t2f_cell_sums *s);
const uint64_t *t2f_cell_sums__repeated(const struct t2f_cell_sums *s);
void t2f_cell_sums__add(const struct t2f_cell_sums *s, uint32_t cell, uint64_t v[2]);
void t2f_cell_sums__free(struct t2f_cell_sums *s); /* NULL is fine */

/* Asks for the index slot that t2f_profile__child(p, parent, frame) will read: a hint for a
 * lookup a few steps ahead; the profile is unchanged. */
void t2f_profile__prefetch_child(const struct t2f_profile *p, t2f_node_id parent,
				 t2f_frame_id frame);

/* Lookup-or-add. All return 0 or -ENOMEM (-T2F_ERR_LIMIT when an id space is full). */
int t2f_profile__thread(struct t2f_profile *p, int64_t pid, int64_t tid, t2f_str_id comm,
			uint32_t input, t2f_thread_id *out);
int t2f_profile__event(struct t2f_profile *p, t2f_str_id name, enum t2f_unit unit,
		       t2f_event_id *out);
int t2f_profile__frame(struct t2f_profile *p, const struct t2f_frame *f, t2f_frame_id *out);
/* The child of `parent` (0 = root) through `frame`. Stacks are built root first. */
int t2f_profile__child(struct t2f_profile *p, t2f_node_id parent, t2f_frame_id frame,
		       t2f_node_id *out);
/* Adds the child of `parent` through `frame`, which the caller knows is absent, without
 * entering it in the node index, which then no longer answers for it: until the caller drops
 * the indexes (t2f_profile__drop_indexes; they are built again whole at the next use), it finds
 * such nodes itself before it asks __child. */
int t2f_profile__child_unindexed(struct t2f_profile *p, t2f_node_id parent, t2f_frame_id frame,
				 t2f_node_id *out);
/* Many at once, as one call of the above each in order gives them (formats/profile_batch.c:
 * their lookups overlap). __frames: out[i] is f[i]'s frame. __stacks: stack i's len[i] frames
 * follow stack i - 1's in `frames`, root first; out[i] is its node (0 for none). 0 or the first
 * error (the stacks after it left). */
int t2f_profile__frames(struct t2f_profile *p, size_t n, const struct t2f_frame *f,
			t2f_frame_id *out);
int t2f_profile__stacks(struct t2f_profile *p, size_t n, const uint32_t *len,
			const t2f_frame_id *frames, t2f_node_id *out);
/* A hint before t2f_profile__add_sample_to(p, node, thread, cell_thread, event, ...): asks the
 * CPU for the cell index's slot, or (entry, a while later) for the cell it names. Changes
 * nothing. */
void t2f_profile__prefetch_cell(const struct t2f_profile *p, t2f_node_id node,
				t2f_thread_id cell_thread, t2f_event_id event, bool entry);
/* Renames frame `id` in place (after reading: re-symbolization). Frames are no longer
 * deduplicated by name afterwards: two frames may now share a name (writers merge equal display
 * names), and t2f_profile__frame() finds it under neither name (a lookup adds a new frame):
 * rename only once reading is done. 0, or -EINVAL for an unknown id. */
int t2f_profile__set_frame_name(struct t2f_profile *p, t2f_frame_id id, t2f_str_id name);
int t2f_profile__add_module_map(struct t2f_profile *p, const struct t2f_module_map *m);
/* Marks that `event` carried a period. */
void t2f_profile__event_has_period(struct t2f_profile *p, t2f_event_id event);

/* Adds one sample; time_ns (0 = unknown) only counts towards the time span (and the time
 * histogram, when enabled); T2F_TIME_PAST (a time the reader could not hold: past 2^64 ns) is
 * counted instead. A cell's weight saturates at
 * UINT64_MAX (formats/sat.h), counted too. 0 or -ENOMEM (-T2F_ERR_LIMIT when a table is full). */
#define T2F_TIME_PAST UINT64_MAX
int t2f_profile__add_sample(struct t2f_profile *p, t2f_node_id node, t2f_thread_id thread,
			    t2f_event_id event, uint64_t weight, uint64_t time_ns);
/* The thread whose cells count thread's samples: thread, or with t2f_profile__fold_threads the
 * first thread of its comm and input. Reads the thread table. */
t2f_thread_id t2f_profile__cell_thread(const struct t2f_profile *p, t2f_thread_id thread);
/* t2f_profile__add_sample with the cell's thread (t2f_profile__cell_thread(p, thread), asked
 * earlier) given: reads no thread table, so it may run beside a thread that adds threads. */
int t2f_profile__add_sample_to(struct t2f_profile *p, t2f_node_id node, t2f_thread_id thread,
			       t2f_thread_id cell_thread, t2f_event_id event, uint64_t weight,
			       uint64_t time_ns);

/* Adds `samples` samples of summed weight `weight` at once and without times: an input that
 * holds aggregated samples (pprof). Counted as read; a logged input logs them as one sample of
 * that weight. samples 0 adds weight alone. 0 or -ENOMEM (-T2F_ERR_LIMIT when a table is full). */
int t2f_profile__add_samples(struct t2f_profile *p, t2f_node_id node, t2f_thread_id thread,
			     t2f_event_id event, uint64_t samples, uint64_t weight);

/* Counts; ids run 1..count. */
uint32_t t2f_profile__str_count(const struct t2f_profile *p);
uint32_t t2f_profile__thread_count(const struct t2f_profile *p);
uint32_t t2f_profile__event_count(const struct t2f_profile *p);
uint32_t t2f_profile__frame_count(const struct t2f_profile *p);
uint32_t t2f_profile__node_count(const struct t2f_profile *p); /* nodes 1..count (0 = root) */
uint32_t t2f_profile__module_map_count(const struct t2f_profile *p);
size_t t2f_profile__cell_count(const struct t2f_profile *p);
size_t t2f_profile__sample_log_count(const struct t2f_profile *p);

const struct t2f_thread *t2f_profile__thread_at(const struct t2f_profile *p, t2f_thread_id id);
const struct t2f_event *t2f_profile__event_at(const struct t2f_profile *p, t2f_event_id id);
const struct t2f_frame *t2f_profile__frame_at(const struct t2f_profile *p, t2f_frame_id id);
const struct t2f_module_map *t2f_profile__module_map_at(const struct t2f_profile *p, uint32_t idx);
/* Stack nodes: parent (0 for a root-level frame), frame, and depth (1 for a root-level frame). */
t2f_node_id t2f_profile__node_parent(const struct t2f_profile *p, t2f_node_id node);
t2f_frame_id t2f_profile__node_frame(const struct t2f_profile *p, t2f_node_id node);
uint32_t t2f_profile__node_depth(const struct t2f_profile *p, t2f_node_id node);
/* Cells in order of creation (idx 0..cell_count-1). */
const struct t2f_cell *t2f_profile__cell_at(const struct t2f_profile *p, size_t idx);
/* The log, a thread at a time: its samples in input order (the order between threads is not
 * kept), as runs (formats/sample_log.h: where they are cut is not fixed; neighbours may have the
 * same cell). Its samples and its runs (0 without the log), and run idx (< runs; finding it
 * decodes up to 31 runs: use t2f_profile__sample_runs for many). */
size_t t2f_profile__thread_sample_count(const struct t2f_profile *p, t2f_thread_id thread);
size_t t2f_profile__thread_run_count(const struct t2f_profile *p, t2f_thread_id thread);
/* The thread's logged samples' weights summed, at most 2^64 - 1 (0 without the log). */
uint64_t t2f_profile__thread_log_weight(const struct t2f_profile *p, t2f_thread_id thread);
struct t2f_sample_run t2f_profile__run_at(const struct t2f_profile *p, t2f_thread_id thread,
					  size_t idx);
/* Bulk reading (one call per batch, not per run): the thread's runs [from, from + n), all < its
 * run count, with their cell index (for t2f_profile__cell_at). */
void t2f_profile__sample_runs(const struct t2f_profile *p, t2f_thread_id thread, size_t from,
			      size_t n, struct t2f_log_run *runs);
/* The earliest and latest nonzero sample time; false when no sample had one. */
bool t2f_profile__time_span(const struct t2f_profile *p, uint64_t *first, uint64_t *last);
/* Widens the time span to [first, last] (0: nothing): the span of samples added with time 0 by a
 * reader that kept their times' span itself. */
void t2f_profile__note_span(struct t2f_profile *p, uint64_t first, uint64_t last);

/* Finds an event by name, or by the name without perf's modifiers ("cpu-clock:u" finds
 * "cpu-clock"); 0 when absent. */
t2f_event_id t2f_profile__find_event(const struct t2f_profile *p, const char *name);

/* Sample accounting shared by readers, writers and --stats. */
enum t2f_drop_reason {
	T2F_DROP_EMPTY_STACK = 0, /* a sample whose call chain was empty */
	T2F_DROP_MALFORMED,       /* a header that could not be parsed (skipped with a warning) */
	T2F_DROP_TRUNCATED,       /* input ended inside a sample */
	T2F_DROP_UNKNOWN_STACK,   /* a sample naming a stack the input never defined (nettrace) */
	T2F_DROP_FILTERED,        /* left out by --time, --pid, --tid or --comm
				   * (formats/sample_filter.h) */
	T2F_DROP__COUNT,
};
const char *t2f_drop_reason_name(enum t2f_drop_reason r);
void t2f_profile__count_read(struct t2f_profile *p);  /* one more sample seen in the input */
void t2f_profile__count_drop(struct t2f_profile *p, enum t2f_drop_reason r);
uint64_t t2f_profile__samples_read(const struct t2f_profile *p);
/* Samples added with weight 0 (a period of 0: writers that drop them need to know). */
uint64_t t2f_profile__weightless_samples(const struct t2f_profile *p);
uint64_t t2f_profile__samples_dropped(const struct t2f_profile *p, enum t2f_drop_reason r);
/* Whether a cell's weight passed UINT64_MAX and was capped there (every sum of cells' weights
 * is at most UINT64_MAX too: writers saturate their own sums). A merge gives what reading the
 * inputs whole gives; with repeated cells (t2f_profile__repeat_cells), it is said once all the
 * weights merged and added pass it. */
bool t2f_profile__weights_capped(const struct t2f_profile *p);
/* Samples added with time T2F_TIME_PAST (left out of the time span). */
uint64_t t2f_profile__times_past(const struct t2f_profile *p);
/* Samples added at the root (node 0): their call chain was empty, they count for their thread
 * alone (perf report counts them; folded output writes "comm WEIGHT"). */
uint64_t t2f_profile__chainless_samples(const struct t2f_profile *p);

/* What the recording says perf lost while recording: PERF_RECORD_LOST records ("lost N chunks"
 * in perf report) and the events they count, and the samples of PERF_RECORD_LOST_SAMPLES
 * records (perf report's "Total Lost Samples"). Counts saturate; a merge adds them up. */
struct t2f_lost {
	uint64_t records;   /* PERF_RECORD_LOST records */
	uint64_t events;    /* the events they say were lost */
	uint64_t samples;   /* PERF_RECORD_LOST_SAMPLES' samples */
	uint64_t first_ns, last_ns; /* the earliest and latest time of the records that said so,
				     * when they carry one (0: unknown); a merge widens them */
};
void t2f_profile__count_lost(struct t2f_profile *p, const struct t2f_lost *l);
const struct t2f_lost *t2f_profile__lost(const struct t2f_profile *p);

/* Appends src to dst as if src's input had been read into dst right after dst's own: what is new
 * to dst gets ids in src's id order, so reading consecutive parts of one input into separate
 * profiles and merging them in order gives the profile that reading it whole gives (same ids,
 * cell order, log order, counts). Merged: every string (in src's id order), threads (with their
 * input index), events (has_period or'ed; an event dst already has keeps its unit), frames,
 * nodes, module maps (appended), cells (samples and weights added; appended when dst repeats
 * cells: t2f_profile__repeat_cells), the kept waits (appended),
 * the sample log (moved into dst's when dst's log is enabled: src's log is then left empty), the
 * time span (and the time histogram, when both have one), samples read,
 * weightless and dropped per reason, the saturation counts. Nothing else of src changes; src
 * must not be dst, and its frames must not have been renamed (t2f_profile__set_frame_name): the
 * merge relies on src's frames being distinct, so that src's distinct stacks stay distinct in
 * dst. Its temporary id maps (one u32 per src id) are freed before returning. 0, -ENOMEM or
 * -T2F_ERR_LIMIT (dst then holds part of src: discard it). */
int t2f_profile__merge(struct t2f_profile *dst, struct t2f_profile *src);

/* A sample merged in between src's samples (t2f_profile__merge_at): it was added when src had
 * src_events events and src_cells cells, of event `event` (a name: unit nanoseconds, with a
 * period), with dst's node and thread ids. */
struct t2f_merge_sample {
	uint32_t src_events;
	size_t src_cells;
	const char *event;
	t2f_node_id node;
	t2f_thread_id thread;
	uint64_t weight, time_ns;
};

/* src ids to map to dst's (t2f_profile__merge_at): node[i] and thread[i], i < n, in place. */
struct t2f_merge_ids {
	t2f_node_id *node;
	t2f_thread_id *thread;
	size_t n;
};

/* t2f_profile__merge, with ins[0..n_ins) (in the order they were added: positions never
 * decreasing) added where they were: the profile is the one dst would be had they been added
 * to src at their places, given src has no sample of their threads before them (the log keeps
 * them first in their threads). ids (NULL: none) are mapped to dst's on success. */
int t2f_profile__merge_at(struct t2f_profile *dst, struct t2f_profile *src,
			  const struct t2f_merge_sample *ins, size_t n_ins,
			  const struct t2f_merge_ids *ids);

/* Stacks built anew (inlined functions: pipeline/inlines.h). t2f_profile__new_stacks gives an
 * empty profile that borrows p's strings (p must outlive it; a string interned in either is in
 * both) and has p's frame limit: build the new frames and stacks in it (t2f_profile__frame,
 * __child; p's string ids are valid there). t2f_profile__restack then gives p those frames and
 * stacks: each cell of p at node n moves to node map[n] of `stacks` (map has
 * t2f_profile__node_count(p) + 1 entries, map[0] = 0), cells that meet are added up (in p's
 * cell order: the first keeps its place), and the log follows its cells. The cells move within
 * p's own table (only those at a node that cells of two old nodes moved to are looked up), and
 * p is left without its lookup indexes, as after t2f_profile__drop_indexes (the next lookup
 * builds them). p keeps its strings, threads, events, module maps and counts. `stacks` is left
 * holding p's old frames and stacks: free it. `as_many`: the new frames and stacks will be
 * about as many as p's, or not many fewer, so their indexes are made for p's counts at once
 * instead of growing: the frames' index at once, the nodes' index by
 * t2f_profile__presize_nodes(stacks, n) before the first node (the memory then needed for
 * nothing else). Both 0 or -ENOMEM (restack: -T2F_ERR_LIMIT too, and p is then unchanged);
 * presize_nodes -EINVAL once stacks has a node. */
int t2f_profile__new_stacks(struct t2f_profile *p, bool as_many, struct t2f_profile **out);
/* Gives the memory of p's stack nodes below `below` back (whole pages of the node table: their
 * parents and frames read as 0 from then on), for a caller building new stacks that has read
 * those nodes for the last time: p is then fit for t2f_profile__restack, its cells' and counts'
 * reading and t2f_profile__free alone. */
void t2f_profile__forget_nodes_below(struct t2f_profile *p, t2f_node_id below);
int t2f_profile__presize_nodes(struct t2f_profile *stacks, size_t n);
int t2f_profile__restack(struct t2f_profile *p, struct t2f_profile *stacks,
			 const t2f_node_id *map);

/* What a profile's inputs say of themselves, for the pprof writer: the duration of each input
 * (its samples' span, or a pprof input's duration_nanos), summed (saturating), and the names of
 * the inputs it was made from, in order (a pprof input gives those it was made from). A merge
 * adds the durations and appends the names. add_input_name: 0 or -ENOMEM. */
void t2f_profile__add_duration(struct t2f_profile *p, uint64_t ns);
uint64_t t2f_profile__duration(const struct t2f_profile *p);
int t2f_profile__add_input_name(struct t2f_profile *p, t2f_str_id name);
size_t t2f_profile__input_name_count(const struct t2f_profile *p);
t2f_str_id t2f_profile__input_name_at(const struct t2f_profile *p, size_t i);

/* Frees the hash indexes of the frames, stack nodes and cells (their tables stay): writers read
 * the tables by id and need none, and on a whole-machine recording the three take about as much
 * memory as the cells. The next call that looks one of those tables up (t2f_profile__frame,
 * __child, __add_sample, __add_samples, a merge into p) builds them again, at a cost linear in
 * the tables, and gives the ids it would have given; but for a frame renamed
 * (t2f_profile__set_frame_name) before they were built again, which is then found under its new
 * name. */
void t2f_profile__drop_indexes(struct t2f_profile *p);

/* Memory in use by the model, for --stats and the benchmark (the lookup indexes counted as
 * built, also once dropped). */
size_t t2f_profile__bytes(const struct t2f_profile *p);

#endif
