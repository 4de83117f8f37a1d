/* readers/nettrace_universal.c: processes, mappings, symbols → frames and stacks of universal
 * traces (nettrace_universal.h).
 *
 * Stacks repeat: a direct-mapped cache keyed by (pid, the IPs) gives a known stack's node without
 * walking its frames again; any mapping change empties it (a generation number).
 */
#include "readers/nettrace_universal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/buf.h"
#include "formats/diag.h"
#include "formats/grow.h"
#include "formats/hashmap.h"

#define STACK_SLOTS 4096   /* stack cache entries (a power of two) */
#define STACK_CACHE_MAX 256 /* deeper stacks are not cached */

enum map_kind { MAP_FILE = 0, MAP_ANON, MAP_KERNEL };

struct uni_map {                 /* one executable mapping */
	uint64_t start, end;         /* end inclusive */
	uint64_t file_off, id;
	t2f_str_id name;             /* 0 for "" */
	enum map_kind kind;
};

struct uni_proc {
	int64_t pid;
	t2f_str_id name;
	struct uni_map *maps;        /* sorted by start, not overlapping */
	uint32_t n, cap;
};

struct uni_meta {
	uint64_t id;
	t2f_str_id build_id;
	bool has_segment;
	uint64_t p_vaddr, p_offset;
};

struct uni_sym {
	uint64_t mapping_id, start, end;
	uint64_t max_end;            /* after sorting: the largest end of its mapping's symbols so far */
	uint32_t seq;                /* arrival order (ties) */
	t2f_str_id name;
};

struct uni_dyn {                 /* a JIT / kernel frame to name in __finish */
	uint64_t mapping_id, ip;
	t2f_str_id map_name;
	t2f_frame_id frame;
	bool has_mapping;
};

struct uni_file {                /* a file given a module map */
	t2f_str_id path, build_id;
};

struct stack_slot {
	uint64_t hash;
	int64_t pid;
	uint64_t *ips;
	uint32_t n, cap, gen;
	t2f_node_id node;
};

struct nt_uni {
	struct t2f_profile *p;
	uint32_t input;              /* given to the module maps */
	uint64_t page_size;
	struct uni_proc *procs;
	uint32_t n_procs, cap_procs;
	struct t2f_hashmap *proc_ix;
	struct uni_map *kmaps;       /* kernel mappings (any process) */
	uint32_t n_kmaps, cap_kmaps;
	uint64_t *kids;              /* every kernel mapping id seen */
	uint32_t n_kids, cap_kids;
	struct uni_meta *metas;
	uint32_t n_metas, cap_metas;
	struct t2f_hashmap *meta_ix;
	struct uni_sym *syms;
	uint32_t n_syms, cap_syms;
	struct uni_dyn *dyns;
	uint32_t n_dyns, cap_dyns;
	struct t2f_hashmap *dyn_ix;
	struct uni_file *files;
	uint32_t n_files, cap_files;
	struct stack_slot *slots;
	uint32_t gen;
	struct t2f_buf buf;
	struct nt_uni_stats stats;
};

int nt_uni__new(struct t2f_profile *p, uint32_t input, struct nt_uni **out)
{
	struct nt_uni *u = calloc(1, sizeof(*u));
	int err;

	if (!u)
		return -ENOMEM;
	u->p = p;
	u->input = input;
	u->gen = 1;
	u->slots = calloc(STACK_SLOTS, sizeof(*u->slots));
	err = !u->slots ? -ENOMEM : 0;
	err = err ?: t2f_hashmap__new(64, &u->proc_ix) ?: t2f_hashmap__new(64, &u->meta_ix) ?:
	      t2f_hashmap__new(256, &u->dyn_ix);
	if (err) {
		nt_uni__free(u);
		return err;
	}
	*out = u;
	return 0;
}

void nt_uni__free(struct nt_uni *u)
{
	if (!u)
		return;
	for (uint32_t i = 0; i < u->n_procs; i++)
		free(u->procs[i].maps);
	for (uint32_t i = 0; u->slots && i < STACK_SLOTS; i++)
		free(u->slots[i].ips);
	free(u->slots);
	free(u->procs);
	free(u->kmaps);
	free(u->kids);
	free(u->metas);
	free(u->syms);
	free(u->dyns);
	free(u->files);
	t2f_hashmap__free(u->proc_ix);
	t2f_hashmap__free(u->meta_ix);
	t2f_hashmap__free(u->dyn_ix);
	t2f_buf__free(&u->buf);
	free(u);
}

void nt_uni__set_page_size(struct nt_uni *u, uint64_t page_size)
{
	u->page_size = page_size;
}

const struct nt_uni_stats *nt_uni__stats(const struct nt_uni *u)
{
	return &u->stats;
}

/* ---- processes ---- */

struct proc_probe {
	const struct nt_uni *u;
	int64_t pid;
};

static bool proc_eq(const void *ctx, uint32_t v)
{
	const struct proc_probe *q = ctx;

	return q->u->procs[v - 1].pid == q->pid;
}

static uint64_t pid_hash(int64_t pid)
{
	return t2f_hash_u64((uint64_t)pid ^ 0x5bd1e995u);
}

static struct uni_proc *proc_find(const struct nt_uni *u, int64_t pid)
{
	struct proc_probe q = { u, pid };
	uint32_t hit = t2f_hashmap__find(u->proc_ix, pid_hash(pid), proc_eq, &q);

	return hit ? &u->procs[hit - 1] : NULL;
}

static int proc_get(struct nt_uni *u, int64_t pid, struct uni_proc **out)
{
	int err;

	*out = proc_find(u, pid);
	if (*out)
		return 0;
	err = t2f_grow32((void **)&u->procs, &u->cap_procs, u->n_procs, sizeof(*u->procs), 16);
	if (err)
		return err;
	u->procs[u->n_procs] = (struct uni_proc){ .pid = pid };
	*out = &u->procs[u->n_procs++];
	return t2f_hashmap__insert(u->proc_ix, pid_hash(pid), u->n_procs);
}

t2f_str_id nt_uni__process_name(const struct nt_uni *u, int64_t pid)
{
	const struct uni_proc *pr = proc_find(u, pid);

	return pr ? pr->name : 0;
}

static int on_process(struct nt_uni *u, int64_t pid, const uint8_t *b, size_t len)
{
	struct nt_uni_process ev;
	struct uni_proc *pr;
	t2f_str_id name = 0;
	int err;

	if (!nt_uni_process_decode(b, len, &ev))
		return 1;
	u->stats.processes++;
	err = proc_get(u, pid, &pr);
	if (!err && ev.name.len)
		err = t2f_profile__intern(u->p, ev.name.p, ev.name.len, &name);
	if (!err && name)
		pr->name = name;
	return err;
}

/* A process ends: its mappings go (the pid may be reused). */
static int on_proc_exit(struct nt_uni *u, int64_t pid)
{
	struct uni_proc *pr = proc_find(u, pid);

	if (pr && pr->n) {
		pr->n = 0;
		u->gen++;
	}
	return 0;
}

/* ---- mapping metadata ---- */

struct meta_probe {
	const struct nt_uni *u;
	uint64_t id;
};

static bool meta_eq(const void *ctx, uint32_t v)
{
	const struct meta_probe *q = ctx;

	return q->u->metas[v - 1].id == q->id;
}

static const struct uni_meta *meta_find(const struct nt_uni *u, uint64_t id)
{
	struct meta_probe q = { u, id };
	uint32_t hit = id ? t2f_hashmap__find(u->meta_ix, t2f_hash_u64(id), meta_eq, &q) : 0;

	return hit ? &u->metas[hit - 1] : NULL;
}

static int on_metadata(struct nt_uni *u, const uint8_t *b, size_t len)
{
	struct nt_uni_metadata ev;
	struct nt_uni_elf_meta em;
	struct uni_meta m = { 0 };
	int err;

	if (!nt_uni_metadata_decode(b, len, &ev))
		return 1;
	u->stats.metadata++;
	if (!ev.id || meta_find(u, ev.id))
		return 0; /* 0 means none; the first record of an id is kept */
	m.id = ev.id;
	if (nt_uni_elf_meta_parse(ev.symbol.p, ev.symbol.len, &em)) {
		m.has_segment = em.has_segment;
		m.p_vaddr = em.p_vaddr;
		m.p_offset = em.p_offset;
		if (em.build_id[0]) {
			err = t2f_profile__intern(u->p, em.build_id, strlen(em.build_id), &m.build_id);
			if (err)
				return err;
		}
	}
	err = t2f_grow32((void **)&u->metas, &u->cap_metas, u->n_metas, sizeof(*u->metas), 16);
	if (err)
		return err;
	u->metas[u->n_metas++] = m;
	err = t2f_hashmap__insert(u->meta_ix, t2f_hash_u64(m.id), u->n_metas);
	return err ? err : m.build_id == 0 && em.bad_build_id ? NT_UNI_BAD_BUILD_ID : 0;
}

/* ---- mappings ---- */

/* "" , "[...]" and "/memfd:..." are not files. */
static enum map_kind map_kind_of(const struct nt_uni_mapping *m)
{
	const struct nt_sstr *n = &m->name;

	if (m->start >= NT_KERNEL_START || (n->len == 7 && memcmp(n->p, "vmlinux", 7) == 0))
		return MAP_KERNEL;
	if (n->len == 0 || n->p[0] == '[' ||
	    (n->len >= 7 && memcmp(n->p, "/memfd:", 7) == 0))
		return MAP_ANON;
	return MAP_FILE;
}

/* One module map per (path, build-id). */
static int note_file(struct nt_uni *u, int64_t pid, const struct uni_map *m, uint64_t meta_id)
{
	const struct uni_meta *meta = meta_find(u, meta_id);
	t2f_str_id build_id = meta ? meta->build_id : 0;
	struct t2f_module_map mm = {
		.pid = pid, .input = u->input, .start = m->start, .len = m->end - m->start + 1,
		.pgoff = m->file_off, .path = m->name, .build_id = build_id,
		.page_size = u->page_size,
	};
	int err;

	for (uint32_t i = 0; i < u->n_files; i++)
		if (u->files[i].path == m->name && u->files[i].build_id == build_id)
			return 0;
	err = t2f_grow32((void **)&u->files, &u->cap_files, u->n_files, sizeof(*u->files), 16);
	if (err)
		return err;
	u->files[u->n_files++] = (struct uni_file){ m->name, build_id };
	if (meta && meta->has_segment) {
		mm.has_segment = true;
		mm.p_vaddr = meta->p_vaddr;
		mm.p_offset = meta->p_offset;
	}
	return t2f_profile__add_module_map(u->p, &mm);
}

/* Inserts m into a sorted mapping list, removing the mappings it overlaps (a newer mmap of the
 * same addresses replaces them). */
static int map_insert(struct uni_map **v, uint32_t *n, uint32_t *cap, const struct uni_map *m)
{
	uint32_t w = 0, at;
	int err;

	for (uint32_t i = 0; i < *n; i++) /* drop overlapping ones */
		if ((*v)[i].end < m->start || (*v)[i].start > m->end)
			(*v)[w++] = (*v)[i];
	*n = w;
	err = t2f_grow32((void **)v, cap, *n, sizeof(**v), 16);
	if (err)
		return err;
	for (at = *n; at > 0 && (*v)[at - 1].start > m->start; at--)
		;
	memmove(&(*v)[at + 1], &(*v)[at], (size_t)(*n - at) * sizeof(**v));
	(*v)[at] = *m;
	(*n)++;
	return 0;
}

static int on_mapping(struct nt_uni *u, int64_t pid, const uint8_t *b, size_t len)
{
	struct nt_uni_mapping ev;
	struct uni_map m;
	struct uni_proc *pr;
	int err = 0;

	if (!nt_uni_mapping_decode(b, len, &ev))
		return 1;
	u->stats.mappings++;
	if (ev.end < ev.start)
		return 0;
	m = (struct uni_map){ .start = ev.start, .end = ev.end, .file_off = ev.file_off,
			      .id = ev.id, .kind = map_kind_of(&ev) };
	if (ev.name.len)
		err = t2f_profile__intern(u->p, ev.name.p, ev.name.len, &m.name);
	if (err)
		return err;
	u->gen++;
	if (m.kind == MAP_KERNEL) {
		err = t2f_grow32((void **)&u->kids, &u->cap_kids, u->n_kids, sizeof(*u->kids), 16);
		if (!err)
			u->kids[u->n_kids++] = m.id;
		return err ?: map_insert(&u->kmaps, &u->n_kmaps, &u->cap_kmaps, &m);
	}
	err = proc_get(u, pid, &pr) ?: map_insert(&pr->maps, &pr->n, &pr->cap, &m);
	if (!err && m.kind == MAP_FILE)
		err = note_file(u, pid, &m, ev.meta_id);
	return err;
}

static const struct uni_map *map_find(const struct uni_map *v, uint32_t n, uint64_t ip)
{
	uint32_t lo = 0, hi = n; /* first mapping with start > ip */

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (v[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && ip <= v[lo - 1].end ? &v[lo - 1] : NULL;
}

/* ---- symbols ---- */

static int on_symbol(struct nt_uni *u, const uint8_t *b, size_t len)
{
	struct nt_uni_symbol ev;
	struct uni_sym s = { 0 };
	int err;

	if (!nt_uni_symbol_decode(b, len, &ev))
		return 1;
	u->stats.symbols++;
	if (ev.end < ev.start || !ev.name.len)
		return 0;
	s = (struct uni_sym){ .mapping_id = ev.mapping_id, .start = ev.start, .end = ev.end,
			      .seq = u->n_syms };
	err = t2f_profile__intern(u->p, ev.name.p, ev.name.len, &s.name) ?:
	      t2f_grow32((void **)&u->syms, &u->cap_syms, u->n_syms, sizeof(*u->syms), 16);
	if (err)
		return err;
	u->syms[u->n_syms++] = s;
	return 0;
}

int nt_uni__system(struct nt_uni *u, enum nt_uni_event kind, int64_t pid, const uint8_t *payload,
		   size_t len)
{
	switch (kind) {
	case NT_UNI_PROCESS:
		return on_process(u, pid, payload, len);
	case NT_UNI_EXIT:
		return on_proc_exit(u, pid);
	case NT_UNI_MAPPING:
		return on_mapping(u, pid, payload, len);
	case NT_UNI_SYMBOL:
		return on_symbol(u, payload, len);
	case NT_UNI_METADATA:
		return on_metadata(u, payload, len);
	default:
		return 0;
	}
}

/* ---- frames ---- */

struct dyn_probe {
	const struct nt_uni *u;
	uint64_t mapping_id, ip;
};

static bool dyn_eq(const void *ctx, uint32_t v)
{
	const struct dyn_probe *q = ctx;
	const struct uni_dyn *d = &q->u->dyns[v - 1];

	return d->ip == q->ip && d->mapping_id == q->mapping_id;
}

/* A JIT / kernel frame of mapping m (NULL: a kernel address in no mapping). */
static int dyn_frame(struct nt_uni *u, const struct uni_map *m, uint64_t ip, bool kernel,
		     t2f_frame_id *out)
{
	struct dyn_probe q = { u, m ? m->id : UINT64_MAX, ip };
	uint64_t h = t2f_hash_u64(ip * 0x9e3779b97f4a7c15ull ^ q.mapping_id);
	uint32_t hit = t2f_hashmap__find(u->dyn_ix, h, dyn_eq, &q);
	struct t2f_frame f = { .module = m ? m->name : 0, .addr = ip, .has_addr = true,
			       .space = T2F_SPACE_ABS, .kind = kernel ? T2F_FRAME_KERNEL : T2F_FRAME_JIT,
			       .module_names = true };
	int err;

	if (hit) {
		*out = u->dyns[hit - 1].frame;
		return 0;
	}
	err = t2f_grow32((void **)&u->dyns, &u->cap_dyns, u->n_dyns, sizeof(*u->dyns), 16) ?:
	      t2f_profile__frame(u->p, &f, out);
	if (err)
		return err;
	u->dyns[u->n_dyns++] = (struct uni_dyn){ .mapping_id = q.mapping_id, .ip = ip,
						 .map_name = f.module, .frame = *out,
						 .has_mapping = m != NULL };
	return t2f_hashmap__insert(u->dyn_ix, h, u->n_dyns);
}

/* "?!0xADDR": an address in no mapping. */
static int unmapped_frame(struct nt_uni *u, uint64_t ip, t2f_frame_id *out)
{
	char name[32];
	int len = snprintf(name, sizeof(name), "?!0x%" PRIx64, ip);
	struct t2f_frame f = { .addr = ip, .has_addr = true, .space = T2F_SPACE_ABS,
			       .kind = ip >= NT_KERNEL_START ? T2F_FRAME_KERNEL : T2F_FRAME_USER,
			       .module_names = true };
	uint32_t before = t2f_profile__frame_count(u->p);
	int err = t2f_profile__intern(u->p, name, (size_t)len, &f.name) ?:
		  t2f_profile__frame(u->p, &f, out);

	if (!err && t2f_profile__frame_count(u->p) != before)
		u->stats.unmapped++;
	return err;
}

static int frame_of(struct nt_uni *u, const struct uni_proc *pr, uint64_t ip, t2f_frame_id *out)
{
	const struct uni_map *m = pr ? map_find(pr->maps, pr->n, ip) : NULL;
	struct t2f_frame f = { .has_addr = true, .space = T2F_SPACE_FILE_OFF, .kind = T2F_FRAME_USER,
			       .module_names = true };
	uint32_t before;
	int err;

	if (!m && ip >= NT_KERNEL_START) {
		m = map_find(u->kmaps, u->n_kmaps, ip);
		return dyn_frame(u, m, ip, true, out);
	}
	if (!m)
		return unmapped_frame(u, ip, out);
	if (m->kind != MAP_FILE)
		return dyn_frame(u, m, ip, m->kind == MAP_KERNEL, out);
	f.module = m->name;
	f.addr = ip - m->start + m->file_off; /* file_off */
	before = t2f_profile__frame_count(u->p);
	err = t2f_profile__frame(u->p, &f, out);
	if (!err && t2f_profile__frame_count(u->p) != before)
		u->stats.file_frames++;
	return err;
}

static uint64_t stack_hash(int64_t pid, const uint64_t *ips, uint32_t n)
{
	uint64_t h = t2f_hash_u64((uint64_t)pid + n);

	for (uint32_t i = 0; i < n; i++)
		h = t2f_hash_u64(h ^ ips[i]);
	return h;
}

static int stack_walk(struct nt_uni *u, int64_t pid, const uint64_t *ips, uint32_t n,
		      t2f_node_id *out)
{
	const struct uni_proc *pr = proc_find(u, pid);
	t2f_node_id node = 0;
	t2f_frame_id frame;
	int err = 0;

	for (uint32_t i = n; i-- > 0 && !err;) /* root first */
		err = frame_of(u, pr, ips[i], &frame) ?: t2f_profile__child(u->p, node, frame, &node);
	*out = node;
	return err;
}

int nt_uni__stack(struct nt_uni *u, int64_t pid, const uint64_t *ips, uint32_t n,
		  t2f_node_id *out)
{
	uint64_t h;
	struct stack_slot *s;
	int err;

	if (n > STACK_CACHE_MAX)
		return stack_walk(u, pid, ips, n, out);
	h = stack_hash(pid, ips, n);
	s = &u->slots[h & (STACK_SLOTS - 1)];
	if (s->gen == u->gen && s->hash == h && s->pid == pid && s->n == n &&
	    memcmp(s->ips, ips, (size_t)n * sizeof(*ips)) == 0) {
		*out = s->node;
		return 0;
	}
	err = stack_walk(u, pid, ips, n, out);
	if (err)
		return err;
	if (s->cap < n) {
		uint64_t *ni = realloc(s->ips, (size_t)n * sizeof(*ni));

		if (!ni)
			return 0; /* not cached */
		s->ips = ni;
		s->cap = n;
	}
	memcpy(s->ips, ips, (size_t)n * sizeof(*ips));
	*s = (struct stack_slot){ .hash = h, .pid = pid, .ips = s->ips, .n = n, .cap = s->cap,
				  .gen = u->gen, .node = *out };
	return 0;
}

/* ---- the end: JIT and kernel names ---- */

static int sym_cmp(const void *a, const void *b)
{
	const struct uni_sym *x = a, *y = b;

	if (x->mapping_id != y->mapping_id)
		return x->mapping_id < y->mapping_id ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void syms_seal(struct nt_uni *u)
{
	if (u->n_syms) /* qsort must not get NULL, even for 0 items */
		qsort(u->syms, u->n_syms, sizeof(*u->syms), sym_cmp);
	for (uint32_t i = 0; i < u->n_syms; i++) {
		struct uni_sym *s = &u->syms[i];
		bool first = i == 0 || u->syms[i - 1].mapping_id != s->mapping_id;

		s->max_end = first || u->syms[i - 1].max_end < s->end ? s->end
								       : u->syms[i - 1].max_end;
	}
}

/* The smallest symbol of mapping mid holding ip (the first recorded among equals). */
static const struct uni_sym *sym_find(const struct nt_uni *u, uint64_t mid, uint64_t ip)
{
	uint32_t lo = 0, hi = u->n_syms; /* first symbol after (mid, ip) */
	const struct uni_sym *best = NULL;

	while (lo < hi) {
		uint32_t m = lo + (hi - lo) / 2;
		const struct uni_sym *s = &u->syms[m];

		if (s->mapping_id < mid || (s->mapping_id == mid && s->start <= ip))
			lo = m + 1;
		else
			hi = m;
	}
	for (uint32_t i = lo; i-- > 0;) {
		const struct uni_sym *s = &u->syms[i];

		if (s->mapping_id != mid || s->max_end < ip)
			break;
		if (s->end >= ip && (!best || s->end - s->start <= best->end - best->start))
			best = s;
	}
	return best;
}

/* "NAME!0xADDR", NAME = the mapping name's last component ("[anon]" for ""), "?" for none. */
static int format_unnamed(struct nt_uni *u, const struct uni_dyn *d)
{
	size_t len = 1;
	const char *name = "?", *slash;
	char addr[24];
	int n;

	if (d->has_mapping) {
		name = d->map_name ? t2f_profile__str(u->p, d->map_name, &len) : "[anon]";
		len = d->map_name ? len : 6;
		slash = memrchr(name, '/', len);
		if (slash && (size_t)(slash + 1 - name) < len) {
			len -= (size_t)(slash + 1 - name);
			name = slash + 1;
		}
	}
	n = snprintf(addr, sizeof(addr), "!0x%" PRIx64, d->ip);
	return t2f_buf__put(&u->buf, name, len) ?: t2f_buf__put(&u->buf, addr, (size_t)n);
}

static int name_dyn(struct nt_uni *u, const struct uni_dyn *d)
{
	const struct uni_sym *s = d->has_mapping ? sym_find(u, d->mapping_id, d->ip) : NULL;
	t2f_str_id id;
	size_t len;
	int err;

	/* kernel symbols may come with another process's copy of the kernel mapping */
	for (uint32_t i = 0; !s && d->ip >= NT_KERNEL_START && i < u->n_kids; i++)
		s = sym_find(u, u->kids[i], d->ip);
	u->buf.len = 0;
	if (s) {
		const char *name = t2f_profile__str(u->p, s->name, &len);
		size_t out;

		u->stats.jit_named++;
		err = t2f_buf__reserve(&u->buf, len + 1);
		if (err)
			return err;
		if (!nt_uni_jit_name(name, len, u->buf.p, u->buf.cap, &out))
			return t2f_profile__set_frame_name(u->p, d->frame, s->name);
		u->buf.len = out;
	} else {
		u->stats.jit_unnamed++;
		err = format_unnamed(u, d);
		if (err)
			return err;
	}
	return t2f_profile__intern(u->p, u->buf.p, u->buf.len, &id) ?:
	       t2f_profile__set_frame_name(u->p, d->frame, id);
}

int nt_uni__finish(struct nt_uni *u)
{
	int err = 0;

	syms_seal(u);
	for (uint32_t i = 0; i < u->n_dyns && !err; i++)
		err = name_dyn(u, &u->dyns[i]);
	return err;
}
