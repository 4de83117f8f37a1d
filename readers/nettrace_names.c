/* readers/nettrace_names.c: managed method ranges and module names → frame names
 * (nettrace_clr.h). Methods are kept in an array sorted by start address once sealed; a lookup is
 * a binary search for the last method starting at or below the address, then a short walk back
 * over earlier starts for overlapping ranges (re-jitted or unloaded code reused).
 */
#include "readers/nettrace_clr.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/arena.h"
#include "formats/grow.h"

#define OVERLAP_WALK 64 /* earlier starts examined for a range that still covers the address */

struct method_ent {
	uint64_t start, module_id;
	uint32_t size;
	uint32_t name_len;
	size_t seq;             /* order of recording: the later wins among overlaps */
	const char *name;       /* "Namespace.Type.Method(signature)" (arena), "" when nameless */
};

struct module_ent {
	uint64_t id;
	size_t seq;
	const char *name;       /* file name without extension (arena) */
	uint32_t len;
};

struct nt_names {
	struct t2f_arena *arena;
	struct method_ent *methods;
	size_t n_methods, cap_methods;
	struct module_ent *modules;
	size_t n_modules, cap_modules;
	struct t2f_buf scratch;
	bool sealed;
};

int nt_names__new(struct nt_names **out)
{
	struct nt_names *n = calloc(1, sizeof(*n));

	if (!n || t2f_arena__new(&n->arena)) {
		free(n);
		return -ENOMEM;
	}
	*out = n;
	return 0;
}

void nt_names__free(struct nt_names *n)
{
	if (!n)
		return;
	t2f_arena__free(n->arena);
	free(n->methods);
	free(n->modules);
	t2f_buf__free(&n->scratch);
	free(n);
}

size_t nt_names__methods(const struct nt_names *n)
{
	return n->n_methods;
}

size_t nt_names__modules(const struct nt_names *n)
{
	return n->n_modules;
}

/* "Namespace.Name(signature from its first '(')" into n->scratch; "Name…" without a namespace. */
static int method_text(struct nt_names *n, const struct nt_clr_method *m)
{
	struct t2f_buf *b = &n->scratch;
	size_t sig_at;
	const char *paren;
	int err;

	b->len = 0;
	err = nt_utf16_append(b, m->ns);
	if (!err && b->len && m->name.units)
		err = t2f_buf__put(b, ".", 1);
	err = err ?: nt_utf16_append(b, m->name);
	sig_at = b->len;
	err = err ?: nt_utf16_append(b, m->sig);
	if (err)
		return err;
	paren = b->len > sig_at ? memchr(b->p + sig_at, '(', b->len - sig_at) : NULL;
	if (!paren) {
		b->len = sig_at;
		return 0;
	}
	memmove(b->p + sig_at, paren, (size_t)(b->p + b->len - paren));
	b->len -= (size_t)(paren - (b->p + sig_at));
	return 0;
}

int nt_names__add_method(struct nt_names *n, const struct nt_clr_method *m)
{
	struct method_ent *e;
	int err;

	if (m->size == 0)
		return 0;
	err = t2f_grow((void **)&n->methods, &n->cap_methods, n->n_methods, 1,
			sizeof(*n->methods), 256, SIZE_MAX) ?:
	      method_text(n, m);
	if (err)
		return err;
	if (n->scratch.len > UINT32_MAX)
		n->scratch.len = UINT32_MAX;
	e = &n->methods[n->n_methods];
	e->name = t2f_arena__strndup(n->arena, n->scratch.p ? n->scratch.p : "", n->scratch.len);
	if (!e->name)
		return -ENOMEM;
	e->name_len = (uint32_t)n->scratch.len;
	e->start = m->start;
	e->size = m->size;
	e->module_id = m->module_id;
	e->seq = n->n_methods++;
	n->sealed = false;
	return 0;
}

/* The file name of a Windows or Unix path, without its last extension ("x/System.Private.CoreLib.dll"
 * → "System.Private.CoreLib", "Tizen.Applications.UI.ni.dll" → "Tizen.Applications.UI.ni"). */
static void module_base(const char *s, size_t len, size_t *off, size_t *blen)
{
	size_t start = len, end = len;

	while (start > 0 && s[start - 1] != '/' && s[start - 1] != '\\')
		start--;
	for (size_t i = len; i > start + 1; i--) {
		if (s[i - 1] == '.') {
			end = i - 1;
			break;
		}
	}
	*off = start;
	*blen = end - start;
}

int nt_names__add_module(struct nt_names *n, const struct nt_clr_module *m)
{
	struct nt_utf16 path = m->il_path.units ? m->il_path : m->native_path;
	struct module_ent *e;
	size_t off, len;
	int err;

	err = t2f_grow((void **)&n->modules, &n->cap_modules, n->n_modules, 1,
			sizeof(*n->modules), 256, SIZE_MAX);
	if (err)
		return err;
	n->scratch.len = 0;
	err = nt_utf16_append(&n->scratch, path);
	if (err)
		return err;
	module_base(n->scratch.p, n->scratch.len, &off, &len);
	if (len == 0 || len > UINT32_MAX)
		return 0; /* no name: the module stays "?" */
	e = &n->modules[n->n_modules];
	e->name = t2f_arena__strndup(n->arena, n->scratch.p + off, len);
	if (!e->name)
		return -ENOMEM;
	e->len = (uint32_t)len;
	e->id = m->module_id;
	e->seq = n->n_modules++;
	n->sealed = false;
	return 0;
}

static int cmp_method(const void *a, const void *b)
{
	const struct method_ent *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_module(const void *a, const void *b)
{
	const struct module_ent *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int nt_names__seal(struct nt_names *n)
{
	if (n->n_methods)
		qsort(n->methods, n->n_methods, sizeof(*n->methods), cmp_method);
	if (n->n_modules)
		qsort(n->modules, n->n_modules, sizeof(*n->modules), cmp_module);
	n->sealed = true;
	return 0;
}

/* The method covering ip (the latest recorded among overlaps), or NULL. */
static const struct method_ent *find_method(const struct nt_names *n, uint64_t ip)
{
	const struct method_ent *best = NULL;
	size_t lo = 0, hi = n->n_methods, stop;

	while (lo < hi) { /* lo = the first method starting above ip */
		size_t mid = lo + (hi - lo) / 2;

		if (n->methods[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	stop = lo > OVERLAP_WALK ? lo - OVERLAP_WALK : 0;
	for (size_t i = lo; i > stop; i--) {
		const struct method_ent *e = &n->methods[i - 1];

		if (ip - e->start < e->size && (!best || e->seq > best->seq))
			best = e;
	}
	return best;
}

/* The first module recorded with this id, or NULL. */
static const struct module_ent *find_module(const struct nt_names *n, uint64_t id)
{
	size_t lo = 0, hi = n->n_modules;

	while (lo < hi) { /* lo = the first module with an id ≥ id */
		size_t mid = lo + (hi - lo) / 2;

		if (n->modules[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n->n_modules && n->modules[lo].id == id ? &n->modules[lo] : NULL;
}

static int put_addr(struct t2f_buf *b, uint64_t ip)
{
	char hex[24];
	int len = snprintf(hex, sizeof(hex), "!0x%" PRIx64, ip);

	return t2f_buf__put(b, hex, (size_t)len);
}

int nt_names__format(const struct nt_names *n, uint64_t ip, struct t2f_buf *b,
		     enum nt_name_kind *kind)
{
	const struct method_ent *m = n->sealed ? find_method(n, ip) : NULL;
	const struct module_ent *mod = m ? find_module(n, m->module_id) : NULL;
	int err;

	b->len = 0;
	err = mod ? t2f_buf__put(b, mod->name, mod->len) : t2f_buf__put(b, "?", 1);
	if (err)
		return err;
	if (m && m->name_len) {
		*kind = NT_NAME_METHOD;
		return t2f_buf__put(b, "!", 1) ?: t2f_buf__put(b, m->name, m->name_len);
	}
	*kind = mod ? NT_NAME_MODULE : NT_NAME_UNKNOWN;
	return put_addr(b, ip);
}
