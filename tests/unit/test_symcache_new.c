/* tests/unit/test_symcache_new.c: a run's symbol answers written as a cache file
 * (symbolizer/symcache_write.c) are the same bytes whether each answer is given once or again
 * and again (the lookups of many addresses of one function give its range each time; the
 * writer keeps each answer once), and answers that differ in any field are all kept: the
 * file then holds the first of them, as when nothing is dropped on the way. Inline chains
 * whose spans overlap are joined when they are the same chain (a one-address line row's span
 * and its same-line neighbour's start at one address), in a run and across an old file.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "support/fixture_env.h"
#include "support/symcache_file.h"
#include "symbolizer/symcache.h"
#include "symbolizer/symbolizer.h"

static const uint8_t id[4] = { 0xde, 0xad, 0xbe, 0xef };

/* The answers: alpha [0x1000, 0x10ff], a miss [0x1100, 0x11ff], beta [0x1200, 0x12ff]. */
static const struct t2f_symcache_sym alpha = { 0x1000, 0x10ff, 0x1000, "alpha", T2F_HIT, 0 };
static const struct t2f_symcache_sym gap = { 0x1100, 0x11ff, 0, NULL, T2F_MISS_NOT_FOUND, 0 };
static const struct t2f_symcache_sym beta = { 0x1200, 0x12ff, 0x1200, "beta", T2F_HIT, 0 };

/* Writes answers s[0..n) as the cache file of `id` in a new directory DIR under tmp; its bytes
 * into *out (malloc'd), their count into *len. */
static void write_file(const char *dir, const struct t2f_symcache_sym *s, size_t n,
		       unsigned char **out, size_t *len)
{
	char d_path[PATH_MAX], file[PATH_MAX];
	struct stat st;
	FILE *f;

	t2f_symcache_dir__free(fx_symcache_write(dir, id, sizeof(id), s, n));
	pathf(d_path, "%s/%s", tmp, dir);
	pathf(file, "%s/deadbeef" T2F_SYMCACHE_SUFFIX, d_path);
	f = fopen(file, "rb");
	assert_non_null(f);
	assert_int_equal(fstat(fileno(f), &st), 0);
	*len = (size_t)st.st_size;
	*out = malloc(*len ? *len : 1);
	assert_non_null(*out);
	assert_int_equal(fread(*out, 1, *len, f), *len);
	fclose(f);
}

/* The answer the file of directory dir gives at addr: its name ("" on a miss, NULL: none). */
static const char *answer(const char *dir, uint64_t addr, char *buf, size_t size)
{
	char d_path[PATH_MAX], mod[PATH_MAX];
	struct t2f_symcache_ident ident;
	struct t2f_symcache_dir *d;
	struct t2f_symcache_sym s;
	struct t2f_symcache *c = NULL;
	const char *why = NULL, *r = NULL;
	bool bad = false;

	ident = fx_symcache_ident(id, sizeof(id), mod);
	pathf(d_path, "%s/%s", tmp, dir);
	assert_int_equal(t2f_symcache_dir__open(d_path, 0, false, &d, &why), 0);
	assert_int_equal(t2f_symcache__open(d, &ident, &c, &bad, &why), 0);
	assert_non_null(c);
	if (t2f_symcache__sym(c, addr, &s)) {
		snprintf(buf, size, "%s", s.name ? s.name : "");
		r = buf;
	}
	t2f_symcache__free(c);
	t2f_symcache_dir__free(d);
	return r;
}

static void test_repeats_change_nothing(void **state)
{
	const struct t2f_symcache_sym once[] = { alpha, gap, beta };
	const struct t2f_symcache_sym again[] = { beta, alpha, alpha, gap, beta, alpha, gap };
	unsigned char *a, *b;
	size_t na, nb;
	char buf[64];

	(void)state;
	write_file("once", once, 3, &a, &na);
	write_file("again", again, 7, &b, &nb);
	assert_int_equal(na, nb);
	assert_memory_equal(a, b, na);
	assert_string_equal(answer("again", 0x1080, buf, sizeof(buf)), "alpha");
	assert_string_equal(answer("again", 0x1100, buf, sizeof(buf)), "");
	assert_string_equal(answer("again", 0x12ff, buf, sizeof(buf)), "beta");
	assert_null(answer("again", 0x1300, buf, sizeof(buf)));
	free(a);
	free(b);
}

/* Answers alike but for one field are not repeats: the first given is the file's (a later
 * one over the same range is dropped when written), as it is without any repeat. */
static void test_near_repeats_kept(void **state)
{
	struct t2f_symcache_sym other = alpha, longer = alpha, moved = alpha;
	unsigned char *a, *b, *c, *e;
	size_t na, nb, nc, ne;
	char buf[64];

	(void)state;
	other.name = "alpha2";     /* another name over the same range */
	longer.last = 0x117f;      /* the same symbol over more (joins the range) */
	moved.value = 0x0ff0;      /* another start */
	{
		const struct t2f_symcache_sym x[] = { alpha, other, moved, gap, beta };
		const struct t2f_symcache_sym y[] = { alpha, other, alpha, moved, other, gap,
						      beta };

		write_file("x", x, 5, &a, &na);
		write_file("y", y, 7, &b, &nb);
	}
	{
		const struct t2f_symcache_sym x[] = { other, alpha, gap, beta };
		const struct t2f_symcache_sym y[] = { alpha, longer, gap, beta };

		write_file("other-first", x, 4, &c, &nc);
		write_file("longer", y, 4, &e, &ne);
	}
	assert_int_equal(na, nb);
	assert_memory_equal(a, b, na);
	assert_string_equal(answer("y", 0x1080, buf, sizeof(buf)), "alpha");
	assert_string_equal(answer("other-first", 0x1080, buf, sizeof(buf)), "alpha2");
	assert_string_equal(answer("longer", 0x1150, buf, sizeof(buf)), "alpha");
	free(a);
	free(b);
	free(c);
	free(e);
}

/* A name's memory given another name in a later generation (the symbolizer let its file go and
 * another file's names came there) is not taken for the name it held: alpha [0x1000, 0x10ff],
 * then "alphaX" over [0x1080, 0x117f] (dropped: it overlaps alpha), then at the same address and
 * over the same range, in the next generation, "alpha": alpha's range grows over it. */
static void test_name_memory_reused(void **state)
{
	char d_path[PATH_MAX], mod[PATH_MAX], buf[64], name[16] = "alphaX";
	struct t2f_symcache_ident ident = fx_symcache_ident(id, sizeof(id), mod);
	struct t2f_symcache_sym s = { 0x1080, 0x117f, 0x1000, name, T2F_HIT, 1 };
	struct t2f_symcache_new *w;
	struct t2f_symcache_dir *d;
	const char *why = NULL;

	(void)state;
	pathf(d_path, "%s/reused", tmp);
	assert_int_equal(t2f_symcache_dir__open(d_path, 0, true, &d, &why), 0);
	assert_int_equal(t2f_symcache_new__new(&w), 0);
	assert_int_equal(t2f_symcache_new__set_file(w, NULL, 0, NULL, 0, 0, T2F_SYMCACHE_DW_NONE),
			 0);
	assert_int_equal(t2f_symcache_new__sym(w, &alpha), 0);
	assert_int_equal(t2f_symcache_new__sym(w, &s), 0);
	strcpy(name, "alpha");
	s.name_gen = 2;
	assert_int_equal(t2f_symcache_new__sym(w, &s), 0);
	assert_int_equal(t2f_symcache_new__write(w, d, &ident, NULL), 0);
	t2f_symcache_new__free(w);
	t2f_symcache_dir__free(d);
	assert_string_equal(answer("reused", 0x1150, buf, sizeof(buf)), "alpha");
}

static const struct t2f_dwarf_frame chain_a[] = {
	{ .name = "inner", .file = "a.c", .line = 3, .fn_file = "a.c", .fn_line = 1 },
	{ .name = "outer", .as_symbol = true, .file = "a.c", .line = 9 },
};
static const struct t2f_dwarf_frame chain_b[] = {
	{ .name = "inner", .file = "a.c", .line = 4, .fn_file = "a.c", .fn_line = 1 },
	{ .name = "outer", .as_symbol = true, .file = "a.c", .line = 9 },
};

struct span {
	uint64_t lo, last;
	const struct t2f_dwarf_frame *frames;
};

/* Writes the chains of spans s[0..n) (two frames each) as the cache file of `id` in directory
 * dir under tmp, added to what its file there held. */
static void write_chains(const char *dir, const struct span *s, size_t n)
{
	char d_path[PATH_MAX], mod[PATH_MAX];
	struct t2f_symcache_ident ident = fx_symcache_ident(id, sizeof(id), mod);
	struct t2f_symcache_new *w;
	struct t2f_symcache_dir *d;
	struct t2f_symcache *old = NULL;
	const char *why = NULL;
	bool bad = false;
	FILE *f = fopen(mod, "a"); /* the module the file names */

	assert_non_null(f);
	fclose(f);
	pathf(d_path, "%s/%s", tmp, dir);
	assert_int_equal(t2f_symcache_dir__open(d_path, 0, true, &d, &why), 0);
	assert_int_equal(t2f_symcache__open(d, &ident, &old, &bad, &why), 0);
	assert_int_equal(t2f_symcache_new__new(&w), 0);
	assert_int_equal(t2f_symcache_new__set_file(w, NULL, 0, NULL, 0, 0, T2F_SYMCACHE_DW_YES),
			 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(t2f_symcache_new__inlines(w, s[i].lo, s[i].last, s[i].frames, 2),
				 0);
	assert_int_equal(t2f_symcache_new__write(w, d, &ident, old), 0);
	t2f_symcache_new__free(w);
	t2f_symcache__free(old);
	t2f_symcache_dir__free(d);
}

/* The line of the innermost frame of the chain dir's file gives at addr, 0 when it has none. */
static uint32_t chain_at(const char *dir, uint64_t addr)
{
	char d_path[PATH_MAX], mod[PATH_MAX];
	struct t2f_symcache_ident ident = fx_symcache_ident(id, sizeof(id), mod);
	struct t2f_dwarf_frame out[4];
	struct t2f_symcache_dir *d;
	struct t2f_symcache *c = NULL;
	const char *why = NULL;
	bool bad = false;
	int n;

	pathf(d_path, "%s/%s", tmp, dir);
	assert_int_equal(t2f_symcache_dir__open(d_path, 0, false, &d, &why), 0);
	assert_int_equal(t2f_symcache__open(d, &ident, &c, &bad, &why), 0);
	assert_non_null(c);
	n = t2f_symcache__inlines(c, addr, out, 4);
	assert_true(n == -1 || n == 2);
	if (n == 2) {
		assert_string_equal(out[1].name, "outer");
		assert_int_equal(out[1].line, 9);
	}
	t2f_symcache__free(c);
	t2f_symcache_dir__free(d);
	return n == 2 ? out[0].line : 0;
}

/* Spans of one chain that overlap are one range; another chain's overlapping span is dropped
 * (the first kept); a later run's wider span joins the old file's narrower one. */
static void test_chain_spans_joined(void **state)
{
	const struct span run[] = {
		{ 0x824, 0x824, chain_a }, { 0x824, 0x827, chain_a }, /* a row of one address */
		{ 0x900, 0x90f, chain_a }, { 0x90a, 0x91f, chain_b }, /* another chain: dropped */
		{ 0x910, 0x91f, chain_b },
	};
	const struct span first[] = { { 0x824, 0x824, chain_a } };
	const struct span second[] = { { 0x826, 0x827, chain_a }, { 0x825, 0x826, chain_a } };

	(void)state;
	write_chains("chains", run, sizeof(run) / sizeof(*run));
	assert_int_equal(chain_at("chains", 0x824), 3);
	assert_int_equal(chain_at("chains", 0x826), 3);
	assert_int_equal(chain_at("chains", 0x827), 3);
	assert_int_equal(chain_at("chains", 0x828), 0);
	assert_int_equal(chain_at("chains", 0x90c), 3);
	assert_int_equal(chain_at("chains", 0x910), 4);
	assert_int_equal(chain_at("chains", 0x91f), 4);
	write_chains("runs", first, 1);
	assert_int_equal(chain_at("runs", 0x825), 0);
	write_chains("runs", second, 2);
	assert_int_equal(chain_at("runs", 0x824), 3);
	assert_int_equal(chain_at("runs", 0x825), 3);
	assert_int_equal(chain_at("runs", 0x827), 3);
}

/* The answer expected at addr of answers s[0..n) (sorted, disjoint): its index, or -1. */
static int scan(const struct t2f_symcache_sym *s, size_t n, uint64_t addr)
{
	for (size_t i = 0; i < n; i++)
		if (s[i].elf_vaddr <= addr && addr <= s[i].last)
			return (int)i;
	return -1;
}

/* A file of many answers (more than one block of its top index, the last block short) answers
 * every address as a scan of them does: each range's ends, the addresses around them. */
static void test_many_ranges_searched(void **state)
{
	enum { N = 1000 };
	static struct t2f_symcache_sym s[N];
	static char names[N][16];
	char d_path[PATH_MAX], mod[PATH_MAX];
	struct t2f_symcache_ident ident = fx_symcache_ident(id, sizeof(id), mod);
	struct t2f_symcache_dir *d;
	struct t2f_symcache *c = NULL;
	const char *why = NULL;
	bool bad = false;
	uint64_t at = 0x10000;

	(void)state;
	for (size_t i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), "f%zu", i);
		s[i] = (struct t2f_symcache_sym){ at, at + (i * 7) % 0x30, at, names[i], T2F_HIT,
						  0 };
		if (i % 5 == 3)
			s[i] = (struct t2f_symcache_sym){ at, s[i].last, 0, NULL, T2F_MISS_NOT_FOUND,
							  0 };
		at = s[i].last + 1 + (i % 3 == 0 ? 0 : i % 11);
	}
	t2f_symcache_dir__free(fx_symcache_write("many", id, sizeof(id), s, N));
	pathf(d_path, "%s/many", tmp);
	assert_int_equal(t2f_symcache_dir__open(d_path, 0, false, &d, &why), 0);
	assert_int_equal(t2f_symcache__open(d, &ident, &c, &bad, &why), 0);
	assert_non_null(c);
	for (size_t i = 0; i < N; i++) {
		const uint64_t probe[] = { s[i].elf_vaddr - 1, s[i].elf_vaddr, s[i].elf_vaddr + 1,
					   s[i].last, s[i].last + 1 };

		for (size_t k = 0; k < sizeof(probe) / sizeof(*probe); k++) {
			struct t2f_symcache_sym got;
			int want = scan(s, N, probe[k]);

			assert_int_equal(t2f_symcache__sym(c, probe[k], &got), want >= 0);
			if (want < 0)
				continue;
			assert_int_equal(got.elf_vaddr, s[want].elf_vaddr);
			assert_int_equal(got.last, s[want].last);
			if (s[want].name)
				assert_string_equal(got.name, s[want].name);
			else
				assert_null(got.name);
		}
	}
	t2f_symcache__free(c);
	t2f_symcache_dir__free(d);
}

/* The class of an address (t2f_symcache__class) in the file of directory dir, written with
 * the answers alpha, gap and beta and, with chains, chain_a over [0x1000, 0x103f] and chain_b
 * over [0x1040, 0x10ff]: its key, or -1 when it has none. */
static int64_t class_at(const char *dir, bool chains, uint64_t addr, bool inlines)
{
	char d_path[PATH_MAX], mod[PATH_MAX];
	struct t2f_symcache_ident ident = fx_symcache_ident(id, sizeof(id), mod);
	const struct t2f_symcache_sym syms[] = { alpha, gap, beta };
	struct t2f_symcache_new *w;
	struct t2f_symcache_dir *d;
	struct t2f_symcache *c = NULL;
	const char *why = NULL;
	bool bad = false;
	uint64_t key = 0;
	int64_t r;

	t2f_symcache_dir__free(fx_symcache_write(dir, id, sizeof(id), syms, 3));
	pathf(d_path, "%s/%s", tmp, dir);
	assert_int_equal(t2f_symcache_dir__open(d_path, 0, false, &d, &why), 0);
	if (chains) {
		assert_int_equal(t2f_symcache__open(d, &ident, &c, &bad, &why), 0);
		assert_int_equal(t2f_symcache_new__new(&w), 0);
		assert_int_equal(t2f_symcache_new__set_file(w, NULL, 0, NULL, 0, 0,
							    T2F_SYMCACHE_DW_YES), 0);
		assert_int_equal(t2f_symcache_new__inlines(w, 0x1000, 0x103f, chain_a, 2), 0);
		assert_int_equal(t2f_symcache_new__inlines(w, 0x1040, 0x10ff, chain_b, 2), 0);
		assert_int_equal(t2f_symcache_new__write(w, d, &ident, c), 0);
		t2f_symcache_new__free(w);
		t2f_symcache__free(c);
		c = NULL;
	}
	assert_int_equal(t2f_symcache__open(d, &ident, &c, &bad, &why), 0);
	assert_non_null(c);
	r = t2f_symcache__class(c, addr, inlines, &key) ? (int64_t)key : -1;
	t2f_symcache__free(c);
	t2f_symcache_dir__free(d);
	return r;
}

/* Addresses share a class when the address and the one before it fall in the same symbol
 * range (a miss's too) and, with inlines, the same chain's: the first address of a range has
 * none, nor has an address the file does not answer. */
static void test_classes(void **state)
{
	(void)state;
	assert_int_equal(class_at("cls", false, 0x1001, false), 0x1000);
	assert_int_equal(class_at("cls", false, 0x10ff, false), 0x1000);
	assert_int_equal(class_at("cls", false, 0x1000, false), -1);
	assert_int_equal(class_at("cls", false, 0x1100, false), -1);
	assert_int_equal(class_at("cls", false, 0x1150, false), 0x1100);
	assert_int_equal(class_at("cls", false, 0x1300, false), -1);
	assert_int_equal(class_at("cls", false, 0, false), -1);
	/* no chains in the file: no class with inlines */
	assert_int_equal(class_at("cls", false, 0x1020, true), -1);
	assert_int_equal(class_at("cls-inl", true, 0x1020, true), 0x1000);
	assert_int_equal(class_at("cls-inl", true, 0x103f, true), 0x1000);
	assert_int_equal(class_at("cls-inl", true, 0x1040, true), -1);
	assert_int_equal(class_at("cls-inl", true, 0x1041, true), 0x1040);
	assert_int_equal(class_at("cls-inl", true, 0x10ff, true), 0x1040);
	assert_int_equal(class_at("cls-inl", true, 0x1150, true), -1);
	assert_int_equal(class_at("cls-inl", true, 0x1020, false), 0x1000);
	assert_int_equal(class_at("cls-inl", true, 0x1080, false), 0x1000);
}

static const struct t2f_dwarf_frame chain_c[] = {
	{ .name = "inner2", .file = "a.c", .line = 4, .fn_file = "a.c", .fn_line = 1 },
	{ .name = "outer", .as_symbol = true, .file = "a.c", .line = 9 },
};

/* Parts of coarser classes (t2f_symcache__class_parts): chains a and b differ by a line alone,
 * c by a name; the misses between alpha and beta are one answer; the first address of a
 * symbol range has none. */
static void test_class_parts(void **state)
{
	char d_path[PATH_MAX], mod[PATH_MAX];
	struct t2f_symcache_ident ident = fx_symcache_ident(id, sizeof(id), mod);
	const struct t2f_symcache_sym syms[] = { alpha, gap, beta };
	const struct span spans[] = { { 0x1000, 0x103f, chain_a }, { 0x1040, 0x107f, chain_b },
				      { 0x1080, 0x10ff, chain_c } };
	struct t2f_symcache_parts a, b, c, m, m2, none;
	struct t2f_symcache_dir *d;
	struct t2f_symcache *f = NULL;
	const char *why = NULL;
	bool bad = false;

	(void)state;
	t2f_symcache_dir__free(fx_symcache_write("parts", id, sizeof(id), syms, 3));
	write_chains("parts", spans, 3);
	pathf(d_path, "%s/parts", tmp);
	assert_int_equal(t2f_symcache_dir__open(d_path, 0, false, &d, &why), 0);
	assert_int_equal(t2f_symcache__open(d, &ident, &f, &bad, &why), 0);
	assert_non_null(f);
	assert_true(t2f_symcache__class_parts(f, 0x1020, true, &a));
	assert_true(t2f_symcache__class_parts(f, 0x1040, true, &b));
	assert_true(t2f_symcache__class_parts(f, 0x1090, true, &c));
	assert_int_equal(a.sym, 0x1000);
	assert_int_equal(a.miss, T2F_HIT);
	assert_int_equal(a.at, a.prev);
	assert_int_equal(b.prev, a.at);  /* 0x103f is in chain a's range */
	assert_int_not_equal(b.at, a.at);
	assert_true(t2f_symcache__same_names(f, a.at, b.at));
	assert_true(t2f_symcache__names_hash(f, a.at) == t2f_symcache__names_hash(f, b.at));
	assert_false(t2f_symcache__same_names(f, a.at, c.at));
	assert_false(t2f_symcache__same_names(f, a.at, UINT32_MAX));
	assert_true(t2f_symcache__same_names(f, UINT32_MAX, UINT32_MAX));
	assert_true(t2f_symcache__class_parts(f, 0x1150, false, &m));
	assert_true(t2f_symcache__class_parts(f, 0x11ff, false, &m2));
	assert_int_equal(m.miss, T2F_MISS_NOT_FOUND);
	assert_int_equal(m.sym, 0);
	assert_int_equal(m.at, UINT32_MAX);
	assert_int_equal(m2.sym, m.sym);
	assert_false(t2f_symcache__class_parts(f, 0x1000, true, &none));
	assert_false(t2f_symcache__class_parts(f, 0x1100, false, &none));
	assert_false(t2f_symcache__class_parts(f, 0x1150, true, &none)); /* no chain there */
	t2f_symcache__free(f);
	t2f_symcache_dir__free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		FX_TEST(test_repeats_change_nothing),
		FX_TEST(test_near_repeats_kept),
		FX_TEST(test_name_memory_reused),
		FX_TEST(test_chain_spans_joined),
		FX_TEST(test_many_ranges_searched),
		FX_TEST(test_classes),
		FX_TEST(test_class_parts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
