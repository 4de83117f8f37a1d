/* formats/idindex.c: records found by key (idindex.h). */
#include "formats/idindex.h"

#include <stdlib.h>
#include <string.h>

#include "formats/grow.h"

int t2f_idindex__init(struct t2f_idindex *x, size_t size, size_t hint)
{
	*x = (struct t2f_idindex){ .size = size };
	return t2f_hashmap__new(hint, &x->ix);
}

void t2f_idindex__release(struct t2f_idindex *x)
{
	free(x->items);
	t2f_hashmap__free(x->ix);
	*x = (struct t2f_idindex){ 0 };
}

int t2f_idindex__add(struct t2f_idindex *x, uint64_t hash, const void *item, uint32_t *id)
{
	int err = t2f_grow32(&x->items, &x->cap, x->n, x->size, 64);

	if (err)
		return err;
	memcpy((char *)x->items + (size_t)x->n * x->size, item, x->size);
	err = t2f_hashmap__insert(x->ix, hash, x->n + 1);
	if (err)
		return err;
	*id = ++x->n;
	return 0;
}
