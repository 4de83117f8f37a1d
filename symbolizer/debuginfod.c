/* symbolizer/debuginfod.c: libdebuginfod behind a counted fetch.
 *
 * libdebuginfod is opened with dlopen when a server is named, as libdw itself does: the
 * library and the program need it only where it is used (it has no static archive, and a
 * static link of trace2flame must not need it). */
#include "symbolizer/debuginfod.h"

#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct t2f_debuginfod {
	void *lib;                 /* dlopen'ed libdebuginfod.so.1 */
	debuginfod_client *(*begin)(void);
	int (*find_debuginfo)(debuginfod_client *, const unsigned char *, int, char **);
	void (*end)(debuginfod_client *);
	void (*set_progressfn)(debuginfod_client *, debuginfod_progressfn_t);
	debuginfod_client *client;
	struct t2f_debuginfod_stats stats;
	t2f_fetch_progress_fn progress;
	void *progress_ctx;
	char what[12 + 2 * 64 + 1];  /* "debuginfod:" and the build-id being fetched */
	bool reported;               /* this fetch was reported (progress set) */
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
	/* optional: progress */
	*(void **)&c->set_progressfn = dlsym(c->lib, "debuginfod_set_progressfn");
	return c->begin && c->find_debuginfo && c->end ? 0 : -ENOSYS;
}

/* The handle fetching on this thread: libdebuginfod calls the progress function on the
 * thread that asked, during the call. */
static _Thread_local struct t2f_debuginfod *t2f_fetching;

/* libdebuginfod's progress function: a received so far, b expected (0 or less: unknown). */
static int t2f_debuginfod_progress(debuginfod_client *client, long a, long b)
{
	struct t2f_debuginfod *c = t2f_fetching;

	(void)client;
	if (c && c->progress && a >= 0) {
		c->progress(c->progress_ctx, c->what, (uint64_t)a, b > 0 ? (uint64_t)b : 0, false);
	}
	return 0; /* go on */
}

int t2f_debuginfod__new(t2f_fetch_progress_fn progress, void *ctx, struct t2f_debuginfod **out)
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
	if (err) {
		t2f_debuginfod__free(c);
		return err;
	}
	c->progress = progress;
	c->progress_ctx = ctx;
	if (progress && c->set_progressfn)
		c->set_progressfn(c->client, t2f_debuginfod_progress);
	*out = c;
	return 0;
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
	memcpy(c->what, "debuginfod:", 11);
	for (size_t i = 0; i < len; i++)
		snprintf(c->what + 11 + 2 * i, 3, "%02x", id[i]);
	/* said at once: the wait for a server's answer is often the longest part */
	c->reported = c->progress != NULL;
	if (c->progress)
		c->progress(c->progress_ctx, c->what, 0, 0, false);
	t2f_fetching = c;
	fd = c->find_debuginfo(c->client, id, (int)len, path);
	t2f_fetching = NULL;
	if (c->reported)
		c->progress(c->progress_ctx, c->what, 0, 0, true);
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
