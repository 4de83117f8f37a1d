/* tests/unit/test_nettrace_v4.c: the nettrace container parser (readers/nettrace_parse.h) on V4/V5
 * streams built byte by byte (tests/unit/support/nettrace_bytes.h): header compression and
 * sticky fields, stacks with 8- and 4-byte pointers and sequence-point flushes, V5 metadata tags,
 * uncompressed rows; every chunk size; truncation at every byte. */
#include "support/nettrace_bytes.h"

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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
