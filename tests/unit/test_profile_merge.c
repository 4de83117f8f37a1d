/* tests/unit/test_profile_merge.c: formats/profile.c's merge — a pseudo-random stream of
 * profile operations read whole and read in parts then merged must give the same profile (ids,
 * strings, weights, the sample log, module maps, time span and accounting), with and without the
 * sample log; and a small merge checked by hand. Into a profile whose cells repeat, merges
 * append cells: added up again (t2f_profile__sums), they are what merging made. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "formats/bits.h"
#include "formats/diag.h"
#include "formats/profile.h"
#include "tests/unit/support/log_runs.h"
#include "tests/unit/support/profile_build.h"

/* ---- merging: a pseudo-random stream of profile operations, read whole vs. in parts ---- */

#define GEN_OPS 2500
#define GEN_MAX_DEPTH 14
#define GEN_FRAMES 48

enum gen_kind { GEN_SAMPLE, GEN_MAP, GEN_DROP, GEN_STRING };

struct gen_frame {
	unsigned name, module; /* string indexes; 0 = none */
	enum t2f_frame_kind kind;
	bool has_addr;
	enum t2f_space space;
	uint64_t addr;
};

struct gen_op {
	enum gen_kind kind;
	unsigned comm, event, depth, str;
	int64_t pid, tid;
	uint32_t input;
	bool period;
	uint64_t weight, time;
	unsigned stack[GEN_MAX_DEPTH]; /* indexes into the frame pool, root first */
	struct t2f_module_map map;     /* string fields hold string indexes */
	enum t2f_drop_reason reason;
};

struct gen {
	struct gen_frame frames[GEN_FRAMES];
	struct gen_op ops[GEN_OPS];
};

/* xorshift64*: the same stream for the same seed on every platform. */
static uint32_t rnd(uint64_t *s, uint32_t n)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return (uint32_t)((*s * 0x2545f4914f6cdd1dULL) >> 32) % n;
}

/* String number idx of a family; some carry a NUL byte inside. */
static t2f_str_id gen_str(struct t2f_profile *p, const char *family, unsigned idx)
{
	char buf[64];
	int n = snprintf(buf, sizeof(buf), "%s%u", family, idx);
	size_t len = (size_t)n;
	t2f_str_id id;

	if (idx % 7 == 3) {
		buf[len++] = '\0';
		buf[len++] = 'z';
	}
	assert_int_equal(t2f_profile__intern(p, buf, len, &id), 0);
	return id;
}

static void gen_frame_pool(struct gen *g, uint64_t *s)
{
	for (unsigned i = 0; i < GEN_FRAMES; i++) {
		struct gen_frame *f = &g->frames[i];

		f->name = rnd(s, 10) ? 1 + rnd(s, 36) : 0;
		f->module = rnd(s, 6) ? 1 + rnd(s, 5) : 0;
		f->kind = (enum t2f_frame_kind)rnd(s, 5);
		f->has_addr = rnd(s, 3) == 0;
		f->space = f->has_addr && rnd(s, 2) ? T2F_SPACE_ABS : T2F_SPACE_FILE_OFF;
		f->addr = f->has_addr ? 0x400000 + rnd(s, 64) * 16 : 0;
	}
}

static void gen_sample(struct gen_op *op, uint64_t *s, uint64_t time)
{
	op->kind = GEN_SAMPLE;
	op->pid = 100 + rnd(s, 4);
	op->tid = op->pid + rnd(s, 3);
	op->comm = rnd(s, 5);
	op->input = rnd(s, 2);
	op->event = rnd(s, 4);
	op->period = rnd(s, 3) == 0;
	/* now and then a weight the sample log keeps aside (2^32 - 1 and up) */
	op->weight = rnd(s, 50) ? 1 + rnd(s, 1000) : rnd(s, 2) ? UINT32_MAX - 1 + rnd(s, 3) : 0;
	op->time = rnd(s, 7) ? time : 0;
	op->depth = rnd(s, 12) ? 1 + rnd(s, GEN_MAX_DEPTH) : 0;
	/* narrow choices near the root so stacks share prefixes */
	for (unsigned d = 0; d < op->depth; d++)
		op->stack[d] = rnd(s, 3 + 3 * d);
}

static void gen_map(struct gen_op *op, uint64_t *s)
{
	op->kind = GEN_MAP;
	op->map = (struct t2f_module_map){
		.pid = rnd(s, 5) ? 100 + (int64_t)rnd(s, 4) : -1, .start = 0x10000ULL * (1 + rnd(s, 900)),
		.len = 0x1000ULL * (1 + rnd(s, 9)), .pgoff = 0x1000ULL * rnd(s, 4),
		.path = 1 + rnd(s, 8), .build_id = rnd(s, 4), .prot = rnd(s, 3),
		.has_segment = rnd(s, 3) == 0, .page_size = rnd(s, 2) ? 4096 : 0 };
	if (op->map.has_segment) {
		op->map.p_vaddr = 0x1000 + rnd(s, 4096);
		op->map.p_offset = rnd(s, 4096);
	}
}

static void gen_ops(struct gen *g, uint64_t seed)
{
	uint64_t s = seed * 0x9e3779b97f4a7c15ULL + 1;

	gen_frame_pool(g, &s);
	for (unsigned i = 0; i < GEN_OPS; i++) {
		struct gen_op *op = &g->ops[i];
		uint32_t r = rnd(&s, 40);

		memset(op, 0, sizeof(*op));
		if (r == 0) {
			gen_map(op, &s);
		} else if (r == 1) {
			op->kind = GEN_DROP;
			op->reason = (enum t2f_drop_reason)rnd(&s, T2F_DROP__COUNT);
		} else if (r == 2) {
			op->kind = GEN_STRING; /* a string nothing refers to */
			op->str = rnd(&s, 400);
		} else {
			gen_sample(op, &s, 1000ULL * i + rnd(&s, 999));
		}
	}
}

static t2f_frame_id gen_apply_frame(struct t2f_profile *p, const struct gen_frame *gf)
{
	struct t2f_frame f = { .name = gf->name ? gen_str(p, "fn", gf->name) : 0,
			       .module = gf->module ? gen_str(p, "/lib/m", gf->module) : 0,
			       .kind = gf->kind, .has_addr = gf->has_addr,
			       .space = gf->space, .addr = gf->addr };

	return add_frame(p, &f);
}

/* What a reader does for one sample: thread, event, stack root first, then the weight. */
static void gen_apply_sample(struct t2f_profile *p, const struct gen *g, const struct gen_op *op)
{
	t2f_thread_id t;
	t2f_event_id e;
	t2f_node_id n = 0;

	t2f_profile__count_read(p);
	assert_int_equal(t2f_profile__thread(p, op->pid, op->tid, gen_str(p, "comm", op->comm),
					     op->input, &t), 0);
	assert_int_equal(t2f_profile__event(p, gen_str(p, "ev", op->event),
					    (enum t2f_unit)(op->event % 2), &e), 0);
	if (op->period)
		t2f_profile__event_has_period(p, e);
	if (!op->depth) {
		t2f_profile__count_drop(p, T2F_DROP_EMPTY_STACK);
		return;
	}
	for (unsigned d = 0; d < op->depth; d++)
		n = child(p, n, gen_apply_frame(p, &g->frames[op->stack[d]]));
	assert_int_equal(t2f_profile__add_sample(p, n, t, e, op->weight, op->time), 0);
}

static void gen_apply_map(struct t2f_profile *p, const struct gen_op *op)
{
	struct t2f_module_map m = op->map;

	m.path = gen_str(p, "/usr/lib/lib", m.path);
	m.build_id = m.build_id ? gen_str(p, "beef", m.build_id) : 0;
	m.prot = m.prot ? gen_str(p, "r-xp", m.prot) : 0;
	assert_int_equal(t2f_profile__add_module_map(p, &m), 0);
}

/* Applies ops [from, to) to p. */
static void gen_apply(struct t2f_profile *p, const struct gen *g, unsigned from, unsigned to)
{
	for (unsigned i = from; i < to; i++) {
		const struct gen_op *op = &g->ops[i];

		switch (op->kind) {
		case GEN_SAMPLE: gen_apply_sample(p, g, op); break;
		case GEN_MAP: gen_apply_map(p, op); break;
		case GEN_DROP: t2f_profile__count_read(p); t2f_profile__count_drop(p, op->reason); break;
		case GEN_STRING: gen_str(p, "lone", op->str); break;
		}
	}
}

static struct t2f_profile *new_profile(bool log)
{
	struct t2f_profile *p = NULL;

	assert_int_equal(t2f_profile__new(&p), 0);
	if (log)
		assert_int_equal(t2f_profile__enable_log(p), 0);
	return p;
}

static void expect_same_strings(const struct t2f_profile *a, struct t2f_profile *b)
{
	uint32_t n = t2f_strtab__count(t2f_profile__strtab((struct t2f_profile *)a));
	size_t la, lb;

	assert_int_equal(t2f_strtab__count(t2f_profile__strtab(b)), n);
	for (t2f_str_id id = 1; id <= n; id++) {
		const char *sa = t2f_profile__str(a, id, &la), *sb = t2f_profile__str(b, id, &lb);

		assert_int_equal(la, lb);
		assert_memory_equal(sa, sb, la);
	}
}

static void expect_same_ids(const struct t2f_profile *a, const struct t2f_profile *b)
{
	assert_int_equal(t2f_profile__thread_count(a), t2f_profile__thread_count(b));
	for (t2f_thread_id id = 1; id <= t2f_profile__thread_count(a); id++) {
		const struct t2f_thread *ta = t2f_profile__thread_at(a, id);
		const struct t2f_thread *tb = t2f_profile__thread_at(b, id);

		assert_int_equal(ta->pid, tb->pid);
		assert_int_equal(ta->tid, tb->tid);
		assert_int_equal(ta->comm, tb->comm);
		assert_int_equal(ta->input, tb->input);
	}
	assert_int_equal(t2f_profile__event_count(a), t2f_profile__event_count(b));
	for (t2f_event_id id = 1; id <= t2f_profile__event_count(a); id++) {
		const struct t2f_event *ea = t2f_profile__event_at(a, id);
		const struct t2f_event *eb = t2f_profile__event_at(b, id);

		assert_int_equal(ea->name, eb->name);
		assert_int_equal(ea->unit, eb->unit);
		assert_int_equal(ea->has_period, eb->has_period);
	}
	assert_int_equal(t2f_profile__frame_count(a), t2f_profile__frame_count(b));
	for (t2f_frame_id id = 1; id <= t2f_profile__frame_count(a); id++) {
		const struct t2f_frame *fa = t2f_profile__frame_at(a, id);
		const struct t2f_frame *fb = t2f_profile__frame_at(b, id);

		assert_int_equal(fa->name, fb->name);
		assert_int_equal(fa->module, fb->module);
		assert_int_equal(fa->addr, fb->addr);
		assert_int_equal(fa->kind, fb->kind);
		assert_int_equal(fa->has_addr, fb->has_addr);
		assert_int_equal(fa->space, fb->space);
	}
	assert_int_equal(t2f_profile__node_count(a), t2f_profile__node_count(b));
	for (t2f_node_id id = 1; id <= t2f_profile__node_count(a); id++) {
		assert_int_equal(t2f_profile__node_parent(a, id), t2f_profile__node_parent(b, id));
		assert_int_equal(t2f_profile__node_frame(a, id), t2f_profile__node_frame(b, id));
		assert_int_equal(t2f_profile__node_depth(a, id), t2f_profile__node_depth(b, id));
	}
}

static void expect_same_span(const struct t2f_profile *a, const struct t2f_profile *b)
{
	uint64_t fa = 0, la = 0, fb = 0, lb = 0;
	bool ha = t2f_profile__time_span(a, &fa, &la), hb = t2f_profile__time_span(b, &fb, &lb);

	assert_int_equal(ha, hb);
	assert_int_equal(fa, fb);
	assert_int_equal(la, lb);
}

static void expect_same_weights(const struct t2f_profile *a, const struct t2f_profile *b)
{
	assert_int_equal(t2f_profile__cell_count(a), t2f_profile__cell_count(b));
	for (size_t i = 0; i < t2f_profile__cell_count(a); i++) {
		const struct t2f_cell *ca = t2f_profile__cell_at(a, i);
		const struct t2f_cell *cb = t2f_profile__cell_at(b, i);

		assert_int_equal(ca->node, cb->node);
		assert_int_equal(ca->thread, cb->thread);
		assert_int_equal(ca->event, cb->event);
		assert_int_equal(ca->samples, cb->samples);
		assert_int_equal(ca->weight, cb->weight);
	}
	assert_int_equal(t2f_profile__sample_log_count(a), t2f_profile__sample_log_count(b));
	assert_int_equal(t2f_profile__thread_count(a), t2f_profile__thread_count(b));
	for (t2f_thread_id t = 1; t <= t2f_profile__thread_count(a); t++) {
		struct log_runs ra = log_runs(a, t), rb = log_runs(b, t);
		struct t2f_sample_run sa, sb;
		uint64_t na, nb;

		assert_int_equal(t2f_profile__thread_sample_count(a, t),
				 t2f_profile__thread_sample_count(b, t));
		while (log_runs_next(&ra, &sa, &na)) {
			assert_true(log_runs_next(&rb, &sb, &nb));
			assert_int_equal(sa.node, sb.node);
			assert_int_equal(sa.thread, t);
			assert_int_equal(sb.thread, t);
			assert_int_equal(sa.event, sb.event);
			assert_int_equal(na, nb);
			assert_int_equal(sa.weight, sb.weight);
		}
		assert_false(log_runs_next(&rb, &sb, &nb));
	}
	expect_same_span(a, b);
	assert_int_equal(t2f_profile__samples_read(a), t2f_profile__samples_read(b));
	assert_int_equal(t2f_profile__weightless_samples(a), t2f_profile__weightless_samples(b));
	for (int r = 0; r < T2F_DROP__COUNT; r++)
		assert_int_equal(t2f_profile__samples_dropped(a, (enum t2f_drop_reason)r),
				 t2f_profile__samples_dropped(b, (enum t2f_drop_reason)r));
}

static void expect_same_maps(const struct t2f_profile *a, const struct t2f_profile *b)
{
	assert_int_equal(t2f_profile__module_map_count(a), t2f_profile__module_map_count(b));
	for (uint32_t i = 0; i < t2f_profile__module_map_count(a); i++) {
		const struct t2f_module_map *ma = t2f_profile__module_map_at(a, i);
		const struct t2f_module_map *mb = t2f_profile__module_map_at(b, i);

		assert_int_equal(ma->pid, mb->pid);
		assert_int_equal(ma->input, mb->input);
		assert_int_equal(ma->start, mb->start);
		assert_int_equal(ma->len, mb->len);
		assert_int_equal(ma->pgoff, mb->pgoff);
		assert_int_equal(ma->path, mb->path);
		assert_int_equal(ma->build_id, mb->build_id);
		assert_int_equal(ma->prot, mb->prot);
		assert_int_equal(ma->has_segment, mb->has_segment);
		assert_int_equal(ma->p_vaddr, mb->p_vaddr);
		assert_int_equal(ma->p_offset, mb->p_offset);
		assert_int_equal(ma->page_size, mb->page_size);
	}
}

/* Every table field by field; string ids are compared as ids, and their text once here. */
static void expect_same_profile(const struct t2f_profile *a, struct t2f_profile *b)
{
	expect_same_strings(a, b);
	expect_same_ids(a, b);
	expect_same_weights(a, b);
	expect_same_maps(a, b);
}

/* Reads ops [cuts[i], cuts[i+1]) into fresh profiles and merges them in order into dst, which
 * already holds ops [0, cuts[0]). */
static struct t2f_profile *merge_parts(const struct gen *g, const unsigned *cuts, size_t ncuts,
				       bool log)
{
	struct t2f_profile *dst = new_profile(log);

	gen_apply(dst, g, 0, cuts[0]);
	for (size_t i = 0; i + 1 < ncuts; i++) {
		struct t2f_profile *part = new_profile(log);

		gen_apply(part, g, cuts[i], cuts[i + 1]);
		assert_int_equal(t2f_profile__merge(dst, part), 0);
		t2f_profile__free(part);
	}
	return dst;
}

static void check_merge_cuts(const struct gen *g, const struct t2f_profile *whole,
			     const unsigned *cuts, size_t ncuts, bool log)
{
	struct t2f_profile *merged = merge_parts(g, cuts, ncuts, log);

	expect_same_profile(whole, merged);
	t2f_profile__free(merged);
}

static void check_merge_seed(uint64_t seed, bool log)
{
	static const unsigned cuts[][4] = {
		{ 0, 1, GEN_OPS },                       /* 2 parts */
		{ 0, GEN_OPS / 2, GEN_OPS },
		{ 0, GEN_OPS - 1, GEN_OPS },
		{ 0, GEN_OPS / 4, GEN_OPS / 2, GEN_OPS }, /* 3 parts */
		{ 0, 7, GEN_OPS - 7, GEN_OPS },
		{ 0, GEN_OPS / 3, GEN_OPS / 3, GEN_OPS }, /* an empty middle part */
		{ 0, 0, GEN_OPS, GEN_OPS },               /* empty first and last parts */
		{ GEN_OPS / 5, GEN_OPS / 2, GEN_OPS, 0 }, /* dst already holds the first fifth */
	};
	static const size_t ncuts[] = { 3, 3, 3, 4, 4, 4, 4, 3 };
	struct gen *g = calloc(1, sizeof(*g));
	struct t2f_profile *whole = new_profile(log);

	assert_non_null(g);
	gen_ops(g, seed);
	gen_apply(whole, g, 0, GEN_OPS);
	/* the stream exercises what it should */
	assert_true(t2f_profile__node_count(whole) > 500);
	assert_true(t2f_profile__cell_count(whole) > 500);
	assert_true(t2f_profile__module_map_count(whole) > 20);
	assert_true(log ? t2f_profile__sample_log_count(whole) > t2f_profile__cell_count(whole)
			: t2f_profile__sample_log_count(whole) == 0);
	for (size_t i = 0; i < sizeof(ncuts) / sizeof(ncuts[0]); i++)
		check_merge_cuts(g, whole, cuts[i], ncuts[i], log);
	t2f_profile__free(whole);
	free(g);
}

/* By hand: what is new to dst is numbered after dst's own, in src's order; what dst has is
 * reused; src stays as it was. */
static void test_merge_small(void **state)
{
	struct t2f_profile *dst = *state, *src = new_profile(true);
	struct t2f_frame fa = { .name = str(dst, "a") }, sb = { .name = str(src, "b") };
	struct t2f_frame sa = { .name = str(src, "a") };
	t2f_thread_id t = thread(dst, 1, 1, "x", 0), ts = thread(src, 2, 2, "y", 1);
	t2f_node_id na = child(dst, 0, add_frame(dst, &fa)), sna, snab;
	t2f_event_id e, es;

	assert_int_equal(t2f_profile__event(dst, str(dst, "cpu-clock"), T2F_UNIT_NANOSECONDS, &e), 0);
	assert_int_equal(t2f_profile__add_sample(dst, na, t, e, 5, 0), 0);
	/* src: "b", "a", "y", "cpu-clock" (as a count), stack a;b and a */
	snab = child(src, child(src, 0, add_frame(src, &sa)), add_frame(src, &sb));
	sna = t2f_profile__node_parent(src, snab);
	assert_int_equal(t2f_profile__event(src, str(src, "cpu-clock"), T2F_UNIT_COUNT, &es), 0);
	t2f_profile__event_has_period(src, es);
	assert_int_equal(t2f_profile__add_sample(src, snab, ts, es, 7, 70), 0);
	assert_int_equal(t2f_profile__add_sample(src, sna, ts, es, 3, 80), 0);
	t2f_profile__count_read(src);

	assert_int_equal(t2f_profile__merge(dst, src), 0);
	/* strings: a=1 x=2 cpu-clock=3 from dst, then b=4 y=5 */
	assert_int_equal(t2f_strtab__count(t2f_profile__strtab(dst)), 5);
	assert_string_equal(t2f_profile__str(dst, 4, NULL), "b");
	assert_string_equal(t2f_profile__str(dst, 5, NULL), "y");
	assert_int_equal(t2f_profile__thread_count(dst), 2);
	assert_int_equal(t2f_profile__thread_at(dst, 2)->comm, 5);
	assert_int_equal(t2f_profile__thread_at(dst, 2)->input, 1);
	/* the event is dst's, with dst's unit, and now has a period */
	assert_int_equal(t2f_profile__event_count(dst), 1);
	assert_int_equal(t2f_profile__event_at(dst, 1)->unit, T2F_UNIT_NANOSECONDS);
	assert_true(t2f_profile__event_at(dst, 1)->has_period);
	/* node a is reused, a;b is node 2 */
	assert_int_equal(t2f_profile__node_count(dst), 2);
	assert_int_equal(t2f_profile__node_parent(dst, 2), na);
	assert_int_equal(t2f_profile__node_depth(dst, 2), 2);
	assert_int_equal(t2f_profile__frame_at(dst, t2f_profile__node_frame(dst, 2))->name, 4);
	assert_int_equal(t2f_profile__cell_count(dst), 3);
	assert_int_equal(t2f_profile__cell_at(dst, 1)->node, 2);
	assert_int_equal(t2f_profile__cell_at(dst, 2)->node, na);
	assert_int_equal(t2f_profile__cell_at(dst, 2)->thread, 2);
	assert_int_equal(t2f_profile__cell_at(dst, 2)->weight, 3);
	/* dst's log is off: nothing appended */
	assert_int_equal(t2f_profile__sample_log_count(dst), 0);
	assert_int_equal(t2f_profile__samples_read(dst), 1);
	/* src unchanged */
	assert_int_equal(t2f_strtab__count(t2f_profile__strtab(src)), 4);
	assert_int_equal(t2f_profile__cell_count(src), 2);
	assert_int_equal(t2f_profile__sample_log_count(src), 2);
	assert_int_equal(t2f_profile__event_at(src, es)->unit, T2F_UNIT_COUNT);

	/* an empty profile merges as nothing */
	t2f_profile__free(src);
	src = new_profile(false);
	assert_int_equal(t2f_profile__merge(dst, src), 0);
	assert_int_equal(t2f_strtab__count(t2f_profile__strtab(dst)), 5);
	assert_int_equal(t2f_profile__node_count(dst), 2);
	assert_int_equal(t2f_profile__cell_count(dst), 3);
	t2f_profile__free(src);
}

/* Folded threads: samples of threads of one comm and input share the first such thread's cell,
 * in the profile and through a merge (src folded or not); threads keep their own ids. */
static void test_fold_threads(void **state)
{
	struct t2f_profile *dst, *src;
	t2f_thread_id t1, t2, t3, t4, s1, s2, s3;
	t2f_node_id n;
	t2f_event_id e;

	(void)state;
	assert_int_equal(t2f_profile__new(&dst), 0);
	t1 = thread(dst, 1, 1, "sh", 0);
	assert_int_equal(t2f_profile__fold_threads(dst), 0); /* folds the threads it has too */
	assert_true(t2f_profile__folds_threads(dst));
	assert_int_equal(t2f_profile__enable_log(dst), 0); /* its runs stay per thread */
	t2f_profile__event(dst, str(dst, "cpu-clock"), T2F_UNIT_NANOSECONDS, &e);
	n = child(dst, 0, frame(dst, "main", NULL, T2F_FRAME_USER, 0));
	t2 = thread(dst, 2, 2, "cc", 0);
	t3 = thread(dst, 3, 3, "sh", 0);
	t4 = thread(dst, 4, 4, "sh", 1); /* another input */
	assert_int_equal(t2f_profile__thread_count(dst), 4);
	assert_int_equal(t2f_profile__add_sample(dst, n, t3, e, 10, 0), 0);
	assert_int_equal(t2f_profile__add_sample(dst, n, t1, e, 20, 0), 0);
	assert_int_equal(t2f_profile__add_sample(dst, n, t2, e, 30, 0), 0);
	assert_int_equal(t2f_profile__add_sample(dst, n, t4, e, 40, 0), 0);
	assert_int_equal(t2f_profile__cell_count(dst), 3);
	assert_int_equal(t2f_profile__cell_at(dst, 0)->thread, t1);
	assert_int_equal(t2f_profile__cell_at(dst, 0)->samples, 2);
	assert_int_equal(t2f_profile__cell_at(dst, 0)->weight, 30);
	assert_int_equal(t2f_profile__cell_at(dst, 1)->thread, t2);
	assert_int_equal(t2f_profile__cell_at(dst, 2)->thread, t4);
	assert_int_equal(t2f_profile__sample_log_count(dst), 4);
	assert_int_equal(t2f_profile__thread_run_count(dst, t1), 1);
	assert_int_equal(t2f_profile__thread_run_count(dst, t3), 1);
	assert_int_equal(t2f_profile__run_at(dst, t3, 0).thread, t3); /* its cell's is t1 */
	assert_int_equal(t2f_profile__run_at(dst, t3, 0).weight, 10);
	assert_int_equal(t2f_profile__run_at(dst, t1, 0).weight, 20);
	assert_int_equal(t2f_profile__run_at(dst, t3, 0).node, n);

	/* src, not folded: "cc" and "sh" fold into dst's, "as" is new */
	assert_int_equal(t2f_profile__new(&src), 0);
	s1 = thread(src, 5, 5, "cc", 0);
	s2 = thread(src, 6, 6, "as", 0);
	s3 = thread(src, 7, 7, "sh", 0);
	t2f_profile__event(src, str(src, "cpu-clock"), T2F_UNIT_NANOSECONDS, &e);
	n = child(src, 0, frame(src, "main", NULL, T2F_FRAME_USER, 0));
	assert_int_equal(t2f_profile__add_sample(src, n, s1, e, 1, 0), 0);
	assert_int_equal(t2f_profile__add_sample(src, n, s2, e, 2, 0), 0);
	assert_int_equal(t2f_profile__add_sample(src, n, s3, e, 4, 0), 0);
	assert_int_equal(t2f_profile__merge(dst, src), 0);
	assert_int_equal(t2f_profile__thread_count(dst), 7);
	assert_int_equal(t2f_profile__cell_count(dst), 4);
	assert_int_equal(t2f_profile__cell_at(dst, 0)->weight, 34);
	assert_int_equal(t2f_profile__cell_at(dst, 1)->weight, 31);
	assert_int_equal(t2f_profile__cell_at(dst, 3)->thread, 6); /* "as": dst's thread 6 */
	assert_int_equal(t2f_profile__cell_at(dst, 3)->weight, 2);
	t2f_profile__free(src);
	t2f_profile__free(dst);
}

/* One sample of each of src's threads at a stack dst lacks, merged into a folding dst: the cells
 * the merge adds for nodes new to dst are counted as dst folds (src's threads of one comm in one
 * cell when src does not fold; each comm its own cell when src folds). */
static void check_fold_new_node(bool src_folds)
{
	struct t2f_profile *dst, *src;
	t2f_thread_id s1, s2, s3;
	t2f_node_id n;
	t2f_event_id e;

	assert_int_equal(t2f_profile__new(&dst), 0);
	thread(dst, 1, 1, "sh", 0);
	assert_int_equal(t2f_profile__fold_threads(dst), 0);
	n = child(dst, 0, frame(dst, "main", NULL, T2F_FRAME_USER, 0));
	assert_int_equal(t2f_profile__node_count(dst), 1);

	assert_int_equal(t2f_profile__new(&src), 0);
	if (src_folds)
		assert_int_equal(t2f_profile__fold_threads(src), 0);
	s1 = thread(src, 5, 5, "sh", 0);
	s2 = thread(src, 6, 6, "sh", 0);
	s3 = thread(src, 7, 7, "cc", 0);
	t2f_profile__event(src, str(src, "cpu-clock"), T2F_UNIT_NANOSECONDS, &e);
	n = child(src, child(src, 0, frame(src, "main", NULL, T2F_FRAME_USER, 0)),
		  frame(src, "work", NULL, T2F_FRAME_USER, 0));
	assert_int_equal(t2f_profile__add_sample(src, n, s1, e, 1, 0), 0);
	assert_int_equal(t2f_profile__add_sample(src, n, s3, e, 2, 0), 0);
	assert_int_equal(t2f_profile__add_sample(src, n, s2, e, 4, 0), 0);
	assert_int_equal(t2f_profile__cell_count(src), src_folds ? 2 : 3);
	assert_int_equal(t2f_profile__merge(dst, src), 0);
	assert_int_equal(t2f_profile__node_count(dst), 2);
	assert_int_equal(t2f_profile__cell_count(dst), 2);
	assert_int_equal(t2f_profile__cell_at(dst, 0)->node, 2);
	assert_int_equal(t2f_profile__cell_at(dst, 0)->thread, 1); /* dst's first "sh" */
	assert_int_equal(t2f_profile__cell_at(dst, 0)->samples, 2);
	assert_int_equal(t2f_profile__cell_at(dst, 0)->weight, 5);
	assert_int_equal(t2f_profile__cell_at(dst, 1)->node, 2);
	assert_int_equal(t2f_profile__cell_at(dst, 1)->thread, 4); /* "cc": dst's thread 4 */
	assert_int_equal(t2f_profile__cell_at(dst, 1)->weight, 2);
	t2f_profile__free(src);
	t2f_profile__free(dst);
}

static void test_fold_new_node(void **state)
{
	(void)state;
	check_fold_new_node(false);
	check_fold_new_node(true);
}

/* check(seed, log) for seeds 1-3, with and without the sample log. */
static void for_seeds(void (*check)(uint64_t seed, bool log))
{
	for (uint64_t seed = 1; seed <= 3; seed++) {
		check(seed, false);
		check(seed, true);
	}
}

static void test_merge_parts_equal_whole(void **state)
{
	(void)state;
	for_seeds(check_merge_seed);
}

/* One sample at main of each of threads [from, to), into a new profile merged into dst. */
static void merge_threads_at_main(struct t2f_profile *dst, int from, int to)
{
	struct t2f_profile *src = new_profile(false);
	t2f_node_id n = child(src, 0, frame(src, "main", NULL, T2F_FRAME_USER, 0));
	t2f_event_id e;

	assert_int_equal(t2f_profile__event(src, str(src, "cpu-clock"), T2F_UNIT_NANOSECONDS, &e),
			 0);
	for (int t = from; t < to; t++)
		assert_int_equal(t2f_profile__add_sample(src, n, thread(src, t, t, "w", 0), e, 1, 0),
				 0);
	assert_int_equal(t2f_profile__merge(dst, src), 0);
	t2f_profile__free(src);
}

/* The cells of threads new to dst go in unindexed (profile_defer.c) and are found when their
 * thread comes back: in the next merge, or merges later (its run read again and again, then
 * indexed whole), or in a sample added to dst itself. Every thread keeps its one cell. */
static void test_merge_deferred_cells(void **state)
{
	struct t2f_profile *dst = new_profile(false);
	t2f_event_id e;

	(void)state;
	merge_threads_at_main(dst, 1, 7);      /* threads 1-6, new */
	for (int t = 1; t <= 5; t++)           /* each back in a merge of its own */
		merge_threads_at_main(dst, t, t + 1);
	merge_threads_at_main(dst, 7, 9);      /* threads 7 and 8, new */
	assert_int_equal(t2f_profile__event(dst, str(dst, "cpu-clock"), T2F_UNIT_NANOSECONDS, &e),
			 0);
	assert_int_equal(t2f_profile__add_sample(dst, 1, 7, e, 1, 0), 0);
	assert_int_equal(t2f_profile__node_count(dst), 1);
	assert_int_equal(t2f_profile__thread_count(dst), 8);
	assert_int_equal(t2f_profile__cell_count(dst), 8);
	for (size_t i = 0; i < 8; i++) {
		const struct t2f_cell *c = t2f_profile__cell_at(dst, i);

		assert_int_equal(c->thread, i + 1);
		assert_int_equal(c->samples, i < 5 || i == 6 ? 2 : 1);
	}
	t2f_profile__free(dst);
}

#define MANY_PARTS 24

/* Many small parts: the first part's threads are all new to the empty dst, so their cells are
 * appended unindexed (profile_defer.c), and they come back part after part, some at once, some
 * later, so that their run is read again and again until it is indexed whole. The last ops
 * are then added to the merged profile itself, as a reader adds samples: a lookup of a thread
 * whose cells are still unindexed. */
static void check_merge_many(uint64_t seed, bool log)
{
	struct gen *g = calloc(1, sizeof(*g));
	struct t2f_profile *whole = new_profile(log), *merged;
	unsigned cuts[MANY_PARTS + 1], last = GEN_OPS - GEN_OPS / 10;

	assert_non_null(g);
	gen_ops(g, seed);
	gen_apply(whole, g, 0, GEN_OPS);
	for (unsigned i = 0; i <= MANY_PARTS; i++)
		cuts[i] = i == 0 ? 0 : i == 1 ? 3 : 3 + (last - 3) * (i - 1) / (MANY_PARTS - 1);
	merged = merge_parts(g, cuts, MANY_PARTS + 1, log);
	gen_apply(merged, g, last, GEN_OPS);
	expect_same_profile(whole, merged);
	t2f_profile__free(merged);
	t2f_profile__free(whole);
	free(g);
}

static void test_merge_many_parts(void **state)
{
	(void)state;
	for_seeds(check_merge_many);
}

/* ---- cells that repeat (t2f_profile__repeat_cells, t2f_profile__sums) ---- */

/* The first cells of rep, with their repeats added up (t2f_profile__sums), are whole's cells,
 * in order; only threads flagged (t2f_profile__cells_repeat) have repeats. *mine is made when
 * nothing began the sums. */
static void expect_sums_whole(const struct t2f_profile *whole, const struct t2f_profile *rep,
			      bool begun)
{
	const struct t2f_cell_sums *s = NULL;
	struct t2f_cell_sums *mine = NULL;
	const uint64_t *repeats, *repeated;
	size_t j = 0, skipped = 0;

	assert_int_equal(t2f_profile__sums(rep, &s, &mine), 0);
	assert_int_equal(mine == NULL, begun);
	repeats = t2f_cell_sums__repeats(s);
	repeated = t2f_cell_sums__repeated(s);
	for (size_t i = 0; i < t2f_profile__cell_count(rep); i++) {
		const struct t2f_cell *c = t2f_profile__cell_at(rep, i), *w;
		uint64_t v[2] = { c->samples, c->weight };

		if (t2f_bit_get(repeats, i)) {
			assert_true(t2f_profile__cells_repeat(rep, c->thread));
			assert_false(t2f_bit_get(repeated, i));
			skipped++;
			continue;
		}
		if (t2f_bit_get(repeated, i))
			t2f_cell_sums__add(s, (uint32_t)i, v);
		assert_true(j < t2f_profile__cell_count(whole));
		w = t2f_profile__cell_at(whole, j++);
		assert_int_equal(c->node, w->node);
		assert_int_equal(c->thread, w->thread);
		assert_int_equal(c->event, w->event);
		assert_int_equal(v[0], w->samples);
		assert_int_equal(v[1], w->weight);
	}
	assert_int_equal(j, t2f_profile__cell_count(whole));
	assert_true(skipped > 0); /* the stream's threads come back: the check checks something */
	t2f_cell_sums__free(mine);
}

/* The stream read in many parts merged into a profile whose cells repeat, its last ops added
 * to it directly: the same ids as read whole, and its cells what reading whole made once their
 * repeats are added up; the sums made on their thread or on the caller's, and made again when
 * a merge comes after them. */
static void check_repeat_many(uint64_t seed, bool begin)
{
	struct gen *g = calloc(1, sizeof(*g));
	struct t2f_profile *whole = new_profile(false), *rep = new_profile(false), *part;
	unsigned last = GEN_OPS - GEN_OPS / 10, prev = 0;

	assert_non_null(g);
	gen_ops(g, seed);
	gen_apply(whole, g, 0, GEN_OPS);
	t2f_profile__repeat_cells(rep);
	for (unsigned i = 1; i <= MANY_PARTS; i++) {
		unsigned to = 3 + (last - 3) * i / MANY_PARTS;

		if (i == MANY_PARTS && begin) /* dropped by the merge below */
			assert_int_equal(t2f_profile__sums_begin(rep), 0);
		part = new_profile(false);
		gen_apply(part, g, prev, to);
		assert_int_equal(t2f_profile__merge(rep, part), 0);
		t2f_profile__free(part);
		prev = to;
	}
	gen_apply(rep, g, last, GEN_OPS);
	assert_true(t2f_profile__has_repeats(rep));
	assert_true(t2f_profile__cell_count(rep) > t2f_profile__cell_count(whole));
	expect_same_ids(whole, rep);
	if (begin)
		assert_int_equal(t2f_profile__sums_begin(rep), 0);
	assert_int_equal(t2f_profile__sums_begun(rep), begin);
	expect_sums_whole(whole, rep, begin);
	t2f_profile__free(rep);
	t2f_profile__free(whole);
	free(g);
}

static void test_repeat_many_parts(void **state)
{
	(void)state;
	for_seeds(check_repeat_many);
}

/* dst's cells: threads 1-3 at main, then thread 2's twice more, added up into its first. */
static void expect_thread2_sums(const struct t2f_profile *dst)
{
	const struct t2f_cell_sums *s = NULL;
	struct t2f_cell_sums *mine = NULL;
	uint64_t v[2] = { 1, 1 };

	assert_int_equal(t2f_profile__cell_count(dst), 5);
	assert_int_equal(t2f_profile__sums(dst, &s, &mine), 0);
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(t2f_bit_get(t2f_cell_sums__repeats(s), i), i >= 3);
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(t2f_bit_get(t2f_cell_sums__repeated(s), i), i == 1);
	t2f_cell_sums__add(s, 1, v);
	assert_int_equal(v[0], 3);
	assert_int_equal(v[1], 3);
	t2f_cell_sums__free(mine);
}

/* By hand: a thread whose cells come from one merge is not flagged; one back in a later merge,
 * or given a cell by an add after a merge, is; weights whose sum passes UINT64_MAX say so. */
static void test_repeat_flags(void **state)
{
	struct t2f_profile *dst = new_profile(false);
	t2f_event_id e;

	(void)state;
	t2f_profile__repeat_cells(dst);
	assert_true(t2f_profile__repeats_cells(dst));
	merge_threads_at_main(dst, 1, 4); /* threads 1-3, new */
	assert_false(t2f_profile__has_repeats(dst));
	merge_threads_at_main(dst, 2, 3); /* thread 2 back, twice */
	merge_threads_at_main(dst, 2, 3);
	assert_true(t2f_profile__has_repeats(dst));
	expect_thread2_sums(dst);
	assert_true(t2f_profile__cells_repeat(dst, 2));
	assert_false(t2f_profile__cells_repeat(dst, 1));
	assert_false(t2f_profile__cells_repeat(dst, 3));
	assert_int_equal(t2f_profile__event(dst, str(dst, "cpu-clock"), T2F_UNIT_NANOSECONDS, &e),
			 0);
	/* the merged weights: 5 */
	assert_int_equal(t2f_profile__add_sample(dst, 1, 3, e, UINT64_MAX - 5, 0), 0);
	assert_true(t2f_profile__cells_repeat(dst, 3)); /* its merged cell is not looked up */
	assert_false(t2f_profile__cells_repeat(dst, 1));
	assert_int_equal(t2f_profile__cell_count(dst), 6);
	assert_false(t2f_profile__weights_capped(dst)); /* all of them: UINT64_MAX */
	assert_int_equal(t2f_profile__add_sample(dst, 1, 3, e, 1, 0), 0);
	assert_true(t2f_profile__weights_capped(dst)); /* past it: some sum may be */
	assert_int_equal(t2f_profile__cell_count(dst), 6); /* found: the one the add made */
	t2f_profile__reset(dst);
	assert_false(t2f_profile__repeats_cells(dst));
	t2f_profile__free(dst);
}

/* A repeat made by an add alone (no thread came back in a merge): the add's node is one a
 * repeat may be at, and the sums find it. */
static void test_repeat_by_add(void **state)
{
	struct t2f_profile *dst = new_profile(false);
	const struct t2f_cell_sums *s = NULL;
	struct t2f_cell_sums *mine = NULL;
	uint64_t v[2] = { 1, 1 };
	t2f_event_id e;

	(void)state;
	t2f_profile__repeat_cells(dst);
	merge_threads_at_main(dst, 1, 3); /* threads 1 and 2 at main (node 1), new */
	assert_int_equal(t2f_profile__event(dst, str(dst, "cpu-clock"), T2F_UNIT_NANOSECONDS, &e),
			 0);
	assert_int_equal(t2f_profile__add_sample(dst, 1, 2, e, 5, 0), 0);
	assert_int_equal(t2f_profile__cell_count(dst), 3);
	assert_int_equal(t2f_profile__sums(dst, &s, &mine), 0);
	assert_false(t2f_bit_get(t2f_cell_sums__repeats(s), 1));
	assert_true(t2f_bit_get(t2f_cell_sums__repeats(s), 2));
	assert_true(t2f_bit_get(t2f_cell_sums__repeated(s), 1));
	t2f_cell_sums__add(s, 1, v);
	assert_int_equal(v[0], 2);
	assert_int_equal(v[1], 6);
	t2f_cell_sums__free(mine);
	t2f_profile__free(dst);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, profile_setup, profile_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_merge_small),
		cmocka_unit_test(test_merge_parts_equal_whole),
		cmocka_unit_test(test_merge_many_parts),
		cmocka_unit_test(test_merge_deferred_cells),
		cmocka_unit_test(test_fold_threads),
		cmocka_unit_test(test_fold_new_node),
		cmocka_unit_test(test_repeat_many_parts),
		cmocka_unit_test(test_repeat_flags),
		cmocka_unit_test(test_repeat_by_add),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
