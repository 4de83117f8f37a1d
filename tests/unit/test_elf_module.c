/* tests/unit/test_elf_module.c: symbolizer/elf_module on the ELF fixtures that
 * tests/elf/build-fixtures.sh builds into $T2F_ELF_FIXTURES (fixtures/elf/README.md lists them).
 *
 * Expected values never come from our own code: either the fixtures' pinned layout (the symbol
 * zoo of fixtures/elf/zoo.c at 0x2000000) or the FILE.expect sidecars, which the build script
 * writes from readelf/od/gzip output (format at the top of build-fixtures.sh). For every fixture:
 * header, build-id, PT_LOADs, debuglink and each_symbol() must equal the sidecar, and a lookup
 * oracle written from the header's contract (sized symbols cover [value, value + size), sizeless
 * ones only their address, duplicates: sized > GLOBAL > WEAK > LOCAL > fewer leading '_') checks
 * the first byte, the middle, the last byte and one past the end of every symbol. Broken files
 * must give -T2F_E_ELF or a warning, each naming the file, and never crash.
 *
 * A fixture that build-fixtures.sh skipped (its part listed in SKIPPED, tools missing) makes its
 * test skip; a fixture that is missing without being listed fails.
 */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "formats/diag.h"
#include "symbolizer/elf_module.h"

#define ZOO_BASE 0x2000000ULL /* fixtures/elf/pin-*.ld */
#define MAX_SYMS 512
#define MAX_LOADS 16

static const char *fx_dir;

/* --- fixture files and sidecars -------------------------------------------------------------- */

static const char *fx_path(const char *rel)
{
	static char path[4][1024];
	static int next;
	char *p = path[next++ % 4];

	snprintf(p, sizeof(path[0]), "%s/%s", fx_dir, rel);
	return p;
}

static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* Whether build-fixtures.sh skipped PART (listed in SKIPPED); prints its reason. */
static bool part_skipped(const char *rel, const char *part)
{
	char line[512];
	FILE *f = fopen(fx_path("SKIPPED"), "r");
	size_t n = strlen(part);
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f)) {
		if (strncmp(line, part, n) == 0 && line[n] == '\t') {
			line[strcspn(line, "\n")] = '\0';
			print_message("skipped: %s (build-fixtures.sh skipped part %s: %s)\n", rel, part,
				      line + n + 1);
			found = true;
		}
	}
	if (f)
		fclose(f);
	return found;
}

/* Whether REL exists; false when its part was skipped; fails when it is missing otherwise. */
static bool have(const char *rel, const char *part)
{
	if (exists(fx_path(rel)))
		return true;
	if (!part_skipped(rel, part))
		fail_msg("fixture %s missing and part %s not listed in %s", rel, part,
			 fx_path("SKIPPED"));
	return false;
}

/* Skips the test when REL's part was skipped; fails when REL is missing otherwise. */
static void need(const char *rel, const char *part)
{
	if (!have(rel, part))
		skip();
}

struct xsym {
	char table[48];
	char name[128];
	uint64_t value, size, fixed;
	unsigned char type, bind;
};

struct expect {
	int cls, data_be, type, machine;
	uint64_t flags;
	uint8_t build_id[T2F_BUILD_ID_MAX];
	size_t build_id_len;
	struct t2f_elf_load loads[MAX_LOADS];
	size_t n_loads;
	bool has_debuglink, has_crc32;
	char debuglink[256];
	uint32_t debuglink_crc, crc32;
	struct xsym syms[MAX_SYMS];
	size_t n_syms;
};

static unsigned char bind_of(const char *s)
{
	if (strcmp(s, "LOCAL") == 0)
		return STB_LOCAL;
	if (strcmp(s, "GLOBAL") == 0)
		return STB_GLOBAL;
	if (strcmp(s, "WEAK") == 0)
		return STB_WEAK;
	if (strcmp(s, "UNIQUE") == 0)
		return STB_GNU_UNIQUE;
	fail_msg("unknown binding %s in a sidecar", s);
	return 0;
}

static size_t hex_bytes(const char *hex, uint8_t *out, size_t max)
{
	size_t n = strlen(hex) / 2;

	assert_true(n <= max);
	for (size_t i = 0; i < n; i++) {
		unsigned v;

		assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
		out[i] = (uint8_t)v;
	}
	return n;
}

/* Reads fixture REL's sidecar: REL.expect, or SIDECAR when given. */
static struct expect *load_expect(const char *rel, const char *sidecar)
{
	struct expect *x = calloc(1, sizeof(*x));
	char line[1024], a[256], c[64], d[64], e[64], f[64], g[256];
	char path[1100];
	FILE *in;

	assert_non_null(x);
	snprintf(path, sizeof(path), "%s", sidecar ? fx_path(sidecar) : fx_path(rel));
	if (!sidecar)
		strcat(path, ".expect");
	in = fopen(path, "r");
	if (!in)
		fail_msg("cannot read sidecar %s", path);
	while (fgets(line, sizeof(line), in)) {
		if (sscanf(line, "class %d", &x->cls) == 1)
			continue;
		if (sscanf(line, "data %3s", a) == 1) {
			x->data_be = strcmp(a, "be") == 0;
		} else if (sscanf(line, "type %d", &x->type) == 1) {
		} else if (sscanf(line, "machine %d", &x->machine) == 1) {
		} else if (sscanf(line, "flags %" SCNu64, &x->flags) == 1) {
		} else if (sscanf(line, "buildid %255s", a) == 1) {
			x->build_id_len = hex_bytes(a, x->build_id, sizeof(x->build_id));
		} else if (sscanf(line, "load %63s %63s %63s %63s %63s", c, d, e, f, g) == 5) {
			struct t2f_elf_load *l = &x->loads[x->n_loads++];

			assert_true(x->n_loads <= MAX_LOADS);
			l->p_offset = strtoull(c, NULL, 16);
			l->p_vaddr = strtoull(d, NULL, 16);
			l->p_filesz = strtoull(e, NULL, 16);
			l->p_memsz = strtoull(f, NULL, 16);
			l->p_flags = (uint32_t)strtoul(g, NULL, 10);
		} else if (sscanf(line, "debuglink %255s %63s", a, c) == 2) {
			x->has_debuglink = true;
			snprintf(x->debuglink, sizeof(x->debuglink), "%s", a);
			x->debuglink_crc = (uint32_t)strtoul(c, NULL, 16);
		} else if (sscanf(line, "crc32 %63s", c) == 1) {
			x->has_crc32 = true;
			x->crc32 = (uint32_t)strtoul(c, NULL, 16);
		} else if (x->n_syms < MAX_SYMS &&
			   sscanf(line, "sym %47s %63s %63s %63s %63s %63s %127s", x->syms[x->n_syms].table,
				  c, d, e, f, g, x->syms[x->n_syms].name) == 7) {
			struct xsym *s = &x->syms[x->n_syms++];

			s->value = strtoull(c, NULL, 16);
			s->size = strtoull(d, NULL, 16);
			s->type = strcmp(e, "IFUNC") == 0 ? STT_GNU_IFUNC : STT_FUNC;
			s->bind = bind_of(f);
			s->fixed = strtoull(g, NULL, 16);
		} else {
			fail_msg("bad sidecar line in %s: %s", path, line);
		}
	}
	fclose(in);
	return x;
}

static const struct xsym *xsym_named(const struct expect *x, const char *name)
{
	for (size_t i = 0; i < x->n_syms; i++)
		if (strcmp(x->syms[i].name, name) == 0)
			return &x->syms[i];
	return NULL;
}

/* --- diag with a captured sink --------------------------------------------------------------- */

struct sink {
	FILE *f;
	char *buf;
	size_t len;
	struct t2f_diag *d;
};

static void sink_open(struct sink *s)
{
	memset(s, 0, sizeof(*s));
	s->f = open_memstream(&s->buf, &s->len);
	assert_non_null(s->f);
	assert_int_equal(t2f_diag__new(s->f, &s->d), 0);
	t2f_diag__set_max_repeats(s->d, 1000);
}

static const char *sink_text(struct sink *s)
{
	assert_int_equal(fflush(s->f), 0);
	return s->buf ? s->buf : "";
}

static void sink_close(struct sink *s)
{
	t2f_diag__free(s->d);
	fclose(s->f);
	free(s->buf);
}

static struct t2f_elf_module *open_ok(const char *rel, struct sink *s)
{
	struct t2f_elf_module *m = NULL;
	int rc = t2f_elf_module__open(fx_path(rel), s->d, &m);

	if (rc != 0)
		fail_msg("open %s: %d (%s), diag: %s", rel, rc, t2f_strerror(rc),
			 t2f_diag__last_error(s->d) ? t2f_diag__last_error(s->d) : "(none)");
	assert_non_null(m);
	return m;
}

/* --- each_symbol against the sidecar --------------------------------------------------------- */

struct rows {
	char (*row)[200];
	size_t n, cap;
};

static const char *bind_name(unsigned b)
{
	return b == STB_LOCAL ? "LOCAL" : b == STB_GLOBAL ? "GLOBAL" : b == STB_WEAK ? "WEAK" : "OTHER";
}

static void rows_add(struct rows *r, const char *table, uint64_t value, uint64_t size,
		     unsigned type, unsigned bind, const char *name)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 64;
		r->row = realloc(r->row, r->cap * sizeof(*r->row));
		assert_non_null(r->row);
	}
	snprintf(r->row[r->n++], sizeof(r->row[0]), "%s %llx %llx %s %s %s", table,
		 (unsigned long long)value, (unsigned long long)size,
		 type == STT_GNU_IFUNC ? "IFUNC" : type == STT_FUNC ? "FUNC" : "OTHER",
		 bind_name(bind), name ? name : "(null)");
}

static int row_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

static int collect_cb(void *ctx, const struct t2f_elf_sym *s)
{
	rows_add(ctx, s->table ? s->table : "(null)", s->value, s->size, s->type, s->bind, s->name);
	return 0;
}

/* The rows each_symbol gives must be the sidecar's, as multisets. */
static void check_each_symbol(struct t2f_elf_module *m, const struct expect *x, const char *rel)
{
	struct rows got = { 0 }, want = { 0 };
	size_t i;

	assert_int_equal(t2f_elf_module__each_symbol(m, collect_cb, &got), 0);
	for (i = 0; i < x->n_syms; i++) {
		const struct xsym *s = &x->syms[i];

		rows_add(&want, s->table, s->value, s->size, s->type, s->bind, s->name);
	}
	if (got.n)
		qsort(got.row, got.n, sizeof(*got.row), row_cmp);
	if (want.n)
		qsort(want.row, want.n, sizeof(*want.row), row_cmp);
	for (i = 0; i < got.n && i < want.n; i++)
		if (strcmp(got.row[i], want.row[i]) != 0)
			break;
	if (i < got.n || i < want.n)
		fail_msg("%s: each_symbol gave %zu rows, readelf %zu; first difference: got '%s', "
			 "readelf '%s'", rel, got.n, want.n, i < got.n ? got.row[i] : "(end)",
			 i < want.n ? want.row[i] : "(end)");
	free(got.row);
	free(want.row);
}

/* --- the lookup oracle ----------------------------------------------------------------------- */

static int bind_rank(unsigned b)
{
	return b == STB_GLOBAL || b == STB_GNU_UNIQUE ? 3 : b == STB_WEAK ? 2 : 1;
}

static size_t underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* -1: a is preferred; 1: b is; 0: tie (the contract does not order them). */
static int prefer(const struct xsym *a, const struct xsym *b)
{
	if ((a->size != 0) != (b->size != 0))
		return a->size ? -1 : 1;
	if (bind_rank(a->bind) != bind_rank(b->bind))
		return bind_rank(a->bind) > bind_rank(b->bind) ? -1 : 1;
	if (underscores(a->name) != underscores(b->name))
		return underscores(a->name) < underscores(b->name) ? -1 : 1;
	return 0;
}

/* What a lookup of addr must give per the contract: *n_best symbols tied for best (0: a miss).
 * false when the contract leaves the answer open (symbols starting at different addresses
 * cover addr). */
static bool oracle(const struct expect *x, uint64_t addr, const struct xsym **best, size_t *n_best)
{
	const struct xsym *cand[MAX_SYMS];
	size_t n = 0;

	*n_best = 0;
	for (size_t i = 0; i < x->n_syms; i++) {
		const struct xsym *s = &x->syms[i];

		if (s->size ? s->fixed <= addr && addr - s->fixed < s->size : s->fixed == addr)
			cand[n++] = s;
	}
	for (size_t i = 1; i < n; i++)
		if (cand[i]->fixed != cand[0]->fixed)
			return false;
	for (size_t i = 0; i < n; i++) {
		int c = *n_best ? prefer(cand[i], best[0]) : -1;

		if (c < 0) {
			best[0] = cand[i];
			*n_best = 1;
		} else if (c == 0) {
			best[(*n_best)++] = cand[i];
		}
	}
	return true;
}

/* Looks addr up and compares with the oracle; returns whether the answer was checked. */
static bool check_lookup(struct t2f_elf_module *m, const struct expect *x, uint64_t addr,
			 const char *rel)
{
	const struct xsym *best[MAX_SYMS];
	struct t2f_elf_sym out;
	size_t n;
	int rc;

	if (!oracle(x, addr, best, &n))
		return false;
	memset(&out, 0, sizeof(out));
	rc = t2f_elf_module__lookup(m, addr, &out);
	if (n == 0) {
		if (rc != 0)
			fail_msg("%s: lookup 0x%llx: want a miss, got %d (%s at 0x%llx)", rel,
				 (unsigned long long)addr, rc, rc == 1 && out.name ? out.name : "-",
				 (unsigned long long)out.value);
		return true;
	}
	if (rc != 1)
		fail_msg("%s: lookup 0x%llx: want %s, got %d", rel, (unsigned long long)addr,
			 best[0]->name, rc);
	assert_non_null(out.name);
	assert_non_null(out.table);
	for (size_t i = 0; i < n; i++)
		if (strcmp(out.name, best[i]->name) == 0 && out.size == best[i]->size &&
		    out.bind == best[i]->bind && out.type == best[i]->type &&
		    out.value == best[i]->fixed && strcmp(out.table, best[i]->table) == 0)
			return true;
	fail_msg("%s: lookup 0x%llx: want %s%s (0x%llx size 0x%llx %s %s), got %s (0x%llx size 0x%llx "
		 "%s %s)", rel, (unsigned long long)addr, best[0]->name, n > 1 ? " or a tie" : "",
		 (unsigned long long)best[0]->fixed, (unsigned long long)best[0]->size,
		 bind_name(best[0]->bind), best[0]->table, out.name, (unsigned long long)out.value,
		 (unsigned long long)out.size, bind_name(out.bind), out.table);
	return true;
}

/* Start, middle, last byte and one past the end of every symbol; sizeless: at and after. */
static void check_lookups(struct t2f_elf_module *m, const struct expect *x, const char *rel)
{
	size_t checked = 0;

	for (size_t i = 0; i < x->n_syms; i++) {
		const struct xsym *s = &x->syms[i];
		uint64_t at[4] = { s->fixed, s->fixed + s->size / 2, s->fixed + s->size - 1,
				   s->fixed + s->size };

		if (!s->size) {
			at[0] = s->fixed;
			at[1] = at[2] = at[3] = s->fixed + 1;
		}
		for (int k = 0; k < 4; k++)
			checked += check_lookup(m, x, at[k], rel);
	}
	/* addresses far from every symbol miss */
	checked += check_lookup(m, x, 1, rel);
	checked += check_lookup(m, x, UINT64_MAX, rel);
	if (x->n_syms)
		assert_true(checked > x->n_syms);
}

/* --- every well-formed fixture against its sidecar ------------------------------------------- */

struct fixture {
	const char *rel;      /* under $T2F_ELF_FIXTURES */
	const char *part;     /* build-fixtures.sh part that makes it */
	const char *sidecar;  /* when not REL.expect */
	uint16_t machine;
	int cls;
	bool be;
	bool zoo;             /* has the full symbol zoo in a .symtab-like table */
	bool pinned;          /* zoo at ZOO_BASE */
};

static const struct fixture fixtures[] = {
	{ "gnu/prog", "gnu", NULL, EM_X86_64, 64, false, true, true },
	{ "gnu/prog-nopie", "gnu", NULL, EM_X86_64, 64, false, true, true },
	{ "gnu/prog-v2", "gnu", NULL, EM_X86_64, 64, false, true, true },
	{ "gnu/prog-noid", "gnu", NULL, EM_X86_64, 64, false, true, true },
	{ "gnu/prog-gz", "gnu", NULL, EM_X86_64, 64, false, true, true },
	{ "gnu/libfx.so", "gnu", NULL, EM_X86_64, 64, false, true, true },
	{ "stripped/prog", "gnu", NULL, EM_X86_64, 64, false, false, false },
	{ "stripped/libfx.so", "gnu", NULL, EM_X86_64, 64, false, false, false },
	{ "dl-beside/prog", "gnu", NULL, EM_X86_64, 64, false, false, false },
	{ "dl-beside/prog.debug", "gnu", NULL, EM_X86_64, 64, false, true, true },
	{ "dl-dotdebug/.debug/prog.debug", "gnu", NULL, EM_X86_64, 64, false, true, true },
	{ "dl-badcrc/prog.debug", "gnu", NULL, EM_X86_64, 64, false, true, true },
	{ "symdir/prog", "gnu", "gnu/prog.expect", EM_X86_64, 64, false, true, true },
	{ "minidebug/prog", "minidebug", NULL, EM_X86_64, 64, false, false, false },
	{ "lld/prog", "lld", NULL, EM_X86_64, 64, false, true, false },
	{ "lld/libfx.so", "lld", NULL, EM_X86_64, 64, false, true, false },
	{ "lld/libfx-pinned.so", "lld", NULL, EM_X86_64, 64, false, true, true },
	{ "m32/libfx.so", "m32", NULL, EM_386, 32, false, true, true },
	{ "cross/i686/libfx.so", "cross-i686", NULL, EM_386, 32, false, true, true },
	{ "cross/ppc64/libfx.so", "cross-ppc64", NULL, EM_PPC64, 64, true, true, true },
	{ "cross/ppc/libfx.so", "cross-ppc", NULL, EM_PPC, 32, true, true, true },
	{ "cross/mips/libfx.so", "cross-mips", NULL, EM_MIPS, 32, true, true, true },
	{ "cross/aarch64_be/libfx.so", "cross-aarch64_be", NULL, EM_AARCH64, 64, true, true, true },
	{ "cross/thumb/libfx.so", "cross-thumb", NULL, EM_ARM, 32, false, true, true },
	{ "cross/ppc64-elfv1/libfx.so", "cross-ppc64-elfv1", NULL, EM_PPC64, 64, true, true, true },
	{ "sunw/libfx.so", "sunw", NULL, EM_X86_64, 64, false, true, true },
	{ "compressed/libfx-symtab-zlib.so", "compressed", NULL, EM_X86_64, 64, false, true, true },
};

static void test_fixture(void **state)
{
	const struct fixture *fx = *state;
	struct t2f_elf_module *m;
	struct expect *x;
	struct sink s;
	const uint8_t *id;
	const char *name;
	uint32_t crc;
	size_t len;

	need(fx->rel, fx->part);
	x = load_expect(fx->rel, fx->sidecar);
	sink_open(&s);
	m = open_ok(fx->rel, &s);

	assert_string_equal(t2f_elf_module__path(m), fx_path(fx->rel));
	assert_int_equal(x->machine, fx->machine);      /* the fixture is what the table says */
	assert_int_equal(x->cls, fx->cls);
	assert_int_equal(x->data_be, fx->be);
	assert_int_equal(t2f_elf_module__machine(m), x->machine);
	assert_int_equal(t2f_elf_module__type(m), x->type);

	id = t2f_elf_module__build_id(m, &len);
	assert_int_equal(len, x->build_id_len);
	if (x->build_id_len) {
		assert_non_null(id);
		assert_memory_equal(id, x->build_id, len);
	} else {
		assert_null(id);
	}

	assert_int_equal(t2f_elf_module__load_count(m), x->n_loads);
	for (size_t i = 0; i < x->n_loads; i++) {
		const struct t2f_elf_load *l = t2f_elf_module__load_at(m, i);

		assert_non_null(l);
		assert_int_equal(l->p_offset, x->loads[i].p_offset);
		assert_int_equal(l->p_vaddr, x->loads[i].p_vaddr);
		assert_int_equal(l->p_filesz, x->loads[i].p_filesz);
		assert_int_equal(l->p_memsz, x->loads[i].p_memsz);
		assert_int_equal(l->p_flags, x->loads[i].p_flags);
	}

	name = NULL;
	crc = 0;
	assert_int_equal(t2f_elf_module__debuglink(m, &name, &crc), x->has_debuglink);
	if (x->has_debuglink) {
		assert_string_equal(name, x->debuglink);
		assert_int_equal(crc, x->debuglink_crc);
	}

	check_each_symbol(m, x, fx->rel);
	assert_int_equal(t2f_elf_module__has_symbols(m), x->n_syms > 0);
	check_lookups(m, x, fx->rel);
	/* well-formed files give no warnings */
	if (t2f_diag__warnings(s.d))
		fail_msg("%s: unexpected warnings: %s", fx->rel, sink_text(&s));

	t2f_elf_module__free(m);
	sink_close(&s);
	free(x);
}

/* --- the symbol zoo (fixtures/elf/zoo.c), exact names and addresses -------------------------- */

static void expect_hit(struct t2f_elf_module *m, const char *rel, uint64_t addr, const char *name,
		       uint64_t value, uint64_t size, unsigned bind, unsigned type)
{
	struct t2f_elf_sym out;
	int rc;

	memset(&out, 0, sizeof(out));
	rc = t2f_elf_module__lookup(m, addr, &out);
	if (rc != 1 || !out.name || strcmp(out.name, name) != 0)
		fail_msg("%s: lookup 0x%llx: want %s, got %d %s", rel, (unsigned long long)addr, name,
			 rc, rc == 1 && out.name ? out.name : "-");
	assert_int_equal(out.value, value);
	assert_int_equal(out.size, size);
	assert_int_equal(out.bind, bind);
	assert_int_equal(out.type, type);
}

static void expect_miss(struct t2f_elf_module *m, const char *rel, uint64_t addr)
{
	struct t2f_elf_sym out;
	int rc = t2f_elf_module__lookup(m, addr, &out);

	if (rc != 0)
		fail_msg("%s: lookup 0x%llx: want a miss, got %d %s", rel, (unsigned long long)addr, rc,
			 rc == 1 && out.name ? out.name : "-");
}

static int no_zoo_junk_cb(void *ctx, const struct t2f_elf_sym *s)
{
	const char *bad[] = { "fx_object", "fx_notype", "fx_abs", "fx_zoo_start" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (strcmp(s->name, bad[i]) == 0)
			fail_msg("%s: each_symbol gave %s from %s", (const char *)ctx, s->name, s->table);
	return 0;
}

static void test_zoo(void **state)
{
	const struct fixture *fx = *state;
	struct t2f_elf_module *m;
	const struct xsym *first;
	struct expect *x;
	struct sink s;
	uint64_t b;
	const char *rel = fx->rel;

	need(fx->rel, fx->part);
	x = load_expect(fx->rel, fx->sidecar);
	first = xsym_named(x, "fx_first");
	assert_non_null(first);
	b = first->fixed;
	if (fx->pinned)
		assert_int_equal(b, ZOO_BASE);
	sink_open(&s);
	m = open_ok(fx->rel, &s);

	expect_hit(m, rel, b, "fx_first", b, 0x40, STB_GLOBAL, STT_FUNC);
	expect_hit(m, rel, b + 0x20, "fx_first", b, 0x40, STB_GLOBAL, STT_FUNC);
	expect_hit(m, rel, b + 0x3f, "fx_first", b, 0x40, STB_GLOBAL, STT_FUNC);
	/* LOCAL, WEAK and GLOBAL at one address: GLOBAL */
	expect_hit(m, rel, b + 0x40, "fx_dup", b + 0x40, 0x40, STB_GLOBAL, STT_FUNC);
	expect_hit(m, rel, b + 0x7f, "fx_dup", b + 0x40, 0x40, STB_GLOBAL, STT_FUNC);
	/* __fx_under, _fx_under, fx_under: the fewest leading '_' */
	expect_hit(m, rel, b + 0x80, "fx_under", b + 0x80, 0x20, STB_GLOBAL, STT_FUNC);
	expect_hit(m, rel, b + 0x9f, "fx_under", b + 0x80, 0x20, STB_GLOBAL, STT_FUNC);
	/* sizeless: its address only */
	expect_hit(m, rel, b + 0xa0, "fx_nosize", b + 0xa0, 0, STB_GLOBAL, STT_FUNC);
	expect_miss(m, rel, b + 0xa1);
	expect_miss(m, rel, b + 0xbf);
	/* WEAK over LOCAL */
	expect_hit(m, rel, b + 0xc0, "fx_weak", b + 0xc0, 0x20, STB_WEAK, STT_FUNC);
	expect_hit(m, rel, b + 0xdf, "fx_weak", b + 0xc0, 0x20, STB_WEAK, STT_FUNC);
	/* a sized LOCAL over a sizeless GLOBAL */
	expect_hit(m, rel, b + 0xe0, "fx_sized_local", b + 0xe0, 0x20, STB_LOCAL, STT_FUNC);
	expect_hit(m, rel, b + 0xff, "fx_sized_local", b + 0xe0, 0x20, STB_LOCAL, STT_FUNC);
	expect_hit(m, rel, b + 0x100, "fx_ifunc", b + 0x100, 0x20, STB_GLOBAL, STT_GNU_IFUNC);
	expect_hit(m, rel, b + 0x11f, "fx_ifunc", b + 0x100, 0x20, STB_GLOBAL, STT_GNU_IFUNC);
	expect_hit(m, rel, b + 0x130, "_ZN4core3fmt5write17h0123456789abcdefE", b + 0x120, 0x20,
		   STB_GLOBAL, STT_FUNC);
	expect_hit(m, rel, b + 0x140, "_RNvNtCs1234_7mycrate3foo3bar", b + 0x140, 0x20, STB_GLOBAL,
		   STT_FUNC);
	expect_hit(m, rel, b + 0x17f, "_ZN2fx6Widget4pokeEi", b + 0x160, 0x20, STB_GLOBAL, STT_FUNC);
	/* an OBJECT and a NOTYPE symbol are not functions */
	expect_miss(m, rel, b + 0x180);
	expect_miss(m, rel, b + 0x190);
	expect_miss(m, rel, b + 0x19f);
	expect_hit(m, rel, b + 0x1a0, "fx_last", b + 0x1a0, 0x50, STB_GLOBAL, STT_FUNC);
	expect_hit(m, rel, b + 0x1ef, "fx_last", b + 0x1a0, 0x50, STB_GLOBAL, STT_FUNC);
	expect_miss(m, rel, b + 0x1f0);
	if (fx->pinned)
		expect_miss(m, rel, 0x20001f8); /* fx_abs: SHN_ABS */
	assert_int_equal(t2f_elf_module__each_symbol(m, no_zoo_junk_cb, (void *)rel), 0);
	assert_int_equal(t2f_diag__warnings(s.d), 0);

	t2f_elf_module__free(m);
	sink_close(&s);
	free(x);
}

/* --- specific properties --------------------------------------------------------------------- */

/* lld's PT_LOADs: p_vaddr != p_offset for the code segment (DESIGN.md §4). */
static void test_lld_vaddr_offset(void **state)
{
	const char *rels[] = { "lld/prog", "lld/libfx.so" };

	(void)state;
	need(rels[0], "lld");
	for (size_t r = 0; r < 2; r++) {
		struct t2f_elf_module *m;
		struct sink s;
		bool differs = false;

		sink_open(&s);
		m = open_ok(rels[r], &s);
		assert_true(t2f_elf_module__load_count(m) >= 2);
		for (size_t i = 0; i < t2f_elf_module__load_count(m); i++) {
			const struct t2f_elf_load *l = t2f_elf_module__load_at(m, i);

			if ((l->p_flags & PF_X) && l->p_vaddr != l->p_offset)
				differs = true;
		}
		assert_true(differs);
		assert_null(t2f_elf_module__load_at(m, t2f_elf_module__load_count(m)));
		t2f_elf_module__free(m);
		sink_close(&s);
	}
}

/* DIR/.build-id/ab/cdef....debug for x's build-id; "debuginfod": debuginfod/<id>/debuginfo. */
static const char *debug_path(const char *dir, const struct expect *x)
{
	static char rel[512];
	char hex[2 * T2F_BUILD_ID_MAX + 1];

	for (size_t i = 0; i < x->build_id_len; i++)
		sprintf(hex + 2 * i, "%02x", x->build_id[i]);
	if (strcmp(dir, "debuginfod") == 0)
		snprintf(rel, sizeof(rel), "debuginfod/%s/debuginfo", hex);
	else
		snprintf(rel, sizeof(rel), "%s/.build-id/%.2s/%s.debug", dir, hex, hex + 2);
	return rel;
}

/* Build-ids: 20 bytes (GNU ld sha1), 8 bytes (lld fast), none; a debug file has its binary's. */
static void test_build_ids(void **state)
{
	struct expect *prog, *v2, *lld;
	struct t2f_elf_module *m;
	struct sink s;
	const uint8_t *id;
	size_t len;

	(void)state;
	need("gnu/prog", "gnu");
	prog = load_expect("gnu/prog", NULL);
	v2 = load_expect("gnu/prog-v2", NULL);
	assert_int_equal(prog->build_id_len, 20);
	assert_int_equal(v2->build_id_len, 20);
	assert_memory_not_equal(prog->build_id, v2->build_id, 20);
	sink_open(&s);

	m = open_ok("gnu/prog-noid", &s);
	len = 99;
	assert_null(t2f_elf_module__build_id(m, &len));
	assert_int_equal(len, 0);
	t2f_elf_module__free(m);

	m = open_ok("stripped/prog", &s);
	id = t2f_elf_module__build_id(m, &len);
	assert_int_equal(len, 20);
	assert_memory_equal(id, prog->build_id, 20);
	t2f_elf_module__free(m);

	/* the build-id tree's debug file carries prog's id; the wrong one prog-v2's */
	m = open_ok(debug_path("debug", prog), &s);
	id = t2f_elf_module__build_id(m, &len);
	assert_int_equal(len, 20);
	assert_memory_equal(id, prog->build_id, 20);
	t2f_elf_module__free(m);
	m = open_ok(debug_path("wrongid/debug", prog), &s);
	id = t2f_elf_module__build_id(m, &len);
	assert_int_equal(len, 20);
	assert_memory_equal(id, v2->build_id, 20);
	t2f_elf_module__free(m);
	m = open_ok(debug_path("debuginfod", prog), &s);
	id = t2f_elf_module__build_id(m, &len);
	assert_int_equal(len, 20);
	assert_memory_equal(id, prog->build_id, 20);
	t2f_elf_module__free(m);
	sink_close(&s);
	free(prog);
	free(v2);

	if (!exists(fx_path("lld/prog")))
		return;
	lld = load_expect("lld/prog", NULL);
	assert_int_equal(lld->build_id_len, 8);
	sink_open(&s);
	m = open_ok("lld/prog", &s);
	id = t2f_elf_module__build_id(m, &len);
	assert_int_equal(len, 8);
	assert_memory_equal(id, lld->build_id, 8);
	t2f_elf_module__free(m);
	sink_close(&s);
	free(lld);
}

/* .gnu_debuglink: name and CRC as objcopy wrote them; t2f_elf_file_crc32 of the file the link
 * names equals the stored CRC (and gzip's CRC of it); the bad-CRC variant's does not. */
static void test_debuglink_crc(void **state)
{
	struct {
		const char *bin, *debug, *debug_sidecar;
		bool crc_matches;
	} c[] = {
		{ "stripped/prog", NULL, "debug/prog.debug.expect", true },
		{ "stripped/libfx.so", NULL, "debug/libfx.so.debug.expect", true },
		{ "dl-beside/prog", "dl-beside/prog.debug", NULL, true },
		{ "dl-dotdebug/prog", "dl-dotdebug/.debug/prog.debug", NULL, true },
		{ "dl-badcrc/prog", "dl-badcrc/prog.debug", NULL, false },
	};

	(void)state;
	need("stripped/prog", "gnu");
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct expect *xb = load_expect(c[i].bin, NULL), *xd;
		struct t2f_elf_module *m;
		struct sink s;
		const char *name = NULL, *debug = c[i].debug;
		uint32_t crc = 0, file_crc = 0;
		char want_name[256];
		const char *slash;

		sink_open(&s);
		m = open_ok(c[i].bin, &s);
		assert_true(t2f_elf_module__debuglink(m, &name, &crc));
		assert_non_null(name);
		assert_string_equal(name, xb->debuglink);
		assert_int_equal(crc, xb->debuglink_crc);
		if (!debug) { /* the build-id tree: the link names <id[2:]>.debug */
			debug = debug_path("debug", xb);
			slash = strrchr(debug, '/');
			snprintf(want_name, sizeof(want_name), "%s", slash + 1);
			assert_string_equal(name, want_name);
		} else {
			slash = strrchr(debug, '/');
			assert_string_equal(name, slash + 1);
		}
		xd = load_expect(debug, c[i].debug_sidecar);
		assert_true(xd->has_crc32);
		assert_int_equal(t2f_elf_file_crc32(fx_path(debug), &file_crc), 0);
		assert_int_equal(file_crc, xd->crc32);
		if (c[i].crc_matches)
			assert_int_equal(file_crc, crc);
		else
			assert_int_not_equal(file_crc, crc);
		t2f_elf_module__free(m);
		sink_close(&s);
		free(xb);
		free(xd);
	}
}

static void test_crc32_errors(void **state)
{
	uint32_t crc = 1;
	char path[] = "/tmp/t2f-test-elf-crc-XXXXXX";
	int fd;

	(void)state;
	assert_int_equal(t2f_elf_file_crc32(fx_path("no/such/file"), &crc), -ENOENT);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(t2f_elf_file_crc32(path, &crc), 0);
	assert_int_equal(crc, 0); /* CRC-32 of nothing */
	assert_int_equal(write(fd, "123456789", 9), 9);
	assert_int_equal(t2f_elf_file_crc32(path, &crc), 0);
	assert_int_equal(crc, 0xcbf43926); /* the CRC-32 check value */
	close(fd);
	unlink(path);
}

/* The table names of MiniDebugInfo and .SUNW_ldynsym rows, and lookups that only they answer. */
static void test_extra_tables(void **state)
{
	struct {
		const char *rel, *part, *table, *only_there;
	} c[] = {
		{ "minidebug/prog", "minidebug", ".gnu_debugdata:.symtab", "fx_static_helper" },
		{ "sunw/libfx.so", "sunw", ".SUNW_ldynsym", "fx_lib_static" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct t2f_elf_module *m;
		const struct xsym *xs;
		struct t2f_elf_sym out;
		struct expect *x;
		struct sink s;

		if (!have(c[i].rel, c[i].part))
			continue;
		x = load_expect(c[i].rel, NULL);
		xs = xsym_named(x, c[i].only_there);
		assert_non_null(xs);
		assert_string_equal(xs->table, c[i].table);
		sink_open(&s);
		m = open_ok(c[i].rel, &s);
		assert_true(t2f_elf_module__has_symbols(m));
		assert_int_equal(t2f_elf_module__lookup(m, xs->fixed + 1, &out), 1);
		assert_string_equal(out.name, c[i].only_there);
		assert_string_equal(out.table, c[i].table);
		assert_int_equal(out.value, xs->fixed);
		t2f_elf_module__free(m);
		sink_close(&s);
		free(x);
	}
}

/* EM_ARM: Thumb function values are odd in the tables; each_symbol keeps them raw, lookups use
 * the even code address. */
static void test_thumb(void **state)
{
	const char *rel = "cross/thumb/libfx.so";
	struct t2f_elf_module *m;
	const struct xsym *w;
	struct t2f_elf_sym out;
	struct expect *x;
	struct sink s;

	(void)state;
	need(rel, "cross-thumb");
	x = load_expect(rel, NULL);
	w = xsym_named(x, "fx_lib_work");
	assert_non_null(w);
	assert_int_equal(w->value & 1, 1);
	assert_int_equal(w->fixed, w->value - 1);
	sink_open(&s);
	m = open_ok(rel, &s);
	assert_int_equal(t2f_elf_module__lookup(m, w->fixed, &out), 1);
	assert_true(strcmp(out.name, "fx_lib_work") == 0 || strcmp(out.name, "fx_lib_alias") == 0);
	assert_int_equal(out.value, w->fixed);
	assert_int_equal(t2f_elf_module__lookup(m, w->fixed + w->size - 1, &out), 1);
	assert_int_equal(out.value, w->fixed);
	t2f_elf_module__free(m);
	sink_close(&s);
	free(x);
}

/* ppc64 ELFv1: FUNC values point at .opd descriptors; lookups use the code address stored
 * there, each_symbol the raw descriptor address. */
static void test_ppc64_elfv1(void **state)
{
	const char *rel = "cross/ppc64-elfv1/libfx.so";
	struct t2f_elf_module *m;
	const struct xsym *w, *st;
	struct t2f_elf_sym out;
	struct expect *x;
	struct sink s;

	(void)state;
	need(rel, "cross-ppc64-elfv1");
	x = load_expect(rel, NULL);
	assert_int_equal(x->flags & 3, 1); /* abiv1 */
	w = xsym_named(x, "fx_lib_work");
	st = xsym_named(x, "fx_lib_static");
	assert_non_null(w);
	assert_non_null(st);
	assert_int_not_equal(w->fixed, w->value);
	sink_open(&s);
	m = open_ok(rel, &s);
	assert_int_equal(t2f_elf_module__lookup(m, w->fixed + 4, &out), 1);
	assert_true(strcmp(out.name, "fx_lib_work") == 0 || strcmp(out.name, "fx_lib_alias") == 0);
	assert_int_equal(out.value, w->fixed);
	assert_int_equal(out.size, w->size);
	assert_int_equal(t2f_elf_module__lookup(m, st->fixed, &out), 1);
	assert_string_equal(out.name, "fx_lib_static");
	assert_int_equal(out.value, st->fixed);
	t2f_elf_module__free(m);
	sink_close(&s);
	free(x);
}

/* zstd-compressed .symtab/.strtab: libelf 0.188 cannot decompress ch_type 2. Either the table is
 * read (the contract's "zstd where libelf supports it", or our own libzstd path), or it is
 * skipped with a warning naming the file while .dynsym still counts. */
static void test_compressed_zstd(void **state)
{
	const char *rel = "compressed/libfx-symtab-zstd.so";
	struct rows got = { 0 };
	struct t2f_elf_module *m;
	struct t2f_elf_sym out;
	struct expect *x;
	struct sink s;
	size_t n_symtab = 0, want_symtab = 0, want_dynsym = 0, n_dynsym = 0;

	(void)state;
	need(rel, "compressed-zstd");
	x = load_expect(rel, NULL);
	sink_open(&s);
	m = open_ok(rel, &s);
	assert_int_equal(t2f_elf_module__each_symbol(m, collect_cb, &got), 0);
	for (size_t i = 0; i < got.n; i++) {
		n_symtab += strncmp(got.row[i], ".symtab ", 8) == 0;
		n_dynsym += strncmp(got.row[i], ".dynsym ", 8) == 0;
	}
	for (size_t i = 0; i < x->n_syms; i++) {
		want_symtab += strcmp(x->syms[i].table, ".symtab") == 0;
		want_dynsym += strcmp(x->syms[i].table, ".dynsym") == 0;
	}
	assert_int_equal(n_dynsym, want_dynsym);
	if (n_symtab == 0) {
		assert_true(t2f_diag__warnings(s.d) > 0);
		assert_non_null(strstr(sink_text(&s), fx_path(rel)));
	} else {
		t2f_elf_module__free(m);
		m = open_ok(rel, &s);
		check_each_symbol(m, x, rel);
	}
	assert_int_equal(t2f_elf_module__lookup(m, xsym_named(x, "fx_lib_work")->fixed, &out), 1);
	t2f_elf_module__free(m);
	sink_close(&s);
	free(got.row);
	free(x);
}

/* --- broken files ---------------------------------------------------------------------------- */

enum outcome {
	FAILS,      /* -T2F_E_ELF, the diag's error names the file */
	TABLE,      /* opens; the broken table is skipped with a warning; .dynsym still works */
	NOTE,       /* -T2F_E_ELF, or opens without a build-id and warns; either names the file */
	LINK,       /* opens; no debuglink, with a warning; symbols still work */
	LINK_QUIET, /* opens; no debuglink (a warning is allowed); symbols still work */
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
	struct CMUnitTest tests[2 * sizeof(fixtures) / sizeof(fixtures[0]) + 16];
	size_t n = 0;

	fx_dir = getenv("T2F_ELF_FIXTURES");
	if (!fx_dir || !*fx_dir) {
		fprintf(stderr, "test_elf_module: T2F_ELF_FIXTURES is not set (run it through ctest, "
				"which builds the fixtures with tests/elf/build-fixtures.sh)\n");
		return 1;
	}
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		struct CMUnitTest t = cmocka_unit_test_prestate(test_fixture, (void *)&fixtures[i]);

		t.name = fixtures[i].rel;
		tests[n++] = t;
	}
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		static char names[sizeof(fixtures) / sizeof(fixtures[0])][96];
		struct CMUnitTest t = cmocka_unit_test_prestate(test_zoo, (void *)&fixtures[i]);

		if (!fixtures[i].zoo)
			continue;
		snprintf(names[i], sizeof(names[i]), "zoo %s", fixtures[i].rel);
		t.name = names[i];
		tests[n++] = t;
	}
	{
		const struct CMUnitTest rest[] = {
			cmocka_unit_test(test_lld_vaddr_offset),
			cmocka_unit_test(test_build_ids),
			cmocka_unit_test(test_debuglink_crc),
			cmocka_unit_test(test_crc32_errors),
			cmocka_unit_test(test_extra_tables),
			cmocka_unit_test(test_thumb),
			cmocka_unit_test(test_ppc64_elfv1),
			cmocka_unit_test(test_compressed_zstd),
			cmocka_unit_test(test_broken),
			cmocka_unit_test(test_open_errors),
			cmocka_unit_test(test_each_symbol_stops),
			cmocka_unit_test(test_names_stay_valid),
		};

		for (size_t i = 0; i < sizeof(rest) / sizeof(rest[0]); i++)
			tests[n++] = rest[i];
	}
	return _cmocka_run_group_tests("elf_module", tests, n, NULL, NULL);
}
