/* readers/perf_data_conv_internal.h: the perf.data conversion's state, shared by
 * readers/perf_data_conv.c (setup, threads, mappings, frames, each record) and
 * readers/perf_data_queue.c (records queued and processed in time order, dwarf samples unwound
 * in batches); internal to readers/. */
#ifndef T2F_PERF_DATA_CONV_INTERNAL_H
#define T2F_PERF_DATA_CONV_INTERNAL_H

#include "formats/hashmap.h"
#include "readers/perf_data_conv.h"
#include "readers/perf_data_trace.h"
#include "readers/perf_data_stacks.h"

#define PDC_MAX_STACK 127u     /* perf script's default --max-stack (per part: call chain,
				* then unwound user frames) */
#define PDC_STACK_TOP 512u    /* bytes of a stack copy kept when the file holds it (the top
				* a shallow stack's walk reads) */
#define PDC_STACK_KEEP ((size_t)8 << 20) /* a queue buffer's pool bytes up to which stack copies
				* read in blocks are kept whole (perf_data_queue.c) */
#define PDC_KERNEL_PID (-1)    /* the frame cache's process for kernel ips */
#define PDC_L1_BITS 12         /* the frame cache's direct-mapped front: 4096 entries (128 KiB) */

/* A SAMPLE entry's sched_switch, with a derive stage (in fields samples do not use): ppid the
 * prev_pid, ptid the next_pid, flags PDC_SWITCH | the prev_state's enum t2f_cpu_state. */
#define PDC_SWITCH (1u << 31)

struct pdc_ev {                /* one queued record */
	uint64_t time;
	uint32_t type;
	uint16_t misc;
	bool exec, has_bid, has_chain;
	uint8_t bid_size;
	uint8_t bid[20];
	uint32_t attr;         /* SAMPLE: attr index */
	int32_t pid, tid, ppid, ptid;
	uint64_t ip, period;   /* SAMPLE */
	uint64_t start, len, pgoff; /* MMAP, MMAP2 */
	uint32_t prot, flags;
	uint64_t data, n;      /* pool index and length: callchain entries, or string bytes;
				* a SAMPLE's regs then stack copy follow its callchain */
	uint64_t abi;          /* SAMPLE kept for unwinding: regs_abi, its regs and stack bytes */
	uint32_t regs_nr, stack_len;
	uint64_t stack_off;    /* where the file holds the stack copy when only its first
				* top_len bytes are copied after the regs (a copy longer than
				* PDC_STACK_TOP, t2f_perf_data__file_offset), else 0 */
	uint32_t top_len;
	uint32_t slot;         /* its place in the unwind batch */
};

struct pdc_queue {
	struct pdc_ev *ev;
	size_t n, cap;
	uint64_t *pool;
	size_t pool_n, pool_cap;
};

struct pdc_order {
	uint64_t time;
	size_t idx;
};

struct pdc_attr {              /* per attr index */
	t2f_event_id event;    /* 0 until its first sample */
	bool period;           /* weight = the period */
	bool dwarf;            /* REGS_USER or STACK_USER */
	bool sched_switch;     /* sched:sched_switch with RAW, decoded (derive stage only) */
};

struct pdc_comm {
	int64_t tid;
	t2f_str_id comm;
};

struct pdc_kmap {              /* a kernel module's range */
	uint64_t start, end;
	t2f_str_id name;
};

struct pdc_bid {               /* a file's build-id, by path */
	t2f_str_id path, bid;
};

struct pdc_mod {               /* a module's frames, by its path's string id */
	bool known;            /* the rest is set */
	uint8_t kind;          /* enum t2f_frame_kind */
	bool has_addr;         /* its frames keep their address (opts.addr_wanted) */
	void *cls;       /* their class source (opts.class_of), or NULL */
	uint32_t ref[2];       /* else its one frame's reference, not unwound and unwound
				* (0: none yet) */
};

struct pdc_frame {             /* the frame cache's key and value */
	uint64_t ip;
	int64_t pid;
	uint32_t gen;
	uint8_t mode;
	bool unwound;          /* found by the unwinder (t2f_frame.unwound) */
	uint32_t frame;        /* its reference (perf_data_stacks.h), 0: none */
};

struct t2f_perf_data_conv {
	struct t2f_perf_data *pd;
	struct t2f_profile *p;
	struct t2f_diag *d;
	struct t2f_perf_data_conv_opts o;
	struct t2f_perf_data_conv_stats st;
	/* q[cur]: the records read since the last FINISHED_ROUND; q[!cur]: the round before's, of
	 * which those newer than `done` were not processed yet (perf_data_queue.c) */
	struct pdc_queue q[2];
	unsigned cur;
	uint64_t done;                 /* the last flush's limit */
	struct pdc_order *order;       /* the records due, sorted through order_tmp */
	size_t order_cap;
	struct pdc_order *order_tmp;
	size_t order_tmp_cap;
	uint64_t next_flush, max_time;
	uint64_t offset;               /* of the last record read (opts.tick) */
	uint32_t untick;               /* records read since the last tick */
	struct pdc_attr *attrs;
	size_t n_attrs;
	struct ps_maps *maps;
	struct pdc_comm *comms;
	uint32_t n_comms, cap_comms;
	struct t2f_hashmap *comm_ix;
	struct pdc_kmap *kmaps;
	uint32_t n_kmaps, cap_kmaps;
	uint64_t kstart, kend;         /* [kernel.kallsyms] */
	const char *kref;              /* "_text" or "_stext": the symbol its map's name gives, at
					* kref_addr then (the map's pgoff); NULL: none given */
	uint64_t kref_addr;
	uint32_t kgen;
	t2f_str_id s_kernel, s_unknown;
	struct pdc_mod *mods;          /* by module string id */
	size_t n_mods, cap_mods;
	struct pdc_frame *frames;      /* kernel (and other non-user) frames made */
	uint32_t n_frames, cap_frames;
	struct t2f_hashmap *frame_ix;
	struct pdc_frame *l1;          /* a copy of recently used entries, by hash (frame 0: empty):
					* the hot ips stay in cache, the big table is not probed */
	uint32_t *stack;               /* the sample's frame references, leaf first */
	size_t n_stack;
	struct t2f_pdc_stacks *stk;    /* where frames and samples go (to the profile) */
	struct t2f_perf_unwind_sample *batch; /* dwarf samples being unwound, and their ips */
	uint64_t *batch_ips;
	struct pdc_bid *bids;
	uint32_t n_bids, cap_bids;
	struct t2f_hashmap *bid_ix;
	struct pdc_bid *fids;          /* each path's BUILD_ID feature id, once looked up */
	uint32_t n_fids, cap_fids;
	struct t2f_hashmap *fid_ix;
	struct t2f_derive *derive;     /* the profile's derive stage (formats/derive.h), or NULL */
	struct t2f_pd_trace *trace;    /* then sched_switch payloads (perf_data_trace.h), or NULL */
	/* the last sample's thread */
	int64_t last_pid, last_tid;
	t2f_thread_id last_thread;
};

/* perf_data_conv.c: whether an MMAP/MMAP2 record maps executable memory; processes one record
 * taken from the queue in time order, `data` its words in its queue's pool (&pool[e->data]). */
bool t2f_pdc_exec(const struct pdc_ev *e);
int t2f_pdc_process(struct t2f_perf_data_conv *c, const struct pdc_ev *e, const uint64_t *data);

#endif
