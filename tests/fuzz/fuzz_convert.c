/* tests/fuzz/fuzz_convert.c: a whole conversion on any bytes: input → profile → every writer.
 *
 * The reader is picked from the first bytes as trace2flame picks it: perf.data
 * (t2f_perf_data__detect: opened in memory and converted by readers/perf_data_conv.h, every
 * unnamed frame keeping its address or, for half the inputs, only some, as re-symbolization
 * would pick them; re-symbolization itself is the CLI's and not run here; strict mode for a
 * quarter), else the reader of pipeline/reader_table.h: nettrace, folded stacks or perf script
 * text.
 * The profile keeps its sample log and times (speedscope, flame charts, pprof's duration).
 * Whatever was read, also after a reader's error, goes through the collapsed, speedscope, pprof
 * and SVG writers into a sink over /dev/null. Writer options come from the data's hash: event,
 * sample counts or weights, root frame naming, frame name styles, writer threads (1 or 2), pprof
 * compression, SVG colours, orientation, flame chart, and a differential graph against the
 * profile itself.
 */
#include <ctype.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipeline/reader_table.h"
#include "readers/perf_data.h"
#include "readers/perf_data_conv.h"
#include "tests/fuzz/fuzz_support.h"
#include "writers/collapsed.h"
#include "writers/pprof.h"
#include "writers/speedscope.h"
#include "writers/svg.h"

/* A choice of the frames that keep their address, as re-symbolization makes one by kind and
 * module name: here by the parity of the kind plus the name's bytes (each read, so a name
 * handed out past its bytes is caught under ASan). */
static bool some_addrs(void *ctx, enum t2f_frame_kind kind, const char *dso, size_t len)
{
	unsigned sum = (unsigned)kind;

	(void)ctx;
	for (size_t i = 0; i < len; i++)
		sum += (unsigned char)dso[i];
	return sum & 1;
}

/* perf.data as trace2flame converts it (tools/main.c t2f_read_perf_data), from memory. */
static int read_perf_data(struct t2f_profile *p, struct t2f_diag *d, const uint8_t *data,
			  size_t size, uint64_t h)
{
	struct t2f_perf_data_conv_opts o = { .addr_wanted = h & 1 ? some_addrs : NULL };
	struct t2f_perf_data *pd = NULL;
	struct t2f_perf_data_conv *pc = NULL;
	char hex[41];
	int err;

	t2f_diag__set_strict(d, (h & 6) == 6); /* --strict */
	err = t2f_perf_data__open_mem("in", data, size, d, &pd);
	if (!err && t2f_perf_data_conv__kernel_build_id(pd, hex)) {
		size_t n = strnlen(hex, sizeof(hex));

		FZ_CHECK(n >= 2 && n <= 40 && n % 2 == 0, "a kernel build-id of %zu digits", n);
		for (size_t i = 0; i < n; i++)
			FZ_CHECK(isxdigit((unsigned char)hex[i]) && !isupper((unsigned char)hex[i]),
				 "kernel build-id \"%s\" is not lowercase hex", hex);
	}
	err = err ?: t2f_perf_data_conv__new(pd, p, d, &o, &pc) ?: t2f_perf_data_conv__run(pc);
	if (pc) {
		const struct t2f_perf_data_conv_stats *st = t2f_perf_data_conv__stats(pc);

		FZ_CHECK(st->samples <= st->records, "%llu samples of %llu records",
			 (unsigned long long)st->samples, (unsigned long long)st->records);
	}
	t2f_perf_data_conv__free(pc);
	t2f_perf_data__free(pd);
	return err;
}

/* The input into p with the reader trace2flame picks: perf.data, else the streaming reader
 * pipeline/reader_table.h tells from the first bytes (fed all at once). 0 or the reader's
 * error. */
static int read_input(struct t2f_profile *p, struct t2f_diag *d, const uint8_t *data,
		      size_t size, uint64_t h)
{
	const struct t2f_read_opts o = { .weight_samples = h & 1, .keep_addrs = h & 1 };
	const struct t2f_reader_desc *rd;
	void *r = NULL;
	int err;

	if (t2f_perf_data__detect(data, size))
		return read_perf_data(p, d, data, size, h);
	rd = t2f_reader__detect((const char *)data, size);
	err = rd->open(p, d, "in", 0, &o, &r) ?: rd->feed(r, (const char *)data, size) ?:
	      rd->finish(r);
	if (r && (rd->traits & T2F_READER_LINES))
		FZ_CHECK(rd->lines(r) <= size + 1, "%llu lines in %zu bytes",
			 (unsigned long long)rd->lines(r), size);
	rd->free(r);
	return err;
}

static struct t2f_frame_name_opts name_opts(uint64_t h)
{
	return (struct t2f_frame_name_opts){
		.raw_names = h & 1, .kernel = h & 2, .jit = h & 4, .inlined = h & 8, .addrs = h & 16,
	};
}

typedef int (*write_fn)(const struct t2f_profile *p, uint64_t h, t2f_event_id ev,
			struct t2f_out *out);

/* One writer into the sink, then flushed (the writers share one sink: its 1 MiB buffer is
 * costly to allocate under ASan). */
static void write_one(write_fn w, const struct t2f_profile *p, uint64_t h, t2f_event_id ev,
		      struct t2f_out *out)
{
	int err = w(p, h, ev, out);

	FZ_CHECK(err <= 0, "a writer returned %d", err);
	(void)t2f_out__finish(out);
}

static int write_collapsed(const struct t2f_profile *p, uint64_t h, t2f_event_id ev,
			   struct t2f_out *out)
{
	struct t2f_collapsed_opts o = {
		.event = ev, .weight_samples = h & 1, .pid = h & 2, .tid = h & 4,
		.names = name_opts(h >> 3), .threads = 1 + ((h >> 8) & 1),
	};

	return t2f_collapsed__write(p, &o, out);
}

static int write_speedscope(const struct t2f_profile *p, uint64_t h, t2f_event_id ev,
			    struct t2f_out *out)
{
	struct t2f_speedscope_opts o = {
		.event = ev, .weight_samples = h & 1, .name = h & 2 ? "in" : NULL,
		.threads = 1 + ((h >> 2) & 1),
	};

	return t2f_speedscope__write(p, &o, out);
}

static int write_pprof(const struct t2f_profile *p, uint64_t h, t2f_event_id ev,
		       struct t2f_out *out)
{
	struct t2f_pprof_opts o = {
		.event = ev, .input = h & 1 ? "in" : NULL, .time_nanos = (int64_t)(h & 2),
		.raw = h & 4, .names = name_opts(h >> 3),
	};

	return t2f_pprof__write(p, &o, out);
}

static int write_svg(const struct t2f_profile *p, uint64_t h, t2f_event_id ev,
		     struct t2f_out *out)
{
	struct t2f_svg_opts o = {
		.event = ev, .weight_samples = h & 1, .title = h & 2 ? "t<&>" : NULL,
		.subtitle = h & 4 ? "s\"" : NULL, .width = (unsigned)(h >> 3) % 3 * 700,
		.min_width = (h & 32) ? 0 : -1, .colors = (enum t2f_svg_colors)((h >> 6) % 5),
		.hash = h & 512, .reverse = h & 1024, .icicle = h & 2048,
		.names = name_opts(h >> 12),
	};

	if ((h >> 17) % 3 == 1) {
		o.flamechart = true;
	} else if ((h >> 17) % 3 == 2) {
		o.diff = p;
		o.diff_event = ev;
		o.diff_is_after = h & (1u << 19);
	}
	return t2f_svg__write(p, &o, out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t h = fz_hash(data, size);
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	struct t2f_profile *p = NULL;
	struct t2f_diag *d = NULL;
	struct t2f_out *out = NULL;
	uint32_t events;
	t2f_event_id ev;

	if (fd < 0 || t2f_out__new(fd, &out) || t2f_profile__new(&p) || t2f_diag__new(NULL, &d) ||
	    t2f_profile__enable_log(p))
		abort();
	t2f_profile__want_times(p);
	(void)read_input(p, d, data, size, h);
	events = t2f_profile__event_count(p);
	ev = (t2f_event_id)((h >> 4) % (events + 1)); /* 0: the first */
	write_one(write_collapsed, p, h >> 8, ev, out);
	write_one(write_speedscope, p, h >> 20, ev, out);
	write_one(write_pprof, p, h >> 24, ev, out);
	write_one(write_svg, p, h >> 32, ev, out);
	t2f_out__free(out);
	close(fd);
	t2f_profile__free(p);
	t2f_diag__free(d);
	return 0;
}
