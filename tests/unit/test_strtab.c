/* tests/unit/test_strtab.c: formats/strtab.c — dense ids from 1, deduplication, strings with
 * embedded NUL bytes, id 0 = "", and 100,000 strings that stay right while the buffer moves. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "formats/hashmap.h"
#include "formats/strtab.h"

static struct t2f_strtab *tab_new(void)
{
	struct t2f_strtab *t = NULL;

	assert_int_equal(t2f_strtab__new(&t), 0);
	assert_non_null(t);
	return t;
}

static t2f_str_id intern(struct t2f_strtab *t, const char *s, size_t len)
{
	t2f_str_id id = 0xdeadbeef;

	assert_int_equal(t2f_strtab__intern(t, s, len, &id), 0);
	return id;
}

static void test_id_zero_is_empty(void **state)
{
	struct t2f_strtab *t = tab_new();
	size_t len = 99;

	(void)state;
	assert_int_equal(t2f_strtab__count(t), 0);
	assert_string_equal(t2f_strtab__str(t, 0, &len), "");
	assert_int_equal(len, 0);
	assert_string_equal(t2f_strtab__str(t, 0, NULL), "");
	t2f_strtab__free(t);
	t2f_strtab__free(NULL);
}

static void test_dense_ids_and_dedup(void **state)
{
	struct t2f_strtab *t = tab_new();
	size_t len;

	(void)state;
	assert_int_equal(intern(t, "alpha", 5), 1);
	assert_int_equal(intern(t, "beta", 4), 2);
	assert_int_equal(intern(t, "alpha", 5), 1);
	assert_int_equal(intern(t, "alphabet", 8), 3);
	assert_int_equal(intern(t, "alphabet", 5), 1); /* only len bytes count */
	assert_int_equal(intern(t, "gamma", 5), 4);
	assert_int_equal(t2f_strtab__count(t), 4);
	assert_string_equal(t2f_strtab__str(t, 1, &len), "alpha");
	assert_int_equal(len, 5);
	assert_string_equal(t2f_strtab__str(t, 2, &len), "beta");
	assert_int_equal(len, 4);
	assert_string_equal(t2f_strtab__str(t, 3, &len), "alphabet");
	assert_int_equal(len, 8);
	assert_string_equal(t2f_strtab__str(t, 4, NULL), "gamma");
	t2f_strtab__free(t);
}

static void test_empty_string_interns_to_one_id(void **state)
{
	struct t2f_strtab *t = tab_new();
	t2f_str_id a, b;
	size_t len = 5;

	(void)state;
	a = intern(t, "", 0);
	b = intern(t, "x", 0);
	assert_int_equal(a, b);
	assert_string_equal(t2f_strtab__str(t, a, &len), "");
	assert_int_equal(len, 0);
	t2f_strtab__free(t);
}

static void test_embedded_nul(void **state)
{
	struct t2f_strtab *t = tab_new();
	t2f_str_id a, b, c, d;
	const char *s;
	size_t len;

	(void)state;
	a = intern(t, "a\0b", 3);
	b = intern(t, "a\0c", 3);
	c = intern(t, "a", 1);
	d = intern(t, "a\0", 2);
	assert_int_equal(a, 1);
	assert_int_equal(b, 2);
	assert_int_equal(c, 3);
	assert_int_equal(d, 4);
	assert_int_equal(intern(t, "a\0b", 3), a);
	assert_int_equal(intern(t, "a\0", 2), d);
	s = t2f_strtab__str(t, a, &len);
	assert_int_equal(len, 3);
	assert_memory_equal(s, "a\0b", 4); /* and NUL-terminated */
	s = t2f_strtab__str(t, d, &len);
	assert_int_equal(len, 2);
	assert_memory_equal(s, "a\0", 3);
	/* under one hash the bytes after a NUL still tell strings apart */
	assert_int_equal(t2f_strtab__intern_hashed(t, "x\0y", 3, 99, &a), 0);
	assert_int_equal(t2f_strtab__intern_hashed(t, "x\0z", 3, 99, &b), 0);
	assert_int_equal(a, 5);
	assert_int_equal(b, 6);
	t2f_strtab__free(t);
}

static void test_hashed_matches_plain(void **state)
{
	struct t2f_strtab *t = tab_new();
	t2f_str_id a, b, c;

	(void)state;
	a = intern(t, "libc.so.6", 9);
	assert_int_equal(t2f_strtab__intern_hashed(t, "libc.so.6", 9, t2f_hash_bytes("libc.so.6", 9),
						   &b), 0);
	assert_int_equal(a, b);
	/* a caller hash that collides for different bytes must still give different ids */
	assert_int_equal(t2f_strtab__intern_hashed(t, "one", 3, 7, &a), 0);
	assert_int_equal(t2f_strtab__intern_hashed(t, "two", 3, 7, &b), 0);
	assert_int_equal(t2f_strtab__intern_hashed(t, "one", 3, 7, &c), 0);
	assert_int_not_equal(a, b);
	assert_int_equal(a, c);
	assert_string_equal(t2f_strtab__str(t, a, NULL), "one");
	assert_string_equal(t2f_strtab__str(t, b, NULL), "two");
	t2f_strtab__free(t);
}

static void test_100k_strings_survive_buffer_moves(void **state)
{
	enum { N = 100000 };
	struct t2f_strtab *t = tab_new();
	size_t bytes0 = t2f_strtab__bytes(t), len;
	char s[64];

	(void)state;
	for (uint32_t i = 0; i < N; i++) {
		int n = snprintf(s, sizeof(s), "frame_%u_some_padding_to_make_it_longer", i);

		assert_int_equal(intern(t, s, (size_t)n), i + 1);
	}
	assert_int_equal(t2f_strtab__count(t), N);
	assert_true(t2f_strtab__bytes(t) > bytes0);
	for (uint32_t i = 0; i < N; i++) {
		int n = snprintf(s, sizeof(s), "frame_%u_some_padding_to_make_it_longer", i);
		const char *got = t2f_strtab__str(t, i + 1, &len);

		assert_int_equal(len, (size_t)n);
		assert_string_equal(got, s);
	}
	/* dedup still finds all of them */
	for (uint32_t i = 0; i < N; i += 97) {
		int n = snprintf(s, sizeof(s), "frame_%u_some_padding_to_make_it_longer", i);

		assert_int_equal(intern(t, s, (size_t)n), i + 1);
	}
	assert_int_equal(t2f_strtab__count(t), N);
	t2f_strtab__free(t);
}

/* A cleared table holds only id 0's "", and numbers strings from 1 again. */
static void test_clear(void **state)
{
	struct t2f_strtab *t = tab_new();
	char s[16];

	(void)state;
	for (int i = 0; i < 5000; i++)
		intern(t, s, (size_t)snprintf(s, sizeof(s), "s%d", i));
	t2f_strtab__clear(t);
	assert_int_equal(t2f_strtab__count(t), 0);
	assert_string_equal(t2f_strtab__str(t, 0, NULL), "");
	assert_int_equal(intern(t, "s4999", 5), 1);
	assert_int_equal(intern(t, "", 0), 2);
	assert_int_equal(intern(t, "s4999", 5), 1);
	assert_string_equal(t2f_strtab__str(t, 1, NULL), "s4999");
	assert_string_equal(t2f_strtab__str(t, 2, NULL), "");
	assert_int_equal(t2f_strtab__count(t), 2);
	t2f_strtab__free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_id_zero_is_empty),
		cmocka_unit_test(test_dense_ids_and_dedup),
		cmocka_unit_test(test_clear),
		cmocka_unit_test(test_empty_string_interns_to_one_id),
		cmocka_unit_test(test_embedded_nul),
		cmocka_unit_test(test_hashed_matches_plain),
		cmocka_unit_test(test_100k_strings_survive_buffer_moves),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
