/* formats/clock.h: the monotonic clock in nanoseconds, for the times --stats reports and the
 * bounds that time a wait. Header-only; thread safe. */
#ifndef T2F_CLOCK_H
#define T2F_CLOCK_H

#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC now, in nanoseconds. */
static inline uint64_t t2f_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
