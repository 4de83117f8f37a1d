/* writers/pprof_tables.c: profile → pprof string table, functions, mappings and locations.
 *
 * Passes: (1) nodes used by some cell, and their ancestors (a walk down the node ids, since a
 * parent's id is below its children's); (2) functions for used frames in frame-id order,
 * deduplicated on (name, system_name, filename, start_line), their strings made once per
 * func_key, not per frame; (3) mappings for the modules of used frames, ranges from the module
 * maps (pprof_ranges.c); (4) locations for used nodes in id order (parents first),
 * deduplicated on (innermost frame, rest-of-run location): a frame's own location by frame id,
 * one joined to its caller's (an inlined frame) through a hash map; (5) what each mapping's
 * locations hold: filenames, line numbers, inline frames. pprof_order.c then renumbers them
 * in the order the samples use them.
 */
#include "writers/pprof_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats/diag.h"
#include "formats/grow.h"
#include "formats/utf8.h"

/* ---- strings ---- */

int t2f_pprof_tables__str(struct t2f_pprof_tables *t, const char *s, size_t len, uint32_t *idx)
{
	int err;

	if (len == 0) {
		*idx = 0;
		return 0;
	}
	if (t2f_utf8_clean(s, len))
		return t2f_strtab__intern(t->strs, s, len, idx);
	/* ill-formed sequences become U+FFFD, control characters spaces (pprof prints strings to
	 * terminals as they are) */
	err = t2f_utf8_sanitize(&t->utf8, s, len, " ");
	return err ?: t2f_strtab__intern(t->strs, t->utf8.p, t->utf8.len, idx);
}

static int prof_str(struct t2f_pprof_tables *t, t2f_str_id id, uint32_t *idx)
{
	size_t len;
	const char *s = t2f_profile__str(t->p, id, &len);

	return t2f_pprof_tables__str(t, s, len, idx);
}

/* ---- (1) used nodes ---- */

static int mark_used(struct t2f_pprof_tables *t)
{
	const struct t2f_profile *p = t->p;
	uint32_t n = t2f_profile__node_count(p);
	size_t cells = t2f_profile__cell_count(p);

	t->nodes = calloc((size_t)n + 1, sizeof(*t->nodes));
	t->frame_func = calloc((size_t)t2f_profile__frame_count(p) + 1, sizeof(*t->frame_func));
	t->frame_map = calloc((size_t)t2f_profile__frame_count(p) + 1, sizeof(*t->frame_map));
	t->frame_inlined = calloc((size_t)t2f_profile__frame_count(p) + 1, sizeof(*t->frame_inlined));
	if (!t->nodes || !t->frame_func || !t->frame_map || !t->frame_inlined)
		return -ENOMEM;
	for (size_t i = 0; i < cells; i++)
		t->nodes[t2f_profile__cell_at(p, i)->node].loc = 1;
	for (t2f_node_id nd = n; nd >= 1; nd--) { /* a parent's id is below its children's */
		if (!t->nodes[nd].loc)
			continue;
		t->nodes[t2f_profile__node_parent(p, nd)].loc = 1;
		t->frame_func[t2f_profile__node_frame(p, nd)] = 1;
	}
	t->nodes[0].loc = 0;
	return 0;
}

/* ---- (2) functions ---- */

static bool is_symbol(const struct t2f_profile *p, t2f_str_id name)
{
	size_t len;
	const char *s = t2f_profile__str(p, name, &len);

	return !t2f_unknown_name(s, len);
}

struct func_probe {
	const struct t2f_pprof_tables *t;
	struct t2f_pprof_func key;
};

static bool func_eq(const void *ctx, uint32_t v)
{
	const struct func_probe *q = ctx;
	const struct t2f_pprof_func *f = &q->t->funcs[v];

	return f->name == q->key.name && f->system_name == q->key.system_name &&
	       f->filename == q->key.filename && f->start_line == q->key.start_line;
}

/* What the profile says of a frame's function: what its name is made of, and its position.
 * Frames with equal keys have the same function, so its strings are made and interned once
 * per key, not once per frame (whole-machine profiles: 214K frames, 7K functions). */
struct func_key {
	struct t2f_frame_name_key name;
	t2f_str_id file;
	uint32_t line;
	uint32_t func;          /* its function id */
};

/* The functions being built. */
struct func_index {
	struct t2f_hashmap *m;       /* interned (name, system_name, filename, start_line) */
	size_t cap;                  /* of t->funcs (t2f_grow) */
	uint32_t n;
	struct t2f_hashmap *keys;    /* func_key -> index in key[] */
	struct func_key *key;        /* [1..nkeys] */
	size_t key_cap;
	uint32_t nkeys;
	struct t2f_buf name;         /* scratch: a frame's name */
};

static uint64_t key_hash(const struct func_key *k)
{
	return t2f_hash_u64((uint64_t)k->name.name << 32 | k->name.module) ^
	       t2f_hash_u64(k->name.addr + k->name.has_addr) ^
	       t2f_hash_u64((uint64_t)k->file << 32 | k->line) ^ k->name.kind;
}

struct key_probe {
	const struct func_index *x;
	const struct func_key *k;
};

static bool key_eq(const void *ctx, uint32_t v)
{
	const struct key_probe *q = ctx;
	const struct func_key *a = &q->x->key[v], *b = q->k;

	return a->name.name == b->name.name && a->name.module == b->name.module &&
	       a->name.has_addr == b->name.has_addr && a->name.addr == b->name.addr &&
	       a->name.kind == b->name.kind && a->file == b->file && a->line == b->line;
}

/* The function of key k (met the first time): its strings interned, then deduplicated on
 * them. */
static int new_function(struct t2f_pprof_tables *t, struct func_index *x,
			const struct t2f_frame_name_opts *o, const struct func_key *k,
			uint32_t *func)
{
	struct func_probe q = { .t = t, .key.start_line = k->line };
	uint64_t h;
	int err;

	x->name.len = 0;
	err = t2f_frame_name__put(t->p, &k->name, o, &x->name) ?:
	      t2f_pprof_tables__str(t, x->name.p ? x->name.p : "", x->name.len, &q.key.name);
	if (!err && is_symbol(t->p, k->name.name))
		err = prof_str(t, k->name.name, &q.key.system_name);
	if (!err && k->file)
		err = prof_str(t, k->file, &q.key.filename);
	if (err)
		return err;
	h = t2f_hash_u64((uint64_t)q.key.name << 32 | q.key.system_name) ^
	    t2f_hash_u64((uint64_t)q.key.filename << 32 | q.key.start_line);
	*func = t2f_hashmap__find(x->m, h, func_eq, &q);
	if (*func)
		return 0;
	err = t2f_grow((void **)&t->funcs, &x->cap, (size_t)x->n + 1, 1, sizeof(*t->funcs), 64,
		       UINT32_MAX); /* [1..n] */
	if (err)
		return err;
	t->funcs[++x->n] = q.key;
	*func = x->n;
	return t2f_hashmap__insert(x->m, h, x->n);
}

static int frame_function(struct t2f_pprof_tables *t, struct func_index *x, t2f_frame_id id,
			  const struct t2f_frame_name_opts *o)
{
	const struct t2f_frame *fr = t2f_profile__frame_at(t->p, id);
	struct func_key k = { 0 };
	struct key_probe q = { x, &k };
	uint64_t h;
	uint32_t v;
	int err;

	t2f_frame_name__key_unread(t->p, fr, o, &k.name);
	t2f_frame__fn_position(fr, &k.file, &k.line);
	h = key_hash(&k);
	v = t2f_hashmap__find(x->keys, h, key_eq, &q);
	if (v) {
		t->frame_func[id] = x->key[v].func;
		return 0;
	}
	err = new_function(t, x, o, &k, &k.func) ?:
	      t2f_grow((void **)&x->key, &x->key_cap, (size_t)x->nkeys + 1, 1, sizeof(*x->key),
		       64, UINT32_MAX); /* [1..nkeys] */
	if (err)
		return err;
	x->key[++x->nkeys] = k;
	t->frame_func[id] = k.func;
	return t2f_hashmap__insert(x->keys, h, x->nkeys);
}

static int build_functions(struct t2f_pprof_tables *t, const struct t2f_frame_name_opts *o)
{
	uint32_t n = t2f_profile__frame_count(t->p);
	struct func_index x = { 0 };
	int err = t2f_hashmap__new(1024, &x.m) ?: t2f_hashmap__new(1024, &x.keys);

	for (t2f_frame_id id = 1; !err && id <= n; id++)
		if (t->frame_func[id]) {
			err = frame_function(t, &x, id, o);
			t->frame_inlined[id] =
				t2f_profile__frame_at(t->p, id)->kind == T2F_FRAME_INLINED;
		}
	t2f_hashmap__free(x.m);
	t2f_hashmap__free(x.keys);
	free(x.key);
	t2f_buf__free(&x.name);
	t->nfuncs = x.n;
	return err;
}

/* ---- (3) mappings ---- */

#define NO_MAP UINT32_MAX /* map_of: the string is no module */

/* Per profile string id, what it is met as, worked out once per string, not once per frame. */
struct map_index {
	uint32_t *map_of;  /* as a frame's module: its mapping id; 0 = not met; NO_MAP: none */
	uint8_t *symbol;   /* as a frame's name: 0 = not met, 1 = a symbol, 2 = not */
};

static bool symbol_at(const struct t2f_profile *p, struct map_index *x, t2f_str_id name)
{
	if (!x->symbol[name])
		x->symbol[name] = is_symbol(p, name) ? 1 : 2;
	return x->symbol[name] == 1;
}

/* A mapping for each module of the used frames (perf's "[unknown]" dso is none), in the order
 * they are met. */
static int add_modules(struct t2f_pprof_tables *t, struct map_index *x)
{
	uint32_t n = t2f_profile__frame_count(t->p);
	size_t cap = 0;

	for (t2f_frame_id id = 1; id <= n; id++) {
		t2f_str_id module = t2f_profile__frame_at(t->p, id)->module;
		int err;

		if (!t->frame_func[id] || x->map_of[module])
			continue;
		if (!module || !is_symbol(t->p, module)) {
			x->map_of[module] = NO_MAP;
			continue;
		}
		err = t2f_grow((void **)&t->maps, &cap, (size_t)t->nmaps + 1, 1, sizeof(*t->maps), 16,
			       NO_MAP); /* [1..nmaps] */
		if (err)
			return err;
		t->maps[++t->nmaps] = (struct t2f_pprof_map){ .module = module,
			.has_functions = true };
		x->map_of[module] = t->nmaps;
	}
	return 0;
}

static int build_mappings(struct t2f_pprof_tables *t)
{
	uint32_t n = t2f_profile__frame_count(t->p);
	size_t nstr = (size_t)t2f_profile__str_count(t->p) + 1;
	struct map_index x = { calloc(nstr, sizeof(*x.map_of)), calloc(nstr, 1) };
	int err = x.map_of && x.symbol ? add_modules(t, &x) : -ENOMEM;

	for (t2f_frame_id id = 1; !err && id <= n; id++) {
		const struct t2f_frame *fr = t2f_profile__frame_at(t->p, id);
		uint32_t map = x.map_of[fr->module];

		if (!t->frame_func[id] || map == NO_MAP)
			continue;
		t->frame_map[id] = map;
		if (!symbol_at(t->p, &x, fr->name))
			t->maps[map].has_functions = false;
	}
	free(x.map_of);
	free(x.symbol);
	return err ?: t2f_pprof_tables__ranges(t);
}

/* ---- (4) locations ---- */

struct loc_probe {
	const struct t2f_pprof_tables *t;
	t2f_frame_id frame;
	uint32_t tail;
	uint64_t address;       /* own locations: the frame's (loc_address) */
};

static bool loc_eq(const void *ctx, uint32_t v)
{
	const struct loc_probe *q = ctx;

	return q->t->locs[v].frame == q->frame && q->t->locs[v].tail == q->tail;
}

/* The address pprof expects: inside the mapping's memory range when the frame's DSO-relative
 * address lies in the mapped part of the file; else as recorded. */
static uint64_t loc_address(const struct t2f_pprof_tables *t, const struct t2f_frame *fr,
			    uint32_t map)
{
	const struct t2f_pprof_map *m = map ? &t->maps[map] : NULL; /* maps may be NULL */

	if (!fr->has_addr)
		return 0;
	if (m && m->has_range && fr->space != T2F_SPACE_ABS && fr->addr >= m->pgoff &&
	    fr->addr - m->pgoff < m->limit - m->start)
		return m->start + (fr->addr - m->pgoff);
	return fr->addr;
}

/* An inlined frame joins the location of the frame it sits on (its caller) unless both have
 * addresses that differ. */
static bool joins_parent(const struct t2f_profile *p, const struct t2f_frame *fr,
			 t2f_node_id parent)
{
	const struct t2f_frame *up;

	if (fr->kind != T2F_FRAME_INLINED || parent == 0)
		return false;
	up = t2f_profile__frame_at(p, t2f_profile__node_frame(p, parent));
	return !(fr->has_addr && up->has_addr && fr->addr != up->addr);
}

/* Locations as they are looked up: a frame's own location (tail 0, nearly every node) in an
 * array by frame id; an inlined frame's location joined to its caller's by (frame, tail) in a
 * hash map. The ids made here are the tables' own: the output numbers locations in the order
 * the samples meet them (pprof_order.c). Frames the profile keeps apart that a location cannot
 * tell apart (the same function, line, mapping and address: a frame named after another input
 * met it unnamed, one address in two spaces) share their own location, so a profile read back
 * from its pprof writes the same locations. The location holds the first of them made: the
 * frames that are not inlined come first, in frame id order (own_locations), then inlined
 * frames as the nodes meet them. */
struct loc_index {
	struct t2f_hashmap *joined;
	struct t2f_hashmap *same; /* own locations by what they hold */
	uint32_t *own;          /* per frame id: its location with tail 0, or 0 */
	size_t cap;             /* of t->locs (t2f_grow) */
};

/* What frame's own location holds: its function, line, mapping and address. */
static bool own_eq(const void *ctx, uint32_t v)
{
	const struct loc_probe *q = ctx;
	const struct t2f_pprof_loc *a = &q->t->locs[v];
	const struct t2f_frame *fa = t2f_profile__frame_at(q->t->p, a->frame);
	const struct t2f_frame *fb = t2f_profile__frame_at(q->t->p, q->frame);

	return a->tail == 0 && q->t->frame_func[a->frame] == q->t->frame_func[q->frame] &&
	       fa->line == fb->line && a->mapping == q->t->frame_map[q->frame] &&
	       a->address == q->address;
}

static uint64_t own_hash(const struct t2f_pprof_tables *t, t2f_frame_id frame, uint64_t address)
{
	const struct t2f_frame *fr = t2f_profile__frame_at(t->p, frame);

	return t2f_hash_u64((uint64_t)t->frame_func[frame] << 32 | t->frame_map[frame]) ^
	       t2f_hash_u64(address + fr->line);
}

/* A new location (the frame's own: tail 0, at `address`; else joined to tail's). */
static int new_location(struct t2f_pprof_tables *t, struct loc_index *x, t2f_frame_id frame,
			uint32_t tail, uint64_t address)
{
	struct t2f_pprof_loc *l;
	int err = t2f_grow((void **)&t->locs, &x->cap, (size_t)t->nlocs + 1, 1, sizeof(*t->locs),
			   1024, UINT32_MAX); /* [1..nlocs] */

	if (err)
		return err;
	l = &t->locs[++t->nlocs];
	*l = (struct t2f_pprof_loc){ .frame = frame, .tail = tail };
	if (tail) {
		l->mapping = t->locs[tail].mapping;
		l->address = t->locs[tail].address;
	} else {
		l->mapping = t->frame_map[frame];
		l->address = address;
	}
	return 0;
}

/* Where frame f's own location is looked up: at its address, under its hash. */
struct own_key {
	uint64_t address, hash;
};

static struct own_key own_key(const struct t2f_pprof_tables *t, t2f_frame_id f)
{
	uint64_t address = loc_address(t, t2f_profile__frame_at(t->p, f), t->frame_map[f]);

	return (struct own_key){ address, own_hash(t, f, address) };
}

/* Frame f's own location (x->own[f]): one that holds the same, or a new one. */
static int own_location(struct t2f_pprof_tables *t, struct loc_index *x, t2f_frame_id f,
			struct own_key k)
{
	struct loc_probe q = { .t = t, .frame = f, .address = k.address };
	int err;

	x->own[f] = t2f_hashmap__find(x->same, k.hash, own_eq, &q);
	if (x->own[f])
		return 0;
	err = new_location(t, x, f, 0, k.address) ?: t2f_hashmap__insert(x->same, k.hash, t->nlocs);
	x->own[f] = t->nlocs;
	return err;
}

static int node_location(struct t2f_pprof_tables *t, struct loc_index *x, t2f_node_id nd)
{
	t2f_node_id parent = t2f_profile__node_parent(t->p, nd);
	struct loc_probe q = { .t = t, .frame = t2f_profile__node_frame(t->p, nd) };
	uint64_t h;
	int err;

	t->nodes[nd].next = parent;
	if (!t->frame_inlined[q.frame] ||
	    !joins_parent(t->p, t2f_profile__frame_at(t->p, q.frame), parent)) {
		err = x->own[q.frame] ? 0 : own_location(t, x, q.frame, own_key(t, q.frame));
		t->nodes[nd].loc = x->own[q.frame];
		return err;
	}
	q.tail = t->nodes[parent].loc;
	t->nodes[nd].next = t->nodes[parent].next;
	h = t2f_hash_u64((uint64_t)q.frame << 32 | q.tail);
	t->nodes[nd].loc = t2f_hashmap__find(x->joined, h, loc_eq, &q);
	if (t->nodes[nd].loc)
		return 0;
	if ((err = new_location(t, x, q.frame, q.tail, 0)) != 0)
		return err;
	t->nodes[nd].loc = t->nlocs;
	return t2f_hashmap__insert(x->joined, h, t->nlocs);
}

#define OWN_AHEAD 8 /* frames ahead whose lookup's slot own_locations asks for */

/* Whether frame f has its own location before the nodes are walked: a used frame that is not
 * inlined (no node of its joins its caller's location). */
static bool own_first(const struct t2f_pprof_tables *t, t2f_frame_id f)
{
	return t->frame_func[f] && !t->frame_inlined[f];
}

/* The own locations of the frames own_first names, in frame id order (the frames' array read
 * in order, each lookup's slot asked for OWN_AHEAD frames before), where the nodes' walk would
 * meet them in no order: on a whole-machine text (h42.txt, 128K frames, 306K nodes), the
 * locations took 10-24 ms. An inlined frame's is made as its first node is met. */
static int own_locations(struct t2f_pprof_tables *t, struct loc_index *x)
{
	uint32_t n = t2f_profile__frame_count(t->p);
	struct own_key ring[OWN_AHEAD] = { 0 };
	int err = 0;

	for (t2f_frame_id f = 1; f <= n && f <= OWN_AHEAD; f++)
		if (own_first(t, f))
			ring[f % OWN_AHEAD] = own_key(t, f);
	for (t2f_frame_id f = 1; !err && f <= n; f++) {
		struct own_key k = ring[f % OWN_AHEAD];
		t2f_frame_id a = f + OWN_AHEAD;

		if (a <= n && own_first(t, a)) {
			ring[a % OWN_AHEAD] = own_key(t, a);
			t2f_hashmap__prefetch(x->same, ring[a % OWN_AHEAD].hash);
		}
		if (own_first(t, f))
			err = own_location(t, x, f, k);
	}
	return err;
}

/* The frames some used node holds: each has one own location at most, so the index of those
 * and the locations are made that big at once, never grown (whole-machine recordings: 126K to
 * 167K). */
static size_t used_frames(const struct t2f_pprof_tables *t)
{
	uint32_t nf = t2f_profile__frame_count(t->p);
	size_t n = 0;

	for (t2f_frame_id f = 1; f <= nf; f++)
		n += t->frame_func[f] != 0;
	return n;
}

static int build_locations(struct t2f_pprof_tables *t)
{
	uint32_t n = t2f_profile__node_count(t->p);
	size_t frames = used_frames(t);
	struct loc_index x = { 0 };
	int err = t2f_hashmap__new(16, &x.joined) ?: t2f_hashmap__new(frames, &x.same) ?:
		  t2f_grow((void **)&t->locs, &x.cap, 0, frames + 1, sizeof(*t->locs), 1024,
			   UINT32_MAX);

	if (err) {
		t2f_hashmap__free(x.joined);
		t2f_hashmap__free(x.same);
		return err;
	}
	x.own = calloc((size_t)t2f_profile__frame_count(t->p) + 1, sizeof(*x.own));
	err = x.own ? own_locations(t, &x) : -ENOMEM;
	for (t2f_node_id nd = 1; !err && nd <= n; nd++)
		if (t->nodes[nd].loc)
			err = node_location(t, &x, nd);
	t2f_hashmap__free(x.joined);
	t2f_hashmap__free(x.same);
	free(x.own);
	return err;
}

/* ---- (5) what each mapping's locations hold ---- */

/* A mapping has filenames when every function its locations' lines name has one, and line
 * numbers when every line has one. Its inline frames are resolved when its lines all have
 * numbers (they come from DWARF, which gives each address's inline chain with its line:
 * pipeline/inlines.c) or when a location holds an inlined frame (perf script --inline). A
 * mapping no location uses says none of the three. */
static int mapping_details(struct t2f_pprof_tables *t)
{
	bool *inlined = calloc((size_t)t->nmaps + 1, sizeof(*inlined));
	bool *used = calloc((size_t)t->nmaps + 1, sizeof(*used));

	if (!inlined || !used) {
		free(inlined);
		free(used);
		return -ENOMEM;
	}
	for (uint32_t m = 1; m <= t->nmaps; m++)
		t->maps[m].has_filenames = t->maps[m].has_line_numbers = true;
	for (uint32_t i = 1; i <= t->nlocs; i++) {
		uint32_t id = t->locs[i].mapping;
		struct t2f_pprof_map *m;

		if (!id)
			continue;
		m = &t->maps[id];
		used[id] = true;
		for (uint32_t j = i; j; j = t->locs[j].tail) {
			t2f_frame_id f = t->locs[j].frame;

			if (!t->funcs[t->frame_func[f]].filename)
				m->has_filenames = false;
			if (!t2f_profile__frame_at(t->p, f)->line)
				m->has_line_numbers = false;
			inlined[id] |= t->frame_inlined[f];
		}
	}
	for (uint32_t m = 1; m <= t->nmaps; m++) {
		struct t2f_pprof_map *pm = &t->maps[m];

		pm->has_filenames &= used[m];
		pm->has_line_numbers &= used[m];
		pm->has_inline_frames = pm->has_line_numbers || inlined[m];
	}
	free(inlined);
	free(used);
	return 0;
}

int t2f_pprof_tables__build(struct t2f_pprof_tables *t, const struct t2f_profile *p,
			    const struct t2f_frame_name_opts *names)
{
	struct t2f_frame_name_opts o = *names;

	memset(t, 0, sizeof(*t));
	t->p = p;
	o.collapsed = false;
	return t2f_strtab__new(&t->strs) ?: mark_used(t) ?: build_functions(t, &o) ?:
	       build_mappings(t) ?: build_locations(t) ?: mapping_details(t);
}

void t2f_pprof_tables__free(struct t2f_pprof_tables *t)
{
	t2f_strtab__free(t->strs);
	t2f_strtab__free(t->old_strs);
	free(t->loc_order);
	t2f_buf__free(&t->utf8);
	free(t->frame_func);
	free(t->frame_map);
	free(t->frame_inlined);
	free(t->nodes);
	free(t->locs);
	free(t->funcs);
	free(t->maps);
	memset(t, 0, sizeof(*t));
}
