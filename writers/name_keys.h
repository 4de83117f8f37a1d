/* writers/name_keys.h: the bytewise order of texts made of names joined by ';', worked out
 * name by name.
 *
 * A folded line is names joined by ';' (its root, then its frames), and the lines are written
 * in bytewise order (a prefix first). Where no name holds a ';', that order follows from one
 * level at a time: among the lines that agree up to a level, those that end at a name N come
 * where the text "N" does, and those that go on below N where "N;" does. A key is such a text:
 * a name, and whether the line goes on (`on`: the name followed by ';'). Sorting the keys of
 * one level's names (each name twice: as an end and as going on) orders the lines below that
 * level without comparing whole lines again.
 *
 * Ownership: the keys borrow their names. Threads: none of its own.
 */
#ifndef T2F_NAME_KEYS_H
#define T2F_NAME_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct t2f_name_key {
	const char *s;      /* the name (no ';' in it) */
	uint32_t len;
	uint32_t id;        /* the caller's */
	bool on;            /* the text is the name followed by ';' */
};

/* Sorts k[0..n) by their texts, bytewise (unsigned), a prefix first. Two keys of one name
 * differ in `on` only (the end first). 0 or -ENOMEM (nothing sorted then). */
int t2f_name_keys__sort(struct t2f_name_key *k, size_t n);

#endif
