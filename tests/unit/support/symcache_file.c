/* tests/unit/support/symcache_file.c: a symbol cache file written for the tests
 * (symcache_file.h). */
#include "support/symcache_file.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include "support/fixture_env.h"

struct t2f_symcache_ident fx_symcache_ident(const uint8_t *id, size_t len, char *mod)
{
	pathf(mod, "%s/module", tmp);
	return (struct t2f_symcache_ident){ .build_id = id, .build_id_len = len,
					    .module_path = mod, .file_path = mod,
					    .perf_rules = true };
}

struct t2f_symcache_dir *fx_symcache_write(const char *dir, const uint8_t *id, size_t len,
					   const struct t2f_symcache_sym *s, size_t n)
{
	char d_path[PATH_MAX], mod[PATH_MAX];
	struct t2f_symcache_ident ident = fx_symcache_ident(id, len, mod);
	struct t2f_symcache_new *w;
	struct t2f_symcache_dir *d;
	const char *why = NULL;
	FILE *f = fopen(mod, "a");

	assert_non_null(f);
	fclose(f);
	pathf(d_path, "%s/%s", tmp, dir);
	assert_int_equal(t2f_symcache_dir__open(d_path, 0, true, &d, &why), 0);
	assert_non_null(d);
	assert_int_equal(t2f_symcache_new__new(&w), 0);
	assert_int_equal(t2f_symcache_new__set_file(w, NULL, 0, NULL, 0, 0, T2F_SYMCACHE_DW_NONE),
			 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(t2f_symcache_new__sym(w, &s[i]), 0);
	assert_int_equal(t2f_symcache_new__write(w, d, &ident, NULL), 0);
	t2f_symcache_new__free(w);
	return d;
}
