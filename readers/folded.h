/* readers/folded.h: folded (collapsed) stacks → profile: the text flamegraph.pl reads and
 * `trace2flame -f collapsed` writes, one stack per line, root first:
 *
 *     burner;main;spin_leaf 12
 *
 * The first frame is the thread's name (comm, as collapsed output writes it), the others are
 * frames; the number after the last space or tab is the stack's weight (a fraction is cut off).
 * Equal stacks add up; a weight of 0 is a sample of weight 0 (like perf's period 0). The
 * two-column differential form "stack N1 N2" is read as weight N2.
 * The suffixes _[k], _[j] and _[i] mark kernel, JIT and inlined frames and are removed. Every
 * line becomes one sample of an event named "samples" with the line's weight, so --weight
 * samples counts lines. Lines with only a thread name are dropped (counted as empty stacks);
 * lines without a weight are warnings (file:line), errors in strict mode; empty lines and lines
 * starting with '#' are skipped.
 *
 * Ownership: borrows profile and diag (both must outlive it); keeps no pointer into fed data.
 * Not thread safe.
 */
#ifndef T2F_FOLDED_H
#define T2F_FOLDED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/diag.h"
#include "formats/profile.h"

struct t2f_folded;

/* True when data (the input's first bytes) looks folded: its first line that is not empty or a
 * comment is "TEXT N" without a leading blank and without perf script's "TIME:" field, and the
 * line after it (when there is one) does not start with a blank either. */
bool t2f_folded__detect(const char *data, size_t len);

/* name: shown in messages; copied. input: the thread's input index. 0 or -ENOMEM. */
int t2f_folded__new(struct t2f_profile *p, struct t2f_diag *d, const char *name, uint32_t input,
		    struct t2f_folded **out);
void t2f_folded__free(struct t2f_folded *f); /* NULL is fine */
/* Whole lines (the last may lack its '\n' only at the end of input). 0, -ENOMEM, -T2F_ERR_LIMIT
 * or -T2F_ERR_FORMAT (strict mode; message in the diag). */
int t2f_folded__feed(struct t2f_folded *f, const char *data, size_t len);
uint64_t t2f_folded__lines(const struct t2f_folded *f);

#endif
