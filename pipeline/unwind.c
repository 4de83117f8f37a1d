/* pipeline/unwind.c: the unwind stage (unwind.h). */
#include "pipeline/unwind.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/grow.h"
#include "formats/hashmap.h"
#include "pipeline/vdso.h"
#include "symbolizer/dwarf.h"
#include "symbolizer/debug_find.h"

#define UF_LOADS 16
#define US_PER_THREAD 256

struct uf_file {                /* a mapped file (path, build-id as recorded) */
	t2f_str_id path, bid;
	char *elf;              /* the local binary; NULL: none usable */
	bool own_elf;           /* a copy of this machine's vdso, removed at the end */
	uint64_t entry;         /* e_entry */
	struct t2f_elf_load loads[UF_LOADS];
	size_t n_loads;
	bool debug_searched;
	char *debug;
};

/* One thread's share: its unwinder, the files it found, its counts, the samples it unwinds. */
struct us_worker {
	struct t2f_unwind_stage *st;
	struct t2f_unwinder *u;
	struct uf_file **files;
	uint32_t n_files, cap_files;
	struct t2f_hashmap *file_ix;
	struct t2f_unwind_module_stats *mods;
	uint32_t n_mods, cap_mods;
	struct t2f_hashmap *mod_ix;
	uint64_t samples, frames, rules, stops[T2F_UNWIND_STOPS];
	/* the samples being unwound */
	const struct t2f_perf_data_conv *conv;
	struct t2f_perf_unwind_sample **todo; /* the samples it unwinds with libdwfl */
	size_t n;
	int64_t pid;
	int err;                /* -ENOMEM met inside a callback, or a stack copy's read error */
	uint64_t bad_off;       /* then the file offset of that stack copy (0: none) */
	uint8_t *stack;         /* a stack copy read again from the file (the sample kept its top) */
	size_t stack_cap;
	size_t need;            /* how much of its copy the last walk that read again read */
	pthread_t thread;
	bool thread_started;
};

struct t2f_unwind_stage {
	struct t2f_profile *p;
	struct t2f_diag *d;
	enum t2f_unwind_arch arch;
	struct t2f_debug_find_opts find;
	bool unsafe;
	int64_t trust_by;
	struct us_worker *w;
	unsigned jobs;
	bool libdwfl;
	struct t2f_perf_unwind_sample **todo; /* a batch's samples the walk left */
	size_t todo_cap;
};

/* ---- files ---- */

struct uf_probe {
	const struct us_worker *w;
	t2f_str_id path, bid;
};

static bool uf_eq(const void *ctx, uint32_t v)
{
	const struct uf_probe *q = ctx;
	const struct uf_file *f = q->w->files[v - 1];

	return f->path == q->path && f->bid == q->bid;
}

/* f's binary, when it is a regular file of build-id hex (any when hex is NULL): its path and
 * program headers into f. 0 or -ENOMEM. */
static int uf_take(struct us_worker *w, struct uf_file *f, const char *path,
		   const char *hex)
{
	uint8_t id[T2F_BUILD_ID_MAX];
	size_t len = 0;
	struct t2f_elf_module *m = NULL;
	int err;

	if (hex && !t2f_build_id_parse(hex, id, sizeof(id), &len))
		return 0;
	err = t2f_debug_find_binary(&w->st->find, path, id, len, NULL, &m);
	if (err || !m)
		return err;
	f->n_loads = t2f_elf_module__load_count(m);
	if (f->n_loads > UF_LOADS)
		f->n_loads = UF_LOADS;
	for (size_t i = 0; i < f->n_loads; i++)
		f->loads[i] = *t2f_elf_module__load_at(m, i);
	f->entry = t2f_elf_module__entry(m);
	f->elf = strdup(t2f_elf_module__path(m));
	t2f_elf_module__free(m);
	return f->elf ? 0 : -ENOMEM;
}

/* Whether a file without a build-id may be used: recorded here and not changed since. */
static bool uf_trusted(const struct us_worker *w, const char *path)
{
	struct stat sb;

	if (w->st->unsafe)
		return true;
	return w->st->trust_by && stat(path, &sb) == 0 && S_ISREG(sb.st_mode) &&
	       (int64_t)sb.st_mtime <= w->st->trust_by;
}

static int uf_vdso(struct us_worker *w, struct uf_file *f, const char *hex)
{
	char *cached = NULL;
	int err = hex ? t2f_vdso__perf_copy(hex, &cached) : 0;

	if (err)
		return err;
	if (cached)
		err = uf_take(w, f, cached, hex);
	free(cached);
	if (err || f->elf || !w->st->trust_by)
		return err;
	err = t2f_vdso__dump(&cached);
	if (err)
		return err == -ENOMEM ? err : 0;
	err = uf_take(w, f, cached, hex);
	f->own_elf = f->elf != NULL;
	if (!f->own_elf)
		unlink(cached);
	free(cached);
	return err;
}

static int uf_search(struct us_worker *w, struct uf_file *f)
{
	const char *path = t2f_profile__str(w->st->p, f->path, NULL);
	const char *hex = f->bid ? t2f_profile__str(w->st->p, f->bid, NULL) : NULL;

	if (strcmp(path, "[vdso]") == 0)
		return uf_vdso(w, f, hex);
	if (path[0] != '/' || (!hex && !uf_trusted(w, path)))
		return 0;
	return uf_take(w, f, path, hex);
}

static int uf_file_of(struct us_worker *w, t2f_str_id path, t2f_str_id bid,
		      struct uf_file **out)
{
	struct uf_probe q = { w, path, bid };
	uint64_t h = t2f_hash_u64(((uint64_t)path << 32) ^ bid);
	uint32_t v = t2f_hashmap__find(w->file_ix, h, uf_eq, &q);
	struct uf_file *f;
	int err;

	if (v) {
		*out = w->files[v - 1];
		return 0;
	}
	f = calloc(1, sizeof(*f));
	err = f ? t2f_grow32((void **)&w->files, &w->cap_files, w->n_files,
			     sizeof(*w->files), 64) : -ENOMEM;
	if (err) {
		free(f);
		return err;
	}
	f->path = path;
	f->bid = bid;
	w->files[w->n_files++] = f; /* freed with the stage */
	err = t2f_hashmap__insert(w->file_ix, h, w->n_files);
	if (err)
		return err;
	*out = f;
	return uf_search(w, f);
}

/* The load bias of a mapping of f at start (file offset pgoff) holding addr: through the PT_LOAD
 * holding addr's file offset, not pgoff's (lld starts the code segment inside the page that ends
 * the one before it, so pgoff falls in the segment before). */
static bool uf_bias(const struct uf_file *f, uint64_t start, uint64_t pgoff, uint64_t addr,
		    uint64_t *bias)
{
	uint64_t off = addr - start + pgoff;

	for (size_t i = 0; i < f->n_loads; i++) {
		const struct t2f_elf_load *l = &f->loads[i];

		if (off >= l->p_offset && off - l->p_offset < l->p_filesz) {
			*bias = start - pgoff + l->p_offset - l->p_vaddr;
			return true;
		}
	}
	return false;
}

/* ---- the unwinder's callbacks ---- */

static bool us_map(void *ctx, uint64_t addr, struct t2f_unwind_map *out)
{
	struct us_worker *w = ctx;
	struct t2f_perf_map pm;
	struct uf_file *f = NULL;
	int err;

	*out = (struct t2f_unwind_map){ 0 };
	if (!t2f_perf_data_conv__map(w->conv, w->pid, addr, &pm))
		return false;
	out->start = pm.start;
	out->end = pm.end;
	if (pm.anon)
		return true;
	err = uf_file_of(w, pm.path, pm.build_id, &f);
	if (err) {
		w->err = err;
		return true;
	}
	if (f->elf && uf_bias(f, pm.start, pm.pgoff, addr, &out->bias)) {
		out->file = f;
		out->path = f->elf;
		out->entry = f->entry;
	}
	return true;
}

static const char *us_debug_file(void *ctx, const void *file)
{
	struct us_worker *w = ctx;
	struct uf_file *f = (struct uf_file *)file;
	struct t2f_debug_result r = { 0 };
	uint8_t id[T2F_BUILD_ID_MAX];
	size_t len = 0;
	const char *hex = f->bid ? t2f_profile__str(w->st->p, f->bid, NULL) : NULL;

	if (f->debug_searched)
		return f->debug;
	f->debug_searched = true;
	if (hex && !t2f_build_id_parse(hex, id, sizeof(id), &len))
		return NULL;
	if (t2f_debug_find(&w->st->find, f->elf, len ? id : NULL, len, NULL, &r) == 0 && r.module &&
	    strcmp(t2f_elf_module__path(r.module), f->elf) != 0 &&
	    t2f_dwarf__inflated(t2f_elf_module__path(r.module)) <= T2F_UNWIND_DEBUG_INFLATE_MAX)
		f->debug = strdup(t2f_elf_module__path(r.module));
	t2f_debug_result__free(&r);
	return f->debug;
}

/* ---- counts ---- */

static bool um_eq(const void *ctx, uint32_t v)
{
	const struct uf_probe *q = ctx;

	return q->w->mods[v - 1].path == q->path;
}

static int us_count_module(struct us_worker *w, t2f_str_id path,
			   enum t2f_unwind_stop why)
{
	struct uf_probe q = { w, path, 0 };
	uint32_t v = t2f_hashmap__find(w->mod_ix, t2f_hash_u64(path), um_eq, &q);
	int err;

	if (!v) {
		err = t2f_grow32((void **)&w->mods, &w->cap_mods, w->n_mods, sizeof(*w->mods),
				 16);
		if (err)
			return err;
		w->mods[w->n_mods] = (struct t2f_unwind_module_stats){ .path = path };
		err = t2f_hashmap__insert(w->mod_ix, t2f_hash_u64(path), w->n_mods + 1);
		if (err)
			return err;
		v = ++w->n_mods;
	}
	w->mods[v - 1].stops[why]++;
	return 0;
}

static int us_count(struct us_worker *w, const struct t2f_unwind_result *r)
{
	struct t2f_perf_map pm;

	w->samples++;
	w->frames += r->n;
	w->rules += r->rules;
	w->stops[r->why]++;
	if (r->why == T2F_UNWIND_END || r->why == T2F_UNWIND_NO_REGS)
		return 0;
	if (!t2f_perf_data_conv__map(w->conv, w->pid, r->stop_pc, &pm))
		pm.path = 0;
	return us_count_module(w, pm.path, r->why);
}

/* The stack copy of s, which kept only its top: the top and the bytes after it up to len read
 * again from the file into w's buffer, which holds the first `have` bytes already (0: none).
 * NULL on an error (w->err, w->bad_off). */
static const uint8_t *us_stack(struct us_worker *w, const struct t2f_perf_unwind_sample *s,
			       size_t have, size_t len)
{
	if (s->stack_len > w->stack_cap) {
		free(w->stack);
		w->stack = malloc(s->stack_len);
		w->stack_cap = w->stack ? s->stack_len : 0;
		if (!w->stack) {
			w->err = -ENOMEM;
			return NULL;
		}
	}
	if (have < s->top_len) {
		memcpy(w->stack, s->top, s->top_len);
		have = s->top_len;
	}
	w->err = t2f_perf_data_conv__stack(w->conv, s, w->stack + have, have, len);
	if (w->err)
		w->bad_off = s->stack_off;
	return w->err ? NULL : w->stack;
}

/* s's whole stack copy where the file's bytes are mapped still, else NULL. */
static const uint8_t *us_mapped(const struct us_worker *w, const struct t2f_perf_unwind_sample *s)
{
	return s->stack ? s->stack : t2f_perf_data_conv__stack_mapped(w->conv, s);
}

/* How much of a stack copy a walk that read past `have` bytes of it is given next: four times
 * as much (a stack of a few frames fits in a few KiB of an 8 KiB copy), or as much as the last
 * walk that read again needed when that is more (a program's stacks are alike: sqlite3's took
 * the whole copy, and each of its samples read it again twice, 1.5 and 6 KiB, where a read
 * costs more than copying 8 KiB); at most the copy. */
static size_t us_more(const struct us_worker *w, const struct t2f_perf_unwind_sample *s,
		      size_t have)
{
	size_t more = have < s->stack_len / 4 ? 4 * have : s->stack_len;

	if (w->need > more)
		more = w->need;
	return more < s->stack_len ? more : s->stack_len;
}

/* s's frames into *r: walked through the decoded rules (walk) or unwound by libdwfl. A sample
 * that kept only its stack copy's top is walked over the top first, then over more of the copy
 * read again from the file (us_more), and so on: such a walk reads what the whole walk
 * reads until it reads past what it was given, where it stops (T2F_UNWIND_MEMORY), and a sample
 * it leaves to libdwfl the whole walk leaves too; more is read only for a walk that stopped
 * there, and the whole copy for libdwfl. Where a window of the file still maps the copy, the walk
 * after the top's, and libdwfl, read it there instead (us_mapped). 1 when the walk could not
 * take the sample, else 0 or an error. */
static int us_frames(struct us_worker *w, struct t2f_perf_unwind_sample *s,
		     const struct t2f_unwind_regs *regs, bool walk, struct t2f_unwind_result *r)
{
	const uint8_t *stack = s->stack ? s->stack : s->top;
	size_t have = s->stack ? s->stack_len : s->top_len;
	size_t read = 0; /* what w's buffer holds */
	int ret;

	if (!walk)
		return (stack = us_mapped(w, s) ?: us_stack(w, s, 0, s->stack_len)) ?
			       t2f_unwinder__unwind(w->u, s->pid, s->tid, regs, stack, s->stack_len,
						    s->ips, T2F_PERF_UNWIND_MAX, r) :
			       w->err;
	for (;;) {
		ret = t2f_unwinder__walk(w->u, s->pid, regs, stack, have, s->ips,
					 T2F_PERF_UNWIND_MAX, r);
		if (ret <= 0)
			return ret < 0 ? ret : 1;
		if (r->why != T2F_UNWIND_MEMORY || have == s->stack_len) {
			if (read)
				w->need = read;
			return 0;
		}
		if (!read && (stack = us_mapped(w, s)) != NULL) {
			have = s->stack_len; /* the last walk */
			continue;
		}
		have = us_more(w, s, have);
		if (!(stack = us_stack(w, s, read, have)))
			return w->err;
		read = have;
	}
}

/* One sample's frames (us_frames) and counts: 1 when the walk could not take it (nothing done),
 * else 0 or an error. */
static int us_one(struct us_worker *w, struct t2f_perf_unwind_sample *s, bool walk)
{
	struct t2f_unwind_result r = { .why = T2F_UNWIND_NO_REGS };
	struct t2f_unwind_regs regs;
	int err = 0;

	s->n = 0;
	w->pid = s->pid;
	if (t2f_unwind_regs_from_perf(w->st->arch, s->abi, s->mask, s->regs, s->nr, &regs))
		err = us_frames(w, s, &regs, walk, &r);
	if (err == 1)
		return 1;
	err = err ?: w->err ?: us_count(w, &r);
	s->n = r.n;
	return err;
}

/* The worker's share of the samples the walk left: through libdwfl's unwinder. */
static void *us_thread(void *arg)
{
	struct us_worker *w = arg;

	for (size_t i = 0; i < w->n && !w->err; i++)
		w->err = us_one(w, w->todo[i], false);
	return NULL;
}

/* The samples the walk left (st->todo[0..n)) shared by up to jobs threads, at least
 * US_PER_THREAD each (libdwfl's unwinder takes tens of microseconds a sample: 256 of them are
 * worth starting a thread). */
static int us_libdwfl(struct t2f_unwind_stage *st, const struct t2f_perf_data_conv *c, size_t n)
{
	size_t k = st->jobs, per;
	int err = 0;

	while (k > 1 && n / k < US_PER_THREAD)
		k--;
	per = k ? (n + k - 1) / k : 0;
	for (size_t i = 0; i < k; i++) {
		struct us_worker *w = &st->w[i];

		w->conv = c;
		w->todo = st->todo + i * per;
		w->n = i * per >= n ? 0 : (n - i * per < per ? n - i * per : per);
	}
	for (size_t i = 1; i < k; i++)
		st->w[i].thread_started = pthread_create(&st->w[i].thread, NULL, us_thread,
							 &st->w[i]) == 0;
	for (size_t i = 0; i < k; i++)
		if (!st->w[i].thread_started) /* the calling thread's share, or no thread */
			us_thread(&st->w[i]);
	for (size_t i = 0; i < k; i++) {
		if (st->w[i].thread_started)
			pthread_join(st->w[i].thread, NULL);
		st->w[i].thread_started = false;
		err = err ?: st->w[i].err;
	}
	return err;
}

int t2f_unwind_stage__sample(void *ctx, const struct t2f_perf_data_conv *c,
			     struct t2f_perf_unwind_sample *s, size_t n)
{
	struct t2f_unwind_stage *st = ctx;
	struct us_worker *w = &st->w[0];
	size_t left = 0;
	int err = 0;

	if (n > st->todo_cap) {
		free(st->todo);
		st->todo = malloc(n * sizeof(*st->todo));
		st->todo_cap = st->todo ? n : 0;
		if (!st->todo)
			return -ENOMEM;
	}
	w->conv = c;
	for (unsigned i = 0; i < st->jobs; i++) /* the reader cuts batches where mappings change */
		if (st->w[i].u)
			t2f_unwinder__maps_changed(st->w[i].u);
	for (size_t i = 0; i < n && !err; i++) {
		err = st->libdwfl ? 1 : us_one(w, &s[i], true);
		if (err == 1) {
			st->todo[left++] = &s[i];
			err = 0;
		}
	}
	err = err ?: us_libdwfl(st, c, left);
	for (unsigned i = 0; err && i < st->jobs; i++)
		if (st->w[i].bad_off)
			return t2f_diag__error(st->d, err, NULL, 0,
					       "the stack copy of a --call-graph dwarf sample (file "
					       "offset %" PRIu64 ") could not be read again: %s",
					       st->w[i].bad_off, t2f_strerror(err));
	return err;
}

/* ---- lifetime ---- */

static void us_worker_free(struct us_worker *w)
{
	t2f_unwinder__free(w->u);
	free(w->stack);
	for (uint32_t i = 0; i < w->n_files; i++) {
		struct uf_file *f = w->files[i];

		if (f->own_elf)
			unlink(f->elf);
		free(f->elf);
		free(f->debug);
		free(f);
	}
	free(w->files);
	t2f_hashmap__free(w->file_ix);
	free(w->mods);
	t2f_hashmap__free(w->mod_ix);
}

static int us_worker_init(struct t2f_unwind_stage *st, struct us_worker *w)
{
	struct t2f_unwind_ops ops = { us_map, us_debug_file, w };

	w->st = st;
	return t2f_hashmap__new(64, &w->file_ix) ?: t2f_hashmap__new(16, &w->mod_ix) ?:
	       t2f_unwinder__new(&ops, &w->u);
}

int t2f_unwind_stage__new(const struct t2f_unwind_stage_opts *o, struct t2f_profile *p,
			  struct t2f_diag *d, struct t2f_unwind_stage **out)
{
	struct t2f_unwind_stage *st = calloc(1, sizeof(*st));
	int err = 0;

	*out = NULL;
	if (!st)
		return -ENOMEM;
	st->p = p;
	st->d = d;
	st->arch = t2f_unwind_arch_of(o->arch);
	st->find = (struct t2f_debug_find_opts){ .debug_dirs = o->debug_dirs,
						 .symbol_dirs = o->symbol_dirs,
						 .unsafe_build_id_match = o->unsafe_build_id_match };
	st->unsafe = o->unsafe_build_id_match;
	st->trust_by = o->trust_by;
	st->jobs = o->jobs ? o->jobs : 1;
	st->libdwfl = o->libdwfl;
	st->w = calloc(st->jobs, sizeof(*st->w));
	if (!st->w)
		err = -ENOMEM;
	for (unsigned i = 0; i < st->jobs && !err; i++)
		err = us_worker_init(st, &st->w[i]);
	if (!err && st->arch == T2F_UNWIND_ARCH_NONE)
		err = t2f_diag__error(d, -T2F_ERR_UNSUPPORTED, NULL, 0,
				      "--call-graph dwarf samples "
				      "of a %s machine cannot be unwound here (x86_64 and aarch64 "
				      "only)",
				      o->arch ? o->arch : "this");
	if (err) {
		t2f_unwind_stage__free(st);
		return err;
	}
	*out = st;
	return 0;
}

void t2f_unwind_stage__free(struct t2f_unwind_stage *st)
{
	if (!st)
		return;
	for (unsigned i = 0; st->w && i < st->jobs; i++)
		us_worker_free(&st->w[i]);
	free(st->w);
	free(st->todo);
	free(st);
}

/* Adds m's counts to to's module of the same path. 0 or -ENOMEM. */
static int us_add_module(struct t2f_unwind_stats *to, const struct t2f_unwind_module_stats *m)
{
	struct t2f_unwind_module_stats *t = NULL, *grown;

	for (size_t k = 0; k < to->n_modules && !t; k++)
		if (to->modules[k].path == m->path)
			t = (struct t2f_unwind_module_stats *)&to->modules[k];
	if (!t) {
		grown = realloc((void *)to->modules, (to->n_modules + 1) * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		to->modules = grown;
		t = &grown[to->n_modules++];
		*t = (struct t2f_unwind_module_stats){ .path = m->path };
	}
	for (int k = 0; k < T2F_UNWIND_STOPS; k++)
		t->stops[k] += m->stops[k];
	return 0;
}

int t2f_unwind_stage__add_stats(const struct t2f_unwind_stage *st, struct t2f_unwind_stats *to)
{
	int err = 0;

	for (unsigned i = 0; i < st->jobs && !err; i++) {
		const struct us_worker *w = &st->w[i];

		to->samples += w->samples;
		to->frames += w->frames;
		to->rules += w->rules;
		for (int k = 0; k < T2F_UNWIND_STOPS; k++)
			to->stops[k] += w->stops[k];
		for (uint32_t k = 0; k < w->n_mods && !err; k++)
			err = us_add_module(to, &w->mods[k]);
	}
	return err;
}

void t2f_unwind_stats__free(struct t2f_unwind_stats *s)
{
	free((void *)s->modules);
	*s = (struct t2f_unwind_stats){ 0 };
}
