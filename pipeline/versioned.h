/* pipeline/versioned.h: the callers' versioned structs (include/trace2flame.h, Versioning):
 * each starts with its size, set by the caller to its own sizeof, at least the first release's.
 * Internal to pipeline/. Thread safe.
 */
#ifndef T2F_VERSIONED_H
#define T2F_VERSIONED_H

#include <stddef.h>

/* A struct the caller filled, src, into dst (this library's, `known` bytes): every field the
 * caller's size lacks zero. 0, -EINVAL (src NULL, its size below v1), or -E2BIG (a nonzero byte
 * of src past `known`: a newer caller asking for what this library cannot do). */
int t2f_versioned__in(void *dst, size_t known, const void *src, size_t v1);

/* -E2BIG when a byte of p[0..len) is not zero (a reserved field a newer caller used), else 0. */
int t2f_versioned__zero(const void *p, size_t len);

/* Whether dst, a struct the library fills, may be filled: 0, or -EINVAL (NULL, a size below
 * v1). */
int t2f_versioned__check_out(const void *dst, size_t v1);

/* Fills dst (checked above) from src (this library's, `known` bytes; its size field ignored):
 * as much as both know, the rest of dst zero, dst's size left as it was. */
void t2f_versioned__out(void *dst, const void *src, size_t known);

/* The stride of a caller's array of such structs: the first one's size. */
size_t t2f_versioned__size(const void *first);

#endif
