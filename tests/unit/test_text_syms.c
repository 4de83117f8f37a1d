/* tests/unit/test_text_syms.c: symbolizer/text_syms.c — kallsyms and perf map files: parsing,
 * symbol ends, aliases and overlaps, hostile lines (warned with FILE:LINE, counted), zero
 * addresses, the size limit and loading from a file. Lines are in the form of the real files
 * (fixtures/perf-script/kjit/kallsyms and perf-15105.map). */
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

#include "support/diag_sink.h"
#include "symbolizer/text_syms.h"

#define KALL T2F_TEXT_SYMS_KALLSYMS
#define PMAP T2F_TEXT_SYMS_PERF_MAP

static struct t2f_text_syms *parse_ok(struct sink *s, enum t2f_text_syms_format fmt,
				      const char *text)
{
	struct t2f_text_syms *t = NULL;

	assert_int_equal(t2f_text_syms__parse(fmt, "in", text, strlen(text), s->d, &t), 0);
	assert_non_null(t);
	return t;
}

/* Looks addr up and checks name (NULL: a miss) and offset. */
static void expect_sym(const struct t2f_text_syms *t, uint64_t addr, const char *name, uint64_t off)
{
	struct t2f_text_sym sym;
	bool hit = t2f_text_syms__lookup(t, addr, &sym);

	if (!name) {
		assert_false(hit);
		return;
	}
	assert_true(hit);
	assert_string_equal(sym.name, name);
	assert_int_equal(sym.offset, off);
	assert_int_equal(sym.start, addr - off);
}

static void test_kallsyms_next_start_ends(void **state)
{
	struct sink s;
	struct t2f_text_syms *t;

	(void)state;
	sink_init(&s);
	t = parse_ok(&s, KALL,
		     "ffffffff8225f2c0 T pvm_irq_enable\n"
		     "ffffffff8225f1f0 T __raw_callee_save_pvm_irq_enable\n" /* out of order */
		     "ffffffff8225f300 t pvm_next\n"
		     "ffffffff82260000 D some_data\n"                       /* not text: ignored */
		     "ffffffff82261000 W weak_fn\n");
	assert_int_equal(t2f_text_syms__count(t), 4);
	expect_sym(t, 0xffffffff8225f2d9, "pvm_irq_enable", 0x19);
	expect_sym(t, 0xffffffff8225f201, "__raw_callee_save_pvm_irq_enable", 0x11);
	expect_sym(t, 0xffffffff8225f2c0, "pvm_irq_enable", 0);
	expect_sym(t, 0xffffffff8225f2ff, "pvm_irq_enable", 0x3f);
	/* the data symbol does not end pvm_next: only text symbols count */
	expect_sym(t, 0xffffffff82260010, "pvm_next", 0xd10);
	expect_sym(t, 0xffffffff8225f1ef, NULL, 0);
	/* the last symbol: up to roundup(start + 4096, 4096) */
	expect_sym(t, 0xffffffff82261fff, "weak_fn", 0xfff);
	expect_sym(t, 0xffffffff82262000, NULL, 0);
	assert_string_equal(sink_text(&s), "");
	t2f_text_syms__free(t);
	sink_close(&s);
}

static void test_kallsyms_aliases_last_line_wins(void **state)
{
	struct sink s;
	struct t2f_text_syms *t;
	struct t2f_text_sym sym;

	(void)state;
	sink_init(&s);
	t = parse_ok(&s, KALL,
		     "ffffffff81000000 T srso_alias_untrain_ret\n"
		     "ffffffff81000000 T _stext\n"
		     "ffffffff81000000 T _text\n"
		     "ffffffff81000000 T __pi__text\n"
		     "ffffffff810000ba T entry_SYSCALL_64_after_hwframe\n");
	expect_sym(t, 0xffffffff81000010, "__pi__text", 0x10);
	expect_sym(t, 0xffffffff81000130, "entry_SYSCALL_64_after_hwframe", 0x76);
	assert_true(t2f_text_syms__lookup(t, 0xffffffff81000000, &sym));
	assert_null(sym.module);
	t2f_text_syms__free(t);
	sink_close(&s);
}

static void test_kallsyms_modules(void **state)
{
	struct sink s;
	struct t2f_text_syms *t;
	struct t2f_text_sym sym;

	(void)state;
	sink_init(&s);
	t = parse_ok(&s, KALL,
		     "ffffffff81000000 T _text\n"
		     "ffffffff81000100 T last_kernel_fn\n"
		     "ffffffffc0201000 t ftrace_trampoline\t[__builtin__ftrace]\n"
		     "ffffffffc0300000 t ext4_fn\t[ext4]\r\n"
		     "ffffffffc0300400 T ext4_other\t[ext4]\n");
	/* the last kernel symbol before the modules ends at its bound, not at the module */
	expect_sym(t, 0xffffffff81001fff, "last_kernel_fn", 0x1eff);
	expect_sym(t, 0xffffffff81002000, NULL, 0);
	assert_true(t2f_text_syms__lookup(t, 0xffffffffc0201010, &sym));
	assert_string_equal(sym.name, "ftrace_trampoline");
	assert_string_equal(sym.module, "__builtin__ftrace");
	/* page-aligned start: roundup(start + 4096, 4096) is start + 4096 */
	expect_sym(t, 0xffffffffc0201fff, "ftrace_trampoline", 0xfff);
	expect_sym(t, 0xffffffffc0202000, NULL, 0);
	/* within one module: up to the next start; "\r\n" endings */
	assert_true(t2f_text_syms__lookup(t, 0xffffffffc03003ff, &sym));
	assert_string_equal(sym.name, "ext4_fn");
	assert_string_equal(sym.module, "ext4");
	expect_sym(t, 0xffffffffc0300400, "ext4_other", 0);
	t2f_text_syms__free(t);
	sink_close(&s);
}

static void test_kallsyms_zero_addresses(void **state)
{
	static const char text[] = "0000000000000000 T _stext\n"
				   "0000000000000000 T pvm_irq_enable\n"
				   "0000000000000000 t ext4_fn\t[ext4]\n";
	struct sink s;
	struct t2f_text_syms *t = (void *)1;

	(void)state;
	sink_init(&s);
	assert_int_equal(t2f_text_syms__parse(KALL, "ks", text, strlen(text), s.d, &t),
			 -T2F_ERR_FORMAT);
	assert_null(t);
	assert_non_null(strstr(t2f_diag__last_error(s.d), "ks: every address is 0"));
	assert_non_null(strstr(t2f_diag__last_error(s.d), "kptr_restrict"));
	assert_non_null(strstr(t2f_diag__last_error(s.d), "as root on the recording machine"));
	sink_close(&s);
}

static void test_kallsyms_no_text(void **state)
{
	static const char text[] = "ffffffff82260000 D some_data\n";
	struct sink s;
	struct t2f_text_syms *t;

	(void)state;
	sink_init(&s);
	assert_int_equal(t2f_text_syms__parse(KALL, "ks", text, strlen(text), s.d, &t),
			 -T2F_ERR_FORMAT);
	assert_int_equal(t2f_text_syms__parse(KALL, "ks", "", 0, s.d, &t), -T2F_ERR_FORMAT);
	assert_non_null(strstr(t2f_diag__last_error(s.d), "not a kallsyms file"));
	sink_close(&s);
}

static void test_kallsyms_hostile_lines(void **state)
{
	static const char text[] = "ffffffff81000000 T _text\n"
				   "hello world\n"                          /* 2: no address */
				   "ffffffff81000100\n"                     /* 3: no type */
				   "ffffffff81000100 T\n"                   /* 4: no name */
				   "1ffffffff81000100 T too_many_digits\n"  /* 5: 17 digits */
				   "ffffffff81000200 T nul\0byte\n"         /* 6 */
				   "\n"
				   "ffffffff81000300 T fine\n";
	struct sink s;
	struct t2f_text_syms *t = NULL;

	(void)state;
	sink_init(&s);
	assert_int_equal(t2f_text_syms__parse(KALL, "ks", text, sizeof(text) - 1, s.d, &t), 0);
	assert_int_equal(t2f_text_syms__bad_lines(t), 5);
	assert_int_equal(t2f_text_syms__count(t), 2);
	assert_non_null(strstr(sink_text(&s), "ks:2: expected \"ADDRESS TYPE NAME\" (kallsyms)"));
	assert_non_null(strstr(sink_text(&s), "ks:5:"));
	assert_non_null(strstr(sink_text(&s), "ks:6: expected \"ADDRESS TYPE NAME\" (kallsyms): a NUL"));
	expect_sym(t, 0xffffffff81000250, "_text", 0x250);
	expect_sym(t, 0xffffffff81000300, "fine", 0);
	t2f_text_syms__free(t);
	sink_close(&s);
}

static void test_kallsyms_long_name(void **state)
{
	size_t n = T2F_TEXT_SYMS_MAX_NAME + 1;
	char *text = malloc(n + 64);
	struct sink s;
	struct t2f_text_syms *t;
	int len;

	(void)state;
	assert_non_null(text);
	len = sprintf(text, "ffffffff81000000 T _text\nffffffff81000100 T ");
	memset(text + len, 'a', n);
	strcpy(text + len + n, "\n");
	sink_init(&s);
	t = parse_ok(&s, KALL, text);
	assert_int_equal(t2f_text_syms__bad_lines(t), 1);
	assert_non_null(strstr(sink_text(&s), "in:2: "));
	assert_non_null(strstr(sink_text(&s), "name too long"));
	t2f_text_syms__free(t);
	sink_close(&s);
	free(text);
}

static void test_strict_bad_line_is_error(void **state)
{
	static const char text[] = "7f27705ae000 e jit_leaf\nnonsense\n";
	struct sink s;
	struct t2f_text_syms *t = (void *)1;

	(void)state;
	sink_init(&s);
	t2f_diag__set_strict(s.d, true);
	assert_int_equal(t2f_text_syms__parse(PMAP, "m", text, strlen(text), s.d, &t),
			 -T2F_ERR_FORMAT);
	assert_null(t);
	assert_non_null(strstr(t2f_diag__last_error(s.d), "m:2: "));
	sink_close(&s);
}

static void test_map_lines(void **state)
{
	struct sink s;
	struct t2f_text_syms *t;
	struct t2f_text_sym sym;

	(void)state;
	sink_init(&s);
	t = parse_ok(&s, PMAP,
		     "7f27705ae000 e jit_leaf\n"
		     "7f27705ae100 e JIT name with spaces [tier 2]\n"
		     "7f27705ae300 b jit_outer\n"
		     "7F27705AE400 0 zero_size\n"
		     "7f27705ae500 10  two spaces\n"
		     /* the JVM's, with 0x as perf allows */
		     "0x00007f27705ae600 0x0000000000000150 long Hot.fib(int)\n"
		     "0X7f27705ae800 0X10 upper_0x\n");
	assert_int_equal(t2f_text_syms__count(t), 7);
	expect_sym(t, 0x7f27705ae008, "jit_leaf", 8);
	expect_sym(t, 0x7f27705ae00d, "jit_leaf", 0xd);
	expect_sym(t, 0x7f27705ae00e, NULL, 0);   /* sizes are exact: no gap filling */
	expect_sym(t, 0x7f27705ae108, "JIT name with spaces [tier 2]", 8);
	expect_sym(t, 0x7f27705ae309, "jit_outer", 9);
	expect_sym(t, 0x7f27705ae400, "zero_size", 0);
	expect_sym(t, 0x7f27705ae401, NULL, 0);
	expect_sym(t, 0x7f27705ae50f, " two spaces", 0xf); /* the name is the rest of the line */
	expect_sym(t, 0x7f27705ae74f, "long Hot.fib(int)", 0x14f);
	expect_sym(t, 0x7f27705ae750, NULL, 0);
	expect_sym(t, 0x7f27705ae80f, "upper_0x", 0xf);
	expect_sym(t, 0, NULL, 0);
	assert_true(t2f_text_syms__lookup(t, 0x7f27705ae000, &sym));
	assert_null(sym.module);
	assert_string_equal(sink_text(&s), "");
	t2f_text_syms__free(t);
	sink_close(&s);
}

static void test_map_rejit_later_wins(void **state)
{
	struct sink s;
	struct t2f_text_syms *t;

	(void)state;
	sink_init(&s);
	t = parse_ok(&s, PMAP,
		     "7f27705ae200 e jit_old_stub\n"
		     "7f27705ae300 b jit_outer\n"
		     "7f27705ae200 e jit_new_stub\n");
	expect_sym(t, 0x7f27705ae208, "jit_new_stub", 8);
	t2f_text_syms__free(t);
	t = parse_ok(&s, PMAP,
		     "7f27705ae200 e jit_new_stub\n"
		     "7f27705ae200 e jit_old_stub\n");
	expect_sym(t, 0x7f27705ae208, "jit_old_stub", 8);
	t2f_text_syms__free(t);
	sink_close(&s);
}

static void test_map_partial_overlaps(void **state)
{
	struct sink s;
	struct t2f_text_syms *t;

	(void)state;
	sink_init(&s);
	/* wide first, then a narrower one inside it, then one across its end */
	t = parse_ok(&s, PMAP,
		     "1000 1000 wide\n"
		     "1400 100 inner\n"
		     "1f00 200 across\n"
		     "ffffffffffffff00 1000 at_the_top\n");
	expect_sym(t, 0x1000, "wide", 0);
	expect_sym(t, 0x13ff, "wide", 0x3ff);
	expect_sym(t, 0x1400, "inner", 0);
	expect_sym(t, 0x14ff, "inner", 0xff);
	expect_sym(t, 0x1500, "wide", 0x500);  /* the wider, older entry shows again after it */
	expect_sym(t, 0x1eff, "wide", 0xeff);
	expect_sym(t, 0x1f00, "across", 0);
	expect_sym(t, 0x20ff, "across", 0x1ff);
	expect_sym(t, 0x2100, NULL, 0);
	expect_sym(t, 0xffffffffffffff10, "at_the_top", 0x10); /* the end is clamped, no wrap */
	t2f_text_syms__free(t);
	/* a later wide entry covers every older one inside it */
	t = parse_ok(&s, PMAP, "1400 100 inner\n1000 1000 wide\n");
	expect_sym(t, 0x1400, "wide", 0x400);
	t2f_text_syms__free(t);
	sink_close(&s);
}

static void test_map_hostile_lines(void **state)
{
	static const char text[] = "0x e bare_0x\n"                 /* 1: 0x and no digits */
				   "7f27705ae000\n"                 /* 2 */
				   "7f27705ae000 e\n"               /* 3 */
				   "7f27705ae000 e \n"              /* 4: empty name */
				   "7f27705ae000 zz name\n"         /* 5 */
				   "0x0x7f27705ae000 e twice\n"     /* 6 */
				   "7f27705ae000 0xx name\n"        /* 7 */
				   "7f27705ae100 e ok\n";
	struct sink s;
	struct t2f_text_syms *t = NULL;

	(void)state;
	sink_init(&s);
	assert_int_equal(t2f_text_syms__parse(PMAP, "m", text, strlen(text), s.d, &t), 0);
	assert_int_equal(t2f_text_syms__bad_lines(t), 7);
	assert_int_equal(t2f_text_syms__count(t), 1);
	assert_non_null(strstr(sink_text(&s), "m:1: expected \"START SIZE NAME\" (perf map"));
	assert_non_null(strstr(sink_text(&s), "m:5: "));
	expect_sym(t, 0x7f27705ae100, "ok", 0);
	t2f_text_syms__free(t);
	/* an empty map is fine: nothing is found */
	t = parse_ok(&s, PMAP, "");
	expect_sym(t, 0x1000, NULL, 0);
	t2f_text_syms__free(t);
	sink_close(&s);
}

static void test_load_file(void **state)
{
	char path[] = "/tmp/t2f-text-syms-XXXXXX";
	int fd = mkstemp(path);
	static const char text[] = "7f27705ae000 e jit_leaf\n";
	struct sink s;
	struct t2f_text_syms *t = NULL;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	sink_init(&s);
	assert_int_equal(t2f_text_syms__load(PMAP, path, s.d, &t), 0);
	expect_sym(t, 0x7f27705ae001, "jit_leaf", 1);
	t2f_text_syms__free(t);
	unlink(path);
	assert_int_equal(t2f_text_syms__load(PMAP, path, s.d, &t), -ENOENT);
	assert_null(t);
	assert_non_null(strstr(t2f_diag__last_error(s.d), "cannot open"));
	t2f_text_syms__free(NULL);
	sink_close(&s);
}

/* A file of many MiB read in chunks: lines cross the chunk ends, one line is longer than a chunk
 * (3 MiB: skipped, name too long), the module lines after the kernel's are out of order and the
 * last line has no newline. The table equals the one parsed from memory in one piece. */
static void test_load_chunks(void **state)
{
	char path[] = "/tmp/t2f-text-syms-XXXXXX";
	int fd = mkstemp(path);
	const size_t n = 100000, mods = 3000, longest = (size_t)3 << 20;
	size_t cap = n * 64 + longest + 64, len = 0;
	char *text = malloc(cap);
	struct sink s;
	struct t2f_text_syms *t = NULL, *ref = NULL;

	(void)state;
	assert_true(fd >= 0);
	assert_non_null(text);
	for (size_t i = 0; i < n; i++) {
		len += (size_t)snprintf(text + len, cap - len, "%016llx T fn_%zu\n",
					0xffffffff81000000ull + 0x40 * i, i);
		if (i == n / 2) { /* the longest line */
			len += (size_t)snprintf(text + len, cap - len, "ffffffff80000000 T ");
			memset(text + len, 'x', longest);
			len += longest;
			text[len++] = '\n';
		}
	}
	for (size_t i = 0; i < mods; i++) /* descending: each below the one before */
		len += (size_t)snprintf(text + len, cap - len, "%016llx t mod_%zu\t[m%zu]\n",
					0xffffffffc0000000ull + 0x10 * (mods - i), i, i % 3);
	len--; /* no newline at the end */
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
	sink_init(&s);
	assert_int_equal(t2f_text_syms__load(KALL, path, s.d, &t), 0);
	assert_int_equal(t2f_text_syms__parse(KALL, "in", text, len, s.d, &ref), 0);
	assert_int_equal(t2f_text_syms__count(t), n + mods);
	assert_int_equal(t2f_text_syms__bad_lines(t), 1);
	assert_non_null(strstr(sink_text(&s), ":50002: expected \"ADDRESS TYPE NAME\" (kallsyms): "
					      "name too long"));
	expect_sym(t, 0xffffffff81000000ull + 0x40 * (n / 2 + 1) + 3, "fn_50001", 3);
	expect_sym(t, 0xffffffffc0000000ull + 0x10 * mods + 1, "mod_0", 1);
	for (uint64_t a = 0xffffffff80fff000ull; a < 0xffffffff81000000ull + 0x40 * n + 0x2000;
	     a += 0x37) {
		struct t2f_text_sym x, y;
		bool hx = t2f_text_syms__lookup(t, a, &x), hy = t2f_text_syms__lookup(ref, a, &y);

		assert_int_equal(hx, hy);
		if (hx)
			assert_string_equal(x.name, y.name);
	}
	for (uint64_t a = 0xffffffffbffff000ull; a < 0xffffffffc0000000ull + 0x10 * mods + 0x2000;
	     a += 3) {
		struct t2f_text_sym x, y;
		bool hx = t2f_text_syms__lookup(t, a, &x), hy = t2f_text_syms__lookup(ref, a, &y);

		assert_int_equal(hx, hy);
		if (hx) {
			assert_string_equal(x.name, y.name);
			assert_string_equal(x.module, y.module);
			assert_int_equal(x.offset, y.offset);
		}
	}
	t2f_text_syms__free(t);
	t2f_text_syms__free(ref);
	unlink(path);
	free(text);
	sink_close(&s);
}

static void test_load_proc_kallsyms(void **state)
{
	struct sink s;
	struct t2f_text_syms *t = NULL;
	int err;

	(void)state;
	sink_init(&s);
	/* /proc/kallsyms has st_size 0: read to the end. Readable with real addresses only as
	 * root (or kptr_restrict 0); either way no crash, and a clear error otherwise. */
	err = t2f_text_syms__load(KALL, "/proc/kallsyms", s.d, &t);
	if (err == 0)
		assert_true(t2f_text_syms__count(t) > 1000);
	else
		assert_non_null(t2f_diag__last_error(s.d));
	t2f_text_syms__free(t);
	sink_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kallsyms_next_start_ends),
		cmocka_unit_test(test_kallsyms_aliases_last_line_wins),
		cmocka_unit_test(test_kallsyms_modules),
		cmocka_unit_test(test_kallsyms_zero_addresses),
		cmocka_unit_test(test_kallsyms_no_text),
		cmocka_unit_test(test_kallsyms_hostile_lines),
		cmocka_unit_test(test_kallsyms_long_name),
		cmocka_unit_test(test_strict_bad_line_is_error),
		cmocka_unit_test(test_map_lines),
		cmocka_unit_test(test_map_rejit_later_wins),
		cmocka_unit_test(test_map_partial_overlaps),
		cmocka_unit_test(test_map_hostile_lines),
		cmocka_unit_test(test_load_file),
		cmocka_unit_test(test_load_chunks),
		cmocka_unit_test(test_load_proc_kallsyms),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
