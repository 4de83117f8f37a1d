/* pipeline/prefetch.c: a kallsyms table loaded on a thread of its own (prefetch.h). */
#include "pipeline/prefetch.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "formats/diag.h"
#include "symbolizer/kallsyms_copy.h"
#include "symbolizer/symcache.h"

struct t2f_prefetch {
	char *path;
	struct t2f_prefetch_keep keep;
	bool from_cache;             /* maps the table the symbol cache keeps, loads nothing */
	bool kept;                   /* the table was kept in the symbol cache */
	pthread_t th;
	bool joined;
	int err;                     /* the load's, once joined */
	struct t2f_text_syms *table;
	struct t2f_text_syms_key key; /* the file's, taken before the load */
};

/* The table into the symbol cache, as the resolve stage would put it (resym_kallsyms.c). */
static void t2f_prefetch_keep(struct t2f_prefetch *pf)
{
	struct t2f_symcache_dir *dir = NULL;
	const char *why;

	if (t2f_symcache_dir__open(NULL, pf->keep.cache_max, true, &dir, &why) || !dir)
		return;
	pf->kept = t2f_text_syms__cache_put(dir, pf->path, &pf->key, pf->table) == 0;
	if (pf->kept)
		t2f_symcache_dir__evict(dir);
	t2f_symcache_dir__free(dir);
}

/* The table the symbol cache keeps for the file, mapped and checked; none, or one ignored there,
 * is for the resolve stage to find again (and warn about). */
static void t2f_prefetch_kept(struct t2f_prefetch *pf)
{
	struct t2f_symcache_dir *dir = NULL;
	const char *why = NULL;
	bool bad = false;

	pf->err = 1;
	if (t2f_symcache_dir__open(NULL, pf->keep.cache_max, false, &dir, &why) || !dir)
		return;
	if (!t2f_text_syms__cache_get(dir, pf->path, &pf->key, &pf->table, &bad, &why) &&
	    pf->table && !bad)
		pf->err = 0;
	t2f_symcache_dir__free(dir);
}

static void *t2f_prefetch_main(void *arg)
{
	struct t2f_prefetch *pf = arg;
	struct t2f_diag *d = NULL;

	t2f_text_syms__key(pf->path, &pf->key);
	if (pf->from_cache) {
		t2f_prefetch_kept(pf);
		return NULL;
	}
	pf->err = t2f_diag__new_buffered(&d);
	if (!pf->err)
		pf->err = t2f_kallsyms__load(pf->path, true, d, &pf->table);
	if (!pf->err && t2f_text_syms__bad_lines(pf->table)) {
		t2f_text_syms__free(pf->table);
		pf->table = NULL;
		pf->err = 1;
	}
	t2f_diag__free(d);
	if (!pf->err && pf->keep.cache)
		t2f_prefetch_keep(pf);
	return NULL;
}

int t2f_prefetch__start(const char *path, const struct t2f_prefetch_keep *keep, bool from_cache,
			struct t2f_prefetch **out)
{
	struct t2f_prefetch *pf = calloc(1, sizeof(*pf));
	int err;

	if (!pf || !(pf->path = strdup(path))) {
		free(pf);
		return -ENOMEM;
	}
	if (keep)
		pf->keep = *keep;
	pf->from_cache = from_cache;
	err = pthread_create(&pf->th, NULL, t2f_prefetch_main, pf);
	if (err) {
		free(pf->path);
		free(pf);
		return -err;
	}
	*out = pf;
	return 0;
}

bool t2f_prefetch__is(const struct t2f_prefetch *pf, const char *path)
{
	return pf && !pf->joined && !pf->from_cache && strcmp(pf->path, path) == 0;
}

bool t2f_prefetch__keeps(const struct t2f_prefetch *pf, const char *path)
{
	return pf && !pf->joined && pf->from_cache && strcmp(pf->path, path) == 0;
}

static void t2f_prefetch_join(struct t2f_prefetch *pf)
{
	if (!pf->joined)
		pthread_join(pf->th, NULL);
	pf->joined = true;
}

int t2f_prefetch__take(struct t2f_prefetch *pf, struct t2f_text_syms **out,
		       struct t2f_text_syms_key *key, bool *kept)
{
	*out = NULL;
	if (pf->joined)
		return -EINVAL;
	t2f_prefetch_join(pf);
	if (pf->err)
		return 1;
	*out = pf->table;
	pf->table = NULL;
	if (key)
		*key = pf->key;
	if (kept)
		*kept = pf->kept;
	return 0;
}

void t2f_prefetch__free(struct t2f_prefetch *pf)
{
	if (!pf)
		return;
	t2f_prefetch_join(pf);
	t2f_text_syms__free(pf->table);
	free(pf->path);
	free(pf);
}
