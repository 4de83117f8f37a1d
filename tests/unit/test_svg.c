/* tests/unit/test_svg.c: writers/svg.c on profiles built through formats/profile.h.
 *
 * The frames of the written SVG (the <g id="frames"> group) are compared exactly with the
 * expected text; the whole file then goes through the independent validator
 * (tests/validate/check svg: xmllint, and in Chromium the search and zoom of the embedded
 * script), skipped with a message when it is not installed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "formats/profile.h"
#include "writers/out.h"
#include "writers/svg.h"
#include "tests/unit/support/profile_build.h"

/* Writes p as SVG to a temp file at path (kept for the validator) and returns its text. */
static char *write_svg(const struct t2f_profile *p, const struct t2f_svg_opts *o, char *path)
{
	struct t2f_out *out;
	char *text;
	long size;
	FILE *f;
	int fd;

	strcpy(path, "/tmp/t2f_svg_XXXXXX.svg");
	fd = mkstemps(path, 4);
	assert_true(fd >= 0);
	assert_int_equal(t2f_out__new(fd, &out), 0);
	assert_int_equal(t2f_svg__write(p, o, out), 0);
	assert_int_equal(t2f_out__finish(out), 0);
	t2f_out__free(out);
	close(fd);
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	size = ftell(f);
	rewind(f);
	text = malloc((size_t)size + 1);
	assert_non_null(text);
	assert_int_equal(fread(text, 1, (size_t)size, f), (size_t)size);
	text[size] = 0;
	fclose(f);
	return text;
}

/* Runs tests/validate/check svg on the file with a search for term. Exit 77 (a checker not
 * installed, which it names; under CI=true check fails instead) skips this. */
static void validate(const char *path, const char *term)
{
	const char *src = getenv("T2F_SOURCE_DIR");
	char cmd[4096];
	int rc;

	if (!src)
		fail_msg("T2F_SOURCE_DIR is not set (ctest sets it)");
	assert_true(snprintf(cmd, sizeof(cmd), "'%s/tests/validate/check' svg '%s' '%s'", src, path,
			     term) < (int)sizeof(cmd));
	fflush(stdout);
	rc = system(cmd);
	if (rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 77)
		return;
	if (rc != 0)
		fail_msg("the validator rejected %s", path);
}

#define G(title, rect, text) \
	"<g><title>" title "</title><rect " rect " rx=\"2\" ry=\"2\"/><text " text "</text></g>\n"

/* Titles end with where each box's function is, after the counts: "at FILE:LINE" of its
 * declaration (parse at two lines of its code is one box), the code's file alone without a
 * declaration (lex, whose file needs escaping), the file alone for boxes whose functions share
 * only it (two overloads of over, cut to one name), nothing for boxes whose functions share
 * nothing (two static helpers), that have no position (plain, the thread), or whose position
 * holds " (" (deep: the script reads names and weights up to a title's last " ("). */
static void test_titles(void **state)
{
	static const char expected[] =
		"<g id=\"frames\">\n"
		G("all (256 samples, 100%)",
		  "x=\"10.00\" y=\"100.0\" width=\"1180.00\" height=\"15\" fill=\"rgb(220,183,16)\"",
		  "x=\"13.00\" y=\"111.5\">all")
		G("app (256 samples, 100.00%)",
		  "x=\"10.00\" y=\"84.0\" width=\"1180.00\" height=\"15\" fill=\"rgb(241,182,41)\"",
		  "x=\"13.00\" y=\"95.5\">app")
		G("main (256 samples, 100.00%) at src/main.c:10",
		  "x=\"10.00\" y=\"68.0\" width=\"1180.00\" height=\"15\" fill=\"rgb(244,169,4)\"",
		  "x=\"13.00\" y=\"79.5\">main")
		G("deep (2 samples, 0.78%)",
		  "x=\"10.00\" y=\"52.0\" width=\"9.22\" height=\"15\" fill=\"rgb(228,11,22)\"",
		  "x=\"13.00\" y=\"63.5\">")
		G("helper (48 samples, 18.75%)",
		  "x=\"19.22\" y=\"52.0\" width=\"221.25\" height=\"15\" fill=\"rgb(217,100,40)\"",
		  "x=\"22.22\" y=\"63.5\">helper")
		G("over (192 samples, 75.00%) at src/o.c",
		  "x=\"240.47\" y=\"52.0\" width=\"885.00\" height=\"15\" fill=\"rgb(252,37,31)\"",
		  "x=\"243.47\" y=\"63.5\">over")
		G("parse (14 samples, 5.47%) at src/parse.c:15",
		  "x=\"1125.47\" y=\"52.0\" width=\"64.53\" height=\"15\" fill=\"rgb(226,14,4)\"",
		  "x=\"1128.47\" y=\"63.5\">parse")
		G("lex (4 samples, 1.56%) at gen/lex&lt;1&gt;.h",
		  "x=\"1125.47\" y=\"36.0\" width=\"18.44\" height=\"15\" fill=\"rgb(227,84,35)\"",
		  "x=\"1128.47\" y=\"47.5\">")
		G("plain (8 samples, 3.12%)",
		  "x=\"1143.91\" y=\"36.0\" width=\"36.88\" height=\"15\" fill=\"rgb(231,77,2)\"",
		  "x=\"1146.91\" y=\"47.5\">pl..")
		"</g>\n"
		"</svg>\n";
	struct t2f_profile *p;
	char path[64], *text, *frames;

	(void)state;
	assert_int_equal(t2f_profile__new(&p), 0);
	t2f_frame_id m = src_frame(p, "main", T2F_FRAME_USER, "src/main.c", 12, "src/main.c", 10);
	t2f_frame_id p20 = src_frame(p, "parse", T2F_FRAME_USER, "src/parse.c", 20, "src/parse.c",
				     15);
	t2f_frame_id p21 = src_frame(p, "parse", T2F_FRAME_USER, "src/parse.c", 21, "src/parse.c",
				     15);
	t2f_frame_id lex = src_frame(p, "lex", T2F_FRAME_INLINED, "gen/lex<1>.h", 7, NULL, 0);
	t2f_frame_id plain = src_frame(p, "plain", T2F_FRAME_USER, NULL, 0, NULL, 0);
	t2f_frame_id o1 = src_frame(p, "over(int)", T2F_FRAME_USER, "src/o.c", 4, "src/o.c", 3);
	t2f_frame_id o2 = src_frame(p, "over(double)", T2F_FRAME_USER, "src/o.c", 9, "src/o.c", 8);
	t2f_frame_id ha = src_frame(p, "helper", T2F_FRAME_USER, "src/a.c", 6, "src/a.c", 5);
	t2f_frame_id hb = src_frame(p, "helper", T2F_FRAME_USER, "src/b.c", 6, "src/b.c", 5);
	t2f_frame_id deep = src_frame(p, "deep", T2F_FRAME_USER, "/p (old)/d.c", 3, "/p (old)/d.c",
				      2);
	t2f_thread_id t = thread(p, 1, 1, "app", 0);
	t2f_event_id ev;

	assert_int_equal(t2f_profile__event(p, str(p, "cycles"), T2F_UNIT_COUNT, &ev), 0);
	assert_int_equal(t2f_profile__add_sample(p, child(p, child(p, 0, m), p20), t, ev, 1, 0), 0);
	assert_int_equal(t2f_profile__add_sample(p, child(p, child(p, 0, m), p21), t, ev, 1, 0), 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(t2f_profile__add_sample(p, child(p, child(p, child(p, 0, m), p21),
								 lex), t, ev, 1, 0), 0);
	for (int i = 0; i < 8; i++)
		assert_int_equal(t2f_profile__add_sample(p, child(p, child(p, child(p, 0, m), p20),
								 plain), t, ev, 1, 0), 0);
	for (int i = 0; i < 64; i++)
		assert_int_equal(t2f_profile__add_sample(p, child(p, child(p, 0, m), o1), t, ev, 1, 0),
				 0);
	for (int i = 0; i < 128; i++)
		assert_int_equal(t2f_profile__add_sample(p, child(p, child(p, 0, m), o2), t, ev, 1, 0),
				 0);
	for (int i = 0; i < 16; i++)
		assert_int_equal(t2f_profile__add_sample(p, child(p, child(p, 0, m), ha), t, ev, 1, 0),
				 0);
	for (int i = 0; i < 32; i++)
		assert_int_equal(t2f_profile__add_sample(p, child(p, child(p, 0, m), hb), t, ev, 1, 0),
				 0);
	for (int i = 0; i < 2; i++)
		assert_int_equal(t2f_profile__add_sample(p, child(p, child(p, 0, m), deep), t, ev, 1,
							 0), 0);
	text = write_svg(p, &(struct t2f_svg_opts){ .min_width = 0 /* 0.1 px */ }, path);
	frames = strstr(text, "<g id=\"frames\">");
	assert_non_null(frames);
	assert_string_equal(frames, expected);
	validate(path, "parse");
	unlink(path);
	free(text);
	t2f_profile__free(p);
}

/* min_width means what the library's t2f_write_options.min_width means (no second meaning
 * between them): 0 is 0.1 px, below 0 leaves nothing out, else pixels. narrow is about 0.012 px
 * wide in the 1200 px image, wide about 1180 px. */
static void test_min_width(void **state)
{
	static const struct { double min_width; bool narrow, wide; } cases[] = {
		{ 0, false, true }, { -1, true, true }, { 0.001, true, true }, { 0.5, false, true },
		{ 2000, false, false },
	};
	struct t2f_profile *p;
	char path[64];

	(void)state;
	assert_int_equal(t2f_profile__new(&p), 0);
	t2f_frame_id m = frame(p, "main", NULL, T2F_FRAME_USER, 0);
	t2f_frame_id wide = frame(p, "wide", NULL, T2F_FRAME_USER, 0);
	t2f_frame_id narrow = frame(p, "narrow", NULL, T2F_FRAME_USER, 0);
	t2f_thread_id t = thread(p, 1, 1, "app", 0);
	t2f_event_id ev;

	assert_int_equal(t2f_profile__event(p, str(p, "cycles"), T2F_UNIT_COUNT, &ev), 0);
	assert_int_equal(t2f_profile__add_sample(p, child(p, child(p, 0, m), wide), t, ev, 100000,
						 0), 0);
	assert_int_equal(t2f_profile__add_sample(p, child(p, child(p, 0, m), narrow), t, ev, 1, 0),
			 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text = write_svg(p, &(struct t2f_svg_opts){ .min_width = cases[i].min_width },
				       path);
		bool has_narrow = strstr(text, "<title>narrow (") != NULL;
		bool has_wide = strstr(text, "<title>wide (") != NULL;

		if (has_narrow != cases[i].narrow || has_wide != cases[i].wide)
			fail_msg("min_width %g: narrow %s, wide %s", cases[i].min_width,
				 has_narrow ? "kept" : "left out", has_wide ? "kept" : "left out");
		unlink(path);
		free(text);
	}
	t2f_profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_titles),
		cmocka_unit_test(test_min_width),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
