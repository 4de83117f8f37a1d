/* formats/decimal.h: integers in decimal, written into the caller's bytes (no NUL): what every
 * writer's numbers go through. The digits are counted first and then stored straight to their
 * place, two at a time (digits made into a scratch array and copied out read back bytes just
 * stored one by one, which stalls). Header-only; thread safe. */
#ifndef T2F_DECIMAL_H
#define T2F_DECIMAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define T2F_DEC_MAX 20 /* the longest: UINT64_MAX's digits, INT64_MIN's sign and digits */

/* How many digits v has in decimal (1 for 0). */
static inline size_t t2f_dec_len(uint64_t v)
{
	static const uint64_t pow10[20] = {
		1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
		100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
		10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
		100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull
	};
	size_t t = (size_t)(64 - __builtin_clzll(v | 1)) * 1233 >> 12; /* log10(v), or one less */
	size_t n = t + (v >= pow10[t]); /* the digits (0 for v = 0) */

	return n + !n;
}

/* v in decimal at p, which has room for its digits (T2F_DEC_MAX at most; nothing past them is
 * written): their count. */
static inline size_t t2f_dec_u64(char *p, uint64_t v)
{
	static const char pairs[] = "00010203040506070809101112131415161718192021222324"
				    "25262728293031323334353637383940414243444546474849"
				    "50515253545556575859606162636465666768697071727374"
				    "75767778798081828384858687888990919293949596979899";
	size_t n = t2f_dec_len(v);
	char *end = p + n;

	for (; v >= 100; v /= 100) {
		end -= 2;
		memcpy(end, pairs + v % 100 * 2, 2);
	}
	if (v >= 10)
		memcpy(end - 2, pairs + v * 2, 2);
	else
		end[-1] = (char)('0' + v);
	return n;
}

/* v in decimal at p, '-' first when negative (room as for t2f_dec_u64): its length. */
static inline size_t t2f_dec_i64(char *p, int64_t v)
{
	if (v >= 0)
		return t2f_dec_u64(p, (uint64_t)v);
	p[0] = '-';
	return 1 + t2f_dec_u64(p + 1, 0 - (uint64_t)v);
}

#endif
