/* readers/pprof_tables.c: the pprof reader's tables (pprof_int.h). */
#include "readers/pprof_int.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats/grow.h"
#include "formats/pb_wire.h"
#include "readers/perf_script_maps.h"
#include "readers/pprof.h"

/* One more element of table *v (n in use), at most T2F_PPROF_MAX_TABLE (or max). */
static int pp_more(struct t2f_pprof_reader *r, void **v, size_t *cap, size_t n, size_t size,
		   size_t max, const uint8_t *at, const char *what)
{
	int err = t2f_grow(v, cap, n, 1, size, 64, max);

	return err == -T2F_ERR_LIMIT ? pp_fail(r, err, at, what) : err;
}

/* The varint fields of a small message into v[num - 1] (num 1..nv); a field of another wire
 * type among them is an error, other fields are skipped. */
static int pp_varints(struct t2f_pprof_reader *r, const uint8_t *p, const uint8_t *end,
		      uint64_t *v, unsigned nv, const char *what)
{
	struct t2f_pb_field f;
	int err;

	while (p < end) {
		const uint8_t *at = p;

		if ((err = t2f_pb__get_field(&p, end, &f)))
			return pp_fail(r, err, at, what);
		if (f.num > nv)
			continue;
		if (f.type != T2F_PB_VARINT)
			return pp_fail(r, -T2F_ERR_FORMAT, at, what);
		v[f.num - 1] = f.v;
	}
	return 0;
}

static int pp_location(struct t2f_pprof_reader *r, const uint8_t *p, const uint8_t *end)
{
	struct pp_location l = { .line0 = r->nlines };
	struct t2f_pb_field f;
	int err;

	while (p < end) {
		const uint8_t *at = p;
		uint64_t v[2] = { 0, 0 };

		if ((err = t2f_pb__get_field(&p, end, &f)))
			return pp_fail(r, err, at, "a location");
		if (f.num == 4 && f.type == T2F_PB_LEN) {
			err = pp_varints(r, f.data, f.data + f.len, v, 2, "a location's line") ?:
			      pp_more(r, (void **)&r->lines, &r->lines_cap, r->nlines,
				      sizeof(*r->lines), T2F_PPROF_MAX_TABLE, at, "lines");
			if (err)
				return err;
			r->lines[r->nlines++] = (struct pp_line){ v[0], (int64_t)v[1] };
			l.nlines++;
			continue;
		}
		if (f.num > 3)
			continue;
		if (f.type != T2F_PB_VARINT)
			return pp_fail(r, -T2F_ERR_FORMAT, at, "a location");
		if (f.num == 1)
			l.id = f.v;
		else if (f.num == 2)
			l.mapping = f.v;
		else
			l.address = f.v;
	}
	err = pp_more(r, (void **)&r->locs, &r->locs_cap, r->nlocs, sizeof(*r->locs),
		      T2F_PPROF_MAX_TABLE, end, "locations");
	if (!err)
		r->locs[r->nlocs++] = l;
	return err;
}

static int pp_top_field(struct t2f_pprof_reader *r, const struct t2f_pb_field *f,
			const uint8_t *at)
{
	const uint8_t *p = f->data, *end = p ? p + f->len : p; /* NULL: not a LEN field */
	uint64_t v[6] = { 0 };
	int err;

	if (f->num <= 6 && f->type != T2F_PB_LEN)
		return pp_fail(r, -T2F_ERR_FORMAT, at, "a field of the profile (a message expected)");
	switch (f->num) {
	case 1:
		if (!r->table_at)
			r->table_at = at;
		err = pp_varints(r, p, end, v, 2, "a sample type") ?:
		      pp_more(r, (void **)&r->types, &r->types_cap, r->ntypes, sizeof(*r->types),
			      T2F_PPROF_MAX_TYPES, at, "sample types");
		if (!err)
			r->types[r->ntypes++] = (struct pp_value_type){ v[0], v[1] };
		return err;
	case 3:
		err = pp_varints(r, p, end, v, 6, "a mapping") ?:
		      pp_more(r, (void **)&r->maps, &r->maps_cap, r->nmaps, sizeof(*r->maps),
			      T2F_PPROF_MAX_TABLE, at, "mappings");
		if (!err)
			r->maps[r->nmaps++] = (struct pp_mapping){ v[0], v[1], v[2], v[3], v[4], v[5] };
		return err;
	case 4:
		return pp_location(r, p, end);
	case 5:
		err = pp_varints(r, p, end, v, 5, "a function") ?:
		      pp_more(r, (void **)&r->funcs, &r->funcs_cap, r->nfuncs, sizeof(*r->funcs),
			      T2F_PPROF_MAX_TABLE, at, "functions");
		if (!err)
			r->funcs[r->nfuncs++] = (struct pp_function){ v[0], v[1], v[2], v[3],
								       (int64_t)v[4] };
		return err;
	case 6:
		err = pp_more(r, (void **)&r->strs, &r->strs_cap, r->nstrs, sizeof(*r->strs),
			      T2F_PPROF_MAX_TABLE, at, "strings");
		if (!err)
			r->strs[r->nstrs++] = (struct pp_str){ (uint32_t)(p - r->buf), (uint32_t)f->len };
		return err;
	case 10:
		if (f->type == T2F_PB_VARINT)
			r->duration = (int64_t)f->v;
		return 0;
	case 11:
		if (f->type != T2F_PB_LEN)
			return 0;
		err = pp_varints(r, p, end, v, 2, "the period type");
		r->period_type = v[0];
		return err;
	case 13:
		if (f->type != T2F_PB_VARINT && f->type != T2F_PB_LEN)
			return 0;
		do {
			uint64_t x = f->v;
			const uint8_t *q = p;

			if (f->type == T2F_PB_LEN && (err = t2f_pb__get_varint(&p, end, &x)))
				return pp_fail(r, err, q, "a comment");
			if ((err = pp_more(r, (void **)&r->comments, &r->comments_cap, r->ncomments,
					   sizeof(*r->comments), T2F_PPROF_MAX_TABLE, at, "comments")))
				return err;
			r->comments[r->ncomments++] = x;
		} while (f->type == T2F_PB_LEN && p < end);
		return 0;
	case 14:
		if (f->type == T2F_PB_VARINT)
			r->default_type = f->v;
		return 0;
	default:
		return 0;
	}
}

int pp_tables_read(struct t2f_pprof_reader *r)
{
	return pp_walk(r, pp_top_field);
}

/* ---- indexing ---- */

struct id_probe {
	const struct t2f_pprof_reader *r;
	int what;
	uint64_t id;
};

static uint64_t pp_id_of(const struct t2f_pprof_reader *r, int what, uint32_t v)
{
	return what == 0 ? r->maps[v - 1].id : what == 1 ? r->funcs[v - 1].id : r->locs[v - 1].id;
}

static bool id_eq(const void *ctx, uint32_t v)
{
	const struct id_probe *q = ctx;

	return pp_id_of(q->r, q->what, v) == q->id;
}

static uint32_t pp_find(const struct t2f_pprof_reader *r, const struct t2f_hashmap *m, int what,
			uint64_t id)
{
	struct id_probe q = { r, what, id };

	return id ? t2f_hashmap__find(m, t2f_hash_u64(id), id_eq, &q) : 0;
}

/* The index + 1 of the element of table `what` with id `id` (0: none), once indexed: a table
 * whose ids are 1, 2, ... in order (as trace2flame and Go write them) has no hash map. */
static uint32_t pp_lookup(const struct t2f_pprof_reader *r, int what, uint64_t id)
{
	const struct t2f_hashmap *m = what == 0 ? r->map_ix : what == 1 ? r->func_ix : r->loc_ix;
	uint32_t n = what == 0 ? r->nmaps : what == 1 ? r->nfuncs : r->nlocs;

	if (r->dense[what])
		return id && id <= n ? (uint32_t)id : 0;
	return pp_find(r, m, what, id);
}

static const char *const pp_table_names[] = { "a mapping", "a function", "a location" };

static int pp_index(struct t2f_pprof_reader *r, struct t2f_hashmap **m, int what, uint32_t n)
{
	int err;
	uint32_t i = 1;

	while (i <= n && pp_id_of(r, what, i) == i)
		i++;
	if (i > n) { /* ids 1..n in order: unique, their own indices */
		r->dense[what] = true;
		return 0;
	}
	err = t2f_hashmap__new(n, m);
	for (i = 1; !err && i <= n; i++) {
		uint64_t id = pp_id_of(r, what, i);

		if (id == 0 || pp_find(r, *m, what, id))
			return t2f_diag__error(r->d, -T2F_ERR_FORMAT, r->name, 0, "%s with id %llu: "
					       "%s (ids are unique and not 0)", pp_table_names[what],
					       (unsigned long long)id, id ? "a second one" : "no id");
		err = t2f_hashmap__insert(*m, t2f_hash_u64(id), i);
	}
	return err;
}

static int pp_bad_string(struct t2f_pprof_reader *r, const char *what, uint64_t i)
{
	return t2f_diag__error(r->d, -T2F_ERR_FORMAT, r->name, 0, "%s names string %llu, past "
			       "the string table's %u", what, (unsigned long long)i, r->nstrs);
}

static int pp_check_strings(struct t2f_pprof_reader *r)
{
	for (uint32_t i = 0; i < r->ntypes; i++)
		if (r->types[i].type >= r->nstrs || r->types[i].unit >= r->nstrs)
			return pp_bad_string(r, "a sample type", r->types[i].type);
	for (uint32_t i = 0; i < r->nmaps; i++)
		if (r->maps[i].file >= r->nstrs || r->maps[i].build_id >= r->nstrs)
			return pp_bad_string(r, "a mapping", r->maps[i].file);
	for (uint32_t i = 0; i < r->nfuncs; i++) {
		const struct pp_function *f = &r->funcs[i];

		if (f->name >= r->nstrs || f->system_name >= r->nstrs || f->file >= r->nstrs)
			return pp_bad_string(r, "a function", f->name);
	}
	for (size_t i = 0; i < r->ncomments; i++)
		if (r->comments[i] >= r->nstrs)
			return pp_bad_string(r, "a comment", r->comments[i]);
	if (r->default_type >= r->nstrs)
		return pp_bad_string(r, "default_sample_type", r->default_type);
	if (r->period_type >= r->nstrs)
		return pp_bad_string(r, "period_type", r->period_type);
	return 0;
}

int pp_tables_index(struct t2f_pprof_reader *r)
{
	int err;

	if (r->nstrs == 0 || r->strs[0].len != 0)
		return t2f_diag__error(r->d, -T2F_ERR_FORMAT, r->name, 0, "%s (a pprof profile's "
				       "first string is \"\")", r->nstrs ? "the first string is not "
				       "empty" : "no string table");
	if (r->ntypes == 0)
		return t2f_diag__error(r->d, -T2F_ERR_FORMAT, r->name, 0, "no sample type");
	if (!(r->made = calloc(r->nlocs ? r->nlocs : 1, sizeof(*r->made))))
		return -ENOMEM;
	err = pp_check_strings(r) ?: pp_index(r, &r->map_ix, 0, r->nmaps) ?:
	      pp_index(r, &r->func_ix, 1, r->nfuncs) ?: pp_index(r, &r->loc_ix, 2, r->nlocs);
	if (err)
		return err;
	for (uint32_t i = 0; i < r->nlocs; i++) {
		struct pp_location *l = &r->locs[i];
		uint64_t id = l->mapping;

		if (id && !(l->mapping = pp_lookup(r, 0, id)))
			return t2f_diag__error(r->d, -T2F_ERR_FORMAT, r->name, 0, "location %llu: "
					       "no mapping with id %llu", (unsigned long long)l->id,
					       (unsigned long long)id);
		for (uint32_t k = l->line0; k < l->line0 + l->nlines; k++) {
			id = r->lines[k].func;
			if (!(r->lines[k].func = pp_lookup(r, 1, id)))
				return t2f_diag__error(r->d, -T2F_ERR_FORMAT, r->name, 0,
						       "location %llu: no function with id %llu",
						       (unsigned long long)l->id,
						       (unsigned long long)id);
		}
	}
	return 0;
}

uint32_t pp_location_index(const struct t2f_pprof_reader *r, uint64_t id)
{
	return pp_lookup(r, 2, id);
}

/* ---- strings ---- */

bool pp_str_is(const struct t2f_pprof_reader *r, uint64_t i, const char *s)
{
	size_t n = strlen(s);

	return r->strs[i].len == n && memcmp(r->buf + r->strs[i].off, s, n) == 0;
}

int pp_intern(struct t2f_pprof_reader *r, uint64_t i, t2f_str_id *out)
{
	int err;

	if (!r->str_id && !(r->str_id = calloc(r->nstrs, sizeof(*r->str_id))))
		return -ENOMEM;
	if (r->str_id[i]) {
		*out = r->str_id[i] - 1;
		return 0;
	}
	if (r->strs[i].len == 0) {
		*out = 0;
	} else {
		err = t2f_profile__intern(r->p, (const char *)r->buf + r->strs[i].off,
					  r->strs[i].len, out);
		if (err)
			return err;
	}
	r->str_id[i] = *out + 1;
	return 0;
}

/* ---- events ---- */

static bool pp_str_eq(const struct t2f_pprof_reader *r, uint64_t i, const char *s, size_t n)
{
	return r->strs[i].len == n && memcmp(r->buf + r->strs[i].off, s, n) == 0;
}

/* Whether the pair of columns (c, c + 1) is trace2flame's: a count then a weight of the event
 * whose name is then *name[0..*len). */
static bool pp_pair(const struct t2f_pprof_reader *r, uint32_t c, const char **name, size_t *len)
{
	const struct pp_str *a = &r->strs[r->types[c].type], *b = &r->strs[r->types[c + 1].type];
	const char *as = (const char *)r->buf + a->off, *bs = (const char *)r->buf + b->off;

	if (!pp_str_is(r, r->types[c].unit, "count"))
		return false;
	*name = bs;
	*len = b->len;
	if (r->ntypes == 2) { /* "samples-weight": the event "samples", its name taken */
		if (b->len >= 7 && memcmp(bs + b->len - 7, "-weight", 7) == 0 &&
		    (b->len == 7 || pp_str_is(r, r->types[c + 1].type, "samples-weight")))
			*len = b->len - 7;
		return pp_str_is(r, r->types[c].type, "samples");
	}
	if (a->len < 8 || memcmp(as + a->len - 8, "-samples", 8) != 0)
		return false;
	*len = a->len - 8;
	return (b->len == *len || (b->len == *len + 7 && memcmp(bs + *len, "-weight", 7) == 0)) &&
	       memcmp(as, bs, *len) == 0;
}

/* Whether `ev` names column c: its type, or "type/unit". */
static bool pp_names(const struct t2f_pprof_reader *r, const char *ev, uint32_t c)
{
	const char *slash = strchr(ev, '/');
	size_t n = slash ? (size_t)(slash - ev) : strlen(ev);

	return pp_str_eq(r, r->types[c].type, ev, n) &&
	       (!slash || pp_str_is(r, r->types[c].unit, slash + 1));
}

static int pp_add_event(struct t2f_pprof_reader *r, const char *name, size_t len, uint64_t unit,
			uint32_t count_col, uint32_t weight_col)
{
	struct pp_event *e = &r->events[r->nevents++];
	t2f_str_id id;
	int err = t2f_profile__intern(r->p, name, len, &id);

	*e = (struct pp_event){ .count_col = count_col, .weight_col = weight_col };
	err = err ?: t2f_profile__event(r->p, id, pp_str_is(r, unit, "nanoseconds") ?
					T2F_UNIT_NANOSECONDS : T2F_UNIT_COUNT, &e->id);
	if (!err && r->period_type && r->period_type == r->types[weight_col].type)
		t2f_profile__event_has_period(r->p, e->id); /* its weights are periods */
	return err;
}

/* trace2flame's pairs, when every column is in one and `event` (if any) names one's event. */
static int pp_pairs(struct t2f_pprof_reader *r, bool *done)
{
	bool named = !r->event;
	const char *name;
	size_t len;
	int err = 0;

	*done = false;
	if (r->ntypes % 2)
		return 0;
	for (uint32_t c = 0; c < r->ntypes; c += 2) {
		if (!pp_pair(r, c, &name, &len))
			return 0;
		named |= r->event && pp_names(r, r->event, c + 1);
	}
	if (!named)
		return 0;
	for (uint32_t c = 0; !err && c < r->ntypes; c += 2) {
		pp_pair(r, c, &name, &len);
		err = pp_add_event(r, name, len, r->types[c + 1].unit, c, c + 1);
	}
	*done = true;
	return err;
}

int pp_events(struct t2f_pprof_reader *r)
{
	uint32_t col = r->ntypes - 1;
	bool done;
	int err;

	r->events = calloc(r->ntypes, sizeof(*r->events));
	if (!r->events)
		return -ENOMEM;
	if ((err = pp_pairs(r, &done)) || done)
		return err;
	for (uint32_t c = 0; c < r->ntypes; c++)
		if (r->event ? pp_names(r, r->event, c) : r->default_type &&
		    r->types[c].type == r->default_type) {
			col = c;
			break;
		}
	if (r->event && col == r->ntypes - 1 && !pp_names(r, r->event, col))
		for (uint32_t c = 0; c < r->ntypes; c++) /* not named: the default */
			if (r->default_type && r->types[c].type == r->default_type)
				col = c;
	if (r->event && strchr(r->event, '/') && pp_names(r, r->event, col)) /* as --event says */
		return pp_add_event(r, r->event, strlen(r->event), r->types[col].unit, PP_NO_COL,
				    col);
	return pp_add_event(r, (const char *)r->buf + r->strs[r->types[col].type].off,
			    r->strs[r->types[col].type].len, r->types[col].unit, PP_NO_COL, col);
}

/* ---- module maps ---- */

/* A build-id string as lowercase hex (into the profile), or 0 when it is not hex. */
static int pp_build_id(struct t2f_pprof_reader *r, uint64_t i, t2f_str_id *out)
{
	const char *s = (const char *)r->buf + r->strs[i].off;
	size_t n = r->strs[i].len;
	char hex[256];

	*out = 0;
	if (n == 0 || n > sizeof(hex) || n % 2)
		return 0;
	for (size_t k = 0; k < n; k++) {
		if (!isxdigit((unsigned char)s[k]))
			return 0;
		hex[k] = (char)tolower((unsigned char)s[k]);
	}
	return t2f_profile__intern(r->p, hex, n, out);
}

int pp_module_maps(struct t2f_pprof_reader *r)
{
	int err = 0;

	for (uint32_t i = 0; !err && i < r->nmaps; i++) {
		const struct pp_mapping *m = &r->maps[i];
		struct t2f_module_map mm = { .pid = T2F_PID_UNKNOWN, .input = r->input,
					     .start = m->start, .len = m->limit - m->start,
					     .pgoff = m->offset };

		if (m->limit <= m->start || !m->file)
			continue;
		err = pp_intern(r, m->file, &mm.path) ?: pp_build_id(r, m->build_id, &mm.build_id) ?:
		      t2f_profile__add_module_map(r->p, &mm);
	}
	if (!err && r->nmaps && r->maps[0].file) { /* an unlabelled sample's thread name */
		const char *s = (const char *)r->buf + r->strs[r->maps[0].file].off;
		size_t n = r->strs[r->maps[0].file].len;
		const char *base = memrchr(s, '/', n);

		base = base ? base + 1 : s;
		err = t2f_profile__intern(r->p, base, n - (size_t)(base - s), &r->main_comm);
	}
	return err;
}

/* ---- a location's frames ---- */

/* The frame of a line's function: named by system_name, else name, unless that is "[...]"
 * with no system_name (a frame trace2flame could not name). */
static int pp_line_frame(struct t2f_pprof_reader *r, const struct pp_line *ln,
			 struct t2f_frame *fr)
{
	const struct pp_function *f = &r->funcs[ln->func - 1];
	uint64_t name = f->system_name ? f->system_name : f->name;
	const struct pp_str *s = &r->strs[name];
	int err;

	fr->line = ln->line > 0 && ln->line <= UINT32_MAX ? (uint32_t)ln->line : 0;
	if (!f->system_name && s->len >= 2 && r->buf[s->off] == '[' &&
	    r->buf[s->off + s->len - 1] == ']')
		name = 0;
	err = pp_intern(r, name, &fr->name);
	if (err || !f->file)
		return err;
	if (f->start_line > 0 && f->start_line <= UINT32_MAX) {
		fr->fn_line = (uint32_t)f->start_line;
		return pp_intern(r, f->file, &fr->fn_file);
	}
	return pp_intern(r, f->file, &fr->file);
}

/* Makes the frames of location l (made: its entry) at the end of frames[]. */
static int pp_make_frames(struct t2f_pprof_reader *r, const struct pp_location *l,
			  struct pp_made *made)
{
	const struct pp_mapping *m = l->mapping ? &r->maps[l->mapping - 1] : NULL;
	struct t2f_frame base = { .kind = T2F_FRAME_USER, .space = T2F_SPACE_FILE_OFF };
	uint32_t lines = l->nlines ? l->nlines : 1;
	int err = 0;

	if (m && m->file) {
		err = pp_intern(r, m->file, &base.module);
		base.kind = ps_dso_kind((const char *)r->buf + r->strs[m->file].off,
					r->strs[m->file].len);
	}
	if (l->address) {
		base.has_addr = true;
		base.addr = l->address;
		if (m && m->limit > m->start && l->address >= m->start && l->address < m->limit)
			base.addr = l->address - m->start + m->offset;
	}
	err = err ?: t2f_grow((void **)&r->frames, &r->frames_cap, r->nframes, lines,
			      sizeof(*r->frames), 1024, SIZE_MAX / sizeof(*r->frames));
	for (uint32_t k = lines; !err && k-- > 0;) { /* outermost (the last line) first */
		struct t2f_frame f = base;

		if (k + 1 < lines) { /* inlined into the line after it */
			f.kind = T2F_FRAME_INLINED;
			f.has_addr = false;
			f.addr = 0;
			f.space = T2F_SPACE_FILE_OFF;
		}
		if (l->nlines)
			err = pp_line_frame(r, &r->lines[l->line0 + k], &f);
		err = err ?: t2f_profile__frame(r->p, &f, &r->frames[r->nframes + (lines - 1 - k)]);
	}
	if (err)
		return err;
	made->frame0 = (uint32_t)r->nframes;
	made->nframes = lines;
	r->nframes += lines;
	return 0;
}

int pp_location_frames(struct t2f_pprof_reader *r, uint32_t loc, const t2f_frame_id **fr,
		       size_t *n)
{
	struct pp_made *made = &r->made[loc - 1];
	int err = made->nframes ? 0 : pp_make_frames(r, &r->locs[loc - 1], made);

	if (err)
		return err;
	*fr = r->frames + made->frame0;
	*n = made->nframes;
	return 0;
}

/* ---- scalars ---- */

int pp_scalars(struct t2f_pprof_reader *r)
{
	int err = 0;

	if (r->duration > 0)
		t2f_profile__add_duration(r->p, (uint64_t)r->duration);
	for (size_t i = 0; !err && i < r->ncomments; i++) {
		const struct pp_str *s = &r->strs[r->comments[i]];
		t2f_str_id id;

		if (s->len <= 7 || memcmp(r->buf + s->off, "input: ", 7) != 0)
			continue;
		err = t2f_profile__intern(r->p, (const char *)r->buf + s->off + 7, s->len - 7, &id) ?:
		      t2f_profile__add_input_name(r->p, id);
	}
	return err;
}

void pp_tables_free(struct t2f_pprof_reader *r)
{
	free(r->strs);
	free(r->str_id);
	free(r->types);
	free(r->maps);
	free(r->funcs);
	free(r->locs);
	free(r->lines);
	free(r->made);
	free(r->frames);
	free(r->comments);
	free(r->events);
	free(r->locs_tmp);
	free(r->vals_tmp);
	t2f_hashmap__free(r->map_ix);
	t2f_hashmap__free(r->func_ix);
	t2f_hashmap__free(r->loc_ix);
}
