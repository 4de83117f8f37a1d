/* tests/unit/test_elf_perf_flat.c: symbolizer/elf_perf_flat.c, perf's symbol tree as a sorted
 * array, against the tree itself (elf_perf_tree.c, which rebuilds perf's red-black tree).
 *
 * Symbol sets drawn from a fixed generator (sizeless symbols, nested ones, many at one start,
 * PLT-like stubs under a sizeless symbol stretched over them, ends below starts) go into both,
 * in the same order, through the same fix-ups (perf's symbols__fixup_end, then its choice among
 * symbols at one start; on the tree by this test's own in-order walk), then stubs are added
 * after. Checked: a tree rebuilt from the array's fix-ups (t2f_elf_pflat__tree) is the tree,
 * node for node (links, colours, ends); the array holds the tree's in-order sequence; and at
 * every symbol's edges and at random addresses, every answer the array gives (a symbol or none)
 * is the tree walk's. The array may leave an address to the tree (-1) only where an earlier
 * symbol reaches over it; that it answers the rest is checked too.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "symbolizer/elf_internal.h"

#define MAX_NODES 4096

static uint64_t rng_state, cur_seed;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* The choice among symbols at one start: a deterministic rule on the payloads and sizes (any
 * rule does, as long as both structures are given the same one). */
static bool first(void *ctx, uint32_t a, uint64_t a_size, uint32_t b, uint64_t b_size)
{
	(void)ctx;
	if ((a_size == 0) != (b_size == 0))
		return a_size != 0;
	return (a * 2654435761u >> 7 & 1) >= (b * 2654435761u >> 7 & 1);
}

/* The tree's nodes in order into seq; their count. */
/* The reference: perf's symbols__fixup_end and symbols__fixup_duplicate done on the tree itself,
 * in order (the library does them on the sorted array). */
static uint32_t leftmost(const struct t2f_elf_ptree *t, uint32_t x)
{
	while (t->nodes[x].left != T2F_ELF_NONE)
		x = t->nodes[x].left;
	return x;
}

static uint32_t next_of(const struct t2f_elf_ptree *t, uint32_t x)
{
	const struct t2f_elf_pnode *n = t->nodes;
	uint32_t p;

	if (n[x].right != T2F_ELF_NONE)
		return leftmost(t, n[x].right);
	for (p = n[x].parent; p != T2F_ELF_NONE && x == n[p].right; p = n[p].parent)
		x = p;
	return p;
}

static void ref_fixup_end(struct t2f_elf_ptree *t)
{
	struct t2f_elf_pnode *n = t->nodes;
	uint32_t prev, cur;

	if (t->root == T2F_ELF_NONE)
		return;
	for (prev = leftmost(t, t->root); (cur = next_of(t, prev)) != T2F_ELF_NONE; prev = cur)
		if (n[prev].end == n[prev].start)
			n[prev].end = n[cur].start;
	if (n[prev].end == n[prev].start)
		n[prev].end = n[prev].start > UINT64_MAX - 8191 ? UINT64_MAX
				: ((n[prev].start + 4095) & ~UINT64_C(4095)) + 4096;
}

static void ref_fixup_duplicate(struct t2f_elf_ptree *t, t2f_elf_ptree_first_cb first_cb,
				void *ctx)
{
	struct t2f_elf_pnode *n = t->nodes;
	uint32_t cur, next;

	if (t->root == T2F_ELF_NONE)
		return;
	cur = leftmost(t, t->root);
	while ((next = next_of(t, cur)) != T2F_ELF_NONE) {
		if (n[cur].start != n[next].start) {
			cur = next;
		} else if (first_cb(ctx, n[cur].sym, n[cur].end - n[cur].start, n[next].sym,
				    n[next].end - n[next].start)) {
			t2f_elf_ptree__erase(t, next);
		} else {
			t2f_elf_ptree__erase(t, cur);
			cur = next;
		}
	}
}

static size_t in_order(const struct t2f_elf_ptree *t, uint32_t at, struct t2f_elf_pnode *seq,
		       size_t n)
{
	if (at == T2F_ELF_NONE)
		return n;
	n = in_order(t, t->nodes[at].left, seq, n);
	seq[n++] = t->nodes[at];
	return in_order(t, t->nodes[at].right, seq, n);
}

/* The subtrees at a (in r) and b (in t) are the same: nodes, links, colours, ranges. */
static void same_tree(const struct t2f_elf_ptree *r, const struct t2f_elf_ptree *t, uint32_t a,
		      uint32_t b)
{
	const struct t2f_elf_pnode *x, *y;

	assert_int_equal(a, b);
	if (a == T2F_ELF_NONE)
		return;
	x = &r->nodes[a];
	y = &t->nodes[b];
	assert_true(x->start == y->start && x->end == y->end && x->parent == y->parent &&
		    x->red == y->red && x->sym == y->sym);
	same_tree(r, t, x->left, y->left);
	same_tree(r, t, x->right, y->right);
}

struct counts {
	uint64_t asked, answered, left;
};

/* The span the array gives around ip holds ip, and the array answers its ends, its middle and
 * its neighbours of ip as it answers ip. */
static void check_span(const struct t2f_elf_pflat *f, uint64_t ip, int r, uint32_t sym)
{
	uint64_t lo, last, s, e;
	uint32_t xsym = 0;

	t2f_elf_pflat__span(f, ip, &lo, &last);
	if (lo > ip || last < ip)
		fail_msg("seed %llu, 0x%llx: span [0x%llx, 0x%llx] misses it",
			 (unsigned long long)cur_seed, (unsigned long long)ip,
			 (unsigned long long)lo, (unsigned long long)last);
	const uint64_t at[] = { lo, last, lo + (last - lo) / 2, ip > lo ? ip - 1 : ip,
				ip < last ? ip + 1 : ip };

	for (size_t k = 0; k < sizeof(at) / sizeof(at[0]); k++) {
		int x = t2f_elf_pflat__find(f, at[k], &xsym, &s, &e);

		if (x != r || (r == 1 && xsym != sym))
			fail_msg("seed %llu, 0x%llx: span [0x%llx, 0x%llx] holds 0x%llx answered %d "
				 "(sym %u), not %d (sym %u)", (unsigned long long)cur_seed,
				 (unsigned long long)ip, (unsigned long long)lo,
				 (unsigned long long)last, (unsigned long long)at[k], x, xsym, r,
				 sym);
	}
}

/* One address: the array's answer, when it gives one, is the tree's. */
static void check_at(const struct t2f_elf_pflat *f, const struct t2f_elf_ptree *t, uint64_t ip,
		     struct counts *c)
{
	uint64_t fs = 0, fe = 0, ts = 0, te = 0;
	uint32_t fsym = 0, tsym = 0;
	int r = t2f_elf_pflat__find(f, ip, &fsym, &fs, &fe);
	bool hit = t2f_elf_ptree__find(t, ip, &tsym, &ts, &te);

	c->asked++;
	if (r < 0) {
		c->left++;
		return;
	}
	c->answered++;
	check_span(f, ip, r, fsym);
	if (r != (int)hit || (hit && (fsym != tsym || fs != ts || fe != te)))
		fail_msg("seed %llu, 0x%llx: array %d (sym %u [0x%llx, 0x%llx]), tree %d (sym %u "
			 "[0x%llx, 0x%llx])", (unsigned long long)cur_seed,
			 (unsigned long long)ip, r, fsym, (unsigned long long)fs,
			 (unsigned long long)fe, hit, tsym, (unsigned long long)ts,
			 (unsigned long long)te);
}

/* A symbol set of about n symbols, some stubs after the fix-ups, through both; then the checks. */
static void one_set(uint64_t seed, size_t n, struct counts *c)
{
	static struct t2f_elf_pnode seq[MAX_NODES];
	static uint64_t starts[MAX_NODES], ends[MAX_NODES];
	struct t2f_elf_ptree t = { .root = T2F_ELF_NONE }, r = { .root = T2F_ELF_NONE };
	struct t2f_elf_pflat f = { 0 };
	uint64_t base = 0x1000 + (seed % 4) * (UINT64_MAX / 4), span = 64 * n, stub0;
	size_t stubs, got;

	rng_state = seed * 0x9e3779b97f4a7c15ULL + 1;
	cur_seed = seed;
	stubs = rnd() % 24;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t start = base + rnd() % span, size;

		switch (rnd() % 8) {
		case 0: case 1: size = 0; break;                        /* sizeless */
		case 2: size = rnd() % 8 ? 1 + rnd() % 64 : rnd() % (span / 4); break; /* wide */
		case 3: start = base + (rnd() % 16) * 64; size = rnd() % 48; break; /* one start */
		case 4: size = rnd() % 2 ? UINT64_MAX - 7 : 0; break;  /* end below the start */
		default: size = 1 + rnd() % 64; break;
		}
		assert_int_equal(t2f_elf_ptree__insert(&t, start, start + size, i), 0);
		assert_int_equal(t2f_elf_pflat__add(&f, start, start + size, i), 0);
		starts[i] = start;
		ends[i] = start + size;
	}
	assert_int_equal(t2f_elf_pflat__order(&f), 0);
	ref_fixup_end(&t);
	t2f_elf_pflat__fixup_end(&f);
	ref_fixup_duplicate(&t, first, NULL);
	assert_int_equal(t2f_elf_pflat__fixup_duplicate(&f, first, NULL), 0);
	/* the tree again from the array's fix-ups: node for node the same shape */
	for (uint32_t i = 0; i < n; i++)
		assert_int_equal(t2f_elf_ptree__insert(&r, starts[i], ends[i], i), 0);
	t2f_elf_pflat__tree(&f, &r, n);
	assert_int_equal(r.root, t.root);
	same_tree(&r, &t, r.root, t.root);
	/* stubs of 16 bytes: some where a sizeless symbol reaches, some at a symbol's start */
	stub0 = base + (rnd() % 2 ? rnd() % span : (rnd() % 16) * 64);
	for (uint32_t i = 0; i < stubs; i++) {
		uint64_t a = stub0 + 16 * (rnd() % 32);

		assert_int_equal(t2f_elf_ptree__insert(&t, a, a + 16, (uint32_t)n + i), 0);
		assert_int_equal(t2f_elf_pflat__add(&f, a, a + 16, (uint32_t)n + i), 0);
	}
	assert_int_equal(t2f_elf_pflat__finish(&f), 0);

	got = in_order(&t, t.root, seq, 0);
	assert_int_equal(got, f.n);
	for (size_t i = 0; i < got; i++) {
		assert_int_equal(seq[i].start, f.ents[i].start);
		assert_int_equal(seq[i].end, f.ents[i].end);
		assert_int_equal(seq[i].sym, f.ents[i].sym);
	}
	for (size_t i = 0; i < got; i++) {
		const uint64_t s = f.ents[i].start, e = f.ents[i].end;
		const uint64_t at[] = { s - 1, s, s + 1, s + (e - s) / 2, e - 1, e, e + 1 };

		for (size_t k = 0; k < sizeof(at) / sizeof(at[0]); k++)
			check_at(&f, &t, at[k], c);
	}
	for (int k = 0; k < 2000; k++)
		check_at(&f, &t, base - 64 + rnd() % (span + 128), c);
	t2f_elf_ptree__free(&t);
	t2f_elf_ptree__free(&r);
	t2f_elf_pflat__free(&f);
}

static void test_random_sets(void **state)
{
	struct counts c = { 0 };

	(void)state;
	for (uint64_t seed = 1; seed <= 400; seed++)
		one_set(seed, 1 + seed % 7 * (seed % 5 ? 9 : 300), &c);
	/* most addresses are answered from the array, some are left to the tree */
	print_message("%llu of %llu addresses answered from the array\n",
		      (unsigned long long)c.answered, (unsigned long long)c.asked);
	assert_true(c.answered > c.asked / 2);
	assert_true(c.left > 0);
}

/* A sizeless symbol stretched over stubs inserted after the fix-ups, a label inside a function:
 * those addresses are the tree's; the rest the array answers, as the tree does. */
static void test_nested(void **state)
{
	struct t2f_elf_ptree t = { .root = T2F_ELF_NONE };
	struct t2f_elf_pflat f = { 0 };
	const uint64_t sym[][2] = { { 0x1000, 0x1000 }, { 0x3000, 0x3100 }, { 0x3040, 0x3040 },
				    { 0x3200, 0x3280 } };
	uint64_t s, e;
	uint32_t i;

	(void)state;
	for (i = 0; i < 4; i++) {
		assert_int_equal(t2f_elf_ptree__insert(&t, sym[i][0], sym[i][1], i), 0);
		assert_int_equal(t2f_elf_pflat__add(&f, sym[i][0], sym[i][1], i), 0);
	}
	assert_int_equal(t2f_elf_pflat__order(&f), 0);
	ref_fixup_end(&t);
	t2f_elf_pflat__fixup_end(&f);
	for (i = 4; i < 6; i++) { /* stubs at 0x2000 and 0x2010, under the first symbol's reach */
		uint64_t a = 0x2000 + 16 * (i - 4);

		assert_int_equal(t2f_elf_ptree__insert(&t, a, a + 16, i), 0);
		assert_int_equal(t2f_elf_pflat__add(&f, a, a + 16, i), 0);
	}
	assert_int_equal(t2f_elf_pflat__finish(&f), 0);
	assert_int_equal(t2f_elf_pflat__find(&f, 0x1800, &i, &s, &e), 1); /* up to 0x3000 */
	assert_int_equal(i, 0);
	assert_int_equal(e, 0x3000);
	assert_int_equal(t2f_elf_pflat__find(&f, 0x2008, &i, &s, &e), -1);
	assert_int_equal(t2f_elf_pflat__find(&f, 0x3050, &i, &s, &e), -1); /* label in 0x3000 */
	assert_int_equal(t2f_elf_pflat__find(&f, 0x3010, &i, &s, &e), 1);
	assert_int_equal(i, 1);
	assert_int_equal(t2f_elf_pflat__find(&f, 0x3180, &i, &s, &e), 1); /* the label's reach */
	assert_int_equal(i, 2);
	assert_int_equal(t2f_elf_pflat__find(&f, 0x327f, &i, &s, &e), 1);
	assert_int_equal(i, 3);
	assert_int_equal(t2f_elf_pflat__find(&f, 0x3280, &i, &s, &e), 0);
	assert_int_equal(t2f_elf_pflat__find(&f, 0xfff, &i, &s, &e), 0);
	t2f_elf_ptree__free(&t);
	t2f_elf_pflat__free(&f);
}

/* A sizeless symbol and a stub at one start (no fix-up made them meet): both hold that address,
 * and the tree's walk meets the sizeless one first, so the array leaves it to the tree. */
static void test_same_start(void **state)
{
	struct t2f_elf_ptree t = { .root = T2F_ELF_NONE };
	struct t2f_elf_pflat f = { 0 };
	uint64_t s, e;
	uint32_t i;

	(void)state;
	assert_int_equal(t2f_elf_ptree__insert(&t, 0x5000, 0x5000, 0), 0);
	assert_int_equal(t2f_elf_ptree__insert(&t, 0x5000, 0x5010, 1), 0);
	assert_int_equal(t2f_elf_pflat__add(&f, 0x5000, 0x5000, 0), 0);
	assert_int_equal(t2f_elf_pflat__add(&f, 0x5000, 0x5010, 1), 0);
	assert_int_equal(t2f_elf_pflat__finish(&f), 0);
	assert_true(t2f_elf_ptree__find(&t, 0x5000, &i, &s, &e));
	assert_int_equal(i, 0);
	assert_int_equal(t2f_elf_pflat__find(&f, 0x5000, &i, &s, &e), -1);
	assert_int_equal(t2f_elf_pflat__find(&f, 0x5008, &i, &s, &e), 1);
	assert_int_equal(i, 1);
	t2f_elf_ptree__free(&t);
	t2f_elf_pflat__free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_sets),
		cmocka_unit_test(test_nested),
		cmocka_unit_test(test_same_start),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
