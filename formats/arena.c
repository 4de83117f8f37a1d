/* formats/arena.c: a list of geometrically growing blocks; allocations bump a pointer. */
#include "formats/arena.h"
#include "formats/mem.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_FIRST_BLOCK (64u << 10)
#define ARENA_MAX_BLOCK (64u << 20)

struct arena_block {
	struct arena_block *prev;
	size_t size, used;
	_Alignas(16) unsigned char data[];
};

struct t2f_arena {
	struct arena_block *head;
	size_t next_size;
	size_t reserved;
};

int t2f_arena__new(struct t2f_arena **out)
{
	struct t2f_arena *a = calloc(1, sizeof(*a));

	if (!a)
		return -ENOMEM;
	a->next_size = ARENA_FIRST_BLOCK;
	*out = a;
	return 0;
}

void t2f_arena__free(struct t2f_arena *a)
{
	if (!a)
		return;
	while (a->head) {
		struct arena_block *b = a->head;

		a->head = b->prev;
		free(b);
	}
	free(a);
}

void t2f_arena__reset(struct t2f_arena *a)
{
	struct arena_block *keep = a->head;

	if (!keep)
		return;
	while (keep->prev) {
		struct arena_block *b = keep->prev;

		keep->prev = b->prev;
		a->reserved -= b->size;
		free(b);
	}
	keep->used = 0;
}

static struct arena_block *arena_grow(struct t2f_arena *a, size_t need)
{
	size_t size = a->next_size;
	struct arena_block *b;

	while (size < need) {
		if (size > SIZE_MAX / 2)
			return NULL;
		size *= 2;
	}
	if (size > SIZE_MAX - sizeof(*b))
		return NULL;
	b = malloc(sizeof(*b) + size);
	if (!b)
		return NULL;
	t2f_mem__huge(b);
	b->prev = a->head;
	b->size = size;
	b->used = 0;
	a->head = b;
	a->reserved += size;
	if (a->next_size < ARENA_MAX_BLOCK)
		a->next_size *= 2;
	return b;
}

void *t2f_arena__alloc(struct t2f_arena *a, size_t size)
{
	struct arena_block *b = a->head;
	size_t rounded = (size + 15) & ~(size_t)15;
	void *p;

	if (rounded < size)
		return NULL;
	if (!b || b->size - b->used < rounded) {
		b = arena_grow(a, rounded);
		if (!b)
			return NULL;
	}
	p = b->data + b->used;
	b->used += rounded;
	return p;
}

char *t2f_arena__strndup(struct t2f_arena *a, const char *s, size_t len)
{
	char *p;

	if (len == SIZE_MAX)
		return NULL;
	p = t2f_arena__alloc(a, len + 1);
	if (!p)
		return NULL;
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

size_t t2f_arena__bytes(const struct t2f_arena *a)
{
	return a->reserved;
}
