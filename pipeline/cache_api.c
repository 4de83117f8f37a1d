/* pipeline/cache_api.c: the public t2f_cache_* (include/trace2flame.h) on the symbol cache of
 * symbolizer/symcache.h. */
#include <errno.h>
#include <stdlib.h>

#include "include/trace2flame.h"
#include "symbolizer/symcache.h"

char *t2f_cache_dir(void)
{
	return t2f_symcache_default_dir();
}

/* dir opened as a run would use it, without making it: 0, -ENOENT, -EPERM or -ENOMEM. */
static int cache_open(const char *dir, struct t2f_symcache_dir **d)
{
	const char *why;
	int err = t2f_symcache_dir__open(dir, 0, false, d, &why);

	return err ? err : *d ? 0 : -EPERM;
}

int t2f_cache_each(const char *dir,
		   int (*fn)(void *ctx, const char *build_id, const char *module, uint64_t bytes,
			     int64_t last_use, const char *problem),
		   void *ctx)
{
	struct t2f_symcache_dir *d;
	int err = fn ? cache_open(dir, &d) : -EINVAL;

	if (err)
		return err;
	err = t2f_symcache_dir__each(d, fn, ctx);
	t2f_symcache_dir__free(d);
	return err;
}

int t2f_cache_clear(const char *dir, uint64_t *removed)
{
	struct t2f_symcache_dir *d;
	uint64_t n = 0;
	int err = cache_open(dir, &d);

	if (!err) {
		err = t2f_symcache_dir__clear(d, &n);
		t2f_symcache_dir__free(d);
	}
	if (removed)
		*removed = n;
	return err;
}
