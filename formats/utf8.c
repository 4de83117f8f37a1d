/* formats/utf8.c: UTF-8 well-formedness and repair (utf8.h). */
#include "formats/utf8.h"

#include <errno.h>
#include <stdint.h>

size_t t2f_utf8_seq(const unsigned char *s, size_t n, size_t *bad)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t need, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		need = 1;
	else if (c >= 0xe0 && c <= 0xef)
		need = 2;
	else if (c >= 0xf0 && c <= 0xf4)
		need = 3;
	else
		need = 0;
	if (c == 0xe0)
		lo = 0xa0; /* overlong */
	else if (c == 0xed)
		hi = 0x9f; /* surrogates */
	else if (c == 0xf0)
		lo = 0x90; /* overlong */
	else if (c == 0xf4)
		hi = 0x8f; /* above U+10FFFF */
	for (i = 1; need && i <= need; i++) {
		if (i >= n || s[i] < lo || s[i] > hi)
			break;
		lo = 0x80;
		hi = 0xbf;
	}
	if (need && i > need)
		return i;
	*bad = i;
	return 0;
}

bool t2f_utf8_valid(const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, bad, n;

	while (i < len) {
		n = t2f_utf8_seq(s + i, len - i, &bad);
		if (!n)
			return false;
		i += n;
	}
	return true;
}

int t2f_utf8_repair(struct t2f_buf *b, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, bad, n;
	int err;

	b->len = 0;
	if (len > SIZE_MAX / 3)
		return -ENOMEM;
	err = t2f_buf__reserve(b, len * 3);  /* every byte may become U+FFFD */
	while (!err && i < len) {
		n = t2f_utf8_seq(s + i, len - i, &bad);
		if (n) {
			err = t2f_buf__put(b, str + i, n);
			i += n;
		} else {
			err = t2f_buf__put(b, "\xef\xbf\xbd", 3);
			i += bad;
		}
	}
	return err;
}
