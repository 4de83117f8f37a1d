/* writers/name_paths.c: nodes grouped by the names along them (name_paths.h). */
#include "writers/name_paths.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats/hashmap.h"
#include "formats/mem.h"
#include "writers/name_keys.h"

struct np_path {               /* 16 bytes: its name is its frame's */
	uint32_t parent;
	t2f_frame_id frame;     /* the frame of its first node */
	uint64_t text_len;
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
 * (per frame, worked out once). 0 or -ENOMEM. */
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
		v = np->n;
		np->paths[v] = (struct np_path){ q.parent, frame,
						 np->paths[q.parent].text_len + 1 + q.len };
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

/* A path's key in its parent's group: (path << 1) | going on (name_keys.h). */
struct np_order {
	uint32_t *first;                /* per path: where its children's keys start, in keys */
	uint32_t *keys;                 /* each child twice (an end, going on), by parent */
	uint32_t *at;                   /* the walk: per level, its path */
	uint32_t *next;                 /* ... and its next key */
};

static void np_order_free(struct np_order *o)
{
	free(o->first);
	free(o->keys);
	free(o->at);
	free(o->next);
}

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
		const char *name = np_name(np, keys[i] >> 1, &len);

		(*scratch)[i] = (struct t2f_name_key){ name, (uint32_t)len, keys[i], keys[i] & 1 };
	}
	if (t2f_name_keys__sort(*scratch, n))
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		keys[i] = (*scratch)[i].id;
	return 0;
}

/* Every path's two keys, grouped by parent (counted first), each group sorted. */
static int np_keys(const struct t2f_name_paths *np, struct np_order *o)
{
	uint32_t n = np->n, cap = 0;
	struct t2f_name_key *scratch = NULL;
	int err = 0;

	if (n > UINT32_MAX / 2) /* a key holds a path id shifted by one */
		return -ENOMEM;
	o->first = calloc((size_t)n + 1, sizeof(*o->first));
	o->keys = malloc(2 * (size_t)n * sizeof(*o->keys));
	if (!o->first || !o->keys)
		return -ENOMEM;
	for (uint32_t v = 1; v < n; v++)
		o->first[np->paths[v].parent] += 2;
	for (uint32_t v = 0, at = 0; v <= n; v++) { /* first[v]: where v's group ends, for now */
		at += v < n ? o->first[v] : 0;
		o->first[v] = at;
	}
	for (uint32_t v = n; v-- > 1;) {             /* filled from the end: first[v] is its start */
		uint32_t *k = &o->keys[o->first[np->paths[v].parent] -= 2];

		k[0] = v << 1;
		k[1] = v << 1 | 1;
	}
	for (uint32_t v = 0; v < n && !err; v++)
		if (o->first[v + 1] - o->first[v] > 2) /* one child: its end, then going on */
			err = np_sort_group(np, o->keys + o->first[v], o->first[v + 1] - o->first[v],
					    &scratch, &cap);
	free(scratch);
	return err;
}

int t2f_name_paths__order(const struct t2f_name_paths *np, uint32_t *pos)
{
	struct np_order o = { 0 };
	uint32_t place = 0, top = 1;
	int err = np_keys(np, &o);

	/* a path's depth is below the number of paths: that many levels at most */
	o.at = malloc((size_t)np->n * sizeof(*o.at));
	o.next = malloc((size_t)np->n * sizeof(*o.next));
	if (err || !o.at || !o.next) {
		np_order_free(&o);
		return -ENOMEM;
	}
	pos[0] = place++;
	o.at[0] = 0;
	o.next[0] = o.first[0];
	while (top) {
		uint32_t v = o.at[top - 1], k = o.next[top - 1];

		if (k == o.first[v + 1]) {
			top--;
			continue;
		}
		o.next[top - 1] = k + 1;
		if (!(o.keys[k] & 1)) {
			pos[o.keys[k] >> 1] = place++;
		} else {
			o.at[top] = o.keys[k] >> 1;
			o.next[top] = o.first[o.keys[k] >> 1];
			top++;
		}
	}
	np_order_free(&o);
	return 0;
}
