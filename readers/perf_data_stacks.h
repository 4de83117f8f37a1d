/* readers/perf_data_stacks.h: the last step of a sample's conversion, its stack into the
 * profile's trie and its weight into a cell (t2f_profile__child, t2f_profile__add_sample),
 * optionally on a thread of its own while the conversion goes on with the next records.
 *
 * The conversion hands over each sample (its thread, event, weight, time and frames, all
 * already in the profile) in order; they are added in that order, so the profile is the same
 * with or without the thread. While the thread runs, the conversion may call every profile
 * function that adds to it but those two (formats/profile.h allows that split); the profile's
 * nodes and cells are complete once t2f_pdc_stacks__finish returned.
 *
 * Ownership: borrows the profile. Memory: two batches of samples and their frames. Errors:
 * those of the two profile calls (-ENOMEM, -T2F_E_LIMIT), -ENOMEM, or pthread_create's
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

/* threaded: add on a thread of its own (started at the first batch). 0 or -ENOMEM. */
int t2f_pdc_stacks__new(struct t2f_profile *p, bool threaded, struct t2f_pdc_stacks **out);
/* Stops the thread (without waiting for __finish's work to be asked for). NULL is fine. */
void t2f_pdc_stacks__free(struct t2f_pdc_stacks *s);

/* Queues one sample: frames[0..n) leaf first. 0 or an error (see above). */
int t2f_pdc_stacks__add(struct t2f_pdc_stacks *s, t2f_thread_id thread, t2f_event_id event,
			uint64_t weight, uint64_t time, const t2f_frame_id *frames, size_t n);

/* Adds everything queued and waits until it is in the profile. 0 or the first error. */
int t2f_pdc_stacks__finish(struct t2f_pdc_stacks *s);

#endif
