/* tests/unit/test_perf_data_hostile.c: the perf.data reader (readers/perf_data.h) on hostile
 * files (support/perf_data_file.h): cut at every byte, read in memory and from a file in blocks
 * of every size, sections and records whose sizes wrap or run out of the file, compressed data
 * claiming more than it may. Each is a warning or an error naming the offset, never a crash, a
 * hang or an unbounded allocation; the memory and file readings agree. */
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
#include "support/perf_data_file.h"

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

/* Reads the file at path, `block` bytes at a time (0: mapped in windows, t2f_perf_data__set_map). */
static void read_file(const char *path, size_t block, struct reading *file)
{
	struct t2f_perf_data *p;
	struct sink s;

	memset(file, 0, sizeof(*file));
	sink_init(&s);
	file->status = t2f_perf_data__open(path, s.d, &p);
	if (!file->status) {
		t2f_perf_data__set_block(p, block);
		t2f_perf_data__set_map(p, block ? T2F_PERF_DATA_READ : T2F_PERF_DATA_MAP);
		read_rest(p, &s, file);
	} else {
		snprintf(file->text, sizeof(file->text), "%s", t2f_diag__last_error(s.d));
	}
	sink_close(&s);
}

static void expect_same(const struct reading *mem, const struct reading *file)
{
	assert_int_equal(mem->status, file->status);
	assert_string_equal(mem->recs, file->recs);
	assert_string_equal(mem->text, file->text);
}

/* Reads bytes[0..n) in memory, and as a file (memfd) read `block` bytes at a time and mapped:
 * the three readings must agree. */
static void read_both(const uint8_t *bytes, size_t n, size_t block, struct reading *mem,
		      struct reading *file)
{
	struct t2f_perf_data *p;
	struct reading mapped;
	struct sink s;
	char path[64];
	int fd = memfd_create("t.data", MFD_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, bytes, n), (ssize_t)n);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	memset(mem, 0, sizeof(*mem));
	sink_init(&s);
	mem->status = t2f_perf_data__open_mem(path, bytes, n, s.d, &p);
	if (!mem->status)
		read_rest(p, &s, mem);
	else
		snprintf(mem->text, sizeof(mem->text), "%s", t2f_diag__last_error(s.d));
	sink_close(&s);
	read_file(path, block, file);
	read_file(path, 0, &mapped);
	close(fd);
	expect_same(mem, file);
	expect_same(mem, &mapped);
}

/* Builds sp's file and reads it (in memory, and as a file 16 bytes at a time): the status, the
 * records read (NULL: not checked) and a part of the messages must be these. */
static void expect_read(const struct spec *sp, int status, const char *recs, const char *text)
{
	static struct bb file;
	struct reading mem, fr;

	build(&file, sp);
	read_both(file.b, file.n, 16, &mem, &fr);
	assert_int_equal(mem.status, status);
	if (recs)
		assert_string_equal(mem.recs, recs);
	assert_non_null(strstr(mem.text, text));
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
	assert_int_equal(mem.status, -T2F_ERR_FORMAT);
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
	assert_int_equal(mem.status, -T2F_ERR_FORMAT);
	assert_non_null(strstr(mem.text, "offset 376: attr 1: ids section [0, +"));
	assert_non_null(strstr(mem.text, "makes the attrs' ids more than the file's"));
	build(&file, &sp);
	/* the data section's end (the feature table's offset) wrapping around */
	set64(&file, 48, UINT64_MAX - 100);
	read_both(file.b, file.n, 64, &mem, &fr);
	assert_int_equal(mem.status, -T2F_ERR_FORMAT); /* the feature bytes read as records */
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

/* *data = one PERF_RECORD_COMPRESSED record holding the zstd frame of raw[0..len) */
static void compressed_only(struct bb *data, const void *raw, size_t len)
{
	uint8_t z[4096];
	size_t n = ZSTD_compress(z, sizeof(z), raw, len, 1);

	assert_false(ZSTD_isError(n));
	memset(data, 0, sizeof(*data));
	put_compressed(data, z, n);
}

/* Record sizes 0 and 4, in the file and in compressed data; a callchain longer than its
 * record; zstd frames claiming a huge content or window size, or expanding past mmap_len. */
static void test_hostile_records(void **state)
{
	static struct bb inner, data;
	static uint8_t zeros[2u << 20];
	struct spec sp = { .n_attrs = 1, .data = &data };

	(void)state;
	sp.attrs[0] = (struct attr_spec){ .type = 1, .sample_type = ST_BASIC };
	for (uint16_t size = 0; size < 8; size += 4) {
		memset(&data, 0, sizeof(data));
		rec_sample(&data, 0x401000, 1);
		hdr(&data, PERF_RECORD_SAMPLE, 0, size);
		pad_to(&data, data.n + 64);
		expect_read(&sp, -T2F_ERR_FORMAT, "SAMPLE@248 ",
			    size ? "offset 320: record size 4, expected at least 8"
				 : "offset 320: record size 0, expected at least 8");
		/* the same inside compressed data */
		memset(&inner, 0, sizeof(inner));
		rec_sample(&inner, 0x401000, 1);
		hdr(&inner, PERF_RECORD_SAMPLE, 0, size);
		pad_to(&inner, inner.n + 64);
		compressed_only(&data, inner.b, inner.n);
		expect_read(&sp, -T2F_ERR_FORMAT, "SAMPLE@0z ",
			    "offset 248: compressed data, offset 72: record size");
	}
	/* a callchain of 2^61 and of 5 entries in a record holding 3 */
	for (int i = 0; i < 2; i++) {
		memset(&data, 0, sizeof(data));
		rec_sample(&data, 0x401000, 1);
		set64(&data, 40, i ? 5 : 1ull << 61);
		rec_sample(&data, 0x401000, 2);
		expect_read(&sp, 0, "SAMPLE@320 ",
			    "offset 248: SAMPLE record of 72 bytes ends inside its CALLCHAIN "
			    "field: skipped");
	}
	/* the same inside compressed data: the warning names both offsets */
	memset(&inner, 0, sizeof(inner));
	rec_sample(&inner, 0x401000, 1);
	rec_sample(&inner, 0x401000, 2);
	set64(&inner, 72 + 40, 1ull << 61);
	rec_sample(&inner, 0x401000, 3);
	compressed_only(&data, inner.b, inner.n);
	expect_read(&sp, 0, "SAMPLE@0z SAMPLE@144z ",
		    "offset 248: compressed data, offset 72: SAMPLE record of 72 bytes ends "
		    "inside its CALLCHAIN field: skipped");
	/* frames claiming 2^62 bytes of content (8 in a raw block), and a 2^41-byte window */
	{
		static const uint8_t huge_fcs[] = { 0x28, 0xb5, 0x2f, 0xfd, 0xc0, 0x00, 0, 0, 0, 0, 0,
						    0, 0, 0x40, 0x41, 0, 0, 9, 0, 0, 0, 0, 0, 8, 0 };
		static const uint8_t huge_window[] = { 0x28, 0xb5, 0x2f, 0xfd, 0x00, 0xf8, 0x41, 0,
						       0, 9, 0, 0, 0, 0, 0, 8, 0 };

		memset(&data, 0, sizeof(data));
		put_compressed(&data, huge_fcs, sizeof(huge_fcs));
		expect_read(&sp, -T2F_ERR_DECOMPRESS, NULL, "offset 248: compressed record: ");
		memset(&data, 0, sizeof(data));
		put_compressed(&data, huge_window, sizeof(huge_window));
		expect_read(&sp, -T2F_ERR_DECOMPRESS, NULL,
			    "offset 248: compressed record: Frame requires too much memory");
	}
	/* 2 MiB of zeros in one record, past the COMPRESSED feature's mmap_len (1 MiB) */
	compressed_only(&data, zeros, sizeof(zeros));
	sp.comp_mmap_len = 1u << 20;
	expect_read(&sp, -T2F_ERR_LIMIT, NULL,
		    "offset 248: compressed record expands past 1048576 bytes (the COMPRESSED "
		    "feature's mmap_len)");
	sp.comp_mmap_len = 4u << 20; /* within it: records of size 0 */
	expect_read(&sp, -T2F_ERR_FORMAT, NULL,
		    "offset 248: compressed data, offset 0: record size 0");
}

/* A file cut after it was opened: an error naming the offset where it now ends (after the
 * records before the block it cut), read in blocks or mapped (where an access past the end
 * would be SIGBUS). */
static void test_shrunk_after_open(void **state)
{
	static struct bb data, file;
	struct spec sp = { .n_attrs = 1, .data = &data };
	static const size_t blocks[] = { 0, 64 };

	(void)state;
	memset(&data, 0, sizeof(data));
	sp.attrs[0] = (struct attr_spec){ .type = 1, .sample_type = ST_BASIC };
	for (int i = 0; i < 400; i++)
		rec_sample(&data, 0x401000 + (uint64_t)i, (uint64_t)i);
	build(&file, &sp);
	assert_true(file.n > 8192);
	for (size_t b = 0; b < 2; b++) {
		struct t2f_perf_data *p;
		const struct t2f_perf_record *r;
		struct sink s;
		char path[64];
		size_t n = 0;
		int fd = memfd_create("t.data", MFD_CLOEXEC), ret;

		assert_true(fd >= 0);
		assert_int_equal(write(fd, file.b, file.n), (ssize_t)file.n);
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		sink_init(&s);
		assert_int_equal(t2f_perf_data__open(path, s.d, &p), 0);
		t2f_perf_data__set_block(p, blocks[b]);
		t2f_perf_data__set_map(p, blocks[b] ? T2F_PERF_DATA_READ : T2F_PERF_DATA_MAP);
		assert_int_equal(ftruncate(fd, 4096), 0);
		while ((ret = t2f_perf_data__next(p, &r)) > 0)
			n++;
		assert_int_equal(ret, -T2F_ERR_FORMAT);
		if (n >= 400 || (blocks[b] && !n))
			fail_msg("block %zu: %zu records, %s", blocks[b], n, t2f_diag__last_error(s.d));
		if (!strstr(t2f_diag__last_error(s.d), "offset 4096: "))
			fail_msg("block %zu: %s", blocks[b], t2f_diag__last_error(s.d));
		t2f_perf_data__free(p);
		sink_close(&s);
		close(fd);
	}
}

/* ---- a recording of stack copies, larger than a mapped window ---- */

#define SW_N 400                /* samples of 80 bytes and a stack copy of up to 64 KiB: 13 MB */
#define SW_FAR 200              /* records back whose copy may be mapped still, or not: 6.5 MB */

static void le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

/* What a reading gives of a record: its offset, time and stack copy, hashed into h. */
static uint64_t sw_digest(uint64_t h, uint64_t off, uint64_t time, const uint8_t *stack,
			  uint64_t size, uint64_t dyn)
{
	uint64_t v[4] = { off, time, size, dyn };

	return fnv(fnv(h, v, sizeof(v)), stack, size);
}

static uint64_t sw_want[SW_N + 1]; /* [i]: the digest of the first i records (sw_data) */

/* The data section: SW_N ST_BASIC | STACK_USER samples whose copies (8 * (i * 7919 % 8180)
 * bytes, each byte its own) make records of 80 to 65,520 bytes, so that windows cut them. *want:
 * their digest, given the data section's file offset (and sw_want that of each first i). */
static uint8_t *sw_data(uint64_t data_at, size_t *len, uint64_t *want)
{
	uint8_t *d = malloc((size_t)SW_N * 65536), *r;
	uint64_t h = 0xcbf29ce484222325ull;
	size_t n = 0;

	assert_non_null(d);
	for (uint64_t i = 0; i < SW_N; i++) {
		uint64_t size = 8 * (i * 7919 % 8180);

		sw_want[i] = h;
		uint16_t rec = (uint16_t)(size ? 88 + size : 80); /* dyn_size after a copy */

		r = d + n;
		le64(r, PERF_RECORD_SAMPLE | (uint64_t)PERF_RECORD_MISC_USER << 32 |
			(uint64_t)rec << 48);
		le64(r + 8, 0x401000 + i);
		le64(r + 16, 100 | 101ull << 32);
		le64(r + 24, i);            /* time */
		le64(r + 32, 250000);
		le64(r + 40, 3);
		le64(r + 48, 0xfffffffffffffe00ull);
		le64(r + 56, 0x401000 + i);
		le64(r + 64, 0x401234);
		le64(r + 72, size);
		for (uint64_t j = 0; j < size; j++)
			r[80 + j] = (uint8_t)(i * 31 + j * 7);
		if (size)
			le64(r + 80 + size, size);
		h = sw_digest(h, data_at + n, i, r + 80, size, size);
		n += rec;
	}
	sw_want[SW_N] = h;
	*len = n;
	*want = h;
	return d;
}

/* Whether m holds the stack copy sample i was given (sw_data). */
static bool sw_stack_is(const uint8_t *m, uint64_t i, uint64_t size)
{
	for (uint64_t j = 0; j < size; j++)
		if (m[j] != (uint8_t)(i * 31 + j * 7))
			return false;
	return true;
}

/* Reads every record: their count, digest and the final status; whether the reader mapped
 * windows ahead on its thread. After each record, the stack copies of it and of the one before
 * are asked for where they are mapped still (t2f_perf_data__mapped): they must be, and hold
 * their bytes, when the file is mapped (every_mapped 1), and not be when it is read in blocks
 * (0; -1: either, not checked);
 * *far counts the records SW_FAR back still mapped (the windows let go: fewer than all). */
static int sw_read(struct t2f_perf_data *p, int every_mapped, size_t *count, uint64_t *digest,
		   bool *ahead, size_t *far)
{
	static uint64_t at[SW_N], size[SW_N];
	const struct t2f_perf_record *r;
	uint64_t h = 0xcbf29ce484222325ull;
	int ret;

	*count = *far = 0;
	*ahead = false;
	while ((ret = t2f_perf_data__next(p, &r)) > 0) {
		const struct t2f_perf_sample *s = &r->s;
		size_t i = *count;

		assert_int_equal(r->type, PERF_RECORD_SAMPLE);
		h = sw_digest(h, r->offset, s->time, s->stack, s->stack_size, s->stack_dyn_size);
		*ahead |= p->ahead_bg != NULL;
		assert_true(i < SW_N);
		size[i] = s->stack_size;
		if (!t2f_perf_data__file_offset(p, r, s->stack, &at[i]))
			at[i] = r->offset + 80; /* open_mem: where the copy is */
		for (size_t k = i > 0 ? i - 1 : 0; k <= i; k++) {
			const uint8_t *m = t2f_perf_data__mapped(p, at[k], size[k]);

			if (every_mapped >= 0 && every_mapped != (m != NULL))
				fail_msg("record %zu, the copy of %zu: %s", i, k, m ? "mapped" : "not");
			if (m && !sw_stack_is(m, k, size[k]))
				fail_msg("record %zu, the copy of %zu: other bytes", i, k);
		}
		*far += i >= SW_FAR && t2f_perf_data__mapped(p, at[i - SW_FAR], size[i - SW_FAR]);
		++*count;
	}
	*digest = h;
	return ret;
}

/* A --call-graph dwarf recording (an attr copying user stacks) of 13 MB, its records cut by the
 * windows it is mapped in and the blocks it is read in: read in memory, mapped (the next window
 * mapped on the reader's thread while one is read), in blocks, and in blocks the thread reads
 * ahead, every record's offset, time and stack bytes are the ones written, and the stack copies
 * of each record and the one before are mapped still where the file is mapped (the window before
 * is kept; not without the thread, where nothing 200 records back is). Then the file cut after
 * it was opened, past the first two windows: the mapped reading (the thread's third window
 * fails, and so does the reader's own: it reads on in blocks), one in blocks of 256 KiB and one
 * read ahead give the records before the block the cut falls in as written, and the same error
 * naming the offset. */
static void test_stack_windows(void **state)
{
	static struct bb head;
	struct spec sp = { .n_attrs = 1 };
	struct t2f_perf_data *p;
	uint64_t want, got;
	size_t len, count, far;
	char path[64], err_mapped[512];
	uint8_t *data, *whole;
	struct sink s;
	bool ahead;
	int fd;

	(void)state;
	sp.attrs[0] = (struct attr_spec){ .type = 1,
					  .sample_type = ST_BASIC | PERF_SAMPLE_STACK_USER };
	sp.data_size_extra = 1;      /* patched below */
	build(&head, &sp);
	data = sw_data(head.n, &len, &want);
	assert_true(len > (12u << 20));
	sp.data_size_extra = len;
	build(&head, &sp);
	whole = malloc(head.n + len);
	assert_non_null(whole);
	memcpy(whole, head.b, head.n);
	memcpy(whole + head.n, data, len);

	sink_init(&s);
	assert_int_equal(t2f_perf_data__open_mem("mem.data", whole, head.n + len, s.d, &p), 0);
	assert_int_equal(sw_read(p, 1, &count, &got, &ahead, &far), 0);
	assert_int_equal(count, SW_N);
	assert_true(got == want);
	assert_false(ahead);
	assert_int_equal(far, SW_N - SW_FAR);
	t2f_perf_data__free(p);
	sink_close(&s);

	fd = memfd_create("t.data", MFD_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, whole, head.n + len), (ssize_t)(head.n + len));
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	/* how: 0 mapped, the thread mapping ahead; 1 in blocks of 4 KiB (no thread); 2 mapped, no
	 * thread (one window); 3 mapped or read, as weighed the cheaper (a thread either way); 4 read,
	 * the thread reading the next block ahead; 5 read, no thread */
	for (int how = 0; how < 6; how++) {
		static const int mapped[] = { 1, 0, -1, -1, 0, 0 };
		static const bool thread[] = { true, false, false, true, true, false };
		const struct t2f_perf_data_stats *st;

		sink_init(&s);
		assert_int_equal(t2f_perf_data__open(path, s.d, &p), 0);
		if (how == 1)
			t2f_perf_data__set_block(p, 4096);
		t2f_perf_data__set_map(p, how == 3 ? T2F_PERF_DATA_MAP_IF_CHEAPER :
					  how >= 4 ? T2F_PERF_DATA_READ :
						     T2F_PERF_DATA_MAP);
		t2f_perf_data__set_ahead(p, how != 2 && how != 5);
		assert_int_equal(sw_read(p, mapped[how], &count, &got, &ahead, &far), 0);
		assert_int_equal(count, SW_N);
		assert_true(got == want);
		st = t2f_perf_data__stats(p);
		assert_int_equal(ahead, thread[how]);
		if (how == 4) /* 13 MB in blocks of 1 MiB, from 64 KiB before the last one's end */
			assert_int_equal(st->read_ahead, 13);
		else if (how != 3)
			assert_int_equal(st->read_ahead, 0);
		if (how == 3) /* weighed at the first window */
			assert_true(st->probe_map_ns > 0 && st->probe_read_ns > 0);
		else
			assert_true(st->probe_read_ns == 0 && !st->mapped);
		if (!how && (far == 0 || far >= SW_N - SW_FAR))
			fail_msg("%zu of %d copies %d records back mapped", far, SW_N - SW_FAR,
				 SW_FAR);
		if (how == 2 && far)
			fail_msg("one window: %zu copies %d records back mapped", far, SW_FAR);
		assert_int_equal(t2f_diag__warnings(s.d), 0);
		t2f_perf_data__free(p);
		sink_close(&s);
	}

	/* how: 0 mapped; 1 in blocks of 256 KiB (the size the reader falls back to); 2 read, the
	 * thread reading ahead (its read of the block the cut falls in fails: the reader's own
	 * read names the offset) */
	for (int how = 0; how < 3; how++) {
		size_t n;
		uint64_t h;

		assert_int_equal(pwrite(fd, whole, head.n + len, 0), (ssize_t)(head.n + len));
		sink_init(&s);
		assert_int_equal(t2f_perf_data__open(path, s.d, &p), 0);
		if (how == 1)
			t2f_perf_data__set_block(p, 256u << 10);
		t2f_perf_data__set_map(p, how ? T2F_PERF_DATA_READ : T2F_PERF_DATA_MAP);
		assert_int_equal(ftruncate(fd, (off_t)head.n + (10 << 20)), 0);
		assert_int_equal(sw_read(p, -1, &n, &h, &ahead, &far), -T2F_ERR_FORMAT);
		if (!how) {
			snprintf(err_mapped, sizeof(err_mapped), "%s", t2f_diag__last_error(s.d));
		} else {
			assert_string_equal(err_mapped, t2f_diag__last_error(s.d));
			assert_int_equal(ahead, how == 2);
		}
		assert_true(n > 250 && n < SW_N); /* the records before the block cut, as written */
		assert_true(h == sw_want[n]);
		t2f_perf_data__free(p);
		sink_close(&s);
	}
	if (!strstr(err_mapped, "offset "))
		fail_msg("%s", err_mapped);
	close(fd);
	free(whole);
	free(data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cut_everywhere),
		cmocka_unit_test(test_blocks),
		cmocka_unit_test(test_hostile_sections),
		cmocka_unit_test(test_hostile_records),
		cmocka_unit_test(test_shrunk_after_open),
		cmocka_unit_test(test_stack_windows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
