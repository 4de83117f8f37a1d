/* tests/unit/pprof_convert.c: perf script text → pprof through the library alone (no CLI), for
 * tests/pprof_validate.sh and for timing the writer.
 *
 * usage: pprof_convert [-a] [-r] [-t N] IN OUT.pb.gz [FOLDED_PREFIX]
 *   -a      keep frames' addresses as trace2flame -f pprof does: every frame's but those in no
 *           mapping (perf's "[unknown]" dso, or none), which share one frame per name
 *   -r      raw protobuf (no gzip)
 *   -t N    write pprof and collapsed N times each to OUT and PREFIX.bench.folded and print
 *           the read time and the best writer times on stdout
 *           ("read_ms T cells C pprof_ms A folded_ms B ratio R")
 * Prints "event N NAME samples S weight W" per event (the profile's own totals). With
 * FOLDED_PREFIX, also writes PREFIX.N.weight.folded and PREFIX.N.samples.folded per event
 * (the collapsed writer, for the totals check). Exit 0, or 1 with a message.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "formats/diag.h"
#include "formats/profile.h"
#include "readers/input.h"
#include "readers/perf_script.h"
#include "writers/collapsed.h"
#include "writers/pprof.h"

static bool keep_addrs;

/* -a: a frame keeps its address unless it is in no mapping (as the CLI's pprof) */
static bool in_mapping(void *ctx, enum t2f_frame_kind kind, const char *dso, size_t len,
		       bool named)
{
	(void)ctx;
	(void)kind;
	(void)named;
	return !t2f_perf_script__no_mapping(dso, len);
}

static int read_profile(const char *path, struct t2f_diag *d, struct t2f_profile *p)
{
	struct t2f_input *in = NULL;
	struct t2f_perf_script *ps = NULL;
	const char *data;
	size_t len;
	int rc, err = t2f_input__open(path, d, &in) ?: t2f_perf_script__new(p, d, path, 0, &ps);

	t2f_profile__want_times(p); /* the duration, as trace2flame -f pprof */
	if (!err && keep_addrs)
		t2f_perf_script__unknown_addrs(ps, in_mapping, NULL);
	while (!err && (rc = t2f_input__next(in, &data, &len)) != 0)
		err = rc < 0 ? rc : t2f_perf_script__feed(ps, data, len);
	err = err ?: t2f_perf_script__finish(ps);
	t2f_perf_script__free(ps);
	t2f_input__free(in);
	return err;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* kind 0: pprof; 1: collapsed weights; 2: collapsed sample counts. */
static int write_file(const struct t2f_profile *p, const char *path, int kind, t2f_event_id ev,
		      const char *input, bool raw)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644), err;
	struct t2f_out *out = NULL;

	if (fd < 0)
		return -errno;
	err = t2f_out__new(fd, &out);
	if (!err && kind == 0) {
		struct t2f_pprof_opts o = { .event = ev, .input = input, .raw = raw };

		err = t2f_pprof__write(p, &o, out) ?: t2f_out__finish(out);
	} else if (!err) {
		struct t2f_collapsed_opts o = { .event = ev, .weight_samples = kind == 2 };

		err = t2f_collapsed__write(p, &o, out) ?: t2f_out__finish(out);
	}
	t2f_out__free(out);
	if (close(fd) < 0 && !err)
		err = -errno;
	return err;
}

static int folded_files(const struct t2f_profile *p, const char *prefix)
{
	char path[4096];
	int err = 0;

	for (t2f_event_id e = 1; !err && e <= t2f_profile__event_count(p); e++) {
		snprintf(path, sizeof(path), "%s.%u.weight.folded", prefix, e);
		err = write_file(p, path, 1, e, NULL, false);
		snprintf(path, sizeof(path), "%s.%u.samples.folded", prefix, e);
		err = err ?: write_file(p, path, 2, e, NULL, false);
	}
	return err;
}

static void print_totals(const struct t2f_profile *p)
{
	for (t2f_event_id e = 1; e <= t2f_profile__event_count(p); e++) {
		uint64_t s = 0, w = 0;

		for (size_t i = 0; i < t2f_profile__cell_count(p); i++) {
			const struct t2f_cell *c = t2f_profile__cell_at(p, i);

			if (c->event == e) {
				s += c->samples;
				w += c->weight;
			}
		}
		printf("event %u %s samples %" PRIu64 " weight %" PRIu64 "\n", e,
		       t2f_profile__str(p, t2f_profile__event_at(p, e)->name, NULL), s, w);
	}
}

static int bench(const struct t2f_profile *p, const char *out, const char *prefix, int runs,
		 double read_ms)
{
	char path[4096];
	double best_pp = 1e300, best_fo = 1e300;
	int err = 0;

	snprintf(path, sizeof(path), "%s.bench.folded", prefix ? prefix : out);
	for (int i = 0; !err && i < runs; i++) {
		double t0 = now_ms(), t1, t2;

		err = write_file(p, out, 0, 0, NULL, false);
		t1 = now_ms();
		err = err ?: write_file(p, path, 1, 0, NULL, false);
		t2 = now_ms();
		best_pp = t1 - t0 < best_pp ? t1 - t0 : best_pp;
		best_fo = t2 - t1 < best_fo ? t2 - t1 : best_fo;
	}
	if (!err)
		printf("read_ms %.1f cells %zu pprof_ms %.1f folded_ms %.1f ratio %.2f\n",
		       read_ms, t2f_profile__cell_count(p), best_pp, best_fo, best_pp / best_fo);
	return err;
}

int main(int argc, char **argv)
{
	struct t2f_diag *d = NULL;
	struct t2f_profile *p = NULL;
	bool raw = false;
	int runs = 0, opt, err;
	double t0;

	while ((opt = getopt(argc, argv, "art:")) != -1) {
		if (opt == 'a')
			keep_addrs = true;
		else if (opt == 'r')
			raw = true;
		else if (opt == 't')
			runs = atoi(optarg);
		else
			return 1;
	}
	if (argc - optind < 2 || argc - optind > 3) {
		fprintf(stderr, "usage: pprof_convert [-a] [-r] [-t N] IN OUT.pb.gz [FOLDED_PREFIX]\n");
		return 1;
	}
	t0 = now_ms();
	err = t2f_diag__new(stderr, &d) ?: t2f_profile__new(&p) ?: read_profile(argv[optind], d, p);
	if (!err && runs > 0)
		err = bench(p, argv[optind + 1], argv[optind + 2], runs, now_ms() - t0);
	else if (!err)
		err = write_file(p, argv[optind + 1], 0, 0, argv[optind], raw);
	if (!err && argc - optind == 3 && runs == 0)
		err = folded_files(p, argv[optind + 2]);
	if (!err)
		print_totals(p);
	else
		fprintf(stderr, "pprof_convert: %s: %s\n", argv[optind], t2f_strerror(err));
	t2f_profile__free(p);
	t2f_diag__free(d);
	return err ? 1 : 0;
}
