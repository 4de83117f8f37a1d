/* tests/unit/test_perf_data.c: the perf.data reader (readers/perf_data.h) on files built in
 * memory byte by byte, in both byte orders: every field decoded where the layout puts it
 * (samples whose READ, RAW, BRANCH_STACK, REGS_USER and STACK_USER fields are skipped by size),
 * and the malformed cases perf never writes — each a clear error naming the offset or a
 * counted, warned skip. Expected values are the ones written, never the reader's own. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zstd.h>

#include <cmocka.h>

#include "readers/perf_data.h"
#include "readers/perf_data_internal.h"
#include "support/diag_sink.h"
#include "support/perf_data_bytes.h"

static void pad_to(struct bb *b, size_t n)
{
	static const uint8_t zero[256];

	while (b->n < n)
		put(b, zero, n - b->n < sizeof(zero) ? n - b->n : sizeof(zero));
}

/* ---- the file ---- */

struct attr_spec {
	uint32_t type;
	uint64_t config, sample_type, read_format, branch_type, regs_user;
	bool sample_id_all;
	uint64_t ids[2];
	size_t n_ids;
};

struct spec {
	bool be;
	uint32_t attr_bytes;            /* bytes of perf_event_attr per entry (default 128) */
	struct attr_spec attrs[2];
	size_t n_attrs;
	const struct bb *data;          /* the records, built in the same byte order */
	const char *hostname;           /* HOSTNAME feature, or NULL */
	uint64_t hostname_off;          /* when not 0: the section's offset, as given */
	uint64_t data_size_extra;       /* added to the data section's size in the header */
	uint32_t comp_mmap_len;         /* when not 0: a COMPRESSED feature with this mmap_len */
};

#define ATTRS_AT 104u

static void put_attr(struct bb *b, const struct attr_spec *a, uint32_t bytes, uint64_t ids_at)
{
	size_t start = b->n;
	uint64_t flags = a->sample_id_all ? 1ull << 18 : 0; /* bit 18: sample_id_all */

	u32(b, a->type);
	u32(b, bytes);
	u64(b, a->config);
	u64(b, 4000);                /* sample_period / freq */
	u64(b, a->sample_type);
	u64(b, a->read_format);
	for (int i = 0; i < 8; i++) { /* bitfields: big-endian ones from each byte's top bit */
		uint8_t c = (uint8_t)(flags >> (8 * i));

		c = b->be ? rev(c) : c;
		put(b, &c, 1);
	}
	u32(b, 0);                   /* wakeup_events */
	u32(b, 0);                   /* bp_type */
	u64(b, 0);                   /* config1 */
	u64(b, 0);                   /* config2 */
	u64(b, a->branch_type);      /* 72: branch_sample_type */
	u64(b, a->regs_user);        /* 80: sample_regs_user */
	pad_to(b, start + 128);
	b->n = start + bytes;        /* a shorter attr: cut */
	u64(b, ids_at);
	u64(b, 8 * a->n_ids);
}

static void build(struct bb *b, const struct spec *s)
{
	uint32_t abytes = s->attr_bytes ? s->attr_bytes : 128;
	uint64_t entry = abytes + 16, ids_at = ATTRS_AT + entry * s->n_attrs, data_at, feat_at, host_at;
	uint64_t id_off = ids_at;

	memset(b, 0, sizeof(*b));
	b->be = s->be;
	put(b, "PERFILE2", 8);
	if (s->be)
		memcpy(b->b, "2ELIFREP", 8);
	u64(b, 104);
	u64(b, entry);
	u64(b, ATTRS_AT);
	u64(b, entry * s->n_attrs);
	u64(b, 0);                   /* data: patched below */
	u64(b, 0);
	u64(b, 0);                   /* event_types */
	u64(b, 0);
	u64(b, (s->hostname ? 1ull << T2F_PERF_FEAT_HOSTNAME : 0) |
	       (s->comp_mmap_len ? 1ull << T2F_PERF_FEAT_COMPRESSED : 0));
	u64(b, 0);
	u64(b, 0);
	u64(b, 0);
	for (size_t i = 0; i < s->n_attrs; i++) {
		put_attr(b, &s->attrs[i], abytes, id_off);
		id_off += 8 * s->attrs[i].n_ids;
	}
	for (size_t i = 0; i < s->n_attrs; i++)
		for (size_t k = 0; k < s->attrs[i].n_ids; k++)
			u64(b, s->attrs[i].ids[k]);
	data_at = b->n;
	if (s->data)
		put(b, s->data->b, s->data->n);
	feat_at = b->n;
	set64(b, 40, data_at);
	set64(b, 48, feat_at - data_at + s->data_size_extra);
	host_at = feat_at + 16 * (!!s->hostname + !!s->comp_mmap_len);
	if (s->hostname) {
		size_t len = (strlen(s->hostname) + 1 + 7) / 8 * 8;

		u64(b, s->hostname_off ? s->hostname_off : host_at);
		u64(b, 4 + len);
		b->n = host_at;
		u32(b, (uint32_t)len);
		put(b, s->hostname, strlen(s->hostname));
		pad_to(b, host_at + 4 + len);
		host_at = b->n;
		b->n = feat_at + 16;
	}
	if (s->comp_mmap_len) {      /* u32 version, type (zstd), level, ratio, mmap_len */
		u64(b, host_at);
		u64(b, 20);
		b->n = host_at;
		u32(b, 1);
		u32(b, 1);
		u32(b, 1);
		u32(b, 3);
		u32(b, s->comp_mmap_len);
	}
	b->n = b->n > host_at ? b->n : host_at;
}

/* ---- records ---- */

static void hdr(struct bb *r, uint32_t type, uint16_t misc, uint16_t size)
{
	u32(r, type);
	u16(r, misc);
	u16(r, size);
}

static void str_padded(struct bb *r, const char *s, size_t len)
{
	size_t at = r->n;

	put(r, s, strlen(s));
	pad_to(r, at + len);
}

/* COMM pid/tid "spin", then the trailer {pid, tid, time} (sample_id_all with TID|TIME) */
static void rec_comm(struct bb *r, bool trailer)
{
	hdr(r, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, trailer ? 40 : 24);
	u32(r, 100);
	u32(r, 101);
	str_padded(r, "spin", 8);
	if (trailer) {
		u32(r, 100);
		u32(r, 101);
		u64(r, 777);
	}
}

static void rec_mmap2(struct bb *r)
{
	hdr(r, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, 104);
	u32(r, 100);
	u32(r, 101);
	u64(r, 0x400000);
	u64(r, 0x2000);
	u64(r, 0x1000);
	u32(r, 8);                   /* maj */
	u32(r, 1);                   /* min */
	u64(r, 123456);              /* ino */
	u64(r, 9);                   /* ino_generation */
	u32(r, 5);                   /* prot */
	u32(r, 2);                   /* flags */
	str_padded(r, "/bin/spin", 16);
	u32(r, 100);                 /* trailer */
	u32(r, 101);
	u64(r, 778);
}

#define ST_BASIC (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD | \
		  PERF_SAMPLE_CALLCHAIN)

/* a ST_BASIC sample: ip, pid 100 tid 101, time, period 250000, callchain of 3 */
static void rec_sample(struct bb *r, uint64_t ip, uint64_t time)
{
	hdr(r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 8 + 8 * 4 + 8 * 4);
	u64(r, ip);
	u32(r, 100);
	u32(r, 101);
	u64(r, time);
	u64(r, 250000);
	u64(r, 3);
	u64(r, 0xfffffffffffffe00ull);
	u64(r, ip);
	u64(r, 0x401234);
}

/* With T2F_PERF_DATA_SEEDS=DIR, every file built is also written to DIR/unit-N (fuzz seeds,
 * tests/fuzz/README.md). */
static void save_seed(const struct bb *b)
{
	static unsigned n;
	const char *dir = getenv("T2F_PERF_DATA_SEEDS");
	char path[4096];
	FILE *f;

	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s/unit-%u", dir, n++);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b->b, 1, b->n, f), b->n);
	assert_int_equal(fclose(f), 0);
}

static struct t2f_perf_data *open_ok(const struct bb *b, struct sink *s)
{
	struct t2f_perf_data *p = NULL;
	int err;

	save_seed(b);
	err = t2f_perf_data__open_mem("t.data", b->b, b->n, s->d, &p);

	if (err)
		fail_msg("open: %d %s", err, t2f_diag__last_error(s->d));
	return p;
}

static struct sink *cur_sink; /* for next_ok's message */

/* A fresh sink, the one next_ok's messages name. */
static void sink_start(struct sink *s)
{
	sink_init(s);
	cur_sink = s;
}

static const struct t2f_perf_record *next_ok(struct t2f_perf_data *p)
{
	const struct t2f_perf_record *r = NULL;
	int ret = t2f_perf_data__next(p, &r);

	if (ret != 1)
		fail_msg("next: %d %s", ret, cur_sink ? t2f_diag__last_error(cur_sink->d) : "");
	return r;
}

/* ---- tests ---- */

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
			 -T2F_E_FORMAT);
	assert_null(p);
	assert_string_equal(t2f_diag__last_error(s.d),
			    "t.data: offset 0: not a perf.data file (expected the magic PERFILE2)");
	/* pipe mode: header size 16 */
	memset(&file, 0, sizeof(file));
	put(&file, "PERFILE2", 8);
	u64(&file, 16);
	assert_int_equal(t2f_perf_data__open_mem("t.data", file.b, file.n, s.d, &p),
			 -T2F_E_UNSUPPORTED);
	assert_non_null(strstr(t2f_diag__last_error(s.d), "pipe-mode"));
	/* a data section starting past the end of the file */
	sp.attrs[0] = (struct attr_spec){ .type = 1, .sample_type = PERF_SAMPLE_IP };
	build(&file, &sp);
	set64(&file, 40, 4096);
	assert_int_equal(t2f_perf_data__open_mem("t.data", file.b, file.n, s.d, &p),
			 -T2F_E_FORMAT);
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
			 -T2F_E_FORMAT);
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
	assert_int_equal(t2f_perf_data__next(p, &r), -T2F_E_FORMAT);
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
			 -T2F_E_FORMAT);
	assert_string_equal(t2f_diag__last_error(s.d),
			    "t.data: offset 104: attr 0: sample_type has REGS_USER but the attr's "
			    "72 bytes end before sample_regs_user (88 bytes needed)");
	/* an entry too small for even the first attr version */
	sp.attr_bytes = 48;
	sp.attrs[0].sample_type = PERF_SAMPLE_IP;
	build(&file, &sp);
	assert_int_equal(t2f_perf_data__open_mem("t.data", file.b, file.n, s.d, &p),
			 -T2F_E_FORMAT);
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
	assert_int_equal(t2f_perf_data__open_mem("t.data", file.b, file.n, s.d, &p), -T2F_E_FORMAT);
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
	assert_int_equal(t2f_perf_data__next(p, &r), -T2F_E_DECOMPRESS);
	assert_non_null(strstr(t2f_diag__last_error(s.d), "t.data: offset 248: compressed record"));
	t2f_perf_data__free(p);
	sink_close(&s);
}

/* ---- hostile files: each a warning or an error naming the offset, never a crash or hang ---- */

/* The records a reading delivers, as "TYPE@OFFSET" lines, and its warnings. */
struct reading {
	char recs[4096];
	int status;                  /* __open(_mem)'s error, or the last __next's */
	unsigned warnings;
	char text[4096];
};

static void read_rest(struct t2f_perf_data *p, struct sink *s, struct reading *out)
{
	const struct t2f_perf_record *r;
	size_t n = 0;
	int ret;

	while ((ret = t2f_perf_data__next(p, &r)) > 0) {
		assert_true(n < sizeof(out->recs) - 64);
		n += (size_t)snprintf(out->recs + n, sizeof(out->recs) - n, "%s@%llu%s ",
				      t2f_perf_data__type_name(r->type),
				      (unsigned long long)(r->in_compressed ? r->comp_offset
								  : r->offset),
				      r->in_compressed ? "z" : "");
	}
	out->status = ret;
	t2f_perf_data__free(p);
	out->warnings = t2f_diag__warnings(s->d);
	snprintf(out->text, sizeof(out->text), "%s%s", sink_text(s),
		 t2f_diag__last_error(s->d) ? t2f_diag__last_error(s->d) : "");
}

/* Reads bytes[0..n) in memory, and as a file (memfd) read `block` bytes at a time. */
static void read_both(const uint8_t *bytes, size_t n, size_t block, struct reading *mem,
		      struct reading *file)
{
	struct t2f_perf_data *p;
	struct sink s;
	char path[64];
	int fd = memfd_create("t.data", MFD_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, bytes, n), (ssize_t)n);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	memset(mem, 0, sizeof(*mem));
	memset(file, 0, sizeof(*file));
	sink_init(&s);
	mem->status = t2f_perf_data__open_mem(path, bytes, n, s.d, &p);
	if (!mem->status)
		read_rest(p, &s, mem);
	else
		snprintf(mem->text, sizeof(mem->text), "%s", t2f_diag__last_error(s.d));
	sink_close(&s);
	sink_init(&s);
	file->status = t2f_perf_data__open(path, s.d, &p);
	if (!file->status) {
		t2f_perf_data__set_block(p, block);
		read_rest(p, &s, file);
	} else {
		snprintf(file->text, sizeof(file->text), "%s", t2f_diag__last_error(s.d));
	}
	sink_close(&s);
	close(fd);
	assert_int_equal(mem->status, file->status);
	assert_string_equal(mem->recs, file->recs);
	assert_string_equal(mem->text, file->text);
}

/* A file cut at every byte: before the data section an error naming the offset; inside it
 * the complete records, a warning that the file was cut, one naming the cut record's offset
 * (unless the cut falls on a record boundary) and one for the missing feature table. Read in
 * memory and from a file 1, 7, 64 and 4096 bytes at a time, in both byte orders. */
static void cut_everywhere(bool be)
{
	static struct bb data, file;
	struct spec sp = { .be = be, .n_attrs = 1, .data = &data, .hostname = "box" };
	size_t ends[8], n_rec = 0, data_at;
	static const size_t blocks[] = { 1, 7, 64, 4096 };

	memset(&data, 0, sizeof(data));
	data.be = be;
	sp.attrs[0] = (struct attr_spec){ .type = 1, .sample_type = ST_BASIC };
	rec_comm(&data, false);
	ends[n_rec++] = data.n;
	rec_mmap2(&data);
	ends[n_rec++] = data.n;
	for (int i = 0; i < 3; i++) {
		rec_sample(&data, 0x401000 + i, 10 + i);
		ends[n_rec++] = data.n;
	}
	build(&file, &sp);
	data_at = file.n - data.n - 16 - 12;   /* the table entry and the hostname section */
	assert_int_equal(data_at, 248);
	for (size_t len = 0; len <= file.n; len++) {
		struct reading mem, fr;
		size_t whole = 0, data_len = len > data_at ? len - data_at : 0;
		char want[256];

		read_both(file.b, len, blocks[len % 4], &mem, &fr);
		if (len < data_at) {
			assert_true(mem.status < 0);
			assert_non_null(strstr(mem.text, ": offset "));
			continue;
		}
		assert_int_equal(mem.status, 0);
		while (whole < n_rec && ends[whole] <= data_len)
			whole++;
		assert_int_equal(strlen(mem.recs) > 0 ? 1 : 0, whole > 0);
		for (size_t i = 0, at = 0; i < whole; i++) {
			snprintf(want, sizeof(want), "%s@%zu ", i == 0 ? "COMM" : i == 1 ? "MMAP2"
				 : "SAMPLE", data_at + (i ? ends[i - 1] : 0));
			assert_non_null(strstr(mem.recs + at, want));
			at += strlen(want);
		}
		if (len >= file.n) {
			assert_int_equal(mem.warnings, 0);
			continue;
		}
		if (data_len < data.n) {
			bool boundary = data_len == (whole ? ends[whole - 1] : 0);

			assert_non_null(strstr(mem.text, "offset 40: data section [248, +"));
			assert_non_null(strstr(mem.text, "the file was cut; read to its end"));
			if (!boundary) {
				snprintf(want, sizeof(want), "offset %zu: truncated: a record of ",
					 data_at + (whole ? ends[whole - 1] : 0));
				assert_non_null(strstr(mem.text, want));
			}
			assert_int_equal(mem.warnings, 2 + !boundary);
		} else {
			assert_int_equal(mem.warnings, 1);
		}
		if (data_len < data.n + 16)
			snprintf(want, sizeof(want), "offset %zu: the feature table runs past the "
				 "end of the file (%zu bytes)", data_at + data.n, len);
		else
			snprintf(want, sizeof(want), "offset %zu: feature 3 section [%zu, +12) runs "
				 "past the end of the file (%zu bytes)", data_at + data.n,
				 data_at + data.n + 16, len);
		if (!strstr(mem.text, want))
			fail_msg("len %zu: %s", len, mem.text);
	}
}

static void test_cut_everywhere(void **state)
{
	(void)state;
	cut_everywhere(false);
	cut_everywhere(true);
}

static size_t count_of(const char *s, const char *what)
{
	size_t n = 0;

	while ((s = strstr(s, what))) {
		n++;
		s++;
	}
	return n;
}

/* Records larger than the block they are read with, and AUXTRACE payloads skipped past it. */
static void test_blocks(void **state)
{
	static struct bb data, file;
	struct spec sp = { .n_attrs = 1, .data = &data };
	struct reading mem, fr;

	(void)state;
	memset(&data, 0, sizeof(data));
	sp.attrs[0] = (struct attr_spec){ .type = 1, .sample_type = ST_BASIC };
	for (int i = 0; i < 40; i++) {
		if (i % 7 == 3) {    /* AUXTRACE {u64 size, offset, reference; u32 idx, tid, cpu,
				      * reserved} then size bytes */
			hdr(&data, T2F_PERF_RECORD_AUXTRACE, 0, 48);
			u64(&data, 24 + 8 * (uint64_t)i);
			pad_to(&data, data.n + 32 + 24 + 8 * (size_t)i);
		}
		rec_sample(&data, 0x401000 + (uint64_t)i, (uint64_t)i);
	}
	build(&file, &sp);
	for (size_t block = 1; block <= 300; block += 13) {
		read_both(file.b, file.n, block, &mem, &fr);
		assert_int_equal(mem.status, 0);
		assert_int_equal(mem.warnings, 0);
		assert_int_equal(count_of(mem.recs, "SAMPLE@"), 40);
		assert_int_equal(count_of(mem.recs, "AUXTRACE@"), 6);
		assert_non_null(strstr(mem.recs, "SAMPLE@392 AUXTRACE@464 SAMPLE@560 "));
		assert_non_null(strstr(mem.recs, "AUXTRACE@4024 SAMPLE@4400 SAMPLE@4472 "));
	}
	/* an AUXTRACE payload claiming more than the data section: truncated */
	memset(&data, 0, sizeof(data));
	rec_sample(&data, 0x401000, 1);
	hdr(&data, T2F_PERF_RECORD_AUXTRACE, 0, 48);
	u64(&data, UINT64_MAX - 20);
	pad_to(&data, data.n + 32);
	rec_sample(&data, 0x401000, 2);
	build(&file, &sp);
	read_both(file.b, file.n, 16, &mem, &fr);
	assert_int_equal(mem.status, 0);
	assert_string_equal(mem.recs, "SAMPLE@248 ");
	if (!strstr(mem.text, "offset 320: truncated: an AUXTRACE record of 48 bytes "
				 "and a payload of 18446744073709551595 bytes, 120 left in the data "
				 "section"))
		fail_msg("%s", mem.text);
}

/* attr and feature sections whose offsets and sizes overflow or run out of the file */
static void test_hostile_sections(void **state)
{
	static struct bb file;
	struct spec sp = { .n_attrs = 2, .hostname = "box" };
	struct reading mem, fr;
	uint8_t *big;
	size_t big_n;

	(void)state;
	sp.attrs[0] = (struct attr_spec){ .type = 1, .sample_type = PERF_SAMPLE_IP, .n_ids = 1,
					  .ids = { 5 } };
	sp.attrs[1] = sp.attrs[0];
	sp.attrs[1].ids[0] = 6;
	build(&file, &sp);
	read_both(file.b, file.n, 64, &mem, &fr);
	assert_int_equal(mem.status, 0);
	/* the attr section: offset + size wrapping around */
	set64(&file, 24, UINT64_MAX - 100);
	read_both(file.b, file.n, 64, &mem, &fr);
	assert_int_equal(mem.status, -T2F_E_FORMAT);
	assert_non_null(strstr(mem.text, "offset 24: attr section [18446744073709551515, +288) "
					 "runs past the end of the file"));
	set64(&file, 24, 104);
	/* attr_size 0 and 2^63 (attrs_size a multiple of it) */
	set64(&file, 16, 0);
	read_both(file.b, file.n, 64, &mem, &fr);
	assert_non_null(strstr(mem.text, "offset 16: attr_size 0, expected at least 80"));
	set64(&file, 16, 1ull << 63);
	set64(&file, 32, 1ull << 63);
	read_both(file.b, file.n, 64, &mem, &fr);
	assert_non_null(strstr(mem.text, "offset 24: attr section [104, +9223372036854775808) "
					 "runs past the end of the file"));
	set64(&file, 16, 144);
	set64(&file, 32, 288);
	/* an ids section wrapping around, then two attrs sharing the whole file as ids */
	set64(&file, 104 + 128, UINT64_MAX - 7);
	read_both(file.b, file.n, 64, &mem, &fr);
	assert_non_null(strstr(mem.text, "offset 232: attr 0: ids section [18446744073709551608, "
					 "+8) is not a whole number of ids inside the file"));
	file.n = (file.n + 7) / 8 * 8;
	set64(&file, 104 + 128, 0);
	set64(&file, 104 + 136, file.n);
	set64(&file, 104 + 144 + 128, 0);
	set64(&file, 104 + 144 + 136, file.n);
	read_both(file.b, file.n, 64, &mem, &fr);
	assert_int_equal(mem.status, -T2F_E_FORMAT);
	assert_non_null(strstr(mem.text, "offset 376: attr 1: ids section [0, +"));
	assert_non_null(strstr(mem.text, "makes the attrs' ids more than the file's"));
	build(&file, &sp);
	/* the data section's end (the feature table's offset) wrapping around */
	set64(&file, 48, UINT64_MAX - 100);
	read_both(file.b, file.n, 64, &mem, &fr);
	assert_int_equal(mem.status, -T2F_E_FORMAT); /* the feature bytes read as records */
	assert_int_equal(mem.warnings, 2);
	assert_non_null(strstr(mem.text, "offset 40: the data section [408, +18446744073709551515) "
					 "ends past 2^64: no feature table; features skipped"));
	assert_non_null(strstr(mem.text, "offset 408: record size 0, expected at least 8"));
	build(&file, &sp);
	/* the feature section: offset + size wrapping around, then larger than 32 MiB */
	set64(&file, file.n - 28, UINT64_MAX - 3);
	read_both(file.b, file.n, 64, &mem, &fr);
	assert_int_equal(mem.status, 0);
	assert_non_null(strstr(mem.text, "feature 3 section [18446744073709551612, +12) runs past "
					 "the end of the file"));
	big_n = file.n + (33u << 20);
	big = calloc(1, big_n);
	assert_non_null(big);
	memcpy(big, file.b, file.n);
	memcpy(big + file.n - 28, &(uint64_t){ file.n }, 8);
	memcpy(big + file.n - 20, &(uint64_t){ 33u << 20 }, 8);
	read_both(big, big_n, 4096, &mem, &fr);
	free(big);
	assert_int_equal(mem.status, 0);
	assert_non_null(strstr(mem.text, "feature 3 section of 34603008 bytes, more than the 32 "
					 "MiB this reader decodes: skipped"));
	/* more attrs than any perf writes */
	big_n = 104 + (size_t)96 * 65537;
	big = calloc(1, big_n);
	assert_non_null(big);
	memcpy(big, file.b, 104);
	memcpy(big + 16, &(uint64_t){ 96 }, 8);
	memcpy(big + 32, &(uint64_t){ 96ull * 65537 }, 8);
	memcpy(big + 40, &(uint64_t){ big_n }, 8);
	memcpy(big + 48, &(uint64_t){ 0 }, 8);
	read_both(big, big_n, 4096, &mem, &fr);
	free(big);
	assert_string_equal(strstr(mem.text, "offset 24"), "offset 24: attr section of 65537 "
			    "attrs, expected at most 65536");
}

/* data wrapped in one PERF_RECORD_COMPRESSED record */
static void put_compressed(struct bb *data, const void *z, size_t n)
{
	hdr(data, T2F_PERF_RECORD_COMPRESSED, 0, (uint16_t)(8 + n));
	put(data, z, n);
}

/* Record sizes 0 and 4, in the file and in compressed data; a callchain longer than its
 * record; zstd frames claiming a huge content or window size, or expanding past mmap_len. */
static void test_hostile_records(void **state)
{
	static struct bb inner, data, file;
	static uint8_t zeros[2u << 20];
	struct spec sp = { .n_attrs = 1, .data = &data };
	struct reading mem, fr;
	uint8_t z[4096];
	size_t n;

	(void)state;
	sp.attrs[0] = (struct attr_spec){ .type = 1, .sample_type = ST_BASIC };
	for (uint16_t size = 0; size < 8; size += 4) {
		memset(&data, 0, sizeof(data));
		rec_sample(&data, 0x401000, 1);
		hdr(&data, PERF_RECORD_SAMPLE, 0, size);
		pad_to(&data, data.n + 64);
		build(&file, &sp);
		read_both(file.b, file.n, 16, &mem, &fr);
		assert_int_equal(mem.status, -T2F_E_FORMAT);
		assert_string_equal(mem.recs, "SAMPLE@248 ");
		assert_non_null(strstr(mem.text, size ? "offset 320: record size 4, expected at "
						       "least 8" : "offset 320: record size 0, "
						       "expected at least 8"));
		/* the same inside compressed data */
		memset(&inner, 0, sizeof(inner));
		rec_sample(&inner, 0x401000, 1);
		hdr(&inner, PERF_RECORD_SAMPLE, 0, size);
		pad_to(&inner, inner.n + 64);
		n = ZSTD_compress(z, sizeof(z), inner.b, inner.n, 1);
		assert_false(ZSTD_isError(n));
		memset(&data, 0, sizeof(data));
		put_compressed(&data, z, n);
		build(&file, &sp);
		read_both(file.b, file.n, 16, &mem, &fr);
		assert_int_equal(mem.status, -T2F_E_FORMAT);
		assert_string_equal(mem.recs, "SAMPLE@0z ");
		assert_non_null(strstr(mem.text, "offset 248: compressed data, offset 72: record "
						 "size"));
	}
	/* a callchain of 2^61 and of 5 entries in a record holding 3 */
	for (int i = 0; i < 2; i++) {
		memset(&data, 0, sizeof(data));
		rec_sample(&data, 0x401000, 1);
		set64(&data, 40, i ? 5 : 1ull << 61);
		rec_sample(&data, 0x401000, 2);
		build(&file, &sp);
		read_both(file.b, file.n, 16, &mem, &fr);
		assert_int_equal(mem.status, 0);
		assert_string_equal(mem.recs, "SAMPLE@320 ");
		assert_non_null(strstr(mem.text, "offset 248: SAMPLE record of 72 bytes ends inside "
						 "its CALLCHAIN field: skipped"));
	}
	/* the same inside compressed data: the warning names both offsets */
	memset(&inner, 0, sizeof(inner));
	rec_sample(&inner, 0x401000, 1);
	rec_sample(&inner, 0x401000, 2);
	set64(&inner, 72 + 40, 1ull << 61);
	rec_sample(&inner, 0x401000, 3);
	n = ZSTD_compress(z, sizeof(z), inner.b, inner.n, 1);
	assert_false(ZSTD_isError(n));
	memset(&data, 0, sizeof(data));
	put_compressed(&data, z, n);
	build(&file, &sp);
	read_both(file.b, file.n, 16, &mem, &fr);
	assert_int_equal(mem.status, 0);
	assert_string_equal(mem.recs, "SAMPLE@0z SAMPLE@144z ");
	assert_non_null(strstr(mem.text, "offset 248: compressed data, offset 72: SAMPLE record of "
					 "72 bytes ends inside its CALLCHAIN field: skipped"));
	/* frames claiming 2^62 bytes of content (8 in a raw block), and a 2^41-byte window */
	{
		static const uint8_t huge_fcs[] = { 0x28, 0xb5, 0x2f, 0xfd, 0xc0, 0x00, 0, 0, 0, 0, 0,
						    0, 0, 0x40, 0x41, 0, 0, 9, 0, 0, 0, 0, 0, 8, 0 };
		static const uint8_t huge_window[] = { 0x28, 0xb5, 0x2f, 0xfd, 0x00, 0xf8, 0x41, 0,
						       0, 9, 0, 0, 0, 0, 0, 8, 0 };

		memset(&data, 0, sizeof(data));
		put_compressed(&data, huge_fcs, sizeof(huge_fcs));
		build(&file, &sp);
		read_both(file.b, file.n, 16, &mem, &fr);
		assert_int_equal(mem.status, -T2F_E_DECOMPRESS);
		assert_non_null(strstr(mem.text, "offset 248: compressed record: "));
		memset(&data, 0, sizeof(data));
		put_compressed(&data, huge_window, sizeof(huge_window));
		build(&file, &sp);
		read_both(file.b, file.n, 16, &mem, &fr);
		assert_int_equal(mem.status, -T2F_E_DECOMPRESS);
		assert_non_null(strstr(mem.text, "offset 248: compressed record: Frame requires too "
						 "much memory"));
	}
	/* 2 MiB of zeros in one record, past the COMPRESSED feature's mmap_len (1 MiB) */
	n = ZSTD_compress(z, sizeof(z), zeros, sizeof(zeros), 1);
	assert_false(ZSTD_isError(n));
	memset(&data, 0, sizeof(data));
	put_compressed(&data, z, n);
	sp.comp_mmap_len = 1u << 20;
	build(&file, &sp);
	read_both(file.b, file.n, 16, &mem, &fr);
	assert_int_equal(mem.status, -T2F_E_LIMIT);
	assert_non_null(strstr(mem.text, "offset 248: compressed record expands past 1048576 bytes "
					 "(the COMPRESSED feature's mmap_len)"));
	sp.comp_mmap_len = 4u << 20; /* within it: records of size 0 */
	build(&file, &sp);
	read_both(file.b, file.n, 16, &mem, &fr);
	assert_int_equal(mem.status, -T2F_E_FORMAT);
	assert_non_null(strstr(mem.text, "offset 248: compressed data, offset 0: record size 0"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_byte_orders),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_short_record),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_attr_too_short),
		cmocka_unit_test(test_unknown_sample_bits),
		cmocka_unit_test(test_unknown_id),
		cmocka_unit_test(test_feature_out_of_file),
		cmocka_unit_test(test_skipped_fields),
		cmocka_unit_test(test_compressed),
		cmocka_unit_test(test_cut_everywhere),
		cmocka_unit_test(test_blocks),
		cmocka_unit_test(test_hostile_sections),
		cmocka_unit_test(test_hostile_records),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
