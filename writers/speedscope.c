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
 * their frames, and finds the deepest stack (writers/speedscope_items.c); (2) used frames get
 * shared indices, one per object written (display name, file, line), in the order of each
 * object's first frame (writers/speedscope_frames.c); (3) each used node's stack text is made
 * once (writers/speedscope_stacks.h) and nodes written alike become one; (4) the output is
 * written, each thread's items read in order twice (samples, then weights), a stack's text
 * copied (writers/speedscope_sampled.c; JSON strings and names: writers/speedscope_json.c).
 * Nothing is allocated per sample. Speedscope drops weight-0 samples, so they are skipped here.
 */
#include "writers/speedscope.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "formats/buf.h"
#include "formats/diag.h"
#include "formats/hashmap.h"
#include "writers/frame_name.h"
#include "writers/speedscope_evented.h"
#include "writers/speedscope_frames.h"
#include "writers/speedscope_int.h"
#include "writers/speedscope_stacks.h"

#define SS_SCHEMA "https://www.speedscope.app/file-format-schema.json"
#define SS_STACK_TEXT_BUDGET (32u << 20) /* bytes of stack texts kept (writers/speedscope_stacks.h) */

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

static int ss_alloc(struct ss *s)
{
	const struct t2f_frame_name_opts full_names = { .collapsed = false, .addrs = s->addrs,
							.threads = s->threads };
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

