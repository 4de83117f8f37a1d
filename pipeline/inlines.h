/* pipeline/inlines.h: inlined functions as frames of their own, and source positions.
 *
 * After the resolve stage placed frames in their modules' ELF space (t2f_resym__place), each
 * placed frame whose module's DWARF has code at its address (symbolizer/dwarf.h) is replaced by
 * its chain, root first: the function that holds the code (the frame itself, its name kept, or
 * the DWARF name when it had none), then each function inlined into it, outermost first, as
 * T2F_FRAME_INLINED frames of the same module without an address, named from DWARF (demangled
 * without parameter lists with no_params; "FILE!name" for frames of .nettrace traces, their
 * module_names, as those are named). Every level gets its source positions (formats/profile.h:
 * file, line, fn_file, fn_line). Frames without DWARF stay as they were.
 *
 * Addresses: a user frame with a user callee holds a return address, so its chain is looked up
 * at the address - 1 (the call instruction); the leaf, and a user frame whose callee is a
 * kernel frame (the instruction interrupted), at the address itself. A frame may be both; each
 * (frame, address) is looked up once.
 *
 * The stacks are then rebuilt (t2f_profile__restack). With drop_addrs (no output shows
 * addresses), named frames lose their address in the new stacks (user frames kept it only to
 * be looked up, kernel ones to be named), so the frames of one function share frames and
 * stacks again; with drop_unnamed too, those left unnamed (every writer then shows them by
 * their module alone, as without --addrs), so that the addresses of a stripped binary no
 * longer multiply its frames and nodes. A profile that already has inlined frames (perf
 * script --inline printed them) is left as it is: they are not doubled.
 *
 * Errors: 0, -ENOMEM or -T2F_ERR_LIMIT (a profile table full; the profile is then unchanged).
 * Borrows everything for the call. Not thread safe.
 */
#ifndef T2F_INLINES_H
#define T2F_INLINES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "formats/profile.h"
#include "pipeline/resymbolize.h"

struct t2f_inline_opts {
	bool no_params;        /* demangle without parameter lists (collapsed output) */
	bool drop_addrs;       /* named frames lose their address (above) */
	bool drop_unnamed;     /* with drop_addrs, frames left unnamed too (above) */
	unsigned threads;      /* DWARF lookups on up to this many threads, a module's on one
				* (pipeline/inline_lookup.h); the result does not depend on it */
};

struct t2f_inline_stats {
	uint64_t lookups;      /* (frame, address) pairs looked up in DWARF */
	uint64_t cached;       /* and those the symbol cache answered (no DWARF read) */
	uint64_t found;        /* of both, those DWARF has code at */
	uint64_t inlined;      /* of them, those with inlined functions */
	uint64_t levels;       /* inlined frames made (distinct) */
	uint64_t kept;         /* frames perf printed as inlined (then nothing is looked up) */
	uint64_t files;        /* files whose DWARF was looked up */
	uint64_t ended;        /* of them, those let go (their libdw state freed) after their last
				* lookup, before the stacks are rebuilt */
};

int t2f_inlines__expand(struct t2f_profile *p, const struct t2f_resym *r,
			const struct t2f_inline_opts *o, struct t2f_inline_stats *st);

/* --stats: the counts above, a line or two; nothing when nothing was looked up, answered or
 * kept. */
void t2f_inlines__print_stats(FILE *f, const struct t2f_inline_stats *st);

#endif
