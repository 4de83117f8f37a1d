/* tests/fuzz/fuzz_perf_data.c: the perf.data reader (readers/perf_data.h) on any bytes.
 *
 * The input is a perf.data file. It is read twice: in memory (t2f_perf_data__open_mem), and as
 * a file (an in-memory file opened by its /proc/self/fd path with t2f_perf_data__open) whose
 * data section is read 1-4096 bytes at a time, so records cut by every block boundary are
 * carried over. Each reading touches every field handed out: the header, every attr with its
 * ids and name (and the id → attr lookup of each id), every feature (strings, argv, build-ids),
 * every record (its decoded union member by type, strings to their NUL, every callchain entry)
 * and the statistics. Strict mode for a quarter of the inputs.
 *
 * Checks besides the sanitizers: both readings give the same status, the same digest of every
 * value handed out, the same statistics and the same warnings; a callchain fits its record; a
 * record's size is at least 8; an attr found by an id holds that id. Then the records go into a
 * profile as a conversion reads them (readers/perf_data_conv.h), the user stacks of
 * --call-graph dwarf samples unwound by the unwind stage (pipeline/unwind.h, default options,
 * one thread: the files of the recording's mappings are looked for on this machine by their
 * build-ids): samples never outnumber records, the stage's samples are the dwarf ones with
 * registers and each ends in one stop reason, at most 127 frames each; a kernel build-id is
 * lowercase hex of whole bytes.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ctype.h>

#include "pipeline/unwind.h"
#include "readers/perf_data.h"
#include "readers/perf_data_conv.h"
#include "readers/perf_data_internal.h"
#include "tests/fuzz/fuzz_support.h"

struct digest {
	uint64_t h;
};

static void mix(struct digest *g, uint64_t v)
{
	for (int i = 0; i < 8; i++) {
		g->h ^= (uint8_t)(v >> (8 * i));
		g->h *= 0x100000001b3ull;
	}
}

static void mix_str(struct digest *g, const char *s)
{
	if (!s) {
		mix(g, UINT64_MAX);
		return;
	}
	mix(g, strlen(s));
	for (; *s; s++)
		mix(g, (uint8_t)*s);
}

static void touch_attrs(struct t2f_perf_data *p, struct digest *g)
{
	size_t n = t2f_perf_data__n_attrs(p);

	mix(g, n);
	FZ_CHECK(n >= 1, "an open reader without attrs");
	for (size_t i = 0; i < n; i++) {
		const struct t2f_perf_attr *a = t2f_perf_data__attr(p, i);

		FZ_CHECK(a && a->index == i, "attr %zu has index %u", i, a ? a->index : 0);
		mix(g, a->attr.type);
		mix(g, a->attr.sample_type);
		mix(g, a->attr.read_format);
		mix(g, a->attr.sample_id_all);
		mix(g, a->file_attr_size);
		mix_str(g, a->name);
		mix(g, a->n_ids);
		for (size_t k = 0; k < a->n_ids; k++) {
			const struct t2f_perf_attr *o = t2f_perf_data__attr_of_id(p, a->ids[k]);
			bool holds = false;

			FZ_CHECK(o, "id %llu of attr %zu found in no attr",
				 (unsigned long long)a->ids[k], i);
			for (size_t j = 0; j < o->n_ids; j++)
				holds |= o->ids[j] == a->ids[k];
			FZ_CHECK(holds || !o->n_ids, "attr_of_id gave an attr without the id");
			mix(g, a->ids[k]);
		}
	}
	FZ_CHECK(!t2f_perf_data__attr(p, n), "an attr past the last");
}

static void touch_features(struct t2f_perf_data *p, struct digest *g)
{
	const struct t2f_perf_features *f = t2f_perf_data__features(p);
	const struct t2f_perf_header *h = t2f_perf_data__header(p);

	mix(g, h->big_endian);
	mix(g, h->data_offset);
	mix(g, h->data_size);
	mix_str(g, f->hostname);
	mix_str(g, f->osrelease);
	mix(g, f->has_nrcpus ? f->nr_cpus_avail ^ (uint64_t)f->nr_cpus_online << 32 : 1);
	mix(g, f->cmdline_n);
	for (size_t i = 0; i < f->cmdline_n; i++)
		mix_str(g, f->cmdline[i]);
	mix(g, f->n_build_ids);
	for (size_t i = 0; i < f->n_build_ids; i++) {
		const struct t2f_perf_build_id *b = &f->build_ids[i];

		FZ_CHECK(b->size <= 20, "build-id of %u bytes", b->size);
		mix(g, (uint64_t)(uint32_t)b->pid ^ (uint64_t)b->misc << 32);
		for (unsigned k = 0; k < b->size; k++)
			mix(g, b->id[k]);
		mix_str(g, b->path);
	}
	mix(g, f->has_compressed ? f->comp_mmap_len : 0);
	FZ_CHECK(f->n_sections <= T2F_PERF_FEAT_BITS, "%zu feature sections", f->n_sections);
	for (size_t i = 0; i < f->n_sections; i++) {
		mix(g, f->sections[i].bit);
		mix(g, f->sections[i].offset ^ f->sections[i].size);
		mix(g, f->sections[i].decoded);
		(void)t2f_perf_data__feature_name(f->sections[i].bit);
	}
}

static void touch_sample(const struct t2f_perf_record *r, struct digest *g)
{
	const struct t2f_perf_sample *s = &r->s;

	mix(g, s->fields);
	mix(g, s->ip);
	mix(g, s->pid ^ (uint64_t)s->tid << 32);
	mix(g, s->time ^ s->addr ^ s->id ^ s->stream_id ^ s->cpu ^ s->period);
	mix(g, s->raw_size ^ s->weight ^ s->data_src ^ s->transaction ^ s->phys_addr);
	mix(g, s->cgroup ^ s->data_page_size ^ s->code_page_size);
	FZ_CHECK(s->callchain_nr <= r->size / 8, "callchain of %llu entries in a %u-byte record",
		 (unsigned long long)s->callchain_nr, r->size);
	mix(g, s->callchain_nr);
	for (uint64_t i = 0; i < s->callchain_nr; i++)
		mix(g, s->callchain[i]);
}

static void touch_record(const struct t2f_perf_record *r, struct digest *g)
{
	FZ_CHECK(r->size >= 8, "a record of %u bytes", r->size);
	mix(g, r->type ^ (uint64_t)r->misc << 32 ^ (uint64_t)r->size << 48);
	mix(g, r->offset);
	mix(g, r->in_compressed ? r->comp_offset : UINT64_MAX);
	mix(g, r->attr ? r->attr->index : UINT64_MAX);
	(void)t2f_perf_data__type_name(r->type);
	touch_sample(r, g);
	switch (r->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		mix(g, r->u.mmap.start ^ r->u.mmap.len ^ r->u.mmap.pgoff ^ r->u.mmap.ino);
		mix(g, r->u.mmap.has_build_id ? r->u.mmap.build_id_size : 99);
		FZ_CHECK(r->u.mmap.build_id_size <= 20, "mmap build-id of %u bytes",
			 r->u.mmap.build_id_size);
		mix_str(g, r->u.mmap.filename);
		break;
	case PERF_RECORD_COMM:
		mix(g, r->u.comm.pid ^ (uint64_t)r->u.comm.tid << 32);
		mix_str(g, r->u.comm.comm);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		mix(g, r->u.task.pid ^ r->u.task.ppid ^ r->u.task.tid ^ r->u.task.ptid);
		mix(g, r->u.task.time);
		break;
	case PERF_RECORD_LOST:
		mix(g, r->u.lost.id ^ r->u.lost.lost);
		break;
	case PERF_RECORD_KSYMBOL:
		mix(g, r->u.ksymbol.addr ^ r->u.ksymbol.len);
		mix_str(g, r->u.ksymbol.name);
		break;
	case T2F_PERF_RECORD_ID_INDEX:
	case T2F_PERF_RECORD_THREAD_MAP:
	case T2F_PERF_RECORD_CPU_MAP:
		mix(g, r->u.table.nr);
		break;
	default:
		break;
	}
}

static void touch_stats(const struct t2f_perf_data_stats *st, struct digest *g)
{
	mix(g, st->records ^ st->samples << 20 ^ st->lost);
	mix(g, st->skipped ^ st->partial << 16 ^ st->features_skipped << 32);
	mix(g, st->unknown_id ^ st->compressed << 32);
	mix(g, st->truncated_bytes);
	for (size_t i = 0; i < T2F_PERF_RECORD_TYPES; i++)
		mix(g, st->by_type[i]);
}

struct reading {
	struct fz_diag diag;
	struct digest g;
	int status;
};

/* Reads the opened reader p to its end (or error) into r's digest; frees p. */
static void read_all(struct t2f_perf_data *p, struct reading *r)
{
	const struct t2f_perf_record *rec;
	int ret;

	touch_attrs(p, &r->g);
	touch_features(p, &r->g);
	while ((ret = t2f_perf_data__next(p, &rec)) > 0)
		touch_record(rec, &r->g);
	FZ_CHECK(ret <= 0, "__next returned %d", ret);
	FZ_CHECK(t2f_perf_data__next(p, &rec) == 0 || ret < 0, "records after the end");
	touch_stats(t2f_perf_data__stats(p), &r->g);
	r->status = ret;
	t2f_perf_data__free(p);
}

static void check_kernel_id(const struct t2f_perf_data *pd)
{
	char hex[41];
	size_t n;

	if (!t2f_perf_data_conv__kernel_build_id(pd, hex))
		return;
	n = strnlen(hex, sizeof(hex));
	FZ_CHECK(n >= 2 && n <= 40 && n % 2 == 0, "a kernel build-id of %zu digits", n);
	for (size_t i = 0; i < n; i++)
		FZ_CHECK(isxdigit((unsigned char)hex[i]) && !isupper((unsigned char)hex[i]),
			 "kernel build-id \"%s\" is not lowercase hex", hex);
}

/* The unwind stage's counts against the conversion's. */
static void check_unwind(const struct t2f_unwind_stage *us,
			 const struct t2f_perf_data_conv_stats *st)
{
	struct t2f_unwind_stats u = { 0 };
	uint64_t stops = 0;

	if (t2f_unwind_stage__add_stats(us, &u))
		abort();
	for (int i = 0; i < T2F_UNWIND_STOPS; i++)
		stops += u.stops[i];
	FZ_CHECK(u.samples <= st->dwarf, "%llu samples unwound of %llu dwarf samples",
		 (unsigned long long)u.samples, (unsigned long long)st->dwarf);
	FZ_CHECK(stops == u.samples, "%llu stop reasons for %llu samples",
		 (unsigned long long)stops, (unsigned long long)u.samples);
	FZ_CHECK(u.frames <= u.samples * T2F_PERF_UNWIND_MAX, "%llu frames of %llu samples",
		 (unsigned long long)u.frames, (unsigned long long)u.samples);
	for (size_t i = 0; i < u.n_modules; i++)
		FZ_CHECK(u.modules[i].stops[T2F_UNWIND_END] == 0,
			 "a module counts complete stacks");
	t2f_unwind_stats__free(&u);
}

/* The records into a profile, every unnamed frame keeping its address, the dwarf samples'
 * user stacks unwound. */
static void convert(const uint8_t *data, size_t size, bool strict)
{
	const struct t2f_unwind_stage_opts uo = { .jobs = 1 };
	struct t2f_perf_data_conv_opts o = { .input = 0, .unwind = t2f_unwind_stage__sample };
	struct t2f_perf_data *pd = NULL;
	struct t2f_perf_data_conv *pc = NULL;
	struct t2f_unwind_stage *us = NULL;
	struct t2f_profile *p = NULL;
	struct t2f_diag *d = NULL;

	if (t2f_profile__new(&p) || t2f_diag__new(NULL, &d))
		abort();
	t2f_diag__set_strict(d, strict);
	if (!t2f_perf_data__open_mem("in", data, size, d, &pd)) {
		check_kernel_id(pd);
		if (t2f_unwind_stage__new(&uo, p, d, &us))
			abort(); /* only -ENOMEM: the host's architecture */
		o.unwind_ctx = us;
		if (!t2f_perf_data_conv__new(pd, p, d, &o, &pc))
			(void)t2f_perf_data_conv__run(pc);
	}
	if (pc) {
		const struct t2f_perf_data_conv_stats *st = t2f_perf_data_conv__stats(pc);

		FZ_CHECK(st->samples <= st->records, "%llu samples of %llu records",
			 (unsigned long long)st->samples, (unsigned long long)st->records);
		check_unwind(us, st);
	}
	t2f_perf_data_conv__free(pc);
	t2f_unwind_stage__free(us);
	t2f_perf_data__free(pd);
	t2f_profile__free(p);
	t2f_diag__free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t h = fz_hash(data, size);
	struct reading mem = { .g = { 0xcbf29ce484222325ull } }, file = mem;
	struct t2f_perf_data *p;
	char path[64];
	int fd, err;

	fd = fz_memfd(data, size, path, sizeof(path));
	if (fd < 0 || fz_diag_open(&mem.diag) || fz_diag_open(&file.diag))
		abort();
	t2f_diag__set_strict(mem.diag.d, (h & 6) == 6);
	t2f_diag__set_strict(file.diag.d, (h & 6) == 6);

	err = t2f_perf_data__open_mem(path, data, size, mem.diag.d, &p);
	mem.status = err;
	if (!err)
		read_all(p, &mem);
	err = t2f_perf_data__open(path, file.diag.d, &p);
	file.status = err;
	if (!err) {
		t2f_perf_data__set_block(p, 1 + (size_t)(h >> 8) % 4096);
		read_all(p, &file);
	}
	FZ_CHECK(mem.status == file.status, "status %d in memory, %d from the file", mem.status,
		 file.status);
	FZ_CHECK(mem.g.h == file.g.h, "the readings in memory and from the file differ");
	FZ_CHECK(strcmp(fz_diag_text(&mem.diag), fz_diag_text(&file.diag)) == 0,
		 "warnings differ:\n--- memory\n%s--- file\n%s", fz_diag_text(&mem.diag),
		 fz_diag_text(&file.diag));
	fz_diag_close(&mem.diag);
	fz_diag_close(&file.diag);
	close(fd);
	if (mem.status == 0)
		convert(data, size, (h & 6) == 6);
	return 0;
}
