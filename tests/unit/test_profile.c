/* tests/unit/test_profile.c: formats/profile.c — lookup-or-add of threads, events, frames and
 * stack nodes (dense ids in order of first appearance), weight cells, the sample log, module maps
 * and the read/drop accounting; merging profiles read in parts (checked against reading whole). */
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

static int setup(void **state)
{
	struct t2f_profile *p = NULL;

	if (t2f_profile__new(&p) || !p)
		return -1;
	*state = p;
	return 0;
}

static int teardown(void **state)
{
	t2f_profile__free(*state);
	return 0;
}

static t2f_str_id str(struct t2f_profile *p, const char *s)
{
	t2f_str_id id;

	assert_int_equal(t2f_profile__intern(p, s, strlen(s), &id), 0);
	return id;
}

static t2f_thread_id thread(struct t2f_profile *p, int64_t pid, int64_t tid, const char *comm,
			    uint32_t input)
{
	t2f_thread_id id = 0;

	assert_int_equal(t2f_profile__thread(p, pid, tid, str(p, comm), input, &id), 0);
	return id;
}

static t2f_frame_id frame(struct t2f_profile *p, const struct t2f_frame *f)
{
	t2f_frame_id id = 0;

	assert_int_equal(t2f_profile__frame(p, f, &id), 0);
	return id;
}

static t2f_node_id child(struct t2f_profile *p, t2f_node_id parent, t2f_frame_id f)
{
	t2f_node_id id = 0;

	assert_int_equal(t2f_profile__child(p, parent, f, &id), 0);
	return id;
}

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

	a = frame(p, &f);
	assert_int_equal(a, 1);
	assert_int_equal(frame(p, &f), a);

	/* without has_addr the address is not part of the frame */
	g = f;
	g.addr = 0x1234;
	assert_int_equal(frame(p, &g), a);
	assert_int_equal(t2f_profile__frame_at(p, a)->addr, 0);

	/* every field is part of the key */
	g = f;
	g.kind = T2F_FRAME_INLINED;
	assert_int_equal(frame(p, &g), 2);
	g = f;
	g.module = str(p, "/bin/other");
	assert_int_equal(frame(p, &g), 3);
	g = f;
	g.name = str(p, "helper");
	assert_int_equal(frame(p, &g), 4);
	g = (struct t2f_frame){ .module = f.module, .addr = 0x10, .has_addr = true };
	assert_int_equal(frame(p, &g), 5);
	g.addr = 0x20;
	assert_int_equal(frame(p, &g), 6);
	g.addr = 0x10;
	assert_int_equal(frame(p, &g), 5);
	g = (struct t2f_frame){ .module = f.module, .addr = 0, .has_addr = true };
	assert_int_equal(frame(p, &g), 7); /* address 0, kept, differs from "no address" */
	g.has_addr = false;
	assert_int_equal(frame(p, &g), 8);
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
	assert_int_equal(frame(p, &g), 9 + 777);
}

static void test_stack_trie(void **state)
{
	struct t2f_profile *p = *state;
	struct t2f_frame fa = { .name = str(p, "a") }, fb = { .name = str(p, "b") },
			 fc = { .name = str(p, "c") };
	t2f_frame_id a = frame(p, &fa), b = frame(p, &fb), c = frame(p, &fc);
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

static void test_deep_chain(void **state)
{
	struct t2f_profile *p = *state;
	struct t2f_frame f = { .name = str(p, "recurse") };
	t2f_frame_id id = frame(p, &f);
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
	n1 = child(p, 0, frame(p, &fa));
	n2 = child(p, n1, frame(p, &fa));

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
	assert_int_equal(t2f_profile__frame(p, &fc, &id), -T2F_E_LIMIT);
	assert_int_equal(t2f_profile__frame(p, &fa, &id), 0);
	assert_int_equal(id, 1);
	assert_int_equal(t2f_profile__frame_count(p), 2);
	assert_int_equal(t2f_profile__new(&src), 0);
	fc.name = str(src, "c");
	assert_int_equal(t2f_profile__frame(src, &fc, &id), 0);
	assert_int_equal(t2f_profile__merge(p, src), -T2F_E_LIMIT);
	t2f_profile__free(src);
}

static void test_sample_log_order(void **state)
{
	struct t2f_profile *p = *state;
	struct t2f_frame fa = { .name = str(p, "a") }, fb = { .name = str(p, "b") };
	t2f_thread_id t1 = thread(p, 1, 1, "x", 0), t2 = thread(p, 1, 2, "x", 0);
	t2f_node_id na, nb;
	struct t2f_sample s;
	uint64_t first, last;
	t2f_event_id e;

	assert_false(t2f_profile__time_span(p, &first, &last));
	assert_int_equal(t2f_profile__enable_log(p), 0);
	assert_true(t2f_profile__log_enabled(p));
	assert_int_equal(t2f_profile__event(p, str(p, "cpu-clock"), T2F_UNIT_NANOSECONDS, &e), 0);
	na = child(p, 0, frame(p, &fa));
	nb = child(p, 0, frame(p, &fb));
	assert_int_equal(t2f_profile__add_sample(p, nb, t2, e, 30, 3000), 0);
	assert_int_equal(t2f_profile__add_sample(p, na, t1, e, 10, 1000), 0);
	assert_int_equal(t2f_profile__add_sample(p, nb, t2, e, 20, 2000), 0);
	assert_int_equal(t2f_profile__add_sample(p, na, t1, e, 1ULL << 40, 0), 0); /* kept aside */
	assert_int_equal(t2f_profile__add_sample(p, na, t1, e, UINT32_MAX - 1, 0), 0);
	assert_int_equal(t2f_profile__add_sample(p, na, t1, e, UINT32_MAX, 0), 0);
	assert_int_equal(t2f_profile__sample_log_count(p), 6);
	assert_int_equal(t2f_profile__cell_count(p), 2);
	assert_int_equal(t2f_profile__thread_sample_count(p, t1), 4); /* per thread */
	assert_int_equal(t2f_profile__thread_sample_count(p, t2), 2);
	s = t2f_profile__sample_at(p, t2, 0); /* input order, not time order */
	assert_int_equal(s.node, nb);
	assert_int_equal(s.thread, t2);
	assert_int_equal(s.event, e);
	assert_int_equal(s.weight, 30);
	s = t2f_profile__sample_at(p, t1, 0);
	assert_int_equal(s.node, na);
	assert_int_equal(s.thread, t1);
	assert_int_equal(s.weight, 10);
	s = t2f_profile__sample_at(p, t2, 1);
	assert_int_equal(s.node, nb);
	assert_int_equal(s.weight, 20);
	assert_int_equal(t2f_profile__sample_at(p, t1, 1).weight, 1ULL << 40);
	assert_int_equal(t2f_profile__sample_at(p, t1, 2).weight, UINT32_MAX - 1);
	assert_int_equal(t2f_profile__sample_at(p, t1, 3).weight, UINT32_MAX);
	assert_int_equal(t2f_profile__sample_at(p, t1, 3).node, na);
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

		frame(p, &f);
	}
	assert_true(t2f_profile__bytes(p) > before);
}

/* ---- merging: a pseudo-random stream of profile operations, read whole vs. in parts ---- */

#define GEN_OPS 2500
#define GEN_MAX_DEPTH 14
#define GEN_FRAMES 48

enum gen_kind { GEN_SAMPLE, GEN_MAP, GEN_DROP, GEN_STRING };

struct gen_frame {
	unsigned name, module; /* string indexes; 0 = none */
	enum t2f_frame_kind kind;
	bool has_addr, abs_addr;
	uint64_t addr;
};

struct gen_op {
	enum gen_kind kind;
	unsigned comm, event, depth, str;
	int64_t pid, tid;
	uint32_t input;
	bool period;
	uint64_t weight, time;
	unsigned stack[GEN_MAX_DEPTH]; /* indexes into the frame pool, root first */
	struct t2f_module_map map;     /* string fields hold string indexes */
	enum t2f_drop_reason reason;
};

struct gen {
	struct gen_frame frames[GEN_FRAMES];
	struct gen_op ops[GEN_OPS];
};

/* xorshift64*: the same stream for the same seed on every platform. */
static uint32_t rnd(uint64_t *s, uint32_t n)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return (uint32_t)((*s * 0x2545f4914f6cdd1dULL) >> 32) % n;
}

/* String number idx of a family; some carry a NUL byte inside. */
static t2f_str_id gen_str(struct t2f_profile *p, const char *family, unsigned idx)
{
	char buf[64];
	int n = snprintf(buf, sizeof(buf), "%s%u", family, idx);
	size_t len = (size_t)n;
	t2f_str_id id;

	if (idx % 7 == 3) {
		buf[len++] = '\0';
		buf[len++] = 'z';
	}
	assert_int_equal(t2f_profile__intern(p, buf, len, &id), 0);
	return id;
}

static void gen_frame_pool(struct gen *g, uint64_t *s)
{
	for (unsigned i = 0; i < GEN_FRAMES; i++) {
		struct gen_frame *f = &g->frames[i];

		f->name = rnd(s, 10) ? 1 + rnd(s, 36) : 0;
		f->module = rnd(s, 6) ? 1 + rnd(s, 5) : 0;
		f->kind = (enum t2f_frame_kind)rnd(s, 5);
		f->has_addr = rnd(s, 3) == 0;
		f->abs_addr = f->has_addr && rnd(s, 2);
		f->addr = f->has_addr ? 0x400000 + rnd(s, 64) * 16 : 0;
	}
}

static void gen_sample(struct gen_op *op, uint64_t *s, uint64_t time)
{
	op->kind = GEN_SAMPLE;
	op->pid = 100 + rnd(s, 4);
	op->tid = op->pid + rnd(s, 3);
	op->comm = rnd(s, 5);
	op->input = rnd(s, 2);
	op->event = rnd(s, 4);
	op->period = rnd(s, 3) == 0;
	/* now and then a weight the sample log keeps aside (2^32 - 1 and up) */
	op->weight = rnd(s, 50) ? 1 + rnd(s, 1000) : rnd(s, 2) ? UINT32_MAX - 1 + rnd(s, 3) : 0;
	op->time = rnd(s, 7) ? time : 0;
	op->depth = rnd(s, 12) ? 1 + rnd(s, GEN_MAX_DEPTH) : 0;
	/* narrow choices near the root so stacks share prefixes */
	for (unsigned d = 0; d < op->depth; d++)
		op->stack[d] = rnd(s, 3 + 3 * d);
}

static void gen_map(struct gen_op *op, uint64_t *s)
{
	op->kind = GEN_MAP;
	op->map = (struct t2f_module_map){
		.pid = rnd(s, 5) ? 100 + (int64_t)rnd(s, 4) : -1, .start = 0x10000ULL * (1 + rnd(s, 900)),
		.len = 0x1000ULL * (1 + rnd(s, 9)), .pgoff = 0x1000ULL * rnd(s, 4),
		.path = 1 + rnd(s, 8), .build_id = rnd(s, 4), .prot = rnd(s, 3),
		.has_segment = rnd(s, 3) == 0, .page_size = rnd(s, 2) ? 4096 : 0 };
	if (op->map.has_segment) {
		op->map.p_vaddr = 0x1000 + rnd(s, 4096);
		op->map.p_offset = rnd(s, 4096);
	}
}

static void gen_ops(struct gen *g, uint64_t seed)
{
	uint64_t s = seed * 0x9e3779b97f4a7c15ULL + 1;

	gen_frame_pool(g, &s);
	for (unsigned i = 0; i < GEN_OPS; i++) {
		struct gen_op *op = &g->ops[i];
		uint32_t r = rnd(&s, 40);

		memset(op, 0, sizeof(*op));
		if (r == 0) {
			gen_map(op, &s);
		} else if (r == 1) {
			op->kind = GEN_DROP;
			op->reason = (enum t2f_drop_reason)rnd(&s, T2F_DROP__COUNT);
		} else if (r == 2) {
			op->kind = GEN_STRING; /* a string nothing refers to */
			op->str = rnd(&s, 400);
		} else {
			gen_sample(op, &s, 1000ULL * i + rnd(&s, 999));
		}
	}
}

static t2f_frame_id gen_apply_frame(struct t2f_profile *p, const struct gen_frame *gf)
{
	struct t2f_frame f = { .name = gf->name ? gen_str(p, "fn", gf->name) : 0,
			       .module = gf->module ? gen_str(p, "/lib/m", gf->module) : 0,
			       .kind = gf->kind, .has_addr = gf->has_addr,
			       .abs_addr = gf->abs_addr, .addr = gf->addr };

	return frame(p, &f);
}

/* What a reader does for one sample: thread, event, stack root first, then the weight. */
static void gen_apply_sample(struct t2f_profile *p, const struct gen *g, const struct gen_op *op)
{
	t2f_thread_id t;
	t2f_event_id e;
	t2f_node_id n = 0;

	t2f_profile__count_read(p);
	assert_int_equal(t2f_profile__thread(p, op->pid, op->tid, gen_str(p, "comm", op->comm),
					     op->input, &t), 0);
	assert_int_equal(t2f_profile__event(p, gen_str(p, "ev", op->event),
					    (enum t2f_unit)(op->event % 2), &e), 0);
	if (op->period)
		t2f_profile__event_has_period(p, e);
	if (!op->depth) {
		t2f_profile__count_drop(p, T2F_DROP_EMPTY_STACK);
		return;
	}
	for (unsigned d = 0; d < op->depth; d++)
		n = child(p, n, gen_apply_frame(p, &g->frames[op->stack[d]]));
	assert_int_equal(t2f_profile__add_sample(p, n, t, e, op->weight, op->time), 0);
}

static void gen_apply_map(struct t2f_profile *p, const struct gen_op *op)
{
	struct t2f_module_map m = op->map;

	m.path = gen_str(p, "/usr/lib/lib", m.path);
	m.build_id = m.build_id ? gen_str(p, "beef", m.build_id) : 0;
	m.prot = m.prot ? gen_str(p, "r-xp", m.prot) : 0;
	assert_int_equal(t2f_profile__add_module_map(p, &m), 0);
}

/* Applies ops [from, to) to p. */
static void gen_apply(struct t2f_profile *p, const struct gen *g, unsigned from, unsigned to)
{
	for (unsigned i = from; i < to; i++) {
		const struct gen_op *op = &g->ops[i];

		switch (op->kind) {
		case GEN_SAMPLE: gen_apply_sample(p, g, op); break;
		case GEN_MAP: gen_apply_map(p, op); break;
		case GEN_DROP: t2f_profile__count_read(p); t2f_profile__count_drop(p, op->reason); break;
		case GEN_STRING: gen_str(p, "lone", op->str); break;
		}
	}
}

static struct t2f_profile *new_profile(bool log)
{
	struct t2f_profile *p = NULL;

	assert_int_equal(t2f_profile__new(&p), 0);
	if (log)
		assert_int_equal(t2f_profile__enable_log(p), 0);
	return p;
}

static void expect_same_strings(const struct t2f_profile *a, struct t2f_profile *b)
{
	uint32_t n = t2f_strtab__count(t2f_profile__strtab((struct t2f_profile *)a));
	size_t la, lb;

	assert_int_equal(t2f_strtab__count(t2f_profile__strtab(b)), n);
	for (t2f_str_id id = 1; id <= n; id++) {
		const char *sa = t2f_profile__str(a, id, &la), *sb = t2f_profile__str(b, id, &lb);

		assert_int_equal(la, lb);
		assert_memory_equal(sa, sb, la);
	}
}

static void expect_same_ids(const struct t2f_profile *a, const struct t2f_profile *b)
{
	assert_int_equal(t2f_profile__thread_count(a), t2f_profile__thread_count(b));
	for (t2f_thread_id id = 1; id <= t2f_profile__thread_count(a); id++) {
		const struct t2f_thread *ta = t2f_profile__thread_at(a, id);
		const struct t2f_thread *tb = t2f_profile__thread_at(b, id);

		assert_int_equal(ta->pid, tb->pid);
		assert_int_equal(ta->tid, tb->tid);
		assert_int_equal(ta->comm, tb->comm);
		assert_int_equal(ta->input, tb->input);
	}
	assert_int_equal(t2f_profile__event_count(a), t2f_profile__event_count(b));
	for (t2f_event_id id = 1; id <= t2f_profile__event_count(a); id++) {
		const struct t2f_event *ea = t2f_profile__event_at(a, id);
		const struct t2f_event *eb = t2f_profile__event_at(b, id);

		assert_int_equal(ea->name, eb->name);
		assert_int_equal(ea->unit, eb->unit);
		assert_int_equal(ea->has_period, eb->has_period);
	}
	assert_int_equal(t2f_profile__frame_count(a), t2f_profile__frame_count(b));
	for (t2f_frame_id id = 1; id <= t2f_profile__frame_count(a); id++) {
		const struct t2f_frame *fa = t2f_profile__frame_at(a, id);
		const struct t2f_frame *fb = t2f_profile__frame_at(b, id);

		assert_int_equal(fa->name, fb->name);
		assert_int_equal(fa->module, fb->module);
		assert_int_equal(fa->addr, fb->addr);
		assert_int_equal(fa->kind, fb->kind);
		assert_int_equal(fa->has_addr, fb->has_addr);
		assert_int_equal(fa->abs_addr, fb->abs_addr);
	}
	assert_int_equal(t2f_profile__node_count(a), t2f_profile__node_count(b));
	for (t2f_node_id id = 1; id <= t2f_profile__node_count(a); id++) {
		assert_int_equal(t2f_profile__node_parent(a, id), t2f_profile__node_parent(b, id));
		assert_int_equal(t2f_profile__node_frame(a, id), t2f_profile__node_frame(b, id));
		assert_int_equal(t2f_profile__node_depth(a, id), t2f_profile__node_depth(b, id));
	}
}

static void expect_same_span(const struct t2f_profile *a, const struct t2f_profile *b)
{
	uint64_t fa = 0, la = 0, fb = 0, lb = 0;
	bool ha = t2f_profile__time_span(a, &fa, &la), hb = t2f_profile__time_span(b, &fb, &lb);

	assert_int_equal(ha, hb);
	assert_int_equal(fa, fb);
	assert_int_equal(la, lb);
}

static void expect_same_weights(const struct t2f_profile *a, const struct t2f_profile *b)
{
	assert_int_equal(t2f_profile__cell_count(a), t2f_profile__cell_count(b));
	for (size_t i = 0; i < t2f_profile__cell_count(a); i++) {
		const struct t2f_cell *ca = t2f_profile__cell_at(a, i);
		const struct t2f_cell *cb = t2f_profile__cell_at(b, i);

		assert_int_equal(ca->node, cb->node);
		assert_int_equal(ca->thread, cb->thread);
		assert_int_equal(ca->event, cb->event);
		assert_int_equal(ca->samples, cb->samples);
		assert_int_equal(ca->weight, cb->weight);
	}
	assert_int_equal(t2f_profile__sample_log_count(a), t2f_profile__sample_log_count(b));
	assert_int_equal(t2f_profile__thread_count(a), t2f_profile__thread_count(b));
	for (t2f_thread_id t = 1; t <= t2f_profile__thread_count(a); t++) {
		size_t n = t2f_profile__thread_sample_count(a, t);

		assert_int_equal(n, t2f_profile__thread_sample_count(b, t));
		for (size_t i = 0; i < n; i++) {
			struct t2f_sample sa = t2f_profile__sample_at(a, t, i);
			struct t2f_sample sb = t2f_profile__sample_at(b, t, i);

			assert_int_equal(sa.node, sb.node);
			assert_int_equal(sa.thread, t);
			assert_int_equal(sb.thread, t);
			assert_int_equal(sa.event, sb.event);
			assert_int_equal(sa.weight, sb.weight);
		}
	}
	expect_same_span(a, b);
	assert_int_equal(t2f_profile__samples_read(a), t2f_profile__samples_read(b));
	assert_int_equal(t2f_profile__weightless_samples(a), t2f_profile__weightless_samples(b));
	for (int r = 0; r < T2F_DROP__COUNT; r++)
		assert_int_equal(t2f_profile__samples_dropped(a, (enum t2f_drop_reason)r),
				 t2f_profile__samples_dropped(b, (enum t2f_drop_reason)r));
}

static void expect_same_maps(const struct t2f_profile *a, const struct t2f_profile *b)
{
	assert_int_equal(t2f_profile__module_map_count(a), t2f_profile__module_map_count(b));
	for (uint32_t i = 0; i < t2f_profile__module_map_count(a); i++) {
		const struct t2f_module_map *ma = t2f_profile__module_map_at(a, i);
		const struct t2f_module_map *mb = t2f_profile__module_map_at(b, i);

		assert_int_equal(ma->pid, mb->pid);
		assert_int_equal(ma->start, mb->start);
		assert_int_equal(ma->len, mb->len);
		assert_int_equal(ma->pgoff, mb->pgoff);
		assert_int_equal(ma->path, mb->path);
		assert_int_equal(ma->build_id, mb->build_id);
		assert_int_equal(ma->prot, mb->prot);
		assert_int_equal(ma->has_segment, mb->has_segment);
		assert_int_equal(ma->p_vaddr, mb->p_vaddr);
		assert_int_equal(ma->p_offset, mb->p_offset);
		assert_int_equal(ma->page_size, mb->page_size);
	}
}

/* Every table field by field; string ids are compared as ids, and their text once here. */
static void expect_same_profile(const struct t2f_profile *a, struct t2f_profile *b)
{
	expect_same_strings(a, b);
	expect_same_ids(a, b);
	expect_same_weights(a, b);
	expect_same_maps(a, b);
}

/* Reads ops [cuts[i], cuts[i+1]) into fresh profiles and merges them in order into dst, which
 * already holds ops [0, cuts[0]). */
static struct t2f_profile *merge_parts(const struct gen *g, const unsigned *cuts, size_t ncuts,
				       bool log)
{
	struct t2f_profile *dst = new_profile(log);

	gen_apply(dst, g, 0, cuts[0]);
	for (size_t i = 0; i + 1 < ncuts; i++) {
		struct t2f_profile *part = new_profile(log);

		gen_apply(part, g, cuts[i], cuts[i + 1]);
		assert_int_equal(t2f_profile__merge(dst, part), 0);
		t2f_profile__free(part);
	}
	return dst;
}

static void check_merge_cuts(const struct gen *g, const struct t2f_profile *whole,
			     const unsigned *cuts, size_t ncuts, bool log)
{
	struct t2f_profile *merged = merge_parts(g, cuts, ncuts, log);

	expect_same_profile(whole, merged);
	t2f_profile__free(merged);
}

static void check_merge_seed(uint64_t seed, bool log)
{
	static const unsigned cuts[][4] = {
		{ 0, 1, GEN_OPS },                       /* 2 parts */
		{ 0, GEN_OPS / 2, GEN_OPS },
		{ 0, GEN_OPS - 1, GEN_OPS },
		{ 0, GEN_OPS / 4, GEN_OPS / 2, GEN_OPS }, /* 3 parts */
		{ 0, 7, GEN_OPS - 7, GEN_OPS },
		{ 0, GEN_OPS / 3, GEN_OPS / 3, GEN_OPS }, /* an empty middle part */
		{ 0, 0, GEN_OPS, GEN_OPS },               /* empty first and last parts */
		{ GEN_OPS / 5, GEN_OPS / 2, GEN_OPS, 0 }, /* dst already holds the first fifth */
	};
	static const size_t ncuts[] = { 3, 3, 3, 4, 4, 4, 4, 3 };
	struct gen *g = calloc(1, sizeof(*g));
	struct t2f_profile *whole = new_profile(log);

	assert_non_null(g);
	gen_ops(g, seed);
	gen_apply(whole, g, 0, GEN_OPS);
	/* the stream exercises what it should */
	assert_true(t2f_profile__node_count(whole) > 500);
	assert_true(t2f_profile__cell_count(whole) > 500);
	assert_true(t2f_profile__module_map_count(whole) > 20);
	assert_true(log ? t2f_profile__sample_log_count(whole) > t2f_profile__cell_count(whole)
			: t2f_profile__sample_log_count(whole) == 0);
	for (size_t i = 0; i < sizeof(ncuts) / sizeof(ncuts[0]); i++)
		check_merge_cuts(g, whole, cuts[i], ncuts[i], log);
	t2f_profile__free(whole);
	free(g);
}

/* By hand: what is new to dst is numbered after dst's own, in src's order; what dst has is
 * reused; src stays as it was. */
static void test_merge_small(void **state)
{
	struct t2f_profile *dst = *state, *src = new_profile(true);
	struct t2f_frame fa = { .name = str(dst, "a") }, sb = { .name = str(src, "b") };
	struct t2f_frame sa = { .name = str(src, "a") };
	t2f_thread_id t = thread(dst, 1, 1, "x", 0), ts = thread(src, 2, 2, "y", 1);
	t2f_node_id na = child(dst, 0, frame(dst, &fa)), sna, snab;
	t2f_event_id e, es;

	assert_int_equal(t2f_profile__event(dst, str(dst, "cpu-clock"), T2F_UNIT_NANOSECONDS, &e), 0);
	assert_int_equal(t2f_profile__add_sample(dst, na, t, e, 5, 0), 0);
	/* src: "b", "a", "y", "cpu-clock" (as a count), stack a;b and a */
	snab = child(src, child(src, 0, frame(src, &sa)), frame(src, &sb));
	sna = t2f_profile__node_parent(src, snab);
	assert_int_equal(t2f_profile__event(src, str(src, "cpu-clock"), T2F_UNIT_COUNT, &es), 0);
	t2f_profile__event_has_period(src, es);
	assert_int_equal(t2f_profile__add_sample(src, snab, ts, es, 7, 70), 0);
	assert_int_equal(t2f_profile__add_sample(src, sna, ts, es, 3, 80), 0);
	t2f_profile__count_read(src);

	assert_int_equal(t2f_profile__merge(dst, src), 0);
	/* strings: a=1 x=2 cpu-clock=3 from dst, then b=4 y=5 */
	assert_int_equal(t2f_strtab__count(t2f_profile__strtab(dst)), 5);
	assert_string_equal(t2f_profile__str(dst, 4, NULL), "b");
	assert_string_equal(t2f_profile__str(dst, 5, NULL), "y");
	assert_int_equal(t2f_profile__thread_count(dst), 2);
	assert_int_equal(t2f_profile__thread_at(dst, 2)->comm, 5);
	assert_int_equal(t2f_profile__thread_at(dst, 2)->input, 1);
	/* the event is dst's, with dst's unit, and now has a period */
	assert_int_equal(t2f_profile__event_count(dst), 1);
	assert_int_equal(t2f_profile__event_at(dst, 1)->unit, T2F_UNIT_NANOSECONDS);
	assert_true(t2f_profile__event_at(dst, 1)->has_period);
	/* node a is reused, a;b is node 2 */
	assert_int_equal(t2f_profile__node_count(dst), 2);
	assert_int_equal(t2f_profile__node_parent(dst, 2), na);
	assert_int_equal(t2f_profile__node_depth(dst, 2), 2);
	assert_int_equal(t2f_profile__frame_at(dst, t2f_profile__node_frame(dst, 2))->name, 4);
	assert_int_equal(t2f_profile__cell_count(dst), 3);
	assert_int_equal(t2f_profile__cell_at(dst, 1)->node, 2);
	assert_int_equal(t2f_profile__cell_at(dst, 2)->node, na);
	assert_int_equal(t2f_profile__cell_at(dst, 2)->thread, 2);
	assert_int_equal(t2f_profile__cell_at(dst, 2)->weight, 3);
	/* dst's log is off: nothing appended */
	assert_int_equal(t2f_profile__sample_log_count(dst), 0);
	assert_int_equal(t2f_profile__samples_read(dst), 1);
	/* src unchanged */
	assert_int_equal(t2f_strtab__count(t2f_profile__strtab(src)), 4);
	assert_int_equal(t2f_profile__cell_count(src), 2);
	assert_int_equal(t2f_profile__sample_log_count(src), 2);
	assert_int_equal(t2f_profile__event_at(src, es)->unit, T2F_UNIT_COUNT);

	/* an empty profile merges as nothing */
	t2f_profile__free(src);
	src = new_profile(false);
	assert_int_equal(t2f_profile__merge(dst, src), 0);
	assert_int_equal(t2f_strtab__count(t2f_profile__strtab(dst)), 5);
	assert_int_equal(t2f_profile__node_count(dst), 2);
	assert_int_equal(t2f_profile__cell_count(dst), 3);
	t2f_profile__free(src);
}

static void test_merge_parts_equal_whole(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 3; seed++) {
		check_merge_seed(seed, false);
		check_merge_seed(seed, true);
	}
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_empty_profile),
		T(test_thread_dedup),
		T(test_many_threads),
		T(test_event_dedup_and_find),
		T(test_frame_dedup),
		T(test_stack_trie),
		T(test_deep_chain),
		T(test_add_sample_cells),
		T(test_many_cells),
		T(test_sample_log_order),
		T(test_frame_limit),
		T(test_module_maps),
		T(test_module_map_segment),
		T(test_drop_accounting),
		T(test_strings_and_bytes),
		T(test_merge_small),
		cmocka_unit_test(test_merge_parts_equal_whole),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
