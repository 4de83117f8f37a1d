/* tools/nettrace_dump.c: t2f-nettrace-dump, the nettrace container parser alone (test and bench
 * aid; not installed).
 *
 *   t2f-nettrace-dump [--chunk N] FILE          the trace header, then one line per
 *                                               (provider, event id, event name):
 *                                               "COUNT<TAB>PROVIDER<TAB>ID<TAB>NAME", sorted,
 *                                               then the parser's statistics
 *   t2f-nettrace-dump --bench SECONDS FILE      parses the file from memory repeatedly for
 *                                               about SECONDS and prints the throughput
 *
 * Exit status: 0, 1 when the parser fails (its message on stderr), 2 on usage errors.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "formats/grow.h"
#include "readers/nettrace_parse.h"

struct count {
	const char *provider, *name;
	uint32_t event_id;
	uint64_t n;
};

struct dump {
	struct count *c;
	size_t n, cap;
	const struct nt_meta *last_meta;
	size_t last;
	uint64_t unknown, with_stack, frames;
	struct nt_trace trace;
	bool have_trace;
};

static int on_trace(void *ctx, const struct nt_trace *t)
{
	struct dump *d = ctx;

	d->trace = *t;
	d->have_trace = true;
	return 0;
}

static size_t find_count(struct dump *d, const struct nt_meta *m)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->c[i].event_id == m->event_id && !strcmp(d->c[i].provider, m->provider) &&
		    !strcmp(d->c[i].name, m->event_name))
			return i;
	if (t2f_grow((void **)&d->c, &d->cap, d->n, 1, sizeof(*d->c), 64, SIZE_MAX))
		return SIZE_MAX;
	d->c[d->n] = (struct count){ m->provider, m->event_name, m->event_id, 0 };
	return d->n++;
}

static int on_event(void *ctx, const struct nt_event *e)
{
	struct dump *d = ctx;

	if (e->stack_len) {
		d->with_stack++;
		d->frames += e->stack_len;
	}
	if (!e->meta) {
		d->unknown++;
		return 0;
	}
	if (e->meta != d->last_meta) {
		d->last = find_count(d, e->meta);
		if (d->last == SIZE_MAX)
			return -ENOMEM;
		d->last_meta = e->meta;
	}
	d->c[d->last].n++;
	return 0;
}

static int on_event_bench(void *ctx, const struct nt_event *e)
{
	struct dump *d = ctx;

	d->frames += e->stack_len;
	return 0;
}

static int cmp_count(const void *a, const void *b)
{
	const struct count *x = a, *y = b;
	int c = strcmp(x->provider, y->provider);

	if (c)
		return c;
	if (x->event_id != y->event_id)
		return x->event_id < y->event_id ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int read_file(const char *path, uint8_t **out, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b = NULL;
	size_t n = 0, cap = 0;

	if (!f)
		return -errno;
	for (;;) {
		if (t2f_grow((void **)&b, &cap, n, 1, 1, 1 << 20, SIZE_MAX)) {
			free(b);
			fclose(f);
			return -ENOMEM;
		}
		size_t r = fread(b + n, 1, cap - n, f);

		if (!r)
			break;
		n += r;
	}
	fclose(f);
	*out = b;
	*len = n;
	return 0;
}

/* Parses b in chunks; the caller frees *out (metadata strings live as long as the parser). */
static int parse(const char *name, struct t2f_diag *diag, const struct nt_sink *sink,
		 const uint8_t *b, size_t len, size_t chunk, struct nt_parser **out)
{
	int err = nt_parser__new(name, diag, sink, out);

	for (size_t off = 0; !err && off < len; off += chunk)
		err = nt_parser__feed(*out, b + off, len - off < chunk ? len - off : chunk);
	if (!err)
		err = nt_parser__finish(*out);
	return err;
}

static void print_stats(const struct dump *d, const struct nt_stats *st)
{
	const struct nt_trace *t = &d->trace;

	if (d->have_trace)
		printf("trace\tmajor %u\tpointer_size %u\tpid %lld\tcpus %u\tqpc_freq %lld\t"
		       "sync_qpc %lld\tsampling_ns %llu\tpage_size %llu\n", t->major,
		       t->pointer_size, (long long)t->pid, t->cpus, (long long)t->qpc_freq,
		       (long long)t->sync_qpc, (unsigned long long)t->sampling_ns,
		       (unsigned long long)t->page_size);
	qsort(d->c, d->n, sizeof(*d->c), cmp_count);
	for (size_t i = 0; i < d->n; i++)
		printf("%llu\t%s\t%u\t%s\n", (unsigned long long)d->c[i].n, d->c[i].provider,
		       d->c[i].event_id, d->c[i].name);
	if (d->unknown)
		printf("%llu\t?\t-\t(undefined metadata)\n", (unsigned long long)d->unknown);
	printf("stats\tblocks %llu\tevents %llu\tmetadata %llu\tunknown_meta %llu\t"
	       "unknown_stack %llu\tunknown_thread %llu\tskipped_blocks %llu\tbad_rows %llu\t"
	       "truncated %d\ttruncated_at %llu\twith_stack %llu\tframes %llu\n",
	       (unsigned long long)st->blocks, (unsigned long long)st->events,
	       (unsigned long long)st->metadata, (unsigned long long)st->unknown_meta,
	       (unsigned long long)st->unknown_stack, (unsigned long long)st->unknown_thread,
	       (unsigned long long)st->skipped_blocks, (unsigned long long)st->bad_rows,
	       st->truncated, (unsigned long long)st->truncated_at,
	       (unsigned long long)d->with_stack, (unsigned long long)d->frames);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int bench(const char *path, struct t2f_diag *diag, const uint8_t *b, size_t len,
		 double seconds)
{
	struct dump d = { 0 };
	struct nt_sink sink = { &d, on_trace, on_event_bench };
	struct nt_stats st = { 0 };
	double t0 = now(), t;
	unsigned runs = 0;
	int err;

	t2f_diag__set_max_repeats(diag, 0);
	do {
		struct nt_parser *p = NULL;

		err = parse(path, diag, &sink, b, len, 1 << 20, &p);
		if (p)
			st = *nt_parser__stats(p);
		nt_parser__free(p);
		if (err)
			return err;
		runs++;
		t = now() - t0;
	} while (t < seconds);
	printf("%u runs of %zu bytes (%llu events, %llu frames each) in %.3f s: %.1f MB/s, "
	       "%.1f M events/s\n", runs, len, (unsigned long long)st.events,
	       (unsigned long long)(d.frames / runs), t, (double)len * runs / t / 1e6,
	       (double)st.events * runs / t / 1e6);
	return 0;
}

int main(int argc, char **argv)
{
	size_t chunk = 1 << 20, len = 0;
	double bench_s = 0;
	uint8_t *b = NULL;
	struct t2f_diag *diag = NULL;
	int i = 1, err;

	for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
		if (!strcmp(argv[i], "--chunk") && atol(argv[i + 1]) > 0)
			chunk = (size_t)atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--bench") && atof(argv[i + 1]) > 0)
			bench_s = atof(argv[i + 1]);
		else
			break;
	}
	if (i + 1 != argc) {
		fprintf(stderr, "usage: %s [--chunk BYTES] [--bench SECONDS] FILE\n", argv[0]);
		return 2;
	}
	err = t2f_diag__new(stderr, &diag);
	if (!err)
		err = read_file(argv[i], &b, &len);
	if (!err && bench_s > 0) {
		err = bench(argv[i], diag, b, len, bench_s);
	} else if (!err) {
		struct dump d = { 0 };
		struct nt_sink sink = { &d, on_trace, on_event };
		struct nt_parser *p = NULL;

		err = parse(argv[i], diag, &sink, b, len, chunk, &p);
		if (!err)
			print_stats(&d, nt_parser__stats(p));
		nt_parser__free(p);
		free(d.c);
	}
	if (err) {
		const char *msg = diag ? t2f_diag__last_error(diag) : NULL;

		fprintf(stderr, "t2f-nettrace-dump: %s\n", msg ? msg : t2f_strerror(err));
	}
	if (diag)
		t2f_diag__flush(diag);
	t2f_diag__free(diag);
	free(b);
	return err ? 1 : 0;
}
