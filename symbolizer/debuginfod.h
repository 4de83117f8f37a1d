/* symbolizer/debuginfod.h: debug files fetched from debuginfod servers (libdebuginfod), within
 * bounds.
 *
 * The servers are those of DEBUGINFOD_URLS (space-separated), the elfutils convention; unset or
 * empty means none, and nothing touches the network. A fetched file lands in libdebuginfod's
 * cache ($DEBUGINFOD_CACHE_PATH, else ~/.cache/debuginfod_client), where later runs find it
 * without the network (debug_find.h). The caller verifies what it gets by build-id like any
 * candidate, and hands back (__drop) a file it refused, which leaves the cache.
 *
 * Bounds, since a server may be slow or hostile (a handle's bounds are set when it is made):
 *  - size: a fetch is cut once the file libdebuginfod writes holds more than
 *    T2F_DEBUGINFOD_MAXSIZE bytes (default T2F_DEBUGINFOD_MAX_SIZE, 2 GiB), or the server
 *    announces more (Content-Length; the X-DEBUGINFOD-MAXSIZE request header tells it the
 *    bound). The bytes counted are those written to the cache, after libcurl inflated a
 *    compressed answer. They are checked between libcurl's read bursts (a burst reads what the
 *    socket holds, at most 100 reads of 16 KiB), so a burst can pass the bound by what it
 *    inflates to: about 1.6 MB of a gzip bomb, 1.65 GB written (measured: a 4 GiB bomb was cut
 *    there); that file is removed all the same. A file over the bound that this fetch
 *    downloaded whole is removed too.
 *  - stall: a fetch that received less than 100 KiB in the last T2F_DEBUGINFOD_TIMEOUT seconds
 *    (default T2F_DEBUGINFOD_STALL, 30 s), answer or not, is cut.
 *  - budget: all fetches of a handle together take at most T2F_DEBUGINFOD_BUDGET seconds
 *    (default T2F_DEBUGINFOD_BUDGET_S, 300 s); the fetch under way when it is spent is cut.
 *  - after a stall, the budget spent, or libdebuginfod's own timeout (-ETIME), the handle
 *    fetches nothing more: each later fetch returns -ETIME at once (counted as skipped).
 * The T2F_DEBUGINFOD_* variables are read when the handle is made (decimal; another value is
 * warned about and the default kept). libdebuginfod's own variables are left as they are and
 * applied by it as it defines them (setenv is no thread-safe way for a library to change
 * them, and the bounds above hold whatever they say); DEBUGINFOD_MAXSIZE and
 * DEBUGINFOD_TIMEOUT, when tighter than the bounds above, become the size and stall bounds (a
 * looser value changes nothing here). Its retries (DEBUGINFOD_RETRY_LIMIT) and its own
 * timeouts (-ETIME) stay within the budget.
 * A cut fetch leaves nothing in the cache: libdebuginfod removes its temp file and the empty
 * "not found" entry it writes for a cancelled fetch is removed here. The checks run in
 * libdebuginfod's progress function, called about once a second and after each read burst;
 * they find the temp file (CACHE/ID/debuginfo.XXXXXX) among the process's descriptors in
 * /proc/self/fd. Without /proc, the size counted is what libcurl received (before inflation)
 * and the temp file is not reported.
 *
 * Each bound reached is warned about in the diag, naming the build-id, the bound and its
 * variable. Ownership: the handle owns the libdebuginfod client and borrows the diag. Not
 * thread safe: one thread at a time per handle.
 */
#ifndef T2F_DEBUGINFOD_H
#define T2F_DEBUGINFOD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/diag.h"

#define T2F_DEBUGINFOD_MAX_SIZE (2ull << 30) /* bytes one debug file may have */
#define T2F_DEBUGINFOD_STALL 30              /* seconds a fetch may go with < 100 KiB */
#define T2F_DEBUGINFOD_BUDGET_S 300          /* seconds all fetches of a handle may take */

struct t2f_debuginfod;

struct t2f_debuginfod_stats {
	uint64_t fetched;   /* debug files the servers had (or the cache already held) */
	uint64_t missing;   /* build-ids none of the servers knows */
	uint64_t failed;    /* fetches that failed otherwise (network, timeout, a bound): reason
			     * in err */
	uint64_t cut;       /* of those, fetches cut by a bound (size, stall, budget) */
	uint64_t skipped;   /* fetches not made: a fetch had timed out or the budget was spent */
	uint64_t dropped;   /* files removed from the cache: refused by the caller, or over the
			     * size bound */
	int err;            /* the last failure (-errno), or 0 */
};

/* A fetch's progress: `what` is "debuginfod:" and the build-id in hex, done the bytes
 * received, total those expected (0: not known yet). Called when the fetch starts (0, 0), as
 * bytes arrive, and once with finished at its end; on the fetching thread. */
typedef void (*t2f_fetch_progress_fn)(void *ctx, const char *what, uint64_t done,
				      uint64_t total, bool finished);

/* The temp file a fetch writes (libdebuginfod's CACHE/ID/debuginfo.XXXXXX, made and renamed by
 * libdebuginfod itself): before the query, the end of its name to come ("/ID/debuginfo.", named
 * false: the file will be one this process holds open, that end followed by six letters or
 * digits); its path once the fetch found it (named true); then NULL once the fetch is over (the
 * file renamed into place or removed). On the fetching thread. For a caller that removes it
 * should the process be killed meanwhile (pipeline/tmpguard.h). */
typedef void (*t2f_fetch_temp_fn)(void *ctx, const char *path, bool named);

struct t2f_debuginfod_opts {
	t2f_fetch_progress_fn progress; /* may be NULL */
	void *progress_ctx;
	t2f_fetch_temp_fn temp;         /* may be NULL */
	void *temp_ctx;
};

/* A client when DEBUGINFOD_URLS names a server: 0 and *out; 0 and *out NULL when it names none;
 * -ENOSYS when libdebuginfod.so.1 is not installed; -ENOMEM. o may be NULL. d (may be NULL)
 * gets the warnings: a bad T2F_DEBUGINFOD_* value, each bound reached, each file dropped. */
int t2f_debuginfod__new(const struct t2f_debuginfod_opts *o, struct t2f_diag *d,
			struct t2f_debuginfod **out);
void t2f_debuginfod__free(struct t2f_debuginfod *c); /* NULL is fine */

/* The debug file of build-id id[0..len): 0 and *path (malloc'd: free() it) in the cache;
 * -ENOENT when no server has it; -EFBIG when it is over the size bound; -ETIME when the fetch
 * was cut for time or no fetch may be made any more; another -errno when the fetch failed.
 * Counted. */
int t2f_debuginfod__fetch(struct t2f_debuginfod *c, const uint8_t *id, size_t len, char **path);

/* The file of the last successful __fetch (path as it returned it) was refused by the caller
 * for `why` (said in the warning): it is removed from the cache, and its build-id directory
 * when that is left empty, so that a later run asks the servers again. Any other path is left
 * alone. */
void t2f_debuginfod__drop(struct t2f_debuginfod *c, const char *path, const char *why);

const struct t2f_debuginfod_stats *t2f_debuginfod__stats(const struct t2f_debuginfod *c);

#endif
