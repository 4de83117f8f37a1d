/* pipeline/resym_like.h: the answers of the frames others are read as (a class's first,
 * pipeline/sym_classes.h), kept while the resolve stage names the user frames in id order, so
 * that a frame read as another takes its first's answer, module and all, without a search.
 *
 * Ownership: a t2f_resym_likes is the resolve stage's (freed by __free); frame_as is the
 * caller's, read during __new only. Threads: one at a time. Errors: -ENOMEM.
 */
#ifndef T2F_RESYM_LIKE_H
#define T2F_RESYM_LIKE_H

#include <stdbool.h>
#include <stddef.h>

#include "formats/profile.h"
#include "symbolizer/symbolizer.h"

struct t2f_resym_likes;

/* Room for the answers of the frames that frame_as[0..n) reads others as (frame_as[j] < j):
 * 0 and *out (NULL when there are none), or -ENOMEM. */
int t2f_resym_likes__new(const t2f_frame_id *frame_as, size_t n, struct t2f_resym_likes **out);
void t2f_resym_likes__free(struct t2f_resym_likes *l); /* NULL is fine */
/* Keeps frame id's answer (in the module at index mod of the stage's), when other frames are
 * read as it. */
void t2f_resym_likes__keep(struct t2f_resym_likes *l, t2f_frame_id id, size_t mod,
			   const struct t2f_sym *sym);
/* The answer kept for frame `as`: true, *mod and *sym. */
bool t2f_resym_likes__get(const struct t2f_resym_likes *l, t2f_frame_id as, size_t *mod,
			  const struct t2f_sym **sym);

#endif
