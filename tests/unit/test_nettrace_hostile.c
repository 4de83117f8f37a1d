/* tests/unit/test_nettrace_hostile.c: the nettrace container parser (readers/nettrace_parse.h)
 * refuses what is not nettrace (NetPerf, other text, unknown versions and object types) with a
 * clear error, and survives hostile sizes, varints and ids (tests/unit/support/nettrace_bytes.h). */
#include "support/nettrace_bytes.h"

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
	assert_int_equal(run(&b, b.n, 0, s.d, &g, &st), -T2F_ERR_FORMAT);
	assert_string_equal(t2f_diag__last_error(s.d),
			    "t.nettrace: NetPerf (V3 or older) is not supported");
	assert_int_equal(run(&b, b.n, 1, s.d, &g, &st), -T2F_ERR_FORMAT);
	assert_string_equal(t2f_diag__last_error(s.d),
			    "t.nettrace: NetPerf (V3 or older) is not supported");

	assert_false(nt_detect((const uint8_t *)"perf script\n", 12));
	assert_int_equal(run_bytes("perf script\n", 12, &s, &g, &st), -T2F_ERR_FORMAT);
	assert_non_null(strstr(t2f_diag__last_error(s.d), "not a nettrace file"));

	assert_int_equal(run_bytes("", 0, &s, &g, &st), -T2F_ERR_FORMAT);
	assert_int_equal(run_bytes("Nettr", 5, &s, &g, &st), -T2F_ERR_FORMAT);

	b.n = 0;
	put(&b, "Nettrace", 8);
	u32(&b, 0);
	u32(&b, 7);
	u32(&b, 0);
	assert_int_equal(run(&b, b.n, 0, s.d, &g, &st), -T2F_ERR_UNSUPPORTED);
	assert_non_null(strstr(t2f_diag__last_error(s.d), "major version 7"));

	/* V6: an event block before the Trace block */
	b.n = 0;
	v6_header(&b);
	u32(&b, 2u << 24);
	assert_int_equal(run(&b, b.n, 0, s.d, &g, &st), -T2F_ERR_FORMAT);
	assert_non_null(strstr(t2f_diag__last_error(s.d), "before the Trace block"));

	/* V4: an unknown object type, a type name length out of range */
	b.n = 0;
	v4_header(&b);
	v4_trace(&b, 8);
	v4_type(&b, "Blob", 2);
	assert_int_equal(run(&b, b.n, 0, s.d, &g, &st), -T2F_ERR_FORMAT);
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
	assert_int_equal(run(&b, b.n, 0, s.d, &g, &st), -T2F_ERR_FORMAT);
	assert_non_null(strstr(t2f_diag__last_error(s.d), "type name length 100000"));
	/* a pointer size of 2 */
	b.n = 0;
	v4_header(&b);
	v4_trace(&b, 2);
	assert_int_equal(run(&b, b.n, 0, s.d, &g, &st), -T2F_ERR_FORMAT);
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
	assert_true(g.ev[0].stack_unknown);
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
	assert_int_equal(run(&b, b.n, 0, s.d, &g, &st), -T2F_ERR_FORMAT);
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
	uint64_t warned;

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
	u32(&c, 0xffffffffu); /* one warning, not one per thread claimed */
	v6_block(&b, 4, &c);
	u32(&b, 0);
	warned = t2f_diag__warnings(s.d);
	assert_int_equal(run(&b, b.n, 0, s.d, &g, &st), 0);
	assert_int_equal(st.bad_rows, 4);
	assert_false(st.truncated);
	assert_int_equal(t2f_diag__warnings(s.d), warned + 5);
	assert_non_null(strstr(sink_text(&s), "sequence point thread 0 of 4294967295 past"));

	/* bytes after EndOfStream: one warning with their count, however the file is fed */
	b.n = 0;
	v6_header(&b);
	v6_trace(&b, 8);
	u32(&b, 0);
	put(&b, "junk", 4);
	assert_int_equal(run(&b, b.n, 1, s.d, &g, &st), 0);
	assert_non_null(strstr(sink_text(&s), "4 bytes after the end of the trace ignored"));
	sink_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_hostile_rows),
		cmocka_unit_test(test_hostile_stacks),
		cmocka_unit_test(test_hostile_v6),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
