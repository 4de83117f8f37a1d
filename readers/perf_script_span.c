/* readers/perf_script_span.c: the recording's span as `perf script --header` prints it
 * (perf_script.h, t2f_perf_script__span):
 *   # time of first sample : 13522.897229
 *   # time of last sample : 13523.047258
 */
#include "readers/perf_script.h"

#include <string.h>

#include "readers/perf_script_parse.h"

/* "SEC.FRAC" at s[0..n) (blanks after it allowed) into ns; false when it is none. */
static bool span_time(const char *s, size_t n, uint64_t *ns)
{
	size_t i = 0, digits = 0;
	uint64_t sec, frac = 0;

	if (!take_u64(s, n, &i, &sec) || sec > UINT64_MAX / 1000000000u - 1)
		return false;
	if (i < n && s[i] == '.')
		for (i++; i < n && is_digit(s[i]); i++)
			if (digits < 9) {
				frac = frac * 10 + (uint64_t)(s[i] - '0');
				digits++;
			}
	for (; digits < 9; digits++)
		frac *= 10;
	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
		i++;
	*ns = sec * 1000000000u + frac;
	return i == n;
}

/* The value of "# time of WHICH sample : VALUE" in line s[0..n), if it is that line. */
static bool span_line(const char *s, size_t n, const char *which, uint64_t *ns)
{
	static const char pre[] = "# time of ";
	size_t w = strlen(which), at = sizeof(pre) - 1;

	if (n < at + w || memcmp(s, pre, at) || memcmp(s + at, which, w))
		return false;
	at += w;
	while (at < n && s[at] == ' ')
		at++;
	if (at >= n || s[at] != ':')
		return false;
	for (at++; at < n && s[at] == ' '; at++)
		;
	return span_time(s + at, n - at, ns);
}

bool t2f_perf_script__span(const char *head, size_t len, uint64_t *first, uint64_t *last)
{
	bool has_first = false, has_last = false;

	for (const char *s = head, *end = head + len; s < end;) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);

		if (n && s[0] != '#')
			break; /* the header block is over */
		has_first |= span_line(s, n, "first sample", first);
		has_last |= span_line(s, n, "last sample", last);
		s += n + 1;
	}
	return has_first && has_last && *first <= *last;
}
