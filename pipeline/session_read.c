/* pipeline/session_read.c: an input read into a session's profile (t2f_session_read_source;
 * pipeline/session_add.c adds it to the session).
 *
 * The reader is picked by the input's first bytes: perf.data, then the streaming formats of
 * pipeline/reader_table.h; perf script text goes to parser threads when that pays off.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "formats/derive.h"
#include "formats/grow.h"
#include "formats/sample_filter.h"
#include "pipeline/reader_table.h"
#include "pipeline/sniff.h"
#include "pipeline/unwind.h"
#include "pipeline/session.h"
#include "pipeline/writer_table.h"
#include "readers/input.h"
#include "readers/perf_data.h"
#include "readers/perf_data_conv.h"
#include "readers/perf_script_par.h"
#include "symbolizer/symcache_ahead.h"
#include "symbolizer/text_syms.h"
#include "symbolizer/text_syms_share.h"

/* Which frames keep their address: those perf could not name that re-symbolization will try
 * to name (all of them with --addrs, which shows them), and named ones whose inlined functions
 * will be looked up; the others share one frame per name. A format that shows addresses
 * (pprof, the Firefox profile) has every frame keep its own but those in no mapping, whose
 * absolute address no tool can name or disassemble (whole-machine recordings: 51K of them):
 * they share one frame, as in every other format, unless --addrs shows them. */
static bool t2f_addr_wanted(void *ctx, enum t2f_frame_kind kind, const char *dso, size_t len,
			    bool named)
{
	const struct t2f_session *s = ctx;

	if (s->needs & T2F_NEEDS_ADDRS)
		return s->o.addrs || !t2f_perf_script__no_mapping(dso, len);
	if (!named && s->o.addrs)
		return true;
	return t2f_resym__wants(&s->ropts, kind, dso, len, named);
}

/* Whether a text's user frames keep their addresses only once it gives a build-id
 * (t2f_perf_script__addrs_need_ids): when nothing else will give their modules one, as the
 * resolve stage looks up no module of a text without (the text says nothing of the machine it
 * was recorded on: no trust by path). Not where the output shows addresses. */
static bool t2f_text_needs_ids(const struct t2f_session *s)
{
	const struct t2f_profile *p = s->profile;
	uint32_t n = t2f_profile__module_map_count(p);

	if (s->o.resymbolize || s->o.addrs || (s->needs & T2F_NEEDS_ADDRS) || s->o.buildids ||
	    s->o.unsafe_build_id_match)
		return false;
	for (uint32_t i = 0; i < n; i++)
		if (t2f_profile__module_map_at(p, i)->build_id)
			return false;
	return true;
}

/* perf.data frames are all unnamed until re-symbolization. */
static bool t2f_data_addr_wanted(void *ctx, enum t2f_frame_kind kind, const char *dso,
				 size_t len)
{
	return t2f_addr_wanted(ctx, kind, dso, len, false);
}

/* One streaming reader (pipeline/reader_table.h), or perf script text for the parallel
 * reader. */
struct t2f_reader {
	const struct t2f_reader_desc *desc;
	void *r;                       /* desc's reader; NULL for the parallel reader */
	bool parallel;
	bool timeless;                 /* perf script: headers may lack the time */
	bool needs_ids;                /* perf script: t2f_text_needs_ids when it was opened */
	enum t2f_ps_probe probe;       /* the fallback format: what its first lines said */
	struct t2f_sample_filter *sf;  /* the input's sample filter (NULL: none) */
	char looks[512];               /* and what the input looks like (pipeline/sniff.h) */
};

/* The error for an input that is no trace: what it looks like (why: what reading found, or
 * NULL when its first lines said it all). */
static int t2f_not_a_trace(struct t2f_session *s, const struct t2f_input *in,
			   const struct t2f_reader *r, const char *why)
{
	return t2f_diag__error(s->diag, -T2F_ERR_FORMAT, t2f_input__name(in), 0,
			       "not a trace%s%s: it %s %s. " T2F_SNIFF_READS, why ? ": " : "",
			       why ? why : "", r->probe == T2F_PS_NOT_PERF_SCRIPT ? "is" :
			       "looks like", r->looks);
}

/* Parser threads pay off for perf script text with more than one job, and one thread too for
 * compressed input (it is decompressed on the calling thread meanwhile). */
static bool t2f_wants_parallel(const struct t2f_session *s, const struct t2f_input *in)
{
	return t2f_session_jobs(s) > 1 || t2f_input__kind(in) != T2F_INPUT_PLAIN;
}

/* The sample filter of a text or .nettrace input read by r: perf script text's percentages are
 * of the span its header gives (head[0..len): its first lines); .nettrace times are seconds
 * since the trace's start, its span unknown until its end; folded stacks have nothing to
 * filter by. */
static int t2f_text_filter(struct t2f_session *s, const struct t2f_input *in,
			   struct t2f_reader *r, const char *head, size_t len)
{
	const char *name = t2f_input__name(in);
	uint64_t span[2];

	if (!s->filter)
		return 0;
	if (r->desc->traits & T2F_READER_MODULE_NAMES)
		return t2f_session_sample_filter(s, name, "a .nettrace trace gives them only at its "
						 "end", NULL, &r->sf);
	if (!(r->desc->traits & T2F_READER_FALLBACK))
		return t2f_diag__error(s->diag, -T2F_ERR_UNSUPPORTED, name, 0, "%s have no times, "
				       "processes or threads: time, pid, tid and comm filters need "
				       "perf.data, perf script text or .nettrace",
				       r->desc->traits & T2F_READER_LINES ? "folded stacks"
									   : "pprof profiles");
	if (r->timeless && t2f_filter__has_time(s->filter) &&
	    t2f_diag__warn(s->diag, name, 0, "the samples have no times (perf script -F "
			   "without time): the time filter keeps them all, as perf does"))
		return -T2F_ERR_FORMAT;
	return t2f_session_sample_filter(s, name, "this text has no \"# time of first sample\" "
					 "and \"# time of last sample\" lines (perf script "
					 "--header prints them)",
					 t2f_perf_script__span(head, len, &span[0], &span[1]) ?
					 span : NULL, &r->sf);
}

static int t2f_reader__open(struct t2f_session *s, uint32_t i, struct t2f_input *in,
			    const char *head, size_t len, struct t2f_reader *r)
{
	int err;

	struct t2f_read_opts ro = {
		.weight_samples = s->o.weight_samples,
		.keep_addrs = s->o.resymbolize,
		.addr_wanted = t2f_addr_wanted,
		.addr_ctx = s,
		.event = s->o.event,
	};
	const char *max = getenv("T2F_PPROF_MAX_BYTES"); /* a lower limit, for tests */

	if (max)
		ro.pprof_max_bytes = strtoull(max, NULL, 10);
	const char *peek;
	size_t npeek;

	t2f_input__peek(in, &peek, &npeek); /* a binary format by more than its first line */
	r->desc = t2f_reader__detect(npeek > len ? peek : head, npeek > len ? npeek : len);
	r->needs_ids = (r->desc->traits & T2F_READER_FALLBACK) && t2f_text_needs_ids(s);
	ro.addrs_need_ids = r->needs_ids;
	s->nettrace |= (r->desc->traits & T2F_READER_MODULE_NAMES) != 0;
	if (r->desc->traits & T2F_READER_FALLBACK) {
		r->probe = t2f_perf_script__probe(head, len, t2f_input__ended(in));
		r->timeless = r->probe != T2F_PS_TIMED;
		ro.timeless = r->timeless;
		if (r->probe == T2F_PS_TIMED || r->probe == T2F_PS_TIMELESS)
			snprintf(r->looks, sizeof(r->looks), "perf script text");
		else
			t2f_sniff__describe(head, len, t2f_input__kind(in), t2f_input__name(in),
					    r->looks, sizeof(r->looks));
		if (r->probe == T2F_PS_NOT_PERF_SCRIPT)
			return t2f_not_a_trace(s, in, r, NULL);
	}
	err = t2f_text_filter(s, in, r, head, len) ?:
	      t2f_derive__clip(t2f_profile__derive(s->profile), r->sf);
	if (err)
		return err;
	ro.filter = r->sf;
	r->parallel = (r->desc->traits & T2F_READER_PARALLEL) && t2f_wants_parallel(s, in);
	if (r->parallel)
		return 0;
	return r->desc->open(s->profile, s->diag, t2f_input__name(in), i, &ro, &r->r);
}

static void t2f_reader__free(struct t2f_reader *r)
{
	if (r->desc)
		r->desc->free(r->r);
	t2f_sample_filter__free(r->sf);
}

/* The progress callback, if any, for input `in`. */
static void t2f_progress(const struct t2f_session *s, const struct t2f_input *in, bool finished)
{
	if (s->o.progress)
		s->o.progress(s->o.progress_ctx, t2f_input__name(in), t2f_input__consumed(in),
			      t2f_input__size(in), finished);
}

/* Between two chunks or segments of text: progress, and -ECANCELED when the read is to stop. */
static int t2f_progress_cb(void *ctx, const struct t2f_input *in)
{
	struct t2f_session *s = ctx;

	if (t2f_session_cancelled(s))
		return -ECANCELED;
	t2f_progress(s, in, false);
	return 0;
}

/* perf script text with parser threads (readers/perf_script_par.h). T2F_SEGMENT_SIZE (bytes)
 * overrides the segment size: for tests. */
static int t2f_read_parallel(struct t2f_session *s, uint32_t i, struct t2f_input *in,
			     const char *data, size_t len, const struct t2f_reader *r)
{
	const char *seg = getenv("T2F_SEGMENT_SIZE");
	struct t2f_ps_par_opts po = {
		.threads = t2f_session_jobs(s),
		.segment_bytes = seg ? strtoull(seg, NULL, 10) : 0,
		.keep_addrs = s->o.resymbolize,
		.timeless = r->timeless,
		.filter = r->sf,
		.addr_wanted = t2f_addr_wanted,
		.addr_ctx = s,
		.addrs_need_ids = r->needs_ids,
		.progress = t2f_progress_cb,
		.progress_ctx = s,
	};
	struct t2f_ps_par_result res;
	int err = t2f_perf_script__read_parallel(in, data, len, s->profile, s->diag,
						 t2f_input__name(in), i, &po, &res);

	s->stats[i].lines = res.lines;
	s->stats[i].text_bytes = res.bytes;
	return err;
}

#define T2F_BINARY_BLOCK ((size_t)4 << 20) /* a nettrace file is read in blocks of this size */

/* The next chunk for reader r: lines for text; for a nettrace file, blocks of any bytes (a binary
 * file need not have a '\n' every so often). */
static int t2f_next_chunk(const struct t2f_reader *r, struct t2f_input *in, char *block,
			  const char **data, size_t *len)
{
	if (!(r->desc->traits & T2F_READER_BINARY))
		return t2f_input__next(in, data, len);
	*data = block;
	return t2f_input__read(in, block, T2F_BINARY_BLOCK, len);
}

/* The first chunk data[0..len) and every next one through reader r, in this thread. */
static int t2f_read_chunks(struct t2f_session *s, struct t2f_reader *r, struct t2f_input *in,
			   const char *data, size_t len, struct t2f_input_stats *st)
{
	bool binary = r->desc->traits & T2F_READER_BINARY;
	char *block = binary ? malloc(T2F_BINARY_BLOCK) : NULL;
	int err;

	if (binary && !block)
		return -ENOMEM;
	/* Chunks are at most a few MiB: progress is told after each, a cancel seen before each. */
	for (err = len ? 1 : 0; err > 0; err = t2f_next_chunk(r, in, block, &data, &len)) {
		err = r->desc->feed(r->r, data, len);
		if (err)
			break;
		st->text_bytes += len;
		err = t2f_progress_cb(s, in);
		if (err)
			break;
	}
	free(block);
	return err ?: r->desc->finish(r->r);
}

/* Whether a perf.data input was recorded on this machine: its HOSTNAME and OSRELEASE features
 * are the running system's (as perf decides to trust the files at the recorded paths). Then
 * *end is the file's mtime: when perf finished writing it. Bytes in memory never are. */
static bool t2f_recorded_here(const struct t2f_source *src, const struct t2f_perf_data *pd,
			      int64_t *end)
{
	const struct t2f_perf_features *f = t2f_perf_data__features(pd);
	struct utsname u;
	struct stat st;

	if (!f->hostname || !f->osrelease || uname(&u) != 0 || strcmp(f->hostname, u.nodename) ||
	    strcmp(f->osrelease, u.release))
		return false;
	if (src->path ? stat(src->path, &st) != 0 : src->fd < 0 || fstat(src->fd, &st) != 0)
		return false;
	*end = (int64_t)st.st_mtime;
	return true;
}

/* How reading a perf.data input goes (its records' offsets): progress about every MiB (and at
 * the start and the end), a cancel seen every T2F_PERF_TICK_RECORDS records. */
struct t2f_perf_tick {
	struct t2f_session *s;
	const char *name;
	uint64_t total, done, next;
};

#define T2F_PERF_PROGRESS_STEP ((uint64_t)1 << 20)

static void t2f_perf_progress(struct t2f_perf_tick *t, uint64_t done, bool finished)
{
	struct t2f_session *s = t->s;

	if (done > t->done)
		t->done = done;
	if (s->o.progress)
		s->o.progress(s->o.progress_ctx, t->name, t->done, t->total, finished);
}

static int t2f_perf_tick(void *ctx, uint64_t offset)
{
	struct t2f_perf_tick *t = ctx;

	if (t2f_session_cancelled(t->s))
		return -ECANCELED;
	if (offset >= t->next) {
		t2f_perf_progress(t, offset, false);
		t->next = offset + T2F_PERF_PROGRESS_STEP;
	}
	return 0;
}

/* perf.data input: every frame is named after reading (resymbolize), by perf's symbol rules
 * unless strict ones are asked for, kernel frames through the kallsyms option, else the first
 * perf.data input's pick (t2f_resym__default_kallsyms). */
static void t2f_perf_kallsyms(struct t2f_session *s, const struct t2f_perf_data *pd, bool here)
{
	char hex[41];

	s->ropts.all = true;
	s->ropts.perf_rules = s->o.symbol_rules != T2F_RULES_STRICT;
	s->run.perf_data = true;
	if (s->o.kallsyms || s->kallsyms_default || s->run.kallsyms_why)
		return;
	s->kallsyms_default = t2f_resym__default_kallsyms(
		t2f_perf_data_conv__kernel_build_id(pd, hex) ? hex : NULL, here, &s->run.kallsyms_why);
	s->ropts.kallsyms = s->kallsyms_default;
}

/* Where the recordings' kernels sat (their reference symbol's address then), for the resolve
 * stage; inputs whose kernels sat at different places have no kernel frame named (the frames of
 * all are merged). A recording without a kernel map has no kernel frame. */
static void t2f_kernel_place(struct t2f_session *s, const struct t2f_perf_data_conv *pc)
{
	const char *name;
	uint64_t addr;

	if (!t2f_perf_data_conv__kernel_ref(pc, &name, &addr))
		return;
	if (!s->ropts.kernel_ref) {
		s->ropts.kernel_ref = name;
		s->ropts.kernel_ref_addr = addr;
	} else if (strcmp(name, s->ropts.kernel_ref) || addr != s->ropts.kernel_ref_addr) {
		s->ropts.kernel_refs_differ = true;
	}
}

/* Whether every event of pd leaves the kernel out (perf record -e EVENT:u, or as a user perf
 * limits so): its samples have no kernel frame. */
static bool t2f_perf_user_only(const struct t2f_perf_data *pd)
{
	for (size_t i = 0; i < t2f_perf_data__n_attrs(pd); i++)
		if (!t2f_perf_data__attr(pd, i)->attr.exclude_kernel)
			return false;
	return true;
}

/* With a thread to spare, the kallsyms file is loaded while the recording is read (the resolve
 * stage takes the table), or the table the symbol cache keeps for it (text_syms_cache.h) mapped
 * and checked, unless the process has its table already (symbolizer/text_syms_share.h) or the
 * recording can have no kernel frame to name (the resolve stage reads the file picked for it
 * only for one). 0 or an error of t2f_prefetch__start. */
static int t2f_kallsyms_prefetch(struct t2f_session *s, const struct t2f_perf_data *pd)
{
	const struct t2f_prefetch_keep keep = { .cache = s->ropts.cache,
						.cache_max = s->ropts.cache_max };

	if (!s->ropts.kallsyms || s->ropts.kallsyms_read || t2f_session_jobs(s) < 2 ||
	    (!s->o.kallsyms && t2f_perf_user_only(pd)) ||
	    t2f_text_syms__share_has(s->ropts.kallsyms))
		return 0;
	return t2f_prefetch__start(s->ropts.kallsyms, &keep, t2f_resym__kallsyms_kept(&s->ropts),
				   &s->ropts.kallsyms_read);
}

/* With a thread to spare and the symbol cache on, the cache files of the build-ids the recording
 * lists (its BUILD_ID feature: the modules it has samples in) are opened and checked while it is
 * read (symbolizer/symcache_ahead.h), for the first perf.data input. 0 or an error of
 * t2f_symcache_ahead__start. */
static int t2f_cache_ahead(struct t2f_session *s, const struct t2f_perf_data *pd)
{
	const struct t2f_perf_features *f = t2f_perf_data__features(pd);
	const uint8_t **ids;
	size_t *lens;
	int err;

	if (!s->ropts.cache || s->ropts.cache_ahead || t2f_session_jobs(s) < 2 || !f->n_build_ids)
		return 0;
	ids = calloc(f->n_build_ids, sizeof(*ids));
	lens = calloc(f->n_build_ids, sizeof(*lens));
	for (size_t i = 0; ids && lens && i < f->n_build_ids; i++) {
		ids[i] = f->build_ids[i].id;
		lens[i] = f->build_ids[i].size <= 20 ? f->build_ids[i].size : 0;
	}
	err = ids && lens ? t2f_symcache_ahead__start(NULL, ids, lens, f->n_build_ids,
						      &s->ropts.cache_ahead)
			  : -ENOMEM;
	free(ids);
	free(lens);
	return err;
}

static void t2f_add_perf_stats(struct t2f_perf_data_conv_stats *to,
			       const struct t2f_perf_data_conv_stats *s)
{
	to->records += s->records;
	to->samples += s->samples;
	to->dwarf += s->dwarf;
	to->skipped += s->skipped;
	to->truncated_bytes += s->truncated_bytes;
	to->probe_map_ns += s->probe_map_ns;
	to->probe_read_ns += s->probe_read_ns;
	to->mapped += s->mapped;
	to->read_ahead += s->read_ahead;
	to->stacks_whole += s->stacks_whole;
	to->kernel_frames += s->kernel_frames;
	to->classed += s->classed;
}

/* T2F_PERF_DATA_MAP=1: the file mapped in windows, =0: read in blocks (tests, benchmarks);
 * otherwise mapped where that was weighed the cheaper (readers/perf_data.h). */
static enum t2f_perf_data_map t2f_perf_data_map_how(void)
{
	const char *how = getenv("T2F_PERF_DATA_MAP");

	if (how && strcmp(how, "0") == 0)
		return T2F_PERF_DATA_READ;
	return how ? T2F_PERF_DATA_MAP : T2F_PERF_DATA_MAP_IF_CHEAPER;
}

static int t2f_perf_data_open(const struct t2f_source *src, struct t2f_input *in,
			      struct t2f_diag *d, struct t2f_perf_data **pd)
{
	const char *name = t2f_input__name(in);

	if ((src->path && strcmp(src->path, "-") == 0) || t2f_input__kind(in) != T2F_INPUT_PLAIN)
		return t2f_diag__error(d, -T2F_ERR_UNSUPPORTED, name, 0,
				       "perf.data is read from a named, uncompressed file only (not "
				       "stdin, gzip or zstd): save it to a file, or pipe `perf script "
				       "-i FILE` instead");
	if (src->path)
		return t2f_perf_data__open(src->path, d, pd);
	if (src->fd >= 0)
		return t2f_perf_data__open_fd(src->fd, name, d, pd);
	return t2f_perf_data__open_mem(name, src->data, src->len, d, pd);
}

/* Whether an attr of pd records user registers and stacks (--call-graph dwarf). */
static bool t2f_perf_dwarf(const struct t2f_perf_data *pd)
{
	for (size_t i = 0; i < t2f_perf_data__n_attrs(pd); i++)
		if (t2f_perf_data__attr(pd, i)->attr.sample_type & PERF_SAMPLE_STACK_USER)
			return true;
	return false;
}

/* The unwind stage for pd's dwarf samples (NULL when it has none). 0 or an error. */
static int t2f_perf_unwinder(struct t2f_session *s, const struct t2f_perf_data *pd, int64_t here,
			     struct t2f_unwind_stage **out)
{
	struct t2f_unwind_stage_opts uo = {
		.arch = t2f_perf_data__features(pd)->arch,
		.debug_dirs = s->o.debug_dirs,
		.symbol_dirs = NULL,
		.unsafe_build_id_match = s->o.unsafe_build_id_match,
		.trust_by = here,
		.jobs = t2f_session_jobs(s),
		.libdwfl = s->o.unwind_libdwfl,
	};

	int err;

	*out = NULL;
	if (!t2f_perf_dwarf(pd))
		return 0;
	if (!s->symbol_dirs) { /* --symbol-path, then T2F_SYMBOL_PATH, as the resolve stage's */
		err = t2f_symbol_path_join(s->o.symbol_dirs, getenv("T2F_SYMBOL_PATH"),
					   &s->env_dirs, &s->symbol_dirs);
		if (err)
			return err;
	}
	uo.symbol_dirs = s->symbol_dirs;
	return t2f_unwind_stage__new(&uo, s->profile, s->diag, out);
}

/* pd's sample filter: percentages of the span its SAMPLE_TIME feature gives, as perf's
 * (none when both times are 0). */
static int t2f_perf_data_filter(struct t2f_session *s, const struct t2f_input *in,
				const struct t2f_perf_data *pd, struct t2f_sample_filter **sf)
{
	const struct t2f_perf_features *f = t2f_perf_data__features(pd);
	uint64_t span[2] = { f->first_sample_time, f->last_sample_time };
	bool has = f->has_sample_time && (span[0] || span[1]);

	return t2f_session_sample_filter(s, t2f_input__name(in), "this perf.data file has no "
					 "SAMPLE_TIME feature", has ? span : NULL, sf);
}

/* The classes of perf.data frames (pipeline/sym_classes.h), made for the session's first input
 * (read into the session's profile itself: the frame ids the resolve stage sees) when it is a
 * perf.data file, once its options are known, when the symbol cache is used and the outputs
 * show frames by name alone, in an order their ids do not decide: folded and SVG (no address,
 * no frame left unnamed shown by its address; speedscope lists frames in id order, and the first
 * of a class can come before a frame a run without classes makes first). T2F_NO_CLASSES (set):
 * none; T2F_CLASS_LINES (set): classes that hold lines where the outputs show none; for tests.
 * 0 or an error. */
static int t2f_perf_classes(struct t2f_session *s, const struct t2f_source *src)
{
	if (src->index || s->classes || !s->ropts.cache || t2f_session_keep_addrs(s) || s->o.addrs ||
	    (s->needs & ~(unsigned)(T2F_NEEDS_PARAMS | T2F_NEEDS_THREADS | T2F_NEEDS_LINES |
				   T2F_NEEDS_MERGED_CELLS)) ||
	    s->o.unsafe_build_id_match || getenv("T2F_NO_CLASSES"))
		return 0;
	return t2f_sym_classes__new(&s->ropts, s->profile, s->diag, !s->o.no_inline,
				    (s->needs & T2F_NEEDS_LINES) || getenv("T2F_CLASS_LINES"),
				    &s->classes);
}

/* The frames pc's stacks hold as another (the first of their class), for the resolve stage to
 * name as that one: the session's first input's alone (t2f_perf_classes). */
static void t2f_frames_as(struct t2f_session *s, struct t2f_perf_data_conv *pc)
{
	s->frame_as = t2f_perf_data_conv__take_frame_as(pc, &s->n_frame_as);
}

/* A perf.data input: read by its own reader, from the file itself (or the bytes). */
static int t2f_read_perf_data(struct t2f_session *s, const struct t2f_source *src,
			      struct t2f_input *in)
{
	bool every = s->o.addrs;
	struct t2f_perf_tick tick = { .s = s, .name = t2f_input__name(in),
				      .total = t2f_input__size(in),
				      .next = T2F_PERF_PROGRESS_STEP };
	struct t2f_perf_data_conv_opts po = { .input = src->index,
					      .addr_wanted = every ? NULL : t2f_data_addr_wanted,
					      .addr_ctx = s,
					      .threads = t2f_session_jobs(s),
					      .tick = t2f_perf_tick,
					      .tick_ctx = &tick };
	struct t2f_perf_data *pd = NULL;
	struct t2f_sample_filter *sf = NULL;
	struct t2f_perf_data_conv *pc = NULL;
	struct t2f_unwind_stage *us = NULL;
	int64_t end = 0;
	bool here;
	int err = t2f_perf_data_open(src, in, s->diag, &pd);

	if (!err) {
		t2f_perf_data__set_map(pd, t2f_perf_data_map_how());
		t2f_perf_data__set_ahead(pd, po.threads > 1); /* -j 1: no thread of its own */
		here = t2f_recorded_here(src, pd, &end);
		s->elsewhere |= !here;
		if (here && (!s->recorded_by || end < s->recorded_by))
			s->recorded_by = end;
		t2f_perf_kallsyms(s, pd, here);
		err = t2f_kallsyms_prefetch(s, pd) ?: t2f_cache_ahead(s, pd) ?: t2f_perf_classes(s, src) ?:
		      t2f_perf_unwinder(s, pd, here ? end : 0, &us);
	}
	if (!err)
		err = t2f_perf_data_filter(s, in, pd, &sf) ?:
		      t2f_derive__clip(t2f_profile__derive(s->profile), sf);
	if (!err) {
		po.filter = sf;
		po.unwind = us ? t2f_unwind_stage__sample : NULL;
		po.unwind_ctx = us;
		po.class_of = s->classes && !src->index ? t2f_sym_classes__of : NULL;
		po.class_key = po.class_of ? t2f_sym_classes__key : NULL;
		po.class_ctx = s->classes;
		err = t2f_perf_data_conv__new(pd, s->profile, s->diag, &po, &pc);
	}
	if (!err) {
		t2f_perf_progress(&tick, 0, false);
		err = t2f_perf_data_conv__run(pc);
		t2f_perf_progress(&tick, err ? tick.done : tick.total, true);
	}
	if (pc && !err)
		t2f_kernel_place(s, pc);
	if (pc && !err && !src->index)
		t2f_frames_as(s, pc);
	if (pc)
		t2f_add_perf_stats(&s->run.perf, t2f_perf_data_conv__stats(pc));
	if (us && !err)
		err = t2f_unwind_stage__add_stats(us, &s->run.unwind);
	t2f_unwind_stage__free(us);
	t2f_perf_data_conv__free(pc);
	t2f_sample_filter__free(sf);
	t2f_perf_data__free(pd);
	return err;
}

static int t2f_source_open(const struct t2f_source *src, const char *name, struct t2f_diag *d,
			   struct t2f_input **in)
{
	if (src->path)
		return t2f_input__open(src->path, d, in);
	if (src->fd >= 0)
		return t2f_input__open_fd(src->fd, name, d, in);
	return t2f_input__open_mem(src->data, src->len, name, d, in);
}

/* The read and the dropped sample counts of the profile, samples filtered out in neither. */
static void t2f_sample_counts(const struct t2f_profile *p, uint64_t n[2])
{
	n[0] = t2f_profile__samples_read(p) -
	       t2f_profile__samples_dropped(p, T2F_DROP_FILTERED);
	n[1] = 0;
	for (int r = 0; r < T2F_DROP__COUNT; r++)
		if (r != T2F_DROP_FILTERED) /* read well, left out on purpose */
			n[1] += t2f_profile__samples_dropped(p, (enum t2f_drop_reason)r);
}

/* After the fallback format read an input: when every sample it started was dropped (lines
 * that are no perf script sample), the input is no trace, whatever its first lines looked
 * like. before: t2f_sample_counts before reading it. */
static int t2f_check_samples(struct t2f_session *s, const struct t2f_input *in,
			     const struct t2f_reader *r, const uint64_t before[2])
{
	uint64_t now[2], read, dropped;
	char why[128];

	t2f_sample_counts(s->profile, now);
	read = now[0] - before[0];
	dropped = now[1] - before[1];
	if (!read || read != dropped)
		return 0;
	snprintf(why, sizeof(why), "none of its %" PRIu64 " sample%s could be read (see the "
		 "warnings)", read, read == 1 ? "" : "s");
	return t2f_not_a_trace(s, in, r, why);
}

/* Reads the input through the reader its first bytes pick. */
static int t2f_read_input(struct t2f_session *s, const struct t2f_source *src,
			  struct t2f_input *in, struct t2f_input_stats *st)
{
	struct t2f_reader rd = { 0 };
	const char *data = NULL;
	uint64_t before[2];
	size_t len = 0;
	int err;

	t2f_input__head(in, &data, &len); /* perf.data is mapped: no first chunk read for it */
	if (!t2f_perf_data__detect(data, len)) {
		err = t2f_input__next(in, &data, &len);
		if (err < 0)
			return err;
		if (err == 0)
			len = 0;
	}
	if (t2f_perf_data__detect(data, len)) {
		err = t2f_read_perf_data(s, src, in);
		st->text_bytes = t2f_input__size(in);
		st->bytes = st->text_bytes;
		return err;
	}
	s->elsewhere = true; /* text says nothing of the machine it was recorded on */
	t2f_sample_counts(s->profile, before);
	err = t2f_reader__open(s, src->index, in, data, len, &rd);
	if (!err) {
		t2f_progress(s, in, false);
		if (rd.parallel) {
			err = t2f_read_parallel(s, src->index, in, data, len, &rd);
		} else {
			err = t2f_read_chunks(s, &rd, in, data, len, st);
			st->lines = rd.desc->traits & T2F_READER_LINES ? rd.desc->lines(rd.r) : 0;
		}
		t2f_progress(s, in, true);
	}
	if (!err && (rd.desc->traits & T2F_READER_FALLBACK))
		err = t2f_check_samples(s, in, &rd, before);
	st->bytes = t2f_input__consumed(in);
	t2f_reader__free(&rd);
	return err;
}

/* An input read: what its derive stage left out joins the run's counts. */
static void t2f_session_derived(struct t2f_session *s)
{
	struct t2f_derive_counts c;
	struct t2f_derive_counts *sum = &s->run.derive;

	t2f_derive__end(t2f_profile__derive(s->profile), &c);
	sum->samples += c.samples;
	sum->waits += c.waits;
	sum->open_at_end += c.open_at_end;
	sum->no_switch_in += c.no_switch_in;
	sum->not_selected += c.not_selected;
	sum->undecoded += c.undecoded;
}

/* What the input read into the (empty before) profile says of itself, for the pprof writer: its
 * samples' span as its duration, its name unless it named the inputs it was made from (a
 * pprof input: names_before is the count before reading). 0 or -ENOMEM. */
static int t2f_session_input_self(struct t2f_session *s, const struct t2f_source *src,
				  size_t names_before)
{
	const char *arg = s->args[src->index];
	uint64_t first, last;
	t2f_str_id id;
	int err;

	if (t2f_profile__time_span(s->profile, &first, &last) && last > first)
		t2f_profile__add_duration(s->profile, last - first);
	if (t2f_profile__input_name_count(s->profile) != names_before)
		return 0;
	if (strcmp(arg, "-") == 0)
		arg = "standard input";
	err = t2f_profile__intern(s->profile, arg, strlen(arg), &id);
	return err ?: t2f_profile__add_input_name(s->profile, id);
}

int t2f_session_read_source(struct t2f_session *s, const struct t2f_source *src,
			    struct t2f_input_stats *st)
{
	struct t2f_input *in = NULL;
	size_t names = t2f_profile__input_name_count(s->profile);
	int err = t2f_session_cancelled(s) ? -ECANCELED : t2f_source_open(src, st->name, s->diag, &in);

	if (!err)
		err = t2f_read_input(s, src, in, st);
	if (!err)
		err = t2f_session_input_self(s, src, names);
	if (!err && t2f_profile__derive(s->profile))
		t2f_session_derived(s);
	if (err == -ECANCELED)
		t2f_diag__error(s->diag, err, st->name, 0, "reading cancelled (t2f_session_cancel): "
				"the input is left out");
	if (err == -ENOMEM)
		t2f_diag__error(s->diag, err, st->name, 0, "out of memory while reading it");
	if (err == -T2F_ERR_LIMIT && t2f_profile__frames_full(s->profile))
		t2f_diag__error(s->diag, err, st->name, 0,
				"more than %u distinct frames (t2f_options.max_frames raises the "
				"limit)",
				s->o.max_frames);
	t2f_input__free(in);
	return err;
}
