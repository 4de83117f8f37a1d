/* tests/unit/test_pprof_deflate.c: a deflate engine's bytes do not depend on where the engine
 * lies in memory (writers/pprof_deflate.c).
 *
 * ISA-L 2.30's level-1 igzip files the third byte of a block without history under a hash
 * taken from the state's address, so the same bytes deflated by states at other addresses
 * can come out as other (valid) streams. Here calloc is wrapped (-Wl,--wrap=calloc,
 * --wrap=free): while `place` is set, the engine's own allocation (the one calloc of at least
 * PLACED_MIN bytes) is an anonymous mapping at a chosen address, so the engine's state lies at
 * each of a few thousand addresses in turn, 64 KiB and more apart; each engine deflates the
 * same short blocks, with and without a dictionary, and every engine must give the bytes of
 * the first. Without libisal.so.2 the engine is zlib's and the test still runs (zlib is
 * deterministic).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <cmocka.h>
#include <zlib.h>

#include "formats/buf.h"
#include "writers/pprof_int.h"

#define PLACED_MIN (16u << 10)           /* the engine's struct: the state is inline */
#define BASE ((uintptr_t)0x300000000000) /* past the heap and ASan's shadow, below mmap's */
#define TRIES 4096

void *__real_calloc(size_t n, size_t size);
void __real_free(void *p);

static uintptr_t place;     /* the next engine's address; 0: calloc as usual */
static void *placed;        /* the mapping made for it */
static size_t placed_len;

void *__wrap_calloc(size_t n, size_t size)
{
	void *p;

	if (!place || n * size < PLACED_MIN)
		return __real_calloc(n, size);
	p = mmap((void *)place, n * size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (p != (void *)place) { /* a kernel before 4.17 takes the address as a hint only */
		munmap(p, n * size);
		return NULL;
	}
	placed = p;
	placed_len = n * size;
	place = 0;
	return p; /* zero-filled, as calloc's */
}

void __wrap_free(void *p)
{
	if (p && p == placed) {
		munmap(p, placed_len);
		placed = NULL;
		return;
	}
	__real_free(p);
}

/* Short blocks whose later bytes repeat the third byte's: the repeat is found only when that
 * byte was filed under its own hash. */
static const char text[] = "ab-cdefgh-ab-cdefgh";
static const char dict[] = "stack;main;work;";

/* What the engine at `at` makes of text: without a dictionary, the stream's end; then after
 * dict. 0, or -1 when nothing could be mapped there. */
static int deflate_at(uintptr_t at, struct t2f_buf *out)
{
	struct t2f_pprof_deflate *d;

	place = at;
	if (t2f_pprof_deflate__new(false, &d) != 0) {
		place = 0;
		return -1;
	}
	assert_ptr_equal(d, (void *)at);
	out->len = 0;
	assert_int_equal(t2f_pprof_deflate__block(d, NULL, 0, text, strlen(text), true, out), 0);
	assert_int_equal(t2f_pprof_deflate__block(d, NULL, 0, text, strlen(text), false, out), 0);
	assert_int_equal(
		t2f_pprof_deflate__block(d, dict, strlen(dict), text, strlen(text), true, out), 0);
	t2f_pprof_deflate__free(d);
	assert_null(placed);
	return 0;
}

/* The first stream of out[0..len): inflated, it is text. */
static void inflates_to_text(const struct t2f_buf *out)
{
	z_stream zs = { 0 };
	unsigned char got[64];

	assert_int_equal(inflateInit2(&zs, -15), Z_OK);
	zs.next_in = (unsigned char *)out->p;
	zs.avail_in = (uInt)out->len;
	zs.next_out = got;
	zs.avail_out = sizeof(got);
	assert_int_equal(inflate(&zs, Z_FINISH), Z_STREAM_END);
	assert_int_equal(zs.total_out, strlen(text));
	assert_memory_equal(got, text, strlen(text));
	inflateEnd(&zs);
}

static void test_same_bytes_wherever_the_engine_lies(void **state)
{
	struct t2f_buf first = { 0 }, out = { 0 };
	int tried = 0;

	(void)state;
	assert_int_equal(deflate_at(BASE, &first), 0);
	inflates_to_text(&first);
	for (uintptr_t k = 1; k < TRIES; k++) {
		/* steps of 64 KiB and more, so the address's bits from 16 up vary */
		uintptr_t at = BASE + ((k * 0x9e3779b1u) % 0xfffffu) * 0x10000u;

		if (deflate_at(at, &out) != 0)
			continue;
		tried++;
		assert_int_equal(out.len, first.len);
		assert_memory_equal(out.p, first.p, first.len);
	}
	assert_true(tried > TRIES / 2);
	t2f_buf__free(&first);
	t2f_buf__free(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_bytes_wherever_the_engine_lies),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
