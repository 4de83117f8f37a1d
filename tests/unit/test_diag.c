/* tests/unit/test_diag.c: formats/diag.c — error strings, rate-limited warnings, strict mode and
 * the "file:line: message" error text; buffered diags replayed with a line offset, checked against
 * issuing the same warnings directly. Warnings go to an open_memstream() sink so the exact text
 * printed can be compared. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "formats/diag.h"
#include "support/diag_sink.h"

/* A diag whose warnings land in a memory buffer (support/diag_sink.h), default settings. */
static void sink_open(struct sink *s)
{
	sink_init(s);
	assert_non_null(s->d);
}

static void test_strerror_own_codes(void **state)
{
	(void)state;
	assert_string_equal(t2f_strerror(-T2F_ERR_FORMAT), "malformed input");
	assert_string_equal(t2f_strerror(-T2F_ERR_TRUNCATED), "truncated input");
	assert_string_equal(t2f_strerror(-T2F_ERR_UNSUPPORTED), "unsupported input feature");
	assert_string_equal(t2f_strerror(-T2F_ERR_ELF), "ELF error");
	assert_string_equal(t2f_strerror(-T2F_ERR_BUILD_ID), "build-id mismatch");
	assert_string_equal(t2f_strerror(-T2F_ERR_LIMIT), "resource limit reached");
	assert_string_equal(t2f_strerror(-T2F_ERR_DECOMPRESS), "corrupt compressed stream");
}

static void test_strerror_errno(void **state)
{
	char expect[256];

	(void)state;
	snprintf(expect, sizeof(expect), "%s", strerror(ENOENT));
	assert_string_equal(t2f_strerror(-ENOENT), expect);
	snprintf(expect, sizeof(expect), "%s", strerror(ENOMEM));
	assert_string_equal(t2f_strerror(-ENOMEM), expect);
	snprintf(expect, sizeof(expect), "%s", strerror(EPIPE));
	assert_string_equal(t2f_strerror(-EPIPE), expect);
	/* never NULL, even for a code nobody defined */
	assert_non_null(t2f_strerror(-4999));
	assert_non_null(t2f_strerror(-T2F_ERR_DECOMPRESS - 1));
}

/* Every int has a text (INT_MIN cannot be negated), and a text is never rewritten by a later
 * call: two unknown codes in one printf must not show the second's text twice. */
static void test_strerror_any_int(void **state)
{
	static const int codes[] = { INT_MIN, INT_MIN + 1, -99999, -9999, -4999, -1, 0, 1, EPIPE,
				     T2F_ERR_FORMAT, INT_MAX };
	const char *first, *texts[sizeof(codes) / sizeof(codes[0])];
	char copy[256];

	(void)state;
	first = t2f_strerror(-9999);
	snprintf(copy, sizeof(copy), "%s", first);
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		texts[i] = t2f_strerror(codes[i]);
		assert_non_null(texts[i]);
		assert_true(texts[i][0] != '\0');
	}
	assert_string_equal(first, copy); /* untouched by the calls after it */
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		assert_string_equal(texts[i], t2f_strerror(codes[i]));
	assert_string_equal(t2f_strerror(INT_MIN), "unknown error");
	assert_string_equal(t2f_strerror(-99999), "unknown error");
	assert_string_equal(t2f_strerror(EPIPE), "unknown error"); /* codes are negative */
	assert_string_equal(t2f_strerror(INT_MAX), "unknown error");
	assert_string_equal(t2f_strerror(0), "Success");
	assert_string_equal(t2f_strerror(INT_MIN + 1), "unknown error");
}

static void test_warn_prints_located_message(void **state)
{
	struct sink s;

	(void)state;
	sink_open(&s);
	assert_int_equal(t2f_diag__warn(s.d, "in.txt", 12, "odd line: %s", "xyz"), 0);
	assert_int_equal(t2f_diag__warn(s.d, "in.txt", 0, "no line here %d", 7), 0);
	assert_int_equal(t2f_diag__warn(s.d, NULL, 3, "nameless"), 0);
	assert_string_equal(sink_text(&s),
			    "trace2flame: warning: in.txt:12: odd line: xyz\n"
			    "trace2flame: warning: in.txt: no line here 7\n"
			    "trace2flame: warning: <input>:3: nameless\n");
	assert_int_equal(t2f_diag__warnings(s.d), 3);
	/* a warning is not an error */
	assert_null(t2f_diag__last_error(s.d));
	sink_close(&s);
}

static void test_warn_rate_limit_and_flush(void **state)
{
	struct sink s;

	(void)state;
	sink_open(&s);
	t2f_diag__set_max_repeats(s.d, 2);
	for (int i = 1; i <= 5; i++)
		assert_int_equal(t2f_diag__warn(s.d, "f", (uint64_t)i, "bad sample %d", i), 0);
	/* a second kind keeps its own counter */
	assert_int_equal(t2f_diag__warn(s.d, "f", 9, "other kind"), 0);
	assert_string_equal(sink_text(&s),
			    "trace2flame: warning: f:1: bad sample 1\n"
			    "trace2flame: warning: f:2: bad sample 2\n"
			    "trace2flame: warning: f:9: other kind\n");
	assert_int_equal(t2f_diag__warnings(s.d), 6);

	t2f_diag__flush(s.d);
	assert_string_equal(sink_text(&s),
			    "trace2flame: warning: f:1: bad sample 1\n"
			    "trace2flame: warning: f:2: bad sample 2\n"
			    "trace2flame: warning: f:9: other kind\n"
			    "trace2flame: warning: 3 more warnings like: bad sample ...\n");

	/* flush resets the counters: the kind prints again, and a second flush says nothing */
	assert_int_equal(t2f_diag__warn(s.d, "f", 10, "bad sample %d", 10), 0);
	t2f_diag__flush(s.d);
	assert_string_equal(sink_text(&s),
			    "trace2flame: warning: f:1: bad sample 1\n"
			    "trace2flame: warning: f:2: bad sample 2\n"
			    "trace2flame: warning: f:9: other kind\n"
			    "trace2flame: warning: 3 more warnings like: bad sample ...\n"
			    "trace2flame: warning: f:10: bad sample 10\n");
	/* the total keeps counting across flushes */
	assert_int_equal(t2f_diag__warnings(s.d), 7);
	sink_close(&s);
}

static void test_warn_default_max_repeats_is_5(void **state)
{
	struct sink s;
	size_t lines = 0;
	const char *t;

	(void)state;
	sink_open(&s);
	for (int i = 0; i < 8; i++)
		t2f_diag__warn(s.d, "f", 1, "same");
	for (t = sink_text(&s); (t = strchr(t, '\n')); t++)
		lines++;
	assert_int_equal(lines, 5);
	t2f_diag__flush(s.d);
	assert_non_null(strstr(sink_text(&s), "trace2flame: warning: 3 more warnings like: same\n"));
	sink_close(&s);
}

static void test_warn_without_sink_counts(void **state)
{
	struct t2f_diag *d;

	(void)state;
	assert_int_equal(t2f_diag__new(NULL, &d), 0);
	for (int i = 0; i < 10; i++)
		assert_int_equal(t2f_diag__warn(d, "f", 1, "x %d", i), 0);
	t2f_diag__flush(d); /* nowhere to print: must not crash */
	assert_int_equal(t2f_diag__warnings(d), 10);
	t2f_diag__free(d);
	t2f_diag__free(NULL);
}

static void test_strict_warn_is_error(void **state)
{
	struct sink s;

	(void)state;
	sink_open(&s);
	t2f_diag__set_strict(s.d, true);
	assert_int_equal(t2f_diag__warn(s.d, "prof.txt", 42, "bad header '%s'", "zz"),
			 -T2F_ERR_FORMAT);
	assert_non_null(t2f_diag__last_error(s.d));
	assert_string_equal(t2f_diag__last_error(s.d), "prof.txt:42: bad header 'zz'");
	/* the error is returned, not printed as a warning */
	assert_string_equal(sink_text(&s), "");
	assert_int_equal(t2f_diag__warnings(s.d), 1);

	/* back to lenient: warnings print again and return 0 */
	t2f_diag__set_strict(s.d, false);
	assert_int_equal(t2f_diag__warn(s.d, "prof.txt", 43, "later"), 0);
	assert_string_equal(sink_text(&s), "trace2flame: warning: prof.txt:43: later\n");
	sink_close(&s);
}

static void test_error_formatting(void **state)
{
	struct sink s;

	(void)state;
	sink_open(&s);
	assert_null(t2f_diag__last_error(s.d));
	assert_int_equal(t2f_diag__error(s.d, -T2F_ERR_FORMAT, "a.perf", 7, "expected %s", "TIME:"),
			 -T2F_ERR_FORMAT);
	assert_string_equal(t2f_diag__last_error(s.d), "a.perf:7: expected TIME:");
	assert_int_equal(t2f_diag__error(s.d, -ENOENT, "missing.txt", 0, "cannot open: %s",
					 t2f_strerror(-ENOENT)), -ENOENT);
	{
		char expect[300];

		snprintf(expect, sizeof(expect), "missing.txt: cannot open: %s", strerror(ENOENT));
		assert_string_equal(t2f_diag__last_error(s.d), expect);
	}
	assert_int_equal(t2f_diag__error(s.d, -T2F_ERR_TRUNCATED, NULL, 0, "cut"),
			 -T2F_ERR_TRUNCATED);
	assert_string_equal(t2f_diag__last_error(s.d), "<input>: cut");
	assert_int_equal(t2f_diag__error(s.d, -T2F_ERR_LIMIT, "big", UINT64_MAX, "x"),
			 -T2F_ERR_LIMIT);
	assert_string_equal(t2f_diag__last_error(s.d), "big:18446744073709551615: x");
	/* errors are recorded, never printed nor counted as warnings */
	assert_string_equal(sink_text(&s), "");
	assert_int_equal(t2f_diag__warnings(s.d), 0);
	sink_close(&s);
}

static void test_error_long_message_truncated(void **state)
{
	struct sink s;
	char big[4000];
	const char *e;

	(void)state;
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	sink_open(&s);
	t2f_diag__error(s.d, -T2F_ERR_FORMAT, "f", 1, "%s", big);
	e = t2f_diag__last_error(s.d);
	assert_non_null(e);
	assert_memory_equal(e, "f:1: xxx", 8);
	assert_true(strlen(e) < sizeof(big));
	sink_close(&s);
}

/* ---- buffered diags and replay: compared with issuing every warning on the real diag ---- */

/* Warning kinds: each literal's address is its rate-limiting key. */
static const char *const kinds[] = { "bad sample %llu", "odd line '%llu'", "unknown event %llu" };

struct ev {
	unsigned kind;
	uint64_t line; /* within its part; 0 = no line */
};

/* A part of the input: its warnings, then possibly an error. */
struct part {
	const char *file;
	uint64_t offset;   /* lines before the part */
	const struct ev *evs;
	size_t n;
	const char *error; /* NULL: none */
	uint64_t err_line;
};

static uint64_t shifted(uint64_t line, uint64_t offset)
{
	return line ? line + offset : 0;
}

/* The message text does not depend on the offset; only its "file:line: " prefix does. */
static int warn_ev(struct t2f_diag *d, const char *file, const struct ev *e, uint64_t offset)
{
	return t2f_diag__warn(d, file, shifted(e->line, offset), kinds[e->kind],
			      (unsigned long long)e->line * 3);
}

static void configure(struct t2f_diag *d, unsigned max_repeats, bool strict)
{
	t2f_diag__set_max_repeats(d, max_repeats);
	t2f_diag__set_strict(d, strict);
}

/* Issues every part's warnings (and error) on d directly, stopping where a warning fails. */
static int run_direct(struct t2f_diag *d, const struct part *parts, size_t np)
{
	for (size_t i = 0; i < np; i++) {
		const struct part *p = &parts[i];

		for (size_t k = 0; k < p->n; k++) {
			int err = warn_ev(d, p->file, &p->evs[k], p->offset);

			if (err)
				return err;
		}
		if (p->error)
			t2f_diag__error(d, -T2F_ERR_FORMAT, p->file,
					shifted(p->err_line, p->offset), "%s", p->error);
	}
	return 0;
}

/* Records one part in a buffered diag, with a file name freed before the replay. */
static struct t2f_diag *record_part(const struct part *p, unsigned max_repeats)
{
	struct t2f_diag *b = NULL;
	char *file = p->file ? strdup(p->file) : NULL;

	assert_int_equal(t2f_diag__new_buffered(&b), 0);
	configure(b, max_repeats, true); /* strict is ignored: a buffered diag only records */
	for (size_t k = 0; k < p->n; k++)
		assert_int_equal(warn_ev(b, file, &p->evs[k], 0), 0);
	if (p->error)
		t2f_diag__error(b, -T2F_ERR_FORMAT, file, p->err_line, "%s", p->error);
	assert_int_equal(t2f_diag__warnings(b), p->n);
	assert_int_equal(t2f_diag__has_error(b), p->error != NULL);
	free(file);
	return b;
}

static int run_replayed(struct t2f_diag *d, const struct part *parts, size_t np,
			unsigned max_repeats)
{
	for (size_t i = 0; i < np; i++) {
		struct t2f_diag *b = record_part(&parts[i], max_repeats);
		int err = t2f_diag__replay(d, b, parts[i].offset);

		t2f_diag__free(b);
		if (err)
			return err;
	}
	return 0;
}

static void expect_same_diag(struct sink *a, struct sink *b)
{
	const char *ea = t2f_diag__last_error(a->d), *eb = t2f_diag__last_error(b->d);

	assert_string_equal(sink_text(a), sink_text(b));
	assert_int_equal(t2f_diag__warnings(a->d), t2f_diag__warnings(b->d));
	assert_int_equal(t2f_diag__has_error(a->d), t2f_diag__has_error(b->d));
	if (ea || eb) {
		assert_non_null(ea);
		assert_non_null(eb);
		assert_string_equal(ea, eb);
	}
}

/* Both ways from the same start (`pre` warnings already issued directly on each), then flush;
 * returns what the direct run returned (the replayed one returned the same). The direct text is
 * left in *out for further checks (the caller frees it). */
static int expect_replay_equals_direct(const struct part *parts, size_t np, unsigned max_repeats,
				       bool strict, size_t pre, char **out)
{
	struct sink a, b;
	int ra, rb;

	sink_open(&a);
	sink_open(&b);
	for (size_t i = 0; i < pre; i++) {
		struct ev e = { i % 3, 1 + i };

		assert_int_equal(warn_ev(a.d, "pre", &e, 0), 0);
		assert_int_equal(warn_ev(b.d, "pre", &e, 0), 0);
	}
	configure(a.d, max_repeats, strict);
	configure(b.d, max_repeats, strict);
	ra = run_direct(a.d, parts, np);
	rb = run_replayed(b.d, parts, np, max_repeats);
	assert_int_equal(ra, rb);
	expect_same_diag(&a, &b);
	t2f_diag__flush(a.d);
	t2f_diag__flush(b.d);
	expect_same_diag(&a, &b);
	if (out)
		*out = strdup(sink_text(&a));
	sink_close(&a);
	sink_close(&b);
	return ra;
}

/* Three kinds interleaved over two parts; the second part's repeats are suppressed given the
 * first's; line 0 stays 0; offsets shift the rest. */
static void test_replay_interleaved_kinds(void **state)
{
	static const struct ev p1[] = { { 0, 1 }, { 1, 2 }, { 0, 3 }, { 2, 0 }, { 0, 5 }, { 1, 9 } };
	static const struct ev p2[] = { { 1, 1 }, { 2, 2 }, { 2, 3 }, { 0, 4 }, { 2, 0 },
					{ 1, 8 }, { 2, 9 } };
	const struct part parts[] = { { "in.perf", 0, p1, 6, NULL, 0 },
				      { "in.perf", 1000, p2, 7, NULL, 0 } };
	char *text;

	(void)state;
	assert_int_equal(expect_replay_equals_direct(parts, 2, 2, false, 0, &text), 0);
	assert_string_equal(text,
			    "trace2flame: warning: in.perf:1: bad sample 3\n"
			    "trace2flame: warning: in.perf:2: odd line '6'\n"
			    "trace2flame: warning: in.perf:3: bad sample 9\n"
			    "trace2flame: warning: in.perf: unknown event 0\n"
			    "trace2flame: warning: in.perf:9: odd line '27'\n"
			    "trace2flame: warning: in.perf:1002: unknown event 6\n"
			    "trace2flame: warning: 2 more warnings like: bad sample ...\n"
			    "trace2flame: warning: 2 more warnings like: odd line '...'\n"
			    "trace2flame: warning: 3 more warnings like: unknown event ...\n");
	free(text);
	/* with warnings already on the real diag, and other limits */
	for (unsigned max = 0; max <= 6; max++)
		for (size_t pre = 0; pre < 5; pre++)
			assert_int_equal(expect_replay_equals_direct(parts, 2, max, false, pre, NULL), 0);
}

/* A pseudo-random stream cut into parts in several ways, under several limits. */
static void test_replay_random_parts(void **state)
{
	enum { N = 400 };
	static struct ev evs[N];
	uint64_t x = 88172645463325252ULL;
	static const size_t cuts[][4] = { { 0, N, N, N }, { 0, 1, N, N }, { 0, 150, 151, N },
					  { 0, 100, 300, N }, { 0, 0, 200, N } };

	(void)state;
	for (size_t i = 0; i < N; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		evs[i] = (struct ev){ (unsigned)(x % 3), (x >> 8) % 5 ? 1 + (x >> 16) % 50 : 0 };
	}
	for (size_t c = 0; c < sizeof(cuts) / sizeof(cuts[0]); c++) {
		struct part parts[3];

		for (size_t i = 0; i < 3; i++)
			parts[i] = (struct part){ i == 1 ? NULL : "x.txt", 100 * i + 7 * i * i,
						  evs + cuts[c][i], cuts[c][i + 1] - cuts[c][i],
						  NULL, 0 };
		for (unsigned max = 0; max <= 8; max += 2) {
			assert_int_equal(expect_replay_equals_direct(parts, 3, max, false, 0, NULL), 0);
			assert_int_equal(expect_replay_equals_direct(parts, 3, max, false, 4, NULL), 0);
		}
	}
}

/* Strict: the first replayed warning becomes the error, with its shifted line. */
static void test_replay_strict(void **state)
{
	static const struct ev p1[] = { { 2, 40 }, { 0, 41 } };
	const struct part parts[] = { { "a.txt", 0, NULL, 0, NULL, 0 },
				      { "a.txt", 500, p1, 2, "never reached", 3 } };
	struct sink s;
	struct t2f_diag *b;

	(void)state;
	assert_int_equal(expect_replay_equals_direct(parts, 2, 5, true, 0, NULL), -T2F_ERR_FORMAT);
	assert_int_equal(expect_replay_equals_direct(parts, 2, 0, true, 0, NULL), -T2F_ERR_FORMAT);

	sink_open(&s);
	t2f_diag__set_strict(s.d, true);
	b = record_part(&parts[1], 5);
	assert_int_equal(t2f_diag__replay(s.d, b, 500), -T2F_ERR_FORMAT);
	assert_string_equal(t2f_diag__last_error(s.d), "a.txt:540: unknown event 120");
	assert_int_equal(t2f_diag__warnings(s.d), 1);
	assert_string_equal(sink_text(&s), "");
	t2f_diag__free(b);
	sink_close(&s);
}

/* An error recorded in the buffered diag becomes the real diag's last error, line shifted. */
static void test_replay_error(void **state)
{
	static const struct ev p1[] = { { 0, 5 } };
	const struct part parts[] = { { "w.txt", 0, p1, 1, "expected TIME:", 7 },
				      { "w.txt", 90, p1, 1, NULL, 0 },
				      { "w.txt", 200, NULL, 0, "cut short", 0 } };
	struct sink s;
	struct t2f_diag *b;

	(void)state;
	expect_replay_equals_direct(parts, 1, 5, false, 0, NULL);
	expect_replay_equals_direct(parts, 2, 5, false, 0, NULL);
	expect_replay_equals_direct(parts, 3, 5, false, 0, NULL);

	sink_open(&s);
	b = record_part(&parts[0], 5);
	/* the buffered diag's own text is unshifted */
	assert_string_equal(t2f_diag__last_error(b), "w.txt:7: expected TIME:");
	assert_false(t2f_diag__has_error(s.d));
	assert_int_equal(t2f_diag__replay(s.d, b, 1000), 0);
	assert_true(t2f_diag__has_error(s.d));
	assert_string_equal(t2f_diag__last_error(s.d), "w.txt:1007: expected TIME:");
	assert_string_equal(sink_text(&s), "trace2flame: warning: w.txt:1005: bad sample 15\n");
	t2f_diag__free(b);
	b = record_part(&parts[2], 5);
	assert_int_equal(t2f_diag__replay(s.d, b, 1000), 0);
	assert_string_equal(t2f_diag__last_error(s.d), "w.txt: cut short");
	t2f_diag__free(b);
	sink_close(&s);
}

/* A buffered diag prints nothing, keeps a bounded number of messages, and only records. */
static void test_buffered_records_only(void **state)
{
	struct t2f_diag *b, *plain;
	struct sink s;

	(void)state;
	assert_int_equal(t2f_diag__new_buffered(&b), 0);
	t2f_diag__set_strict(b, true);
	for (uint64_t i = 1; i <= 100000; i++)
		assert_int_equal(t2f_diag__warn(b, "big.txt", i, "again %llu",
						(unsigned long long)i), 0);
	t2f_diag__flush(b); /* nothing to print, and the counts stay for the replay */
	assert_int_equal(t2f_diag__warnings(b), 100000);
	assert_false(t2f_diag__has_error(b));
	assert_null(t2f_diag__last_error(b));

	sink_open(&s);
	assert_int_equal(t2f_diag__replay(s.d, b, 10), 0);
	assert_int_equal(t2f_diag__warnings(s.d), 100000);
	t2f_diag__flush(s.d);
	assert_string_equal(sink_text(&s),
			    "trace2flame: warning: big.txt:11: again 1\n"
			    "trace2flame: warning: big.txt:12: again 2\n"
			    "trace2flame: warning: big.txt:13: again 3\n"
			    "trace2flame: warning: big.txt:14: again 4\n"
			    "trace2flame: warning: big.txt:15: again 5\n"
			    "trace2flame: warning: 99995 more warnings like: again ...\n");
	/* only a buffered diag can be replayed */
	assert_int_equal(t2f_diag__new(NULL, &plain), 0);
	assert_int_equal(t2f_diag__replay(s.d, plain, 0), -EINVAL);
	assert_int_equal(t2f_diag__replay(b, b, 0), -EINVAL);
	t2f_diag__free(plain);
	t2f_diag__free(b);
	sink_close(&s);
}

/* Formats past the table of 64: the buffered diag keeps max_repeats of them in all; the rest are
 * reported by flush as other kinds. */
static void test_replay_table_full(void **state)
{
	static char fmts[70][16];
	struct t2f_diag *b;
	struct sink s;
	size_t lines = 0;
	const char *t;

	(void)state;
	for (int i = 0; i < 70; i++)
		snprintf(fmts[i], sizeof(fmts[i]), "kind%02d %%d", i);
	assert_int_equal(t2f_diag__new_buffered(&b), 0);
	t2f_diag__set_max_repeats(b, 2);
	for (int r = 0; r < 5; r++)
		for (int i = 0; i < 70; i++)
			t2f_diag__warn(b, "f", 1, fmts[i], r);
	sink_open(&s);
	t2f_diag__set_max_repeats(s.d, 2);
	assert_int_equal(t2f_diag__replay(s.d, b, 0), 0);
	assert_int_equal(t2f_diag__warnings(s.d), 350);
	for (t = sink_text(&s); (t = strchr(t, '\n')); t++)
		lines++;
	assert_int_equal(lines, 64 * 2 + 2);
	t2f_diag__flush(s.d);
	assert_non_null(strstr(sink_text(&s),
			       "trace2flame: warning: 3 more warnings like: kind63 ...\n"
			       "trace2flame: warning: 28 more warnings of other kinds\n"));
	t2f_diag__free(b);
	sink_close(&s);
}

/* An input's control characters and ill-formed UTF-8 (in a file name, in a name the message
 * quotes) reach the terminal as "\xNN", never raw; the summary of a format shows "..." for its
 * conversions. */
static void test_messages_made_visible(void **state)
{
	struct sink s;

	(void)state;
	sink_open(&s);
	t2f_diag__set_max_repeats(s.d, 1);
	assert_int_equal(t2f_diag__warn(s.d, "a\x1b[2Jb", 3, "debuglink '%s' refused", "x\x1b]0;pwn\a\xc2\x9by\xff"), 0);
	assert_int_equal(t2f_diag__warn(s.d, "f", 4, "debuglink '%s' refused", "ok \xc3\xa9"), 0);
	assert_int_equal(t2f_diag__warn(s.d, "f", 5, "%s: cannot inflate: %5.2f%% %-3llu", "z", 1.0, 2ull), 0);
	assert_int_equal(t2f_diag__warn(s.d, "f", 6, "%s: cannot inflate: %5.2f%% %-3llu", "z", 1.0, 2ull), 0);
	t2f_diag__error(s.d, -T2F_ERR_FORMAT, "e\r", 0, "name '%s'", "\x7f\x01");
	t2f_diag__flush(s.d);
	assert_string_equal(sink_text(&s),
			    "trace2flame: warning: a\\x1b[2Jb:3: debuglink 'x\\x1b]0;pwn\\x07\\xc2\\x9by\\xff' refused\n"
			    "trace2flame: warning: f:5: z: cannot inflate:  1.00% 2  \n"
			    "trace2flame: warning: 1 more warning like: debuglink '...' refused\n"
			    "trace2flame: warning: 1 more warning like: ...: cannot inflate: ...% ...\n");
	assert_string_equal(t2f_diag__last_error(s.d), "e\\x0d: name '\\x7f\\x01'");
	sink_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strerror_own_codes),
		cmocka_unit_test(test_strerror_errno),
		cmocka_unit_test(test_strerror_any_int),
		cmocka_unit_test(test_warn_prints_located_message),
		cmocka_unit_test(test_warn_rate_limit_and_flush),
		cmocka_unit_test(test_warn_default_max_repeats_is_5),
		cmocka_unit_test(test_messages_made_visible),
		cmocka_unit_test(test_warn_without_sink_counts),
		cmocka_unit_test(test_strict_warn_is_error),
		cmocka_unit_test(test_error_formatting),
		cmocka_unit_test(test_error_long_message_truncated),
		cmocka_unit_test(test_replay_interleaved_kinds),
		cmocka_unit_test(test_replay_random_parts),
		cmocka_unit_test(test_replay_strict),
		cmocka_unit_test(test_replay_error),
		cmocka_unit_test(test_buffered_records_only),
		cmocka_unit_test(test_replay_table_full),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
