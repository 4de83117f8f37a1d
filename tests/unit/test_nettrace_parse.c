/* tests/unit/test_nettrace_parse.c: the nettrace container parser (readers/nettrace_parse.h) on
 * small V4/V5 and V6 streams built here byte by byte from ../shared/specs/nettrace.md: header
 * compression and sticky fields, stacks (8- and 4-byte pointers) and sequence-point flushes, V5
 * metadata tags, V6 threads, label lists, unknown blocks; every chunk size; truncation at every
 * byte; hostile sizes, varints and ids. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
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

static void put(struct bb *b, const void *p, size_t n)
{
	assert_true(b->n + n <= sizeof(b->b));
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

static void u8(struct bb *b, uint8_t v) { put(b, &v, 1); }
static void u16(struct bb *b, uint16_t v) { u8(b, v & 0xff); u8(b, v >> 8); }
static void u32(struct bb *b, uint32_t v) { u16(b, v & 0xffff); u16(b, v >> 16); }
static void u64(struct bb *b, uint64_t v) { u32(b, (uint32_t)v); u32(b, (uint32_t)(v >> 32)); }

static void var(struct bb *b, uint64_t v)
{
	do {
		u8(b, (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0)));
		v >>= 7;
	} while (v);
}

/* UTF-16LE from UTF-16 code units, NUL-terminated. */
static void utf16z(struct bb *b, const char *ascii)
{
	for (; *ascii; ascii++)
		u16(b, (uint8_t)*ascii);
	u16(b, 0);
}

/* V6 string: varuint32 length + UTF-8 */
static void str6(struct bb *b, const char *s)
{
	var(b, strlen(s));
	put(b, s, strlen(s));
}

/* ---- V4/V5 container ---- */

static void v4_header(struct bb *b)
{
	put(b, "Nettrace", 8);
	u32(b, 20);
	put(b, "!FastSerialization.1", 20);
}

static void v4_type(struct bb *b, const char *name, uint32_t version)
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

static void v4_trace(struct bb *b, uint32_t ptr)
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
static void v4_block(struct bb *b, const char *name, const struct bb *content)
{
	v4_type(b, name, 2);
	u32(b, (uint32_t)content->n);
	while (b->n & 3)
		u8(b, 0);
	put(b, content->b, content->n);
	u8(b, 6);
}

/* EventBlock / MetadataBlock header: HeaderSize 20, Flags (1 = compressed), min/max time */
static void block_header(struct bb *c, uint16_t flags)
{
	u16(c, 20);
	u16(c, flags);
	u64(c, 0);
	u64(c, 0);
}

/* A V4 metadata row (compressed: F = meta id 0 + payload size) whose payload is a record. */
static void v4_meta_row(struct bb *c, const struct bb *record, bool first)
{
	u8(c, (uint8_t)((first ? 0x01 : 0) | 0x80));
	if (first)
		var(c, 0);
	var(c, 0); /* time delta */
	var(c, record->n);
	put(c, record->b, record->n);
}

static void v4_record(struct bb *r, uint32_t id, const char *provider, uint32_t event_id,
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

static void stack_block(struct bb *c, uint32_t first, uint32_t count, uint32_t ptr,
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

static void v6_header(struct bb *b)
{
	put(b, "Nettrace", 8);
	u32(b, 0);
	u32(b, 6);
	u32(b, 0);
}

static void v6_block(struct bb *b, uint8_t kind, const struct bb *content)
{
	u32(b, (uint32_t)content->n | (uint32_t)kind << 24);
	put(b, content->b, content->n);
}

static void v6_trace(struct bb *b, uint32_t ptr)
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

static int on_trace(void *ctx, const struct nt_trace *t)
{
	struct got *g = ctx;

	g->trace = *t;
	g->traces++;
	return 0;
}

static int on_event(void *ctx, const struct nt_event *e)
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
	for (uint32_t i = 0; i < e->stack_len && i < 4; i++)
		v->stack[i] = e->stack[i];
	assert_true(e->stack_len == 0 || e->stack != NULL);
	v->payload_len = e->payload_len;
	memcpy(v->payload, e->payload, e->payload_len < 8 ? e->payload_len : 8);
	v->offset = e->offset;
	return 0;
}

/* Feeds b in chunks of `chunk` bytes (0: all at once), then finishes. */
static int run(const struct bb *b, size_t len, size_t chunk, struct t2f_diag *d, struct got *g,
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

static void assert_same_events(const struct got *a, const struct got *b, size_t n)
{
	assert_true(n <= a->n && n <= b->n);
	for (size_t i = 0; i < n; i++)
		assert_memory_equal(&a->ev[i], &b->ev[i], sizeof(a->ev[i]));
}

/* ---- the V4 stream ---- */

static const uint64_t v4_ips[] = { 0x1111, 0x2222, 0x3333, 0xffff800000001234ull };
static const uint32_t v4_lens[] = { 2, 1, 1 };

/* Trace, metadata (ids 1 and 2), stacks 1..3, an event block of four rows, an SP, an event
 * block whose row uses stack 1 again (flushed), the end tag. */
static void v4_stream(struct bb *b, uint32_t ptr)
{
	struct bb c = { .n = 0 }, r = { .n = 0 };

	v4_header(b);
	v4_trace(b, ptr);

	block_header(&c, 1);
	v4_record(&r, 1, "Microsoft-DotNETCore-SampleProfiler", 0, "", 0);
	v4_meta_row(&c, &r, true);
	r.n = 0;
	v4_record(&r, 2, "Prov\xe9", 7, "Ev", 2); /* U+00E9 as one UTF-16 unit */
	v4_meta_row(&c, &r, false);
	v4_block(b, "MetadataBlock", &c);

	c.n = 0;
	stack_block(&c, 1, 3, ptr, v4_ips, v4_lens);
	v4_block(b, "StackBlock", &c);

	c.n = 0;
	block_header(&c, 1);
	/* row 1: everything */
	u8(&c, 0x01 | 0x02 | 0x04 | 0x08 | 0x80);
	var(&c, 1);          /* meta */
	var(&c, 4);          /* seq delta - 1 → 5 */
	var(&c, 3444);       /* capture thread */
	var(&c, 3);          /* cpu */
	var(&c, 7532);       /* thread */
	var(&c, 1);          /* stack */
	var(&c, 2000);       /* time delta */
	var(&c, 4);          /* payload size */
	u32(&c, 2);
	/* row 2: sticky meta, thread, stack, payload size; time delta only */
	u8(&c, 0x40);
	var(&c, 10);
	u32(&c, 1);
	/* row 3: meta 2, new thread, stack 3, activity ids, payload 1 byte */
	u8(&c, 0x01 | 0x04 | 0x08 | 0x10 | 0x20 | 0x80);
	var(&c, 2);
	var(&c, 99);
	var(&c, 3);
	var(&c, 0x80); /* two-byte varint */
	for (int i = 0; i < 32; i++)
		u8(&c, (uint8_t)i);
	var(&c, 1);
	u8(&c, 0xab);
	/* row 4: no stack (id 0), undefined metadata id 9 */
	u8(&c, 0x01 | 0x08);
	var(&c, 9);
	var(&c, 0);
	var(&c, 1);
	u8(&c, 0xcd);
	v4_block(b, "EventBlock", &c);

	c.n = 0;
	u64(&c, 5000);
	u32(&c, 1);
	u64(&c, 7532);
	u32(&c, 6);
	v4_block(b, "SPBlock", &c);

	c.n = 0;
	block_header(&c, 1);
	u8(&c, 0x01 | 0x04 | 0x08 | 0x80);
	var(&c, 1);
	var(&c, 7532);
	var(&c, 1);      /* stack 1: gone since the SP */
	var(&c, 6000);
	var(&c, 0);
	v4_block(b, "EventBlock", &c);
	u8(b, 1);
}

static void check_v4_events(const struct got *g, uint32_t ptr)
{
	assert_int_equal(g->traces, 1);
	assert_int_equal(g->trace.major, 4);
	assert_int_equal(g->trace.pointer_size, ptr);
	assert_int_equal(g->trace.pid, 4242);
	assert_int_equal(g->trace.cpus, 8);
	assert_int_equal(g->trace.qpc_freq, 1000000000);
	assert_int_equal(g->trace.sync_qpc, 1000);
	assert_int_equal(g->trace.sampling_ns, 1000000);
	assert_int_equal(g->n, 5);

	assert_string_equal(g->ev[0].provider, "Microsoft-DotNETCore-SampleProfiler");
	assert_int_equal(g->ev[0].meta_id, 1);
	assert_int_equal(g->ev[0].pid, 4242);
	assert_int_equal(g->ev[0].tid, 7532);
	assert_int_equal(g->ev[0].cpu, 3);
	assert_int_equal(g->ev[0].ts, 2000);
	assert_int_equal(g->ev[0].stack_len, 2);
	assert_int_equal(g->ev[0].stack[0], 0x1111);
	assert_int_equal(g->ev[0].stack[1], 0x2222);
	assert_int_equal(g->ev[0].payload_len, 4);
	assert_int_equal(g->ev[0].payload[0], 2);

	assert_int_equal(g->ev[1].meta_id, 1);      /* sticky */
	assert_int_equal(g->ev[1].tid, 7532);
	assert_int_equal(g->ev[1].ts, 2010);        /* delta */
	assert_int_equal(g->ev[1].stack_len, 2);
	assert_int_equal(g->ev[1].payload_len, 4);
	assert_int_equal(g->ev[1].payload[0], 1);
	assert_int_equal(g->ev[1].cpu, 3);

	assert_string_equal(g->ev[2].provider, "Prov\xc3\xa9");
	assert_string_equal(g->ev[2].name, "Ev");
	assert_int_equal(g->ev[2].event_id, 7);
	assert_int_equal(g->ev[2].version, 2);
	assert_int_equal(g->ev[2].tid, 99);
	assert_int_equal(g->ev[2].ts, 2010 + 0x80);
	assert_int_equal(g->ev[2].stack_len, 1);
	assert_int_equal(g->ev[2].stack[0], ptr == 8 ? 0xffff800000001234ull : 0x1234);
	assert_int_equal(g->ev[2].payload_len, 1);
	assert_int_equal(g->ev[2].payload[0], 0xab);

	assert_int_equal(g->ev[3].meta_id, 0);      /* id 9 never defined */
	assert_int_equal(g->ev[3].stack_len, 0);
	assert_int_equal(g->ev[3].payload[0], 0xcd);

	assert_int_equal(g->ev[4].stack_len, 0);    /* stack 1 flushed by the SP */
	assert_int_equal(g->ev[4].ts, 6000);        /* state reset per block */
	assert_int_equal(g->ev[4].payload_len, 0);
}

static void test_v4_stream(void **state)
{
	struct sink s;
	struct bb b = { .n = 0 };
	struct got g;
	struct nt_stats st;

	sink_init(&s);
	v4_stream(&b, 8);
	assert_true(nt_detect(b.b, b.n));
	assert_int_equal(run(&b, b.n, 0, s.d, &g, &st), 0);
	check_v4_events(&g, 8);
	assert_int_equal(st.events, 5);
	assert_int_equal(st.metadata, 2);
	assert_int_equal(st.blocks, 6);
	assert_int_equal(st.unknown_meta, 1);
	assert_int_equal(st.unknown_stack, 1);
	assert_int_equal(st.bad_rows, 0);
	assert_false(st.truncated);
	assert_string_equal(sink_text(&s), "");
	sink_close(&s);
}

static void test_v4_pointer4(void **state)
{
	struct sink s;
	struct bb b = { .n = 0 };
	struct got g;
	struct nt_stats st;

	sink_init(&s);
	v4_stream(&b, 4);
	assert_int_equal(run(&b, b.n, 0, s.d, &g, &st), 0);
	check_v4_events(&g, 4);
	assert_string_equal(sink_text(&s), "");
	sink_close(&s);
}

/* Every chunk size gives the same events, offsets included. */
static void test_v4_chunks(void **state)
{
	struct sink s;
	struct bb b = { .n = 0 };
	static struct got whole, part;
	struct nt_stats st;

	sink_init(&s);
	v4_stream(&b, 8);
	assert_int_equal(run(&b, b.n, 0, s.d, &whole, &st), 0);
	for (size_t chunk = 1; chunk <= b.n; chunk++) {
		assert_int_equal(run(&b, b.n, chunk, s.d, &part, &st), 0);
		assert_int_equal(part.n, whole.n);
		assert_same_events(&whole, &part, whole.n);
	}
	assert_string_equal(sink_text(&s), "");
	sink_close(&s);
}

/* Cut at every byte: an error only before the Trace object is complete, else a truncation
 * warning (or none at the exact end), and the events delivered are a prefix of the whole. */
static void check_truncations(struct bb *b, size_t trace_end)
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
			assert_int_equal(err, -T2F_E_FORMAT);
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

static void test_v4_truncated_everywhere(void **state)
{
	struct bb b = { .n = 0 }, t = { .n = 0 };

	v4_stream(&b, 8);
	v4_header(&t);
	v4_trace(&t, 8);
	check_truncations(&b, t.n);
}

/* Cut inside an event block: its complete rows are kept, and the warning has the offset. */
static void test_v4_truncated_block(void **state)
{
	struct sink s;
	struct bb b = { .n = 0 };
	struct got g;
	struct nt_stats st;
	char want[128];

	sink_init(&s);
	v4_stream(&b, 8);
	/* the first EventBlock's rows 1-2 end 16 bytes into row 3; cut 10 bytes into row 3 */
	size_t cut = 0;
	for (size_t i = 0; i + 10 < b.n; i++)
		if (!memcmp(b.b + i, "EventBlock", 10)) {
			cut = i;
			break;
		}
	assert_true(cut > 0);
	size_t obj = cut - 15;
	size_t content = cut + 10 + 1 + 4;
	while (content & 3)
		content++;
	size_t row3 = content + 20 + (1 + 1 + 1 + 2 + 2 + 2 + 2 + 1 + 4) + (1 + 1 + 4);
	assert_int_equal(b.b[row3], 0x01 | 0x04 | 0x08 | 0x10 | 0x20 | 0x80);
	assert_int_equal(run(&b, row3 + 10, 0, s.d, &g, &st), 0);
	assert_int_equal(g.n, 2);
	assert_true(st.truncated);
	assert_int_equal(st.truncated_at, obj);
	assert_int_equal(st.bad_rows, 0);
	snprintf(want, sizeof(want), "t.nettrace: offset %zu: the file ends inside a block", obj);
	assert_non_null(strstr(sink_text(&s), want));
	sink_close(&s);
}

/* V5 metadata: V1 field count 0, then an OpCode tag and a V2Params tag with an array field. */
static void test_v5_metadata_tags(void **state)
{
	struct sink s;
	struct bb b = { .n = 0 }, c = { .n = 0 }, r = { .n = 0 }, f = { .n = 0 };
	struct got g;
	struct nt_stats st;

	sink_init(&s);
	v4_header(&b);
	v4_trace(&b, 8);
	block_header(&c, 1);
	v4_record(&r, 5, "TestEventSource0", 3, "TestEvent3", 1);
	u32(&r, 0);                /* V1 field count */
	u32(&r, 1);                /* OpCode tag: size 1, kind 1, opcode 24 */
	u8(&r, 1);
	u8(&r, 24);
	/* V2Params: count 1; field: size (incl.), "arr", type 19 Array of 9 Int32 */
	u32(&f, 1);
	u32(&f, 4 + 8 + 4 + 4);
	utf16z(&f, "arr");
	u32(&f, 19);
	u32(&f, 9);
	u32(&r, (uint32_t)f.n);
	u8(&r, 2);
	put(&r, f.b, f.n);
	v4_meta_row(&c, &r, true);
	/* a record whose tag claims more bytes than it has: kept, with a warning */
	r.n = 0;
	v4_record(&r, 6, "P", 1, "E", 0);
	u32(&r, 0);
	u32(&r, 100);
	u8(&r, 2);
	v4_meta_row(&c, &r, false);
	v4_block(&b, "MetadataBlock", &c);
	c.n = 0;
	block_header(&c, 1);
	u8(&c, 0x01 | 0x80);
	var(&c, 5);
	var(&c, 1);
	var(&c, 0);
	u8(&c, 0x01);
	var(&c, 6);
	var(&c, 1);
	v4_block(&b, "EventBlock", &c);
	u8(&b, 1);

	assert_int_equal(run(&b, b.n, 0, s.d, &g, &st), 0);
	assert_int_equal(g.n, 2);
	assert_string_equal(g.ev[0].provider, "TestEventSource0");
	assert_string_equal(g.ev[0].name, "TestEvent3");
	assert_int_equal(g.ev[0].event_id, 3);
	assert_int_equal(g.ev[0].version, 1);
	assert_string_equal(g.ev[1].name, "E");
	assert_int_equal(st.metadata, 2);
	assert_non_null(strstr(sink_text(&s), "metadata 6: field list or tags do not fit"));
	sink_close(&s);
}

/* Uncompressed V4 rows: full 80-byte header, MetadataId bit 31 = not sorted, padding. */
static void test_v4_uncompressed(void **state)
{
	struct sink s;
	struct bb b = { .n = 0 }, c = { .n = 0 }, r = { .n = 0 };
	struct got g;
	struct nt_stats st;

	sink_init(&s);
	v4_header(&b);
	v4_trace(&b, 8);
	block_header(&c, 0);
	v4_record(&r, 1, "P", 2, "", 0);
	u32(&c, 4 + 4 + 8 + 8 + 4 + 4 + 8 + 32 + 4 + (uint32_t)r.n);
	u32(&c, 0);
	u32(&c, 0);
	u64(&c, 1);
	u64(&c, 1);
	u32(&c, 0);
	u32(&c, 0);
	u64(&c, 0);
	for (int i = 0; i < 32; i++)
		u8(&c, 0);
	u32(&c, (uint32_t)r.n);
	put(&c, r.b, r.n);
	v4_block(&b, "MetadataBlock", &c);
	c.n = 0;
	block_header(&c, 0);
	u32(&c, 4 + 4 + 8 + 8 + 4 + 4 + 8 + 32 + 4 + 2 + 2); /* 2 bytes of padding */
	u32(&c, 1u | 1u << 31);
	u32(&c, 1);
	u64(&c, 55);
	u64(&c, 56);
	u32(&c, 1);
	u32(&c, 0);
	u64(&c, 12345);
	for (int i = 0; i < 32; i++)
		u8(&c, 0);
	u32(&c, 2);
	u16(&c, 0xbeef);
	u16(&c, 0);
	v4_block(&b, "EventBlock", &c);
	u8(&b, 1);

	assert_int_equal(run(&b, b.n, 0, s.d, &g, &st), 0);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.ev[0].meta_id, 1);
	assert_int_equal(g.ev[0].event_id, 2);
	assert_int_equal(g.ev[0].tid, 55);
	assert_int_equal(g.ev[0].ts, 12345);
	assert_int_equal(g.ev[0].cpu, 1);
	assert_int_equal(g.ev[0].payload_len, 2);
	assert_int_equal(g.ev[0].payload[0], 0xef);
	assert_string_equal(sink_text(&s), "");
	sink_close(&s);
}

/* ---- the V6 stream ---- */

static void v6_meta_row(struct bb *c, uint32_t id, const char *provider, uint32_t event_id,
			const char *name, int version)
{
	struct bb r = { .n = 0 };

	var(&r, id);
	str6(&r, provider);
	var(&r, event_id);
	str6(&r, name);
	u16(&r, 1);               /* one field: size, name "Value", type 21 VarUInt */
	u16(&r, 1 + 5 + 1);
	str6(&r, "Value");
	u8(&r, 21);
	if (version >= 0) {
		u16(&r, 2 + 9 + 2);
		u8(&r, 9);
		u8(&r, (uint8_t)version);
		u8(&r, 3);
		u64(&r, 0xf0);
		u8(&r, 8);
		u8(&r, 4);
	} else {
		u16(&r, 0);
	}
	u16(c, (uint16_t)r.n);
	put(c, r.b, r.n);
}

static void v6_thread_row(struct bb *c, uint64_t index, int64_t pid, int64_t tid,
			  const char *name)
{
	struct bb r = { .n = 0 };

	var(&r, index);
	if (name) {
		u8(&r, 1);
		str6(&r, name);
	}
	if (pid >= 0) {
		u8(&r, 2);
		var(&r, (uint64_t)pid);
	}
	u8(&r, 3);
	var(&r, (uint64_t)tid);
	u8(&r, 4);
	str6(&r, "k");
	str6(&r, "v");
	u16(c, (uint16_t)r.n);
	put(c, r.b, r.n);
}

/* One compressed V6 row as one-collect writes it: F 0xDF, every field present. */
static void v6_row(struct bb *c, uint32_t meta, uint64_t thread, uint32_t stack, uint64_t dt,
		   uint32_t label, uint8_t payload)
{
	u8(c, 0xdf);
	var(c, meta);
	var(c, 0);      /* seq delta */
	var(c, 0);      /* capture thread index */
	var(c, 2);      /* cpu */
	var(c, thread);
	var(c, stack);
	var(c, dt);
	var(c, label);
	var(c, 1);
	u8(c, payload);
}

static void v6_sp(struct bb *b, uint32_t flags)
{
	struct bb c = { .n = 0 };

	u64(&c, 9);
	u32(&c, flags);
	u32(&c, 1);
	var(&c, 1);
	var(&c, 3);
	v6_block(b, 4, &c);
}

/* Trace, Metadata, an unknown block, Thread, Stack, LabelList, Event; RemoveThread, Event;
 * SP(0), Event; SP(1: threads), Event; SP(2: metadata), Event; EndOfStream. */
static void v6_stream(struct bb *b, uint32_t ptr)
{
	struct bb c = { .n = 0 };
	static const uint64_t ips[] = { 0xaaaa, 0xbbbb, 0xcccc };
	static const uint32_t lens[] = { 2, 1 };

	v6_header(b);
	v6_trace(b, ptr);
	u16(&c, 2);     /* header size, excluding itself */
	u16(&c, 0);
	v6_meta_row(&c, 1, "Universal.Events", 0, "cpu", 3);
	v6_meta_row(&c, 2, "Universal.System", 4, "ProcessSymbol", -1);
	v6_block(b, 3, &c);

	c.n = 0;
	put(&c, "future", 6);
	v6_block(b, 42, &c);

	c.n = 0;
	v6_thread_row(&c, 0, 0, 0, NULL);
	v6_thread_row(&c, 1, 1234, 1240, "worker");
	v6_thread_row(&c, 300, -1, 5, NULL);
	v6_block(b, 6, &c);

	c.n = 0;
	stack_block(&c, 1, 2, ptr, ips, lens);
	v6_block(b, 5, &c);

	c.n = 0;
	u32(&c, 1);
	u32(&c, 2);
	u8(&c, 1);                   /* list 1: ActivityId, then Level (last) */
	for (int i = 0; i < 16; i++)
		u8(&c, 0);
	u8(&c, 0x80 | 9);
	u8(&c, 5);
	u8(&c, 0x80 | 6);            /* list 2: key + varint (last) */
	str6(&c, "n");
	var(&c, 3);
	v6_block(b, 8, &c);

	c.n = 0;
	block_header(&c, 1);
	v6_row(&c, 1, 1, 1, 100, 1, 0x11);
	v6_row(&c, 2, 0, 0, 5, 0, 0x22);
	v6_row(&c, 1, 300, 2, 5, 2, 0x33);
	v6_block(b, 2, &c);

	c.n = 0;
	var(&c, 1);
	var(&c, 40);
	v6_block(b, 7, &c);
	c.n = 0;
	block_header(&c, 1);
	v6_row(&c, 1, 1, 0, 200, 0, 0x44);    /* removed thread */
	v6_row(&c, 1, 300, 2, 1, 0, 0x55);    /* stack 2 still there (no SP yet) */
	v6_block(b, 2, &c);

	v6_sp(b, 0);
	c.n = 0;
	block_header(&c, 1);
	v6_row(&c, 1, 300, 2, 300, 0, 0x66);  /* stack flushed, thread kept */
	v6_block(b, 2, &c);

	v6_sp(b, 1);
	c.n = 0;
	block_header(&c, 1);
	v6_row(&c, 1, 300, 0, 400, 0, 0x77);  /* thread cache flushed */
	v6_block(b, 2, &c);

	v6_sp(b, 2);
	c.n = 0;
	block_header(&c, 1);
	v6_row(&c, 1, 300, 0, 500, 0, 0x88);  /* metadata flushed */
	v6_block(b, 2, &c);
	u32(b, 0);
}

static void test_v6_stream(void **state)
{
	struct sink s;
	struct bb b = { .n = 0 };
	static struct got g, part;
	struct nt_stats st;

	sink_init(&s);
	v6_stream(&b, 8);
	assert_true(nt_detect(b.b, b.n));
	assert_int_equal(run(&b, b.n, 0, s.d, &g, &st), 0);
	assert_string_equal(sink_text(&s), "");
	assert_int_equal(g.trace.major, 6);
	assert_int_equal(g.trace.pointer_size, 8);
	assert_int_equal(g.trace.pid, 77);
	assert_int_equal(g.trace.cpus, 16);
	assert_int_equal(g.trace.sampling_ns, 250000);
	assert_int_equal(g.trace.page_size, 16384);
	assert_int_equal(g.trace.sync_qpc, 500);
	assert_int_equal(g.n, 8);

	assert_string_equal(g.ev[0].provider, "Universal.Events");
	assert_string_equal(g.ev[0].name, "cpu");
	assert_int_equal(g.ev[0].version, 3);
	assert_int_equal(g.ev[0].pid, 1234);
	assert_int_equal(g.ev[0].tid, 1240);
	assert_string_equal(g.ev[0].thread_name, "worker");
	assert_int_equal(g.ev[0].cpu, 2);
	assert_int_equal(g.ev[0].ts, 100);
	assert_int_equal(g.ev[0].stack_len, 2);
	assert_int_equal(g.ev[0].stack[0], 0xaaaa);
	assert_int_equal(g.ev[0].stack[1], 0xbbbb);
	assert_int_equal(g.ev[0].payload[0], 0x11);

	assert_string_equal(g.ev[1].name, "ProcessSymbol");
	assert_int_equal(g.ev[1].event_id, 4);
	assert_int_equal(g.ev[1].version, 0);
	assert_int_equal(g.ev[1].pid, 0);
	assert_int_equal(g.ev[1].tid, 0);
	assert_int_equal(g.ev[1].stack_len, 0);
	assert_int_equal(g.ev[1].ts, 105);

	assert_int_equal(g.ev[2].pid, 77);         /* no pid entry: the "ProcessId" key */
	assert_int_equal(g.ev[2].tid, 5);
	assert_int_equal(g.ev[2].stack_len, 1);
	assert_int_equal(g.ev[2].stack[0], 0xcccc);

	assert_int_equal(g.ev[3].tid, -1);         /* removed */
	assert_int_equal(g.ev[3].ts, 200);         /* timestamps restart per block */
	assert_int_equal(g.ev[4].stack_len, 1);
	assert_int_equal(g.ev[5].stack_len, 0);    /* flushed by the SP */
	assert_int_equal(g.ev[5].tid, 5);
	assert_int_equal(g.ev[6].tid, -1);         /* threads flushed */
	assert_string_equal(g.ev[6].provider, "Universal.Events");
	assert_int_equal(g.ev[7].meta_id, 0);      /* metadata flushed */

	assert_int_equal(st.events, 8);
	assert_int_equal(st.metadata, 2);
	assert_int_equal(st.skipped_blocks, 1);
	assert_int_equal(st.unknown_thread, 3);
	assert_int_equal(st.unknown_stack, 1);
	assert_int_equal(st.unknown_meta, 1);
	assert_int_equal(st.bad_rows, 0);
	assert_false(st.truncated);

	for (size_t chunk = 1; chunk <= b.n; chunk++) {
		assert_int_equal(run(&b, b.n, chunk, s.d, &part, &st), 0);
		assert_int_equal(part.n, g.n);
		assert_same_events(&g, &part, g.n);
	}
	sink_close(&s);
}

static void test_v6_pointer4(void **state)
{
	struct sink s;
	struct bb b = { .n = 0 };
	static struct got g;
	struct nt_stats st;

	sink_init(&s);
	v6_stream(&b, 4);
	assert_int_equal(run(&b, b.n, 0, s.d, &g, &st), 0);
	assert_int_equal(g.trace.pointer_size, 4);
	assert_int_equal(g.ev[0].stack_len, 2);
	assert_int_equal(g.ev[0].stack[1], 0xbbbb);
	assert_int_equal(g.ev[2].stack[0], 0xcccc);
	sink_close(&s);
}

static void test_v6_truncated_everywhere(void **state)
{
	struct bb b = { .n = 0 }, t = { .n = 0 };

	v6_stream(&b, 8);
	v6_header(&t);
	v6_trace(&t, 8);
	check_truncations(&b, t.n);
}

/* ---- refusals and hostile input ---- */

static int run_bytes(const void *bytes, size_t n, struct sink *s, struct got *g,
		     struct nt_stats *st)
{
	static struct bb b;

	b.n = 0;
	put(&b, bytes, n);
	return run(&b, b.n, 0, s->d, g, st);
}

static void test_refusals(void **state)
{
	struct sink s;
	static struct got g;
	struct nt_stats st;
	struct bb b = { .n = 0 };

	sink_init(&s);
	u32(&b, 20);
	put(&b, "!FastSerialization.1", 20);
	u8(&b, 4);
	assert_true(nt_detect(b.b, b.n));
	assert_int_equal(run(&b, b.n, 0, s.d, &g, &st), -T2F_E_FORMAT);
	assert_string_equal(t2f_diag__last_error(s.d),
			    "t.nettrace: NetPerf (V3 or older) is not supported");
	assert_int_equal(run(&b, b.n, 1, s.d, &g, &st), -T2F_E_FORMAT);
	assert_string_equal(t2f_diag__last_error(s.d),
			    "t.nettrace: NetPerf (V3 or older) is not supported");

	assert_false(nt_detect((const uint8_t *)"perf script\n", 12));
	assert_int_equal(run_bytes("perf script\n", 12, &s, &g, &st), -T2F_E_FORMAT);
	assert_non_null(strstr(t2f_diag__last_error(s.d), "not a nettrace file"));

	assert_int_equal(run_bytes("", 0, &s, &g, &st), -T2F_E_FORMAT);
	assert_int_equal(run_bytes("Nettr", 5, &s, &g, &st), -T2F_E_FORMAT);

	b.n = 0;
	put(&b, "Nettrace", 8);
	u32(&b, 0);
	u32(&b, 7);
	u32(&b, 0);
	assert_int_equal(run(&b, b.n, 0, s.d, &g, &st), -T2F_E_UNSUPPORTED);
	assert_non_null(strstr(t2f_diag__last_error(s.d), "major version 7"));

	/* V6: an event block before the Trace block */
	b.n = 0;
	v6_header(&b);
	u32(&b, 2u << 24);
	assert_int_equal(run(&b, b.n, 0, s.d, &g, &st), -T2F_E_FORMAT);
	assert_non_null(strstr(t2f_diag__last_error(s.d), "before the Trace block"));

	/* V4: an unknown object type, a type name length out of range */
	b.n = 0;
	v4_header(&b);
	v4_trace(&b, 8);
	v4_type(&b, "Blob", 2);
	assert_int_equal(run(&b, b.n, 0, s.d, &g, &st), -T2F_E_FORMAT);
	assert_non_null(strstr(t2f_diag__last_error(s.d), "unknown object type \"Blob\""));
	b.n = 0;
	v4_header(&b);
	v4_trace(&b, 8);
	u8(&b, 5);
	u8(&b, 5);
	u8(&b, 1);
	u32(&b, 2);
	u32(&b, 2);
	u32(&b, 100000);
	assert_int_equal(run(&b, b.n, 0, s.d, &g, &st), -T2F_E_FORMAT);
	assert_non_null(strstr(t2f_diag__last_error(s.d), "type name length 100000"));
	/* a pointer size of 2 */
	b.n = 0;
	v4_header(&b);
	v4_trace(&b, 2);
	assert_int_equal(run(&b, b.n, 0, s.d, &g, &st), -T2F_E_FORMAT);
	assert_non_null(strstr(t2f_diag__last_error(s.d), "pointer size 2"));
	sink_close(&s);
}

/* One V4 event block with the given rows after a trace with metadata 1. */
static void v4_with_rows(struct bb *b, const struct bb *rows, bool end)
{
	struct bb c = { .n = 0 }, r = { .n = 0 };

	b->n = 0;
	v4_header(b);
	v4_trace(b, 8);
	block_header(&c, 1);
	v4_record(&r, 1, "P", 1, "E", 0);
	v4_meta_row(&c, &r, true);
	v4_block(b, "MetadataBlock", &c);
	c.n = 0;
	block_header(&c, 1);
	put(&c, rows->b, rows->n);
	v4_block(b, "EventBlock", &c);
	if (end)
		u8(b, 1);
}

static void test_hostile_rows(void **state)
{
	struct sink s;
	static struct got g;
	struct nt_stats st;
	static struct bb b;
	struct bb rows = { .n = 0 };

	sink_init(&s);
	/* a good row, then a payload size past the block's end */
	u8(&rows, 0x01 | 0x80);
	var(&rows, 1);
	var(&rows, 1);
	var(&rows, 1);
	u8(&rows, 0);
	u8(&rows, 0x80);
	var(&rows, 1);
	var(&rows, 1000);
	u8(&rows, 0);
	v4_with_rows(&b, &rows, true);
	assert_int_equal(run(&b, b.n, 0, s.d, &g, &st), 0);
	assert_int_equal(g.n, 1);
	assert_int_equal(st.bad_rows, 1);
	assert_non_null(strstr(sink_text(&s), "event row cut by its block's end"));

	/* a varint of 11 bytes (time delta) */
	rows.n = 0;
	u8(&rows, 0x01);
	var(&rows, 1);
	for (int i = 0; i < 10; i++)
		u8(&rows, 0x80);
	u8(&rows, 0);
	v4_with_rows(&b, &rows, true);
	assert_int_equal(run(&b, b.n, 0, s.d, &g, &st), 0);
	assert_int_equal(g.n, 0);
	assert_int_equal(st.bad_rows, 1);

	/* a 6-byte metadata id varint (32-bit field: 5 at most) */
	rows.n = 0;
	u8(&rows, 0x01);
	for (int i = 0; i < 5; i++)
		u8(&rows, 0x81);
	u8(&rows, 0);
	var(&rows, 1);
	v4_with_rows(&b, &rows, true);
	assert_int_equal(run(&b, b.n, 0, s.d, &g, &st), 0);
	assert_int_equal(g.n, 0);
	assert_int_equal(st.bad_rows, 1);

	/* stack id out of range, metadata id never defined: delivered and counted */
	rows.n = 0;
	u8(&rows, 0x01 | 0x08);
	var(&rows, 77);
	var(&rows, 0xffffffffu);
	var(&rows, 1);
	v4_with_rows(&b, &rows, true);
	assert_int_equal(run(&b, b.n, 0, s.d, &g, &st), 0);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.ev[0].meta_id, 0);
	assert_int_equal(g.ev[0].stack_len, 0);
	assert_int_equal(st.unknown_meta, 1);
	assert_int_equal(st.unknown_stack, 1);
	assert_int_equal(st.bad_rows, 0);

	/* an event block header size past the block */
	rows.n = 0;
	v4_with_rows(&b, &rows, true);
	b.b[b.n - 2 - 20] = 0xff; /* HeaderSize low byte of the (empty) event block */
	assert_int_equal(run(&b, b.n, 0, s.d, &g, &st), 0);
	assert_int_equal(st.bad_rows, 1);

	/* strict mode: the first warning is the error */
	rows.n = 0;
	u8(&rows, 0x01 | 0x80);
	var(&rows, 1);
	var(&rows, 1);
	var(&rows, 1000);
	v4_with_rows(&b, &rows, true);
	t2f_diag__set_strict(s.d, true);
	assert_int_equal(run(&b, b.n, 0, s.d, &g, &st), -T2F_E_FORMAT);
	t2f_diag__set_strict(s.d, false);

	/* a callback's error stops the parse and is returned as is */
	rows.n = 0;
	u8(&rows, 0x01);
	var(&rows, 1);
	var(&rows, 1);
	u8(&rows, 0);
	var(&rows, 1);
	v4_with_rows(&b, &rows, true);
	fail_at = 2;
	assert_int_equal(run(&b, b.n, 0, s.d, &g, &st), -EIO);
	fail_at = 0;
	sink_close(&s);
}

static void test_hostile_stacks(void **state)
{
	struct sink s;
	static struct got g;
	struct nt_stats st;
	static struct bb b;
	struct bb c = { .n = 0 };

	sink_init(&s);
	/* a count larger than the block can hold; a byte size not a multiple of the pointer;
	 * ids far past the previous block's */
	b.n = 0;
	v4_header(&b);
	v4_trace(&b, 8);
	u32(&c, 1);
	u32(&c, 0x40000000);
	v4_block(&b, "StackBlock", &c);
	c.n = 0;
	u32(&c, 1);
	u32(&c, 1);
	u32(&c, 12);
	for (int i = 0; i < 12; i++)
		u8(&c, 0);
	v4_block(&b, "StackBlock", &c);
	c.n = 0;
	u32(&c, 0x7fffffff);
	u32(&c, 0);
	v4_block(&b, "StackBlock", &c);
	u8(&b, 1);
	assert_int_equal(run(&b, b.n, 0, s.d, &g, &st), 0);
	assert_int_equal(st.bad_rows, 3);
	sink_close(&s);
}

static void test_hostile_v6(void **state)
{
	struct sink s;
	static struct got g;
	struct nt_stats st;
	static struct bb b;
	struct bb c = { .n = 0 };

	sink_init(&s);
	/* a block that declares 16 MiB and ends the file: a truncation, no big allocation */
	b.n = 0;
	v6_header(&b);
	v6_trace(&b, 8);
	u32(&b, 0xffffffu | 2u << 24);
	u32(&b, 0);
	assert_int_equal(run(&b, b.n, 3, s.d, &g, &st), 0);
	assert_true(st.truncated);

	/* a thread row with an unknown entry kind, a metadata row past its block, a label kind 0,
	 * a remove-thread entry cut short, a sequence point with too many threads */
	b.n = 0;
	v6_header(&b);
	v6_trace(&b, 8);
	u16(&c, 2);
	var(&c, 1);
	u8(&c, 99);
	v6_block(&b, 6, &c);
	c.n = 0;
	u16(&c, 0);
	u16(&c, 50);
	v6_block(&b, 3, &c);
	c.n = 0;
	u32(&c, 1);
	u32(&c, 1);
	u8(&c, 0);
	v6_block(&b, 8, &c);
	c.n = 0;
	u8(&c, 0x80);
	v6_block(&b, 7, &c);
	c.n = 0;
	u64(&c, 0);
	u32(&c, 0);
	u32(&c, 1000);
	v6_block(&b, 4, &c);
	u32(&b, 0);
	assert_int_equal(run(&b, b.n, 0, s.d, &g, &st), 0);
	assert_int_equal(st.bad_rows, 4);
	assert_false(st.truncated);
	assert_true(t2f_diag__warnings(s.d) >= 5);

	/* bytes after EndOfStream: one warning */
	b.n = 0;
	v6_header(&b);
	v6_trace(&b, 8);
	u32(&b, 0);
	put(&b, "junk", 4);
	assert_int_equal(run(&b, b.n, 1, s.d, &g, &st), 0);
	assert_non_null(strstr(sink_text(&s), "bytes after the end of the trace ignored"));
	sink_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v4_stream),
		cmocka_unit_test(test_v4_pointer4),
		cmocka_unit_test(test_v4_chunks),
		cmocka_unit_test(test_v4_truncated_everywhere),
		cmocka_unit_test(test_v4_truncated_block),
		cmocka_unit_test(test_v5_metadata_tags),
		cmocka_unit_test(test_v4_uncompressed),
		cmocka_unit_test(test_v6_stream),
		cmocka_unit_test(test_v6_pointer4),
		cmocka_unit_test(test_v6_truncated_everywhere),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_hostile_rows),
		cmocka_unit_test(test_hostile_stacks),
		cmocka_unit_test(test_hostile_v6),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
