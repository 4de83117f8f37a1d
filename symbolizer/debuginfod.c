/* symbolizer/debuginfod.c: libdebuginfod behind a counted, bounded fetch (debuginfod.h).
 *
 * libdebuginfod is opened with dlopen when a server is named, as libdw itself does: the
 * library and the program need it only where it is used (it has no static archive, and a
 * static link of trace2flame must not need it).
 *
 * What libdebuginfod 0.188 does that the bounds rely on (debuginfod-client.c): it writes the
 * download to a mkstemp file CACHE/ID/debuginfo.XXXXXX, renamed to CACHE/ID/debuginfo when the
 * transfer succeeded and unlinked otherwise; it calls the progress function once per turn of
 * its transfer loop (each turn waits at most a second for the sockets), and a nonzero return
 * ends the loop; the query then ends as "not found" (-ENOENT) and leaves an empty CACHE/ID/
 * debuginfo, its mark of a build-id no server has, which keeps it from asking again for ten
 * minutes. A fetch this file cuts is told apart by its own flag, and that mark removed.
 * libcurl reads a socket in bursts of up to 100 reads of 16 KiB between two turns, inflating
 * each read whole: the bytes written can pass the size bound by one burst before a check.
 *
 * The temp file is the descriptor of this process whose target is .../ID/debuginfo.XXXXXX: a
 * fetch of the same build-id by another handle on another thread at the same time could be
 * taken for it (its size counted, its path reported), nothing worse.
 */
#include "symbolizer/debuginfod.h"

#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/clock.h"

#define T2F_STALL_BYTES (100 * 1024) /* a fetch receiving less in the stall time is stalled */
#define T2F_NS 1000000000LL
#define T2F_SECONDS_MAX 1000000000u  /* a time bound at most (some 31 years): no overflow in ns */

enum t2f_cut {
	T2F_CUT_NONE,
	T2F_CUT_SIZE,       /* the file written passed the size bound */
	T2F_CUT_ANNOUNCED,  /* the server announced a size over the bound */
	T2F_CUT_STALL,
	T2F_CUT_BUDGET,
};

/* A bound and where it came from: a default, or the variable that set it. */
struct t2f_bound {
	uint64_t value;
	const char *var;    /* the variable that changes it (named in warnings) */
};

struct t2f_debuginfod {
	void *lib;                 /* dlopen'ed libdebuginfod.so.1 */
	debuginfod_client *(*begin)(void);
	int (*find_debuginfo)(debuginfod_client *, const unsigned char *, int, char **);
	void (*end)(debuginfod_client *);
	void (*set_progressfn)(debuginfod_client *, debuginfod_progressfn_t);
	int (*add_http_header)(debuginfod_client *, const char *); /* may be NULL */
	debuginfod_client *client;
	struct t2f_debuginfod_stats stats;
	struct t2f_debuginfod_opts o;
	struct t2f_diag *d;
	struct t2f_bound max_size;   /* bytes */
	struct t2f_bound stall;      /* seconds */
	struct t2f_bound budget;     /* seconds */
	bool size_header;            /* send X-DEBUGINFOD-MAXSIZE (libdebuginfod does not) */
	int64_t spent_ns;            /* time the fetches took so far */
	bool stopped;                /* no more fetches: one timed out or the budget is spent */
	char got[PATH_MAX];          /* the file of the last successful fetch, or "" */
	/* the fetch under way */
	char hex[2 * 64 + 1];
	char what[12 + 2 * 64 + 1];  /* "debuginfod:" and the build-id being fetched */
	int64_t deadline_ns;         /* when the budget is spent */
	int64_t mark_ns;             /* the last time T2F_STALL_BYTES more had arrived */
	uint64_t mark_bytes;
	uint64_t bytes;              /* received so far (written, when the temp file is known) */
	int tmp_fd;                  /* libdebuginfod's descriptor of its temp file, or -1 */
	char tmp_path[PATH_MAX];
	enum t2f_cut cut;
};

/* The library and its functions: 0, or -ENOSYS when it is not installed (or too old to take a
 * progress function, which the bounds need). */
static int t2f_debuginfod_load(struct t2f_debuginfod *c)
{
	c->lib = dlopen("libdebuginfod.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!c->lib)
		return -ENOSYS;
	*(void **)&c->begin = dlsym(c->lib, "debuginfod_begin");
	*(void **)&c->find_debuginfo = dlsym(c->lib, "debuginfod_find_debuginfo");
	*(void **)&c->end = dlsym(c->lib, "debuginfod_end");
	*(void **)&c->set_progressfn = dlsym(c->lib, "debuginfod_set_progressfn");
	*(void **)&c->add_http_header = dlsym(c->lib, "debuginfod_add_http_header");
	return c->begin && c->find_debuginfo && c->end && c->set_progressfn ? 0 : -ENOSYS;
}

/* A variable's value as a positive decimal number: 1 and *v; 0 when unset or empty; -1 when
 * it is something else. */
static int t2f_env_number(const char *name, uint64_t *v)
{
	const char *s = getenv(name);
	char *end;

	if (!s || !*s)
		return 0;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return s[0] >= '0' && s[0] <= '9' && !*end && !errno && *v ? 1 : -1;
}

/* Our bound from var (else def; at most max), tightened by libdebuginfod's variable lib (may
 * be NULL) when that is set to a smaller positive number (libdebuginfod reads it with atol). */
static void t2f_bound_init(struct t2f_debuginfod *c, struct t2f_bound *b, const char *var,
			   uint64_t def, uint64_t max, const char *lib, const char *unit)
{
	const char *s = lib ? getenv(lib) : NULL;
	long tight = s ? atol(s) : 0;
	uint64_t v;
	int r = t2f_env_number(var, &v);

	b->value = r > 0 ? (v < max ? v : max) : def;
	b->var = var;
	if (r < 0 && c->d)
		t2f_diag__warn(c->d, "debuginfod", 0, "%s='%s' is not a positive number of %s: "
			       "%" PRIu64 " kept", var, getenv(var), unit, def);
	if (tight > 0 && (uint64_t)tight < b->value) {
		b->value = (uint64_t)tight;
		b->var = lib;
	}
}

/* The handle fetching on this thread: libdebuginfod calls the progress function on the
 * thread that asked, during the call. */
static _Thread_local struct t2f_debuginfod *t2f_fetching;

/* Whether link is a temp file of the fetch under way: ".../HEX/debuginfo.XXXXXX". */
static bool t2f_is_temp(const struct t2f_debuginfod *c, const char *link, size_t len)
{
	size_t hl = strlen(c->hex), tail = 1 + hl + strlen("/debuginfo.") + 6;
	const char *t = len < tail ? link : link + len - tail;

	if (len < tail || t[0] != '/' || memcmp(t + 1, c->hex, hl) != 0 ||
	    memcmp(t + 1 + hl, "/debuginfo.", 11) != 0)
		return false;
	for (const char *p = t + 1 + hl + 11; p < link + len; p++)
		if (!isalnum((unsigned char)*p))
			return false;
	return true;
}

/* Looks for libdebuginfod's temp file among the descriptors, and tells the caller about it:
 * whether it was found. */
static bool t2f_find_temp(struct t2f_debuginfod *c)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *e;
	char name[64], link[PATH_MAX];
	struct stat st;

	if (!dir)
		return false;
	while (c->tmp_fd < 0 && (e = readdir(dir))) {
		char *end;
		long fd = strtol(e->d_name, &end, 10);
		ssize_t n;

		if (*end || end == e->d_name || fd == dirfd(dir) || fd > INT_MAX)
			continue;
		snprintf(name, sizeof(name), "/proc/self/fd/%ld", fd);
		n = readlink(name, link, sizeof(link) - 1);
		if (n <= 0 || !t2f_is_temp(c, link, (size_t)n) || fstat((int)fd, &st) ||
		    !S_ISREG(st.st_mode))
			continue;
		link[n] = '\0';
		memcpy(c->tmp_path, link, (size_t)n + 1);
		c->tmp_fd = (int)fd;
	}
	closedir(dir);
	if (c->tmp_fd >= 0 && c->o.temp)
		c->o.temp(c->o.temp_ctx, c->tmp_path, true);
	return c->tmp_fd >= 0;
}

/* The bounds, checked at each call: the cut they make, or T2F_CUT_NONE. */
static enum t2f_cut t2f_check(struct t2f_debuginfod *c, int64_t now, long announced)
{
	if (announced > 0 && (uint64_t)announced > c->max_size.value)
		return T2F_CUT_ANNOUNCED;
	if (c->bytes > c->max_size.value)
		return T2F_CUT_SIZE;
	if (now >= c->deadline_ns)
		return T2F_CUT_BUDGET;
	if (c->bytes >= c->mark_bytes + T2F_STALL_BYTES) {
		c->mark_ns = now;
		c->mark_bytes = c->bytes;
	} else if (now - c->mark_ns >= (int64_t)c->stall.value * T2F_NS) {
		return T2F_CUT_STALL;
	}
	return T2F_CUT_NONE;
}

/* libdebuginfod's progress function: a the bytes received once a server answers (before,
 * the turns of its loop), b the size announced (0 before an answer, -1 unknown). Nonzero
 * cancels the fetch. */
static int t2f_debuginfod_progress(debuginfod_client *client, long a, long b)
{
	struct t2f_debuginfod *c = t2f_fetching;
	struct stat st;

	(void)client;
	if (!c)
		return 0;
	if (c->cut)
		return 1;
	if (c->tmp_fd < 0 && t2f_find_temp(c)) /* the download starts: the stall counts from here */
		c->mark_ns = (int64_t)t2f_clock_ns();
	if (c->tmp_fd >= 0 && fstat(c->tmp_fd, &st) == 0 && (uint64_t)st.st_size > c->bytes)
		c->bytes = (uint64_t)st.st_size;
	if (b != 0 && a > 0 && (uint64_t)a > c->bytes)
		c->bytes = (uint64_t)a;
	c->cut = t2f_check(c, (int64_t)t2f_clock_ns(), b);
	if (c->cut == T2F_CUT_ANNOUNCED)
		c->bytes = (uint64_t)b;
	if (!c->cut && c->o.progress)
		c->o.progress(c->o.progress_ctx, c->what, c->bytes, b > 0 ? (uint64_t)b : 0, false);
	return c->cut != T2F_CUT_NONE;
}

int t2f_debuginfod__new(const struct t2f_debuginfod_opts *o, struct t2f_diag *d,
			struct t2f_debuginfod **out)
{
	const char *urls = getenv("DEBUGINFOD_URLS"), *lib_size = getenv("DEBUGINFOD_MAXSIZE");
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
	if (o)
		c->o = *o;
	c->d = d;
	t2f_bound_init(c, &c->max_size, "T2F_DEBUGINFOD_MAXSIZE", T2F_DEBUGINFOD_MAX_SIZE,
		       UINT64_MAX, "DEBUGINFOD_MAXSIZE", "bytes");
	t2f_bound_init(c, &c->stall, "T2F_DEBUGINFOD_TIMEOUT", T2F_DEBUGINFOD_STALL, T2F_SECONDS_MAX,
		       "DEBUGINFOD_TIMEOUT", "seconds");
	t2f_bound_init(c, &c->budget, "T2F_DEBUGINFOD_BUDGET", T2F_DEBUGINFOD_BUDGET_S,
		       T2F_SECONDS_MAX, NULL, "seconds");
	c->size_header = c->add_http_header && !(lib_size && atol(lib_size) > 0);
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

/* Removes path, then its directory when that is left empty. */
static void t2f_remove(const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');

	unlink(path);
	if (!slash || (size_t)(slash - path) >= sizeof(dir))
		return;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	rmdir(dir); /* fails, as it should, when something else is there */
}

/* After a cut: the empty "not found" mark libdebuginfod wrote for the cancelled query, in
 * the directory of its temp file. */
static void t2f_remove_mark(const struct t2f_debuginfod *c)
{
	char path[PATH_MAX];
	const char *dot = strrchr(c->tmp_path, '.');
	struct stat st;

	if (!dot || (size_t)(dot - c->tmp_path) >= sizeof(path))
		return;
	memcpy(path, c->tmp_path, (size_t)(dot - c->tmp_path));
	path[dot - c->tmp_path] = '\0';
	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0)
		t2f_remove(path);
}

/* Says which bound cut the fetch; for time, that no more fetches follow. */
static void t2f_warn_cut(struct t2f_debuginfod *c)
{
	const struct t2f_bound *b = c->cut == T2F_CUT_STALL ? &c->stall : &c->budget;

	if (!c->d)
		return;
	switch (c->cut) {
	case T2F_CUT_SIZE:
	case T2F_CUT_ANNOUNCED:
		t2f_diag__warn(c->d, "debuginfod", 0, "build-id %s: fetch stopped: %s %" PRIu64
			       " bytes, over the size bound of %" PRIu64 " bytes (%s)", c->hex,
			       c->cut == T2F_CUT_SIZE ? "received" : "the server announced",
			       c->bytes, c->max_size.value, c->max_size.var);
		break;
	case T2F_CUT_STALL:
	case T2F_CUT_BUDGET:
		t2f_diag__warn(c->d, "debuginfod", 0, "build-id %s: fetch stopped: %s %" PRIu64
			       " s (%s); no more fetches in this run", c->hex,
			       c->cut == T2F_CUT_STALL ? "less than 100 KiB received in"
			       : "all fetches together took their budget of", b->value, b->var);
		break;
	case T2F_CUT_NONE:
		break;
	}
}

/* The query made: libdebuginfod's result (a descriptor, or -errno), the path when it found
 * the file. The temp file is reported while it exists. */
static int t2f_query(struct t2f_debuginfod *c, const uint8_t *id, size_t len, char **path)
{
	char header[64], tail[sizeof(c->hex) + 16];
	int64_t start = (int64_t)t2f_clock_ns();
	int fd;

	c->deadline_ns = start + (int64_t)c->budget.value * T2F_NS - c->spent_ns;
	c->mark_ns = start;
	c->mark_bytes = c->bytes = 0;
	c->tmp_fd = -1;
	c->tmp_path[0] = '\0';
	c->cut = T2F_CUT_NONE;
	/* sent with this query only: the library forgets its headers after each */
	snprintf(header, sizeof(header), "X-DEBUGINFOD-MAXSIZE: %" PRIu64, c->max_size.value);
	if (c->size_header)
		c->add_http_header(c->client, header);
	if (c->o.temp) { /* the temp file is made before the first progress call finds it */
		snprintf(tail, sizeof(tail), "/%s/debuginfo.", c->hex);
		c->o.temp(c->o.temp_ctx, tail, false);
	}
	t2f_fetching = c;
	fd = c->find_debuginfo(c->client, id, (int)len, path);
	t2f_fetching = NULL;
	if (c->o.temp)
		c->o.temp(c->o.temp_ctx, NULL, false);
	c->spent_ns += (int64_t)t2f_clock_ns() - start;
	return fd;
}

/* The error of a cut fetch. */
static int t2f_cut_err(const struct t2f_debuginfod *c)
{
	return c->cut == T2F_CUT_SIZE || c->cut == T2F_CUT_ANNOUNCED ? -EFBIG : -ETIME;
}

/* A file that arrived: 0, or the cut's error when this fetch downloaded it and it is over the
 * size bound or the fetch was cut at its very end (then it is removed). A file the cache held
 * already is the caller's to verify, as the local candidates are. */
static int t2f_arrived(struct t2f_debuginfod *c, int fd, const char *path)
{
	bool downloaded = c->tmp_fd >= 0 || c->bytes > 0;
	struct stat st;

	if (downloaded && !c->cut && fstat(fd, &st) == 0 &&
	    (uint64_t)st.st_size > c->max_size.value) {
		c->cut = T2F_CUT_SIZE;
		c->bytes = (uint64_t)st.st_size;
	}
	close(fd);
	if (!c->cut) {
		c->stats.fetched++;
		snprintf(c->got, sizeof(c->got), "%s", path);
		return 0;
	}
	t2f_remove(path);
	c->stats.dropped++;
	return t2f_cut_err(c);
}

/* A failed or cut fetch: warned about and counted; fd is libdebuginfod's error, or 0 when the
 * file arrived and was removed. The error returned. */
static int t2f_failed(struct t2f_debuginfod *c, int fd)
{
	if (c->cut) {
		if (fd < 0)
			t2f_remove_mark(c);
		fd = t2f_cut_err(c);
		t2f_warn_cut(c);
		c->stats.cut++;
		c->stopped |= fd == -ETIME;
	} else if (fd == -ETIME) {
		if (c->d)
			t2f_diag__warn(c->d, "debuginfod", 0, "build-id %s: fetch timed out "
				       "(DEBUGINFOD_TIMEOUT, DEBUGINFOD_MAXTIME); no more fetches "
				       "in this run", c->hex);
		c->stopped = true;
	} else if (fd == -EFBIG && c->d) {
		t2f_diag__warn(c->d, "debuginfod", 0, "build-id %s: not fetched: the server has it "
			       "over the size bound of %" PRIu64 " bytes (%s, DEBUGINFOD_MAXSIZE)",
			       c->hex, c->max_size.value, c->max_size.var);
	}
	if (fd == -ENOENT) {
		c->stats.missing++;
	} else {
		c->stats.failed++;
		c->stats.err = fd;
	}
	return fd;
}

/* Whether a fetch may be made: not after a timeout, nor with the budget spent (said once). */
static bool t2f_may_fetch(struct t2f_debuginfod *c)
{
	if (!c->stopped && c->spent_ns >= (int64_t)c->budget.value * T2F_NS) {
		if (c->d)
			t2f_diag__warn(c->d, "debuginfod", 0, "build-id %s: not fetched: all fetches "
				       "together took their budget of %" PRIu64 " s (%s); no more "
				       "fetches in this run", c->hex, c->budget.value, c->budget.var);
		c->stopped = true;
	}
	if (c->stopped)
		c->stats.skipped++;
	return !c->stopped;
}

int t2f_debuginfod__fetch(struct t2f_debuginfod *c, const uint8_t *id, size_t len, char **path)
{
	int fd;

	*path = NULL;
	c->got[0] = '\0';
	if (!len || len > 64)
		return -EINVAL;
	for (size_t i = 0; i < len; i++)
		snprintf(c->hex + 2 * i, 3, "%02x", id[i]);
	if (!t2f_may_fetch(c))
		return -ETIME;
	snprintf(c->what, sizeof(c->what), "debuginfod:%s", c->hex);
	/* said at once: the wait for a server's answer is often the longest part */
	if (c->o.progress)
		c->o.progress(c->o.progress_ctx, c->what, 0, 0, false);
	fd = t2f_query(c, id, len, path);
	if (c->o.progress)
		c->o.progress(c->o.progress_ctx, c->what, c->bytes, 0, true);
	if (fd >= 0) {
		fd = t2f_arrived(c, fd, *path);
		if (!fd)
			return *path ? 0 : -ENOMEM;
		free(*path);
		*path = NULL;
	}
	return t2f_failed(c, fd);
}

void t2f_debuginfod__drop(struct t2f_debuginfod *c, const char *path, const char *why)
{
	if (!c->got[0] || strcmp(path, c->got) != 0)
		return;
	t2f_remove(path);
	c->got[0] = '\0';
	c->stats.dropped++;
	if (c->d)
		t2f_diag__warn(c->d, "debuginfod", 0, "build-id %s: the file fetched was refused "
			       "(%s): removed from the cache", c->hex, why);
}

const struct t2f_debuginfod_stats *t2f_debuginfod__stats(const struct t2f_debuginfod *c)
{
	return &c->stats;
}
