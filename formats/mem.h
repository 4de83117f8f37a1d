/* formats/mem.h: advice to the kernel about large, growing tables, and address space they grow
 * in.
 *
 * The model's tables, indexes and text buffers grow to hundreds of megabytes on whole-machine
 * recordings; touched page by page they cost a page fault per 4 KiB. Transparent huge pages
 * (the kernel's `madvise` mode, as on Debian) take one fault per 2 MiB. Advice only: nothing
 * changes when the kernel does not give huge pages. Not thread safe per block; blocks are the
 * caller's.
 */
#ifndef T2F_MEM_H
#define T2F_MEM_H

#include <stdbool.h>
#include <stddef.h>

#define T2F_MEM_HUGE_MIN ((size_t)4 << 20) /* smaller blocks are left alone */
#define T2F_MEM_HUGE_PAGE ((size_t)2 << 20) /* x86-64, arm64 with 4 KiB pages */

/* Asks for huge pages behind a block from malloc or realloc (NULL is fine) of at least
 * T2F_MEM_HUGE_MIN bytes: behind all of its pages, not only its aligned interior, so that the
 * block stays one mapping (with one set of flags), which realloc can then move and grow
 * without copying (mremap); with the interior alone, mremap failed and realloc copied: 15 of
 * the merges' ms on a whole-machine recording read for pprof. The memory stays the caller's;
 * errors are ignored. */
void t2f_mem__huge(void *block);

/* A block of at least len bytes (len > 0) in whole huge pages: 2 MiB-aligned, its size rounded
 * up to 2 MiB multiples (*cap), asked for huge pages: one fault per 2 MiB from its first byte,
 * for a buffer of a few MiB that is filled once. Freed (or grown) with free (realloc). NULL
 * when out of memory. */
void *t2f_mem__alloc_huge(size_t len, size_t *cap);

/* A block that grows in place: address space reserved once (PROT_NONE: no memory is taken,
 * nothing is committed), of which the first bytes are made readable and writable as it grows
 * (t2f_mem__commit), asked for huge pages. Its pages never move: on a VM whose host shadows
 * the page tables, pages moved by mremap (realloc of a large block) fault once more when next
 * touched, about 1 ms per MB. t2f_mem__reserve gives NULL when the address space is refused
 * (RLIMIT_AS): the caller then grows by realloc. */
void *t2f_mem__reserve(size_t bytes);
/* Makes [base, base + bytes) readable and writable (bytes ≤ the reservation; less than what is
 * already is: nothing). 0 or -ENOMEM. */
int t2f_mem__commit(void *base, size_t bytes);
/* As t2f_mem__commit in the reservation of span bytes at base (bytes ≤ span, the size given
 * to t2f_mem__reserve); with `whole`, rounded up to whole huge pages within it: a table growing
 * there by doubling then takes one fault per 2 MiB from its first byte on, not one per 4 KiB up
 * to the next huge page boundary, for up to 2 MiB more memory. 0 or -ENOMEM. */
int t2f_mem__commit_in(void *base, size_t bytes, size_t span, bool whole);
/* A reservation of span bytes whose first `bytes` (≤ span) are committed (t2f_mem__commit_in,
 * `whole` as there); NULL, holding nothing, when either step is refused (the
 * caller then uses malloc'd memory). */
void *t2f_mem__reserve_committed(size_t span, size_t bytes, bool whole);
void t2f_mem__release(void *base, size_t bytes); /* a reservation; NULL is fine */
/* The system's page size (4096 when it does not say). */
size_t t2f_mem__page_size(void);
/* The whole pages within [p, p + len) of the caller's memory given back to the kernel: they
 * read as zero from then on, and count in the resident memory again once written. For a table
 * part of which is read for the last time while the rest is still in use. Errors are ignored
 * (the pages then stay as they are). */
void t2f_mem__forget(void *p, size_t len);

#endif
