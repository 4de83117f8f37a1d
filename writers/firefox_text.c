/* writers/firefox_text.c: the Firefox writer's text helpers (firefox_write.h). */
#include "writers/firefox_write.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "formats/utf8.h"
#include "writers/pprof_int.h"

void ff_put(struct ff *s, const char *p, size_t n)
{
	if (!s->err && t2f_buf__put(&s->b, p, n))
		s->err = -ENOMEM;
	if (!s->err && s->b.len >= FF_DRAIN_AT)
		s->err = t2f_pprof_gz__drain(s->gz, &s->b);
}

void ff_puts(struct ff *s, const char *p)
{
	ff_put(s, p, strlen(p));
}

void ff_u64(struct ff *s, uint64_t v)
{
	char num[24];

	ff_put(s, num, (size_t)snprintf(num, sizeof(num), "%" PRIu64, v));
}

void ff_i64(struct ff *s, int64_t v)
{
	char num[24];

	ff_put(s, num, (size_t)snprintf(num, sizeof(num), "%" PRId64, v));
}

size_t ff_ms_text(char *out, size_t size, uint64_t ns)
{
	uint64_t frac = ns % FF_NS_PER_MS;
	int n = snprintf(out, size, "%" PRIu64, ns / FF_NS_PER_MS);

	if (frac) {
		n += snprintf(out + n, size - (size_t)n, ".%06" PRIu64, frac);
		while (out[n - 1] == '0')
			out[--n] = '\0';
	}
	return (size_t)n;
}

void ff_ms(struct ff *s, uint64_t ns)
{
	char num[48];

	ff_put(s, num, ff_ms_text(num, sizeof(num), ns));
}

void ff_str(struct ff *s, const char *str, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t from = 0;

	if (!t2f_utf8_clean(str, len)) {
		if (t2f_utf8_sanitize(&s->utf8, str, len, " ")) {
			s->err = s->err ?: -ENOMEM;
			return;
		}
		str = s->utf8.p;
		len = s->utf8.len;
	}
	ff_put(s, "\"", 1);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)str[i];
		char esc[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };

		if (c >= 0x20 && c != '"' && c != '\\' && c != 0x7f)
			continue;
		ff_put(s, str + from, i - from);
		if (c == '"' || c == '\\') {
			esc[1] = (char)c;
			ff_put(s, esc, 2);
		} else {
			ff_put(s, esc, 6);
		}
		from = i + 1;
	}
	ff_put(s, str + from, len - from);
	ff_put(s, "\"", 1);
}

void ff_cstr(struct ff *s, const char *str)
{
	ff_str(s, str, strlen(str));
}

void ff_pstr(struct ff *s, t2f_str_id id)
{
	size_t len;
	const char *str = t2f_profile__str(s->p, id, &len);

	ff_str(s, str, len);
}
