/* readers/perf_script_maps.c: per-process mappings for one-line samples (perf_script_maps.h).
 *
 * One array of mappings; each process's mappings form a chain from its latest one backwards, so
 * a lookup walks the process's own mappings, newest first. Processes are found through a hash
 * of the pid.
 *
 * A process looked up often gets an index of the mappings it had then: its address space cut
 * into segments sorted by address, each with the newest mapping over it (or none), found by
 * bisection. A lookup walks the mappings added since (the chain's first ones), then asks the
 * index. Once the lookups have walked as many mappings as the process has, those added since
 * are laid over the index: sorted among themselves, then merged with it in one pass into a new
 * index, so an index costs about what the walks it saves did, however the mappings and the
 * lookups interleave. A new process forked from another shares its parent's mappings (its
 * chain goes on from the parent's latest one) and index.
 */
#include "readers/perf_script_maps.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats/grow.h"
#include "formats/hashmap.h"
#include "formats/idindex.h"
#include "formats/perf_map.h"

#define PS_NO_MAP UINT32_MAX
#define PS_INDEX_MIN 8          /* a process with fewer mappings is only walked */

struct ps_map {
	uint64_t start, end, pgoff;
	t2f_str_id path;
	uint32_t prev;          /* the same process's previous mapping, or PS_NO_MAP */
};

struct ps_index {
	uint32_t refs;          /* processes sharing it */
	uint32_t n;             /* segments */
	uint64_t at[];          /* each segment's start, ascending (it ends where the next one
				 * starts); then n uint32_t, the newest mapping over each (PS_NO_MAP:
				 * none) */
};

struct ps_proc {
	int64_t pid;
	uint32_t last;          /* its latest mapping */
	uint32_t count;
	struct ps_index *ix;    /* or NULL */
	uint32_t built;         /* the oldest mappings ix holds (count when it was made) */
	uint32_t walked;        /* mappings walked by lookups since */
};

static void index_release(struct ps_index *x);

struct ps_thread {
	int64_t tid, pid;
};

struct ps_maps {
	struct ps_map *maps;
	uint32_t n_maps, cap_maps;
	struct t2f_idindex procs;   /* struct ps_proc by pid */
	struct t2f_idindex threads; /* struct ps_thread by tid */
};

struct id_probe {
	const struct ps_maps *m;
	int64_t id;
};

static bool pid_eq(const void *ctx, uint32_t v)
{
	const struct id_probe *q = ctx;

	return ((const struct ps_proc *)t2f_idindex__at(&q->m->procs, v))->pid == q->id;
}

static bool tid_eq(const void *ctx, uint32_t v)
{
	const struct id_probe *q = ctx;

	return ((const struct ps_thread *)t2f_idindex__at(&q->m->threads, v))->tid == q->id;
}

int ps_maps__new(struct ps_maps **out)
{
	struct ps_maps *m = calloc(1, sizeof(*m));

	if (!m || t2f_idindex__init(&m->procs, sizeof(struct ps_proc), 64) ||
	    t2f_idindex__init(&m->threads, sizeof(struct ps_thread), 64)) {
		ps_maps__free(m);
		return -ENOMEM;
	}
	*out = m;
	return 0;
}

void ps_maps__free(struct ps_maps *m)
{
	if (!m)
		return;
	for (uint32_t id = 1; id <= m->procs.n; id++)
		index_release(((struct ps_proc *)t2f_idindex__at(&m->procs, id))->ix);
	t2f_idindex__release(&m->procs);
	t2f_idindex__release(&m->threads);
	free(m->maps);
	free(m);
}

static const struct ps_proc *find_proc(const struct ps_maps *m, int64_t pid)
{
	struct id_probe q = { m, pid };
	uint32_t v = t2f_idindex__find(&m->procs, t2f_hash_u64((uint64_t)pid), pid_eq, &q);

	return v ? t2f_idindex__at(&m->procs, v) : NULL;
}

static int proc_of(struct ps_maps *m, int64_t pid, struct ps_proc **out)
{
	struct ps_proc *p = (struct ps_proc *)find_proc(m, pid);
	uint32_t id;
	int err;

	if (p) {
		*out = p;
		return 0;
	}
	err = t2f_idindex__add(&m->procs, t2f_hash_u64((uint64_t)pid),
			       &(struct ps_proc){ .pid = pid, .last = PS_NO_MAP }, &id);
	if (err)
		return err;
	*out = t2f_idindex__at(&m->procs, id);
	return 0;
}

bool ps_maps__empty(const struct ps_maps *m)
{
	return m->n_maps == 0 && m->threads.n == 0;
}

int ps_maps__add(struct ps_maps *m, int64_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		 t2f_str_id path)
{
	struct ps_proc *p;
	int err;

	if (len == 0 || start + len < start)
		return 0;
	err = proc_of(m, pid, &p) ?:
	      t2f_grow32((void **)&m->maps, &m->cap_maps, m->n_maps, sizeof(*m->maps), 64);
	if (err)
		return err;
	m->maps[m->n_maps] = (struct ps_map){ start, start + len, pgoff, path, p->last };
	p->last = m->n_maps++;
	p->count++;
	return 0;
}

/* ---- the index ---- */

struct ps_seg {                 /* a segment being made */
	uint64_t at;
	uint32_t map;
};

static uint32_t *index_maps(const struct ps_index *x)
{
	return (uint32_t *)(x->at + x->n);
}

/* Appends the segment (at, map) to s[0..*n), or lets its last one take it. */
static void seg_put(struct ps_seg *s, uint32_t *n, uint64_t at, uint32_t map)
{
	if (*n && s[*n - 1].at == at) { /* an empty segment before: replaced */
		s[*n - 1].map = map;
		if (*n > 1 && s[*n - 2].map == map)
			--*n;
		return;
	}
	if (*n && s[*n - 1].map == map)
		return;
	s[(*n)++] = (struct ps_seg){ at, map };
}

struct seg_key {
	uint64_t start;
	uint32_t age;           /* older mappings lower */
};

static int seg_key_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct seg_key *)a)->start, y = ((const struct seg_key *)b)->start;

	return (x > y) - (x < y);
}

/* Drops the root of the max-heap h[0..*n). */
static void heap_pop(uint32_t *h, uint32_t *n)
{
	uint32_t i = 0, v = h[--*n];

	for (uint32_t c; (c = 2 * i + 1) < *n; i = c) {
		if (c + 1 < *n && h[c + 1] > h[c])
			c++;
		if (h[c] <= v)
			break;
		h[i] = h[c];
	}
	if (*n)
		h[i] = v;
}

static void heap_push(uint32_t *h, uint32_t *n, uint32_t v)
{
	uint32_t i = (*n)++;

	for (; i && h[(i - 1) / 2] < v; i = (i - 1) / 2)
		h[i] = h[(i - 1) / 2];
	h[i] = v;
}

/* The segments of mappings e[0..t) alone (indexes into m->maps, oldest first), into s (room
 * for 2t): a sweep in address order keeping the open mappings in a heap by age. 0 or
 * -ENOMEM. */
static int index_flatten(const struct ps_maps *m, const uint32_t *e, uint32_t t,
			 struct ps_seg *s, uint32_t *ns)
{
	struct seg_key *keys = malloc((size_t)t * sizeof(*keys));
	uint32_t *heap = malloc((size_t)t * sizeof(*heap));
	uint32_t nh = 0;

	*ns = 0;
	if (!keys || !heap) {
		free(keys);
		free(heap);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < t; i++)
		keys[i] = (struct seg_key){ m->maps[e[i]].start, i };
	qsort(keys, t, sizeof(*keys), seg_key_cmp);
	for (uint32_t j = 0; j < t || nh;) {
		uint64_t x = j < t ? keys[j].start : UINT64_MAX;

		if (nh && m->maps[e[heap[0]]].end <= x) { /* the newest open one ends first */
			x = m->maps[e[heap[0]]].end;
			while (nh && m->maps[e[heap[0]]].end <= x)
				heap_pop(heap, &nh);
		} else {
			while (j < t && keys[j].start == x)
				heap_push(heap, &nh, keys[j++].age);
		}
		seg_put(s, ns, x, nh ? e[heap[0]] : PS_NO_MAP);
	}
	free(keys);
	free(heap);
	return 0;
}

static void index_release(struct ps_index *x)
{
	if (x && --x->refs == 0)
		free(x);
}

/* The merge of the index o (or none) with the segments f[0..nf) laid over it, into a new
 * index (*out). 0 or -ENOMEM. */
static int index_merge(const struct ps_index *o, const struct ps_seg *f, uint32_t nf,
		       struct ps_index **out)
{
	uint32_t no = o ? o->n : 0, n = 0, i = 0, j = 0, vo = PS_NO_MAP, vf = PS_NO_MAP;
	const uint32_t *om = o ? index_maps(o) : NULL;
	struct ps_seg *r = malloc(((size_t)no + nf) * sizeof(*r));
	struct ps_index *x;

	if (!r)
		return -ENOMEM;
	while (i < no || j < nf) { /* the new mappings where they are, else the old */
		uint64_t at = j == nf || (i < no && o->at[i] < f[j].at) ? o->at[i] : f[j].at;

		if (i < no && o->at[i] == at)
			vo = om[i++];
		if (j < nf && f[j].at == at)
			vf = f[j++].map;
		seg_put(r, &n, at, vf != PS_NO_MAP ? vf : vo);
	}
	x = malloc(sizeof(*x) + (size_t)n * (sizeof(uint64_t) + sizeof(uint32_t)));
	if (x) {
		x->refs = 1;
		x->n = n;
		for (uint32_t k = 0; k < n; k++) {
			x->at[k] = r[k].at;
			index_maps(x)[k] = r[k].map;
		}
	}
	free(r);
	*out = x;
	return x ? 0 : -ENOMEM;
}

/* p's index with the mappings added since laid over it. 0 or -ENOMEM (p is left as it was). */
static int index_update(const struct ps_maps *m, struct ps_proc *p)
{
	uint32_t t = p->count - (p->ix ? p->built : 0), k = t, nf;
	uint32_t *e = malloc((size_t)t * sizeof(*e));
	struct ps_seg *f = malloc(2 * (size_t)t * sizeof(*f));
	struct ps_index *x = NULL;
	int err = e && f ? 0 : -ENOMEM;

	for (uint32_t i = p->last; !err && k > 0; i = m->maps[i].prev)
		e[--k] = i; /* oldest first */
	err = err ?: index_flatten(m, e, t, f, &nf) ?: index_merge(p->ix, f, nf, &x);
	if (!err) {
		index_release(p->ix);
		p->ix = x;
		p->built = p->count;
	}
	p->walked = 0;
	free(e);
	free(f);
	return err;
}

/* A new process, whose chain goes on from its parent's: it shares the parent's index. */
static void index_share(struct ps_proc *child, const struct ps_proc *parent)
{
	if (!child || !parent || !parent->ix || child->ix)
		return;
	child->ix = parent->ix;
	child->ix->refs++;
	child->built = parent->built;
}

/* The mapping p's index gives for ip: of those it holds, the newest holding ip. */
static const struct ps_map *index_find(const struct ps_maps *m, const struct ps_proc *p,
				       uint64_t ip)
{
	const struct ps_index *x = p->ix;
	uint32_t lo = 0, hi = x->n, map; /* the first segment starting above ip is in [lo, hi] */

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (x->at[mid] <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	map = lo ? index_maps(x)[lo - 1] : PS_NO_MAP;
	return map != PS_NO_MAP ? &m->maps[map] : NULL;
}

int ps_maps__fork(struct ps_maps *m, int64_t ppid, int64_t pid)
{
	const struct ps_proc *p = find_proc(m, ppid);
	uint32_t n = p ? p->count : 0, k = 0, *chain;
	struct ps_proc *child;
	int err = 0;

	if (n == 0 || ppid == pid)
		return 0;
	if (ps_maps__generation(m, pid) == 0) { /* its chain goes on from its parent's */
		err = proc_of(m, pid, &child);
		if (err)
			return err;
		p = find_proc(m, ppid); /* proc_of may have moved it */
		child->last = p->last;
		child->count = p->count;
		index_share(child, p);
		return 0;
	}
	chain = malloc((size_t)n * sizeof(*chain));
	if (!chain)
		return -ENOMEM;
	for (uint32_t i = p->last; i != PS_NO_MAP && k < n; i = m->maps[i].prev)
		chain[k++] = i;
	while (k-- > 0 && !err) { /* oldest first, as the parent got them */
		const struct ps_map e = m->maps[chain[k]];

		err = ps_maps__add(m, pid, e.start, e.end - e.start, e.pgoff, e.path);
	}
	free(chain);
	return err;
}

void ps_maps__exit(struct ps_maps *m, int64_t pid)
{
	struct ps_proc *p = (struct ps_proc *)find_proc(m, pid);

	if (!p || !p->ix)
		return;
	index_release(p->ix);
	p->ix = NULL;
	p->built = 0;
	p->walked = 0;
}

uint32_t ps_maps__generation(const struct ps_maps *m, int64_t pid)
{
	const struct ps_proc *p = find_proc(m, pid);

	return p ? p->count : 0;
}

/* p's newest mapping holding ip: those added since its index was made (all of them without
 * one) walked newest first, then the index. *walked: the mappings walked. */
static const struct ps_map *proc_map_at(const struct ps_maps *m, const struct ps_proc *p,
					uint64_t ip, uint32_t *walked)
{
	uint32_t tail = p ? p->count - (p->ix ? p->built : 0) : 0;

	*walked = 0;
	for (uint32_t i = p ? p->last : PS_NO_MAP; *walked < tail; i = m->maps[i].prev) {
		const struct ps_map *e = &m->maps[i];

		++*walked;
		if (ip >= e->start && ip < e->end)
			return e;
	}
	return p && p->ix ? index_find(m, p, ip) : NULL;
}

static const struct ps_map *map_at(const struct ps_maps *m, int64_t pid, uint64_t ip)
{
	uint32_t walked;

	return proc_map_at(m, find_proc(m, pid), ip, &walked);
}

/* As map_at, into *out, bringing the process's index up to date once its
 * walks have paid for it. */
static bool map_at_indexed(struct ps_maps *m, int64_t pid, uint64_t ip, struct ps_map *out)
{
	struct ps_proc *p = (struct ps_proc *)find_proc(m, pid);
	uint32_t walked;
	const struct ps_map *e = proc_map_at(m, p, ip, &walked);

	if (e)
		*out = *e;
	if (walked && p->count >= PS_INDEX_MIN) {
		p->walked = walked > UINT32_MAX - p->walked ? UINT32_MAX : p->walked + walked;
		if (p->walked >= p->count)
			(void)index_update(m, p); /* without memory: walked again next time */
	}
	return e != NULL;
}

bool ps_maps__find(struct ps_maps *m, int64_t pid, uint64_t ip, t2f_str_id *path,
		   uint64_t *file_off)
{
	struct ps_map e;

	if (!map_at_indexed(m, pid, ip, &e))
		return false;
	*path = e.path;
	*file_off = ip - e.start + e.pgoff;
	return true;
}

bool ps_maps__mapping(const struct ps_maps *m, int64_t pid, uint64_t ip, uint64_t *start,
		      uint64_t *end, uint64_t *pgoff, t2f_str_id *path)
{
	const struct ps_map *e = map_at(m, pid, ip);

	if (!e)
		return false;
	*start = e->start;
	*end = e->end;
	*pgoff = e->pgoff;
	*path = e->path;
	return true;
}

bool ps_maps__file_off(struct ps_maps *m, int64_t pid, uint64_t ip, t2f_str_id path,
		       uint64_t *file_off)
{
	t2f_str_id found;
	uint64_t off;

	if (!ps_maps__find(m, pid, ip, &found, &off) || found != path)
		return false;
	*file_off = off;
	return true;
}

int ps_maps__set_pid(struct ps_maps *m, int64_t tid, int64_t pid)
{
	struct id_probe q = { m, tid };
	uint32_t v = t2f_idindex__find(&m->threads, t2f_hash_u64((uint64_t)tid), tid_eq, &q);

	if (v) {
		((struct ps_thread *)t2f_idindex__at(&m->threads, v))->pid = pid;
		return 0;
	}
	return t2f_idindex__add(&m->threads, t2f_hash_u64((uint64_t)tid),
				&(struct ps_thread){ tid, pid }, &v);
}

int64_t ps_maps__pid_of(const struct ps_maps *m, int64_t tid)
{
	struct id_probe q = { m, tid };
	uint32_t v = t2f_idindex__find(&m->threads, t2f_hash_u64((uint64_t)tid), tid_eq, &q);

	return v ? ((const struct ps_thread *)t2f_idindex__at(&m->threads, v))->pid : tid;
}

enum t2f_frame_kind ps_dso_kind(const char *d, size_t n)
{
	if (n > 1 && d[0] == '[' && !(n == 9 && memcmp(d, "[unknown]", 9) == 0))
		return T2F_FRAME_KERNEL;
	if (n >= 7 && memcmp(d + n - 7, "vmlinux", 7) == 0)
		return T2F_FRAME_KERNEL;
	if (t2f_perf_map_pid(d, n, NULL))
		return T2F_FRAME_JIT;
	return T2F_FRAME_USER;
}

bool t2f_perf_script__no_mapping(const char *dso, size_t dso_len)
{
	return t2f_unknown_name(dso, dso_len);
}
