/* readers/perf_data_conv.h: perf.data records (readers/perf_data.h) → the profile, as the perf
 * script reader would fill it from `perf script -F comm,pid,tid,time,event,ip,dso
 * --show-mmap-events` text of the same file with keep_addrs (--resymbolize):
 *
 * - frames: USER frames carry their mapping's path as module and the file offset
 *   (ip - map_start + map_pgoff, readers/perf_script_maps.h) as address; KERNEL frames
 *   "[kernel.kallsyms]" (or "[module]") and the absolute ip; anonymous mappings are JIT frames
 *   of "/tmp/perf-PID.map" with the absolute ip; an ip outside every mapping is "[unknown]"
 *   with the absolute ip. The kind follows the module name as the text reader's does. No frame
 *   is named here: re-symbolization names them.
 * - call chains as perf script prints them: PERF_CONTEXT_KERNEL/USER/HV markers set the kind
 *   of the ips after them and are skipped; at most 127 ips (perf script's --max-stack); an
 *   unknown marker empties the chain (perf discards it). A sample without a call chain has
 *   its ip as the only frame.
 * - module maps from MMAP/MMAP2 records, with the build-id of the MMAP2 build-id form or else
 *   the BUILD_ID feature's entry for the path.
 * - threads (pid, tid, comm at the sample's time: COMM records, FORK inheriting the parent's,
 *   ":TID" before any), one event per attr named as perf script names it without modifiers
 *   (cpu-clock and task-clock in ns), weights: the period for non-tracepoint events that
 *   record it (perf script prints it), else 1; sample times.
 * - records are processed in time order: they are queued and, at each FINISHED_ROUND, those
 *   not newer than the previous round's latest time are sorted (stable) and processed; the
 *   rest at the end (perf's ordered events). Records without a time are processed at once.
 * - samples recorded with --call-graph dwarf (REGS_USER/STACK_USER) keep the call chain they
 *   carry (the kernel part), followed by the user frames opts.unwind gives from their
 *   registers and stack copy (perf script's order; at most 127 of each part, as perf's
 *   --max-stack applies to each). Without opts.unwind, or when it gives nothing and the chain
 *   is empty, the sample ip alone. They are counted (stats.dwarf).
 *
 * Ownership: borrows the reader, profile and diag (they must outlive the conversion). Memory:
 * the queue of one round (records copied), a frame cache per distinct (process, mappings
 * generation, ip), two batches of samples handed over; nothing per record once warm. Errors:
 * those of t2f_perf_data__next (-T2F_ERR_FORMAT, -T2F_ERR_DECOMPRESS, -errno), -ENOMEM,
 * -T2F_ERR_LIMIT (a profile table full), or what opts.tick returned.
 * A cut data section is a warning of the reader (its offset), the records before it kept.
 * Not thread safe.
 */
#ifndef T2F_PERF_DATA_CONV_H
#define T2F_PERF_DATA_CONV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/diag.h"
#include "formats/profile.h"
#include "formats/sample_filter.h"
#include "readers/perf_data.h"

/* Whether a frame of this kind in module dso[0..len) keeps its address (else frames that
 * nothing will name share one frame per module); NULL: every frame keeps it. Asked once per
 * module: the answer is kept for the conversion. */
typedef bool (*t2f_perf_data_addr_fn)(void *ctx, enum t2f_frame_kind kind, const char *dso,
				      size_t len);

struct t2f_perf_data_conv;

#define T2F_PERF_UNWIND_MAX 127        /* user frames kept per sample (perf's --max-stack) */
#define T2F_PERF_UNWIND_BATCH 4096     /* samples per call at most */

/* A --call-graph dwarf sample's user state (borrowed for the call), and the frames found. */
struct t2f_perf_unwind_sample {
	int64_t pid, tid;
	uint64_t abi, mask;             /* PERF_SAMPLE_REGS_ABI_*, the attr's sample_regs_user */
	const uint64_t *regs;           /* mask's registers, lowest bit first */
	uint32_t nr;
	const uint8_t *stack;           /* the stack copy from the sampled SP: the bytes the
					 * kernel filled (dyn_size, at most the size recorded); NULL
					 * when only its top was kept (t2f_perf_data_conv__stack) */
	size_t stack_len;
	const uint8_t *top;             /* then its first top_len bytes (the top a shallow stack's
					 * walk reads), else NULL */
	size_t top_len;
	uint64_t stack_off;             /* then where the file holds the whole copy */
	uint64_t *ips;                  /* out: room for T2F_PERF_UNWIND_MAX frames, leaf first */
	size_t n;                       /* out: frames written */
};

/* Unwinds s[0..n): samples of consecutive SAMPLE records (no mapping changes between them),
 * each process's mappings at that point through t2f_perf_data_conv__map(c, ...), which may be
 * called from any thread during the call (nothing changes them then). 0 or -ENOMEM. */
typedef int (*t2f_perf_data_unwind_fn)(void *ctx, const struct t2f_perf_data_conv *c,
				       struct t2f_perf_unwind_sample *s, size_t n);

struct t2f_perf_data_conv_opts {
	uint32_t input;                  /* the threads' input index */
	t2f_perf_data_addr_fn addr_wanted;
	void *addr_ctx;
	t2f_perf_data_unwind_fn unwind;  /* NULL: user stacks of dwarf samples are not unwound,
					  * and their registers and stacks not kept */
	void *unwind_ctx;
	unsigned threads;                /* 2 or more: frames, stacks and weights are added to
					  * the profile on a thread of their own
					  * (perf_data_stacks.h; the profile is the same) */
	/* Called on the calling thread every T2F_PERF_TICK_RECORDS records read and before each
	 * run of samples is processed, with the file offset of the last record read; a nonzero
	 * return stops the conversion and is its result. NULL: none. */
	int (*tick)(void *ctx, uint64_t offset);
	void *tick_ctx;
	/* Samples this filter does not keep (their thread's pid, tid and comm at their time,
	 * their time) are counted as read and dropped (T2F_DROP_FILTERED), and nothing of them
	 * joins the profile. NULL: every sample is kept. Borrowed. */
	const struct t2f_sample_filter *filter;
	/* Classes of user frames: class_of gives the class source of a module's frames (they
	 * keep their address), once per module, on the calling thread (*src NULL: none; an error
	 * ends the conversion); class_key the key of a frame's address in it, on the thread that
	 * adds stacks (perf_data_stacks.h). Frames of a source with equal keys name alike: each
	 * new one is added to the profile, and stacks hold it as the first of its class. Unwound
	 * frames have none. NULL: no classes. */
	int (*class_of)(void *ctx, t2f_str_id module, const char *path, size_t len,
			void **src);
	bool (*class_key)(void *src, uint64_t addr, uint64_t *key);
	void *class_ctx;
	/* Of a dwarf sample's stack copy that the file holds, keep the top alone even where the
	 * file is read in blocks (its walk reads the rest from the file again): tests. */
	bool stack_tops;
};
#define T2F_PERF_TICK_RECORDS 256

/* A mapping of a process, as its MMAP/MMAP2 record gave it. */
struct t2f_perf_map {
	uint64_t start, end, pgoff;
	t2f_str_id path;                 /* as recorded ("[vdso]", "//anon", ...) */
	t2f_str_id build_id;             /* lowercase hex, 0 when the file has none */
	bool anon;                       /* anonymous executable memory (JIT): no file */
};

/* Bytes [from, to) (to <= s->stack_len) of the stack copy of s (s->stack NULL: its top alone was
 * kept) into buf[0..to - from), read again from the file: 0, -errno, or -T2F_ERR_FORMAT when the
 * file no longer holds them (it shrank). Thread safe while the conversion waits in its unwind
 * callback; reports nothing. */
int t2f_perf_data_conv__stack(const struct t2f_perf_data_conv *c,
			      const struct t2f_perf_unwind_sample *s, uint8_t *buf, size_t from,
			      size_t to);

/* The whole stack copy of s (s->stack NULL: its top alone was kept) where the file's bytes are
 * still mapped (t2f_perf_data__mapped), else NULL. Valid until the unwind callback returns;
 * thread safe while the conversion waits in it. */
const uint8_t *t2f_perf_data_conv__stack_mapped(const struct t2f_perf_data_conv *c,
						const struct t2f_perf_unwind_sample *s);

/* pid's latest mapping holding addr at the point the conversion reached; false when none.
 * Thread safe while the conversion waits in its unwind callback. */
bool t2f_perf_data_conv__map(const struct t2f_perf_data_conv *c, int64_t pid, uint64_t addr,
			     struct t2f_perf_map *out);

/* After a run with classes (opts.class_key): per frame id below *n, the frame the stacks hold
 * in its place (itself, or the first of its class), malloc'd (the caller's, given once); NULL
 * when no frame was read as another. */
t2f_frame_id *t2f_perf_data_conv__take_frame_as(struct t2f_perf_data_conv *c, size_t *n);

struct t2f_perf_data_conv_stats {
	uint64_t records;        /* records delivered by the reader */
	uint64_t samples;        /* SAMPLE records converted */
	uint64_t dwarf;          /* samples of --call-graph dwarf events (REGS/STACK_USER) */
	uint64_t skipped;        /* records the reader could not decode or attribute */
	uint64_t truncated_bytes;/* bytes of a record cut by the end of the data section */
	uint64_t probe_map_ns;   /* the reader's weighing of mapping against reading */
	uint64_t probe_read_ns;  /* (t2f_perf_data_stats); 0: not weighed */
	uint32_t mapped;         /* inputs whose data section was mapped by that weighing */
	uint64_t read_ahead;     /* data section blocks read on the reader's thread */
	uint64_t stacks_whole;   /* dwarf samples' stack copies, read in blocks, kept whole in
				  * memory until unwound (not read again from the file) */
	uint64_t kernel_frames;  /* distinct kernel frames (addresses) */
	uint64_t classed;        /* frames stacks hold as the first of their class */
};

/* 0, -ENOMEM. */
int t2f_perf_data_conv__new(struct t2f_perf_data *pd, struct t2f_profile *p, struct t2f_diag *d,
			    const struct t2f_perf_data_conv_opts *o,
			    struct t2f_perf_data_conv **out);
void t2f_perf_data_conv__free(struct t2f_perf_data_conv *c); /* NULL is fine */

/* Reads every record into the profile. 0 or a negative error (see above). */
int t2f_perf_data_conv__run(struct t2f_perf_data_conv *c);

const struct t2f_perf_data_conv_stats *t2f_perf_data_conv__stats(
	const struct t2f_perf_data_conv *c);

/* Where the recording's kernel sat: its kernel map's reference symbol (perf names the map
 * "[kernel.kallsyms]_text": "_text" or "_stext", a static string) and that symbol's address
 * then (the map's pgoff), from the last kernel map processed; false when none named one. */
bool t2f_perf_data_conv__kernel_ref(const struct t2f_perf_data_conv *c, const char **name,
				    uint64_t *addr);

/* The recording's kernel build-id (BUILD_ID feature, [kernel.kallsyms]) as lowercase hex into
 * hex[0..41); false when the file has none. */
bool t2f_perf_data_conv__kernel_build_id(const struct t2f_perf_data *pd, char hex[41]);

#endif
