/* tools/perf_data_dump.c: t2f-perf-data-dump, the perf.data reader alone (test aid; not
 * installed).
 *
 *   t2f-perf-data-dump [--strict] FILE   one line each: the header, every attr, every feature
 *                                        section (decoded ones with their contents), every
 *                                        record, then "count TYPE N" per record type and the
 *                                        reader's statistics
 *
 * Record lines start "record OFFSET TYPE size N misc 0xM" (OFFSET "z0x..." for a record taken
 * from a compressed record: its offset in the decompressed stream), then the decoded fields;
 * a sample: "attr I ip 0x.. pid P tid T time T cpu C period P chain 0x..,0x..".
 *
 * Exit status: 0, 1 when the reader fails (its message on stderr), 2 on usage errors.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "readers/perf_data.h"

static void print_hex(const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		printf("%02x", b[i]);
}

static void print_header(const struct t2f_perf_header *h)
{
	printf("header byte-order %s size %" PRIu64 " attr_size %" PRIu64 " attrs 0x%" PRIx64
	       "+0x%" PRIx64 " data 0x%" PRIx64 "+0x%" PRIx64 " event_types 0x%" PRIx64 "+0x%"
	       PRIx64 " features 0x%016" PRIx64 ",0x%016" PRIx64 ",0x%016" PRIx64 ",0x%016" PRIx64
	       "\n", h->big_endian ? "big" : "little", h->size, h->attr_size, h->attrs_offset,
	       h->attrs_size, h->data_offset, h->data_size, h->event_types_offset,
	       h->event_types_size, h->features[0], h->features[1], h->features[2],
	       h->features[3]);
}

static void print_attr(const struct t2f_perf_attr *a)
{
	const struct perf_event_attr *e = &a->attr;

	printf("attr %u name %s type %u config 0x%" PRIx64 " %s %" PRIu64 " sample_type 0x%"
	       PRIx64 " read_format 0x%" PRIx64 " sample_id_all %u attr_bytes %u ids", a->index,
	       a->name ? a->name : "-", e->type, (uint64_t)e->config, e->freq ? "freq" : "period",
	       (uint64_t)e->sample_period, (uint64_t)e->sample_type, (uint64_t)e->read_format,
	       (unsigned)e->sample_id_all, a->file_attr_size);
	for (size_t i = 0; i < a->n_ids; i++)
		printf("%c%" PRIu64, i ? ',' : ' ', a->ids[i]);
	printf("%s\n", a->n_ids ? "" : " -");
}

static void print_feature_body(const struct t2f_perf_features *f, unsigned bit)
{
	switch (bit) {
	case T2F_PERF_FEAT_HOSTNAME:
		printf(" %s", f->hostname ? f->hostname : "-");
		break;
	case T2F_PERF_FEAT_OSRELEASE:
		printf(" %s", f->osrelease ? f->osrelease : "-");
		break;
	case T2F_PERF_FEAT_NRCPUS:
		printf(" avail %u online %u", f->nr_cpus_avail, f->nr_cpus_online);
		break;
	case T2F_PERF_FEAT_CMDLINE:
		for (size_t i = 0; i < f->cmdline_n; i++)
			printf(" %s", f->cmdline[i] ? f->cmdline[i] : "");
		break;
	case T2F_PERF_FEAT_BUILD_ID:
		printf(" %zu", f->n_build_ids);
		break;
	case T2F_PERF_FEAT_COMPRESSED:
		printf(" type %u level %u mmap_len %" PRIu64, f->comp_type, f->comp_level,
		       f->comp_mmap_len);
		break;
	case T2F_PERF_FEAT_SAMPLE_TIME:
		printf(" first %" PRIu64 " last %" PRIu64, f->first_sample_time,
		       f->last_sample_time);
		break;
	default:
		break;
	}
}

static void print_features(const struct t2f_perf_features *f)
{
	for (size_t i = 0; i < f->n_sections; i++) {
		const char *name = t2f_perf_data__feature_name(f->sections[i].bit);

		printf("feature %u %s 0x%" PRIx64 "+0x%" PRIx64 " %s", f->sections[i].bit,
		       name ? name : "?", f->sections[i].offset, f->sections[i].size,
		       f->sections[i].decoded ? "decoded" : "skipped");
		if (f->sections[i].decoded)
			print_feature_body(f, f->sections[i].bit);
		printf("\n");
	}
	for (size_t i = 0; i < f->n_build_ids; i++) {
		const struct t2f_perf_build_id *b = &f->build_ids[i];

		printf("build-id pid %d misc 0x%x ", b->pid, b->misc);
		print_hex(b->id, b->size);
		printf(" %s\n", b->path);
	}
}

static void print_sample(const struct t2f_perf_record *r)
{
	const struct t2f_perf_sample *s = &r->s;

	printf(" attr %u ip 0x%" PRIx64 " pid %u tid %u time %" PRIu64 " cpu %u period %" PRIu64,
	       r->attr->index, s->ip, s->pid, s->tid, s->time, s->cpu, s->period);
	if (s->fields & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER))
		printf(" id %" PRIu64, s->id);
	if (s->fields & PERF_SAMPLE_ADDR)
		printf(" addr 0x%" PRIx64, s->addr);
	if (s->fields & PERF_SAMPLE_RAW)
		printf(" raw %u", s->raw_size);
	if (s->fields & PERF_SAMPLE_CALLCHAIN) {
		printf(" chain");
		for (uint64_t i = 0; i < s->callchain_nr; i++)
			printf("%c0x%" PRIx64, i ? ',' : ' ', s->callchain[i]);
		if (!s->callchain_nr)
			printf(" -");
	}
}

static void print_body(const struct t2f_perf_record *r)
{
	switch (r->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		const struct t2f_perf_mmap *m = &r->u.mmap;

		printf(" pid %d tid %d start 0x%" PRIx64 " len 0x%" PRIx64 " pgoff 0x%" PRIx64,
		       (int)m->pid, (int)m->tid, m->start, m->len, m->pgoff);
		if (r->type == PERF_RECORD_MMAP2 && m->has_build_id) {
			printf(" build-id ");
			print_hex(m->build_id, m->build_id_size);
		} else if (r->type == PERF_RECORD_MMAP2) {
			printf(" dev %x:%x ino %" PRIu64, m->maj, m->min, m->ino);
		}
		if (r->type == PERF_RECORD_MMAP2)
			printf(" prot %u flags 0x%x", m->prot, m->flags);
		printf(" file %s", m->filename);
		break;
	}
	case PERF_RECORD_COMM:
		printf(" pid %u tid %u%s comm %s", r->u.comm.pid, r->u.comm.tid,
		       r->u.comm.exec ? " exec" : "", r->u.comm.comm);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		printf(" pid %u ppid %u tid %u ptid %u time %" PRIu64, r->u.task.pid, r->u.task.ppid,
		       r->u.task.tid, r->u.task.ptid, r->u.task.time);
		break;
	case PERF_RECORD_LOST:
		printf(" id %" PRIu64 " lost %" PRIu64, r->u.lost.id, r->u.lost.lost);
		break;
	case PERF_RECORD_KSYMBOL:
		printf(" addr 0x%" PRIx64 " len %u type %u flags 0x%x name %s", r->u.ksymbol.addr,
		       r->u.ksymbol.len, r->u.ksymbol.ksym_type, r->u.ksymbol.flags,
		       r->u.ksymbol.name);
		break;
	case T2F_PERF_RECORD_ID_INDEX:
	case T2F_PERF_RECORD_THREAD_MAP:
	case T2F_PERF_RECORD_CPU_MAP:
		printf(" nr %" PRIu64, r->u.table.nr);
		break;
	default:
		break;
	}
	if (r->type != PERF_RECORD_SAMPLE && r->attr && (r->s.fields & PERF_SAMPLE_TIME))
		printf(" sid-time %" PRIu64, r->s.time);
}

static void print_record(const struct t2f_perf_record *r)
{
	if (r->in_compressed)
		printf("record z0x%" PRIx64, r->comp_offset);
	else
		printf("record 0x%" PRIx64, r->offset);
	printf(" %s size %u misc 0x%x", t2f_perf_data__type_name(r->type), r->size, r->misc);
	if (r->type == PERF_RECORD_SAMPLE)
		print_sample(r);
	else
		print_body(r);
	printf("\n");
}

static void print_stats(const struct t2f_perf_data_stats *s)
{
	for (uint32_t t = 0; t < T2F_PERF_RECORD_TYPES; t++)
		if (s->by_type[t])
			printf("count %s %" PRIu64 "\n", t ? t2f_perf_data__type_name(t) : "OTHER",
			       s->by_type[t]);
	printf("stats records %" PRIu64 " samples %" PRIu64 " lost %" PRIu64 " skipped %" PRIu64
	       " partial %" PRIu64 " unknown_id %" PRIu64 " compressed %" PRIu64
	       " truncated_bytes %" PRIu64 " features_skipped %" PRIu64 "\n", s->records,
	       s->samples, s->lost, s->skipped, s->partial, s->unknown_id, s->compressed,
	       s->truncated_bytes, s->features_skipped);
}

static int dump(const char *path, struct t2f_diag *diag)
{
	struct t2f_perf_data *p;
	const struct t2f_perf_record *r;
	int err = t2f_perf_data__open(path, diag, &p);

	if (err)
		return err;
	print_header(t2f_perf_data__header(p));
	for (size_t i = 0; i < t2f_perf_data__n_attrs(p); i++)
		print_attr(t2f_perf_data__attr(p, i));
	print_features(t2f_perf_data__features(p));
	while ((err = t2f_perf_data__next(p, &r)) > 0)
		print_record(r);
	if (!err)
		print_stats(t2f_perf_data__stats(p));
	t2f_perf_data__free(p);
	return err;
}

int main(int argc, char **argv)
{
	struct t2f_diag *diag;
	bool strict = argc == 3 && !strcmp(argv[1], "--strict");
	const char *path = argv[argc - 1];
	int err;

	if (argc != 2 && !strict) {
		fprintf(stderr, "usage: t2f-perf-data-dump [--strict] FILE\n");
		return 2;
	}
	if (t2f_diag__new(stderr, &diag)) {
		fprintf(stderr, "t2f-perf-data-dump: out of memory\n");
		return 1;
	}
	t2f_diag__set_strict(diag, strict);
	err = dump(path, diag);
	t2f_diag__flush(diag);
	if (err) {
		const char *msg = t2f_diag__last_error(diag);

		fprintf(stderr, "t2f-perf-data-dump: %s\n", msg ? msg : t2f_strerror(err));
	}
	t2f_diag__free(diag);
	fflush(stdout);
	return err ? 1 : 0;
}
