/* tests/unit/test_elf_module.c's counterpart for what must not work: broken ELF files (from
 * tests/elf/build-fixtures.sh, in $T2F_ELF_FIXTURES) must give -T2F_ERR_ELF or a warning, each
 * naming the file, and never crash; open errors name the path; each_symbol stops on the
 * callback's non-zero value; names stay valid until __free(). Truncations at every section and
 * segment boundary (+-1 byte) are cut here from the fixtures' bytes, in a temp directory.
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
#include <unistd.h>

#include <cmocka.h>

#include "formats/diag.h"
#include "support/elf_fixtures.h"
#include "symbolizer/elf_module.h"

/* --- broken files ---------------------------------------------------------------------------- */

enum outcome {
	FAILS,      /* -T2F_ERR_ELF, the diag's error names the file */
	TABLE,      /* opens; the broken table is skipped with a warning; .dynsym still works */
	NOTE,       /* -T2F_ERR_ELF, or opens without a build-id and warns; either names the file */
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

	if (rc != -T2F_ERR_ELF)
		fail_msg("%s: open gave %d (%s), want -T2F_ERR_ELF", rel, rc, t2f_strerror(rc));
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

/* The header and build-id alone (the cache key's read) of a broken file: refused, or the id
 * the whole open gives (rc, m: its outcome). Never a crash. */
static void expect_open_id_as_open(const char *rel, int rc, const struct t2f_elf_module *m)
{
	struct t2f_elf_module *k = NULL;
	const uint8_t *a, *b;
	size_t la = 0, lb = 0;

	if (t2f_elf_module__open_id(fx_path(rel), &k) != 0) {
		assert_null(k);
		return;
	}
	b = t2f_elf_module__build_id(k, &lb);
	a = rc == 0 ? t2f_elf_module__build_id(m, &la) : NULL;
	if (rc == 0 && (la != lb || (la && memcmp(a, b, la) != 0)))
		fail_msg("%s: open_id read a build-id of %zu bytes, open %zu", rel, lb, la);
	t2f_elf_module__free(k);
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
		expect_open_id_as_open(rel, rc, m);
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

/* --- truncation at every boundary ------------------------------------------------------------ */

/* A whole file's bytes and what the module answers for it: the reference for its cuts. */
struct whole {
	const char *rel;
	unsigned char *b;
	size_t size;
	struct t2f_elf_module *m;
	struct rows rows;          /* each_symbol of the whole file, sorted */
	const uint8_t *id;
	size_t id_len;
};

struct cut_stats {
	size_t cuts, opened, failed, answered, other; /* other: answered from a table left whole */
};

static void *read_all(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	unsigned char *b;
	long n;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	b = malloc((size_t)n);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*size = (size_t)n;
	return b;
}

static void write_all(const char *path, const void *b, size_t size)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, size, f), size);
	assert_int_equal(fclose(f), 0);
}

/* each_symbol callback: rows without the table name (a cut may leave the section names
 * unreadable: the table is then "<corrupt>", as readelf prints it). */
static int collect_untabled_cb(void *ctx, const struct t2f_elf_sym *s)
{
	rows_add(ctx, "-", s->value, s->size, s->type, s->bind, s->name);
	return 0;
}

static int row_strcmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

static bool has_row(const struct rows *r, const char *row)
{
	return r->n && bsearch(row, r->row, r->n, sizeof(*r->row), row_strcmp);
}

static void add_cut(size_t *cuts, size_t *n, uint64_t at, size_t size)
{
	for (int d = -1; d <= 1; d++)
		if (at + (uint64_t)(int64_t)d < size && at + (uint64_t)(int64_t)d > 0)
			cuts[(*n)++] = (size_t)(at + (uint64_t)(int64_t)d);
}

static int size_cmp(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

/* Every section start and end, segment start and end, the header tables' starts and ends, the
 * ELF header's end, each -1, 0, +1; sorted, distinct, inside (0, size). Read with <elf.h> from
 * the bytes (x86-64: ELFCLASS64, little-endian), not through the loader under test. */
static size_t boundaries(const unsigned char *b, size_t size, size_t **out)
{
	Elf64_Ehdr eh;
	size_t n = 0, k = 0, *cuts;

	assert_true(size >= sizeof(eh));
	memcpy(&eh, b, sizeof(eh));
	assert_int_equal(eh.e_ident[EI_CLASS], ELFCLASS64);
	cuts = malloc(3 * (8 + 2 * ((size_t)eh.e_shnum + eh.e_phnum)) * sizeof(*cuts));
	assert_non_null(cuts);
	add_cut(cuts, &n, sizeof(eh), size);
	add_cut(cuts, &n, eh.e_phoff, size);
	add_cut(cuts, &n, eh.e_phoff + (uint64_t)eh.e_phnum * eh.e_phentsize, size);
	add_cut(cuts, &n, eh.e_shoff, size);
	add_cut(cuts, &n, eh.e_shoff + (uint64_t)eh.e_shnum * eh.e_shentsize, size);
	for (size_t i = 0; eh.e_shoff && i < eh.e_shnum; i++) {
		Elf64_Shdr sh;

		assert_true(eh.e_shoff + (i + 1) * sizeof(sh) <= size);
		memcpy(&sh, b + eh.e_shoff + i * sizeof(sh), sizeof(sh));
		if (sh.sh_type == SHT_NOBITS)
			continue;
		add_cut(cuts, &n, sh.sh_offset, size);
		add_cut(cuts, &n, sh.sh_offset + sh.sh_size, size);
	}
	for (size_t i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		memcpy(&ph, b + eh.e_phoff + i * sizeof(ph), sizeof(ph));
		add_cut(cuts, &n, ph.p_offset, size);
		add_cut(cuts, &n, ph.p_offset + ph.p_filesz, size);
	}
	qsort(cuts, n, sizeof(*cuts), size_cmp);
	for (size_t i = 0; i < n; i++)
		if (!k || cuts[k - 1] != cuts[i])
			cuts[k++] = cuts[i];
	*out = cuts;
	return k;
}

/* A lookup in a cut file answered: the whole file's answer, or a symbol of the whole file's
 * tables (one the cut left whole) that holds the address. */
static void check_answer(const struct whole *w, uint64_t addr, const struct t2f_elf_sym *got,
			 const char *what, struct cut_stats *st)
{
	struct t2f_elf_sym want;
	struct rows one = { 0 };
	bool holds;

	if (t2f_elf_module__lookup(w->m, addr, &want) == 1 && strcmp(got->name, want.name) == 0 &&
	    got->value == want.value)
		return;
	st->other++;
	holds = got->size ? addr - got->value < got->size : addr == got->value;
	rows_add(&one, "-", got->value, got->size, got->type, got->bind, got->name);
	if (!holds || !has_row(&w->rows, one.row[0]))
		fail_msg("%s: lookup of 0x%llx gave '%s' (%s); the whole file has no such symbol there",
			 what, (unsigned long long)addr, one.row[0], got->table);
	free(one.row);
}

/* Opens the cut at `path` (its first n bytes of w): an error naming the file, or answers that
 * the whole file gives (build-id, debuglink, symbols, lookups). */
static void check_cut(const struct whole *w, const struct expect *x, const char *path, size_t n,
		      struct cut_stats *st)
{
	struct t2f_elf_module *m = NULL;
	struct rows got = { 0 };
	struct t2f_elf_sym out;
	struct sink s;
	const uint8_t *id;
	const char *name, *wname;
	uint32_t crc, wcrc;
	char what[160];
	size_t len = 0;
	int rc;

	snprintf(what, sizeof(what), "%s cut at %zu of %zu bytes", w->rel, n, w->size);
	write_all(path, w->b, n);
	sink_open(&s);
	st->cuts++;
	rc = t2f_elf_module__open(path, s.d, &m);
	if (rc) {
		const char *msg = t2f_diag__last_error(s.d);

		if (rc != -T2F_ERR_ELF || m || !msg || !strstr(msg, path))
			fail_msg("%s: open gave %d (%s), error '%s'", what, rc, t2f_strerror(rc),
				 msg ? msg : "(none)");
		st->failed++;
		sink_close(&s);
		return;
	}
	st->opened++;
	id = t2f_elf_module__build_id(m, &len);
	if (len && (len != w->id_len || memcmp(id, w->id, len) != 0))
		fail_msg("%s: a build-id of %zu bytes that is not the whole file's", what, len);
	if (t2f_elf_module__debuglink(m, &name, &crc) &&
	    (!t2f_elf_module__debuglink(w->m, &wname, &wcrc) || strcmp(name, wname) || crc != wcrc))
		fail_msg("%s: a debuglink '%s' the whole file does not have", what, name);
	rc = t2f_elf_module__each_symbol(m, collect_untabled_cb, &got);
	if (rc && rc != -T2F_ERR_ELF)
		fail_msg("%s: each_symbol gave %d", what, rc);
	for (size_t i = 0; i < got.n; i++)
		if (!has_row(&w->rows, got.row[i]))
			fail_msg("%s: each_symbol gave '%s', not in the whole file", what, got.row[i]);
	for (size_t i = 0; i < x->n_syms; i++) {
		const uint64_t at[] = { x->syms[i].fixed, x->syms[i].fixed + x->syms[i].size / 2 };

		for (size_t j = 0; j < 2; j++) {
			rc = t2f_elf_module__lookup(m, at[j], &out);
			if (rc == 1) {
				st->answered++;
				check_answer(w, at[j], &out, what, st);
			} else if (rc != 0 && rc != -T2F_ERR_ELF) {
				fail_msg("%s: lookup gave %d", what, rc);
			}
		}
	}
	free(got.row);
	t2f_elf_module__free(m);
	sink_close(&s);
}

static void whole_open(struct whole *w, const char *rel, unsigned char *b, size_t size,
		       const char *path)
{
	struct sink s;
	int rc;

	w->rel = rel;
	w->b = b;
	w->size = size;
	write_all(path, b, size);
	sink_open(&s);
	rc = t2f_elf_module__open(path, NULL, &w->m);
	if (rc)
		fail_msg("%s: the whole file does not open: %d", rel, rc);
	sink_close(&s);
	memset(&w->rows, 0, sizeof(w->rows));
	assert_int_equal(t2f_elf_module__each_symbol(w->m, collect_untabled_cb, &w->rows), 0);
	if (w->rows.n)
		qsort(w->rows.row, w->rows.n, sizeof(*w->rows.row), row_strcmp);
	w->id = t2f_elf_module__build_id(w->m, &w->id_len);
}

/* Cuts one file at every boundary; the whole file is written to dir/whole, each cut to dir/cut. */
static void cut_everywhere(const char *rel, unsigned char *b, size_t size, const struct expect *x,
			   const char *dir, struct cut_stats *st)
{
	char whole_path[256], cut_path[256];
	struct whole w;
	size_t *cuts, n;

	snprintf(whole_path, sizeof(whole_path), "%s/whole", dir);
	snprintf(cut_path, sizeof(cut_path), "%s/cut", dir);
	whole_open(&w, rel, b, size, whole_path);
	n = boundaries(b, size, &cuts);
	assert_true(n >= 20);
	for (size_t i = 0; i < n; i++)
		check_cut(&w, x, cut_path, cuts[i], st);
	free(cuts);
	free(w.rows.row);
	t2f_elf_module__free(w.m);
	unlink(cut_path);
	unlink(whole_path);
}

/* A copy of b (an ELF64 file whose section header table is last) with that table moved to just
 * after the program headers and everything from there on moved 4 KiB later: cuts then keep the
 * headers and lose sections (symbol tables, string tables) one by one. */
static unsigned char *headers_first(const unsigned char *b, size_t size, size_t *out_size)
{
	const size_t delta = 0x1000;
	unsigned char *o;
	Elf64_Ehdr eh;
	size_t at;

	memcpy(&eh, b, sizeof(eh));
	at = eh.e_phoff + (size_t)eh.e_phnum * sizeof(Elf64_Phdr);
	assert_int_equal(eh.e_shoff + (size_t)eh.e_shnum * sizeof(Elf64_Shdr), size);
	assert_true(eh.e_shnum * sizeof(Elf64_Shdr) <= delta && at <= eh.e_shoff && at % 8 == 0);
	*out_size = eh.e_shoff + delta;
	o = calloc(1, *out_size);
	assert_non_null(o);
	memcpy(o, b, at);
	memcpy(o + at + delta, b + at, eh.e_shoff - at);
	for (size_t i = 0; i < eh.e_shnum; i++) {
		Elf64_Shdr sh;

		memcpy(&sh, b + eh.e_shoff + i * sizeof(sh), sizeof(sh));
		if (sh.sh_offset >= at && sh.sh_offset <= eh.e_shoff)
			sh.sh_offset += delta;
		memcpy(o + at + i * sizeof(sh), &sh, sizeof(sh));
	}
	for (size_t i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		memcpy(&ph, b + eh.e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_offset >= at && ph.p_offset <= eh.e_shoff)
			ph.p_offset += delta;
		memcpy(o + eh.e_phoff + i * sizeof(ph), &ph, sizeof(ph));
	}
	eh.e_shoff = at;
	memcpy(o, &eh, sizeof(eh));
	return o;
}

/* gnu/libfx.so and its --only-keep-debug file (build-id tree), as built and with the section
 * headers first, and a copy of gnu/libfx.so without section headers (program headers and
 * PT_NOTE only), each cut at every boundary +-1: never a crash, an error
 * naming the file or answers the whole file gives. */
static void test_truncated_everywhere(void **state)
{
	char dir[] = "/tmp/t2f-elf-cuts.XXXXXX", hex[2 * T2F_BUILD_ID_MAX + 1], dbg[256];
	struct cut_stats st = { 0 }, bare = { 0 }, first = { 0 };
	struct expect *base;
	unsigned char *b, *f;
	Elf64_Ehdr eh;
	size_t size, fsize;

	(void)state;
	need("gnu/libfx.so", "gnu");
	base = load_expect("gnu/libfx.so", NULL);
	assert_non_null(mkdtemp(dir));
	b = read_all(fx_path("gnu/libfx.so"), &size);
	cut_everywhere("gnu/libfx.so", b, size, base, dir, &st);
	f = headers_first(b, size, &fsize);
	cut_everywhere("gnu/libfx.so with the section headers first", f, fsize, base, dir, &first);
	free(f);
	memcpy(&eh, b, sizeof(eh));
	eh.e_shoff = 0;
	eh.e_shnum = 0;
	eh.e_shstrndx = 0;
	memcpy(b, &eh, sizeof(eh));
	cut_everywhere("gnu/libfx.so without section headers", b, size, base, dir, &bare);
	free(b);
	for (size_t i = 0; i < base->build_id_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", base->build_id[i]);
	snprintf(dbg, sizeof(dbg), "debug/.build-id/%.2s/%s.debug", hex, hex + 2);
	need(dbg, "gnu");
	b = read_all(fx_path(dbg), &size);
	cut_everywhere(dbg, b, size, base, dir, &st);
	f = headers_first(b, size, &fsize);
	cut_everywhere("the debug file with the section headers first", f, fsize, base, dir, &first);
	free(f);
	free(b);
	rmdir(dir);
	print_message("cuts: %zu (%zu opened); section headers first: %zu (%zu opened, %zu lookups "
		      "answered, %zu of them from a table left whole); without section headers: "
		      "%zu (%zu opened)\n", st.cuts, st.opened, first.cuts, first.opened,
		      first.answered, first.other, bare.cuts, bare.opened);
	/* the section headers are at the end: every cut of the two files loses some of them */
	assert_int_equal(st.opened, 0);
	assert_int_equal(st.failed, st.cuts);
	/* headers first: the cuts past the last PT_LOAD open and lose tables; some answer from
	 * .dynsym where .symtab was cut */
	assert_true(first.opened > 0 && first.failed > 0 && first.answered > 0 && first.other > 0);
	/* without them, the cuts past the last PT_LOAD open (build-id from PT_NOTE) */
	assert_true(bare.opened > 0 && bare.opened < bare.cuts);
	free(base);
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
	assert_true(rc == -EISDIR || rc == -T2F_ERR_ELF);
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
		cmocka_unit_test(test_truncated_everywhere),
		cmocka_unit_test(test_open_errors),
		cmocka_unit_test(test_each_symbol_stops),
		cmocka_unit_test(test_names_stay_valid),
	};

	if (elf_fixtures_init("test_elf_broken"))
		return 1;
	return cmocka_run_group_tests_name("elf_broken", tests, NULL, NULL);
}
