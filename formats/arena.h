/* formats/arena.h: bump allocator. Allocations live until t2f_arena__free(); no single free.
 * Blocks grow geometrically (64 KiB first). Not thread safe. */
#ifndef T2F_ARENA_H
#define T2F_ARENA_H

#include <stddef.h>

struct t2f_arena;

int t2f_arena__new(struct t2f_arena **out);   /* 0 or -ENOMEM */
void t2f_arena__free(struct t2f_arena *a);    /* NULL is fine; frees every allocation */
/* Frees every allocation, keeping the newest (largest) block for the next ones. */
void t2f_arena__reset(struct t2f_arena *a);
/* 16-byte aligned, uninitialised; NULL on ENOMEM or size overflow. */
void *t2f_arena__alloc(struct t2f_arena *a, size_t size);
/* Copies len bytes and appends a NUL; NULL on ENOMEM. */
char *t2f_arena__strndup(struct t2f_arena *a, const char *s, size_t len);
size_t t2f_arena__bytes(const struct t2f_arena *a); /* bytes reserved from the system */

#endif
