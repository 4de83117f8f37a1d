/* writers/svg.c: the SVG document: header, controls, then one <g> per drawn frame in depth-first
 * order (parents before children), streamed from the tree svg_tree.c builds.
 *
 * Geometry (px): frames 16 high (rects 15), labels 12 px with an average glyph width of 0.59 em,
 * 10 px side margins, the title band on top (36, or 60 with a subtitle) and the details band at
 * the bottom (34). A flame graph grows up from the bottom; an icicle graph hangs from the top.
 * A frame's x is its parent's x plus the totals of the siblings before it, scaled to the width.
 */
#include "writers/svg_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/sat.h"
#include "formats/utf8.h"

#ifndef T2F_VERSION
#define T2F_VERSION "unknown"
#endif

#define FRAME_H 16
#define FONT_SIZE 12
#define FONT_WIDTH 0.59
#define XPAD 10
#define YPAD_TOP 36
#define YPAD_SUB 24
#define YPAD_BOTTOM 34

struct svg {
	const struct t2f_profile *p;
	const struct t2f_svg_opts *o;
	struct t2f_out *out;
	struct svg_tree t;
	unsigned width, height;
	double scale;              /* px per unit of weight */
	double min_width;
	uint32_t depth_shown;      /* deepest drawn frame */
	const char *count_name;   /* valid UTF-8 (repaired into cname when needed), unescaped */
	size_t count_len;
	struct t2f_buf cname;
	uint64_t *cursor;          /* per depth: the next child's x, in weight units */
	struct t2f_buf utf8;       /* a name repaired to UTF-8 */
	struct t2f_buf src;        /* a frame's source position, "FILE:LINE" or "FILE" */
	uint64_t seq;              /* drawn frames so far */
	/* differential graph: the other profile's tree, its total per node of t (0 = not there),
	 * and the largest change of share */
	struct svg_tree dt;
	uint64_t *dtotal;
	double dmax;
	/* split graph (o->split_event): that event's tree and its total per node of t */
	struct svg_tree st;
	uint64_t *stotal;
};

/* Text with control characters dropped and & < > " escaped; the bytes must be valid UTF-8.
 * U+FFFE and U+FFFF, not XML characters, become U+FFFD. */
static void put_escaped(struct t2f_out *out, const char *s, size_t len)
{
	size_t run = 0;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		const char *rep = NULL;

		if (c == '&')
			rep = "&amp;";
		else if (c == '<')
			rep = "&lt;";
		else if (c == '>')
			rep = "&gt;";
		else if (c == '"')
			rep = "&quot;";
		else if (c < 0x20)
			rep = "";
		else if (c == 0xef && i + 2 < len && (unsigned char)s[i + 1] == 0xbf &&
			 ((unsigned char)s[i + 2] & 0xfe) == 0xbe)
			rep = "\xef\xbf\xbd";
		if (!rep) {
			run++;
			continue;
		}
		t2f_out__write(out, s + i - run, run);
		t2f_out__puts(out, rep);
		run = 0;
		if (rep[0] == '\xef')
			i += 2;
	}
	t2f_out__write(out, s + len - run, run);
}

/* s as valid UTF-8 (repaired into sv->utf8 when needed). */
static int utf8(struct svg *sv, const char **s, size_t *len)
{
	int err;

	if (t2f_utf8_valid(*s, *len))
		return 0;
	err = t2f_utf8_repair(&sv->utf8, *s, *len);
	if (err)
		return err;
	*s = sv->utf8.p;
	*len = sv->utf8.len;
	return 0;
}

/* A user string (title, subtitle) escaped. */
static int put_text(struct svg *sv, const char *s)
{
	size_t len = strlen(s);
	int err = utf8(sv, &s, &len);

	if (!err)
		put_escaped(sv->out, s, len);
	return err;
}

/* v with thousands separators: 1,234,567. */
static void put_count(struct t2f_out *out, uint64_t v)
{
	char d[24];
	int n = snprintf(d, sizeof(d), "%" PRIu64, v);

	for (int i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			t2f_out__putc(out, ',');
		t2f_out__putc(out, d[i]);
	}
}

/* The label that fits w px: the name, or its first characters and "..", or nothing under 3
 * characters. Counts UTF-8 characters, not bytes. */
static size_t label_len(const char *s, size_t len, double w, bool *cut)
{
	size_t fit = (size_t)(w / (FONT_SIZE * FONT_WIDTH)), chars = 0, i;

	*cut = false;
	if (fit < 3)
		return 0;
	for (i = 0; i < len && chars < fit; i++)
		chars += ((unsigned char)s[i] & 0xc0) != 0x80;
	while (i < len && ((unsigned char)s[i] & 0xc0) == 0x80)
		i++;
	if (i == len)
		return len;
	/* too long: keep fit - 2 characters */
	*cut = true;
	chars = 0;
	for (i = 0; i < len; i++) {
		if (((unsigned char)s[i] & 0xc0) != 0x80 && chars++ == fit - 2)
			break;
	}
	return i;
}

/* Node n's change of share, after - before. */
static double diff_delta(const struct svg *sv, uint32_t n)
{
	uint64_t root = sv->t.nodes[0].total, droot = sv->dt.nodes[0].total;
	double mine = root ? (double)sv->t.nodes[n].total / (double)root : 0;
	double other = droot ? (double)sv->dtotal[n] / (double)droot : 0;

	return sv->o->diff_is_after ? other - mine : mine - other;
}

/* Another tree of event ev of profile p, and for every node of ours the total of the node with
 * the same display path there. Parents come before their children in node order. */
static int other_totals(struct svg *sv, const struct t2f_profile *p, t2f_event_id ev,
			struct svg_tree *other, uint64_t **totals)
{
	struct t2f_svg_opts opt = *sv->o;
	uint32_t *match;
	int err;

	err = svg_tree__build(p, &opt, ev, other);
	if (err)
		return err;
	match = calloc(sv->t.count, sizeof(*match));
	*totals = calloc(sv->t.count, sizeof(**totals));
	if (!match || !*totals) {
		free(match);
		return -ENOMEM;
	}
	(*totals)[0] = other->nodes[0].total;
	for (uint32_t n = 1; n < sv->t.count; n++) {
		const struct svg_node *nd = &sv->t.nodes[n];
		size_t len;
		const char *name = svg_tree__name(&sv->t, nd->name, &len);

		match[n] = nd->parent && !match[nd->parent] ? 0
			   : svg_tree__find_child(other, match[nd->parent], name, len);
		(*totals)[n] = match[n] ? other->nodes[match[n]].total : 0;
	}
	free(match);
	return 0;
}

/* The other profile's tree and the largest change of share. */
static int diff_prepare(struct svg *sv)
{
	int err = other_totals(sv, sv->o->diff, sv->o->diff_event ? sv->o->diff_event : 1, &sv->dt,
			       &sv->dtotal);

	if (err)
		return err;
	for (uint32_t n = 0; n < sv->t.count; n++) {
		double d = diff_delta(sv, n);

		if (d < 0)
			d = -d;
		if (d > sv->dmax)
			sv->dmax = d;
	}
	return 0;
}

/* A percentage with two decimals; "-0.00" shows as "0.00". */
static void put_pct(struct t2f_out *out, double pct, bool sign)
{
	if (pct < 0.005 && pct > -0.005)
		pct = 0;
	t2f_out__printf(out, sign ? "%+.2f%%" : "%.2f%%", pct);
}

/* Node n's source position into sv->src, "FILE:LINE" or "FILE" (repaired to UTF-8); false when
 * it has none, when memory ran out, or when it holds a control character or " (": the script
 * reads a title's name and weight up to its last " (", which must stay the counts'. */
static bool src_text(struct svg *sv, const struct svg_node *nd)
{
	size_t len;
	const char *file;
	char num[16];
	int n;

	if (!nd->src_file)
		return false;
	file = t2f_profile__str(sv->p, nd->src_file, &len);
	n = nd->src_line ? snprintf(num, sizeof(num), ":%" PRIu32, nd->src_line) : 0;
	if (t2f_utf8_repair(&sv->src, file, len) || t2f_buf__put(&sv->src, num, (size_t)n))
		return false;
	for (size_t i = 0; i < sv->src.len; i++)
		if ((unsigned char)sv->src.p[i] < 0x20 ||
		    (sv->src.p[i] == ' ' && i + 1 < sv->src.len && sv->src.p[i + 1] == '('))
			return false;
	return true;
}

/* Node n's part that is the split event's (at most its total). */
static uint64_t split_part(const struct svg *sv, uint32_t n)
{
	return sv->stotal[n] < sv->t.nodes[n].total ? sv->stotal[n] : sv->t.nodes[n].total;
}

/* A split graph's colour: red for a frame all on CPU, blue for one all off CPU, between them
 * by the off-CPU share. */
static void split_color(const struct svg *sv, uint32_t n, char *fill, size_t len)
{
	uint64_t total = sv->t.nodes[n].total;
	double f = total ? (double)split_part(sv, n) / (double)total : 0;

	snprintf(fill, len, "rgb(%d,%d,%d)", (int)(230 - 150 * f), (int)(90 + 60 * f),
		 (int)(60 + 190 * f));
}

/* <title>NAME (N COUNTNAME, P%)</title>, the differential part inside the parentheses, and
 * " at FILE:LINE" before </title> when the node has a source position. */
static void put_title(struct svg *sv, uint32_t n, const char *name, size_t len)
{
	struct t2f_out *out = sv->out;
	const struct svg_node *nd = &sv->t.nodes[n];

	t2f_out__puts(out, "<title>");
	put_escaped(out, name, len);
	t2f_out__puts(out, " (");
	put_count(out, nd->total);
	t2f_out__putc(out, ' ');
	put_escaped(out, sv->count_name, sv->count_len);
	t2f_out__puts(out, ", ");
	if (n == 0)
		t2f_out__puts(out, "100%");
	else
		t2f_out__printf(out, "%.2f%%", (double)nd->total * 100.0 / (double)sv->t.nodes[0].total);
	if (sv->o->diff) {
		uint64_t droot = sv->dt.nodes[0].total;

		t2f_out__puts(out, sv->o->diff_is_after ? "; after " : "; before ");
		put_count(out, sv->dtotal[n]);
		t2f_out__putc(out, ' ');
		put_escaped(out, sv->count_name, sv->count_len);
		t2f_out__puts(out, ", ");
		put_pct(out, droot ? (double)sv->dtotal[n] * 100.0 / (double)droot : 0, false);
		t2f_out__puts(out, "; ");
		put_pct(out, diff_delta(sv, n) * 100.0, true);
	}
	if (sv->stotal) {
		uint64_t off = split_part(sv, n);

		t2f_out__puts(out, "; on CPU ");
		put_count(out, nd->total - off);
		t2f_out__puts(out, ", off CPU ");
		put_count(out, off);
	}
	t2f_out__putc(out, ')');
	if (src_text(sv, nd)) {
		t2f_out__puts(out, " at ");
		put_escaped(out, sv->src.p, sv->src.len);
	}
	t2f_out__puts(out, "</title>");
}

static void put_frame(struct svg *sv, uint32_t n, uint64_t x)
{
	const struct svg_node *nd = &sv->t.nodes[n];
	struct t2f_out *out = sv->out;
	double px = XPAD + (double)x * sv->scale, w = (double)nd->total * sv->scale;
	double y = sv->o->icicle ? YPAD_TOP + (sv->o->subtitle ? YPAD_SUB : 0) + (double)nd->depth * FRAME_H
				 : (double)sv->height - YPAD_BOTTOM - (double)(nd->depth + 1) * FRAME_H;
	size_t len, llen;
	const char *name = svg_tree__name(&sv->t, nd->name, &len);
	char fill[32];
	bool cut;

	if (utf8(sv, &name, &len))
		name = "", len = 0; /* out of memory: an empty name, the rest still right */
	if (sv->o->diff)
		svg_color_diff(diff_delta(sv, n), sv->dmax, fill, sizeof(fill));
	else if (sv->stotal)
		split_color(sv, n, fill, sizeof(fill));
	else
		svg_color(&sv->t, sv->o, n, sv->seq++, fill, sizeof(fill));
	t2f_out__puts(out, "<g>");
	put_title(sv, n, name, len);
	t2f_out__printf(out, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"%s\" "
			"rx=\"2\" ry=\"2\"/><text x=\"%.2f\" y=\"%.1f\">",
			px, y, w, FRAME_H - 1, fill, px + 3, y + 11.5);
	llen = label_len(name, len, w - 3, &cut);
	put_escaped(out, name, llen);
	if (cut)
		t2f_out__puts(out, "..");
	t2f_out__puts(out, "</text></g>\n");
}

/* Depth-first over the drawn frames (parents first): fn(sv, node, x) for each; frames narrower
 * than min_width are skipped with their subtrees. */
static void walk(struct svg *sv, void (*fn)(struct svg *, uint32_t, uint64_t))
{
	const struct svg_node *nodes = sv->t.nodes;
	uint32_t n = 0;

	sv->cursor[0] = 0;
	for (;;) {
		const struct svg_node *nd = &nodes[n];
		uint64_t x = sv->cursor[nd->depth];
		bool shown = (double)nd->total * sv->scale >= sv->min_width;

		sv->cursor[nd->depth] = t2f_sat_add(sv->cursor[nd->depth], nd->total);
		if (shown)
			fn(sv, n, x);
		if (shown && nd->first_child) {
			sv->cursor[nd->depth + 1] = x;
			n = nd->first_child;
			continue;
		}
		while (n && !nodes[n].next_sibling)
			n = nodes[n].parent;
		if (!n)
			return;
		n = nodes[n].next_sibling;
	}
}

static void note_depth(struct svg *sv, uint32_t n, uint64_t x)
{
	if (sv->t.nodes[n].depth > sv->depth_shown)
		sv->depth_shown = sv->t.nodes[n].depth;
}

static const char *default_title(const struct t2f_svg_opts *o)
{
	if (o->flamechart)
		return "Flame Chart";
	if (o->diff)
		return o->icicle ? "Differential Icicle Graph" : "Differential Flame Graph";
	return o->icicle ? "Icicle Graph" : "Flame Graph";
}

static int put_header(struct svg *sv)
{
	struct t2f_out *out = sv->out;
	unsigned w = sv->width, h = sv->height, top = YPAD_TOP + (sv->o->subtitle ? YPAD_SUB : 0);
	int err;

	t2f_out__printf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
			"<svg version=\"1.1\" width=\"%u\" height=\"%u\" onload=\"init(evt)\" "
			"viewBox=\"0 0 %u %u\" xmlns=\"http://www.w3.org/2000/svg\" "
			"xmlns:xlink=\"http://www.w3.org/1999/xlink\" data-inverted=\"%d\" "
			"data-xpad=\"%d\" data-count-name=\"", w, h, w, h, sv->o->icicle ? 1 : 0, XPAD);
	put_escaped(out, sv->count_name, sv->count_len);
	t2f_out__puts(out, "\">\n<!-- trace2flame " T2F_VERSION " -->\n"
		      "<defs><linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\">"
		      "<stop stop-color=\"#eeeeee\" offset=\"5%\"/><stop stop-color=\"#eeeeb0\" "
		      "offset=\"95%\"/></linearGradient></defs>\n<style type=\"text/css\"><![CDATA[\n");
	t2f_out__puts(out, t2f_svg_style);
	t2f_out__puts(out, "]]></style>\n<script type=\"text/ecmascript\"><![CDATA[\n");
	t2f_out__puts(out, t2f_svg_script);
	t2f_out__printf(out, "]]></script>\n<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" "
			"fill=\"url(#background)\"/>\n<text id=\"title\" x=\"%u\" y=\"24\">",
			w, h, w / 2);
	err = put_text(sv, sv->o->title ? sv->o->title : default_title(sv->o));
	t2f_out__puts(out, "</text>\n");
	if (!err && sv->o->subtitle) {
		t2f_out__printf(out, "<text id=\"subtitle\" x=\"%u\" y=\"48\">", w / 2);
		err = put_text(sv, sv->o->subtitle);
		t2f_out__puts(out, "</text>\n");
	}
	t2f_out__printf(out, "<text id=\"details\" x=\"%d\" y=\"%u\"> </text>\n"
			"<text id=\"unzoom\" class=\"hide\" x=\"%d\" y=\"24\">Reset Zoom</text>\n"
			"<text id=\"search\" x=\"%u\" y=\"24\">Search</text>\n"
			"<text id=\"ignorecase\" x=\"%u\" y=\"24\">ic</text>\n"
			"<text id=\"matched\" x=\"%u\" y=\"%u\"> </text>\n",
			XPAD, h - 17, XPAD, w - XPAD - 100, w - XPAD - 16, w - XPAD - 100, h - 17);
	if (sv->t.nodes[0].total == 0)
		t2f_out__printf(out, "<text id=\"error\" x=\"%u\" y=\"%u\">ERROR: No valid input</text>\n",
				w / 2, top + FRAME_H * 2);
	return err;
}

/* "samples" for counts; else what the weights measure: "ns", or the event's name (from the
 * input: any bytes). */
static const char *count_name(const struct t2f_profile *p, const struct t2f_svg_opts *o,
			      t2f_event_id ev)
{
	const struct t2f_event *e = ev <= t2f_profile__event_count(p) ? t2f_profile__event_at(p, ev) : NULL;
	size_t len;

	if (o->count_name)
		return o->count_name;
	if (!e || o->weight_samples || !e->has_period)
		return "samples";
	if (e->unit == T2F_UNIT_NANOSECONDS)
		return "ns";
	return t2f_profile__str(p, e->name, &len);
}

/* sv->count_name and count_len: the count's name, repaired to UTF-8 when needed (every place
 * that writes it escapes it). 0 or -ENOMEM. */
static int set_count_name(struct svg *sv, t2f_event_id ev)
{
	const char *s = count_name(sv->p, sv->o, ev);
	size_t len = strlen(s);
	int err = 0;

	if (!t2f_utf8_valid(s, len)) {
		err = t2f_utf8_repair(&sv->cname, s, len);
		s = sv->cname.p;
		len = sv->cname.len;
	}
	sv->count_name = s;
	sv->count_len = len;
	return err;
}

int t2f_svg__write(const struct t2f_profile *p, const struct t2f_svg_opts *o, struct t2f_out *out)
{
	struct svg sv = { .p = p, .o = o, .out = out };
	t2f_event_id ev = o->event ? o->event : 1;
	int err;

	sv.width = o->width ? o->width : 1200;
	if (sv.width < 2 * XPAD + 200)
		sv.width = 2 * XPAD + 200;
	sv.min_width = o->min_width == 0 ? 0.1 : o->min_width < 0 ? 0 : o->min_width;
	if (o->diff && o->flamechart)
		return -EINVAL;
	err = set_count_name(&sv, ev) ?: svg_tree__build(p, o, ev, &sv.t);
	if (!err && o->diff)
		err = diff_prepare(&sv);
	if (!err && o->split_event && !o->diff)
		err = other_totals(&sv, p, o->split_event, &sv.st, &sv.stotal);
	if (!err) {
		sv.cursor = calloc((size_t)sv.t.max_depth + 2, sizeof(*sv.cursor));
		err = sv.cursor ? 0 : -ENOMEM;
	}
	if (err)
		goto done;
	if (sv.t.nodes[0].total) {
		sv.scale = (double)(sv.width - 2 * XPAD) / (double)sv.t.nodes[0].total;
		walk(&sv, note_depth);
	}
	sv.height = (sv.depth_shown + 1) * FRAME_H + YPAD_TOP + (o->subtitle ? YPAD_SUB : 0) + YPAD_BOTTOM;
	err = put_header(&sv);
	if (err)
		goto done;
	t2f_out__puts(out, "<g id=\"frames\">\n");
	if (sv.t.nodes[0].total)
		walk(&sv, put_frame);
	t2f_out__puts(out, "</g>\n</svg>\n");
done:
	svg_tree__free(&sv.t);
	svg_tree__free(&sv.dt);
	free(sv.dtotal);
	svg_tree__free(&sv.st);
	free(sv.stotal);
	t2f_buf__free(&sv.utf8);
	t2f_buf__free(&sv.src);
	t2f_buf__free(&sv.cname);
	free(sv.cursor);
	return err;
}
