/* symbolizer/debuginfod.c: libdebuginfod behind a counted fetch.
 *
 * libdebuginfod is opened with dlopen when a server is named, as libdw itself does: the
 * library and the program need it only where it is used (it has no static archive, and a
 * static link of trace2flame must not need it). */
#include "symbolizer/debuginfod.h"

#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct t2f_debuginfod {
	void *lib;                 /* dlopen'ed libdebuginfod.so.1 */
	debuginfod_client *(*begin)(void);
	int (*find_debuginfo)(debuginfod_client *, const unsigned char *, int, char **);
	void (*end)(debuginfod_client *);
	debuginfod_client *client;
	struct t2f_debuginfod_stats stats;
};

/* The library and its functions: 0, or -ENOSYS when it is not installed. */
static int t2f_debuginfod_load(struct t2f_debuginfod *c)
{
	c->lib = dlopen("libdebuginfod.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!c->lib)
		return -ENOSYS;
	*(void **)&c->begin = dlsym(c->lib, "debuginfod_begin");
	*(void **)&c->find_debuginfo = dlsym(c->lib, "debuginfod_find_debuginfo");
	*(void **)&c->end = dlsym(c->lib, "debuginfod_end");
	return c->begin && c->find_debuginfo && c->end ? 0 : -ENOSYS;
}

int t2f_debuginfod__new(struct t2f_debuginfod **out)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	struct t2f_debuginfod *c;
	int err;

	*out = NULL;
	if (!urls || !urls[strspn(urls, " \t")])
		return 0;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	err = t2f_debuginfod_load(c);
	c->client = err ? NULL : c->begin();
	if (!err && !c->client)
		err = -ENOMEM;
	if (err)
		t2f_debuginfod__free(c);
	else
		*out = c;
	return err;
}

void t2f_debuginfod__free(struct t2f_debuginfod *c)
{
	if (!c)
		return;
	if (c->client)
		c->end(c->client);
	/* The library stays loaded: libcurl's global state, set up when it loads, would become
	 * unreachable (and be reported as leaked) were it unloaded; a later client reuses it. */
	free(c);
}

int t2f_debuginfod__fetch(struct t2f_debuginfod *c, const uint8_t *id, size_t len, char **path)
{
	int fd;

	*path = NULL;
	if (!len || len > 64)
		return -EINVAL;
	fd = c->find_debuginfo(c->client, id, (int)len, path);
	if (fd >= 0) {
		close(fd);
		c->stats.fetched++;
		return *path ? 0 : -ENOMEM;
	}
	if (fd == -ENOENT) {
		c->stats.missing++;
	} else {
		c->stats.failed++;
		c->stats.err = fd;
	}
	return fd;
}

const struct t2f_debuginfod_stats *t2f_debuginfod__stats(const struct t2f_debuginfod *c)
{
	return &c->stats;
}
