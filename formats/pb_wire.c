/* formats/pb_wire.c: varints written straight into reserved buffer space. */
#include "formats/pb_wire.h"

#include <errno.h>
#include <string.h>

#include "formats/diag.h"

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

/* ---- reading ---- */

int t2f_pb__get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	const uint8_t *q = *p;
	uint64_t x = 0;

	for (unsigned shift = 0; shift < 70; shift += 7) {
		if (q == end)
			return -T2F_ERR_TRUNCATED;
		if (shift == 63 && *q > 1) /* the tenth byte holds one bit */
			return -T2F_ERR_FORMAT;
		x |= (uint64_t)(*q & 0x7f) << shift;
		if (!(*q++ & 0x80)) {
			*p = q;
			*v = x;
			return 0;
		}
	}
	return -T2F_ERR_FORMAT;
}

int t2f_pb__get_field(const uint8_t **p, const uint8_t *end, struct t2f_pb_field *f)
{
	const uint8_t *q = *p;
	uint64_t key;
	int err = t2f_pb__get_varint(&q, end, &key);

	if (err)
		return err;
	if (key >> 3 == 0 || key >> 3 > 0x1fffffff)
		return -T2F_ERR_FORMAT;
	f->num = (uint32_t)(key >> 3);
	f->type = (enum t2f_pb_wire_type)(key & 7);
	f->data = NULL;
	f->len = 0;
	switch (key & 7) {
	case T2F_PB_VARINT:
		err = t2f_pb__get_varint(&q, end, &f->v);
		break;
	case T2F_PB_I64:
	case T2F_PB_I32: {
		size_t n = (key & 7) == T2F_PB_I64 ? 8 : 4;

		if ((size_t)(end - q) < n)
			return -T2F_ERR_TRUNCATED;
		f->v = 0;
		for (size_t i = 0; i < n; i++)
			f->v |= (uint64_t)q[i] << (8 * i);
		q += n;
		break;
	}
	case T2F_PB_LEN:
		err = t2f_pb__get_varint(&q, end, &f->v);
		if (!err && f->v > (uint64_t)(end - q))
			err = -T2F_ERR_TRUNCATED;
		if (!err) {
			f->data = q;
			f->len = (size_t)f->v;
			q += f->len;
		}
		break;
	default: /* groups (3, 4) and 6, 7 */
		return -T2F_ERR_FORMAT;
	}
	if (!err)
		*p = q;
	return err;
}
