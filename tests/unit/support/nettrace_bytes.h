/* tests/unit/support/nettrace_bytes.h: .nettrace streams built byte by byte from
 * PerfView's NetTraceFormat.md (V4/V5 FastSerialization objects, V6 blocks, rows, metadata
 * records, stacks), and a collector of what readers/nettrace_parse.h delivers, for the parser's
 * unit tests (test_nettrace_v4.c, test_nettrace_v6.c, test_nettrace_hostile.c). Header-only:
 * every function is static inline, each test keeps its own copy of the collector's state. */
#ifndef T2F_TEST_NETTRACE_BYTES_H
#define T2F_TEST_NETTRACE_BYTES_H

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

#include "formats/diag.h"
#include "readers/nettrace_parse.h"
#include "support/diag_sink.h"

/* ---- byte builder ---- */

struct bb {
	uint8_t b[8192];
	size_t n;
};

static inline void put(struct bb *b, const void *p, size_t n)
{
	assert_true(b->n + n <= sizeof(b->b));
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

static inline void u8(struct bb *b, uint8_t v) { put(b, &v, 1); }
static inline void u16(struct bb *b, uint16_t v) { u8(b, v & 0xff); u8(b, v >> 8); }
static inline void u32(struct bb *b, uint32_t v) { u16(b, v & 0xffff); u16(b, v >> 16); }
static inline void u64(struct bb *b, uint64_t v) { u32(b, (uint32_t)v); u32(b, (uint32_t)(v >> 32)); }

static inline void var(struct bb *b, uint64_t v)
{
	do {
		u8(b, (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0)));
		v >>= 7;
	} while (v);
}

/* UTF-16LE from UTF-16 code units, NUL-terminated. */
static inline void utf16z(struct bb *b, const char *ascii)
{
	for (; *ascii; ascii++)
		u16(b, (uint8_t)*ascii);
	u16(b, 0);
}

/* V6 string: varuint32 length + UTF-8 */
static inline void str6(struct bb *b, const char *s)
{
	var(b, strlen(s));
	put(b, s, strlen(s));
}

/* ---- V4/V5 container ---- */

static inline void v4_header(struct bb *b)
{
	put(b, "Nettrace", 8);
	u32(b, 20);
	put(b, "!FastSerialization.1", 20);
}

static inline void v4_type(struct bb *b, const char *name, uint32_t version)
{
	u8(b, 5);
	u8(b, 5);
	u8(b, 1);
	u32(b, version);
	u32(b, version);
	u32(b, (uint32_t)strlen(name));
	put(b, name, strlen(name));
	u8(b, 6);
}

static inline void v4_trace(struct bb *b, uint32_t ptr)
{
	v4_type(b, "Trace", 4);
	for (int i = 0; i < 8; i++)
		u16(b, (uint16_t)(2024 + i));
	u64(b, 1000);         /* SyncTimeQPC */
	u64(b, 1000000000);   /* QPCFrequency */
	u32(b, ptr);
	u32(b, 4242);         /* ProcessId */
	u32(b, 8);            /* NumberOfProcessors */
	u32(b, 1000000);      /* ExpectedCPUSamplingRate */
	u8(b, 6);
}

/* i32 BlockSize, padding to a file offset ≡ 0 mod 4, content, EndObject */
static inline void v4_block(struct bb *b, const char *name, const struct bb *content)
{
	v4_type(b, name, 2);
	u32(b, (uint32_t)content->n);
	while (b->n & 3)
		u8(b, 0);
	put(b, content->b, content->n);
	u8(b, 6);
}

/* EventBlock / MetadataBlock header: HeaderSize 20, Flags (1 = compressed), min/max time */
static inline void block_header(struct bb *c, uint16_t flags)
{
	u16(c, 20);
	u16(c, flags);
	u64(c, 0);
	u64(c, 0);
}

/* A V4 metadata row (compressed: F = meta id 0 + payload size) whose payload is a record. */
static inline void v4_meta_row(struct bb *c, const struct bb *record, bool first)
{
	u8(c, (uint8_t)((first ? 0x01 : 0) | 0x80));
	if (first)
		var(c, 0);
	var(c, 0); /* time delta */
	var(c, record->n);
	put(c, record->b, record->n);
}

static inline void v4_record(struct bb *r, uint32_t id, const char *provider, uint32_t event_id,
		      const char *name, uint32_t version)
{
	u32(r, id);
	utf16z(r, provider);
	u32(r, event_id);
	utf16z(r, name);
	u64(r, 0x10); /* keywords */
	u32(r, version);
	u32(r, 4);    /* level */
}

static inline void stack_block(struct bb *c, uint32_t first, uint32_t count, uint32_t ptr,
			const uint64_t *ips, const uint32_t *lens)
{
	u32(c, first);
	u32(c, count);
	for (uint32_t i = 0; i < count; i++) {
		u32(c, lens[i] * ptr);
		for (uint32_t j = 0; j < lens[i]; j++, ips++)
			ptr == 8 ? u64(c, *ips) : u32(c, (uint32_t)*ips);
	}
}

/* ---- V6 container ---- */

static inline void v6_header(struct bb *b)
{
	put(b, "Nettrace", 8);
	u32(b, 0);
	u32(b, 6);
	u32(b, 0);
}

static inline void v6_block(struct bb *b, uint8_t kind, const struct bb *content)
{
	u32(b, (uint32_t)content->n | (uint32_t)kind << 24);
	put(b, content->b, content->n);
}

static inline void v6_trace(struct bb *b, uint32_t ptr)
{
	struct bb c = { .n = 0 };

	for (int i = 0; i < 8; i++)
		u16(&c, 0);
	u64(&c, 500);
	u64(&c, 1000000000);
	u32(&c, ptr);
	u32(&c, 4);
	str6(&c, "HardwareThreadCount");
	str6(&c, "16");
	str6(&c, "ProcessId");
	str6(&c, "77");
	str6(&c, "ExpectedCPUSamplingRate");
	str6(&c, "250000");
	str6(&c, "SystemPageSize");
	str6(&c, "16384");
	v6_block(b, 1, &c);
}

/* ---- collector ---- */

struct ev {
	uint32_t meta_id, event_id, version;
	char provider[48], name[32], thread_name[16];
	int64_t pid, tid, ts;
	uint32_t cpu, stack_len, payload_len;
	bool stack_unknown;
	uint64_t stack[4];
	uint8_t payload[8];
	uint64_t offset;
};

struct got {
	struct nt_trace trace;
	int traces;
	struct ev ev[64];
	size_t n;
};

static int fail_at;       /* the event callback returns -EIO at this event number (1-based) */

static inline int on_trace(void *ctx, const struct nt_trace *t)
{
	struct got *g = ctx;

	g->trace = *t;
	g->traces++;
	return 0;
}

static inline int on_event(void *ctx, const struct nt_event *e)
{
	struct got *g = ctx;
	struct ev *v;

	if (fail_at && (int)g->n + 1 == fail_at)
		return -EIO;
	assert_true(g->n < 64);
	v = &g->ev[g->n++];
	memset(v, 0, sizeof(*v));
	if (e->meta) {
		v->meta_id = e->meta->id;
		v->event_id = e->meta->event_id;
		v->version = e->meta->version;
		snprintf(v->provider, sizeof(v->provider), "%s", e->meta->provider);
		snprintf(v->name, sizeof(v->name), "%s", e->meta->event_name);
	}
	if (e->thread_name)
		snprintf(v->thread_name, sizeof(v->thread_name), "%s", e->thread_name);
	v->pid = e->pid;
	v->tid = e->tid;
	v->ts = e->timestamp;
	v->cpu = e->cpu;
	v->stack_len = e->stack_len;
	v->stack_unknown = e->stack_unknown;
	for (uint32_t i = 0; i < e->stack_len && i < 4; i++)
		v->stack[i] = e->stack[i];
	assert_true(e->stack_len == 0 || e->stack != NULL);
	v->payload_len = e->payload_len;
	memcpy(v->payload, e->payload, e->payload_len < 8 ? e->payload_len : 8);
	v->offset = e->offset;
	return 0;
}

/* Feeds b in chunks of `chunk` bytes (0: all at once), then finishes. */
static inline int run(const struct bb *b, size_t len, size_t chunk, struct t2f_diag *d, struct got *g,
	       struct nt_stats *st)
{
	struct nt_sink sink = { g, on_trace, on_event };
	struct nt_parser *p;
	int err;

	memset(g, 0, sizeof(*g));
	assert_int_equal(nt_parser__new("t.nettrace", d, &sink, &p), 0);
	err = 0;
	for (size_t off = 0; !err && off < len; off += chunk ? chunk : len)
		err = nt_parser__feed(p, b->b + off,
				      chunk && len - off > chunk ? chunk : len - off);
	if (!err)
		err = nt_parser__finish(p);
	*st = *nt_parser__stats(p);
	nt_parser__free(p);
	return err;
}

static inline void assert_same_events(const struct got *a, const struct got *b, size_t n)
{
	assert_true(n <= a->n && n <= b->n);
	for (size_t i = 0; i < n; i++)
		assert_memory_equal(&a->ev[i], &b->ev[i], sizeof(a->ev[i]));
}

static inline void check_truncations(struct bb *b, size_t trace_end)
{
	struct sink s;
	static struct got whole, part;
	struct nt_stats st;

	sink_init(&s);
	t2f_diag__set_max_repeats(s.d, 0);
	assert_int_equal(run(b, b->n, 0, s.d, &whole, &st), 0);
	for (size_t len = 0; len < b->n; len++) {
		int err = run(b, len, 0, s.d, &part, &st);

		if (len < trace_end) {
			assert_int_equal(err, -T2F_ERR_FORMAT);
			continue;
		}
		assert_int_equal(err, 0);
		assert_true(st.truncated);
		assert_true(st.truncated_at <= len);
		assert_true(part.n <= whole.n);
		assert_same_events(&whole, &part, part.n);
		/* chunked the same way */
		assert_int_equal(run(b, len, 7, s.d, &part, &st), 0);
		assert_same_events(&whole, &part, part.n);
	}
	sink_close(&s);
}

#endif
