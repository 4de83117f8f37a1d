/* writers/name_paths.h: a profile's stack nodes grouped by the names along them.
 *
 * Nodes whose frames show the same names from the root down (frames at different addresses of
 * one function, a function's frames of different modules' copies...) are one path: the folded
 * writer builds one line per (thread, path), not per node. Paths are numbered from 1 in the
 * order of their first node (0: the root); a path's parent is the path of its nodes' parents.
 *
 * Ownership: borrows the profile and the names (they must outlive it). Memory: 4 bytes per
 * node until __forget_nodes, 12 per path (and, while they are built, 8 per frame and an index
 * of up to 16 per node; while they are ordered, 4 per path and 4 per key, a key per path that
 * ends a line and per path with such a path below it, then 4 per key and per level of the
 * deepest path). Not thread safe.
 */
#ifndef T2F_NAME_PATHS_H
#define T2F_NAME_PATHS_H

#include <stdint.h>

#include "formats/profile.h"
#include "writers/frame_name.h"

struct t2f_name_paths;

/* Groups every node of p by the names of `names`. 0, -ENOMEM, or -T2F_ERR_LIMIT (a path's
 * text of 4 GiB or more). */
int t2f_name_paths__new(const struct t2f_profile *p, const struct t2f_frame_names *names,
			struct t2f_name_paths **out);
void t2f_name_paths__free(struct t2f_name_paths *np); /* NULL is fine */

uint32_t t2f_name_paths__count(const struct t2f_name_paths *np);
uint32_t t2f_name_paths__of(const struct t2f_name_paths *np, t2f_node_id node);
/* Frees the nodes' paths (4 bytes a node) once no more __of is asked: the paths stay. */
void t2f_name_paths__forget_nodes(struct t2f_name_paths *np);
/* The bytes of ";NAME" for each level of the path (below 4 GiB: __new fails past it). */
uint64_t t2f_name_paths__text_len(const struct t2f_name_paths *np, uint32_t path);
/* Writes path's text (";NAME" for each level, root first: text_len bytes) into dst, from its
 * last byte back, walking the path's parents (the names must still be there). */
void t2f_name_paths__put(const struct t2f_name_paths *np, uint32_t path, char *dst);
/* The places of the paths in `ends` (bit v of ends[v / 64], count + 1 bits) in the bytewise
 * order of the paths' texts (a prefix first): pos[v] for each of them and for the root (pos[0]
 * == 0), the other entries left as they are; pos of count + 1 entries. The names must still be
 * there and hold no ';' (collapsed names: writers/frame_name.h); siblings are ordered by their
 * names (writers/name_keys.h), not by whole texts. 0 or -ENOMEM (2^29 paths or more). */
int t2f_name_paths__order(const struct t2f_name_paths *np, const uint64_t *ends, uint32_t *pos);

#endif
