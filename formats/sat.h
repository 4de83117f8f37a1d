/* formats/sat.h: saturating arithmetic for weights and times. A weight or time that would pass
 * UINT64_MAX stays there: sums are never wrapped (a wrapped sum draws a child wider than its
 * parent and gives pprof negative values). Where saturation loses information the caller counts
 * it and says so. Header-only; thread safe. */
#ifndef T2F_SAT_H
#define T2F_SAT_H

#include <stdbool.h>
#include <stdint.h>

/* a + b, or UINT64_MAX when it would not fit. */
static inline uint64_t t2f_sat_add(uint64_t a, uint64_t b)
{
	uint64_t r;

	return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

/* a * b, or UINT64_MAX when it would not fit. */
static inline uint64_t t2f_sat_mul(uint64_t a, uint64_t b)
{
	uint64_t r;

	return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

/* *a += b, saturating; false when it saturated. */
static inline bool t2f_sat_add_to(uint64_t *a, uint64_t b)
{
	if (!__builtin_add_overflow(*a, b, a))
		return true;
	*a = UINT64_MAX;
	return false;
}

/* v as an int64 (pprof values): INT64_MAX when larger. */
static inline int64_t t2f_sat_i64(uint64_t v)
{
	return v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
}

#endif
