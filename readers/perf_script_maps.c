/* readers/perf_script_maps.c: per-process mappings for one-line samples (perf_script_maps.h).
 *
 * One array of mappings; each process's mappings form a chain from its latest one backwards, so
 * a lookup walks the process's own mappings, newest first. Processes are found through a hash
 * of the pid.
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

struct ps_map {
	uint64_t start, end, pgoff;
	t2f_str_id path;
	uint32_t prev;          /* the same process's previous mapping, or PS_NO_MAP */
};

struct ps_proc {
	int64_t pid;
	uint32_t last;          /* its latest mapping */
	uint32_t count;
};

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

int ps_maps__fork(struct ps_maps *m, int64_t ppid, int64_t pid)
{
	const struct ps_proc *p = find_proc(m, ppid);
	uint32_t n = p ? p->count : 0, k = 0, *chain;
	int err = 0;

	if (n == 0 || ppid == pid)
		return 0;
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

uint32_t ps_maps__generation(const struct ps_maps *m, int64_t pid)
{
	const struct ps_proc *p = find_proc(m, pid);

	return p ? p->count : 0;
}

static const struct ps_map *map_at(const struct ps_maps *m, int64_t pid, uint64_t ip)
{
	const struct ps_proc *p = find_proc(m, pid);

	for (uint32_t i = p ? p->last : PS_NO_MAP; i != PS_NO_MAP; i = m->maps[i].prev) {
		const struct ps_map *e = &m->maps[i];

		if (ip >= e->start && ip < e->end)
			return e;
	}
	return NULL;
}

bool ps_maps__find(const struct ps_maps *m, int64_t pid, uint64_t ip, t2f_str_id *path,
		   uint64_t *file_off)
{
	const struct ps_map *e = map_at(m, pid, ip);

	if (!e)
		return false;
	*path = e->path;
	*file_off = ip - e->start + e->pgoff;
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

bool ps_maps__file_off(const struct ps_maps *m, int64_t pid, uint64_t ip, t2f_str_id path,
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
