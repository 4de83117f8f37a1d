/* tests/unit/test_collapsed.c: writers/collapsed.c fed by the perf script reader.
 *
 * Small hand-written perf script inputs go through readers/perf_script into a profile, the
 * collapsed writer writes to a temp file, and the text is compared exactly. The real recording
 * against inferno-collapse-perf's output (symbol versions cut in the reference) is
 * tests/corpus.sh's. */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "formats/diag.h"
#include "formats/profile.h"
#include "readers/perf_script.h"
#include "writers/collapsed.h"
#include "writers/out.h"

/* ---- helpers ---- */

/* A profile read from perf script text (fed in chunks of at most `chunk` bytes, cut after a
 * '\n'; 0 = whole). */
static struct t2f_profile *read_text(const char *text, size_t len, size_t chunk)
{
	struct t2f_profile *p;
	struct t2f_diag *d;
	struct t2f_perf_script *ps;
	size_t off = 0;

	assert_int_equal(t2f_profile__new(&p), 0);
	assert_int_equal(t2f_diag__new(NULL, &d), 0);
	assert_int_equal(t2f_perf_script__new(p, d, "in.perf", 0, &ps), 0);
	while (off < len) {
		size_t n = len - off;

		if (chunk && n > chunk) {
			const char *nl = memrchr(text + off, '\n', chunk);

			n = nl ? (size_t)(nl - (text + off)) + 1 : n;
		}
		assert_int_equal(t2f_perf_script__feed(ps, text + off, n), 0);
		off += n;
	}
	assert_int_equal(t2f_perf_script__finish(ps), 0);
	assert_int_equal(t2f_diag__warnings(d), 0);
	t2f_perf_script__free(ps);
	t2f_diag__free(d);
	return p;
}

/* The collapsed text of p under o (NUL-terminated, caller frees). */
static char *collapse(const struct t2f_profile *p, const struct t2f_collapsed_opts *o,
		      size_t *out_len)
{
	FILE *f = tmpfile();
	struct t2f_out *out;
	long size;
	char *buf;

	assert_non_null(f);
	assert_int_equal(t2f_out__new(fileno(f), &out), 0);
	assert_int_equal(t2f_collapsed__write(p, o, out), 0);
	assert_int_equal(t2f_out__finish(out), 0);
	size = lseek(fileno(f), 0, SEEK_END);
	assert_true(size >= 0);
	assert_int_equal(t2f_out__bytes(out), (uint64_t)size);
	t2f_out__free(out);
	buf = malloc((size_t)size + 1);
	assert_non_null(buf);
	assert_int_equal(pread(fileno(f), buf, (size_t)size, 0), size);
	buf[size] = '\0';
	fclose(f);
	if (out_len)
		*out_len = (size_t)size;
	return buf;
}

static void assert_collapsed(const char *text, const struct t2f_collapsed_opts *o,
			     const char *want)
{
	struct t2f_profile *p = read_text(text, strlen(text), 0);
	char *got = collapse(p, o, NULL);

	assert_string_equal(got, want);
	free(got);
	t2f_profile__free(p);
}

static const struct t2f_collapsed_opts DEFAULTS = { 0 };

/* ---- cases ---- */

/* Lines are sorted bytewise ('Z' < 'a', 'B' < 'a', ':' < ';' < '_', a prefix first), equal lines
 * merged (also across threads of one comm). */
static const char SORTING[] =
	"app 10 1.0: 3 cpu-clock:\n"
	"\t 1 leaf (/x)\n"
	"\t 2 a_x (/x)\n"
	"\n"
	"app 10 2.0: 5 cpu-clock:\n"
	"\t 3 b (/x)\n"
	"\t 4 a (/x)\n"
	"\n"
	"app 10 3.0: 7 cpu-clock:\n"
	"\t 4 a (/x)\n"
	"\n"
	"app 10 4.0: 11 cpu-clock:\n"
	"\t 5 Big (/x)\n"
	"\n"
	"app 11 5.0: 13 cpu-clock:\n"   /* another thread of the same comm: merged */
	"\t 3 b (/x)\n"
	"\t 4 a (/x)\n"
	"\n"
	"Zed 12 6.0: 17 cpu-clock:\n"
	"\t 4 a (/x)\n"
	"\n"
	"app 10 7.0: 19 cpu-clock:\n"
	"\t 3 b (/x)\n"
	"\t 4 a (/x)\n"
	"\n"
	"app 10 8.0: 23 cpu-clock:\n"
	"\t 6 a;b (/x)\n"
	"\n";

static void test_sort_and_merge(void **state)
{
	(void)state;
	assert_collapsed(SORTING, &DEFAULTS,
			 "Zed;a 17\n"
			 "app;Big 11\n"
			 "app;a 7\n"
			 "app;a:b 23\n"
			 "app;a;b 37\n"
			 "app;a_x;leaf 3\n");
}

static void test_weight_samples(void **state)
{
	struct t2f_collapsed_opts o = { .weight_samples = true };

	(void)state;
	assert_collapsed(SORTING, &o,
			 "Zed;a 1\n"
			 "app;Big 1\n"
			 "app;a 1\n"
			 "app;a:b 1\n"
			 "app;a;b 3\n"
			 "app;a_x;leaf 1\n");
}

static const char THREADS[] =
	"workload 12 1.0: 100 cpu-clock:\n"
	"\t 1 run (/bin/w)\n"
	"\n"
	"workload 100/101 2.0: 200 cpu-clock:\n"
	"\t 1 run (/bin/w)\n"
	"\n"
	"V8 Worker 12 22829 3.0: 300 cpu-clock:\n"
	"\t 1 run (/bin/w)\n"
	"\n"
	"1234 5678 22827/22830 4.0: 400 cpu-clock:\n"
	"\t 1 run (/bin/w)\n"
	"\n"
	"workload 100/102 5.0: 500 cpu-clock:\n"
	"\t 1 run (/bin/w)\n"
	"\n";

static void test_roots_comm(void **state)
{
	(void)state;
	assert_collapsed(THREADS, &DEFAULTS,
			 "1234_5678;run 400\n"
			 "V8_Worker_12;run 300\n"
			 "workload;run 800\n");
}

static void test_roots_pid(void **state)
{
	struct t2f_collapsed_opts o = { .pid = true };

	(void)state;
	assert_collapsed(THREADS, &o,
			 "1234_5678-22827;run 400\n"
			 "V8_Worker_12-?;run 300\n"
			 "workload-100;run 700\n"
			 "workload-?;run 100\n");
}

static void test_roots_tid(void **state)
{
	struct t2f_collapsed_opts o = { .tid = true };

	(void)state;
	assert_collapsed(THREADS, &o,
			 "1234_5678-22827/22830;run 400\n"
			 "V8_Worker_12-?/22829;run 300\n"
			 "workload-100/101;run 200\n"
			 "workload-100/102;run 500\n"
			 "workload-?/12;run 100\n");
	/* tid wins when both are set */
	o.pid = true;
	assert_collapsed(THREADS, &o,
			 "1234_5678-22827/22830;run 400\n"
			 "V8_Worker_12-?/22829;run 300\n"
			 "workload-100/101;run 200\n"
			 "workload-100/102;run 500\n"
			 "workload-?/12;run 100\n");
}

static void test_root_comm_sanitized(void **state)
{
	(void)state;
	assert_collapsed("a;b\tc 5 1.0: 1 cpu-clock:\n"
			 "\t 1 f (/x)\n"
			 "\n"
			 " 6 2.0: 2 cpu-clock:\n"   /* empty comm */
			 "\t 1 f (/x)\n"
			 "\n",
			 &DEFAULTS,
			 "[unknown];f 2\n"
			 "a:b_c;f 1\n");
}

static const char EVENTS[] =
	"w 1 1.0: 1000 cpu-clock:pppH:\n"
	"\t 1 compute (/bin/w)\n"
	"\n"
	"w 1 1.1: 1 page-faults:\n"
	"\t 2 memset (/bin/w)\n"
	"\t 1 compute (/bin/w)\n"
	"\n"
	"w 1 [000] 1.2: sched:sched_switch: prev_comm=w prev_pid=1 ==> next_comm=x next_pid=0\n"
	"\t 3 __schedule+0x1 ([kernel.kallsyms])\n"
	"\t 1 compute (/bin/w)\n"
	"\n"
	"w 1 1.3: 1000 cpu-clock:pppH:\n"
	"\t 1 compute (/bin/w)\n"
	"\n"
	"w 1 1.4: 1 page-faults:\n"
	"\t 2 memset (/bin/w)\n"
	"\t 1 compute (/bin/w)\n"
	"\n";

static void test_event_selection(void **state)
{
	struct t2f_collapsed_opts o = { 0 };
	struct t2f_profile *p = read_text(EVENTS, strlen(EVENTS), 0);
	char *got;

	(void)state;
	got = collapse(p, &o, NULL); /* 0 = the first event */
	assert_string_equal(got, "w;compute 2000\n");
	free(got);
	o.event = 1;
	got = collapse(p, &o, NULL);
	assert_string_equal(got, "w;compute 2000\n");
	free(got);
	o.event = t2f_profile__find_event(p, "page-faults");
	assert_int_equal(o.event, 2);
	got = collapse(p, &o, NULL);
	assert_string_equal(got, "w;compute;memset 2\n");
	free(got);
	o.event = t2f_profile__find_event(p, "sched:sched_switch");
	assert_int_equal(o.event, 3);
	got = collapse(p, &o, NULL);
	assert_string_equal(got, "w;compute;__schedule 1\n");
	free(got);
	o.event = 4; /* no such event: nothing */
	got = collapse(p, &o, NULL);
	assert_string_equal(got, "");
	free(got);
	t2f_profile__free(p);
}

static const char KINDS[] =
	"node 7 1.0: 10 cpu-clock:\n"
	"\tffffffff821facd8 __schedule+0x618 ([kernel.kallsyms])\n"
	"\t 8 sys_read (/boot/vmlinux)\n"
	"\t 7f00 LazyCompile:~run;x (/tmp/perf-7.map)\n"
	"\t 27304 inl_fn(int)+0x84 (inlined)\n"
	"\t 1098d9 [unknown] (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
	"\t a800 (/usr/lib/ld.so)\n"
	"\t 9 [unknown] ([unknown])\n"
	"\t 10 main(int, char**) (/bin/node)\n"
	"\n";

static void test_kernel_jit_annotations(void **state)
{
	struct t2f_collapsed_opts o = { 0 };

	(void)state;
	assert_collapsed(KINDS, &o,
			 "node;main;[unknown];[ld.so];[libc.so.6];inl_fn;LazyCompile:~run:x;"
			 "sys_read;__schedule 10\n");
	o.names.kernel = true;
	o.names.jit = true;
	assert_collapsed(KINDS, &o,
			 "node;main;[unknown];[ld.so];[libc.so.6];inl_fn;LazyCompile:~run:x_[j];"
			 "sys_read_[k];__schedule_[k] 10\n");
	o.names.inlined = true;
	o.names.addrs = true;
	o.names.raw_names = true;
	assert_collapsed(KINDS, &o,
			 "node;main(int, char**);[unknown <9>];[ld.so <a800>];[libc.so.6 <1098d9>];"
			 "inl_fn(int)_[i];LazyCompile:~run:x_[j];sys_read_[k];__schedule_[k] 10\n");
}

static void test_one_line_samples(void **state)
{
	(void)state;
	assert_collapsed("        workload 22677  1993.326821:    2004008 cpu-clock:pppH:      "
			 "560cbf4a7b9e std::foo<int>::_M_gen_rand+0x9e (/srv/prog/workload)\n"
			 "        workload 22676  1993.327389:    2004008 cpu-clock:pppH:      "
			 "560cbf4a5376 app::matrix_worker(int)+0x1a6 (/srv/prog/workload)\n"
			 "        workload 22677  1993.328817:    2004008 cpu-clock:pppH:      "
			 "560cbf4a7b9e std::foo<int>::_M_gen_rand+0x9e (/srv/prog/workload)\n",
			 &DEFAULTS,
			 "workload;app::matrix_worker 2004008\n"
			 "workload;std::foo<int>::_M_gen_rand 4008016\n");
}

static void test_leaf_number_guard(void **state)
{
	(void)state;
	/* a name ending in " <digits>" must not be read back as the count */
	assert_collapsed("w 1 1.0: 5 cpu-clock:\n"
			 "\t 1 Thread 42 (/x)\n"
			 "\n",
			 &DEFAULTS, "w;Thread_42 5\n");
}

static void test_empty_profile(void **state)
{
	struct t2f_profile *p;
	char *got;

	(void)state;
	assert_int_equal(t2f_profile__new(&p), 0);
	got = collapse(p, &DEFAULTS, NULL);
	assert_string_equal(got, "");
	free(got);
	t2f_profile__free(p);
	/* a sample without a call chain: its thread alone, as stackcollapse-perf.pl writes it */
	assert_collapsed("w 1 1.0: 5 cpu-clock:\n\n", &DEFAULTS, "w 5\n");
}


/* 200,000 cells, enough for several parts of names and texts: frame names repeat across
 * modules (the collapsed names leave modules out), so the cells of one name, in different
 * parts, are one line; weights differ per cell. Every thread count writes the one-thread text;
 * spot checks of that text. */
static void test_threads_one_text(void **state)
{
	static const unsigned threads[] = { 2, 3, 8, 64 };
	struct t2f_profile *p;
	t2f_thread_id t;
	t2f_event_id e;
	t2f_str_id s;
	char name[32], *want;
	size_t want_len;

	(void)state;
	assert_int_equal(t2f_profile__new(&p), 0);
	assert_int_equal(t2f_profile__intern(p, "app", 3, &s), 0);
	assert_int_equal(t2f_profile__thread(p, 1, 1, s, 0, &t), 0);
	assert_int_equal(t2f_profile__intern(p, "cpu-clock", 9, &s), 0);
	assert_int_equal(t2f_profile__event(p, s, T2F_UNIT_NANOSECONDS, &e), 0);
	for (uint32_t i = 0; i < 200000; i++) {
		struct t2f_frame f = { 0 };
		t2f_frame_id fid;
		t2f_node_id n;
		int len = snprintf(name, sizeof(name), "f%u", (i * 7919u) % 90000u);

		assert_int_equal(t2f_profile__intern(p, name, (size_t)len, &f.name), 0);
		len = snprintf(name, sizeof(name), "/lib/m%u", i % 3);
		assert_int_equal(t2f_profile__intern(p, name, (size_t)len, &f.module), 0);
		assert_int_equal(t2f_profile__frame(p, &f, &fid), 0);
		assert_int_equal(t2f_profile__child(p, 0, fid, &n), 0);
		assert_int_equal(t2f_profile__add_sample(p, n, t, e, 1 + i % 5, 0), 0);
	}
	want = collapse(p, &DEFAULTS, &want_len);
	assert_int_equal(strncmp(want, "app;f0 3\napp;f1 ", 16), 0); /* cells 0, 90000, 180000 */
	assert_non_null(strstr(want, "\napp;f89999 "));
	for (size_t i = 0; i < sizeof(threads) / sizeof(threads[0]); i++) {
		struct t2f_collapsed_opts o = { .threads = threads[i] };
		size_t len;
		char *got = collapse(p, &o, &len);

		assert_int_equal(len, want_len);
		assert_memory_equal(got, want, len);
		free(got);
	}
	free(want);
	t2f_profile__free(p);
}

/* ---- the order worked out a name at a time, against whole lines sorted ---- */

/* The next of a fixed pseudo-random sequence (an LCG). */
static uint32_t lcg(uint32_t *seed)
{
	return *seed = *seed * 1103515245u + 12345u;
}

/* Names and comms of a few bytes that sort around ';' (' ', '!', '.', ':' below it; '<', 'a',
 * '~' above), many a prefix of another, in random stacks; the collapsed text is what sorting
 * the stacks' whole texts bytewise (a prefix first) and summing equal ones gives. */
struct want_line {
	char text[64];
	uint64_t weight;
};

static int want_cmp(const void *a, const void *b)
{
	const struct want_line *x = a, *y = b;
	size_t lx = strlen(x->text), ly = strlen(y->text), n = lx < ly ? lx : ly;
	int r = memcmp(x->text, y->text, n);

	return r ? r : (lx > ly) - (lx < ly);
}

static void random_name(uint32_t *seed, char *out, size_t *len)
{
	static const char alphabet[] = " !.:<a~";

	*len = 1 + lcg(seed) % 3;
	for (size_t i = 0; i < *len; i++)
		out[i] = alphabet[lcg(seed) % (sizeof(alphabet) - 1)];
}

static void test_order_by_names(void **state)
{
	static const char *const comms[] = { "s", "s!", "s.x", "sa", "s:a", "s~", "t" };
	enum { SAMPLES = 4000 };
	struct want_line *want = calloc(SAMPLES, sizeof(*want));
	size_t nwant = 0, cap = 1 << 16, at = 0;
	char *text = malloc(cap);
	struct t2f_profile *p;
	t2f_event_id e;
	t2f_str_id s;
	uint32_t seed = 7;

	(void)state;
	assert_non_null(want);
	assert_non_null(text);
	assert_int_equal(t2f_profile__new(&p), 0);
	assert_int_equal(t2f_profile__intern(p, "cpu-clock", 9, &s), 0);
	assert_int_equal(t2f_profile__event(p, s, T2F_UNIT_NANOSECONDS, &e), 0);
	for (uint32_t i = 0; i < SAMPLES; i++) {
		const char *comm = comms[lcg(&seed) % 7];
		uint32_t depth = lcg(&seed) % 5;
		struct want_line w = { .weight = 1 + i % 9 };
		t2f_node_id n = 0;
		t2f_thread_id t;
		size_t len = strlen(comm);

		assert_int_equal(t2f_profile__intern(p, comm, len, &s), 0);
		assert_int_equal(t2f_profile__thread(p, 1, 1 + i % 7, s, 0, &t), 0);
		memcpy(w.text, comm, len + 1);
		at = len;
		for (uint32_t d = 0; d < depth; d++) {
			struct t2f_frame f = { 0 };
			char name[4];
			t2f_frame_id fid;

			random_name(&seed, name, &len);
			assert_int_equal(t2f_profile__intern(p, name, len, &f.name), 0);
			assert_int_equal(t2f_profile__frame(p, &f, &fid), 0);
			assert_int_equal(t2f_profile__child(p, n, fid, &n), 0);
			w.text[at++] = ';';
			memcpy(w.text + at, name, len);
			at += len;
			w.text[at] = '\0';
		}
		assert_int_equal(t2f_profile__add_sample(p, n, t, e, w.weight, 0), 0);
		want[nwant++] = w;
	}
	qsort(want, nwant, sizeof(*want), want_cmp);
	at = 0;
	for (size_t i = 0; i < nwant; i++) { /* equal texts summed */
		uint64_t sum = want[i].weight;

		while (i + 1 < nwant && want_cmp(&want[i], &want[i + 1]) == 0)
			sum += want[++i].weight;
		at += (size_t)snprintf(text + at, cap - at, "%s %" PRIu64 "\n", want[i].text, sum);
		assert_true(at < cap);
	}
	for (unsigned threads = 1; threads <= 4; threads *= 2) {
		struct t2f_collapsed_opts o = { .threads = threads };
		size_t len;
		char *got = collapse(p, &o, &len);

		assert_int_equal(len, at);
		assert_string_equal(got, text);
		free(got);
	}
	free(text);
	free(want);
	t2f_profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sort_and_merge),
		cmocka_unit_test(test_weight_samples),
		cmocka_unit_test(test_roots_comm),
		cmocka_unit_test(test_roots_pid),
		cmocka_unit_test(test_roots_tid),
		cmocka_unit_test(test_root_comm_sanitized),
		cmocka_unit_test(test_event_selection),
		cmocka_unit_test(test_kernel_jit_annotations),
		cmocka_unit_test(test_one_line_samples),
		cmocka_unit_test(test_leaf_number_guard),
		cmocka_unit_test(test_empty_profile),
		cmocka_unit_test(test_threads_one_text),
		cmocka_unit_test(test_order_by_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
