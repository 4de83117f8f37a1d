/* symbolizer/elf_perf_tree.c: perf's symbol tree, rebuilt to answer lookups as perf does.
 *
 * perf keeps a file's symbols in a red-black tree ordered by start address (equal starts go
 * right, so in table order) and looks an address up by walking down from the root, taking the
 * first node whose [start, end] holds it (tools/perf/util/symbol.c symbols__find). Where ranges
 * overlap (a sizeless `_init` reaching over .plt, whose stubs perf inserts afterwards; a label
 * inside a function) the answer is the one the walk meets first, so it depends on the tree's
 * shape. The shape is a function of the insertions and erasures: the kept symbols in table order,
 * symbols__fixup_end (sizeless ones reach the next start; no change of shape),
 * symbols__fixup_duplicate (of two neighbours at one start the loser is erased, in order), then
 * the PLT stubs in relocation order. Linux's lib/rbtree.c is the textbook algorithm (insertion:
 * uncle red → recolour, else one or two rotations; erasure: a node with two children is replaced
 * by its successor, then the four sibling cases), which this file implements again; so the tree
 * here has perf's shape and a walk gives perf's answer.
 *
 * Nodes live in one array and link by index (NONE for none).
 */
#include "symbolizer/elf_internal.h"

#include <stdlib.h>

#include "formats/grow.h"

#define NONE T2F_ELF_NONE

static void set_child(struct t2f_elf_ptree *t, uint32_t parent, uint32_t old, uint32_t new_)
{
	struct t2f_elf_pnode *n = t->nodes;

	if (parent == NONE)
		t->root = new_;
	else if (n[parent].left == old)
		n[parent].left = new_;
	else
		n[parent].right = new_;
}

/* Rotates x down to the left (its right child y takes its place). */
static void rotate_left(struct t2f_elf_ptree *t, uint32_t x)
{
	struct t2f_elf_pnode *n = t->nodes;
	uint32_t y = n[x].right;

	n[x].right = n[y].left;
	if (n[y].left != NONE)
		n[n[y].left].parent = x;
	n[y].parent = n[x].parent;
	set_child(t, n[x].parent, x, y);
	n[y].left = x;
	n[x].parent = y;
}

static void rotate_right(struct t2f_elf_ptree *t, uint32_t x)
{
	struct t2f_elf_pnode *n = t->nodes;
	uint32_t y = n[x].left;

	n[x].left = n[y].right;
	if (n[y].right != NONE)
		n[n[y].right].parent = x;
	n[y].parent = n[x].parent;
	set_child(t, n[x].parent, x, y);
	n[y].right = x;
	n[x].parent = y;
}

static bool is_red(const struct t2f_elf_ptree *t, uint32_t x)
{
	return x != NONE && t->nodes[x].red;
}

static void insert_fixup(struct t2f_elf_ptree *t, uint32_t z)
{
	struct t2f_elf_pnode *n = t->nodes;

	while (is_red(t, n[z].parent)) {
		uint32_t p = n[z].parent, g = n[p].parent, u;

		if (p == n[g].left) {
			u = n[g].right;
			if (is_red(t, u)) {
				n[p].red = n[u].red = false;
				n[g].red = true;
				z = g;
				continue;
			}
			if (z == n[p].right) {
				z = p;
				rotate_left(t, z);
				p = n[z].parent;
			}
			n[p].red = false;
			n[g].red = true;
			rotate_right(t, g);
		} else {
			u = n[g].left;
			if (is_red(t, u)) {
				n[p].red = n[u].red = false;
				n[g].red = true;
				z = g;
				continue;
			}
			if (z == n[p].left) {
				z = p;
				rotate_right(t, z);
				p = n[z].parent;
			}
			n[p].red = false;
			n[g].red = true;
			rotate_left(t, g);
		}
	}
	n[t->root].red = false;
}

int t2f_elf_ptree__insert(struct t2f_elf_ptree *t, uint64_t start, uint64_t end, uint32_t sym)
{
	uint32_t z, at = t->root, parent = NONE;
	bool left = false;

	if (t->n == t->cap &&
	    t2f_grow((void **)&t->nodes, &t->cap, t->n, 1, sizeof(*t->nodes), 256, NONE))
		return -ENOMEM; /* nodes are numbered below NONE */
	while (at != NONE) {
		parent = at;
		left = start < t->nodes[at].start;
		at = left ? t->nodes[at].left : t->nodes[at].right;
	}
	z = (uint32_t)t->n++;
	t->nodes[z] = (struct t2f_elf_pnode){ start, end, NONE, NONE, parent, sym, true };
	if (parent == NONE)
		t->root = z;
	else if (left)
		t->nodes[parent].left = z;
	else
		t->nodes[parent].right = z;
	insert_fixup(t, z);
	return 0;
}

/* Restores the colours after a black node left from under `parent` (x: what took its place,
 * possibly NONE). */
static void erase_fixup(struct t2f_elf_ptree *t, uint32_t x, uint32_t parent)
{
	struct t2f_elf_pnode *n = t->nodes;
	uint32_t w;

	while (x != t->root && !is_red(t, x)) {
		if (x != n[parent].right) {  /* x is the left child (x may be NONE) */
			w = n[parent].right;
			if (is_red(t, w)) {
				n[w].red = false;
				n[parent].red = true;
				rotate_left(t, parent);
				w = n[parent].right;
			}
			if (!is_red(t, n[w].left) && !is_red(t, n[w].right)) {
				n[w].red = true;
				x = parent;
				parent = n[x].parent;
				continue;
			}
			if (!is_red(t, n[w].right)) {
				n[n[w].left].red = false;
				n[w].red = true;
				rotate_right(t, w);
				w = n[parent].right;
			}
			n[w].red = n[parent].red;
			n[parent].red = false;
			n[n[w].right].red = false;
			rotate_left(t, parent);
		} else {
			w = n[parent].left;
			if (is_red(t, w)) {
				n[w].red = false;
				n[parent].red = true;
				rotate_right(t, parent);
				w = n[parent].left;
			}
			if (!is_red(t, n[w].right) && !is_red(t, n[w].left)) {
				n[w].red = true;
				x = parent;
				parent = n[x].parent;
				continue;
			}
			if (!is_red(t, n[w].left)) {
				n[n[w].right].red = false;
				n[w].red = true;
				rotate_left(t, w);
				w = n[parent].left;
			}
			n[w].red = n[parent].red;
			n[parent].red = false;
			n[n[w].left].red = false;
			rotate_right(t, parent);
		}
		x = t->root;
	}
	if (x != NONE)
		n[x].red = false;
}

/* Puts v (or NONE) where u was under u's parent. */
static void transplant(struct t2f_elf_ptree *t, uint32_t u, uint32_t v)
{
	set_child(t, t->nodes[u].parent, u, v);
	if (v != NONE)
		t->nodes[v].parent = t->nodes[u].parent;
}

static uint32_t leftmost(const struct t2f_elf_ptree *t, uint32_t x)
{
	while (t->nodes[x].left != NONE)
		x = t->nodes[x].left;
	return x;
}

void t2f_elf_ptree__erase(struct t2f_elf_ptree *t, uint32_t z)
{
	struct t2f_elf_pnode *n = t->nodes;
	uint32_t y = z, x, xp;
	bool was_red = n[z].red;

	if (n[z].left == NONE) {
		x = n[z].right;
		xp = n[z].parent;
		transplant(t, z, x);
	} else if (n[z].right == NONE) {
		x = n[z].left;
		xp = n[z].parent;
		transplant(t, z, x);
	} else {
		y = leftmost(t, n[z].right);
		was_red = n[y].red;
		x = n[y].right;
		if (n[y].parent == z) {
			xp = y;
		} else {
			xp = n[y].parent;
			transplant(t, y, x);
			n[y].right = n[z].right;
			n[n[y].right].parent = y;
		}
		transplant(t, z, y);
		n[y].left = n[z].left;
		n[n[y].left].parent = y;
		n[y].red = n[z].red;
	}
	if (!was_red)
		erase_fixup(t, x, xp);
}

bool t2f_elf_ptree__find(const struct t2f_elf_ptree *t, uint64_t ip, uint32_t *sym,
			 uint64_t *start, uint64_t *end)
{
	const struct t2f_elf_pnode *n = t->nodes;

	for (uint32_t at = t->root; at != NONE;) {
		if (ip < n[at].start) {
			at = n[at].left;
		} else if (ip > n[at].end || (ip == n[at].end && ip != n[at].start)) {
			at = n[at].right;
		} else {
			*sym = n[at].sym;
			*start = n[at].start;
			*end = n[at].end;
			return true;
		}
	}
	return false;
}

void t2f_elf_ptree__span(const struct t2f_elf_ptree *t, uint64_t ip, uint64_t *lo,
			 uint64_t *last)
{
	const struct t2f_elf_pnode *n = t->nodes;
	uint64_t a = 0, b = UINT64_MAX;

	for (uint32_t at = t->root; at != NONE;) {
		uint64_t s = n[at].start, e = n[at].end;

		if (ip < s) {                  /* left: every address below s */
			b = s - 1 < b ? s - 1 : b;
			at = n[at].left;
		} else if (ip > e || (ip == e && ip != s)) {
			/* right: from e on (s + 1 on when sizeless; from s when e < s) */
			uint64_t r = e > s ? e : e == s ? s + 1 : s;

			a = r > a ? r : a;
			at = n[at].right;
		} else {                       /* the node: [s, e), or s alone */
			uint64_t top = e > s ? e - 1 : s;

			a = s > a ? s : a;
			b = top < b ? top : b;
			break;
		}
	}
	*lo = a;
	*last = b;
}

int t2f_elf_ptree__reserve(struct t2f_elf_ptree *t, size_t cap)
{
	struct t2f_elf_pnode *nodes;

	if (cap < t->n || cap >= NONE)
		return cap < t->n ? 0 : -ENOMEM; /* nodes are numbered below NONE */
	if (cap == t->cap)
		return 0;
	nodes = realloc(t->nodes, (cap ? cap : 1) * sizeof(*nodes));
	if (!nodes)
		return cap > t->cap ? -ENOMEM : 0; /* a failed shrink keeps the larger block */
	t->nodes = nodes;
	t->cap = cap;
	return 0;
}

void t2f_elf_ptree__free(struct t2f_elf_ptree *t)
{
	free(t->nodes);
	*t = (struct t2f_elf_ptree){ .root = NONE };
}
