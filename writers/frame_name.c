/* writers/frame_name.c: display names, computed once per frame into one buffer. */
#include "writers/frame_name.h"

#include "formats/buf.h"
#include "formats/utf8.h"
#include "writers/par_for.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct t2f_frame_names {
	struct t2f_buf text;
	size_t *off; /* off[id] .. off[id + 1] is frame id's name */
};

/* "[libc.so.6]" (with " <ADDR>" when the key has an address) for the key's module, "[unknown]"
 * without one. */
static int put_fallback(struct t2f_buf *b, const struct t2f_profile *p,
			const struct t2f_frame_name_key *k)
{
	size_t mlen;
	const char *mod = t2f_profile__str(p, k->module, &mlen);
	const char *slash = memrchr(mod, '/', mlen);
	char addr[24];
	int err;

	if (k->module == 0 || t2f_unknown_name(mod, mlen)) {
		mod = "unknown";
		mlen = 7;
	} else if (slash) {
		mlen -= (size_t)(slash + 1 - mod);
		mod = slash + 1;
	}
	err = t2f_buf__put(b, "[", 1) ?: t2f_buf__put(b, mod, mlen);
	if (!err && k->has_addr) {
		int len = snprintf(addr, sizeof(addr), " <%" PRIx64 ">", k->addr);

		err = t2f_buf__put(b, addr, (size_t)len);
	}
	return err ?: t2f_buf__put(b, "]", 1);
}

/* The part of a demangled name collapsed stacks show, as libiberty prints it without parameter
 * lists (what perf script prints): s[0, pre), s[from, end), then s[tail, len). */
struct cut {
	size_t pre, from, end, tail;
};

/* Texts libiberty puts before a special name ("virtual thunk to NAME"); kept, then the name cut.
 * "reference temporary #" is followed by digits and " for ". */
static const char *const cut_prefixes[] = {
	"non-virtual thunk to ", "virtual thunk to ", "covariant return thunk to ",
	"transaction clone for ", "non-transaction clone for ", "guard variable for ",
	"vtable for ", "VTT for ", "construction vtable for ", "typeinfo for ",
	"typeinfo name for ", "typeinfo fn for ", "TLS init function for ",
	"TLS wrapper function for ", "hidden alias for ", "java Class for ",
	"reference temporary #",
};

/* Operator names holding brackets ("operator<<", "operator->"), longest first: no depth. */
static const char *const cut_ops[] = { "<<=", ">>=", "<=>", "->*", "<<", ">>", "<=", ">=",
				       "->", "<", ">" };

static bool starts(const char *s, size_t len, size_t i, const char *t, size_t tlen)
{
	return len - i >= tlen && memcmp(s + i, t, tlen) == 0;
}

/* Length of the special prefix s starts with (cut_prefixes), or 0. */
static size_t cut_prefix(const char *s, size_t len)
{
	for (size_t k = 0; k < sizeof(cut_prefixes) / sizeof(cut_prefixes[0]); k++) {
		size_t n = strlen(cut_prefixes[k]);

		if (!starts(s, len, 0, cut_prefixes[k], n))
			continue;
		if (cut_prefixes[k][n - 1] != '#')
			return n;
		while (n < len && s[n] >= '0' && s[n] <= '9')
			n++;
		return starts(s, len, n, " for ", 5) ? n + 5 : 0;
	}
	return 0;
}

/* Where the bracket opened at s[i] closes, or len. */
static size_t cut_close(const char *s, size_t len, size_t i)
{
	int depth = 0;

	for (; i < len; i++) {
		char ch = s[i];

		if (ch == '(' || ch == '<' || ch == '[' || ch == '{')
			depth++;
		else if ((ch == ')' || ch == '>' || ch == ']' || ch == '}') && --depth == 0)
			return i;
	}
	return len;
}

/* "operator" starting a word at s[i]: its length with the bracket characters of its name. */
static size_t cut_operator(const char *s, size_t len, size_t i)
{
	unsigned char prev = i > 0 ? (unsigned char)s[i - 1] : ' ';
	size_t n = 8;

	if (!starts(s, len, i, "operator", 8) || prev == '_' || (unsigned)((prev | 0x20) - 'a') < 26 ||
	    (unsigned)(prev - '0') < 10)
		return 0;
	for (size_t k = 0; k < sizeof(cut_ops) / sizeof(cut_ops[0]); k++)
		if (starts(s, len, i + n, cut_ops[k], strlen(cut_ops[k])))
			return n + strlen(cut_ops[k]);
	return n;
}

/* The name without its argument list and, for a function template, without its return type,
 * so that a name demangled with parameter lists is cut to the same text as one demangled without
 * (libiberty prints neither then): the list starts at the first '(' outside <>, [], {} that does
 * not open "(anonymous namespace)" and does not follow a '.' (Go methods: "pkg.(*T).M"), unless
 * "::" follows its ')' (a local entity's function: "f(int)::{lambda()#1}", cut at the first);
 * the return type ends at the last space outside brackets before the name's last "operator",
 * and is cut when the name before the list ends with template arguments ('>') or holds such a
 * local part ("auto f(int)::{lambda(auto:1)#1}::operator()<int>(int)"). A PLT stub's "@plt",
 * which the demangler appends after the list, is kept. */
static struct cut cut_args(const char *s, size_t len)
{
	static const char anon[] = "(anonymous namespace)";
	struct cut c = { .pre = cut_prefix(s, len) };
	size_t i = c.pre, space = 0, end = 0; /* past the last space; 0: none */
	bool op = false, local = false;
	int depth = 0;

	while (i < len) {
		char ch = s[i];
		size_t n = cut_operator(s, len, i);

		if (n) {
			op = op || depth == 0;
			i += n;
			continue;
		}
		if (ch == '<' || ch == '[' || ch == '{') {
			depth++;
		} else if ((ch == '>' || ch == ']' || ch == '}') && depth > 0) {
			depth--;
		} else if (ch == '(' && depth == 0) {
			if (starts(s, len, i, anon, sizeof(anon) - 1)) {
				i += sizeof(anon) - 1;
				continue;
			}
			if (!(i > 0 && s[i - 1] == '.')) {
				size_t close;

				if (end)
					break;
				end = i + 1;
				close = cut_close(s, len, i);
				if (close == len || !starts(s, len, close + 1, "::", 2))
					break;
				local = true;
				i = close + 1;
				continue;
			}
		} else if (ch == ' ' && depth == 0 && !op) {
			space = i + 1;
			end = 0;
			local = false;
		}
		i++;
	}
	c.end = end ? end - 1 : len;
	c.from = c.pre;
	c.tail = len;
	if (c.end + 4 <= len && memcmp(s + len - 4, "@plt", 4) == 0)
		c.tail = len - 4;
	if (space && end && c.end > space && (s[c.end - 1] == '>' || local))
		c.from = space;
	return c;
}

/* In place over the just-written name: control characters → ' ' (formats/utf8.h), ';' → ':'
 * (collapsed), and a trailing " <digits>" gets '_' so folded readers do not take it for a count.
 * Returns the new length. */
static size_t sanitize(char *s, size_t len, bool collapsed)
{
	size_t i;

	len = t2f_utf8_squash_controls(s, len, ' ');
	if (!collapsed)
		return len;
	for (i = 0; i < len; i++)
		if (s[i] == ';')
			s[i] = ':';
	for (i = len; i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9'; i--)
		;
	if (i > 0 && i < len && s[i - 1] == ' ')
		s[i - 1] = '_';
	return len;
}

static const char *kind_suffix(const struct t2f_frame_name_opts *o, enum t2f_frame_kind k)
{
	if (k == T2F_FRAME_KERNEL && o->kernel)
		return "_[k]";
	if (k == T2F_FRAME_JIT && o->jit)
		return "_[j]";
	if (k == T2F_FRAME_INLINED && o->inlined)
		return "_[i]";
	return NULL;
}

/* Frame f's key, its name unknown (`fallback`: the module's, with the address under --addrs)
 * or not. */
static void key_of(const struct t2f_frame *f, const struct t2f_frame_name_opts *o,
		   bool fallback, struct t2f_frame_name_key *k)
{
	*k = (struct t2f_frame_name_key){ .name = f->name };
	if (fallback)
		k->module = f->module;
	if (fallback && o->addrs && f->has_addr) {
		k->has_addr = true;
		k->addr = f->addr;
	}
	if (o->collapsed && kind_suffix(o, f->kind))
		k->kind = f->kind + 1;
}

void t2f_frame_name__key(const struct t2f_profile *p, const struct t2f_frame *f,
			 const struct t2f_frame_name_opts *o, struct t2f_frame_name_key *k)
{
	size_t len;
	const char *s = t2f_profile__str(p, f->name, &len);

	key_of(f, o, t2f_unknown_name(s, len), k);
}

void t2f_frame_name__key_unread(const struct t2f_profile *p, const struct t2f_frame *f,
				const struct t2f_frame_name_opts *o, struct t2f_frame_name_key *k)
{
	if (o->addrs && f->has_addr) /* an unknown name's key has the address */
		t2f_frame_name__key(p, f, o, k);
	else /* the module kept as for an unknown name */
		key_of(f, o, true, k);
}

int t2f_frame_name__put(const struct t2f_profile *p, const struct t2f_frame_name_key *k,
			const struct t2f_frame_name_opts *o, struct t2f_buf *b)
{
	size_t len, start = b->len;
	const char *s = t2f_profile__str(p, k->name, &len);
	const char *suffix = k->kind ? kind_suffix(o, (enum t2f_frame_kind)(k->kind - 1)) : NULL;
	int err;

	if (t2f_unknown_name(s, len)) {
		err = put_fallback(b, p, k);
	} else {
		struct cut c = { 0, 0, len, len };

		if (o->collapsed && !o->raw_names)
			c = cut_args(s, len);
		err = t2f_buf__put(b, s, c.pre) ?: t2f_buf__put(b, s + c.from, c.end - c.from) ?:
		      t2f_buf__put(b, s + c.tail, len - c.tail);
	}
	if (err)
		return err;
	if (b->len == start && o->collapsed)
		err = t2f_buf__put(b, "[unknown]", 9); /* never an empty folded frame */
	if (b->len > start)
		b->len = start + sanitize(b->p + start, b->len - start, o->collapsed);
	return err ?: (suffix ? t2f_buf__put(b, suffix, 4) : 0);
}

#define NAMES_PART_MIN 16384 /* fewer frames are named by one thread */

/* Frames [from, to) of a part, named into a text of its own: off[id + 1] its name's end there. */
struct names_part {
	const struct t2f_profile *p;
	const struct t2f_frame_name_opts *o;
	size_t *off;
	uint32_t from, to;
	struct t2f_buf text;
	int err;
};

static void names_part(void *ctx, unsigned i)
{
	struct names_part *pt = (struct names_part *)ctx + i;

	for (uint32_t id = pt->from; id < pt->to && !pt->err; id++) {
		struct t2f_frame_name_key k;

		t2f_frame_name__key(pt->p, t2f_profile__frame_at(pt->p, id), pt->o, &k);
		pt->err = t2f_frame_name__put(pt->p, &k, pt->o, &pt->text);
		pt->off[id + 1] = pt->text.len;
	}
}

/* The parts' texts one after the other in n's, their ends moved by what comes before. */
static int names_join(struct t2f_frame_names *n, struct names_part *parts, unsigned k)
{
	int err = 0;

	n->text = parts[0].text;
	parts[0].text = (struct t2f_buf){ 0 };
	for (unsigned i = 1; i < k && !err; i++) {
		size_t base = n->text.len;

		err = t2f_buf__put(&n->text, parts[i].text.p, parts[i].text.len);
		for (uint32_t id = parts[i].from; id < parts[i].to; id++)
			n->off[id + 1] += base;
	}
	return err;
}

int t2f_frame_names__new(const struct t2f_profile *p, const struct t2f_frame_name_opts *o,
			 struct t2f_frame_names **out)
{
	uint32_t count = t2f_profile__frame_count(p);
	struct t2f_frame_names *n = calloc(1, sizeof(*n));
	struct names_part parts[T2F_PAR_FOR_MAX];
	unsigned k = t2f_par_parts(count, o->threads, NAMES_PART_MIN);
	int err = -ENOMEM;

	if (!n)
		return -ENOMEM;
	n->off = malloc(((size_t)count + 2) * sizeof(*n->off));
	if (!n->off)
		goto fail;
	n->off[0] = n->off[1] = 0;
	for (unsigned i = 0; i < k; i++)
		parts[i] = (struct names_part){
			.p = p, .o = o, .off = n->off,
			.from = 1 + (uint32_t)((uint64_t)count * i / k),
			.to = 1 + (uint32_t)((uint64_t)count * (i + 1) / k) };
	t2f_par_for(k, names_part, parts);
	err = 0;
	for (unsigned i = 0; i < k && !err; i++)
		err = parts[i].err;
	err = err ?: names_join(n, parts, k);
	for (unsigned i = 0; i < k; i++)
		t2f_buf__free(&parts[i].text);
	if (err)
		goto fail;
	*out = n;
	return 0;
fail:
	t2f_frame_names__free(n);
	return err;
}

void t2f_frame_names__free(struct t2f_frame_names *n)
{
	if (!n)
		return;
	t2f_buf__free(&n->text);
	free(n->off);
	free(n);
}

const char *t2f_frame_names__get(const struct t2f_frame_names *n, t2f_frame_id id, size_t *len)
{
	*len = n->off[id + 1] - n->off[id];
	return n->text.p ? n->text.p + n->off[id] : "";
}

void t2f_frame__fn_position(const struct t2f_frame *f, t2f_str_id *file, uint32_t *line)
{
	*file = f->fn_file ? f->fn_file : f->file;
	*line = f->fn_file ? f->fn_line : 0;
}
