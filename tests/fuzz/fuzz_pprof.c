/* tests/fuzz/fuzz_pprof.c: the pprof reader (readers/pprof.h) on any bytes.
 *
 * The input is a Profile message as decoded (gzip is the input layer's: readers/input.h). It is
 * read twice, each time into a profile of its own with the sample log asked for: fed in one
 * piece, then in chunks of 1 to 1024 bytes (sizes from the data's hash); both readings must end
 * the same way and give the same profile and the same warnings. Options from the hash: an
 * event named ("cpu", "samples/count", "alloc_space"), a decode limit of 4 KiB (a quarter of
 * the inputs), strict mode. t2f_pprof__detect runs on every prefix up to 64 bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "readers/pprof.h"
#include "tests/fuzz/fuzz_support.h"

struct run {
	struct fz_diag diag;
	struct t2f_profile *p;
	struct t2f_pprof_reader *r;
	int err;
};

static const char *const events[] = { NULL, "cpu", "samples/count", "alloc_space" };

static int run_open(struct run *r, uint64_t h)
{
	struct t2f_pprof_read_opts o = {
		.event = events[h >> 8 & 3],
		.max_bytes = (h >> 10 & 3) == 3 ? 4096 : 0,
	};
	int err;

	*r = (struct run){ 0 };
	err = fz_diag_open(&r->diag) ?: t2f_profile__new(&r->p) ?:
	      t2f_profile__enable_log(r->p) ?:
	      t2f_pprof_reader__new(r->p, r->diag.d, "in.pb.gz", 0, &o, &r->r);
	if (err)
		return err;
	t2f_diag__set_strict(r->diag.d, (h & 6) == 6);
	return 0;
}

static void run_close(struct run *r)
{
	t2f_pprof_reader__free(r->r);
	t2f_profile__free(r->p);
	fz_diag_close(&r->diag);
}

static int feed(void *ctx, const uint8_t *piece, size_t len)
{
	return t2f_pprof_reader__feed(ctx, (const char *)piece, len);
}

/* Feeds data in chunks (whole: one), then finishes. */
static void run_feed(struct run *r, const uint8_t *data, size_t size, uint64_t h, bool whole)
{
	r->err = fz_feed_chunks(data, size, h, whole, feed, r->r);
	if (!r->err)
		r->err = t2f_pprof_reader__finish(r->r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t h = fz_hash(data, size);
	struct run whole, chunks;

	for (size_t n = 0; n <= size && n <= 64; n++)
		(void)t2f_pprof__detect((const char *)data, n);
	if (run_open(&whole, h) || run_open(&chunks, h))
		abort(); /* out of memory before reading anything */
	run_feed(&whole, data, size, h, true);
	run_feed(&chunks, data, size, h, false);
	FZ_CHECK(whole.err == chunks.err, "one piece gives %d, chunks give %d", whole.err,
		 chunks.err);
	FZ_CHECK(strcmp(fz_diag_text(&whole.diag), fz_diag_text(&chunks.diag)) == 0,
		 "warnings differ:\n%s---\n%s", whole.diag.text, chunks.diag.text);
	if (!whole.err)
		fz_check_same_profile(whole.p, chunks.p, "one piece vs chunks");
	run_close(&whole);
	run_close(&chunks);
	return 0;
}
