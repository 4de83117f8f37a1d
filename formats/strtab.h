/* formats/strtab.h: string interner. Equal byte strings get equal ids; ids are dense from 1,
 * 0 = "no string". Every byte lives in one buffer owned by the table (strings may contain NUL
 * bytes; each is stored NUL-terminated). Not thread safe. */
#ifndef T2F_STRTAB_H
#define T2F_STRTAB_H

#include <stddef.h>
#include <stdint.h>

typedef uint32_t t2f_str_id;
struct t2f_strtab;

int t2f_strtab__new(struct t2f_strtab **out);   /* 0 or -ENOMEM */
void t2f_strtab__free(struct t2f_strtab *tab);  /* NULL is fine */
/* Forgets every string (ids start again from 1), keeping the memory. */
void t2f_strtab__clear(struct t2f_strtab *tab);

/* Interns s[0..len) and sets *id. 0, -ENOMEM, or -T2F_ERR_LIMIT past 4 GiB of text. */
int t2f_strtab__intern(struct t2f_strtab *tab, const char *s, size_t len, t2f_str_id *id);
/* Same, with the caller's 64-bit hash of the bytes (t2f_hash_bytes) to avoid hashing twice. */
int t2f_strtab__intern_hashed(struct t2f_strtab *tab, const char *s, size_t len, uint64_t hash,
			      t2f_str_id *id);
/* Borrowed and NUL-terminated; valid only until the next __intern (the buffer may move).
 * Store ids, not pointers. id 0 gives "" and len 0. */
const char *t2f_strtab__str(const struct t2f_strtab *tab, t2f_str_id id, size_t *len);
uint32_t t2f_strtab__count(const struct t2f_strtab *tab); /* ids are 1..count */
size_t t2f_strtab__bytes(const struct t2f_strtab *tab);   /* memory held */

#endif
