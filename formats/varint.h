/* formats/varint.h: unsigned LEB128 varints (7 bits a byte, lowest first, the high bit set on
 * every byte but the last), as protobuf writes them: pprof's wire format (formats/pb_wire.h)
 * and the sample and time logs' packed records (formats/sample_log.c, time_log.c).
 * Header-only; no state. */
#ifndef T2F_VARINT_H
#define T2F_VARINT_H

#include <stddef.h>
#include <stdint.h>

/* Writes v at p (room for 10 bytes: the caller's); the bytes written (1..10). */
static inline size_t t2f_varint__put(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	for (; v >= 0x80; v >>= 7)
		p[n++] = (uint8_t)(v | 0x80);
	p[n++] = (uint8_t)v;
	return n;
}

#endif
