/* tests/unit/test_perf_script_maps.c: readers/perf_script_maps — every lookup gives the newest
 * mapping of the process holding the address, whatever mix of mappings (overlapping, nested,
 * touching, added between lookups), forks and lookups came before: checked against a walk of
 * each process's mappings kept by the test itself, through the lookups that build and renew the
 * processes' indexes (ps_maps__find) and the one that only reads them (ps_maps__mapping), and
 * through forks that share an index. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "readers/perf_script_maps.h"

#define PIDS 6
#define MAX_MAPS 600

struct oracle_map {
	uint64_t start, end, pgoff;
	t2f_str_id path;
};

struct oracle {                 /* each process's mappings, oldest first */
	struct oracle_map maps[PIDS][MAX_MAPS];
	uint32_t n[PIDS];
};

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static const struct oracle_map *oracle_find(const struct oracle *o, int pid, uint64_t ip)
{
	for (uint32_t i = o->n[pid]; i-- > 0;)
		if (ip >= o->maps[pid][i].start && ip < o->maps[pid][i].end)
			return &o->maps[pid][i];
	return NULL;
}

static void add(struct ps_maps *m, struct oracle *o, int pid, uint64_t start, uint64_t len,
		t2f_str_id path)
{
	uint64_t pgoff = (next() % 16) * 4096;

	assert_int_equal(ps_maps__add(m, pid, start, len, pgoff, path), 0);
	if (o->n[pid] < MAX_MAPS)
		o->maps[pid][o->n[pid]++] = (struct oracle_map){ start, start + len, pgoff, path };
}

/* ip looked up both ways in process pid agrees with the oracle. */
static void check(struct ps_maps *m, const struct oracle *o, int pid, uint64_t ip)
{
	const struct oracle_map *want = oracle_find(o, pid, ip);
	uint64_t off = 0, start = 0, end = 0, pgoff = 0;
	t2f_str_id path = 0, path2 = 0;
	bool found = ps_maps__find(m, pid, ip, &path, &off);
	bool found2 = ps_maps__mapping(m, pid, ip, &start, &end, &pgoff, &path2);

	if (!want) {
		if (found || found2)
			fail_msg("pid %d ip %#llx: found a mapping where none is", pid,
				 (unsigned long long)ip);
		return;
	}
	if (!found || !found2)
		fail_msg("pid %d ip %#llx: no mapping found", pid, (unsigned long long)ip);
	if (path != want->path || off != ip - want->start + want->pgoff || start != want->start)
		print_error("pid %d ip %#llx: want [%#llx, %#llx) of %u, got of %u at %#llx\n", pid,
			    (unsigned long long)ip, (unsigned long long)want->start,
			    (unsigned long long)want->end, want->path, path,
			    (unsigned long long)start);
	assert_int_equal(path, want->path);
	assert_int_equal(off, ip - want->start + want->pgoff);
	assert_int_equal(path2, want->path);
	assert_int_equal(start, want->start);
	assert_int_equal(end, want->end);
	assert_int_equal(pgoff, want->pgoff);
}

/* An address near the mappings' edges or inside them (where lookups can go wrong). */
static uint64_t probe(const struct oracle *o, int pid)
{
	uint32_t n = o->n[pid];
	const struct oracle_map *e;

	if (n == 0 || next() % 8 == 0)
		return next() % 0x100000;
	e = &o->maps[pid][next() % n];
	switch (next() % 5) {
	case 0:
		return e->start;
	case 1:
		return e->end - 1;
	case 2:
		return e->end;
	case 3:
		return e->start ? e->start - 1 : 0;
	default:
		return e->start + next() % (e->end - e->start);
	}
}

static void test_random(void **state)
{
	static struct oracle o;
	struct ps_maps *m;
	int lookups = 0;

	(void)state;
	assert_int_equal(ps_maps__new(&m), 0);
	for (int round = 0; round < 4000; round++) {
		int pid = (int)(next() % PIDS);
		uint64_t r = next() % 100;

		if (r < 30 && o.n[pid] < MAX_MAPS) { /* a mapping: small, often overlapping */
			uint64_t start = (next() % 256) * 4096, len = (1 + next() % 24) * 4096;

			add(m, &o, pid, start, len, (t2f_str_id)(1 + next() % 50));
		} else if (r < 31) {             /* a fork into an empty process */
			int child = (int)(next() % PIDS);

			if (child == pid || o.n[child] != 0 || o.n[pid] == 0)
				continue;
			assert_int_equal(ps_maps__fork(m, pid, child), 0);
			memcpy(o.maps[child], o.maps[pid], sizeof(o.maps[pid]));
			o.n[child] = o.n[pid];
		} else {                         /* lookups, in bursts that build indexes */
			for (int k = 0; k < 1 + (int)(next() % 40); k++, lookups++)
				check(m, &o, pid, probe(&o, pid));
		}
	}
	for (int pid = 0; pid < PIDS; pid++) /* everything once more at the end */
		for (int k = 0; k < 2000; k++)
			check(m, &o, pid, probe(&o, pid));
	assert_true(lookups > 10000);
	ps_maps__free(m);
}

/* Nested and touching mappings of one process, a lookup after each: the newest holding the
 * address wins, the older ones show again around it. */
static void test_nested(void **state)
{
	static struct oracle o;
	struct ps_maps *m;

	(void)state;
	memset(&o, 0, sizeof(o));
	assert_int_equal(ps_maps__new(&m), 0);
	for (uint64_t i = 0; i < 64; i++) {
		add(m, &o, 1, 0x10000 + i * 0x1000, 0x100000 - 2 * i * 0x1000, (t2f_str_id)(1 + i));
		add(m, &o, 1, 0x200000 + i * 0x1000, 0x1000, (t2f_str_id)(100 + i));
		for (uint64_t ip = 0xf000; ip < 0x250000; ip += 0x800)
			check(m, &o, 1, ip);
	}
	ps_maps__free(m);
}

/* A process forked from one whose index is behind its mappings (mappings added after the
 * lookups that built it) finds them all, and what its parent and it add later stays theirs. */
static void test_fork(void **state)
{
	static struct oracle o;
	struct ps_maps *m;

	(void)state;
	memset(&o, 0, sizeof(o));
	assert_int_equal(ps_maps__new(&m), 0);
	for (uint64_t i = 0; i < 40; i++)
		add(m, &o, 1, 0x100000 + i * 0x2000, 0x2000, (t2f_str_id)(1 + i));
	for (uint64_t ip = 0xf0000; ip < 0x200000; ip += 0x1000)
		check(m, &o, 1, ip); /* builds 1's index */
	for (uint64_t i = 0; i < 6; i++) /* over the indexed ones */
		add(m, &o, 1, 0x104000 + i * 0x10000, 0x3000, (t2f_str_id)(100 + i));
	assert_int_equal(ps_maps__fork(m, 1, 2), 0);
	memcpy(o.maps[2], o.maps[1], sizeof(o.maps[1]));
	o.n[2] = o.n[1];
	add(m, &o, 1, 0x100000, 0x100000, 200);
	add(m, &o, 2, 0x180000, 0x1000, 201);
	for (int round = 0; round < 3; round++)
		for (int pid = 1; pid <= 2; pid++)
			for (uint64_t ip = 0xf0000; ip < 0x200000; ip += 0x800)
				check(m, &o, pid, ip);
	ps_maps__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_nested),
		cmocka_unit_test(test_fork),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
