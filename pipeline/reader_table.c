/* pipeline/reader_table.c: the streaming input formats (reader_table.h). */
#include "pipeline/reader_table.h"

#include "readers/folded.h"
#include "readers/nettrace.h"
#include "readers/nettrace_parse.h"
#include "readers/pprof.h"

/* ---- .nettrace ---- */

static bool t2f_nt_detect(const char *head, size_t len)
{
	return nt_detect((const uint8_t *)head, len);
}

static int t2f_nt_open(struct t2f_profile *p, struct t2f_diag *d, const char *name,
		       uint32_t input, const struct t2f_read_opts *o, void **out)
{
	struct t2f_nettrace_opts no = {
		.weight = o->weight_samples ? T2F_NETTRACE_WEIGHT_SAMPLES
					    : T2F_NETTRACE_WEIGHT_INTERVAL,
		.filter = o->filter,
	};

	return t2f_nettrace__new(p, d, name, input, &no, (struct t2f_nettrace **)out);
}

static int t2f_nt_feed(void *r, const char *data, size_t len)
{
	return t2f_nettrace__feed(r, (const uint8_t *)data, len);
}

static int t2f_nt_finish(void *r)
{
	return t2f_nettrace__finish(r);
}

static void t2f_nt_free(void *r)
{
	t2f_nettrace__free(r);
}

/* ---- folded stacks ---- */

static int t2f_fd_open(struct t2f_profile *p, struct t2f_diag *d, const char *name,
		       uint32_t input, const struct t2f_read_opts *o, void **out)
{
	return t2f_folded__new(p, d, name, input, (struct t2f_folded **)out);
}

static int t2f_fd_feed(void *r, const char *data, size_t len)
{
	return t2f_folded__feed(r, data, len);
}

static int t2f_fd_finish(void *r)
{
	return 0;
}

static uint64_t t2f_fd_lines(const void *r)
{
	return t2f_folded__lines(r);
}

static void t2f_fd_free(void *r)
{
	t2f_folded__free(r);
}

/* ---- pprof ---- */

static bool t2f_pp_detect(const char *head, size_t len)
{
	return t2f_pprof__detect(head, len);
}

static int t2f_pp_open(struct t2f_profile *p, struct t2f_diag *d, const char *name,
		       uint32_t input, const struct t2f_read_opts *o, void **out)
{
	struct t2f_pprof_read_opts po = { .event = o->event, .max_bytes = o->pprof_max_bytes };

	return t2f_pprof_reader__new(p, d, name, input, &po, (struct t2f_pprof_reader **)out);
}

static int t2f_pp_feed(void *r, const char *data, size_t len)
{
	return t2f_pprof_reader__feed(r, data, len);
}

static int t2f_pp_finish(void *r)
{
	return t2f_pprof_reader__finish(r);
}

static void t2f_pp_free(void *r)
{
	t2f_pprof_reader__free(r);
}

/* ---- perf script text ---- */

static bool t2f_ps_detect(const char *head, size_t len)
{
	return true;
}

static int t2f_ps_open(struct t2f_profile *p, struct t2f_diag *d, const char *name,
		       uint32_t input, const struct t2f_read_opts *o, void **out)
{
	struct t2f_perf_script *ps;
	int err = t2f_perf_script__new(p, d, name, input, &ps);

	if (err)
		return err;
	t2f_perf_script__keep_addrs(ps, o->keep_addrs);
	t2f_perf_script__unknown_addrs(ps, o->addr_wanted, o->addr_ctx);
	t2f_perf_script__addrs_need_ids(ps, o->addrs_need_ids);
	t2f_perf_script__timeless(ps, o->timeless);
	t2f_perf_script__filter(ps, o->filter);
	*out = ps;
	return 0;
}

static int t2f_ps_feed(void *r, const char *data, size_t len)
{
	return t2f_perf_script__feed(r, data, len);
}

static int t2f_ps_finish(void *r)
{
	return t2f_perf_script__finish(r);
}

static uint64_t t2f_ps_lines(const void *r)
{
	return t2f_perf_script__lines(r);
}

static void t2f_ps_free(void *r)
{
	t2f_perf_script__free(r);
}

/* In the order they are tried: the last takes anything. */
static const struct t2f_reader_desc t2f_readers[] = {
	{
		.name = "nettrace", .traits = T2F_READER_BINARY | T2F_READER_MODULE_NAMES,
		.detect = t2f_nt_detect, .open = t2f_nt_open, .feed = t2f_nt_feed,
		.finish = t2f_nt_finish, .free = t2f_nt_free,
	},
	{
		.name = "pprof", .traits = T2F_READER_BINARY, .detect = t2f_pp_detect,
		.open = t2f_pp_open, .feed = t2f_pp_feed, .finish = t2f_pp_finish,
		.free = t2f_pp_free,
	},
	{
		.name = "folded", .traits = T2F_READER_LINES, .detect = t2f_folded__detect,
		.open = t2f_fd_open, .feed = t2f_fd_feed, .finish = t2f_fd_finish,
		.lines = t2f_fd_lines, .free = t2f_fd_free,
	},
	{
		.name = "perf script",
		.traits = T2F_READER_LINES | T2F_READER_PARALLEL | T2F_READER_FALLBACK,
		.detect = t2f_ps_detect,
		.open = t2f_ps_open, .feed = t2f_ps_feed, .finish = t2f_ps_finish,
		.lines = t2f_ps_lines, .free = t2f_ps_free,
	},
};

const struct t2f_reader_desc *t2f_reader__detect(const char *head, size_t len)
{
	size_t i = 0;

	while (!t2f_readers[i].detect(head, len)) /* the last one takes anything */
		i++;
	return &t2f_readers[i];
}
