/* tests/unit/test_elf_module.c's counterpart for what must not work: broken ELF files (from
 * tests/elf/build-fixtures.sh, in $T2F_ELF_FIXTURES) must give -T2F_E_ELF or a warning, each
 * naming the file, and never crash; open errors name the path; each_symbol stops on the
 * callback's non-zero value; names stay valid until __free().
 *
 * A fixture that build-fixtures.sh skipped (its part listed in SKIPPED, tools missing) makes its
 * test skip; a fixture that is missing without being listed fails.
 */
#include <elf.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "formats/diag.h"
#include "support/elf_fixtures.h"
#include "symbolizer/elf_module.h"

/* --- broken files ---------------------------------------------------------------------------- */

enum outcome {
	FAILS,      /* -T2F_E_ELF, the diag's error names the file */
	TABLE,      /* opens; the broken table is skipped with a warning; .dynsym still works */
	NOTE,       /* -T2F_E_ELF, or opens without a build-id and warns; either names the file */
	LINK,       /* opens; no debuglink, with a warning; symbols still work */
	LINK_QUIET, /* opens; no debuglink (a warning is allowed); symbols still work */
	SAME,       /* a valid file (extended numbering): loads and resolves like gnu/libfx.so */
	ID,         /* opens quietly; gnu/libfx.so's build-id; symbols still work */
	ID_BARE,    /* no section headers: gnu/libfx.so's build-id and PT_LOADs, no symbols */
	NOSYMS,     /* opens; every symbol table skipped with a warning; lookups miss */
};

static const struct {
	const char *name;
	enum outcome want;
	const char *part;
} broken[] = {
	{ "empty", FAILS, "broken" },
	{ "not-elf", FAILS, "broken" },
	{ "trunc-ident", FAILS, "broken" },
	{ "trunc-ehdr", FAILS, "broken" },
	{ "trunc-phdrs", FAILS, "broken" },
	{ "trunc-half", FAILS, "broken" },
	{ "trunc-shdrs", FAILS, "broken" },
	{ "shoff-beyond", FAILS, "broken" },
	{ "phoff-beyond", FAILS, "broken" },
	{ "shnum-huge", FAILS, "broken" },
	{ "phnum-huge", FAILS, "broken" },
	{ "shstrndx-bad", FAILS, "broken" },
	{ "bad-class", FAILS, "broken" },
	{ "symtab-huge-size", TABLE, "broken" },
	{ "symtab-entsize", TABLE, "broken" },
	{ "symtab-offset", TABLE, "broken" },
	{ "symtab-link", TABLE, "broken" },
	{ "strtab-short", TABLE, "broken" },
	{ "note-namesz", NOTE, "broken" },
	{ "note-descsz", NOTE, "broken" },
	{ "note-align", NOTE, "broken" },
	{ "note-big", NOTE, "broken" },
	{ "debuglink-nonul", LINK, "broken" },
	{ "debuglink-slash", LINK, "broken" },
	{ "debuglink-dotdot", LINK, "broken" },
	{ "debuglink-dotdot-slash", LINK, "broken" },
	{ "debuglink-nocrc", LINK_QUIET, "broken" },
	{ "debugdata-garbage", TABLE, "broken-debugdata" },
	{ "debugdata-trunc", TABLE, "broken-debugdata" },
	{ "debugdata-notelf", TABLE, "broken-debugdata" },
	{ "debugdata-elftrunc", TABLE, "broken-debugdata" },
	{ "xnum-shnum", SAME, "hostile" },
	{ "xnum-all", SAME, "hostile" },
	{ "xnum-shnum-huge", FAILS, "hostile" },
	{ "xnum-shnum-zero", ID_BARE, "hostile" },
	{ "xnum-shstrndx-bad", FAILS, "hostile" },
	{ "xnum-phnum-huge", FAILS, "hostile" },
	{ "xnum-phnum-over", FAILS, "hostile" },
	{ "symtab-link-self", TABLE, "hostile" },
	{ "symtab-link-dynsym", TABLE, "hostile" },
	{ "symtab-link-zero", TABLE, "hostile" },
	{ "dynsym-link", TABLE, "hostile" },
	{ "links-cycle", NOSYMS, "hostile" },
	{ "strtab-overlap", TABLE, "hostile" },
	{ "note-over-shdrs", NOTE, "hostile" },
	{ "note-align-2p63", ID, "hostile" },
	{ "note-align-max", ID, "hostile" },
	{ "note-align-3", ID, "hostile" },
	{ "note-align-0", ID, "hostile" },
	{ "note-descsz-wrap32", NOTE, "hostile" },
	{ "note-namesz-wrap32", NOTE, "hostile" },
	{ "note-size-wrap64", NOTE, "hostile" },
	{ "note-offset-wrap64", NOTE, "hostile" },
	{ "nosect", ID_BARE, "hostile" },
	{ "nosect-palign-2p63", ID_BARE, "hostile" },
	{ "nosect-palign-max", ID_BARE, "hostile" },
	{ "nosect-palign-3", ID_BARE, "hostile" },
	{ "nosect-palign-0", ID_BARE, "hostile" },
	{ "nosect-note-wrap64", NOTE, "hostile" },
};

static int count_cb(void *ctx, const struct t2f_elf_sym *s)
{
	assert_non_null(s->name);
	assert_non_null(s->table);
	(void)strlen(s->name);
	(*(size_t *)ctx)++;
	return 0;
}

/* fx_lib_work (or its alias) from .dynsym is still found. */
static void expect_dynsym_works(struct t2f_elf_module *m, const struct expect *base, const char *rel)
{
	const struct xsym *w = xsym_named(base, "fx_lib_work");
	struct t2f_elf_sym out;
	int rc;

	assert_non_null(w);
	rc = t2f_elf_module__lookup(m, w->fixed + 1, &out);
	if (rc != 1)
		fail_msg("%s: lookup of fx_lib_work at 0x%llx: %d", rel, (unsigned long long)w->fixed + 1, rc);
	if (strcmp(out.name, "fx_lib_work") != 0 && strcmp(out.name, "fx_lib_alias") != 0)
		fail_msg("%s: lookup of fx_lib_work gave %s", rel, out.name);
	assert_int_equal(out.value, w->fixed);
}

static void expect_error_names_file(struct sink *s, int rc, const char *rel)
{
	const char *msg = t2f_diag__last_error(s->d);

	if (rc != -T2F_E_ELF)
		fail_msg("%s: open gave %d (%s), want -T2F_E_ELF", rel, rc, t2f_strerror(rc));
	if (!msg || !strstr(msg, fx_path(rel)))
		fail_msg("%s: the error does not name the file: %s", rel, msg ? msg : "(none)");
}

static void expect_warning_names_file(struct sink *s, const char *rel)
{
	if (t2f_diag__warnings(s->d) == 0)
		fail_msg("%s: no warning", rel);
	if (!strstr(sink_text(s), fx_path(rel)))
		fail_msg("%s: the warning does not name the file: %s", rel, sink_text(s));
}

static void expect_build_id(struct t2f_elf_module *m, const struct expect *base, const char *rel)
{
	size_t len = 0;
	const uint8_t *id = t2f_elf_module__build_id(m, &len);

	if (!id || len != base->build_id_len || memcmp(id, base->build_id, len) != 0)
		fail_msg("%s: build-id of %zu bytes, want gnu/libfx.so's %zu", rel, len,
			 base->build_id_len);
}

static void expect_loads(struct t2f_elf_module *m, const struct expect *base, const char *rel)
{
	if (t2f_elf_module__load_count(m) != base->n_loads)
		fail_msg("%s: %zu PT_LOADs, want %zu", rel, t2f_elf_module__load_count(m),
			 base->n_loads);
	for (size_t i = 0; i < base->n_loads; i++) {
		const struct t2f_elf_load *l = t2f_elf_module__load_at(m, i);

		if (l->p_offset != base->loads[i].p_offset || l->p_vaddr != base->loads[i].p_vaddr ||
		    l->p_filesz != base->loads[i].p_filesz || l->p_memsz != base->loads[i].p_memsz)
			fail_msg("%s: PT_LOAD %zu differs from readelf's", rel, i);
	}
}

/* Opened: nothing to name anything with, and no wrong name either. */
static void expect_no_symbols(struct t2f_elf_module *m, const struct expect *base, const char *rel)
{
	const struct xsym *w = xsym_named(base, "fx_lib_work");
	struct t2f_elf_sym out;
	size_t n = 0;
	int rc;

	rc = t2f_elf_module__each_symbol(m, count_cb, &n);
	if (rc != 0 || n != 0)
		fail_msg("%s: each_symbol gave %d and %zu symbols, want 0 and 0", rel, rc, n);
	rc = t2f_elf_module__lookup(m, w->fixed, &out);
	if (rc != 0)
		fail_msg("%s: lookup of fx_lib_work gave %d (%s), want a miss", rel, rc,
			 rc == 1 ? out.name : "-");
}

/* The outcomes that open: SAME, ID, ID_BARE, NOSYMS. */
static void check_opened(struct sink *s, struct t2f_elf_module *m, enum outcome want,
			 const struct expect *base, const char *rel)
{
	size_t n = 0;

	switch (want) {
	case SAME:
		expect_build_id(m, base, rel);
		expect_loads(m, base, rel);
		check_each_symbol(m, base, rel);
		check_lookups(m, base, rel);
		assert_int_equal(t2f_diag__warnings(s->d), 0);
		break;
	case ID:
		expect_build_id(m, base, rel);
		assert_int_equal(t2f_elf_module__each_symbol(m, count_cb, &n), 0);
		assert_int_equal(n, base->n_syms);
		expect_dynsym_works(m, base, rel);
		assert_int_equal(t2f_diag__warnings(s->d), 0);
		break;
	case ID_BARE:
		expect_build_id(m, base, rel);
		expect_loads(m, base, rel);
		expect_no_symbols(m, base, rel);
		break;
	default: /* NOSYMS */
		expect_no_symbols(m, base, rel);
		expect_warning_names_file(s, rel);
		break;
	}
}

static void test_broken(void **state)
{
	struct expect *base;
	size_t ran = 0;

	(void)state;
	need("gnu/libfx.so", "gnu");
	base = load_expect("gnu/libfx.so", NULL);
	for (size_t i = 0; i < sizeof(broken) / sizeof(broken[0]); i++) {
		char rel[128];
		struct t2f_elf_module *m = NULL;
		struct sink s;
		const char *name;
		uint32_t crc;
		size_t n = 0, len;
		int rc;

		snprintf(rel, sizeof(rel), "broken/%s", broken[i].name);
		if (!have(rel, broken[i].part))
			continue;
		ran++;
		sink_open(&s);
		rc = t2f_elf_module__open(fx_path(rel), s.d, &m);
		switch (broken[i].want) {
		case FAILS:
			expect_error_names_file(&s, rc, rel);
			assert_null(m);
			break;
		case NOTE:
			if (rc != 0) {
				expect_error_names_file(&s, rc, rel);
				assert_null(m);
				break;
			}
			len = 99;
			if (t2f_elf_module__build_id(m, &len) || len != 0)
				fail_msg("%s: a build-id of %zu bytes from a broken note", rel, len);
			expect_warning_names_file(&s, rel);
			expect_dynsym_works(m, base, rel);
			break;
		case TABLE:
			if (rc != 0)
				fail_msg("%s: open gave %d (%s: %s); a broken table should only be skipped",
					 rel, rc, t2f_strerror(rc),
					 t2f_diag__last_error(s.d) ? t2f_diag__last_error(s.d) : "-");
			rc = t2f_elf_module__each_symbol(m, count_cb, &n);
			if (rc != 0)
				fail_msg("%s: each_symbol gave %d; a broken table should only be skipped",
					 rel, rc);
			assert_true(n > 0);
			expect_warning_names_file(&s, rel);
			expect_dynsym_works(m, base, rel);
			break;
		case LINK:
		case LINK_QUIET:
			if (rc != 0)
				fail_msg("%s: open gave %d (%s)", rel, rc, t2f_strerror(rc));
			name = NULL;
			crc = 0;
			if (t2f_elf_module__debuglink(m, &name, &crc))
				fail_msg("%s: debuglink accepted: '%s'", rel, name ? name : "(null)");
			if (broken[i].want == LINK)
				expect_warning_names_file(&s, rel);
			expect_dynsym_works(m, base, rel);
			break;
		default:
			if (rc != 0)
				fail_msg("%s: open gave %d (%s: %s)", rel, rc, t2f_strerror(rc),
					 t2f_diag__last_error(s.d) ? t2f_diag__last_error(s.d) : "-");
			check_opened(&s, m, broken[i].want, base, rel);
			break;
		}
		t2f_elf_module__free(m);
		sink_close(&s);
	}
	free(base);
	if (!ran)
		skip();
}

/* --- API details ----------------------------------------------------------------------------- */

static void test_open_errors(void **state)
{
	struct t2f_elf_module *m = (struct t2f_elf_module *)&m;
	struct sink s;
	int rc;

	(void)state;
	sink_open(&s);
	rc = t2f_elf_module__open(fx_path("no/such/file"), s.d, &m);
	assert_int_equal(rc, -ENOENT);
	assert_null(m);
	assert_non_null(t2f_diag__last_error(s.d));
	assert_non_null(strstr(t2f_diag__last_error(s.d), fx_path("no/such/file")));

	m = (struct t2f_elf_module *)&m;
	rc = t2f_elf_module__open(fx_dir, s.d, &m); /* a directory */
	assert_true(rc == -EISDIR || rc == -T2F_E_ELF);
	assert_null(m);
	assert_non_null(strstr(t2f_diag__last_error(s.d), fx_dir));
	t2f_elf_module__free(NULL);
	sink_close(&s);
}

static int stop_cb(void *ctx, const struct t2f_elf_sym *s)
{
	(void)s;
	return ++*(int *)ctx == 3 ? 42 : 0;
}

/* each_symbol returns the callback's non-zero value at once. */
static void test_each_symbol_stops(void **state)
{
	struct t2f_elf_module *m;
	struct sink s;
	int calls = 0;

	(void)state;
	need("gnu/prog", "gnu");
	sink_open(&s);
	m = open_ok("gnu/prog", &s);
	assert_int_equal(t2f_elf_module__each_symbol(m, stop_cb, &calls), 42);
	assert_int_equal(calls, 3);
	t2f_elf_module__free(m);
	sink_close(&s);
}

/* Names and table names stay valid until __free(), whatever else is looked up. */
static void test_names_stay_valid(void **state)
{
	struct t2f_elf_module *m;
	struct t2f_elf_sym first, out;
	struct expect *x;
	struct sink s;

	(void)state;
	need("gnu/prog", "gnu");
	x = load_expect("gnu/prog", NULL);
	sink_open(&s);
	m = open_ok("gnu/prog", &s);
	assert_int_equal(t2f_elf_module__lookup(m, ZOO_BASE + 0x120, &first), 1);
	for (size_t i = 0; i < x->n_syms; i++)
		assert_true(t2f_elf_module__lookup(m, x->syms[i].fixed, &out) >= 0);
	assert_int_equal(t2f_elf_module__each_symbol(m, count_cb, &(size_t){ 0 }), 0);
	assert_string_equal(first.name, "_ZN4core3fmt5write17h0123456789abcdefE");
	assert_string_equal(first.table, ".symtab");
	t2f_elf_module__free(m);
	sink_close(&s);
	free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_broken),
		cmocka_unit_test(test_open_errors),
		cmocka_unit_test(test_each_symbol_stops),
		cmocka_unit_test(test_names_stay_valid),
	};

	if (elf_fixtures_init("test_elf_broken"))
		return 1;
	return cmocka_run_group_tests_name("elf_broken", tests, NULL, NULL);
}
