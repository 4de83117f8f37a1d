/* writers/svg_tree.c: the profile's stacks merged into the tree the SVG draws.
 *
 * Each weighed item (a cell, or a logged sample for a flame chart) becomes a path of display
 * names: the thread's name, then the frames root first (all reversed with --reverse). The path is
 * walked down from "all": a flame graph finds each child by (parent, name) in a hash map; a flame
 * chart reuses only the parent's last child, so siblings stay in time order. Totals are summed
 * into every node of the path. Memory: one node per distinct display path, nothing per sample.
 */
#include "writers/svg_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/diag.h"
#include "formats/grow.h"
#include "formats/sat.h"

struct name_key {
	const struct svg_tree *t;
	const char *s;
	size_t len;
};

struct child_key {
	const struct svg_tree *t;
	uint32_t parent, name;
};

const char *svg_tree__name(const struct svg_tree *t, uint32_t name, size_t *len)
{
	*len = t->name_off[name + 1] - t->name_off[name];
	return t->text.p + t->name_off[name];
}

static bool name_eq(const void *ctx, uint32_t value)
{
	const struct name_key *k = ctx;
	size_t len;
	const char *s = svg_tree__name(k->t, value - 1, &len);

	return len == k->len && memcmp(s, k->s, len) == 0;
}

/* The id of display name s (added when new). */
static int intern(struct svg_tree *t, const char *s, size_t len, uint32_t *id)
{
	struct name_key k = { t, s, len };
	uint64_t h = t2f_hash_bytes(s, len);
	uint32_t v = t2f_hashmap__find(t->name_map, h, name_eq, &k);
	int err;

	if (v) {
		*id = v - 1;
		return 0;
	}
	if (t->name_count + 2 > t->name_cap) {
		size_t cap = t->name_cap;

		err = t2f_grow((void **)&t->name_off, &cap, t->name_count, 2, sizeof(*t->name_off),
			       256, UINT32_MAX);
		if (err)
			return err;
		t->name_cap = (uint32_t)cap;
	}
	err = t2f_buf__put(&t->text, s, len);
	if (err)
		return err;
	*id = t->name_count++;
	t->name_off[t->name_count] = t->text.len;
	return t2f_hashmap__insert(t->name_map, h, *id + 1);
}

/* Display names of every frame and thread, and "all" as name 0. */
static int name_all(struct svg_tree *t, const struct t2f_svg_opts *o)
{
	struct t2f_frame_name_opts no = o->names;
	struct t2f_frame_names *fn = NULL;
	uint32_t nf = t2f_profile__frame_count(t->p), nt = t2f_profile__thread_count(t->p);
	uint32_t id;
	int err;

	no.collapsed = true;
	t->frame_name = calloc((size_t)nf + 1, sizeof(*t->frame_name));
	t->thread_name = calloc((size_t)nt + 1, sizeof(*t->thread_name));
	err = t->frame_name && t->thread_name ? t2f_hashmap__new((size_t)nf + nt, &t->name_map) : -ENOMEM;
	err = err ?: t2f_frame_names__new(t->p, &no, &fn);
	if (!err) {
		t->name_off = malloc(256 * sizeof(*t->name_off));
		t->name_cap = t->name_off ? 256 : 0;
		err = t->name_off ? 0 : -ENOMEM;
	}
	if (!err) {
		t->name_off[0] = 0;
		err = intern(t, "all", 3, &id);
	}
	for (uint32_t f = 1; !err && f <= nf; f++) {
		size_t len;
		const char *s = t2f_frame_names__get(fn, f, &len);

		err = intern(t, s, len, &t->frame_name[f]);
	}
	for (uint32_t th = 1; !err && th <= nt; th++) {
		size_t len;
		const char *s = t2f_profile__str(t->p, t2f_profile__thread_at(t->p, th)->comm, &len);

		if (len == 0) {
			s = "[unknown]";
			len = 9;
		}
		if (o->diff && memchr(s, ' ', len)) {
			/* as collapsed output writes it, so folded inputs match perf ones */
			struct t2f_buf b = { 0 };

			err = t2f_buf__put(&b, s, len);
			for (size_t i = 0; !err && i < b.len; i++)
				b.p[i] = b.p[i] == ' ' ? '_' : b.p[i];
			if (!err)
				err = intern(t, b.p, b.len, &t->thread_name[th]);
			t2f_buf__free(&b);
			continue;
		}
		err = intern(t, s, len, &t->thread_name[th]);
	}
	t2f_frame_names__free(fn);
	return err;
}

static int add_node(struct svg_tree *t, uint32_t parent, uint32_t name, t2f_frame_id frame,
		    uint32_t *out)
{
	struct svg_node *n;

	if (t->count == UINT32_MAX)
		return -T2F_ERR_LIMIT;
	if (t->count == t->cap) {
		size_t cap = t->cap;
		int err = t2f_grow((void **)&t->nodes, &cap, t->count, 1, sizeof(*t->nodes), 1024,
				   UINT32_MAX);

		if (err)
			return err;
		t->cap = (uint32_t)cap;
	}
	n = &t->nodes[t->count];
	memset(n, 0, sizeof(*n));
	n->parent = parent;
	n->name = name;
	if (t->count) {
		const struct t2f_frame *f = frame ? t2f_profile__frame_at(t->p, frame) : NULL;

		n->depth = t->nodes[parent].depth + 1;
		n->module = f ? f->module : 0;
		n->kind = f ? (uint8_t)f->kind : T2F_FRAME_USER;
		if (f)
			t2f_frame__fn_position(f, &n->src_file, &n->src_line);
		if (n->depth > t->max_depth)
			t->max_depth = n->depth;
	}
	*out = t->count++;
	return 0;
}

static bool child_eq(const void *ctx, uint32_t value)
{
	const struct child_key *k = ctx;
	const struct svg_node *n = &k->t->nodes[value];

	return n->parent == k->parent && n->name == k->name;
}

static uint64_t child_hash(uint32_t parent, uint32_t name)
{
	uint32_t key[2] = { parent, name };

	return t2f_hash_bytes(key, sizeof(key));
}

uint32_t svg_tree__find_child(const struct svg_tree *t, uint32_t parent, const char *s, size_t len)
{
	struct name_key nk = { t, s, len };
	uint32_t name = t2f_hashmap__find(t->name_map, t2f_hash_bytes(s, len), name_eq, &nk);
	struct child_key ck = { t, parent, name - 1 };

	if (!name || !t->child_map)
		return 0;
	return t2f_hashmap__find(t->child_map, child_hash(parent, name - 1), child_eq, &ck);
}

/* Node c merges frame too: its position keeps what they agree on (the same for any order). */
static void merge_position(struct svg_tree *t, uint32_t c, t2f_frame_id frame)
{
	struct svg_node *n = &t->nodes[c];
	t2f_str_id file;
	uint32_t line;

	if (!frame)
		return;
	t2f_frame__fn_position(t2f_profile__frame_at(t->p, frame), &file, &line);
	if (file != n->src_file)
		n->src_file = n->src_line = 0;
	else if (line != n->src_line)
		n->src_line = 0;
}

/* The child of parent named `name`: found by name (flame graph) or only when it is the last
 * child (flame chart); added otherwise. */
static int child(struct svg_tree *t, bool chart, uint32_t parent, uint32_t name,
		 t2f_frame_id frame, uint32_t *out)
{
	struct child_key k = { t, parent, name };
	uint64_t h = 0;
	uint32_t c;
	int err;

	if (chart) {
		c = t->nodes[parent].last_child;
		if (c && t->nodes[c].name == name) {
			merge_position(t, c, frame);
			*out = c;
			return 0;
		}
	} else {
		h = child_hash(parent, name);
		c = t2f_hashmap__find(t->child_map, h, child_eq, &k);
		if (c) {
			merge_position(t, c, frame);
			*out = c;
			return 0;
		}
	}
	err = add_node(t, parent, name, frame, &c);
	if (err)
		return err;
	if (chart) {
		if (t->nodes[parent].last_child)
			t->nodes[t->nodes[parent].last_child].next_sibling = c;
		else
			t->nodes[parent].first_child = c;
		t->nodes[parent].last_child = c;
	} else if ((err = t2f_hashmap__insert(t->child_map, h, c))) {
		return err;
	}
	*out = c;
	return 0;
}

/* Fills t->path / t->path_frame with the display path of (thread, node), the thread's name
 * first when `with_root`; returns its length. */
static uint32_t make_path(struct svg_tree *t, bool reverse, bool with_root, t2f_thread_id th,
			  t2f_node_id node)
{
	uint32_t n = 0, d = t2f_profile__node_depth(t->p, node), root = with_root;

	/* leaf first into positions root..d - 1 + root, the thread name (unless left out) at 0 */
	for (t2f_node_id nd = node; nd; nd = t2f_profile__node_parent(t->p, nd)) {
		t2f_frame_id f = t2f_profile__node_frame(t->p, nd);

		n++;
		t->path[reverse ? n - 1 : d - n + root] = t->frame_name[f];
		t->path_frame[reverse ? n - 1 : d - n + root] = f;
	}
	if (root) {
		t->path[reverse ? d : 0] = t->thread_name[th];
		t->path_frame[reverse ? d : 0] = 0;
	}
	return d + root;
}

static int add_item(struct svg_tree *t, const struct t2f_svg_opts *o, t2f_thread_id th,
		    t2f_node_id node, uint64_t w)
{
	uint32_t len = make_path(t, o->reverse, !o->no_thread_root, th, node), cur = 0;
	int err;

	t->nodes[0].total = t2f_sat_add(t->nodes[0].total, w);
	for (uint32_t i = 0; i < len; i++) {
		err = child(t, o->flamechart, cur, t->path[i], t->path_frame[i], &cur);
		if (err)
			return err;
		t->nodes[cur].total = t2f_sat_add(t->nodes[cur].total, w);
	}
	return 0;
}

static int alloc_paths(struct svg_tree *t)
{
	uint32_t nn = t2f_profile__node_count(t->p), max = 0;

	for (t2f_node_id n = 1; n <= nn; n++) {
		uint32_t d = t2f_profile__node_depth(t->p, n);

		if (d > max)
			max = d;
	}
	t->path = malloc(((size_t)max + 2) * sizeof(*t->path));
	t->path_frame = malloc(((size_t)max + 2) * sizeof(*t->path_frame));
	return t->path && t->path_frame ? 0 : -ENOMEM;
}

/* A flame chart's thread root: "comm [tid N]", so threads of one name stay apart. */
static int thread_root_name(struct svg_tree *t, t2f_thread_id th, uint32_t *id)
{
	size_t len;
	const char *comm = svg_tree__name(t, t->thread_name[th], &len);
	char tid[40];
	int n = snprintf(tid, sizeof(tid), " [tid %" PRId64 "]", t2f_profile__thread_at(t->p, th)->tid);
	struct t2f_buf b = { 0 };
	int err = t2f_buf__put(&b, comm, len) ?: t2f_buf__put(&b, tid, (size_t)n);

	if (!err)
		err = intern(t, b.p, b.len, id);
	t2f_buf__free(&b);
	return err;
}

#define CHART_BATCH 256 /* runs read at a time */

/* A thread's runs of the log, read a batch at a time. */
struct run_reader {
	const struct t2f_profile *p;
	t2f_thread_id thread;
	size_t next, count, base, n;
	struct t2f_log_run batch[CHART_BATCH];
};

static void run_reader_init(struct run_reader *r, const struct t2f_profile *p, t2f_thread_id th)
{
	r->p = p;
	r->thread = th;
	r->next = r->base = r->n = 0;
	r->count = t2f_profile__thread_run_count(p, th);
}

/* The next run (false after the last). */
static bool next_run(struct run_reader *r, struct t2f_sample_run *out)
{
	const struct t2f_cell *c;
	const struct t2f_log_run *x;

	if (r->next == r->count)
		return false;
	if (r->next - r->base >= r->n) {
		r->base = r->next;
		r->n = r->count - r->base < CHART_BATCH ? r->count - r->base : CHART_BATCH;
		t2f_profile__sample_runs(r->p, r->thread, r->base, r->n, r->batch);
	}
	x = &r->batch[r->next++ - r->base];
	c = t2f_profile__cell_at(r->p, x->cell);
	*out = (struct t2f_sample_run){ c->node, r->thread, c->event, x->samples, x->weight };
	return true;
}

/* A flame chart's roots: one per thread with samples, in thread-id order. */
static int chart_roots(struct svg_tree *t, t2f_event_id ev, uint32_t **roots)
{
	uint32_t nt = t2f_profile__thread_count(t->p);
	int err = 0;

	*roots = calloc((size_t)nt + 1, sizeof(**roots));
	if (!*roots)
		return -ENOMEM;
	for (uint32_t th = 1; th <= nt; th++) {
		struct run_reader r;
		struct t2f_sample_run s;

		run_reader_init(&r, t->p, th);
		while (!(*roots)[th] && next_run(&r, &s))
			(*roots)[th] = s.event == ev;
	}
	for (uint32_t th = 1; !err && th <= nt; th++) {
		uint32_t r, name;

		if (!(*roots)[th])
			continue;
		err = thread_root_name(t, th, &name) ?: add_node(t, 0, name, 0, &r);
		if (!err) {
			if (t->nodes[0].last_child)
				t->nodes[t->nodes[0].last_child].next_sibling = r;
			else
				t->nodes[0].first_child = r;
			t->nodes[0].last_child = r;
			(*roots)[th] = r;
		}
	}
	return err;
}

/* One sample of the flame chart: its path under its thread's root. */
static int chart_sample(struct svg_tree *t, const struct t2f_svg_opts *o, const uint32_t *roots,
			struct t2f_sample_run s)
{
	uint64_t w = o->weight_samples ? s.samples : s.weight;
	uint32_t len, cur;
	int err = 0;

	if (w == 0)
		return 0;
	len = make_path(t, o->reverse, true, s.thread, s.node);
	cur = roots[s.thread];
	t->nodes[0].total = t2f_sat_add(t->nodes[0].total, w);
	t->nodes[cur].total = t2f_sat_add(t->nodes[cur].total, w);
	/* the path's thread name is the root already (reversed: it is the last entry) */
	for (uint32_t k = o->reverse ? 0 : 1; !err && k < (o->reverse ? len - 1 : len); k++) {
		err = child(t, true, cur, t->path[k], t->path_frame[k], &cur);
		if (!err)
			t->nodes[cur].total = t2f_sat_add(t->nodes[cur].total, w);
	}
	return err;
}

/* Flame chart: the sample log, each thread's in input order under its own root. */
static int build_chart(struct svg_tree *t, const struct t2f_svg_opts *o, t2f_event_id ev)
{
	uint32_t nt = t2f_profile__thread_count(t->p), *roots;
	int err;

	if (!t2f_profile__log_enabled(t->p))
		return -EINVAL;
	err = chart_roots(t, ev, &roots);
	for (uint32_t th = 1; !err && th <= nt; th++) {
		struct run_reader r;
		struct t2f_sample_run s;

		run_reader_init(&r, t->p, th);
		while (!err && roots[th] && next_run(&r, &s))
			if (s.event == ev)
				err = chart_sample(t, o, roots, s);
	}
	free(roots);
	return err;
}

static int build_graph(struct svg_tree *t, const struct t2f_svg_opts *o, t2f_event_id ev)
{
	size_t n = t2f_profile__cell_count(t->p);
	int err = t2f_hashmap__new(t2f_profile__node_count(t->p) + 64, &t->child_map);

	for (size_t i = 0; !err && i < n; i++) {
		const struct t2f_cell *c = t2f_profile__cell_at(t->p, i);
		uint64_t w = o->weight_samples ? c->samples : c->weight;

		if (c->event == ev && w > 0)
			err = add_item(t, o, c->thread, c->node, w);
	}
	return err;
}

static int cmp_by_name(const void *a, const void *b, void *ctx)
{
	const struct svg_tree *t = ctx;
	const struct svg_node *x = &t->nodes[*(const uint32_t *)a], *y = &t->nodes[*(const uint32_t *)b];
	size_t lx, ly;
	const char *sx = svg_tree__name(t, x->name, &lx), *sy = svg_tree__name(t, y->name, &ly);
	int r = memcmp(sx, sy, lx < ly ? lx : ly);

	return r ? r : (lx > ly) - (lx < ly);
}

/* Links every node's children sorted by name: nodes grouped by parent (counting sort), each
 * group sorted, then chained. */
static int order_by_name(struct svg_tree *t)
{
	uint32_t *start = calloc((size_t)t->count + 1, sizeof(*start));
	uint32_t *ids = malloc((size_t)t->count * sizeof(*ids) + 1);
	int err = start && ids ? 0 : -ENOMEM;

	for (uint32_t i = 1; !err && i < t->count; i++)
		start[t->nodes[i].parent + 1]++;
	for (uint32_t i = 1; !err && i <= t->count; i++)
		start[i] += start[i - 1];
	for (uint32_t i = 1; !err && i < t->count; i++)
		ids[start[t->nodes[i].parent]++] = i;
	/* start[p] is now the end of p's group, which begins at start[p - 1] (0 for p = 0) */
	for (uint32_t p = 0; !err && p < t->count; p++) {
		uint32_t b = p ? start[p - 1] : 0, e = start[p];

		if (e - b > 1)
			qsort_r(ids + b, e - b, sizeof(*ids), cmp_by_name, t);
		t->nodes[p].first_child = e > b ? ids[b] : 0;
		for (uint32_t k = b; k < e; k++)
			t->nodes[ids[k]].next_sibling = k + 1 < e ? ids[k + 1] : 0;
	}
	free(start);
	free(ids);
	return err;
}

int svg_tree__build(const struct t2f_profile *p, const struct t2f_svg_opts *o, t2f_event_id ev,
		    struct svg_tree *t)
{
	uint32_t root;
	int err;

	memset(t, 0, sizeof(*t));
	t->p = p;
	err = name_all(t, o) ?: alloc_paths(t) ?: add_node(t, 0, 0, 0, &root);
	if (err)
		return err;
	if (o->flamechart)
		return build_chart(t, o, ev);
	return build_graph(t, o, ev) ?: order_by_name(t);
}

void svg_tree__free(struct svg_tree *t)
{
	free(t->nodes);
	t2f_buf__free(&t->text);
	free(t->name_off);
	t2f_hashmap__free(t->name_map);
	t2f_hashmap__free(t->child_map);
	free(t->frame_name);
	free(t->thread_name);
	free(t->path);
	free(t->path_frame);
	memset(t, 0, sizeof(*t));
}
