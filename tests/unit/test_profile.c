/* tests/unit/test_profile.c: formats/profile.c — lookup-or-add of threads, events, frames and
 * stack nodes (dense ids in order of first appearance), weight cells, the sample log, module maps
 * and the read/drop accounting; new stacks (restack). Merging profiles: test_profile_merge.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "formats/diag.h"
#include "formats/profile.h"
#include "tests/unit/support/profile_build.h"

static void test_empty_profile(void **state)
{
	struct t2f_profile *p = *state;

	assert_int_equal(t2f_profile__thread_count(p), 0);
	assert_int_equal(t2f_profile__event_count(p), 0);
	assert_int_equal(t2f_profile__frame_count(p), 0);
	assert_int_equal(t2f_profile__node_count(p), 0);
	assert_int_equal(t2f_profile__module_map_count(p), 0);
	assert_int_equal(t2f_profile__cell_count(p), 0);
	assert_int_equal(t2f_profile__sample_log_count(p), 0);
	assert_int_equal(t2f_profile__samples_read(p), 0);
	assert_false(t2f_profile__log_enabled(p));
	assert_int_equal(t2f_profile__find_event(p, "cpu-clock"), 0);
	assert_non_null(t2f_profile__strtab(p));
	assert_string_equal(t2f_profile__str(p, 0, NULL), "");
	assert_true(t2f_profile__bytes(p) > 0);
	t2f_profile__free(NULL);
}

static void test_thread_dedup(void **state)
{
	struct t2f_profile *p = *state;
	const struct t2f_thread *t;
	t2f_thread_id a, b, c, d, e;

	a = thread(p, 100, 101, "workload", 0);
	b = thread(p, 100, 102, "workload", 0);
	assert_int_equal(a, 1);
	assert_int_equal(b, 2);
	assert_int_equal(thread(p, 100, 101, "workload", 0), a);
	c = thread(p, 100, 101, "renamed", 0);        /* comm is part of the key */
	d = thread(p, T2F_PID_UNKNOWN, 101, "workload", 0); /* so is the pid */
	e = thread(p, 100, 101, "workload", 1);       /* and the input */
	assert_int_equal(c, 3);
	assert_int_equal(d, 4);
	assert_int_equal(e, 5);
	assert_int_equal(thread(p, T2F_PID_UNKNOWN, 101, "workload", 0), d);
	assert_int_equal(t2f_profile__thread_count(p), 5);

	t = t2f_profile__thread_at(p, d);
	assert_int_equal(t->pid, T2F_PID_UNKNOWN);
	assert_int_equal(t->tid, 101);
	assert_string_equal(t2f_profile__str(p, t->comm, NULL), "workload");
	assert_int_equal(t->input, 0);
	t = t2f_profile__thread_at(p, e);
	assert_int_equal(t->pid, 100);
	assert_int_equal(t->input, 1);
	t = t2f_profile__thread_at(p, c);
	assert_string_equal(t2f_profile__str(p, t->comm, NULL), "renamed");
}

static void test_many_threads(void **state)
{
	struct t2f_profile *p = *state;
	t2f_str_id comm = str(p, "w");

	for (int64_t i = 0; i < 5000; i++) {
		t2f_thread_id id;

		assert_int_equal(t2f_profile__thread(p, 7, i, comm, 0, &id), 0);
		assert_int_equal(id, (uint32_t)i + 1);
	}
	for (int64_t i = 0; i < 5000; i += 13) {
		t2f_thread_id id;

		assert_int_equal(t2f_profile__thread(p, 7, i, comm, 0, &id), 0);
		assert_int_equal(id, (uint32_t)i + 1);
		assert_int_equal(t2f_profile__thread_at(p, id)->tid, i);
	}
	assert_int_equal(t2f_profile__thread_count(p), 5000);
}

/* Tables that grow past the size where they move into a reservation of their own (frames of
 * 48 bytes: 2 MiB at 43,691) keep every entry under its id, find each again, and, emptied by
 * a reset, take the same ids again. */
static void grow_frames_nodes_cells(struct t2f_profile *p, uint32_t n)
{
	t2f_str_id m = str(p, "/usr/lib/libbig.so");
	t2f_thread_id t = thread(p, 1, 1, "big", 0);
	t2f_event_id e;
	t2f_node_id parent = 0;

	assert_int_equal(t2f_profile__event(p, str(p, "cpu-clock"), T2F_UNIT_COUNT, &e), 0);
	for (uint32_t i = 0; i < n; i++) {
		struct t2f_frame f = { .module = m, .has_addr = true,
				       .addr = 0x1000 + 16 * (uint64_t)i };
		t2f_frame_id id = add_frame(p, &f);
		t2f_node_id nd;

		assert_int_equal(id, i + 1);
		nd = child(p, i % 2 ? parent : 0, id);
		assert_int_equal(t2f_profile__add_sample(p, nd, t, e, i, 0), 0);
		parent = nd;
	}
	assert_int_equal(t2f_profile__frame_count(p), n);
	assert_int_equal(t2f_profile__node_count(p), n);
	assert_int_equal(t2f_profile__cell_count(p), n);
	for (uint32_t i = 0; i < n; i += 7) {
		struct t2f_frame f = { .module = m, .has_addr = true,
				       .addr = 0x1000 + 16 * (uint64_t)i };

		assert_int_equal(add_frame(p, &f), i + 1);
		assert_int_equal(t2f_profile__frame_at(p, i + 1)->addr, f.addr);
		assert_int_equal(t2f_profile__node_frame(p, i + 1), i + 1);
		assert_int_equal(t2f_profile__cell_at(p, i)->node, i + 1);
		assert_int_equal(t2f_profile__cell_at(p, i)->weight, i);
	}
}

static void test_tables_grow_in_place(void **state)
{
	struct t2f_profile *p = *state;
	uint32_t n = 100000;

	grow_frames_nodes_cells(p, n);
	assert_int_equal(t2f_profile__reset(p), 0);
	assert_int_equal(t2f_profile__frame_count(p), 0);
	grow_frames_nodes_cells(p, n + 5000);
}

static void test_event_dedup_and_find(void **state)
{
	struct t2f_profile *p = *state;
	t2f_event_id a, b, c;

	assert_int_equal(t2f_profile__event(p, str(p, "cpu-clock"), T2F_UNIT_NANOSECONDS, &a), 0);
	assert_int_equal(t2f_profile__event(p, str(p, "page-faults"), T2F_UNIT_COUNT, &b), 0);
	assert_int_equal(t2f_profile__event(p, str(p, "cpu-clock"), T2F_UNIT_NANOSECONDS, &c), 0);
	assert_int_equal(a, 1);
	assert_int_equal(b, 2);
	assert_int_equal(c, 1);
	assert_int_equal(t2f_profile__event_count(p), 2);

	assert_int_equal(t2f_profile__find_event(p, "cpu-clock"), 1);
	assert_int_equal(t2f_profile__find_event(p, "page-faults"), 2);
	assert_int_equal(t2f_profile__find_event(p, "page"), 0);
	assert_int_equal(t2f_profile__find_event(p, "sched:sched_switch"), 0);

	assert_string_equal(t2f_profile__str(p, t2f_profile__event_at(p, 1)->name, NULL), "cpu-clock");
	assert_int_equal(t2f_profile__event_at(p, 1)->unit, T2F_UNIT_NANOSECONDS);
	assert_int_equal(t2f_profile__event_at(p, 2)->unit, T2F_UNIT_COUNT);
	assert_false(t2f_profile__event_at(p, 1)->has_period);
	assert_false(t2f_profile__event_at(p, 2)->has_period);
	t2f_profile__event_has_period(p, 2);
	assert_false(t2f_profile__event_at(p, 1)->has_period);
	assert_true(t2f_profile__event_at(p, 2)->has_period);
}

static void test_frame_dedup(void **state)
{
	struct t2f_profile *p = *state;
	struct t2f_frame f = { .name = str(p, "main"), .module = str(p, "/bin/prog"),
			       .kind = T2F_FRAME_USER };
	struct t2f_frame g;
	const struct t2f_frame *got;
	t2f_frame_id a, id;

	a = add_frame(p, &f);
	assert_int_equal(a, 1);
	assert_int_equal(add_frame(p, &f), a);

	/* without has_addr the address is not part of the frame */
	g = f;
	g.addr = 0x1234;
	assert_int_equal(add_frame(p, &g), a);
	assert_int_equal(t2f_profile__frame_at(p, a)->addr, 0);

	/* every field is part of the key */
	g = f;
	g.kind = T2F_FRAME_INLINED;
	assert_int_equal(add_frame(p, &g), 2);
	g = f;
	g.module = str(p, "/bin/other");
	assert_int_equal(add_frame(p, &g), 3);
	g = f;
	g.name = str(p, "helper");
	assert_int_equal(add_frame(p, &g), 4);
	g = (struct t2f_frame){ .module = f.module, .addr = 0x10, .has_addr = true };
	assert_int_equal(add_frame(p, &g), 5);
	g.addr = 0x20;
	assert_int_equal(add_frame(p, &g), 6);
	g.addr = 0x10;
	assert_int_equal(add_frame(p, &g), 5);
	g = (struct t2f_frame){ .module = f.module, .addr = 0, .has_addr = true };
	assert_int_equal(add_frame(p, &g), 7); /* address 0, kept, differs from "no address" */
	g.has_addr = false;
	assert_int_equal(add_frame(p, &g), 8);
	assert_int_equal(t2f_profile__frame_count(p), 8);

	got = t2f_profile__frame_at(p, 6);
	assert_int_equal(got->name, 0);
	assert_string_equal(t2f_profile__str(p, got->module, NULL), "/bin/prog");
	assert_true(got->has_addr);
	assert_int_equal(got->addr, 0x20);
	got = t2f_profile__frame_at(p, 2);
	assert_string_equal(t2f_profile__str(p, got->name, NULL), "main");
	assert_int_equal(got->kind, T2F_FRAME_INLINED);
	assert_false(got->has_addr);

	/* many frames: ids stay dense and findable */
	for (uint64_t i = 0; i < 20000; i++) {
		g = (struct t2f_frame){ .module = f.module, .addr = 0x1000 + i, .has_addr = true,
					.kind = T2F_FRAME_KERNEL };
		assert_int_equal(t2f_profile__frame(p, &g, &id), 0);
		assert_int_equal(id, 9 + i);
	}
	g = (struct t2f_frame){ .module = f.module, .addr = 0x1000 + 777, .has_addr = true,
				.kind = T2F_FRAME_KERNEL };
	assert_int_equal(add_frame(p, &g), 9 + 777);
}

static void test_stack_trie(void **state)
{
	struct t2f_profile *p = *state;
	struct t2f_frame fa = { .name = str(p, "a") }, fb = { .name = str(p, "b") },
			 fc = { .name = str(p, "c") };
	t2f_frame_id a = add_frame(p, &fa), b = add_frame(p, &fb), c = add_frame(p, &fc);
	t2f_node_id na, nab, nabc, nb, nba;

	na = child(p, 0, a);
	nab = child(p, na, b);
	nabc = child(p, nab, c);
	nb = child(p, 0, b);   /* same frame, other parent: another node */
	nba = child(p, nb, a);
	assert_int_equal(na, 1);
	assert_int_equal(nab, 2);
	assert_int_equal(nabc, 3);
	assert_int_equal(nb, 4);
	assert_int_equal(nba, 5);
	assert_int_equal(child(p, 0, a), na);
	assert_int_equal(child(p, na, b), nab);
	assert_int_equal(child(p, nab, c), nabc);
	assert_int_equal(t2f_profile__node_count(p), 5);

	assert_int_equal(t2f_profile__node_parent(p, na), 0);
	assert_int_equal(t2f_profile__node_parent(p, nab), na);
	assert_int_equal(t2f_profile__node_parent(p, nabc), nab);
	assert_int_equal(t2f_profile__node_parent(p, nba), nb);
	assert_int_equal(t2f_profile__node_frame(p, nabc), c);
	assert_int_equal(t2f_profile__node_frame(p, nba), a);
	assert_int_equal(t2f_profile__node_depth(p, 0), 0);
	assert_int_equal(t2f_profile__node_depth(p, na), 1);
	assert_int_equal(t2f_profile__node_depth(p, nab), 2);
	assert_int_equal(t2f_profile__node_depth(p, nabc), 3);
	assert_int_equal(t2f_profile__node_depth(p, nb), 1);
	assert_int_equal(t2f_profile__node_depth(p, nba), 2);
}

/* A child added unindexed is in the trie (parent, frame, depth) but not in the node index
 * until the indexes are dropped and built again: then a lookup finds it. */
static void test_child_unindexed(void **state)
{
	struct t2f_profile *p = *state;
	struct t2f_frame fa = { .name = str(p, "a") }, fb = { .name = str(p, "b") };
	t2f_frame_id a = add_frame(p, &fa), b = add_frame(p, &fb);
	t2f_node_id na = child(p, 0, a), nab, naba;

	assert_int_equal(t2f_profile__child_unindexed(p, na, b, &nab), 0);
	assert_int_equal(nab, 2);
	assert_int_equal(t2f_profile__node_parent(p, nab), na);
	assert_int_equal(t2f_profile__node_frame(p, nab), b);
	assert_int_equal(t2f_profile__node_depth(p, nab), 2);
	assert_int_equal(t2f_profile__child_unindexed(p, nab, a, &naba), 0);
	assert_int_equal(naba, 3);
	assert_int_equal(t2f_profile__node_depth(p, naba), 3);
	assert_int_equal(child(p, na, a), 4); /* indexed as before */
	assert_int_equal(child(p, na, a), 4);
	t2f_profile__drop_indexes(p);
	assert_int_equal(child(p, na, b), nab);
	assert_int_equal(child(p, nab, a), naba);
	assert_int_equal(child(p, 0, a), na);
	assert_int_equal(t2f_profile__node_count(p), 4);
}

static void test_deep_chain(void **state)
{
	struct t2f_profile *p = *state;
	struct t2f_frame f = { .name = str(p, "recurse") };
	t2f_frame_id id = add_frame(p, &f);
	t2f_node_id n = 0;

	for (uint32_t i = 1; i <= 10000; i++) {
		n = child(p, n, id);
		assert_int_equal(n, i);
	}
	assert_int_equal(t2f_profile__node_depth(p, n), 10000);
	assert_int_equal(t2f_profile__node_parent(p, n), 9999);
	n = 0;
	for (uint32_t i = 1; i <= 10000; i++)
		n = child(p, n, id);
	assert_int_equal(n, 10000);
	assert_int_equal(t2f_profile__node_count(p), 10000);
}

static void test_add_sample_cells(void **state)
{
	struct t2f_profile *p = *state;
	struct t2f_frame fa = { .name = str(p, "a") };
	t2f_thread_id t1 = thread(p, 1, 1, "x", 0), t2 = thread(p, 1, 2, "x", 0);
	t2f_event_id e1, e2;
	t2f_node_id n1, n2;
	const struct t2f_cell *c;

	assert_int_equal(t2f_profile__event(p, str(p, "cpu-clock"), T2F_UNIT_NANOSECONDS, &e1), 0);
	assert_int_equal(t2f_profile__event(p, str(p, "page-faults"), T2F_UNIT_COUNT, &e2), 0);
	n1 = child(p, 0, add_frame(p, &fa));
	n2 = child(p, n1, add_frame(p, &fa));

	assert_int_equal(t2f_profile__add_sample(p, n1, t1, e1, 1000, 1), 0);
	assert_int_equal(t2f_profile__add_sample(p, n1, t1, e1, 250, 2), 0);
	assert_int_equal(t2f_profile__add_sample(p, n2, t1, e1, 7, 3), 0);  /* other node */
	assert_int_equal(t2f_profile__add_sample(p, n1, t2, e1, 5, 4), 0);  /* other thread */
	assert_int_equal(t2f_profile__add_sample(p, n1, t1, e2, 1, 5), 0);  /* other event */
	assert_int_equal(t2f_profile__add_sample(p, n1, t1, e1, 1, 6), 0);
	assert_int_equal(t2f_profile__add_sample(p, n1, t1, e2, 1, 7), 0);

	assert_int_equal(t2f_profile__cell_count(p), 4);
	c = t2f_profile__cell_at(p, 0);
	assert_int_equal(c->node, n1);
	assert_int_equal(c->thread, t1);
	assert_int_equal(c->event, e1);
	assert_int_equal(c->samples, 3);
	assert_int_equal(c->weight, 1251);
	c = t2f_profile__cell_at(p, 1);
	assert_int_equal(c->node, n2);
	assert_int_equal(c->samples, 1);
	assert_int_equal(c->weight, 7);
	c = t2f_profile__cell_at(p, 2);
	assert_int_equal(c->thread, t2);
	assert_int_equal(c->samples, 1);
	assert_int_equal(c->weight, 5);
	c = t2f_profile__cell_at(p, 3);
	assert_int_equal(c->event, e2);
	assert_int_equal(c->samples, 2);
	assert_int_equal(c->weight, 2);
	/* no log unless asked for */
	assert_int_equal(t2f_profile__sample_log_count(p), 0);
}

static void test_many_cells(void **state)
{
	struct t2f_profile *p = *state;
	t2f_str_id comm = str(p, "c");
	t2f_event_id e;

	assert_int_equal(t2f_profile__event(p, str(p, "ev"), T2F_UNIT_COUNT, &e), 0);
	for (int round = 0; round < 2; round++)
		for (int64_t i = 0; i < 30000; i++) {
			t2f_thread_id t;

			assert_int_equal(t2f_profile__thread(p, 1, i % 7, comm, 0, &t), 0);
			assert_int_equal(t2f_profile__add_sample(p, 0, t, e, (uint64_t)i, 0), 0);
		}
	assert_int_equal(t2f_profile__cell_count(p), 7);
	for (size_t k = 0; k < 7; k++) {
		const struct t2f_cell *c = t2f_profile__cell_at(p, k);
		uint64_t sum = 0, n = 0;

		for (uint64_t i = k; i < 30000; i += 7) {
			sum += i;
			n++;
		}
		assert_int_equal(c->thread, k + 1);
		assert_int_equal(c->samples, 2 * n);
		assert_int_equal(c->weight, 2 * sum);
	}
}

/* At most `max` distinct frames: a new one past it fails, known ones are still found, and a
 * merge that brings a new one fails too. */
static void test_frame_limit(void **state)
{
	struct t2f_profile *p = *state, *src = NULL;
	struct t2f_frame fa = { .name = str(p, "a") }, fb = { .name = str(p, "b") };
	struct t2f_frame fc = { .name = str(p, "c") };
	t2f_frame_id id;

	t2f_profile__limit_frames(p, 2);
	assert_false(t2f_profile__frames_full(p));
	assert_int_equal(t2f_profile__frame(p, &fa, &id), 0);
	assert_int_equal(t2f_profile__frame(p, &fb, &id), 0);
	assert_true(t2f_profile__frames_full(p));
	assert_int_equal(t2f_profile__frame(p, &fc, &id), -T2F_ERR_LIMIT);
	assert_int_equal(t2f_profile__frame(p, &fa, &id), 0);
	assert_int_equal(id, 1);
	assert_int_equal(t2f_profile__frame_count(p), 2);
	assert_int_equal(t2f_profile__new(&src), 0);
	fc.name = str(src, "c");
	assert_int_equal(t2f_profile__frame(src, &fc, &id), 0);
	assert_int_equal(t2f_profile__merge(p, src), -T2F_ERR_LIMIT);
	t2f_profile__free(src);
}

static void test_sample_log_order(void **state)
{
	struct t2f_profile *p = *state;
	struct t2f_frame fa = { .name = str(p, "a") }, fb = { .name = str(p, "b") };
	t2f_thread_id t1 = thread(p, 1, 1, "x", 0), t2 = thread(p, 1, 2, "x", 0);
	t2f_node_id na, nb;
	struct t2f_sample_run s;
	uint64_t first, last;
	t2f_event_id e;

	assert_false(t2f_profile__time_span(p, &first, &last));
	assert_int_equal(t2f_profile__enable_log(p), 0);
	assert_true(t2f_profile__log_enabled(p));
	assert_int_equal(t2f_profile__event(p, str(p, "cpu-clock"), T2F_UNIT_NANOSECONDS, &e), 0);
	na = child(p, 0, add_frame(p, &fa));
	nb = child(p, 0, add_frame(p, &fb));
	assert_int_equal(t2f_profile__add_sample(p, nb, t2, e, 30, 3000), 0);
	assert_int_equal(t2f_profile__add_sample(p, na, t1, e, 10, 1000), 0);
	assert_int_equal(t2f_profile__add_sample(p, nb, t2, e, 20, 2000), 0);
	assert_int_equal(t2f_profile__add_sample(p, nb, t1, e, 5, 0), 0);
	assert_int_equal(t2f_profile__add_sample(p, na, t1, e, 1ULL << 40, 0), 0);
	assert_int_equal(t2f_profile__add_sample(p, na, t1, e, UINT32_MAX - 1, 0), 0);
	assert_int_equal(t2f_profile__add_sample(p, na, t1, e, UINT32_MAX, 0), 0);
	assert_int_equal(t2f_profile__sample_log_count(p), 7);
	assert_int_equal(t2f_profile__cell_count(p), 3);
	assert_int_equal(t2f_profile__thread_sample_count(p, t1), 5); /* per thread */
	assert_int_equal(t2f_profile__thread_sample_count(p, t2), 2);
	assert_int_equal(t2f_profile__thread_run_count(p, t1), 3); /* a, b, then a three times */
	assert_int_equal(t2f_profile__thread_run_count(p, t2), 1); /* b twice (another thread between) */
	s = t2f_profile__run_at(p, t2, 0); /* input order, not time order */
	assert_int_equal(s.node, nb);
	assert_int_equal(s.thread, t2);
	assert_int_equal(s.event, e);
	assert_int_equal(s.samples, 2);
	assert_int_equal(s.weight, 50);
	s = t2f_profile__run_at(p, t1, 0);
	assert_int_equal(s.node, na);
	assert_int_equal(s.thread, t1);
	assert_int_equal(s.samples, 1);
	assert_int_equal(s.weight, 10);
	s = t2f_profile__run_at(p, t1, 1);
	assert_int_equal(s.node, nb);
	assert_int_equal(s.weight, 5);
	s = t2f_profile__run_at(p, t1, 2);
	assert_int_equal(s.node, na);
	assert_int_equal(s.samples, 3);
	assert_int_equal(s.weight, (1ULL << 40) + 2 * (uint64_t)UINT32_MAX - 1);
	assert_int_equal(t2f_profile__cell_at(p, 0)->weight, 50);
	assert_true(t2f_profile__time_span(p, &first, &last)); /* times 0 do not count */
	assert_int_equal(first, 1000);
	assert_int_equal(last, 3000);
}

static void test_module_maps(void **state)
{
	struct t2f_profile *p = *state;
	struct t2f_module_map m = { .pid = 14667, .start = 0x55a56159e000, .len = 0x5000,
				    .pgoff = 0x2000, .path = str(p, "/srv/prog/workload"),
				    .prot = str(p, "r-xp") };
	const struct t2f_module_map *got;

	assert_int_equal(t2f_profile__add_module_map(p, &m), 0);
	m.pid = -1;
	m.start = 0xffffffff81000000;
	m.path = str(p, "[kernel.kallsyms]_text");
	m.build_id = str(p, "0123456789abcdef0123456789abcdef01234567");
	assert_int_equal(t2f_profile__add_module_map(p, &m), 0);
	assert_int_equal(t2f_profile__add_module_map(p, &m), 0); /* maps are not deduplicated */
	assert_int_equal(t2f_profile__module_map_count(p), 3);
	got = t2f_profile__module_map_at(p, 0);
	assert_int_equal(got->pid, 14667);
	assert_int_equal(got->start, 0x55a56159e000);
	assert_int_equal(got->len, 0x5000);
	assert_int_equal(got->pgoff, 0x2000);
	assert_string_equal(t2f_profile__str(p, got->path, NULL), "/srv/prog/workload");
	assert_string_equal(t2f_profile__str(p, got->prot, NULL), "r-xp");
	assert_int_equal(got->build_id, 0);
	got = t2f_profile__module_map_at(p, 1);
	assert_int_equal(got->pid, -1);
	assert_int_equal(got->start, 0xffffffff81000000);
	assert_string_equal(t2f_profile__str(p, got->build_id, NULL),
			    "0123456789abcdef0123456789abcdef01234567");
	assert_false(got->has_segment);
	assert_int_equal(got->page_size, 0);
}

/* A nettrace universal mapping: the executable segment and page size ride along. */
static void test_module_map_segment(void **state)
{
	struct t2f_profile *p = *state;
	struct t2f_module_map m = { .pid = 900, .start = 0x55d000001000, .len = 0x1000,
				    .path = str(p, "/srv/lld/prog"), .has_segment = true,
				    .p_vaddr = 0x1770, .p_offset = 0x770, .page_size = 4096 };
	const struct t2f_module_map *got;

	assert_int_equal(t2f_profile__add_module_map(p, &m), 0);
	got = t2f_profile__module_map_at(p, 0);
	assert_true(got->has_segment);
	assert_int_equal(got->p_vaddr, 0x1770);
	assert_int_equal(got->p_offset, 0x770);
	assert_int_equal(got->page_size, 4096);
	assert_int_equal(got->pgoff, 0);
}

static void test_drop_accounting(void **state)
{
	struct t2f_profile *p = *state;

	for (int i = 0; i < 6; i++)
		t2f_profile__count_read(p);
	t2f_profile__count_drop(p, T2F_DROP_EMPTY_STACK);
	t2f_profile__count_drop(p, T2F_DROP_MALFORMED);
	t2f_profile__count_drop(p, T2F_DROP_MALFORMED);
	assert_int_equal(t2f_profile__samples_read(p), 6);
	assert_int_equal(t2f_profile__samples_dropped(p, T2F_DROP_EMPTY_STACK), 1);
	assert_int_equal(t2f_profile__samples_dropped(p, T2F_DROP_MALFORMED), 2);
	assert_int_equal(t2f_profile__samples_dropped(p, T2F_DROP_TRUNCATED), 0);
	assert_string_equal(t2f_drop_reason_name(T2F_DROP_EMPTY_STACK), "empty call chain");
	assert_string_equal(t2f_drop_reason_name(T2F_DROP_MALFORMED), "malformed sample");
	assert_string_equal(t2f_drop_reason_name(T2F_DROP_TRUNCATED), "truncated at end of input");
	assert_string_equal(t2f_drop_reason_name(T2F_DROP__COUNT), "unknown");
}

static void test_strings_and_bytes(void **state)
{
	struct t2f_profile *p = *state;
	size_t before = t2f_profile__bytes(p), len;
	t2f_str_id a = str(p, "alpha"), b = str(p, "beta");

	assert_int_equal(str(p, "alpha"), a);
	assert_int_not_equal(a, b);
	assert_string_equal(t2f_profile__str(p, b, &len), "beta");
	assert_int_equal(len, 4);
	assert_int_equal(t2f_strtab__count(t2f_profile__strtab(p)), 2);
	for (int i = 0; i < 5000; i++) {
		struct t2f_frame f = { .addr = (uint64_t)i, .has_addr = true };

		add_frame(p, &f);
	}
	assert_true(t2f_profile__bytes(p) > before);
}

/* Weights saturate at UINT64_MAX and are counted; a time past 2^64 ns is counted, not spanned;
 * a merge keeps both counts and saturates what it sums. */
static void test_saturation(void **state)
{
	struct t2f_profile *p = *state, *q;
	struct t2f_frame fa = { .name = str(p, "a") };
	t2f_thread_id t1 = thread(p, 1, 1, "x", 0);
	uint64_t first, last;
	t2f_event_id e;
	t2f_node_id n;

	assert_int_equal(t2f_profile__event(p, str(p, "cpu-clock"), T2F_UNIT_NANOSECONDS, &e), 0);
	n = child(p, 0, add_frame(p, &fa));
	for (int i = 0; i < 5; i++)
		assert_int_equal(t2f_profile__add_sample(p, n, t1, e, INT64_MAX, 10 + (uint64_t)i), 0);
	assert_int_equal(t2f_profile__cell_at(p, 0)->weight, UINT64_MAX);
	assert_int_equal(t2f_profile__cell_at(p, 0)->samples, 5);
	assert_true(t2f_profile__weights_capped(p));
	assert_int_equal(t2f_profile__add_sample(p, n, t1, e, 1, T2F_TIME_PAST), 0);
	assert_int_equal(t2f_profile__times_past(p), 1);
	assert_true(t2f_profile__time_span(p, &first, &last));
	assert_int_equal(first, 10);
	assert_int_equal(last, 14);

	assert_int_equal(t2f_profile__new(&q), 0);
	assert_false(t2f_profile__weights_capped(q));
	assert_int_equal(t2f_profile__merge(q, p), 0);
	assert_int_equal(t2f_profile__cell_at(q, 0)->weight, UINT64_MAX);
	assert_true(t2f_profile__weights_capped(q));
	assert_int_equal(t2f_profile__times_past(q), 1);
	t2f_profile__free(q);
}

/* New stacks: p's cells move to their new nodes, cells that meet add up in p's cell order, the
 * log follows its cells, strings are shared, and the counts stay. */
static void test_restack(void **state)
{
	struct t2f_profile *p = *state, *q;
	struct t2f_frame fa = { .name = str(p, "a"), .addr = 1, .has_addr = true };
	struct t2f_frame fb = { .name = str(p, "a"), .addr = 2, .has_addr = true };
	struct t2f_frame fc = { .name = str(p, "c") };
	t2f_thread_id t1 = thread(p, 1, 1, "x", 0), t2 = thread(p, 1, 2, "y", 0);
	t2f_node_id na, nb, nc, map[4], qa, qi;
	struct t2f_log_run runs[3];
	t2f_frame_id qf;
	t2f_event_id e;

	assert_int_equal(t2f_profile__enable_log(p), 0);
	assert_int_equal(t2f_profile__event(p, str(p, "cpu-clock"), T2F_UNIT_NANOSECONDS, &e), 0);
	na = child(p, 0, add_frame(p, &fa));
	nb = child(p, 0, add_frame(p, &fb));
	nc = child(p, na, add_frame(p, &fc));
	assert_int_equal(t2f_profile__add_sample(p, nc, t1, e, 5, 100), 0);
	assert_int_equal(t2f_profile__add_sample(p, nb, t1, e, 7, 200), 0);
	assert_int_equal(t2f_profile__add_sample(p, na, t2, e, 11, 300), 0);
	assert_int_equal(t2f_profile__add_sample(p, nc, t1, e, 13, 400), 0);

	/* a and b become one frame without an address; c gets an inlined frame i below it */
	assert_int_equal(t2f_profile__new_stacks(p, false, &q), 0);
	fa.has_addr = false;
	fa.addr = 0;
	fa.line = 3;
	qa = child(q, 0, add_frame(q, &fa));
	qf = add_frame(q, &(struct t2f_frame){ .name = str(q, "i"), .kind = T2F_FRAME_INLINED });
	qi = child(q, child(q, qa, add_frame(q, &fc)), qf);
	map[0] = 0;
	map[na] = qa;
	map[nb] = qa;
	map[nc] = qi;
	assert_int_equal(t2f_profile__restack(p, q, map), 0);
	t2f_profile__free(q);

	assert_int_equal(t2f_profile__frame_count(p), 3);
	assert_int_equal(t2f_profile__node_count(p), 3);
	assert_int_equal(t2f_profile__frame_at(p, 1)->line, 3);
	assert_string_equal(t2f_profile__str(p, t2f_profile__frame_at(p, 2)->name, NULL), "i");
	assert_int_equal(t2f_profile__frame_at(p, 2)->kind, T2F_FRAME_INLINED);
	assert_int_equal(t2f_profile__cell_count(p), 3);
	assert_int_equal(t2f_profile__cell_at(p, 0)->node, qi);  /* c's cell first, both samples */
	assert_int_equal(t2f_profile__cell_at(p, 0)->samples, 2);
	assert_int_equal(t2f_profile__cell_at(p, 0)->weight, 18);
	assert_int_equal(t2f_profile__cell_at(p, 1)->node, qa);  /* b's, then a's (thread 2) */
	assert_int_equal(t2f_profile__cell_at(p, 1)->weight, 7);
	assert_int_equal(t2f_profile__cell_at(p, 2)->thread, t2);
	assert_int_equal(t2f_profile__sample_log_count(p), 4);
	assert_int_equal(t2f_profile__thread_run_count(p, t1), 3);
	t2f_profile__sample_runs(p, t1, 0, 3, runs);
	assert_int_equal(runs[0].cell, 0);
	assert_int_equal(runs[1].cell, 1);
	assert_int_equal(runs[2].cell, 0);
	assert_int_equal(runs[2].weight, 13);
	assert_int_equal(t2f_profile__samples_read(p), 0);
	assert_true(t2f_profile__time_span(p, &(uint64_t){ 0 }, &(uint64_t){ 0 }));
	assert_int_equal(t2f_profile__thread_count(p), 2);
}

/* Old nodes forgotten as new stacks are built read as 0 (a whole page of them at least), those
 * above stay, and the restack still moves every cell by the map. */
static void test_restack_forgotten(void **state)
{
	enum { N = 20000 };
	struct t2f_profile *p = *state, *q;
	t2f_frame_id f = add_frame(p, &(struct t2f_frame){ .name = str(p, "f") });
	t2f_thread_id t = thread(p, 1, 1, "x", 0);
	t2f_node_id *map = calloc(N + 1, sizeof(*map)), nd = 0, qa, qb;
	t2f_event_id e;

	assert_non_null(map);
	assert_int_equal(t2f_profile__event(p, str(p, "cpu-clock"), T2F_UNIT_NANOSECONDS, &e), 0);
	for (int i = 0; i < N; i++)
		nd = child(p, nd, f);
	assert_int_equal(nd, N);
	assert_int_equal(t2f_profile__add_sample(p, 10, t, e, 3, 100), 0);
	assert_int_equal(t2f_profile__add_sample(p, N, t, e, 5, 200), 0);
	assert_int_equal(t2f_profile__new_stacks(p, false, &q), 0);
	qa = child(q, 0, add_frame(q, &(struct t2f_frame){ .name = str(q, "a") }));
	qb = child(q, qa, add_frame(q, &(struct t2f_frame){ .name = str(q, "b") }));
	for (t2f_node_id n = 1; n <= N; n++)
		map[n] = n <= N / 2 ? qa : qb;
	t2f_profile__forget_nodes_below(p, 3 * N / 4);
	assert_int_equal(t2f_profile__node_frame(p, N / 2), 0);
	assert_int_equal(t2f_profile__node_parent(p, N / 2), 0);
	assert_int_equal(t2f_profile__node_frame(p, N - 1), f);
	assert_int_equal(t2f_profile__node_parent(p, N - 1), N - 2);
	assert_int_equal(t2f_profile__restack(p, q, map), 0);
	t2f_profile__free(q);
	free(map);
	assert_int_equal(t2f_profile__node_count(p), 2);
	assert_int_equal(t2f_profile__cell_count(p), 2);
	assert_int_equal(t2f_profile__cell_at(p, 0)->node, qa);
	assert_int_equal(t2f_profile__cell_at(p, 0)->weight, 3);
	assert_int_equal(t2f_profile__cell_at(p, 1)->node, qb);
	assert_int_equal(t2f_profile__cell_at(p, 1)->weight, 5);
}

/* Cells of two old nodes that meet at one new node add up into the first in p's cell order (its
 * place kept, the cells between moved up), those that differ in thread stay apart, the root's
 * (a sample without a chain) stays at the root; lookups after the restack find the new frames,
 * nodes and cells under their ids. */
static void test_restack_meet(void **state)
{
	struct t2f_profile *p = *state, *q;
	struct t2f_frame fa = { .name = str(p, "f"), .addr = 1, .has_addr = true };
	struct t2f_frame fb = { .name = str(p, "f"), .addr = 2, .has_addr = true };
	struct t2f_frame fg = { .name = str(p, "g") }, ff = { .name = str(p, "f") };
	t2f_thread_id t1 = thread(p, 1, 1, "x", 0), t2 = thread(p, 1, 2, "y", 0);
	t2f_node_id na, nb, ng, map[4], qf, qg, n;
	t2f_event_id e;

	assert_int_equal(t2f_profile__event(p, str(p, "cpu-clock"), T2F_UNIT_NANOSECONDS, &e), 0);
	na = child(p, 0, add_frame(p, &fa));
	nb = child(p, 0, add_frame(p, &fb));
	ng = child(p, nb, add_frame(p, &fg));
	assert_int_equal(t2f_profile__add_sample(p, na, t1, e, 1, 0), 0);  /* cell 0 */
	assert_int_equal(t2f_profile__add_sample(p, ng, t1, e, 2, 0), 0);  /* cell 1 */
	assert_int_equal(t2f_profile__add_sample(p, nb, t2, e, 4, 0), 0);  /* cell 2 */
	assert_int_equal(t2f_profile__add_sample(p, nb, t1, e, 8, 0), 0);  /* cell 3: meets 0 */
	assert_int_equal(t2f_profile__add_sample(p, 0, t1, e, 16, 0), 0);  /* cell 4: the root */
	assert_int_equal(t2f_profile__add_sample(p, na, t2, e, 32, 0), 0); /* cell 5: meets 2 */

	assert_int_equal(t2f_profile__new_stacks(p, true, &q), 0);
	qf = child(q, 0, add_frame(q, &ff));
	qg = child(q, qf, add_frame(q, &fg));
	map[0] = 0;
	map[na] = qf;
	map[nb] = qf;
	map[ng] = qg;
	assert_int_equal(t2f_profile__restack(p, q, map), 0);
	t2f_profile__free(q);

	assert_int_equal(t2f_profile__cell_count(p), 4);
	assert_int_equal(t2f_profile__cell_at(p, 0)->node, qf);
	assert_int_equal(t2f_profile__cell_at(p, 0)->thread, t1);
	assert_int_equal(t2f_profile__cell_at(p, 0)->weight, 9);
	assert_int_equal(t2f_profile__cell_at(p, 0)->samples, 2);
	assert_int_equal(t2f_profile__cell_at(p, 1)->node, qg);
	assert_int_equal(t2f_profile__cell_at(p, 1)->weight, 2);
	assert_int_equal(t2f_profile__cell_at(p, 2)->node, qf);
	assert_int_equal(t2f_profile__cell_at(p, 2)->thread, t2);
	assert_int_equal(t2f_profile__cell_at(p, 2)->weight, 36);
	assert_int_equal(t2f_profile__cell_at(p, 3)->node, 0);
	assert_int_equal(t2f_profile__cell_at(p, 3)->weight, 16);

	/* the indexes built again from the new tables */
	assert_int_equal(add_frame(p, &ff), 1);
	assert_int_equal(t2f_profile__child(p, qf, 2, &n), 0);
	assert_int_equal(n, qg);
	assert_int_equal(t2f_profile__node_count(p), 2);
	assert_int_equal(t2f_profile__add_samples(p, qf, t2, e, 1, 64), 0);
	assert_int_equal(t2f_profile__cell_at(p, 2)->weight, 100);
	assert_int_equal(t2f_profile__cell_count(p), 4);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, profile_setup, profile_teardown)

/* Without its lookup indexes (dropped before writing) a profile finds what it holds under the
 * same ids and adds what is new after it, as with them; folded threads too; a merge into it
 * too. */
static void test_drop_indexes(void **state)
{
	struct t2f_profile *p = *state, *src;
	struct t2f_frame fa = { .name = str(p, "a") }, fb = { .name = str(p, "b") };
	struct t2f_frame fu = { .module = str(p, "m"), .has_addr = true, .addr = 0x40 };
	t2f_thread_id t1, t2;
	t2f_event_id e;
	t2f_node_id n1, n2, n3;
	t2f_frame_id a, b, u;

	assert_int_equal(t2f_profile__fold_threads(p), 0);
	t1 = thread(p, 1, 1, "x", 0);
	t2 = thread(p, 1, 2, "x", 0);
	assert_int_equal(t2f_profile__event(p, str(p, "cpu-clock"), T2F_UNIT_COUNT, &e), 0);
	a = add_frame(p, &fa);
	b = add_frame(p, &fb);
	u = add_frame(p, &fu);
	n1 = child(p, 0, a);
	n2 = child(p, n1, b);
	assert_int_equal(t2f_profile__add_sample(p, n2, t1, e, 3, 0), 0);
	t2f_profile__drop_indexes(p);
	t2f_profile__drop_indexes(p); /* twice is fine */
	assert_int_equal(t2f_profile__bytes(p) > 0, true);
	/* what it holds: the same ids, nothing added */
	assert_int_equal(add_frame(p, &fu), u);
	assert_int_equal(add_frame(p, &fb), b);
	assert_int_equal(child(p, n1, b), n2);
	assert_int_equal(t2f_profile__add_sample(p, n2, t2, e, 4, 0), 0); /* t2 folds into t1 */
	assert_int_equal(t2f_profile__frame_count(p), 3);
	assert_int_equal(t2f_profile__node_count(p), 2);
	assert_int_equal(t2f_profile__cell_count(p), 1);
	assert_int_equal(t2f_profile__cell_at(p, 0)->samples, 2);
	assert_int_equal(t2f_profile__cell_at(p, 0)->weight, 7);
	/* what is new: the next ids */
	t2f_profile__drop_indexes(p);
	n3 = child(p, n2, a);
	assert_int_equal(n3, 3);
	assert_int_equal(t2f_profile__add_sample(p, n3, t1, e, 1, 0), 0);
	assert_int_equal(t2f_profile__cell_count(p), 2);
	/* a merge into it finds its nodes and cells */
	t2f_profile__drop_indexes(p);
	assert_int_equal(t2f_profile__new(&src), 0);
	{
		struct t2f_frame sa = { .name = str(src, "a") }, sb = { .name = str(src, "b") };
		t2f_thread_id st = thread(src, 1, 2, "x", 0);
		t2f_event_id se;
		t2f_node_id s2;

		assert_int_equal(t2f_profile__event(src, str(src, "cpu-clock"), T2F_UNIT_COUNT, &se),
				 0);
		s2 = child(src, child(src, 0, add_frame(src, &sa)), add_frame(src, &sb));
		assert_int_equal(t2f_profile__add_sample(src, s2, st, se, 10, 0), 0);
	}
	assert_int_equal(t2f_profile__merge(p, src), 0);
	t2f_profile__free(src);
	assert_int_equal(t2f_profile__node_count(p), 3);
	assert_int_equal(t2f_profile__cell_count(p), 2);
	assert_int_equal(t2f_profile__cell_at(p, 0)->samples, 3);
	assert_int_equal(t2f_profile__cell_at(p, 0)->weight, 17);
}

/* Fills p with n stacks of names "PREFIX<i>": two frames each, a cell per stack on one of three
 * threads, with a module map, the log and sample times on (fold: threads folded instead). */
static void fill(struct t2f_profile *p, const char *prefix, int n, bool fold)
{
	struct t2f_module_map m = { .path = str(p, "/lib"), .start = 0x1000, .len = 0x1000 };
	t2f_event_id e;
	char name[32];

	assert_int_equal(fold ? t2f_profile__fold_threads(p) : t2f_profile__enable_sample_times(p),
			 0);
	assert_int_equal(t2f_profile__event(p, str(p, "cycles"), T2F_UNIT_COUNT, &e), 0);
	assert_int_equal(t2f_profile__add_module_map(p, &m), 0);
	for (int i = 0; i < n; i++) {
		t2f_node_id nd;

		snprintf(name, sizeof(name), "%s%d", prefix, i);
		nd = child(p, child(p, 0, frame(p, "main", "/app", T2F_FRAME_USER, 0)),
			   frame(p, name, "/lib", T2F_FRAME_USER, (uint64_t)i + 1));
		assert_int_equal(t2f_profile__add_sample(p, nd, thread(p, 7, 7 + i % 3, "w", 0), e,
							 (uint64_t)i + 1, 1000 + (uint64_t)i), 0);
	}
}

/* What p holds, as text: every cell's thread, frames (root first), samples and weight, and the
 * counts of its tables. */
static char *describe(const struct t2f_profile *p)
{
	size_t cap = 64 * (t2f_profile__cell_count(p) + 4), len = 0;
	char *out = malloc(cap);

	assert_non_null(out);
	len += (size_t)snprintf(out, cap, "%u %u %u %u %zu %zu %zu %u\n",
				t2f_profile__thread_count(p), t2f_profile__event_count(p),
				t2f_profile__frame_count(p), t2f_profile__node_count(p),
				(size_t)t2f_profile__module_map_count(p),
				t2f_profile__cell_count(p),
				(size_t)t2f_profile__sample_log_count(p),
				t2f_strtab__count(t2f_profile__strtab((struct t2f_profile *)p)));
	for (size_t i = 0; i < t2f_profile__cell_count(p); i++) {
		const struct t2f_cell *c = t2f_profile__cell_at(p, i);
		t2f_node_id leaf = c->node, root = t2f_profile__node_parent(p, leaf);
		t2f_frame_id lf = t2f_profile__node_frame(p, leaf);
		const struct t2f_frame *f = t2f_profile__frame_at(p, lf);

		len += (size_t)snprintf(out + len, cap - len, "%lld %u;%u %s#%llx %llu %llu\n",
					(long long)t2f_profile__thread_at(p, c->thread)->tid,
					t2f_profile__node_frame(p, root), lf,
					t2f_profile__str(p, f->name, NULL),
					(unsigned long long)f->addr,
					(unsigned long long)c->samples,
					(unsigned long long)c->weight);
		assert_true(len < cap);
	}
	return out;
}

/* A profile reset is a new one: empty, nothing enabled, ids from 1 again; filled again it holds
 * what a new profile filled alike holds, also after its indexes were dropped. */
static void test_reset(void **state)
{
	struct t2f_profile *p = *state, *fresh;
	char *want, *got;

	(void)state;
	fill(p, "old", 5000, false);
	assert_int_equal(t2f_profile__reset(p), 0);
	assert_int_equal(t2f_profile__thread_count(p), 0);
	assert_int_equal(t2f_profile__frame_count(p), 0);
	assert_int_equal(t2f_profile__node_count(p), 0);
	assert_int_equal(t2f_profile__cell_count(p), 0);
	assert_int_equal(t2f_profile__module_map_count(p), 0);
	assert_int_equal(t2f_strtab__count(t2f_profile__strtab(p)), 0);
	assert_false(t2f_profile__log_enabled(p));
	assert_false(t2f_profile__sample_times(p));
	assert_false(t2f_profile__folds_threads(p));
	for (int round = 0; round < 2; round++) {
		bool fold = round == 1;

		fill(p, "new", 3000, fold);
		assert_int_equal(t2f_profile__new(&fresh), 0);
		fill(fresh, "new", 3000, fold);
		want = describe(fresh);
		got = describe(p);
		assert_string_equal(got, want);
		free(want);
		free(got);
		t2f_profile__free(fresh);
		t2f_profile__drop_indexes(p);
		assert_int_equal(t2f_profile__reset(p), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_empty_profile),
		T(test_thread_dedup),
		T(test_many_threads),
		T(test_tables_grow_in_place),
		T(test_event_dedup_and_find),
		T(test_frame_dedup),
		T(test_stack_trie),
		T(test_child_unindexed),
		T(test_deep_chain),
		T(test_add_sample_cells),
		T(test_many_cells),
		T(test_sample_log_order),
		T(test_frame_limit),
		T(test_module_maps),
		T(test_module_map_segment),
		T(test_drop_accounting),
		T(test_strings_and_bytes),
		T(test_saturation),
		T(test_restack),
		T(test_restack_meet),
		T(test_restack_forgotten),
		T(test_drop_indexes),
		T(test_reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
