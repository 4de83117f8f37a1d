/* formats/buf.c: doubling growth from 4 KiB. */
#include "formats/buf.h"
#include "formats/mem.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int t2f_buf__reserve(struct t2f_buf *b, size_t extra)
{
	size_t cap = b->cap ? b->cap : 4096;
	char *p;

	if (extra <= b->cap - b->len)
		return 0;
	if (extra > SIZE_MAX / 2 - b->len)
		return -ENOMEM;
	while (cap - b->len < extra)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p)
		return -ENOMEM;
	t2f_mem__huge(p);
	b->p = p;
	b->cap = cap;
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
