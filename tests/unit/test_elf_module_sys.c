/* tests/unit/test_elf_module_sys.c: symbolizer/elf_module against this machine's own files
 * (the fixture tests are test_elf_module.c). Files that are not installed are skipped.
 *
 * - lookups agree with a brute-force model of the header's rules (kept symbols, one per
 *   address by preference, the symbol with the nearest start that contains the address,
 *   sizeless ones only exactly) at every symbol's edges and at random addresses, for x86
 *   files: libc, the libstdc++ debug build, a few /usr/lib/debug files, and the x86 ELF
 *   fixtures when T2F_ELF_FIXTURES is set;
 * - the same on a small ELF64 file written here with nested functions (a function ending
 *   inside another, a sizeless label inside one) and duplicates at one address;
 * - a .dynsym beside a .symtab with as many records (left out) and beside a shorter one
 *   (behind it);
 * - the same model over thousands of generated symbols in a .symtab and a longer .dynsym
 *   (clusters far apart, nesting, sizeless ones, many at one address), every symbol's edges
 *   and 20,000 random addresses; every address of a fixture's small span;
 * - a /usr/lib/debug/.build-id/xx/rest.debug file's build-id is xx + rest;
 * - an installed binary's .gnu_debuglink names its build-id file, whose zlib CRC-32 matches.
 */
#include <dirent.h>
#include <elf.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <fcntl.h>
#include <gelf.h>

#include "symbolizer/elf_module.h"

#define MAX_FILES 16

struct model_sym {
	uint64_t value, size;
	const char *name, *table;
	unsigned rank, under, order;
};

struct model {
	struct model_sym *v;
	size_t n, cap;
	size_t symtab, dynsym;      /* records in the file's own .symtab and .dynsym */
};

static unsigned rank_of(unsigned char bind)
{
	return bind == STB_GLOBAL || bind == STB_GNU_UNIQUE ? 0 : bind == STB_WEAK ? 1
	       : bind == STB_LOCAL ? 2 : 3;
}

static int model_add(void *ctx, const struct t2f_elf_sym *s)
{
	struct model *md = ctx;
	unsigned under = 0;

	if (md->n == md->cap) {
		md->cap = md->cap ? md->cap * 2 : 1024;
		md->v = realloc(md->v, md->cap * sizeof(*md->v));
		assert_non_null(md->v);
	}
	while (s->name[under] == '_')
		under++;
	md->v[md->n] = (struct model_sym){ s->value, s->size, s->name, s->table, rank_of(s->bind),
		under, (unsigned)md->n };
	if (md->symtab && (strcmp(s->table, ".dynsym") == 0 ||
			   strcmp(s->table, ".SUNW_ldynsym") == 0)) {
		if (md->symtab >= md->dynsym)
			return 0;                  /* a .dynsym beside a full .symtab: not indexed */
		md->v[md->n].rank += 4;            /* behind a short .symtab's entries */
	}
	md->n++;
	return 0;
}

/* md->symtab, md->dynsym: the record counts of the file's own tables, read with libelf. */
static void count_tables(const char *path, struct model *md)
{
	int fd = open(path, O_RDONLY);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf *e;

	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	while (e && (scn = elf_nextscn(e, scn)) && gelf_getshdr(scn, &sh)) {
		if (sh.sh_type == SHT_NOBITS || !sh.sh_entsize)
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			md->symtab = sh.sh_size / sh.sh_entsize;
		else if (sh.sh_type == SHT_DYNSYM || sh.sh_type == 0x6ffffff3)
			md->dynsym = sh.sh_size / sh.sh_entsize;
	}
	elf_end(e);
	close(fd);
}

/* a better than b at one address: the header's order, then the listing order */
static bool better(const struct model_sym *a, const struct model_sym *b)
{
	if ((a->size != 0) != (b->size != 0))
		return a->size != 0;
	if (a->rank != b->rank)
		return a->rank < b->rank;
	if (a->under != b->under)
		return a->under < b->under;
	return a->order < b->order;
}

static int by_value_then_better(const void *pa, const void *pb)
{
	const struct model_sym *a = pa, *b = pb;

	if (a->value != b->value)
		return a->value < b->value ? -1 : 1;
	return better(a, b) ? -1 : better(b, a) ? 1 : 0;
}

/* Keeps the preferred symbol of each address (the model's entries). */
static void model_dedup(struct model *md)
{
	size_t k = 0;

	qsort(md->v, md->n, sizeof(*md->v), by_value_then_better);
	for (size_t i = 0; i < md->n; i++)
		if (!k || md->v[i].value != md->v[k - 1].value)
			md->v[k++] = md->v[i];
	md->n = k;
}

/* What a lookup of addr must give: the entry containing addr with the largest start. */
static const struct model_sym *model_lookup(const struct model *md, uint64_t addr)
{
	const struct model_sym *hit = NULL;

	for (size_t i = 0; i < md->n; i++) {
		const struct model_sym *e = &md->v[i];

		if (e->value <= addr && (addr == e->value || addr - e->value < e->size))
			hit = e;
	}
	return hit;
}

static void check_addr(struct t2f_elf_module *m, const struct model *md, uint64_t addr)
{
	const struct model_sym *want = model_lookup(md, addr);
	struct t2f_elf_sym got;
	int r = t2f_elf_module__lookup(m, addr, &got);

	if (!want) {
		/* PLT stubs are lookup entries no table lists: "SYMBOL@plt" in .plt/.plt.sec,
		 * holding addr (their names are checked against objdump in test_elf_module.c) */
		if (r == 1 && strncmp(got.table, ".plt", 4) == 0 && strstr(got.name, "@plt") &&
		    got.value <= addr && addr - got.value < got.size)
			return;
		if (r != 0)
			fail_msg("%s: %#llx: got %s, want a miss", t2f_elf_module__path(m),
				 (unsigned long long)addr, got.name);
		return;
	}
	if (r != 1 || got.value != want->value || strcmp(got.name, want->name) != 0 ||
	    strcmp(got.table, want->table) != 0 || got.size != want->size)
		fail_msg("%s: %#llx: got %d %s %#llx, want %s %#llx", t2f_elf_module__path(m),
			 (unsigned long long)addr, r, r == 1 ? got.name : "-",
			 r == 1 ? (unsigned long long)got.value : 0ull, want->name,
			 (unsigned long long)want->value);
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Edges of every symbol (sampled for big files unless `all`), random addresses around them
 * (more when `all`), and every address of a small span. */
static void check_file_at(const char *path, bool all)
{
	struct t2f_elf_module *m = NULL;
	struct model md = { 0 };
	uint64_t lo = UINT64_MAX, hi = 0, seed = 0x2545f4914f6cdd1dull;
	size_t step;

	if (access(path, R_OK) != 0)
		return;
	assert_int_equal(t2f_elf_module__open(path, NULL, &m), 0);
	if (t2f_elf_module__machine(m) != EM_X86_64 && t2f_elf_module__machine(m) != EM_386) {
		t2f_elf_module__free(m);
		return;  /* the model does not do the arch fix-ups */
	}
	count_tables(path, &md);
	assert_int_equal(t2f_elf_module__each_symbol(m, model_add, &md), 0);
	assert_true(t2f_elf_module__has_symbols(m) == (md.n > 0));
	model_dedup(&md);
	step = md.n > 400 && !all ? md.n / 400 : 1;
	for (size_t i = 0; i < md.n; i += step) {
		uint64_t v = md.v[i].value, s = md.v[i].size;

		check_addr(m, &md, v);
		check_addr(m, &md, v - 1);
		check_addr(m, &md, v + s);
		if (s)
			check_addr(m, &md, v + s - 1);
	}
	for (size_t i = 0; i < md.n; i++) {
		lo = md.v[i].value < lo ? md.v[i].value : lo;
		hi = md.v[i].value + md.v[i].size > hi ? md.v[i].value + md.v[i].size : hi;
	}
	for (int i = 0; i < (all ? 20000 : 300) && hi > lo; i++)
		check_addr(m, &md, lo + xorshift(&seed) % (hi - lo));
	for (uint64_t a = lo > 16 ? lo - 16 : 0; hi > lo && (hi - lo) * md.n <= (1u << 24) &&
						 a < hi + 16; a++)
		check_addr(m, &md, a);
	free(md.v);
	t2f_elf_module__free(m);
}

static void check_file(const char *path)
{
	check_file_at(path, false);
}

/* Up to max regular files of /usr/lib/debug/.build-id/xx/, named *.debug. */
static size_t debug_files(char paths[][PATH_MAX], size_t max)
{
	const char *root = "/usr/lib/debug/.build-id";
	struct dirent *d, *e;
	DIR *top = opendir(root), *sub;
	size_t n = 0;

	while (top && n < max && (d = readdir(top))) {
		char dir[64];  /* "/usr/lib/debug/.build-id/xx" */

		if (strlen(d->d_name) != 2)
			continue;
		snprintf(dir, sizeof(dir), "%s/%.2s", root, d->d_name);
		sub = opendir(dir);
		while (sub && n < max && (e = readdir(sub))) {
			size_t len = strlen(e->d_name);

			if (len > 6 && strcmp(e->d_name + len - 6, ".debug") == 0)
				snprintf(paths[n++], PATH_MAX, "%s/%s", dir, e->d_name);
		}
		if (sub)
			closedir(sub);
	}
	if (top)
		closedir(top);
	return n;
}

static void test_lookup_model(void **state)
{
	static char paths[MAX_FILES][PATH_MAX];
	static const char *fixtures[] = { "gnu/prog", "gnu/libfx.so", "lld/prog", "lld/libfx.so",
		"m32/libfx.so", "minidebug/prog", "sunw/libfx.so", "compressed/libfx-symtab-zlib.so",
		"compressed/libfx-symtab-zstd.so" };
	const char *fx = getenv("T2F_ELF_FIXTURES");
	char path[PATH_MAX];
	size_t n;

	(void)state;
	check_file("/usr/lib/x86_64-linux-gnu/libc.so.6");
	check_file("/usr/lib/x86_64-linux-gnu/debug/libstdc++.so.6.0.30");
	n = debug_files(paths, 6);
	for (size_t i = 0; i < n; i++)
		check_file(paths[i]);
	for (size_t i = 0; fx && i < sizeof(fixtures) / sizeof(*fixtures); i++) {
		snprintf(path, sizeof(path), "%s/%s", fx, fixtures[i]);
		check_file(path);
	}
}

struct fsym {
	const char *name;
	uint64_t value, size;
	unsigned char bind;
};

/* A minimal ET_DYN x86-64 file: .text at 0x1000 and a .symtab with these functions. */
static const struct fsym nest[] = {
	{ "outer", 0x1000, 0x80, STB_GLOBAL },
	{ "inner", 0x1010, 0x10, STB_LOCAL },      /* ends before outer does */
	{ "label", 0x1020, 0, STB_GLOBAL },        /* sizeless, inside outer */
	{ "deep", 0x1040, 0x40, STB_GLOBAL },      /* ends with outer */
	{ "deeper", 0x1044, 4, STB_LOCAL },
	{ "__dup", 0x1090, 8, STB_GLOBAL },
	{ "dup", 0x1090, 8, STB_WEAK },
	{ "_dup", 0x1090, 8, STB_GLOBAL },         /* GLOBAL, then fewer '_': this one */
	{ "z0", 0x10a0, 0, STB_GLOBAL },
	{ "z1", 0x10a0, 4, STB_LOCAL },            /* a size first: this one */
};

#define N_SECTIONS 7

static void put_shdr(unsigned char *f, uint64_t shoff, size_t i, uint32_t name, uint32_t type,
		     uint64_t addr, uint64_t off, uint64_t size, uint32_t link, uint64_t entsize)
{
	Elf64_Shdr sh = { .sh_name = name, .sh_type = type, .sh_addr = addr, .sh_offset = off,
		.sh_size = size, .sh_link = link, .sh_addralign = 8, .sh_entsize = entsize };

	memcpy(f + shoff + i * sizeof(sh), &sh, sizeof(sh));
}

/* The bytes of a string table holding v[0..n)'s names (after the empty one). */
static size_t strtab_size(const struct fsym *v, size_t n)
{
	size_t size = 1;

	for (size_t i = 0; i < n; i++)
		size += strlen(v[i].name) + 1;
	return size;
}

/* A symbol table of n records (the null one first) at `at`, names at `str_at`. */
static void put_table(unsigned char *f, size_t at, size_t str_at, const struct fsym *v, size_t n)
{
	size_t str = 1;

	for (size_t i = 0; i < n; i++) {
		Elf64_Sym s = { .st_name = (uint32_t)str, .st_value = v[i].value,
			.st_size = v[i].size, .st_shndx = 1,
			.st_info = ELF64_ST_INFO(v[i].bind, STT_FUNC) };

		memcpy(f + at + (i + 1) * sizeof(s), &s, sizeof(s));
		memcpy(f + str_at + str, v[i].name, strlen(v[i].name) + 1);
		str += strlen(v[i].name) + 1;
	}
}

static size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* Writes a file with .text (NOBITS at 0x1000), .dynsym (dyn[0..nd), NOBITS when nd == 0),
 * .dynstr, .symtab (sym[0..ns)), .strtab, .shstrtab, then the section headers, back to back.
 * Returns its path. */
static const char *write_elf(char *path, const struct fsym *sym, size_t ns, const struct fsym *dyn,
			     size_t nd)
{
	static const char shstr[] = "\0.text\0.dynsym\0.dynstr\0.symtab\0.strtab\0.shstrtab";
	size_t dsym = sizeof(Elf64_Ehdr), dstr = dsym + (nd + 1) * sizeof(Elf64_Sym),
	       tab = align8(dstr + strtab_size(dyn, nd)), str = tab + (ns + 1) * sizeof(Elf64_Sym),
	       sh_str = str + strtab_size(sym, ns), shoff = align8(sh_str + sizeof(shstr)),
	       size = shoff + N_SECTIONS * sizeof(Elf64_Shdr);
	unsigned char *f = calloc(1, size);
	Elf64_Ehdr eh = { .e_type = ET_DYN, .e_machine = EM_X86_64, .e_version = EV_CURRENT,
		.e_ehsize = sizeof(Elf64_Ehdr), .e_shoff = shoff,
		.e_shentsize = sizeof(Elf64_Shdr), .e_shnum = N_SECTIONS, .e_shstrndx = 6 };
	FILE *out;
	int fd;

	assert_non_null(f);
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	memcpy(f, &eh, sizeof(eh));
	put_table(f, dsym, dstr, dyn, nd);
	put_table(f, tab, str, sym, ns);
	memcpy(f + sh_str, shstr, sizeof(shstr));
	put_shdr(f, shoff, 1, 1, SHT_NOBITS, 0x1000, 0, 0x100, 0, 0);
	put_shdr(f, shoff, 2, 7, nd ? SHT_DYNSYM : SHT_NOBITS, 0, dsym,
		 (nd + 1) * sizeof(Elf64_Sym), 3, sizeof(Elf64_Sym));
	put_shdr(f, shoff, 3, 15, SHT_STRTAB, 0, dstr, strtab_size(dyn, nd), 0, 0);
	put_shdr(f, shoff, 4, 23, SHT_SYMTAB, 0, tab, (ns + 1) * sizeof(Elf64_Sym), 5,
		 sizeof(Elf64_Sym));
	put_shdr(f, shoff, 5, 31, SHT_STRTAB, 0, str, strtab_size(sym, ns), 0, 0);
	put_shdr(f, shoff, 6, 39, SHT_STRTAB, 0, sh_str, sizeof(shstr), 0, 0);
	strcpy(path, "/tmp/t2f-elf-nest.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	out = fdopen(fd, "wb");
	assert_non_null(out);
	assert_int_equal(fwrite(f, 1, size, out), size);
	assert_int_equal(fclose(out), 0);
	free(f);
	return path;
}

static void expect_at(struct t2f_elf_module *m, uint64_t addr, const char *name)
{
	struct t2f_elf_sym sym;
	int r = t2f_elf_module__lookup(m, addr, &sym);

	if (!name) {
		assert_int_equal(r, 0);
		return;
	}
	assert_int_equal(r, 1);
	assert_string_equal(sym.name, name);
}

static void test_nested_and_duplicates(void **state)
{
	struct t2f_elf_module *m = NULL;
	char path[64];

	(void)state;
	write_elf(path, nest, sizeof(nest) / sizeof(*nest), NULL, 0);
	check_file(path);
	assert_int_equal(t2f_elf_module__open(path, NULL, &m), 0);
	expect_at(m, 0xfff, NULL);
	expect_at(m, 0x1000, "outer");
	expect_at(m, 0x1018, "inner");
	expect_at(m, 0x101f, "inner");
	expect_at(m, 0x1020, "label");
	expect_at(m, 0x1021, "outer");   /* past inner's end, label is sizeless */
	expect_at(m, 0x1046, "deeper");
	expect_at(m, 0x1048, "deep");
	expect_at(m, 0x107f, "deep");
	expect_at(m, 0x1080, NULL);
	expect_at(m, 0x1094, "_dup");
	expect_at(m, 0x10a0, "z1");
	expect_at(m, 0x10a3, "z1");
	expect_at(m, 0x10a4, NULL);
	t2f_elf_module__free(m);
	unlink(path);
}

/* .dynsym beside a .symtab: a .symtab with at least as many records decides alone (its
 * versioned name, no .dynsym-only symbol); a shorter one goes first at an address. */
static void test_dynsym_beside_symtab(void **state)
{
	static const struct fsym dyn[] = {
		{ "foo", 0x1000, 0x10, STB_GLOBAL },
		{ "gone", 0x1020, 0x10, STB_GLOBAL },       /* stripped out of the .symtab */
	};
	static const struct fsym full[] = {
		{ "foo@@V1", 0x1000, 0x10, STB_GLOBAL },
		{ "local", 0x1040, 0x10, STB_LOCAL },
	};
	static const struct fsym shorter[] = {
		{ "foo_local", 0x1000, 0x10, STB_LOCAL },
	};
	struct t2f_elf_module *m = NULL;
	char path[64];

	(void)state;
	write_elf(path, full, 2, dyn, 2);
	check_file(path);
	assert_int_equal(t2f_elf_module__open(path, NULL, &m), 0);
	expect_at(m, 0x1004, "foo@@V1");
	expect_at(m, 0x1024, NULL);
	expect_at(m, 0x1044, "local");
	t2f_elf_module__free(m);
	unlink(path);

	write_elf(path, shorter, 1, dyn, 2);
	check_file(path);
	assert_int_equal(t2f_elf_module__open(path, NULL, &m), 0);
	expect_at(m, 0x1004, "foo_local");          /* LOCAL, yet the .symtab's */
	expect_at(m, 0x1024, "gone");
	t2f_elf_module__free(m);
	unlink(path);
}

#define MANY_SYMTAB 2000
#define MANY_DYNSYM 2500                   /* more than the .symtab: both are indexed */

/* n symbols in clusters of small functions megabytes apart (the sort takes several passes, a
 * bucket may hold many entries), with functions nested in others, sizeless ones, and several
 * symbols at one address differing in size, binding and leading '_'; from record `far` on,
 * 2^41 further (addresses beyond the packed sort keys: the other sort). Shuffled. */
static void many_symbols(struct fsym *v, char (*names)[24], size_t n, size_t far, char tag,
			 uint64_t *seed)
{
	static const unsigned char binds[] = { STB_GLOBAL, STB_WEAK, STB_LOCAL };
	uint64_t at = 0x400000, prev_size = 64, r, k;
	struct fsym t;

	for (size_t i = 0; i < n; i++) {
		r = xorshift(seed);
		switch (r % 16) {
		case 0: at += 1024 + (r >> 8) % (64u << 20); break;    /* another cluster */
		case 1: case 2: break;                                /* at the same address */
		case 3: at += 1 + (r >> 8) % (prev_size + 1); break;  /* inside the previous one */
		default: at += prev_size + (r >> 8) % 48; break;      /* the next function */
		}
		prev_size = (r >> 20) % 8 ? 1 + (r >> 24) % 256 : 0;
		snprintf(names[i], sizeof(*names), "%.*s%c%zu", (int)((r >> 40) % 3), "__", tag, i);
		v[i] = (struct fsym){ names[i], at + (i >= far ? UINT64_C(1) << 41 : 0), prev_size,
			binds[(r >> 32) % 3] };
	}
	for (size_t i = n; i > 1; i--) {
		k = xorshift(seed) % i;
		t = v[i - 1];
		v[i - 1] = v[k];
		v[k] = t;
	}
}

/* Lookups over a .symtab and a longer .dynsym of generated symbols agree with the model at
 * every symbol's edges and at random addresses; once within 2^40 bytes, once not. */
static void test_many_symbols(void **state)
{
	static char sym_names[MANY_SYMTAB][24], dyn_names[MANY_DYNSYM][24];
	static struct fsym sym[MANY_SYMTAB], dyn[MANY_DYNSYM];
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	char path[64];

	(void)state;
	for (int far = 0; far < 2; far++) {
		many_symbols(sym, sym_names, MANY_SYMTAB, far ? MANY_SYMTAB / 2 : SIZE_MAX, 's',
			     &seed);
		many_symbols(dyn, dyn_names, MANY_DYNSYM, far ? MANY_DYNSYM / 2 : SIZE_MAX, 'd',
			     &seed);
		for (size_t i = 0; i < MANY_DYNSYM; i += 2)  /* half at a .symtab symbol's address */
			dyn[i].value = sym[i % MANY_SYMTAB].value;
		write_elf(path, sym, MANY_SYMTAB, dyn, MANY_DYNSYM);
		check_file_at(path, true);
		unlink(path);
	}
}

static void test_build_id_tree(void **state)
{
	static char paths[MAX_FILES][PATH_MAX];
	size_t n = debug_files(paths, MAX_FILES), len;

	(void)state;
	if (!n)
		skip();
	for (size_t i = 0; i < n; i++) {
		struct t2f_elf_module *m = NULL;
		const char *file = strrchr(paths[i], '/') + 1, *xx = file - 3;
		const uint8_t *id;
		char hex[2 * T2F_BUILD_ID_MAX + 8] = "";

		assert_int_equal(t2f_elf_module__open(paths[i], NULL, &m), 0);
		id = t2f_elf_module__build_id(m, &len);
		assert_non_null(id);
		for (size_t k = 0; k < len; k++)
			sprintf(hex + 2 * k, "%02x", id[k]);
		assert_memory_equal(hex, xx, 2);
		assert_int_equal(strlen(file), 2 * len - 2 + 6);
		assert_memory_equal(hex + 2, file, 2 * len - 2);
		t2f_elf_module__free(m);
	}
}

static void test_debuglink_crc(void **state)
{
	static const char *bins[] = { "/usr/lib/x86_64-linux-gnu/libc.so.6",
		"/usr/lib/x86_64-linux-gnu/libstdc++.so.6", "/usr/lib/x86_64-linux-gnu/libm.so.6" };
	unsigned checked = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(bins) / sizeof(*bins); i++) {
		struct t2f_elf_module *m = NULL;
		const char *name;
		char dbg[PATH_MAX];
		const uint8_t *id;
		uint32_t crc, file_crc;
		size_t len;

		if (t2f_elf_module__open(bins[i], NULL, &m) != 0)
			continue;
		id = t2f_elf_module__build_id(m, &len);
		if (id && len > 1 && t2f_elf_module__debuglink(m, &name, &crc)) {
			int k = snprintf(dbg, sizeof(dbg), "/usr/lib/debug/.build-id/%02x/", id[0]);

			for (size_t j = 1; j < len; j++)
				k += snprintf(dbg + k, sizeof(dbg) - (size_t)k, "%02x", id[j]);
			snprintf(dbg + k, sizeof(dbg) - (size_t)k, ".debug");
			if (access(dbg, R_OK) == 0) {
				assert_string_equal(name, strrchr(dbg, '/') + 1);
				assert_int_equal(t2f_elf_file_crc32(dbg, &file_crc), 0);
				assert_int_equal(file_crc, crc);
				checked++;
			}
		}
		t2f_elf_module__free(m);
	}
	if (!checked)
		skip();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lookup_model),
		cmocka_unit_test(test_nested_and_duplicates),
		cmocka_unit_test(test_dynsym_beside_symtab),
		cmocka_unit_test(test_many_symbols),
		cmocka_unit_test(test_build_id_tree),
		cmocka_unit_test(test_debuglink_crc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
