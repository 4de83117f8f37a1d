/* tests/unit/test_pb_wire.c: protobuf wire encoding, checked against bytes worked out by hand
 * from the encoding rules (little-endian base-128 varints, key = field << 3 | wire type, zigzag
 * for sint64, length-delimited strings, messages and packed runs). The multi-field messages
 * below were also fed to `protoc --decode_raw`, which printed the fields noted beside them. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "formats/pb_wire.h"

#define BYTES(...) ((const unsigned char[]){ __VA_ARGS__ })
#define EXPECT(b, ...)                                                               \
	do {                                                                         \
		static const unsigned char want_[] = { __VA_ARGS__ };                \
		assert_int_equal((b)->len, sizeof(want_));                           \
		assert_memory_equal((b)->p, want_, sizeof(want_));                   \
	} while (0)

static void test_varints(void **state)
{
	struct t2f_buf b = { 0 };

	(void)state;
	assert_int_equal(t2f_pb__put_varint(&b, 0), 0);
	EXPECT(&b, 0x00);
	b.len = 0;
	t2f_pb__put_varint(&b, 1);
	t2f_pb__put_varint(&b, 127);
	EXPECT(&b, 0x01, 0x7f);
	b.len = 0;
	t2f_pb__put_varint(&b, 128);   /* 1 0000000: low 7 bits 0 with continuation, then 1 */
	t2f_pb__put_varint(&b, 300);   /* 10 0101100 -> ac 02 */
	t2f_pb__put_varint(&b, 16384); /* 1 0000000 0000000 -> 80 80 01 */
	EXPECT(&b, 0x80, 0x01, 0xac, 0x02, 0x80, 0x80, 0x01);
	b.len = 0;
	t2f_pb__put_varint(&b, UINT64_MAX); /* 64 bits: 9 groups of 7 ones, then a 1 */
	EXPECT(&b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01);
	b.len = 0;
	t2f_pb__put_varint(&b, 1ull << 63); /* bit 63 is in the 10th group */
	EXPECT(&b, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01);
	t2f_buf__free(&b);
}

static void test_sizes(void **state)
{
	(void)state;
	assert_int_equal(t2f_pb__varint_size(0), 1);
	assert_int_equal(t2f_pb__varint_size(127), 1);
	assert_int_equal(t2f_pb__varint_size(128), 2);
	assert_int_equal(t2f_pb__varint_size(16383), 2);
	assert_int_equal(t2f_pb__varint_size(16384), 3);
	assert_int_equal(t2f_pb__varint_size((1ull << 63) - 1), 9);
	assert_int_equal(t2f_pb__varint_size(UINT64_MAX), 10);
	assert_int_equal(t2f_pb__key_size(15), 1); /* 15 << 3 | 7 = 127 */
	assert_int_equal(t2f_pb__key_size(16), 2);
	assert_int_equal(t2f_pb__len_field_size(6, 0), 2);
	assert_int_equal(t2f_pb__len_field_size(6, 200), 1 + 2 + 200);
	assert_int_equal(t2f_pb__packed_u64_size((const uint64_t[]){ 3, 270, 86942 }, 3), 6);
	assert_int_equal(t2f_pb__packed_i64_size((const int64_t[]){ -1, 1 }, 2), 11);
}

/* Every width: the size of each power of two and the value below it is the number of bytes
 * put_varint writes, counted by hand too (7 bits a byte). */
static void test_sizes_every_width(void **state)
{
	struct t2f_buf b = { 0 };

	(void)state;
	for (unsigned k = 0; k < 64; k++)
		for (uint64_t v = (1ull << k) - (k > 0), i = 0; i < 2; i++, v++) {
			size_t bits = 64 - (size_t)__builtin_clzll(v | 1);

			b.len = 0;
			assert_int_equal(t2f_pb__put_varint(&b, v), 0);
			assert_int_equal(t2f_pb__varint_size(v), b.len);
			assert_int_equal(b.len, (bits + 6) / 7);
		}
	t2f_buf__free(&b);
}

/* The cursor writers give the bytes of the buffer writers. */
static void test_cursor_matches_puts(void **state)
{
	static const uint64_t vals[] = { 0, 1, 127, 128, 300, 1ull << 35, UINT64_MAX };
	struct t2f_buf a = { 0 }, c = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		char *w;

		assert_int_equal(t2f_pb__put_uint64(&a, 3, vals[i]) ?: t2f_pb__put_varint(&a, vals[i]) ?:
				 t2f_pb__put_key(&a, 20, T2F_PB_LEN), 0);
		assert_int_equal(t2f_buf__reserve(&c, 40), 0);
		w = t2f_pb__at_uint64(c.p + c.len, 3, vals[i]);
		w = t2f_pb__at_varint(w, vals[i]);
		w = t2f_pb__at_key(w, 20, T2F_PB_LEN);
		c.len = (size_t)(w - c.p);
	}
	assert_int_equal(a.len, c.len);
	assert_memory_equal(a.p, c.p, a.len);
	t2f_buf__free(&a);
	t2f_buf__free(&c);
}

static void test_keys_and_scalars(void **state)
{
	struct t2f_buf b = { 0 };

	(void)state;
	t2f_pb__put_key(&b, 1, T2F_PB_VARINT);  /* 08 */
	t2f_pb__put_key(&b, 6, T2F_PB_LEN);     /* 6 << 3 | 2 = 50 = 32 */
	t2f_pb__put_key(&b, 15, T2F_PB_LEN);    /* 122 = 7a */
	t2f_pb__put_key(&b, 16, T2F_PB_VARINT); /* 128 = 80 01 */
	EXPECT(&b, 0x08, 0x32, 0x7a, 0x80, 0x01);
	b.len = 0;
	/* protoc --decode_raw: 1: 150 / 7: 1 / 12: 5025125 */
	t2f_pb__put_uint64(&b, 1, 150);
	t2f_pb__put_bool(&b, 7, true);
	t2f_pb__put_int64(&b, 12, 5025125); /* 0x4cad65 -> e5 da b2 02 */
	EXPECT(&b, 0x08, 0x96, 0x01, 0x38, 0x01, 0x60, 0xe5, 0xda, 0xb2, 0x02);
	t2f_buf__free(&b);
}

static void test_negative_int64_is_ten_bytes(void **state)
{
	struct t2f_buf b = { 0 };

	(void)state;
	t2f_pb__put_int64(&b, 3, -1); /* not zigzag: two's complement, 10 bytes */
	EXPECT(&b, 0x18, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01);
	b.len = 0;
	t2f_pb__put_int64(&b, 3, INT64_MIN);
	EXPECT(&b, 0x18, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01);
	t2f_buf__free(&b);
}

static void test_zigzag(void **state)
{
	struct t2f_buf b = { 0 };

	(void)state;
	assert_int_equal(t2f_pb__zigzag(0), 0);
	assert_int_equal(t2f_pb__zigzag(-1), 1);
	assert_int_equal(t2f_pb__zigzag(1), 2);
	assert_int_equal(t2f_pb__zigzag(-2), 3);
	assert_true(t2f_pb__zigzag(INT64_MAX) == UINT64_MAX - 1);
	assert_true(t2f_pb__zigzag(INT64_MIN) == UINT64_MAX);
	t2f_pb__put_sint64(&b, 1, -1);
	t2f_pb__put_sint64(&b, 1, 64); /* 128 = 80 01 */
	EXPECT(&b, 0x08, 0x01, 0x08, 0x80, 0x01);
	t2f_buf__free(&b);
}

static void test_strings(void **state)
{
	struct t2f_buf b = { 0 };

	(void)state;
	/* protoc --decode_raw: 6: "" / 6: "abc" */
	t2f_pb__put_bytes(&b, 6, "", 0);
	t2f_pb__put_bytes(&b, 6, "abc", 3);
	EXPECT(&b, 0x32, 0x00, 0x32, 0x03, 'a', 'b', 'c');
	t2f_buf__free(&b);
}

static void test_packed(void **state)
{
	struct t2f_buf b = { 0 };
	const uint64_t u[] = { 3, 270, 86942 };
	const int64_t s[] = { -1, 1 };

	(void)state;
	/* 270 = 10 0001110 -> 8e 02; 86942 = 101 0100111 0011110 -> 9e a7 05 */
	t2f_pb__put_packed_u64(&b, 4, u, 3);
	EXPECT(&b, 0x22, 0x06, 0x03, 0x8e, 0x02, 0x9e, 0xa7, 0x05);
	b.len = 0;
	t2f_pb__put_packed_i64(&b, 2, s, 2);
	EXPECT(&b, 0x12, 0x0b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x01);
	b.len = 0;
	assert_int_equal(t2f_pb__put_packed_u64(&b, 4, u, 0), 0); /* nothing for nothing */
	assert_int_equal(b.len, 0);
	t2f_buf__free(&b);
}

static void test_nested(void **state)
{
	struct t2f_buf b = { 0 };
	size_t outer, inner;

	(void)state;
	/* protoc --decode_raw: 3 { 1: 150 } */
	t2f_pb__open(&b, 3, &outer);
	t2f_pb__put_uint64(&b, 1, 150);
	t2f_pb__close(&b, outer);
	EXPECT(&b, 0x1a, 0x03, 0x08, 0x96, 0x01);
	b.len = 0;
	/* 1 { 2 { 1: 1 } } */
	t2f_pb__open(&b, 1, &outer);
	t2f_pb__open(&b, 2, &inner);
	t2f_pb__put_uint64(&b, 1, 1);
	t2f_pb__close(&b, inner);
	t2f_pb__close(&b, outer);
	EXPECT(&b, 0x0a, 0x04, 0x12, 0x02, 0x08, 0x01);
	b.len = 0;
	t2f_pb__open(&b, 1, &outer); /* empty message: key and length 0 */
	t2f_pb__close(&b, outer);
	EXPECT(&b, 0x0a, 0x00);
	t2f_buf__free(&b);
}

/* A body of 129 bytes needs a two-byte length (81 01): the body moves up by one byte. */
static void test_nested_long_body_moves(void **state)
{
	struct t2f_buf b = { 0 };
	char x[127];
	size_t m;

	(void)state;
	memset(x, 'x', sizeof(x));
	t2f_pb__put_uint64(&b, 9, 1); /* something before, which must stay put */
	t2f_pb__open(&b, 2, &m);
	t2f_pb__put_bytes(&b, 1, x, sizeof(x)); /* 0a 7f + 127 bytes = 129 */
	t2f_pb__close(&b, m);
	assert_int_equal(b.len, 2 + 1 + 2 + 2 + 127);
	assert_memory_equal(b.p, BYTES(0x48, 0x01, 0x12, 0x81, 0x01, 0x0a, 0x7f), 7);
	for (size_t i = 7; i < b.len; i++)
		assert_int_equal(b.p[i], 'x');
	t2f_buf__free(&b);

	/* 20000 bytes of body: a three-byte length (20000 = 1 0011100 0100000 -> a0 9c 01). */
	char *big = malloc(20000);
	assert_non_null(big);
	memset(big, 'y', 20000);
	t2f_pb__open(&b, 5, &m);
	t2f_buf__put(&b, big, 20000);
	t2f_pb__close(&b, m);
	assert_int_equal(b.len, 1 + 3 + 20000);
	assert_memory_equal(b.p, BYTES(0x2a, 0xa0, 0x9c, 0x01), 4);
	assert_memory_equal(b.p + 4, big, 20000);
	free(big);
	t2f_buf__free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_varints),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_sizes_every_width),
		cmocka_unit_test(test_cursor_matches_puts),
		cmocka_unit_test(test_keys_and_scalars),
		cmocka_unit_test(test_negative_int64_is_ten_bytes),
		cmocka_unit_test(test_zigzag),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_packed),
		cmocka_unit_test(test_nested),
		cmocka_unit_test(test_nested_long_body_moves),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
