/* writers/collapsed.c: one text line per (root, name path) of the chosen event's cells, where a
 * root is a distinct text of the threads' first column (threads of one comm share it unless
 * pids or tids are written) and cells whose stacks show the same names are summed first
 * (writers/name_paths.h); the lines are built into a window of text at a time and written in
 * bytewise order.
 * That order is worked out a name at a time (writers/name_keys.h: the roots' ranks, the paths'
 * places), not by comparing lines: each line gets a key (its root's rank, its path's place),
 * and the lines are placed in the order of their keys (formats/radix.h), each whole ("TEXT
 * WEIGHT\n") where it goes in the window, made on threads, and the window written at once:
 * the output is never held whole (deep stacks make lines of kilobytes: 42 MB of folded text
 * from a 30 s whole-machine recording). The lines' texts differ
 * (roots are distinct texts without ';', and so are the paths below a root): none are summed at
 * the end. */
#include "writers/collapsed.h"

#include "formats/bits.h"
#include "formats/buf.h"
#include "formats/decimal.h"
#include "formats/grow.h"
#include "formats/hashmap.h"
#include "formats/radix.h"
#include "formats/sat.h"
#include "formats/utf8.h"
#include "writers/name_keys.h"
#include "writers/name_paths.h"
#include "writers/par_for.h"

#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIN_PART_LINES 16384 /* fewer lines are written by one thread */
#define WINDOW_BYTES ((size_t)4 << 20) /* text made before it is written (a longer line:
					* alone) */

struct line {
	size_t off, len;       /* its whole text, weight and newline included */
	uint64_t weight;
	uint64_t key;          /* its place in the order: root rank, then path place */
	uint32_t root;
	uint32_t path;
};

struct folder {
	const struct t2f_profile *p;
	const struct t2f_collapsed_opts *o;
	struct t2f_frame_names *names;
	struct t2f_name_paths *paths;
	struct t2f_hashmap *line_ix; /* (root, path) → line + 1 */
	struct t2f_buf text;   /* the roots' texts */
	struct t2f_buf window; /* the texts of the lines being written, back to back */
	uint32_t *root_of;     /* per thread: its root (from 1) */
	size_t *root_off;      /* root r's text is text[root_off[r], root_off[r + 1]) */
	uint32_t nroots;
	uint32_t *root_rank;   /* [2r]: root r's line alone; [2r + 1]: r's lines with frames */
	struct line *lines;
	size_t nlines;
	struct t2f_radix_pair *order; /* the lines by key: order[i].val is the i-th line's index */
};

/* "comm" with spaces as '_' (and ';'/control characters made safe), "-PID", "-PID/TID". */
static int put_root(struct folder *f, const struct t2f_thread *t)
{
	size_t len, start = f->text.len;
	const char *comm = t2f_profile__str(f->p, t->comm, &len);
	char ids[48];
	int n = 0, err = t2f_buf__put(&f->text, comm, len);

	if (err)
		return err;
	if (len) /* an empty comm may leave text.p NULL */
		f->text.len = start + t2f_utf8_squash_controls(f->text.p + start, len, '_');
	for (size_t i = start; i < f->text.len; i++) {
		if (f->text.p[i] == ' ')
			f->text.p[i] = '_';
		else if (f->text.p[i] == ';')
			f->text.p[i] = ':';
	}
	if (f->text.len == start && (err = t2f_buf__put(&f->text, "[unknown]", 9)))
		return err;
	if (f->o->pid || f->o->tid) {
		if (t->pid == T2F_PID_UNKNOWN)
			n = snprintf(ids, sizeof(ids), "-?");
		else
			n = snprintf(ids, sizeof(ids), "-%" PRId64, t->pid);
		if (f->o->tid)
			n += snprintf(ids + n, sizeof(ids) - (size_t)n, "/%" PRId64, t->tid);
	}
	return t2f_buf__put(&f->text, ids, (size_t)n);
}

struct root_probe {
	const struct folder *f;
	const char *s;
	size_t len;
};

static bool root_eq(const void *ctx, uint32_t r)
{
	const struct root_probe *q = ctx;
	size_t off = q->f->root_off[r];

	return q->f->root_off[r + 1] - off == q->len && memcmp(q->f->text.p + off, q->s, q->len) == 0;
}

/* Thread t's root text, appended to text: an earlier root with the same text is taken instead
 * (the text is then dropped again). */
static int add_root(struct folder *f, struct t2f_hashmap *ix, t2f_thread_id t, uint32_t *nroots)
{
	size_t start = f->root_off[*nroots + 1];
	struct root_probe q = { f, NULL, 0 };
	uint64_t h;
	int err = put_root(f, t2f_profile__thread_at(f->p, t));

	if (err)
		return err;
	q.s = f->text.p + start;
	q.len = f->text.len - start;
	h = t2f_hash_bytes(q.s, q.len);
	f->root_of[t] = t2f_hashmap__find(ix, h, root_eq, &q);
	if (f->root_of[t]) {
		f->text.len = start;
		return 0;
	}
	f->root_of[t] = ++*nroots;
	f->root_off[*nroots + 1] = f->text.len;
	return t2f_hashmap__insert(ix, h, *nroots);
}

static int build_roots(struct folder *f)
{
	uint32_t n = t2f_profile__thread_count(f->p), nroots = 0;
	struct t2f_hashmap *ix = NULL;
	int err;

	f->root_of = malloc(((size_t)n + 1) * sizeof(*f->root_of));
	f->root_off = malloc(((size_t)n + 2) * sizeof(*f->root_off));
	if (!f->root_of || !f->root_off)
		return -ENOMEM;
	f->root_off[1] = 0;
	err = t2f_hashmap__new(n, &ix);
	for (uint32_t t = 1; !err && t <= n; t++)
		err = add_root(f, ix, t, &nroots);
	t2f_hashmap__free(ix);
	f->nroots = nroots;
	return err;
}

/* The roots' ranks in the lines' order: a root's text alone (a line without frames), and
 * followed by ';' (its lines with frames). */
static int rank_roots(struct folder *f)
{
	size_t n = 2 * (size_t)f->nroots;
	struct t2f_name_key *k = malloc(n * sizeof(*k) + 1);

	f->root_rank = malloc((n + 2) * sizeof(*f->root_rank));
	if (!k || !f->root_rank) {
		free(k);
		return -ENOMEM;
	}
	for (uint32_t r = 1; r <= f->nroots; r++) {
		const char *s = f->text.p + f->root_off[r];
		uint32_t len = (uint32_t)(f->root_off[r + 1] - f->root_off[r]);

		k[2 * (r - 1)] = (struct t2f_name_key){ s, len, 2 * r, false };
		k[2 * (r - 1) + 1] = (struct t2f_name_key){ s, len, 2 * r + 1, true };
	}
	if (t2f_name_keys__sort(k, n)) {
		free(k);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		f->root_rank[k[i].id] = (uint32_t)i;
	free(k);
	return 0;
}

/* Every line's key, while the names are there: its path's place among the paths of lines. */
static int key_lines(struct folder *f)
{
	size_t n = (size_t)t2f_name_paths__count(f->paths) + 1;
	uint32_t *pos = malloc(n * sizeof(*pos));
	uint64_t *ends = calloc(n / 64 + 1, sizeof(*ends));
	int err = pos && ends ? rank_roots(f) : -ENOMEM;

	for (size_t i = 0; !err && i < f->nlines; i++)
		t2f_bit_set(ends, f->lines[i].path);
	err = err ?: t2f_name_paths__order(f->paths, ends, pos);
	free(ends);

	for (size_t i = 0; !err && i < f->nlines; i++) {
		struct line *l = &f->lines[i];

		l->key = (uint64_t)f->root_rank[2 * l->root + (l->path != 0)] << 32 | pos[l->path];
	}
	free(pos);
	return err;
}

struct line_probe {
	const struct folder *f;
	uint32_t root;
	uint32_t path;
};

static bool line_eq(const void *ctx, uint32_t v)
{
	const struct line_probe *q = ctx;
	const struct line *l = &q->f->lines[v - 1];

	return l->root == q->root && l->path == q->path;
}

/* Adds cell c's weight to the line of its (root, name path). */
static int add_cell(struct folder *f, const struct t2f_cell *c, size_t *lines_cap)
{
	struct line_probe q = { f, f->root_of[c->thread], t2f_name_paths__of(f->paths, c->node) };
	uint64_t h = t2f_hash_u64(((uint64_t)q.root << 32) | q.path);
	uint32_t v = t2f_hashmap__find(f->line_ix, h, line_eq, &q);
	uint64_t w = f->o->weight_samples ? c->samples : c->weight;
	int err;

	if (v) {
		f->lines[v - 1].weight = t2f_sat_add(f->lines[v - 1].weight, w);
		return 0;
	}
	err = f->nlines >= UINT32_MAX - 1 ? -ENOMEM :
	      t2f_grow((void **)&f->lines, lines_cap, f->nlines, 1, sizeof(*f->lines), 1024,
		       SIZE_MAX);
	if (err)
		return err;
	f->lines[f->nlines++] = (struct line){ .weight = w, .root = q.root, .path = q.path };
	return t2f_hashmap__insert(f->line_ix, h, (uint32_t)f->nlines);
}

/* Line l's text: its thread's root, then ";NAME" for each frame of its path, root first, a
 * space, its weight and a newline, at the place place_window gave it. */
static void line_text(const struct folder *f, const struct line *l)
{
	size_t root_len = f->root_off[l->root + 1] - f->root_off[l->root];
	size_t digits = t2f_dec_len(l->weight);
	char *at = f->window.p + l->off, *space = at + l->len - digits - 2;

	memcpy(at, f->text.p + f->root_off[l->root], root_len);
	t2f_name_paths__put(f->paths, l->path, at + root_len);
	space[0] = ' ';
	t2f_dec_u64(space + 1, l->weight);
	space[1 + digits] = '\n';
}

/* A part of the lines, in their order, whose texts one thread writes. */
struct text_part {
	const struct folder *f;
	size_t from, to;
};

static void text_part(void *ctx, unsigned i)
{
	const struct text_part *pt = (const struct text_part *)ctx + i;

	for (size_t k = pt->from; k < pt->to; k++)
		line_text(pt->f, &pt->f->lines[pt->f->order[k].val]);
}

/* Makes the texts of the lines [from, to) of the order in up to `threads` parts at once. */
static void make_texts(struct folder *f, size_t from, size_t to, unsigned threads)
{
	struct text_part parts[T2F_PAR_FOR_MAX];
	size_t n = to - from;
	unsigned k = t2f_par_parts(n, threads, MIN_PART_LINES);

	for (unsigned i = 0; i < k; i++)
		parts[i] = (struct text_part){ f, from + n * i / k, from + n * (i + 1) / k };
	t2f_par_for(k, text_part, parts);
}

/* The lines in the order of their keys (distinct: one per (root, path)). 0 or -ENOMEM. */
static int sort_lines(struct folder *f)
{
	f->order = malloc(2 * f->nlines * sizeof(*f->order) + 1);
	if (!f->order)
		return -ENOMEM;
	for (size_t i = 0; i < f->nlines; i++)
		f->order[i] = (struct t2f_radix_pair){ f->lines[i].key, i };
	t2f_radix__sort(f->order, f->order + f->nlines, f->nlines);
	return 0;
}

/* Places the texts of the lines of the order from `from` on in the window, in order (each
 * line's offset and length), up to WINDOW_BYTES (one line at least): *to, the end of those
 * placed, and the window made that long at once. 0 or -ENOMEM. */
static int place_window(struct folder *f, size_t from, size_t *to)
{
	size_t at = 0, i = from;
	int err;

	for (; i < f->nlines; i++) {
		struct line *l = &f->lines[f->order[i].val];
		size_t len = (size_t)(f->root_off[l->root + 1] - f->root_off[l->root] +
				      t2f_name_paths__text_len(f->paths, l->path)) +
			     2 + t2f_dec_len(l->weight);

		if (i > from && at + len > WINDOW_BYTES)
			break;
		if (len > SIZE_MAX / 2 - at)
			return -ENOMEM;
		l->off = at;
		l->len = len;
		at += len;
	}
	*to = i;
	f->window.len = 0;
	err = t2f_buf__reserve(&f->window, at);
	if (!err)
		f->window.len = at;
	return err;
}

/* Every line's text, a window at a time, written in order. 0 or -ENOMEM. */
static int write_lines(struct folder *f, struct t2f_out *out)
{
	unsigned threads = f->o->threads > 1 ? f->o->threads : 1;
	size_t to;

	for (size_t from = 0; from < f->nlines; from = to) {
		int err = place_window(f, from, &to);

		if (err)
			return err;
		make_texts(f, from, to, threads);
		t2f_out__write(out, f->window.p, f->window.len);
	}
	return 0;
}

int t2f_collapsed__write(const struct t2f_profile *p, const struct t2f_collapsed_opts *o,
			 struct t2f_out *out)
{
	struct t2f_frame_name_opts nopts = o->names;
	struct folder f = { .p = p, .o = o };
	t2f_event_id ev = o->event ? o->event : 1;
	size_t lines_cap = 0;
	int err;

	nopts.collapsed = true;
	nopts.threads = o->threads;
	if (t2f_profile__event_count(p) < ev)
		return 0;
	err = t2f_frame_names__new(p, &nopts, &f.names) ?: build_roots(&f) ?:
	      t2f_name_paths__new(p, f.names, &f.paths) ?: t2f_hashmap__new(1024, &f.line_ix);
	for (size_t i = 0; !err && i < t2f_profile__cell_count(p); i++) {
		const struct t2f_cell *c = t2f_profile__cell_at(p, i);

		if (c->event == ev)
			err = add_cell(&f, c, &lines_cap);
	}
	/* what each step no longer needs is freed before the next one's memory: the peak */
	t2f_hashmap__free(f.line_ix);
	f.line_ix = NULL;
	if (f.paths)
		t2f_name_paths__forget_nodes(f.paths);
	err = err ?: key_lines(&f) ?: sort_lines(&f) ?: write_lines(&f, out);
	t2f_frame_names__free(f.names);
	t2f_name_paths__free(f.paths);
	t2f_hashmap__free(f.line_ix);
	t2f_buf__free(&f.text);
	t2f_buf__free(&f.window);
	free(f.root_off);
	free(f.root_of);
	free(f.root_rank);
	free(f.lines);
	free(f.order);
	return err;
}
