/* tests/unit/support/symcache_file.h: a symbol cache file written for the symcache tests
 * (test_symcache_new, test_symcache_ahead), through the writer a run uses
 * (symbolizer/symcache.h). */
#ifndef T2F_TEST_SUPPORT_SYMCACHE_FILE_H
#define T2F_TEST_SUPPORT_SYMCACHE_FILE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "symbolizer/symcache.h"

/* The identity of build-id id[0..len) for module tmp/module (its path into mod, PATH_MAX),
 * perf's symbol rules. */
struct t2f_symcache_ident fx_symcache_ident(const uint8_t *id, size_t len, char *mod);

/* Writes answers s[0..n) as the cache file of build-id id[0..len) in directory tmp/dir (made
 * when absent; tmp/module made as the module), failing the test when it cannot: the directory
 * opened (the caller's: t2f_symcache_dir__free). */
struct t2f_symcache_dir *fx_symcache_write(const char *dir, const uint8_t *id, size_t len,
					   const struct t2f_symcache_sym *s, size_t n);

#endif
