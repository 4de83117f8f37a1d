/* tests/fuzz/fuzz_nettrace.c: the nettrace reader (readers/nettrace.h) on any bytes.
 *
 * The input is a .nettrace file (V4/V5 FastSerialization objects or V6 blocks; NetPerf and
 * anything else are refused). It is read twice, each time into a profile of its own with the
 * sample log and sample times asked for: fed in one piece, then in chunks of 1 to 1024 bytes
 * (sizes from the data's hash), so that blocks, rows and stacks span feeds at every offset. The
 * reader takes chunks of any size: both readings must end the same way and give the same
 * profile and the same warnings. Options from the hash: weights by interval or by sample count,
 * strict mode (a quarter of the inputs).
 */
#include <stdlib.h>
#include <string.h>

#include "readers/nettrace.h"
#include "tests/fuzz/fuzz_support.h"

struct run {
	struct fz_diag diag;
	struct t2f_profile *p;
	struct t2f_nettrace *nt;
	int err;
};

static int run_open(struct run *r, uint64_t h)
{
	struct t2f_nettrace_opts o = {
		.weight = h & 1 ? T2F_NETTRACE_WEIGHT_SAMPLES : T2F_NETTRACE_WEIGHT_INTERVAL,
	};
	int err;

	*r = (struct run){ 0 };
	err = fz_diag_open(&r->diag) ?: t2f_profile__new(&r->p) ?:
	      t2f_profile__enable_log(r->p) ?:
	      t2f_nettrace__new(r->p, r->diag.d, "in.nettrace", 0, &o, &r->nt);
	if (err)
		return err;
	t2f_profile__want_times(r->p);
	t2f_diag__set_strict(r->diag.d, (h & 6) == 6);
	return 0;
}

static void run_close(struct run *r)
{
	t2f_nettrace__free(r->nt);
	t2f_profile__free(r->p);
	fz_diag_close(&r->diag);
}

static int feed(void *ctx, const uint8_t *piece, size_t len)
{
	return t2f_nettrace__feed(ctx, piece, len);
}

/* Feeds data in chunks (whole: one), then finishes. */
static void run_feed(struct run *r, const uint8_t *data, size_t size, uint64_t h, bool whole)
{
	r->err = fz_feed_chunks(data, size, h, whole, feed, r->nt);
	if (!r->err)
		r->err = t2f_nettrace__finish(r->nt);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t h = fz_hash(data, size);
	struct run whole, chunks;

	if (run_open(&whole, h) || run_open(&chunks, h))
		abort(); /* out of memory before reading anything */
	run_feed(&whole, data, size, h, true);
	run_feed(&chunks, data, size, h | 1, false);
	FZ_CHECK(whole.err == chunks.err, "one piece gives %d, chunks give %d", whole.err,
		 chunks.err);
	FZ_CHECK(t2f_nettrace__samples(whole.nt) == t2f_nettrace__samples(chunks.nt),
		 "samples differ");
	FZ_CHECK(strcmp(fz_diag_text(&whole.diag), fz_diag_text(&chunks.diag)) == 0,
		 "warnings differ:\n%s---\n%s", whole.diag.text, chunks.diag.text);
	if (!whole.err)
		fz_check_same_profile(whole.p, chunks.p, "one piece vs chunks");
	run_close(&whole);
	run_close(&chunks);
	return 0;
}
