/* writers/name_paths.c: nodes grouped by the names along them (name_paths.h). */
#include "writers/name_paths.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats/hashmap.h"

struct np_path {
	uint32_t parent;
	t2f_node_id node;       /* its first node */
	const char *name;
	size_t len;
	uint64_t text_len;
};

struct t2f_name_paths {
	uint32_t *of;           /* per node (0: the root) */
	struct np_path *paths;  /* [0]: the root */
	uint32_t n;
	struct t2f_hashmap *ix;
};

struct np_probe {
	const struct t2f_name_paths *np;
	uint32_t parent;
	const char *name;
	size_t len;
};

static bool np_eq(const void *ctx, uint32_t v)
{
	const struct np_probe *q = ctx;
	const struct np_path *p = &q->np->paths[v];

	return p->parent == q->parent && p->len == q->len && memcmp(p->name, q->name, q->len) == 0;
}

/* The path of node n, whose parent's path is known: found, or added. 0 or -ENOMEM. */
static int np_add(struct t2f_name_paths *np, const struct t2f_profile *p,
		  const struct t2f_frame_names *names, t2f_node_id n)
{
	struct np_probe q = { np, np->of[t2f_profile__node_parent(p, n)], NULL, 0 };
	uint64_t h;
	uint32_t v;

	q.name = t2f_frame_names__get(names, t2f_profile__node_frame(p, n), &q.len);
	h = t2f_hash_bytes(q.name, q.len) ^ t2f_hash_u64(q.parent);
	v = t2f_hashmap__find(np->ix, h, np_eq, &q);
	if (!v) {
		v = np->n;
		np->paths[v] = (struct np_path){ q.parent, n, q.name, q.len,
						 np->paths[q.parent].text_len + 1 + q.len };
		if (t2f_hashmap__insert(np->ix, h, v))
			return -ENOMEM;
		np->n++;
	}
	np->of[n] = v;
	return 0;
}

int t2f_name_paths__new(const struct t2f_profile *p, const struct t2f_frame_names *names,
			struct t2f_name_paths **out)
{
	uint32_t nodes = t2f_profile__node_count(p);
	struct t2f_name_paths *np = calloc(1, sizeof(*np));
	int err = 0;

	*out = NULL;
	if (np) {
		np->of = calloc((size_t)nodes + 1, sizeof(*np->of));
		np->paths = calloc((size_t)nodes + 1, sizeof(*np->paths));
	}
	if (!np || !np->of || !np->paths || t2f_hashmap__new(nodes / 4 + 16, &np->ix)) {
		t2f_name_paths__free(np);
		return -ENOMEM;
	}
	np->n = 1;
	for (t2f_node_id n = 1; n <= nodes && !err; n++) /* a parent's id is below its child's */
		err = np_add(np, p, names, n);
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

t2f_node_id t2f_name_paths__node(const struct t2f_name_paths *np, uint32_t path)
{
	return np->paths[path].node;
}

uint64_t t2f_name_paths__text_len(const struct t2f_name_paths *np, uint32_t path)
{
	return np->paths[path].text_len;
}
