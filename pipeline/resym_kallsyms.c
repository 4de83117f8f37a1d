/* pipeline/resym_kallsyms.c: the kallsyms file the resolve stage names kernel frames from:
 * which one a recording takes, and its table, kept by the symbol cache, the process's, or read
 * (resym_kallsyms.h, resymbolize.h). */
#include "pipeline/resym_kallsyms.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pipeline/resymbolize.h"
#include "symbolizer/kallsyms_copy.h"
#include "symbolizer/symcache.h"
#include "symbolizer/text_syms_cache.h"
#include "symbolizer/text_syms_share.h"

struct t2f_resym_ks {
	const struct t2f_resym_opts *o;
	struct t2f_diag *d;
	struct t2f_symcache_dir *dir;    /* the symbol cache's, or NULL: kallsyms tables not kept */
	bool keep;                       /* keep the table read (not when the kept one holds) */
};

/* The kallsyms file o names, from its load under way when there is one (and it went well);
 * kept in the symbol cache for later runs (symbolizer/text_syms_cache.h). */
static int t2f_resym_kallsyms_read(void *ctx, const char *path, struct t2f_text_syms **out)
{
	struct t2f_resym_ks *ks = ctx;
	const struct t2f_resym_opts *o = ks->o;
	struct t2f_text_syms_key key = { .keep = false };
	bool kept = false;
	int err = 0;

	if (!t2f_prefetch__is(o->kallsyms_read, path) ||
	    t2f_prefetch__take(o->kallsyms_read, out, &key, &kept) != 0) {
		if (ks->dir && ks->keep)
			t2f_text_syms__key(path, &key);
		err = t2f_kallsyms__load(path, ks->keep, ks->d, out); /* not perf's copy for a
									 * file read whole */
	}
	if (!err && !kept && ks->dir && ks->keep &&
	    t2f_text_syms__cache_put(ks->dir, path, &key, *out) == 0)
		t2f_symcache_dir__evict(ks->dir);
	return err;
}

/* The table the symbol cache keeps for o's kallsyms file, or *out NULL; a file ignored there is
 * a warning (the error under --strict). */
static int t2f_resym_kallsyms_kept(struct t2f_resym_ks *ks, struct t2f_text_syms **out)
{
	struct t2f_text_syms_key key;
	const char *why = NULL;
	bool bad = false;
	int err;

	t2f_text_syms__key(ks->o->kallsyms, &key);
	err = t2f_text_syms__cache_get(ks->dir, ks->o->kallsyms, &key, out, &bad, &why);
	if (!err && bad)
		err = t2f_diag__warn(ks->d, t2f_symcache_dir__path(ks->dir), 0,
				     "a symbol cache file (kallsyms) ignored (%s): it is written again",
				     why);
	return err;
}

/* The kallsyms table: kept by the symbol cache from an earlier run (not when `whole`: a kept
 * /proc/kallsyms table is partial, and it holds: the file read is not kept again), else the
 * process's table of that file when it has one (text_syms_share.h), else read; counted. */
int t2f_resym__kallsyms(const struct t2f_resym_opts *o, struct t2f_diag *d, bool whole,
			struct t2f_text_syms **out)
{
	struct t2f_resym_ks ctx = { .o = o, .d = d, .keep = !whole };
	bool shared = false, kept;
	const char *why;
	int err = 0;

	*out = NULL;
	if (o->cache)
		err = t2f_symcache_dir__open(NULL, o->cache_max, true, &ctx.dir, &why);
	/* a load under way was started for want of a kept table (which it may have kept since); a
	 * kept one may be mapped on that thread already (none there: looked for again, warned of) */
	if (!err && ctx.dir && !whole && !t2f_text_syms__share_has(o->kallsyms) &&
	    !t2f_prefetch__is(o->kallsyms_read, o->kallsyms)) {
		if (t2f_prefetch__keeps(o->kallsyms_read, o->kallsyms))
			(void)t2f_prefetch__take(o->kallsyms_read, out, NULL, NULL);
		if (!*out)
			err = t2f_resym_kallsyms_kept(&ctx, out);
	}
	kept = !err && *out;
	if (!err && !kept)
		err = t2f_text_syms__shared(o->kallsyms, whole, t2f_resym_kallsyms_read, &ctx, out,
					    &shared);
	if (!err && o->kallsyms_counts) {
		o->kallsyms_counts[kept ? 2 : shared]++;
		/* a table read partial: perf's copy stood in */
		o->kallsyms_counts[3] += !kept && !shared && *out && t2f_text_syms__partial(*out);
	}
	t2f_symcache_dir__free(ctx.dir);
	return err;
}

bool t2f_resym__kallsyms_kept(const struct t2f_resym_opts *o)
{
	struct t2f_symcache_dir *dir = NULL;
	struct t2f_text_syms_key key;
	const char *why;
	bool has;

	if (!o->cache || !o->kallsyms ||
	    t2f_symcache_dir__open(NULL, o->cache_max, false, &dir, &why) || !dir)
		return false;
	t2f_text_syms__key(o->kallsyms, &key);
	has = t2f_text_syms__cache_has(dir, o->kallsyms, &key);
	t2f_symcache_dir__free(dir);
	return has;
}


char *t2f_resym__default_kallsyms(const char *hex, bool here, const char **why)
{
	char running[41] = "", *path;
	struct stat st;

	if (!hex && here)
		return strdup(T2F_PROC_KALLSYMS);
	if (!hex) {
		*why = "the recording has no kernel build-id, and was not made on this machine";
		return NULL;
	}
	if (t2f_kallsyms__running_id(running) && strcmp(running, hex) == 0)
		return strdup(T2F_PROC_KALLSYMS);
	path = t2f_kallsyms__perf_copy(hex, &st);
	if (path)
		return path;
	*why = "no kallsyms matching the recording's kernel build-id (the running kernel differs, "
	       "none in ~/.debug/[kernel.kallsyms]/): t2f_options.kallsyms";
	return NULL;
}

