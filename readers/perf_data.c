/* readers/perf_data.c: opening a perf.data file — the header, the attr section with its ids and
 * the feature sections after the data section (readers/perf_data.h). The records are
 * readers/perf_data_records.c's. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "readers/perf_data_internal.h"

#define HEADER_SIZE 104u     /* magic, size, attr_size, 3 sections, 4 u64 of feature bits */
#define PIPE_HEADER_SIZE 16u /* perf record -o - : magic and size only */
#define SECTION_SIZE 16u     /* struct { u64 offset, size; } */
#define MAX_ATTRS 65536u     /* events in one file: perf writes a few, at most hundreds */
#define FEAT_MAX (32u << 20) /* bytes of a decoded feature section (BUILD_ID of 300k DSOs) */

static const char MAGIC_LE[8] = { 'P', 'E', 'R', 'F', 'I', 'L', 'E', '2' };
static const char MAGIC_BE[8] = { '2', 'E', 'L', 'I', 'F', 'R', 'E', 'P' };

bool t2f_perf_data__detect(const void *data, size_t len)
{
	return len >= 8 && (!memcmp(data, MAGIC_LE, 8) || !memcmp(data, MAGIC_BE, 8));
}

/* "NAME: offset N: what" as the diag's error; returns err */
static int bad(struct t2f_perf_data *d, int err, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int bad(struct t2f_perf_data *d, int err, uint64_t off, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return t2f_diag__error(d->diag, err, d->name, 0, "offset %" PRIu64 ": %s", off, msg);
}

int t2f_perf_data__pread(struct t2f_perf_data *d, void *dst, size_t n, uint64_t off)
{
	uint8_t *p = dst;
	size_t done = 0;

	while (done < n) {
		ssize_t r = pread(d->fd, p + done, n - done, (off_t)(off + done));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;

			return t2f_diag__error(d->diag, -e, d->name, 0, "offset %" PRIu64 ": read: %s",
					       off + done, strerror(e));
		}
		if (!r)
			return t2f_diag__error(
				d->diag, -T2F_ERR_FORMAT, d->name, 0,
				"offset %" PRIu64
				": the file ends here, but it had %zu bytes when opened "
				"(it shrank while being read)",
				off + done, d->len);
		done += (size_t)r;
	}
	return 0;
}

/* n bytes of the file at off (inside it: checked by the caller) → *out: into the memory
 * (open_mem), or read into d->tmp (valid until the next fetch). 0, -ENOMEM or a read error. */
static int fetch(struct t2f_perf_data *d, uint64_t off, size_t n, const uint8_t **out)
{
	if (d->base) {
		*out = d->base + off;
		return 0;
	}
	if (n > d->tmp_cap) {
		size_t cap = n < 4096 ? 4096 : n;
		uint8_t *t = realloc(d->tmp, cap);

		if (!t)
			return -ENOMEM;
		d->tmp = t;
		d->tmp_cap = cap;
	}
	*out = d->tmp;
	return t2f_perf_data__pread(d, d->tmp, n, off);
}

/* whether [off, off + size) lies in the file */
static bool in_file(const struct t2f_perf_data *d, uint64_t off, uint64_t size)
{
	return off <= d->len && size <= d->len - off;
}

/* ---- header ---- */

static void read_section(const struct t2f_perf_data *d, const uint8_t *p, uint64_t *off,
			 uint64_t *size)
{
	*off = t2f_pd_u64(d, p);
	*size = t2f_pd_u64(d, p + 8);
}

/* the {offset, size} section at file offset at */
static int fetch_section(struct t2f_perf_data *d, uint64_t at, uint64_t *off, uint64_t *size)
{
	const uint8_t *p;
	int err = fetch(d, at, SECTION_SIZE, &p);

	if (!err)
		read_section(d, p, off, size);
	return err;
}

static int parse_header(struct t2f_perf_data *d)
{
	struct t2f_perf_header *h = &d->hdr;
	const uint8_t *b;
	int err = fetch(d, 0, d->len < HEADER_SIZE ? d->len : HEADER_SIZE, &b);

	if (err)
		return err;
	if (d->len < 8 || !t2f_perf_data__detect(b, d->len)) {
		if (d->len >= 8 && !memcmp(b, "PERFFILE", 8))
			return bad(d, -T2F_ERR_UNSUPPORTED, 0,
				   "perf.data version 1 (magic PERFFILE) is not supported");
		return bad(d, -T2F_ERR_FORMAT, 0,
			   "not a perf.data file (expected the magic PERFILE2)");
	}
	h->big_endian = !memcmp(b, MAGIC_BE, 8);
	d->swap = h->big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	if (d->len < 16)
		return bad(d, -T2F_ERR_FORMAT, 8, "the file ends inside the header (%zu bytes)",
			   d->len);
	h->size = t2f_pd_u64(d, b + 8);
	if (h->size == PIPE_HEADER_SIZE)
		return bad(d, -T2F_ERR_UNSUPPORTED, 8,
			   "pipe-mode perf.data (perf record -o -) is not supported");
	if (h->size < HEADER_SIZE)
		return bad(d, -T2F_ERR_FORMAT, 8, "header size %" PRIu64 ", expected at least %u",
			   h->size, HEADER_SIZE);
	if (d->len < HEADER_SIZE)
		return bad(d, -T2F_ERR_FORMAT, 16, "the file ends inside the header (%zu bytes)",
			   d->len);
	h->attr_size = t2f_pd_u64(d, b + 16);
	read_section(d, b + 24, &h->attrs_offset, &h->attrs_size);
	read_section(d, b + 40, &h->data_offset, &h->data_size);
	read_section(d, b + 56, &h->event_types_offset, &h->event_types_size);
	for (unsigned i = 0; i < T2F_PERF_FEAT_BITS / 64; i++)
		h->features[i] = t2f_pd_u64(d, b + 72 + 8 * i);
	if (h->data_offset > d->len)
		return bad(d, -T2F_ERR_FORMAT, 40,
			   "data section [%" PRIu64 ", +%" PRIu64 ") starts past the end of the file "
			   "(%zu bytes)", h->data_offset, h->data_size, d->len);
	if (!in_file(d, h->data_offset, h->data_size) && /* a cut file: its complete records */
	    t2f_diag__warn(d->diag, d->name, 0, "offset 40: data section [%" PRIu64 ", +%" PRIu64
			   ") runs past the end of the file (%zu bytes): the file was cut; read to "
			   "its end", h->data_offset, h->data_size, d->len))
		return -T2F_ERR_FORMAT;
	if (!in_file(d, h->attrs_offset, h->attrs_size))
		return bad(d, -T2F_ERR_FORMAT, 24,
			   "attr section [%" PRIu64 ", +%" PRIu64 ") runs past the end of the file "
			   "(%zu bytes)", h->attrs_offset, h->attrs_size, d->len);
	return 0;
}

/* ---- attrs ---- */

/* bitfields: a big-endian file allocates them from the most significant bit of each byte */
static uint8_t reverse_bits(uint8_t v)
{
	v = (uint8_t)((v & 0xf0) >> 4 | (v & 0x0f) << 4);
	v = (uint8_t)((v & 0xcc) >> 2 | (v & 0x33) << 2);
	return (uint8_t)((v & 0xaa) >> 1 | (v & 0x55) << 1);
}

static void swap_attr(struct perf_event_attr *a)
{
	uint8_t *bits = (uint8_t *)&a->read_format + sizeof(a->read_format);

	a->type = __builtin_bswap32(a->type);
	a->size = __builtin_bswap32(a->size);
	a->config = __builtin_bswap64(a->config);
	a->sample_period = __builtin_bswap64(a->sample_period);
	a->sample_type = __builtin_bswap64(a->sample_type);
	a->read_format = __builtin_bswap64(a->read_format);
	for (unsigned i = 0; i < 8; i++)
		bits[i] = reverse_bits(bits[i]);
	a->wakeup_events = __builtin_bswap32(a->wakeup_events);
	a->bp_type = __builtin_bswap32(a->bp_type);
	a->config1 = __builtin_bswap64(a->config1);
	a->config2 = __builtin_bswap64(a->config2);
	a->branch_sample_type = __builtin_bswap64(a->branch_sample_type);
	a->sample_regs_user = __builtin_bswap64(a->sample_regs_user);
	a->sample_stack_user = __builtin_bswap32(a->sample_stack_user);
	a->clockid = (int32_t)__builtin_bswap32((uint32_t)a->clockid);
	a->sample_regs_intr = __builtin_bswap64(a->sample_regs_intr);
	a->aux_watermark = __builtin_bswap32(a->aux_watermark);
	a->sample_max_stack = __builtin_bswap16(a->sample_max_stack);
	a->aux_sample_size = __builtin_bswap32(a->aux_sample_size);
	a->sig_data = __builtin_bswap64(a->sig_data);
}

/* The attr fields a sample_type bit needs, and where they end in the struct: an attr shorter
 * than that cannot say how to size the sample. */
static const struct {
	uint64_t bit;
	const char *bit_name, *field;
	size_t end;
} needs[] = {
	{ PERF_SAMPLE_BRANCH_STACK, "BRANCH_STACK", "branch_sample_type",
	  offsetof(struct perf_event_attr, branch_sample_type) + 8 },
	{ PERF_SAMPLE_REGS_USER, "REGS_USER", "sample_regs_user",
	  offsetof(struct perf_event_attr, sample_regs_user) + 8 },
	{ PERF_SAMPLE_STACK_USER, "STACK_USER", "sample_stack_user",
	  offsetof(struct perf_event_attr, sample_stack_user) + 4 },
	{ PERF_SAMPLE_REGS_INTR, "REGS_INTR", "sample_regs_intr",
	  offsetof(struct perf_event_attr, sample_regs_intr) + 8 },
};

static int check_attr_size(struct t2f_perf_data *d, const struct t2f_perf_attr *a, uint64_t off)
{
	for (size_t i = 0; i < sizeof(needs) / sizeof(needs[0]); i++)
		if ((a->attr.sample_type & needs[i].bit) && a->file_attr_size < needs[i].end)
			return bad(d, -T2F_ERR_FORMAT, off,
				   "attr %u: sample_type has %s but the attr's %u bytes end before "
				   "%s (%zu bytes needed)", a->index, needs[i].bit_name,
				   a->file_attr_size, needs[i].field, needs[i].end);
	return 0;
}

/* Decodes n bytes of a perf_event_attr at p into a; 0 or -T2F_ERR_FORMAT. */
static int decode_attr(struct t2f_perf_data *d, const uint8_t *p, uint64_t n, uint64_t off,
		       struct t2f_perf_attr *a)
{
	uint32_t size_field;

	if (n < PERF_ATTR_SIZE_VER0)
		return bad(d, -T2F_ERR_FORMAT, off,
			   "attr %u: %" PRIu64 " bytes, expected at least %u", a->index, n,
			   PERF_ATTR_SIZE_VER0);
	size_field = t2f_pd_u32(d, p + 4);
	if (size_field && size_field < n) /* the attr's own size, when it says less */
		n = size_field < PERF_ATTR_SIZE_VER0 ? PERF_ATTR_SIZE_VER0 : size_field;
	memset(&a->attr, 0, sizeof(a->attr));
	memcpy(&a->attr, p, n < sizeof(a->attr) ? (size_t)n : sizeof(a->attr));
	if (d->swap)
		swap_attr(&a->attr);
	a->file_attr_size = (uint32_t)n;
	return check_attr_size(d, a, off);
}

static int read_ids(struct t2f_perf_data *d, struct t2f_perf_attr *a, uint64_t sec_at)
{
	uint64_t off, size;
	uint64_t *ids;
	int err = fetch_section(d, sec_at, &off, &size);

	if (err)
		return err;
	if (!in_file(d, off, size) || size % 8)
		return bad(d, -T2F_ERR_FORMAT, sec_at,
			   "attr %u: ids section [%" PRIu64 ", +%" PRIu64 ") is not a whole number "
			   "of ids inside the file (%zu bytes)", a->index, off, size, d->len);
	if (size > d->len - d->ids_bytes) /* sections sharing bytes: no more ids than the file */
		return bad(d, -T2F_ERR_FORMAT, sec_at,
			   "attr %u: ids section [%" PRIu64 ", +%" PRIu64 ") makes the attrs' ids "
			   "more than the file's %zu bytes hold", a->index, off, size, d->len);
	d->ids_bytes += size;
	a->n_ids = size / 8;
	if (!a->n_ids)
		return 0;
	ids = t2f_arena__alloc(d->arena, size);
	if (!ids)
		return -ENOMEM;
	if (d->base)
		memcpy(ids, d->base + off, size);
	else if ((err = t2f_perf_data__pread(d, ids, size, off)))
		return err;
	for (size_t i = 0; i < a->n_ids; i++) {
		ids[i] = t2f_pd_u64(d, &ids[i]);
		if (t2f_perf_data__id_add(d, ids[i], a->index))
			return -ENOMEM;
	}
	a->ids = ids;
	return 0;
}

static int parse_attrs(struct t2f_perf_data *d)
{
	const struct t2f_perf_header *h = &d->hdr;
	uint64_t n;
	int err;

	if (h->attr_size < PERF_ATTR_SIZE_VER0 + SECTION_SIZE)
		return bad(d, -T2F_ERR_FORMAT, 16, "attr_size %" PRIu64 ", expected at least %u",
			   h->attr_size, PERF_ATTR_SIZE_VER0 + SECTION_SIZE);
	if (h->attrs_size % h->attr_size)
		return bad(d, -T2F_ERR_FORMAT, 24,
			   "attr section of %" PRIu64 " bytes is not a whole "
			   "number of %" PRIu64 "-byte entries",
			   h->attrs_size, h->attr_size);
	n = h->attrs_size / h->attr_size;
	if (!n)
		return bad(d, -T2F_ERR_FORMAT, 24, "no attr in the attr section");
	if (n > MAX_ATTRS)
		return bad(d, -T2F_ERR_FORMAT, 24, "attr section of %" PRIu64 " attrs, expected at "
			   "most %u", n, MAX_ATTRS);
	d->attrs = calloc(n, sizeof(*d->attrs));
	if (!d->attrs)
		return -ENOMEM;
	d->n_attrs = n;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t at = h->attrs_offset + i * h->attr_size;
		uint64_t n_bytes = h->attr_size - SECTION_SIZE;
		struct t2f_perf_attr *a = &d->attrs[i];
		const uint8_t *p;

		a->index = (uint32_t)i;
		err = fetch(d, at, n_bytes < sizeof(a->attr) ? n_bytes : sizeof(a->attr), &p);
		if (!err)
			err = decode_attr(d, p, n_bytes, at, a);
		if (!err)
			err = read_ids(d, a, at + h->attr_size - SECTION_SIZE);
		if (err)
			return err;
	}
	t2f_perf_data__id_sort(d);
	return 0;
}

/* ---- feature sections ---- */

struct cursor {                      /* bounded reads inside one feature section */
	const uint8_t *p, *end;
	bool bad;
};

static uint64_t cur_u64(const struct t2f_perf_data *d, struct cursor *c)
{
	uint64_t v;

	if (c->end - c->p < 8) {
		c->bad = true;
		return 0;
	}
	v = t2f_pd_u64(d, c->p);
	c->p += 8;
	return v;
}

static uint32_t cur_u32(const struct t2f_perf_data *d, struct cursor *c)
{
	uint32_t v;

	if (c->end - c->p < 4) {
		c->bad = true;
		return 0;
	}
	v = t2f_pd_u32(d, c->p);
	c->p += 4;
	return v;
}

/* perf's string: u32 len (NUL padding included), then len bytes */
static const char *cur_string(struct t2f_perf_data *d, struct cursor *c)
{
	uint32_t len = cur_u32(d, c);
	const char *s;

	if (c->bad || (uint64_t)(c->end - c->p) < len) {
		c->bad = true;
		return NULL;
	}
	s = t2f_arena__strndup(d->arena, (const char *)c->p, strnlen((const char *)c->p, len));
	c->p += len;
	if (!s)
		c->bad = true;
	return s;
}

static bool feat_cmdline(struct t2f_perf_data *d, struct cursor *c)
{
	uint32_t n = cur_u32(d, c);
	const char **argv;

	if (c->bad || n > (uint64_t)(c->end - c->p) / 4)
		return false;
	argv = t2f_arena__alloc(d->arena, sizeof(*argv) * (n ? n : 1));
	if (!argv)
		return false;
	for (uint32_t i = 0; i < n && !c->bad; i++)
		argv[i] = cur_string(d, c);
	d->feat.cmdline = argv;
	d->feat.cmdline_n = c->bad ? 0 : n;
	return !c->bad;
}

/* EVENT_DESC: u32 nr, u32 attr_size, then per event: attr, u32 nr_ids, string name, ids */
static bool feat_event_desc(struct t2f_perf_data *d, struct cursor *c)
{
	uint32_t n = cur_u32(d, c), asz = cur_u32(d, c);

	for (uint32_t i = 0; i < n && !c->bad; i++) {
		uint32_t nids;
		const char *name;

		if ((uint64_t)(c->end - c->p) < asz)
			return false;
		c->p += asz;
		nids = cur_u32(d, c);
		name = cur_string(d, c);
		if (c->bad || nids > (uint64_t)(c->end - c->p) / 8)
			return false;
		if (i < d->n_attrs) {
			d->attrs[i].name = name;
			for (uint32_t k = 0; k < nids && !d->attrs[i].n_ids; k++)
				if (t2f_perf_data__id_add(d, t2f_pd_u64(d, c->p + 8 * k), i))
					return false;
		}
		c->p += 8 * (size_t)nids;
	}
	t2f_perf_data__id_sort(d);
	return !c->bad;
}

/* BUILD_ID: records {header; s32 pid; u8 build_id[24]; char filename[]} up to the end */
static bool feat_build_ids(struct t2f_perf_data *d, struct cursor *c)
{
	size_t max = (size_t)(c->end - c->p) / 36, n = 0;
	struct t2f_perf_build_id *v = t2f_arena__alloc(d->arena, sizeof(*v) * (max ? max : 1));

	if (!v)
		return false;
	while (c->end - c->p >= 8) {
		uint16_t misc = t2f_pd_u16(d, c->p + 4), size = t2f_pd_u16(d, c->p + 6);
		struct t2f_perf_build_id *b = &v[n];

		if (size < 36 || size > c->end - c->p || n == max)
			return false;
		b->misc = misc;
		b->pid = (int32_t)t2f_pd_u32(d, c->p + 8);
		memcpy(b->id, c->p + 12, 20);
		b->size = (misc & (1u << 15)) ? c->p[32] : 20; /* PERF_RECORD_MISC_BUILD_ID_SIZE */
		if (b->size > 20)
			b->size = 20;
		b->path = t2f_arena__strndup(d->arena, (const char *)c->p + 36,
					     strnlen((const char *)c->p + 36, size - 36u));
		if (!b->path)
			return false;
		c->p += size;
		n++;
	}
	d->feat.build_ids = v;
	d->feat.n_build_ids = n;
	return true;
}

static bool feature_decoded(unsigned bit)
{
	switch (bit) {
	case T2F_PERF_FEAT_BUILD_ID:
	case T2F_PERF_FEAT_HOSTNAME:
	case T2F_PERF_FEAT_OSRELEASE:
	case T2F_PERF_FEAT_ARCH:
	case T2F_PERF_FEAT_NRCPUS:
	case T2F_PERF_FEAT_CMDLINE:
	case T2F_PERF_FEAT_EVENT_DESC:
	case T2F_PERF_FEAT_COMPRESSED:
	case T2F_PERF_FEAT_SAMPLE_TIME:
		return true;
	default:
		return false;
	}
}

/* decodes feature bit's section [p, end); false when malformed */
static bool decode_feature(struct t2f_perf_data *d, unsigned bit, struct cursor *c, bool *known)
{
	struct t2f_perf_features *f = &d->feat;

	*known = true;
	switch (bit) {
	case T2F_PERF_FEAT_BUILD_ID:
		return feat_build_ids(d, c);
	case T2F_PERF_FEAT_HOSTNAME:
		f->hostname = cur_string(d, c);
		return !c->bad;
	case T2F_PERF_FEAT_OSRELEASE:
		f->osrelease = cur_string(d, c);
		return !c->bad;
	case T2F_PERF_FEAT_ARCH:
		f->arch = cur_string(d, c);
		return !c->bad;
	case T2F_PERF_FEAT_NRCPUS:
		f->nr_cpus_avail = cur_u32(d, c);
		f->nr_cpus_online = cur_u32(d, c);
		f->has_nrcpus = !c->bad;
		return !c->bad;
	case T2F_PERF_FEAT_CMDLINE:
		return feat_cmdline(d, c);
	case T2F_PERF_FEAT_EVENT_DESC:
		return feat_event_desc(d, c);
	case T2F_PERF_FEAT_COMPRESSED: /* u32 version, type, level, ratio, mmap_len */
		cur_u32(d, c);
		f->comp_type = cur_u32(d, c);
		f->comp_level = cur_u32(d, c);
		cur_u32(d, c); /* ratio */
		f->comp_mmap_len = cur_u32(d, c); /* u32 in the file, perf 6.1 */
		f->has_compressed = !c->bad;
		return !c->bad;
	case T2F_PERF_FEAT_SAMPLE_TIME: /* u64 first, last (ns) */
		f->first_sample_time = cur_u64(d, c);
		f->last_sample_time = cur_u64(d, c);
		f->has_sample_time = !c->bad;
		return !c->bad;
	default:
		*known = false;
		return true;
	}
}

static int parse_features(struct t2f_perf_data *d)
{
	uint64_t table = d->hdr.data_offset + d->hdr.data_size, at = table;
	struct t2f_perf_features *f = &d->feat;

	uint64_t any = d->hdr.features[0] | d->hdr.features[1] | d->hdr.features[2] |
		       d->hdr.features[3];

	if (any && d->hdr.data_size > UINT64_MAX - d->hdr.data_offset) { /* the table wraps */
		d->stats.features_skipped++;
		return t2f_diag__warn(d->diag, d->name, 0, "offset 40: the data section [%" PRIu64
				      ", +%" PRIu64 ") ends past 2^64: no feature table; features "
				      "skipped", d->hdr.data_offset, d->hdr.data_size);
	}

	for (unsigned bit = 0; bit < T2F_PERF_FEAT_BITS; bit++) {
		uint64_t off, size;
		const uint8_t *p;
		struct cursor c;
		bool known, ok;
		int err;

		if (!(d->hdr.features[bit / 64] >> (bit % 64) & 1))
			continue;
		if (!in_file(d, at, SECTION_SIZE)) {
			d->stats.features_skipped++;
			return t2f_diag__warn(d->diag, d->name, 0, "offset %" PRIu64 ": the feature "
					      "table runs past the end of the file (%zu bytes): "
					      "features from bit %u on skipped", at, d->len, bit);
		}
		err = fetch_section(d, at, &off, &size);
		if (err)
			return err;
		f->sections[f->n_sections].bit = bit;
		f->sections[f->n_sections].offset = off;
		f->sections[f->n_sections].size = size;
		at += SECTION_SIZE;
		if (!in_file(d, off, size)) {
			d->stats.features_skipped++;
			f->n_sections++;
			if (t2f_diag__warn(d->diag, d->name, 0, "offset %" PRIu64 ": feature %u "
					   "section [%" PRIu64 ", +%" PRIu64 ") runs past the end of "
					   "the file (%zu bytes): skipped", at - SECTION_SIZE, bit, off,
					   size, d->len))
				return -T2F_ERR_FORMAT;
			continue;
		}
		if (!feature_decoded(bit)) {
			f->n_sections++;
			continue;
		}
		if (size > FEAT_MAX) {
			d->stats.features_skipped++;
			f->n_sections++;
			if (t2f_diag__warn(d->diag, d->name, 0, "offset %" PRIu64 ": feature %u "
					   "section of %" PRIu64 " bytes, more than the %u MiB this "
					   "reader decodes: skipped", at - SECTION_SIZE, bit, size,
					   FEAT_MAX >> 20))
				return -T2F_ERR_FORMAT;
			continue;
		}
		err = fetch(d, off, (size_t)size, &p);
		if (err)
			return err;
		c = (struct cursor){ p, p + size, false };
		ok = decode_feature(d, bit, &c, &known);
		f->sections[f->n_sections++].decoded = known && ok;
		if (!ok) {
			d->stats.features_skipped++;
			if (t2f_diag__warn(d->diag, d->name, 0, "offset %" PRIu64 ": feature %u "
					   "section is malformed: skipped", off, bit))
				return -T2F_ERR_FORMAT;
		}
	}
	return 0;
}

/* ---- open / free ---- */

int t2f_perf_data__read_at(const struct t2f_perf_data *d, void *dst, size_t n, uint64_t off)
{
	uint8_t *p = dst;
	size_t done = 0;

	if (d->base || off > d->len || n > d->len - off)
		return -T2F_ERR_FORMAT;
	while (done < n) {
		ssize_t r = pread(d->fd, p + done, n - done, (off_t)(off + done));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (!r)
			return -T2F_ERR_FORMAT; /* it shrank after it was read */
		done += (size_t)r;
	}
	return 0;
}

static int load_fd(struct t2f_perf_data *d, int fd)
{
	struct stat st;
	int err = 0;

	if (fstat(fd, &st)) {
		int e = errno;

		err = t2f_diag__error(d->diag, -e, d->name, 0, "%s", strerror(e));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		err = t2f_diag__error(d->diag, -EINVAL, d->name, 0,
				      "not a regular file (perf.data is read at the offsets "
				      "its header gives)");
		goto out;
	}
	d->len = (size_t)st.st_size;
	d->fd = fd;
	fd = -1;
	(void)posix_fadvise(d->fd, 0, 0, POSIX_FADV_SEQUENTIAL); /* a hint: larger read-ahead */
out:
	if (fd >= 0)
		close(fd);
	return err;
}

static int load_file(struct t2f_perf_data *d, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return t2f_diag__error(d->diag, -errno, d->name, 0, "%s", strerror(errno));
	return load_fd(d, fd);
}

static int open_common(struct t2f_perf_data *d)
{
	int err = parse_header(d);

	if (!err)
		err = parse_attrs(d);
	if (!err)
		err = parse_features(d);
	if (!err)
		t2f_perf_data__start(d);
	return err;
}

static int new_reader(const char *name, struct t2f_diag *diag, struct t2f_perf_data **out)
{
	struct t2f_perf_data *d = calloc(1, sizeof(*d));

	*out = NULL;
	if (!d)
		return -ENOMEM;
	d->diag = diag;
	d->fd = -1;
	d->name = strdup(name);
	if (!d->name || t2f_arena__new(&d->arena)) {
		t2f_perf_data__free(d);
		return -ENOMEM;
	}
	*out = d;
	return 0;
}

int t2f_perf_data__open(const char *path, struct t2f_diag *diag, struct t2f_perf_data **out)
{
	struct t2f_perf_data *d;
	int err = new_reader(path, diag, &d);

	if (!err)
		err = load_file(d, path);
	if (!err)
		err = open_common(d);
	if (err) {
		t2f_perf_data__free(d);
		d = NULL;
	}
	*out = d;
	return err;
}

int t2f_perf_data__open_fd(int fd, const char *name, struct t2f_diag *diag,
			   struct t2f_perf_data **out)
{
	struct t2f_perf_data *d;
	int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	int err = dup_fd < 0 ? -errno : new_reader(name, diag, &d);

	if (dup_fd < 0) {
		*out = NULL;
		return t2f_diag__error(diag, err, name, 0, "%s", strerror(-err));
	}
	if (err)
		close(dup_fd);
	else
		err = load_fd(d, dup_fd);
	if (!err)
		err = open_common(d);
	if (err)
		t2f_perf_data__free(d);
	*out = err ? NULL : d;
	return err;
}

int t2f_perf_data__open_mem(const char *name, const void *data, size_t len, struct t2f_diag *diag,
			    struct t2f_perf_data **out)
{
	struct t2f_perf_data *d;
	int err = new_reader(name, diag, &d);

	if (!err) {
		d->base = len ? data : (const uint8_t *)"";
		d->len = len;
		err = open_common(d);
	}
	if (err) {
		t2f_perf_data__free(d);
		d = NULL;
	}
	*out = d;
	return err;
}

void t2f_perf_data__free(struct t2f_perf_data *d)
{
	if (!d)
		return;
	t2f_perf_data__unmap(d); /* its thread done before fd is closed */
	if (d->fd >= 0)
		close(d->fd);
	free(d->tmp);
	free(d->blk);
	t2f_perf_data__inflate_free(d);
	free(d->chain);
	free(d->id_table);
	free(d->attrs);
	t2f_arena__free(d->arena);
	free(d->name);
	free(d);
}

/* ---- accessors ---- */

const struct t2f_perf_header *t2f_perf_data__header(const struct t2f_perf_data *d)
{
	return &d->hdr;
}

size_t t2f_perf_data__n_attrs(const struct t2f_perf_data *d)
{
	return d->n_attrs;
}

const struct t2f_perf_attr *t2f_perf_data__attr(const struct t2f_perf_data *d, size_t i)
{
	return i < d->n_attrs ? &d->attrs[i] : NULL;
}

const struct t2f_perf_features *t2f_perf_data__features(const struct t2f_perf_data *d)
{
	return &d->feat;
}

const struct t2f_perf_data_stats *t2f_perf_data__stats(const struct t2f_perf_data *d)
{
	return &d->stats;
}

const char *t2f_perf_data__name(const struct t2f_perf_data *d)
{
	return d->name;
}

int t2f_perf_data__section(struct t2f_perf_data *d, unsigned bit, uint8_t **out, size_t *len)
{
	const struct t2f_perf_features *f = &d->feat;
	uint8_t *copy;
	int err;

	*out = NULL;
	*len = 0;
	for (size_t i = 0; i < f->n_sections; i++) {
		uint64_t off = f->sections[i].offset, size = f->sections[i].size;

		if (f->sections[i].bit != bit)
			continue;
		if (!in_file(d, off, size))
			return 0; /* warned when the features were read */
		if (size > FEAT_MAX)
			return t2f_diag__warn(d->diag, d->name, 0, "offset %" PRIu64 ": feature %u "
					      "section of %" PRIu64 " bytes is larger than %u MiB: "
					      "skipped", off, bit, size, FEAT_MAX >> 20) ?: 0;
		copy = malloc(size ? size : 1);
		if (!copy)
			return -ENOMEM;
		err = d->base ? (memcpy(copy, d->base + off, size), 0) :
				t2f_perf_data__pread(d, copy, size, off);
		if (err) {
			free(copy);
			return err;
		}
		*out = copy;
		*len = size;
		return 0;
	}
	return 0;
}

const char *t2f_perf_data__feature_name(unsigned bit)
{
	static const char *const names[] = {
		[1] = "TRACING_DATA", [2] = "BUILD_ID", [3] = "HOSTNAME", [4] = "OSRELEASE",
		[5] = "VERSION", [6] = "ARCH", [7] = "NRCPUS", [8] = "CPUDESC", [9] = "CPUID",
		[10] = "TOTAL_MEM", [11] = "CMDLINE", [12] = "EVENT_DESC", [13] = "CPU_TOPOLOGY",
		[14] = "NUMA_TOPOLOGY", [15] = "BRANCH_STACK", [16] = "PMU_MAPPINGS",
		[17] = "GROUP_DESC", [18] = "AUXTRACE", [19] = "STAT", [20] = "CACHE",
		[21] = "SAMPLE_TIME", [22] = "MEM_TOPOLOGY", [23] = "CLOCKID", [24] = "DIR_FORMAT",
		[25] = "BPF_PROG_INFO", [26] = "BPF_BTF", [27] = "COMPRESSED",
		[28] = "CPU_PMU_CAPS", [29] = "CLOCK_DATA", [30] = "HYBRID_TOPOLOGY",
		[31] = "PMU_CAPS",
	};

	return bit < sizeof(names) / sizeof(names[0]) ? names[bit] : NULL;
}
