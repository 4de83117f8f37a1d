/* formats/plural.h: the ending of a counted noun in messages, so that a count of one reads
 * "1 sample" and any other "2 samples", "0 samples":
 *     "%" PRIu64 " sample%s", n, t2f_plural(n)
 * Header-only; thread safe. */
#ifndef T2F_PLURAL_H
#define T2F_PLURAL_H

#include <stdint.h>

/* "" for 1, "s" for any other count. */
static inline const char *t2f_plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

#endif
