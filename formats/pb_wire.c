/* formats/pb_wire.c: varints written straight into reserved buffer space. */
#include "formats/pb_wire.h"

#include <errno.h>
#include <string.h>

size_t t2f_pb__key_size(uint32_t field)
{
	return t2f_pb__varint_size((uint64_t)field << 3);
}

size_t t2f_pb__len_field_size(uint32_t field, size_t len)
{
	return t2f_pb__key_size(field) + t2f_pb__varint_size(len) + len;
}

size_t t2f_pb__packed_u64_size(const uint64_t *v, size_t n)
{
	size_t s = 0;

	for (size_t i = 0; i < n; i++)
		s += t2f_pb__varint_size(v[i]);
	return s;
}

size_t t2f_pb__packed_i64_size(const int64_t *v, size_t n)
{
	return t2f_pb__packed_u64_size((const uint64_t *)v, n);  /* two's complement, as encoded */
}

/* Writes v at p (room for 10 bytes); returns the bytes written. */
static size_t varint_at(char *p, uint64_t v)
{
	return (size_t)(t2f_pb__at_varint(p, v) - p);
}

int t2f_pb__put_varint(struct t2f_buf *b, uint64_t v)
{
	int err = t2f_buf__reserve(b, 10);

	if (err)
		return err;
	b->len += varint_at(b->p + b->len, v);
	return 0;
}

int t2f_pb__put_key(struct t2f_buf *b, uint32_t field, enum t2f_pb_wire_type wt)
{
	return t2f_pb__put_varint(b, (uint64_t)field << 3 | (uint64_t)wt);
}

/* Key and varint value in one reservation. */
static int put_key_varint(struct t2f_buf *b, uint32_t field, uint64_t v)
{
	int err = t2f_buf__reserve(b, 20);

	if (err)
		return err;
	b->len += varint_at(b->p + b->len, (uint64_t)field << 3 | T2F_PB_VARINT);
	b->len += varint_at(b->p + b->len, v);
	return 0;
}

int t2f_pb__put_uint64(struct t2f_buf *b, uint32_t field, uint64_t v)
{
	return put_key_varint(b, field, v);
}

int t2f_pb__put_int64(struct t2f_buf *b, uint32_t field, int64_t v)
{
	return put_key_varint(b, field, (uint64_t)v);
}

int t2f_pb__put_sint64(struct t2f_buf *b, uint32_t field, int64_t v)
{
	return put_key_varint(b, field, t2f_pb__zigzag(v));
}

int t2f_pb__put_bool(struct t2f_buf *b, uint32_t field, bool v)
{
	return put_key_varint(b, field, v ? 1 : 0);
}

int t2f_pb__put_bytes(struct t2f_buf *b, uint32_t field, const void *p, size_t len)
{
	int err = t2f_buf__reserve(b, 20);

	if (err)
		return err;
	b->len += varint_at(b->p + b->len, (uint64_t)field << 3 | T2F_PB_LEN);
	b->len += varint_at(b->p + b->len, len);
	return t2f_buf__put(b, p, len);
}

int t2f_pb__put_packed_u64(struct t2f_buf *b, uint32_t field, const uint64_t *v, size_t n)
{
	size_t len = t2f_pb__packed_u64_size(v, n);
	int err;

	if (n == 0)
		return 0;
	err = t2f_buf__reserve(b, 20 + len);
	if (err)
		return err;
	b->len += varint_at(b->p + b->len, (uint64_t)field << 3 | T2F_PB_LEN);
	b->len += varint_at(b->p + b->len, len);
	for (size_t i = 0; i < n; i++)
		b->len += varint_at(b->p + b->len, v[i]);
	return 0;
}

int t2f_pb__put_packed_i64(struct t2f_buf *b, uint32_t field, const int64_t *v, size_t n)
{
	/* int64 is encoded as its two's complement uint64 (10 bytes when negative) */
	return t2f_pb__put_packed_u64(b, field, (const uint64_t *)v, n);
}

/* mark = offset of the one-byte length placeholder (the body starts at mark + 1). */
int t2f_pb__open(struct t2f_buf *b, uint32_t field, size_t *mark)
{
	int err = t2f_buf__reserve(b, 11);

	if (err)
		return err;
	b->len += varint_at(b->p + b->len, (uint64_t)field << 3 | T2F_PB_LEN);
	*mark = b->len;
	b->p[b->len++] = 0;
	return 0;
}

int t2f_pb__close(struct t2f_buf *b, size_t mark)
{
	size_t body = b->len - mark - 1;
	size_t n = t2f_pb__varint_size(body);
	int err;

	if (n > 1) {
		err = t2f_buf__reserve(b, n - 1);
		if (err)
			return err;
		memmove(b->p + mark + n, b->p + mark + 1, body);
		b->len += n - 1;
	}
	varint_at(b->p + mark, body);
	return 0;
}
