/* tests/unit/test_reader_table.c: pipeline/reader_table — the format told from the first bytes
 * (.nettrace by its magic, folded stacks, perf script text for anything else, empty input too),
 * and a reader made, fed, finished and freed through its descriptor. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "pipeline/reader_table.h"

static const char *name_of(const char *head, size_t len)
{
	return t2f_reader__detect(head, len)->name;
}

static void test_detect(void **state)
{
	static const char nettrace[] = "Nettrace\0\0\0\0\5\0\0\0\0\0\0\0";
	static const char folded[] = "prog;main;work 12\nprog;main 3\n";
	static const char perf[] = "prog 10/11 1.000000: 1000 cpu-clock: \n\t400000 main+0x0 (/bin/p)\n\n";
	const struct t2f_reader_desc *d;

	(void)state;
	assert_string_equal(name_of(nettrace, sizeof(nettrace) - 1), "nettrace");
	assert_string_equal(name_of(folded, strlen(folded)), "folded");
	assert_string_equal(name_of(perf, strlen(perf)), "perf script");
	assert_string_equal(name_of("", 0), "perf script");
	assert_string_equal(name_of("Nettrac", 7), "perf script"); /* cut before the magic ends */
	d = t2f_reader__detect(nettrace, sizeof(nettrace) - 1);
	assert_int_equal(d->traits, T2F_READER_BINARY | T2F_READER_MODULE_NAMES);
	d = t2f_reader__detect(perf, strlen(perf));
	assert_int_equal(d->traits, T2F_READER_LINES | T2F_READER_PARALLEL | T2F_READER_FALLBACK);
}

/* Each text format through its descriptor: the samples and lines it read. */
static void test_read(void **state)
{
	static const char *const inputs[] = {
		"prog;main;work 12\nprog;main 3\n",
		"prog 10/11 1.000000: 1000 cpu-clock: \n\t400000 main+0x0 (/bin/p)\n\n",
	};
	static const uint64_t samples[] = { 2, 1 }, lines[] = { 2, 3 }; /* a folded line: 1 */
	const struct t2f_read_opts o = { 0 };

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		const struct t2f_reader_desc *d = t2f_reader__detect(inputs[i], strlen(inputs[i]));
		struct t2f_profile *p;
		struct t2f_diag *dg;
		void *r = NULL;

		assert_int_equal(t2f_profile__new(&p), 0);
		assert_int_equal(t2f_diag__new(stderr, &dg), 0);
		assert_int_equal(d->open(p, dg, "in", 0, &o, &r), 0);
		assert_int_equal(d->feed(r, inputs[i], strlen(inputs[i])), 0);
		assert_int_equal(d->finish(r), 0);
		assert_int_equal(d->lines(r), lines[i]);
		assert_int_equal(t2f_profile__samples_read(p), samples[i]);
		d->free(r);
		d->free(NULL);
		t2f_diag__free(dg);
		t2f_profile__free(p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_detect),
		cmocka_unit_test(test_read),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
