/* formats/time_hist.h: how many samples of each event, and how much weight, fell in each
 * T2F_TIME_HIST_NS-wide slice of time: what a heat map draws (writers/heatmap.h).
 *
 * Buckets are absolute: bucket b holds the times [b * T2F_TIME_HIST_NS, (b + 1) *
 * T2F_TIME_HIST_NS), so a second is 100 whole buckets. Only buckets with samples take memory
 * (a hash index over a dense array of them, 32 bytes each), so memory grows with the buckets
 * samples fall in (at most one per sample), never with the time span: a few samples years
 * apart take a few buckets. Samples without a time go to one bucket per event,
 * T2F_TIME_HIST_UNTIMED. Counts and weights saturate at UINT64_MAX (formats/sat.h).
 *
 * Kept by the profile only when a heat map is asked for (t2f_profile__enable_hist); formats/
 * sample_log.h, the samples in order, is another thing. Ownership: the histogram owns its
 * memory. Not thread safe.
 */
#ifndef T2F_TIME_HIST_H
#define T2F_TIME_HIST_H

#include <stddef.h>
#include <stdint.h>

#define T2F_TIME_HIST_NS UINT64_C(10000000) /* 10 ms */
#define T2F_TIME_HIST_UNTIMED UINT64_MAX /* the bucket of samples without a time */

struct t2f_time_bucket {
	uint64_t bucket;   /* time / T2F_TIME_HIST_NS, or T2F_TIME_HIST_UNTIMED */
	uint32_t event;    /* the profile's event id */
	uint32_t reserved;
	uint64_t samples;
	uint64_t weight;
};

struct t2f_time_hist;

int t2f_time_hist__new(struct t2f_time_hist **out); /* 0 or -ENOMEM */
void t2f_time_hist__free(struct t2f_time_hist *h); /* NULL is fine */

/* Adds samples (weighing weight in all) of event at time_ns: 0 (or UINT64_MAX, a time past
 * 2^64 ns) is no time. 0, -ENOMEM or -T2F_ERR_LIMIT (2^32 - 1 buckets). */
int t2f_time_hist__add(struct t2f_time_hist *h, uint32_t event, uint64_t time_ns,
		       uint64_t samples, uint64_t weight);

/* Adds src's buckets to dst's, src's event e counted as dst's event_map[e]. 0, -ENOMEM or
 * -T2F_ERR_LIMIT (dst then holds part of src). */
int t2f_time_hist__merge(struct t2f_time_hist *dst, const struct t2f_time_hist *src,
			 const uint32_t *event_map);

/* The buckets, in no particular order: count, and bucket idx (< count). */
size_t t2f_time_hist__count(const struct t2f_time_hist *h);
const struct t2f_time_bucket *t2f_time_hist__at(const struct t2f_time_hist *h, size_t idx);

size_t t2f_time_hist__bytes(const struct t2f_time_hist *h); /* memory held */

#endif
