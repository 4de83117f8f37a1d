/* readers/perf_script_cut.c: cut points of a perf script text (perf_script_cut.h). */
#include "readers/perf_script_cut.h"

#include <string.h>

#include "readers/perf_script_parse.h"

/* Whether the complete line p[0..n) begins a record. */
static bool begins_record(const char *p, size_t n)
{
	struct ps_header h;

	switch (p[0]) {
	case '\t': case '\r': case '\n': case '#':
		return false;
	case ' ':  /* trailing blanks go, as the reader trims them */
		while (n > 1 && (p[n - 1] == ' ' || p[n - 1] == '\r' || p[n - 1] == '\t'))
			n--;
		return ps_parse_header(p, n, &h);
	default:
		return true;
	}
}

/* The last '\n' in [p, end), or NULL; looked for a window at a time from the end, so a call
 * reads (and a checking memrchr, as sanitizers' is, checks) only what lies after that '\n'. */
static const char *prev_nl(const char *p, const char *end)
{
	enum { WINDOW = 512 };

	while (end > p) {
		size_t n = (size_t)(end - p) < WINDOW ? (size_t)(end - p) : WINDOW;
		const char *nl = memrchr(end - n, '\n', n);

		if (nl)
			return nl;
		end -= n;
	}
	return NULL;
}

bool ps_find_last_cut(const char *p, size_t len, size_t *cut)
{
	const char *end = prev_nl(p, p + len); /* the '\n' that ends the last complete line */

	while (end) {
		const char *nl = prev_nl(p, end);
		size_t i = nl ? (size_t)(nl - p) + 1 : 0;

		if (i == 0)
			return false;
		if (begins_record(p + i, (size_t)(end - p) - i)) {
			*cut = i;
			return true;
		}
		end = nl;
	}
	return false;
}
