/* formats/utf8.c: UTF-8 well-formedness and repair (utf8.h). */
#include "formats/utf8.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "include/trace2flame.h" /* t2f_visible is exported by the library */

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

/* Whether the well-formed sequence s[0..n) is a control character. */
static bool is_control(const unsigned char *s, size_t n)
{
	if (n == 1)
		return s[0] < 0x20 || s[0] == 0x7f;
	return n == 2 && s[0] == 0xc2 && s[1] < 0xa0;
}

size_t t2f_utf8_squash_controls(char *s, size_t len, char with)
{
	size_t o = 0;

	for (size_t k = 0; k < len; k++) {
		unsigned char c = (unsigned char)s[k];

		if (c < 0x20 || c == 0x7f) {
			c = (unsigned char)with;
		} else if (c == 0xc2 && k + 1 < len && (unsigned char)s[k + 1] < 0xa0 &&
			   (unsigned char)s[k + 1] >= 0x80) {
			c = (unsigned char)with;
			k++;
		}
		s[o++] = (char)c;
	}
	return o;
}

bool t2f_utf8_clean(const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, bad, n;

	while (i < len) {
		if (s[i] >= 0x20 && s[i] < 0x7f) { /* the common case */
			i++;
			continue;
		}
		n = t2f_utf8_seq(s + i, len - i, &bad);
		if (!n || is_control(s + i, n))
			return false;
		i += n;
	}
	return true;
}

int t2f_utf8_sanitize(struct t2f_buf *b, const char *str, size_t len, const char *ctl)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, bad, n, ctl_len = strlen(ctl);
	int err;

	b->len = 0;
	if (ctl_len > 3)
		return -EINVAL;
	if (len > SIZE_MAX / 3)
		return -ENOMEM;
	err = t2f_buf__reserve(b, len * 3);  /* every byte may become U+FFFD */
	while (!err && i < len) {
		n = t2f_utf8_seq(s + i, len - i, &bad);
		if (n && is_control(s + i, n))
			err = t2f_buf__put(b, ctl, ctl_len);
		else if (n)
			err = t2f_buf__put(b, str + i, n);
		else
			err = t2f_buf__put(b, "\xef\xbf\xbd", 3);
		i += n ? n : bad;
	}
	return err;
}

const char *t2f_utf8_visible(const char *str, char *out, size_t size)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t len = strlen(str), i = 0, o = 0, bad, n;

	if (t2f_utf8_clean(str, len))
		return str;
	while (i < len) {
		bool show;

		n = t2f_utf8_seq(s + i, len - i, &bad);
		show = !n || is_control(s + i, n);
		if (!n)
			n = bad;
		if (o + (show ? 4 * n : n) + 4 > size) { /* room for "..." and the NUL */
			memcpy(out + o, "...", 3);
			o += 3;
			break;
		}
		for (size_t k = 0; k < n; k++)
			if (show)
				o += (size_t)snprintf(out + o, 5, "\\x%02x", s[i + k]);
			else
				out[o++] = (char)s[i + k];
		i += n;
	}
	out[o] = '\0';
	return out;
}

const char *t2f_visible(const char *s, char *out, size_t size)
{
	if (!s)
		return "";
	if (!out || size < 8)
		return t2f_utf8_clean(s, strlen(s)) ? s : "";
	return t2f_utf8_visible(s, out, size);
}
