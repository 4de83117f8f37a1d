/* tests/unit/test_utf8.c: formats/utf8 — well-formed sequences of every length and the edges of
 * Unicode's table 3-7 (overlongs, surrogates, above U+10FFFF), truncated sequences, and repair
 * with one U+FFFD per maximal ill-formed prefix. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "formats/utf8.h"

#define FFFD "\xef\xbf\xbd"

static size_t seq(const char *s, size_t n, size_t *bad)
{
	*bad = 99;
	return t2f_utf8_seq((const unsigned char *)s, n, bad);
}

static void test_seq(void **state)
{
	size_t bad;

	(void)state;
	assert_int_equal(seq("a", 1, &bad), 1);
	assert_int_equal(seq("\xc3\xa9", 2, &bad), 2);              /* é */
	assert_int_equal(seq("\xe2\x82\xac", 3, &bad), 3);          /* € */
	assert_int_equal(seq("\xf0\x9f\x94\xa5", 4, &bad), 4);      /* U+1F525 */
	assert_int_equal(seq("\xf4\x8f\xbf\xbf", 4, &bad), 4);      /* U+10FFFF */
	assert_int_equal(seq("\xc0\xaf", 2, &bad), 0);              /* overlong lead */
	assert_int_equal(bad, 1);
	assert_int_equal(seq("\xe0\x80\x80", 3, &bad), 0);          /* overlong */
	assert_int_equal(bad, 1);
	assert_int_equal(seq("\xed\xa0\x80", 3, &bad), 0);          /* surrogate */
	assert_int_equal(bad, 1);
	assert_int_equal(seq("\xf4\x90\x80\x80", 4, &bad), 0);      /* above U+10FFFF */
	assert_int_equal(bad, 1);
	assert_int_equal(seq("\xe2\x82", 2, &bad), 0);              /* cut: its prefix */
	assert_int_equal(bad, 2);
	assert_int_equal(seq("\xf0\x9f\x94" "a", 4, &bad), 0);
	assert_int_equal(bad, 3);
	assert_int_equal(seq("\x80", 1, &bad), 0);                  /* lone continuation */
	assert_int_equal(bad, 1);
}

static void test_valid_and_repair(void **state)
{
	static const char mixed[] = "a\xe9" "b\xe2\x82" "c\xf0\x9f\x94\xa5\xff";
	struct t2f_buf b = { 0 };

	(void)state;
	assert_true(t2f_utf8_valid("", 0));
	assert_true(t2f_utf8_valid("caf\xc3\xa9", 5));
	assert_false(t2f_utf8_valid(mixed, sizeof(mixed) - 1));
	assert_false(t2f_utf8_valid("\xc3", 1));
	assert_int_equal(t2f_utf8_repair(&b, mixed, sizeof(mixed) - 1), 0);
	assert_int_equal(b.len, strlen("a" FFFD "b" FFFD "c\xf0\x9f\x94\xa5" FFFD));
	assert_memory_equal(b.p, "a" FFFD "b" FFFD "c\xf0\x9f\x94\xa5" FFFD, b.len);
	assert_true(t2f_utf8_valid(b.p, b.len));
	assert_int_equal(t2f_utf8_repair(&b, "ok", 2), 0);             /* reused: len reset */
	assert_int_equal(b.len, 2);
	t2f_buf__free(&b);
}

/* Control characters (C0, DEL, C1) and ill-formed bytes: found, replaced, squashed, shown. */
static void test_controls(void **state)
{
	static const char hostile[] = "a\x1b[31mb\x7f\xc2\x9b" "c\xc2\xa0\xff\td";
	struct t2f_buf b = { 0 };
	char s[64], out[64];
	const char *v;
	size_t n;

	(void)state;
	assert_true(t2f_utf8_clean("caf\xc3\xa9 \xc2\xa0x", 9));     /* U+00A0 is not C1 */
	assert_false(t2f_utf8_clean("a\x1b", 2));
	assert_false(t2f_utf8_clean("a\x7f", 2));
	assert_false(t2f_utf8_clean("a\xc2\x85", 3));                   /* U+0085 NEL */
	assert_false(t2f_utf8_clean("a\xff", 2));
	assert_int_equal(t2f_utf8_sanitize(&b, hostile, sizeof(hostile) - 1, " "), 0);
	assert_memory_equal(b.p, "a [31mb  c\xc2\xa0" FFFD " d", b.len);
	assert_int_equal(t2f_utf8_sanitize(&b, hostile, sizeof(hostile) - 1, ""), 0);
	assert_memory_equal(b.p, "a[31mbc\xc2\xa0" FFFD "d", b.len);
	assert_int_equal(t2f_utf8_sanitize(&b, "x", 1, "four"), -EINVAL);
	memcpy(s, hostile, sizeof(hostile));
	n = t2f_utf8_squash_controls(s, sizeof(hostile) - 1, '_');
	assert_int_equal(n, strlen("a_[31mb__c\xc2\xa0\xff_d"));
	assert_memory_equal(s, "a_[31mb__c\xc2\xa0\xff_d", n);     /* ill-formed bytes stay */
	v = "plain path/\xc3\xa9";
	assert_ptr_equal(t2f_utf8_visible(v, out, sizeof(out)), v);    /* clean: no copy */
	assert_string_equal(t2f_utf8_visible(hostile, out, sizeof(out)),
			    "a\\x1b[31mb\\x7f\\xc2\\x9bc\xc2\xa0\\xff\\x09d");
	/* cut at a character with "..." when it does not fit */
	assert_string_equal(t2f_utf8_visible("\x01\x02\x03\x04", out, 12), "\\x01\\x02...");
	assert_string_equal(t2f_utf8_visible("\x01\xc3\xa9\xc3\xa9", out, 10), "\\x01\xc3\xa9...");
	t2f_buf__free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seq),
		cmocka_unit_test(test_valid_and_repair),
		cmocka_unit_test(test_controls),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
