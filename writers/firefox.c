/* writers/firefox.c: the Firefox Profiler's processed profile (firefox.h), streamed.
 *
 * Layout written, a line per part so golden files diff well:
 *   {"meta":{...},
 *   "libs":[{...},...],
 *   "threads":[
 *   {... "samples":{...},"markers":{...}},
 *   ...],
 *   "shared":{"stackTable":{...},
 *   "frameTable":{...}, "funcTable", "resourceTable", "nativeSymbols", "sources",
 *   "sourceLocationTable", one line each,
 *   "stringArray":[...]}}
 * The tables are built first (firefox_tables.c); the text goes into a buffer drained every MiB
 * into the output, raw or through the gzip stage pprof uses (writers/pprof_int.h), so memory is
 * bounded by the tables, not by the output. Threads' samples are read from the sample log in
 * batches, once per column.
 */
#include "writers/firefox.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/derive.h"
#include "formats/sat.h"
#include "writers/firefox_write.h"
#include "writers/pprof_int.h"

#define FF_VERSION 70            /* preprocessedProfileVersion written */
#define FF_GECKO_VERSION 36      /* meta.version, as the profiler's own empty profile has it */
#define FF_LOST_SCHEMA "trace2flame-lost"
#define FF_OFF_SCHEMA "trace2flame-off-cpu"

static const struct {
	const char *name, *color;
} ff_categories[FF_CAT__COUNT] = {
	[FF_CAT_OTHER] = { "Other", "grey" },
	[FF_CAT_USER] = { "User", "blue" },
	[FF_CAT_KERNEL] = { "Kernel", "orange" },
	[FF_CAT_JIT] = { "JIT", "green" },
	[FF_CAT_MANAGED] = { ".NET managed", "purple" },
};



/* ---- meta and libs ---- */

static void ff_write_meta(struct ff *s)
{
	ff_puts(s, "{\"meta\":{\"interval\":1,\"startTime\":0,\"processType\":0,");
	if (s->cpu_deltas)
		ff_puts(s, "\"sampleUnits\":{\"time\":\"ms\",\"eventDelay\":\"ms\","
			"\"threadCPUDelta\":\"ns\"},");
	ff_puts(s, "\"product\":");
	ff_cstr(s, s->o->name ? s->o->name : "trace2flame");
	ff_puts(s, ",\"importedFrom\":\"trace2flame " T2F_VERSION "\",\"stackwalk\":1,\"version\":");
	ff_u64(s, FF_GECKO_VERSION);
	ff_puts(s, ",\"preprocessedProfileVersion\":");
	ff_u64(s, FF_VERSION);
	ff_puts(s, ",\"symbolicated\":true,\"categories\":[");
	for (int c = 0; c < FF_CAT__COUNT; c++) {
		ff_puts(s, c ? ",{\"name\":" : "{\"name\":");
		ff_cstr(s, ff_categories[c].name);
		ff_puts(s, ",\"color\":");
		ff_cstr(s, ff_categories[c].color);
		ff_puts(s, ",\"subcategories\":[\"Other\"]}");
	}
	ff_puts(s, "],\"markerSchema\":[{\"name\":\"" FF_LOST_SCHEMA "\",\"tooltipLabel\":"
		"\"Lost while recording\",\"tableLabel\":\"{marker.data.events} events, "
		"{marker.data.samples} samples lost\",\"display\":[\"marker-chart\","
		"\"marker-table\"],\"fields\":[{\"key\":\"records\",\"label\":\"Lost records\","
		"\"format\":\"integer\"},{\"key\":\"events\",\"label\":\"Events lost\",\"format\":"
		"\"integer\"},{\"key\":\"samples\",\"label\":\"Samples lost\",\"format\":"
		"\"integer\"}],\"description\":\"What the recording says was lost: PERF_RECORD_LOST "
		"records, the events they count, PERF_RECORD_LOST_SAMPLES' samples.\"},"
		"{\"name\":\"" FF_OFF_SCHEMA "\",\"tooltipLabel\":\"Off-CPU ({marker.data.state})"
		"\",\"tableLabel\":\"Off-CPU, state {marker.data.state}\",\"chartLabel\":"
		"\"{marker.data.state}\",\"display\":[\"marker-chart\",\"marker-table\","
		"\"timeline-overview\"],\"fields\":[{\"key\":\"state\",\"label\":\"State\","
		"\"format\":\"string\"},{\"key\":\"duration\",\"label\":\"Duration\","
		"\"format\":\"duration\"}],\"description\":\"A wait off CPU: from the thread's "
		"switch-out (its state: R preempted, S sleeping, D uninterruptible, O other) to its "
		"next switch-in.\"}]},\n");
}

/* A build-id as a Breakpad id: its first 16 bytes (zero-padded) as a GUID, the first three
 * fields byte-swapped, upper case, then the age 0. */
static void ff_breakpad(struct ff *s, const char *id, size_t len)
{
	static const int order[16] = { 3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15 };
	char out[34];

	for (int i = 0; i < 16; i++) {
		size_t at = (size_t)order[i] * 2;

		for (int k = 0; k < 2; k++) {
			char c = at + (size_t)k < len ? id[at + (size_t)k] : '0';

			out[i * 2 + k] = c >= 'a' && c <= 'f' ? (char)(c - 'a' + 'A') : c;
		}
	}
	out[32] = '0';
	out[33] = '\0';
	ff_cstr(s, out);
}

static void ff_write_libs(struct ff *s)
{
	ff_puts(s, "\"libs\":[");
	for (uint32_t i = 0; i < s->t.nlibs; i++) {
		const struct ff_lib *l = &s->t.libs[i];
		size_t nlen, idlen = 0;
		const char *name = t2f_strtab__str(s->t.strs, l->name + 1, &nlen);
		const char *id = l->build_id ? t2f_profile__str(s->p, l->build_id, &idlen) : "";

		ff_puts(s, i ? ",\n{\"arch\":\"\",\"name\":" : "\n{\"arch\":\"\",\"name\":");
		ff_str(s, name, nlen);
		ff_puts(s, ",\"path\":");
		ff_pstr(s, l->path);
		ff_puts(s, ",\"debugName\":");
		ff_str(s, name, nlen);
		ff_puts(s, ",\"debugPath\":");
		ff_pstr(s, l->path);
		ff_puts(s, ",\"breakpadId\":");
		if (idlen)
			ff_breakpad(s, id, idlen);
		else
			ff_puts(s, "\"\"");
		ff_puts(s, ",\"codeId\":");
		if (idlen)
			ff_str(s, id, idlen);
		else
			ff_puts(s, "null");
		ff_puts(s, "}");
	}
	ff_puts(s, "],\n");
}

/* ---- threads ---- */

/* Calls fn on each run of the event in thread t's log, in order, neighbours of one cell joined
 * (the log may cut a run anywhere: where depends on how the input was split among threads);
 * stops at fn's error. */
int ff_each_run(struct ff *s, t2f_thread_id t, ff_run_fn fn, void *arg)
{
	size_t n = t2f_profile__thread_run_count(s->p, t);
	struct t2f_log_run run = { 0 };
	bool open = false;
	int err = 0;

	for (size_t from = 0; from < n && !err; from += FF_BATCH) {
		size_t k = n - from < FF_BATCH ? n - from : FF_BATCH;

		t2f_profile__sample_runs(s->p, t, from, k, s->runs);
		for (size_t i = 0; i < k && !err; i++) {
			const struct t2f_log_run *r = &s->runs[i];

			if (t2f_profile__cell_at(s->p, r->cell)->event != s->event)
				continue;
			if (open && r->cell == run.cell && run.samples <= UINT32_MAX - r->samples) {
				run.samples += r->samples;
				run.weight = t2f_sat_add(run.weight, r->weight);
				continue;
			}
			if (open)
				err = fn(s, t2f_profile__cell_at(s->p, run.cell), &run, arg);
			run = *r;
			open = true;
		}
	}
	if (open && !err)
		err = fn(s, t2f_profile__cell_at(s->p, run.cell), &run, arg);
	return err ?: s->err;
}

/* Counts the samples the thread's samples table will have: a run each, or with sample times
 * a sample each. */
static int ff_count_run(struct ff *s, const struct t2f_cell *c, const struct t2f_log_run *r,
			void *arg)
{
	(void)c;
	*(size_t *)arg += s->timed ? r->samples : 1;
	return 0;
}

/* With sample times: calls fn on each sample of the event in thread t's log, in order, with its
 * time and its weight. A sample without a time (0) takes the time of the one before, the first
 * base_ns. */
int ff_each_sample(struct ff *s, t2f_thread_id t, ff_sample_fn fn, void *arg)
{
	size_t n = t2f_profile__thread_run_count(s->p, t);
	struct t2f_time_cursor k;
	uint64_t at = s->base_ns, time, weight;

	t2f_profile__time_cursor(s->p, t, &k);
	for (size_t from = 0; from < n && !s->err; from += FF_BATCH) {
		size_t m = n - from < FF_BATCH ? n - from : FF_BATCH;

		t2f_profile__sample_runs(s->p, t, from, m, s->runs);
		for (size_t i = 0; i < m; i++) {
			const struct t2f_cell *c = t2f_profile__cell_at(s->p, s->runs[i].cell);

			for (uint32_t j = 0; j < s->runs[i].samples; j++) {
				t2f_time_log__next(&k, &time, &weight);
				at = time ? time : at;
				if (c->event == s->event)
					fn(s, c, at, weight, arg);
			}
		}
	}
	return s->err;
}

struct ff_proc_key {
	int64_t pid;
	uint32_t input;
};

static bool ff_proc_eq(const void *ctx, uint32_t v)
{
	const struct ff *s = ctx;
	const struct ff_proc_key *k = s->t.key;
	const struct t2f_thread *th = t2f_profile__thread_at(s->p, s->threads[v - 1].id);

	return th->pid == k->pid && th->input == k->input;
}

/* The threads with runs of the event, each with the first of its process (same pid and input),
 * and that first one with the thread naming the process: the last one whose tid is the pid (a
 * process that exec'd, `bash` then `java`, shows its comm after the exec, as ps does), else
 * itself. */
static int ff_pick_threads(struct ff *s)
{
	uint32_t n = t2f_profile__thread_count(s->p);
	struct t2f_hashmap *procs = NULL;
	int err;

	s->threads = calloc((size_t)n + 1, sizeof(*s->threads));
	if (!s->threads)
		return -ENOMEM;
	err = t2f_hashmap__new(64, &procs);
	for (t2f_thread_id t = 1; t <= n && !err; t++) {
		const struct t2f_thread *th = t2f_profile__thread_at(s->p, t);
		struct ff_proc_key k = { .pid = th->pid, .input = th->input };
		struct ff_thread *ft = &s->threads[s->nthreads];
		uint64_t h = t2f_hash_u64((uint64_t)th->pid ^ (uint64_t)th->input << 48);
		struct ff_thread *first;
		uint32_t v;

		*ft = (struct ff_thread){ .id = t, .process = t, .first = s->nthreads };
		err = ff_each_run(s, t, ff_count_run, &ft->runs);
		if (err || !ft->runs)
			continue;
		s->t.key = &k;
		v = t2f_hashmap__find(procs, h, ff_proc_eq, s);
		if (!v)
			err = t2f_hashmap__insert(procs, h, s->nthreads + 1);
		else
			ft->first = v - 1;
		first = &s->threads[ft->first];
		if (th->pid != T2F_PID_UNKNOWN && th->tid == th->pid)
			first->process = t;
		s->nthreads++;
	}
	t2f_hashmap__free(procs);
	return err;
}

/* Without sample times (folded stacks): the time a run starts at, in ns, and the next run's. A
 * thread's runs follow each other from 0, each as long as its weight (ns periods) or 1 ms a
 * sample or count. */
static uint64_t ff_advance(const struct ff *s, const struct t2f_log_run *r)
{
	if (s->ns_time)
		return r->weight;
	return t2f_sat_mul(s->mode == FF_W_COUNTS ? r->weight : r->samples, FF_NS_PER_MS);
}

static int ff_stack_col(struct ff *s, const struct t2f_cell *c, const struct t2f_log_run *r,
			void *arg)
{
	bool *first = arg;

	(void)r;
	ff_puts(s, *first ? "" : ",");
	*first = false;
	if (c->node)
		ff_u64(s, s->t.node_stack[c->node] - 1);
	else
		ff_puts(s, "null"); /* a sample without a call chain */
	return 0;
}

static int ff_time_col(struct ff *s, const struct t2f_cell *c, const struct t2f_log_run *r,
		       void *arg)
{
	uint64_t *at = arg;

	(void)c;
	ff_puts(s, at[1] ? "," : "");
	at[1] = 1;
	ff_ms(s, at[0]);
	at[0] = t2f_sat_add(at[0], ff_advance(s, r));
	return 0;
}

static int ff_weight_col(struct ff *s, const struct t2f_cell *c, const struct t2f_log_run *r,
			 void *arg)
{
	bool *first = arg;

	(void)c;
	ff_puts(s, *first ? "" : ",");
	*first = false;
	if (s->mode == FF_W_NS)
		ff_ms(s, r->weight);
	else
		ff_u64(s, s->mode == FF_W_SAMPLES ? r->samples : r->weight);
	return 0;
}

/* The columns with sample times: a sample each. */
static void ff_sample_stack(struct ff *s, const struct t2f_cell *c, uint64_t time_ns,
			    uint64_t weight, void *arg)
{
	(void)time_ns, (void)weight;
	ff_stack_col(s, c, NULL, arg);
}

static void ff_sample_time(struct ff *s, const struct t2f_cell *c, uint64_t time_ns,
			   uint64_t weight, void *arg)
{
	bool *first = arg;

	(void)c, (void)weight;
	ff_puts(s, *first ? "" : ",");
	*first = false;
	ff_ms(s, time_ns > s->base_ns ? time_ns - s->base_ns : 0);
}

static void ff_sample_weight(struct ff *s, const struct t2f_cell *c, uint64_t time_ns,
			     uint64_t weight, void *arg)
{
	bool *first = arg;

	(void)c, (void)time_ns;
	ff_puts(s, *first ? "" : ",");
	*first = false;
	if (s->mode == FF_W_NS)
		ff_ms(s, weight);
	else
		ff_u64(s, s->mode == FF_W_SAMPLES ? 1 : weight);
}


/* The stack, time and weight columns of thread t's samples table. */
static int ff_write_columns(struct ff *s, t2f_thread_id t)
{
	uint64_t at[2] = { 0, 0 };
	bool first = true;
	int err;

	ff_puts(s, ",\"stack\":[");
	err = s->timed ? ff_each_sample(s, t, ff_sample_stack, &first)
		       : ff_each_run(s, t, ff_stack_col, &first);
	ff_puts(s, "],\"time\":[");
	first = true;
	if (!err)
		err = s->timed ? ff_each_sample(s, t, ff_sample_time, &first)
			       : ff_each_run(s, t, ff_time_col, at);
	ff_puts(s, "],\"weight\":[");
	first = true;
	if (!err)
		err = s->timed ? ff_each_sample(s, t, ff_sample_weight, &first)
			       : ff_each_run(s, t, ff_weight_col, &first);
	if (!err && s->cpu_deltas)
		err = ff_write_cpu_column(s, t);
	ff_puts(s, "]},\n");
	return err;
}

static void ff_pid(struct ff *s, const struct t2f_thread *th)
{
	char pid[48];

	if (th->pid == T2F_PID_UNKNOWN)
		snprintf(pid, sizeof(pid), th->input ? "unknown.%" PRIu32 : "unknown", th->input);
	else if (th->input)
		snprintf(pid, sizeof(pid), "%" PRId64 ".%" PRIu32, th->pid, th->input);
	else
		snprintf(pid, sizeof(pid), "%" PRId64, th->pid);
	ff_cstr(s, pid);
}

/* A marker column: ",\"NAME\":[", the lost-samples marker's value `lost` (NULL: none), each
 * wait's of waits [from, to), "]". */
static void ff_marker_col(struct ff *s, const char *name, const char *lost, size_t from,
			  size_t to, void (*v)(struct ff *s, const struct t2f_wait_span *w))
{
	ff_puts(s, ",\"");
	ff_puts(s, name);
	ff_puts(s, "\":[");
	ff_puts(s, lost ? lost : "");
	for (size_t i = from; i < to; i++) {
		ff_puts(s, lost || i > from ? "," : "");
		v(s, t2f_profile__wait_at(s->p, s->waits[i].idx));
	}
	ff_puts(s, "]");
}

static void ff_wait_data(struct ff *s, const struct t2f_wait_span *w)
{
	const char *state = w->state == T2F_STATE_R ? "R" : w->state == T2F_STATE_S ? "S" :
			    w->state == T2F_STATE_D ? "D" : "O";

	ff_puts(s, "{\"type\":\"" FF_OFF_SCHEMA "\",\"state\":\"");
	ff_puts(s, state);
	ff_puts(s, "\",\"duration\":");
	ff_ms(s, w->end_ns - w->start_ns);
	ff_puts(s, "}");
}

static void ff_wait_name(struct ff *s, const struct t2f_wait_span *w)
{
	(void)w;
	ff_u64(s, s->off_name);
}

static void ff_wait_start(struct ff *s, const struct t2f_wait_span *w)
{
	ff_ms(s, w->start_ns > s->base_ns ? w->start_ns - s->base_ns : 0);
}

static void ff_wait_end(struct ff *s, const struct t2f_wait_span *w)
{
	ff_ms(s, w->end_ns > s->base_ns ? w->end_ns - s->base_ns : 0);
}

static void ff_wait_phase(struct ff *s, const struct t2f_wait_span *w)
{
	(void)w;
	ff_puts(s, "1"); /* an interval */
}

static void ff_wait_category(struct ff *s, const struct t2f_wait_span *w)
{
	(void)w;
	ff_puts(s, "0");
}

/* The time ns as ms after base_ns, as ff_ms writes it, into out. */
static void ff_lost_ms(const struct ff *s, char *out, size_t size, uint64_t ns)
{
	ff_ms_text(out, size, ns > s->base_ns ? ns - s->base_ns : 0);
}

void ff_thread_waits(struct ff *s, t2f_thread_id t, size_t *from, size_t *to)
{
	while (s->next_wait < s->nwaits && s->waits[s->next_wait].thread < t)
		s->next_wait++; /* waits of threads without samples of the event */
	*from = *to = s->next_wait;
	while (*to < s->nwaits && s->waits[*to].thread == t)
		(*to)++;
}

/* The markers of the i-th thread written (profile thread t): what perf lost, on the first (an
 * interval over the times of the records that said so, when samples have times and those records
 * carried one; else an instant at 0), then the thread's off-CPU waits by start time (interval markers). */
static void ff_write_markers(struct ff *s, uint32_t i, t2f_thread_id t)
{
	const struct t2f_lost *l = t2f_profile__lost(s->p);
	bool lost = i == 0 && (l->records || l->events || l->samples);
	char data[160], name[16], start[48], end[48];
	bool lost_span = false;
	size_t from, to;

	ff_thread_waits(s, t, &from, &to);
	s->next_wait = to;
	ff_puts(s, "\"markers\":{\"length\":");
	ff_u64(s, lost + (to - from));
	if (lost) {
		snprintf(data, sizeof(data), "{\"type\":\"" FF_LOST_SCHEMA "\",\"records\":%" PRIu64
			 ",\"events\":%" PRIu64 ",\"samples\":%" PRIu64 "}", l->records, l->events,
			 l->samples);
		snprintf(name, sizeof(name), "%" PRIu32, s->lost_name);
		lost_span = s->timed && l->first_ns;
	}
	ff_marker_col(s, "data", lost ? data : NULL, from, to, ff_wait_data);
	ff_marker_col(s, "name", lost ? name : NULL, from, to, ff_wait_name);
	if (lost_span) { /* an interval from the first record that said so to the last */
		ff_lost_ms(s, start, sizeof(start), l->first_ns);
		ff_lost_ms(s, end, sizeof(end), l->last_ns);
	}
	ff_marker_col(s, "startTime", !lost ? NULL : lost_span ? start : "0", from, to,
		      ff_wait_start);
	ff_marker_col(s, "endTime", !lost ? NULL : lost_span ? end : "null", from, to, ff_wait_end);
	ff_marker_col(s, "phase", !lost ? NULL : lost_span ? "1" : "0", from, to, ff_wait_phase);
	ff_marker_col(s, "category", lost ? "0" : NULL, from, to, ff_wait_category);
	ff_puts(s, "}");
}

static int ff_write_thread(struct ff *s, uint32_t i)
{
	const struct ff_thread *ft = &s->threads[i];
	const struct t2f_thread *th = t2f_profile__thread_at(s->p, ft->id);
	const struct t2f_thread *proc =
		t2f_profile__thread_at(s->p, s->threads[ft->first].process);
	int err;

	ff_puts(s, i ? ",\n{" : "\n{");
	ff_puts(s, "\"processType\":\"default\",\"processStartupTime\":0,\"processShutdownTime\":"
		"null,\"registerTime\":0,\"unregisterTime\":null,\"pausedRanges\":[],\"name\":");
	ff_pstr(s, th->comm);
	ff_puts(s, ",\"isMainThread\":");
	ff_puts(s, th->pid != T2F_PID_UNKNOWN && th->tid == th->pid ? "true" : "false");
	ff_puts(s, ",\"processName\":");
	ff_pstr(s, proc->comm);
	ff_puts(s, ",\"pid\":");
	ff_pid(s, th);
	ff_puts(s, ",\"tid\":");
	if (th->tid == T2F_PID_UNKNOWN)
		ff_u64(s, ft->id); /* no tid given: the thread's number */
	else
		ff_i64(s, th->tid);
	ff_puts(s, ",\n\"samples\":{\"weightType\":");
	ff_puts(s, s->mode == FF_W_NS ? "\"tracing-ms\"" : "\"samples\"");
	ff_puts(s, ",\"length\":");
	ff_u64(s, ft->runs);
	err = ff_write_columns(s, ft->id);
	ff_write_markers(s, i, ft->id);
	ff_puts(s, "}");
	return err ?: s->err;
}

/* A profile without samples of the event: one thread without samples, as the profiler loads no
 * profile without threads. */
static void ff_write_empty_thread(struct ff *s)
{
	ff_puts(s, "\n{\"processType\":\"default\",\"processStartupTime\":0,"
		"\"processShutdownTime\":null,\"registerTime\":0,\"unregisterTime\":null,"
		"\"pausedRanges\":[],\"name\":\"no samples\",\"isMainThread\":false,"
		"\"processName\":\"no samples\",\"pid\":\"unknown\",\"tid\":0,\n\"samples\":"
		"{\"weightType\":\"samples\",\"length\":0,\"stack\":[],\"time\":[],\"weight\":[]},\n");
	ff_write_markers(s, 0, 0);
	ff_puts(s, "}");
}

/* ---- the shared tables ---- */

#define FF_ADDR_MAX UINT32_MAX /* the profiler keeps addresses in 32-bit arrays */

/* Writes ",\"name\":[v(0),...,v(n-1)]". */
static void ff_col(struct ff *s, const char *name, uint32_t n,
		   void (*v)(struct ff *s, uint32_t i))
{
	ff_puts(s, ",\"");
	ff_puts(s, name);
	ff_puts(s, "\":[");
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			ff_put(s, ",", 1);
		v(s, i);
	}
	ff_puts(s, "]");
}

/* Writes ",\"name\":[c,c,...]" (n times the constant c). */
static void ff_const_col(struct ff *s, const char *name, uint32_t n, const char *c)
{
	size_t len = strlen(c);

	ff_puts(s, ",\"");
	ff_puts(s, name);
	ff_puts(s, "\":[");
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			ff_put(s, ",", 1);
		ff_put(s, c, len);
	}
	ff_puts(s, "]");
}

static void ff_opt(struct ff *s, bool has, uint64_t v)
{
	if (has)
		ff_u64(s, v);
	else
		ff_puts(s, "null");
}

static void ff_stack_frame(struct ff *s, uint32_t i)
{
	ff_u64(s, s->t.stack_frame[i]);
}

static void ff_stack_prefix(struct ff *s, uint32_t i)
{
	t2f_node_id parent = t2f_profile__node_parent(s->p, s->t.stack_node[i]);

	ff_u64(s, parent ? i - (s->t.node_stack[parent] - 1) : 0);
}

static void ff_frame_address(struct ff *s, uint32_t i)
{
	const struct ff_frame *r = &s->t.frames[i];
	const struct t2f_frame *f = t2f_profile__frame_at(s->p, r->frame);

	if (r->lib >= 0 && f->has_addr && f->space == T2F_SPACE_FILE_OFF &&
	    f->kind != T2F_FRAME_INLINED && f->addr <= FF_ADDR_MAX)
		ff_u64(s, f->addr);
	else
		ff_puts(s, "-1");
}

static void ff_frame_lib(struct ff *s, uint32_t i)
{
	ff_i64(s, s->t.frames[i].lib);
}

static void ff_frame_depth(struct ff *s, uint32_t i)
{
	ff_u64(s, s->t.frames[i].depth);
}

static void ff_frame_category(struct ff *s, uint32_t i)
{
	enum ff_category c = ff_category_of(t2f_profile__frame_at(s->p, s->t.frames[i].frame)->kind);

	ff_opt(s, c != FF_CAT__COUNT, c);
}

static void ff_frame_subcategory(struct ff *s, uint32_t i)
{
	enum ff_category c = ff_category_of(t2f_profile__frame_at(s->p, s->t.frames[i].frame)->kind);

	ff_opt(s, c != FF_CAT__COUNT, 0);
}

static void ff_frame_func(struct ff *s, uint32_t i)
{
	ff_u64(s, s->t.frames[i].func);
}

static void ff_frame_line(struct ff *s, uint32_t i)
{
	const struct t2f_frame *f = t2f_profile__frame_at(s->p, s->t.frames[i].frame);

	ff_opt(s, f->line != 0, f->line);
}

static void ff_func_name(struct ff *s, uint32_t i)
{
	ff_u64(s, s->t.funcs[i].name);
}

static void ff_func_resource(struct ff *s, uint32_t i)
{
	ff_i64(s, s->t.funcs[i].lib);
}

static void ff_func_source(struct ff *s, uint32_t i)
{
	ff_opt(s, s->t.funcs[i].source >= 0, (uint64_t)s->t.funcs[i].source);
}

static void ff_func_line(struct ff *s, uint32_t i)
{
	ff_opt(s, s->t.funcs[i].line != 0, s->t.funcs[i].line);
}

static void ff_lib_name(struct ff *s, uint32_t i)
{
	ff_u64(s, s->t.libs[i].name);
}

static void ff_source_file(struct ff *s, uint32_t i)
{
	ff_u64(s, s->t.sources[i]);
}

static void ff_string(struct ff *s, uint32_t i)
{
	size_t len;
	const char *str = t2f_strtab__str(s->t.strs, i + 1, &len);

	ff_str(s, str, len);
}

static void ff_write_shared(struct ff *s)
{
	uint32_t n = s->t.nstacks;

	ff_puts(s, "\"shared\":{\"stackTable\":{\"length\":");
	ff_u64(s, n);
	ff_col(s, "frame", n, ff_stack_frame);
	ff_col(s, "prefixOffset", n, ff_stack_prefix);
	n = s->t.nframes;
	ff_puts(s, "},\n\"frameTable\":{\"length\":");
	ff_u64(s, n);
	ff_col(s, "address", n, ff_frame_address);
	ff_col(s, "lib", n, ff_frame_lib);
	ff_col(s, "inlineDepth", n, ff_frame_depth);
	ff_col(s, "category", n, ff_frame_category);
	ff_col(s, "subcategory", n, ff_frame_subcategory);
	ff_col(s, "func", n, ff_frame_func);
	ff_const_col(s, "nativeSymbol", n, "null");
	ff_const_col(s, "innerWindowID", n, "0");
	ff_col(s, "line", n, ff_frame_line);
	ff_const_col(s, "column", n, "null");
	ff_const_col(s, "originalLocation", n, "null");
	n = s->t.nfuncs;
	ff_puts(s, "},\n\"funcTable\":{\"length\":");
	ff_u64(s, n);
	ff_col(s, "name", n, ff_func_name);
	ff_const_col(s, "isJS", n, "false");
	ff_const_col(s, "relevantForJS", n, "false");
	ff_col(s, "resource", n, ff_func_resource);
	ff_col(s, "source", n, ff_func_source);
	ff_col(s, "lineNumber", n, ff_func_line);
	ff_const_col(s, "columnNumber", n, "null");
	ff_const_col(s, "originalLocation", n, "null");
	n = s->t.nlibs;
	ff_puts(s, "},\n\"resourceTable\":{\"length\":");
	ff_u64(s, n);
	ff_col(s, "name", n, ff_lib_name);
	ff_const_col(s, "host", n, "null");
	ff_const_col(s, "type", n, "1"); /* a library */
	ff_puts(s, "},\n\"nativeSymbols\":{\"length\":0,\"libIndex\":[],\"address\":[],\"name\":[],"
		"\"functionSize\":[]},\n\"sources\":{\"length\":");
	n = s->t.nsources;
	ff_u64(s, n);
	ff_const_col(s, "id", n, "null");
	ff_col(s, "filename", n, ff_source_file);
	ff_const_col(s, "startLine", n, "1");
	ff_const_col(s, "startColumn", n, "1");
	ff_const_col(s, "sourceMapURL", n, "null");
	ff_const_col(s, "content", n, "null");
	ff_puts(s, "},\n\"sourceLocationTable\":{\"length\":0,\"source\":[],\"line\":[],"
		"\"column\":[]},\n\"stringArray\":[");
	n = t2f_strtab__count(s->t.strs);
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			ff_put(s, ",", 1);
		ff_string(s, i);
	}
	ff_puts(s, "]}}\n");
}

/* ---- the whole ---- */

static enum ff_weight ff_weight_mode(const struct ff *s, const struct t2f_event *ev)
{
	if (s->o->weight_samples)
		return FF_W_SAMPLES;
	if (!ev || !ev->has_period)
		return FF_W_COUNTS;
	return ev->unit == T2F_UNIT_NANOSECONDS ? FF_W_NS : FF_W_PERIODS;
}

static int ff_wait_cmp(const void *a, const void *b)
{
	const struct ff_wait *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The profile's off-CPU waits by thread and start, and their markers' name. */
static int ff_sort_waits(struct ff *s)
{
	size_t n = t2f_profile__wait_count(s->p);

	if (!n)
		return 0;
	s->waits = calloc(n, sizeof(*s->waits));
	if (!s->waits)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct t2f_wait_span *w = t2f_profile__wait_at(s->p, i);

		s->waits[i] = (struct ff_wait){ w->thread, w->start_ns, i };
	}
	qsort(s->waits, n, sizeof(*s->waits), ff_wait_cmp);
	s->nwaits = n;
	return ff_tables__str(&s->t, "Off-CPU", strlen("Off-CPU"), &s->off_name);
}

static int ff_write(struct ff *s, struct t2f_out *out)
{
	uint64_t last;

	const struct t2f_event *ev = NULL;
	struct t2f_frame_name_opts names = { .addrs = s->o->addrs };
	int err;

	if (s->event <= t2f_profile__event_count(s->p))
		ev = t2f_profile__event_at(s->p, s->event);
	s->mode = ff_weight_mode(s, ev);
	s->ns_time = ev && ev->has_period && ev->unit == T2F_UNIT_NANOSECONDS;
	s->timed = t2f_profile__sample_times(s->p) &&
		   t2f_profile__time_span(s->p, &s->base_ns, &last);
	s->runs = calloc(FF_BATCH, sizeof(*s->runs));
	if (!s->runs)
		return -ENOMEM;
	err = ff_tables__build(&s->t, s->p, s->event, &names) ?: ff_pick_threads(s) ?:
	      ff_tables__str(&s->t, "Lost samples", strlen("Lost samples"), &s->lost_name) ?:
	      ff_sort_waits(s) ?:
	      t2f_pprof_gz__new(out, s->o->gzip ? T2F_PPROF_GZIP_ZLIB : T2F_PPROF_RAW, &s->gz);
	if (err)
		return err;
	s->cpu_deltas = ff_cpu_deltas(s);
	ff_write_meta(s);
	ff_write_libs(s);
	ff_puts(s, "\"threads\":[");
	for (uint32_t i = 0; i < s->nthreads && !err; i++)
		err = ff_write_thread(s, i);
	if (!s->nthreads)
		ff_write_empty_thread(s);
	ff_puts(s, "],\n");
	if (!err)
		ff_write_shared(s);
	return err ?: s->err ?: t2f_pprof_gz__finish(s->gz, &s->b);
}

int t2f_firefox__write(const struct t2f_profile *p, const struct t2f_firefox_opts *o,
		       struct t2f_out *out)
{
	static const struct t2f_firefox_opts defaults;
	struct ff s = { .p = p };
	int err;

	s.o = o ? o : &defaults;
	s.event = s.o->event ? s.o->event : 1;
	if (s.o->event > t2f_profile__event_count(p) || !t2f_profile__log_enabled(p))
		return -EINVAL;
	err = ff_write(&s, out);
	ff_tables__free(&s.t);
	t2f_pprof_gz__free(s.gz);
	t2f_buf__free(&s.b);
	t2f_buf__free(&s.utf8);
	free(s.threads);
	free(s.runs);
	free(s.waits);
	return err;
}
