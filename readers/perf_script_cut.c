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

bool ps_find_last_cut(const char *p, size_t len, size_t *cut)
{
	const char *end = memrchr(p, '\n', len); /* the '\n' that ends the last complete line */

	while (end) {
		const char *nl = end > p ? memrchr(p, '\n', (size_t)(end - p)) : NULL;
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
