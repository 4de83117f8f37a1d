/* symbolizer/unwind_memo.h: unwinds already done, reused (internal to symbolizer/unwind.c).
 *
 * What libdwfl does from a frame on depends only on the frame's state (its pc, its defined
 * registers), the memory it reads, and the modules of the process (the session, and the
 * caller's mapping generation). Each read's address follows from the state and the values read
 * before it, so when a sample reaches a frame whose state equals a frame of an earlier unwind
 * of the same session and generation, and each read that unwind made from that frame on gives
 * the same value in this sample's stack copy (or fails the same way: outside the copy), the rest
 * of the earlier unwind is this one's: its frames are copied instead of unwound again. Samples
 * of a thread share the frames of the functions that did not move between them.
 *
 * The last UW_MEMO_ENTRIES complete unwinds are kept (states, reads, frames); their frames are
 * found through a direct-mapped index on (session, pc, stack pointer). Memory: about 3 MiB.
 * Not thread safe (one per unwinder).
 */
#ifndef T2F_UNWIND_MEMO_H
#define T2F_UNWIND_MEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbolizer/unwind.h"

#define UW_MEMO_ENTRIES 64

struct uw_state {               /* a frame's state, as libdwfl has it */
	uint64_t pc;
	uint64_t have;          /* bit n: regs[n] is defined */
	uint64_t regs[T2F_UNWIND_NREGS];
};

struct uw_key {                 /* what else an unwind depends on */
	uint64_t session;       /* the session's epoch (a new one for each session made) */
	uint64_t gen;           /* the caller's mapping generation */
	uint64_t sp0, end;      /* the stack copy: [sp0, end) */
	const uint8_t *stack;   /* for the lookups only */
};

struct uw_hit {                 /* the rest of an earlier unwind */
	const uint64_t *ips;
	size_t n;
	enum t2f_unwind_stop why;
	uint64_t stop_pc;
};

struct uw_memo;

int uw_memo__new(struct uw_memo **out); /* 0 or -ENOMEM */
void uw_memo__free(struct uw_memo *m);  /* NULL is fine */

/* Recording an unwind: __begin, then for each frame __frame (its state, and how many ips were
 * written before it), each memory read __read (its address, whether it was in the copy, the
 * value), and __end with the result (or nothing: the recording is dropped at the next
 * __begin). */
void uw_memo__begin(struct uw_memo *m, const struct uw_key *k);
void uw_memo__frame(struct uw_memo *m, const struct uw_state *s, size_t ips_before);
void uw_memo__read(struct uw_memo *m, uint64_t addr, bool ok, uint64_t value);
void uw_memo__end(struct uw_memo *m, const uint64_t *ips, size_t n, enum t2f_unwind_stop why,
		  uint64_t stop_pc);

/* The rest of an earlier unwind from a frame in state s of a sample keyed k: true and *out. */
bool uw_memo__find(const struct uw_memo *m, const struct uw_key *k, const struct uw_state *s,
		   struct uw_hit *out);

#endif
