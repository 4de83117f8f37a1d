/* pipeline/sym_classes.h: classes of a perf.data recording's user frames
 * (readers/perf_data_conv.h class_of, class_key) from the symbol cache, through the symbolizer
 * the resolve stage will name the frames with, made before the reading
 * (pipeline/resymbolize.h t2f_resym__make_symbolizer) and handed to it after.
 *
 * A module's frames get the class source of the file of its path and build-id (symbolizer.h
 * t2f_symbolizer__class) when a warm cache names them: the build-id is the one the resolve
 * stage will take for the path, the first valid one of the profile's module maps
 * (pipeline/resym_ids.h), known by then (the module's frames come after a mapping of it; a
 * module without one yet gets no class). Frames of a class then name alike in every form the
 * run shows them (no address or line is shown that the class would hide: the session asks for
 * classes only when its outputs show frames by name), and the stacks are read with one frame
 * per class: the trie the naming rebuilds is that much smaller.
 *
 * Threads: __of runs on the reading thread, as the symbolizer's one user until __take; __key
 * on one other thread at a time (it reads the class source alone, and keeps what it met). Errors: -ENOMEM, the diag's strict error.
 */
#ifndef T2F_SYM_CLASSES_H
#define T2F_SYM_CLASSES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/diag.h"
#include "formats/profile.h"
#include "pipeline/resymbolize.h"

struct t2f_sym_classes;

/* Classes for the frames read into p, named per o (its symbolizer made here: o->sym must be
 * NULL); `inlines`: the inline stage will give frames their chains; `lines`: the outputs show
 * their source lines (else chains that differ by their lines alone are one class). 0 and *out,
 * or an error. */
int t2f_sym_classes__new(const struct t2f_resym_opts *o, struct t2f_profile *p,
			 struct t2f_diag *d, bool inlines, bool lines, struct t2f_sym_classes **out);
void t2f_sym_classes__free(struct t2f_sym_classes *c); /* NULL is fine */
/* class_of (readers/perf_data_conv.h): ctx is a struct t2f_sym_classes. */
int t2f_sym_classes__of(void *ctx, t2f_str_id module, const char *path, size_t len,
			void **src);
/* class_key (readers/perf_data_conv.h). */
bool t2f_sym_classes__key(void *src, uint64_t addr, uint64_t *key);
/* The symbolizer, given up (for t2f_resym_opts.sym): c gives no class after. NULL for NULL. */
struct t2f_symbolizer *t2f_sym_classes__take(struct t2f_sym_classes *c);

#endif
