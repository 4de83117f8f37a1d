/* tools/input_weight.h: how much table-building an input file brings, in bytes, for the CLI's
 * allocator decision (tools/malloc_tune.h): its size, but for a perf.data file whose samples
 * all carry stack copies (--call-graph dwarf), whose bytes are mostly those copies: there, each
 * sample counts as T2F_WEIGHT_SAMPLE bytes (about what a frame-pointer call chain's sample
 * takes in a -g recording). Reads the file's header and attr section only.
 *
 * Thread safe (no state); errors are not reported: a file it cannot read weighs its size.
 */
#ifndef T2F_INPUT_WEIGHT_H
#define T2F_INPUT_WEIGHT_H

#include <stdint.h>

#define T2F_WEIGHT_SAMPLE 256u

/* The weight of the regular file at path, of `size` bytes. */
uint64_t t2f_input_weight(const char *path, uint64_t size);

#endif
