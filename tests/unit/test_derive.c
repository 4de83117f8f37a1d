/* tests/unit/test_derive.c: formats/derive — the per-thread state machine behind --event off-cpu
 * and wall: a switch-out opens a wait in its stack, the thread's next switch-in closes it into a
 * sample weighted in ns; waits without an end are counted, not guessed; states select; wall adds
 * the time-based events' samples; perf's offcpu-time is taken as it is; --time ranges clip the
 * waits to the parts inside them; a stream read in segments and merged gives what reading it
 * whole gives, however it is cut, with ranges too. */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "formats/derive.h"
#include "formats/profile.h"
#include "formats/sample_filter.h"

struct fx {
	struct t2f_profile *p;
	struct t2f_derive *d;
	t2f_node_id a, b;       /* two stacks */
	t2f_thread_id t1, t2;   /* threads 101 and 102 */
	t2f_event_id clock, sw, faults;
};

static t2f_event_id event(struct t2f_profile *p, const char *name, enum t2f_unit unit)
{
	t2f_str_id s;
	t2f_event_id id;

	assert_int_equal(t2f_profile__intern(p, name, strlen(name), &s), 0);
	assert_int_equal(t2f_profile__event(p, s, unit, &id), 0);
	return id;
}

static void setup(struct fx *x, unsigned kinds, unsigned states)
{
	struct t2f_frame f = { 0 };
	t2f_frame_id fa, fb;

	memset(x, 0, sizeof(*x));
	assert_int_equal(t2f_profile__new(&x->p), 0);
	assert_int_equal(t2f_profile__enable_derive(x->p, &(struct t2f_derive_opts){
		.kinds = kinds, .states = states }), 0);
	x->d = t2f_profile__derive(x->p);
	assert_non_null(x->d);
	assert_int_equal(t2f_profile__intern(x->p, "a", 1, &f.name), 0);
	assert_int_equal(t2f_profile__frame(x->p, &f, &fa), 0);
	assert_int_equal(t2f_profile__intern(x->p, "b", 1, &f.name), 0);
	assert_int_equal(t2f_profile__frame(x->p, &f, &fb), 0);
	assert_int_equal(t2f_profile__child(x->p, 0, fa, &x->a), 0);
	assert_int_equal(t2f_profile__child(x->p, x->a, fb, &x->b), 0);
	assert_int_equal(t2f_profile__thread(x->p, 100, 101, 0, 0, &x->t1), 0);
	assert_int_equal(t2f_profile__thread(x->p, 100, 102, 0, 0, &x->t2), 0);
	x->clock = event(x->p, "cpu-clock", T2F_UNIT_NANOSECONDS);
	x->sw = event(x->p, "sched:sched_switch", T2F_UNIT_COUNT);
	x->faults = event(x->p, "page-faults", T2F_UNIT_COUNT);
}

/* The weight and samples of (node, thread) in event `name` (0 when absent). */
static uint64_t weight(const struct fx *x, const char *name, t2f_node_id node,
		       t2f_thread_id thread, uint64_t *samples)
{
	t2f_event_id ev = t2f_profile__find_event(x->p, name);
	uint64_t w = 0, n = 0;

	for (size_t i = 0; ev && i < t2f_profile__cell_count(x->p); i++) {
		const struct t2f_cell *c = t2f_profile__cell_at(x->p, i);

		if (c->event == ev && c->node == node && c->thread == thread) {
			w += c->weight;
			n += c->samples;
		}
	}
	if (samples)
		*samples = n;
	return w;
}

static void test_wait(void **state)
{
	struct t2f_derive_counts c;
	struct fx x;
	uint64_t n;

	(void)state;
	setup(&x, T2F_DERIVE_OFF_CPU, 0);
	/* a switch-in with nothing open closes nothing */
	assert_int_equal(t2f_derive__switch_in(x.d, 101, 500), 0);
	assert_int_equal(t2f_derive__switch_out(x.d, 101, 1000, x.b, x.t1, T2F_STATE_S), 0);
	assert_int_equal(t2f_derive__switch_out(x.d, 102, 1100, x.a, x.t2, T2F_STATE_D), 0);
	assert_int_equal(t2f_derive__switch_in(x.d, 101, 4000), 0);
	assert_int_equal(t2f_derive__switch_in(x.d, 101, 9000), 0); /* a second: nothing open */
	assert_int_equal(weight(&x, "off-cpu", x.b, x.t1, &n), 3000);
	assert_int_equal(n, 1);
	t2f_derive__end(x.d, &c);
	assert_int_equal(c.waits, 1);
	assert_int_equal(c.samples, 1);
	assert_int_equal(c.open_at_end, 1); /* 102 never came back */
	assert_int_equal(c.no_switch_in, 0);
	assert_int_equal(weight(&x, "off-cpu", x.a, x.t2, NULL), 0);
	/* the end forgets: 102's switch-in after it closes nothing */
	assert_int_equal(t2f_derive__switch_in(x.d, 102, 9000), 0);
	assert_int_equal(weight(&x, "off-cpu", x.a, x.t2, NULL), 0);
	t2f_profile__free(x.p);
}

static void test_no_switch_in(void **state)
{
	struct t2f_derive_counts c;
	struct fx x;

	(void)state;
	setup(&x, T2F_DERIVE_OFF_CPU, 0);
	assert_int_equal(t2f_derive__switch_out(x.d, 101, 1000, x.a, x.t1, T2F_STATE_S), 0);
	/* out again, no switch-in seen: the first wait is dropped, not guessed */
	assert_int_equal(t2f_derive__switch_out(x.d, 101, 2000, x.b, x.t1, T2F_STATE_S), 0);
	assert_int_equal(t2f_derive__switch_in(x.d, 101, 2500), 0);
	/* a switch-in before its switch-out (out of order): dropped */
	assert_int_equal(t2f_derive__switch_out(x.d, 101, 5000, x.a, x.t1, T2F_STATE_S), 0);
	assert_int_equal(t2f_derive__switch_in(x.d, 101, 4000), 0);
	/* the idle task (tid 0, one per CPU) is no thread that waits */
	assert_int_equal(t2f_derive__switch_out(x.d, 0, 1000, x.a, x.t1, T2F_STATE_R), 0);
	assert_int_equal(t2f_derive__switch_in(x.d, 0, 3000), 0);
	assert_int_equal(weight(&x, "off-cpu", x.a, x.t1, NULL), 0);
	assert_int_equal(weight(&x, "off-cpu", x.b, x.t1, NULL), 500);
	t2f_derive__end(x.d, &c);
	assert_int_equal(c.waits, 1);
	assert_int_equal(c.no_switch_in, 2);
	assert_int_equal(c.open_at_end, 0);
	t2f_profile__free(x.p);
}

static void test_states(void **state)
{
	struct t2f_derive_counts c;
	struct fx x;

	(void)state;
	setup(&x, T2F_DERIVE_OFF_CPU, T2F_STATE_S);
	assert_int_equal(t2f_derive__switch_out(x.d, 101, 1000, x.a, x.t1, T2F_STATE_R), 0);
	assert_int_equal(t2f_derive__switch_in(x.d, 101, 2000), 0);
	assert_int_equal(t2f_derive__switch_out(x.d, 101, 3000, x.b, x.t1, T2F_STATE_S), 0);
	/* a switch-out in a state not selected while a wait is open: dropped */
	assert_int_equal(t2f_derive__switch_out(x.d, 101, 3500, x.b, x.t1, T2F_STATE_D), 0);
	assert_int_equal(t2f_derive__switch_in(x.d, 101, 4000), 0);
	assert_int_equal(t2f_derive__switch_out(x.d, 101, 5000, x.b, x.t1, T2F_STATE_S), 0);
	assert_int_equal(t2f_derive__switch_in(x.d, 101, 5200), 0);
	assert_int_equal(weight(&x, "off-cpu", x.a, x.t1, NULL), 0);
	assert_int_equal(weight(&x, "off-cpu", x.b, x.t1, NULL), 200);
	t2f_derive__end(x.d, &c);
	assert_int_equal(c.not_selected, 2);
	assert_int_equal(c.no_switch_in, 1);
	t2f_profile__free(x.p);
}

static void test_wall(void **state)
{
	struct t2f_derive_counts c;
	struct fx x;
	t2f_event_id offcpu_time;

	(void)state;
	setup(&x, T2F_DERIVE_WALL, 0);
	offcpu_time = event(x.p, "offcpu-time", T2F_UNIT_COUNT);
	/* on CPU: cpu-clock's ns; page faults and sched_switch samples are no time */
	assert_int_equal(t2f_derive__sample(x.d, x.b, x.t1, x.clock, 250000, 10), 0);
	assert_int_equal(t2f_derive__sample(x.d, x.b, x.t1, x.faults, 7, 11), 0);
	assert_int_equal(t2f_derive__sample(x.d, x.b, x.t1, x.sw, 1, 12), 0);
	assert_int_equal(t2f_derive__switch_out(x.d, 101, 1000, x.b, x.t1, T2F_STATE_S), 0);
	assert_int_equal(t2f_derive__switch_in(x.d, 101, 2000), 0);
	/* perf's offcpu-time: its period is ns off CPU, as it is */
	assert_int_equal(t2f_derive__sample(x.d, x.a, x.t2, offcpu_time, 5000, 20), 0);
	assert_int_equal(weight(&x, "wall", x.b, x.t1, NULL), 251000);
	assert_int_equal(weight(&x, "wall", x.a, x.t2, NULL), 5000);
	assert_int_equal(t2f_profile__find_event(x.p, "off-cpu"), 0); /* not asked for */
	assert_int_equal(t2f_profile__event_at(x.p, t2f_profile__find_event(x.p, "wall"))->unit,
			 T2F_UNIT_NANOSECONDS);
	t2f_derive__end(x.d, &c);
	assert_int_equal(c.samples, 3);
	t2f_profile__free(x.p);
}

/* The sample filter of --time `time` (absolute; f: its spec, to free after). */
static struct t2f_sample_filter *time_filter(const char *time, struct t2f_filter **f)
{
	struct t2f_sample_filter *sf;
	char msg[T2F_FILTER_MSG_MAX];

	assert_int_equal(t2f_filter__parse(&(struct t2f_filter_strs){ .time = time }, f, msg,
					   sizeof(msg)), 0);
	assert_int_equal(t2f_sample_filter__new(*f, 0, 0, &sf), 0);
	return sf;
}

static void test_clip(void **state)
{
	struct t2f_derive_counts c;
	struct t2f_filter *f;
	struct t2f_sample_filter *sf = time_filter("0.000002,0.000003 0.000005,0.000006", &f);
	struct fx x;
	uint64_t n;

	(void)state;
	setup(&x, T2F_DERIVE_OFF_CPU | T2F_DERIVE_WALL, 0);
	assert_int_equal(t2f_derive__clip(x.d, sf), 0);
	t2f_sample_filter__free(sf);
	t2f_filter__free(f);
	/* 1000 .. 5500: 2000 to 3000 (both kept: 1001 ns) and 5000 .. 5500, each a sample */
	assert_int_equal(t2f_derive__switch_out(x.d, 101, 1000, x.b, x.t1, T2F_STATE_S), 0);
	assert_int_equal(t2f_derive__switch_in(x.d, 101, 5500), 0);
	assert_int_equal(weight(&x, "off-cpu", x.b, x.t1, &n), 1501);
	assert_int_equal(n, 2);
	assert_int_equal(weight(&x, "wall", x.b, x.t1, &n), 1501);
	/* between the ranges: nothing; across all of one: all of it */
	assert_int_equal(t2f_derive__switch_out(x.d, 102, 3500, x.a, x.t2, T2F_STATE_S), 0);
	assert_int_equal(t2f_derive__switch_in(x.d, 102, 4500), 0);
	assert_int_equal(weight(&x, "off-cpu", x.a, x.t2, NULL), 0);
	assert_int_equal(t2f_derive__switch_out(x.d, 102, 4600, x.a, x.t2, T2F_STATE_S), 0);
	assert_int_equal(t2f_derive__switch_in(x.d, 102, 7000), 0);
	assert_int_equal(weight(&x, "off-cpu", x.a, x.t2, &n), 1001);
	assert_int_equal(n, 1);
	t2f_derive__end(x.d, &c);
	assert_int_equal(c.waits, 3);
	assert_int_equal(c.samples, 6);
	/* the end forgets the ranges */
	assert_int_equal(t2f_derive__switch_out(x.d, 101, 10000, x.b, x.t1, T2F_STATE_S), 0);
	assert_int_equal(t2f_derive__switch_in(x.d, 101, 10007), 0);
	assert_int_equal(weight(&x, "off-cpu", x.b, x.t1, NULL), 1508);
	t2f_profile__free(x.p);
}

static void test_none_asked(void **state)
{
	struct t2f_profile *p;

	(void)state;
	assert_int_equal(t2f_profile__new(&p), 0);
	assert_null(t2f_profile__derive(p));
	assert_int_equal(t2f_profile__enable_derive(p, &(struct t2f_derive_opts){ 0 }), 0);
	assert_null(t2f_profile__derive(p));
	t2f_profile__free(p);
}

static void test_state_names(void **state)
{
	unsigned m = 0;

	(void)state;
	assert_int_equal(t2f_cpu_state_of_bits(0), T2F_STATE_R);
	assert_int_equal(t2f_cpu_state_of_bits(1), T2F_STATE_S);
	assert_int_equal(t2f_cpu_state_of_bits(2), T2F_STATE_D);
	assert_int_equal(t2f_cpu_state_of_bits(0x100), T2F_STATE_R);     /* "R+" */
	assert_int_equal(t2f_cpu_state_of_bits(0x100 | 1), T2F_STATE_S); /* "S+", as text reads */
	assert_int_equal(t2f_cpu_state_of_bits(0x80), T2F_STATE_OTHER);  /* idle */
	assert_int_equal(t2f_cpu_state_of_text("R+", 2), T2F_STATE_R);
	assert_int_equal(t2f_cpu_state_of_text("D|K", 3), T2F_STATE_D);
	assert_int_equal(t2f_cpu_state_of_text("X", 1), T2F_STATE_OTHER);
	assert_int_equal(t2f_cpu_state_of_text("", 0), T2F_STATE_OTHER);
	assert_true(t2f_cpu_states_parse("S,d", &m));
	assert_int_equal(m, T2F_STATE_S | T2F_STATE_D);
	assert_true(t2f_cpu_states_parse("RO", &m));
	assert_int_equal(m, T2F_STATE_R | T2F_STATE_OTHER);
	assert_false(t2f_cpu_states_parse("SX", &m));
	assert_false(t2f_cpu_states_parse(", ", &m));
}

/* ---- segments (the parallel text reader) ---- */

/* A record of a stream: a sample (event, thread, stack "ab": frames root first, time, weight;
 * out: it switches its thread out in state S) or a switch-in (ev NULL). */
struct rec {
	const char *ev;
	int64_t tid;
	const char *stack;
	uint64_t time, weight;
	bool out;
};

static const struct rec stream[] = {
	{ "cpu-clock", 101, "ab", 100, 10, false },
	{ "sched:sched_switch", 101, "ac", 200, 1, true },   /* 101 waits 200 .. 5000 */
	{ "sched:sched_switch", 102, "a", 300, 1, true },    /* 102 waits 300 .. 400 */
	{ NULL, 102, NULL, 400, 0, false },
	{ "page-faults", 103, "d", 450, 1, false },
	{ "sched:sched_switch", 103, "de", 500, 1, true },   /* 103: dropped by its next out */
	{ "cpu-clock", 104, "f", 600, 10, false },
	{ "sched:sched_switch", 103, "d", 700, 1, true },    /* 103 waits 700 .. 900 */
	{ "cpu-clock", 103, "g", 800, 10, false },           /* 103 runs while it waits */
	{ NULL, 103, NULL, 900, 0, false },
	{ "sched:sched_switch", 105, "h", 1000, 1, true },   /* 105: in before out: dropped */
	{ NULL, 105, NULL, 990, 0, false },
	{ NULL, 104, NULL, 1100, 0, false },                 /* nothing open */
	{ "sched:sched_switch", 106, "i", 1200, 1, true },   /* 106: open at the end */
	{ "cpu-clock", 102, "a", 1300, 10, false },
	{ NULL, 101, NULL, 5000, 0, false },
	{ "cpu-clock", 101, "ac", 5100, 10, false },
};
#define N_STREAM (sizeof(stream) / sizeof(stream[0]))

static void add_rec(struct t2f_profile *p, const struct rec *r)
{
	struct t2f_derive *d = t2f_profile__derive(p);
	t2f_node_id node = 0;
	t2f_thread_id th;
	t2f_event_id ev;

	if (!r->ev) {
		assert_int_equal(t2f_derive__switch_in(d, r->tid, r->time), 0);
		return;
	}
	ev = event(p, r->ev, strncmp(r->ev, "cpu", 3) ? T2F_UNIT_COUNT : T2F_UNIT_NANOSECONDS);
	assert_int_equal(t2f_profile__thread(p, 100, r->tid, 0, 0, &th), 0);
	for (const char *c = r->stack; *c; c++) {
		struct t2f_frame f = { 0 };
		t2f_frame_id fr;

		assert_int_equal(t2f_profile__intern(p, c, 1, &f.name), 0);
		assert_int_equal(t2f_profile__frame(p, &f, &fr), 0);
		assert_int_equal(t2f_profile__child(p, node, fr, &node), 0);
	}
	assert_int_equal(t2f_profile__add_sample(p, node, th, ev, r->weight, r->time), 0);
	assert_int_equal(t2f_derive__sample(d, node, th, ev, r->weight, r->time), 0);
	if (r->out)
		assert_int_equal(t2f_derive__switch_out(d, r->tid, r->time, node, th,
							T2F_STATE_S), 0);
}

static const struct t2f_sample_filter *clip; /* test_segments' --time ranges, or NULL */

static struct t2f_profile *new_whole(unsigned kinds)
{
	struct t2f_profile *p;

	assert_int_equal(t2f_profile__new(&p), 0);
	assert_int_equal(t2f_profile__enable_log(p), 0);
	assert_int_equal(t2f_profile__enable_derive(p, &(struct t2f_derive_opts){
		.kinds = kinds }), 0);
	assert_int_equal(t2f_derive__clip(t2f_profile__derive(p), clip), 0);
	return p;
}

/* The stream read in segments cut before the records where cut[i] is set, as the parallel
 * reader does: a segment the merge wants read in order goes into the whole profile again. */
static struct t2f_profile *read_cut(unsigned kinds, const bool *cut, struct t2f_derive_counts *c)
{
	struct t2f_profile *whole = new_whole(kinds);

	for (size_t i = 0; i < N_STREAM;) {
		size_t j = i + 1;
		struct t2f_profile *seg;

		while (j < N_STREAM && !cut[j])
			j++;
		assert_int_equal(t2f_profile__new(&seg), 0);
		assert_int_equal(t2f_profile__enable_log(seg), 0);
		assert_int_equal(t2f_derive__segment(seg, whole), 0);
		for (size_t k = i; k < j; k++)
			add_rec(seg, &stream[k]);
		if (t2f_derive__merge_in_order(whole, seg))
			for (size_t k = i; k < j; k++)
				add_rec(whole, &stream[k]);
		else
			assert_int_equal(t2f_derive__merge(whole, seg), 0);
		t2f_profile__free(seg);
		i = j;
	}
	t2f_derive__end(t2f_profile__derive(whole), c);
	return whole;
}

/* The profile as text: events in id order, cells in order, every thread's log. */
static void describe(const struct t2f_profile *p, char *out, size_t cap)
{
	size_t n = 0;

	for (t2f_event_id e = 1; e <= t2f_profile__event_count(p); e++)
		n += (size_t)snprintf(out + n, cap - n, "%s,", t2f_profile__str(p,
				      t2f_profile__event_at(p, e)->name, NULL));
	for (size_t i = 0; i < t2f_profile__cell_count(p); i++) {
		const struct t2f_cell *c = t2f_profile__cell_at(p, i);

		n += (size_t)snprintf(out + n, cap - n, "|%u %" PRId64 " %u %" PRIu64 "/%" PRIu64,
				      c->node, t2f_profile__thread_at(p, c->thread)->tid, c->event,
				      c->samples, c->weight);
	}
	for (t2f_thread_id t = 1; t <= t2f_profile__thread_count(p); t++)
		for (size_t r = 0; r < t2f_profile__thread_run_count(p, t); r++) {
			struct t2f_sample_run run = t2f_profile__run_at(p, t, r);

			for (uint32_t k = 0; k < run.samples; k++)
				n += (size_t)snprintf(out + n, cap - n, "/%u:%u:%u", t, run.node,
						      run.event);
		}
	assert_true(n < cap);
}

static void test_segments(void **state)
{
	static const unsigned kinds[] = { T2F_DERIVE_OFF_CPU, T2F_DERIVE_OFF_CPU | T2F_DERIVE_WALL,
					  T2F_DERIVE_OFF_CPU | T2F_DERIVE_WALL };
	/* the third: ns 250 to 350 and 1000 to 3000, 101's wait in two parts, 102's cut, 103's
	 * left out */
	struct t2f_filter *f;
	struct t2f_sample_filter *sf = time_filter("0.00000025,0.00000035 0.000001,0.000003", &f);

	(void)state;
	for (size_t k = 0; k < 3; k++) {
		clip = k == 2 ? sf : NULL;
		bool cut[N_STREAM] = { 0 };
		struct t2f_derive_counts c1, c;
		struct t2f_profile *one = read_cut(kinds[k], cut, &c1), *p;
		char want[4096], got[4096];
		uint64_t first, last;

		describe(one, want, sizeof(want));
		if (k == 2) /* off-cpu and wall of 101's two parts and 102's, wall of 4 cpu-clock */
			assert_true(strstr(want, " 101 4 2/2102|") && strstr(want, " 102 4 1/51|"));
		assert_int_equal(c1.waits, 3);
		assert_int_equal(c1.no_switch_in, 2);
		assert_int_equal(c1.open_at_end, 1);
		assert_true(t2f_profile__time_span(one, &first, &last));
		/* every way to cut the stream in segments: the same profile and counts */
		for (unsigned m = 0; m < 1u << (N_STREAM - 1); m += m < 64 ? 1 : 97) {
			for (size_t i = 1; i < N_STREAM; i++)
				cut[i] = m >> (i - 1) & 1;
			p = read_cut(kinds[k], cut, &c);
			describe(p, got, sizeof(got));
			assert_string_equal(got, want);
			assert_memory_equal(&c, &c1, sizeof(c));
			t2f_profile__free(p);
		}
		for (size_t i = 1; i < N_STREAM; i++) /* every record a segment */
			cut[i] = true;
		p = read_cut(kinds[k], cut, &c);
		describe(p, got, sizeof(got));
		assert_string_equal(got, want);
		assert_memory_equal(&c, &c1, sizeof(c));
		t2f_profile__free(p);
		t2f_profile__free(one);
	}
	clip = NULL;
	t2f_sample_filter__free(sf);
	t2f_filter__free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wait),
		cmocka_unit_test(test_no_switch_in),
		cmocka_unit_test(test_states),
		cmocka_unit_test(test_wall),
		cmocka_unit_test(test_clip),
		cmocka_unit_test(test_none_asked),
		cmocka_unit_test(test_state_names),
		cmocka_unit_test(test_segments),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
