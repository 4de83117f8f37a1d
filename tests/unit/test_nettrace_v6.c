/* tests/unit/test_nettrace_v6.c: the nettrace container parser (readers/nettrace_parse.h) on V6
 * streams built byte by byte (tests/unit/support/nettrace_bytes.h): threads, label lists,
 * sequence points, unknown blocks, 8- and 4-byte pointers; truncation at every byte. */
#include "support/nettrace_bytes.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v6_stream),
		cmocka_unit_test(test_v6_pointer4),
		cmocka_unit_test(test_v6_truncated_everywhere),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
