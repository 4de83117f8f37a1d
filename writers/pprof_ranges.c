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

/* A process (its group: input, pid), or an input, that uses a mapping. */
struct use {
	uint64_t who;           /* a group id, or OF_INPUT(input) */
	uint32_t map;
};

#define OF_INPUT(input) (1ull << 32 | (input))

/* What a walk reads of a node, side by side: one cache line a step up a stack, not three. */
struct rnode {
	t2f_node_id parent;
	uint32_t map;                /* its frame's mapping, 0 = none */
	uint32_t stamp;              /* the last group whose walk passed it */
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
	bool inputs;                 /* several inputs: their uses are kept too */
	size_t *first;               /* per group: the end of its cells in order[] */
	size_t *order;               /* cell indexes, a group's together, groups in id order */
	uint8_t *walked;             /* per group: its uses found */
	struct rnode *node;          /* per node id */
	uint32_t *seen;              /* per mapping: the last group found using it */
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

struct use_probe {
	const struct ranges *r;
	struct use u;
};

static bool use_eq(const void *ctx, uint32_t v)
{
	const struct use_probe *q = ctx;

	return q->r->use[v].who == q->u.who && q->r->use[v].map == q->u.map;
}

static uint64_t use_hash(const struct use *u)
{
	return t2f_hash_u64(u->who * 0x9e3779b97f4a7c15ULL + u->map);
}

static bool used(const struct ranges *r, uint64_t who, uint32_t map)
{
	struct use_probe q = { r, { who, map } };

	return t2f_hashmap__find(r->uses, use_hash(&q.u), use_eq, &q) != 0;
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

/* The cells a group at a time (a counting sort), for the walks. */
static int sort_cells(struct ranges *r)
{
	const struct t2f_profile *p = r->t->p;
	size_t cells = t2f_profile__cell_count(p);
	uint32_t nodes = t2f_profile__node_count(p);

	r->first = calloc((size_t)r->ngroups + 2, sizeof(*r->first));
	r->order = malloc((cells + 1) * sizeof(*r->order));
	r->walked = calloc((size_t)r->ngroups + 1, 1);
	r->node = malloc(((size_t)nodes + 1) * sizeof(*r->node));
	r->seen = calloc((size_t)r->t->nmaps + 1, sizeof(*r->seen));
	if (!r->first || !r->order || !r->walked || !r->node || !r->seen)
		return -ENOMEM;
	for (t2f_node_id nd = 0; nd <= nodes; nd++) /* node 0: the root, never walked */
		r->node[nd] = (struct rnode){ nd ? t2f_profile__node_parent(p, nd) : 0,
			nd ? r->t->frame_map[t2f_profile__node_frame(p, nd)] : 0, 0 };
	for (size_t i = 0; i < cells; i++)
		r->first[r->thread_group[t2f_profile__cell_at(p, i)->thread] + 1]++;
	for (uint32_t g = 1; g <= r->ngroups + 1; g++)
		r->first[g] += r->first[g - 1];
	for (size_t i = 0; i < cells; i++) /* first[g] becomes the end of g's cells */
		r->order[r->first[r->thread_group[t2f_profile__cell_at(p, i)->thread]]++] = i;
	return t2f_hashmap__new(256, &r->uses);
}

/* The mappings group g's cells use, and so its input's: each stack walked up to a node g's
 * walk already passed. */
static int walk(struct ranges *r, uint32_t g)
{
	const struct t2f_profile *p = r->t->p;
	int err = 0;

	r->walked[g] = 1;
	for (size_t i = r->first[g - 1]; !err && i < r->first[g]; i++) { /* first[0]: 0 */
		const struct t2f_cell *c = t2f_profile__cell_at(p, r->order[i]);

		for (t2f_node_id nd = c->node; !err && nd && r->node[nd].stamp != g;
		     nd = r->node[nd].parent) {
			uint32_t m = r->node[nd].map;

			r->node[nd].stamp = g;
			if (!m || r->seen[m] == g)
				continue;
			r->seen[m] = g;
			err = add_use(r, g, m) ?:
			      (r->inputs ? add_use(r, OF_INPUT(r->group[g].input), m) : 0);
		}
	}
	return err;
}

/* Whether the profile's threads and module maps come from more than one input. */
static bool several_inputs(const struct ranges *r)
{
	const struct t2f_profile *p = r->t->p;
	uint32_t n = t2f_profile__module_map_count(p);
	uint32_t input = t2f_profile__module_map_at(p, 0)->input;

	for (uint32_t g = 1; g <= r->ngroups; g++)
		if (r->group[g].input != input)
			return true;
	for (uint32_t i = 1; i < n; i++)
		if (t2f_profile__module_map_at(p, i)->input != input)
			return true;
	return false;
}

/* The uses: with several inputs every group's (the inputs' uses are needed), else each group's
 * when first asked (a whole-machine recording asks for few: a mapping takes the map of the first
 * process sampled in it, and most processes mapped before it have no sample at all). */
static int find_uses(struct ranges *r)
{
	int err = sort_cells(r);

	r->inputs = several_inputs(r);
	for (uint32_t g = 1; !err && r->inputs && g <= r->ngroups; g++)
		err = walk(r, g);
	return err;
}

/* How well module map mm suits its mapping: 0 not at all (its input uses none of its file), 1
 * (its input does: with one input, every mapping's), 2 (its process does). */
static int suits(struct ranges *r, const struct t2f_module_map *mm, uint32_t map, int *s)
{
	uint32_t g;
	int err;

	*s = 0;
	if (r->inputs && !used(r, OF_INPUT(mm->input), map))
		return 0;
	*s = 2;
	if (mm->pid == T2F_PID_UNKNOWN)
		return 0;
	g = find_group(r, mm->input, mm->pid);
	if (g && !r->walked[g] && (err = walk(r, g)))
		return err;
	*s = g && used(r, g, map) ? 2 : 1;
	return 0;
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
	int err = 0;

	if (!map_of || !level) {
		free(map_of);
		free(level);
		return -ENOMEM;
	}
	for (uint32_t m = 1; m <= t->nmaps; m++)
		map_of[t->maps[m].module] = m;
	for (uint32_t i = 0; !err && i < n; i++) {
		const struct t2f_module_map *mm = t2f_profile__module_map_at(p, i);
		uint32_t id = map_of[mm->path];
		int s;

		if (!id || level[id] == 2)
			continue;
		if (level[id] && t2f_profile__module_map_at(p, taken[id] - 1)->input != mm->input)
			continue; /* another input's, taken */
		if ((err = suits(r, mm, id, &s)) || s <= level[id])
			continue;
		level[id] = (uint8_t)s;
		taken[id] = i + 1;
	}
	free(map_of);
	free(level);
	return err;
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
	free(r.first);
	free(r.order);
	free(r.walked);
	free(r.node);
	free(r.seen);
	return err;
}
