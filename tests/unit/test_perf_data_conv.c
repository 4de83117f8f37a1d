/* tests/unit/test_perf_data_conv.c: perf.data records → profile (readers/perf_data_conv.h), on
 * files built in memory byte by byte, in both byte orders: frames per cpumode and mapping (file
 * offsets, [unknown], kernel), records taken in time order across FINISHED_ROUNDs (a COMM
 * between samples), the call-chain rules (markers, an unknown context, perf script's 127
 * frames), samples without a call chain, DWARF samples, LOST counts, events and weights; what
 * the unwind callback is given of hostile --call-graph dwarf samples (stack sizes and dyn_sizes
 * that disagree, no registers, 64 registers, fields past the record's end). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "formats/profile.h"
#include "readers/perf_data.h"
#include "readers/perf_data_conv.h"
#include "support/diag_sink.h"
#include "support/perf_data_bytes.h"

static void zeros(struct bb *b, size_t n)
{
	static const uint8_t z[256];

	assert_true(n <= sizeof(z));
	put(b, z, n);
}

/* ---- the file: attrs (no EVENT_DESC: perf's default names), the data section ---- */

#define ST (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD)
#define PID 100
#define TID 101

struct attr_spec {
	uint32_t type;
	uint64_t config, sample_type, regs_user;
	uint64_t id;
};

/* attr entries of 128 + 16 bytes; sample ids (IDENTIFIER is not set: with several attrs each
 * sample carries PERF_SAMPLE_ID, found in the attr's ids) */
static void build(struct bb *f, bool be, const struct attr_spec *a, size_t n_attrs,
		  const struct bb *data)
{
	uint64_t ids_at = 104 + 144 * n_attrs;

	memset(f, 0, sizeof(*f));
	f->be = be;
	put(f, be ? "2ELIFREP" : "PERFILE2", 8);
	u64(f, 104);
	u64(f, 144);
	u64(f, 104);
	u64(f, 144 * n_attrs);
	u64(f, 0);                   /* data: patched below */
	u64(f, 0);
	u64(f, 0);
	u64(f, 0);
	zeros(f, 32);                /* no feature */
	for (size_t i = 0; i < n_attrs; i++) {
		size_t start = f->n;
		uint8_t flags = (uint8_t)(1u << 2); /* bit 18 (sample_id_all): byte 2, bit 2 */

		u32(f, a[i].type);
		u32(f, 128);
		u64(f, a[i].config);
		u64(f, 4000);
		u64(f, a[i].sample_type | (n_attrs > 1 ? PERF_SAMPLE_ID : 0));
		u64(f, 0);
		zeros(f, 2);
		flags = be ? rev(flags) : flags;
		put(f, &flags, 1);
		zeros(f, 5);
		zeros(f, 32);
		u64(f, a[i].regs_user); /* 80: sample_regs_user */
		zeros(f, start + 128 - f->n);
		u64(f, ids_at + 8 * i);
		u64(f, 8);
	}
	for (size_t i = 0; i < n_attrs; i++)
		u64(f, a[i].id);
	set64(f, 40, f->n);
	set64(f, 48, data->n);
	put(f, data->b, data->n);
}

static void hdr(struct bb *r, uint32_t type, uint16_t misc, size_t size)
{
	u32(r, type);
	u16(r, misc);
	u16(r, (uint16_t)size);
}

static void str8(struct bb *r, const char *s, size_t len)
{
	size_t at = r->n;

	put(r, s, strlen(s));
	zeros(r, at + len - r->n);
}

/* the sample_id_all trailer of TID|TIME (|ID with several attrs) */
static void trailer(struct bb *r, uint32_t pid, uint32_t tid, uint64_t time, bool id)
{
	u32(r, pid);
	u32(r, tid);
	u64(r, time);
	if (id)
		u64(r, 1);
}

static void rec_comm(struct bb *r, const char *comm, uint64_t time, bool id)
{
	hdr(r, PERF_RECORD_COMM, 0, 8 + 8 + 16 + 16 + 8 * id);
	u32(r, PID);
	u32(r, TID);
	str8(r, comm, 16);
	trailer(r, PID, TID, time, id);
}

/* MMAP2 of /bin/spin: [0x400000, +0x2000) at file offset 0x1000, r-xp; with a build-id 20
 * bytes of 0xab when bid */
static void rec_mmap2(struct bb *r, uint64_t time, bool bid, bool id)
{
	hdr(r, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER | (bid ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0),
	    8 + 64 + 16 + 16 + 8 * id);
	u32(r, PID);
	u32(r, TID);
	u64(r, 0x400000);
	u64(r, 0x2000);
	u64(r, 0x1000);
	if (bid) {
		uint8_t x[24];

		memset(x, 0xab, sizeof(x));
		x[0] = 20;
		x[1] = x[2] = x[3] = 0;
		put(r, x, sizeof(x));
	} else {
		u32(r, 8);
		u32(r, 1);
		u64(r, 1234);
		u64(r, 1);
	}
	u32(r, 5);                   /* PROT_READ | PROT_EXEC */
	u32(r, 2);                   /* MAP_PRIVATE */
	str8(r, "/bin/spin", 16);
	trailer(r, PID, TID, time, id);
}

/* the kernel's MMAP: [kernel.kallsyms]_text at 0xffffffff81000000, 16 MiB */
static void rec_kmmap(struct bb *r, bool id)
{
	hdr(r, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL, 8 + 32 + 24 + 16 + 8 * id);
	u32(r, (uint32_t)-1);
	u32(r, 0);
	u64(r, 0xffffffff81000000ull);
	u64(r, 0x1000000);
	u64(r, 0xffffffff81000000ull);
	str8(r, "[kernel.kallsyms]_text", 24);
	trailer(r, (uint32_t)-1, 0, 0, id);
}

static void rec_round(struct bb *r)
{
	hdr(r, T2F_PERF_RECORD_FINISHED_ROUND, 0, 8);
}

/* a sample of ST (+ ID with id) + CALLCHAIN of n entries; the ip is chain's first non-marker */
static void rec_sample(struct bb *r, uint64_t time, uint64_t period, const uint64_t *chain,
		       size_t n, uint64_t id)
{
	uint64_t ip = 0;

	for (size_t i = 0; i < n && !ip; i++)
		ip = chain[i] < (uint64_t)PERF_CONTEXT_MAX ? chain[i] : 0;
	hdr(r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 8 + 8 + 8 + 8 + 8 * !!id + 8 + 8 + 8 * n);
	u64(r, ip);
	u32(r, PID);
	u32(r, TID);
	u64(r, time);
	if (id)
		u64(r, id);
	u64(r, period);
	u64(r, n);
	for (size_t i = 0; i < n; i++)
		u64(r, chain[i]);
}

/* ---- running the conversion ---- */

struct run {
	struct sink s;
	struct t2f_perf_data *pd;
	struct t2f_profile *p;
	struct t2f_perf_data_conv *c;
	struct t2f_perf_data_conv_stats st;
};

/* The conversion of f with opts o. */
static void convert_with(struct run *x, const struct bb *f,
			 const struct t2f_perf_data_conv_opts *o)
{
	memset(x, 0, sizeof(*x));
	sink_init(&x->s);
	assert_int_equal(t2f_perf_data__open_mem("t.data", f->b, f->n, x->s.d, &x->pd), 0);
	assert_int_equal(t2f_profile__new(&x->p), 0);
	assert_int_equal(t2f_profile__enable_log(x->p), 0);
	assert_int_equal(t2f_perf_data_conv__new(x->pd, x->p, x->s.d, o, &x->c), 0);
	assert_int_equal(t2f_perf_data_conv__run(x->c), 0);
	x->st = *t2f_perf_data_conv__stats(x->c);
}

static void convert(struct run *x, const struct bb *f)
{
	const struct t2f_perf_data_conv_opts o = { .input = 0 };

	convert_with(x, f, &o);
}

static void done(struct run *x)
{
	t2f_perf_data_conv__free(x->c);
	t2f_perf_data__free(x->pd);
	t2f_profile__free(x->p);
	sink_close(&x->s);
}

static const char *str(const struct run *x, t2f_str_id id)
{
	return id ? t2f_profile__str(x->p, id, NULL) : "-";
}

/* Log run i, the threads' runs taken a thread after another in thread-id order (the log
 * keeps each thread's in input order). */
static struct t2f_sample_run log_at(const struct t2f_profile *p, size_t i)
{
	for (t2f_thread_id t = 1; t <= t2f_profile__thread_count(p); t++) {
		size_t n = t2f_profile__thread_run_count(p, t);

		if (i < n)
			return t2f_profile__run_at(p, t, i);
		i -= n;
	}
	fail();
	return (struct t2f_sample_run){ 0 };
}

/* Log entry i's stack, leaf first: "module@0xaddr;..." ("kind" K for kernel frames). */
static const char *stack_of(const struct run *x, size_t i, char *buf, size_t size)
{
	struct t2f_sample_run s = log_at(x->p, i);
	size_t n = 0;

	buf[0] = '\0';
	for (t2f_node_id nd = s.node; nd; nd = t2f_profile__node_parent(x->p, nd)) {
		const struct t2f_frame *f = t2f_profile__frame_at(x->p, t2f_profile__node_frame(x->p, nd));

		n += (size_t)snprintf(buf + n, size - n, "%s%s%s@0x%llx", n ? ";" : "",
				      f->kind == T2F_FRAME_KERNEL ? "K:" : "", str(x, f->module),
				      (unsigned long long)f->addr);
		assert_true(n < size);
		assert_true(f->has_addr);
		assert_int_equal(f->name, 0);
	}
	return buf;
}

static const char *comm_of(const struct run *x, size_t i)
{
	struct t2f_sample_run s = log_at(x->p, i);

	return str(x, t2f_profile__thread_at(x->p, s.thread)->comm);
}

/* ---- tests ---- */

/* Round 1 holds samples at 10 and 30; round 2 a sample at 20 and the COMM at 15 that renames
 * the thread (older than round 1's latest: perf sorts them in at round 2's end); round 3 a
 * sample at 40. Chains: kernel + user frames, an address in no mapping. */
static void check_order_and_frames(bool be)
{
	const struct attr_spec a = { PERF_TYPE_SOFTWARE, 0, ST | PERF_SAMPLE_CALLCHAIN, 0, 1 };
	const uint64_t ch1[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000010ull, PERF_CONTEXT_USER,
				 0x400100, 0x401234, 0x999 };
	const uint64_t ch2[] = { PERF_CONTEXT_USER, 0x400200 };
	const uint64_t ch3[] = { PERF_CONTEXT_USER, 0x400300 }; /* not a run with ch2's */
	char buf[512];
	struct bb d = { .be = be }, f;
	struct run x;

	rec_kmmap(&d, false);
	rec_comm(&d, "spin", 1, false);
	rec_mmap2(&d, 2, true, false);
	rec_sample(&d, 10, 1000, ch1, 6, 0);
	rec_sample(&d, 30, 3000, ch3, 2, 0);
	rec_round(&d);
	rec_sample(&d, 20, 2000, ch2, 2, 0);
	rec_comm(&d, "renamed", 15, false);
	rec_round(&d);
	rec_sample(&d, 40, 4000, ch2, 2, 0);
	build(&f, be, &a, 1, &d);
	convert(&x, &f);

	assert_int_equal(t2f_profile__sample_log_count(x.p), 4);
	for (size_t i = 0; i < 4; i++) { /* in time order: weights 1000, 2000, 3000, 4000 */
		assert_int_equal(log_at(x.p, i).samples, 1);
		assert_int_equal(log_at(x.p, i).weight, 1000 * (i + 1));
	}
	assert_string_equal(comm_of(&x, 0), "spin");
	assert_string_equal(comm_of(&x, 1), "renamed");
	assert_string_equal(comm_of(&x, 3), "renamed");
	assert_string_equal(stack_of(&x, 0, buf, sizeof(buf)),
			    "K:[kernel.kallsyms]@0xffffffff81000010;/bin/spin@0x1100;"
			    "/bin/spin@0x2234;[unknown]@0x999");
	assert_string_equal(stack_of(&x, 1, buf, sizeof(buf)), "/bin/spin@0x1200");
	assert_int_equal(t2f_profile__thread_count(x.p), 2); /* (100, 101) as spin, renamed */
	assert_int_equal(t2f_profile__thread_at(x.p, 1)->pid, PID);
	assert_int_equal(t2f_profile__thread_at(x.p, 1)->tid, TID);
	/* one event, perf's default name for software event 0, in ns, with periods */
	assert_int_equal(t2f_profile__event_count(x.p), 1);
	assert_string_equal(str(&x, t2f_profile__event_at(x.p, 1)->name), "cpu-clock");
	assert_int_equal(t2f_profile__event_at(x.p, 1)->unit, T2F_UNIT_NANOSECONDS);
	assert_true(t2f_profile__event_at(x.p, 1)->has_period);
	/* the module maps as perf script --show-mmap-events prints them: the kernel's, then
	 * /bin/spin's with its build-id from the MMAP2 build-id form */
	assert_int_equal(t2f_profile__module_map_count(x.p), 2);
	assert_string_equal(str(&x, t2f_profile__module_map_at(x.p, 0)->path),
			    "[kernel.kallsyms]_text");
	assert_string_equal(str(&x, t2f_profile__module_map_at(x.p, 0)->prot), "x");
	assert_int_equal(t2f_profile__module_map_at(x.p, 0)->pid, -1);
	{
		const struct t2f_module_map *m = t2f_profile__module_map_at(x.p, 1);

		assert_string_equal(str(&x, m->path), "/bin/spin");
		assert_string_equal(str(&x, m->prot), "r-xp");
		assert_string_equal(str(&x, m->build_id), "abababababababababababababababababababab");
		assert_int_equal(m->start, 0x400000);
		assert_int_equal(m->pgoff, 0x1000);
	}
	assert_int_equal(t2f_profile__samples_read(x.p), 4);
	assert_int_equal(x.st.samples, 4);
	assert_int_equal(x.st.kernel_frames, 1);
	assert_int_equal(t2f_profile__lost(x.p)->records, 0);
	assert_int_equal(t2f_profile__lost(x.p)->events, 0);
	assert_int_equal(t2f_profile__lost(x.p)->samples, 0);
	assert_int_equal(x.st.dwarf, 0);
	assert_string_equal(sink_text(&x.s), "");
	done(&x);
}

static void test_order_and_frames_le(void **state)
{
	(void)state;
	check_order_and_frames(false);
}

static void test_order_and_frames_be(void **state)
{
	(void)state;
	check_order_and_frames(true);
}

/* Samples at times[0..n) (0: a FINISHED_ROUND instead), the k-th sample of weight k and an ip
 * of its own: processed as order[0..m) says (by weight). */
static void check_order(const uint64_t *times, size_t n, const uint64_t *order, size_t m)
{
	const struct attr_spec a = { PERF_TYPE_SOFTWARE, 0, ST | PERF_SAMPLE_CALLCHAIN, 0, 1 };
	struct bb d = { 0 }, f;
	struct run x;
	uint64_t w = 0;

	rec_mmap2(&d, 1, false, false);
	for (size_t i = 0; i < n; i++) {
		const uint64_t ch[] = { PERF_CONTEXT_USER, 0x400100 + 0x10 * i };

		if (times[i])
			rec_sample(&d, times[i], ++w, ch, 2, 0);
		else
			rec_round(&d);
	}
	build(&f, false, &a, 1, &d);
	convert(&x, &f);
	assert_int_equal(t2f_profile__sample_log_count(x.p), m);
	for (size_t i = 0; i < m; i++)
		assert_int_equal(log_at(x.p, i).weight, order[i]);
	done(&x);
}

/* One round of three ascending runs (as per-CPU buffers come), two records at one time: processed
 * by time, then in file order. */
static void test_round_runs(void **state)
{
	const uint64_t times[] = { 50, 60, 70, 10, 20, 30, 40, 60, 65, 0 };
	const uint64_t order[] = { 4, 5, 6, 7, 1, 2, 8, 9, 3 };

	(void)state;
	check_order(times, 10, order, 9);
}

/* Rounds whose records straddle each flush's limit (the greatest time read before the round
 * before's end): each record is processed once, by time, the older round's first at equal
 * times. Flushes at 50 (10, 20, 50, 50), 70 (55, 60, 60, 70) and the end (75, 80, 90). */
static void test_rounds_straddle(void **state)
{
	const uint64_t times[] = { 10, 50, 0, 20, 60, 70, 50, 0, 55, 60, 80, 0, 75, 90 };
	const uint64_t order[] = { 1, 3, 2, 6, 7, 4, 8, 5, 10, 9, 11 };

	(void)state;
	check_order(times, 14, order, 11);
}

/* An unknown context marker: perf discards the chain (an empty stack: kept as the thread alone,
 * counted); more than 127 ips: perf script's 127 kept (leaf first). */
static void test_chain_rules(void **state)
{
	const struct attr_spec a = { PERF_TYPE_SOFTWARE, 0, ST | PERF_SAMPLE_CALLCHAIN, 0, 1 };
	const uint64_t bad[] = { PERF_CONTEXT_USER, 0x400100, PERF_CONTEXT_GUEST, 0x400200 };
	uint64_t deep[200];
	struct bb d = { 0 }, f;
	struct run x;
	uint32_t depth;

	(void)state;
	for (size_t i = 0; i < 200; i++)
		deep[i] = 0x400000 + i;
	rec_mmap2(&d, 1, false, false);
	rec_sample(&d, 10, 1, bad, 4, 0);
	rec_sample(&d, 11, 1, deep, 200, 0);
	build(&f, false, &a, 1, &d);
	convert(&x, &f);
	assert_int_equal(t2f_profile__samples_read(x.p), 2);
	assert_int_equal(t2f_profile__samples_dropped(x.p, T2F_DROP_EMPTY_STACK), 0);
	assert_int_equal(t2f_profile__chainless_samples(x.p), 1);
	assert_int_equal(t2f_profile__sample_log_count(x.p), 2);
	assert_int_equal(log_at(x.p, 0).node, 0);
	depth = t2f_profile__node_depth(x.p, log_at(x.p, 1).node);
	assert_int_equal(depth, 127);
	/* the leaf is the chain's first ip: file offset 0x1000 */
	assert_int_equal(t2f_profile__frame_at(x.p, t2f_profile__node_frame(
				     x.p, log_at(x.p, 1).node))->addr, 0x1000);
	done(&x);
}

/* Two events: a tracepoint (weight 1, no period: perf script prints none) and task-clock;
 * samples found by their id; a LOST record counted; a sample without a call chain has its ip;
 * a DWARF attr's samples counted, an empty chain then giving the ip too. */
static void test_events_lost_dwarf(void **state)
{
	const struct attr_spec a[2] = {
		{ PERF_TYPE_TRACEPOINT, 7, ST, 0, 1 },
		{ PERF_TYPE_SOFTWARE, 1, ST | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
			PERF_SAMPLE_STACK_USER, 0, 2 },
	};
	struct bb d = { 0 }, f;
	struct run x;
	char buf[256];

	(void)state;
	rec_mmap2(&d, 1, false, true);
	/* tracepoint sample: no chain, period 5 (ignored: weight 1) */
	hdr(&d, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 8 + 40);
	u64(&d, 0x400300);
	u32(&d, PID);
	u32(&d, TID);
	u64(&d, 10);
	u64(&d, 1);
	u64(&d, 5);
	/* DWARF sample: chain of 0, regs abi 0, stack size 0 */
	hdr(&d, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 8 + 64);
	u64(&d, 0x400400);
	u32(&d, PID);
	u32(&d, TID);
	u64(&d, 11);
	u64(&d, 2);
	u64(&d, 7);
	u64(&d, 0);                  /* callchain nr */
	u64(&d, 0);                  /* regs abi: none */
	u64(&d, 0);                  /* stack size */
	/* LOST: id, lost, then the trailer */
	hdr(&d, PERF_RECORD_LOST, 0, 8 + 16 + 24);
	u64(&d, 2);
	u64(&d, 42);
	trailer(&d, PID, TID, 12, true);
	/* LOST_SAMPLES: lost, then the trailer; one a BPF filter's drops (misc bit 15): not lost */
	hdr(&d, PERF_RECORD_LOST_SAMPLES, 0, 8 + 8 + 24);
	u64(&d, 9);
	trailer(&d, PID, TID, 13, true);
	hdr(&d, PERF_RECORD_LOST_SAMPLES, 1u << 15, 8 + 8 + 24);
	u64(&d, 1000);
	trailer(&d, PID, TID, 14, true);
	build(&f, false, a, 2, &d);
	convert(&x, &f);
	assert_int_equal(t2f_profile__sample_log_count(x.p), 2);
	assert_int_equal(t2f_profile__event_count(x.p), 2);
	assert_string_equal(str(&x, t2f_profile__event_at(x.p, 1)->name), "2:7");
	assert_false(t2f_profile__event_at(x.p, 1)->has_period);
	assert_int_equal(log_at(x.p, 0).weight, 1);
	assert_string_equal(str(&x, t2f_profile__event_at(x.p, 2)->name), "task-clock");
	assert_true(t2f_profile__event_at(x.p, 2)->has_period);
	assert_int_equal(log_at(x.p, 1).weight, 7);
	assert_string_equal(stack_of(&x, 0, buf, sizeof(buf)), "/bin/spin@0x1300");
	assert_string_equal(stack_of(&x, 1, buf, sizeof(buf)), "/bin/spin@0x1400");
	assert_int_equal(t2f_profile__lost(x.p)->records, 1);
	assert_int_equal(t2f_profile__lost(x.p)->events, 42);
	assert_int_equal(t2f_profile__lost(x.p)->samples, 9);
	assert_int_equal(x.st.dwarf, 1);
	assert_int_equal(x.st.samples, 2);
	done(&x);
}

/* The data section cut inside a sample: the samples before it kept, the reader's warning names
 * the offset. */
static void test_truncated(void **state)
{
	const struct attr_spec a = { PERF_TYPE_SOFTWARE, 0, ST | PERF_SAMPLE_CALLCHAIN, 0, 1 };
	const uint64_t ch[] = { PERF_CONTEXT_USER, 0x400100 };
	struct bb d = { 0 }, f;
	struct run x;

	(void)state;
	rec_mmap2(&d, 1, false, false);
	rec_sample(&d, 10, 1, ch, 2, 0);
	rec_sample(&d, 11, 1, ch, 2, 0);
	build(&f, false, &a, 1, &d);
	f.n -= 10;                   /* the last sample loses 10 bytes */
	convert(&x, &f);
	assert_int_equal(t2f_profile__sample_log_count(x.p), 1);
	assert_int_equal(x.st.truncated_bytes, 64 - 10); /* the bytes of it that are there */
	assert_non_null(strstr(sink_text(&x.s), "t.data: offset "));
	assert_non_null(strstr(sink_text(&x.s), "truncated"));
	done(&x);
}

/* ---- --call-graph dwarf samples: what the unwind callback is given ---- */

#define ST_DWARF (ST | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)
#define X86_MASK 0xff0fffull          /* perf's default sample_regs_user for dwarf on x86_64 */

struct dwarf_rec {
	uint32_t tid;
	uint64_t time;
	const uint64_t *chain;
	size_t n;
	uint64_t abi;                 /* REGS_USER: abi, then nregs registers 0x7000 + i */
	uint32_t nregs;
	uint64_t stack_size;          /* STACK_USER: size, stack_bytes bytes (tid * 16 + i), */
	size_t stack_bytes;           /* then dyn_size unless the size is 0 */
	uint64_t dyn_size;
	bool no_time;                 /* the attr has no PERF_SAMPLE_TIME */
};

/* A SAMPLE of ST_DWARF: ip 0x400100 + tid, pid PID, period 1. Its offset in r. */
static size_t rec_dwarf(struct bb *r, const struct dwarf_rec *d)
{
	size_t at = r->n, size;

	hdr(r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 0);
	u64(r, 0x400100 + d->tid);
	u32(r, PID);
	u32(r, d->tid);
	if (!d->no_time)
		u64(r, d->time);
	u64(r, 1);
	u64(r, d->n);
	for (size_t i = 0; i < d->n; i++)
		u64(r, d->chain[i]);
	u64(r, d->abi);
	for (uint32_t i = 0; i < d->nregs; i++)
		u64(r, 0x7000 + i);
	u64(r, d->stack_size);
	for (size_t i = 0; i < d->stack_bytes; i++) {
		uint8_t c = (uint8_t)(d->tid * 16 + i);

		put(r, &c, 1);
	}
	if (d->stack_size)
		u64(r, d->dyn_size);
	size = r->n - at;
	assert_true(size <= UINT16_MAX && !r->be);
	r->b[at + 6] = (uint8_t)size;
	r->b[at + 7] = (uint8_t)(size >> 8);
	return at;
}

struct seen {                         /* what the unwind callback was given */
	size_t calls, n;
	struct {
		int64_t pid, tid;
		uint64_t abi, mask;
		uint32_t nr;
		uint64_t first_reg, last_reg;
		size_t stack_len;
	} s[1024];
};

/* Records each sample, checks its stack bytes (tid * 16 + k) and the mapping of its ip, finds
 * no frame. */
static int record_cb(void *ctx, const struct t2f_perf_data_conv *c,
		     struct t2f_perf_unwind_sample *s, size_t n)
{
	struct seen *w = ctx;
	struct t2f_perf_map m;

	w->calls++;
	assert_true(n >= 1 && n <= T2F_PERF_UNWIND_BATCH);
	for (size_t i = 0; i < n; i++) {
		assert_true(w->n < sizeof(w->s) / sizeof(w->s[0]));
		w->s[w->n].pid = s[i].pid;
		w->s[w->n].tid = s[i].tid;
		w->s[w->n].abi = s[i].abi;
		w->s[w->n].mask = s[i].mask;
		w->s[w->n].nr = s[i].nr;
		assert_true(s[i].nr > 0);
		w->s[w->n].first_reg = s[i].regs[0];
		w->s[w->n].last_reg = s[i].regs[s[i].nr - 1];
		w->s[w->n].stack_len = s[i].stack_len;
		for (size_t k = 0; k < s[i].stack_len; k++)
			assert_int_equal(s[i].stack[k], (uint8_t)(s[i].tid * 16 + (int64_t)k));
		assert_non_null(s[i].ips);
		assert_true(t2f_perf_data_conv__map(c, s[i].pid, 0x400100 + (uint64_t)s[i].tid,
						    &m));
		assert_int_equal(m.start, 0x400000);
		assert_int_equal(m.end, 0x402000);
		assert_int_equal(m.pgoff, 0x1000);
		assert_false(m.anon);
		s[i].n = 0;
		w->n++;
	}
	return 0;
}

static struct seen seen; /* too large for the stack */

static void convert_dwarf(struct run *x, const struct bb *f, struct seen *w)
{
	const struct t2f_perf_data_conv_opts o = { .unwind = record_cb, .unwind_ctx = w };

	memset(w, 0, sizeof(*w));
	convert_with(x, f, &o);
}

/* The i-th sample the callback was given: tid, stack length, x86_64 registers. */
static void expect_seen(const struct seen *w, size_t i, uint32_t tid, size_t stack_len)
{
	assert_true(i < w->n);
	assert_int_equal(w->s[i].pid, PID);
	assert_int_equal(w->s[i].tid, tid);
	assert_int_equal(w->s[i].abi, PERF_SAMPLE_REGS_ABI_64);
	assert_int_equal(w->s[i].mask, X86_MASK);
	assert_int_equal(w->s[i].nr, 20);
	assert_int_equal(w->s[i].first_reg, 0x7000);
	assert_int_equal(w->s[i].last_reg, 0x7000 + 19);
	assert_int_equal(w->s[i].stack_len, stack_len);
}

/* The stack copy handed over is min(size, dyn_size) bytes: dyn_size 48 of 64, 0, 4096 of 64, a
 * size of 0 (no dyn_size), 13 bytes. abi 0 (no registers): not unwound, the sample keeps its
 * call chain, or its ip. A STACK_USER size past the record's end: skipped, warned. */
static void test_dwarf_stacks(void **state)
{
	const struct attr_spec a = { PERF_TYPE_SOFTWARE, 0, ST_DWARF, X86_MASK, 1 };
	const uint64_t kchain[2] = { PERF_CONTEXT_KERNEL, 0xffffffff81000010ull };
	struct bb d = { 0 }, f;
	struct run x;
	struct seen *w = &seen;
	char buf[256], want[256];
	size_t bad;

	(void)state;
	rec_mmap2(&d, 1, false, false);
	rec_dwarf(&d, &(struct dwarf_rec){ 201, 10, NULL, 0, 2, 20, 64, 64, 48, false });
	rec_dwarf(&d, &(struct dwarf_rec){ 202, 11, NULL, 0, 2, 20, 64, 64, 0, false });
	rec_dwarf(&d, &(struct dwarf_rec){ 203, 12, NULL, 0, 2, 20, 64, 64, 4096, false });
	rec_dwarf(&d, &(struct dwarf_rec){ 204, 13, NULL, 0, 0, 0, 64, 64, 64, false });
	rec_dwarf(&d, &(struct dwarf_rec){ 205, 14, NULL, 0, 2, 20, 0, 0, 0, false });
	bad = rec_dwarf(&d, &(struct dwarf_rec){ 206, 15, NULL, 0, 2, 20, 4096, 64, 64, false });
	rec_dwarf(&d, &(struct dwarf_rec){ 207, 16, kchain, 2, 0, 0, 8, 8, 8, false });
	rec_dwarf(&d, &(struct dwarf_rec){ 208, 17, kchain, 2, 2, 20, 13, 13, 13, false });
	build(&f, false, &a, 1, &d);
	convert_dwarf(&x, &f, w);

	/* one batch: the samples after the MMAP2, those with registers */
	assert_int_equal(w->calls, 1);
	assert_int_equal(w->n, 5);
	expect_seen(w, 0, 201, 48);
	expect_seen(w, 1, 202, 0);
	expect_seen(w, 2, 203, 64);
	expect_seen(w, 3, 205, 0);
	expect_seen(w, 4, 208, 13);
	assert_int_equal(x.st.samples, 7);
	assert_int_equal(x.st.dwarf, 7);
	assert_int_equal(x.st.skipped, 1);
	assert_int_equal(t2f_profile__samples_read(x.p), 7);
	assert_int_equal(t2f_profile__sample_log_count(x.p), 7);
	snprintf(want, sizeof(want), "trace2flame: warning: t.data: offset %zu: SAMPLE record of "
		 "%d bytes ends inside its STACK_USER field: skipped\n", 256 + bad,
		 8 + 8 * 6 + 8 * 20 + 8 + 64 + 8);
	assert_string_equal(sink_text(&x.s), want);
	/* no user frame found: the ip alone, or the kernel chain alone */
	assert_string_equal(stack_of(&x, 0, buf, sizeof(buf)), "/bin/spin@0x11c9");
	assert_string_equal(stack_of(&x, 3, buf, sizeof(buf)), "/bin/spin@0x11cc");
	assert_string_equal(stack_of(&x, 5, buf, sizeof(buf)),
			    "[unknown]@0xffffffff81000010");
	assert_string_equal(stack_of(&x, 6, buf, sizeof(buf)),
			    "[unknown]@0xffffffff81000010");
	done(&x);

	/* without an unwind callback: nothing kept for unwinding, the same samples */
	convert(&x, &f);
	assert_int_equal(x.st.samples, 7);
	assert_int_equal(x.st.skipped, 1);
	assert_string_equal(stack_of(&x, 0, buf, sizeof(buf)), "/bin/spin@0x11c9");
	done(&x);
}

/* A sample_regs_user of 64 bits: 64 registers handed over; a record holding 20 of them is
 * skipped, warned. */
static void test_dwarf_regs_mask(void **state)
{
	const struct attr_spec a = { PERF_TYPE_SOFTWARE, 0, ST_DWARF, UINT64_MAX, 1 };
	struct bb d = { 0 }, f;
	struct run x;
	struct seen *w = &seen;
	char want[256];
	size_t bad;

	(void)state;
	rec_mmap2(&d, 1, false, false);
	rec_dwarf(&d, &(struct dwarf_rec){ 201, 10, NULL, 0, 2, 64, 8, 8, 8, false });
	bad = rec_dwarf(&d, &(struct dwarf_rec){ 202, 11, NULL, 0, 2, 20, 8, 8, 8, false });
	build(&f, false, &a, 1, &d);
	convert_dwarf(&x, &f, w);
	assert_int_equal(w->n, 1);
	assert_int_equal(w->s[0].tid, 201);
	assert_int_equal(w->s[0].mask, UINT64_MAX);
	assert_int_equal(w->s[0].nr, 64);
	assert_int_equal(w->s[0].last_reg, 0x7000 + 63);
	assert_int_equal(w->s[0].stack_len, 8);
	assert_int_equal(x.st.samples, 1);
	assert_int_equal(x.st.skipped, 1);
	snprintf(want, sizeof(want), "trace2flame: warning: t.data: offset %zu: SAMPLE record of "
		 "%d bytes ends inside its REGS_USER field: skipped\n", 256 + bad,
		 8 + 8 * 6 + 8 * 20 + 8 + 8 + 8);
	assert_string_equal(sink_text(&x.s), want);
	done(&x);
}

/* Dwarf samples kept across FINISHED_ROUNDs (their registers and stacks, of odd lengths too,
 * copied with them) are given in time order, one batch per run of samples; samples without a
 * time, one at a time as they come. */
static void test_dwarf_rounds(void **state)
{
	const struct attr_spec a = { PERF_TYPE_SOFTWARE, 0, ST_DWARF, X86_MASK, 1 };
	const struct attr_spec untimed = { PERF_TYPE_SOFTWARE, 0, ST_DWARF & ~PERF_SAMPLE_TIME,
					   X86_MASK, 1 };
	struct bb d = { 0 }, f;
	struct run x;
	struct seen *w = &seen;

	(void)state;
	rec_mmap2(&d, 1, false, false);
	rec_round(&d);
	rec_dwarf(&d, &(struct dwarf_rec){ 1, 30, NULL, 0, 2, 20, 16, 16, 13, false });
	rec_dwarf(&d, &(struct dwarf_rec){ 2, 10, NULL, 0, 2, 20, 64, 64, 40, false });
	rec_round(&d);               /* the MMAP2 processed; both samples kept for later */
	rec_dwarf(&d, &(struct dwarf_rec){ 3, 20, NULL, 0, 2, 20, 13, 13, 13, false });
	rec_round(&d);               /* 10, 20, 30 */
	rec_dwarf(&d, &(struct dwarf_rec){ 4, 40, NULL, 0, 2, 20, 0, 0, 0, false });
	build(&f, false, &a, 1, &d);
	convert_dwarf(&x, &f, w);
	assert_int_equal(w->calls, 2);
	assert_int_equal(w->n, 4);
	expect_seen(w, 0, 2, 40);
	expect_seen(w, 1, 3, 13);
	expect_seen(w, 2, 1, 13);
	expect_seen(w, 3, 4, 0);
	assert_int_equal(x.st.samples, 4);
	assert_string_equal(sink_text(&x.s), "");
	done(&x);

	memset(&d, 0, sizeof(d));
	hdr(&d, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, 8 + 64 + 16); /* no trailer */
	u32(&d, PID);
	u32(&d, TID);
	u64(&d, 0x400000);
	u64(&d, 0x2000);
	u64(&d, 0x1000);
	zeros(&d, 24);
	u32(&d, 5);
	u32(&d, 2);
	str8(&d, "/bin/spin", 16);
	for (uint32_t t = 5; t < 8; t++)
		rec_dwarf(&d, &(struct dwarf_rec){ t, 0, NULL, 0, 2, 20, 24, 24, 20 - t,
						   .no_time = true });
	build(&f, false, &untimed, 1, &d);
	f.b[104 + 42] = 0; /* no sample_id_all: the MMAP2 has no trailer */
	convert_dwarf(&x, &f, w);
	assert_int_equal(w->calls, 3);
	assert_int_equal(w->n, 3);
	for (uint32_t t = 5; t < 8; t++)
		expect_seen(w, t - 5, t, 20 - t);
	assert_int_equal(x.st.samples, 3);
	assert_string_equal(sink_text(&x.s), "");
	done(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_and_frames_le),
		cmocka_unit_test(test_order_and_frames_be),
		cmocka_unit_test(test_round_runs),
		cmocka_unit_test(test_rounds_straddle),
		cmocka_unit_test(test_chain_rules),
		cmocka_unit_test(test_events_lost_dwarf),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_dwarf_stacks),
		cmocka_unit_test(test_dwarf_regs_mask),
		cmocka_unit_test(test_dwarf_rounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
