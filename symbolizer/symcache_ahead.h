/* symbolizer/symcache_ahead.h: symbol cache files (symcache.h) opened, mapped and checked on a
 * thread of their own while a recording is read, for the build-ids it lists, so that the resolve
 * stage finds them ready: t2f_symcache__open takes the file of a build-id from here
 * (t2f_symcache_dir__ahead) instead of opening it then, and counts, checks the identity and
 * warns as it would have. A warm whole-machine run spent 1.7% of its CPU mapping and checking
 * its 82 cache files on the resolve stage's path.
 *
 * The directory is the one t2f_symcache_dir__open(dir, 0, false) gives (never made here); one
 * the resolve stage opens elsewhere (another identity) takes nothing from here. Each build-id's
 * file is taken at most once; what is not taken is closed and unmapped by __free.
 *
 * Ownership: the ids are copied. Errors: -ENOMEM, or pthread_create's (negated). Messages: none
 * (the taker says what it would say). One thread starts, hands to one taker, and frees.
 */
#ifndef T2F_SYMCACHE_AHEAD_H
#define T2F_SYMCACHE_AHEAD_H

#include <stddef.h>
#include <stdint.h>

#include "symbolizer/symcache.h"

/* Starts opening the cache files of the n build-ids ids[i][0..lens[i]) (lengths 1 to
 * T2F_BUILD_ID_MAX; others skipped) in directory dir (NULL: the default). 0 and *out (NULL when
 * there is no build-id to open). */
int t2f_symcache_ahead__start(const char *dir, const uint8_t *const *ids, const size_t *lens,
			      size_t n, struct t2f_symcache_ahead **out);
/* Waits for the thread, closes and unmaps what was not taken. NULL is fine. */
void t2f_symcache_ahead__free(struct t2f_symcache_ahead *a);

#endif
