/* writers/name_paths.c: nodes grouped by the names along them (name_paths.h). */
#include "writers/name_paths.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats/bits.h"
#include "formats/diag.h"
#include "formats/hashmap.h"
#include "formats/mem.h"
#include "writers/name_keys.h"

struct np_path {               /* 12 bytes: its name is its frame's */
	uint32_t parent;
	t2f_frame_id frame;     /* the frame of its first node */
	uint32_t text_len;      /* a path's text past 4 GiB: -T2F_ERR_LIMIT */
};

struct t2f_name_paths {
	const struct t2f_frame_names *names;
	uint32_t *of;           /* per node (0: the root) */
	struct np_path *paths;  /* [0]: the root */
	uint32_t n;
	struct t2f_hashmap *ix;
};

/* Path v's name (not the root's). */
static const char *np_name(const struct t2f_name_paths *np, uint32_t v, size_t *len)
{
	return t2f_frame_names__get(np->names, np->paths[v].frame, len);
}

struct np_probe {
	const struct t2f_name_paths *np;
	uint32_t parent;
	const char *name;
	size_t len;
};

static bool np_eq(const void *ctx, uint32_t v)
{
	const struct np_probe *q = ctx;
	size_t len;
	const char *name;

	if (q->np->paths[v].parent != q->parent)
		return false;
	name = np_name(q->np, v, &len);
	return len == q->len && memcmp(name, q->name, len) == 0;
}

/* The path of node n, whose parent's path is known: found, or added. fh: its frame name's hash
 * (per frame, worked out once). 0, -ENOMEM or -T2F_ERR_LIMIT. */
static int np_add(struct t2f_name_paths *np, const struct t2f_profile *p, const uint64_t *fh,
		  t2f_node_id n)
{
	t2f_frame_id frame = t2f_profile__node_frame(p, n);
	struct np_probe q = { np, np->of[t2f_profile__node_parent(p, n)], NULL, 0 };
	uint64_t h = fh[frame] ^ t2f_hash_u64(q.parent);
	uint32_t v;

	q.name = t2f_frame_names__get(np->names, frame, &q.len);
	v = t2f_hashmap__find(np->ix, h, np_eq, &q);
	if (!v) {
		uint64_t text_len = (uint64_t)np->paths[q.parent].text_len + 1 + q.len;

		if (text_len > UINT32_MAX)
			return -T2F_ERR_LIMIT;
		v = np->n;
		np->paths[v] = (struct np_path){ q.parent, frame, (uint32_t)text_len };
		if (t2f_hashmap__insert(np->ix, h, v))
			return -ENOMEM;
		np->n++;
	}
	np->of[n] = v;
	return 0;
}

/* Each frame's name hashed, once (nodes outnumber frames several times over). */
static uint64_t *name_hashes(const struct t2f_profile *p, const struct t2f_frame_names *names)
{
	uint32_t frames = t2f_profile__frame_count(p);
	uint64_t *fh = malloc(((size_t)frames + 1) * sizeof(*fh));

	for (uint32_t f = 1; fh && f <= frames; f++) {
		size_t len;
		const char *name = t2f_frame_names__get(names, f, &len);

		fh[f] = t2f_hash_bytes(name, len);
	}
	return fh;
}

/* The path table of nodes + 1 entries: in whole huge pages when large (written once each, in
 * order: 4 KiB pages cost a fault each). Entry 0, the root, zero. */
static struct np_path *paths_alloc(uint32_t nodes)
{
	size_t bytes = ((size_t)nodes + 1) * sizeof(struct np_path), cap;
	struct np_path *paths = bytes < T2F_MEM_HUGE_MIN ? malloc(bytes) :
				t2f_mem__alloc_huge(bytes, &cap);

	if (paths)
		paths[0] = (struct np_path){ 0 };
	return paths;
}

int t2f_name_paths__new(const struct t2f_profile *p, const struct t2f_frame_names *names,
			struct t2f_name_paths **out)
{
	uint32_t nodes = t2f_profile__node_count(p);
	struct t2f_name_paths *np = calloc(1, sizeof(*np));
	uint64_t *fh = name_hashes(p, names);
	int err = 0;

	*out = NULL;
	if (np) {
		np->of = calloc((size_t)nodes + 1, sizeof(*np->of));
		np->paths = paths_alloc(nodes);
	}
	/* the index at its largest size at once (no path more than a node): no growth to pay;
	 * dense, as the profile's node index (nearly every node is a path of its own) */
	if (!np || !fh || !np->of || !np->paths || t2f_hashmap__new_dense(nodes, &np->ix)) {
		free(fh);
		t2f_name_paths__free(np);
		return -ENOMEM;
	}
	np->names = names;
	np->n = 1;
	for (t2f_node_id n = 1; n <= nodes && !err; n++) /* a parent's id is below its child's */
		err = np_add(np, p, fh, n);
	free(fh);
	t2f_hashmap__free(np->ix); /* only building looks paths up */
	np->ix = NULL;
	if (err) {
		t2f_name_paths__free(np);
		return err;
	}
	*out = np;
	return 0;
}

void t2f_name_paths__free(struct t2f_name_paths *np)
{
	if (!np)
		return;
	free(np->of);
	free(np->paths);
	t2f_hashmap__free(np->ix);
	free(np);
}

uint32_t t2f_name_paths__count(const struct t2f_name_paths *np)
{
	return np->n - 1;
}

uint32_t t2f_name_paths__of(const struct t2f_name_paths *np, t2f_node_id node)
{
	return np->of[node];
}

void t2f_name_paths__forget_nodes(struct t2f_name_paths *np)
{
	free(np->of);
	np->of = NULL;
}

uint64_t t2f_name_paths__text_len(const struct t2f_name_paths *np, uint32_t path)
{
	return np->paths[path].text_len;
}

void t2f_name_paths__put(const struct t2f_name_paths *np, uint32_t path, char *dst)
{
	char *at = dst + np->paths[path].text_len;

	for (uint32_t v = path; v; v = np->paths[v].parent) {
		size_t len;
		const char *name = np_name(np, v, &len);

		at -= len;
		memcpy(at, name, len);
		*--at = ';';
	}
}

/* ---- the paths' order ---- */

/* A key of a parent's group of children (name_keys.h): K_ON, the path going on (else: ending
 * there); K_LAST, the group's last key; above K_SHIFT, the path, and once the groups are sorted,
 * for a key going on, where that path's own group starts. */
#define K_ON 1u
#define K_LAST 2u
#define K_SHIFT 2
#define NP_MAX_PATHS ((uint32_t)1 << 29) /* keys: at most two per path, shifted by two */

struct np_order {
	uint32_t *first; /* per path: where its children's keys start, in keys (while sorted) */
	uint32_t *keys;  /* a path's end where a line ends there, its going on where it has
			  * children: by parent */
	uint32_t n_keys;
};

/* The keys of a group, sorted (name_keys.h) through a scratch array of borrowed names. */
static int np_sort_group(const struct t2f_name_paths *np, uint32_t *keys, uint32_t n,
			 struct t2f_name_key **scratch, uint32_t *cap)
{
	if (n > *cap) {
		free(*scratch);
		*scratch = malloc((size_t)n * sizeof(**scratch));
		*cap = *scratch ? n : 0;
		if (!*scratch)
			return -ENOMEM;
	}
	for (uint32_t i = 0; i < n; i++) {
		size_t len;
		const char *name = np_name(np, keys[i] >> K_SHIFT, &len);

		(*scratch)[i] = (struct t2f_name_key){ name, (uint32_t)len, keys[i], keys[i] & K_ON };
	}
	if (t2f_name_keys__sort(*scratch, n))
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		keys[i] = (*scratch)[i].id;
	return 0;
}

/* The paths that have a child with keys: one that ends a line or has such a child itself (a
 * bit each; a child's id is above its parent's). NULL when out of memory. */
static uint64_t *np_parents(const struct t2f_name_paths *np, const uint64_t *ends)
{
	uint64_t *goes = calloc(np->n / 64 + 1, sizeof(*goes));

	for (uint32_t v = np->n; goes && v-- > 1;) {
		uint32_t up = np->paths[v].parent;

		if (t2f_bit_get(ends, v) || t2f_bit_get(goes, v))
			t2f_bit_set(goes, up);
	}
	return goes;
}

/* Every path's keys, grouped by parent (counted first: o->first[v], the end of v's group, then
 * its start as the keys are filled in from the end). */
static int np_fill_keys(const struct t2f_name_paths *np, const uint64_t *ends, struct np_order *o)
{
	uint32_t n = np->n;
	uint64_t *goes = np_parents(np, ends);

	o->first = calloc((size_t)n + 1, sizeof(*o->first));
	if (!goes || !o->first) {
		free(goes);
		return -ENOMEM;
	}
	for (uint32_t v = 1; v < n; v++)
		o->first[np->paths[v].parent] += t2f_bit_get(ends, v) + t2f_bit_get(goes, v);
	for (uint32_t v = 0, at = 0; v <= n; v++) {
		at += v < n ? o->first[v] : 0;
		o->first[v] = at;
	}
	o->n_keys = o->first[n];
	o->keys = malloc((size_t)o->n_keys * sizeof(*o->keys) + 1);
	for (uint32_t v = n; o->keys && v-- > 1;) {
		uint32_t c = t2f_bit_get(ends, v) + t2f_bit_get(goes, v), *k;

		if (!c)
			continue;
		k = &o->keys[o->first[np->paths[v].parent] -= c];
		if (t2f_bit_get(ends, v)) /* its end first: a prefix comes first */
			*k++ = v << K_SHIFT;
		if (t2f_bit_get(goes, v))
			*k = v << K_SHIFT | K_ON;
	}
	free(goes);
	return o->keys ? 0 : -ENOMEM;
}

/* The keys, each group sorted and its last marked, each key going on pointed at its path's
 * group; o->first freed. */
static int np_keys(const struct t2f_name_paths *np, const uint64_t *ends, struct np_order *o)
{
	struct t2f_name_key *scratch = NULL;
	uint32_t cap = 0;
	int err = np->n > NP_MAX_PATHS ? -ENOMEM : np_fill_keys(np, ends, o);

	for (uint32_t v = 0; v < np->n && !err; v++) {
		uint32_t *k = o->keys + o->first[v], len = o->first[v + 1] - o->first[v];

		/* one path's two keys are in order already */
		if (len > 2 || (len == 2 && k[0] >> K_SHIFT != k[1] >> K_SHIFT))
			err = np_sort_group(np, k, len, &scratch, &cap);
		if (len)
			k[len - 1] |= K_LAST;
	}
	free(scratch);
	for (uint32_t i = 0; i < o->n_keys && !err; i++)
		if (o->keys[i] & K_ON)
			o->keys[i] = o->first[o->keys[i] >> K_SHIFT] << K_SHIFT |
				     (o->keys[i] & (K_ON | K_LAST));
	free(o->first);
	o->first = NULL;
	return err;
}

int t2f_name_paths__order(const struct t2f_name_paths *np, const uint64_t *ends, uint32_t *pos)
{
	struct np_order o = { 0 };
	uint32_t place = 0, top = 0, *at = NULL;
	int err = np_keys(np, ends, &o);

	/* the walk: per level, its next key (a level's last key goes on in its place) */
	if (!err && !(at = malloc(((size_t)np->n + 1) * sizeof(*at))))
		err = -ENOMEM;
	if (err) {
		free(o.first);
		free(o.keys);
		return err;
	}
	pos[0] = place++;
	if (o.n_keys)
		at[top++] = 0;
	while (top) {
		uint32_t key = o.keys[at[top - 1]];

		if (key & K_LAST)
			top--;
		else
			at[top - 1]++;
		if (key & K_ON)
			at[top++] = key >> K_SHIFT;
		else
			pos[key >> K_SHIFT] = place++;
	}
	free(at);
	free(o.keys);
	return 0;
}
