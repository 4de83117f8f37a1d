/* readers/perf_script_seg.c: what the parallel reader (perf_script_par.c) reads off a segment's
 * parser (perf_script_seg.h).
 */
#include "readers/perf_script_seg.h"

#include "readers/perf_script_int.h"
#include "readers/perf_script_maps.h"

void t2f_perf_script__borrow_input(struct t2f_perf_script *ps)
{
	ps->borrow = true;
}

void t2f_perf_script__set_lines(struct t2f_perf_script *ps, uint64_t lines)
{
	ps->line_no = lines;
}

bool t2f_perf_script__used_maps(const struct t2f_perf_script *ps)
{
	return ps->used_maps;
}

bool t2f_perf_script__has_maps(const struct t2f_perf_script *ps)
{
	return !ps_maps__empty(ps->maps);
}

const char *t2f_perf_script__map_lines(const struct t2f_perf_script *ps, size_t *len)
{
	*len = ps->map_lines.len;
	return ps->map_lines.p;
}

bool t2f_perf_script__dropped_addrs(const struct t2f_perf_script *ps)
{
	return ps->dropped_addrs;
}

bool t2f_perf_script__read_ids(const struct t2f_perf_script *ps)
{
	return ps->ids_read;
}
