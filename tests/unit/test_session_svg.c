/* tests/unit/test_session_svg.c: the SVG write options through the public header alone, linked
 * with the shared library. The writer takes them as the header defines them (no copy of the
 * enumeration, no second meaning of a field): each of enum t2f_colors gives the fills of its
 * scheme, min_width's 0 is 0.1 px and below 0 leaves nothing out, and a value past the last
 * scheme is refused. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <trace2flame.h>

/* Folded stacks, marked as the folded reader reads kinds: user, kernel, JIT and inlined. */
static const char marked[] = "main;work;spin_[k] 3\nmain;jitted_[j] 2\nmain;inl_[i] 1\n";

static void quiet(void *ctx, const char *line)
{
	(void)ctx;
	(void)line;
}

/* input written as SVG with w (its size and format set here): 0 or the error; *svg the text
 * (free() it; NULL on an error). */
static int write_svg(const char *input, struct t2f_write_options w, char **svg)
{
	struct t2f_options o = { .size = sizeof(o), .formats = T2F_FORMAT_BIT(T2F_FORMAT_SVG),
				 .message = quiet };
	struct t2f_session *s;
	char *buf = NULL;
	size_t len = 0;
	int err;

	*svg = NULL;
	assert_int_equal(t2f_session_new(&o, &s), 0);
	assert_int_equal(t2f_session_add_bytes(s, input, strlen(input), "in"), 0);
	w.size = sizeof(w);
	w.format = T2F_FORMAT_SVG;
	err = t2f_session_write_mem(s, &w, &buf, &len);
	t2f_session_free(s);
	if (!err) { /* the bytes, as a string */
		*svg = malloc(len + 1);
		assert_non_null(*svg);
		memcpy(*svg, buf, len);
		(*svg)[len] = 0;
	}
	t2f_free(buf);
	return err;
}

/* The fill of the frame titled name ("<title>NAME (..."); false when there is none. */
static bool fill_of(const char *svg, const char *name, unsigned rgb[3])
{
	char key[64];
	const char *at;

	snprintf(key, sizeof(key), "<title>%s (", name);
	at = strstr(svg, key);
	if (!at || !(at = strstr(at, "fill=\"rgb(")))
		return false;
	return sscanf(at, "fill=\"rgb(%u,%u,%u)\"", &rgb[0], &rgb[1], &rgb[2]) == 3;
}

static bool within(unsigned v, unsigned lo, unsigned hi)
{
	return v >= lo && v <= hi;
}

/* What each scheme gives a frame of each kind (writers/svg_color.c): one test per color. */
static bool scheme_fill(enum t2f_colors c, const char *name, const unsigned v[3])
{
	switch (c) {
	case T2F_COLORS_HOT:    /* reds to yellows */
		return within(v[0], 205, 255) && v[1] <= 230 && v[2] <= 55;
	case T2F_COLORS_MEM:    /* greens */
		return v[0] <= 40 && within(v[1], 170, 240) && within(v[2], 40, 90);
	case T2F_COLORS_IO:     /* blues */
		return v[0] == v[1] && within(v[0], 80, 150) && within(v[2], 195, 250);
	case T2F_COLORS_MODULE: /* folded frames have no module: grays */
		return v[0] == v[1] && v[1] == v[2] && within(v[0], 180, 210);
	case T2F_COLORS_KIND:
		if (strcmp(name, "spin") == 0) /* kernel: orange */
			return within(v[0], 225, 255) && within(v[1], 130, 180) &&
			       within(v[2], 20, 60);
		if (strcmp(name, "jitted") == 0) /* JIT: green */
			return within(v[0], 50, 110) && within(v[1], 190, 240) &&
			       within(v[2], 50, 110);
		if (strcmp(name, "inl") == 0) /* inlined: aqua */
			return within(v[0], 60, 110) && v[1] == v[2] && within(v[1], 190, 230);
		return within(v[0], 200, 255) && v[1] == v[2] && within(v[1], 50, 120); /* red */
	}
	return false;
}

static void test_every_color_scheme(void **state)
{
	static const char *const names[] = { "main", "work", "spin", "jitted", "inl" };
	const enum t2f_colors all[] = { T2F_COLORS_HOT, T2F_COLORS_MEM, T2F_COLORS_IO,
					T2F_COLORS_MODULE, T2F_COLORS_KIND };
	char *svg;

	(void)state;
	for (size_t c = 0; c < sizeof(all) / sizeof(all[0]); c++) {
		assert_int_equal(write_svg(marked, (struct t2f_write_options){ .colors = all[c] },
					   &svg), 0);
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			unsigned rgb[3];

			if (!fill_of(svg, names[i], rgb))
				fail_msg("colors %d: no frame %s", (int)all[c], names[i]);
			if (!scheme_fill(all[c], names[i], rgb))
				fail_msg("colors %d: %s is rgb(%u,%u,%u)", (int)all[c], names[i],
					 rgb[0], rgb[1], rgb[2]);
		}
		free(svg);
	}
	/* the zero of the options is HOT */
	assert_int_equal(write_svg(marked, (struct t2f_write_options){ 0 }, &svg), 0);
	{
		unsigned rgb[3];

		assert_true(fill_of(svg, "jitted", rgb));
		assert_true(scheme_fill(T2F_COLORS_HOT, "jitted", rgb));
	}
	free(svg);
	assert_int_equal(write_svg(marked, (struct t2f_write_options){
		.colors = (enum t2f_colors)(T2F_COLORS_KIND + 1) }, &svg), -EINVAL);
	assert_null(svg);
}

/* min_width, in pixels of the 1200 px image: narrow is about 0.012 px wide, wide about 1180. */
static void test_min_width(void **state)
{
	static const char input[] = "main;wide 100000\nmain;narrow 1\n";
	const struct { double min_width; bool narrow, wide; } cases[] = {
		{ 0, false, true },     /* the default, 0.1 px */
		{ -1, true, true },     /* none left out */
		{ 0.001, true, true },
		{ 0.5, false, true },
		{ 2000, false, false }, /* wider than the image */
	};
	char *svg;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned rgb[3];

		assert_int_equal(write_svg(input, (struct t2f_write_options){
			.min_width = cases[i].min_width }, &svg), 0);
		if (fill_of(svg, "narrow", rgb) != cases[i].narrow ||
		    fill_of(svg, "wide", rgb) != cases[i].wide)
			fail_msg("min_width %g: narrow %s, wide %s", cases[i].min_width,
				 fill_of(svg, "narrow", rgb) ? "kept" : "left out",
				 fill_of(svg, "wide", rgb) ? "kept" : "left out");
		free(svg);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_color_scheme),
		cmocka_unit_test(test_min_width),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
