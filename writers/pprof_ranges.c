/* writers/pprof_ranges.c: which module map gives each pprof mapping its range, file offset
 * and build-id (pprof_int.h, t2f_pprof_tables__ranges).
 *
 * A mapping is a path; the profile may hold many maps of it (every process of a whole-machine
 * recording maps libc, each input maps its files again). The map taken must depend on each input
 * alone, through what its own pprof would hold, so that merging through pprof is associative:
 * `a b` writes what the merge of a's pprof and b's does. An input's pprof has a mapping only
 * for a path its cells use. So the map is taken from the first input, in module map order, with
 * a map of the path and a used frame in it; of that input's maps of the path, the first whose
 * process has a used frame in the path (pids are told apart per input: a pid of another input is
 * another process), else its first. A map of no process (its pid unknown: the kernel's, a pprof
 * input's) stands for every process of its input.
 */
#include "writers/pprof_int.h"

#include <errno.h>
#include <stdlib.h>

#include "formats/grow.h"

/* A process (input, pid), or, with `of_input`, an input, that uses a mapping. */
struct use {
	uint64_t who;           /* a group id, or (1 << 32 | input) */
	uint32_t map;
};

struct ranges {
	struct t2f_pprof_tables *t;
	struct t2f_hashmap *groups;  /* (input, pid) → group id */
	struct t2f_thread *group;    /* [1..ngroups]: its input and pid */
	uint32_t ngroups;
	size_t group_cap;
	uint32_t *thread_group;      /* per thread id: its group */
	struct t2f_hashmap *uses;    /* struct use → its index in use[] */
	struct use *use;             /* [1..nuses] */
	uint32_t nuses;
	size_t use_cap;
};

struct group_probe {
	const struct ranges *r;
	uint32_t input;
	int64_t pid;
};

static bool group_eq(const void *ctx, uint32_t v)
{
	const struct group_probe *q = ctx;

	return q->r->group[v].input == q->input && q->r->group[v].pid == q->pid;
}

static uint64_t group_hash(uint32_t input, int64_t pid)
{
	return t2f_hash_u64((uint64_t)pid ^ (uint64_t)input << 40);
}

static uint32_t find_group(const struct ranges *r, uint32_t input, int64_t pid)
{
	struct group_probe q = { r, input, pid };

	return t2f_hashmap__find(r->groups, group_hash(input, pid), group_eq, &q);
}

/* Every thread's group, made when first met. */
static int thread_groups(struct ranges *r)
{
	const struct t2f_profile *p = r->t->p;
	uint32_t n = t2f_profile__thread_count(p);
	int err = t2f_hashmap__new(n, &r->groups);

	r->thread_group = calloc((size_t)n + 1, sizeof(*r->thread_group));
	if (!err && !r->thread_group)
		err = -ENOMEM;
	for (t2f_thread_id id = 1; !err && id <= n; id++) {
		const struct t2f_thread *th = t2f_profile__thread_at(p, id);
		uint32_t g = find_group(r, th->input, th->pid);

		if (!g) {
			err = t2f_grow((void **)&r->group, &r->group_cap, (size_t)r->ngroups + 1, 1,
				       sizeof(*r->group), 64, UINT32_MAX); /* [1..ngroups] */
			if (err)
				break;
			g = ++r->ngroups;
			r->group[g] = *th;
			err = t2f_hashmap__insert(r->groups, group_hash(th->input, th->pid), g);
		}
		r->thread_group[id] = g;
	}
	return err;
}

static bool use_eq(const void *ctx, uint32_t v)
{
	const struct ranges *r = ((const struct ranges *const *)ctx)[0];
	const struct use *u = ((const struct use *const *)ctx)[1];

	return r->use[v].who == u->who && r->use[v].map == u->map;
}

static uint64_t use_hash(const struct use *u)
{
	return t2f_hash_u64(u->who * 0x9e3779b97f4a7c15ULL + u->map);
}

static bool used(const struct ranges *r, uint64_t who, uint32_t map)
{
	struct use u = { who, map };
	const void *q[2] = { r, &u };

	return t2f_hashmap__find(r->uses, use_hash(&u), use_eq, q) != 0;
}

static int add_use(struct ranges *r, uint64_t who, uint32_t map)
{
	struct use u = { who, map };
	int err;

	if (used(r, who, map))
		return 0;
	err = t2f_grow((void **)&r->use, &r->use_cap, (size_t)r->nuses + 1, 1, sizeof(*r->use), 256,
		       UINT32_MAX); /* [1..nuses] */
	if (err)
		return err;
	r->use[++r->nuses] = u;
	return t2f_hashmap__insert(r->uses, use_hash(&u), r->nuses);
}

#define OF_INPUT(input) (1ull << 32 | (input))

/* The mappings each group's cells use, and so each input's: the cells a group at a time, each
 * stack walked up to a node the group's walk already passed. */
static int find_uses(struct ranges *r)
{
	const struct t2f_profile *p = r->t->p;
	size_t cells = t2f_profile__cell_count(p);
	uint32_t nn = t2f_profile__node_count(p);
	size_t *first = calloc((size_t)r->ngroups + 2, sizeof(*first));
	size_t *order = malloc((cells + 1) * sizeof(*order));
	uint32_t *stamp = calloc((size_t)nn + 1, sizeof(*stamp));       /* per node: its group */
	uint32_t *seen = calloc((size_t)r->t->nmaps + 1, sizeof(*seen)); /* per mapping */
	int err = first && order && stamp && seen ? t2f_hashmap__new(256, &r->uses) : -ENOMEM;

	for (size_t i = 0; !err && i < cells; i++) /* a counting sort by group */
		first[r->thread_group[t2f_profile__cell_at(p, i)->thread] + 1]++;
	for (uint32_t g = 1; !err && g <= r->ngroups + 1; g++)
		first[g] += first[g - 1];
	for (size_t i = 0; !err && i < cells; i++)
		order[first[r->thread_group[t2f_profile__cell_at(p, i)->thread]]++] = i;
	for (size_t i = 0; !err && i < cells; i++) {
		const struct t2f_cell *c = t2f_profile__cell_at(p, order[i]);
		uint32_t g = r->thread_group[c->thread];

		for (t2f_node_id nd = c->node; !err && nd && stamp[nd] != g;
		     nd = t2f_profile__node_parent(p, nd)) {
			uint32_t m = r->t->frame_map[t2f_profile__node_frame(p, nd)];

			stamp[nd] = g;
			if (!m || seen[m] == g)
				continue;
			seen[m] = g;
			err = add_use(r, g, m) ?: add_use(r, OF_INPUT(r->group[g].input), m);
		}
	}
	free(first);
	free(order);
	free(stamp);
	free(seen);
	return err;
}

/* How well module map mm suits its mapping: 0 not at all (its input uses none of its file), 1
 * (its input does), 2 (its process does). */
static int suits(const struct ranges *r, const struct t2f_module_map *mm, uint32_t map)
{
	uint32_t g;

	if (!used(r, OF_INPUT(mm->input), map))
		return 0;
	if (mm->pid == T2F_PID_UNKNOWN)
		return 2;
	g = find_group(r, mm->input, mm->pid);
	return g && used(r, g, map) ? 2 : 1;
}

/* The module map taken for each mapping: the first that suits it best, of the input of the
 * first that suits it at all. */
static int take_maps(struct ranges *r, uint32_t *taken)
{
	struct t2f_pprof_tables *t = r->t;
	const struct t2f_profile *p = t->p;
	uint32_t n = t2f_profile__module_map_count(p);
	uint32_t *map_of = calloc((size_t)t2f_profile__str_count(p) + 1, sizeof(*map_of));
	uint8_t *level = calloc((size_t)t->nmaps + 1, 1); /* per mapping: how its map suits it */

	if (!map_of || !level) {
		free(map_of);
		free(level);
		return -ENOMEM;
	}
	for (uint32_t m = 1; m <= t->nmaps; m++)
		map_of[t->maps[m].module] = m;
	for (uint32_t i = 0; i < n; i++) {
		const struct t2f_module_map *mm = t2f_profile__module_map_at(p, i);
		uint32_t id = map_of[mm->path];
		int s;

		if (!id || level[id] == 2)
			continue;
		if (level[id] && t2f_profile__module_map_at(p, taken[id] - 1)->input != mm->input)
			continue; /* another input's, taken */
		if ((s = suits(r, mm, id)) <= level[id])
			continue;
		level[id] = (uint8_t)s;
		taken[id] = i + 1;
	}
	free(map_of);
	free(level);
	return 0;
}

/* Each mapping's range and build-id from its map. */
static int fill(struct t2f_pprof_tables *t, const uint32_t *taken)
{
	int err = 0;

	for (uint32_t m = 1; !err && m <= t->nmaps; m++) {
		const struct t2f_module_map *mm;
		struct t2f_pprof_map *pm = &t->maps[m];

		if (!taken[m])
			continue;
		mm = t2f_profile__module_map_at(t->p, taken[m] - 1);
		pm->has_range = true;
		pm->start = mm->start;
		pm->limit = mm->start + mm->len;
		pm->pgoff = mm->pgoff;
		if (mm->build_id) {
			size_t len;
			const char *s = t2f_profile__str(t->p, mm->build_id, &len);

			err = t2f_pprof_tables__str(t, s, len, &pm->build_id);
		}
	}
	return err;
}

int t2f_pprof_tables__ranges(struct t2f_pprof_tables *t)
{
	struct ranges r = { .t = t };
	uint32_t *taken = NULL; /* per mapping: 1 + the index of its module map, 0 = none */
	int err = 0;

	if (!t->nmaps || !t2f_profile__module_map_count(t->p))
		return 0;
	taken = calloc((size_t)t->nmaps + 1, sizeof(*taken));
	err = (taken ? 0 : -ENOMEM) ?: thread_groups(&r) ?: find_uses(&r) ?:
	      take_maps(&r, taken) ?: fill(t, taken);
	free(taken);
	t2f_hashmap__free(r.groups);
	t2f_hashmap__free(r.uses);
	free(r.group);
	free(r.thread_group);
	free(r.use);
	return err;
}
