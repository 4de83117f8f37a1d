/* readers/perf_script_switch.c: what the derive stage needs from perf script text
 * (perf_script_parse.h): sched_switch payloads and PERF_RECORD_SWITCH lines. */
#include <string.h>

#include "formats/derive.h"
#include "readers/perf_script_parse.h"

/* The first (last: from_right) occurrence of key in s[0..len), or NULL. */
static const char *find(const char *s, size_t len, const char *key, bool from_right)
{
	size_t k = strlen(key);
	const char *hit = NULL;

	for (size_t i = 0; i + k <= len; i++) {
		if (s[i] == key[0] && memcmp(s + i, key, k) == 0) {
			hit = s + i;
			if (!from_right)
				break;
		}
	}
	return hit;
}

static bool take_int(const char *p, const char *end, int64_t *v)
{
	int64_t x = 0;
	const char *start = p;

	while (p < end && *p >= '0' && *p <= '9' && x < (INT64_MAX - 9) / 10)
		x = x * 10 + (*p++ - '0');
	*v = x;
	return p > start && (p == end || *p == ' ');
}

bool ps_parse_sched_switch(const char *rest, size_t len, struct ps_sched_switch *sw)
{
	const char *end = rest + len, *pp, *st, *np;

	pp = find(rest, len, " prev_pid=", false);
	if (!pp)
		return false;
	st = find(pp, (size_t)(end - pp), " prev_state=", false);
	np = find(pp, (size_t)(end - pp), " next_pid=", true);
	if (!st || !np || !take_int(pp + 10, end, &sw->prev_pid) ||
	    !take_int(np + 10, end, &sw->next_pid))
		return false;
	st += 12;
	sw->prev_state = t2f_cpu_state_of_text(st, st < end && *st != ' ' ? 1 : 0);
	sw->prev_comm = (struct ps_span){ NULL, 0 };
	if (len >= 10 && memcmp(rest, "prev_comm=", 10) == 0)
		sw->prev_comm = (struct ps_span){ rest + 10, (size_t)(pp - rest) - 10 };
	return true;
}

bool ps_parse_switch_in(const char *rest, size_t len)
{
	return len >= 2 && rest[0] == 'I' && rest[1] == 'N' && (len == 2 || rest[2] == ' ');
}
