/* tests/unit/test_perf_script_parse.c: the pure line parsers of the perf script reader
 * (readers/perf_script_parse.h) on every header, frame and side-record variant of
 * docs/perf-script.md. */
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
#include "readers/perf_script_parse.h"

/* ---- helpers ---- */

static void assert_span(struct ps_span s, const char *want)
{
	if (s.len != strlen(want) || memcmp(s.p, want, s.len) != 0)
		fail_msg("span \"%.*s\" (len %zu), expected \"%s\"", (int)s.len, s.p ? s.p : "",
			 s.len, want);
}

static bool header(const char *line, struct ps_header *h)
{
	return ps_parse_header(line, strlen(line), h);
}

static bool frame_line(const char *line, struct ps_frame *f)
{
	return ps_parse_frame(line, strlen(line), f);
}

static void test_header_default(void **state)
{
	struct ps_header h;

	(void)state;
	assert_true(header("workload 14667   492.528779:    1001001 cpu-clock:pppH: ", &h));
	assert_span(h.comm, "workload");
	assert_int_equal(h.pid, -1);
	assert_int_equal(h.tid, 14667);
	assert_int_equal(h.time_ns, 492528779000ull);
	assert_true(h.has_period);
	assert_int_equal(h.period, 1001001);
	assert_span(h.event, "cpu-clock");
	assert_false(h.tracepoint);
	assert_int_equal(h.record, PS_SAMPLE);
	assert_int_equal(h.rest.len, 0);
}

static void test_header_pid_tid_no_period(void **state)
{
	struct ps_header h;

	(void)state;
	assert_true(header("workload 14667/14668   492.528779: cpu-clock:pppH: ", &h));
	assert_span(h.comm, "workload");
	assert_int_equal(h.pid, 14667);
	assert_int_equal(h.tid, 14668);
	assert_int_equal(h.time_ns, 492528779000ull);
	assert_false(h.has_period);
	assert_span(h.event, "cpu-clock");
	assert_int_equal(h.rest.len, 0);
}

/* perf prints comm ":-1" and tid -1 for a sample of a thread it does not know (seen on an
 * exiting thread in a system-wide recording); -2 or "-" alone are not ids. */
static void test_header_unknown_thread(void **state)
{
	struct ps_header h;

	(void)state;
	assert_true(header(":-1    -1 [001] 17813.513517:     200040 cpu-clock: ", &h));
	assert_span(h.comm, ":-1");
	assert_int_equal(h.pid, -1);
	assert_int_equal(h.tid, -1);
	assert_int_equal(h.time_ns, 17813513517000ull);
	assert_span(h.event, "cpu-clock");
	assert_true(header(":-1 -1/-1 5.5: cpu-clock: ", &h));
	assert_int_equal(h.pid, -1);
	assert_int_equal(h.tid, -1);
	assert_false(header("a -2 5.5: cpu-clock: ", &h));
	assert_false(header("a - 5.5: cpu-clock: ", &h));
}

static void test_header_comm_with_digit_words(void **state)
{
	struct ps_header h;

	(void)state;
	assert_true(header("V8 Worker 12 22829  2011.304692:    1001001 cpu-clock:pppH: ", &h));
	assert_span(h.comm, "V8 Worker 12");
	assert_int_equal(h.pid, -1);
	assert_int_equal(h.tid, 22829);
	assert_int_equal(h.time_ns, 2011304692000ull);
	assert_int_equal(h.period, 1001001);
	assert_span(h.event, "cpu-clock");

	assert_true(header("1234 5678 22827/22830  2011.305664:    1001001 cpu-clock:pppH: ", &h));
	assert_span(h.comm, "1234 5678");
	assert_int_equal(h.pid, 22827);
	assert_int_equal(h.tid, 22830);
	assert_int_equal(h.time_ns, 2011305664000ull);
	assert_int_equal(h.period, 1001001);
	assert_span(h.event, "cpu-clock");
}

static void test_header_cpu_tracepoint(void **state)
{
	struct ps_header h;

	(void)state;
	assert_true(header("workload 15616 [001]   529.378047: sched:sched_switch: prev_comm=workload "
			   "prev_pid=15616 ==> next_comm=x next_pid=0", &h));
	assert_span(h.comm, "workload");
	assert_int_equal(h.pid, -1);
	assert_int_equal(h.tid, 15616);
	assert_int_equal(h.time_ns, 529378047000ull);
	assert_false(h.has_period);
	assert_span(h.event, "sched:sched_switch");
	assert_true(h.tracepoint);
	assert_int_equal(h.record, PS_SAMPLE);
	assert_span(h.rest, "prev_comm=workload prev_pid=15616 ==> next_comm=x next_pid=0");
}

static void test_header_padded_period(void **state)
{
	struct ps_header h;

	(void)state;
	assert_true(header("workload 15616   529.376471:          1        page-faults: ", &h));
	assert_span(h.comm, "workload");
	assert_int_equal(h.tid, 15616);
	assert_int_equal(h.time_ns, 529376471000ull);
	assert_true(h.has_period);
	assert_int_equal(h.period, 1);
	assert_span(h.event, "page-faults");
	assert_false(h.tracepoint);
	assert_int_equal(h.rest.len, 0);
}

static void test_header_one_line_sample(void **state)
{
	struct ps_header h;

	(void)state;
	assert_true(header("        workload 22677  1993.326821:    2004008 cpu-clock:pppH:      "
			   "560cbf4a7b9e std::foo<int>::_M_gen_rand+0x9e (/srv/prog/workload)", &h));
	assert_span(h.comm, "workload");
	assert_int_equal(h.tid, 22677);
	assert_int_equal(h.time_ns, 1993326821000ull);
	assert_int_equal(h.period, 2004008);
	assert_span(h.event, "cpu-clock");
	assert_false(h.tracepoint);
	assert_span(h.rest, "560cbf4a7b9e std::foo<int>::_M_gen_rand+0x9e (/srv/prog/workload)");
}

static void test_header_no_event(void **state)
{
	struct ps_header h;

	(void)state;
	assert_true(header("comm 12 1.5: ", &h));
	assert_span(h.comm, "comm");
	assert_int_equal(h.pid, -1);
	assert_int_equal(h.tid, 12);
	assert_int_equal(h.time_ns, 1500000000ull);
	assert_false(h.has_period);
	assert_int_equal(h.event.len, 0);
	assert_false(h.tracepoint);
	assert_int_equal(h.rest.len, 0);
}

/* "a 1 <time>: 1 cpu-clock: " with a time of `sec` random digits, '.', `frac` random digits; its
 * time in ns worked out with 128-bit arithmetic. */
static uint64_t time_line(char *line, int sec, int frac, unsigned *seed)
{
	char *t = line + 4;
	unsigned __int128 ns = 0, fns = 0;

	memcpy(line, "a 1 ", 4);
	for (int i = 0; i < sec + 1 + frac; i++) {
		*seed = *seed * 1103515245u + 12345u;
		t[i] = i == sec ? '.' : (char)('0' + *seed / 65536 % 10);
	}
	memcpy(t + sec + 1 + frac, ": 1 cpu-clock: ", 16);
	for (int i = 0; i < sec; i++)
		ns = ns * 10 + (unsigned)(t[i] - '0');
	for (int i = 0; i < 9; i++)
		fns = fns * 10 + (i < frac ? (unsigned)(t[sec + 1 + i] - '0') : 0);
	ns = ns * 1000000000u + fns;
	return ns > UINT64_MAX - 1 ? T2F_TIME_PAST : (uint64_t)ns;
}

/* Every width of seconds (1..19 digits) and fraction (1..12), random digits, read by a full
 * parse and through the memo (its ways' own time path). */
static void test_header_time_every_width(void **state)
{
	unsigned seed = 7;

	(void)state;
	for (int sec = 1; sec <= 19; sec++)
		for (int frac = 1; frac <= 12; frac++)
			for (int round = 0; round < 20; round++) {
				struct ps_header_memo m = { 0 };
				struct ps_header h;
				char line[96];
				uint64_t want = time_line(line, sec, frac, &seed);

				assert_true(ps_parse_header(line, strlen(line), &h));
				assert_true(h.time_ns == want);
				ps_header_memo__keep(&m, line, strlen(line), &h);
				want = time_line(line, sec, frac, &seed);
				assert_non_null(ps_header_memo__parse(&m, line, strlen(line), true, &h));
				assert_true(h.time_ns == want);
			}
}

static void test_header_time_digits_and_modifiers(void **state)
{
	struct ps_header h;

	(void)state;
	/* more than 9 fraction digits: nanoseconds kept, the rest ignored */
	assert_true(header("a 1 3.1234567891: 5 cycles:u: ", &h));
	assert_int_equal(h.time_ns, 3123456789ull);
	assert_span(h.event, "cycles");
	assert_int_equal(h.period, 5);
	/* no modifiers */
	assert_true(header("a 1 0.000001: instructions: ", &h));
	assert_int_equal(h.time_ns, 1000);
	assert_span(h.event, "instructions");
	assert_false(h.tracepoint);
	/* a tracepoint with modifiers */
	assert_true(header("a 1 2.0: raw_syscalls:sys_enter:k: NR 1", &h));
	assert_span(h.event, "raw_syscalls:sys_enter");
	assert_true(h.tracepoint);
	assert_span(h.rest, "NR 1");
	/* an empty comm */
	assert_true(header(" 77 1.0: 3 cpu-clock: ", &h));
	assert_int_equal(h.comm.len, 0);
	assert_int_equal(h.tid, 77);
}

static void test_header_mmap2(void **state)
{
	struct ps_header h;
	struct ps_mmap m;

	(void)state;
	assert_true(header("workload 14667   492.526233: PERF_RECORD_MMAP2 14667/14667: "
			   "[0x55a56159e000(0x5000) @ 0x2000 fe:00 10961385 1277029166]: r-xp "
			   "/srv/prog/workload", &h));
	assert_span(h.comm, "workload");
	assert_int_equal(h.tid, 14667);
	assert_int_equal(h.record, PS_MMAP);
	assert_span(h.rest, "14667/14667: [0x55a56159e000(0x5000) @ 0x2000 fe:00 10961385 "
			    "1277029166]: r-xp /srv/prog/workload");
	assert_true(ps_parse_mmap(h.rest.p, h.rest.len, &m));
	assert_int_equal(m.pid, 14667);
	assert_int_equal(m.start, 0x55a56159e000ull);
	assert_int_equal(m.len, 0x5000);
	assert_int_equal(m.pgoff, 0x2000);
	assert_int_equal(m.build_id.len, 0);
	assert_span(m.prot, "r-xp");
	assert_span(m.path, "/srv/prog/workload");
}

static void test_mmap2_build_id(void **state)
{
	static const char rest[] = "22829/22830: [0x7f1e22000000(0x1c5000) @ 0x26000 "
				   "4a0e3c54d8a1f2b3c4d5e6f708192a3b4c5d6e7f]: r-xp "
				   "/usr/lib/x86_64-linux-gnu/libc.so.6";
	struct ps_mmap m;

	(void)state;
	assert_true(ps_parse_mmap(rest, strlen(rest), &m));
	assert_int_equal(m.pid, 22829);
	assert_int_equal(m.tid, 22830);
	assert_int_equal(m.start, 0x7f1e22000000ull);
	assert_int_equal(m.len, 0x1c5000);
	assert_int_equal(m.pgoff, 0x26000);
	assert_span(m.build_id, "4a0e3c54d8a1f2b3c4d5e6f708192a3b4c5d6e7f");
	assert_span(m.prot, "r-xp");
	assert_span(m.path, "/usr/lib/x86_64-linux-gnu/libc.so.6");
}

/* perf 6.1 prints the build-id in angle brackets (perf record --buildid-mmap). */
static void test_mmap2_build_id_brackets(void **state)
{
	static const char rest[] = "32456/32456: [0x5579b911c000(0x1000) @ 0x1000 "
				   "<4ff1b12c1f4a68d964dde3e107bfbafe605df721>]: r-xp /tmp/oneline/burner";
	static const char vdso[] = "32456/32456: [0x7f68c8719000(0x2000) @ 0 00:00 0 0]: r-xp [vdso]";
	static const char open_only[] = "1/1: [0x1000(0x1000) @ 0 <4ff1b12c1f4a68d964dde3e1]: r-xp /p";
	struct ps_mmap m;

	(void)state;
	assert_true(ps_parse_mmap(rest, strlen(rest), &m));
	assert_span(m.build_id, "4ff1b12c1f4a68d964dde3e107bfbafe605df721");
	assert_int_equal(m.pgoff, 0x1000);
	assert_span(m.prot, "r-xp");
	assert_span(m.path, "/tmp/oneline/burner");
	assert_true(ps_parse_mmap(vdso, strlen(vdso), &m));
	assert_int_equal(m.build_id.len, 0);
	assert_span(m.path, "[vdso]");
	assert_true(ps_parse_mmap(open_only, strlen(open_only), &m));
	assert_int_equal(m.build_id.len, 0);
}

static void test_header_mmap_kernel(void **state)
{
	struct ps_header h;
	struct ps_mmap m;

	(void)state;
	assert_true(header("swapper     0     0.000000: PERF_RECORD_MMAP -1/0: "
			   "[0xffffffff81000000(0x120bb08) @ 0xffffffff81000000]: x "
			   "[kernel.kallsyms]_text", &h));
	assert_span(h.comm, "swapper");
	assert_int_equal(h.tid, 0);
	assert_int_equal(h.time_ns, 0);
	assert_int_equal(h.record, PS_MMAP);
	assert_true(ps_parse_mmap(h.rest.p, h.rest.len, &m));
	assert_int_equal(m.pid, -1);
	assert_int_equal(m.tid, 0);
	assert_int_equal(m.start, 0xffffffff81000000ull);
	assert_int_equal(m.len, 0x120bb08);
	assert_int_equal(m.pgoff, 0xffffffff81000000ull);
	assert_int_equal(m.build_id.len, 0);
	assert_span(m.prot, "x");
	assert_span(m.path, "[kernel.kallsyms]_text");
}

static void test_mmap_malformed(void **state)
{
	static const char *const bad[] = {
		"",
		"x/1: [0x1(0x2) @ 0x3 fe:00 1 0]: r-xp /p",
		"1/1: 0x1(0x2) @ 0x3 fe:00 1 0]: r-xp /p",
		"1/1: [0x1 (0x2) @ 0x3 fe:00 1 0]: r-xp /p",
		"1/1: [0x1(0x2) @ 0x3 fe:00 1 0: r-xp /p",
		"1/1: [0x1(0x2) @ 0x3 fe:00 1 0]: r-xp",
		"1/1: [0x1(0x2) 0x3 fe:00 1 0]: r-xp /p",
	};
	struct ps_mmap m;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (ps_parse_mmap(bad[i], strlen(bad[i]), &m))
			fail_msg("parsed as mmap: \"%s\"", bad[i]);
}

static void test_header_other_records(void **state)
{
	struct ps_header h;

	(void)state;
	assert_true(header("workload 14667   492.5: PERF_RECORD_COMM exec: workload:14667/14667", &h));
	assert_int_equal(h.record, PS_OTHER_RECORD);
	assert_span(h.rest, "exec: workload:14667/14667");
	assert_true(header("perf 1 1.0: PERF_RECORD_EXIT(14667:14667):(14666:14666)", &h));
	assert_int_equal(h.record, PS_OTHER_RECORD);
	/* "PERF_RECORD_MMAP2X" is not an mmap record */
	assert_true(header("perf 1 1.0: PERF_RECORD_MMAP2X 1/1: [0x1(0x2) @ 0x3 1:2 3 4]: r /p", &h));
	assert_int_equal(h.record, PS_OTHER_RECORD);
}

static void test_fork_record(void **state)
{
	struct ps_header h;
	int64_t pid = 0, tid = 0;

	(void)state;
	assert_true(header("burner  6279   372.139833: PERF_RECORD_FORK(6279:6281):(6279:6279)", &h));
	assert_int_equal(h.record, PS_FORK);
	assert_span(h.rest, "(6279:6281):(6279:6279)");
	assert_true(ps_parse_fork(h.rest.p, h.rest.len, &pid, &tid));
	assert_int_equal(pid, 6279);
	assert_int_equal(tid, 6281);
	assert_false(ps_parse_fork("(6279:)", 7, &pid, &tid));
	assert_false(ps_parse_fork("(x:1)", 5, &pid, &tid));
	assert_false(ps_parse_fork("", 0, &pid, &tid));
}

static void test_not_headers(void **state)
{
	static const char *const lines[] = {
		"hello world",
		"  dl-minimal-malloc.c:82",
		"  [kernel.kallsyms][ffffffff81357676]",
		"\tffffffff81357676 copy_process+0xe06 ([kernel.kallsyms])",
		"\t    7f5fd7c848a8 [unknown] ([unknown])",
		"\t 1234 app::run",
		"comm 12 1.5 no colon",
		"comm 12 .5:",
		"comm 12 5.:",
		"comm 12 [1x] 1.5:",
		"comm 12x 1.5:",
		"comm 12/ 1.5:",
		"comm12 1.5:",
		"",
		"   ",
	};
	struct ps_header h;

	(void)state;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		if (header(lines[i], &h))
			fail_msg("parsed as a header: \"%s\"", lines[i]);
}

/* ---- frame parser ---- */

static void test_frame_sym_off_dso(void **state)
{
	struct ps_frame f;

	(void)state;
	assert_true(frame_line("\tffffffff81357676 copy_process+0xe06 ([kernel.kallsyms])", &f));
	assert_int_equal(f.addr, 0xffffffff81357676ull);
	assert_span(f.sym, "copy_process");
	assert_span(f.dso, "[kernel.kallsyms]");
	assert_false(f.inlined);

	assert_true(frame_line("\t          1098d9 clone3+0x19 (/usr/lib/x86_64-linux-gnu/libc.so.6)", &f));
	assert_int_equal(f.addr, 0x1098d9);
	assert_span(f.sym, "clone3");
	assert_span(f.dso, "/usr/lib/x86_64-linux-gnu/libc.so.6");

	/* no offset printed */
	assert_true(frame_line("\tffffffff821ceb4a mt_find ([kernel.kallsyms])", &f));
	assert_span(f.sym, "mt_find");
}

static void test_frame_unknown(void **state)
{
	struct ps_frame f;

	(void)state;
	assert_true(frame_line("\t    55a56b65cf00 [unknown] ([unknown])", &f));
	assert_int_equal(f.addr, 0x55a56b65cf00ull);
	assert_span(f.sym, "[unknown]");
	assert_span(f.dso, "[unknown]");
	assert_false(f.inlined);
}

static void test_frame_addr_dso_only(void **state)
{
	struct ps_frame f;

	(void)state;
	assert_true(frame_line("\t            a800 (/usr/lib/ld.so)", &f));
	assert_int_equal(f.addr, 0xa800);
	assert_int_equal(f.sym.len, 0);
	assert_span(f.dso, "/usr/lib/ld.so");
	/* an address alone */
	assert_true(frame_line("\t 3174", &f));
	assert_int_equal(f.addr, 0x3174);
	assert_int_equal(f.sym.len, 0);
	assert_int_equal(f.dso.len, 0);
}

static void test_frame_inlined(void **state)
{
	struct ps_frame f;

	(void)state;
	assert_true(frame_line("\t           27304 __libc_start_main_impl+0x84 (inlined)", &f));
	assert_int_equal(f.addr, 0x27304);
	assert_span(f.sym, "__libc_start_main_impl");
	assert_true(f.inlined);
	assert_int_equal(f.dso.len, 0);
}

static void test_frame_nested_dso(void **state)
{
	struct ps_frame f;

	(void)state;
	assert_true(frame_line("\t    7f1e2215d058 sym (/memfd:sealed-9117 (deleted))", &f));
	assert_int_equal(f.addr, 0x7f1e2215d058ull);
	assert_span(f.sym, "sym");
	assert_span(f.dso, "/memfd:sealed-9117 (deleted)");
	/* a dso with blanks, and no symbol */
	assert_true(frame_line("\t 10 (/opt/My App/lib (x).so)", &f));
	assert_int_equal(f.sym.len, 0);
	assert_span(f.dso, "/opt/My App/lib (x).so");
}

static void test_frame_no_dso(void **state)
{
	struct ps_frame f;

	(void)state;
	assert_true(frame_line("\t 1234 app::run", &f));
	assert_int_equal(f.addr, 0x1234);
	assert_span(f.sym, "app::run");
	assert_int_equal(f.dso.len, 0);
	assert_false(f.inlined);
	/* a symbol ending in a parenthesised group that does not follow a blank */
	assert_true(frame_line("\t 10 foo(int)", &f));
	assert_span(f.sym, "foo(int)");
	assert_int_equal(f.dso.len, 0);
	/* unbalanced: no dso */
	assert_true(frame_line("\t 10 sym)", &f));
	assert_span(f.sym, "sym)");
	assert_int_equal(f.dso.len, 0);
	assert_true(frame_line("\t 10 sym (unclosed", &f));
	assert_span(f.sym, "sym (unclosed");
	assert_int_equal(f.dso.len, 0);
}

static void test_frame_symbol_with_parens(void **state)
{
	struct ps_frame f;

	(void)state;
	assert_true(frame_line("\t 10 foo(int) (/bin/x)", &f));
	assert_int_equal(f.addr, 0x10);
	assert_span(f.sym, "foo(int)");
	assert_span(f.dso, "/bin/x");
	assert_true(frame_line("\t 560cbf4a50dc app::sort_worker(int)::{lambda(int, int)#2}::operator()"
			       "(int, int) const+0x1c (/srv/prog/workload)", &f));
	assert_span(f.sym, "app::sort_worker(int)::{lambda(int, int)#2}::operator()(int, int) const");
	assert_span(f.dso, "/srv/prog/workload");
}

static void test_frame_offsets(void **state)
{
	struct ps_frame f;

	(void)state;
	assert_true(frame_line("\t 10 sym+0xzz (/bin/x)", &f));
	assert_span(f.sym, "sym+0xzz");
	assert_true(frame_line("\t 10 sym+0x (/bin/x)", &f));
	assert_span(f.sym, "sym+0x");
	assert_true(frame_line("\t 10 sym+0x1f", &f));
	assert_span(f.sym, "sym");
	assert_true(frame_line("\t 10 a+0x1+0x2 (x)", &f));
	assert_span(f.sym, "a+0x1");
	assert_true(frame_line("\t 10 operator+ (x)", &f));
	assert_span(f.sym, "operator+");
	assert_true(frame_line("\t 10 __minimal_calloc+0x0 (/usr/lib/ld.so)", &f));
	assert_span(f.sym, "__minimal_calloc");
	/* trailing blanks */
	assert_true(frame_line("\t 10 sym+0x4 (/bin/x)  \t", &f));
	assert_span(f.sym, "sym");
	assert_span(f.dso, "/bin/x");
	/* a 0x-prefixed address */
	assert_true(frame_line("0x10 f", &f));
	assert_int_equal(f.addr, 0x10);
	assert_span(f.sym, "f");
}

static void test_not_frames(void **state)
{
	static const char *const lines[] = {
		"",
		"\t",
		"\tzzzz foo (/x)",
		"\t1234abcg foo (/x)",
		"\t12345678901234567 foo (/x)", /* 17 hex digits: more than 64 bits */
		"  dl-minimal-malloc.c:82",
		"hello world",
	};
	struct ps_frame f;

	(void)state;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		if (frame_line(lines[i], &f))
			fail_msg("parsed as a frame: \"%s\"", lines[i]);
}

/* ---- the reader, end to end ---- */


static void test_header_number_is_address_not_period(void **state)
{
	struct ps_header h;

	(void)state;
	/* -F comm,tid,time,ip,sym,dso without -g: the digits-only word is a non-PIE address. */
	assert_true(header("prog 1234 100.000001: 401136 main (/usr/bin/prog)", &h));
	assert_false(h.has_period);
	assert_int_equal(h.event.len, 0);
	assert_span(h.rest, "401136 main (/usr/bin/prog)");
	/* A period followed by an address and more text stays a period. */
	assert_true(header("prog 1234 100.000001: 1001001 401136 main (/usr/bin/prog)", &h));
	assert_true(h.has_period);
	assert_int_equal(h.period, 1001001);
	assert_span(h.rest, "401136 main (/usr/bin/prog)");
	/* A period alone at the end of the line. */
	assert_true(header("prog 1234 100.000001: 250000", &h));
	assert_true(h.has_period);
	assert_int_equal(h.period, 250000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header_default),
		cmocka_unit_test(test_header_pid_tid_no_period),
		cmocka_unit_test(test_header_unknown_thread),
		cmocka_unit_test(test_header_comm_with_digit_words),
		cmocka_unit_test(test_header_cpu_tracepoint),
		cmocka_unit_test(test_header_padded_period),
		cmocka_unit_test(test_header_one_line_sample),
		cmocka_unit_test(test_header_no_event),
		cmocka_unit_test(test_header_time_digits_and_modifiers),
		cmocka_unit_test(test_header_time_every_width),
		cmocka_unit_test(test_header_mmap2),
		cmocka_unit_test(test_mmap2_build_id),
		cmocka_unit_test(test_mmap2_build_id_brackets),
		cmocka_unit_test(test_header_mmap_kernel),
		cmocka_unit_test(test_mmap_malformed),
		cmocka_unit_test(test_header_other_records),
		cmocka_unit_test(test_fork_record),
		cmocka_unit_test(test_not_headers),
		cmocka_unit_test(test_frame_sym_off_dso),
		cmocka_unit_test(test_frame_unknown),
		cmocka_unit_test(test_frame_addr_dso_only),
		cmocka_unit_test(test_frame_inlined),
		cmocka_unit_test(test_frame_nested_dso),
		cmocka_unit_test(test_frame_no_dso),
		cmocka_unit_test(test_frame_symbol_with_parens),
		cmocka_unit_test(test_frame_offsets),
		cmocka_unit_test(test_not_frames),
		cmocka_unit_test(test_header_number_is_address_not_period),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
