/* writers/speedscope_stacks.c: texts in one buffer, found by node: off[node] (+ 1; 0 = not made)
 * and len[node]. A node's text is made after its nearest made ancestor's, top down. */
#include "writers/speedscope_stacks.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats/decimal.h"

struct ss_stacks {
	const struct t2f_profile *p;
	const uint32_t *index;
	size_t budget;
	uint32_t max_depth;
	uint32_t *off, *len;   /* per node */
	uint32_t *path;        /* max_depth + 1 node ids of one make */
	struct t2f_buf text;
};

int ss_stacks__new(const struct t2f_profile *p, const uint32_t *index, uint32_t max_depth,
		   size_t budget, struct ss_stacks **out)
{
	size_t nodes = (size_t)t2f_profile__node_count(p) + 1;
	struct ss_stacks *c = calloc(1, sizeof(*c));

	*out = c;
	if (!c)
		return -ENOMEM;
	c->p = p;
	c->index = index;
	c->max_depth = max_depth;
	c->budget = budget < UINT32_MAX ? budget : UINT32_MAX;
	c->off = calloc(nodes, sizeof(*c->off));
	c->len = calloc(nodes, sizeof(*c->len));
	c->path = malloc(((size_t)max_depth + 1) * sizeof(*c->path));
	return c->off && c->len && c->path ? 0 : -ENOMEM;
}

void ss_stacks__free(struct ss_stacks *c)
{
	if (!c)
		return;
	free(c->off);
	free(c->len);
	free(c->path);
	t2f_buf__free(&c->text);
	free(c);
}

/* Makes node's text from its parent's (made, or node is root-level). False past the budget. */
static bool make_one(struct ss_stacks *c, t2f_node_id node)
{
	t2f_node_id parent = t2f_profile__node_parent(c->p, node);
	size_t from = parent ? c->off[parent] - 1 : 0, plen = parent ? c->len[parent] : 1;
	size_t start = c->text.len; /* parent's text without its ']' */

	if (start + plen + 12 > c->budget || t2f_buf__reserve(&c->text, plen + 12 + SS_STACK_SLACK))
		return false;
	if (parent) {
		memcpy(c->text.p + start, c->text.p + from, plen - 1);
		c->text.p[start + plen - 1] = ',';
	} else {
		c->text.p[start] = '[';
	}
	c->text.len = start + plen;
	c->text.len += t2f_dec_u64(c->text.p + c->text.len,
				   c->index[t2f_profile__node_frame(c->p, node)] - 1);
	c->text.p[c->text.len++] = ']';
	c->off[node] = (uint32_t)start + 1;
	c->len[node] = (uint32_t)(c->text.len - start);
	return true;
}

void ss_stacks__make(struct ss_stacks *c, t2f_node_id node)
{
	uint32_t n = 0;

	for (; node && !c->off[node] && n <= c->max_depth; node = t2f_profile__node_parent(c->p, node))
		c->path[n++] = node;
	if (node && !c->off[node])
		return; /* deeper than max_depth */
	while (n--)
		if (!make_one(c, c->path[n]))
			return;
}

/* Not made (past the budget): the stack from its nodes. */
static int walk(const struct ss_stacks *c, t2f_node_id node, struct t2f_buf *b, uint32_t *scratch)
{
	uint32_t n = 0;

	for (; node && n <= c->max_depth; node = t2f_profile__node_parent(c->p, node))
		scratch[n++] = c->index[t2f_profile__node_frame(c->p, node)] - 1;
	if (t2f_buf__reserve(b, 2 + (size_t)n * 11))
		return -ENOMEM;
	b->p[b->len++] = '[';
	while (n--) {
		b->len += t2f_dec_u64(b->p + b->len, scratch[n]);
		if (n)
			b->p[b->len++] = ',';
	}
	b->p[b->len++] = ']';
	return 0;
}

void ss_stacks__view(const struct ss_stacks *c, struct ss_stack_view *v)
{
	*v = (struct ss_stack_view){ c->text.p, c->off, c->len };
}

const char *ss_stacks__text(const struct ss_stacks *c, t2f_node_id node, size_t *len)
{
	if (!node) {
		*len = 2;
		return "[]";
	}
	*len = c->len[node];
	return c->off[node] ? c->text.p + c->off[node] - 1 : NULL;
}

int ss_stacks__put(const struct ss_stacks *c, t2f_node_id node, struct t2f_buf *b,
		   uint32_t *scratch)
{
	size_t len;
	const char *text = ss_stacks__text(c, node, &len);

	return text ? t2f_buf__put(b, text, len) : walk(c, node, b, scratch);
}
