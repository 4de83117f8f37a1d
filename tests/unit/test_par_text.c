/* tests/unit/test_par_text.c: writers/par_text.c — pieces written in job order whatever the
 * number of threads, the piece buffers' first room (none, small, huge pages) and however unequal
 * the pieces (one outgrows a huge buffer); a piece's error stops the run (no hang, no piece
 * written after it, at most a ring of pieces made); zero jobs. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "writers/par_text.h"

struct ctx {
	size_t fail_at;   /* the job that fails; SIZE_MAX: none */
	unsigned threads;
	size_t made_after_fail; /* jobs started after the failing one returned (must stay 0) */
	int failed;       /* set once the failing job returned */
};

#define BIG_JOB 500 /* its piece is 3 MiB longer: larger than the room of huge piece buffers */

/* Job j: "j:" then j % 97 * 50 bytes of filler then a newline: pieces of very different sizes. */
static int make_piece(void *arg, size_t job, unsigned worker, struct t2f_buf *b)
{
	struct ctx *c = arg;
	char head[32];
	int n = snprintf(head, sizeof(head), "%zu:", job);

	assert_true(worker < c->threads);
	if (__atomic_load_n(&c->failed, __ATOMIC_SEQ_CST) && job > c->fail_at)
		__atomic_add_fetch(&c->made_after_fail, 1, __ATOMIC_SEQ_CST);
	if (job == c->fail_at) {
		__atomic_store_n(&c->failed, 1, __ATOMIC_SEQ_CST);
		return -EIO;
	}
	if (t2f_buf__put(b, head, (size_t)n))
		return -ENOMEM;
	for (size_t i = 0; i < job % 97 * 50; i++)
		if (t2f_buf__put(b, "x", 1))
			return -ENOMEM;
	if (job == BIG_JOB) {
		if (t2f_buf__reserve(b, 3 << 20))
			return -ENOMEM;
		memset(b->p + b->len, 'y', 3 << 20);
		b->len += 3 << 20;
	}
	return t2f_buf__put(b, "\n", 1);
}

/* Runs `jobs` jobs on `threads` threads into a temp file, piece buffers starting with piece_cap
 * bytes of room; returns its text (caller frees). */
static char *run(size_t jobs, unsigned threads, size_t piece_cap, size_t fail_at, int *err,
		 size_t *made_after)
{
	struct ctx c = { .fail_at = fail_at, .threads = threads };
	FILE *f = tmpfile();
	struct t2f_out *out;
	char *text;
	long size;

	assert_non_null(f);
	assert_int_equal(t2f_out__new(fileno(f), &out), 0);
	*err = t2f_par_text__run(jobs, threads, make_piece, &c, piece_cap, out);
	assert_int_equal(t2f_out__finish(out), 0);
	t2f_out__free(out);
	*made_after = c.made_after_fail;
	size = (long)lseek(fileno(f), 0, SEEK_END);
	assert_true(size >= 0);
	text = calloc((size_t)size + 1, 1);
	assert_non_null(text);
	assert_int_equal(pread(fileno(f), text, (size_t)size, 0), size);
	fclose(f);
	return text;
}

static void test_order(void **state)
{
	static const size_t counts[] = { 0, 1, 2, 7, 1000 };
	static const unsigned threads[] = { 1, 2, 3, 8 };
	static const size_t caps[] = { 0, 64, T2F_PAR_TEXT_HUGE + 5 }; /* none, small, huge pages */
	size_t made_after;
	int err;

	(void)state;
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		char *want = run(counts[i], 1, 0, SIZE_MAX, &err, &made_after);

		assert_int_equal(err, 0);
		if (counts[i] == 1000) { /* spot checks of the one-thread text itself */
			assert_memory_equal(want, "0:\n1:xxxx", 9);
			assert_non_null(strstr(want, "\n999:"));
			assert_non_null(strstr(want, "xxxyyyy"));
			assert_int_equal(strspn(strchr(want, 'y'), "y"), 3 << 20);
		}
		for (size_t t = 0; t < sizeof(threads) / sizeof(threads[0]); t++) {
			for (size_t c = 0; c < sizeof(caps) / sizeof(caps[0]); c++) {
				char *got = run(counts[i], threads[t], caps[c], SIZE_MAX, &err,
						&made_after);

				assert_int_equal(err, 0);
				assert_string_equal(got, want);
				free(got);
			}
		}
		free(want);
	}
}

static void test_error_stops(void **state)
{
	static const unsigned threads[] = { 1, 2, 4 };
	size_t made_after;
	int err;

	(void)state;
	for (size_t t = 0; t < sizeof(threads) / sizeof(threads[0]); t++) {
		char *got = run(5000, threads[t], T2F_PAR_TEXT_HUGE, 700, &err, &made_after);

		assert_int_equal(err, -EIO);
		assert_null(strstr(got, "\n701:")); /* nothing after the failed piece is written */
		/* Jobs after the failing one may start between its return and the error being
		 * recorded (more than one a thread when a worker is descheduled there, as on a
		 * loaded machine), but never past the ring of pieces the writer has not freed:
		 * 3 a thread (writers/par_text.c), and the writer frees none after the error. */
		assert_true(made_after <= 3 * threads[t]);
		free(got);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_error_stops),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
