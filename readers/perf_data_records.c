/* readers/perf_data_records.c: the data section's records (readers/perf_data.h): framing, the
 * attr of each record (by its id), samples field by field in sample_type order, the other
 * records' bodies and their sample_id_all trailers. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "formats/grow.h"
#include "formats/plural.h"
#include "formats/sat.h"
#include "readers/perf_data_internal.h"

#define MISC_BUILD_ID PERF_RECORD_MISC_MMAP_BUILD_ID
/* A LOST_SAMPLES record counting the samples a BPF filter dropped (perf's own flag, newer
 * than the kernel headers here): not samples the recording lost. */
#define T2F_PERF_MISC_LOST_SAMPLES_BPF (1u << 15)
/* the fields of a sample_id_all trailer, in their order */
#define ID_ALL_BITS (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | \
		     PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

/* ---- the id → attr table ---- */

int t2f_perf_data__id_add(struct t2f_perf_data *d, uint64_t id, uint32_t attr)
{
	int err = t2f_grow((void **)&d->id_table, &d->cap_id_table, d->n_id_table, 1,
			   sizeof(*d->id_table), 16, SIZE_MAX);

	if (err)
		return err;
	d->id_table[d->n_id_table++] = (struct t2f_perf_id){ id, attr };
	return 0;
}

static int cmp_id(const void *a, const void *b)
{
	const struct t2f_perf_id *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->attr < y->attr ? -1 : x->attr > y->attr;
}

void t2f_perf_data__id_sort(struct t2f_perf_data *d)
{
	if (d->n_id_table > 1)
		qsort(d->id_table, d->n_id_table, sizeof(*d->id_table), cmp_id);
}

const struct t2f_perf_attr *t2f_perf_data__attr_of_id(const struct t2f_perf_data *d, uint64_t id)
{
	size_t lo = 0, hi = d->n_id_table;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->id_table[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < d->n_id_table && d->id_table[lo].id == id)
		return &d->attrs[d->id_table[lo].attr];
	return NULL;
}

void t2f_perf_data__set_block(struct t2f_perf_data *d, size_t bytes)
{
	d->blk_size = bytes;
}

void t2f_perf_data__start(struct t2f_perf_data *d)
{
	uint64_t room = d->len - d->hdr.data_offset; /* a cut file: up to its end */

	d->pos = d->hdr.data_offset;
	d->end = d->hdr.data_offset + (d->hdr.data_size < room ? d->hdr.data_size : room);
}

/* ---- names ---- */

const char *t2f_perf_data__type_name(uint32_t type)
{
	static const char *const names[] = {
		[PERF_RECORD_MMAP] = "MMAP", [PERF_RECORD_LOST] = "LOST",
		[PERF_RECORD_COMM] = "COMM", [PERF_RECORD_EXIT] = "EXIT",
		[PERF_RECORD_THROTTLE] = "THROTTLE", [PERF_RECORD_UNTHROTTLE] = "UNTHROTTLE",
		[PERF_RECORD_FORK] = "FORK", [PERF_RECORD_READ] = "READ",
		[PERF_RECORD_SAMPLE] = "SAMPLE", [PERF_RECORD_MMAP2] = "MMAP2",
		[PERF_RECORD_AUX] = "AUX", [PERF_RECORD_ITRACE_START] = "ITRACE_START",
		[PERF_RECORD_LOST_SAMPLES] = "LOST_SAMPLES", [PERF_RECORD_SWITCH] = "SWITCH",
		[PERF_RECORD_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE",
		[PERF_RECORD_NAMESPACES] = "NAMESPACES", [PERF_RECORD_KSYMBOL] = "KSYMBOL",
		[PERF_RECORD_BPF_EVENT] = "BPF_EVENT", [PERF_RECORD_CGROUP] = "CGROUP",
		[PERF_RECORD_TEXT_POKE] = "TEXT_POKE", [21] = "AUX_OUTPUT_HW_ID",
		[T2F_PERF_RECORD_HEADER_ATTR] = "ATTR",
		[T2F_PERF_RECORD_HEADER_EVENT_TYPE] = "EVENT_TYPE",
		[T2F_PERF_RECORD_HEADER_TRACING_DATA] = "TRACING_DATA",
		[T2F_PERF_RECORD_HEADER_BUILD_ID] = "BUILD_ID",
		[T2F_PERF_RECORD_FINISHED_ROUND] = "FINISHED_ROUND",
		[T2F_PERF_RECORD_ID_INDEX] = "ID_INDEX",
		[T2F_PERF_RECORD_AUXTRACE_INFO] = "AUXTRACE_INFO",
		[T2F_PERF_RECORD_AUXTRACE] = "AUXTRACE",
		[T2F_PERF_RECORD_AUXTRACE_ERROR] = "AUXTRACE_ERROR",
		[T2F_PERF_RECORD_THREAD_MAP] = "THREAD_MAP", [T2F_PERF_RECORD_CPU_MAP] = "CPU_MAP",
		[T2F_PERF_RECORD_STAT_CONFIG] = "STAT_CONFIG", [T2F_PERF_RECORD_STAT] = "STAT",
		[T2F_PERF_RECORD_STAT_ROUND] = "STAT_ROUND",
		[T2F_PERF_RECORD_EVENT_UPDATE] = "EVENT_UPDATE",
		[T2F_PERF_RECORD_TIME_CONV] = "TIME_CONV",
		[T2F_PERF_RECORD_HEADER_FEATURE] = "FEATURE",
		[T2F_PERF_RECORD_COMPRESSED] = "COMPRESSED",
		[T2F_PERF_RECORD_FINISHED_INIT] = "FINISHED_INIT",
	};

	if (type < sizeof(names) / sizeof(names[0]) && names[type])
		return names[type];
	return "UNKNOWN";
}

/* ---- samples ---- */

struct rd {                          /* bounded reads inside one record */
	const struct t2f_perf_data *d;
	const uint8_t *p, *end;
};

static bool rd_u64(struct rd *r, uint64_t *v)
{
	if (r->end - r->p < 8)
		return false;
	*v = t2f_pd_u64(r->d, r->p);
	r->p += 8;
	return true;
}

static bool rd_u32x2(struct rd *r, uint32_t *a, uint32_t *b)
{
	if (r->end - r->p < 8)
		return false;
	*a = t2f_pd_u32(r->d, r->p);
	*b = t2f_pd_u32(r->d, r->p + 4);
	r->p += 8;
	return true;
}

static bool rd_skip(struct rd *r, uint64_t n)
{
	if ((uint64_t)(r->end - r->p) < n)
		return false;
	r->p += n;
	return true;
}

/* u64 count then count × words u64 (bounded by the record) */
static bool rd_skip_u64s(struct rd *r, uint64_t count, uint64_t words)
{
	uint64_t room = (uint64_t)(r->end - r->p) / 8;

	return (!words || count <= room / words) && rd_skip(r, count * words * 8);
}

static bool skip_read(struct rd *r, uint64_t fmt)
{
	uint64_t nr = 1, per = 1 + !!(fmt & PERF_FORMAT_ID) + !!(fmt & PERF_FORMAT_LOST);
	uint64_t times = !!(fmt & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			 !!(fmt & PERF_FORMAT_TOTAL_TIME_RUNNING);

	if (!(fmt & PERF_FORMAT_GROUP))
		return rd_skip_u64s(r, 1, per + times);
	return rd_u64(r, &nr) && rd_skip_u64s(r, 1, times) && rd_skip_u64s(r, nr, per);
}

static bool read_callchain(struct t2f_perf_data *d, struct rd *r, struct t2f_perf_sample *s)
{
	uint64_t nr;

	if (!rd_u64(r, &nr) || nr > (uint64_t)(r->end - r->p) / 8)
		return false;
	if (!d->swap && !((uintptr_t)r->p & 7)) { /* the record's own words, as they lie */
		s->callchain = (const uint64_t *)(const void *)r->p;
		s->callchain_nr = nr;
		r->p += 8 * nr;
		return true;
	}
	if (nr > d->chain_cap) {
		size_t cap = nr < 64 ? 64 : (size_t)nr;
		uint64_t *c = realloc(d->chain, cap * sizeof(*c));

		if (!c)
			return false;
		d->chain = c;
		d->chain_cap = cap;
	}
	for (uint64_t i = 0; i < nr; i++)
		d->chain[i] = t2f_pd_u64(d, r->p + 8 * i);
	r->p += 8 * nr;
	s->callchain = d->chain;
	s->callchain_nr = nr;
	return true;
}

static bool read_regs(struct t2f_perf_data *d, struct rd *r, uint64_t mask,
		      struct t2f_perf_sample *s)
{
	uint32_t nr = (uint32_t)__builtin_popcountll(mask);

	if (!rd_u64(r, &s->regs_abi))
		return false;
	s->regs_mask = mask;
	if (!s->regs_abi)
		return true;
	if (nr > (uint64_t)(r->end - r->p) / 8)
		return false;
	for (uint32_t i = 0; i < nr; i++)
		d->regs[i] = t2f_pd_u64(d, r->p + 8 * i);
	r->p += 8 * (size_t)nr;
	s->regs = d->regs;
	s->regs_nr = nr;
	return true;
}

static bool read_stack(struct rd *r, struct t2f_perf_sample *s)
{
	if (!rd_u64(r, &s->stack_size) || s->stack_size > (uint64_t)(r->end - r->p))
		return false;
	s->stack = r->p;
	r->p += s->stack_size;
	return !s->stack_size || rd_u64(r, &s->stack_dyn_size);
}

static bool skip_regs(struct rd *r, uint64_t mask)
{
	uint64_t abi;

	return rd_u64(r, &abi) && (!abi || rd_skip_u64s(r, 1, (uint64_t)__builtin_popcountll(mask)));
}

static bool skip_branches(struct rd *r, uint64_t branch_type)
{
	uint64_t nr, hw_idx;

	if (!rd_u64(r, &nr))
		return false;
	if ((branch_type & PERF_SAMPLE_BRANCH_HW_INDEX) && !rd_u64(r, &hw_idx))
		return false;
	return rd_skip_u64s(r, nr, 3);
}

/* the fields from IDENTIFIER to PERIOD */
static bool sample_head(struct rd *r, uint64_t st, struct t2f_perf_sample *s)
{
	uint32_t res;

	return (!(st & PERF_SAMPLE_IDENTIFIER) || rd_u64(r, &s->id)) &&
	       (!(st & PERF_SAMPLE_IP) || rd_u64(r, &s->ip)) &&
	       (!(st & PERF_SAMPLE_TID) || rd_u32x2(r, &s->pid, &s->tid)) &&
	       (!(st & PERF_SAMPLE_TIME) || rd_u64(r, &s->time)) &&
	       (!(st & PERF_SAMPLE_ADDR) || rd_u64(r, &s->addr)) &&
	       (!(st & PERF_SAMPLE_ID) || rd_u64(r, &s->id)) &&
	       (!(st & PERF_SAMPLE_STREAM_ID) || rd_u64(r, &s->stream_id)) &&
	       (!(st & PERF_SAMPLE_CPU) || rd_u32x2(r, &s->cpu, &res)) &&
	       (!(st & PERF_SAMPLE_PERIOD) || rd_u64(r, &s->period));
}

/* the fields from READ to AUX; *what names the first one that did not fit */
static bool sample_tail(struct t2f_perf_data *d, struct rd *r, const struct perf_event_attr *a,
			struct t2f_perf_sample *s, const char **what)
{
	uint64_t st = a->sample_type, aux;

#define FIELD(bit, expr)                                   \
	do {                                               \
		if ((st & PERF_SAMPLE_##bit) && !(expr)) { \
			*what = #bit;                      \
			return false;                      \
		}                                          \
	} while (0)
	FIELD(READ, skip_read(r, a->read_format));
	FIELD(CALLCHAIN, read_callchain(d, r, s));
	if (st & PERF_SAMPLE_RAW) {
		uint32_t size;

		if (r->end - r->p < 4 || (size = t2f_pd_u32(d, r->p), !rd_skip(r, 4 + (uint64_t)size))) {
			*what = "RAW";
			return false;
		}
		s->raw_size = size;
		s->raw = r->p - size;
	}
	FIELD(BRANCH_STACK, skip_branches(r, a->branch_sample_type));
	FIELD(REGS_USER, read_regs(d, r, a->sample_regs_user, s));
	FIELD(STACK_USER, read_stack(r, s));
	if ((st & PERF_SAMPLE_WEIGHT_TYPE) && !rd_u64(r, &s->weight)) {
		*what = "WEIGHT";
		return false;
	}
	FIELD(DATA_SRC, rd_u64(r, &s->data_src));
	FIELD(TRANSACTION, rd_u64(r, &s->transaction));
	FIELD(REGS_INTR, skip_regs(r, a->sample_regs_intr));
	FIELD(PHYS_ADDR, rd_u64(r, &s->phys_addr));
	FIELD(CGROUP, rd_u64(r, &s->cgroup));
	FIELD(DATA_PAGE_SIZE, rd_u64(r, &s->data_page_size));
	FIELD(CODE_PAGE_SIZE, rd_u64(r, &s->code_page_size));
	FIELD(AUX, rd_u64(r, &aux) && rd_skip(r, aux));
#undef FIELD
	return true;
}

/* 1 delivered, 0 skipped (warned), or -T2F_ERR_FORMAT in strict mode */
static int decode_sample(struct t2f_perf_data *d, const uint8_t *rec, uint16_t size,
			 uint64_t off)
{
	const struct perf_event_attr *a = &d->rec.attr->attr;
	struct rd r = { d, rec + 8, rec + size };
	struct t2f_perf_sample *s = &d->rec.s;
	const char *what = "IP..PERIOD";
	uint64_t unknown = a->sample_type & ~(uint64_t)(PERF_SAMPLE_MAX - 1);

	if (!sample_head(&r, a->sample_type, s) || !sample_tail(d, &r, a, s, &what)) {
		d->stats.skipped++;
		return t2f_diag__warn(d->diag, d->name, 0, "offset %" PRIu64 "%s: SAMPLE record "
				      "of %u bytes ends inside its %s field: skipped", off, d->zwhere,
				      size, what);
	}
	s->fields = a->sample_type & (PERF_SAMPLE_MAX - 1);
	if (unknown) {
		d->stats.partial++;
		if (t2f_diag__warn(d->diag, d->name, 0, "offset %" PRIu64 "%s: sample_type bit "
				   "%d has no known size: the sample's fields after it are not "
				   "decoded", off, d->zwhere, __builtin_ctzll(unknown)))
			return -T2F_ERR_FORMAT;
	}
	return 1;
}

/* ---- the attr of a record ---- */

/* The id of a sample (from_end false) or of a trailer; false when the record has none. */
static bool record_id(struct t2f_perf_data *d, const uint8_t *rec, uint16_t size, bool sample,
		      uint64_t *id)
{
	uint64_t st = d->attrs[0].attr.sample_type, at;

	if (sample) {
		if (st & PERF_SAMPLE_IDENTIFIER)
			at = 8;
		else if (st & PERF_SAMPLE_ID)
			at = 8 + 8 * (uint64_t)(!!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID) +
						!!(st & PERF_SAMPLE_TIME) + !!(st & PERF_SAMPLE_ADDR));
		else
			return false;
	} else {
		if (st & PERF_SAMPLE_IDENTIFIER)
			at = 8;
		else if (st & PERF_SAMPLE_ID)
			at = 8 * (uint64_t)(1 + !!(st & PERF_SAMPLE_STREAM_ID) + !!(st & PERF_SAMPLE_CPU));
		else
			return false;
		if (at > size)
			return false;
		at = size - at;
	}
	if (at < 8 || at + 8 > size)
		return false;
	*id = t2f_pd_u64(d, rec + at);
	return true;
}

/* the sample_id_all trailer's fields, at the record's end; false when they do not fit */
static bool read_trailer(struct t2f_perf_data *d, const uint8_t *rec, uint16_t size,
			 uint16_t *body_end)
{
	const struct perf_event_attr *a = &(d->rec.attr ? d->rec.attr : d->attrs)->attr;
	uint64_t st = a->sample_type & ID_ALL_BITS;
	unsigned n = (unsigned)__builtin_popcountll(st);
	struct t2f_perf_sample *s = &d->rec.s;
	struct rd r;
	uint32_t res;

	*body_end = size;
	if (!a->sample_id_all || !n)
		return true;
	if (8u * n + 8 > size)
		return false;
	*body_end = (uint16_t)(size - 8 * n);
	r = (struct rd){ d, rec + *body_end, rec + size };
	s->fields = st;
	return (!(st & PERF_SAMPLE_TID) || rd_u32x2(&r, &s->pid, &s->tid)) &&
	       (!(st & PERF_SAMPLE_TIME) || rd_u64(&r, &s->time)) &&
	       (!(st & PERF_SAMPLE_ID) || rd_u64(&r, &s->id)) &&
	       (!(st & PERF_SAMPLE_STREAM_ID) || rd_u64(&r, &s->stream_id)) &&
	       (!(st & PERF_SAMPLE_CPU) || rd_u32x2(&r, &s->cpu, &res)) &&
	       (!(st & PERF_SAMPLE_IDENTIFIER) || rd_u64(&r, &s->id));
}

/* ---- other records ---- */

/* a NUL-terminated string at rec[at, end); NULL when it has no NUL */
static const char *rec_string(const uint8_t *rec, uint16_t at, uint16_t end)
{
	return at < end && memchr(rec + at, 0, end - at) ? (const char *)rec + at : NULL;
}

/* Widens the span of the lost records' times by the record's (from its trailer), if it has one. */
static void lost_time(struct t2f_perf_data *d)
{
	uint64_t t = d->rec.s.time;

	if (!(d->rec.s.fields & PERF_SAMPLE_TIME) || !t)
		return;
	if (!d->stats.lost_first_ns || t < d->stats.lost_first_ns)
		d->stats.lost_first_ns = t;
	if (t > d->stats.lost_last_ns)
		d->stats.lost_last_ns = t;
}

static const char *decode_mmap(struct t2f_perf_data *d, const uint8_t *p, uint16_t end,
			       bool v2, uint16_t misc)
{
	struct t2f_perf_mmap *m = &d->rec.u.mmap;

	m->pid = t2f_pd_u32(d, p + 8);
	m->tid = t2f_pd_u32(d, p + 12);
	m->start = t2f_pd_u64(d, p + 16);
	m->len = t2f_pd_u64(d, p + 24);
	m->pgoff = t2f_pd_u64(d, p + 32);
	if (!v2)
		return rec_string(p, 40, end);
	m->has_build_id = misc & MISC_BUILD_ID;
	if (m->has_build_id) {
		m->build_id_size = p[40] > 20 ? 20 : p[40];
		memcpy(m->build_id, p + 44, 20);
	} else {
		m->maj = t2f_pd_u32(d, p + 40);
		m->min = t2f_pd_u32(d, p + 44);
		m->ino = t2f_pd_u64(d, p + 48);
		m->ino_generation = t2f_pd_u64(d, p + 56);
	}
	m->prot = t2f_pd_u32(d, p + 64);
	m->flags = t2f_pd_u32(d, p + 68);
	return rec_string(p, 72, end);
}

/* ID_INDEX: u64 nr, then nr entries {id, idx, cpu, tid}; idx is the mmap buffer's index, not
 * the attr's, so the entries add nothing to the id → attr table. */
static int id_index(struct t2f_perf_data *d, const uint8_t *p, uint16_t end)
{
	d->rec.u.table.nr = t2f_pd_u64(d, p + 8);
	return d->rec.u.table.nr <= (end - 16u) / 32u;
}

/* The fixed part each record type needs before its trailer (strings: at least one byte). */
static uint16_t min_size(uint32_t type)
{
	switch (type) {
	case PERF_RECORD_MMAP: return 41;
	case PERF_RECORD_MMAP2: return 73;
	case PERF_RECORD_COMM: return 17;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT: return 32;
	case PERF_RECORD_LOST: return 24;
	case PERF_RECORD_LOST_SAMPLES: return 16;
	case PERF_RECORD_KSYMBOL: return 25;
	case T2F_PERF_RECORD_ID_INDEX:
	case T2F_PERF_RECORD_THREAD_MAP: return 16;
	case T2F_PERF_RECORD_CPU_MAP: return 10;
	default: return 8;
	}
}

/* 1 delivered, 0 skipped (warned by the caller), <0 error */
static int decode_body(struct t2f_perf_data *d, const uint8_t *p, uint16_t end)
{
	struct t2f_perf_record *r = &d->rec;
	const char *str = "";

	switch (r->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		str = r->u.mmap.filename = decode_mmap(d, p, end, r->type == PERF_RECORD_MMAP2, r->misc);
		break;
	case PERF_RECORD_COMM:
		r->u.comm.pid = t2f_pd_u32(d, p + 8);
		r->u.comm.tid = t2f_pd_u32(d, p + 12);
		r->u.comm.exec = r->misc & PERF_RECORD_MISC_COMM_EXEC;
		str = r->u.comm.comm = rec_string(p, 16, end);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		r->u.task.pid = t2f_pd_u32(d, p + 8);
		r->u.task.ppid = t2f_pd_u32(d, p + 12);
		r->u.task.tid = t2f_pd_u32(d, p + 16);
		r->u.task.ptid = t2f_pd_u32(d, p + 20);
		r->u.task.time = t2f_pd_u64(d, p + 24);
		break;
	case PERF_RECORD_LOST:
		r->u.lost.id = t2f_pd_u64(d, p + 8);
		r->u.lost.lost = t2f_pd_u64(d, p + 16);
		d->stats.lost = t2f_sat_add(d->stats.lost, r->u.lost.lost);
		d->stats.lost_records++;
		lost_time(d);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		r->u.lost.lost = t2f_pd_u64(d, p + 8);
		if (!(r->misc & T2F_PERF_MISC_LOST_SAMPLES_BPF)) {
			d->stats.lost_samples = t2f_sat_add(d->stats.lost_samples, r->u.lost.lost);
			lost_time(d);
		}
		break;
	case PERF_RECORD_KSYMBOL:
		r->u.ksymbol.addr = t2f_pd_u64(d, p + 8);
		r->u.ksymbol.len = t2f_pd_u32(d, p + 16);
		r->u.ksymbol.ksym_type = t2f_pd_u16(d, p + 20);
		r->u.ksymbol.flags = t2f_pd_u16(d, p + 22);
		str = r->u.ksymbol.name = rec_string(p, 24, end);
		break;
	case T2F_PERF_RECORD_ID_INDEX:
		return id_index(d, p, end);
	case T2F_PERF_RECORD_THREAD_MAP:
		r->u.table.nr = t2f_pd_u64(d, p + 8);
		return r->u.table.nr <= (end - 16u) / 24u;
	case T2F_PERF_RECORD_CPU_MAP:
		r->u.table.nr = t2f_pd_u16(d, p + 8);
		break;
	default:
		break;
	}
	return str != NULL;
}

/* Decodes the record at p (size checked by the caller) into d->rec: 1 delivered, 0 skipped. */
static int decode(struct t2f_perf_data *d, const uint8_t *p, uint16_t size, uint64_t off)
{
	struct t2f_perf_record *r = &d->rec;
	uint16_t end = size;
	uint64_t id;
	int ret;

	r->type = t2f_pd_u32(d, p);
	r->misc = t2f_pd_u16(d, p + 4);
	r->size = size;
	r->attr = NULL;
	r->s = (struct t2f_perf_sample){ 0 };
	if (r->type != PERF_RECORD_SAMPLE) /* a sample's fields are all in r->s */
		r->u = (__typeof__(r->u)){ 0 };
	if (r->type == PERF_RECORD_SAMPLE || (r->type < T2F_PERF_RECORD_HEADER_ATTR &&
					      d->attrs[0].attr.sample_id_all)) {
		bool sample = r->type == PERF_RECORD_SAMPLE;

		/* one attr: that one; synthesized records carry id 0: the first attr */
		r->attr = &d->attrs[0];
		if (d->n_attrs > 1 && record_id(d, p, size, sample, &id) && id) {
			r->attr = t2f_perf_data__attr_of_id(d, id);
			if (!r->attr) {
				d->stats.unknown_id++;
				if (sample)
					return t2f_diag__warn(d->diag, d->name, 0, "offset %" PRIu64
							      "%s: SAMPLE record's id %" PRIu64 " is "
							      "in no attr: skipped", off, d->zwhere,
							      id);
				if (t2f_diag__warn(d->diag, d->name, 0, "offset %" PRIu64 "%s: %s "
						   "record's id %" PRIu64 " is in no attr: its "
						   "trailer read as the first attr's", off, d->zwhere,
						   t2f_perf_data__type_name(r->type), id))
					return -T2F_ERR_FORMAT;
			}
		}
		if (sample)
			return decode_sample(d, p, size, off);
		if (!read_trailer(d, p, size, &end))
			goto short_record;
	}
	if (end < min_size(r->type))
		goto short_record;
	ret = decode_body(d, p, end);
	if (ret)
		return ret;
	d->stats.skipped++;
	return t2f_diag__warn(d->diag, d->name, 0, "offset %" PRIu64 "%s: %s record of %u "
			      "bytes: its string or table runs past its end: skipped", off, d->zwhere,
			      t2f_perf_data__type_name(r->type), size);
short_record:
	d->stats.skipped++;
	return t2f_diag__warn(d->diag, d->name, 0, "offset %" PRIu64 "%s: %s record of %u "
			      "bytes is too short for its fields: skipped", off, d->zwhere,
			      t2f_perf_data__type_name(r->type), size);
}

/* ---- iteration ---- */

static void count(struct t2f_perf_data *d, uint32_t type)
{
	d->stats.by_type[type < T2F_PERF_RECORD_TYPES ? type : 0]++;
}

/* The next record held in decompressed bytes: 1, or 0 when none is complete there. */
static int next_decompressed(struct t2f_perf_data *d, const struct t2f_perf_record **out)
{
	while (d->dlen - d->dpos >= 8) {
		const uint8_t *p = d->dbuf + d->dpos;
		uint16_t size = t2f_pd_u16(d, p + 6);
		uint64_t at = d->dbase + d->dpos;
		int ret;

		if (size < 8)
			return t2f_diag__error(d->diag, -T2F_ERR_FORMAT, d->name, 0,
					       "offset %" PRIu64
					       ": compressed data, offset %" PRIu64 ": record size "
					       "%u, expected at least 8",
					       d->comp_record, at, size);
		if (size > d->dlen - d->dpos)
			return 0;
		d->dpos += size;
		count(d, t2f_pd_u32(d, p));
		snprintf(d->zwhere, sizeof(d->zwhere), ": compressed data, offset %" PRIu64, at);
		ret = decode(d, p, size, d->comp_record);
		if (ret < 0)
			return ret;
		if (ret) {
			d->rec.offset = d->comp_record;
			d->rec.in_compressed = true;
			d->rec.comp_offset = at;
			d->stats.records++;
			d->stats.samples += d->rec.type == PERF_RECORD_SAMPLE;
			*out = &d->rec;
			return 1;
		}
	}
	return 0;
}

/* Asks for the cache lines of the record after the one at p (size bytes, at off) that its
 * decoding will read first, while the mapped window holds them: its head and, when it is as
 * large as this one (a dwarf sample's stack copy), the copy's top and the record's tail. */
static void prefetch_next(const struct t2f_perf_data *d, const uint8_t *p, uint16_t size,
			  uint64_t off)
{
	const uint8_t *next = p + size;
	size_t head = size > 1024 ? 1024 : 64;

	if (off + 2u * size > d->map_off + d->map_len)
		return;
	for (size_t i = 0; i < head; i += 64)
		__builtin_prefetch(next + i);
	__builtin_prefetch(next + size - 8);
}

static int truncated(struct t2f_perf_data *d, uint64_t off, uint64_t have, uint64_t need)
{
	d->stats.truncated_bytes += have;
	d->done = true;
	return t2f_diag__warn(d->diag, d->name, 0, "offset %" PRIu64 ": truncated: a record of "
			      "%" PRIu64 " bytes, %" PRIu64 " left in the data section; the "
			      "complete records before it are kept", off, need, have);
}

static int truncated_aux(struct t2f_perf_data *d, uint64_t off, uint64_t have, uint16_t size,
			 uint64_t payload)
{
	d->stats.truncated_bytes += have;
	d->done = true;
	return t2f_diag__warn(d->diag, d->name, 0, "offset %" PRIu64 ": truncated: an AUXTRACE "
			      "record of %u bytes and a payload of %" PRIu64 " bytes, %" PRIu64
			      " left in the data section; the complete records before it are kept",
			      off, size, payload, have);
}

static int end_of_data(struct t2f_perf_data *d)
{
	size_t left = d->dlen - d->dpos;

	d->done = true;
	if (!left)
		return 0;
	d->stats.truncated_bytes += left;
	return t2f_diag__warn(d->diag, d->name, 0, "offset %" PRIu64 ": truncated: %zu byte%s of "
			      "a record at the end of the compressed data", d->comp_record, left,
			      t2f_plural(left));
}

int t2f_perf_data__next(struct t2f_perf_data *d, const struct t2f_perf_record **out)
{
	while (!d->done) {
		const uint8_t *p;
		uint64_t left = d->end - d->pos, off = d->pos, extra = 0;
		uint16_t size;
		int ret = next_decompressed(d, out);

		if (ret)
			return ret;
		if (!left)
			return end_of_data(d);
		if (left < 8)
			return truncated(d, off, left, 8);
		if ((ret = t2f_perf_data__window(d, off, 8, &p)))
			return ret;
		size = t2f_pd_u16(d, p + 6);
		if (size < 8)
			return t2f_diag__error(d->diag, -T2F_ERR_FORMAT, d->name, 0,
					       "offset %" PRIu64
					       ": record size %u, expected at least 8",
					       off, size);
		if (size > left)
			return truncated(d, off, left, size);
		if ((ret = t2f_perf_data__window(d, off, size, &p)))
			return ret;
		if (d->map) /* the next record's head, and its tail if it is as large (dwarf samples) */
			prefetch_next(d, p, size, off);
		if (t2f_pd_u32(d, p) == T2F_PERF_RECORD_AUXTRACE && size >= 16)
			extra = t2f_pd_u64(d, p + 8); /* its payload follows the record */
		if (extra > left - size)      /* size + extra may not fit 64 bits */
			return truncated_aux(d, off, left, size, extra);
		d->pos += size + extra;
		count(d, t2f_pd_u32(d, p));
		if (t2f_pd_u32(d, p) == T2F_PERF_RECORD_COMPRESSED) {
			d->stats.compressed++;
			d->comp_record = off;
			ret = t2f_perf_data__inflate(d, p + 8, size - 8u, off);
			if (ret)
				return ret;
			continue;
		}
		d->zwhere[0] = '\0';
		ret = decode(d, p, size, off);
		if (ret < 0)
			return ret;
		if (ret) {
			d->rec.offset = off;
			d->rec.in_compressed = false;
			d->rec.comp_offset = 0;
			d->stats.records++;
			d->stats.samples += d->rec.type == PERF_RECORD_SAMPLE;
			*out = &d->rec;
			return 1;
		}
	}
	return 0;
}
