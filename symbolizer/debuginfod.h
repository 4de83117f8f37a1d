/* symbolizer/debuginfod.h: debug files fetched from debuginfod servers (libdebuginfod).
 *
 * The servers are those of DEBUGINFOD_URLS (space-separated), the elfutils convention; unset or
 * empty means none, and nothing touches the network. A fetched file lands in libdebuginfod's
 * cache ($DEBUGINFOD_CACHE_PATH, else ~/.cache/debuginfod_client), where later runs find it
 * without the network (debug_find.h). Timeouts are libdebuginfod's (DEBUGINFOD_TIMEOUT, 90 s
 * without progress by default). The caller verifies what it gets by build-id like any
 * candidate.
 *
 * Ownership: the handle owns the libdebuginfod client. Not thread safe.
 */
#ifndef T2F_DEBUGINFOD_H
#define T2F_DEBUGINFOD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct t2f_debuginfod;

struct t2f_debuginfod_stats {
	uint64_t fetched;   /* debug files the servers had (or the cache already held) */
	uint64_t missing;   /* build-ids none of the servers knows */
	uint64_t failed;    /* fetches that failed otherwise (network, timeout): reason in err */
	int err;            /* the last failure (-errno), or 0 */
};

/* A fetch's progress: `what` is "debuginfod:" and the build-id in hex, done the bytes
 * received, total those expected (0: not known yet). Called when the fetch starts (0, 0), as
 * bytes arrive (when the library can say), and once with finished at its end; on the
 * fetching thread. */
typedef void (*t2f_fetch_progress_fn)(void *ctx, const char *what, uint64_t done,
				      uint64_t total, bool finished);

/* A client when DEBUGINFOD_URLS names a server: 0 and *out; 0 and *out NULL when it names none;
 * -ENOSYS when libdebuginfod.so.1 is not installed; -ENOMEM. progress (may be NULL) is told
 * how each fetch goes, when the library can say (libdebuginfod's progress function). */
int t2f_debuginfod__new(t2f_fetch_progress_fn progress, void *ctx, struct t2f_debuginfod **out);
void t2f_debuginfod__free(struct t2f_debuginfod *c); /* NULL is fine */

/* The debug file of build-id id[0..len): 0 and *path (malloc'd: free() it) in the cache;
 * -ENOENT when no server has it; another -errno when the fetch failed. Counted. */
int t2f_debuginfod__fetch(struct t2f_debuginfod *c, const uint8_t *id, size_t len, char **path);

const struct t2f_debuginfod_stats *t2f_debuginfod__stats(const struct t2f_debuginfod *c);

#endif
