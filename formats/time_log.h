/* formats/time_log.h: each logged sample's time and weight, per group (the profile's thread), in
 * the order the sample log keeps them (formats/sample_log.h), for writers that place every
 * sample at its time (the Firefox profile).
 *
 * A sample takes one record of LEB128 numbers: its time as the zigzag difference from the
 * group's sample before (3 to 4 bytes at a few ms between samples), two bits saying whether its
 * weight follows (it differs from the sample before's) or whether the time is written whole (a
 * difference past 2^62 ns). Time 0 is "unknown", kept as any time. A group is read from its
 * start, a sample at a time (struct t2f_time_cursor).
 *
 * Ownership: the log owns its memory. Not thread safe.
 */
#ifndef T2F_TIME_LOG_H
#define T2F_TIME_LOG_H

#include <stddef.h>
#include <stdint.h>

struct t2f_time_log;

int t2f_time_log__new(struct t2f_time_log **out); /* 0 or -ENOMEM */
void t2f_time_log__free(struct t2f_time_log *l);  /* NULL is fine */

/* Appends a sample at time_ns (0: unknown) weighing `weight` to group g. 0 or -ENOMEM. */
int t2f_time_log__add(struct t2f_time_log *l, uint32_t g, uint64_t time_ns, uint64_t weight);

/* Appends src's groups to dst's: src's group g after dst's group group_map[g] (one entry for
 * every group src has samples of). src is left empty. 0 or -ENOMEM (dst may then hold part of src: the
 * caller discards it, as a failed profile merge). */
int t2f_time_log__take(struct t2f_time_log *dst, struct t2f_time_log *src,
		       const uint32_t *group_map);

/* Reading group g from its first sample: t2f_time_log__next gives the next sample's time and
 * weight, or time 0 and weight 0 past the group's end. */
struct t2f_time_cursor {
	const uint8_t *p, *end;
	uint64_t time, weight;
};
void t2f_time_log__start(const struct t2f_time_log *l, uint32_t g, struct t2f_time_cursor *k);
void t2f_time_log__next(struct t2f_time_cursor *k, uint64_t *time_ns, uint64_t *weight);

size_t t2f_time_log__bytes(const struct t2f_time_log *l); /* memory held */

#endif
