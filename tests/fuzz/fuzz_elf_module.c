/* tests/fuzz/fuzz_elf_module.c: the symbolizer's ELF loader (symbolizer/elf_module.h) on any
 * bytes.
 *
 * The input is an ELF file. It is put in an in-memory file (memfd) and opened by its
 * /proc/self/fd path, as the symbolizer opens a binary: header checks, PT_LOAD table, build-id
 * note, .gnu_debuglink. Then everything a symbolizer asks of it: the symbol tables (.symtab,
 * .dynsym, .SUNW_ldynsym, MiniDebugInfo, compressed sections) listed by __each_symbol, lookups
 * at the first symbols' starts, ends and the byte past them and at the edges and middle of each
 * PT_LOAD (PLT stubs included), each hit's name demangled, each executable segment's mapping
 * turned into ELF addresses through the module_map arithmetic, the file's CRC, and its DWARF:
 * the inline chain and source line at each probed symbol (symbolizer/dwarf.h). Strict mode
 * (a corrupt table is an error, not a skipped table) for a quarter of the inputs; perf's symbol
 * rules (labels, objects, lookups through perf's tree) for half.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbolizer/demangle.h"
#include "symbolizer/dwarf.h"
#include "symbolizer/elf_module.h"
#include "symbolizer/module_map.h"
#include "tests/fuzz/fuzz_support.h"

#define MAX_PROBED_SYMS 64   /* symbols whose addresses are looked up */
#define MAX_LOADS 16         /* PT_LOADs whose addresses are looked up */

struct probe {
	uint64_t value[MAX_PROBED_SYMS], size[MAX_PROBED_SYMS];
	size_t n;
	size_t name_bytes;
};

static int collect_sym(void *ctx, const struct t2f_elf_sym *s)
{
	struct probe *pr = ctx;

	FZ_CHECK(s->name && s->table, "a symbol without name or table");
	pr->name_bytes += strlen(s->name) + strlen(s->table);
	if (pr->n < MAX_PROBED_SYMS) {
		pr->value[pr->n] = s->value;
		pr->size[pr->n] = s->size;
		pr->n++;
	}
	return 0;
}

/* One lookup; a hit's name is demangled as the symbolizer would. */
static void lookup(struct t2f_elf_module *m, uint64_t addr, enum t2f_demangle_mode mode)
{
	struct t2f_elf_sym s;
	int r = t2f_elf_module__lookup(m, addr, &s);
	char *dm;

	FZ_CHECK(r <= 1, "lookup returned %d", r);
	if (r != 1)
		return;
	FZ_CHECK(s.name && s.table, "a hit without name or table");
	FZ_CHECK(addr >= s.value, "hit at 0x%llx starts after it (0x%llx)",
		 (unsigned long long)addr, (unsigned long long)s.value);
	dm = t2f_demangle(s.name, mode);
	free(dm);
}

/* The executable segment mapped at a typical address, its first bytes and its last turned
 * into ELF addresses, by the PT_LOAD table and by the nettrace formula. */
static void map_segment(const struct t2f_elf_load *ld, const struct t2f_load_table *t,
			struct t2f_elf_module *m, enum t2f_demangle_mode mode)
{
	struct t2f_map_view v = {
		.map_start = 0x7f0000000000ull,
		.map_pgoff = ld->p_offset & ~(uint64_t)0xfff,
		.p_vaddr = ld->p_vaddr,
		.p_offset = ld->p_offset,
		.page_size = 4096,
	};
	uint64_t span = (ld->p_offset - v.map_pgoff) + ld->p_filesz, ips[3], vaddr;

	v.map_end = span < UINT64_MAX - v.map_start ? v.map_start + span : UINT64_MAX;
	ips[0] = v.map_start;
	ips[1] = v.map_start + (ld->p_offset - v.map_pgoff);
	ips[2] = v.map_end > v.map_start ? v.map_end - 1 : v.map_start;
	for (size_t i = 0; i < 3; i++) {
		v.has_segment = false;
		if (t2f_map_view__elf_vaddr(&v, t, ips[i], &vaddr))
			lookup(m, vaddr, mode);
		v.has_segment = true;
		if (t2f_map_view__segment_vaddr(&v, ips[i], &vaddr))
			lookup(m, vaddr, mode);
	}
}

static void probe_loads(struct t2f_elf_module *m, enum t2f_demangle_mode mode)
{
	size_t n = t2f_elf_module__load_count(m);
	struct t2f_elf_load loads[MAX_LOADS];
	struct t2f_load_table t = { .loads = loads, .n = n < MAX_LOADS ? n : MAX_LOADS };

	for (size_t i = 0; i < t.n; i++)
		loads[i] = *t2f_elf_module__load_at(m, i);
	FZ_CHECK(n == 0 || t2f_elf_module__load_at(m, n - 1), "load %zu of %zu missing", n - 1, n);
	FZ_CHECK(!t2f_elf_module__load_at(m, n), "a load past the count");
	t.offsets_trusted = t2f_loads_offsets_trusted(loads, t.n);
	t.memsz_offsets = (mode + n) % 2;
	for (size_t i = 0; i < t.n; i++) {
		const struct t2f_elf_load *ld = &loads[i];

		lookup(m, ld->p_vaddr, mode);
		lookup(m, ld->p_vaddr + ld->p_memsz / 2, mode);
		if (ld->p_memsz)
			lookup(m, ld->p_vaddr + ld->p_memsz - 1, mode);
		if (ld->p_flags & 1 /* PF_X */)
			map_segment(ld, &t, m, mode);
	}
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* Whether the chain at addr is f[0..n), as __lookup_span said of the addresses around. */
static bool same_chain(struct t2f_dwarf *dw, uint64_t addr, const struct t2f_dwarf_frame *f,
		       int n, size_t max)
{
	struct t2f_dwarf_frame g[T2F_DWARF_MAX_DEPTH];
	int m = t2f_dwarf__lookup(dw, addr, g, max);

	if (m < 0)
		return true;  /* out of memory: nothing to compare */
	for (int k = 0; k < n && m == n; k++)
		if (!same_str(f[k].name, g[k].name) || !same_str(f[k].file, g[k].file) ||
		    f[k].line != g[k].line || !same_str(f[k].fn_file, g[k].fn_file) ||
		    f[k].fn_line != g[k].fn_line || f[k].linkage != g[k].linkage ||
		    f[k].copy != g[k].copy || f[k].as_symbol != g[k].as_symbol)
			return false;
	return m == n;
}

/* The file's DWARF (symbolizer/dwarf.h): the inline chain at each probed symbol's start and
 * middle and at h, every string of it read; the same chain at both ends of the range
 * __lookup_span gives for it. */
static void probe_dwarf(const char *path, const struct probe *pr, uint64_t h)
{
	struct t2f_dwarf_frame f[T2F_DWARF_MAX_DEPTH];
	struct t2f_dwarf *dw = NULL;
	struct t2f_diag *d = NULL;
	size_t bytes = 0;

	if (t2f_diag__new(NULL, &d))
		abort();
	if (t2f_dwarf__open(path, NULL, d, &dw) == 0 && dw) {
		for (size_t i = 0; i <= 2 * pr->n; i++) {
			uint64_t a = i == 2 * pr->n ? h
				     : pr->value[i / 2] + (i % 2) * pr->size[i / 2] / 2;
			size_t max = 1 + (size_t)(h >> (i % 32)) % T2F_DWARF_MAX_DEPTH;
			uint64_t lo, last;
			int n = t2f_dwarf__lookup_span(dw, a, f, max, &lo, &last);

			FZ_CHECK(n >= -ENOMEM && n <= (int)max, "%d frames of at most %zu", n, max);
			FZ_CHECK(lo <= a && a <= last, "span %#llx-%#llx of %#llx",
				 (unsigned long long)lo, (unsigned long long)last,
				 (unsigned long long)a);
			FZ_CHECK(n < 0 || (same_chain(dw, lo, f, n, max) &&
					   same_chain(dw, last, f, n, max)),
				 "another chain in the span %#llx-%#llx of %#llx",
				 (unsigned long long)lo, (unsigned long long)last,
				 (unsigned long long)a);
			for (int k = 0; k < n; k++)
				bytes += (f[k].name ? strlen(f[k].name) : 0) +
					 (f[k].file ? strlen(f[k].file) : 0) + f[k].line % 2;
		}
	}
	(void)bytes;
	if (dw)
		t2f_dwarf__report(dw, d);
	t2f_dwarf__free(dw);
	t2f_diag__free(d);
}

static void probe_module(struct t2f_elf_module *m, const char *path, uint64_t h)
{
	enum t2f_demangle_mode mode = (enum t2f_demangle_mode)((h >> 8) % 3);
	struct probe pr = { 0 };
	const uint8_t *id;
	const char *link;
	uint32_t crc;
	size_t len;
	int err;

	(void)t2f_elf_module__machine(m);
	(void)t2f_elf_module__type(m);
	FZ_CHECK(strcmp(t2f_elf_module__path(m), path) == 0, "path changed");
	id = t2f_elf_module__build_id(m, &len);
	FZ_CHECK((id != NULL) == (len > 0) && len <= T2F_BUILD_ID_MAX, "build-id of %zu bytes",
		 len);
	if (t2f_elf_module__debuglink(m, &link, &crc))
		FZ_CHECK(!strchr(link, '/'), "debuglink with a '/' accepted");
	(void)t2f_elf_module__has_symbols(m);
	err = t2f_elf_module__each_symbol(m, collect_sym, &pr);
	FZ_CHECK(err <= 0, "each_symbol returned %d", err);
	for (size_t i = 0; i < pr.n; i++) {
		lookup(m, pr.value[i], mode);
		if (pr.size[i]) {
			lookup(m, pr.value[i] + pr.size[i] - 1, mode);
			lookup(m, pr.value[i] + pr.size[i], mode);
		}
	}
	probe_loads(m, mode);
	lookup(m, h, mode);
	FZ_CHECK(t2f_elf_file_crc32(path, &crc) == 0, "crc32 of the file failed");
	probe_dwarf(path, &pr, h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t h = fz_hash(data, size);
	struct t2f_elf_module *m = NULL;
	struct t2f_diag *d = NULL;
	char path[64];
	int fd = fz_memfd(data, size, path, sizeof(path));

	if (fd < 0 || t2f_diag__new(NULL, &d))
		abort();
	t2f_diag__set_strict(d, (h & 3) == 3);
	if (t2f_elf_module__open(path, d, &m) == 0) {
		if ((h >> 16) & 1)  /* perf's rules: labels, objects, perf's tree, perf's PLT */
			t2f_elf_module__use_perf_rules(m);
		probe_module(m, path, h);
	}
	else
		FZ_CHECK(m == NULL, "a failed open left a module");
	t2f_elf_module__free(m);
	t2f_diag__free(d);
	close(fd);
	return 0;
}
