/* formats/buf.c: doubling growth from 4 KiB. */
#include "formats/buf.h"
#include "formats/grow.h"
#include "formats/mem.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int t2f_buf__reserve(struct t2f_buf *b, size_t extra)
{
	if (extra <= b->cap - b->len)
		return 0;
	if (t2f_grow((void **)&b->p, &b->cap, b->len, extra, 1, 4096, SIZE_MAX / 2))
		return -ENOMEM; /* also past SIZE_MAX / 2 */
	t2f_mem__huge(b->p);
	return 0;
}

int t2f_buf__put(struct t2f_buf *b, const void *s, size_t len)
{
	int err;

	if (len == 0)
		return 0;
	err = t2f_buf__reserve(b, len);
	if (err)
		return err;
	memcpy(b->p + b->len, s, len);
	b->len += len;
	return 0;
}

int t2f_buf__put_self(struct t2f_buf *b, size_t off, size_t len)
{
	int err = t2f_buf__reserve(b, len);

	if (err)
		return err;
	memcpy(b->p + b->len, b->p + off, len);
	b->len += len;
	return 0;
}

void t2f_buf__free(struct t2f_buf *b)
{
	free(b->p);
	*b = (struct t2f_buf){ 0 };
}

int t2f_buf__puts(struct t2f_buf *b, const char *s)
{
	return t2f_buf__put(b, s, strlen(s));
}
