/* tools/clobber.h: whether an output would replace one of the inputs.
 *
 * trace2flame never replaces an input with its output: the command line checks each output
 * against the inputs before converting. Stateless; thread safe.
 */
#ifndef T2F_CLOBBER_H
#define T2F_CLOBBER_H

#include <stdbool.h>
#include <stddef.h>

/* Whether output would replace one of inputs[0..n): an existing regular file that is the same
 * file (device and inode, so also through links and other spellings); not "-", a path that does
 * not exist yet, a device such as /dev/null. When it would, says so on stderr. */
bool t2f_clobber__refuse(const char *output, char *const *inputs, size_t n);

#endif
