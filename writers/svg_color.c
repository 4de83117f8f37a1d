/* writers/svg_color.c: frame fills. Three numbers v1, v2, v3 in [0, 1] vary the colour within a
 * palette: from a hash of the name (--hash: a name keeps its colour across graphs), else from a
 * fixed pseudo-random sequence indexed by the frame's place in the output (deterministic, but
 * neighbours differ). A differential graph fills by the change of share instead: white, towards
 * red (grew) or blue (shrank). */
#include "writers/svg_int.h"

#include <stdio.h>
#include <string.h>

#include "formats/hashmap.h"

static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static void unit3(uint64_t h, double v[3])
{
	for (int i = 0; i < 3; i++)
		v[i] = (double)((h >> (i * 21)) & 0x1fffff) / (double)0x1fffff;
}

static unsigned clamp8(double x)
{
	return x < 0 ? 0 : x > 255 ? 255 : (unsigned)x;
}

/* Hue h in [0, 360), saturation s and lightness l in [0, 1] → rgb. */
static void hsl(double h, double s, double l, unsigned rgb[3])
{
	double c = (1 - (2 * l - 1 < 0 ? 1 - 2 * l : 2 * l - 1)) * s;
	double hp = h / 60, m = l - c / 2;
	int hi = (int)hp;
	double x = c * (hi % 2 ? 1 - (hp - hi) : hp - hi);
	double r = 0, g = 0, b = 0;

	switch (hi) {
	case 0: r = c; g = x; break;
	case 1: r = x; g = c; break;
	case 2: g = c; b = x; break;
	case 3: g = x; b = c; break;
	case 4: r = x; b = c; break;
	default: r = c; b = x; break;
	}
	rgb[0] = clamp8((r + m) * 255);
	rgb[1] = clamp8((g + m) * 255);
	rgb[2] = clamp8((b + m) * 255);
}

static void by_kind(enum t2f_frame_kind k, const double v[3], unsigned rgb[3])
{
	switch (k) {
	case T2F_FRAME_KERNEL: /* orange */
		rgb[0] = clamp8(225 + 30 * v[0]);
		rgb[1] = clamp8(130 + 50 * v[1]);
		rgb[2] = clamp8(20 + 40 * v[2]);
		break;
	case T2F_FRAME_JIT:
	case T2F_FRAME_MANAGED: /* green */
		rgb[0] = clamp8(50 + 60 * v[0]);
		rgb[1] = clamp8(190 + 50 * v[1]);
		rgb[2] = clamp8(50 + 60 * v[2]);
		break;
	case T2F_FRAME_INLINED: /* aqua */
		rgb[0] = clamp8(60 + 50 * v[0]);
		rgb[1] = clamp8(190 + 40 * v[1]);
		rgb[2] = clamp8(190 + 40 * v[1]);
		break;
	default: /* red */
		rgb[0] = clamp8(200 + 55 * v[0]);
		rgb[1] = clamp8(50 + 70 * v[1]);
		rgb[2] = clamp8(50 + 70 * v[1]);
		break;
	}
}

static uint64_t module_hash(const struct svg_tree *t, t2f_str_id module)
{
	size_t len;
	const char *s = t2f_profile__str(t->p, module, &len);
	const char *slash = memrchr(s, '/', len);

	if (module == 0)
		return 0;
	if (slash) {
		len -= (size_t)(slash + 1 - s);
		s = slash + 1;
	}
	return t2f_hash_bytes(s, len);
}

void svg_color(const struct svg_tree *t, const struct t2f_svg_opts *o, uint32_t n, uint64_t seq,
	       char *buf, size_t size)
{
	const struct svg_node *nd = &t->nodes[n];
	unsigned rgb[3];
	uint64_t h;
	double v[3];
	size_t len;
	const char *name = svg_tree__name(t, nd->name, &len);

	h = o->hash ? t2f_hash_bytes(name, len) : mix64(seq);
	unit3(mix64(h), v);
	switch (o->colors) {
	case T2F_COLORS_MEM:
		rgb[0] = clamp8(40 * v[0]);
		rgb[1] = clamp8(170 + 70 * v[1]);
		rgb[2] = clamp8(40 + 50 * v[2]);
		break;
	case T2F_COLORS_IO:
		rgb[0] = rgb[1] = clamp8(80 + 70 * v[0]);
		rgb[2] = clamp8(195 + 55 * v[1]);
		break;
	case T2F_COLORS_MODULE:
		if (nd->module)
			hsl((double)(mix64(module_hash(t, nd->module)) % 360), 0.55 + 0.2 * v[0],
			    0.55 + 0.1 * v[1], rgb);
		else
			rgb[0] = rgb[1] = rgb[2] = clamp8(180 + 30 * v[0]);
		break;
	case T2F_COLORS_KIND:
		by_kind((enum t2f_frame_kind)nd->kind, v, rgb);
		break;
	default:
		rgb[0] = clamp8(205 + 50 * v[2]);
		rgb[1] = clamp8(230 * v[0]);
		rgb[2] = clamp8(55 * v[1]);
		break;
	}
	snprintf(buf, size, "rgb(%u,%u,%u)", rgb[0], rgb[1], rgb[2]);
}

void svg_color_diff(double delta, double max, char *buf, size_t size)
{
	double t = max > 0 ? (delta < 0 ? -delta : delta) / max : 0;
	unsigned c = 255 - clamp8(190 * (t > 1 ? 1 : t) + 0.5);

	if (delta > 0)
		snprintf(buf, size, "rgb(255,%u,%u)", c, c);
	else if (delta < 0)
		snprintf(buf, size, "rgb(%u,%u,255)", c, c);
	else
		snprintf(buf, size, "rgb(255,255,255)");
}
