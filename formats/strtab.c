/* formats/strtab.c: bytes in one growing buffer, (offset, length) per id, a hash index over ids.
 * Offsets, not pointers, so the buffer may move (cf. docs/design.md §3). */
#include "formats/strtab.h"
#include "formats/grow.h"
#include "formats/mem.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats/buf.h"
#include "formats/diag.h"
#include "formats/hashmap.h"

struct str_ref {
	uint32_t off, len;
};

struct t2f_strtab {
	struct t2f_buf text;    /* every string, NUL-terminated, back to back */
	struct str_ref *refs;   /* refs[id]; refs[0] is "" */
	uint32_t count, refs_cap;
	struct t2f_hashmap *index;
};

struct probe {
	const struct t2f_strtab *tab;
	const char *s;
	size_t len;
};

int t2f_strtab__new(struct t2f_strtab **out)
{
	struct t2f_strtab *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	t->refs_cap = 1024;
	t->refs = calloc(t->refs_cap, sizeof(*t->refs));
	if (!t->refs || t2f_buf__put(&t->text, "", 1) || t2f_hashmap__new(1024, &t->index)) {
		t2f_strtab__free(t);
		return -ENOMEM;
	}
	/* id 0 → "" at offset 0 */
	*out = t;
	return 0;
}

void t2f_strtab__free(struct t2f_strtab *t)
{
	if (!t)
		return;
	t2f_buf__free(&t->text);
	free(t->refs);
	t2f_hashmap__free(t->index);
	free(t);
}

void t2f_strtab__clear(struct t2f_strtab *t)
{
	t->text.len = 1; /* id 0's "" */
	t->count = 0;
	t2f_hashmap__clear(t->index);
}

static bool probe_eq(const void *ctx, uint32_t id)
{
	const struct probe *p = ctx;
	const struct str_ref *r = &p->tab->refs[id];

	return r->len == p->len && memcmp(p->tab->text.p + r->off, p->s, p->len) == 0;
}

static int reserve(struct t2f_strtab *t, size_t len)
{
	int err;

	if (len >= UINT32_MAX - t->text.len || t->count == UINT32_MAX - 1) /* offsets are u32 */
		return -T2F_ERR_LIMIT;
	err = t2f_buf__reserve(&t->text, len + 1);
	if (err)
		return err;
	if (t->count + 2 > t->refs_cap) {
		size_t cap = t->refs_cap;

		if (t2f_grow((void **)&t->refs, &cap, t->count, 2, sizeof(*t->refs), 1024, UINT32_MAX))
			return -ENOMEM;
		t2f_mem__huge(t->refs);
		t->refs_cap = (uint32_t)cap;
	}
	return 0;
}

int t2f_strtab__intern_hashed(struct t2f_strtab *t, const char *s, size_t len, uint64_t hash,
			      t2f_str_id *id)
{
	struct probe p = { t, s, len };
	uint32_t found = t2f_hashmap__find(t->index, hash, probe_eq, &p);
	int err;

	if (found) {
		*id = found;
		return 0;
	}
	err = reserve(t, len);
	if (err)
		return err;
	memcpy(t->text.p + t->text.len, s, len);
	t->text.p[t->text.len + len] = '\0';
	t->count++;
	t->refs[t->count] = (struct str_ref){ (uint32_t)t->text.len, (uint32_t)len };
	t->text.len += len + 1;
	err = t2f_hashmap__insert(t->index, hash, t->count);
	if (err) {
		t->count--;
		return err;
	}
	*id = t->count;
	return 0;
}

int t2f_strtab__intern(struct t2f_strtab *t, const char *s, size_t len, t2f_str_id *id)
{
	return t2f_strtab__intern_hashed(t, s, len, t2f_hash_bytes(s, len), id);
}

const char *t2f_strtab__str(const struct t2f_strtab *t, t2f_str_id id, size_t *len)
{
	const struct str_ref *r = &t->refs[id <= t->count ? id : 0];

	if (len)
		*len = r->len;
	return t->text.p + r->off;
}

uint32_t t2f_strtab__count(const struct t2f_strtab *t)
{
	return t->count;
}

size_t t2f_strtab__bytes(const struct t2f_strtab *t)
{
	return t->text.cap + (size_t)t->refs_cap * sizeof(*t->refs);
}
