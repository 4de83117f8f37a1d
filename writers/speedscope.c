/* writers/speedscope.c: speedscope JSON, streamed.
 *
 * Layout written: one line for the header, one per frame and one per profile, so golden files
 * diff well (the header and profile lines are wrapped here):
 *   {"$schema":"https://www.speedscope.app/file-format-schema.json","exporter":"trace2flame@V",
 *    "name":"...","activeProfileIndex":N,
 *   "shared":{"frames":[
 *   {"name":"main","file":"/bin/app"},
 *   {"name":"parse","file":"src/parse.c","line":42},
 *   {"name":"[unknown]"}]},
 *   "profiles":[
 *   {"type":"sampled","name":"app (pid 1, tid 2)","unit":"nanoseconds","startValue":0,
 *    "endValue":30,"samples":[[0,1],[0]],"weights":[10,20]}]}
 *
 * A thread's items are its log's runs (the log keeps each thread's samples in input order, equal
 * ones in a row as one run), or without a log its cells. Passes: (1) one scan over the items (or
 * the cells when they tell the same) sums each thread's weight, marks the stack nodes in use and
 * their frames, and finds the deepest stack; (2) used frames get shared indices, one per
 * object written (display name, file, line), in the order of each object's first frame; (3) each
 * used node's stack text is made once (writers/speedscope_stacks.h) and nodes written alike
 * become one; (4) the output is written, each thread's items read in order twice (samples, then
 * weights), a stack's text copied.
 * Nothing is allocated per sample. Speedscope drops weight-0 samples, so they are skipped here.
 */
#include "writers/speedscope.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "formats/buf.h"
#include "formats/decimal.h"
#include "formats/diag.h"
#include "formats/grow.h"
#include "formats/utf8.h"
#include "formats/sat.h"
#include "formats/hashmap.h"
#include "formats/mem.h"
#include "writers/frame_name.h"
#include "writers/par_text.h"
#include "writers/speedscope_evented.h"
#include "writers/speedscope_frames.h"
#include "writers/speedscope_stacks.h"

#define SS_SCHEMA "https://www.speedscope.app/file-format-schema.json"
#define SS_JSON_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)
#define SS_STACK_TEXT_BUDGET (32u << 20) /* bytes of stack texts kept (writers/speedscope_stacks.h) */

/* A piece of the profiles' text: the samples or weights of the runs that start in items
 * [begin, end) of thread `thread`, whose items are [0, stop), after heads[head_off, + head_len);
 * `last`: the list's last piece. */
struct ss_job {
	t2f_thread_id thread;
	uint32_t begin, end, stop;
	bool weights, last;
	size_t head_off, head_len;
};

struct ss {
	const struct t2f_profile *p;
	struct t2f_out *out;
	t2f_event_id event;
	const struct t2f_event *ev;  /* NULL for a profile without events */
	bool counts;               /* weights are sample counts */
	bool use_log;              /* items are log entries (else cells) */
	bool addrs;                /* t2f_speedscope_opts.addrs */
	bool evented;              /* t2f_speedscope_opts.evented, with sample times kept */
	uint32_t thread_count;
	struct t2f_frame_names *names;
	uint32_t *frame_shared;    /* per frame id: shared index + 1; 0 = not written */
	t2f_frame_id *shared_repr; /* per shared index: the first frame id written as it */
	uint32_t shared_count;
	uint64_t *totals;          /* per thread id: sum of its weights */
	uint32_t *cell_start;      /* without a log, per thread id t: its items are the cells */
	uint32_t *cell_bucket;     /*   cell_bucket[cell_start[t] .. cell_start[t + 1]) */
	struct ss_cell *cells;     /* per cell index */
	struct ss_stacks *stacks;  /* each used node's stack text */
	uint32_t *item_nodes;      /* the distinct nodes of items, in order of first use */
	uint32_t item_node_count;
	unsigned threads;          /* formatting the items */
	uint32_t *scratch;         /* per thread: max_depth + 1 entries for ss_stacks__put */
	struct t2f_buf heads;      /* the profiles' texts before their samples */
	struct ss_job *jobs;       /* pieces of the profiles' text, in order */
	size_t job_count, job_cap;
	size_t *group_start;       /* jobs made as one piece: [group_start[g], group_start[g + 1]) */
	size_t group_count;
	size_t group_most;         /* the items of the largest piece */
	uint32_t max_depth;
	struct t2f_buf name_buf;   /* a profile's name */
	struct t2f_buf utf8_buf;   /* a string with invalid UTF-8 replaced */
	struct t2f_buf plain_buf;  /* a string that needs no escaping, quoted */
	struct json_object *jstr;  /* reused to escape strings */
};

/* A cell as the items need it; thread 0: not a sample of the written event. */
struct ss_cell {
	t2f_node_id node;
	t2f_thread_id thread;
	uint64_t samples, weight;
};

struct ss_item {
	t2f_node_id node;
	t2f_thread_id thread;
	uint64_t weight;
};

#define SS_BATCH 512           /* items read at a time */
#define SS_WRITE_BATCH 65536   /* items of a piece of text (writers/par_text.h) */

/* How many items thread t has. */
static size_t ss_item_count(const struct ss *s, t2f_thread_id t)
{
	if (s->use_log)
		return t2f_profile__thread_run_count(s->p, t);
	return s->cell_start[t + 1] - s->cell_start[t];
}

/* Thread t's items [from, from + n). An item that is not a sample of the written event, or weighs
 * 0 (speedscope silently drops weight 0; periods of 0 cannot normally happen), gets weight 0. */
static void ss_items(const struct ss *s, t2f_thread_id t, size_t from, size_t n,
		     struct ss_item *it)
{
	struct t2f_log_run runs[SS_BATCH];

	if (s->use_log) {
		t2f_profile__sample_runs(s->p, t, from, n, runs);
	} else {
		for (size_t i = 0; i < n; i++) {
			uint32_t cell = s->cell_bucket[s->cell_start[t] + from + i];

			runs[i] = (struct t2f_log_run){ cell, 0, s->cells[cell].weight };
		}
	}
	for (size_t i = 0; i < n; i++) {
		const struct ss_cell *c = &s->cells[runs[i].cell];

		it[i].node = c->node;
		it[i].thread = c->thread;
		it[i].weight = !c->thread ? 0 : !s->counts ? runs[i].weight :
			       s->use_log ? runs[i].samples : c->samples;
	}
}

/* Whether str is ASCII that json-c would write as it is: no control character, '"' or '\\' (it
 * escapes no other byte under JSON_C_TO_STRING_NOSLASHESCAPE). */
static bool ss_plain(const char *str, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)str[i];

		if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\')
			return false;
	}
	return true;
}

/* str as a JSON string, in *json (valid until the next call). Most names are plain ASCII
 * (ss_plain), only quoted: checking their UTF-8 a sequence at a time and json-c's conversion
 * took 1,700 instructions a frame name of 60 bytes. So is "" (json-c 0.16 loses its buffer
 * when set to "" after a long string). Others are escaped by json-c, which passes bytes ≥ 0x80
 * through unchecked, hence the UTF-8 repair first. 0 or -ENOMEM. */
static int ss_json(struct ss *s, const char *str, size_t len, const char **json, size_t *json_len)
{
	int err;

	if (ss_plain(str, len)) {
		s->plain_buf.len = 0;
		if (t2f_buf__put(&s->plain_buf, "\"", 1) || t2f_buf__put(&s->plain_buf, str, len) ||
		    t2f_buf__put(&s->plain_buf, "\"", 1))
			return -ENOMEM;
		*json = s->plain_buf.p;
		*json_len = s->plain_buf.len;
		return 0;
	}
	if (!t2f_utf8_valid(str, len)) {
		err = t2f_utf8_repair(&s->utf8_buf, str, len);
		if (err)
			return err;
		str = s->utf8_buf.p;
		len = s->utf8_buf.len;
	}
	if (len > INT_MAX || !json_object_set_string_len(s->jstr, str, (int)len))
		return -ENOMEM;
	*json = json_object_to_json_string_length(s->jstr, SS_JSON_FLAGS, json_len);
	return *json ? 0 : -ENOMEM;
}

/* Writes str as a JSON string. */
static int ss_put_string(struct ss *s, const char *str, size_t len)
{
	const char *json;
	size_t json_len;
	int err = ss_json(s, str, len, &json, &json_len);

	if (!err)
		t2f_out__write(s->out, json, json_len);
	return err;
}

/* Marks the frames of node and its ancestors as used (once per node) and tracks the depth. */
static void ss_mark_stack(struct ss *s, uint8_t *seen, t2f_node_id node)
{
	uint32_t depth = t2f_profile__node_depth(s->p, node);

	if (depth > s->max_depth)
		s->max_depth = depth;
	for (; node && !seen[node]; node = t2f_profile__node_parent(s->p, node)) {
		seen[node] = 1;
		s->frame_shared[t2f_profile__node_frame(s->p, node)] = 1;
	}
}

/* Counts items of `node` on thread t weighing `weight` in all. seen: 1 = the node's frames are
 * marked; 2 = also listed in item_nodes. */
static void ss_count(struct ss *s, uint8_t *seen, t2f_thread_id t, t2f_node_id node,
		     uint64_t weight)
{
	s->totals[t] = t2f_sat_add(s->totals[t], weight);
	if (seen[node] == 2)
		return;
	ss_mark_stack(s, seen, node);
	seen[node] = 2;
	s->item_nodes[s->item_node_count++] = node;
}

/* Without weight-0 samples, a thread's items are the samples of its cells: scanned from the
 * cells, not from every logged sample. */
static bool ss_cells_suffice(const struct ss *s)
{
	return s->use_log && (s->counts || !t2f_profile__weightless_samples(s->p));
}

/* Pass 1: per-thread totals, used frames, max depth. */
static int ss_scan(struct ss *s)
{
	size_t nodes = (size_t)t2f_profile__node_count(s->p) + 1;
	uint8_t *seen = calloc(nodes, 1);
	struct ss_item it[SS_BATCH];

	s->item_nodes = malloc(nodes * sizeof(*s->item_nodes));
	if (!seen || !s->item_nodes) {
		free(seen);
		return -ENOMEM;
	}
	seen[0] = 2; /* the empty stack has no frames */
	if (ss_cells_suffice(s)) {
		for (size_t i = 0; i < t2f_profile__cell_count(s->p); i++) {
			const struct ss_cell *c = &s->cells[i];

			if (c->thread && c->samples)
				ss_count(s, seen, c->thread, c->node,
					 s->counts ? c->samples : c->weight);
		}
	}
	for (t2f_thread_id t = 1; !ss_cells_suffice(s) && t <= s->thread_count; t++) {
		size_t count = ss_item_count(s, t);

		for (size_t from = 0, n; from < count; from += n) {
			n = count - from < SS_BATCH ? count - from : SS_BATCH;
			ss_items(s, t, from, n, it);
			for (size_t i = 0; i < n; i++)
				if (it[i].weight)
					ss_count(s, seen, t, it[i].node, it[i].weight);
		}
	}
	free(seen);
	return 0;
}

/* Without a log: the cells of the written event grouped by thread (in cell order). */
static int ss_group_cells(struct ss *s)
{
	size_t n = t2f_profile__cell_count(s->p);
	uint32_t *start = s->cell_start, at;

	s->cell_bucket = malloc((n ? n : 1) * sizeof(*s->cell_bucket));
	if (!s->cell_bucket)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		start[s->cells[i].thread + 1] += s->cells[i].thread != 0;
	for (t2f_thread_id t = 1; t <= s->thread_count + 1; t++)
		start[t] += start[t - 1];
	for (size_t i = 0; i < n; i++) {
		t2f_thread_id t = s->cells[i].thread;

		if (t) {
			at = start[t]++;
			s->cell_bucket[at] = (uint32_t)i;
		}
	}
	for (t2f_thread_id t = s->thread_count + 1; t > 0; t--) /* back to each thread's start */
		start[t] = start[t - 1];
	start[0] = 0;
	return 0;
}

/* The kernel's idle task (perf's "swapper", pid 0 / tid 0): a whole-machine recording's
 * heaviest thread, and the least interesting one. */
static bool ss_idle(const struct ss *s, t2f_thread_id t)
{
	const struct t2f_thread *th = t2f_profile__thread_at(s->p, t);

	return th->pid == 0 || (th->pid == T2F_PID_UNKNOWN && th->tid == 0);
}

/* activeProfileIndex: the position among written profiles of the heaviest thread that is not
 * idle (first on ties); of the heaviest when every thread is idle. */
static uint32_t ss_heaviest(const struct ss *s)
{
	uint32_t idx = 0, best = 0;
	uint64_t best_total = 0;
	bool best_busy = false;

	for (t2f_thread_id t = 1; t <= s->thread_count; t++) {
		bool busy;

		if (!s->totals[t])
			continue;
		busy = !ss_idle(s, t);
		if (busy > best_busy || (busy == best_busy && s->totals[t] > best_total)) {
			best = idx;
			best_total = s->totals[t];
			best_busy = busy;
		}
		idx++;
	}
	return best;
}

static int ss_write_header(struct ss *s, const char *name)
{
	int err;

	t2f_out__puts(s->out, "{\"$schema\":\"" SS_SCHEMA "\",\"exporter\":");
	err = ss_put_string(s, "trace2flame@" T2F_VERSION, strlen("trace2flame@" T2F_VERSION));
	if (err)
		return err;
	t2f_out__puts(s->out, ",\"name\":");
	err = ss_put_string(s, name, strlen(name));
	if (err)
		return err;
	t2f_out__puts(s->out, ",\"activeProfileIndex\":");
	t2f_out__u64(s->out, ss_heaviest(s));
	t2f_out__puts(s->out, ",\n");
	return 0;
}

static int ss_write_frames(struct ss *s)
{
	t2f_str_id file;
	uint32_t line;
	const char *str;
	size_t len;
	int err;

	t2f_out__puts(s->out, "\"shared\":{\"frames\":[");
	for (uint32_t i = 0; i < s->shared_count; i++) {
		t2f_out__puts(s->out, i ? ",\n{\"name\":" : "\n{\"name\":");
		str = t2f_frame_names__get(s->names, s->shared_repr[i], &len);
		err = ss_put_string(s, str, len);
		if (err)
			return err;
		ss_frame_file(s->p, s->shared_repr[i], &file, &line);
		if (file) {
			t2f_out__puts(s->out, ",\"file\":");
			str = t2f_profile__str(s->p, file, &len);
			err = ss_put_string(s, str, len);
			if (err)
				return err;
		}
		if (line) {
			t2f_out__puts(s->out, ",\"line\":");
			t2f_out__u64(s->out, line);
		}
		t2f_out__putc(s->out, '}');
	}
	t2f_out__puts(s->out, "]},\n");
	return 0;
}

/* s (a string literal) at p: its length. */
#define SS_LIT(p, s) (memcpy((p), (s), sizeof(s) - 1), sizeof(s) - 1)

/* The ids a thread's name ends with: " (pid P, tid T)", " (tid T)" when the pid is unknown,
 * " (pid P)" when the tid is, nothing when neither is (folded stacks). Into tail (room for 56
 * bytes); its length. */
static size_t ss_thread_ids(const struct t2f_thread *th, char *tail)
{
	bool pid = th->pid != T2F_PID_UNKNOWN, tid = th->tid != T2F_PID_UNKNOWN;
	size_t n = 0;

	if (!pid && !tid)
		return 0;
	n += pid ? SS_LIT(tail, " (pid ") : SS_LIT(tail, " (tid ");
	n += t2f_dec_i64(tail + n, pid ? th->pid : th->tid);
	if (pid && tid) {
		n += SS_LIT(tail + n, ", tid ");
		n += t2f_dec_i64(tail + n, th->tid);
	}
	tail[n++] = ')';
	return n;
}

/* Appends "comm (pid P, tid T)" as a JSON string to b (ss_thread_ids). A comm that ends with
 * its tid in parentheses (.nettrace's "Thread (7532)") drops it: the ids are said once. */
static int ss_put_thread_name(struct ss *s, const struct t2f_thread *th, struct t2f_buf *b)
{
	char tail[64], own[32];
	size_t comm_len, tail_len = ss_thread_ids(th, tail), json_len, own_len;
	const char *comm = t2f_profile__str(s->p, th->comm, &comm_len), *json;

	own_len = SS_LIT(own, " (");
	own_len += t2f_dec_i64(own + own_len, th->tid);
	own[own_len++] = ')';
	if (tail_len && comm_len > own_len && memcmp(comm + comm_len - own_len, own, own_len) == 0)
		comm_len -= own_len;
	s->name_buf.len = 0;
	if (t2f_buf__put(&s->name_buf, comm, comm_len) || t2f_buf__put(&s->name_buf, tail, tail_len))
		return -ENOMEM;
	return ss_json(s, s->name_buf.p, s->name_buf.len, &json, &json_len) ?:
	       t2f_buf__put(b, json, json_len);
}

/* Weights written lately and their digits, by a hash of the weight: runs weigh a few values
 * (a multiple of the period) again and again. */
#define SS_WEIGHT_SLOTS 16
struct ss_weights {
	struct {
		uint64_t v;
		size_t len;    /* 0: empty */
		char text[24];
	} slot[SS_WEIGHT_SLOTS];
};

#define SS_WEIGHT_ROOM 25 /* bytes reserved per run in a weights piece: a comma and 24 */

/* Appends v in decimal to b; room for 24 bytes more was reserved. */
static void ss_put_weight(struct t2f_buf *b, struct ss_weights *w, uint64_t v)
{
	size_t at = b->len, i = (size_t)((v * 0x9e3779b97f4a7c15ull) >> 60);

	if (w->slot[i].v == v && w->slot[i].len) {
		memcpy(b->p + at, w->slot[i].text, sizeof(w->slot[i].text));
		b->len += w->slot[i].len;
		return;
	}
	b->len += t2f_dec_u64(b->p + at, v);
	w->slot[i].v = v;
	w->slot[i].len = b->len - at;
	memcpy(w->slot[i].text, b->p + at, w->slot[i].len);
}

/* Appends node's stack to b, after a comma if `comma`. 0 or -ENOMEM. */
static int ss_put_stack(const struct ss *s, const struct ss_stack_view *v, t2f_node_id node,
			bool comma, struct t2f_buf *b, uint32_t *scratch)
{
	size_t len = v->len[node];
	const char *text;

	if (!v->off[node])
		return (comma ? t2f_buf__put(b, ",", 1) : 0) ?:
		       ss_stacks__put(s->stacks, node, b, scratch);
	text = v->text + v->off[node] - 1;
	if (b->cap - b->len <= len + SS_STACK_SLACK &&
	    t2f_buf__reserve(b, len + 1 + SS_STACK_SLACK))
		return -ENOMEM;
	b->p[b->len] = ',';
	b->len += comma;
	if (len <= SS_STACK_SLACK) /* one fixed-size move: the bytes past len are overwritten next */
		memcpy(b->p + b->len, text, SS_STACK_SLACK);
	else
		memcpy(b->p + b->len, text, len);
	b->len += len;
	return 0;
}

/* A thread's items read a batch at a time, up to stop. Made by ss_reader_init: a whole-machine
 * recording has thousands of threads with a few items each, and clearing the batch for each of
 * their jobs cost more than reading their items. */
struct ss_reader {
	const struct ss *s;
	t2f_thread_id thread;
	uint32_t stop, base, n;
	struct ss_item it[SS_BATCH];
};

static void ss_reader_init(struct ss_reader *r, const struct ss *s, t2f_thread_id thread,
			   uint32_t stop)
{
	r->s = s;
	r->thread = thread;
	r->stop = stop;
	r->base = 0;
	r->n = 0; /* nothing loaded: it[] is read only once loaded */
}

/* Reads the batch of items from i on, or (back) the one ending at i. */
static void ss_reader_load(struct ss_reader *r, uint32_t i, bool back)
{
	r->base = back ? (i + 1 > SS_BATCH ? i + 1 - SS_BATCH : 0) : i;
	r->n = r->stop - r->base < SS_BATCH ? r->stop - r->base : SS_BATCH;
	ss_items(r->s, r->thread, r->base, r->n, r->it);
}

/* The item at i (< stop), valid until the next call; `back`: reading backwards. */
static inline const struct ss_item *ss_item_at(struct ss_reader *r, uint32_t i, bool back)
{
	if (i - r->base >= r->n) /* also when i < base */
		ss_reader_load(r, i, back);
	return &r->it[i - r->base];
}

/* The run of items with the stack of written item i (weight-0 items inside are passed over): its
 * end and its total weight. */
static uint32_t ss_run(struct ss_reader *r, uint32_t i, uint64_t *weight)
{
	t2f_node_id node = ss_item_at(r, i, false)->node;
	uint64_t w = ss_item_at(r, i, false)->weight;

	for (const struct ss_item *it; ++i < r->stop; w = t2f_sat_add(w, it->weight)) {
		it = ss_item_at(r, i, false);
		if (it->weight && it->node != node)
			break;
	}
	*weight = w;
	return i;
}

/* The first written item in [i, end), or end. */
static uint32_t ss_next_written(struct ss_reader *r, uint32_t i, uint32_t end)
{
	while (i < end && !ss_item_at(r, i, false)->weight)
		i++;
	return i;
}

/* Whether an item before i is written, and the last one's node. */
static bool ss_written_before(struct ss_reader *r, uint32_t i, t2f_node_id *node)
{
	while (i-- > 0) {
		const struct ss_item *it = ss_item_at(r, i, true);

		if (it->weight) {
			*node = it->node;
			return true;
		}
	}
	return false;
}

/* Appends the stacks, or the weights, of job j's runs to b, comma-separated (with a comma before
 * a run that is not its profile's first). A run is a row of a thread's items with the same stack,
 * written as one sample of their summed weight: speedscope's importer adds such samples into one
 * anyway (src/lib/profile.ts, _appendSample). A run belongs to the job it starts in, which reads
 * on past its end for it. Reads s only (scratch: max_depth + 1 entries). 0 or -ENOMEM. */
static int ss_format_items(const struct ss *s, const struct ss_job *j, struct t2f_buf *b,
			   uint32_t *scratch)
{
	struct ss_reader r;
	uint32_t i;
	struct ss_weights weights = { 0 };
	struct ss_stack_view view;
	t2f_node_id before;
	bool comma;
	int err = 0;

	ss_reader_init(&r, s, j->thread, j->stop);
	i = ss_next_written(&r, j->begin, j->end);
	if (i == j->end) /* nothing written here (a zero stretch: no need to look back) */
		return 0;
	if (j->weights && t2f_buf__reserve(b, (size_t)(j->end - j->begin) * SS_WEIGHT_ROOM))
		return -ENOMEM;
	ss_stacks__view(s->stacks, &view);
	comma = ss_written_before(&r, j->begin, &before);
	if (comma) /* a run from the job before goes on here: it was written there */
		for (const struct ss_item *it; i < j->end; i++) {
			it = ss_item_at(&r, i, false);
			if (it->weight && it->node != before)
				break;
		}
	while (!err && (i = ss_next_written(&r, i, j->end)) < j->end) {
		t2f_node_id node = ss_item_at(&r, i, false)->node;
		uint64_t w;

		i = ss_run(&r, i, &w);
		if (j->weights) {
			b->p[b->len] = ','; /* room for SS_WEIGHT_ROOM bytes a run was reserved */
			b->len += comma;
			ss_put_weight(b, &weights, w);
		} else {
			err = ss_put_stack(s, &view, node, comma, b, scratch);
		}
		comma = true;
	}
	return err;
}

/* Appends a profile's text up to its first sample to b: the separator from the profile before
 * (first: none), then {"type":"sampled","name":…,"unit":…,"startValue":0,"endValue":…,"samples":[ */
static int ss_put_head(struct ss *s, t2f_thread_id t, const char *unit, bool first,
		       struct t2f_buf *b)
{
	int err = t2f_buf__puts(b, first ? "\n" : ",\n") ?:
		  t2f_buf__puts(b, "{\"type\":\"sampled\",\"name\":") ?:
		  ss_put_thread_name(s, t2f_profile__thread_at(s->p, t), b) ?:
		  t2f_buf__puts(b, ",\"unit\":\"") ?: t2f_buf__puts(b, unit) ?:
		  t2f_buf__puts(b, "\",\"startValue\":0,\"endValue\":");

	if (err || (err = t2f_buf__reserve(b, T2F_DEC_MAX)))
		return err;
	b->len += t2f_dec_u64(b->p + b->len, s->totals[t]);
	return t2f_buf__puts(b, ",\"samples\":[");
}

/* Jobs for one profile: its samples, then its weights, SS_WRITE_BATCH items a job. */
static int ss_add_jobs(struct ss *s, t2f_thread_id t, size_t head_off, size_t head_len)
{
	uint32_t begin = 0, end = (uint32_t)ss_item_count(s, t);

	for (int weights = 0; weights < 2; weights++) {
		for (uint32_t from = begin, n; from < end; from += n) {
			n = end - from < SS_WRITE_BATCH ? end - from : SS_WRITE_BATCH;
			if (t2f_grow((void **)&s->jobs, &s->job_cap, s->job_count, 1, sizeof(*s->jobs),
				     64, SIZE_MAX))
				return -ENOMEM;
			s->jobs[s->job_count++] = (struct ss_job){
				.thread = t, .begin = from, .end = from + n, .stop = end,
				.weights = weights,
				.last = from + n == end,
				.head_off = from == begin && !weights ? head_off : 0,
				.head_len = from == begin && !weights ? head_len : 0 };
		}
	}
	return 0;
}

/* One job's text: the profile's head before its first samples, the runs, and after the last one
 * of a list "],"weights":[" or "]}". */
static int ss_job_text(const struct ss *s, const struct ss_job *j, unsigned worker,
		       struct t2f_buf *b)
{
	int err = t2f_buf__put(b, s->heads.p + j->head_off, j->head_len) ?:
		  ss_format_items(s, j, b, s->scratch + (size_t)worker * (s->max_depth + 1));

	if (err || !j->last)
		return err;
	return t2f_buf__puts(b, j->weights ? "]}" : "],\"weights\":[");
}

/* One piece: the jobs of group idx, in order. */
static int ss_run_group(void *ctx, size_t idx, unsigned worker, struct t2f_buf *b)
{
	const struct ss *s = ctx;
	int err = 0;

	for (size_t i = s->group_start[idx]; !err && i < s->group_start[idx + 1]; i++)
		err = ss_job_text(s, &s->jobs[i], worker, b);
	return err;
}

/* Consecutive jobs grouped into pieces of up to SS_WRITE_BATCH items (a bigger job alone): a
 * whole-machine recording has thousands of threads with a few samples each, and a piece per
 * job cost more in handing pieces between threads than in making them. 0 or -ENOMEM. */
static int ss_group_jobs(struct ss *s)
{
	size_t items = 0;

	s->group_start = malloc((s->job_count + 1) * sizeof(*s->group_start));
	if (!s->group_start)
		return -ENOMEM;
	for (size_t i = 0; i < s->job_count; i++) {
		size_t n = s->jobs[i].end - s->jobs[i].begin;

		if (i == 0 || items + n > SS_WRITE_BATCH) {
			s->group_start[s->group_count++] = i;
			items = 0;
		}
		items += n;
		if (items > s->group_most)
			s->group_most = items;
	}
	s->group_start[s->group_count] = s->job_count;
	return 0;
}

/* The profiles: heads made here, items formatted on s->threads threads, written in order. */
static int ss_write_profiles(struct ss *s, const char *unit)
{
	bool first = true;
	int err = 0;

	for (t2f_thread_id t = 1; !err && t <= s->thread_count; t++) {
		size_t off = s->heads.len;

		if (!s->totals[t])
			continue;
		err = ss_put_head(s, t, unit, first, &s->heads) ?:
		      ss_add_jobs(s, t, off, s->heads.len - off);
		first = false;
	}
	err = err ?: ss_group_jobs(s);
	if (err)
		return err;
	t2f_out__puts(s->out, "\"profiles\":[");
	/* the piece buffers start at the largest piece's size: what its weights reserve (its
	 * samples take about as much) */
	err = t2f_par_text__run(s->group_count, s->threads, ss_run_group, s,
				s->group_most * SS_WEIGHT_ROOM, s->out);
	if (!err)
		t2f_out__puts(s->out, "]}\n");
	return err;
}

/* The profiles, "evented" (t2f_speedscope_opts.evented): per thread its name here, its events
 * from writers/speedscope_evented.c. */
static int ss_write_evented(struct ss *s)
{
	const char *name = t2f_profile__str(s->p, s->ev->name, NULL);
	struct t2f_ss_evented_opts eo = { .event = s->event, .frame_shared = s->frame_shared,
					  .all_waits = strcmp(name, "off-cpu") == 0 };
	bool first = true;
	int err = 0;

	if (!eo.all_waits && strcmp(name, "wall") == 0)
		eo.waits = t2f_profile__find_event(s->p, "off-cpu");
	t2f_out__puts(s->out, "\"profiles\":[");
	for (t2f_thread_id t = 1; !err && t <= s->thread_count; t++) {
		if (!s->totals[t])
			continue;
		s->heads.len = 0;
		err = t2f_buf__puts(&s->heads, first ? "\n{\"type\":\"evented\",\"name\":" :
				    ",\n{\"type\":\"evented\",\"name\":") ?:
		      ss_put_thread_name(s, t2f_profile__thread_at(s->p, t), &s->heads) ?:
		      t2f_buf__puts(&s->heads, ",");
		if (!err) {
			t2f_out__write(s->out, s->heads.p, s->heads.len);
			err = t2f_ss_evented__write(s->p, t, &eo, s->out);
		}
		first = false;
	}
	if (!err)
		t2f_out__puts(s->out, "]}\n");
	return err;
}

/* A node as it is written: its parent's canonical node and its frame's shared index. */
struct ss_canon_key {
	const struct ss *s;
	const uint32_t *canon;
	uint32_t parent, shared;
};

static bool ss_canon_eq(const void *ctx, uint32_t value)
{
	const struct ss_canon_key *k = ctx;
	t2f_node_id n = value - 1;

	return k->canon[t2f_profile__node_parent(k->s->p, n)] == k->parent &&
	       k->s->frame_shared[t2f_profile__node_frame(k->s->p, n)] == k->shared;
}

/* Nodes written alike (frames that differ only where the output does not show it: addresses
 * the session kept for another output, a function's lines) become one, the first of them: the
 * cells take it, so a run of items is told by node ids alone, and runs are the same whatever
 * else the profile kept. Told by the trie itself (a node's parent made canonical before it, as
 * a node's parent is older than it), not by the stack texts, which are kept only up to a budget.
 * 0 or -ENOMEM. */
static int ss_canon_nodes(struct ss *s)
{
	size_t nodes = (size_t)t2f_profile__node_count(s->p) + 1;
	uint32_t *canon = malloc(nodes * sizeof(*canon));
	struct t2f_hashmap *ix = NULL;
	int err = canon ? t2f_hashmap__new(s->item_node_count, &ix) : -ENOMEM;

	for (size_t n = 0; !err && n < nodes; n++) {
		t2f_node_id parent = n ? t2f_profile__node_parent(s->p, (t2f_node_id)n) : 0;
		struct ss_canon_key k = { s, canon, 0, 0 };
		uint64_t h;
		uint32_t v;

		canon[n] = (uint32_t)n;
		if (!n || parent >= n)
			continue;
		k.parent = canon[parent];
		k.shared = s->frame_shared[t2f_profile__node_frame(s->p, (t2f_node_id)n)];
		if (!k.shared) /* a frame no item shows: no item's node */
			continue;
		h = t2f_hash_u64((uint64_t)k.parent << 32 | k.shared);
		v = t2f_hashmap__find(ix, h, ss_canon_eq, &k);
		if (v)
			canon[n] = v - 1;
		else
			err = t2f_hashmap__insert(ix, h, (uint32_t)n + 1);
	}
	for (size_t i = 0; !err && i < t2f_profile__cell_count(s->p); i++)
		s->cells[i].node = canon[s->cells[i].node];
	t2f_hashmap__free(ix);
	free(canon);
	return err;
}

/* Each item node's stack text (up to the budget), made before any is written. */
static int ss_make_stacks(struct ss *s)
{
	int err = ss_stacks__new(s->p, s->frame_shared, s->max_depth, SS_STACK_TEXT_BUDGET,
				 &s->stacks);

	if (err)
		return err;
	for (uint32_t i = 0; i < s->item_node_count; i++)
		ss_stacks__make(s->stacks, s->item_nodes[i]);
	s->scratch = malloc((size_t)s->threads * (s->max_depth + 1) * sizeof(*s->scratch));
	return s->scratch ? ss_canon_nodes(s) : -ENOMEM;
}

static const char *ss_unit(const struct ss *s)
{
	if (s->counts || !s->ev || !s->ev->has_period || s->ev->unit != T2F_UNIT_NANOSECONDS)
		return "none";
	return "nanoseconds";
}

/* The cells as the items need them. */
static int ss_cells(struct ss *s)
{
	size_t n = t2f_profile__cell_count(s->p);

	s->cells = malloc((n ? n : 1) * sizeof(*s->cells));
	if (!s->cells)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct t2f_cell *c = t2f_profile__cell_at(s->p, i);
		bool ours = c->event == s->event && c->thread >= 1 && c->thread <= s->thread_count;

		s->cells[i] = (struct ss_cell){ c->node, ours ? c->thread : 0, c->samples, c->weight };
	}
	return 0;
}

static int ss_alloc(struct ss *s)
{
	const struct t2f_frame_name_opts full_names = { .collapsed = false, .addrs = s->addrs };
	uint32_t frame_count = t2f_profile__frame_count(s->p);
	int err;

	err = t2f_frame_names__new(s->p, &full_names, &s->names);
	if (err)
		return err;
	s->frame_shared = calloc((size_t)frame_count + 1, sizeof(*s->frame_shared));
	s->shared_repr = calloc((size_t)frame_count + 1, sizeof(*s->shared_repr));
	s->totals = calloc((size_t)s->thread_count + 1, sizeof(*s->totals));
	s->cell_start = calloc((size_t)s->thread_count + 2, sizeof(*s->cell_start));
	s->jstr = json_object_new_string_len("", 0);
	if (!s->frame_shared || !s->shared_repr || !s->totals || !s->cell_start || !s->jstr)
		return -ENOMEM;
	return ss_cells(s) ?: (s->use_log ? 0 : ss_group_cells(s));
}

static void ss_release(struct ss *s)
{
	t2f_frame_names__free(s->names);
	free(s->frame_shared);
	free(s->shared_repr);
	free(s->totals);
	free(s->cell_start);
	free(s->cell_bucket);
	free(s->cells);
	ss_stacks__free(s->stacks);
	free(s->item_nodes);
	free(s->scratch);
	t2f_buf__free(&s->heads);
	free(s->jobs);
	free(s->group_start);
	t2f_buf__free(&s->name_buf);
	t2f_buf__free(&s->utf8_buf);
	t2f_buf__free(&s->plain_buf);
	json_object_put(s->jstr);
}

int t2f_speedscope__write(const struct t2f_profile *p, const struct t2f_speedscope_opts *o,
			  struct t2f_out *out)
{
	static const struct t2f_speedscope_opts defaults;
	struct ss s = { .p = p, .out = out };
	int err;

	if (!o)
		o = &defaults;
	s.event = o->event ? o->event : 1;
	if (o->event > t2f_profile__event_count(p))
		return -EINVAL;
	if (s.event <= t2f_profile__event_count(p))
		s.ev = t2f_profile__event_at(p, s.event);
	/* an event without periods weighs 1 a sample, or what its input counted (folded stacks) */
	s.counts = o->weight_samples || !s.ev;
	s.addrs = o->addrs;
	s.evented = o->evented && s.ev && t2f_profile__sample_times(p);
	s.use_log = t2f_profile__log_enabled(p);
	s.threads = o->threads > 1 ? o->threads : 1;
	s.thread_count = t2f_profile__thread_count(p);
	if ((s.use_log ? t2f_profile__sample_log_count(p) : t2f_profile__cell_count(p)) > UINT32_MAX)
		return -T2F_ERR_LIMIT;

	err = ss_alloc(&s);
	if (err)
		goto out;
	err = ss_scan(&s);
	if (err)
		goto out;
	err = ss_frames__assign(s.p, s.names, s.frame_shared, s.shared_repr, &s.shared_count);
	if (err)
		goto out;
	err = s.evented ? 0 : ss_make_stacks(&s);
	if (err)
		goto out;

	err = ss_write_header(&s, o->name ? o->name : "trace2flame");
	if (!err)
		err = ss_write_frames(&s);
	if (!err)
		err = s.evented ? ss_write_evented(&s) : ss_write_profiles(&s, ss_unit(&s));
out:
	ss_release(&s);
	return err;
}
