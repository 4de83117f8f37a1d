/* tests/unit/support/elf_fixtures.c: see elf_fixtures.h. */
#include <elf.h>
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

#include <cmocka.h>

#include "support/elf_fixtures.h"

const char *fx_dir;

int elf_fixtures_init(const char *test)
{
	fx_dir = getenv("T2F_ELF_FIXTURES");
	if (!fx_dir || !*fx_dir) {
		fprintf(stderr, "%s: T2F_ELF_FIXTURES is not set (run it through ctest, "
				"which builds the fixtures with tests/elf/build-fixtures.sh)\n", test);
		return 1;
	}
	return 0;
}

/* --- fixture files and sidecars -------------------------------------------------------------- */

const char *fx_path(const char *rel)
{
	static char path[4][1024];
	static int next;
	char *p = path[next++ % 4];

	snprintf(p, sizeof(path[0]), "%s/%s", fx_dir, rel);
	return p;
}

bool exists(const char *path)
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
bool have(const char *rel, const char *part)
{
	if (exists(fx_path(rel)))
		return true;
	if (!part_skipped(rel, part))
		fail_msg("fixture %s missing and part %s not listed in %s", rel, part,
			 fx_path("SKIPPED"));
	return false;
}

/* Skips the test when REL's part was skipped; fails when REL is missing otherwise. */
void need(const char *rel, const char *part)
{
	if (!have(rel, part))
		skip();
}

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
struct expect *load_expect(const char *rel, const char *sidecar)
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

const struct xsym *xsym_named(const struct expect *x, const char *name)
{
	for (size_t i = 0; i < x->n_syms; i++)
		if (strcmp(x->syms[i].name, name) == 0)
			return &x->syms[i];
	return NULL;
}

/* --- diag with a captured sink --------------------------------------------------------------- */

void sink_open(struct sink *s)
{
	sink_init(s);
	t2f_diag__set_max_repeats(s->d, 1000);
}

struct t2f_elf_module *open_ok(const char *rel, struct sink *s)
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

const char *bind_name(unsigned b)
{
	return b == STB_LOCAL ? "LOCAL" : b == STB_GLOBAL ? "GLOBAL" : b == STB_WEAK ? "WEAK" : "OTHER";
}

void rows_add(struct rows *r, const char *table, uint64_t value, uint64_t size,
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

int collect_cb(void *ctx, const struct t2f_elf_sym *s)
{
	rows_add(ctx, s->table ? s->table : "(null)", s->value, s->size, s->type, s->bind, s->name);
	return 0;
}

/* The rows each_symbol gives must be the sidecar's, as multisets. */
void check_each_symbol(struct t2f_elf_module *m, const struct expect *x, const char *rel)
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
void check_lookups(struct t2f_elf_module *m, const struct expect *x, const char *rel)
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

/* --- lookups ------------------------------------------------------------------------------- */

void expect_hit(struct t2f_elf_module *m, const char *rel, uint64_t addr, const char *name,
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

void expect_miss(struct t2f_elf_module *m, const char *rel, uint64_t addr)
{
	struct t2f_elf_sym out;
	int rc = t2f_elf_module__lookup(m, addr, &out);

	if (rc != 0)
		fail_msg("%s: lookup 0x%llx: want a miss, got %d %s", rel, (unsigned long long)addr, rc,
			 rc == 1 && out.name ? out.name : "-");
}
