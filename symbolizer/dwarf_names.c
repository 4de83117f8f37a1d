/* symbolizer/dwarf_names.c: a function's DW_AT_name qualified by the namespaces and types that
 * hold its declaration, for the functions DWARF gives no linkage name (g++ gives none to a
 * function of internal linkage: a static function of a namespace, any function of an anonymous
 * one). Their inlined calls are then named as their symbols are ("app::tally",
 * "(anonymous namespace)::twice"), not "tally". Worked out on a lookup's first use of the
 * function (libdw finds a DIE's scopes by walking its unit), once per declaration. */
#include "symbolizer/dwarf_internal.h"

#include <dwarf.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/grow.h"

#define DW_NAME_HOPS 16         /* abstract origins and specifications followed to the name */

/* The DIE that holds the function's DW_AT_name: die, or one its abstract origin or
 * specification leads to. false when none does within DW_NAME_HOPS. */
static bool dw_name_holder(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Die d = *die, next;
	Dwarf_Attribute a;

	for (int i = 0; i < DW_NAME_HOPS; i++) {
		if (dwarf_hasattr(&d, DW_AT_name)) {
			*out = d;
			return true;
		}
		if ((!dwarf_attr(&d, DW_AT_abstract_origin, &a) &&
		     !dwarf_attr(&d, DW_AT_specification, &a)) || !dwarf_formref_die(&a, &next))
			return false;
		d = next;
	}
	return false;
}

/* What a scope adds to a name: a namespace's name ("(anonymous namespace)", as the demangler
 * writes it, for one without), a named type's; NULL ends the qualification (the unit, a
 * function or block holding a local type, a nameless type). */
static const char *dw_scope_name(Dwarf_Die *s)
{
	const char *n;

	switch (dwarf_tag(s)) {
	case DW_TAG_namespace:
		n = dwarf_diename(s);
		return n ? n : "(anonymous namespace)";
	case DW_TAG_class_type:
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
		return dwarf_diename(s);
	default:
		return NULL;
	}
}

/* name qualified by the scopes of holder, in the arena, into *out (name itself when no scope
 * adds to it or the result would be longer than T2F_DWARF_NAME_MAX). 0 or -ENOMEM. */
static int dw_qualified(struct t2f_dwarf *dw, Dwarf_Die *holder, const char *name,
			const char **out)
{
	const char *parts[DW_MAX_NESTING];
	Dwarf_Die *scopes = NULL;
	int n = dwarf_getscopes_die(holder, &scopes);
	size_t np = 0, len = strlen(name);
	char *q, *p;

	*out = name;
	for (int i = 1; i < n && np < DW_MAX_NESTING; i++) { /* scopes[0] is holder itself */
		const char *s = dw_scope_name(&scopes[i]);

		if (!s)
			break;
		parts[np++] = s;
		len += strlen(s) + 2;
	}
	free(scopes);
	if (!np || len > T2F_DWARF_NAME_MAX)
		return 0;
	q = t2f_arena__alloc(dw->arena, len + 1);
	if (!q)
		return -ENOMEM;
	p = q;
	while (np--) {
		size_t l = strlen(parts[np]);

		memcpy(p, parts[np], l);
		memcpy(p + l, "::", 2);
		p += l + 2;
	}
	memcpy(p, name, strlen(name) + 1);
	*out = q;
	return 0;
}

struct dw_qual_key {
	const struct t2f_dwarf *dw;
	const void *key;
};

static bool dw_qual_eq(const void *ctx, uint32_t value)
{
	const struct dw_qual_key *k = ctx;

	return k->dw->quals[value - 1].key == k->key;
}

int t2f_dw_qualify(struct t2f_dwarf *dw, struct dw_func *f)
{
	Dwarf_Die die, holder;
	struct dw_qual_key k = { dw, NULL };
	const char *name;
	uint64_t hash;
	uint32_t found;
	int err;

	if (!f->unqualified)
		return 0;
	f->unqualified = false;
	if (!dwarf_offdie(dw->dbg, f->die, &die) || !dw_name_holder(&die, &holder))
		return 0;
	k.key = holder.addr;
	hash = t2f_hash_u64((uint64_t)(uintptr_t)holder.addr);
	found = t2f_hashmap__find(dw->qual_memo, hash, dw_qual_eq, &k);
	if (found) {
		f->name = dw->quals[found - 1].name;
		return 0;
	}
	err = dw_qualified(dw, &holder, f->name, &name) ?:
	      t2f_grow((void **)&dw->quals, &dw->cap_quals, dw->n_quals, 1, sizeof(*dw->quals), 16,
		       UINT32_MAX - 1) ?:
	      t2f_hashmap__insert(dw->qual_memo, hash, (uint32_t)dw->n_quals + 1);
	if (err)
		return err;
	dw->quals[dw->n_quals++] = (struct dw_qual){ holder.addr, name };
	f->name = name;
	return 0;
}
