/* tests/unit/support/perf_data_gen.h: a perf.data file of any length made in memory, for the
 * tests of the library's public API (test_session_inputs.c, test_session_cancel.c): the header,
 * one cpu-clock attr (ip, tid, time, period, callchain), a COMM and an MMAP2 record of process
 * 100 ("spin", /bin/spin at 0x400000), then `samples` samples of 3 frames in 4 stacks, a
 * FINISHED_ROUND every 1000. Little-endian (the byte order of the hosts the tests run on).
 * Header-only: every function is static. */
#ifndef T2F_TEST_PERF_DATA_GEN_H
#define T2F_TEST_PERF_DATA_GEN_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct pdg {
	uint8_t *b;
	size_t n, cap;
};

static void pdg_put(struct pdg *g, const void *p, size_t n)
{
	if (g->n + n > g->cap) {
		g->cap = (g->n + n) * 2;
		g->b = realloc(g->b, g->cap);
		if (!g->b)
			abort();
	}
	memcpy(g->b + g->n, p, n);
	g->n += n;
}

static void pdg_u64(struct pdg *g, uint64_t v) { pdg_put(g, &v, 8); }
static void pdg_u32(struct pdg *g, uint32_t v) { pdg_put(g, &v, 4); }
static void pdg_u16(struct pdg *g, uint16_t v) { pdg_put(g, &v, 2); }

static void pdg_zero(struct pdg *g, size_t n)
{
	static const uint8_t zero[128];

	while (n) {
		size_t k = n < sizeof(zero) ? n : sizeof(zero);

		pdg_put(g, zero, k);
		n -= k;
	}
}

static void pdg_hdr(struct pdg *g, uint32_t type, uint16_t misc, uint16_t size)
{
	pdg_u32(g, type);
	pdg_u16(g, misc);
	pdg_u16(g, size);
}

#define PDG_SAMPLE_BYTES 72u       /* one sample record */
#define PDG_DATA_AT (104u + 144u)  /* the data section: after the header and the attr */

/* The file: *len bytes, malloc'd (free it). */
static uint8_t *pdg_make(size_t samples, size_t *len)
{
	struct pdg g = { 0 };

	pdg_put(&g, "PERFILE2", 8);
	pdg_u64(&g, 104);                   /* header size */
	pdg_u64(&g, 144);                   /* attr entry: perf_event_attr + {ids offset, size} */
	pdg_u64(&g, 104);                   /* attrs */
	pdg_u64(&g, 144);
	pdg_u64(&g, PDG_DATA_AT);           /* data: its size set below */
	pdg_u64(&g, 0);
	pdg_u64(&g, 0);                     /* event_types */
	pdg_u64(&g, 0);
	pdg_zero(&g, 32);                   /* no feature */
	pdg_u32(&g, 1);                     /* PERF_TYPE_SOFTWARE */
	pdg_u32(&g, 128);
	pdg_u64(&g, 0);                     /* PERF_COUNT_SW_CPU_CLOCK */
	pdg_u64(&g, 4000);
	pdg_u64(&g, 0x1 | 0x2 | 0x4 | 0x20 | 0x100); /* IP, TID, TIME, CALLCHAIN, PERIOD */
	pdg_zero(&g, 128 - 32);
	pdg_u64(&g, 0);                     /* no ids */
	pdg_u64(&g, 0);
	pdg_hdr(&g, 3, 0, 24);              /* COMM 100/100 "spin" */
	pdg_u32(&g, 100);
	pdg_u32(&g, 100);
	pdg_put(&g, "spin\0\0\0\0", 8);
	pdg_hdr(&g, 10, 2, 88);             /* MMAP2 /bin/spin */
	pdg_u32(&g, 100);
	pdg_u32(&g, 100);
	pdg_u64(&g, 0x400000);
	pdg_u64(&g, 0x10000);
	pdg_u64(&g, 0);
	pdg_zero(&g, 24);                   /* maj, min, ino, ino_generation */
	pdg_u32(&g, 5);
	pdg_u32(&g, 2);
	pdg_put(&g, "/bin/spin\0\0\0\0\0\0\0", 16);
	for (size_t i = 0; i < samples; i++) {
		uint64_t leaf = 0x401000 + 0x100 * (i % 4);

		pdg_hdr(&g, 9, 2, PDG_SAMPLE_BYTES);
		pdg_u64(&g, leaf);
		pdg_u32(&g, 100);
		pdg_u32(&g, 100);
		pdg_u64(&g, 1000 + i);      /* time */
		pdg_u64(&g, 250000);        /* period */
		pdg_u64(&g, 3);
		pdg_u64(&g, leaf);
		pdg_u64(&g, 0x402000);
		pdg_u64(&g, 0x403000);
		if (i % 1000 == 999)
			pdg_hdr(&g, 68, 0, 8); /* FINISHED_ROUND */
	}
	memcpy(g.b + 48, &(uint64_t){ g.n - PDG_DATA_AT }, 8);
	*len = g.n;
	return g.b;
}

#endif
