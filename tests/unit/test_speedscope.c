/* tests/unit/test_speedscope.c: writers/speedscope.c on profiles built through formats/profile.h.
 *
 * Each case writes to a temp *.speedscope.json file, parses it strictly with json-c (UTF-8
 * validated) and checks exact values; one case is compared byte for byte. Non-empty outputs are
 * then run through the independent validator (tests/validate/check: JSON schema + the
 * speedscope importer), skipped with a message when it is not there.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "formats/diag.h"
#include "formats/profile.h"
#include "writers/out.h"
#include "writers/speedscope.h"
#include "tests/unit/support/profile_build.h"

#define SCHEMA "https://www.speedscope.app/file-format-schema.json"
#define EXPORTER "trace2flame@" T2F_VERSION

/* ---- helpers ---- */

static void sample(struct t2f_profile *p, t2f_node_id node, t2f_thread_id t, t2f_event_id e,
		   uint64_t weight)
{
	static uint64_t time_ns;

	assert_int_equal(t2f_profile__add_sample(p, node, t, e, weight, ++time_ns), 0);
}

struct written {
	char path[64];
	char *text;
	size_t len;
	int err;
};

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long size;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	size = ftell(f);
	assert_true(size >= 0);
	rewind(f);
	buf = malloc((size_t)size + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)size, f), (size_t)size);
	buf[size] = 0;
	fclose(f);
	*len = (size_t)size;
	return buf;
}

/* Writes p to a fresh temp file (kept until written_free) and reads it back. */
static void write_profile(const struct t2f_profile *p, const struct t2f_speedscope_opts *o,
			  struct written *w)
{
	struct t2f_out *out;
	int fd;

	strcpy(w->path, "/tmp/t2f_ss_XXXXXX.speedscope.json");
	fd = mkstemps(w->path, (int)strlen(".speedscope.json"));
	assert_true(fd >= 0);
	assert_int_equal(t2f_out__new(fd, &out), 0);
	w->err = t2f_speedscope__write(p, o, out);
	assert_int_equal(t2f_out__finish(out), 0);
	t2f_out__free(out);
	close(fd);
	w->text = read_all(w->path, &w->len);
}

static void written_free(struct written *w)
{
	unlink(w->path);
	free(w->text);
}

/* Strict parse, UTF-8 validated; the whole text must be one value. */
static struct json_object *parse(const struct written *w)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *root;

	assert_non_null(tok);
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	root = json_tokener_parse_ex(tok, w->text, (int)w->len);
	if (!root)
		fail_msg("invalid JSON (%s): %s", json_tokener_error_desc(json_tokener_get_error(tok)),
			 w->text);
	/* nothing but the final newline after the value (json-c may have consumed it) */
	assert_true(w->len > 0 && w->text[w->len - 1] == '\n');
	assert_true(strcmp(w->text + json_tokener_get_parse_end(tok), "\n") == 0 ||
		    json_tokener_get_parse_end(tok) == w->len);
	json_tokener_free(tok);
	return root;
}

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("missing key \"%s\"", key);
	return v;
}

static const char *plain(struct json_object *o)
{
	return json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
						 JSON_C_TO_STRING_NOSLASHESCAPE);
}

static void check_top(struct json_object *root, const char *name, int active, int profiles)
{
	assert_string_equal(json_object_get_string(get(root, "$schema")), SCHEMA);
	assert_string_equal(json_object_get_string(get(root, "exporter")), EXPORTER);
	assert_string_equal(json_object_get_string(get(root, "name")), name);
	assert_int_equal(json_object_get_int(get(root, "activeProfileIndex")), active);
	assert_int_equal(json_object_array_length(get(root, "profiles")), profiles);
}

static void check_profile(struct json_object *root, size_t idx, const char *name,
			  const char *unit, int64_t end, const char *samples, const char *weights)
{
	struct json_object *pr = json_object_array_get_idx(get(root, "profiles"), idx);

	assert_non_null(pr);
	assert_string_equal(json_object_get_string(get(pr, "type")), "sampled");
	assert_string_equal(json_object_get_string(get(pr, "name")), name);
	assert_string_equal(json_object_get_string(get(pr, "unit")), unit);
	assert_int_equal(json_object_get_int64(get(pr, "startValue")), 0);
	assert_int_equal(json_object_get_int64(get(pr, "endValue")), end);
	assert_string_equal(plain(get(pr, "samples")), samples);
	assert_string_equal(plain(get(pr, "weights")), weights);
}

static void check_frames(struct json_object *root, const char *frames)
{
	assert_string_equal(plain(get(get(root, "shared"), "frames")), frames);
}

/* Runs tests/validate/check speedscope on the file. Its exit 77 (a checker not installed, which
 * it names in one line; under CI=true check fails instead) skips this and later validations. */
static void validate(const struct written *w)
{
	static bool skipped;
	const char *src = getenv("T2F_SOURCE_DIR");
	char cmd[8192];
	int rc;

	if (skipped)
		return;
	if (!src) {
		fail_msg("T2F_SOURCE_DIR is not set (ctest sets it)");
		return;
	}
	if (snprintf(cmd, sizeof(cmd), "'%s/tests/validate/check' speedscope '%s'", src, w->path) >=
	    (int)sizeof(cmd))
		fail_msg("validator command too long");
	fflush(stdout);
	rc = system(cmd);
	if (rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 77) {
		skipped = true;
		return;
	}
	if (rc != 0)
		fail_msg("validator rejected %s:\n%s", w->path, w->text);
}

/* ---- the two-thread profile ---- */

struct fixture {
	struct t2f_profile *p;
	t2f_event_id cpu, pf;
};

/* Threads: app (pid 100, tid 101) first, worker (pid unknown, tid 7). Events: cpu-clock (ns,
 * periods) and page-faults (count, no period). Frames, in id order: main and foo in /bin/app,
 * fault_handler (kernel, page-faults only), bar without a module, two unresolved frames in libc
 * (both "[libc.so.6]": one shared frame; the worker's samples in them follow each other, so they
 * are written as one), and a second "main" without a module. */
static void build(struct fixture *fx, bool log)
{
	struct t2f_profile *p;
	t2f_thread_id app, worker;
	t2f_frame_id f_main, f_foo, f_fault, f_bar, f_u1, f_u2, f_main0;
	t2f_node_id n_main, n_foo, n_bar, n_fault, n_u1, n_u2, n_main0;

	assert_int_equal(t2f_profile__new(&p), 0);
	if (log)
		assert_int_equal(t2f_profile__enable_log(p), 0);
	assert_int_equal(t2f_profile__thread(p, 100, 101, str(p, "app"), 0, &app), 0);
	assert_int_equal(t2f_profile__thread(p, T2F_PID_UNKNOWN, 7, str(p, "worker"), 0, &worker),
			 0);
	assert_int_equal(t2f_profile__event(p, str(p, "cpu-clock"), T2F_UNIT_NANOSECONDS, &fx->cpu),
			 0);
	assert_int_equal(t2f_profile__event(p, str(p, "page-faults"), T2F_UNIT_COUNT, &fx->pf), 0);
	t2f_profile__event_has_period(p, fx->cpu);

	f_main = frame(p, "main", "/bin/app", T2F_FRAME_USER, 0);
	f_foo = frame(p, "foo", "/bin/app", T2F_FRAME_USER, 0);
	f_fault = frame(p, "fault_handler", "[kernel.kallsyms]", T2F_FRAME_KERNEL, 0);
	f_bar = frame(p, "bar", NULL, T2F_FRAME_USER, 0);
	f_u1 = frame(p, "[unknown]", "/lib/libc.so.6", T2F_FRAME_USER, 0x10);
	f_u2 = frame(p, NULL, "/lib/libc.so.6", T2F_FRAME_USER, 0x20);
	f_main0 = frame(p, "main", NULL, T2F_FRAME_USER, 0);

	n_main = child(p, 0, f_main);
	n_foo = child(p, n_main, f_foo);
	n_bar = child(p, n_foo, f_bar);
	n_fault = child(p, n_main, f_fault);
	n_u1 = child(p, n_main, f_u1);
	n_u2 = child(p, n_main, f_u2);
	n_main0 = child(p, 0, f_main0);

	sample(p, n_foo, worker, fx->cpu, 5);
	sample(p, n_bar, app, fx->cpu, 10);
	sample(p, n_fault, app, fx->pf, 3); /* no period, but a weight (a folded count): 3 */
	sample(p, n_main, app, fx->cpu, 20);
	sample(p, n_u1, worker, fx->cpu, 30);
	sample(p, n_bar, app, fx->cpu, 10);
	sample(p, n_u2, worker, fx->cpu, 40);
	sample(p, n_main0, worker, fx->cpu, 2);
	fx->p = p;
}

#define CPU_FRAMES                                                                              \
	"[{\"name\":\"main\",\"file\":\"/bin/app\"},{\"name\":\"foo\",\"file\":\"/bin/app\"},"   \
	"{\"name\":\"bar\"},{\"name\":\"[libc.so.6]\",\"file\":\"/lib/libc.so.6\"},"             \
	"{\"name\":\"main\"}]"
#define APP "app (pid 100, tid 101)"
#define WORKER "worker (tid 7)"

static void test_log_periods(void **state)
{
	struct fixture fx;
	struct written w;
	struct json_object *root;

	build(&fx, true);
	write_profile(fx.p, &(struct t2f_speedscope_opts){ .name = "perf.txt" }, &w);
	assert_int_equal(w.err, 0);
	root = parse(&w);
	check_top(root, "perf.txt", 1, 2);
	check_frames(root, CPU_FRAMES);
	check_profile(root, 0, APP, "nanoseconds", 40, "[[0,1,2],[0],[0,1,2]]", "[10,20,10]");
	check_profile(root, 1, WORKER, "nanoseconds", 77, "[[0,1],[0,3],[4]]", "[5,70,2]");
	validate(&w);
	json_object_put(root);
	written_free(&w);
	t2f_profile__free(fx.p);
}

static void test_log_sample_counts(void **state)
{
	struct fixture fx;
	struct written w;
	struct json_object *root;

	build(&fx, true);
	write_profile(fx.p, &(struct t2f_speedscope_opts){ .event = fx.cpu, .weight_samples = true },
		      &w);
	assert_int_equal(w.err, 0);
	root = parse(&w);
	check_top(root, "trace2flame", 1, 2);
	check_frames(root, CPU_FRAMES);
	check_profile(root, 0, APP, "none", 3, "[[0,1,2],[0],[0,1,2]]", "[1,1,1]");
	check_profile(root, 1, WORKER, "none", 4, "[[0,1],[0,3],[4]]", "[1,2,1]");
	json_object_put(root);
	written_free(&w);
	t2f_profile__free(fx.p);
}

/* page-faults has no period: counts, unit "none"; only app has samples; only its frames. */
static void test_event_without_period(void **state)
{
	struct fixture fx;
	struct written w;
	struct json_object *root;

	for (int log = 0; log < 2; log++) {
		build(&fx, log);
		write_profile(fx.p, &(struct t2f_speedscope_opts){ .event = fx.pf }, &w);
		assert_int_equal(w.err, 0);
		root = parse(&w);
		check_top(root, "trace2flame", 0, 1);
		check_frames(root, "[{\"name\":\"main\",\"file\":\"/bin/app\"},"
				   "{\"name\":\"fault_handler\",\"file\":\"[kernel.kallsyms]\"}]");
		check_profile(root, 0, APP, "none", 3, "[[0,1]]", "[3]");
		if (log)
			validate(&w);
		json_object_put(root);
		written_free(&w);
		t2f_profile__free(fx.p);
	}
}

/* Without a log: one entry per cell, in cell order, weights summed. */
static void test_cells(void **state)
{
	struct fixture fx;
	struct written w;
	struct json_object *root;

	build(&fx, false);
	write_profile(fx.p, NULL, &w);
	assert_int_equal(w.err, 0);
	root = parse(&w);
	check_top(root, "trace2flame", 1, 2);
	check_frames(root, CPU_FRAMES);
	check_profile(root, 0, APP, "nanoseconds", 40, "[[0,1,2],[0]]", "[20,20]");
	check_profile(root, 1, WORKER, "nanoseconds", 77, "[[0,1],[0,3],[4]]", "[5,70,2]");
	validate(&w);
	json_object_put(root);
	written_free(&w);

	write_profile(fx.p, &(struct t2f_speedscope_opts){ .weight_samples = true }, &w);
	assert_int_equal(w.err, 0);
	root = parse(&w);
	check_top(root, "trace2flame", 1, 2);
	check_profile(root, 0, APP, "none", 3, "[[0,1,2],[0]]", "[2,1]");
	check_profile(root, 1, WORKER, "none", 4, "[[0,1],[0,3],[4]]", "[1,2,1]");
	json_object_put(root);
	written_free(&w);
	t2f_profile__free(fx.p);
}

/* Same profile, same options: same bytes. */
static void test_deterministic(void **state)
{
	struct fixture a, b;
	struct written wa, wb;

	build(&a, true);
	build(&b, true);
	write_profile(a.p, NULL, &wa);
	write_profile(b.p, NULL, &wb);
	assert_int_equal(wa.len, wb.len);
	assert_memory_equal(wa.text, wb.text, wa.len);
	written_free(&wa);
	written_free(&wb);
	t2f_profile__free(a.p);
	t2f_profile__free(b.p);
}

/* Enough interleaved samples of several threads for the bucketing to run in parts and for runs
 * to cross pieces: every thread count writes the bytes one thread writes, and each profile holds
 * its thread's runs in input order: a row of samples with the same stack is one sample weighing
 * their sum (weight-0 samples are not written and do not end a run). */
static void test_threads_same_bytes(void **state)
{
	enum { SAMPLES = 600000, THREADS = 5 };
	static const unsigned counts[] = { 2, 3, 8, 64 };
	struct t2f_profile *p;
	t2f_thread_id t[THREADS];
	t2f_node_id node[3];
	t2f_event_id e;
	struct written one, w;
	struct json_object *root, *profiles;
	uint64_t *runs[THREADS];
	size_t nruns[THREADS] = { 0 };
	int last[THREADS];

	(void)state;
	assert_int_equal(t2f_profile__new(&p), 0);
	assert_int_equal(t2f_profile__enable_log(p), 0);
	for (int i = 0; i < THREADS; i++) {
		assert_int_equal(t2f_profile__thread(p, 1, 10 + i, str(p, "w"), 0, &t[i]), 0);
		runs[i] = calloc(SAMPLES, sizeof(*runs[i]));
		assert_non_null(runs[i]);
		last[i] = -1;
	}
	assert_int_equal(t2f_profile__event(p, str(p, "cpu-clock"), T2F_UNIT_NANOSECONDS, &e), 0);
	t2f_profile__event_has_period(p, e);
	node[0] = child(p, 0, frame(p, "a", "/bin/a", T2F_FRAME_USER, 0));
	node[1] = child(p, node[0], frame(p, "b", "/bin/a", T2F_FRAME_USER, 0));
	node[2] = child(p, 0, frame(p, "c", "/bin/a", T2F_FRAME_USER, 0));
	for (uint64_t i = 0; i < SAMPLES; i++) {
		/* long runs now and then (thread 0, node 2, for 40,000 samples from 100,000 on) */
		int th = i >= 100000 && i < 140000 ? 0 : (int)((i * 7 + i / 1000) % THREADS);
		int nd = th == 0 && i >= 100000 && i < 140000 ? 2 : (int)(i / 3 % 3);
		uint64_t weight = i % 11 ? i + 1 : 0; /* every 11th weighs 0: not written */

		sample(p, node[nd], t[th], e, weight);
		if (!weight)
			continue;
		if (last[th] != nd)
			nruns[th]++;
		runs[th][nruns[th] - 1] += weight;
		last[th] = nd;
	}
	write_profile(p, &(struct t2f_speedscope_opts){ .threads = 1 }, &one);
	assert_int_equal(one.err, 0);
	for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
		write_profile(p, &(struct t2f_speedscope_opts){ .threads = counts[k] }, &w);
		assert_int_equal(w.err, 0);
		assert_int_equal(w.len, one.len);
		assert_memory_equal(w.text, one.text, one.len);
		written_free(&w);
	}
	root = parse(&one);
	profiles = get(root, "profiles");
	assert_int_equal(json_object_array_length(profiles), THREADS);
	for (size_t i = 0; i < THREADS; i++) {
		struct json_object *pr = json_object_array_get_idx(profiles, i);
		struct json_object *ws = get(pr, "weights"), *ss = get(pr, "samples");

		assert_true(nruns[i] > 1000);
		assert_int_equal(json_object_array_length(ws), nruns[i]);
		assert_int_equal(json_object_array_length(ss), nruns[i]);
		for (size_t j = 0; j < nruns[i]; j++)
			assert_int_equal(json_object_get_int64(json_object_array_get_idx(ws, j)),
					 runs[i][j]);
		for (size_t j = 1; j < nruns[i]; j++) /* runs are whole: neighbours differ */
			assert_string_not_equal(
				json_object_to_json_string(json_object_array_get_idx(ss, j - 1)),
				json_object_to_json_string(json_object_array_get_idx(ss, j)));
		free(runs[i]);
	}
	json_object_put(root);
	written_free(&one);
	t2f_profile__free(p);
}

/* Weights of every digit count up to 2^64 - 1, each a thread's only sample, written exactly. */
static void test_weight_digits(void **state)
{
	static const uint64_t weights[] = { 1, 9, 10, 99, 100, 101, 999999, 1000000, 4294967294u,
					    4294967295u, 4294967296u, 10000000000000000000u,
					    UINT64_MAX };
	enum { N = sizeof(weights) / sizeof(weights[0]) };
	struct t2f_profile *p;
	t2f_node_id node;
	t2f_event_id e;
	struct written w;

	(void)state;
	assert_int_equal(t2f_profile__new(&p), 0);
	assert_int_equal(t2f_profile__enable_log(p), 0);
	assert_int_equal(t2f_profile__event(p, str(p, "cpu-clock"), T2F_UNIT_NANOSECONDS, &e), 0);
	t2f_profile__event_has_period(p, e);
	node = child(p, 0, frame(p, "a", "/bin/a", T2F_FRAME_USER, 0));
	for (size_t i = 0; i < N; i++) {
		t2f_thread_id t;

		assert_int_equal(t2f_profile__thread(p, 1, 10 + (int64_t)i, str(p, "w"), 0, &t), 0);
		sample(p, node, t, e, weights[i]);
	}
	write_profile(p, NULL, &w);
	assert_int_equal(w.err, 0);
	for (size_t i = 0; i < N; i++) {
		char want[96];

		snprintf(want, sizeof(want), "\"endValue\":%" PRIu64 ",\"samples\":[[0]],\"weights\":[%" PRIu64 "]}",
			 weights[i], weights[i]);
		if (!strstr(w.text, want))
			fail_msg("no %s in %s", want, w.text);
	}
	written_free(&w);
	t2f_profile__free(p);
}

/* Byte for byte: escaping (json-c), invalid UTF-8 in comm → U+FFFD, a control character as
 * \u0001, a weight-0 sample skipped with its frame. */
static void test_bytes(void **state)
{
	static const char expected[] =
		"{\"$schema\":\"" SCHEMA "\",\"exporter\":\"" EXPORTER "\","
		"\"name\":\"in \\\"q\\\"/x.txt\",\"activeProfileIndex\":0,\n"
		"\"shared\":{\"frames\":[\n"
		"{\"name\":\"main\",\"file\":\"/bin/a\"}]},\n"
		"\"profiles\":[\n"
		"{\"type\":\"sampled\",\"name\":\"a\xef\xbf\xbd\\u0001b (pid 1, tid 2)\","
		"\"unit\":\"nanoseconds\",\"startValue\":0,\"endValue\":7,"
		"\"samples\":[[0]],\"weights\":[7]}]}\n";
	struct t2f_profile *p;
	t2f_thread_id t;
	t2f_event_id e;
	t2f_node_id main_node, zero_node;
	t2f_str_id comm;
	struct written w;

	assert_int_equal(t2f_profile__new(&p), 0);
	assert_int_equal(t2f_profile__enable_log(p), 0);
	assert_int_equal(t2f_profile__intern(p, "a\xff\x01" "b", 4, &comm), 0);
	assert_int_equal(t2f_profile__thread(p, 1, 2, comm, 0, &t), 0);
	assert_int_equal(t2f_profile__event(p, str(p, "cpu-clock"), T2F_UNIT_NANOSECONDS, &e), 0);
	t2f_profile__event_has_period(p, e);
	zero_node = child(p, 0, frame(p, "zero", "/bin/a", T2F_FRAME_USER, 0));
	main_node = child(p, 0, frame(p, "main", "/bin/a", T2F_FRAME_USER, 0));
	sample(p, zero_node, t, e, 0);
	sample(p, main_node, t, e, 7);
	sample(p, main_node, t, e, 0); /* a cell whose samples are not all written */
	assert_int_equal(t2f_profile__weightless_samples(p), 2);

	write_profile(p, &(struct t2f_speedscope_opts){ .name = "in \"q\"/x.txt" }, &w);
	assert_int_equal(w.err, 0);
	assert_int_equal(w.len, sizeof(expected) - 1);
	assert_memory_equal(w.text, expected, sizeof(expected) - 1);
	json_object_put(parse(&w));
	validate(&w);
	written_free(&w);
	t2f_profile__free(p);
}

/* Source positions: "file" and "line" are the function's (fn_file, fn_line); two frames of parse
 * at different lines of its code are one frame object (and their stacks one); without fn_file
 * the code's file alone; without positions the module; two functions of one name in two files
 * two frame objects. */
static void test_positions(void **state)
{
	static const char expected[] =
		"{\"$schema\":\"" SCHEMA "\",\"exporter\":\"" EXPORTER "\","
		"\"name\":\"src\",\"activeProfileIndex\":0,\n"
		"\"shared\":{\"frames\":[\n"
		"{\"name\":\"main\",\"file\":\"src/main.c\",\"line\":10},\n"
		"{\"name\":\"parse\",\"file\":\"src/parse.c\",\"line\":15},\n"
		"{\"name\":\"lex\",\"file\":\"src/lex.h\"},\n"
		"{\"name\":\"emit\",\"file\":\"src/emit.c\"},\n"
		"{\"name\":\"plain\",\"file\":\"/bin/app\"},\n"
		"{\"name\":\"helper\",\"file\":\"src/a.c\",\"line\":5},\n"
		"{\"name\":\"helper\",\"file\":\"src/b.c\",\"line\":5}]},\n"
		"\"profiles\":[\n"
		"{\"type\":\"sampled\",\"name\":\"app (pid 1, tid 1)\",\"unit\":\"nanoseconds\","
		"\"startValue\":0,\"endValue\":127,"
		"\"samples\":[[0,1],[0,1,2],[0,3],[0,4],[0,5],[0,6]],"
		"\"weights\":[3,4,8,16,32,64]}]}\n";
	struct t2f_profile *p;
	t2f_thread_id t;
	t2f_event_id e;
	struct written w;

	(void)state;
	assert_int_equal(t2f_profile__new(&p), 0);
	assert_int_equal(t2f_profile__enable_log(p), 0);
	t = thread(p, 1, 1, "app", 0);
	assert_int_equal(t2f_profile__event(p, str(p, "cpu-clock"), T2F_UNIT_NANOSECONDS, &e), 0);
	t2f_profile__event_has_period(p, e);
	t2f_frame_id m = src_frame(p, "main", T2F_FRAME_USER, "src/main.c", 12, "src/main.c", 10);
	t2f_frame_id p20 = src_frame(p, "parse", T2F_FRAME_USER, "src/parse.c", 20, "src/parse.c",
				     15);
	t2f_frame_id p21 = src_frame(p, "parse", T2F_FRAME_USER, "src/parse.c", 21, "src/parse.c",
				     15);
	t2f_frame_id p30 = src_frame(p, "parse", T2F_FRAME_USER, "src/parse.c", 30, "src/parse.c",
				     15);
	/* inlined into parse at line 30, its own line 7; no declaration known */
	t2f_frame_id lex = src_frame(p, "lex", T2F_FRAME_INLINED, "src/lex.h", 7, NULL, 0);
	t2f_frame_id emit = src_frame(p, "emit", T2F_FRAME_USER, "src/emit.c", 3, "src/emit.c", 0);
	t2f_frame_id plain = src_frame(p, "plain", T2F_FRAME_USER, NULL, 0, NULL, 0);
	/* two functions of one name (static, in two files): two frame objects */
	t2f_frame_id ha = src_frame(p, "helper", T2F_FRAME_USER, "src/a.c", 6, "src/a.c", 5);
	t2f_frame_id hb = src_frame(p, "helper", T2F_FRAME_USER, "src/b.c", 6, "src/b.c", 5);

	sample(p, child(p, child(p, 0, m), p20), t, e, 1);
	sample(p, child(p, child(p, 0, m), p21), t, e, 2);
	sample(p, child(p, child(p, child(p, 0, m), p30), lex), t, e, 4);
	sample(p, child(p, child(p, 0, m), emit), t, e, 8);
	sample(p, child(p, child(p, 0, m), plain), t, e, 16);
	sample(p, child(p, child(p, 0, m), ha), t, e, 32);
	sample(p, child(p, child(p, 0, m), hb), t, e, 64);
	write_profile(p, &(struct t2f_speedscope_opts){ .name = "src" }, &w);
	assert_int_equal(w.err, 0);
	if (w.len != sizeof(expected) - 1 || memcmp(w.text, expected, w.len))
		fail_msg("got:\n%s\nwant:\n%s", w.text, expected);
	json_object_put(parse(&w));
	validate(&w);
	written_free(&w);
	t2f_profile__free(p);
}

/* Ill-formed UTF-8 in names: each maximal ill-formed subpart becomes one U+FFFD (as Python's
 * bytes.decode("utf-8", "replace") does); valid multibyte text passes unchanged. */
static void test_invalid_utf8(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "ok \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", "ok \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80" },
		{ "\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd" },                      /* overlong */
		{ "s\xed\xa0\x80", "s\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },    /* surrogate */
		{ "x\xe2\x82", "x\xef\xbf\xbd" },                                /* truncated */
		{ "\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" }, /* > 10FFFF */
		{ "\x80q\xff", "\xef\xbf\xbdq\xef\xbf\xbd" },
	};
	size_t n = sizeof(cases) / sizeof(cases[0]);
	struct t2f_profile *p;
	t2f_thread_id t;
	t2f_event_id e;
	struct written w;
	struct json_object *root, *frames;

	assert_int_equal(t2f_profile__new(&p), 0);
	assert_int_equal(t2f_profile__thread(p, 5, 5, str(p, "u\xe2\x82"), 0, &t), 0);
	assert_int_equal(t2f_profile__event(p, str(p, "cpu-clock"), T2F_UNIT_NANOSECONDS, &e), 0);
	t2f_profile__event_has_period(p, e);
	for (size_t i = 0; i < n; i++)
		sample(p, child(p, 0, frame(p, cases[i].in, "/lib/\xff.so", T2F_FRAME_USER, 0)), t, e,
		       1);
	write_profile(p, NULL, &w);
	assert_int_equal(w.err, 0);
	root = parse(&w);
	frames = get(get(root, "shared"), "frames");
	assert_int_equal(json_object_array_length(frames), n);
	for (size_t i = 0; i < n; i++) {
		struct json_object *f = json_object_array_get_idx(frames, i);

		assert_string_equal(json_object_get_string(get(f, "name")), cases[i].out);
		assert_string_equal(json_object_get_string(get(f, "file")), "/lib/\xef\xbf\xbd.so");
	}
	check_profile(root, 0, "u\xef\xbf\xbd (pid 5, tid 5)", "nanoseconds", (int64_t)n,
		      "[[0],[1],[2],[3],[4],[5]]", "[1,1,1,1,1,1]");
	validate(&w);
	json_object_put(root);
	written_free(&w);
	t2f_profile__free(p);
}

/* No threads: a valid file with no profiles. (speedscope's importer answers "Successfully
 * imported profile, but it's empty!", which the validator counts as a failure: not run here.) */
static void test_empty(void **state)
{
	static const char expected[] =
		"{\"$schema\":\"" SCHEMA "\",\"exporter\":\"" EXPORTER "\","
		"\"name\":\"trace2flame\",\"activeProfileIndex\":0,\n"
		"\"shared\":{\"frames\":[]},\n"
		"\"profiles\":[]}\n";
	struct t2f_profile *p;
	struct written w;

	assert_int_equal(t2f_profile__new(&p), 0);
	write_profile(p, NULL, &w);
	assert_int_equal(w.err, 0);
	assert_int_equal(w.len, sizeof(expected) - 1);
	assert_memory_equal(w.text, expected, sizeof(expected) - 1);
	json_object_put(parse(&w));
	written_free(&w);
	t2f_profile__free(p);
}

static void test_bad_event(void **state)
{
	struct fixture fx;
	struct written w;

	build(&fx, false);
	write_profile(fx.p, &(struct t2f_speedscope_opts){ .event = 3 }, &w);
	assert_int_equal(w.err, -EINVAL);
	written_free(&w);
	t2f_profile__free(fx.p);
}

/* Samples of stacks written alike follow each other as one sample of their summed weight, also
 * when the stacks are deep enough that their texts pass the writer's budget (32 MiB: 5,000
 * levels make about 60): frames at two addresses of one function (the addresses a session
 * keeps for another output) write one stack, so the output does not depend on them. */
static void test_alike_runs_past_text_budget(void **state)
{
	static const unsigned depths[] = { 2, 5000 };

	(void)state;
	for (size_t d = 0; d < sizeof(depths) / sizeof(depths[0]); d++) {
		struct t2f_profile *p;
		struct written w;
		struct json_object *root, *pr;
		t2f_thread_id t;
		t2f_event_id e;
		t2f_node_id node = 0, a, b;
		char name[32];

		assert_int_equal(t2f_profile__new(&p), 0);
		assert_int_equal(t2f_profile__enable_log(p), 0);
		t = thread(p, 100, 100, "app", 0);
		assert_int_equal(t2f_profile__event(p, str(p, "cpu-clock"), T2F_UNIT_NANOSECONDS,
						    &e), 0);
		t2f_profile__event_has_period(p, e);
		for (unsigned i = 0; i < depths[d]; i++) {
			snprintf(name, sizeof(name), "f%u", i);
			node = child(p, node, frame(p, name, "/bin/app", T2F_FRAME_USER, 0));
		}
		a = child(p, node, frame(p, "leaf", "/bin/app", T2F_FRAME_USER, 0x10));
		b = child(p, node, frame(p, "leaf", "/bin/app", T2F_FRAME_USER, 0x20));
		sample(p, a, t, e, 10);
		sample(p, b, t, e, 20);
		sample(p, a, t, e, 30);
		write_profile(p, &(struct t2f_speedscope_opts){ .name = "deep" }, &w);
		assert_int_equal(w.err, 0);
		root = parse(&w);
		pr = json_object_array_get_idx(get(root, "profiles"), 0);
		assert_non_null(pr);
		assert_int_equal(json_object_array_length(get(pr, "samples")), 1);
		assert_string_equal(plain(get(pr, "weights")), "[60]");
		json_object_put(root);
		written_free(&w);
		t2f_profile__free(p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_log_periods),
		cmocka_unit_test(test_log_sample_counts),
		cmocka_unit_test(test_event_without_period),
		cmocka_unit_test(test_cells),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_threads_same_bytes),
		cmocka_unit_test(test_weight_digits),
		cmocka_unit_test(test_bytes),
		cmocka_unit_test(test_positions),
		cmocka_unit_test(test_invalid_utf8),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_bad_event),
		cmocka_unit_test(test_alike_runs_past_text_budget),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
