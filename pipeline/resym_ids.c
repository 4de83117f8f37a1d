/* pipeline/resym_ids.c: build-ids per module path (resym_ids.h): an array in the order they were
 * learnt, and a hash of the paths to their first entry. */
#include "pipeline/resym_ids.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats/grow.h"
#include "formats/hashmap.h"
#include "formats/side_file.h"
#include "symbolizer/debug_find.h"

#define T2F_BUILDIDS_MAX (64u << 20) /* bytes of a --buildids file */

struct t2f_resym_ids {
	struct t2f_resym_id *ids;
	size_t n, cap;
	struct t2f_hashmap *by_path;     /* path → 1 + the index of its first entry */
};

/* A lookup's key for the hash's equality callback. */
struct t2f_resym_ids_key {
	const struct t2f_resym_ids *ids;
	const char *path;
};

static bool t2f_resym_ids_eq(const void *ctx, uint32_t value)
{
	const struct t2f_resym_ids_key *k = ctx;

	return strcmp(k->ids->ids[value - 1].path, k->path) == 0;
}

static uint64_t t2f_resym_ids_hash(const char *path)
{
	return t2f_hash_bytes(path, strlen(path));
}

int t2f_resym_ids__new(struct t2f_resym_ids **out)
{
	struct t2f_resym_ids *ids = calloc(1, sizeof(*ids));

	if (!ids || t2f_hashmap__new(16, &ids->by_path)) {
		free(ids);
		return -ENOMEM;
	}
	*out = ids;
	return 0;
}

void t2f_resym_ids__free(struct t2f_resym_ids *ids)
{
	if (!ids)
		return;
	for (size_t i = 0; i < ids->n; i++)
		free(ids->ids[i].path);
	free(ids->ids);
	t2f_hashmap__free(ids->by_path);
	free(ids);
}

const struct t2f_resym_id *t2f_resym_ids__find(const struct t2f_resym_ids *ids, const char *path)
{
	struct t2f_resym_ids_key k = { ids, path };
	uint32_t v = t2f_hashmap__find(ids->by_path, t2f_resym_ids_hash(path), t2f_resym_ids_eq,
				       &k);

	return v ? &ids->ids[v - 1] : NULL;
}

const char *t2f_resym_ids__problem(const char *hex)
{
	size_t n = strlen(hex);

	if (n == 0)
		return "empty";
	if (strspn(hex, "0123456789abcdefABCDEF") != n)
		return "not hex";
	if (n % 2)
		return "an odd number of hex digits";
	if (n > 2 * T2F_BUILD_ID_MAX)
		return "longer than 128 hex digits";
	return NULL;
}

/* hex must be valid (t2f_resym_ids__problem). A path known already keeps its first entry: the
 * array keeps only entries the hash names. */
static int t2f_resym_add_id(struct t2f_resym_ids *ids, const char *path, const char *hex,
			    const struct t2f_module_map *seg)
{
	uint64_t h = t2f_resym_ids_hash(path);
	struct t2f_resym_ids_key k = { ids, path };
	struct t2f_resym_id *e;
	int err;

	if (t2f_hashmap__find(ids->by_path, h, t2f_resym_ids_eq, &k))
		return 0;
	err = t2f_grow((void **)&ids->ids, &ids->cap, ids->n, 1, sizeof(*ids->ids), 16,
		       UINT32_MAX - 1); /* values are 1 + the index */
	if (err)
		return err;
	e = &ids->ids[ids->n];
	if (!t2f_build_id_parse(hex, e->id, sizeof(e->id), &e->len))
		return -EINVAL;
	e->path = strdup(path);
	if (!e->path)
		return -ENOMEM;
	e->has_segment = seg && seg->has_segment;
	e->p_vaddr = e->has_segment ? seg->p_vaddr : 0;
	e->p_offset = e->has_segment ? seg->p_offset : 0;
	if (t2f_hashmap__insert(ids->by_path, h, (uint32_t)ids->n + 1)) {
		free(e->path);
		return -ENOMEM;
	}
	ids->n++;
	return 0;
}

/* What add_maps knows of a string id (a whole-machine recording has tens of thousands of
 * mappings of a few hundred paths and build-ids): */
enum { HEX_OK = 1, PATH_ADDED = 2 };

int t2f_resym_ids__add_maps(struct t2f_resym_ids *ids, const struct t2f_profile *p,
			    struct t2f_diag *d)
{
	uint32_t n = t2f_profile__module_map_count(p);
	uint8_t *seen = calloc((size_t)t2f_profile__str_count(p) + 1, 1); /* NULL: none kept */
	const char *path, *hex, *problem;
	int err = 0;

	for (uint32_t i = 0; i < n && !err; i++) {
		const struct t2f_module_map *m = t2f_profile__module_map_at(p, i);

		if (!m->build_id || !m->path)
			continue;
		if (seen && (seen[m->path] & PATH_ADDED) && (seen[m->build_id] & HEX_OK))
			continue; /* the path keeps its first entry */
		path = t2f_profile__str(p, m->path, NULL);
		hex = t2f_profile__str(p, m->build_id, NULL);
		problem = seen && (seen[m->build_id] & HEX_OK) ? NULL : t2f_resym_ids__problem(hex);
		if (seen && !problem)
			seen[m->build_id] |= HEX_OK;
		if (problem)
			err = t2f_diag__warn(d, path, 0, "the trace's build-id for this mapping refused "
					     "(%s: want 2 to 128 hex digits, an even number)", problem);
		else
			err = t2f_resym_add_id(ids, path, hex, m);
		if (seen && !problem && !err)
			seen[m->path] |= PATH_ADDED;
	}
	free(seen);
	return err;
}

/* One `perf buildid-list` line: "<hex> <path>", e.g.
 *   4ff1b12c1f4a68d964dde3e107bfbafe605df721 /usr/lib/x86_64-linux-gnu/libc.so.6
 *   1aedc820ac555fa3                         /tmp/dbg/mt
 * (perf pads a build-id shorter than 20 bytes, as lld's 8-byte default, to 40 columns)
 * Other lines, and build-ids that are not 2 to 128 hex digits (an even number), are skipped
 * with a warning naming FILE:LINE. */
static int t2f_resym_id_line(struct t2f_resym_ids *ids, char *line, const char *file,
			     uint64_t no, struct t2f_diag *d)
{
	char *sp = strchr(line, ' ');
	size_t len = strlen(line);
	const char *problem;

	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		line[--len] = '\0';
	if (len == 0)
		return 0;
	if (sp)
		*sp++ = '\0';
	while (sp && *sp == ' ')
		sp++;
	if (!sp || *sp == '\0')
		return t2f_diag__warn(d, file, no, "expected \"BUILD-ID PATH\"");
	problem = t2f_resym_ids__problem(line);
	if (problem)
		return t2f_diag__warn(d, file, no, "build-id refused (%s: want 2 to 128 hex digits, "
				      "an even number); line skipped", problem);
	return t2f_resym_add_id(ids, sp, line, NULL);
}

/* `perf buildid-list` output: 60 bytes or so a line, a few thousand lines. */
int t2f_resym_ids__read(struct t2f_resym_ids *ids, const char *file, struct t2f_diag *d)
{
	char *text = NULL, *line, *next;
	size_t len;
	uint64_t no = 0;
	int err = t2f_side_file__read(file, T2F_BUILDIDS_MAX, &text, &len);

	if (err == -T2F_ERR_LIMIT)
		return t2f_diag__error(d, err, file, 0, "larger than %u MiB: not a build-id list",
				       T2F_BUILDIDS_MAX >> 20);
	if (err)
		return t2f_diag__error(d, err, file, 0, "cannot open (%s)", t2f_strerror(err));
	for (line = text; !err && line < text + len; line = next) {
		char *nl = memchr(line, '\n', (size_t)(text + len - line));

		next = nl ? nl + 1 : text + len;
		*(nl ? nl : text + len) = '\0';
		err = t2f_resym_id_line(ids, line, file, ++no, d);
	}
	free(text);
	return err;
}
