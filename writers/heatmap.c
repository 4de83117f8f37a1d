/* writers/heatmap.c: the heat map (heatmap.h). The event's timed buckets are copied out of the
 * time histogram and sorted by time; cells are runs of buckets with the same (second, row),
 * written in time order, so the output depends on nothing but the histogram's contents. */
#include "writers/heatmap.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/buf.h"
#include "formats/diag.h"
#include "formats/sat.h"
#include "formats/time_hist.h"
#include "formats/utf8.h"

#define NS_PER_SEC UINT64_C(1000000000)
#define PER_SEC (NS_PER_SEC / T2F_TIME_HIST_NS) /* buckets in a second: 100 */
#define LEFT 80u                                /* room for the row labels */
#define TOP 66u                                 /* title, subtitle */
#define BOTTOM 104u                             /* column labels, legend, note */
#define EMPTY "#e8e8e8"                         /* a cell without samples */

/* The event's timed buckets, by time, and what the map draws of them. */
struct grid {
	const struct t2f_profile *p;
	const struct t2f_heatmap_opts *o;
	t2f_event_id ev;
	struct t2f_time_bucket *b;
	size_t n;
	uint64_t samples, untimed;  /* timed samples; samples without a time */
	uint64_t first_sec, columns;
	unsigned rows, per_row;     /* rows per second; buckets per row */
	unsigned cw, ch;            /* a cell's width and height, px */
	uint64_t max;               /* the heaviest cell's value */
};

/* A cell: the buckets of one (second, row). key = second * rows + row. */
struct cell {
	uint64_t key, samples, weight;
};

static unsigned rows_of(const struct t2f_heatmap_opts *o)
{
	return o->rows ? o->rows : T2F_HEATMAP_ROWS;
}

/* The event's timed buckets' count, first and last, and its untimed samples. */
static size_t survey(const struct t2f_time_hist *h, t2f_event_id ev, uint64_t *first,
		     uint64_t *last, uint64_t *untimed)
{
	size_t n = 0, count = h ? t2f_time_hist__count(h) : 0;

	*first = UINT64_MAX;
	*last = 0;
	*untimed = 0;
	for (size_t i = 0; i < count; i++) {
		const struct t2f_time_bucket *b = t2f_time_hist__at(h, i);

		if (b->event != ev)
			continue;
		if (b->bucket == T2F_TIME_HIST_UNTIMED) {
			*untimed = t2f_sat_add(*untimed, b->samples);
			continue;
		}
		n++;
		*first = b->bucket < *first ? b->bucket : *first;
		*last = b->bucket > *last ? b->bucket : *last;
	}
	return n;
}

int t2f_heatmap__check(const struct t2f_profile *p, const struct t2f_heatmap_opts *o, char *msg,
		       size_t msg_len)
{
	unsigned rows = rows_of(o);
	t2f_event_id ev = o->event ? o->event : 1;
	uint64_t first, last, untimed, columns;
	char vis[T2F_VISIBLE_MAX];
	const char *name = "";

	if (rows > PER_SEC || PER_SEC % rows) {
		snprintf(msg, msg_len, "%u rows per second: a heat map's rows are a whole number "
			 "of 10 ms (1, 2, 4, 5, 10, 20, 25, 50 or 100 rows)", rows);
		return -EINVAL;
	}
	if (ev <= t2f_profile__event_count(p))
		name = t2f_utf8_visible(t2f_profile__str(p, t2f_profile__event_at(p, ev)->name,
							  NULL), vis, sizeof(vis));
	if (!survey(t2f_profile__hist(p), ev, &first, &last, &untimed)) {
		snprintf(msg, msg_len, "the heat map needs samples with times, and no sample%s%s%s "
			 "has one (folded stacks carry no times; perf.data, perf script text with "
			 "its time field and .nettrace do)", *name ? " of event '" : "", name,
			 *name ? "'" : "");
		return -T2F_ERR_UNSUPPORTED;
	}
	columns = last / PER_SEC - first / PER_SEC + 1;
	if (columns > T2F_HEATMAP_MAX_COLUMNS) {
		snprintf(msg, msg_len, "the samples span %" PRIu64 " seconds (%" PRIu64 " s to %"
			 PRIu64 " s): a heat map draws at most %u, a column each; draw a part of "
			 "them with --time START,STOP (seconds)", columns, first / PER_SEC,
			 last / PER_SEC, T2F_HEATMAP_MAX_COLUMNS);
		return -T2F_ERR_LIMIT;
	}
	return 0;
}

static int by_bucket(const void *a, const void *b)
{
	uint64_t x = ((const struct t2f_time_bucket *)a)->bucket;
	uint64_t y = ((const struct t2f_time_bucket *)b)->bucket;

	return (x > y) - (x < y);
}

static uint64_t value(const struct grid *g, const struct cell *c)
{
	return g->o->weight_samples ? c->samples : c->weight;
}

/* The cell starting at g->b[*i], *i moved past it; false at the end. */
static bool next_cell(const struct grid *g, size_t *i, struct cell *c)
{
	if (*i >= g->n)
		return false;
	*c = (struct cell){ .key = g->b[*i].bucket / g->per_row };
	for (; *i < g->n && g->b[*i].bucket / g->per_row == c->key; ++*i) {
		c->samples = t2f_sat_add(c->samples, g->b[*i].samples);
		c->weight = t2f_sat_add(c->weight, g->b[*i].weight);
	}
	return true;
}

static unsigned clamp(uint64_t v, unsigned lo, unsigned hi)
{
	return v < lo ? lo : v > hi ? hi : (unsigned)v;
}

/* Copies the event's timed buckets out, sorted; sizes the picture. 0 or -ENOMEM. */
static int grid_init(struct grid *g)
{
	const struct t2f_time_hist *h = t2f_profile__hist(g->p);
	uint64_t first, last;
	size_t n = survey(h, g->ev, &first, &last, &g->untimed), count = t2f_time_hist__count(h);
	struct cell c;
	size_t i = 0;

	g->b = malloc(n * sizeof(*g->b));
	if (!g->b)
		return -ENOMEM;
	for (size_t k = 0; k < count; k++) {
		const struct t2f_time_bucket *b = t2f_time_hist__at(h, k);

		if (b->event == g->ev && b->bucket != T2F_TIME_HIST_UNTIMED)
			g->b[g->n++] = *b;
	}
	qsort(g->b, g->n, sizeof(*g->b), by_bucket);
	g->rows = rows_of(g->o);
	g->per_row = (unsigned)(PER_SEC / g->rows);
	g->first_sec = first / PER_SEC;
	g->columns = last / PER_SEC - g->first_sec + 1;
	g->cw = clamp(1200 / g->columns, 4, 24);
	g->ch = clamp(400 / g->rows, 4, 16);
	while (next_cell(g, &i, &c)) {
		g->samples = t2f_sat_add(g->samples, c.samples);
		g->max = value(g, &c) > g->max ? value(g, &c) : g->max;
	}
	return 0;
}

/* Text from the input: control characters dropped, repaired to UTF-8, & < > " escaped, U+FFFE
 * and U+FFFF (not XML characters) as U+FFFD. 0 or -ENOMEM. */
static int put_text(struct t2f_out *out, struct t2f_buf *tmp, const char *s, size_t len)
{
	int err = t2f_utf8_sanitize(tmp, s, len, "");

	if (err)
		return err;
	for (size_t i = 0; i < tmp->len; i++) {
		unsigned char c = (unsigned char)tmp->p[i];

		if (c == '&')
			t2f_out__puts(out, "&amp;");
		else if (c == '<')
			t2f_out__puts(out, "&lt;");
		else if (c == '>')
			t2f_out__puts(out, "&gt;");
		else if (c == '"')
			t2f_out__puts(out, "&quot;");
		else if (c == 0xef && i + 2 < tmp->len && (unsigned char)tmp->p[i + 1] == 0xbf &&
			 ((unsigned char)tmp->p[i + 2] & 0xfe) == 0xbe) {
			t2f_out__puts(out, "\xef\xbf\xbd");
			i += 2;
		} else {
			t2f_out__putc(out, (char)c);
		}
	}
	return 0;
}

/* The colour of v (1 .. max): light yellow through orange to dark red. */
static void put_color(struct t2f_out *out, uint64_t v, uint64_t max)
{
	static const unsigned char stop[3][3] = { { 255, 237, 160 }, { 253, 141, 60 },
						  { 165, 0, 38 } };
	double t = max ? (double)v / (double)max : 1.0, f;
	int s = t > 0.5;
	unsigned char rgb[3];

	f = s ? (t - 0.5) * 2.0 : t * 2.0;
	for (int k = 0; k < 3; k++)
		rgb[k] = (unsigned char)((double)stop[s][k] +
					 ((double)stop[s + 1][k] - (double)stop[s][k]) * f + 0.5);
	t2f_out__printf(out, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
}

/* What the cells' values count: samples, ns, or the event's weight. */
static const char *unit_of(const struct grid *g)
{
	const struct t2f_event *e = t2f_profile__event_at(g->p, g->ev);

	if (g->o->weight_samples || !e->has_period)
		return "samples";
	return e->unit == T2F_UNIT_NANOSECONDS ? "ns" : "weight";
}

/* "S.FFFFFFFFF": ns as perf script's --time takes seconds. */
static void put_secs(struct t2f_out *out, uint64_t ns)
{
	t2f_out__printf(out, "%" PRIu64 ".%09" PRIu64, ns / NS_PER_SEC, ns % NS_PER_SEC);
}

static void put_cell(const struct grid *g, struct t2f_out *out, const struct cell *c)
{
	uint64_t sec = c->key / g->rows, row = c->key % g->rows;
	uint64_t len = g->per_row * T2F_TIME_HIST_NS, start = c->key * len;
	const struct t2f_event *e = t2f_profile__event_at(g->p, g->ev);

	t2f_out__printf(out, "<rect x=\"%" PRIu64 "\" y=\"%" PRIu64 "\" width=\"%u\" height=\"%u\" "
			"fill=\"", LEFT + (sec - g->first_sec) * g->cw, TOP + row * g->ch, g->cw,
			g->ch);
	put_color(out, value(g, c), g->max);
	t2f_out__printf(out, "\"><title>%" PRIu64 ".%03" PRIu64 " s to %" PRIu64 ".%03" PRIu64
			" s: %" PRIu64 " sample%s", sec, start % NS_PER_SEC / 1000000,
			(start + len) / NS_PER_SEC, (start + len) % NS_PER_SEC / 1000000,
			c->samples, c->samples == 1 ? "" : "s");
	if (e->has_period)
		t2f_out__printf(out, ", %s%" PRIu64 "%s", e->unit == T2F_UNIT_NANOSECONDS ? "" :
				"weight ", c->weight, e->unit == T2F_UNIT_NANOSECONDS ? " ns" : "");
	t2f_out__puts(out, "\n--time ");
	put_secs(out, start);
	t2f_out__putc(out, ',');
	put_secs(out, start + len - 1);
	t2f_out__puts(out, "</title></rect>\n");
}

/* Seconds across (every few, at least 50 px apart), milliseconds down. */
static void put_axes(const struct grid *g, struct t2f_out *out)
{
	static const unsigned steps[] = { 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600 };
	unsigned step = steps[sizeof(steps) / sizeof(steps[0]) - 1], ms, label_ms;
	uint64_t bottom = TOP + (uint64_t)g->rows * g->ch;
	double px_100ms = (double)g->ch * g->rows / 10.0;

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if ((uint64_t)steps[i] * g->cw >= 50) {
			step = steps[i];
			break;
		}
	for (uint64_t c = 0; c < g->columns; c += step)
		t2f_out__printf(out, "<text x=\"%" PRIu64 "\" y=\"%" PRIu64 "\" "
				"text-anchor=\"middle\">%" PRIu64 "</text>\n",
				LEFT + c * g->cw + g->cw / 2, bottom + 14, c);
	t2f_out__printf(out, "<text x=\"%u\" y=\"%" PRIu64 "\">seconds after %" PRIu64 " s (the "
			"trace's clock)</text>\n", LEFT, bottom + 30, g->first_sec);
	label_ms = px_100ms >= 14 ? 100 : px_100ms >= 7 ? 200 : 500;
	for (unsigned r = 0; r < g->rows; r++) {
		ms = r * 1000 / g->rows;
		if (ms % label_ms == 0)
			t2f_out__printf(out, "<text x=\"%u\" y=\"%u\" text-anchor=\"end\">%u ms"
					"</text>\n", LEFT - 6, TOP + r * g->ch + 10, ms);
	}
}

/* The scale: grey for none, then light (the least) to dark (the heaviest cell). */
static void put_legend(const struct grid *g, struct t2f_out *out, unsigned y)
{
	t2f_out__printf(out, "<rect x=\"%u\" y=\"%u\" width=\"16\" height=\"12\" fill=\"" EMPTY
			"\"/>\n<text x=\"%u\" y=\"%u\">none</text>\n", LEFT, y, LEFT + 20, y + 10);
	for (unsigned k = 0; k < 20; k++) {
		t2f_out__printf(out, "<rect x=\"%u\" y=\"%u\" width=\"8\" height=\"12\" fill=\"",
				LEFT + 70 + k * 8, y);
		put_color(out, k + 1, 20);
		t2f_out__puts(out, "\"/>\n");
	}
	t2f_out__printf(out, "<text x=\"%u\" y=\"%u\">up to %" PRIu64 " %s per cell</text>\n",
			LEFT + 70 + 20 * 8 + 6, y + 10, g->max, unit_of(g));
}

static int put_header(const struct grid *g, struct t2f_out *out, struct t2f_buf *tmp,
		      unsigned w, uint64_t h)
{
	const struct t2f_event *e = t2f_profile__event_at(g->p, g->ev);
	size_t len;
	const char *ename = t2f_profile__str(g->p, e->name, &len);
	int err;

	t2f_out__printf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
			"<svg version=\"1.1\" width=\"%u\" height=\"%" PRIu64 "\" "
			"viewBox=\"0 0 %u %" PRIu64 "\" xmlns=\"http://www.w3.org/2000/svg\">\n"
			"<style>text { font-family: Verdana, sans-serif; font-size: 11px; fill: #000; "
			"} rect:hover { stroke: #000; stroke-width: 1; }</style>\n"
			"<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%" PRIu64 "\" "
			"fill=\"#ffffff\"/>\n<text x=\"%u\" y=\"22\" font-size=\"16\">Heat map",
			w, h, w, h, w, h, LEFT);
	if (g->o->name) {
		t2f_out__puts(out, ": ");
		err = put_text(out, tmp, g->o->name, strlen(g->o->name));
		if (err)
			return err;
	}
	t2f_out__printf(out, "</text>\n<text x=\"%u\" y=\"40\">", LEFT);
	err = put_text(out, tmp, ename, len);
	if (err)
		return err;
	t2f_out__printf(out, ": %" PRIu64 " sample%s over %" PRIu64 " s; rows of %u ms; a cell's "
			"tooltip gives its --time START,STOP", g->samples,
			g->samples == 1 ? "" : "s", g->columns, 1000 / g->rows);
	if (g->untimed)
		t2f_out__printf(out, "; %" PRIu64 " sample%s without a time not shown",
				g->untimed, g->untimed == 1 ? "" : "s");
	t2f_out__puts(out, "</text>\n");
	return 0;
}

/* A click on a cell puts its tooltip on the details line, where it can be selected and copied
 * (a tooltip cannot). */
static const char script[] =
	"document.addEventListener('click', function (e) {\n"
	"\tvar t = e.target.querySelector ? e.target.querySelector('title') : null;\n"
	"\tif (t)\n"
	"\t\tdocument.getElementById('details').textContent = t.textContent.replace('\\n', ': ');\n"
	"});\n";

int t2f_heatmap__write(const struct t2f_profile *p, const struct t2f_heatmap_opts *o,
		       struct t2f_out *out)
{
	struct grid g = { .p = p, .o = o, .ev = o->event ? o->event : 1 };
	struct t2f_buf tmp = { 0 };
	char msg[256];
	uint64_t gw, gh, h;
	unsigned w;
	struct cell c;
	size_t i = 0;
	int err = t2f_heatmap__check(p, o, msg, sizeof(msg));

	if (err)
		return err;
	err = grid_init(&g);
	if (err)
		return err;
	gw = g.columns * g.cw;
	gh = (uint64_t)g.rows * g.ch;
	w = (unsigned)(LEFT + gw + 20 > 640 ? LEFT + gw + 20 : 640);
	h = TOP + gh + BOTTOM;
	err = put_header(&g, out, &tmp, w, h);
	if (err)
		goto out;
	t2f_out__printf(out, "<rect x=\"%u\" y=\"%u\" width=\"%" PRIu64 "\" height=\"%" PRIu64
			"\" fill=\"" EMPTY "\"/>\n<g>\n", LEFT, TOP, gw, gh);
	while (next_cell(&g, &i, &c))
		put_cell(&g, out, &c);
	t2f_out__puts(out, "</g>\n");
	put_axes(&g, out);
	put_legend(&g, out, (unsigned)(TOP + gh + 44));
	t2f_out__printf(out, "<text id=\"details\" x=\"%u\" y=\"%" PRIu64 "\">Click a cell "
			"to show its --time here; its flame graph: trace2flame INPUT --time "
			"START,STOP -o OUT.svg</text>\n<script type=\"text/ecmascript\"><![CDATA[\n%s]]>"
			"</script>\n</svg>\n", LEFT, TOP + gh + 84, script);
out:
	t2f_buf__free(&tmp);
	free(g.b);
	return err;
}
