/* tests/unit/support/perf_data_bytes.h: a byte builder for perf.data files written in either
 * byte order, for the perf.data unit tests (test_perf_data.c, test_perf_data_conv.c).
 * Header-only: every function is static inline. */
#ifndef T2F_TEST_PERF_DATA_BYTES_H
#define T2F_TEST_PERF_DATA_BYTES_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

struct bb {
	uint8_t b[32768];
	size_t n;
	bool be;        /* write big-endian */
};

static inline void put(struct bb *b, const void *p, size_t n)
{
	assert_true(b->n + n <= sizeof(b->b));
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

/* v's low `bytes` bytes in the builder's byte order. */
static inline void uN(struct bb *b, uint64_t v, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++) {
		uint8_t c = (uint8_t)(v >> (8 * (b->be ? bytes - 1 - i : i)));

		put(b, &c, 1);
	}
}

static inline void u64(struct bb *b, uint64_t v) { uN(b, v, 8); }
static inline void u32(struct bb *b, uint32_t v) { uN(b, v, 4); }
static inline void u16(struct bb *b, uint16_t v) { uN(b, v, 2); }

/* Overwrites the u64 at offset `at`. */
static inline void set64(struct bb *b, size_t at, uint64_t v)
{
	size_t n = b->n;

	b->n = at;
	u64(b, v);
	b->n = n;
}

/* v's bits in reverse order (perf_event_attr's flag bits in a big-endian file). */
static inline uint8_t rev(uint8_t v)
{
	uint8_t r = 0;

	for (int i = 0; i < 8; i++)
		if (v >> i & 1)
			r |= (uint8_t)(1u << (7 - i));
	return r;
}

#endif
