/* writers/svg_int.h: the SVG writer's parts, shared by svg.c (output), svg_tree.c (the merged
 * frame tree) and svg_color.c (fills). Not a public interface.
 *
 * The tree: node 0 is "all"; every other node is one frame of the graph, a (parent, display name)
 * pair, with its own weight (samples that end there) and its total (own + descendants'). Children
 * are linked in display order (bytewise by name, or time order for a flame chart) after
 * svg_tree__order(). Display names are interned into dense ids; a name's text is not
 * NUL-terminated. The tree owns everything; freed by svg_tree__free().
 */
#ifndef T2F_SVG_INT_H
#define T2F_SVG_INT_H

#include <stdint.h>

#include "formats/buf.h"
#include "formats/hashmap.h"
#include "writers/svg.h"

struct svg_node {
	uint32_t parent;
	uint32_t name;          /* display name id */
	uint32_t first_child;   /* 0 = none (node 0 is never a child) */
	uint32_t next_sibling;  /* 0 = last */
	uint32_t last_child;    /* while building a flame chart */
	uint32_t depth;         /* 0 for "all" */
	t2f_str_id module;      /* of the first frame merged here; 0 = none */
	uint8_t kind;           /* enum t2f_frame_kind of that frame */
	/* where the functions of the frames merged here are (t2f_frame__fn_position), as far as
	 * they all agree: the file when only the lines differ, else 0 */
	t2f_str_id src_file;
	uint32_t src_line;
	uint64_t total;
};

struct svg_tree {
	const struct t2f_profile *p;
	struct svg_node *nodes;
	uint32_t count, cap;
	uint32_t max_depth;
	/* display names */
	struct t2f_buf text;
	size_t *name_off;          /* name i is text[name_off[i] .. name_off[i + 1]) */
	uint32_t name_count, name_cap;
	struct t2f_hashmap *name_map;  /* name text -> id + 1 */
	struct t2f_hashmap *child_map; /* (parent, name) -> node id (not for node 0) */
	uint32_t *frame_name;      /* per frame id: display name id */
	uint32_t *thread_name;     /* per thread id: display name id */
	uint32_t *path;            /* one stack's name ids, display order */
	uint32_t *path_frame;      /* and their frame ids (0 for a thread name) */
};

/* Builds the merged tree of event `ev` (weights per o). 0, -ENOMEM, -EINVAL (flame chart
 * without a sample log), -T2F_ERR_LIMIT (over 2^32 nodes). *out is freed by svg_tree__free even on
 * failure. */
int svg_tree__build(const struct t2f_profile *p, const struct t2f_svg_opts *o, t2f_event_id ev,
		    struct svg_tree *out);
void svg_tree__free(struct svg_tree *t);
const char *svg_tree__name(const struct svg_tree *t, uint32_t name, size_t *len);
/* The child of node `parent` whose display name is s[0..len), or 0 (flame graph trees only). */
uint32_t svg_tree__find_child(const struct svg_tree *t, uint32_t parent, const char *s, size_t len);

/* The fill of node n as "rgb(r,g,b)" into buf (at least 24 bytes). `seq` is the node's index in
 * output order (used when colours do not come from the name). */
void svg_color(const struct svg_tree *t, const struct t2f_svg_opts *o, uint32_t n, uint64_t seq,
	       char *buf, size_t size);

/* A differential fill: `delta` (a change of share) against `max` (the largest |delta|, >= 0):
 * white at 0, towards red when positive, towards blue when negative. */
void svg_color_diff(double delta, double max, char *buf, size_t size);

/* The embedded script and style (generated from writers/svg_script.js and svg_style.css). */
extern const char t2f_svg_script[];
extern const char t2f_svg_style[];

#endif
