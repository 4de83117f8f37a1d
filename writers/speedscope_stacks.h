/* writers/speedscope_stacks.h: each stack node's frame list as speedscope JSON ("[3,0,7]", root
 * first), made once per node and copied for every sample of it.
 *
 * A node's text is its parent's with one index more, so it is built from the parent's. The texts
 * are kept up to a byte budget; past it a stack is written by walking its nodes. Internal to the
 * speedscope writer. Not thread safe.
 */
#ifndef T2F_SPEEDSCOPE_STACKS_H
#define T2F_SPEEDSCOPE_STACKS_H

#include <stddef.h>
#include <stdint.h>

#include "formats/buf.h"
#include "formats/profile.h"

struct ss_stacks;

/* index: per frame id, the frame's shared index + 1 (borrowed: kept until ss_stacks__free);
 * max_depth: the deepest stack that will be written; budget: bytes of text kept at most.
 * 0 or -ENOMEM. */
int ss_stacks__new(const struct t2f_profile *p, const uint32_t *index, uint32_t max_depth,
		   size_t budget, struct ss_stacks **out);
void ss_stacks__free(struct ss_stacks *c); /* NULL is fine */

/* Makes the text of node and of its ancestors, unless past the budget. Not thread safe. */
void ss_stacks__make(struct ss_stacks *c, t2f_node_id node);
/* Node's text and its length, or NULL when it was not made (past the budget). Reads c only. */
const char *ss_stacks__text(const struct ss_stacks *c, t2f_node_id node, size_t *len);
/* The made texts, for lookups without a call: node n's text is text + off[n] - 1, len[n] bytes
 * (off[n] 0: not made; node 0 is never made), followed by at least SS_STACK_SLACK readable bytes
 * (a short text can be copied in one fixed-size move). Borrowed from c; valid until its next make
 * or its free. */
#define SS_STACK_SLACK 32
struct ss_stack_view {
	const char *text;
	const uint32_t *off, *len;
};
void ss_stacks__view(const struct ss_stacks *c, struct ss_stack_view *v);
/* Appends node's stack to b (node 0 is the empty stack "[]"): its text when made, else the stack
 * from its nodes, in scratch (max_depth + 1 entries of the caller's). Reads c only: callers on
 * several threads may share c once every make call is done. 0 or -ENOMEM. */
int ss_stacks__put(const struct ss_stacks *c, t2f_node_id node, struct t2f_buf *b,
		   uint32_t *scratch);

#endif
