/* tests/unit/support/perf_data_file.h: perf.data files built in memory for the reader's unit
 * tests (test_perf_data.c, test_perf_data_hostile.c): the header, attrs (and their ids), feature
 * sections and the data section, in either byte order; COMM, MMAP2 and SAMPLE records; opening
 * and reading with the warnings checked. With T2F_PERF_DATA_SEEDS=DIR every file built is also
 * written there (fuzz seeds, tests/fuzz/README.md). Header-only: every function is static
 * inline. */
#ifndef T2F_TEST_PERF_DATA_FILE_H
#define T2F_TEST_PERF_DATA_FILE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "readers/perf_data.h"
#include "support/diag_sink.h"
#include "support/perf_data_bytes.h"

#include "support/perf_data_bytes.h"

static inline void pad_to(struct bb *b, size_t n)
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

static inline void put_attr(struct bb *b, const struct attr_spec *a, uint32_t bytes, uint64_t ids_at)
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

static inline void build(struct bb *b, const struct spec *s)
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

static inline void hdr(struct bb *r, uint32_t type, uint16_t misc, uint16_t size)
{
	u32(r, type);
	u16(r, misc);
	u16(r, size);
}

static inline void str_padded(struct bb *r, const char *s, size_t len)
{
	size_t at = r->n;

	put(r, s, strlen(s));
	pad_to(r, at + len);
}

/* COMM pid/tid "spin", then the trailer {pid, tid, time} (sample_id_all with TID|TIME) */
static inline void rec_comm(struct bb *r, bool trailer)
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

static inline void rec_mmap2(struct bb *r)
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
static inline void rec_sample(struct bb *r, uint64_t ip, uint64_t time)
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

/* With T2F_PERF_DATA_SEEDS=DIR, every file built is also written to DIR/unit-PID-N (fuzz seeds,
 * tests/fuzz/README.md). */
static inline void save_seed(const struct bb *b)
{
	static unsigned n;
	const char *dir = getenv("T2F_PERF_DATA_SEEDS");
	char path[4096];
	FILE *f;

	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s/unit-%ld-%u", dir, (long)getpid(), n++);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b->b, 1, b->n, f), b->n);
	assert_int_equal(fclose(f), 0);
}

static inline struct t2f_perf_data *open_ok(const struct bb *b, struct sink *s)
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
static inline void sink_start(struct sink *s)
{
	sink_init(s);
	cur_sink = s;
}

static inline const struct t2f_perf_record *next_ok(struct t2f_perf_data *p)
{
	const struct t2f_perf_record *r = NULL;
	int ret = t2f_perf_data__next(p, &r);

	if (ret != 1)
		fail_msg("next: %d %s", ret, cur_sink ? t2f_diag__last_error(cur_sink->d) : "");
	return r;
}

#endif
