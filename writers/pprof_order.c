/* writers/pprof_order.c: the pprof tables renumbered in the order the samples use them
 * (pprof_int.h, t2f_pprof_tables__order_begin and __order_end).
 *
 * The tables are built in the profile's frame and node id order, which depends on how the
 * inputs were read (perf script text makes a call chain's frames leaf first, a pprof input root
 * first). Renumbered by first use instead (locations as the samples name them, leaf first, each
 * followed by the locations holding its callers' lines; functions as the locations' lines name
 * them; mappings as the locations do, the main binary first; strings in that order), a profile
 * that went through pprof and back is written with the same bytes as the one it came from, and
 * merging is associative. The locations are numbered by the samples' encoding itself as it
 * walks up each stack (t2f_pprof_tables__loc_id): a walk of its own before it took 2.6 ms of
 * the writer's 42 on a whole-machine text (h43.txt, 314K samples), with the other CPU idle.
 */
#include "writers/pprof_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats/bits.h"

/* The numbering being made: new[old] (0 = not met yet), next new id. */
struct renum {
	uint32_t *id;
	uint32_t n;
};

static void meet(struct renum *r, uint32_t old)
{
	if (old && !r->id[old])
		r->id[old] = ++r->n;
}

/* Ids nobody met come last, in their old order. */
static void rest(struct renum *r, uint32_t count)
{
	for (uint32_t i = 1; i <= count; i++)
		meet(r, i);
}

#define PERMUTE_MAX 64 /* bytes of an element permute moves */
_Static_assert(sizeof(struct t2f_pprof_loc) <= PERMUTE_MAX, "a location is moved whole");
_Static_assert(sizeof(struct t2f_pprof_func) <= PERMUTE_MAX, "a function is moved whole");
_Static_assert(sizeof(struct t2f_pprof_map) <= PERMUTE_MAX, "a mapping is moved whole");

/* Moves v[1..n] (elements of `size` bytes, PERMUTE_MAX at most) to their new places, in place,
 * one cycle of the renumbering after another. A copy of the locations was fresh memory each
 * time, faulted in page by page: 562 of the writer's 628 page faults on a whole-machine text
 * (h35.txt, 115,101 locations: 2.8 MB). */
static int permute(void *v, uint32_t n, size_t size, const struct renum *r)
{
	uint64_t *moved = calloc((size_t)n / 64 + 1, sizeof(*moved));
	unsigned char cur[PERMUTE_MAX], next[PERMUTE_MAX];
	char *a = v;

	if (!moved)
		return -ENOMEM;
	for (uint32_t i = 1; i <= n; i++) {
		uint32_t j = i, to;

		if (t2f_bit_get(moved, i))
			continue;
		memcpy(cur, a + (size_t)i * size, size);
		do { /* cur: the element that was at j */
			to = r->id[j];
			memcpy(next, a + (size_t)to * size, size);
			memcpy(a + (size_t)to * size, cur, size);
			memcpy(cur, next, size);
			t2f_bit_set(moved, j);
			j = to;
		} while (j != i);
	}
	free(moved);
	return 0;
}

uint32_t t2f_pprof_tables__meet(struct t2f_pprof_tables *t, uint32_t loc)
{
	struct renum r = { t->loc_order, t->nmet };

	for (uint32_t l = loc; l && !r.id[l]; l = t->locs[l].tail) /* its callers' lines next */
		meet(&r, l);
	t->nmet = r.n;
	return r.id[loc];
}

/* The locations moved to their new ids. The nodes, walked by the samples alone, are freed
 * rather than renumbered (h42.txt: 306K nodes). */
static int apply_locations(struct t2f_pprof_tables *t, const struct renum *r)
{
	for (uint32_t i = 1; i <= t->nlocs; i++)
		t->locs[i].tail = r->id[t->locs[i].tail];
	free(t->nodes);
	t->nodes = NULL;
	return permute(t->locs, t->nlocs, sizeof(*t->locs), r);
}

static int apply_functions(struct t2f_pprof_tables *t, struct renum *r)
{
	uint32_t nf = t2f_profile__frame_count(t->p);

	for (uint32_t i = 1; i <= t->nlocs; i++)
		for (uint32_t j = i; j; j = t->locs[j].tail)
			meet(r, t->frame_func[t->locs[j].frame]);
	rest(r, t->nfuncs);
	for (t2f_frame_id f = 1; f <= nf; f++)
		t->frame_func[f] = r->id[t->frame_func[f]];
	return permute(t->funcs, t->nfuncs, sizeof(*t->funcs), r);
}

/* The mapping pprof takes for the main binary: the first whose basename starts with the comm of
 * the first sample's thread (comms are the executable's name, cut to 15 bytes by the kernel). */
static uint32_t main_binary(const struct t2f_pprof_tables *t, t2f_thread_id thread)
{
	size_t clen, plen;
	const char *comm, *path, *slash;

	if (!thread)
		return 0;
	comm = t2f_profile__str(t->p, t2f_profile__thread_at(t->p, thread)->comm, &clen);
	for (uint32_t i = 1; clen && i <= t->nlocs; i++) {
		uint32_t m = t->locs[i].mapping;

		if (!m)
			continue;
		path = t2f_profile__str(t->p, t->maps[m].module, &plen);
		slash = memrchr(path, '/', plen);
		if (slash) {
			plen -= (size_t)(slash + 1 - path);
			path = slash + 1;
		}
		if (path[0] != '[' && plen >= clen && memcmp(path, comm, clen) == 0)
			return m;
	}
	return 0;
}

static int apply_mappings(struct t2f_pprof_tables *t, t2f_thread_id first, struct renum *r)
{
	uint32_t nf = t2f_profile__frame_count(t->p);

	meet(r, main_binary(t, first));
	for (uint32_t i = 1; i <= t->nlocs; i++)
		meet(r, t->locs[i].mapping);
	rest(r, t->nmaps);
	for (uint32_t i = 1; i <= t->nlocs; i++)
		t->locs[i].mapping = r->id[t->locs[i].mapping];
	for (t2f_frame_id f = 1; f <= nf; f++)
		t->frame_map[f] = r->id[t->frame_map[f]];
	return permute(t->maps, t->nmaps, sizeof(*t->maps), r);
}

/* String *idx of the old table, interned in the new one. */
static int move_str(const struct t2f_strtab *old, struct t2f_strtab *new, uint32_t *idx)
{
	size_t len;
	const char *s;

	if (!*idx)
		return 0;
	s = t2f_strtab__str(old, *idx, &len);
	return t2f_strtab__intern(new, s, len, idx);
}

int t2f_pprof_tables__order_begin(struct t2f_pprof_tables *t, struct t2f_pprof_strs *s)
{
	size_t most = (size_t)(t->nlocs > t->nfuncs ? t->nlocs : t->nfuncs);
	struct t2f_strtab *new = NULL;
	int err;

	t->loc_order = calloc((most > t->nmaps ? most : t->nmaps) + 1, sizeof(*t->loc_order));
	t->nmet = 0;
	err = t->loc_order ? t2f_strtab__new(&new) : -ENOMEM;
	for (size_t i = 0; !err && i < s->n; i++) /* sample types, label keys, comms */
		err = move_str(t->strs, new, &s->idx[i]);
	if (err) {
		t2f_strtab__free(new);
		return err;
	}
	t->old_strs = t->strs;
	t->strs = new;
	return 0;
}

int t2f_pprof_tables__order_end(struct t2f_pprof_tables *t, t2f_thread_id first_thread)
{
	struct renum r = { t->loc_order, t->nmet };
	struct t2f_strtab *old = t->old_strs, *new = t->strs;
	int err;

	rest(&r, t->nlocs);
	err = apply_locations(t, &r);
	if (!err) {
		memset(r.id, 0, ((size_t)t->nlocs + 1) * sizeof(*r.id));
		r.n = 0;
		err = apply_functions(t, &r);
	}
	if (!err) {
		memset(r.id, 0, ((size_t)t->nfuncs + 1) * sizeof(*r.id));
		r.n = 0;
		err = apply_mappings(t, first_thread, &r);
	}
	for (uint32_t m = 1; !err && m <= t->nmaps; m++) {
		uint32_t file;
		size_t len;
		const char *path = t2f_profile__str(t->p, t->maps[m].module, &len);

		err = t2f_pprof_tables__str(t, path, len, &file) ?:
		      move_str(old, new, &t->maps[m].build_id);
	}
	for (uint32_t f = 1; !err && f <= t->nfuncs; f++)
		err = move_str(old, new, &t->funcs[f].name) ?:
		      move_str(old, new, &t->funcs[f].system_name) ?:
		      move_str(old, new, &t->funcs[f].filename);
	free(t->loc_order);
	t->loc_order = NULL;
	t2f_strtab__free(old);
	t->old_strs = NULL;
	return err;
}
