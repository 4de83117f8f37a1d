/* formats/grow.h: room in a growable array.
 *
 * An array is a pointer, a count of elements in use and a capacity (elements allocated). Growing
 * doubles the capacity, from a first capacity when nothing is allocated, until what is asked
 * fits; the contents move with realloc. Stateless; thread safe as far as the array is the
 * caller's alone.
 */
#ifndef T2F_GROW_H
#define T2F_GROW_H

#include <stddef.h>
#include <stdint.h>

/* Room for `more` elements after the first `n` of *v (elements of `size` bytes, *cap allocated),
 * at most `max` elements. 0; -T2F_ERR_LIMIT when n + more would pass `max` (or SIZE_MAX bytes);
 * -ENOMEM when realloc fails. *v and *cap are unchanged on error. */
int t2f_grow(void **v, size_t *cap, size_t n, size_t more, size_t size, size_t first, size_t max);

/* Room for one more element after the first `n` of an array counted in uint32_t (at most
 * UINT32_MAX / 2 elements). As t2f_grow. */
int t2f_grow32(void **v, uint32_t *cap, uint32_t n, size_t size, uint32_t first);

#endif
