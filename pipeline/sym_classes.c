/* pipeline/sym_classes.c: classes of perf.data frames from the symbol cache
 * (pipeline/sym_classes.h). */
#include "pipeline/sym_classes.h"

#include <errno.h>
#include <stdlib.h>

#include "formats/grow.h"
#include "formats/hashmap.h"
#include "pipeline/resym_ids.h"
#include "symbolizer/debug_find.h"
#include "symbolizer/symbolizer.h"

struct cls_path {              /* a path's first valid build-id among the module maps */
	t2f_str_id path, build_id;
};

struct t2f_sym_classes {
	struct t2f_symbolizer *sym;    /* NULL once taken */
	const struct t2f_profile *p;
	bool inlines, lines;
	uint32_t scanned;              /* module maps looked at */
	struct cls_path *paths;
	size_t n_paths, cap_paths;
	struct t2f_hashmap *by_path;   /* path string id -> index + 1 */
};

int t2f_sym_classes__new(const struct t2f_resym_opts *o, struct t2f_profile *p,
			 struct t2f_diag *d, bool inlines, bool lines, struct t2f_sym_classes **out)
{
	struct t2f_sym_classes *c = calloc(1, sizeof(*c));
	int err = c ? t2f_hashmap__new(256, &c->by_path) : -ENOMEM;

	*out = NULL;
	err = err ?: t2f_resym__make_symbolizer(o, p, d, &c->sym);
	if (err) {
		t2f_sym_classes__free(c);
		return err;
	}
	c->p = p;
	c->inlines = inlines;
	c->lines = lines;
	*out = c;
	return 0;
}

void t2f_sym_classes__free(struct t2f_sym_classes *c)
{
	if (!c)
		return;
	t2f_symbolizer__free(c->sym);
	t2f_hashmap__free(c->by_path);
	free(c->paths);
	free(c);
}

struct t2f_symbolizer *t2f_sym_classes__take(struct t2f_sym_classes *c)
{
	struct t2f_symbolizer *s = c ? c->sym : NULL;

	if (c)
		c->sym = NULL;
	return s;
}

static bool cls_path_eq(const void *ctx, uint32_t v)
{
	const struct t2f_sym_classes *c = ((const void *const *)ctx)[0];
	const t2f_str_id *path = ((const void *const *)ctx)[1];

	return c->paths[v - 1].path == *path;
}

static const struct cls_path *cls_find(const struct t2f_sym_classes *c, t2f_str_id path)
{
	const void *q[2] = { c, &path };
	uint32_t v = t2f_hashmap__find(c->by_path, t2f_hash_u64(path), cls_path_eq, q);

	return v ? &c->paths[v - 1] : NULL;
}

/* The module maps added since the last call: each path's first valid build-id, as the resolve
 * stage takes it (pipeline/resym_ids.h). 0 or -ENOMEM. */
static int cls_scan(struct t2f_sym_classes *c)
{
	uint32_t n = t2f_profile__module_map_count(c->p);
	int err = 0;

	for (; c->scanned < n && !err; c->scanned++) {
		const struct t2f_module_map *m = t2f_profile__module_map_at(c->p, c->scanned);

		if (!m->path || !m->build_id || cls_find(c, m->path) ||
		    t2f_resym_ids__problem(t2f_profile__str(c->p, m->build_id, NULL)))
			continue;
		err = t2f_grow((void **)&c->paths, &c->cap_paths, c->n_paths, 1, sizeof(*c->paths),
			       64, UINT32_MAX - 1);
		if (err)
			break;
		c->paths[c->n_paths] = (struct cls_path){ m->path, m->build_id };
		err = t2f_hashmap__insert(c->by_path, t2f_hash_u64(m->path), (uint32_t)c->n_paths + 1);
		c->n_paths += !err;
	}
	return err;
}

int t2f_sym_classes__of(void *ctx, t2f_str_id module, const char *path, size_t len,
			void **src)
{
	struct t2f_sym_classes *c = ctx;
	struct t2f_sym_class *k = NULL;
	const struct cls_path *cp;
	uint8_t id[T2F_BUILD_ID_MAX];
	size_t id_len = 0;
	int err;

	(void)len;
	*src = NULL;
	if (!c->sym)
		return 0;
	err = cls_scan(c);
	cp = err ? NULL : cls_find(c, module);
	if (!cp || !t2f_build_id_parse(t2f_profile__str(c->p, cp->build_id, NULL), id, sizeof(id),
				       &id_len))
		return err;
	err = t2f_symbolizer__class(c->sym, path, id, id_len, c->inlines, c->lines, &k);
	*src = k;
	return err;
}

bool t2f_sym_classes__key(void *src, uint64_t addr, uint64_t *key)
{
	return t2f_sym_class__key(src, addr, key);
}
