/* tests/unit/test_derive.c: formats/derive — the per-thread state machine behind --event off-cpu
 * and wall: a switch-out opens a wait in its stack, the thread's next switch-in closes it into a
 * sample weighted in ns; waits without an end are counted, not guessed; states select; wall adds
 * the time-based events' samples; perf's offcpu-time is taken as it is. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "formats/derive.h"
#include "formats/profile.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wait),
		cmocka_unit_test(test_no_switch_in),
		cmocka_unit_test(test_states),
		cmocka_unit_test(test_wall),
		cmocka_unit_test(test_none_asked),
		cmocka_unit_test(test_state_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
