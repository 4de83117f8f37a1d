/* symbolizer/sym_ahead.c: files searched ahead of their first lookups, on a thread of their own
 * (t2f_symbolizer__search_ahead). A cold whole-machine run spent 8% of its CPU searching 82
 * files and indexing their symbols on the resolve stage's one thread.
 *
 * Each entry is a scratch file (the path borrowed from the symbolizer's file, which outlives
 * the thread) searched with a budget and a buffered diag of its own; the lookups take it in
 * t2f_sym__file_search, or search in place an entry the thread has not begun (it then skips
 * it). The thread runs at most T2F_SYM_AHEAD_MAX entries beyond those taken, so that the
 * symbol tables read ahead stay few (the lookups give them back a few files at a time).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "symbolizer/symbolizer_internal.h"

#define T2F_SYM_AHEAD_MAX 8 /* entries searched beyond those taken, at most */

enum ahead_state { AH_WAIT, AH_RUN, AH_DONE, AH_GONE };

struct ahead_ent {
	struct sym_file f;               /* the search's result (path borrowed) */
	struct t2f_decode_budget budget; /* what the search and the index decompressed */
	struct t2f_diag *diag;           /* the search's warnings, buffered */
	struct t2f_diag *index_diag;     /* the index build's (a lookup's in place: never replayed) */
	uint32_t file;                   /* the symbolizer's file */
	int err;                         /* the search's, else the index build's */
	enum ahead_state st;
};

struct sym_ahead {
	struct t2f_debug_find_opts find; /* the symbolizer's (no servers) */
	struct ahead_ent *ents;
	size_t n;
	size_t next;                     /* the next entry the thread looks at */
	size_t taken;                    /* entries taken, or searched in place */
	size_t running;                  /* entries being searched */
	bool stop;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t th;
};

static void ahead_search(const struct sym_ahead *a, struct ahead_ent *e)
{
	struct t2f_debug_find_opts find = a->find;
	const struct t2f_sym_search c = { &find, e->diag };

	find.budget = &e->budget;
	e->err = t2f_sym__search_in(&c, &e->f);
	if (e->err || e->f.file_miss != T2F_HIT)
		return;
	t2f_elf_module__move(e->f.files.module, e->index_diag, &e->budget);
	e->err = t2f_elf_module__index(e->f.files.module);
}

/* Whether the first entry no one has begun lies within the window (a->next moved to it). Under
 * a->mu. */
static bool ahead_waiting(struct sym_ahead *a)
{
	while (a->next < a->n && a->ents[a->next].st != AH_WAIT)
		a->next++;
	return a->next < a->n && a->next < a->taken + T2F_SYM_AHEAD_MAX;
}

/* The next entry to search, marked running, or NULL: none within the window. Under a->mu. */
static struct ahead_ent *ahead_claim(struct sym_ahead *a)
{
	struct ahead_ent *e;

	if (a->stop || !ahead_waiting(a))
		return NULL;
	e = &a->ents[a->next++];
	e->st = AH_RUN;
	a->running++;
	return e;
}

/* Searches e (claimed) with a->mu released; under a->mu again after. */
static void ahead_run(struct sym_ahead *a, struct ahead_ent *e)
{
	pthread_mutex_unlock(&a->mu);
	ahead_search(a, e);
	pthread_mutex_lock(&a->mu);
	e->st = AH_DONE;
	a->running--;
	pthread_cond_broadcast(&a->cv);
}

static void *ahead_main(void *arg)
{
	struct sym_ahead *a = arg;

	pthread_mutex_lock(&a->mu);
	while (!a->stop && a->next < a->n) {
		struct ahead_ent *e = ahead_claim(a);

		if (e)
			ahead_run(a, e);
		else if (a->next < a->n) /* the window is full: the lookups take some first */
			pthread_cond_wait(&a->cv, &a->mu);
	}
	pthread_mutex_unlock(&a->mu);
	return NULL;
}

/* Frees what the entry holds (its file and state stay). */
static void ent_drop(struct ahead_ent *e)
{
	free(e->f.loads);
	t2f_elf_module__free(e->f.binary);
	t2f_debug_result__free(&e->f.files);
	t2f_diag__free(e->diag);
	t2f_diag__free(e->index_diag);
	e->f = (struct sym_file){ .path = NULL };
	e->diag = e->index_diag = NULL;
}

/* Whether what was done ahead is what the resolve stage would see: a search and an index
 * build that never asked the run's budget for bytes (what it refuses, and its warnings' counts,
 * depend on what the files searched before took), and an index built without a word or an
 * error (in place, it is built at the file's first lookup, if any). */
static bool ent_stands(const struct ahead_ent *e)
{
	return !e->err && atomic_load(&e->budget.asks) == 0 &&
	       t2f_diag__warnings(e->index_diag) == 0;
}

bool t2f_sym__ahead_take(struct t2f_symbolizer *s, struct sym_file *f, int *err)
{
	struct sym_ahead *a = s->ahead;
	struct ahead_ent *e;
	bool done;

	*err = 0;
	if (!a || !f->ahead)
		return false;
	e = &a->ents[f->ahead - 1];
	f->ahead = 0;
	pthread_mutex_lock(&a->mu);
	while (e->st == AH_RUN) { /* searches the next ones meanwhile */
		struct ahead_ent *next = ahead_claim(a);

		if (next)
			ahead_run(a, next);
		else
			pthread_cond_wait(&a->cv, &a->mu);
	}
	done = e->st == AH_DONE;
	e->st = AH_GONE;
	a->taken++;
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
	if (!done || !ent_stands(e)) {
		ent_drop(e);
		return false;
	}
	t2f_elf_module__move(e->f.files.module, s->diag, &s->budget);
	t2f_elf_module__move(e->f.binary, s->diag, &s->budget);
	s->ahead_taken++;
	*err = t2f_diag__replay(s->diag, e->diag, 0);
	f->searched = true;
	f->file_miss = e->f.file_miss;
	f->files = e->f.files;
	f->loads = e->f.loads;
	f->table = e->f.table;
	f->binary = e->f.binary;
	e->f = (struct sym_file){ .path = NULL }; /* now f's */
	ent_drop(e);
	return true;
}

void t2f_sym__ahead_idle(struct t2f_symbolizer *s)
{
	struct sym_ahead *a = s->ahead;

	if (!a)
		return;
	pthread_mutex_lock(&a->mu);
	while (a->running || ahead_waiting(a))
		pthread_cond_wait(&a->cv, &a->mu);
	pthread_mutex_unlock(&a->mu);
}

static void ahead_free(struct sym_ahead *a)
{
	for (size_t i = 0; a->ents && i < a->n; i++)
		ent_drop(&a->ents[i]);
	free(a->ents);
	free(a);
}

void t2f_sym__ahead_free(struct t2f_symbolizer *s)
{
	struct sym_ahead *a = s->ahead;

	if (!a)
		return;
	pthread_mutex_lock(&a->mu);
	a->stop = true;
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
	pthread_join(a->th, NULL);
	pthread_mutex_destroy(&a->mu);
	pthread_cond_destroy(&a->cv);
	for (size_t i = 0; i < a->n; i++)
		s->files[a->ents[i].file].ahead = 0;
	s->ahead = NULL;
	ahead_free(a);
}

/* Whether f is searched ahead: its first search, of a recorded build-id without a cache file
 * (a cache file, good or bad, is the resolve stage's to open). */
static bool wants_ahead(const struct t2f_symbolizer *s, const struct sym_file *f)
{
	return f && !f->searched && !f->ahead && f->build_id_len &&
	       !(s->cache && t2f_symcache_dir__has(s->cache, f->build_id, f->build_id_len));
}

/* An entry for file i (its slot set). 0 or -ENOMEM. */
static int ahead_add(struct t2f_symbolizer *s, struct sym_ahead *a, uint32_t i)
{
	struct sym_file *f = &s->files[i];
	struct ahead_ent *e = &a->ents[a->n];

	if (t2f_diag__new_buffered(&e->diag) || t2f_diag__new_buffered(&e->index_diag)) {
		ent_drop(e);
		return -ENOMEM;
	}
	e->f.path = f->path;
	memcpy(e->f.build_id, f->build_id, f->build_id_len);
	e->f.build_id_len = f->build_id_len;
	t2f_decode_budget__init(&e->budget, s->budget.module_max, s->budget.run_max);
	e->file = i;
	f->ahead = (uint32_t)++a->n;
	return 0;
}

int t2f_symbolizer__search_ahead(struct t2f_symbolizer *s, const t2f_sym_module_id *mods,
				 size_t n)
{
	struct sym_ahead *a;
	int err = 0;

	if (s->ahead || s->dwarf_threads < 2 || s->find.fetch || !n)
		return 0;
	a = calloc(1, sizeof(*a));
	if (!a || !(a->ents = calloc(n, sizeof(*a->ents)))) {
		free(a);
		return -ENOMEM;
	}
	a->find = s->find;
	for (size_t i = 0; i < n && !err; i++)
		if (wants_ahead(s, t2f_sym__file_of(s, mods[i])))
			err = ahead_add(s, a, s->mods[mods[i]].file);
	if (!err && a->n && pthread_mutex_init(&a->mu, NULL) == 0) {
		if (pthread_cond_init(&a->cv, NULL) == 0) {
			if (pthread_create(&a->th, NULL, ahead_main, a) == 0) {
				s->ahead = a;
				s->ahead_listed = (uint32_t)a->n;
				return 0;
			}
			pthread_cond_destroy(&a->cv);
		}
		pthread_mutex_destroy(&a->mu);
	}
	for (size_t i = 0; i < a->n; i++)
		s->files[a->ents[i].file].ahead = 0;
	ahead_free(a);
	return err;
}
