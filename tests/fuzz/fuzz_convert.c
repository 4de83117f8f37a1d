/* tests/fuzz/fuzz_convert.c: a whole conversion on any bytes, through the library's public
 * calls (include/trace2flame.h): the input as a session reads it (the reader picked from the
 * first bytes: perf.data, .nettrace, folded stacks or perf script text), the resolve stage, and
 * every writer into memory.
 *
 * Session options come from the data's hash: sample counts or weights, addresses kept, raw
 * names, strict mode (a quarter), one or two threads, re-symbolization of every frame (a
 * quarter; looked up under a debug directory that does not exist and without trusting files by
 * path, so nothing outside the input decides the output). Writer options too: root frame
 * naming, the _[k] _[j] marks, SVG colours, orientation, flame chart, and for a third of the
 * inputs a differential graph against a second session read from the same bytes.
 *
 * Checks besides the sanitizers: a write fails only with a negative code and a message; an
 * output written to memory is as long as the stats say; the session's messages are lines.
 */
#include <stdlib.h>
#include <string.h>

#include "include/trace2flame.h"
#include "tests/fuzz/fuzz_support.h"

static void drop(void *ctx, const char *line)
{
	FZ_CHECK(!strchr(line, '\n'), "a message line holds a newline");
	(void)ctx;
}

static struct t2f_session *session(const uint8_t *data, size_t size, uint64_t h)
{
	static const char *const no_dirs[] = { "/nonexistent/t2f-fuzz-debug", NULL };
	struct t2f_options o = {
		.size = sizeof(o),
		.weight_samples = h & 1,
		.addrs = h & 2,
		.raw_names = h & 4,
		.time_order = true,
		.strict = (h & 24) == 24,
		.jobs = 1 + ((h >> 5) & 1),
		.message = drop,
		.resymbolize = (h & 192) == 192,
		.symbol_dirs = no_dirs,
		.debug_dirs = no_dirs,
		.perf_map_dir = "/nonexistent/t2f-fuzz-maps",
		.offline = true, /* never a debuginfod server, whatever the environment */
	};
	struct t2f_session *s = NULL;

	if (t2f_session_new(&o, &s))
		abort();
	(void)t2f_session_add_bytes(s, data, size, "in");
	return s;
}

static void write_one(struct t2f_session *s, struct t2f_write_options *w)
{
	struct t2f_stats st = { .size = sizeof(st) };
	char *buf = NULL;
	size_t len = 0;
	int err = t2f_session_write_mem(s, w, &buf, &len);

	FZ_CHECK(err <= 0, "a write returned %d", err);
	FZ_CHECK(!err || *t2f_session_error(s), "a write failed (%d) without a message", err);
	FZ_CHECK(!err || (!buf && !len), "a failed write left %zu bytes", len);
	if (!err) {
		FZ_CHECK(t2f_session_stats(s, &st) == 0, "no stats");
		FZ_CHECK(st.out_bytes == len, "%zu bytes written, %llu counted", len,
			 (unsigned long long)st.out_bytes);
	}
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t h = fz_hash(data, size);
	struct t2f_session *s = session(data, size, h), *other = NULL;
	struct t2f_write_options w = {
		.size = sizeof(w), .pid = h & 256, .tid = h & 512, .kernel = h & 1024,
		.jit = h & 2048, .title = h & 4096 ? "t<&>" : NULL, .width = (h >> 13) % 3 * 700,
		.min_width = (h & (1u << 15)) ? -1 : 0, .colors = (enum t2f_colors)((h >> 16) % 5),
		.hash = h & (1u << 19), .reverse = h & (1u << 20), .icicle = h & (1u << 21),
	};

	(void)t2f_session_resolve(s);
	for (enum t2f_format f = T2F_FORMAT_COLLAPSED; f <= T2F_FORMAT_FIREFOX; f++) {
		w.format = f;
		write_one(s, &w);
	}
	if ((h >> 22) % 3 == 1) {
		w.flamechart = true;
		write_one(s, &w);
	} else if ((h >> 22) % 3 == 2) {
		other = session(data, size, h);
		(void)t2f_session_resolve(other);
		w.diff = other;
		w.diff_is_after = h & (1ull << 24);
		write_one(s, &w);
	}
	t2f_session_free(other);
	t2f_session_free(s);
	return 0;
}
