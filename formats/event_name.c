/* formats/event_name.c: see event_name.h. */
#include "formats/event_name.h"

#include <string.h>

#define T2F_EVENT_MODIFIERS_MAX 8

size_t t2f_event_name_len(const char *s, size_t len)
{
	const char *colon = memrchr(s, ':', len);
	size_t m = colon ? len - (size_t)(colon + 1 - s) : 0;

	if (m == 0 || m > T2F_EVENT_MODIFIERS_MAX)
		return len;
	for (size_t i = 0; i < m; i++)
		if (!colon[1 + i] || !strchr("ukhIGHpPSDWeb", colon[1 + i]))
			return len;
	return (size_t)(colon - s);
}
