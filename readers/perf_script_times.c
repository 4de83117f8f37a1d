/* readers/perf_script_times.c: the time span of call-chain samples whose times are wanted for
 * the span alone (perf_script_int.h, PS_TIMES_SPAN).
 *
 * perf script prints its samples in time order, so the span of a run of times that never go
 * down is its first time and its latest. A memo header's time is compared with the run's latest
 * as text instead of being converted: of equal length with the '.' at the same place, the
 * bytes' order is the numbers' order, and 8 to 16 bytes are two big-endian words (the first 8
 * bytes and the last 8, overlapping) compared as numbers. A time that goes down or reads
 * otherwise (another width, more than 10 digits of seconds) is converted, noted by its sample as
 * every time was, and starts a new run, the old run's latest noted then. A sample commits its
 * time to the run only once it is added, so a dropped sample's time counts no more than it did
 * converted. The conversion was 69 instructions a sample of 400 (h43.txt, a whole-machine text).
 */
#include "readers/perf_script_int.h"

#include <string.h>

#include "readers/perf_script_parse.h"

#define RUN_DOT_MAX 10 /* digits of seconds a run takes: below 2^64 ns */
#define RUN_MIN 8      /* a run's times are 8 to 16 bytes (perf prints 12 to 18) */
#define RUN_MAX 16

static uint64_t load_be8(const char *p)
{
	uint64_t w;

	memcpy(&w, p, 8);
	return __builtin_bswap64(w);
}

static void store_be8(char *p, uint64_t w)
{
	w = __builtin_bswap64(w);
	memcpy(p, &w, 8);
}

uint64_t ps_times__pend(struct ps_time_run *r, const char *line, const struct ps_header *h)
{
	const char *t = line + h->time_at;
	size_t len = h->tail_at - 1 - h->time_at, dot;
	bool same = len == r->len && t[r->dot] == '.'; /* the run's length and '.' */

	/* the '.' is there: the memo checked the time */
	dot = same ? r->dot : (size_t)((const char *)memchr(t, '.', len) - t);
	r->pend_len = 0;
	if (len < RUN_MIN || len > RUN_MAX || dot > RUN_DOT_MAX)
		return ps_time_ns(t, dot, len);
	r->pend_hi = load_be8(t);
	r->pend_lo = load_be8(t + len - 8);
	r->pend_len = (uint8_t)len;
	r->pend_dot = (uint8_t)dot;
	r->pend_in = same && (r->pend_hi > r->hi || (r->pend_hi == r->hi && r->pend_lo >= r->lo));
	return r->pend_in ? 0 : ps_time_ns(t, dot, len);
}

uint64_t ps_times__commit(struct ps_time_run *r)
{
	uint64_t ended = 0;

	if (!r->pend_len)
		return 0;
	if (!r->pend_in) {
		ended = ps_times__end(r);
		r->len = r->pend_len;
		r->dot = r->pend_dot;
	}
	r->hi = r->pend_hi;
	r->lo = r->pend_lo;
	r->pend_len = 0;
	return ended;
}

uint64_t ps_times__end(struct ps_time_run *r)
{
	char text[RUN_MAX];
	uint64_t ns = 0;

	if (r->len) {
		store_be8(text, r->hi);
		store_be8(text + r->len - 8, r->lo);
		ns = ps_time_ns(text, r->dot, r->len);
	}
	r->len = 0;
	return ns;
}
