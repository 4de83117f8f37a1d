/* tests/unit/test_pprof_gz.c: the pprof writer's gzip stage (writers/pprof_gz.c).
 *
 * Buffers of varied sizes (empty, one byte, compressible text, pseudo-random bytes, many small
 * ones) go through t2f_pprof_gz__new/__drain/__finish into a memory sink. The output must have
 * the documented 10-byte header, inflate (zlib, gzip mode, which checks CRC-32 and ISIZE) to
 * exactly the input with nothing after the member, end with the CRC-32 and length of the input,
 * be the same bytes on a second run, and be the bytes of the reference below: one raw deflate
 * block per drained buffer (an empty drain adds none), the 32 KiB before it as its dictionary,
 * sync flushes between blocks, the last buffer finishing the stream. Each case runs with both
 * engines: igzip's level 1 (libisal.so.2, linked here for the reference, so the stage's dlopen
 * finds it; a block without a dictionary starts with zlib's HEAD bytes) and zlib's level 1,
 * each against its own reference.
 *
 * Built twice: test_pprof_gz with the background threads, test_pprof_gz_serial with
 * T2F_TEST_NO_THREADS, where t2f_bg__new always fails (the stubs below replace formats/bg.c),
 * so the caller's thread deflates every block: both must give the reference's bytes.
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

#include <cmocka.h>
#include <isa-l/igzip_lib.h>
#include <zlib.h>

#include "formats/buf.h"
#include "writers/out.h"
#include "writers/pprof_int.h"

#ifdef T2F_TEST_NO_THREADS
#include "formats/bg.h"

static int bg_tries;

int t2f_bg__new(t2f_bg_fn fn, void *ctx, struct t2f_bg **out)
{
	(void)fn;
	(void)ctx;
	(void)out;
	bg_tries++;
	return -EAGAIN;
}

void t2f_bg__free(struct t2f_bg *b)
{
	assert_null(b);
}

int t2f_bg__wait(struct t2f_bg *b)
{
	(void)b;
	fail();
	return -EINVAL;
}

int t2f_bg__hand(struct t2f_bg *b, void *job)
{
	(void)b;
	(void)job;
	fail();
	return -EINVAL;
}
#endif

#define WINDOW (32u << 10)
#define HEAD 256u /* a block without history: its first bytes are zlib's */
#define MAXPIECES 512

static const unsigned char header[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 4, 3 };

/* The input: all[cut[j] .. cut[j + 1]) is buffer j; the last one goes to __finish. */
struct input {
	unsigned char *all;
	size_t len;
	size_t cut[MAXPIECES + 1];
	size_t n;
};

/* ---- inputs ---- */

static void add(struct input *in, const unsigned char *p, size_t len)
{
	assert_true(in->n < MAXPIECES);
	in->all = realloc(in->all, in->len + len + 1);
	assert_non_null(in->all);
	if (len)
		memcpy(in->all + in->len, p, len);
	in->cut[in->n] = in->len;
	in->len += len;
	in->cut[++in->n] = in->len;
}

/* Text with repeats near and far (stack-like lines), continuing from seed. */
static void add_text(struct input *in, size_t len, unsigned seed)
{
	unsigned char *p = malloc(len + 1);
	char line[96];
	size_t off = 0;

	assert_non_null(p);
	for (unsigned i = seed; off < len; i++) {
		int n = snprintf(line, sizeof(line), "main;run_%u;work_%u;libc.so.6+0x%x\n",
				 i % 7, (i * 2654435761u) % 1009, (i % 97) * 16);
		size_t k = (size_t)n < len - off ? (size_t)n : len - off;

		memcpy(p + off, line, k);
		off += k;
	}
	add(in, p, len);
	free(p);
}

static void add_random(struct input *in, size_t len, uint64_t seed)
{
	unsigned char *p = malloc(len + 1);

	assert_non_null(p);
	for (size_t i = 0; i < len; i++) {
		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		p[i] = (unsigned char)(seed >> 24);
	}
	add(in, p, len);
	free(p);
}

/* Empty, one byte, 100 KiB of text, 1.5 MiB of random bytes, many buffers of varied sizes
 * (some below 32 KiB, so a dictionary spans several earlier blocks), 1 MiB of text, then the
 * last buffer: `last` bytes of text. */
static void varied(struct input *in, size_t last)
{
	*in = (struct input){ 0 };
	add(in, NULL, 0);
	add(in, (const unsigned char *)"x", 1);
	add_text(in, 100u << 10, 0);
	add_random(in, 3u << 19, 88172645463325252ull);
	for (unsigned j = 0; j < 60; j++) {
		if (j % 10 == 3)
			add(in, NULL, 0);
		else if (j % 10 == 7)
			add_random(in, 1000 + j * 37, j + 1);
		else
			add_text(in, (j * 7919u) % 70000u + 1, j * 13);
	}
	add_text(in, 1u << 20, 5);
	add_text(in, last, 11);
}

/* ---- the stage ---- */

/* Feeds the buffers through the stage; *out gets the sink's bytes. */
static void run(const struct input *in, enum t2f_pprof_gz_mode mode, unsigned char **out,
		size_t *len)
{
	struct t2f_out *o;
	struct t2f_pprof_gz *g;
	struct t2f_buf b = { 0 };
	char *bytes;

	assert_int_equal(t2f_out__new_mem(&o), 0);
	assert_int_equal(t2f_pprof_gz__new(o, mode, &g), 0);
	assert_int_equal(t2f_pprof_gz__igzip(g), mode == T2F_PPROF_GZIP);
	for (size_t j = 0; j < in->n; j++) {
		size_t n = in->cut[j + 1] - in->cut[j];

		assert_int_equal(b.len, 0);
		assert_int_equal(t2f_buf__put(&b, in->all + in->cut[j], n), 0);
		if (j + 1 < in->n)
			assert_int_equal(t2f_pprof_gz__drain(g, &b), 0);
		else
			assert_int_equal(t2f_pprof_gz__finish(g, &b), 0);
		assert_int_equal(b.len, 0);
	}
	t2f_pprof_gz__free(g);
	t2f_buf__free(&b);
	assert_int_equal(t2f_out__finish(o), 0);
	assert_int_equal(t2f_out__take(o, &bytes, len), 0);
	t2f_out__free(o);
	*out = (unsigned char *)bytes;
}

/* ---- the reference ---- */

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void ref_zlib(const unsigned char *dict, size_t ndict, const unsigned char *in, size_t n,
		     bool last, unsigned char *p, size_t *at, size_t cap);

/* Buffer j's block by igzip's level 1, given the stage's output room, at p + *at; without a
 * dictionary, its first HEAD bytes by zlib's level 1 (sync-flushed) and the rest after them. */
static void ref_isal(const unsigned char *dict, size_t ndict, const unsigned char *in, size_t n,
		     bool last, unsigned char *p, size_t *at, size_t cap)
{
	static unsigned char level_buf[ISAL_DEF_LVL1_DEFAULT];
	struct isal_zstream zs;
	size_t head = n < HEAD ? n : HEAD;

	if (!ndict && n) {
		ref_zlib(NULL, 0, in, head, last && head == n, p, at, cap);
		if (head == n)
			return;
		dict = in;
		ndict = head;
		in += head;
		n -= head;
	}
	isal_deflate_init(&zs);
	zs.level = 1;
	zs.level_buf = level_buf;
	zs.level_buf_size = sizeof(level_buf);
	zs.gzip_flag = IGZIP_DEFLATE;
	if (ndict)
		assert_int_equal(isal_deflate_set_dict(&zs, (uint8_t *)dict, (uint32_t)ndict),
				 COMP_OK);
	zs.next_in = (uint8_t *)in;
	zs.avail_in = (uint32_t)n;
	zs.next_out = p + *at;
	zs.avail_out = (uint32_t)(n + n / 8 + (64u << 10));
	assert_true(*at + zs.avail_out <= cap);
	zs.flush = last ? NO_FLUSH : SYNC_FLUSH;
	zs.end_of_stream = last;
	assert_int_equal(isal_deflate(&zs), COMP_OK);
	assert_int_equal(zs.avail_in, 0);
	assert_true(zs.avail_out > 0);
	if (last)
		assert_int_equal(zs.internal_state.state, ZSTATE_END);
	*at = (size_t)(zs.next_out - p);
}

/* Buffer j's block by zlib's level 1 at p + *at. */
static void ref_zlib(const unsigned char *dict, size_t ndict, const unsigned char *in, size_t n,
		     bool last, unsigned char *p, size_t *at, size_t cap)
{
	z_stream zs = { 0 };

	assert_int_equal(deflateInit2(&zs, 1, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY), Z_OK);
	if (ndict)
		assert_int_equal(deflateSetDictionary(&zs, dict, (uInt)ndict), Z_OK);
	zs.next_in = (unsigned char *)in;
	zs.avail_in = (uInt)n;
	zs.next_out = p + *at;
	zs.avail_out = (uInt)(cap - *at);
	assert_int_equal(deflate(&zs, last ? Z_FINISH : Z_SYNC_FLUSH), last ? Z_STREAM_END : Z_OK);
	assert_int_equal(zs.avail_in, 0);
	assert_true(zs.avail_out > 0);
	*at = cap - zs.avail_out;
	deflateEnd(&zs);
}

/* The stream the stage documents in `mode`, built here from the whole input at once. When
 * `at_block` is not NULL, at_block[j] is where buffer j's deflated bytes start (at_block[n]:
 * the trailer). */
static void reference(const struct input *in, enum t2f_pprof_gz_mode mode, unsigned char **out,
		      size_t *len, size_t *at_block)
{
	size_t cap = in->len + in->len / 8 + (64u << 10) * (in->n + 1) + 4096;
	unsigned char *p = malloc(cap);
	size_t at = sizeof(header);

	assert_non_null(p);
	memcpy(p, header, sizeof(header));
	for (size_t j = 0; j < in->n; j++) {
		size_t start = in->cut[j], n = in->cut[j + 1] - start;
		size_t from = start > WINDOW ? start - WINDOW : 0;
		bool last = j + 1 == in->n;

		if (at_block)
			at_block[j] = at;
		if (!n && !last)
			continue;
		(mode == T2F_PPROF_GZIP ? ref_isal : ref_zlib)(in->all + from, start - from,
							       in->all + start, n, last, p, &at, cap);
	}
	if (at_block)
		at_block[in->n] = at;
	assert_true(at + 8 <= cap);
	put32(p + at, (uint32_t)crc32(crc32(0L, Z_NULL, 0), in->all, (uInt)in->len));
	put32(p + at + 4, (uint32_t)in->len);
	*out = p;
	*len = at + 8;
}

/* ---- checks ---- */

/* Inflates one gzip member; zlib's last return code (Z_STREAM_END when whole and checked). */
static int inflate_all(const unsigned char *in, size_t n, unsigned char **out, size_t *len,
		       size_t *left)
{
	z_stream zs = { 0 };
	size_t cap = 1 << 16;
	int rc;

	*out = malloc(cap);
	*len = 0;
	assert_non_null(*out);
	assert_int_equal(inflateInit2(&zs, 15 + 16), Z_OK);
	zs.next_in = (unsigned char *)in;
	zs.avail_in = (uInt)n;
	do {
		if (*len == cap) {
			*out = realloc(*out, cap *= 2);
			assert_non_null(*out);
		}
		zs.next_out = *out + *len;
		zs.avail_out = (uInt)(cap - *len);
		rc = inflate(&zs, Z_NO_FLUSH);
		*len = cap - zs.avail_out;
	} while (rc == Z_OK);
	*left = zs.avail_in;
	inflateEnd(&zs);
	return rc;
}

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Runs the stage twice on `in` in `mode` and checks everything the file comment lists. */
static void check_mode(const struct input *in, enum t2f_pprof_gz_mode mode)
{
	unsigned char *gz, *again, *ref, *raw;
	size_t gzlen, againlen, reflen, rawlen, left;

	run(in, mode, &gz, &gzlen);
	assert_true(gzlen >= sizeof(header) + 2 + 8);
	assert_memory_equal(gz, header, sizeof(header));
	assert_int_equal(inflate_all(gz, gzlen, &raw, &rawlen, &left), Z_STREAM_END);
	assert_int_equal(left, 0); /* one member, nothing after it */
	assert_int_equal(rawlen, in->len);
	if (rawlen)
		assert_memory_equal(raw, in->all, rawlen);
	assert_int_equal(get32(gz + gzlen - 8),
			 (uint32_t)crc32(crc32(0L, Z_NULL, 0), in->all, (uInt)in->len));
	assert_int_equal(get32(gz + gzlen - 4), (uint32_t)in->len);

	run(in, mode, &again, &againlen);
	assert_int_equal(againlen, gzlen);
	assert_memory_equal(again, gz, gzlen);

	reference(in, mode, &ref, &reflen, NULL);
	assert_int_equal(reflen, gzlen);
	assert_memory_equal(ref, gz, gzlen);
#ifdef T2F_TEST_NO_THREADS
	assert_true(bg_tries > 0);
#endif
	free(gz);
	free(again);
	free(ref);
	free(raw);
}

static void check(const struct input *in)
{
	check_mode(in, T2F_PPROF_GZIP);
	check_mode(in, T2F_PPROF_GZIP_ZLIB);
}

static void input_free(struct input *in)
{
	free(in->all);
}

/* ---- cases ---- */

static void test_varied_buffers_last_empty(void **state)
{
	struct input in;

	(void)state;
	varied(&in, 0);
	check(&in);
	input_free(&in);
}

static void test_varied_buffers_last_with_bytes(void **state)
{
	struct input in;

	(void)state;
	varied(&in, 3000);
	check(&in);
	input_free(&in);
}

/* Many buffers below 32 KiB: each dictionary is made of several earlier blocks. */
static void test_many_small_buffers(void **state)
{
	struct input in = { 0 };

	(void)state;
	for (unsigned j = 0; j < 300; j++)
		add_text(&in, j % 5 == 4 ? 0 : (j * 131u) % 3000u + 1, j % 9);
	check(&in);
	input_free(&in);
}

/* Large blocks only: several blocks in flight on both slots. */
static void test_large_buffers(void **state)
{
	struct input in = { 0 };

	(void)state;
	for (unsigned j = 0; j < 9; j++)
		if (j % 3 == 1)
			add_random(&in, (1u << 20) + j, j + 7);
		else
			add_text(&in, (1u << 20) + 4096 * j, j * 1000);
	check(&in);
	input_free(&in);
}

/* Nothing at all: the header, the final empty block (zlib's: fixed codes), CRC 0, length 0. */
static void test_empty_stream(void **state)
{
	static const unsigned char want[] = {
		0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 4, 3, 0x03, 0x00, 0, 0, 0, 0, 0, 0, 0, 0,
	};
	struct input in = { 0 };
	unsigned char *gz;
	size_t len;

	(void)state;
	add(&in, NULL, 0);
	run(&in, T2F_PPROF_GZIP_ZLIB, &gz, &len);
	assert_int_equal(len, sizeof(want));
	assert_memory_equal(gz, want, sizeof(want));
	check(&in);
	free(gz);
	input_free(&in);
}

/* One buffer, straight to __finish. */
static void test_single_block(void **state)
{
	struct input in = { 0 };

	(void)state;
	add_text(&in, 100u << 10, 3);
	check(&in);
	input_free(&in);
}

/* A wrong CRC, a wrong length or a missing block: the checks above would see each. */
static void damage_is_seen(enum t2f_pprof_gz_mode mode)
{
	struct input in;
	unsigned char *gz, *raw, *ref;
	size_t len, rawlen, left, reflen, at_block[MAXPIECES + 1], from, to;

	varied(&in, 100);
	run(&in, mode, &gz, &len);
	gz[len - 8] ^= 1; /* CRC */
	assert_int_equal(inflate_all(gz, len, &raw, &rawlen, &left), Z_DATA_ERROR);
	free(raw);
	gz[len - 8] ^= 1;
	gz[len - 4] ^= 1; /* ISIZE */
	assert_int_equal(inflate_all(gz, len, &raw, &rawlen, &left), Z_DATA_ERROR);
	free(raw);
	gz[len - 4] ^= 1;
	assert_int_equal(inflate_all(gz, len, &raw, &rawlen, &left), Z_STREAM_END);
	assert_int_equal(rawlen, in.len);
	free(raw);
	free(gz);

	/* the stream without one block's bytes (the 100 KiB of text, blocks being byte-aligned) */
	reference(&in, mode, &ref, &reflen, at_block);
	from = at_block[2];
	to = at_block[3];
	assert_true(to > from);
	memmove(ref + from, ref + to, reflen - to);
	assert_int_equal(inflate_all(ref, reflen - (to - from), &raw, &rawlen, &left), Z_DATA_ERROR);
	free(raw);
	free(ref);
	input_free(&in);
}

static void test_damage_is_seen(void **state)
{
	(void)state;
	damage_is_seen(T2F_PPROF_GZIP);
	damage_is_seen(T2F_PPROF_GZIP_ZLIB);
}

/* raw: the buffers' bytes, no header, no trailer. */
static void test_raw_passes_bytes_through(void **state)
{
	struct input in;
	unsigned char *out;
	size_t len;

	(void)state;
	varied(&in, 77);
	run(&in, T2F_PPROF_RAW, &out, &len);
	assert_int_equal(len, in.len);
	assert_memory_equal(out, in.all, len);
	free(out);
	input_free(&in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_varied_buffers_last_empty),
		cmocka_unit_test(test_varied_buffers_last_with_bytes),
		cmocka_unit_test(test_many_small_buffers),
		cmocka_unit_test(test_large_buffers),
		cmocka_unit_test(test_empty_stream),
		cmocka_unit_test(test_single_block),
		cmocka_unit_test(test_damage_is_seen),
		cmocka_unit_test(test_raw_passes_bytes_through),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
