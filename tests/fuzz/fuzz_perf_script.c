/* tests/fuzz/fuzz_perf_script.c: the perf script reader (readers/perf_script.h) on any bytes.
 *
 * The input is perf script text. It is read twice, each time into a profile of its own with the
 * sample log and sample times asked for: fed in one piece, then fed in two pieces split at a line
 * boundary taken from the data (the reader's contract: whole lines per feed). Both readings must
 * end the same way and give the same profile and the same warnings. Options from the data's
 * hash: keep every address (re-symbolization), or keep none for frames of no module; headers
 * without times (t2f_perf_script__timeless). The probe of the first lines
 * (t2f_perf_script__probe) reads the data too.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "readers/perf_script.h"
#include "tests/fuzz/fuzz_support.h"

struct run {
	struct fz_diag diag;
	struct t2f_profile *p;
	struct t2f_perf_script *ps;
	int err;
};

/* The filter of t2f_perf_script__unknown_addrs: addresses only for frames of a module, named
 * ones of file paths too. */
static bool wants_addr(void *ctx, enum t2f_frame_kind kind, const char *dso, size_t dso_len,
		       bool named)
{
	(void)ctx;
	(void)kind;
	if (named)
		return dso_len > 0 && dso[0] == '/';
	return dso_len > 0 && !(dso_len == 9 && memcmp(dso, "[unknown]", 9) == 0);
}

static int run_open(struct run *r, uint64_t h)
{
	int err;

	*r = (struct run){ 0 };
	err = fz_diag_open(&r->diag) ?: t2f_profile__new(&r->p) ?:
	      t2f_profile__enable_log(r->p) ?:
	      t2f_perf_script__new(r->p, r->diag.d, "in.perf", 0, &r->ps);
	if (err)
		return err;
	t2f_profile__want_times(r->p);
	t2f_perf_script__keep_addrs(r->ps, h & 1);
	if (h & 2)
		t2f_perf_script__unknown_addrs(r->ps, wants_addr, NULL);
	t2f_perf_script__timeless(r->ps, h & 4);
	return 0;
}

static void run_close(struct run *r)
{
	t2f_perf_script__free(r->ps);
	t2f_profile__free(r->p);
	fz_diag_close(&r->diag);
}

/* Feeds data[0..split), then data[split..size) (split == size: one piece), then finishes. */
static void run_feed(struct run *r, const uint8_t *data, size_t size, size_t split)
{
	const char *text = (const char *)data;

	r->err = t2f_perf_script__feed(r->ps, text, split);
	if (!r->err && split < size)
		r->err = t2f_perf_script__feed(r->ps, text + split, size - split);
	if (!r->err)
		r->err = t2f_perf_script__finish(r->ps);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t h = fz_hash(data, size);
	size_t split = fz_line_split(data, size, size ? (size_t)(h >> 8) % size : 0);
	struct run whole, parts;

	if (run_open(&whole, h) || run_open(&parts, h))
		abort(); /* out of memory before reading anything */
	FZ_CHECK(t2f_perf_script__probe((const char *)data, size, h & 8) <= T2F_PS_NOT_PERF_SCRIPT,
		 "the probe's answer is no enum t2f_ps_probe");
	run_feed(&whole, data, size, size);
	run_feed(&parts, data, size, split);
	FZ_CHECK(whole.err == parts.err, "one piece gives %d, split at %zu gives %d", whole.err,
		 split, parts.err);
	FZ_CHECK(t2f_perf_script__lines(whole.ps) == t2f_perf_script__lines(parts.ps),
		 "lines differ (split at %zu)", split);
	FZ_CHECK(strcmp(fz_diag_text(&whole.diag), fz_diag_text(&parts.diag)) == 0,
		 "warnings differ (split at %zu):\n%s---\n%s", split, whole.diag.text,
		 parts.diag.text);
	if (!whole.err)
		fz_check_same_profile(whole.p, parts.p, "one piece vs split");
	run_close(&whole);
	run_close(&parts);
	return 0;
}
