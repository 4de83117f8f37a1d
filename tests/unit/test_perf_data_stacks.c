/* tests/unit/test_perf_data_stacks.c: samples' frames and stacks added to the profile in
 * batches, on a thread of their own or not (readers/perf_data_stacks.h): the same frames, trie,
 * cells and log; with classes, the stacks of each class's first frame. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "formats/profile.h"
#include "readers/perf_data_stacks.h"

#define N_SAMPLES 30000 /* several batches */
#define N_FRAMES 48 /* 32 queued first, then one every 500 samples */

/* Class sources and keys for the frames of fill() (perf_data_stacks.h): frame i's address
 * 0x1000 + i has a source unless i % 3 == 0 (two sources, by i % 3), and a key unless it is
 * a multiple of 8: address / 8. */
static int src_a, src_b;

static void *src_of(size_t i)
{
	return i % 3 == 0 ? NULL : i % 3 == 1 ? (void *)&src_a : (void *)&src_b;
}

static bool key_of(void *src, uint64_t addr, uint64_t *key)
{
	assert_true(src == &src_a || src == &src_b);
	*key = addr / 8;
	return addr % 8 != 0;
}

/* The first frame of i's class (fill's order), i itself when it has none. */
static size_t class_first(size_t i)
{
	uint64_t k, kj;

	if (!src_of(i) || !key_of(src_of(i), 0x1000 + i, &k))
		return i;
	for (size_t j = 0; j < i; j++)
		if (src_of(j) == src_of(i) && key_of(src_of(j), 0x1000 + j, &kj) && kj == k)
			return j;
	return i;
}

enum fill_how { PLAIN, CLASSES, FIRSTS };

/* N_SAMPLES samples of three threads, stacks of 1 to 9 frames drawn from N_FRAMES, one empty;
 * frames queued before the samples and between them (the same frame twice: one id). CLASSES:
 * frames queued with their class sources (*classed: the stacks' count); FIRSTS: without, each
 * stack naming the first frame of each frame's class instead. */
static struct t2f_profile *fill(bool threaded, enum fill_how how, uint64_t *classed)
{
	struct t2f_profile *p;
	struct t2f_pdc_stacks *s;
	uint32_t frames[N_FRAMES], stack[9], ref;
	t2f_thread_id th[3];
	t2f_event_id ev;
	t2f_str_id mod;
	uint64_t x = 12345;

	assert_int_equal(t2f_profile__new(&p), 0);
	assert_int_equal(t2f_profile__enable_log(p), 0);
	assert_int_equal(t2f_profile__intern(p, "/bin/x", 6, &mod), 0);
	assert_int_equal(t2f_profile__event(p, mod, T2F_UNIT_COUNT, &ev), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(t2f_profile__thread(p, 1, 1 + i, mod, 0, &th[i]), 0);
	assert_int_equal(t2f_pdc_stacks__new(p, threaded, how == CLASSES ? key_of : NULL, &s), 0);
	for (uint64_t i = 0; i < 32; i++) {
		struct t2f_frame f = { .module = mod, .addr = 0x1000 + i, .has_addr = true };

		assert_int_equal(t2f_pdc_stacks__frame(s, &f, how == CLASSES ? src_of(i) : NULL,
						       &frames[i]), 0);
	}
	for (size_t i = 0; i < N_SAMPLES; i++) {
		size_t n = i == 7 ? 0 : 1 + i % 9;
		size_t m = i / 500, have = 32 + (m < 16 ? m + 1 : 16);
		struct t2f_frame f = { .module = mod, .addr = 0x1000 + 32 + m, .has_addr = true };
		void *src = how == CLASSES ? src_of(32 + m) : NULL;

		if (m < 16 && i % 500 < 2) /* a new frame, then the same again (one id) */
			assert_int_equal(t2f_pdc_stacks__frame(s, &f, src, i % 500 ? &ref
										 : &frames[32 + m]),
					 0);
		for (size_t k = 0; k < n; k++) {
			size_t at;

			x = x * 6364136223846793005ull + 1442695040888963407ull;
			at = (x >> 33) % (k < 4 ? 4 : have);
			stack[k] = frames[how == FIRSTS ? class_first(at) : at];
		}
		assert_int_equal(t2f_pdc_stacks__add(s, th[i % 3], ev, 1 + i % 5, 1000 + i, stack, n),
				 0);
	}
	assert_int_equal(t2f_pdc_stacks__finish(s), 0);
	if (classed)
		*classed = t2f_pdc_stacks__classed(s);
	t2f_pdc_stacks__free(s);
	return p;
}

/* a and b: the same frames, trie, cells and log. */
static void assert_same(const struct t2f_profile *a, const struct t2f_profile *b)
{
	assert_int_equal(t2f_profile__frame_count(a), 48);
	assert_int_equal(t2f_profile__frame_count(b), 48);
	for (t2f_frame_id f = 1; f <= 48; f++)
		assert_int_equal(t2f_profile__frame_at(a, f)->addr, t2f_profile__frame_at(b, f)->addr);
	assert_true(t2f_profile__node_count(a) > 1000);
	assert_int_equal(t2f_profile__node_count(a), t2f_profile__node_count(b));
	for (t2f_node_id n = 1; n <= t2f_profile__node_count(a); n++) {
		assert_int_equal(t2f_profile__node_parent(a, n), t2f_profile__node_parent(b, n));
		assert_int_equal(t2f_profile__node_frame(a, n), t2f_profile__node_frame(b, n));
	}
	assert_int_equal(t2f_profile__cell_count(a), t2f_profile__cell_count(b));
	for (size_t i = 0; i < t2f_profile__cell_count(a); i++) {
		const struct t2f_cell *x = t2f_profile__cell_at(a, i), *y = t2f_profile__cell_at(b, i);

		assert_int_equal(x->node, y->node);
		assert_int_equal(x->thread, y->thread);
		assert_int_equal(x->samples, y->samples);
		assert_int_equal(x->weight, y->weight);
	}
	assert_int_equal(t2f_profile__sample_log_count(a), N_SAMPLES);
	assert_int_equal(t2f_profile__sample_log_count(b), N_SAMPLES);
}

static void test_same_with_thread(void **state)
{
	struct t2f_profile *a = fill(false, PLAIN, NULL), *b = fill(true, PLAIN, NULL);

	(void)state;
	assert_same(a, b);
	assert_int_equal(t2f_profile__chainless_samples(b), 1);
	t2f_profile__free(a);
	t2f_profile__free(b);
}

/* With classes, every frame is added, and the stacks are those of each frame's class's first:
 * by one thread or two. */
static void test_classes(void **state)
{
	uint64_t na, nb, want = 0;
	struct t2f_profile *a = fill(false, CLASSES, &na), *b = fill(true, CLASSES, &nb);
	struct t2f_profile *c = fill(false, FIRSTS, NULL), *d = fill(false, PLAIN, NULL);

	(void)state;
	for (size_t i = 0; i < N_FRAMES; i++)
		want += class_first(i) != i;
	assert_int_equal(want, 16);
	assert_int_equal(na, want);
	assert_int_equal(nb, want);
	assert_same(a, c);
	assert_same(b, c);
	assert_true(t2f_profile__node_count(a) < t2f_profile__node_count(d));
	t2f_profile__free(a);
	t2f_profile__free(b);
	t2f_profile__free(c);
	t2f_profile__free(d);
}

/* Freed with samples queued and never finished: the thread stops, nothing leaks. */
static void test_free_unfinished(void **state)
{
	struct t2f_profile *p;
	struct t2f_pdc_stacks *s;
	uint32_t f;
	struct t2f_frame fr = { .addr = 1, .has_addr = true };

	(void)state;
	assert_int_equal(t2f_profile__new(&p), 0);
	assert_int_equal(t2f_pdc_stacks__new(p, true, key_of, &s), 0);
	assert_int_equal(t2f_pdc_stacks__frame(s, &fr, &src_a, &f), 0);
	for (size_t i = 0; i < 3 * N_SAMPLES / 2; i++)
		assert_int_equal(t2f_pdc_stacks__add(s, 0, 0, 1, 0, &f, 1), 0);
	t2f_pdc_stacks__free(s);
	t2f_profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_with_thread),
		cmocka_unit_test(test_classes),
		cmocka_unit_test(test_free_unfinished),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
