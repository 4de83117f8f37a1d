/* writers/firefox_tables.c: the Firefox writer's shared tables (firefox_int.h).
 *
 * Passes: (1) the cells of the event mark their stack nodes and every ancestor; (2) marked nodes
 * become stacks in node-id order (a node's parent has a smaller id, so parents come first, as
 * the profiler's stack table requires), each with its inline depth; (3) each stack's (frame,
 * depth) becomes a frame row once, its function (display name, lib, declaration) a function row
 * once, its module a lib once; (4) one scan over the module maps gives each lib its build-id.
 * Everything is in order of first use along node ids: deterministic.
 */
#include "writers/firefox_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats/diag.h"

#define FF_MARKED UINT32_MAX

enum ff_category ff_category_of(enum t2f_frame_kind kind)
{
	switch (kind) {
	case T2F_FRAME_KERNEL:
		return FF_CAT_KERNEL;
	case T2F_FRAME_JIT:
		return FF_CAT_JIT;
	case T2F_FRAME_MANAGED:
		return FF_CAT_MANAGED;
	case T2F_FRAME_INLINED:
		return FF_CAT__COUNT;
	case T2F_FRAME_USER:
	default:
		return FF_CAT_USER;
	}
}

int ff_tables__str(struct ff_tables *t, const char *s, size_t len, uint32_t *idx)
{
	t2f_str_id id;
	int err = t2f_strtab__intern(t->strs, s, len, &id);

	if (!err)
		*idx = id - 1;
	return err;
}

/* Grows a table of `size`-byte rows to hold row n. 0 or -ENOMEM. */
static int ff_room(void **rows, uint32_t n, uint32_t *cap, size_t size)
{
	void *p;
	uint32_t c;

	if (n < *cap)
		return 0;
	if (n == UINT32_MAX - 1)
		return -T2F_ERR_LIMIT;
	c = *cap ? (*cap > UINT32_MAX / 2 ? UINT32_MAX - 1 : *cap * 2) : 64;
	p = realloc(*rows, (size_t)c * size);
	if (!p)
		return -ENOMEM;
	*rows = p;
	*cap = c;
	return 0;
}

/* ---- libs and sources ---- */

/* Whether a module is perf's "[unknown]": no lib. */
static bool ff_unknown(const struct t2f_profile *p, t2f_str_id module)
{
	size_t len;
	const char *s = t2f_profile__str(p, module, &len);

	return len == 9 && memcmp(s, "[unknown]", 9) == 0;
}

static bool ff_lib_eq(const void *ctx, uint32_t v)
{
	const struct ff_tables *t = ctx;

	return t->libs[v - 1].path == *(const t2f_str_id *)t->key;
}

/* The lib of module `path` (a profile string), added when new. */
static int ff_lib(struct ff_tables *t, t2f_str_id path, uint32_t *cap, int32_t *out)
{
	uint64_t h = t2f_hash_u64(path);
	uint32_t v, name;
	const char *s, *base;
	size_t len;
	int err;

	t->key = &path;
	v = t2f_hashmap__find(t->lib_map, h, ff_lib_eq, t);
	if (v) {
		*out = (int32_t)(v - 1);
		return 0;
	}
	s = t2f_profile__str(t->p, path, &len);
	base = memrchr(s, '/', len);
	base = base ? base + 1 : s;
	err = ff_tables__str(t, base, len - (size_t)(base - s), &name) ?:
	      ff_room((void **)&t->libs, t->nlibs, cap, sizeof(*t->libs));
	if (err)
		return err;
	if (t->nlibs >= INT32_MAX)
		return -T2F_ERR_LIMIT;
	t->libs[t->nlibs] = (struct ff_lib){ .path = path, .name = name };
	err = t2f_hashmap__insert(t->lib_map, h, t->nlibs + 1);
	if (!err)
		*out = (int32_t)t->nlibs++;
	return err;
}

static bool ff_source_eq(const void *ctx, uint32_t v)
{
	const struct ff_tables *t = ctx;

	return t->sources[v - 1] == *(const uint32_t *)t->key;
}

/* The sources row of file `file` (a profile string), added when new. */
static int ff_source(struct ff_tables *t, t2f_str_id file, uint32_t *cap, int32_t *out)
{
	const char *s;
	size_t len;
	uint32_t name, v;
	uint64_t h;
	int err;

	s = t2f_profile__str(t->p, file, &len);
	err = ff_tables__str(t, s, len, &name);
	if (err)
		return err;
	h = t2f_hash_u64(name);
	t->key = &name;
	v = t2f_hashmap__find(t->source_map, h, ff_source_eq, t);
	if (v) {
		*out = (int32_t)(v - 1);
		return 0;
	}
	err = ff_room((void **)&t->sources, t->nsources, cap, sizeof(*t->sources));
	if (err)
		return err;
	if (t->nsources >= INT32_MAX)
		return -T2F_ERR_LIMIT;
	t->sources[t->nsources] = name;
	err = t2f_hashmap__insert(t->source_map, h, t->nsources + 1);
	if (!err)
		*out = (int32_t)t->nsources++;
	return err;
}

/* ---- functions and frames ---- */

struct ff_caps {
	uint32_t frames, funcs, libs, sources;
};

static bool ff_func_eq(const void *ctx, uint32_t v)
{
	const struct ff_tables *t = ctx;

	return memcmp(&t->funcs[v - 1], t->key, sizeof(struct ff_func)) == 0;
}

/* The function of frame f, added when new. */
static int ff_func(struct ff_tables *t, t2f_frame_id id, const struct t2f_frame *f, int32_t lib,
		   struct ff_caps *caps, uint32_t *out)
{
	struct ff_func k;
	t2f_str_id file;
	uint32_t line, v;
	const char *name;
	size_t len;
	uint64_t h;
	int err;

	memset(&k, 0, sizeof(k)); /* compared bytewise */
	name = t2f_frame_names__get(t->names, id, &len);
	t2f_frame__fn_position(f, &file, &line);
	k.lib = lib;
	k.source = -1;
	k.line = line;
	err = ff_tables__str(t, name, len, &k.name);
	if (!err && file)
		err = ff_source(t, file, &caps->sources, &k.source);
	if (err)
		return err;
	h = t2f_hash_bytes(&k, sizeof(k));
	t->key = &k;
	v = t2f_hashmap__find(t->func_map, h, ff_func_eq, t);
	if (v) {
		*out = v - 1;
		return 0;
	}
	err = ff_room((void **)&t->funcs, t->nfuncs, &caps->funcs, sizeof(*t->funcs));
	if (err)
		return err;
	t->funcs[t->nfuncs] = k;
	err = t2f_hashmap__insert(t->func_map, h, t->nfuncs + 1);
	if (!err)
		*out = t->nfuncs++;
	return err;
}

struct ff_frame_key {
	t2f_frame_id frame;
	uint8_t depth;
};

static bool ff_frame_eq(const void *ctx, uint32_t v)
{
	const struct ff_tables *t = ctx;
	const struct ff_frame_key *k = t->key;

	return t->frames[v - 1].frame == k->frame && t->frames[v - 1].depth == k->depth;
}

/* The frame row of (frame id, depth), added when new. */
static int ff_frame(struct ff_tables *t, t2f_frame_id id, uint8_t depth, struct ff_caps *caps,
		    uint32_t *out)
{
	struct ff_frame_key k = { .frame = id, .depth = depth };
	uint64_t h = t2f_hash_u64((uint64_t)id << 8 | depth);
	const struct t2f_frame *f;
	struct ff_frame row = { .frame = id, .depth = depth, .lib = -1 };
	uint32_t v;
	int err = 0;

	t->key = &k;
	v = t2f_hashmap__find(t->frame_map, h, ff_frame_eq, t);
	if (v) {
		*out = v - 1;
		return 0;
	}
	f = t2f_profile__frame_at(t->p, id);
	if (f->module && !ff_unknown(t->p, f->module))
		err = ff_lib(t, f->module, &caps->libs, &row.lib);
	if (!err)
		err = ff_func(t, id, f, row.lib, caps, &row.func);
	if (!err)
		err = ff_room((void **)&t->frames, t->nframes, &caps->frames, sizeof(*t->frames));
	if (err)
		return err;
	t->frames[t->nframes] = row;
	err = t2f_hashmap__insert(t->frame_map, h, t->nframes + 1);
	if (!err)
		*out = t->nframes++;
	return err;
}

/* ---- stacks ---- */

/* Marks the nodes the event's cells use, and their ancestors. */
static void ff_mark(struct ff_tables *t)
{
	size_t n = t2f_profile__cell_count(t->p);

	for (size_t i = 0; i < n; i++) {
		const struct t2f_cell *c = t2f_profile__cell_at(t->p, i);

		if (c->event != t->event)
			continue;
		for (t2f_node_id node = c->node; node && !t->node_stack[node];
		     node = t2f_profile__node_parent(t->p, node))
			t->node_stack[node] = FF_MARKED;
	}
}

/* Numbers the marked nodes in id order and makes their frames. */
static int ff_stacks(struct ff_tables *t, struct ff_caps *caps)
{
	uint32_t nodes = t2f_profile__node_count(t->p);
	int err = 0;

	for (t2f_node_id n = 1; n <= nodes && !err; n++) {
		t2f_node_id parent;
		t2f_frame_id fid;
		uint8_t depth = 0;

		if (t->node_stack[n] != FF_MARKED)
			continue;
		parent = t2f_profile__node_parent(t->p, n);
		if (parent >= n)
			return -EINVAL; /* the model builds parents first */
		fid = t2f_profile__node_frame(t->p, n);
		if (parent && t2f_profile__frame_at(t->p, fid)->kind == T2F_FRAME_INLINED)
			depth = t->node_depth[parent] < UINT8_MAX ? t->node_depth[parent] + 1
								   : UINT8_MAX;
		t->node_depth[n] = depth;
		t->stack_node[t->nstacks] = n;
		err = ff_frame(t, fid, depth, caps, &t->stack_frame[t->nstacks]);
		t->node_stack[n] = ++t->nstacks;
	}
	return err;
}

/* Each lib's build-id: the first module map of its path that recorded one. */
static void ff_build_ids(struct ff_tables *t)
{
	uint32_t n = t2f_profile__module_map_count(t->p);

	for (uint32_t i = 0; i < n; i++) {
		const struct t2f_module_map *m = t2f_profile__module_map_at(t->p, i);
		uint32_t v;

		if (!m->build_id)
			continue;
		t->key = &m->path;
		v = t2f_hashmap__find(t->lib_map, t2f_hash_u64(m->path), ff_lib_eq, t);
		if (v && !t->libs[v - 1].build_id)
			t->libs[v - 1].build_id = m->build_id;
	}
}

int ff_tables__build(struct ff_tables *t, const struct t2f_profile *p, t2f_event_id event,
		     const struct t2f_frame_name_opts *names)
{
	uint32_t nodes = t2f_profile__node_count(p);
	struct ff_caps caps = { 0 };
	int err;

	memset(t, 0, sizeof(*t));
	t->p = p;
	t->event = event;
	t->node_stack = calloc((size_t)nodes + 1, sizeof(*t->node_stack));
	t->node_depth = calloc((size_t)nodes + 1, sizeof(*t->node_depth));
	t->stack_node = calloc((size_t)nodes + 1, sizeof(*t->stack_node));
	t->stack_frame = calloc((size_t)nodes + 1, sizeof(*t->stack_frame));
	if (!t->node_stack || !t->node_depth || !t->stack_node || !t->stack_frame)
		return -ENOMEM;
	err = t2f_strtab__new(&t->strs) ?: t2f_frame_names__new(p, names, &t->names) ?:
	      t2f_hashmap__new(1024, &t->frame_map) ?: t2f_hashmap__new(1024, &t->func_map) ?:
	      t2f_hashmap__new(64, &t->lib_map) ?: t2f_hashmap__new(64, &t->source_map);
	if (err)
		return err;
	ff_mark(t);
	err = ff_stacks(t, &caps);
	if (!err)
		ff_build_ids(t);
	return err;
}

void ff_tables__free(struct ff_tables *t)
{
	t2f_strtab__free(t->strs);
	t2f_frame_names__free(t->names);
	free(t->node_stack);
	free(t->node_depth);
	free(t->stack_node);
	free(t->stack_frame);
	free(t->frames);
	t2f_hashmap__free(t->frame_map);
	free(t->funcs);
	t2f_hashmap__free(t->func_map);
	free(t->libs);
	t2f_hashmap__free(t->lib_map);
	free(t->sources);
	t2f_hashmap__free(t->source_map);
	t2f_buf__free(&t->tmp);
	memset(t, 0, sizeof(*t));
}
