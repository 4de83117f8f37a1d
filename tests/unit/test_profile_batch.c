/* tests/unit/test_profile_batch.c: formats/profile_batch.c — frames and stacks of many samples
 * at once give every frame and node the id that one call at a time gives it, also where a
 * stack of a batch goes through nodes a stack before it in the same batch made. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "formats/profile.h"

#define N_FRAMES 300
#define N_STACKS 5000
#define MAX_DEPTH 12

static uint64_t next(uint64_t *x)
{
	*x = *x * 6364136223846793005ull + 1442695040888963407ull;
	return *x >> 33;
}

/* Frames with repeats (the same frame twice in a row and far apart). */
static void frames_of(t2f_str_id mod, struct t2f_frame *f)
{
	uint64_t x = 7;

	for (size_t i = 0; i < N_FRAMES; i++)
		f[i] = (struct t2f_frame){ .module = mod, .has_addr = true,
					   .addr = 0x1000 + next(&x) % (N_FRAMES / 2) };
}

/* Stacks root first: many share their first frames, later ones extend earlier ones. */
static size_t stacks_of(uint32_t *len, uint32_t *fr)
{
	uint64_t x = 99;
	size_t at = 0;

	for (size_t i = 0; i < N_STACKS; i++) {
		len[i] = (uint32_t)(i % 17 == 3 ? 0 : 1 + next(&x) % MAX_DEPTH);
		for (uint32_t k = 0; k < len[i]; k++)
			fr[at + k] = (uint32_t)(k < 3 ? next(&x) % 3 : next(&x) % N_FRAMES);
		at += len[i];
	}
	return at;
}

static void test_same_ids(void **state)
{
	static struct t2f_frame f[N_FRAMES];
	static uint32_t len[N_STACKS], fr[N_STACKS * MAX_DEPTH];
	static t2f_frame_id ids1[N_FRAMES], ids2[N_FRAMES];
	static t2f_frame_id fid1[N_STACKS * MAX_DEPTH], fid2[N_STACKS * MAX_DEPTH];
	static t2f_node_id node1[N_STACKS], node2[N_STACKS];
	struct t2f_profile *p1, *p2;
	t2f_str_id mod1, mod2;
	size_t nf, at = 0;

	(void)state;
	assert_int_equal(t2f_profile__new(&p1), 0);
	assert_int_equal(t2f_profile__new(&p2), 0);
	assert_int_equal(t2f_profile__intern(p1, "/bin/x", 6, &mod1), 0);
	assert_int_equal(t2f_profile__intern(p2, "/bin/x", 6, &mod2), 0);
	frames_of(mod1, f);
	nf = stacks_of(len, fr);
	for (size_t i = 0; i < N_FRAMES; i++)
		assert_int_equal(t2f_profile__frame(p1, &f[i], &ids1[i]), 0);
	for (size_t i = 0; i < nf; i++)
		fid1[i] = ids1[fr[i]];
	for (size_t i = 0; i < N_STACKS; i++) {
		node1[i] = 0;
		for (uint32_t k = 0; k < len[i]; k++)
			assert_int_equal(t2f_profile__child(p1, node1[i], fid1[at + k], &node1[i]), 0);
		at += len[i];
	}
	/* in pieces of odd sizes: 1, 2, 3, ... frames and stacks at a time */
	for (size_t i = 0, step = 1; i < N_FRAMES; i += step, step++)
		assert_int_equal(t2f_profile__frames(p2, i + step < N_FRAMES ? step : N_FRAMES - i,
						     f + i, ids2 + i), 0);
	assert_memory_equal(ids1, ids2, sizeof(ids1));
	for (size_t i = 0; i < nf; i++)
		fid2[i] = ids2[fr[i]];
	at = 0;
	for (size_t i = 0, step = 1; i < N_STACKS; i += step, step = step % 70 + 1) {
		size_t m = i + step < N_STACKS ? step : N_STACKS - i;

		for (size_t k = 0; k < m; k++)
			t2f_profile__prefetch_cell(p2, 0, 1, 1, k % 2);
		assert_int_equal(t2f_profile__stacks(p2, m, len + i, fid2 + at, node2 + i), 0);
		for (size_t k = 0; k < m; k++)
			at += len[i + k];
	}
	assert_memory_equal(node1, node2, sizeof(node1));
	assert_int_equal(t2f_profile__node_count(p1), t2f_profile__node_count(p2));
	assert_true(t2f_profile__node_count(p1) > 1000);
	for (t2f_node_id n = 1; n <= t2f_profile__node_count(p1); n++) {
		assert_int_equal(t2f_profile__node_parent(p1, n), t2f_profile__node_parent(p2, n));
		assert_int_equal(t2f_profile__node_frame(p1, n), t2f_profile__node_frame(p2, n));
	}
	t2f_profile__free(p1);
	t2f_profile__free(p2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_ids),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
