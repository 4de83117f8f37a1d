/* formats/pb_wire.h: protocol buffers wire encoding into a t2f_buf.
 *
 * Keys are varints (field << 3 | wire type). int64/uint64/bool fields are plain varints (a
 * negative int64 takes 10 bytes, two's complement); sint64 is zigzag. Strings, bytes, nested
 * messages and packed repeated scalars are length-delimited (wire type 2).
 *
 * Nested messages are written in one pass: t2f_pb__open() writes the key and a one-byte length
 * placeholder, t2f_pb__close() fills in the length, moving the body up when the length needs
 * more than one byte (rare for small messages). Opens nest (close the innermost first).
 *
 * Every put appends to the buffer and returns 0 or -ENOMEM (the buffer keeps what was complete
 * before the failing call only up to its own length: after an error, discard the buffer).
 * The size functions return encoded sizes without writing. Not thread safe (one buffer, one
 * writer).
 */
#ifndef T2F_PB_WIRE_H
#define T2F_PB_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/buf.h"
#include "formats/varint.h"

enum t2f_pb_wire_type {
	T2F_PB_VARINT = 0,
	T2F_PB_I64 = 1,
	T2F_PB_LEN = 2,
	T2F_PB_I32 = 5,
};

/* Bytes of v as a varint (1..10): 7 bits a byte, from its highest set bit. */
static inline size_t t2f_pb__varint_size(uint64_t v)
{
	return (size_t)(((63 - __builtin_clzll(v | 1)) * 9 + 73) >> 6);
}
/* Bytes of a key for `field`. */
size_t t2f_pb__key_size(uint32_t field);
/* Bytes of a whole length-delimited field whose payload is `len` bytes. */
size_t t2f_pb__len_field_size(uint32_t field, size_t len);
/* Payload bytes of a packed run of values (each as a varint). */
size_t t2f_pb__packed_u64_size(const uint64_t *v, size_t n);
size_t t2f_pb__packed_i64_size(const int64_t *v, size_t n);

static inline uint64_t t2f_pb__zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

int t2f_pb__put_varint(struct t2f_buf *b, uint64_t v);
int t2f_pb__put_key(struct t2f_buf *b, uint32_t field, enum t2f_pb_wire_type wt);

/* Scalar fields, always written (proto3 readers take an absent field as 0: skipping zeros is
 * the caller's choice). */
int t2f_pb__put_uint64(struct t2f_buf *b, uint32_t field, uint64_t v);
int t2f_pb__put_int64(struct t2f_buf *b, uint32_t field, int64_t v);
int t2f_pb__put_sint64(struct t2f_buf *b, uint32_t field, int64_t v);
int t2f_pb__put_bool(struct t2f_buf *b, uint32_t field, bool v);
/* A string or bytes field: key, length, bytes. */
int t2f_pb__put_bytes(struct t2f_buf *b, uint32_t field, const void *p, size_t len);
/* Packed repeated uint64 / int64: one length-delimited field; nothing for n == 0. */
int t2f_pb__put_packed_u64(struct t2f_buf *b, uint32_t field, const uint64_t *v, size_t n);
int t2f_pb__put_packed_i64(struct t2f_buf *b, uint32_t field, const int64_t *v, size_t n);

/* Writing at a cursor, for loops that encode many small messages: the caller reserves room
 * (t2f_buf__reserve; a key or a varint takes at most 10 bytes), writes from w = b->p + b->len,
 * each call returning the cursor after what it wrote, then sets b->len = w - b->p. One
 * reservation and one length update a message, not one a field. */
static inline char *t2f_pb__at_varint(char *w, uint64_t v)
{
	return w + t2f_varint__put((uint8_t *)w, v);
}

static inline char *t2f_pb__at_key(char *w, uint32_t field, enum t2f_pb_wire_type wt)
{
	return t2f_pb__at_varint(w, (uint64_t)field << 3 | (uint64_t)wt);
}

/* A varint field (uint64, int64 as its two's complement, bool). */
static inline char *t2f_pb__at_uint64(char *w, uint32_t field, uint64_t v)
{
	return t2f_pb__at_varint(t2f_pb__at_key(w, field, T2F_PB_VARINT), v);
}

/* Opens a nested message (or any length-delimited field built in place) as `field`; *mark is
 * the handle for t2f_pb__close(). */
int t2f_pb__open(struct t2f_buf *b, uint32_t field, size_t *mark);
/* Closes the field opened at mark: its length is everything appended since. */
int t2f_pb__close(struct t2f_buf *b, size_t mark);

/* ---- reading ----
 *
 * A cursor over a message's bytes [p, end): each call takes one key, varint or field from p and
 * moves p past it, or returns an error and leaves p where the bad bytes start (the caller names
 * that offset). Errors: -T2F_ERR_TRUNCATED (the bytes end inside it), -T2F_ERR_FORMAT (a varint
 * longer than 10 bytes or past 64 bits, field number 0, a group or an unknown wire type). */
struct t2f_pb_field {
	uint32_t num;                  /* field number (1 .. 2^29 - 1) */
	enum t2f_pb_wire_type type;
	uint64_t v;                    /* T2F_PB_VARINT, T2F_PB_I64, T2F_PB_I32: the value */
	const uint8_t *data;           /* T2F_PB_LEN: the payload [data, data + len) */
	size_t len;
};
int t2f_pb__get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v);
int t2f_pb__get_field(const uint8_t **p, const uint8_t *end, struct t2f_pb_field *f);

#endif
