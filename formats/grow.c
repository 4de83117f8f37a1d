/* formats/grow.c: room in a growable array (grow.h). */
#include "formats/grow.h"

#include <errno.h>
#include <stdlib.h>

#include "formats/diag.h"

int t2f_grow(void **v, size_t *cap, size_t n, size_t more, size_t size, size_t first, size_t max)
{
	size_t c = *cap ? *cap : (first ? first : 1);
	void *nv;

	if (n <= *cap && more <= *cap - n)
		return 0;
	if (size && max > SIZE_MAX / size)
		max = SIZE_MAX / size;
	if (n > max || more > max - n)
		return -T2F_ERR_LIMIT;
	while (c < n + more)
		c = c > max / 2 ? max : c * 2;
	if (c > max) /* a first capacity above the limit */
		c = max;
	nv = realloc(*v, c * size);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = c;
	return 0;
}

int t2f_grow32(void **v, uint32_t *cap, uint32_t n, size_t size, uint32_t first)
{
	size_t c = *cap;
	int err = t2f_grow(v, &c, n, 1, size, first, UINT32_MAX / 2);

	if (!err)
		*cap = (uint32_t)c;
	return err;
}
