/* readers/perf_data_stacks.h: the last steps of a sample's conversion, its new frames into the
 * profile, its stack into the trie and its weight into a cell (t2f_profile__frame,
 * t2f_profile__child, t2f_profile__add_sample), optionally on a thread of its own while the
 * conversion goes on with the next records.
 *
 * The conversion hands over each new frame (getting a reference for it) and each sample (its
 * thread, event, weight, time and frame references) in order; they are added in that order, so
 * the profile is the same with or without the thread. While the thread runs, the conversion
 * may call every profile function that adds to it but those three (formats/profile.h allows
 * that split); the profile's frames, nodes and cells are complete once t2f_pdc_stacks__finish
 * returned.
 *
 * Ownership: borrows the profile. Memory: two batches of samples and their frames. Errors:
 * those of the three profile calls (-ENOMEM, -T2F_ERR_LIMIT), -ENOMEM, or pthread_create's
 * (negated); reported by the __add that hands over a batch after the failure, or by __finish.
 * Internal to readers/; one calling thread.
 */
#ifndef T2F_PERF_DATA_STACKS_H
#define T2F_PERF_DATA_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/profile.h"

struct t2f_pdc_stacks;

/* The key of frame address addr in class source src (perf_data_conv.h class_key): true when
 * it has one. Called on the adding thread. */
typedef bool (*t2f_pdc_class_fn)(void *src, uint64_t addr, uint64_t *key);

/* threaded: add on a thread of its own (started at the first batch). class_key (NULL: none):
 * a new frame queued with a class source is added to stacks as the first frame of its class
 * (the same source and key), the frame itself still added to the profile. 0 or -ENOMEM. */
int t2f_pdc_stacks__new(struct t2f_profile *p, bool threaded, t2f_pdc_class_fn class_key,
			struct t2f_pdc_stacks **out);
/* Stops the thread (without waiting for __finish's work to be asked for). NULL is fine. */
void t2f_pdc_stacks__free(struct t2f_pdc_stacks *s);

/* Queues frame f for t2f_profile__frame, with its class source (NULL: none; it must stay
 * valid until __finish); *ref (from 1, in order) names it in samples. 0, -ENOMEM or
 * -T2F_ERR_LIMIT (2^32 - 1 references). */
int t2f_pdc_stacks__frame(struct t2f_pdc_stacks *s, const struct t2f_frame *f, void *cls,
			  uint32_t *ref);
/* Frames added in another's place (their class's first): valid after __finish. */
uint64_t t2f_pdc_stacks__classed(const struct t2f_pdc_stacks *s);
/* After __finish: per frame id below *n, the frame stacks hold in its place (itself, or the
 * first of its class), malloc'd (the caller's); NULL when no frame was added as another. */
t2f_frame_id *t2f_pdc_stacks__take_as(struct t2f_pdc_stacks *s, size_t *n);
/* Queues one sample: frames[0..n) leaf first, references from __frame; event 0 (with a
 * derive stage): a sched_switch whose stack the switch-out queued before it needs, added to no
 * cell. 0 or an error (see above). */
int t2f_pdc_stacks__add(struct t2f_pdc_stacks *s, t2f_thread_id thread, t2f_event_id event,
			uint64_t weight, uint64_t time, const uint32_t *frames, size_t n);

/* With a derive stage on the profile (formats/derive.h; adding is then on the calling thread):
 * thread tid switches in at `time`, between the samples queued before and after; the next
 * sample queued is a sched_switch that takes tid (the profile's `thread`) off CPU in state
 * `state`. 0 or -ENOMEM. */
int t2f_pdc_stacks__switch_in(struct t2f_pdc_stacks *s, int64_t tid, uint64_t time);
int t2f_pdc_stacks__switch_out(struct t2f_pdc_stacks *s, int64_t tid, t2f_thread_id thread,
			       unsigned state);

/* Adds everything queued and waits until it is in the profile. 0 or the first error. */
int t2f_pdc_stacks__finish(struct t2f_pdc_stacks *s);

#endif
