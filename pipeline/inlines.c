/* pipeline/inlines.c: each placed frame's DWARF chain, memoised per (frame, address kind), and
 * the stacks rebuilt with the chains in place of the frames. */
#include "pipeline/inlines.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "formats/bits.h"
#include "formats/buf.h"
#include "formats/grow.h"
#include "formats/plural.h"
#include "pipeline/inline_lookup.h"
#include "symbolizer/demangle.h"
#include "symbolizer/dwarf.h"
#include "symbolizer/symbolizer.h"

enum { AT_IP = 1, AT_CALL = 2 }; /* the address itself; a return address, looked up at - 1 */

struct inl_chain {               /* frames of the new profile: pool[first .. first + len) */
	uint32_t first, len;     /* len 0: not made yet */
};

struct inl_both {
	t2f_node_id p, q;
};

struct inl {
	struct t2f_profile *p, *q;   /* the profile, and its new frames and stacks */
	const struct t2f_resym *r;
	struct t2f_symbolizer *sym;
	const struct t2f_inline_opts *o;
	struct t2f_inline_stats *st;
	struct inl_chain *chains[2]; /* per frame of p: at the address, at the call */
	t2f_frame_id *pool;
	size_t n_pool, cap_pool;
	uint8_t *need;               /* per node of p: AT_IP | AT_CALL, the forms stacks use */
	uint8_t *forms;              /* per frame of p: the forms its nodes need */
	uint8_t *kernel;             /* per frame of p: a kernel frame (inl_parent_form) */
	t2f_node_id *map;            /* per node of p: its node in q, in the first form it needs
				      * (AT_IP, else AT_CALL) */
	struct inl_both *both;       /* the nodes of p that need both forms, in id order: their
				      * node in q at the call (inl_mapped) */
	size_t n_both, cap_both;
	t2f_node_id *first;          /* per node of q (0: the root): its first child, which q's
				      * node index lacks (inl_child), or 0 */
	size_t cap_first;
	uint32_t *lookup[2];         /* per frame of p, per form: its lookup + 1; 0: none (no
				      * DWARF for it, or the form is not needed) */
	struct t2f_inl_lookups *lk;
	struct t2f_buf name;
};

static int inl_push(struct inl *x, const struct t2f_frame *f)
{
	int err = t2f_grow((void **)&x->pool, &x->cap_pool, x->n_pool, 1, sizeof(*x->pool), 256,
			   UINT32_MAX);

	return err ?: t2f_profile__frame(x->q, f, &x->pool[x->n_pool++]);
}

static int inl_intern(struct inl *x, const char *s, t2f_str_id *id)
{
	*id = 0;
	return s ? t2f_profile__intern(x->p, s, strlen(s), id) : 0;
}

/* Demangled names longer than this are not used: the raw name (at most T2F_DWARF_NAME_MAX)
 * names the level. The longest of libLLVM-14's 100,000 exported functions demangles to 4,283
 * bytes; 700 bytes of crafted name demangle to 250 KB, which 64 levels of one frame repeat. */
#define INL_PRETTY_MAX (4 * T2F_DWARF_NAME_MAX)

/* A linkage name demangled (malloc'd), or NULL: not a linkage name, not demangled, or longer
 * than INL_PRETTY_MAX. */
static char *inl_pretty(const struct t2f_dwarf_frame *lv, enum t2f_demangle_mode mode)
{
	char *pretty = lv->name && lv->linkage ? t2f_demangle(lv->name, mode) : NULL;

	if (pretty && strlen(pretty) > INL_PRETTY_MAX) {
		free(pretty);
		pretty = NULL;
	}
	return pretty;
}

/* A DWARF name as the frames are named: demangled, "FILE!" before it for nettrace. */
static int inl_name(struct inl *x, const struct t2f_frame *f, const struct t2f_dwarf_frame *lv,
		    t2f_str_id *id)
{
	char *pretty = inl_pretty(lv, x->o->no_params ? T2F_DEMANGLE_NO_PARAMS : T2F_DEMANGLE_FULL);
	const char *name = pretty ? pretty : lv->name;
	const char *path = f->module ? t2f_profile__str(x->p, f->module, NULL) : "";
	const char *base = strrchr(path, '/');
	int err = 0;

	*id = 0;
	x->name.len = 0;
	if (name && f->module_names)
		err = t2f_buf__puts(&x->name, base && base[1] ? base + 1 : path) ?:
		      t2f_buf__put(&x->name, "!", 1);
	if (name && !err)
		err = t2f_buf__puts(&x->name, name) ?:
		      t2f_profile__intern(x->p, x->name.p, x->name.len, id);
	free(pretty);
	return err;
}

/* The source positions of one level. */
static int inl_positions(struct inl *x, struct t2f_frame *g, const struct t2f_dwarf_frame *lv)
{
	g->line = lv->line;
	g->fn_line = lv->fn_line;
	return inl_intern(x, lv->file, &g->file) ?: inl_intern(x, lv->fn_file, &g->fn_file);
}

/* Whether frame f goes into the new stacks without its address: with drop_addrs, when it is
 * named (it kept its address only to be named or placed; the writers show it by its name), or
 * when it is not and drop_unnamed (they show it by its module). A "[unknown]" name is none. */
static bool inl_drops(const struct inl *x, const struct t2f_frame *f)
{
	size_t len = 0;
	const char *name = f->name ? t2f_profile__str(x->p, f->name, &len) : "";

	return x->o->drop_addrs && f->has_addr &&
	       (!t2f_unknown_name(name, len) || x->o->drop_unnamed);
}

/* The frame as it goes into the new stacks: without the address nothing shows (inl_drops), and
 * without the mark of the unwound, which only named it. */
static struct t2f_frame inl_base(const struct inl *x, const struct t2f_frame *f)
{
	struct t2f_frame g = *f;

	g.unwound = false;
	if (inl_drops(x, f)) {
		g.has_addr = false;
		g.addr = 0;
		g.space = T2F_SPACE_FILE_OFF;
	}
	return g;
}

/* The address a form of frame id is looked up at, when it was placed: true and *mod, *va. */
static bool inl_place(const struct inl *x, t2f_frame_id id, int at, t2f_sym_module_id *mod,
		      uint64_t *va)
{
	if (!t2f_resym__place(x->r, id, mod, va))
		return false;
	if (at == AT_CALL && *va > 0)
		(*va)--;
	return true;
}

/* The name of the function holding frame id's code in form `at` (root: the outermost level of
 * its DWARF chain, or NULL), when perf's unwinder found the frame and perf named it: perf
 * names those frames as binutils' addr2line prints them, not by its symbol table. That is the
 * DWARF name where it is the symbol's own (symbolizer/dwarf.h as_symbol: __GI___libc_malloc,
 * __libc_start_main_impl, init_cpu_features; not malloc, __libc_start_main@@GLIBC_2.34,
 * init_cpu_features.constprop.0), else the symbol addr2line picks (t2f_symbolizer__a2l_name:
 * coll::check for DWARF's "check", stamp_v1 over stamp@@STAMP_1), else perf's; never with a
 * symbol version (the symbolizer's names have none). */
static int inl_unwound_name(struct inl *x, t2f_frame_id id, int at,
			    const struct t2f_dwarf_frame *root, t2f_str_id *name)
{
	const struct t2f_frame *f = t2f_profile__frame_at(x->p, id);
	t2f_sym_module_id mod;
	t2f_str_id a2l = 0;
	uint64_t va;
	int err;

	if (root && root->name && root->as_symbol)
		return inl_name(x, f, root, name);
	if (!inl_place(x, id, at, &mod, &va))
		return 0;
	err = t2f_symbolizer__a2l_name(x->sym, mod, va, &a2l);
	if (!err && a2l)
		*name = a2l;
	return err;
}

/* The chain's frames into the pool: the holding function (its name kept, perf's symbol, but
 * for the unwound: inl_unwound_name), then the inlined ones outward in. */
static int inl_levels(struct inl *x, t2f_frame_id id, int at, const struct t2f_dwarf_frame *lv,
		      int n)
{
	const struct t2f_frame *f = t2f_profile__frame_at(x->p, id);
	struct t2f_frame g = inl_base(x, f);
	int err = inl_positions(x, &g, &lv[n - 1]);

	if (!err && !g.name)
		err = inl_name(x, f, &lv[n - 1], &g.name);
	else if (!err && f->unwound)
		err = inl_unwound_name(x, id, at, &lv[n - 1], &g.name);
	err = err ?: inl_push(x, &g);
	for (int k = n - 2; k >= 0 && !err; k--) {
		g = (struct t2f_frame){ .module = f->module, .kind = T2F_FRAME_INLINED };
		err = inl_name(x, f, &lv[k], &g.name) ?: inl_positions(x, &g, &lv[k]) ?:
		      inl_push(x, &g);
	}
	return err;
}

/* Queues frame id's lookups in the forms its nodes need, when it was placed in a module with
 * DWARF: the chains the symbol cache holds as known, the others for DWARF. */
static int inl_queue(struct inl *x, t2f_frame_id id)
{
	struct t2f_dwarf_frame lv[T2F_DWARF_MAX_DEPTH];
	struct t2f_dwarf *dw = NULL;
	t2f_sym_module_id mod;
	uint64_t va;
	int has = 0, err = 0, n;

	if (t2f_resym__place(x->r, id, &mod, &va))
		has = t2f_symbolizer__cached_dwarf(x->sym, mod);
	if (has == 2)
		err = t2f_symbolizer__dwarf_lazy(x->sym, mod, &dw);
	if (has < 0 || err || (has == 2 && !dw))
		return has < 0 ? has : err;
	for (int at = AT_IP; !err && has && at <= AT_CALL; at++) {
		uint32_t *slot = &x->lookup[at == AT_CALL][id];

		if (!(x->forms[id] & at) || !inl_place(x, id, at, &mod, &va))
			continue;
		n = t2f_symbolizer__cached_inlines(x->sym, mod, va, lv, T2F_DWARF_MAX_DEPTH);
		if (n >= 0) {
			err = t2f_inl_lookups__add_known(x->lk, lv, (size_t)n, slot);
		} else {
			err = dw ? 0 : t2f_symbolizer__dwarf_lazy(x->sym, mod, &dw);
			if (!err && !dw)
				break;
			err = err ?: t2f_inl_lookups__add(x->lk, dw, va, slot);
		}
		*slot += !err;
	}
	return err;
}

/* The lookups of files that turned out to have no DWARF (opened lazily), undone: their frames
 * are then as those of any file without DWARF. */
static void inl_unqueue_none(struct inl *x)
{
	uint32_t nf = t2f_profile__frame_count(x->p);

	for (t2f_frame_id f = 1; f <= nf; f++) {
		for (int k = 0; k < 2; k++) {
			uint32_t *slot = &x->lookup[k][f];

			if (*slot && t2f_inl_lookups__no_dwarf(x->lk, *slot - 1))
				*slot = 0;
		}
	}
}

/* Every lookup the stacks need, then all of them at once (-j: each file's DWARF begun on the
 * thread of its lookups, let go after its last; the chains keep copies of their strings), then
 * what they left out (settling the files opened lazily). */
static int inl_lookup_all(struct inl *x)
{
	uint32_t nf = t2f_profile__frame_count(x->p);
	int err = 0;

	for (t2f_frame_id f = 1; f <= nf && !err; f++)
		err = x->forms[f] ? inl_queue(x, f) : 0;
	err = err ?: t2f_inl_lookups__run(x->lk, x->o->threads, true);
	if (err)
		return err;
	x->st->files = t2f_inl_lookups__handles(x->lk);
	x->st->ended = t2f_inl_lookups__ended(x->lk);
	inl_unqueue_none(x);
	return t2f_symbolizer__report_dwarf(x->sym);
}

/* The DWARF chain of frame id in form `at`, innermost first: its count (0: none) and *lv. */
static int inl_lookup(struct inl *x, t2f_frame_id id, int at, const struct t2f_dwarf_frame **lv)
{
	uint32_t slot = x->lookup[at == AT_CALL][id];
	t2f_sym_module_id mod;
	uint64_t va;
	int n;

	if (!slot)
		return 0;
	n = t2f_inl_lookups__get(x->lk, slot - 1, lv);
	if (t2f_inl_lookups__known(x->lk, slot - 1))
		x->st->cached++;
	else
		x->st->lookups++;
	if (!t2f_inl_lookups__known(x->lk, slot - 1) && inl_place(x, id, at, &mod, &va)) {
		uint64_t lo, last;
		int err;

		t2f_inl_lookups__span(x->lk, slot - 1, &lo, &last);
		err = t2f_symbolizer__note_inlines(x->sym, mod, va, lo, last, *lv, (size_t)n);

		if (err)
			return err;
	}
	x->st->found += n > 0;
	x->st->inlined += n > 1;
	return n;
}

static int inl_chain(struct inl *x, t2f_frame_id id, int at, const struct inl_chain **out)
{
	struct inl_chain *c = &x->chains[at == AT_CALL][id];
	const struct t2f_dwarf_frame *lv;
	const struct t2f_frame *f = t2f_profile__frame_at(x->p, id);
	size_t first = x->n_pool;
	int n, err;

	*out = c;
	if (c->len)
		return 0;
	n = inl_lookup(x, id, at, &lv);
	if (n < 0)
		return n;
	if (n) {
		err = inl_levels(x, id, at, lv, n);
	} else {
		struct t2f_frame g = inl_base(x, f);

		err = (f->unwound && g.name ? inl_unwound_name(x, id, at, NULL, &g.name) : 0) ?:
		      inl_push(x, &g);
	}
	if (err)
		return err;
	c->first = (uint32_t)first;
	c->len = (uint32_t)(x->n_pool - first);
	if (!x->lookup[at == AT_CALL][id]) /* no DWARF (or the other form alone is needed) */
		x->chains[at != AT_CALL][id] = *c;
	return 0;
}

/* The form a node's parent is used in: the interrupted instruction below a kernel frame, a
 * call everywhere else. From x->kernel, not the frame: on a whole-machine trie the frames of
 * nodes in a row are far apart, each read a cache miss, and every node asks two or three
 * times. */
static int inl_parent_form(const struct inl *x, t2f_node_id n)
{
	return x->kernel[t2f_profile__node_frame(x->p, n)] ? AT_IP : AT_CALL;
}

static int inl_both_cmp(const void *key, const void *elem)
{
	t2f_node_id nd = *(const t2f_node_id *)key, p = ((const struct inl_both *)elem)->p;

	return (nd > p) - (nd < p);
}

/* Node nd's node in q, in form `at` (one nd needs). A node needs both forms where a sample
 * stopped in it and another went on into a child (10,823 of 868,710 nodes on a whole-machine
 * recording): their call form is looked up in x->both, not kept in a second map per node. */
static t2f_node_id inl_mapped(const struct inl *x, t2f_node_id nd, int at)
{
	const struct inl_both *b;

	if (at == AT_IP || x->need[nd] != (AT_IP | AT_CALL))
		return x->map[nd];
	b = x->n_both ? bsearch(&nd, x->both, x->n_both, sizeof(*x->both), inl_both_cmp) : NULL;
	return b ? b->q : 0;
}

/* Records q's node `to` as node nd's in form `at`. 0 or -ENOMEM. */
static int inl_set_mapped(struct inl *x, t2f_node_id nd, int at, t2f_node_id to)
{
	int err;

	if (at == AT_IP || x->need[nd] != (AT_IP | AT_CALL)) {
		x->map[nd] = to;
		return 0;
	}
	err = t2f_grow((void **)&x->both, &x->cap_both, x->n_both, 1, sizeof(*x->both), 256,
		       SIZE_MAX);
	if (!err)
		x->both[x->n_both++] = (struct inl_both){ nd, to };
	return err;
}

/* Which forms of each node the stacks use (cells at the address, parents per their child),
 * and so of each frame. */
static void inl_mark(struct inl *x)
{
	uint32_t n = t2f_profile__node_count(x->p);
	size_t cells = t2f_profile__cell_count(x->p);

	for (size_t i = 0; i < cells; i++)
		x->need[t2f_profile__cell_at(x->p, i)->node] |= AT_IP;
	for (t2f_node_id nd = n; nd > 0; nd--) {
		t2f_node_id up = t2f_profile__node_parent(x->p, nd);

		if (x->need[nd] && up)
			x->need[up] |= (uint8_t)inl_parent_form(x, nd);
		x->forms[t2f_profile__node_frame(x->p, nd)] |= x->need[nd];
	}
}

/* The child of q's node `to` through frame f. A node's first child is kept in x->first, not in
 * q's node index (t2f_profile__child_unindexed), and asked for first: on a whole-machine trie
 * most new nodes are the first child of one made just before, and the index's slot for it
 * was a cache miss each, to look it up and to add it. 0 or an error. */
static int inl_child(struct inl *x, t2f_node_id to, t2f_frame_id f, t2f_node_id *out)
{
	uint32_t n = t2f_profile__node_count(x->q);
	t2f_node_id c = x->first[to];
	int err;

	if (c && t2f_profile__node_frame(x->q, c) == f) {
		*out = c;
		return 0;
	}
	err = c ? t2f_profile__child(x->q, to, f, out)
		: t2f_profile__child_unindexed(x->q, to, f, out);
	if (!err && !c)
		x->first[to] = *out;
	if (err || *out <= n)
		return err;
	err = t2f_grow((void **)&x->first, &x->cap_first, n + 1, 1, sizeof(*x->first), 4096,
		       SIZE_MAX); /* a new node: ids 0..n + 1 */
	if (!err)
		x->first[*out] = 0;
	return err;
}

/* Node nd in form `at`: its parent's node in the form nd needs, then its chain. */
static int inl_node(struct inl *x, t2f_node_id nd, int at)
{
	t2f_node_id up = t2f_profile__node_parent(x->p, nd);
	t2f_node_id to = up ? inl_mapped(x, up, inl_parent_form(x, nd)) : 0;
	const struct inl_chain *c;
	int err = inl_chain(x, t2f_profile__node_frame(x->p, nd), at, &c);

	for (uint32_t i = 0; !err && i < c->len; i++)
		err = inl_child(x, to, x->pool[c->first + i], &to);
	return err ?: inl_set_mapped(x, nd, at, to);
}

/* Asks for what node nd's lookups read first, when its parent is mapped already (its id below
 * `done`): on a whole-machine trie they miss the caches, and a third of the nodes are the child
 * of the node just before them (asked for too late to help). Two steps: its parent's node in q
 * and its chains INL_FAR nodes ahead (h14.data warm: the build 18 -> 15 ms), then the index
 * slot of its first child lookup INL_AHEAD nodes ahead. Asking for the node the slot names as
 * well (4 ahead) made it slower: reading the slot then waits. */
static void inl_ask_far(const struct inl *x, t2f_node_id nd)
{
	t2f_node_id up = t2f_profile__node_parent(x->p, nd);
	t2f_frame_id f = t2f_profile__node_frame(x->p, nd);

	if (up)
		__builtin_prefetch(&x->map[up]);
	__builtin_prefetch(&x->chains[0][f]);
	__builtin_prefetch(&x->chains[1][f]);
}

static void inl_ask(const struct inl *x, t2f_node_id nd, t2f_node_id done)
{
	t2f_node_id up = t2f_profile__node_parent(x->p, nd);
	t2f_frame_id f = t2f_profile__node_frame(x->p, nd);
	t2f_node_id to = 0;

	if (up >= done)
		return;
	if (up)
		to = inl_mapped(x, up, inl_parent_form(x, nd));
	for (int at = AT_IP; at <= AT_CALL; at++) {
		const struct inl_chain *c = &x->chains[at == AT_CALL][f];

		if ((x->need[nd] & at) && c->len)
			t2f_profile__prefetch_child(x->q, to, x->pool[c->first]);
	}
}

/* Frames whose chain is the frame alone (no DWARF lookup, no name to find for it), gathered
 * so that their frames in the new profile are found or added together, their index slots asked
 * for ahead (t2f_profile__frames): on a whole-machine recording they are nearly all. */
#define INL_BATCH 256
#define INL_FAR 16  /* nodes asked for ahead of their lookups (inl_ask_far, inl_ask) */
#define INL_AHEAD 8
#define INL_FORGET 65536 /* old nodes given back at a time (t2f_profile__forget_nodes_below) */
struct inl_batch {
	size_t n;
	t2f_frame_id id[INL_BATCH];
	uint8_t at[INL_BATCH];
	struct t2f_frame g[INL_BATCH];
	t2f_frame_id out[INL_BATCH];
};

/* Whether frame id's chain in form `at` is its base frame alone: *g, that frame. */
static bool inl_alone(const struct inl *x, t2f_frame_id id, int at, struct t2f_frame *g)
{
	const struct t2f_frame *f = t2f_profile__frame_at(x->p, id);

	if (x->lookup[at == AT_CALL][id])
		return false;
	*g = inl_base(x, f);
	return !(f->unwound && g->name);
}

/* The batch's frames into the new profile and their chains (the other form's too: without a
 * lookup the two are one, as inl_chain makes them). */
static int inl_flush(struct inl *x, struct inl_batch *b)
{
	int err = t2f_grow((void **)&x->pool, &x->cap_pool, x->n_pool, b->n, sizeof(*x->pool),
			   256, UINT32_MAX) ?:
		  (b->n ? t2f_profile__frames(x->q, b->n, b->g, b->out) : 0);

	for (size_t i = 0; i < b->n && !err; i++) {
		struct inl_chain c = { (uint32_t)x->n_pool, 1 };

		x->pool[x->n_pool++] = b->out[i];
		x->chains[b->at[i] == AT_CALL][b->id[i]] = c;
		x->chains[b->at[i] != AT_CALL][b->id[i]] = c;
	}
	b->n = 0;
	return err;
}

/* Frame id's chain in form `at`: gathered in b when it is the frame alone, else (b's before it
 * made first) made here. */
static int inl_chain_at(struct inl *x, struct inl_batch *b, t2f_frame_id id, int at)
{
	const struct inl_chain *c;
	int err;

	if (x->chains[at == AT_CALL][id].len)
		return 0;
	if (inl_alone(x, id, at, &b->g[b->n])) {
		b->id[b->n] = id;
		b->at[b->n++] = (uint8_t)at;
		return b->n == INL_BATCH ? inl_flush(x, b) : 0;
	}
	err = inl_flush(x, b);
	return err ?: inl_chain(x, id, at, &c);
}

/* Every chain the stacks use, made in the old frames' id order: the new frames come in that
 * order, whatever the order of the nodes (two readers of one recording may build different
 * tries, one frame per address or per name, but give their frames the same order). */
static int inl_chains(struct inl *x)
{
	uint32_t nf = t2f_profile__frame_count(x->p);
	struct inl_batch *b = malloc(sizeof(*b));
	int err = b ? 0 : -ENOMEM;

	if (b)
		b->n = 0;
	for (t2f_frame_id f = 1; f <= nf && !err; f++) {
		bool ip_alone = (x->forms[f] & AT_IP) && !x->lookup[0][f];

		if (x->forms[f] & AT_IP)
			err = inl_chain_at(x, b, f, AT_IP);
		/* a frame alone at its address is alone at its call: made with the first */
		if (!err && (x->forms[f] & AT_CALL) && !ip_alone)
			err = inl_chain_at(x, b, f, AT_CALL);
	}
	err = err ?: inl_flush(x, b);
	free(b);
	return err;
}

/* How many of p's nodes are not the first child of their parent. */
static size_t inl_later_children(const struct inl *x)
{
	uint32_t n = t2f_profile__node_count(x->p);
	uint64_t *parent = calloc((size_t)n / 64 + 1, sizeof(*parent));
	size_t later = n;

	if (!parent)
		return n; /* an estimate: the index then grows (or fails) at its first inserts */
	for (t2f_node_id nd = 1; nd <= n; nd++) {
		t2f_node_id up = t2f_profile__node_parent(x->p, nd);

		later -= !t2f_bit_get(parent, up);
		t2f_bit_set(parent, up);
	}
	free(parent);
	return later;
}

static int inl_build(struct inl *x)
{
	uint32_t n = t2f_profile__node_count(x->p);
	int err = 0;

	inl_mark(x);
	err = inl_lookup_all(x) ?: inl_chains(x);
	/* every chain the stacks use is made (its strings interned): the lookups' memory goes
	 * before the new stacks grow */
	t2f_inl_lookups__free(x->lk);
	x->lk = NULL;
	for (int k = 0; k < 2; k++) { /* read by the chains alone (inl_alone, inl_chain) */
		free(x->lookup[k]);
		x->lookup[k] = NULL;
	}
	t2f_symbolizer__dwarf_done(x->sym);
	/* q's node index holds only the nodes that are not the first child of theirs
	 * (inl_child), about as many as p has or fewer (a function's frames at different
	 * addresses become one without them): made for that many at once. On a whole-machine
	 * recording of 868,710 nodes: 136,421 in p, 114,728 indexed in q; 2 MiB of slots where
	 * an index made for half of p's nodes took 8 */
	err = err ?: t2f_profile__presize_nodes(x->q, inl_later_children(x) + 1);
	for (t2f_node_id nd = 1; nd <= n && !err; nd++) {
		if (nd + INL_FAR <= n)
			inl_ask_far(x, nd + INL_FAR);
		if (nd + INL_AHEAD <= n)
			inl_ask(x, nd + INL_AHEAD, nd);
		if (x->need[nd] & AT_IP)
			err = inl_node(x, nd, AT_IP);
		if (!err && (x->need[nd] & AT_CALL))
			err = inl_node(x, nd, AT_CALL);
		/* an old node is read for the last time as it is mapped (its children read their
		 * own and its map): the old stacks shrink as the new grow (h27.data: 10.4 MB of
		 * old nodes, 9.5 of new) */
		if (nd % INL_FORGET == 0)
			t2f_profile__forget_nodes_below(x->p, nd + 1);
	}
	t2f_profile__drop_indexes(x->q); /* its node index lacks the first children (inl_child) */
	return err;
}

static int inl_alloc(struct inl *x)
{
	size_t frames = (size_t)t2f_profile__frame_count(x->p) + 1;
	size_t nodes = (size_t)t2f_profile__node_count(x->p) + 1;

	x->chains[0] = calloc(frames, sizeof(**x->chains));
	x->chains[1] = calloc(frames, sizeof(**x->chains));
	x->need = calloc(nodes, 1);
	x->forms = calloc(frames, 1);
	x->kernel = malloc(frames);
	x->map = calloc(nodes, sizeof(*x->map));
	x->first = calloc(nodes, sizeof(*x->first));
	x->cap_first = nodes;
	x->lookup[0] = calloc(frames, sizeof(**x->lookup));
	x->lookup[1] = calloc(frames, sizeof(**x->lookup));
	if (!x->chains[0] || !x->chains[1] || !x->need || !x->forms || !x->kernel || !x->map ||
	    !x->first || !x->lookup[0] || !x->lookup[1])
		return -ENOMEM;
	x->kernel[0] = 0;
	for (size_t id = 1; id < frames; id++)
		x->kernel[id] = t2f_profile__frame_at(x->p, (t2f_frame_id)id)->kind == T2F_FRAME_KERNEL;
	/* the frames' index as the stacks' (inl_build) */
	return t2f_inl_lookups__new(&x->lk) ?:
	       t2f_profile__new_stacks(x->p, !x->o->drop_addrs, &x->q);
}

/* What building the stacks took, but q and the map (the restack's);
 * called again by inl_free. */
static void inl_free_build(struct inl *x)
{
	for (int k = 0; k < 2; k++) {
		free(x->chains[k]);
		free(x->lookup[k]);
		x->chains[k] = NULL;
		x->lookup[k] = NULL;
	}
	free(x->both);
	free(x->first);
	free(x->pool);
	free(x->need);
	free(x->forms);
	free(x->kernel);
	x->both = NULL;
	x->pool = NULL;
	x->first = NULL;
	x->need = x->forms = x->kernel = NULL;
	t2f_inl_lookups__free(x->lk);
	x->lk = NULL;
	t2f_buf__free(&x->name);
}

static void inl_free(struct inl *x)
{
	inl_free_build(x);
	free(x->map);
	t2f_profile__free(x->q);
}

/* Counts the frames perf printed as inlined; whether any frame was placed (else the stacks
 * stay as read: frames that kept an address only to be placed show as their name anyway). */
static bool inl_worth(const struct inl *x)
{
	uint32_t n = t2f_profile__frame_count(x->p);
	bool placed = false;
	t2f_sym_module_id mod;
	uint64_t va;

	for (t2f_frame_id id = 1; id <= n; id++) {
		x->st->kept += t2f_profile__frame_at(x->p, id)->kind == T2F_FRAME_INLINED;
		placed = placed || t2f_resym__place(x->r, id, &mod, &va);
	}
	return placed && !x->st->kept;
}

int t2f_inlines__expand(struct t2f_profile *p, const struct t2f_resym *r,
			const struct t2f_inline_opts *o, struct t2f_inline_stats *st)
{
	struct inl x = { .p = p, .r = r, .sym = t2f_resym__symbolizer(r), .o = o, .st = st };
	int err;

	memset(st, 0, sizeof(*st));
	if (!inl_worth(&x))
		return 0;
	err = inl_alloc(&x) ?: inl_build(&x);
	for (t2f_frame_id id = 1; !err && id <= t2f_profile__frame_count(x.q); id++)
		st->levels += t2f_profile__frame_at(x.q, id)->kind == T2F_FRAME_INLINED;
	inl_free_build(&x); /* before the restack's own memory */
	err = err ?: t2f_profile__restack(p, x.q, x.map);
	inl_free(&x);
	return err;
}

void t2f_inlines__print_stats(FILE *f, const struct t2f_inline_stats *st)
{
	char cached[64] = "";

	if (st->cached)
		snprintf(cached, sizeof(cached), ", %" PRIu64 " answered from the symbol cache",
			 st->cached);
	if (st->kept)
		fprintf(f, "inline frames: %" PRIu64 " printed by perf, kept (nothing looked up)\n",
			st->kept);
	else if (st->lookups || st->cached)
		fprintf(f, "inline frames: %" PRIu64 " address%s looked up in DWARF%s, %" PRIu64
			" found, %" PRIu64 " with inlined functions (%" PRIu64 " inlined frame%s)\n",
			st->lookups, st->lookups == 1 ? "" : "es", cached, st->found, st->inlined,
			st->levels, t2f_plural(st->levels));
	if (st->files)
		fprintf(f, "inline frames: DWARF of %" PRIu64 " file%s read, %" PRIu64
			" let go after %s last lookup\n", st->files, t2f_plural(st->files),
			st->ended, st->ended == 1 ? "its" : "their");
}
