/* tests/unit/test_session_share.c: the kallsyms table is read once per process and shared by the
 * sessions that name kernel frames from the same unchanged file (t2f_share_limit,
 * t2f_stats.kallsyms_read / kallsyms_shared), through the public header alone, linked with the
 * shared library: two sessions one after the other and two on threads at once read the file
 * once and write the same bytes as a session that shares nothing; a file changed in place, a
 * file with a bad line and t2f_share_limit(0) are read again. On the recording
 * fixtures/perf-script/kjit with a copy of its kallsyms file. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <trace2flame.h>

static char dir[4096], input[4200], kallsyms[4200], tmpdir[64];

static void quiet(void *ctx, const char *line)
{
	(void)ctx;
	(void)line;
}

struct run {
	char *out;
	size_t len;
	struct t2f_stats st;
	int err;
};

/* One session over the input with the kallsyms copy: its collapsed bytes and stats. */
static void *convert(void *arg)
{
	struct run *r = arg;
	const char *none[] = { NULL };
	struct t2f_options o = { .size = sizeof(o), .message = quiet, .offline = true,
				 .symbol_dirs = none, .kallsyms = kallsyms, .perf_map_dir = dir,
				 .no_cache = true, .jobs = 1 };
	struct t2f_write_options w = { .size = sizeof(w), .format = T2F_FORMAT_COLLAPSED,
				       .kernel = true };
	struct t2f_session *s = NULL;

	r->st = (struct t2f_stats){ .size = sizeof(r->st) };
	r->err = t2f_session_new(&o, &s) ?: t2f_session_add_path(s, input) ?:
		 t2f_session_write_mem(s, &w, &r->out, &r->len) ?: t2f_session_stats(s, &r->st);
	t2f_session_free(s);
	return NULL;
}

static void run_one(struct run *r)
{
	convert(r);
	assert_int_equal(r->err, 0);
}

static void same_bytes(const struct run *a, const struct run *b)
{
	assert_int_equal(a->len, b->len);
	assert_memory_equal(a->out, b->out, a->len);
}

static void done(struct run *r)
{
	t2f_free(r->out);
	r->out = NULL;
}

/* What a session that shares nothing writes, and the process's tables emptied. */
static void reference(struct run *ref)
{
	t2f_share_limit(0);
	run_one(ref);
	assert_int_equal(ref->st.kallsyms_read, 1);
	assert_int_equal(ref->st.kallsyms_shared, 0);
	t2f_share_limit(4);
}

static void test_sequential(void **state)
{
	struct run ref = { 0 }, a = { 0 }, b = { 0 };

	(void)state;
	reference(&ref);
	run_one(&a);
	run_one(&b);
	assert_int_equal(a.st.kallsyms_read, 1);
	assert_int_equal(a.st.kallsyms_shared, 0);
	assert_int_equal(b.st.kallsyms_read, 0);   /* the second session read no kallsyms */
	assert_int_equal(b.st.kallsyms_shared, 1);
	assert_true(b.st.frames_tried > 0 && b.st.frames_tried == ref.st.frames_tried);
	assert_int_equal(b.st.frames_unresolved, ref.st.frames_unresolved);
	same_bytes(&ref, &a);
	same_bytes(&ref, &b);
	done(&ref);
	done(&a);
	done(&b);
}

static void test_threads(void **state)
{
	struct run ref = { 0 }, r[2] = { { 0 }, { 0 } };
	pthread_t t[2];

	(void)state;
	reference(&ref);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&t[i], NULL, convert, &r[i]), 0);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(pthread_join(t[i], NULL), 0);
		assert_int_equal(r[i].err, 0);
		same_bytes(&ref, &r[i]);
	}
	/* read once between them, whichever came first */
	assert_int_equal(r[0].st.kallsyms_read + r[1].st.kallsyms_read, 1);
	assert_int_equal(r[0].st.kallsyms_shared + r[1].st.kallsyms_shared, 1);
	done(&ref);
	done(&r[0]);
	done(&r[1]);
}

/* Rewrites the kallsyms copy with the fixture's lines, plus extra (NULL: none). */
static void write_kallsyms(const char *extra)
{
	char src[4200], buf[65536];
	FILE *in, *out;
	size_t n;

	snprintf(src, sizeof(src), "%s/kallsyms", dir);
	in = fopen(src, "r");
	out = fopen(kallsyms, "w");
	assert_non_null(in);
	assert_non_null(out);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		assert_int_equal(fwrite(buf, 1, n, out), n);
	if (extra)
		fputs(extra, out);
	fclose(in);
	assert_int_equal(fclose(out), 0);
}

static void test_changed_file(void **state)
{
	struct run a = { 0 }, b = { 0 }, c = { 0 };

	(void)state;
	t2f_share_limit(0);
	t2f_share_limit(4);
	run_one(&a);
	assert_int_equal(a.st.kallsyms_read, 1);
	/* the same path, other contents: read again, and that table shared from then on */
	write_kallsyms("ffffffffc0000000 t later_symbol\t[later]\n");
	run_one(&b);
	assert_int_equal(b.st.kallsyms_read, 1);
	assert_int_equal(b.st.kallsyms_shared, 0);
	run_one(&c);
	assert_int_equal(c.st.kallsyms_shared, 1);
	same_bytes(&a, &b);
	write_kallsyms(NULL);
	done(&a);
	done(&b);
	done(&c);
}

static void test_not_shared(void **state)
{
	struct run a = { 0 }, b = { 0 };

	(void)state;
	/* a file with a bad line is not kept: each session warns of it itself */
	t2f_share_limit(4);
	write_kallsyms("not a kallsyms line\n");
	run_one(&a);
	run_one(&b);
	assert_int_equal(a.st.kallsyms_read, 1);
	assert_int_equal(b.st.kallsyms_read, 1);
	assert_int_equal(b.st.kallsyms_shared, 0);
	assert_true(b.st.warnings > 0);
	same_bytes(&a, &b);
	write_kallsyms(NULL);
	done(&a);
	done(&b);
	/* sharing turned off: every session reads */
	t2f_share_limit(0);
	run_one(&a);
	run_one(&b);
	assert_int_equal(b.st.kallsyms_read, 1);
	assert_int_equal(b.st.kallsyms_shared, 0);
	done(&a);
	done(&b);
	t2f_share_limit(4);
}

static int setup(void **state)
{
	const char *src = getenv("T2F_SOURCE_DIR");

	(void)state;
	snprintf(dir, sizeof(dir), "%s/fixtures/perf-script/kjit", src ? src : ".");
	snprintf(input, sizeof(input), "%s/jitloop.unnamed.perf.txt", dir);
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/t2f-share-XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	snprintf(kallsyms, sizeof(kallsyms), "%s/kallsyms", tmpdir);
	write_kallsyms(NULL);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	t2f_share_limit(0);
	unlink(kallsyms);
	rmdir(tmpdir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sequential),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_changed_file),
		cmocka_unit_test(test_not_shared),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
