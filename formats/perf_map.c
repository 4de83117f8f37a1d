/* formats/perf_map.c: "/tmp/perf-PID.map" recognised (perf_map.h). */
#include "formats/perf_map.h"

#include <string.h>

#define PREFIX "/tmp/perf-"
#define SUFFIX ".map"

bool t2f_perf_map_pid(const char *dso, size_t len, int32_t *pid)
{
	size_t pre = sizeof(PREFIX) - 1, suf = sizeof(SUFFIX) - 1, digits;
	int64_t v = 0;

	if (len <= pre + suf || memcmp(dso, PREFIX, pre) != 0 ||
	    memcmp(dso + len - suf, SUFFIX, suf) != 0)
		return false;
	digits = len - pre - suf;
	if (digits > 10 || dso[pre] == '0')
		return false;
	for (size_t i = pre; i < pre + digits; i++) {
		if (dso[i] < '0' || dso[i] > '9')
			return false;
		v = v * 10 + (dso[i] - '0');
	}
	if (v > INT32_MAX)
		return false;
	if (pid)
		*pid = (int32_t)v;
	return true;
}
