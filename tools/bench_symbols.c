/* tools/bench_symbols.c: t2f-bench-symbols FILE...: how fast elf_module loads, looks up and how
 * fast its names demangle (tools/bench-symbols picks the files). Per FILE:
 *
 *   load      open + symbol tables + sorted index (the first lookup builds it), best of
 *             several runs, and the same scaled to 18,000 function symbols (the target is
 *             <= 1 ms per 18K; PerfView's C# parser: 2.3 ms)
 *   lookup    T2F_BENCH_LOOKUPS (default 10,000,000) random addresses inside the executable
 *             PT_LOAD range (the symbols' range when there is none) in 10 rounds: ns per lookup
 *             of the best and the median round, and the hit rate (the target is <= 20 ns;
 *             PerfView: 29 ns at 18K)
 *   demangle  t2f_demangle(FULL) over every kept symbol name, ns per name
 *
 * t2f-bench-symbols --count FILE... prints "COUNT<TAB>FILE" per readable ELF file instead, COUNT
 * its kept symbols (what "symbols:" below reports; files that fail to open are left out), for
 * tools/bench-symbols to pick the module with the most symbols.
 *
 * Times are this thread's CPU time (CLOCK_THREAD_CPUTIME_ID), so other processes on a shared
 * machine count less; caches are still shared. A benchmark, not a test: it prints numbers and
 * fails only when a file cannot be read.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "formats/diag.h"
#include "formats/grow.h"
#include "symbolizer/demangle.h"
#include "symbolizer/elf_module.h"

#define LOAD_RUNS 15
#define LOOKUP_ROUNDS 10
#define PF_EXEC 1u

/* CPU time of this thread: the machines this runs on are shared, and wall time there counts
 * the other processes too. */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

struct names {
	const char **v;
	size_t n, cap;
	uint64_t lo, hi;          /* the symbols' address range */
};

static int add_name(void *ctx, const struct t2f_elf_sym *sym)
{
	struct names *nm = ctx;

	if (t2f_grow((void **)&nm->v, &nm->cap, nm->n, 1, sizeof(*nm->v), 4096, SIZE_MAX))
		return -ENOMEM;
	nm->v[nm->n++] = sym->name;
	if (!nm->lo || sym->value < nm->lo)
		nm->lo = sym->value;
	if (sym->value + sym->size > nm->hi)
		nm->hi = sym->value + sym->size;
	return 0;
}

/* Best of LOAD_RUNS: open + build the index with one lookup. */
static int bench_load(const char *path, struct t2f_diag *d, double *best)
{
	struct t2f_elf_module *m;
	struct t2f_elf_sym sym;
	double t0;
	int err;

	*best = 1e9;
	for (int r = 0; r < LOAD_RUNS; r++) {
		t0 = now_s();
		err = t2f_elf_module__open(path, d, &m);
		if (err)
			return err;
		err = t2f_elf_module__lookup(m, 0, &sym);
		t0 = now_s() - t0;
		t2f_elf_module__free(m);
		if (err < 0)
			return err;
		if (t0 < *best)
			*best = t0;
	}
	return 0;
}

/* The executable PT_LOAD range (elf_vaddr), or the symbols' range. */
static void text_range(const struct t2f_elf_module *m, const struct names *nm, uint64_t *lo,
		       uint64_t *hi)
{
	*lo = UINT64_MAX;
	*hi = 0;
	for (size_t i = 0; i < t2f_elf_module__load_count(m); i++) {
		const struct t2f_elf_load *l = t2f_elf_module__load_at(m, i);

		if (!(l->p_flags & PF_EXEC) || !l->p_memsz)
			continue;
		if (l->p_vaddr < *lo)
			*lo = l->p_vaddr;
		if (l->p_vaddr + l->p_memsz > *hi)
			*hi = l->p_vaddr + l->p_memsz;
	}
	if (*hi <= *lo) {
		*lo = nm->lo;
		*hi = nm->hi > nm->lo ? nm->hi : nm->lo + 1;
	}
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* n random addresses in LOOKUP_ROUNDS rounds: the best and the median round, in ns/op. */
static int bench_lookup(struct t2f_elf_module *m, const struct names *nm, size_t n)
{
	uint64_t *addrs = malloc(n * sizeof(*addrs)), lo, hi, seed = 0x9e3779b97f4a7c15ull, sum = 0;
	size_t hits = 0, per = n / LOOKUP_ROUNDS ? n / LOOKUP_ROUNDS : 1, done = 0;
	double round_ns[LOOKUP_ROUNDS];
	struct t2f_elf_sym sym;
	unsigned rounds = 0;
	double t0;

	if (!addrs)
		return -ENOMEM;
	text_range(m, nm, &lo, &hi);
	for (size_t i = 0; i < n; i++)
		addrs[i] = lo + xorshift(&seed) % (hi - lo);
	t2f_elf_module__lookup(m, lo, &sym);  /* builds the index outside the timing */
	for (; rounds < LOOKUP_ROUNDS && done < n; rounds++) {
		size_t end = done + per < n ? done + per : n;

		t0 = now_s();
		for (size_t i = done; i < end; i++) {
			if (t2f_elf_module__lookup(m, addrs[i], &sym) > 0) {
				hits++;
				sum += sym.value;
			}
		}
		round_ns[rounds] = (now_s() - t0) * 1e9 / (double)(end - done);
		done = end;
	}
	qsort(round_ns, rounds, sizeof(*round_ns), cmp_double);
	printf("  lookup:   %.1f ns/op best round, %.1f median (%zu random addresses in [%#" PRIx64
	       ", %#" PRIx64 "), %.1f%% hits, checksum %" PRIx64 ")\n", round_ns[0],
	       round_ns[rounds / 2], done, lo, hi, 100.0 * (double)hits / (double)done, sum);
	free(addrs);
	return 0;
}

static void bench_demangle(const struct names *nm)
{
	size_t done = 0;
	double t0 = now_s();

	for (size_t i = 0; i < nm->n; i++) {
		char *s = t2f_demangle(nm->v[i], T2F_DEMANGLE_FULL);

		done += s != NULL;
		free(s);
	}
	t0 = now_s() - t0;
	printf("  demangle: %.0f ns/name over %zu names (%zu demangled)\n",
	       nm->n ? t0 * 1e9 / (double)nm->n : 0.0, nm->n, done);
}

static int bench_file(const char *path, struct t2f_diag *d, size_t lookups)
{
	struct t2f_elf_module *m = NULL;
	struct names nm = { 0 };
	double load;
	int err;

	err = bench_load(path, d, &load);
	if (!err)
		err = t2f_elf_module__open(path, d, &m);
	if (!err)
		err = t2f_elf_module__each_symbol(m, add_name, &nm);
	if (err)
		goto out;
	printf("%s\n  symbols:  %zu kept (FUNC/IFUNC, defined, value != 0; all tables)\n", path, nm.n);
	printf("  load:     %.3f ms (open + tables + index, best of %d), %.3f ms per 18K symbols\n",
	       load * 1e3, LOAD_RUNS, nm.n ? load * 1e3 * 18000.0 / (double)nm.n : 0.0);
	err = bench_lookup(m, &nm, lookups);
	if (!err)
		bench_demangle(&nm);
out:
	if (err)
		fprintf(stderr, "t2f-bench-symbols: %s: %s\n", path,
			t2f_diag__last_error(d) ? t2f_diag__last_error(d) : t2f_strerror(err));
	t2f_elf_module__free(m);
	free(nm.v);
	return err;
}

static int count_one(void *ctx, const struct t2f_elf_sym *sym)
{
	(void)sym;
	++*(size_t *)ctx;
	return 0;
}

/* --count: "COUNT\tFILE" for each file whose symbols could be read; 0. */
static int count_files(int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		struct t2f_elf_module *m;
		size_t n = 0;

		if (t2f_elf_module__open(argv[i], NULL, &m))
			continue;
		if (!t2f_elf_module__each_symbol(m, count_one, &n))
			printf("%zu\t%s\n", n, argv[i]);
		t2f_elf_module__free(m);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *env = getenv("T2F_BENCH_LOOKUPS");
	size_t lookups = env ? strtoull(env, NULL, 10) : 10000000;
	struct t2f_diag *d;
	int rc = 0;

	if (argc < 2) {
		fputs("usage: t2f-bench-symbols [--count] FILE...\n", stderr);
		return 2;
	}
	if (strcmp(argv[1], "--count") == 0)
		return count_files(argc - 2, argv + 2);
	if (!lookups)
		lookups = 1;
	if (t2f_diag__new(stderr, &d))
		return 1;
	for (int i = 1; i < argc; i++)
		if (bench_file(argv[i], d, lookups))
			rc = 1;
	t2f_diag__free(d);
	return rc;
}
