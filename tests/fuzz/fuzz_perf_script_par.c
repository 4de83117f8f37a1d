/* tests/fuzz/fuzz_perf_script_par.c: the parallel perf script reader
 * (readers/perf_script_par.h) against the one-thread reader, on any bytes.
 *
 * The input is the file's bytes: perf script text, or gzip / zstd of it (readers/input.h tells
 * them by their magic). It is put in an in-memory file (memfd, mapped by the input like a plain
 * file) and read twice, each time through readers/input into a profile of its own: chunk by
 * chunk by one t2f_perf_script, then by t2f_perf_script__read_parallel with 2 worker threads and
 * tiny segments (1 to 256 bytes, from the data's hash, so the input is cut at many record
 * starts). The header promises the same result: the same status, profile, warnings (with their
 * line numbers and the error message) and line count (when there was no error).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "readers/input.h"
#include "readers/perf_script.h"
#include "readers/perf_script_par.h"
#include "tests/fuzz/fuzz_support.h"

struct run {
	struct fz_diag diag;
	struct t2f_profile *p;
	struct t2f_input *in;
	uint64_t lines;
	int err;
};

static int run_open(struct run *r, const char *path)
{
	int err;

	*r = (struct run){ 0 };
	err = fz_diag_open(&r->diag) ?: t2f_profile__new(&r->p) ?:
	      t2f_profile__enable_log(r->p);
	if (err)
		return err;
	t2f_profile__want_times(r->p);
	return t2f_input__open(path, r->diag.d, &r->in);
}

static void run_close(struct run *r)
{
	t2f_input__free(r->in);
	t2f_profile__free(r->p);
	fz_diag_close(&r->diag);
}

/* The one-thread reader, chunk by chunk (as trace2flame -j 1 reads a plain file). */
static int read_one(struct run *r, bool keep_addrs, bool timeless)
{
	struct t2f_perf_script *ps = NULL;
	const char *data;
	size_t len;
	int err = t2f_perf_script__new(r->p, r->diag.d, "in.perf", 0, &ps);

	if (!err) {
		t2f_perf_script__keep_addrs(ps, keep_addrs);
		t2f_perf_script__timeless(ps, timeless);
	}
	while (!err && (err = t2f_input__next(r->in, &data, &len)) > 0)
		err = t2f_perf_script__feed(ps, data, len);
	if (!err)
		err = t2f_perf_script__finish(ps);
	r->lines = ps ? t2f_perf_script__lines(ps) : 0;
	t2f_perf_script__free(ps);
	return err;
}

static int read_par(struct run *r, bool keep_addrs, bool timeless, size_t segment)
{
	struct t2f_ps_par_opts o = { .threads = 2, .segment_bytes = segment,
				     .keep_addrs = keep_addrs, .timeless = timeless };
	struct t2f_ps_par_result res;
	const char *data = NULL;
	size_t len = 0;
	int err = t2f_input__next(r->in, &data, &len);

	if (err < 0)
		return err;
	err = t2f_perf_script__read_parallel(r->in, data, err ? len : 0, r->p, r->diag.d,
					     "in.perf", 0, &o, &res);
	r->lines = res.lines;
	return err;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t h = fz_hash(data, size);
	bool keep_addrs = h & 1, timeless = h & 2;
	size_t segment = 1 + (size_t)(h >> 8) % 256;
	struct run one, par;
	char path[64];
	int fd = fz_memfd(data, size, path, sizeof(path));

	if (fd < 0)
		abort();
	/* the input is opened on both sides before reading; an open error is the same for both */
	one.err = run_open(&one, path);
	par.err = run_open(&par, path);
	FZ_CHECK(one.err == par.err, "open: %d vs %d", one.err, par.err);
	if (!one.err) {
		one.err = read_one(&one, keep_addrs, timeless);
		par.err = read_par(&par, keep_addrs, timeless, segment);
		FZ_CHECK(one.err == par.err, "one thread gives %d, segments of %zu give %d",
			 one.err, segment, par.err);
		/* (after an error the count is where each stopped: not compared) */
		FZ_CHECK(one.err || one.lines == par.lines, "lines %llu vs %llu (segments of %zu)",
			 (unsigned long long)one.lines, (unsigned long long)par.lines, segment);
		FZ_CHECK(strcmp(fz_diag_text(&one.diag), fz_diag_text(&par.diag)) == 0,
			 "warnings differ (segments of %zu):\n%s---\n%s", segment, one.diag.text,
			 par.diag.text);
		if (!one.err)
			fz_check_same_profile(one.p, par.p, "one thread vs parallel");
	}
	run_close(&one);
	run_close(&par);
	close(fd);
	return 0;
}
