/* readers/pprof.c: a pprof profile → profile (pprof.h).
 *
 * __finish decodes in passes over the kept bytes: (1) the top-level fields but the samples: the
 * string table, sample types, mappings, functions, locations (their lines into one array) and
 * the scalars, each bounded; (2) ids to indices (hash maps; none for a table whose ids are 1,
 * 2, ... in order), the columns to read and their events; (3) the samples, one at a time: a
 * location's frames are made when a sample first uses it, so frames, stacks and threads get ids
 * in the order the samples use them.
 */
#include "readers/pprof.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "formats/grow.h"
#include "formats/hashmap.h"
#include "formats/pb_wire.h"
#include "readers/pprof_int.h"

/* ---- errors ---- */

int pp_fail(struct t2f_pprof_reader *r, int err, const uint8_t *at, const char *what)
{
	const char *why = err == -T2F_ERR_TRUNCATED ? "the message ends inside a field"
			  : err == -T2F_ERR_LIMIT ? "a limit of the reader"
						  : "a malformed field";

	return t2f_diag__error(r->d, err, r->name, 0, "byte offset %zu (decoded): %s: %s "
			       "(not a readable pprof profile)", (size_t)(at - r->buf), what, why);
}

/* ---- detection ---- */

/* The wire type of Profile field `num` (13, comment, may be packed), or -1 for no field. */
static int pp_wire_type(uint32_t num)
{
	switch (num) {
	case 1: case 2: case 3: case 4: case 5: case 6: case 11: case 16:
		return T2F_PB_LEN;
	case 7: case 8: case 9: case 10: case 12: case 14: case 15:
		return T2F_PB_VARINT;
	case 13:
		return 13;
	default:
		return -1;
	}
}

static bool pp_field_ok(const struct t2f_pb_field *f)
{
	int t = pp_wire_type(f->num);

	return t == 13 ? f->type == T2F_PB_VARINT || f->type == T2F_PB_LEN : t == (int)f->type;
}

/* A ValueType: varints 1 and 2 only. */
static bool pp_value_type_ok(const uint8_t *p, const uint8_t *end)
{
	struct t2f_pb_field f;

	while (p < end)
		if (t2f_pb__get_field(&p, end, &f) || f.type != T2F_PB_VARINT || f.num > 2)
			return false;
	return true;
}

/* A first field that is a sample type (0a LEN, the payload starting as a ValueType's field
 * does, or cut off by the end of the head): how Go, trace2flame and protobuf's own encoders
 * (fields in number order) start a profile. Broken bytes after it are the reader's to report. */
static bool pp_starts_typed(const uint8_t *p, const uint8_t *end)
{
	uint64_t n;

	if (end - p < 2 || p[0] != 0x0a)
		return false;
	p++;
	if (t2f_pb__get_varint(&p, end, &n) || n == 0)
		return false;
	return n > (uint64_t)(end - p) ? p == end || p[0] == 0x08 || p[0] == 0x10
				       : pp_value_type_ok(p, p + n);
}

bool t2f_pprof__detect(const char *head, size_t len)
{
	const uint8_t *p = (const uint8_t *)head, *end = p + len;
	struct t2f_pb_field f;
	unsigned n = 0;

	if (pp_starts_typed(p, end))
		return true;
	while (p < end) {
		const uint8_t *at = p;
		int err = t2f_pb__get_field(&p, end, &f);

		if (err == -T2F_ERR_TRUNCATED && n > 0) {
			/* a field running past the head: its key must still be a Profile's */
			const uint8_t *q = at;
			uint64_t key;

			return t2f_pb__get_varint(&q, end, &key) == 0 && key >> 3 < 32 &&
			       pp_wire_type((uint32_t)(key >> 3)) >= 0;
		}
		if (err || !pp_field_ok(&f))
			return false;
		if (f.num == 1 && !pp_value_type_ok(f.data, f.data + f.len))
			return false;
		n++;
	}
	return n > 0;
}

/* ---- feeding ---- */

int t2f_pprof_reader__new(struct t2f_profile *p, struct t2f_diag *d, const char *name,
			  uint32_t input, const struct t2f_pprof_read_opts *o,
			  struct t2f_pprof_reader **out)
{
	struct t2f_pprof_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	r->p = p;
	r->d = d;
	r->input = input;
	r->max_bytes = o && o->max_bytes ? o->max_bytes : T2F_PPROF_MAX_BYTES;
	r->name = strdup(name ? name : "");
	r->event = o && o->event ? strdup(o->event) : NULL;
	if (!r->name || (o && o->event && !r->event)) {
		t2f_pprof_reader__free(r);
		return -ENOMEM;
	}
	*out = r;
	return 0;
}

void t2f_pprof_reader__free(struct t2f_pprof_reader *r)
{
	if (!r)
		return;
	pp_tables_free(r);
	free(r->buf);
	free(r->name);
	free(r->event);
	free(r);
}

int t2f_pprof_reader__feed(struct t2f_pprof_reader *r, const char *data, size_t len)
{
	int err;

	if (len > r->max_bytes - r->len)
		return t2f_diag__error(r->d, -T2F_ERR_LIMIT, r->name, 0, "the profile is more than "
				       "%zu bytes decoded (the pprof reader's limit)", r->max_bytes);
	err = t2f_grow((void **)&r->buf, &r->cap, r->len, len, 1, 1 << 16, r->max_bytes);

	if (err)
		return err;
	memcpy(r->buf + r->len, data, len);
	r->len += len;
	return 0;
}

/* ---- samples ---- */

/* One value, appended to *v (at most max). */
static int pp_push(struct t2f_pprof_reader *r, uint64_t x, uint64_t **v, size_t *n,
		   size_t *cap, size_t max, const uint8_t *at, const char *what)
{
	int err;

	if (*n >= max)
		return pp_fail(r, -T2F_ERR_LIMIT, at, what);
	if ((err = t2f_grow((void **)v, cap, *n, 1, sizeof(**v), 64, max)))
		return err;
	(*v)[(*n)++] = x;
	return 0;
}

/* The values of a packed or unpacked repeated varint field, appended to *v (at most max). */
static int pp_repeated(struct t2f_pprof_reader *r, const struct t2f_pb_field *f, const uint8_t *at,
		       uint64_t **v, size_t *n, size_t *cap, size_t max, const char *what)
{
	const uint8_t *p = f->data, *end = p ? p + f->len : p; /* NULL: a varint */
	int err = 0;

	if (f->type == T2F_PB_VARINT)
		return pp_push(r, f->v, v, n, cap, max, at, what);
	if (f->type != T2F_PB_LEN)
		return pp_fail(r, -T2F_ERR_FORMAT, at, what);
	while (!err && p < end) {
		uint64_t x;

		at = p;
		if ((err = t2f_pb__get_varint(&p, end, &x)))
			return pp_fail(r, err, at, what);
		err = pp_push(r, x, v, n, cap, max, at, what);
	}
	return err;
}

struct pp_sample {
	size_t nlocs, nvals;
	int64_t pid, tid;
	uint64_t thread;        /* string index of the "thread" label, 0 = none */
	bool labelled;          /* it has pid, tid or thread */
};

static int pp_label(struct t2f_pprof_reader *r, const uint8_t *p, const uint8_t *end,
		    struct pp_sample *s)
{
	uint64_t key = 0, str = 0, num = 0;
	bool has_num = false;
	struct t2f_pb_field f;
	const uint8_t *at;
	int err;

	while (p < end) {
		at = p;
		if ((err = t2f_pb__get_field(&p, end, &f)))
			return pp_fail(r, err, at, "a sample's label");
		if (f.type != T2F_PB_VARINT)
			continue;
		if (f.num == 1)
			key = f.v;
		else if (f.num == 2)
			str = f.v;
		else if (f.num == 3)
			num = f.v, has_num = true;
	}
	if (key >= r->nstrs || str >= r->nstrs)
		return pp_fail(r, -T2F_ERR_FORMAT, end, "a label's string index");
	if (pp_str_is(r, key, "pid") && has_num)
		s->pid = (int64_t)num, s->labelled = true;
	else if (pp_str_is(r, key, "tid") && has_num)
		s->tid = (int64_t)num, s->labelled = true;
	else if (pp_str_is(r, key, "thread"))
		s->thread = str, s->labelled = true;
	return 0;
}

static int pp_sample_parse(struct t2f_pprof_reader *r, const uint8_t *p, const uint8_t *end,
			   struct pp_sample *s)
{
	struct t2f_pb_field f;
	int err;

	*s = (struct pp_sample){ .pid = T2F_PID_UNKNOWN };
	r->nlocs_tmp = r->nvals_tmp = 0;
	while (p < end) {
		const uint8_t *at = p;

		if ((err = t2f_pb__get_field(&p, end, &f)))
			return pp_fail(r, err, at, "a sample");
		if (f.num == 1)
			err = pp_repeated(r, &f, at, &r->locs_tmp, &r->nlocs_tmp, &r->locs_tmp_cap,
					  T2F_PPROF_MAX_DEPTH, "a sample's location ids");
		else if (f.num == 2)
			err = pp_repeated(r, &f, at, &r->vals_tmp, &r->nvals_tmp, &r->vals_cap,
					  r->ntypes + 1, "a sample's values");
		else if (f.num == 3 && f.type == T2F_PB_LEN)
			err = pp_label(r, f.data, f.data + f.len, s);
		if (err)
			return err;
	}
	s->nlocs = r->nlocs_tmp;
	s->nvals = r->nvals_tmp;
	if (s->nvals != r->ntypes)
		return pp_fail(r, -T2F_ERR_FORMAT, end, "a sample's values (not one per sample "
			       "type)");
	return 0;
}

/* The thread of sample s. */
static int pp_thread(struct t2f_pprof_reader *r, const struct pp_sample *s, t2f_thread_id *out)
{
	t2f_str_id comm = 0;
	int err;

	if (!s->labelled)
		return t2f_profile__thread(r->p, T2F_PID_UNKNOWN, 0, r->main_comm, r->input, out);
	if (s->thread && (err = pp_intern(r, s->thread, &comm)))
		return err;
	return t2f_profile__thread(r->p, s->pid, s->tid, comm, r->input, out);
}

/* The stack of the sample's locations (leaf first in locs_tmp): root first. */
static int pp_stack(struct t2f_pprof_reader *r, const uint8_t *at, t2f_node_id *out)
{
	t2f_node_id node = 0;
	int err;

	for (size_t i = r->nlocs_tmp; i-- > 0;) {
		uint32_t loc = pp_location_index(r, r->locs_tmp[i]);
		const t2f_frame_id *fr;
		size_t n;

		if (!loc)
			return pp_fail(r, -T2F_ERR_FORMAT, at, "a sample's location id (no such "
				       "location)");
		if ((err = pp_location_frames(r, loc, &fr, &n)))
			return err;
		for (size_t k = 0; k < n; k++)
			if ((err = t2f_profile__child(r->p, node, fr[k], &node)))
				return err;
	}
	*out = node;
	return 0;
}

static int pp_sample(struct t2f_pprof_reader *r, const uint8_t *p, const uint8_t *end)
{
	struct pp_sample s;
	t2f_thread_id thread = 0;
	t2f_node_id node = 0;
	bool any = false;
	int err = pp_sample_parse(r, p, end, &s);

	if (err)
		return err;
	for (uint32_t e = 0; e < r->nevents; e++) {
		const struct pp_event *ev = &r->events[e];

		if ((int64_t)r->vals_tmp[ev->weight_col] < 0 ||
		    (ev->count_col != PP_NO_COL && (int64_t)r->vals_tmp[ev->count_col] < 0)) {
			t2f_profile__count_read(r->p);
			t2f_profile__count_drop(r->p, T2F_DROP_MALFORMED);
			return t2f_diag__warn(r->d, r->name, 0, "byte offset %zu (decoded): a sample "
					      "with a negative value is left out",
					      (size_t)(p - r->buf));
		}
		any |= r->vals_tmp[ev->weight_col] ||
		       (ev->count_col != PP_NO_COL && r->vals_tmp[ev->count_col]);
	}
	if (!any)
		return 0;
	err = pp_stack(r, p, &node) ?: pp_thread(r, &s, &thread);
	for (uint32_t e = 0; !err && e < r->nevents; e++) {
		const struct pp_event *ev = &r->events[e];
		uint64_t w = r->vals_tmp[ev->weight_col];
		uint64_t n = ev->count_col == PP_NO_COL ? 1 : r->vals_tmp[ev->count_col];

		if (w || (ev->count_col != PP_NO_COL && n))
			err = t2f_profile__add_samples(r->p, node, thread, ev->id, n, w);
	}
	return err;
}

int pp_walk(struct t2f_pprof_reader *r,
	    int (*fn)(struct t2f_pprof_reader *r, const struct t2f_pb_field *f, const uint8_t *at))
{
	const uint8_t *p = r->buf, *end = r->buf + r->len;
	struct t2f_pb_field f;
	int err = 0;

	while (!err && p < end) {
		const uint8_t *at = p;

		if ((err = t2f_pb__get_field(&p, end, &f)))
			return pp_fail(r, err, at, "the profile");
		err = fn(r, &f, at);
	}
	return err;
}

static int pp_sample_field(struct t2f_pprof_reader *r, const struct t2f_pb_field *f,
			   const uint8_t *at)
{
	(void)at;
	return f->num == 2 && f->type == T2F_PB_LEN ? pp_sample(r, f->data, f->data + f->len) : 0;
}

int t2f_pprof_reader__finish(struct t2f_pprof_reader *r)
{
	int err;

	if (r->len == 0)
		return t2f_diag__error(r->d, -T2F_ERR_FORMAT, r->name, 0, "an empty pprof profile");
	err = pp_tables_read(r) ?: pp_tables_index(r) ?: pp_events(r) ?: pp_module_maps(r) ?:
	      pp_walk(r, pp_sample_field) ?: pp_scalars(r);
	return err;
}
