/* writers/frame_name.c: display names, computed once per frame into one buffer. */
#include "writers/frame_name.h"

#include "formats/buf.h"
#include "formats/utf8.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct t2f_frame_names {
	struct t2f_buf text;
	size_t *off; /* off[id] .. off[id + 1] is frame id's name */
};

static bool is_unknown(const char *s, size_t len)
{
	return len == 0 || (len == 9 && memcmp(s, "[unknown]", 9) == 0);
}

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

	if (k->module == 0 || is_unknown(mod, mlen)) {
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

/* Length of name up to its argument list: the first '(' outside <>, [], {} that does not open
 * "(anonymous namespace)" and does not follow a '.' (Go methods: "pkg.(*T).M"). */
static size_t cut_args(const char *s, size_t len)
{
	static const char anon[] = "(anonymous namespace)";
	int depth = 0;

	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (c == '<' || c == '[' || c == '{') {
			depth++;
		} else if ((c == '>' || c == ']' || c == '}') && depth > 0) {
			depth--;
		} else if (c == '(' && depth == 0) {
			if (len - i >= sizeof(anon) - 1 && memcmp(s + i, anon, sizeof(anon) - 1) == 0) {
				i += sizeof(anon) - 2;
				continue;
			}
			if (i > 0 && s[i - 1] == '.')
				continue;
			return i;
		}
	}
	return len;
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

void t2f_frame_name__key(const struct t2f_profile *p, const struct t2f_frame *f,
			 const struct t2f_frame_name_opts *o, struct t2f_frame_name_key *k)
{
	size_t len;
	const char *s = t2f_profile__str(p, f->name, &len);
	bool fallback = is_unknown(s, len);

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

int t2f_frame_name__put(const struct t2f_profile *p, const struct t2f_frame_name_key *k,
			const struct t2f_frame_name_opts *o, struct t2f_buf *b)
{
	size_t len, start = b->len;
	const char *s = t2f_profile__str(p, k->name, &len);
	const char *suffix = k->kind ? kind_suffix(o, (enum t2f_frame_kind)(k->kind - 1)) : NULL;
	int err;

	if (is_unknown(s, len)) {
		err = put_fallback(b, p, k);
	} else {
		if (o->collapsed && !o->raw_names)
			len = cut_args(s, len);
		err = t2f_buf__put(b, s, len);
	}
	if (err)
		return err;
	if (b->len == start && o->collapsed)
		err = t2f_buf__put(b, "[unknown]", 9); /* never an empty folded frame */
	if (b->len > start)
		b->len = start + sanitize(b->p + start, b->len - start, o->collapsed);
	return err ?: (suffix ? t2f_buf__put(b, suffix, 4) : 0);
}

int t2f_frame_names__new(const struct t2f_profile *p, const struct t2f_frame_name_opts *o,
			 struct t2f_frame_names **out)
{
	uint32_t count = t2f_profile__frame_count(p);
	struct t2f_frame_names *n = calloc(1, sizeof(*n));
	int err = -ENOMEM;

	if (!n)
		return -ENOMEM;
	n->off = malloc(((size_t)count + 2) * sizeof(*n->off));
	if (!n->off)
		goto fail;
	n->off[0] = n->off[1] = 0;
	for (uint32_t id = 1; id <= count; id++) {
		struct t2f_frame_name_key k;

		t2f_frame_name__key(p, t2f_profile__frame_at(p, id), o, &k);
		err = t2f_frame_name__put(p, &k, o, &n->text);
		if (err)
			goto fail;
		n->off[id + 1] = n->text.len;
	}
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
