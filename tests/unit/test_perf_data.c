/* tests/unit/test_perf_data.c: the perf.data reader (readers/perf_data.h) on files built in
 * memory byte by byte (support/perf_data_file.h), in both byte orders: every field decoded where
 * the layout puts it (samples whose READ, RAW, BRANCH_STACK, REGS_USER and STACK_USER fields are
 * skipped by size), compressed records, and the malformed cases perf never writes — each a
 * clear error naming the offset or a counted, warned skip. Expected values are the ones
 * written, never the reader's own. Hostile files: test_perf_data_hostile.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include <cmocka.h>

#include "readers/perf_data.h"
#include "support/diag_sink.h"
#include "support/perf_data_file.h"

/* ---- tests ---- */

/* A sample's call chain at an address that is not a multiple of 8 (the file copied to an odd
 * one) is read word by word, as a swapped one is; at one that is, it is the record's own. */
static void check_chain_in_place(const struct bb *file, bool be, const uint8_t *at)
{
	uint8_t *odd = malloc(file->n + 1);
	const struct t2f_perf_record *r;
	struct t2f_perf_data *p;
	struct sink s;

	assert_non_null(odd);
	memcpy(odd + 1, file->b, file->n);
	sink_start(&s);
	assert_int_equal(t2f_perf_data__open_mem("t.data", odd + 1, file->n, s.d, &p), 0);
	while ((r = next_ok(p))->type != PERF_RECORD_SAMPLE)
		;
	assert_int_equal(r->s.callchain_nr, 3);
	assert_int_equal(r->s.callchain[0], 0xfffffffffffffe00ull);
	assert_int_equal(r->s.callchain[2], 0x401234);
	assert_true((const uint8_t *)r->s.callchain < odd ||
		    (const uint8_t *)r->s.callchain > odd + file->n);
	t2f_perf_data__free(p);
	sink_close(&s);
	free(odd);
	assert_int_equal(at >= file->b && at < file->b + file->n, !be); /* file->b: 8-aligned */
}

static void check_basic(bool be)
{
	static struct bb data, file;
	struct spec sp = { .be = be, .n_attrs = 1, .data = &data, .hostname = "box" };
	const struct t2f_perf_record *r;
	const struct t2f_perf_attr *a;
	struct t2f_perf_data *p;
	struct sink s;

	memset(&data, 0, sizeof(data));
	data.be = be;
	sp.attrs[0] = (struct attr_spec){ .type = 1, .config = 0, .sample_type = ST_BASIC,
					  .sample_id_all = true, .ids = { 42 }, .n_ids = 1 };
	sp.attrs[0].sample_type |= 0; /* trailer: TID|TIME come from sample_type */
	rec_comm(&data, true);
	rec_mmap2(&data);
	rec_sample(&data, 0x401100, 1000);
	build(&file, &sp);
	sink_start(&s);
	p = open_ok(&file, &s);
	assert_int_equal(t2f_perf_data__header(p)->big_endian, be);
	assert_int_equal(t2f_perf_data__n_attrs(p), 1);
	a = t2f_perf_data__attr(p, 0);
	assert_int_equal(a->attr.type, 1);
	assert_int_equal(a->attr.sample_type, ST_BASIC);
	assert_int_equal(a->attr.sample_period, 4000);
	assert_int_equal(a->attr.sample_id_all, 1);
	assert_int_equal(a->attr.disabled, 0);
	assert_int_equal(a->n_ids, 1);
	assert_int_equal(a->ids[0], 42);
	assert_string_equal(t2f_perf_data__features(p)->hostname, "box");

	r = next_ok(p);
	assert_int_equal(r->type, PERF_RECORD_COMM);
	assert_true(r->u.comm.exec);
	assert_int_equal(r->u.comm.pid, 100);
	assert_int_equal(r->u.comm.tid, 101);
	assert_string_equal(r->u.comm.comm, "spin");
	assert_int_equal(r->s.time, 777);
	r = next_ok(p);
	assert_int_equal(r->type, PERF_RECORD_MMAP2);
	assert_int_equal(r->u.mmap.start, 0x400000);
	assert_int_equal(r->u.mmap.len, 0x2000);
	assert_int_equal(r->u.mmap.pgoff, 0x1000);
	assert_int_equal(r->u.mmap.maj, 8);
	assert_int_equal(r->u.mmap.ino, 123456);
	assert_int_equal(r->u.mmap.prot, 5);
	assert_string_equal(r->u.mmap.filename, "/bin/spin");
	assert_int_equal(r->s.time, 778);
	r = next_ok(p);
	assert_int_equal(r->type, PERF_RECORD_SAMPLE);
	assert_int_equal(r->s.ip, 0x401100);
	assert_int_equal(r->s.pid, 100);
	assert_int_equal(r->s.tid, 101);
	assert_int_equal(r->s.time, 1000);
	assert_int_equal(r->s.period, 250000);
	assert_int_equal(r->s.callchain_nr, 3);
	assert_int_equal(r->s.callchain[0], 0xfffffffffffffe00ull);
	assert_int_equal(r->s.callchain[2], 0x401234);
	assert_int_equal(r->offset, ATTRS_AT + 144 + 8 + 40 + 104);
	check_chain_in_place(&file, be, (const uint8_t *)r->s.callchain);
	assert_int_equal(t2f_perf_data__next(p, &r), 0);
	assert_int_equal(t2f_perf_data__stats(p)->samples, 1);
	assert_int_equal(t2f_perf_data__stats(p)->records, 3);
	assert_int_equal(t2f_diag__warnings(s.d), 0);
	t2f_perf_data__free(p);
	sink_close(&s);
}

static void test_byte_orders(void **state)
{
	(void)state;
	check_basic(false);
	check_basic(true);
}

static void test_refusals(void **state)
{
	static struct bb file;
	struct spec sp = { .n_attrs = 1 };
	struct t2f_perf_data *p;
	struct sink s;

	(void)state;
	sink_start(&s);
	assert_int_equal(t2f_perf_data__open_mem("t.data", "perf script\n", 12, s.d, &p),
			 -T2F_ERR_FORMAT);
	assert_null(p);
	assert_string_equal(t2f_diag__last_error(s.d),
			    "t.data: offset 0: not a perf.data file (expected the magic PERFILE2)");
	/* pipe mode: header size 16 */
	memset(&file, 0, sizeof(file));
	put(&file, "PERFILE2", 8);
	u64(&file, 16);
	assert_int_equal(t2f_perf_data__open_mem("t.data", file.b, file.n, s.d, &p),
			 -T2F_ERR_UNSUPPORTED);
	assert_non_null(strstr(t2f_diag__last_error(s.d), "pipe-mode"));
	/* a data section starting past the end of the file */
	sp.attrs[0] = (struct attr_spec){ .type = 1, .sample_type = PERF_SAMPLE_IP };
	build(&file, &sp);
	set64(&file, 40, 4096);
	assert_int_equal(t2f_perf_data__open_mem("t.data", file.b, file.n, s.d, &p),
			 -T2F_ERR_FORMAT);
	assert_string_equal(t2f_diag__last_error(s.d),
			    "t.data: offset 40: data section [4096, +0) starts past the end of the "
			    "file (248 bytes)");
	/* one running past the end: a cut file, read to its end (warned; an error if strict) */
	sp.data_size_extra = 4096;
	build(&file, &sp);
	p = open_ok(&file, &s);
	assert_int_equal(t2f_perf_data__next(p, &(const struct t2f_perf_record *){ NULL }), 0);
	t2f_perf_data__free(p);
	assert_int_equal(t2f_diag__warnings(s.d), 1);
	assert_non_null(strstr(sink_text(&s), "t.data: offset 40: data section [248, +4096) runs "
					      "past the end of the file (248 bytes): the file was "
					      "cut; read to its end"));
	t2f_diag__set_strict(s.d, true);
	assert_int_equal(t2f_perf_data__open_mem("t.data", file.b, file.n, s.d, &p),
			 -T2F_ERR_FORMAT);
	sink_close(&s);
}

static void test_short_record(void **state)
{
	static struct bb data, file;
	struct spec sp = { .n_attrs = 1, .data = &data };
	const struct t2f_perf_record *r;
	struct t2f_perf_data *p;
	struct sink s;

	(void)state;
	memset(&data, 0, sizeof(data));
	sp.attrs[0] = (struct attr_spec){ .type = 1, .sample_type = ST_BASIC };
	rec_sample(&data, 0x401100, 5);
	hdr(&data, PERF_RECORD_COMM, 0, 4);
	build(&file, &sp);
	sink_start(&s);
	p = open_ok(&file, &s);
	r = next_ok(p);
	assert_int_equal(r->s.ip, 0x401100);
	assert_int_equal(t2f_perf_data__next(p, &r), -T2F_ERR_FORMAT);
	assert_string_equal(t2f_diag__last_error(s.d),
			    "t.data: offset 320: record size 4, expected at least 8");
	t2f_perf_data__free(p);
	sink_close(&s);
}

static void test_truncated(void **state)
{
	static struct bb data, file;
	struct spec sp = { .n_attrs = 1, .data = &data };
	const struct t2f_perf_record *r;
	struct t2f_perf_data *p;
	struct sink s;

	(void)state;
	memset(&data, 0, sizeof(data));
	sp.attrs[0] = (struct attr_spec){ .type = 1, .sample_type = ST_BASIC };
	rec_sample(&data, 0x401100, 5);
	rec_sample(&data, 0x401200, 6);
	data.n -= 20;                /* the second sample runs past the data section */
	build(&file, &sp);
	sink_start(&s);
	p = open_ok(&file, &s);
	r = next_ok(p);
	assert_int_equal(r->s.time, 5);
	assert_int_equal(t2f_perf_data__next(p, &r), 0);
	assert_int_equal(t2f_perf_data__next(p, &r), 0);
	assert_int_equal(t2f_diag__warnings(s.d), 1);
	assert_non_null(strstr(sink_text(&s), "t.data: offset 320: truncated: a record of 72 "
					      "bytes, 52 left in the data section"));
	assert_int_equal(t2f_perf_data__stats(p)->truncated_bytes, 52);
	assert_int_equal(t2f_perf_data__stats(p)->samples, 1);
	t2f_perf_data__free(p);
	sink_close(&s);
}

static void test_attr_too_short(void **state)
{
	static struct bb file;
	struct spec sp = { .n_attrs = 1, .attr_bytes = 72 };
	struct t2f_perf_data *p;
	struct sink s;

	(void)state;
	sink_start(&s);
	sp.attrs[0] = (struct attr_spec){ .type = 1,
					  .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_REGS_USER };
	build(&file, &sp);
	assert_int_equal(t2f_perf_data__open_mem("t.data", file.b, file.n, s.d, &p),
			 -T2F_ERR_FORMAT);
	assert_string_equal(t2f_diag__last_error(s.d),
			    "t.data: offset 104: attr 0: sample_type has REGS_USER but the attr's "
			    "72 bytes end before sample_regs_user (88 bytes needed)");
	/* an entry too small for even the first attr version */
	sp.attr_bytes = 48;
	sp.attrs[0].sample_type = PERF_SAMPLE_IP;
	build(&file, &sp);
	assert_int_equal(t2f_perf_data__open_mem("t.data", file.b, file.n, s.d, &p),
			 -T2F_ERR_FORMAT);
	assert_string_equal(t2f_diag__last_error(s.d),
			    "t.data: offset 16: attr_size 64, expected at least 80");
	/* 72 bytes are enough when no field past them is used */
	sp.attr_bytes = 72;
	build(&file, &sp);
	p = open_ok(&file, &s);
	assert_int_equal(t2f_perf_data__attr(p, 0)->file_attr_size, 72);
	t2f_perf_data__free(p);
	sink_close(&s);
}

static void test_unknown_sample_bits(void **state)
{
	static struct bb data, file;
	struct spec sp = { .n_attrs = 1, .data = &data };
	const struct t2f_perf_record *r;
	struct t2f_perf_data *p;
	struct sink s;

	(void)state;
	memset(&data, 0, sizeof(data));
	sp.attrs[0] = (struct attr_spec){ .type = 1,
					  .sample_type = PERF_SAMPLE_IP | (1ull << 40) };
	hdr(&data, PERF_RECORD_SAMPLE, 0, 32);
	u64(&data, 0x401100);
	u64(&data, 0xdead);          /* bit 40's field, whatever it is */
	u64(&data, 0xbeef);
	build(&file, &sp);
	sink_start(&s);
	p = open_ok(&file, &s);
	r = next_ok(p);
	assert_int_equal(r->s.ip, 0x401100);
	assert_int_equal(r->s.fields, PERF_SAMPLE_IP);
	assert_int_equal(t2f_perf_data__stats(p)->partial, 1);
	assert_non_null(strstr(sink_text(&s), "t.data: offset 248: sample_type bit 40 has no "
					      "known size"));
	assert_int_equal(t2f_perf_data__next(p, &r), 0);
	t2f_perf_data__free(p);
	sink_close(&s);
}

static void test_unknown_id(void **state)
{
	static struct bb data, file;
	struct spec sp = { .n_attrs = 2, .data = &data };
	uint64_t st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP;
	const struct t2f_perf_record *r;
	struct t2f_perf_data *p;
	struct sink s;

	(void)state;
	memset(&data, 0, sizeof(data));
	sp.attrs[0] = (struct attr_spec){ .type = 1, .sample_type = st, .ids = { 7, 8 }, .n_ids = 2 };
	sp.attrs[1] = (struct attr_spec){ .type = 2, .config = 0x174, .sample_type = st,
					  .ids = { 9 }, .n_ids = 1 };
	hdr(&data, PERF_RECORD_SAMPLE, 0, 24);
	u64(&data, 999);
	u64(&data, 0x1111);
	hdr(&data, PERF_RECORD_SAMPLE, 0, 24);
	u64(&data, 9);
	u64(&data, 0x2222);
	hdr(&data, PERF_RECORD_SAMPLE, 0, 24);
	u64(&data, 8);
	u64(&data, 0x3333);
	build(&file, &sp);
	sink_start(&s);
	p = open_ok(&file, &s);
	assert_ptr_equal(t2f_perf_data__attr_of_id(p, 8), t2f_perf_data__attr(p, 0));
	assert_ptr_equal(t2f_perf_data__attr_of_id(p, 9), t2f_perf_data__attr(p, 1));
	assert_null(t2f_perf_data__attr_of_id(p, 999));
	r = next_ok(p);
	assert_int_equal(r->s.ip, 0x2222);
	assert_int_equal(r->attr->index, 1);
	r = next_ok(p);
	assert_int_equal(r->s.ip, 0x3333);
	assert_int_equal(r->attr->index, 0);
	assert_int_equal(t2f_perf_data__next(p, &r), 0);
	assert_int_equal(t2f_perf_data__stats(p)->unknown_id, 1);
	assert_non_null(strstr(sink_text(&s), "t.data: offset 416: SAMPLE record's id 999 is in "
					      "no attr: skipped"));
	t2f_perf_data__free(p);
	sink_close(&s);
}

static void test_feature_out_of_file(void **state)
{
	static struct bb file;
	struct spec sp = { .n_attrs = 1, .hostname = "box", .hostname_off = 1u << 20 };
	struct t2f_perf_data *p;
	struct sink s;

	(void)state;
	sp.attrs[0] = (struct attr_spec){ .type = 1, .sample_type = PERF_SAMPLE_IP };
	build(&file, &sp);
	sink_start(&s);
	p = open_ok(&file, &s);
	assert_null(t2f_perf_data__features(p)->hostname);
	assert_int_equal(t2f_perf_data__stats(p)->features_skipped, 1);
	assert_int_equal(t2f_perf_data__features(p)->n_sections, 1);
	assert_false(t2f_perf_data__features(p)->sections[0].decoded);
	assert_non_null(strstr(sink_text(&s), "t.data: offset 248: feature 3 section "
					      "[1048576, +12) runs past the end of the file"));
	t2f_perf_data__free(p);
	/* the feature table itself cut by the end of the file */
	sp.hostname_off = 0;
	build(&file, &sp);
	file.n = 256;
	p = open_ok(&file, &s);
	assert_null(t2f_perf_data__features(p)->hostname);
	assert_non_null(strstr(sink_text(&s), "t.data: offset 248: the feature table runs past "
					      "the end of the file (256 bytes)"));
	t2f_perf_data__free(p);
	/* strict: the warning is the error */
	t2f_diag__set_strict(s.d, true);
	assert_int_equal(t2f_perf_data__open_mem("t.data", file.b, file.n, s.d, &p),
			 -T2F_ERR_FORMAT);
	sink_close(&s);
}

/* READ (group), RAW, BRANCH_STACK with hw_idx, REGS_USER and STACK_USER skipped by size: the
 * fields after them land where they were written */
static void test_skipped_fields(void **state)
{
	static struct bb data, file;
	struct spec sp = { .n_attrs = 1, .data = &data, .be = true };
	uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_READ | PERF_SAMPLE_RAW |
		      PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |
		      PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_PHYS_ADDR;
	const struct t2f_perf_record *r;
	struct t2f_perf_data *p;
	struct sink s;
	size_t at;

	(void)state;
	memset(&data, 0, sizeof(data));
	data.be = true;
	sp.attrs[0] = (struct attr_spec){ .type = 4, .sample_type = st,
		.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED,
		.branch_type = PERF_SAMPLE_BRANCH_HW_INDEX, .regs_user = 0x7 };
	at = data.n;
	hdr(&data, PERF_RECORD_SAMPLE, 0, 0);
	u64(&data, 0x401100);
	u64(&data, 2);               /* READ: nr, time_enabled, 2 × {value, id} */
	for (int i = 0; i < 5; i++)
		u64(&data, 0x5151);
	u32(&data, 12);              /* RAW: size 12 (u32 + 12 bytes = 16) */
	put(&data, "raw-raw-raw!", 12);
	u64(&data, 2);               /* BRANCH_STACK: nr, hw_idx, 2 × {from, to, flags} */
	for (int i = 0; i < 7; i++)
		u64(&data, 0xb0b0);
	u64(&data, 2);               /* REGS_USER: abi, 3 registers */
	for (int i = 0; i < 3; i++)
		u64(&data, 0x7e9);
	u64(&data, 16);              /* STACK_USER: size, 16 bytes, dyn_size */
	u64(&data, 0x57ac);
	u64(&data, 0x57ac);
	u64(&data, 8);
	u64(&data, 33);              /* WEIGHT */
	u64(&data, 0xda7a);          /* DATA_SRC */
	u64(&data, 0xabcdef000);     /* PHYS_ADDR */
	data.b[at + 6] = (uint8_t)((data.n - at) >> 8); /* big-endian u16 size */
	data.b[at + 7] = (uint8_t)(data.n - at);
	build(&file, &sp);
	sink_start(&s);
	p = open_ok(&file, &s);
	r = next_ok(p);
	assert_int_equal(r->s.ip, 0x401100);
	assert_int_equal(r->s.raw_size, 12);
	assert_int_equal(r->s.weight, 33);
	assert_int_equal(r->s.data_src, 0xda7a);
	assert_int_equal(r->s.phys_addr, 0xabcdef000);
	assert_int_equal(t2f_diag__warnings(s.d), 0);
	t2f_perf_data__free(p);
	/* one byte short: the sample is skipped, naming the field that did not fit */
	data.n -= 8;
	data.b[at + 7] = (uint8_t)(data.b[at + 7] - 8);
	build(&file, &sp);
	p = open_ok(&file, &s);
	assert_int_equal(t2f_perf_data__next(p, &r), 0);
	assert_int_equal(t2f_perf_data__stats(p)->skipped, 1);
	assert_non_null(strstr(sink_text(&s), "ends inside its PHYS_ADDR field: skipped"));
	t2f_perf_data__free(p);
	sink_close(&s);
}

/* records spread over two PERF_RECORD_COMPRESSED records, one of them cut in the middle */
static void test_compressed(void **state)
{
	static struct bb inner, data, file;
	struct spec sp = { .n_attrs = 1, .data = &data };
	const struct t2f_perf_record *r;
	struct t2f_perf_data *p;
	struct sink s;
	size_t cut, parts[2][2];
	uint8_t z[2048];

	(void)state;
	memset(&inner, 0, sizeof(inner));
	memset(&data, 0, sizeof(data));
	sp.attrs[0] = (struct attr_spec){ .type = 1, .sample_type = ST_BASIC };
	for (int i = 0; i < 3; i++)
		rec_sample(&inner, 0x401000 + i, 10 + i);
	cut = 72 + 30;               /* inside the second sample */
	parts[0][0] = 0;
	parts[0][1] = cut;
	parts[1][0] = cut;
	parts[1][1] = inner.n - cut;
	for (int i = 0; i < 2; i++) {
		size_t n = ZSTD_compress(z, sizeof(z), inner.b + parts[i][0], parts[i][1], 1);

		assert_false(ZSTD_isError(n)); /* perf does not pad the frame to 8 bytes */
		hdr(&data, T2F_PERF_RECORD_COMPRESSED, 0, (uint16_t)(8 + n));
		put(&data, z, n);
	}
	rec_comm(&data, false);
	build(&file, &sp);
	sink_start(&s);
	p = open_ok(&file, &s);
	for (int i = 0; i < 3; i++) {
		r = next_ok(p);
		assert_int_equal(r->type, PERF_RECORD_SAMPLE);
		assert_true(r->in_compressed);
		assert_int_equal(r->comp_offset, 72u * i);
		assert_int_equal(r->s.ip, 0x401000 + i);
		assert_int_equal(r->s.time, 10 + i);
		assert_int_equal(r->s.callchain[1], 0x401000 + i);
	}
	r = next_ok(p);
	assert_int_equal(r->type, PERF_RECORD_COMM);
	assert_false(r->in_compressed);
	assert_int_equal(t2f_perf_data__next(p, &r), 0);
	assert_int_equal(t2f_perf_data__stats(p)->compressed, 2);
	assert_int_equal(t2f_perf_data__stats(p)->by_type[T2F_PERF_RECORD_COMPRESSED], 2);
	assert_int_equal(t2f_perf_data__stats(p)->samples, 3);
	assert_int_equal(t2f_diag__warnings(s.d), 0);
	t2f_perf_data__free(p);
	/* corrupt zstd data: a decompression error naming the record's offset */
	data.b[8 + 5] ^= 0xff;
	data.b[8 + 6] ^= 0xff;
	build(&file, &sp);
	p = open_ok(&file, &s);
	assert_int_equal(t2f_perf_data__next(p, &r), -T2F_ERR_DECOMPRESS);
	assert_non_null(strstr(t2f_diag__last_error(s.d), "t.data: offset 248: compressed record"));
	t2f_perf_data__free(p);
	sink_close(&s);
}

/* one PERF_RECORD_COMPRESSED record that expands past what one decompression call writes
 * (2,300 samples, 166 KB, more than one zstd block), compressed as perf does (a stream flushed,
 * the frame left open): the decoder takes all the input in the first call and holds back the
 * block that did not fit; every sample must be read (1,820 were before) */
static void test_compressed_large(void **state)
{
	static struct bb one, data, file;
	static uint8_t z[30000];
	struct spec sp = { .n_attrs = 1, .data = &data };
	const struct t2f_perf_record *r;
	struct t2f_perf_data *p;
	struct sink s;
	uint8_t *inner;
	size_t n;
	int got = 0;

	(void)state;
	memset(&one, 0, sizeof(one));
	memset(&data, 0, sizeof(data));
	sp.attrs[0] = (struct attr_spec){ .type = 1, .sample_type = ST_BASIC };
	rec_sample(&one, 0x401000, 10);
	inner = malloc(2300 * one.n);
	assert_non_null(inner);
	for (int i = 0; i < 2300; i++)
		memcpy(inner + (size_t)i * one.n, one.b, one.n);
	{ /* as perf compresses: a stream flushed per record, no content size, the frame open */
		ZSTD_CCtx *cc = ZSTD_createCCtx();
		ZSTD_inBuffer in = { inner, 2300 * one.n, 0 };
		ZSTD_outBuffer out = { z, sizeof(z), 0 };

		assert_non_null(cc);
		n = ZSTD_compressStream2(cc, &out, &in, ZSTD_e_flush);
		assert_false(ZSTD_isError(n));
		assert_int_equal(n, 0);
		n = out.pos;
		ZSTD_freeCCtx(cc);
	}
	free(inner);
	assert_true(8 + n <= UINT16_MAX);
	hdr(&data, T2F_PERF_RECORD_COMPRESSED, 0, (uint16_t)(8 + n));
	put(&data, z, n);
	build(&file, &sp);
	sink_start(&s);
	p = open_ok(&file, &s);
	while (t2f_perf_data__next(p, &r) == 1) {
		assert_int_equal(r->type, PERF_RECORD_SAMPLE);
		got++;
	}
	assert_int_equal(got, 2300);
	assert_int_equal(t2f_perf_data__stats(p)->samples, 2300);
	assert_int_equal(t2f_diag__warnings(s.d), 0);
	t2f_perf_data__free(p);
	sink_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_byte_orders),
		cmocka_unit_test(test_compressed_large),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_short_record),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_attr_too_short),
		cmocka_unit_test(test_unknown_sample_bits),
		cmocka_unit_test(test_unknown_id),
		cmocka_unit_test(test_feature_out_of_file),
		cmocka_unit_test(test_skipped_fields),
		cmocka_unit_test(test_compressed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
