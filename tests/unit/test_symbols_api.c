/* tests/unit/test_symbols_api.c: the symbolizer alone through the public header (t2f_symbols_*),
 * linked with the shared library, on the ELF fixtures built at test time: every sized function
 * of gnu/prog named (the oracle: the fixture's .expect sidecar, written from readelf) from an
 * ELF virtual address, a file offset and an absolute ip of a mapping; the module found by path
 * and by build-id alone; the file's function symbols listed; a candidate of another build
 * refused; misses and bad calls as results and errors, each miss with its own reason.
 * Demangling too. */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <trace2flame.h>

#define MAX_ITEMS 256
#define BIAS 0x7f0000000000ull

struct load { uint64_t off, vaddr, filesz; unsigned flags; };
struct fsym { uint64_t value, size; char name[128]; };

struct expect {
	char build_id[129];
	struct load loads[16];
	size_t n_loads;
	struct fsym syms[MAX_ITEMS];
	size_t n_syms;
};

static char root[4096];

/* The .expect sidecar: "buildid HEX", "load OFF VADDR FILESZ MEMSZ FLAGS", "sym TABLE VALUE
 * SIZE FUNC BIND VALUE NAME" (sizes in hex). */
static void read_expect(const char *path, struct expect *e)
{
	FILE *f = fopen(path, "r");
	char line[512], table[64], type[32], bind[32], name[128];
	uint64_t a, b, c, d;
	unsigned flags;

	assert_non_null(f);
	memset(e, 0, sizeof(*e));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "buildid %128s", e->build_id) == 1)
			continue;
		if (sscanf(line, "load %" SCNx64 " %" SCNx64 " %" SCNx64 " %" SCNx64 " %u", &a, &b,
			   &c, &d, &flags) == 5 && e->n_loads < 16) {
			e->loads[e->n_loads++] = (struct load){ a, b, c, flags };
			continue;
		}
		if (sscanf(line, "sym %63s %" SCNx64 " %" SCNx64 " %31s %31s %" SCNx64 " %127s", table,
			   &a, &b, type, bind, &c, name) == 7 &&
		    (strcmp(type, "FUNC") == 0 || strcmp(type, "IFUNC") == 0) && b &&
		    e->n_syms < MAX_ITEMS) {
			e->syms[e->n_syms] = (struct fsym){ .value = a, .size = b };
			snprintf(e->syms[e->n_syms++].name, 128, "%s", name);
		}
	}
	fclose(f);
	assert_true(e->n_syms > 3);
}

/* Whether another function of e starts at value with this name (aliases share addresses). */
static bool named_at(const struct expect *e, uint64_t value, const char *name)
{
	for (size_t i = 0; i < e->n_syms; i++)
		if (e->syms[i].value == value && strcmp(e->syms[i].name, name) == 0)
			return true;
	return false;
}

static const struct load *exec_load_of(const struct expect *e, uint64_t vaddr)
{
	for (size_t i = 0; i < e->n_loads; i++)
		if ((e->loads[i].flags & 1) && vaddr >= e->loads[i].vaddr &&
		    vaddr < e->loads[i].vaddr + e->loads[i].filesz)
			return &e->loads[i];
	return NULL;
}

static struct t2f_symbols *new_symbols(const char *const *debug_dirs)
{
	struct t2f_symbols_options o = { .size = sizeof(o), .debug_dirs = debug_dirs,
					 .raw_names = true }; /* as the sidecar names them */
	struct t2f_symbols *s;

	assert_int_equal(t2f_symbols_new(&o, &s), 0);
	return s;
}

static void check_hit(struct t2f_symbols *s, uint32_t mod, enum t2f_space space, uint64_t addr,
		      const struct expect *e, const struct fsym *y, uint64_t off)
{
	struct t2f_symbol out = { .size = sizeof(out) };

	assert_int_equal(t2f_symbols_resolve(s, mod, space, addr, &out), 0);
	if (!out.name || !named_at(e, y->value, out.name) || out.offset != off ||
	    out.elf_vaddr != y->value + off)
		fail_msg("%s+0x%" PRIx64 " in space %d at 0x%" PRIx64 ": got %s (%s) +0x%" PRIx64,
			 y->name, off, (int)space, addr, out.name ? out.name : "-",
			 out.miss ? out.miss : "hit", out.offset);
	assert_null(out.miss);
	assert_non_null(out.file);
}

/* Every sized function of gnu/prog by its three addresses. */
static void test_every_space(void **state)
{
	static struct expect e;
	char path[4200], exp[4300];
	struct t2f_symbols *s = new_symbols(NULL);
	uint32_t by_path, mapped;

	snprintf(path, sizeof(path), "%s/gnu/prog", root);
	snprintf(exp, sizeof(exp), "%s.expect", path);
	read_expect(exp, &e);
	struct t2f_module m = { .size = sizeof(m), .path = path, .build_id = e.build_id };

	assert_int_equal(t2f_symbols_add_module(s, &m, &by_path), 0);
	for (size_t i = 0; i < e.n_syms; i++) {
		const struct fsym *y = &e.syms[i];
		const struct load *l = exec_load_of(&e, y->value);
		uint64_t off = y->size / 2;

		assert_non_null(l);
		check_hit(s, by_path, T2F_SPACE_ELF_VADDR, y->value + off, &e, y, off);
		check_hit(s, by_path, T2F_SPACE_FILE_OFF, y->value + off - l->vaddr + l->off, &e, y,
			  off);
		/* the segment's mapping in a process, as perf's MMAP2 records it */
		m.map_start = BIAS + (l->vaddr & ~0xfffull);
		m.map_end = BIAS + l->vaddr + l->filesz + 0x1000;
		m.map_pgoff = l->off & ~0xfffull;
		assert_int_equal(t2f_symbols_add_module(s, &m, &mapped), 0);
		check_hit(s, mapped, T2F_SPACE_ABS, BIAS + y->value + off, &e, y, off);
	}
	t2f_symbols_free(s);
}

/* By build-id alone, from a debug directory's build-id tree (the debug file has the symbols);
 * then misses: an address outside every function, a module whose file is gone. */
static void test_by_build_id_and_misses(void **state)
{
	static struct expect e;
	char exp[4300], dbg[4200];
	const char *dirs[] = { dbg, NULL };
	struct t2f_symbol out = { .size = sizeof(out) };
	struct t2f_symbols *s;
	uint32_t id, gone;

	snprintf(exp, sizeof(exp), "%s/gnu/prog.expect", root);
	snprintf(dbg, sizeof(dbg), "%s/debug", root);
	read_expect(exp, &e);
	s = new_symbols(dirs);
	struct t2f_module m = { .size = sizeof(m), .build_id = e.build_id };

	assert_int_equal(t2f_symbols_add_module(s, &m, &id), 0);
	check_hit(s, id, T2F_SPACE_ELF_VADDR, e.syms[0].value, &e, &e.syms[0], 0);
	assert_int_equal(t2f_symbols_resolve(s, id, T2F_SPACE_ELF_VADDR, 0x10, &out), 0);
	assert_null(out.name);
	assert_string_equal(out.miss, "not found");
	m = (struct t2f_module){ .size = sizeof(m), .path = "/nonexistent/t2f/prog",
				 .build_id = "00112233445566778899aabbccddeeff00112233" };
	assert_int_equal(t2f_symbols_add_module(s, &m, &gone), 0);
	assert_int_equal(t2f_symbols_resolve(s, gone, T2F_SPACE_ELF_VADDR, 0x1000, &out), 0);
	assert_null(out.name);
	assert_non_null(out.miss);
	assert_null(out.file);
	t2f_symbols_free(s);
}

struct listed {
	const struct expect *e;
	size_t n, unexpected;
};

static int count_listed(void *ctx, const struct t2f_elf_symbol *sym)
{
	struct listed *l = ctx;

	if (!sym->size)
		return 0;
	l->n++;
	l->unexpected += !named_at(l->e, sym->value, sym->name);
	return 0;
}

static int stop_at_first(void *ctx, const struct t2f_elf_symbol *sym)
{
	(*(int *)ctx)++;
	return 42;
}

/* The function symbols of a file, as its sidecar lists them; a walk stopped by the callback;
 * a file that is not there. */
static void test_each_function(void **state)
{
	static struct expect e;
	char path[4200], exp[4300];
	struct t2f_symbols *s = new_symbols(NULL);
	struct listed l = { .e = &e };
	int calls = 0;

	snprintf(path, sizeof(path), "%s/gnu/prog", root);
	snprintf(exp, sizeof(exp), "%s.expect", path);
	read_expect(exp, &e);
	assert_int_equal(t2f_symbols_each_function(s, path, count_listed, &l), 0);
	assert_int_equal(l.n, e.n_syms);
	assert_int_equal(l.unexpected, 0);
	assert_int_equal(t2f_symbols_each_function(s, path, stop_at_first, &calls), 42);
	assert_int_equal(calls, 1);
	assert_int_equal(t2f_symbols_each_function(s, "/nonexistent/t2f/prog", count_listed, &l),
			 -ENOENT);
	assert_non_null(strstr(t2f_symbols_error(s), "/nonexistent/t2f/prog"));
	t2f_symbols_free(s);
}

/* gnu/prog on disk where the trace recorded prog-v2: refused, naming both build-ids. */
static void test_refused(void **state)
{
	static struct expect v2, prog;
	char path[4200], exp[4300];
	struct t2f_symbols *s = new_symbols(NULL);
	struct t2f_symbol out = { .size = sizeof(out) };
	struct t2f_refused r = { .size = sizeof(r) };
	uint32_t id;

	snprintf(exp, sizeof(exp), "%s/gnu/prog-v2.expect", root);
	read_expect(exp, &v2);
	snprintf(path, sizeof(path), "%s/gnu/prog", root);
	snprintf(exp, sizeof(exp), "%s.expect", path);
	read_expect(exp, &prog);
	struct t2f_module m = { .size = sizeof(m), .path = path, .build_id = v2.build_id };

	assert_int_equal(t2f_symbols_add_module(s, &m, &id), 0);
	assert_int_equal(t2f_symbols_refusal_count(s, id), 0); /* not searched yet */
	assert_int_equal(t2f_symbols_resolve(s, id, T2F_SPACE_ELF_VADDR, 0x1000, &out), 0);
	assert_null(out.name);
	assert_true(t2f_symbols_refusal_count(s, id) >= 1);
	assert_int_equal(t2f_symbols_refusal(s, id, 0, &r), 0);
	assert_string_equal(r.path, path);
	assert_int_equal(r.reason, T2F_REFUSAL_BUILD_ID);
	assert_string_equal(r.why, "build-id mismatch");
	assert_string_equal(r.found_id, prog.build_id);
	assert_string_equal(r.expected_id, v2.build_id);
	assert_int_equal(t2f_symbols_refusal(s, id, 99, &r), -ERANGE);
	assert_int_equal(t2f_symbols_refusal(s, id + 1, 0, &r), -EINVAL);
	r.size = 0;
	assert_int_equal(t2f_symbols_refusal(s, id, 0, &r), -EINVAL);
	t2f_symbols_free(s);
}

/* The reason of a miss is the true one, by the public API and its refusals: with the
 * recording's build-id (gnu/prog's) and without one, a path where nothing is, a text file, an
 * ELF file linked without a build-id (gnu/prog-noid) and, with the id, one of another build
 * (gnu/prog-v2). Debug dirs: an empty one, so only the path is a candidate. */
struct miss_case {
	const char *file;       /* under the temp dir ("gone", "text") or the fixtures */
	bool with_id;
	const char *miss;
	int reason;             /* of the one refusal, 0: none */
};

static void check_miss(struct t2f_symbols *s, const char *path, const char *id,
		       const struct miss_case *c)
{
	struct t2f_symbol out = { .size = sizeof(out) };
	struct t2f_refused r = { .size = sizeof(r) };
	struct t2f_module m = { .size = sizeof(m), .path = path, .build_id = id };
	uint32_t mod;

	assert_int_equal(t2f_symbols_add_module(s, &m, &mod), 0);
	assert_int_equal(t2f_symbols_resolve(s, mod, T2F_SPACE_ELF_VADDR, 0x1000, &out), 0);
	assert_null(out.name);
	if (!out.miss || strcmp(out.miss, c->miss) != 0)
		fail_msg("%s (%s build-id): miss \"%s\", expected \"%s\"", c->file,
			 c->with_id ? "with" : "without", out.miss ? out.miss : "(hit)", c->miss);
	assert_int_equal(t2f_symbols_refusal_count(s, mod), c->reason ? 1 : 0);
	if (!c->reason)
		return;
	assert_int_equal(t2f_symbols_refusal(s, mod, 0, &r), 0);
	assert_string_equal(r.path, path);
	if ((int)r.reason != c->reason)
		fail_msg("%s (%s build-id): refused as %d (%s), expected %d", c->file,
			 c->with_id ? "with" : "without", (int)r.reason, r.why, c->reason);
}

static void test_miss_reasons(void **state)
{
	static const struct miss_case cases[] = {
		{ "gone", true, "no file", 0 },
		{ "gone", false, "no file", 0 },
		{ "text", true, "not ELF", T2F_REFUSAL_UNREADABLE },
		{ "text", false, "not ELF", T2F_REFUSAL_UNREADABLE },
		{ "gnu/prog-noid", true, "no build-id", T2F_REFUSAL_FILE_NO_BUILD_ID },
		{ "gnu/prog-noid", false, "no build-id", T2F_REFUSAL_NO_BUILD_ID },
		{ "gnu/prog-v2", true, "build-id mismatch", T2F_REFUSAL_BUILD_ID },
	};
	static struct expect prog;
	char tmp[] = "/tmp/t2f-miss-XXXXXX", text[64], path[4200], exp[4300];
	const char *dirs[] = { tmp, NULL };
	struct t2f_symbols_options o = { .size = sizeof(o), .debug_dirs = dirs, .offline = true };
	struct t2f_symbols *s;
	FILE *f;

	snprintf(exp, sizeof(exp), "%s/gnu/prog.expect", root);
	read_expect(exp, &prog);
	assert_non_null(mkdtemp(tmp));
	snprintf(text, sizeof(text), "%s/text", tmp);
	f = fopen(text, "w");
	assert_non_null(f);
	fputs("not an ELF file, only text\n", f);
	fclose(f);
	assert_int_equal(t2f_symbols_new(&o, &s), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct miss_case *c = &cases[i];

		if (strchr(c->file, '/'))
			snprintf(path, sizeof(path), "%s/%s", root, c->file);
		else
			snprintf(path, sizeof(path), "%s/%s", tmp, c->file);
		check_miss(s, path, c->with_id ? prog.build_id : NULL, c);
	}
	t2f_symbols_free(s);
	assert_int_equal(unlink(text), 0);
	assert_int_equal(rmdir(tmp), 0);
}

static void keep_line(void *ctx, const char *line)
{
	snprintf(ctx, 512, "%s", line);
}

/* With unsafe_build_id_match, a file of another build is taken, with a warning that names the
 * option as the library has it, not as a command-line flag. */
static void test_unsafe_warning(void **state)
{
	static struct expect v2;
	char path[4200], exp[4300], said[512] = "";
	const char *dirs[] = { "/nonexistent/t2f", NULL };
	struct t2f_symbols_options o = { .size = sizeof(o), .debug_dirs = dirs, .offline = true,
					 .unsafe_build_id_match = true, .message = keep_line,
					 .message_ctx = said };
	struct t2f_symbol out = { .size = sizeof(out) };
	struct t2f_symbols *s;
	uint32_t id;

	snprintf(exp, sizeof(exp), "%s/gnu/prog-v2.expect", root);
	read_expect(exp, &v2);
	snprintf(path, sizeof(path), "%s/gnu/prog", root);
	struct t2f_module m = { .size = sizeof(m), .path = path, .build_id = v2.build_id };

	assert_int_equal(t2f_symbols_new(&o, &s), 0);
	assert_int_equal(t2f_symbols_add_module(s, &m, &id), 0);
	assert_int_equal(t2f_symbols_resolve(s, id, T2F_SPACE_ELF_VADDR, 0x1000, &out), 0);
	assert_string_equal(out.file, path);
	t2f_symbols_free(s); /* flushes the messages */
	assert_non_null(strstr(said, "build-id mismatch accepted (unsafe_build_id_match)"));
	assert_null(strstr(said, "--"));
}

static void test_bad_calls(void **state)
{
	struct t2f_symbols_options o = { .size = sizeof(o) };
	struct t2f_module m = { .size = sizeof(m), .path = "/x" };
	struct t2f_symbol out = { .size = sizeof(out) };
	struct t2f_symbols *s = NULL;
	uint32_t id;

	assert_int_equal(t2f_symbols_new(NULL, &s), -EINVAL);
	assert_int_equal(t2f_symbols_new(&o, NULL), -EINVAL);
	o.size = 1;
	assert_int_equal(t2f_symbols_new(&o, &s), -EINVAL);
	o.size = T2F_SYMBOLS_OPTIONS_SIZE_V1 - 1;
	assert_int_equal(t2f_symbols_new(&o, &s), -EINVAL);
	o.size = sizeof(o);
	o.rules = (enum t2f_symbol_rules)9;
	assert_int_equal(t2f_symbols_new(&o, &s), -EINVAL);
	o.rules = T2F_RULES_AUTO;
	assert_int_equal(t2f_symbols_new(&o, &s), 0);
	assert_int_equal(t2f_symbols_add_module(NULL, &m, &id), -EINVAL);
	assert_int_equal(t2f_symbols_add_module(s, NULL, &id), -EINVAL);
	assert_int_equal(t2f_symbols_add_module(s, &m, NULL), -EINVAL);
	m.path = NULL; /* neither path nor build-id */
	assert_int_equal(t2f_symbols_add_module(s, &m, &id), -EINVAL);
	m.build_id = "not hex";
	assert_int_equal(t2f_symbols_add_module(s, &m, &id), -EINVAL);
	m.size = T2F_MODULE_SIZE_V1 - 1;
	m.build_id = "abcd";
	assert_int_equal(t2f_symbols_add_module(s, &m, &id), -EINVAL);
	assert_int_equal(t2f_symbols_resolve(s, 7, T2F_SPACE_ELF_VADDR, 0, &out), -EINVAL);
	m.size = sizeof(m);
	assert_int_equal(t2f_symbols_add_module(s, &m, &id), 0);
	assert_int_equal(t2f_symbols_resolve(s, id, (enum t2f_space)5, 0, &out), -EINVAL);
	assert_int_equal(t2f_symbols_resolve(s, id, T2F_SPACE_ELF_VADDR, 0, NULL), -EINVAL);
	out.size = 0;
	assert_int_equal(t2f_symbols_resolve(s, id, T2F_SPACE_ELF_VADDR, 0, &out), -EINVAL);
	out.size = T2F_SYMBOL_SIZE_V1 - 1;
	assert_int_equal(t2f_symbols_resolve(s, id, T2F_SPACE_ELF_VADDR, 0, &out), -EINVAL);
	assert_int_equal(t2f_symbols_resolve(NULL, id, T2F_SPACE_ELF_VADDR, 0, &out), -EINVAL);
	t2f_symbols_free(s);
	t2f_symbols_free(NULL);
}

static void test_demangle(void **state)
{
	char *full = t2f_demangle_name("_ZN2ns3fooEic", true);
	char *bare = t2f_demangle_name("_ZN2ns3fooEic", false);

	assert_string_equal(full, "ns::foo(int, char)");
	assert_string_equal(bare, "ns::foo");
	assert_null(t2f_demangle_name("main", true));
	assert_null(t2f_demangle_name(NULL, true));
	t2f_free(full);
	t2f_free(bare);
	t2f_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_space),
		cmocka_unit_test(test_by_build_id_and_misses),
		cmocka_unit_test(test_each_function),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_miss_reasons),
		cmocka_unit_test(test_unsafe_warning),
		cmocka_unit_test(test_bad_calls),
		cmocka_unit_test(test_demangle),
	};
	const char *fx = getenv("T2F_ELF_FIXTURES");

	if (!fx) {
		fprintf(stderr, "T2F_ELF_FIXTURES is not set\n");
		return 1;
	}
	snprintf(root, sizeof(root), "%s", fx);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
