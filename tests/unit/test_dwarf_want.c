/* tests/unit/test_dwarf_want.c: a DWARF handle told the addresses to come (symbolizer/dwarf.h
 * __want) indexes a unit without the inlined calls of the functions none of them is in, and
 * answers every address as a handle told nothing does: the chain (names, lines, files, flags)
 * and the span of the same chain, for the addresses told and, indexing the unit again in full,
 * for the others, asked after them or before. A handle that reads no line tables (no_lines)
 * names every level of every chain as one that reads them, with no file or line, over a span
 * at least as wide; an address of no function finds nothing there. A GNU C nested function
 * (fixtures/dwarf/nested.c) is found when the function holding its DIE was not walked.
 *
 * The file is fixtures/dwarf/inl.c built here with cc -O2 -g: `outer` (inner_loop, step and mix
 * inlined into it) and `other` (step and mix), two functions of one unit. Every byte of both
 * is looked up; skipped without cc or nm.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "support/diag_sink.h"
#include "support/fixture_env.h"
#include "symbolizer/dwarf.h"

struct fn {                      /* a function's code: [lo, lo + size) */
	uint64_t lo, size;
};

struct answer {                  /* what one lookup gave */
	int n;
	struct t2f_dwarf_frame f[T2F_DWARF_MAX_DEPTH];
	uint64_t lo, last;
};

static const char *built = "inl"; /* the file open_inl opens, in tmp */

/* fixtures/dwarf/NAME.c built into tmp/NAME; the code of the functions whose symbols start
 * with first and second (GCC names a nested function "nested.0") from nm. */
static void make_of(const char *name, const char *first, const char *second, struct fn *a,
		    struct fn *b)
{
	const char *src = getenv("T2F_SOURCE_DIR");
	char cmd[3 * PATH_MAX], line[512], sym[64];
	unsigned long long lo, size;
	FILE *p;

	assert_non_null(src);
	built = name;
	snprintf(cmd, sizeof(cmd), "cc -O2 -g -o '%s/%s' '%s/fixtures/dwarf/%s.c' 2>/dev/null",
		 tmp, name, src, name);
	if (system(cmd) != 0)
		skip();
	snprintf(cmd, sizeof(cmd), "nm -S '%s/%s' 2>/dev/null", tmp, name);
	p = popen(cmd, "r");
	if (!p)
		skip();
	*a = *b = (struct fn){ 0, 0 };
	while (fgets(line, sizeof(line), p)) {
		if (sscanf(line, "%llx %llx %*s %63s", &lo, &size, sym) != 3)
			continue;
		if (strncmp(sym, first, strlen(first)) == 0)
			*a = (struct fn){ lo, size };
		else if (strncmp(sym, second, strlen(second)) == 0)
			*b = (struct fn){ lo, size };
	}
	pclose(p);
	if (!a->size || !b->size)
		skip();
}

/* inl.c built into tmp/inl; outer's and other's code. */
static void make(struct fn *outer, struct fn *other)
{
	make_of("inl", "outer", "other", outer, other);
}

static struct t2f_dwarf *open_inl_with(struct t2f_diag *d, const struct t2f_dwarf_opts *o)
{
	struct t2f_dwarf *dw = NULL;
	char path[PATH_MAX];

	assert_int_equal(t2f_dwarf__open(pathf(path, "%s/%s", tmp, built), o, d, &dw), 0);
	assert_non_null(dw);
	return dw;
}

static struct t2f_dwarf *open_inl(struct t2f_diag *d)
{
	return open_inl_with(d, NULL);
}

static void ask(struct t2f_dwarf *dw, uint64_t addr, struct answer *a)
{
	a->n = t2f_dwarf__lookup_span(dw, addr, a->f, T2F_DWARF_MAX_DEPTH, &a->lo, &a->last);
	assert_true(a->n >= 0);
}

static void same_str(const char *a, const char *b, uint64_t addr)
{
	if (!a || !b) {
		if (a != b)
			fail_msg("0x%llx: %s against %s", (unsigned long long)addr, a ? a : "(none)",
				 b ? b : "(none)");
		return;
	}
	if (strcmp(a, b) != 0)
		fail_msg("0x%llx: %s against %s", (unsigned long long)addr, a, b);
}

static void levels_differ(const struct answer *a, const struct answer *b, uint64_t addr)
{
	fail_msg("0x%llx: %d levels [0x%llx, 0x%llx] against %d [0x%llx, 0x%llx]",
		 (unsigned long long)addr, a->n, (unsigned long long)a->lo,
		 (unsigned long long)a->last, b->n, (unsigned long long)b->lo,
		 (unsigned long long)b->last);
}

/* One level's name and what the name is. */
static void same_name(const struct t2f_dwarf_frame *x, const struct t2f_dwarf_frame *y,
		      uint64_t addr)
{
	same_str(x->name, y->name, addr);
	assert_int_equal(x->linkage, y->linkage);
	assert_int_equal(x->copy, y->copy);
	assert_int_equal(x->as_symbol, y->as_symbol);
}

static void same_answer(const struct answer *a, const struct answer *b, uint64_t addr)
{
	if (a->n != b->n || a->lo != b->lo || a->last != b->last)
		levels_differ(a, b, addr);
	for (int i = 0; i < a->n; i++) {
		const struct t2f_dwarf_frame *x = &a->f[i], *y = &b->f[i];

		same_name(x, y, addr);
		same_str(x->file, y->file, addr);
		same_str(x->fn_file, y->fn_file, addr);
		assert_int_equal(x->line, y->line);
		assert_int_equal(x->fn_line, y->fn_line);
	}
}

/* Every byte of told (the handle told them, sorted) then of rest, on a new handle, against the
 * answers of a handle told nothing (ref: outer's bytes then other's). */
static void check(const struct fn *told, const struct fn *rest, const struct fn *outer,
		  const struct answer *ref, struct t2f_diag *d, int *deep)
{
	uint64_t *want = malloc(told->size * sizeof(*want));
	struct t2f_dwarf *dw = open_inl(d);
	const struct fn *order[2] = { told, rest };
	struct answer a;

	assert_non_null(want);
	for (uint64_t i = 0; i < told->size; i++)
		want[i] = told->lo + i;
	t2f_dwarf__want(dw, want, told->size);
	for (int k = 0; k < 2; k++) {
		const struct fn *fn = order[k];
		const struct answer *r = ref + (fn == outer ? 0 : outer->size);

		for (uint64_t i = 0; i < fn->size; i++) {
			ask(dw, fn->lo + i, &a);
			same_answer(&a, &r[i], fn->lo + i);
			*deep += a.n > 2;
		}
	}
	t2f_dwarf__want(dw, NULL, 0);
	t2f_dwarf__free(dw);
	free(want);
}

/* Every byte of a, then of b, answered by a handle told nothing (ref), then by handles told a's
 * bytes and told b's (check); *deep counts answers three levels deep. a_name (or NULL): how the
 * function at a's first byte is named. */
static void both_orders(const struct fn *a, const struct fn *b, const char *a_name, int *deep)
{
	struct answer *ref = calloc(a->size + b->size, sizeof(*ref));
	struct t2f_dwarf *dw;
	struct sink s;

	assert_non_null(ref);
	sink_init(&s);
	dw = open_inl(s.d);
	for (uint64_t i = 0; i < a->size; i++)
		ask(dw, a->lo + i, &ref[i]);
	for (uint64_t i = 0; i < b->size; i++)
		ask(dw, b->lo + i, &ref[a->size + i]);
	if (a_name) {
		assert_non_null(ref[0].f[0].name);
		assert_int_equal(strncmp(ref[0].f[0].name, a_name, strlen(a_name)), 0);
	}
	check(a, b, a, ref, s.d, deep);
	check(b, a, a, ref, s.d, deep);
	assert_int_equal(t2f_diag__warnings(s.d), 0);
	t2f_dwarf__free(dw); /* after the comparisons: ref's strings are its */
	free(ref);
	sink_close(&s);
}

/* told outer: other's unit indexed again at its first byte; told other: outer's */
static void test_told_and_not(void **state)
{
	struct fn outer, other;
	int deep = 0;

	(void)state;
	make(&outer, &other);
	both_orders(&outer, &other, NULL, &deep);
	/* inlined calls three levels deep answered in both functions' orders: the test sees them */
	assert_true(deep > 0);
}

/* nested.c: told the nested function's bytes alone, the function holding its DIE is shallow
 * and its DIEs are not walked; the nested function's bytes are then answered by indexing the
 * unit again in full, as a handle told nothing answers them, and the holder's after. */
static void test_nested(void **state)
{
	struct fn nested, holder;
	int deep = 0;

	(void)state;
	make_of("nested", "nested.", "holder", &nested, &holder);
	both_orders(&nested, &holder, "nested", &deep);
}

/* One byte's chain without lines against the chain with them (ref). */
static void same_names(const struct answer *a, const struct answer *ref, uint64_t addr)
{
	if (ref->n > 0 && !ref->f[0].name) { /* a line alone: nothing without lines */
		assert_int_equal(a->n, 0);
		return;
	}
	if (a->n != ref->n || a->lo > ref->lo || a->last < ref->last)
		levels_differ(a, ref, addr);
	for (int i = 0; i < a->n; i++) {
		const struct t2f_dwarf_frame *x = &a->f[i];

		same_name(x, &ref->f[i], addr);
		assert_null(x->file);
		assert_null(x->fn_file);
		assert_int_equal(x->line, 0);
		assert_int_equal(x->fn_line, 0);
	}
}

static void test_no_lines(void **state)
{
	const struct t2f_dwarf_opts o = { .no_lines = true };
	struct t2f_dwarf *dw, *nl;
	struct answer ref, a;
	struct fn fns[2];
	struct sink s;
	int lines = 0, deep = 0;

	(void)state;
	make(&fns[0], &fns[1]);
	sink_init(&s);
	dw = open_inl(s.d);
	nl = open_inl_with(s.d, &o);
	for (int k = 0; k < 2; k++)
		for (uint64_t i = 0; i < fns[k].size; i++) {
			ask(dw, fns[k].lo + i, &ref);
			ask(nl, fns[k].lo + i, &a);
			same_names(&a, &ref, fns[k].lo + i);
			lines += ref.n > 0 && ref.f[0].line > 0;
			deep += a.n > 2;
		}
	/* the handle with lines gave them, and inlined calls were met: the test sees both */
	assert_true(lines > 0);
	assert_true(deep > 0);
	assert_int_equal(t2f_diag__warnings(s.d), 0);
	t2f_dwarf__free(nl);
	t2f_dwarf__free(dw);
	sink_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		FX_TEST(test_told_and_not),
		FX_TEST(test_no_lines),
		FX_TEST(test_nested),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
