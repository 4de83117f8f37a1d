/* tests/unit/test_perf_data_trace.c: readers/perf_data_trace — sched_switch payloads decoded
 * through the format a perf.data file's HEADER_TRACING_DATA section carries (libtraceevent):
 * the fields at the offsets the format gives, a payload too short for them refused, and a
 * section cut anywhere, or with counts and sizes past its end, warned about and never read
 * past (the ASan build checks the reads). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "formats/diag.h"
#include "readers/perf_data_trace.h"

/* sched_switch's format as the kernel's tracefs gives it (Linux 6.x, x86-64) */
static const char FORMAT[] =
	"name: sched_switch\n"
	"ID: 372\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"prev_comm=%s prev_pid=%d ==> next_comm=%s next_pid=%d\", REC->prev_comm, "
	"REC->prev_pid, REC->next_comm, REC->next_pid\n";

struct sec {
	uint8_t b[8192];
	size_t n;
	size_t counts[3];  /* where the ftrace count, the systems count, the last format's size are */
};

static void put(struct sec *s, const void *p, size_t n)
{
	assert_true(s->n + n <= sizeof(s->b));
	memcpy(s->b + s->n, p, n);
	s->n += n;
}

static void put_u(struct sec *s, uint64_t v, size_t n) /* little endian */
{
	for (size_t i = 0; i < n; i++)
		s->b[s->n++] = (uint8_t)(v >> (8 * i));
}

static void put_blob(struct sec *s, const char *text)
{
	put_u(s, strlen(text), 8);
	put(s, text, strlen(text));
}

/* A section: magic, version, byte order, long size, page size, the two headers, no ftrace
 * formats, then the systems: "irq" with one other event, then `system` with `format`. */
static void section(struct sec *s, const char *system, const char *format)
{
	s->n = 0;
	put(s, "\x17\x08\x44tracing", 10);
	put(s, "0.6", 4);
	put_u(s, 0, 1);
	put_u(s, 8, 1);
	put_u(s, 4096, 4);
	put(s, "header_page", 12);
	put_blob(s, "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n");
	put(s, "header_event", 13);
	put_blob(s, "# compressed entry header\n");
	s->counts[0] = s->n;
	put_u(s, 0, 4);           /* ftrace formats */
	s->counts[1] = s->n;
	put_u(s, 2, 4);           /* systems */
	put(s, "irq", 4);
	put_u(s, 1, 4);
	put_blob(s, "name: irq_handler_entry\nID: 1\nformat:\n");
	put(s, system, strlen(system) + 1);
	put_u(s, 1, 4);
	s->counts[2] = s->n;
	put_blob(s, format);
}

static void payload(uint8_t *raw, int32_t prev, uint64_t state, int32_t next)
{
	memset(raw, 0, 64);
	memcpy(raw + 24, &prev, 4);
	memcpy(raw + 32, &state, 8);
	memcpy(raw + 56, &next, 4);
}

static void test_decode(void **state)
{
	struct t2f_pd_trace *t = NULL;
	struct t2f_pd_switch sw;
	struct t2f_diag *d;
	struct sec s;
	uint8_t raw[64];

	(void)state;
	assert_int_equal(t2f_diag__new(NULL, &d), 0);
	section(&s, "sched", FORMAT);
	assert_int_equal(t2f_pd_trace__new(s.b, s.n, d, "x.data", &t), 0);
	assert_non_null(t);
	assert_int_equal(t2f_pd_trace__switch_id(t), 372);
	payload(raw, 4242, 0x100, 17);
	assert_true(t2f_pd_trace__switch(t, raw, sizeof(raw), &sw));
	assert_int_equal(sw.prev_pid, 4242);
	assert_int_equal(sw.prev_state, 0x100);
	assert_int_equal(sw.next_pid, 17);
	/* a payload that ends before next_pid's last byte */
	assert_false(t2f_pd_trace__switch(t, raw, 59, &sw));
	assert_true(t2f_pd_trace__switch(t, raw, 60, &sw));
	assert_false(t2f_pd_trace__switch(t, raw, 0, &sw));
	assert_int_equal(t2f_diag__warnings(d), 0);
	t2f_pd_trace__free(t);
	t2f_diag__free(d);
}

static void test_absent(void **state)
{
	struct t2f_pd_trace *t = NULL;
	struct t2f_diag *d;
	struct sec s;

	(void)state;
	assert_int_equal(t2f_diag__new(NULL, &d), 0);
	/* the format under another system: no sched_switch, nothing to say */
	section(&s, "other", FORMAT);
	assert_int_equal(t2f_pd_trace__new(s.b, s.n, d, "x.data", &t), 0);
	assert_null(t);
	assert_int_equal(t2f_diag__warnings(d), 0);
	/* a sched_switch format without next_pid: warned, no decoder */
	section(&s, "sched", "name: sched_switch\nID: 372\nformat:\n"
		"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
		"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n\n"
		"print fmt: \"x\"\n");
	assert_int_equal(t2f_pd_trace__new(s.b, s.n, d, "x.data", &t), 0);
	assert_null(t);
	assert_int_equal(t2f_diag__warnings(d), 1);
	t2f_diag__free(d);
}

/* Each prefix of the section, in a buffer of exactly its size: no decoder, a warning, no read
 * past the end. */
static void test_cut(void **state)
{
	struct t2f_diag *d;
	struct sec s;

	(void)state;
	assert_int_equal(t2f_diag__new(NULL, &d), 0);
	section(&s, "sched", FORMAT);
	for (size_t n = 0; n < s.n; n++) {
		struct t2f_pd_trace *t = (void *)1;
		uint8_t *copy = malloc(n ? n : 1);

		memcpy(copy, s.b, n);
		assert_int_equal(t2f_pd_trace__new(copy, n, d, "x.data", &t), 0);
		assert_null(t);
		free(copy);
	}
	assert_int_equal(t2f_diag__warnings(d), s.n);
	t2f_diag__free(d);
}

/* Counts and sizes larger than the section: nothing read past its end. */
static void test_sizes(void **state)
{
	struct t2f_diag *d;

	(void)state;
	assert_int_equal(t2f_diag__new(NULL, &d), 0);
	for (size_t k = 0; k < 3; k++) { /* which is made huge */
		struct t2f_pd_trace *t = NULL;
		struct sec s;

		section(&s, "sched", FORMAT);
		memset(s.b + s.counts[k], 0xff, k == 2 ? 8 : 4);
		assert_int_equal(t2f_pd_trace__new(s.b, s.n, d, "x.data", &t), 0);
		/* 2^32 - 1 systems: read until sched_switch is found, which it is */
		if (k == 1)
			assert_non_null(t);
		else
			assert_null(t);
		t2f_pd_trace__free(t);
	}
	/* ... and without it: the section ends inside the third system */
	{
		struct t2f_pd_trace *t = NULL;
		struct sec s;

		section(&s, "other", FORMAT);
		memset(s.b + s.counts[1], 0xff, 4);
		assert_int_equal(t2f_pd_trace__new(s.b, s.n, d, "x.data", &t), 0);
		assert_null(t);
	}
	assert_int_equal(t2f_diag__warnings(d), 3);
	t2f_diag__free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode),
		cmocka_unit_test(test_absent),
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_sizes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
