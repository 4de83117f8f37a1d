/* tests/unit/test_inflate.c: one stream decoded whole into a buffer of its known size
 * (formats/inflate.h), by igzip and by zlib alike.
 *
 * The streams are made here by zlib's compress2 and libzstd's ZSTD_compress from 3 MiB of
 * DWARF-like bytes (repeated records with varying numbers: it compresses about 4:1, as debug
 * sections do). Each engine must give back exactly those bytes, and both must refuse, with
 * T2F_ERR_DECOMPRESS and no write past `size`, a stream cut short, a stream one byte longer or
 * shorter than the size given, a wrong Adler-32 and a bad block.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zlib.h>
#include <zstd.h>

#include "formats/diag.h"
#include "formats/inflate.h"

#define N (3u << 20)
#define GUARD 64

static unsigned char *plain;
static unsigned char *zs, *zst;  /* zlib and zstd streams of plain */
static size_t zs_n, zst_n;

static int setup(void **state)
{
	uLongf n = compressBound(N);

	(void)state;
	plain = malloc(N);
	zs = malloc(n);
	zst = malloc(ZSTD_compressBound(N));
	if (!plain || !zs || !zst)
		return -1;
	for (uint32_t i = 0, x = 7; i < N; i++) {
		x = x * 1103515245u + 12345u;
		plain[i] = i % 24 < 16 ? (unsigned char)("DW_TAG_subprogram\0\x11\x22"[i % 24])
				       : (unsigned char)(x >> 24 & 0x0f);
	}
	if (compress2(zs, &n, plain, N, 6) != Z_OK)
		return -1;
	zs_n = n;
	zst_n = ZSTD_compress(zst, ZSTD_compressBound(N), plain, N, 3);
	return ZSTD_isError(zst_n) ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	free(plain);
	free(zs);
	free(zst);
	return 0;
}

/* in[0..n) by engine (0 zlib, 1 the default: igzip when it loads, 2 zstd) into size bytes;
 * the bytes past size must stay untouched. */
static int run(int engine, const unsigned char *in, size_t n, size_t size, unsigned char **out)
{
	unsigned char *buf = malloc(size + GUARD);
	int err;

	assert_non_null(buf);
	memset(buf, 0xa5, size + GUARD);
	err = engine == 2 ? t2f_inflate__zstd(in, n, buf, size)
			  : t2f_inflate__zlib(in, n, buf, size, engine == 0);
	for (size_t i = size; i < size + GUARD; i++)
		assert_int_equal(buf[i], 0xa5);
	*out = buf;
	return err;
}

static void expect_refused(int engine, const unsigned char *in, size_t n, size_t size)
{
	unsigned char *out;

	assert_int_equal(run(engine, in, n, size, &out), -T2F_ERR_DECOMPRESS);
	free(out);
}

static void test_whole_stream(void **state)
{
	unsigned char *out;

	(void)state;
	for (int e = 0; e < 3; e++) {
		assert_int_equal(run(e, e == 2 ? zst : zs, e == 2 ? zst_n : zs_n, N, &out), 0);
		assert_memory_equal(out, plain, N);
		free(out);
	}
}

static void test_igzip_present(void **state)
{
	(void)state;
	/* README's build packages include libisal-dev, which brings libisal.so.2 */
	assert_true(t2f_inflate__igzip());
}

static void test_wrong_sizes(void **state)
{
	(void)state;
	for (int e = 0; e < 3; e++) {
		const unsigned char *in = e == 2 ? zst : zs;
		size_t n = e == 2 ? zst_n : zs_n;

		expect_refused(e, in, n, N - 1);  /* longer than declared */
		expect_refused(e, in, n, N + 1);  /* shorter */
		expect_refused(e, in, n / 2, N);  /* cut short */
		expect_refused(e, in, 0, N);
	}
}

static void test_corrupt(void **state)
{
	unsigned char *bad = malloc(zs_n);

	(void)state;
	assert_non_null(bad);
	for (int e = 0; e < 2; e++) {
		memcpy(bad, zs, zs_n);
		bad[zs_n - 1] ^= 0x01;  /* the Adler-32's last byte */
		expect_refused(e, bad, zs_n, N);
		memcpy(bad, zs, zs_n);
		bad[0] = 0x77;          /* not a zlib header (CM 7) */
		expect_refused(e, bad, zs_n, N);
		memcpy(bad, zs, zs_n);
		memset(bad + zs_n / 2, 0xff, 64); /* a bad block or a wrong check */
		expect_refused(e, bad, zs_n, N);
	}
	memcpy(bad, zst, zst_n);
	bad[0] ^= 0xff;             /* not zstd's magic */
	expect_refused(2, bad, zst_n, N);
	free(bad);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole_stream),
		cmocka_unit_test(test_igzip_present),
		cmocka_unit_test(test_wrong_sizes),
		cmocka_unit_test(test_corrupt),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
