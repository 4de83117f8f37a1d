/* formats/mem.h: advice to the kernel about large, growing tables.
 *
 * The model's tables, indexes and text buffers grow to hundreds of megabytes on whole-machine
 * recordings; touched page by page they cost a page fault per 4 KiB. Transparent huge pages
 * (the kernel's `madvise` mode, as on Debian) take one fault per 2 MiB. Advice only: nothing
 * changes when the kernel does not give huge pages.
 */
#ifndef T2F_MEM_H
#define T2F_MEM_H

#include <stddef.h>

#define T2F_MEM_HUGE_MIN ((size_t)4 << 20) /* smaller blocks are left alone */

/* Asks for huge pages behind the whole 2 MiB pages inside [p, p + len), when len is at least
 * T2F_MEM_HUGE_MIN. The memory stays the caller's; errors are ignored. */
void t2f_mem__huge(void *p, size_t len);

#endif
