/* readers/perf_data_conv.c: perf.data records → profile (perf_data_conv.h): setup, threads,
 * mappings, frames and each record as readers/perf_data_queue.c hands it over in time order.
 * Frames are found through a cache keyed on (process, its mappings' generation, cpumode, ip):
 * one hash per call-chain entry once seen; a user frame the cache has let go is made again.
 */
#include "readers/perf_data_conv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "formats/event_name.h"
#include "formats/grow.h"
#include "formats/hashmap.h"
#include "readers/perf_data_conv_internal.h"
#include "readers/perf_script_maps.h"

/* ---- setup ---- */

/* The name perf gives an attr without EVENT_DESC (the common ones; else "TYPE:CONFIG"). */
static const char *pdc_default_name(const struct perf_event_attr *a, char *buf, size_t size)
{
	static const char *const hw[] = { "cycles", "instructions", "cache-references",
					  "cache-misses", "branches", "branch-misses",
					  "bus-cycles" };
	static const char *const sw[] = { "cpu-clock", "task-clock", "page-faults",
					  "context-switches", "cpu-migrations", "minor-faults",
					  "major-faults" };

	if (a->type == PERF_TYPE_HARDWARE && a->config < sizeof(hw) / sizeof(hw[0]))
		return hw[a->config];
	if (a->type == PERF_TYPE_SOFTWARE && a->config < sizeof(sw) / sizeof(sw[0]))
		return sw[a->config];
	snprintf(buf, size, "%u:%llu", a->type, (unsigned long long)a->config);
	return buf;
}

static int pdc_event_of(struct t2f_perf_data_conv *c, const struct t2f_perf_attr *a,
			t2f_event_id *out)
{
	char buf[48];
	const char *name = a->name ? a->name : pdc_default_name(&a->attr, buf, sizeof(buf));
	size_t len = t2f_event_name_len(name, strlen(name));
	enum t2f_unit unit = T2F_UNIT_COUNT;
	t2f_str_id id;
	int err;

	if ((len == 9 && memcmp(name, "cpu-clock", 9) == 0) ||
	    (len == 10 && memcmp(name, "task-clock", 10) == 0))
		unit = T2F_UNIT_NANOSECONDS;
	err = t2f_profile__intern(c->p, name, len, &id) ?: t2f_profile__event(c->p, id, unit, out);
	if (!err && c->attrs[a->index].period)
		t2f_profile__event_has_period(c->p, *out);
	return err;
}

static int pdc_setup_attrs(struct t2f_perf_data_conv *c)
{
	c->n_attrs = t2f_perf_data__n_attrs(c->pd);
	c->attrs = calloc(c->n_attrs ? c->n_attrs : 1, sizeof(*c->attrs));
	if (!c->attrs)
		return -ENOMEM;
	for (size_t i = 0; i < c->n_attrs; i++) {
		const struct perf_event_attr *a = &t2f_perf_data__attr(c->pd, i)->attr;

		/* perf script prints the period of every event type but tracepoints */
		c->attrs[i].period = (a->sample_type & PERF_SAMPLE_PERIOD) &&
				     a->type != PERF_TYPE_TRACEPOINT;
		c->attrs[i].dwarf = (a->sample_type & (PERF_SAMPLE_REGS_USER |
						       PERF_SAMPLE_STACK_USER)) != 0;
	}
	return 0;
}

/* With a derive stage: the sched_switch format from the file's tracing data, and which attrs
 * are sched_switch with their payloads. 0, -ENOMEM or -T2F_ERR_FORMAT (strict). */
static int pdc_derive_setup(struct t2f_perf_data_conv *c)
{
	uint8_t *sec;
	size_t len;
	int err;

	c->derive = t2f_profile__derive(c->p);
	if (!c->derive)
		return 0;
	err = t2f_perf_data__section(c->pd, 1 /* HEADER_TRACING_DATA */, &sec, &len);
	if (!err && sec)
		err = t2f_pd_trace__new(sec, len, c->d, t2f_perf_data__name(c->pd), &c->trace);
	free(sec);
	for (size_t i = 0; !err && c->trace && i < c->n_attrs; i++) {
		const struct perf_event_attr *a = &t2f_perf_data__attr(c->pd, i)->attr;

		c->attrs[i].sched_switch = a->type == PERF_TYPE_TRACEPOINT &&
					   (a->sample_type & PERF_SAMPLE_RAW) &&
					   a->config == t2f_pd_trace__switch_id(c->trace);
	}
	return err;
}

/* The recording's events in its own order (the attrs', as perf evlist lists them), so the default
 * event is its first one with samples, as perf report picks it; perf's side-band dummy event
 * (software, PERF_COUNT_SW_DUMMY) holds no samples and is left out. 0 or -ENOMEM. */
static int pdc_events_in_order(struct t2f_perf_data_conv *c)
{
	int err = 0;

	for (size_t i = 0; i < c->n_attrs && !err; i++) {
		const struct t2f_perf_attr *a = t2f_perf_data__attr(c->pd, i);

		if (a->attr.type != PERF_TYPE_SOFTWARE || a->attr.config != PERF_COUNT_SW_DUMMY)
			err = pdc_event_of(c, a, &c->attrs[i].event);
	}
	return err;
}

int t2f_perf_data_conv__new(struct t2f_perf_data *pd, struct t2f_profile *p, struct t2f_diag *d,
			    const struct t2f_perf_data_conv_opts *o,
			    struct t2f_perf_data_conv **out)
{
	struct t2f_perf_data_conv *c = calloc(1, sizeof(*c));
	int err;

	if (!c)
		return -ENOMEM;
	c->pd = pd;
	c->p = p;
	c->d = d;
	c->o = *o;
	c->last_pid = -2;
	c->stack = malloc(2 * PDC_MAX_STACK * sizeof(*c->stack));
	if (o->unwind) {
		c->batch = calloc(T2F_PERF_UNWIND_BATCH, sizeof(*c->batch));
		c->batch_ips = malloc(T2F_PERF_UNWIND_BATCH * sizeof(uint64_t) * T2F_PERF_UNWIND_MAX);
	}
	c->l1 = calloc((size_t)1 << PDC_L1_BITS, sizeof(*c->l1));
	err = c->stack && c->l1 && (!o->unwind || (c->batch && c->batch_ips)) ? 0 : -ENOMEM;
	if (!err && (ps_maps__new(&c->maps) || t2f_pdc_stacks__new(p, o->threads > 1, o->class_key, &c->stk) ||
		     t2f_hashmap__new(256, &c->comm_ix) || t2f_hashmap__new(4096, &c->frame_ix) ||
		     t2f_hashmap__new(256, &c->bid_ix) || t2f_hashmap__new(256, &c->fid_ix)))
		err = -ENOMEM;
	if (!err)
		err = pdc_setup_attrs(c) ?: pdc_events_in_order(c) ?: pdc_derive_setup(c) ?:
		      t2f_profile__intern(p, "[kernel.kallsyms]", 17, &c->s_kernel) ?:
		      t2f_profile__intern(p, "[unknown]", 9, &c->s_unknown);
	if (err) {
		t2f_perf_data_conv__free(c);
		return err;
	}
	*out = c;
	return 0;
}

void t2f_perf_data_conv__free(struct t2f_perf_data_conv *c)
{
	if (!c)
		return;
	for (int i = 0; i < 2; i++) {
		free(c->q[i].ev);
		free(c->q[i].pool);
	}
	t2f_pdc_stacks__free(c->stk);
	t2f_pd_trace__free(c->trace);
	free(c->order);
	free(c->order_tmp);
	free(c->attrs);
	ps_maps__free(c->maps);
	free(c->comms);
	t2f_hashmap__free(c->comm_ix);
	free(c->kmaps);
	free(c->frames);
	free(c->mods);
	free(c->l1);
	t2f_hashmap__free(c->frame_ix);
	free(c->stack);
	free(c->batch);
	free(c->batch_ips);
	free(c->bids);
	t2f_hashmap__free(c->bid_ix);
	free(c->fids);
	t2f_hashmap__free(c->fid_ix);
	free(c);
}

const struct t2f_perf_data_conv_stats *t2f_perf_data_conv__stats(
	const struct t2f_perf_data_conv *c)
{
	return &c->st;
}

/* id[0..n) as lowercase hex into hex[0..2n], NUL-terminated. */
static void pdc_hex(const uint8_t *id, size_t n, char *hex)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t k = 0; k < n; k++) {
		hex[2 * k] = digits[id[k] >> 4];
		hex[2 * k + 1] = digits[id[k] & 15];
	}
	hex[2 * n] = '\0';
}

t2f_frame_id *t2f_perf_data_conv__take_frame_as(struct t2f_perf_data_conv *c, size_t *n)
{
	return t2f_pdc_stacks__take_as(c->stk, n);
}

bool t2f_perf_data_conv__kernel_ref(const struct t2f_perf_data_conv *c, const char **name,
				    uint64_t *addr)
{
	if (!c->kref)
		return false;
	*name = c->kref;
	*addr = c->kref_addr;
	return true;
}

bool t2f_perf_data_conv__kernel_build_id(const struct t2f_perf_data *pd, char hex[41])
{
	const struct t2f_perf_features *f = t2f_perf_data__features(pd);

	for (size_t i = 0; i < f->n_build_ids; i++) {
		const struct t2f_perf_build_id *b = &f->build_ids[i];

		if (strcmp(b->path, "[kernel.kallsyms]") != 0 || b->size == 0 || b->size > 20)
			continue;
		pdc_hex(b->id, b->size, hex);
		return true;
	}
	return false;
}

/* ---- threads ---- */

struct pdc_probe {
	const struct t2f_perf_data_conv *c;
	const void *key;
};

static bool pdc_comm_eq(const void *ctx, uint32_t v)
{
	const struct pdc_probe *q = ctx;

	return q->c->comms[v - 1].tid == *(const int64_t *)q->key;
}

static struct pdc_comm *pdc_comm_find(struct t2f_perf_data_conv *c, int64_t tid)
{
	struct pdc_probe q = { c, &tid };
	uint32_t v = t2f_hashmap__find(c->comm_ix, t2f_hash_u64((uint64_t)tid), pdc_comm_eq, &q);

	return v ? &c->comms[v - 1] : NULL;
}

static int pdc_set_comm(struct t2f_perf_data_conv *c, int64_t tid, t2f_str_id comm)
{
	struct pdc_comm *e = pdc_comm_find(c, tid);
	int err;

	c->last_pid = -2; /* the thread cache */
	if (e) {
		e->comm = comm;
		return 0;
	}
	err = t2f_grow32((void **)&c->comms, &c->cap_comms, c->n_comms, sizeof(*c->comms), 64);
	if (err)
		return err;
	c->comms[c->n_comms] = (struct pdc_comm){ tid, comm };
	err = t2f_hashmap__insert(c->comm_ix, t2f_hash_u64((uint64_t)tid), c->n_comms + 1);
	if (!err)
		c->n_comms++;
	return err;
}

/* perf's name for a thread no COMM named: "swapper" for the idle task, else ":TID". */
static int pdc_comm_of(struct t2f_perf_data_conv *c, int64_t tid, t2f_str_id *out)
{
	const struct pdc_comm *e = pdc_comm_find(c, tid);
	char buf[24];
	int n;

	if (e) {
		*out = e->comm;
		return 0;
	}
	if (tid == 0)
		return t2f_profile__intern(c->p, "swapper", 7, out);
	n = snprintf(buf, sizeof(buf), ":%lld", (long long)tid);
	return t2f_profile__intern(c->p, buf, (size_t)n, out);
}

static int pdc_thread(struct t2f_perf_data_conv *c, int64_t pid, int64_t tid,
		      t2f_thread_id *out)
{
	t2f_str_id comm;
	int err;

	if (pid == c->last_pid && tid == c->last_tid) {
		*out = c->last_thread;
		return 0;
	}
	err = pdc_comm_of(c, tid, &comm) ?:
	      t2f_profile__thread(c->p, pid, tid, comm, c->o.input, out);
	if (err)
		return err;
	c->last_pid = pid;
	c->last_tid = tid;
	c->last_thread = *out;
	return 0;
}

/* ---- mappings ---- */

static bool pdc_prefix(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

/* "/lib/modules/.../nf_tables.ko.xz" → "[nf_tables]" (perf's short name of a module). */
static int pdc_module_name(struct t2f_perf_data_conv *c, const char *path, t2f_str_id *out)
{
	const char *base = strrchr(path, '/');
	char buf[256];
	size_t n;

	base = base ? base + 1 : path;
	n = strcspn(base, ".");
	if (n > sizeof(buf) - 3)
		n = sizeof(buf) - 3;
	buf[0] = '[';
	for (size_t i = 0; i < n; i++)
		buf[1 + i] = base[i] == '-' ? '_' : base[i];
	buf[n + 1] = ']';
	return t2f_profile__intern(c->p, buf, n + 2, out);
}

static int pdc_kernel_mmap(struct t2f_perf_data_conv *c, const struct pdc_ev *e,
			   const char *path)
{
	struct pdc_kmap *k;
	int err;

	c->kgen++;
	if (pdc_prefix(path, "[kernel.kallsyms]")) {
		/* perf's kernel map ends where the next map starts, the last at the top: init
		 * text (start_kernel, above _etext) is the kernel's too */
		c->kstart = e->start;
		c->kend = UINT64_MAX;
		/* "[kernel.kallsyms]_text": perf's reference symbol, its address then the pgoff */
		path += strlen("[kernel.kallsyms]");
		c->kref = !strcmp(path, "_text") ? "_text" : !strcmp(path, "_stext") ? "_stext"
										  : NULL;
		c->kref_addr = e->pgoff;
		return 0;
	}
	if (path[0] != '/')
		return 0;
	err = t2f_grow32((void **)&c->kmaps, &c->cap_kmaps, c->n_kmaps, sizeof(*c->kmaps), 64);
	if (err)
		return err;
	k = &c->kmaps[c->n_kmaps];
	k->start = e->start;
	k->end = e->start + e->len;
	err = pdc_module_name(c, path, &k->name);
	if (!err)
		c->n_kmaps++;
	return err;
}

/* The BUILD_ID feature's id for path, as hex into hex[0..41); false when none. */
static bool pdc_feature_id(const struct t2f_perf_data_conv *c, const char *path, char hex[41])
{
	const struct t2f_perf_features *f = t2f_perf_data__features(c->pd);

	for (size_t i = 0; i < f->n_build_ids; i++) {
		const struct t2f_perf_build_id *b = &f->build_ids[i];

		if (b->size == 0 || b->size > 20 || strcmp(b->path, path) != 0)
			continue;
		pdc_hex(b->id, b->size, hex);
		return true;
	}
	return false;
}

static bool pdc_fid_eq(const void *ctx, uint32_t v)
{
	const struct pdc_probe *q = ctx;

	return q->c->fids[v - 1].path == *(const t2f_str_id *)q->key;
}

/* The BUILD_ID feature's id for path (interned; 0 when none), found once per path: a process
 * maps the same files as many before it. 0 or -ENOMEM. */
static int pdc_feature_bid(struct t2f_perf_data_conv *c, const char *path, t2f_str_id path_id,
			   t2f_str_id *out)
{
	struct pdc_probe q = { c, &path_id };
	uint32_t v = t2f_hashmap__find(c->fid_ix, t2f_hash_u64(path_id), pdc_fid_eq, &q);
	char hex[41];
	int err;

	if (v) {
		*out = c->fids[v - 1].bid;
		return 0;
	}
	*out = 0;
	err = pdc_feature_id(c, path, hex) ? t2f_profile__intern(c->p, hex, strlen(hex), out) : 0;
	err = err ?: t2f_grow32((void **)&c->fids, &c->cap_fids, c->n_fids, sizeof(*c->fids), 64);
	if (err)
		return err;
	c->fids[c->n_fids] = (struct pdc_bid){ path_id, *out };
	err = t2f_hashmap__insert(c->fid_ix, t2f_hash_u64(path_id), c->n_fids + 1);
	c->n_fids += !err;
	return err;
}

static bool pdc_bid_eq(const void *ctx, uint32_t v)
{
	const struct pdc_probe *q = ctx;

	return q->c->bids[v - 1].path == *(const t2f_str_id *)q->key;
}

static struct pdc_bid *pdc_bid_find(const struct t2f_perf_data_conv *c, t2f_str_id path)
{
	struct pdc_probe q = { c, &path };
	uint32_t v = t2f_hashmap__find(c->bid_ix, t2f_hash_u64(path), pdc_bid_eq, &q);

	return v ? &c->bids[v - 1] : NULL;
}

/* Remembers path's build-id (the latest mapping's) for the unwinder. 0 or -ENOMEM. */
static int pdc_bid_set(struct t2f_perf_data_conv *c, t2f_str_id path, t2f_str_id bid)
{
	struct pdc_bid *b = pdc_bid_find(c, path);
	int err;

	if (b) {
		b->bid = bid;
		return 0;
	}
	err = t2f_grow32((void **)&c->bids, &c->cap_bids, c->n_bids, sizeof(*c->bids), 64);
	if (err)
		return err;
	c->bids[c->n_bids] = (struct pdc_bid){ path, bid };
	err = t2f_hashmap__insert(c->bid_ix, t2f_hash_u64(path), c->n_bids + 1);
	c->n_bids += !err;
	return err;
}

bool t2f_perf_data_conv__map(const struct t2f_perf_data_conv *c, int64_t pid, uint64_t addr,
			     struct t2f_perf_map *out)
{
	const struct pdc_bid *b;
	const char *s;
	size_t len;

	*out = (struct t2f_perf_map){ 0 };
	if (!ps_maps__mapping(c->maps, pid, addr, &out->start, &out->end, &out->pgoff, &out->path))
		return false;
	s = t2f_profile__str(c->p, out->path, &len);
	out->anon = ps_dso_kind(s, len) == T2F_FRAME_JIT;
	b = pdc_bid_find(c, out->path);
	out->build_id = b ? b->bid : 0;
	return true;
}

/* The module map as perf script --show-mmap-events prints it: its prot ("r-xp"; "x" or "r"
 * for MMAP) and build-id. */
static int pdc_module_map(struct t2f_perf_data_conv *c, const struct pdc_ev *e, const char *path,
			  t2f_str_id path_id)
{
	struct t2f_module_map mm = { .pid = e->pid, .input = c->o.input, .start = e->start,
				     .len = e->len, .pgoff = e->pgoff, .path = path_id };
	char prot[5], hex[41];
	int err = 0;

	if (e->type == PERF_RECORD_MMAP2) {
		prot[0] = e->prot & PROT_READ ? 'r' : '-';
		prot[1] = e->prot & PROT_WRITE ? 'w' : '-';
		prot[2] = e->prot & PROT_EXEC ? 'x' : '-';
		prot[3] = e->flags & MAP_SHARED ? 's' : 'p';
		err = t2f_profile__intern(c->p, prot, 4, &mm.prot);
	} else {
		err = t2f_profile__intern(c->p, e->misc & PERF_RECORD_MISC_MMAP_DATA ? "r" : "x", 1,
					  &mm.prot);
	}
	if (!err && e->has_bid) {
		pdc_hex(e->bid, e->bid_size < 20 ? e->bid_size : 20, hex);
		err = t2f_profile__intern(c->p, hex, 2 * (size_t)e->bid_size, &mm.build_id);
	} else if (!err) {
		err = pdc_feature_bid(c, path, path_id, &mm.build_id);
	}
	if (!err && c->o.unwind)
		err = pdc_bid_set(c, path_id, mm.build_id);
	return err ?: t2f_profile__add_module_map(c->p, &mm);
}

/* Memory perf maps to "/tmp/perf-PID.map" with absolute addresses (map__new: anonymous
 * memory, and memory without a dso, that is executable). */
bool t2f_pdc_exec(const struct pdc_ev *e)
{
	return e->type == PERF_RECORD_MMAP ? !(e->misc & PERF_RECORD_MISC_MMAP_DATA)
					   : (e->prot & PROT_EXEC) != 0;
}

static bool pdc_anon(const struct pdc_ev *e, const char *path)
{
	bool exec = t2f_pdc_exec(e);
	bool anon = strcmp(path, "//anon") == 0 || pdc_prefix(path, "/dev/zero") ||
		    pdc_prefix(path, "/anon_hugepage") || (e->type == PERF_RECORD_MMAP2 &&
							    (e->flags & MAP_HUGETLB));
	bool no_dso = pdc_prefix(path, "[stack") || pdc_prefix(path, "/SYSV") ||
		      strcmp(path, "[heap]") == 0;

	return (anon || no_dso) && exec;
}

static int pdc_mmap(struct t2f_perf_data_conv *c, const struct pdc_ev *e, const uint64_t *data)
{
	const char *path = (const char *)data;
	uint16_t mode = e->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	uint64_t pgoff = e->pgoff;
	char buf[40];
	t2f_str_id id;
	int err;

	if (mode == PERF_RECORD_MISC_KERNEL || mode == PERF_RECORD_MISC_GUEST_KERNEL) {
		err = t2f_profile__intern(c->p, path, strlen(path), &id);
		return err ?: pdc_kernel_mmap(c, e, path) ?: pdc_module_map(c, e, path, id);
	}
	/* the module map keeps the name the record gave (as perf script prints it); frames of
	 * anonymous memory are /tmp/perf-PID.map's, at the ip itself (identity) */
	err = t2f_profile__intern(c->p, path, strlen(path), &id) ?:
	      pdc_module_map(c, e, path, id);
	if (!err && pdc_anon(e, path)) {
		snprintf(buf, sizeof(buf), "/tmp/perf-%d.map", e->pid);
		err = t2f_profile__intern(c->p, buf, strlen(buf), &id);
		pgoff = e->start;
	}
	/* data mappings hold no code: left out of the lookups (as the text reader does) */
	if (!err && t2f_pdc_exec(e))
		err = ps_maps__add(c->maps, e->pid, e->start, e->len, pgoff, id);
	if (!err && e->tid != e->pid)
		err = ps_maps__set_pid(c->maps, e->tid, e->pid);
	return err;
}

/* ---- frames ---- */

/* A kernel ip: its module, the kernel, or none. */
static t2f_str_id pdc_kernel_dso(const struct t2f_perf_data_conv *c, uint64_t ip)
{
	for (uint32_t i = 0; i < c->n_kmaps; i++)
		if (ip >= c->kmaps[i].start && ip < c->kmaps[i].end)
			return c->kmaps[i].name;
	return ip >= c->kstart && ip < c->kend ? c->s_kernel : 0;
}

/* What frames of module `module` are (its kind, whether they keep their address, their class
 * source), found once per module: 0 and *out, or an error (class_of's). */
static int pdc_mod_of(struct t2f_perf_data_conv *c, t2f_str_id module, struct pdc_mod **out)
{
	struct pdc_mod *m;
	const char *dso;
	size_t len;
	int err = 0;

	if (module >= c->n_mods) {
		size_t cap = c->cap_mods;

		if (t2f_grow((void **)&c->mods, &cap, c->n_mods, module + 1 - c->n_mods,
			     sizeof(*c->mods), 256, UINT32_MAX))
			return -ENOMEM;
		memset(c->mods + c->n_mods, 0, (module + 1 - c->n_mods) * sizeof(*c->mods));
		c->cap_mods = cap;
		c->n_mods = module + 1;
	}
	m = &c->mods[module];
	if (!m->known) {
		dso = t2f_profile__str(c->p, module, &len);
		m->kind = (uint8_t)ps_dso_kind(dso, len); /* as the perf script reader's */
		m->has_addr = !c->o.addr_wanted ||
			      c->o.addr_wanted(c->o.addr_ctx, (enum t2f_frame_kind)m->kind, dso, len);
		m->known = true;
		if (m->has_addr && m->kind == T2F_FRAME_USER && c->o.class_of)
			err = c->o.class_of(c->o.class_ctx, module, dso, len, &m->cls);
	}
	*out = m;
	return err;
}

/* The frame of ip in cpumode `mode` of process pid (uncached). Frames that keep no address
 * are one per module (and unwound or not): made once, their reference given again. */
static int pdc_new_frame(struct t2f_perf_data_conv *c, uint8_t mode, bool unwound, int64_t pid,
			 uint64_t ip, uint32_t *out)
{
	struct t2f_frame f = { .addr = ip, .space = T2F_SPACE_FILE_OFF, .unwound = unwound };
	struct pdc_mod *m;
	int err;

	if (mode == PERF_RECORD_MISC_KERNEL)
		f.module = pdc_kernel_dso(c, ip);
	else if (mode == PERF_RECORD_MISC_USER && !ps_maps__find(c->maps, pid, ip, &f.module,
								  &f.addr))
		f.module = 0;
	if (!f.module) {
		f.module = c->s_unknown;
		f.addr = ip;
	}
	err = pdc_mod_of(c, f.module, &m);
	if (err)
		return err;
	f.kind = (enum t2f_frame_kind)m->kind;
	if (f.kind == T2F_FRAME_KERNEL)
		c->st.kernel_frames++;
	f.has_addr = m->has_addr;
	if (f.has_addr)
		return t2f_pdc_stacks__frame(c->stk, &f, unwound ? NULL : m->cls, out);
	if (m->ref[unwound]) {
		*out = m->ref[unwound];
		return 0;
	}
	f.addr = 0;
	err = t2f_pdc_stacks__frame(c->stk, &f, NULL, out);
	if (!err)
		m->ref[unwound] = *out;
	return err;
}

static bool pdc_frame_eq(const void *ctx, uint32_t v)
{
	const struct pdc_probe *q = ctx;
	const struct pdc_frame *a = &q->c->frames[v - 1], *b = q->key;

	return a->ip == b->ip && a->pid == b->pid && a->gen == b->gen && a->mode == b->mode &&
	       a->unwound == b->unwound;
}

/* The frame of ip in mode (unwound: found by the unwinder). Recent ones are found in the
 * direct-mapped front; other kernel ones in the table behind it (which counts them); other user
 * ones are made again, as cheap as a lookup in a table of every process's ips would be (most
 * of which would never be asked for again): the profile gives the same frame again its id. */
static int pdc_frame(struct t2f_perf_data_conv *c, uint8_t mode, bool unwound, int64_t pid,
		     uint32_t gen, uint64_t ip, uint32_t *out)
{
	struct pdc_frame k = { ip, mode == PERF_RECORD_MISC_USER ? pid : PDC_KERNEL_PID,
			       mode == PERF_RECORD_MISC_USER ? gen : c->kgen, mode, unwound, 0 };
	struct pdc_probe q = { c, &k };
	uint64_t h = t2f_hash_u64(ip ^ ((uint64_t)k.pid << 20) ^ ((uint64_t)k.gen << 44) ^
				  ((uint64_t)mode << 61) ^ ((uint64_t)unwound << 60));
	struct pdc_frame *l1 = &c->l1[h >> (64 - PDC_L1_BITS)];
	uint32_t v;
	int err;

	if (l1->frame && l1->ip == ip && l1->pid == k.pid && l1->gen == k.gen && l1->mode == mode &&
	    l1->unwound == unwound) {
		*out = l1->frame;
		return 0;
	}
	if (mode == PERF_RECORD_MISC_USER) {
		err = pdc_new_frame(c, mode, unwound, pid, ip, &k.frame);
		if (!err)
			*l1 = k;
		*out = k.frame;
		return err;
	}
	v = t2f_hashmap__find(c->frame_ix, h, pdc_frame_eq, &q);
	if (v) {
		*l1 = c->frames[v - 1];
		*out = l1->frame;
		return 0;
	}
	err = pdc_new_frame(c, mode, unwound, pid, ip, &k.frame) ?:
	      t2f_grow32((void **)&c->frames, &c->cap_frames, c->n_frames, sizeof(*c->frames), 64);
	if (err)
		return err;
	c->frames[c->n_frames] = k;
	err = t2f_hashmap__insert(c->frame_ix, h, c->n_frames + 1);
	if (err)
		return err;
	c->n_frames++;
	*l1 = k;
	*out = k.frame;
	return 0;
}

/* The sample's call chain as perf script prints it, into c->stack (leaf first). */
static int pdc_chain(struct t2f_perf_data_conv *c, const struct pdc_ev *e, const uint64_t *chain,
		     uint32_t gen)
{
	uint8_t mode = PERF_RECORD_MISC_USER;
	int err = 0;

	c->n_stack = 0;
	for (uint64_t i = 0; i < e->n && c->n_stack < PDC_MAX_STACK && !err; i++) {
		uint64_t ip = chain[i];

		if (ip >= PERF_CONTEXT_MAX) {
			if (ip == PERF_CONTEXT_KERNEL)
				mode = PERF_RECORD_MISC_KERNEL;
			else if (ip == PERF_CONTEXT_USER)
				mode = PERF_RECORD_MISC_USER;
			else if (ip == PERF_CONTEXT_HV)
				mode = PERF_RECORD_MISC_HYPERVISOR;
			else {
				c->n_stack = 0; /* perf discards a chain with an unknown context */
				return 0;
			}
			continue;
		}
		err = pdc_frame(c, mode, false, e->pid, gen, ip, &c->stack[c->n_stack]);
		c->n_stack += !err;
	}
	return err;
}

/* The user frames the unwinder found for a dwarf sample (its batch slot), after the chain's. */
static int pdc_unwound(struct t2f_perf_data_conv *c, const struct pdc_ev *e, uint32_t gen)
{
	const struct t2f_perf_unwind_sample *s = &c->batch[e->slot];
	int err = 0;

	for (size_t i = 0; i < s->n && i < PDC_MAX_STACK && !err; i++) {
		err = pdc_frame(c, PERF_RECORD_MISC_USER, true, e->pid, gen, s->ips[i],
				&c->stack[c->n_stack]);
		c->n_stack += !err;
	}
	return err;
}

/* Whether the filter keeps sample e; a sample left out is counted (*err: 0, or an error
 * naming its comm). A sched_switch of a thread kept but outside the --time ranges is kept for
 * its switches alone (*switch_only; formats/derive.h, t2f_derive__clip), counted as left out. */
static bool pdc_keep(struct t2f_perf_data_conv *c, const struct pdc_ev *e, bool *switch_only,
		     int *err)
{
	const struct t2f_sample_filter *f = c->o.filter;
	t2f_str_id comm = 0;
	const char *name = NULL;
	size_t len = 0;

	*err = 0;
	*switch_only = false;
	if (t2f_sample_filter__keep_time(f, e->time) || (e->flags & PDC_SWITCH)) {
		if (t2f_sample_filter__wants_comm(f)) {
			*err = pdc_comm_of(c, e->tid, &comm);
			if (*err)
				return false;
			name = t2f_profile__str(c->p, comm, &len);
		}
		if (t2f_sample_filter__keep_thread(f, e->pid, e->tid, name, len))
			*switch_only = !t2f_sample_filter__keep_time(f, e->time);
		else
			goto drop;
		if (!*switch_only)
			return true;
	}
drop:
	t2f_profile__count_drop(c->p, T2F_DROP_FILTERED);
	return *switch_only;
}

/* A sched_switch sample, to the derive stage: next_pid switches in; prev_pid, whose wait it is
 * (the sample's own thread, unless perf could not tell that: tid -1), goes off CPU. */
static int pdc_switch(struct t2f_perf_data_conv *c, const struct pdc_ev *e, t2f_thread_id thread)
{
	int err = 0;

	if (e->tid != e->ppid && e->ppid > 0)
		err = pdc_thread(c, T2F_PID_UNKNOWN, e->ppid, &thread);
	return err ?: t2f_pdc_stacks__switch_in(c->stk, e->ptid, e->time) ?:
	       t2f_pdc_stacks__switch_out(c->stk, e->ppid, thread, e->flags & ~PDC_SWITCH);
}

static int pdc_sample(struct t2f_perf_data_conv *c, const struct pdc_ev *e, const uint64_t *data)
{
	const struct pdc_attr *a = &c->attrs[e->attr];
	uint32_t gen = ps_maps__generation(c->maps, e->pid);
	t2f_thread_id thread;
	bool switch_only = false;
	int err;

	t2f_profile__count_read(c->p);
	c->st.samples++;
	c->st.dwarf += a->dwarf;
	if (c->o.filter && !pdc_keep(c, e, &switch_only, &err))
		return err;
	c->n_stack = 0;
	err = e->has_chain ? pdc_chain(c, e, data, gen) : 0;
	if (!err && e->abi)
		err = pdc_unwound(c, e, gen);
	/* no call chain: the ip alone (perf script's one-line sample); a DWARF sample's chain
	 * may hold nothing (its user part is in the stack copy): the ip then too */
	if (!err && c->n_stack == 0 && (!e->has_chain || a->dwarf))
		err = pdc_frame(c, (uint8_t)(e->misc & PERF_RECORD_MISC_CPUMODE_MASK), false, e->pid,
				gen, e->ip, &c->stack[c->n_stack++]);
	if (err)
		return err;
	/* an empty chain still counts, as the thread alone (perf report counts it too) */
	if (!c->attrs[e->attr].event) {
		err = pdc_event_of(c, t2f_perf_data__attr(c->pd, e->attr),
				   &c->attrs[e->attr].event);
		if (err)
			return err;
	}
	err = pdc_thread(c, e->pid, e->tid, &thread);
	if (!err && (e->flags & PDC_SWITCH)) /* the derive stage's (pdc_ev's PDC_SWITCH) */
		err = pdc_switch(c, e, thread);
	return err ?: t2f_pdc_stacks__add(c->stk, thread, switch_only ? 0 : a->event,
					  a->period ? e->period : 1, e->time, c->stack, c->n_stack);
}

/* ---- records in time order ---- */

static int pdc_comm(struct t2f_perf_data_conv *c, const struct pdc_ev *e, const uint64_t *data)
{
	const char *s = (const char *)data;
	t2f_str_id id;

	return t2f_profile__intern(c->p, s, e->n, &id) ?: pdc_set_comm(c, e->tid, id);
}

/* A new thread takes its parent's comm; a new process also a copy of its parent's mappings
 * (perf's thread__fork), unless perf record wrote the record for a process running when it
 * started (PERF_RECORD_MISC_FORK_EXEC): that process's own mappings follow it, and its parent's
 * may differ from them (as perf, which then copies none). */
static int pdc_fork(struct t2f_perf_data_conv *c, const struct pdc_ev *e)
{
	const struct pdc_comm *parent = pdc_comm_find(c, e->ptid);
	int err = 0;

	if (e->pid != e->tid && e->pid > 0)
		err = ps_maps__set_pid(c->maps, e->tid, e->pid);
	else if (e->pid != e->ppid && e->ppid >= 0 && !(e->misc & PERF_RECORD_MISC_FORK_EXEC))
		err = ps_maps__fork(c->maps, e->ppid, e->pid);
	if (!err && parent)
		err = pdc_set_comm(c, e->tid, parent->comm);
	return err;
}

int t2f_pdc_process(struct t2f_perf_data_conv *c, const struct pdc_ev *e, const uint64_t *data)
{
	switch (e->type) {
	case PERF_RECORD_SAMPLE:
		return pdc_sample(c, e, data);
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		return pdc_mmap(c, e, data);
	case PERF_RECORD_COMM:
		return pdc_comm(c, e, data);
	case PERF_RECORD_FORK:
		return pdc_fork(c, e);
	case PERF_RECORD_EXIT: /* a process's end: the memory of its mappings' index */
		if (e->pid == e->tid)
			ps_maps__exit(c->maps, e->pid);
		return 0;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE: /* queued with a derive stage only */
		return e->misc & PERF_RECORD_MISC_SWITCH_OUT ? 0 :
		       t2f_pdc_stacks__switch_in(c->stk, e->tid, e->time);
	default:
		return 0;
	}
}

