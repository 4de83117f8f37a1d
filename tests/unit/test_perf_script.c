/* tests/unit/test_perf_script.c: the perf script reader end to end. Text is fed (whole, line by
 * line, or split at every line boundary) and the resulting profile is rendered by dump() into
 * one canonical text, compared exactly. */
#include <errno.h>
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
#include "readers/perf_script.h"

/* The reader over one profile, with warnings captured in memory. */
struct run {
	struct t2f_profile *p;
	struct t2f_diag *d;
	struct t2f_perf_script *ps;
	FILE *sink;
	char *out;
	size_t out_len;
};

static void run_open(struct run *r, bool strict)
{
	memset(r, 0, sizeof(*r));
	r->sink = open_memstream(&r->out, &r->out_len);
	assert_non_null(r->sink);
	assert_int_equal(t2f_profile__new(&r->p), 0);
	assert_int_equal(t2f_diag__new(r->sink, &r->d), 0);
	t2f_diag__set_strict(r->d, strict);
	assert_int_equal(t2f_perf_script__new(r->p, r->d, "in.perf", 0, &r->ps), 0);
}

static void run_close(struct run *r)
{
	t2f_perf_script__free(r->ps);
	t2f_diag__free(r->d);
	t2f_profile__free(r->p);
	fclose(r->sink);
	free(r->out);
}

static const char *warnings_text(struct run *r)
{
	fflush(r->sink);
	return r->out ? r->out : "";
}

/* Feeds a string literal that may hold NUL bytes. */
#define FEED_LIT(r, lit) t2f_perf_script__feed((r)->ps, (lit), sizeof(lit) - 1)

static int feed(struct run *r, const char *text)
{
	return t2f_perf_script__feed(r->ps, text, strlen(text));
}

/* Feeds text whole and finishes; both must succeed. */
static void run_text(struct run *r, const char *text)
{
	run_open(r, false);
	assert_int_equal(feed(r, text), 0);
	assert_int_equal(t2f_perf_script__finish(r->ps), 0);
}

struct sb {
	char *p;
	size_t len, cap;
};

static void sb_printf(struct sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(struct sb *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
		assert_true(n >= 0);
		if ((size_t)n < b->cap - b->len)
			break;
		b->cap = (b->cap + (size_t)n) * 2;
		b->p = realloc(b->p, b->cap);
		assert_non_null(b->p);
	}
	b->len += (size_t)n;
}

static const char *S(const struct t2f_profile *p, t2f_str_id id)
{
	return t2f_profile__str(p, id, NULL);
}

/* One line per frame reference: name, "@module", "#addr" when kept ("^" when it is an absolute
 * ip), and the kind. */
static void dump_frame(struct sb *b, const struct t2f_profile *p, t2f_frame_id id)
{
	static const char *const kinds[] = { "", "[k]", "[j]", "[i]", "[m]" };
	const struct t2f_frame *f = t2f_profile__frame_at(p, id);

	sb_printf(b, "%s", f->name ? S(p, f->name) : "?");
	if (f->module)
		sb_printf(b, "@%s", S(p, f->module));
	if (f->has_addr)
		sb_printf(b, "#%llx%s", (unsigned long long)f->addr,
			  f->space == T2F_SPACE_ABS ? "^" : "");
	sb_printf(b, "%s", kinds[f->kind]);
}

static void dump_stack(struct sb *b, const struct t2f_profile *p, t2f_node_id node)
{
	t2f_node_id parent;

	if (!node)
		return;
	parent = t2f_profile__node_parent(p, node);
	dump_stack(b, p, parent);
	if (parent)
		sb_printf(b, ";");
	dump_frame(b, p, t2f_profile__node_frame(p, node));
}

/* Every cell, in creation order: "comm/pid/tid event: root;...;leaf samples weight". */
static char *dump(const struct t2f_profile *p)
{
	struct sb b = { malloc(256), 0, 256 };

	assert_non_null(b.p);
	b.p[0] = '\0';
	for (size_t i = 0; i < t2f_profile__cell_count(p); i++) {
		const struct t2f_cell *c = t2f_profile__cell_at(p, i);
		const struct t2f_thread *t = t2f_profile__thread_at(p, c->thread);

		sb_printf(&b, "%s/%lld/%lld %s: ", S(p, t->comm), (long long)t->pid,
			  (long long)t->tid, S(p, t2f_profile__event_at(p, c->event)->name));
		dump_stack(&b, p, c->node);
		sb_printf(&b, " %llu %llu\n", (unsigned long long)c->samples,
			  (unsigned long long)c->weight);
	}
	return b.p;
}

static void assert_dump(const struct t2f_profile *p, const char *want)
{
	char *got = dump(p);

	assert_string_equal(got, want);
	free(got);
}

static uint64_t kept_samples(const struct t2f_profile *p)
{
	uint64_t n = 0;

	for (size_t i = 0; i < t2f_profile__cell_count(p); i++)
		n += t2f_profile__cell_at(p, i)->samples;
	return n;
}

/* read = kept + dropped, and the drops by reason are as given. */
static void assert_counts(const struct t2f_profile *p, uint64_t read, uint64_t empty,
			  uint64_t malformed)
{
	uint64_t dropped = 0;

	for (int r = 0; r < T2F_DROP__COUNT; r++)
		dropped += t2f_profile__samples_dropped(p, (enum t2f_drop_reason)r);
	assert_int_equal(t2f_profile__samples_read(p), read);
	assert_int_equal(t2f_profile__samples_dropped(p, T2F_DROP_EMPTY_STACK), empty);
	assert_int_equal(t2f_profile__samples_dropped(p, T2F_DROP_MALFORMED), malformed);
	assert_int_equal(kept_samples(p) + dropped, read);
}

/* ---- header parser ---- */

static const char BASIC[] =
	"workload 14667   492.528779:    1001001 cpu-clock:pppH: \n"
	"\tffffffff81357676 copy_process+0xe06 ([kernel.kallsyms])\n"
	"\t          1098d9 clone3+0x19 (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
	"\t    55a56b65cf00 [unknown] ([unknown])\n"
	"\n"
	"workload 14667   492.529749:    1001001 cpu-clock:pppH: \n"
	"\tffffffff81357676 copy_process+0xe06 ([kernel.kallsyms])\n"
	"\t          1098d9 clone3+0x19 (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
	"\t    55a56b65cf00 [unknown] ([unknown])\n"
	"\n"
	"workload 14668   492.530000:    2002002 cpu-clock:pppH: \n"
	"\t            a800 (/usr/lib/ld.so)\n"
	"\t           27304 __libc_start_main_impl+0x84 (inlined)\n"
	"\t    7f1e2215d058 main (/memfd:sealed-9117 (deleted))\n"
	"\n"
	"workload 14667   492.531000:    1001001 cpu-clock:pppH: \n"
	"\t          1098d9 clone3+0x19 (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
	"\t    55a56b65cf00 [unknown] ([unknown])\n"
	"\n";

static const char BASIC_DUMP[] =
	"workload/-1/14667 cpu-clock: ?@[unknown]#55a56b65cf00;"
	"clone3@/usr/lib/x86_64-linux-gnu/libc.so.6;copy_process@[kernel.kallsyms][k] 2 2002002\n"
	"workload/-1/14668 cpu-clock: main@/memfd:sealed-9117 (deleted);"
	"__libc_start_main_impl[i];?@/usr/lib/ld.so#a800 1 2002002\n"
	"workload/-1/14667 cpu-clock: ?@[unknown]#55a56b65cf00;"
	"clone3@/usr/lib/x86_64-linux-gnu/libc.so.6 1 1001001\n";

static void test_reader_basic(void **state)
{
	struct run r;
	const struct t2f_event *e;

	(void)state;
	run_text(&r, BASIC);
	assert_dump(r.p, BASIC_DUMP);
	assert_counts(r.p, 4, 0, 0);
	assert_int_equal(t2f_perf_script__lines(r.ps), 19);
	assert_int_equal(t2f_profile__thread_count(r.p), 2);
	assert_int_equal(t2f_profile__event_count(r.p), 1);
	assert_int_equal(t2f_profile__frame_count(r.p), 6);
	assert_int_equal(t2f_profile__node_count(r.p), 6);
	e = t2f_profile__event_at(r.p, 1);
	assert_int_equal(e->unit, T2F_UNIT_NANOSECONDS);
	assert_true(e->has_period);
	assert_int_equal(t2f_profile__thread_at(r.p, 1)->input, 0);
	assert_int_equal(t2f_diag__warnings(r.d), 0);
	assert_string_equal(warnings_text(&r), "");
	run_close(&r);
}

static void test_reader_input_index_and_log(void **state)
{
	struct t2f_profile *p;
	struct t2f_diag *d;
	struct t2f_perf_script *ps;
	uint64_t first, last;

	(void)state;
	assert_int_equal(t2f_profile__new(&p), 0);
	assert_int_equal(t2f_diag__new(NULL, &d), 0);
	assert_int_equal(t2f_profile__enable_log(p), 0);
	t2f_profile__want_times(p);
	assert_true(t2f_profile__wants_times(p));
	assert_int_equal(t2f_perf_script__new(p, d, "x", 3, &ps), 0);
	assert_int_equal(t2f_perf_script__feed(ps, BASIC, strlen(BASIC)), 0);
	assert_int_equal(t2f_perf_script__finish(ps), 0);
	assert_int_equal(t2f_profile__thread_at(p, 1)->input, 3);
	assert_int_equal(t2f_profile__sample_log_count(p), 4);
	assert_int_equal(t2f_profile__thread_sample_count(p, 1), 3); /* tid 14667 */
	assert_int_equal(t2f_profile__run_at(p, 2, 0).weight, 2002002); /* tid 14668 */
	assert_true(t2f_profile__time_span(p, &first, &last));
	assert_int_equal(first, 492528779000ull);
	assert_int_equal(last, 492531000000ull);
	t2f_perf_script__free(ps);
	t2f_perf_script__free(NULL);
	t2f_diag__free(d);
	t2f_profile__free(p);
}

/* The same text fed whole, one line per call, and in two parts split at every line boundary. */
static void test_reader_split_feeds(void **state)
{
	const size_t len = strlen(BASIC);
	struct run r;

	(void)state;
	run_open(&r, false);
	for (const char *s = BASIC; *s;) {
		const char *nl = strchr(s, '\n');

		assert_int_equal(t2f_perf_script__feed(r.ps, s, (size_t)(nl - s) + 1), 0);
		s = nl + 1;
	}
	assert_int_equal(t2f_perf_script__finish(r.ps), 0);
	assert_dump(r.p, BASIC_DUMP);
	assert_int_equal(t2f_perf_script__lines(r.ps), 19);
	run_close(&r);

	for (size_t cut = 0; cut <= len; cut++) {
		if (cut && BASIC[cut - 1] != '\n')
			continue;
		run_open(&r, false);
		assert_int_equal(t2f_perf_script__feed(r.ps, BASIC, cut), 0);
		assert_int_equal(t2f_perf_script__feed(r.ps, BASIC + cut, len - cut), 0);
		assert_int_equal(t2f_perf_script__finish(r.ps), 0);
		assert_dump(r.p, BASIC_DUMP);
		assert_counts(r.p, 4, 0, 0);
		run_close(&r);
	}
}

/* Callers' blocks that repeat (the block memo), fed whole and line by line (no memo hits: a block
 * never spans two feeds): same profile, same warnings with the same line numbers. The text has a
 * repeated block under new leaves, two blocks sharing a first line, a repeated block ended by a
 * header instead of an empty line, a repeated block with a bad line, and blank lines with spaces. */
static const char BLOCKS[] =
	"w 1 1.0: 5 cpu-clock: \n"             /* 1 */
	"\t 10 leaf1 (/x)\n"
	"\t 20 mid (/x)\n"
	"\t 30 root (/x)\n"
	"\n"                                     /* 5 */
	"w 1 2.0: 5 cpu-clock: \n"
	"\t 11 leaf2 (/x)\n"
	"\t 20 mid (/x)\n"
	"\t 30 root (/x)\n"
	"\n"                                     /* 10 */
	"w 1 3.0: 5 cpu-clock: \n"
	"\t 12 leaf3 (/x)\n"
	"\t 20 mid (/x)\n"
	"\t 31 other (/x)\n"
	"\n"                                     /* 15 */
	"w 1 4.0: 5 cpu-clock: \n"
	"\t 10 leaf1 (/x)\n"
	"\t 20 mid (/x)\n"
	"\t 30 root (/x)\n"
	"w 2 5.0: 7 cpu-clock: \n"             /* 20: no empty line before the next header */
	"\t 11 leaf2 (/x)\n"
	"\t 20 mid (/x)\n"
	"\t 30 root (/x)\n"
	"\tzz not a frame\n"
	"\n"                                     /* 25 */
	"w 1 6.0: 5 cpu-clock: \n"
	"\t 13 leaf4 (/x)\n"
	"\t 20 mid (/x)\n"
	"\t 30 root (/x)\n"
	"  \n"                                   /* 30 */
	"w 1 7.0: 5 cpu-clock: \n"
	"\t 13 leaf4 (/x)\n"
	"\t 20 mid (/x)\n"
	"\t 31 other (/x)\n"
	"\n"                                     /* 35 */
	"w 1 8.0: 5 cpu-clock: \n"
	"\t 10 leaf1 (/x)\n"
	"\t 20 mid (/x)\n"
	"\t 30 root (/x)\n"
	"\n"                                     /* 40 */
	"w 1 9.0: 5 cpu-clock: \n"
	"\t 11 leaf2 (/x)\n"
	"\t 20 mid (/x)\n"
	"\t 30 rooX (/x)\n"
	"\n"                                     /* 45 */
	"w 1 10.0: 5 cpu-clock: \n"
	"\t 14 leaf5 (/x)\n"
	"\t 20 mid (/x)\n"
	"\t 30 root (/x)\n"
	"\n"                                     /* 50 */
	"w 1 11.0: 5 cpu-clock: \n"
	"\t 14 leaf5 (/x)\n"
	"\n"
	"w 1 12.0: 5 cpu-clock: \n"
	"\t 10 leaf1 (/x)\n"                     /* 55 */
	"\t 20 mid (/x)\n"
	"\tyy bad\n"
	"\n"
	"w 1 13.0: 5 cpu-clock: \n";

static const char BLOCKS_DUMP[] =
	"w/-1/1 cpu-clock: root@/x;mid@/x;leaf1@/x 3 15\n"
	"w/-1/1 cpu-clock: root@/x;mid@/x;leaf2@/x 1 5\n"
	"w/-1/1 cpu-clock: other@/x;mid@/x;leaf3@/x 1 5\n"
	"w/-1/1 cpu-clock: root@/x;mid@/x;leaf4@/x 1 5\n"
	"w/-1/1 cpu-clock: other@/x;mid@/x;leaf4@/x 1 5\n"
	"w/-1/1 cpu-clock: rooX@/x;mid@/x;leaf2@/x 1 5\n"
	"w/-1/1 cpu-clock: root@/x;mid@/x;leaf5@/x 1 5\n"
	"w/-1/1 cpu-clock: leaf5@/x 1 5\n"
	"w/-1/1 cpu-clock:  1 5\n";             /* the last, without a call chain */

static const char BLOCKS_WARNINGS[] =
	"trace2flame: warning: in.perf:24: unreadable frame line: expected \"ADDRESS [SYMBOL[+0xOFF]] [(DSO)]\"\n"
	"trace2flame: warning: in.perf:57: unreadable frame line: expected \"ADDRESS [SYMBOL[+0xOFF]] [(DSO)]\"\n";

static void test_reader_block_memo(void **state)
{
	struct run r;

	(void)state;
	for (int by_line = 0; by_line < 2; by_line++) {
		run_open(&r, false);
		for (const char *s = BLOCKS; *s;) {
			const char *nl = strchr(s, '\n');
			size_t n = by_line ? (size_t)(nl - s) + 1 : strlen(s);

			assert_int_equal(t2f_perf_script__feed(r.ps, s, n), 0);
			s += n;
		}
		assert_int_equal(t2f_perf_script__finish(r.ps), 0);
		assert_dump(r.p, BLOCKS_DUMP);
		assert_string_equal(warnings_text(&r), BLOCKS_WARNINGS);
		assert_counts(r.p, 13, 0, 2);
		assert_int_equal(t2f_perf_script__lines(r.ps), 59);
		run_close(&r);
	}
}

static void test_reader_no_final_newline(void **state)
{
	struct run r;

	(void)state;
	/* perf ends every line with '\n': a last line without one was cut, so its sample is
	 * incomplete and dropped as truncated, with a warning; complete samples before it stay. */
	run_text(&r, "a 1 1.0: 5 cpu-clock:\n\t 10 f (/x)\n\n"
		     "a 1 2.0: 6 cpu-clock:\n\t 10 f (/x)\n\t 20 g (/x");
	assert_dump(r.p, "a/-1/1 cpu-clock: f@/x 1 5\n");
	assert_counts(r.p, 2, 0, 0);
	assert_int_equal(t2f_profile__samples_dropped(r.p, T2F_DROP_TRUNCATED), 1);
	assert_int_equal(t2f_diag__warnings(r.d), 1);
	run_close(&r);
}

static void test_reader_no_final_blank_line(void **state)
{
	struct run r;

	(void)state;
	/* Complete lines without the closing blank line: the last sample is whole. */
	run_text(&r, "a 1 1.0: 5 cpu-clock:\n\t 10 f (/x)\n\t 20 g (/x)\n");
	assert_dump(r.p, "a/-1/1 cpu-clock: g@/x;f@/x 1 5\n");
	assert_counts(r.p, 1, 0, 0);
	run_close(&r);
}

static void test_reader_empty_call_chain(void **state)
{
	struct run r;

	(void)state;
	run_text(&r,
		 "a 1 1.0: 5 cpu-clock:\n"
		 "\n"
		 "a 1 2.0: 6 cpu-clock:\n"
		 "\t 10 f (/x)\n"
		 "\n"
		 "a 1 3.0: 7 cpu-clock:\n"   /* directly followed by the next header */
		 "a 1 4.0: 8 cpu-clock:\n"
		 "\t 10 f (/x)\n"
		 "\n"
		 "a 1 5.0: 9 cpu-clock:\n"); /* at the end of the input */
	/* kept, as perf report counts them: the thread alone (the root) */
	assert_dump(r.p, "a/-1/1 cpu-clock:  3 21\na/-1/1 cpu-clock: f@/x 2 14\n");
	assert_counts(r.p, 5, 0, 0);
	assert_int_equal(t2f_profile__chainless_samples(r.p), 3);
	assert_int_equal(t2f_diag__warnings(r.d), 0);
	run_close(&r);
}

static void test_reader_one_line_samples(void **state)
{
	struct run r;

	(void)state;
	run_text(&r,
		 "        workload 22677  1993.326821:    2004008 cpu-clock:pppH:      560cbf4a7b9e "
		 "std::foo<int>::_M_gen_rand+0x9e (/srv/prog/workload)\n"
		 "        workload 22676  1993.327389:    2004008 cpu-clock:pppH:      560cbf4a5376 "
		 "app::matrix_worker+0x1a6 (/srv/prog/workload)\n"
		 "        workload 22677  1993.328817:    2004008 cpu-clock:pppH:      560cbf4a7b9e "
		 "std::foo<int>::_M_gen_rand+0x9e (/srv/prog/workload)\n"
		 "        workload 22677  1993.329000:    2004008 cpu-clock:pppH:      7f00dead0000 "
		 "[unknown] (/usr/lib/libc.so.6)\n"
		 "         swapper     0  1993.330000:    2004008 cpu-clock:pppH:  ffffffff821facd8 "
		 "default_idle+0x8 ([kernel.kallsyms])\n");
	assert_dump(r.p,
		    "workload/-1/22677 cpu-clock: std::foo<int>::_M_gen_rand@/srv/prog/workload 2 4008016\n"
		    "workload/-1/22676 cpu-clock: app::matrix_worker@/srv/prog/workload 1 2004008\n"
		    "workload/-1/22677 cpu-clock: ?@/usr/lib/libc.so.6#7f00dead0000^ 1 2004008\n"
		    "swapper/-1/0 cpu-clock: default_idle@[kernel.kallsyms][k] 1 2004008\n");
	assert_counts(r.p, 5, 0, 0);
	run_close(&r);
}

/* One-line samples with the mappings of their process: the absolute ip becomes the file offset
 * a call-chain line would print (docs/perf-addresses.md, GNU ld PIE: 5600766b31b4 → 0x11b4),
 * for headers with the pid and, through PERF_RECORD_FORK, with only the tid; a later mapping of
 * the range wins; no mapping, or one of another file: the absolute ip stays. */
static void test_reader_one_line_file_offsets(void **state)
{
	struct run r;

	(void)state;
	run_open(&r, false);
	t2f_perf_script__keep_addrs(r.ps, true);
	assert_int_equal(feed(&r,
		"pie  3325/3325  5572.100000: PERF_RECORD_MMAP2 3325/3325: [0x5600766b3000(0x1000) @ "
		"0x1000 fe:00 123 456]: r-xp /t/pie\n"
		"pie  3325/3325  5572.100001: PERF_RECORD_FORK(3325:3327):(3325:3325)\n"
		"pie  3325/3325  5572.137282:    1001001 cpu-clock:      5600766b31b4 exe_hot+0x23 (/t/pie)\n"
		"pie  3327  5572.137283:    1001001 cpu-clock:      5600766b31b4 exe_hot+0x23 (/t/pie)\n"
		"pie  3330  5572.137284:    1001001 cpu-clock:      5600766b31b4 exe_hot+0x23 (/t/pie)\n"
		"pie  3325  5572.137285:    1001001 cpu-clock:      5600766b31b4 exe_hot+0x23 (/t/other)\n"
		"pie  3325/3325  5572.200000: PERF_RECORD_MMAP2 3325/3325: [0x5600766b3000(0x1000) @ "
		"0x2000 fe:00 123 456]: r-xp /t/pie\n"
		"pie  3325/3325  5572.237282:    1001001 cpu-clock:      5600766b31b4 exe_hot+0x23 (/t/pie)\n"),
		0);
	assert_int_equal(t2f_perf_script__finish(r.ps), 0);
	assert_dump(r.p,
		    "pie/3325/3325 cpu-clock: exe_hot@/t/pie#11b4 1 1001001\n"
		    "pie/-1/3327 cpu-clock: exe_hot@/t/pie#11b4 1 1001001\n"
		    "pie/-1/3330 cpu-clock: exe_hot@/t/pie#5600766b31b4^ 1 1001001\n"
		    "pie/-1/3325 cpu-clock: exe_hot@/t/other#5600766b31b4^ 1 1001001\n"
		    "pie/3325/3325 cpu-clock: exe_hot@/t/pie#21b4 1 1001001\n");
	assert_counts(r.p, 5, 0, 0);
	run_close(&r);
}

static void test_reader_multi_event(void **state)
{
	struct run r;

	(void)state;
	run_text(&r,
		 "workload 15616   529.376000:    1001001 cpu-clock:pppH: \n"
		 "\t 10 compute (/bin/w)\n"
		 "\n"
		 "workload 15616   529.376471:          1        page-faults: \n"
		 "\t 20 memset (/bin/w)\n"
		 "\t 10 compute (/bin/w)\n"
		 "\n"
		 "workload 15616 [001]   529.378047: sched:sched_switch: prev_comm=workload "
		 "prev_pid=15616 prev_prio=120 prev_state=D ==> next_comm=swapper/1 next_pid=0\n"
		 "\tffffffff821facd8 __schedule+0x618 ([kernel.kallsyms])\n"
		 "\t 10 compute (/bin/w)\n"
		 "\n"
		 "workload 15616   529.379000:          1        page-faults: \n"
		 "\t 20 memset (/bin/w)\n"
		 "\t 10 compute (/bin/w)\n"
		 "\n");
	assert_dump(r.p,
		    "workload/-1/15616 cpu-clock: compute@/bin/w 1 1001001\n"
		    "workload/-1/15616 page-faults: compute@/bin/w;memset@/bin/w 2 2\n"
		    "workload/-1/15616 sched:sched_switch: compute@/bin/w;__schedule@[kernel.kallsyms][k] 1 1\n");
	assert_counts(r.p, 4, 0, 0);
	assert_int_equal(t2f_profile__event_count(r.p), 3);
	assert_int_equal(t2f_profile__find_event(r.p, "cpu-clock"), 1);
	assert_int_equal(t2f_profile__find_event(r.p, "page-faults"), 2);
	assert_int_equal(t2f_profile__find_event(r.p, "sched:sched_switch"), 3);
	assert_int_equal(t2f_profile__event_at(r.p, 1)->unit, T2F_UNIT_NANOSECONDS);
	assert_int_equal(t2f_profile__event_at(r.p, 2)->unit, T2F_UNIT_COUNT);
	assert_int_equal(t2f_profile__event_at(r.p, 3)->unit, T2F_UNIT_COUNT);
	assert_true(t2f_profile__event_at(r.p, 2)->has_period);
	assert_false(t2f_profile__event_at(r.p, 3)->has_period);
	run_close(&r);
}

static void test_reader_comm_spaces_pid_tid_no_event(void **state)
{
	struct run r;

	(void)state;
	run_text(&r,
		 "V8 Worker 12 22829  2011.304692:    1001001 cpu-clock:pppH: \n"
		 "\t 10 v8run (/bin/node)\n"
		 "\n"
		 "1234 5678 22827/22830  2011.305664:    1001001 cpu-clock:pppH: \n"
		 "\t 10 v8run (/bin/node)\n"
		 "\n"
		 "comm 12 1.5: \n"
		 "\t 10 v8run (/bin/node)\n"
		 "\n");
	assert_dump(r.p,
		    "V8 Worker 12/-1/22829 cpu-clock: v8run@/bin/node 1 1001001\n"
		    "1234 5678/22827/22830 cpu-clock: v8run@/bin/node 1 1001001\n"
		    "comm/-1/12 samples: v8run@/bin/node 1 1\n");
	assert_false(t2f_profile__event_at(r.p, 2)->has_period);
	assert_int_equal(t2f_profile__event_at(r.p, 2)->unit, T2F_UNIT_COUNT);
	run_close(&r);
}

static void test_reader_srcline_and_comments_ignored(void **state)
{
	struct run r;

	(void)state;
	run_text(&r,
		 "# ========\n"
		 "# captured on    : Sun Nov 22 08:00:00 2026\n"
		 "#\n"
		 "workload 14667   492.528779:    1001001 cpu-clock:pppH: \n"
		 "\t            a800 __minimal_calloc+0x0 (/usr/lib/ld.so)\n"
		 "  dl-minimal-malloc.c:82\n"
		 "\tffffffff81357676 copy_process+0xe06 ([kernel.kallsyms])\n"
		 "  [kernel.kallsyms][ffffffff81357676]\n"
		 "\t 20 main (/bin/w)\n"
		 "\n"
		 "# a comment between samples\n"
		 "workload 14667   492.529000:    1001001 cpu-clock:pppH: \n"
		 "\t 20 main (/bin/w)\n"
		 "  main.c:3\n"
		 "\n");
	assert_dump(r.p,
		    "workload/-1/14667 cpu-clock: main@/bin/w;copy_process@[kernel.kallsyms][k];"
		    "__minimal_calloc@/usr/lib/ld.so 1 1001001\n"
		    "workload/-1/14667 cpu-clock: main@/bin/w 1 1001001\n");
	assert_counts(r.p, 2, 0, 0);
	assert_int_equal(t2f_diag__warnings(r.d), 0);
	run_close(&r);
}

static void test_reader_mmap_records(void **state)
{
	struct run r;
	const struct t2f_module_map *m;

	(void)state;
	run_text(&r,
		 "swapper     0     0.000000: PERF_RECORD_MMAP -1/0: [0xffffffff81000000(0x120bb08) @ "
		 "0xffffffff81000000]: x [kernel.kallsyms]_text\n"
		 "workload 14667   492.526233: PERF_RECORD_MMAP2 14667/14667: [0x55a56159e000(0x5000) @ "
		 "0x2000 fe:00 10961385 1277029166]: r-xp /srv/prog/workload\n"
		 "workload 14667   492.526250: PERF_RECORD_MMAP2 14667/14667: [0x7f5fd7c51000(0x26000) @ "
		 "0x1000 4a0e3c54d8a1f2b3c4d5e6f708192a3b4c5d6e7f]: r-xp /usr/lib/ld.so\n"
		 "workload 14667   492.528779:    1001001 cpu-clock:pppH: \n"
		 "\t 10 main (/srv/prog/workload)\n"
		 "\n"
		 "workload 14667   492.529000: PERF_RECORD_COMM exec: workload:14667/14667\n"
		 "workload 14667   492.529500: PERF_RECORD_EXIT(14667:14667):(14666:14666)\n"
		 "workload 14667   492.530000:    1001001 cpu-clock:pppH: \n"
		 "\t 10 main (/srv/prog/workload)\n"
		 "\n");
	assert_dump(r.p, "workload/-1/14667 cpu-clock: main@/srv/prog/workload 2 2002002\n");
	assert_counts(r.p, 2, 0, 0);
	assert_int_equal(t2f_diag__warnings(r.d), 0);
	assert_int_equal(t2f_profile__module_map_count(r.p), 3);

	m = t2f_profile__module_map_at(r.p, 0);
	assert_int_equal(m->pid, -1);
	assert_int_equal(m->start, 0xffffffff81000000ull);
	assert_int_equal(m->len, 0x120bb08);
	assert_int_equal(m->pgoff, 0xffffffff81000000ull);
	assert_string_equal(S(r.p, m->path), "[kernel.kallsyms]_text");
	assert_string_equal(S(r.p, m->prot), "x");
	assert_int_equal(m->build_id, 0);

	m = t2f_profile__module_map_at(r.p, 1);
	assert_int_equal(m->pid, 14667);
	assert_int_equal(m->start, 0x55a56159e000ull);
	assert_int_equal(m->len, 0x5000);
	assert_int_equal(m->pgoff, 0x2000);
	assert_string_equal(S(r.p, m->path), "/srv/prog/workload");
	assert_string_equal(S(r.p, m->prot), "r-xp");
	assert_int_equal(m->build_id, 0);

	m = t2f_profile__module_map_at(r.p, 2);
	assert_int_equal(m->start, 0x7f5fd7c51000ull);
	assert_int_equal(m->len, 0x26000);
	assert_int_equal(m->pgoff, 0x1000);
	assert_string_equal(S(r.p, m->build_id), "4a0e3c54d8a1f2b3c4d5e6f708192a3b4c5d6e7f");
	assert_string_equal(S(r.p, m->path), "/usr/lib/ld.so");
	run_close(&r);
}

static void test_reader_bad_mmap_warns(void **state)
{
	struct run r;

	(void)state;
	run_text(&r,
		 "w 1 1.0: PERF_RECORD_MMAP2 1/1: garbage\n"
		 "w 1 2.0: 3 cpu-clock:\n"
		 "\t 10 f (/x)\n"
		 "\n");
	assert_int_equal(t2f_diag__warnings(r.d), 1);
	assert_non_null(strstr(warnings_text(&r), "trace2flame: warning: in.perf:1: unreadable PERF_RECORD_MMAP line"));
	assert_int_equal(t2f_profile__module_map_count(r.p), 0);
	assert_dump(r.p, "w/-1/1 cpu-clock: f@/x 1 3\n");
	run_close(&r);
}

static const char BAD_HEADER[] =
	"a 1 1.0: 5 cpu-clock:\n"
	"\t 10 f (/x)\n"
	"\n"
	"this is not a header\n"
	"\t 30 skipped_one (/x)\n"
	"\t 40 skipped_two (/x)\n"
	"\n"
	"a 1 2.0: 7 cpu-clock:\n"
	"\t 20 g (/x)\n"
	"\t 10 f (/x)\n"
	"\n";

static void test_reader_bad_header(void **state)
{
	struct run r;

	(void)state;
	run_text(&r, BAD_HEADER);
	assert_dump(r.p,
		    "a/-1/1 cpu-clock: f@/x 1 5\n"
		    "a/-1/1 cpu-clock: f@/x;g@/x 1 7\n");
	assert_counts(r.p, 3, 0, 1);
	assert_int_equal(t2f_profile__frame_count(r.p), 2); /* skipped frames never interned */
	assert_int_equal(t2f_diag__warnings(r.d), 1);
	assert_string_equal(warnings_text(&r),
			    "trace2flame: warning: in.perf:4: not a perf script sample header: expected "
			    "\"COMM [PID/]TID [CPU] SECONDS.FRACTION: [PERIOD] [EVENT:]\"\n");
	run_close(&r);
}

static void test_reader_bad_header_strict(void **state)
{
	struct run r;

	(void)state;
	run_open(&r, true);
	assert_int_equal(feed(&r, BAD_HEADER), -T2F_ERR_FORMAT);
	assert_non_null(t2f_diag__last_error(r.d));
	assert_string_equal(t2f_diag__last_error(r.d),
			    "in.perf:4: not a perf script sample header: expected "
			    "\"COMM [PID/]TID [CPU] SECONDS.FRACTION: [PERIOD] [EVENT:]\"");
	assert_string_equal(warnings_text(&r), "");
	run_close(&r);
}

/* A tab-indented line inside a sample that is not a frame: a warning, and the sample it belongs
 * to is dropped and counted as malformed (readers/perf_script.h). */
static void test_reader_bad_frame_line(void **state)
{
	struct run r;

	(void)state;
	run_text(&r,
		 "a 1 1.0: 5 cpu-clock:\n"
		 "\t 10 f (/x)\n"
		 "\tzzzz not a frame\n"
		 "\t 20 g (/x)\n"
		 "\n"
		 "a 1 2.0: 7 cpu-clock:\n"
		 "\t 10 f (/x)\n"
		 "\n");
	assert_int_equal(t2f_diag__warnings(r.d), 1);
	assert_non_null(strstr(warnings_text(&r), "trace2flame: warning: in.perf:3: unreadable frame line"));
	assert_dump(r.p, "a/-1/1 cpu-clock: f@/x 1 7\n");
	assert_counts(r.p, 2, 0, 1);
	run_close(&r);

	/* the same for the one-line form: unreadable text after the event */
	run_text(&r,
		 "a 1 1.0: 5 cpu-clock: zzzz garbage\n"
		 "a 1 2.0: 6 cpu-clock: 10 f (/x)\n");
	assert_int_equal(t2f_diag__warnings(r.d), 1);
	assert_non_null(strstr(warnings_text(&r),
			       "trace2flame: warning: in.perf:1: unreadable text after the event"));
	assert_dump(r.p, "a/-1/1 cpu-clock: f@/x 1 6\n");
	assert_counts(r.p, 2, 0, 1);
	run_close(&r);

	run_open(&r, true);
	assert_int_equal(feed(&r, "a 1 1.0: 5 cpu-clock:\n\t 10 f (/x)\n\tzzzz\n"),
			 -T2F_ERR_FORMAT);
	assert_non_null(strstr(t2f_diag__last_error(r.d), "in.perf:3: unreadable frame line"));
	run_close(&r);
}

static void test_reader_nul_byte(void **state)
{
	struct run r;

	(void)state;
	/* in a frame line */
	run_open(&r, false);
	assert_int_equal(FEED_LIT(&r, "a 1 1.0: 5 cpu-clock:\n\t 10 f\0o (/x)\n"),
			 -T2F_ERR_FORMAT);
	assert_string_equal(t2f_diag__last_error(r.d),
			    "in.perf:2: binary data (a NUL byte): expected perf script text");
	run_close(&r);

	/* in a header, in a later feed call: lines are counted across calls */
	run_open(&r, false);
	assert_int_equal(feed(&r, BASIC), 0);
	assert_int_equal(FEED_LIT(&r, "\na 1 1.0\0: 5 cpu-clock:\n"), -T2F_ERR_FORMAT);
	assert_string_equal(t2f_diag__last_error(r.d),
			    "in.perf:21: binary data (a NUL byte): expected perf script text");
	run_close(&r);

	/* a NUL even where nothing would be parsed: a comment, a skipped record's frame lines */
	run_open(&r, false);
	assert_int_equal(FEED_LIT(&r, "# x\0y\n"), -T2F_ERR_FORMAT);
	assert_string_equal(t2f_diag__last_error(r.d),
			    "in.perf:1: binary data (a NUL byte): expected perf script text");
	run_close(&r);
	run_open(&r, false);
	assert_int_equal(FEED_LIT(&r, "bad\n\t 10 \0\n"), -T2F_ERR_FORMAT);
	assert_string_equal(t2f_diag__last_error(r.d),
			    "in.perf:2: binary data (a NUL byte): expected perf script text");
	run_close(&r);
}

static void test_reader_crlf(void **state)
{
	struct sb b = { malloc(16), 0, 16 };
	struct run r;

	(void)state;
	assert_non_null(b.p);
	for (const char *s = BASIC; *s; s++) {
		if (*s == '\n')
			sb_printf(&b, "\r");
		sb_printf(&b, "%c", *s);
	}
	run_text(&r, b.p);
	assert_dump(r.p, BASIC_DUMP);
	assert_counts(r.p, 4, 0, 0);
	assert_int_equal(t2f_diag__warnings(r.d), 0);
	run_close(&r);
	free(b.p);
}

static void test_reader_frame_cache_and_kinds(void **state)
{
	struct run r;

	(void)state;
	run_text(&r,
		 "j 5 1.0: 1 cpu-clock:\n"
		 "\t 10 f (/x)\n"
		 "\t   10 f (/x)\n"          /* other indentation, same frame */
		 "\t 7f00 LazyCompile:~run (/tmp/perf-5.map)\n"
		 "\t 8 sys_read (/boot/vmlinux)\n"
		 "\t 9 (/tmp/perf-5.map)\n"
		 "\t 11 [unknown] ([unknown])\n"
		 "\t 12 x (/tmp/perf-.map)\n"  /* no pid: an ordinary file */
		 "\n");
	assert_dump(r.p,
		    "j/-1/5 cpu-clock: x@/tmp/perf-.map;?@[unknown]#11;"
		    "?@/tmp/perf-5.map#9[j];sys_read@/boot/vmlinux[k];"
		    "LazyCompile:~run@/tmp/perf-5.map[j];f@/x;f@/x 1 1\n");
	assert_int_equal(t2f_profile__frame_count(r.p), 6);
	run_close(&r);
}

/* Names perf printed with a symbol version lose it (formats/sym_version.h), but for JIT frames
 * (a perf map names them with any text) and the dso [unknown]; "@plt" stays. */
static void test_reader_symbol_versions(void **state)
{
	struct run r;

	(void)state;
	run_text(&r,
		 "v 5 1.0: 1 cpu-clock:\n"
		 "\t 10 cfree@GLIBC_2.2.5+0x1f (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
		 "\t 11 malloc@plt+0x4 (/app)\n"
		 "\t 12 std::thread::join@@GLIBCXX_3.4.11 (/usr/lib/libstdc++.so.6)\n"
		 "\t 13 run@Foo_1 (/tmp/perf-5.map)\n"
		 "\t 14 f@V_1 ([unknown])\n"
		 "\t 15 __libc_start_main@@GLIBC_2.34\n"      /* no dso (-F ip,sym) */
		 "\t 16 k@V_1 ([kernel.kallsyms])\n"
		 "\t 17 g@@V_2 (inlined)\n"
		 "\t 18 h@2 (/x)\n"
		 "\n");
	assert_dump(r.p,
		    "v/-1/5 cpu-clock: h@2@/x;g[i];k@[kernel.kallsyms][k];__libc_start_main;"
		    "f@V_1@[unknown];run@Foo_1@/tmp/perf-5.map[j];"
		    "std::thread::join@/usr/lib/libstdc++.so.6;malloc@plt@/app;"
		    "cfree@/usr/lib/x86_64-linux-gnu/libc.so.6 1 1\n");
	run_close(&r);
}

static void test_reader_deep_stack(void **state)
{
	struct sb b = { malloc(16), 0, 16 };
	struct run r;
	const struct t2f_cell *c;

	(void)state;
	assert_non_null(b.p);
	sb_printf(&b, "deep 9 1.0: 3 cpu-clock:\n");
	for (int i = 0; i < 1000; i++)
		sb_printf(&b, "\t %x f%d (/x)\n", i + 1, i);
	sb_printf(&b, "\n");
	run_text(&r, b.p);
	assert_int_equal(t2f_profile__cell_count(r.p), 1);
	c = t2f_profile__cell_at(r.p, 0);
	assert_int_equal(t2f_profile__node_depth(r.p, c->node), 1000);
	/* the leaf is the first frame line, the root the last */
	assert_string_equal(S(r.p, t2f_profile__frame_at(r.p, t2f_profile__node_frame(r.p, c->node))->name), "f0");
	assert_string_equal(S(r.p, t2f_profile__frame_at(r.p, t2f_profile__node_frame(r.p, 1))->name), "f999");
	run_close(&r);
	free(b.p);
}


static void test_reader_blank_indented_frames(void **state)
{
	struct run r;

	(void)state;
	/* Call chains indented with spaces (e.g. after `expand`) are frames; srclines stay ignored. */
	run_text(&r, "a 1 1.0: 5 cpu-clock:\n        10 f (/x)\n  f.c:3\n        20 g (/x)\n\n");
	assert_dump(r.p, "a/-1/1 cpu-clock: g@/x;f@/x 1 5\n");
	assert_counts(r.p, 1, 0, 0);
	assert_int_equal(t2f_diag__warnings(r.d), 0);
	run_close(&r);
}

/* t2f_perf_script__unknown_addrs's answer, from ctx (a bool). */
static bool wants_from(void *ctx, enum t2f_frame_kind kind, const char *dso, size_t dso_len,
		       bool named)
{
	(void)kind;
	(void)dso;
	(void)dso_len;
	(void)named;
	return *(const bool *)ctx;
}

/* `ADDR [unknown] ([unknown])` lines (found without parsing or caching them when their frame
 * keeps no address) give the frames every other spelling of them gives: one frame when no
 * address is kept, one per address when addresses are, and lines the frame parser refuses (17
 * hex digits) stay refused. */
static void test_reader_unknown_lines(void **state)
{
	static const char text[] =
		"u 5 1.0: 1 cpu-clock:\n"
		"\t 7f00 [unknown] ([unknown])\n"
		"\t 7f01 [unknown] ([unknown])\n"
		"\t 0x7f02 [unknown] ([unknown])\n"      /* a 0x prefix: parsed */
		"\t 7F03  [unknown] ([unknown])\n"       /* two blanks */
		"\t ffffffffffffffff [unknown] ([unknown])\n"
		"\t 7f00 [unknown] ([unknown])\n"
		"\t 7f05 [unknown] ([unknown]) \n"       /* a trailing blank */
		"\n"
		"u 5 2.0: 2 cpu-clock:\n"
		"\t 7f06 [unknown] ([unknown])\n"
		"\t 7f00 f (/x)\n"
		"\n"
		"u 5 3.0: 4 cpu-clock:\n"
		"\t 1ffffffffffffffff [unknown] ([unknown])\n" /* 17 digits: no frame */
		"\n";
	static const char kept[] =
		"u/-1/5 cpu-clock: ?@[unknown]#7f05;?@[unknown]#7f00;?@[unknown]#ffffffffffffffff;"
		"?@[unknown]#7f03;?@[unknown]#7f02;?@[unknown]#7f01;?@[unknown]#7f00 1 1\n"
		"u/-1/5 cpu-clock: f@/x#7f00;?@[unknown]#7f06 1 2\n";
	static const char shared[] =
		"u/-1/5 cpu-clock: ?@[unknown];?@[unknown];?@[unknown];?@[unknown];?@[unknown];"
		"?@[unknown];?@[unknown] 1 1\n"
		"u/-1/5 cpu-clock: f@/x;?@[unknown] 1 2\n";
	bool wants[] = { false, true };

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		struct run r;

		run_open(&r, false);
		t2f_perf_script__unknown_addrs(r.ps, wants_from, &wants[i]);
		assert_int_equal(FEED_LIT(&r, text), 0);
		assert_int_equal(t2f_perf_script__finish(r.ps), 0);
		assert_dump(r.p, wants[i] ? kept : shared);
		assert_int_equal(t2f_profile__frame_count(r.p), wants[i] ? 8 : 2);
		assert_int_equal(t2f_diag__warnings(r.d), 1); /* the 17 digits */
		run_close(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reader_basic),
		cmocka_unit_test(test_reader_input_index_and_log),
		cmocka_unit_test(test_reader_split_feeds),
		cmocka_unit_test(test_reader_block_memo),
		cmocka_unit_test(test_reader_no_final_newline),
		cmocka_unit_test(test_reader_no_final_blank_line),
		cmocka_unit_test(test_reader_empty_call_chain),
		cmocka_unit_test(test_reader_one_line_samples),
		cmocka_unit_test(test_reader_one_line_file_offsets),
		cmocka_unit_test(test_reader_multi_event),
		cmocka_unit_test(test_reader_comm_spaces_pid_tid_no_event),
		cmocka_unit_test(test_reader_srcline_and_comments_ignored),
		cmocka_unit_test(test_reader_mmap_records),
		cmocka_unit_test(test_reader_bad_mmap_warns),
		cmocka_unit_test(test_reader_bad_header),
		cmocka_unit_test(test_reader_bad_header_strict),
		cmocka_unit_test(test_reader_bad_frame_line),
		cmocka_unit_test(test_reader_nul_byte),
		cmocka_unit_test(test_reader_crlf),
		cmocka_unit_test(test_reader_frame_cache_and_kinds),
		cmocka_unit_test(test_reader_symbol_versions),
		cmocka_unit_test(test_reader_deep_stack),
		cmocka_unit_test(test_reader_blank_indented_frames),
		cmocka_unit_test(test_reader_unknown_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
