/* symbolizer/dwarf_names.c: names for the functions DWARF gives no linkage name (g++ gives
 * none to a function of internal linkage: a static function of a namespace, any function of an
 * anonymous one, a template instance over a lambda or a type of an anonymous namespace), so
 * that their inlined calls are named as their out-of-line code is:
 *  - when the unit holds an out-of-line copy of the function (a subprogram with code whose
 *    abstract origins and specifications end at the same DIE as the call's) and a symbol
 *    starts at the copy's entry: that symbol's name (without its version) less its clone
 *    suffixes (".constprop.0", ".isra.0", ".part.0", ".lto_priv.0"), a linkage name then, as
 *    DWARF would have given ("void std::__insertion_sort<...>(...)" where DWARF says
 *    "__insertion_sort<__gnu_cxx::__normal_iterator<long unsigned int*, ...> >"); taken only
 *    when the symbol demangled holds the function's DW_AT_name up to its first character
 *    that cannot be in an identifier (a symbol of other code folded onto the copy's is not);
 *  - else DW_AT_name qualified by the namespaces and types that hold its declaration
 *    ("app::tally", "(anonymous namespace)::twice"), not "tally".
 * Worked out on a lookup's first use of the function: the unit's copies are listed once (on
 * its first such name), a copy's name is looked for once per declaration and unit, a qualified
 * name once per declaration (libdw finds a DIE's scopes by walking its unit). */
#include "symbolizer/dwarf_internal.h"

#include <dwarf.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/grow.h"
#include "formats/sym_version.h"
#include "symbolizer/demangle.h"

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

/* ---- out-of-line copies ---- */

/* The DIE die's abstract origins and specifications end at (die itself without them): the
 * same for a function's inlined calls and its out-of-line copies. NULL past DW_NAME_HOPS. */
static const void *dw_origin_key(Dwarf_Die *die)
{
	Dwarf_Die d = *die, next;
	Dwarf_Attribute a;

	for (int i = 0; i < DW_NAME_HOPS; i++) {
		if ((!dwarf_attr(&d, DW_AT_abstract_origin, &a) &&
		     !dwarf_attr(&d, DW_AT_specification, &a)) || !dwarf_formref_die(&a, &next))
			return d.addr;
		d = next;
	}
	return NULL;
}

/* Where a subprogram's code starts: DW_AT_low_pc, else its first range as listed (the hot
 * part of a function split in two). */
static bool dw_entry(Dwarf_Die *die, uint64_t *entry)
{
	Dwarf_Addr base, lo, hi, pc;

	if (dwarf_lowpc(die, &pc) == 0) {
		*entry = pc;
		return true;
	}
	if (dwarf_ranges(die, 0, &base, &lo, &hi) > 0 && lo < hi) {
		*entry = lo;
		return true;
	}
	return false;
}

static int dw_copy_cmp(const void *a, const void *b)
{
	const struct dw_copy *x = a, *y = b;

	if (x->key != y->key)
		return (uintptr_t)x->key < (uintptr_t)y->key ? -1 : 1;
	return x->func < y->func ? -1 : x->func > y->func;
}

/* The unit's out-of-line functions without a linkage name (each still unqualified: this runs
 * before the unit's first name is settled), by key. 0 or -ENOMEM. */
static int dw_list_copies(struct t2f_dwarf *dw, struct dw_index *u)
{
	size_t n = 0;

	u->copies_made = true;
	for (size_t i = 0; i < u->n_funcs; i++)
		n += !u->funcs[i].inlined && u->funcs[i].unqualified;
	if (!n)
		return 0;
	u->copies = malloc(n * sizeof(*u->copies));
	if (!u->copies)
		return -ENOMEM;
	for (size_t i = 0; i < u->n_funcs; i++) {
		struct dw_copy c = { .func = (uint32_t)i };
		Dwarf_Die die;

		if (u->funcs[i].inlined || !u->funcs[i].unqualified ||
		    !dwarf_offdie(dw->dbg, u->funcs[i].die, &die) ||
		    !(c.key = dw_origin_key(&die)) || !dw_entry(&die, &c.entry))
			continue;
		u->copies[u->n_copies++] = c;
	}
	qsort(u->copies, u->n_copies, sizeof(*u->copies), dw_copy_cmp);
	return 0;
}

/* The length of name[0..len) less its clone suffixes, from the end: ".constprop.0.isra.0",
 * each a '.' then letters and '_' or digits only (what libiberty prints as "[clone ...]"). */
static size_t dw_clone_cut(const char *name, size_t len)
{
	for (;;) {
		size_t i = len;
		bool alpha = false, digit = false;

		for (; i > 0; i--) {
			char c = name[i - 1];

			if (c >= '0' && c <= '9')
				digit = true;
			else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_')
				alpha = true;
			else
				break;
		}
		if (i < 2 || i == len || name[i - 1] != '.' || (alpha && digit))
			return len;
		len = i - 1;
	}
}

static bool dw_ident_char(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       c == '_' || c == '~' || c == '$';
}

/* Whether the symbol name base (raw, cut) names the function DWARF calls dw_name: demangled
 * without parameters (or as it is), it holds dw_name up to its first character that cannot be
 * in an identifier ("operator" of "operator()", "scale" of "scale<long unsigned int>"). */
static bool dw_same_function(const char *base, const char *dw_name)
{
	size_t n = 0;
	char *dm;
	bool same;

	while (dw_ident_char(dw_name[n]))
		n++;
	if (!n)
		return false;
	dm = t2f_demangle(base, T2F_DEMANGLE_NO_PARAMS);
	for (const char *p = dm ? dm : base; !(same = !strncmp(p, dw_name, n)) && *p; p++)
		;
	free(dm);
	return same;
}

/* The linkage name the symbol raw gives a function DWARF calls dw_name, in the arena, into
 * *out; NULL when it names another function or is too long. 0 or -ENOMEM. */
static int dw_copy_linkage(struct t2f_dwarf *dw, const char *raw, const char *dw_name,
			   const char **out)
{
	size_t len = strlen(raw);
	char *base;
	int err = 0;

	len = dw_clone_cut(raw, t2f_sym_version_cut(raw, len));
	*out = NULL;
	if (!len || len > T2F_DWARF_NAME_MAX)
		return 0;
	base = strndup(raw, len);
	if (!base)
		return -ENOMEM;
	if (dw_same_function(base, dw_name)) {
		char *kept = t2f_arena__alloc(dw->arena, len + 1);

		if (kept)
			*out = memcpy(kept, base, len + 1);
		else
			err = -ENOMEM;
	}
	free(base);
	return err;
}

/* f (die) named by an out-of-line copy of its function in u, when one is named by a symbol:
 * f->name then that linkage name, f->copy set. 0 or -ENOMEM. */
static int dw_name_by_copy(struct t2f_dwarf *dw, struct dw_index *u, Dwarf_Die *die,
			   struct dw_func *f)
{
	const void *key = dw_origin_key(die);
	struct dw_copy *g;
	size_t lo = 0, hi = u->n_copies;
	int err = 0;

	while (lo < hi) {                /* the first copy of key */
		size_t mid = lo + (hi - lo) / 2;

		if ((uintptr_t)u->copies[mid].key < (uintptr_t)key)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!key || lo == u->n_copies || u->copies[lo].key != key)
		return 0;
	g = &u->copies[lo];
	for (size_t i = lo; !g->settled && !err && i < u->n_copies && u->copies[i].key == key;
	     i++) {
		const char *raw = dw->symbol_at(dw->sym_ctx, u->copies[i].entry);

		if (raw)
			err = dw_copy_linkage(dw, raw, f->name, &g->name);
		if (g->name)
			break;
	}
	g->settled = !err;
	if (g->name) {
		f->name = g->name;
		f->linkage = f->copy = true;
	}
	return err;
}

/* ---- qualified names ---- */

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

int t2f_dw_qualify(struct t2f_dwarf *dw, struct dw_index *u, struct dw_func *f)
{
	Dwarf_Die die, holder;
	struct dw_qual_key k = { dw, NULL };
	const char *name;
	uint64_t hash;
	uint32_t found;
	int err;

	if (!f->unqualified)
		return 0;
	if (dw->symbol_at && !u->copies_made && (err = dw_list_copies(dw, u)))
		return err;
	f->unqualified = false;
	if (!dwarf_offdie(dw->dbg, f->die, &die))
		return 0;
	if (u->n_copies && ((err = dw_name_by_copy(dw, u, &die, f)) || f->copy))
		return err;
	if (!dw_name_holder(&die, &holder))
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
