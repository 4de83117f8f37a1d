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

bool ps_find_cut(const char *p, size_t len, size_t from, size_t *cut)
{
	size_t i = from;

	if (i > 0 && i < len && p[i - 1] != '\n') { /* to the next line start */
		const char *nl = memchr(p + i, '\n', len - i);

		if (!nl)
			return false;
		i = (size_t)(nl - p) + 1;
	}
	while (i < len) {
		const char *nl = memchr(p + i, '\n', len - i);

		if (!nl)
			return false;
		if (begins_record(p + i, (size_t)(nl - p) - i)) {
			*cut = i;
			return true;
		}
		i = (size_t)(nl - p) + 1;
	}
	return false;
}
