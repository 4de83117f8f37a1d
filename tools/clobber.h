/* tools/clobber.h: what the command line checks of an output before reading any input: that it
 * would not replace one of the inputs, and that it can be created where it is named.
 *
 * trace2flame never replaces an input with its output, and a conversion is not run for an
 * output that cannot be made: both are said before the inputs are read. Stateless; thread safe.
 */
#ifndef T2F_CLOBBER_H
#define T2F_CLOBBER_H

#include <stdbool.h>
#include <stddef.h>

/* Whether output would replace one of inputs[0..n): an existing regular file that is the same
 * file (device and inode, so also through links and other spellings); not "-", a path that does
 * not exist yet, a device such as /dev/null. When it would, says so on stderr. */
bool t2f_clobber__refuse(const char *output, char *const *inputs, size_t n);

/* Whether output cannot be created: its directory is missing, is not a directory or cannot be
 * written, or output is itself a directory (each: the hint that --each writes there). Not for
 * "-" or a device such as /dev/null, which are written in place. When it cannot, says why on
 * stderr. */
bool t2f_clobber__no_place(const char *output, bool each);

#endif
