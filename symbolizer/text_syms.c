/* symbolizer/text_syms.c: kallsyms and perf map files → one sorted table of non-overlapping
 * address ranges (text_syms.h). */
#include "symbolizer/text_syms.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "formats/grow.h"
#include "formats/side_file.h"
#include "symbolizer/text_syms_internal.h"

#define T2F_TS_PAGE 4096u
_Static_assert(T2F_TEXT_SYMS_MAX_BYTES < UINT32_MAX, "names and lines fit 32 bits");

/* A parsed line: [start, end) (end 0 = not known yet: kallsyms), names as offsets into the
 * table's names. */
struct t2f_ts_entry {
	uint64_t start, end;
	uint32_t name, module;      /* offsets; module T2F_TS_NONE = none */
	uint32_t line;
};

/* Parsing state of one file, fed in chunks of whole lines (t2f_ts_lines). */
struct t2f_ts_parse {
	enum t2f_text_syms_format fmt;
	const char *file;
	struct t2f_diag *d;
	char *names;                /* the kept names, NUL-terminated (becomes the table's) */
	size_t n_names, cap_names;
	uint32_t mod;               /* the last module name kept (T2F_TS_NONE: none yet) */
	size_t mod_len;
	struct t2f_ts_entry *e;
	size_t n, cap;
	uint64_t bad, nonzero, line;
	uint64_t ref[2];            /* the first _text and _stext of the kernel (no module) */
	bool unsorted;              /* a start below the one before it was pushed */
};

/* Reads a file in chunks of this size (more when one line is longer). */
#define T2F_TS_CHUNK ((size_t)1 << 20)

/* Each byte's value as a hex digit plus one; 0 for the others. */
static const unsigned char t2f_ts_xdigit[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8,
	['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15,
	['f'] = 16, ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/* Up to 16 hex digits at *p, advancing *p; false when there are none or too many. */
static bool t2f_ts_hex(char **p, uint64_t *v)
{
	const unsigned char *s = (const unsigned char *)*p;
	uint64_t x = 0;
	size_t n = 0;

	for (unsigned dv; (dv = t2f_ts_xdigit[s[n]]) != 0; n++) {
		if (n == 16)
			return false;
		x = x << 4 | (dv - 1);
	}
	*v = x;
	*p += n;
	return n > 0;
}

/* Keeps name[0..len) (and a NUL) among the names: its offset into *at. */
static int t2f_ts_name(struct t2f_ts_parse *ps, const char *name, size_t len, uint32_t *at)
{
	int err = ps->cap_names - ps->n_names > len ? 0 :
		  t2f_grow((void **)&ps->names, &ps->cap_names, ps->n_names, len + 1, 1, 1 << 16,
			   SIZE_MAX);

	if (err)
		return err;
	memcpy(ps->names + ps->n_names, name, len);
	ps->names[ps->n_names + len] = '\0';
	*at = (uint32_t)ps->n_names;
	ps->n_names += len + 1;
	return 0;
}

/* Keeps e with its name (and module) name[0..len), mod[0..mod_len) (mod NULL: none). The
 * module's name is kept once for a run of lines of one module. */
static int t2f_ts_push(struct t2f_ts_parse *ps, struct t2f_ts_entry *e, const char *name,
		       size_t len, const char *mod, size_t mod_len)
{
	int err = ps->n < ps->cap ? 0 :
		  t2f_grow((void **)&ps->e, &ps->cap, ps->n, 1, sizeof(*ps->e), 1024, SIZE_MAX);

	if (!err && mod && (ps->mod == T2F_TS_NONE || ps->mod_len != mod_len ||
			    memcmp(ps->names + ps->mod, mod, mod_len) != 0)) {
		err = t2f_ts_name(ps, mod, mod_len, &ps->mod);
		ps->mod_len = mod_len;
	}
	if (!err)
		err = t2f_ts_name(ps, name, len, &e->name);
	if (err)
		return err;
	e->module = mod ? ps->mod : T2F_TS_NONE;
	ps->unsorted |= ps->n && e->start < ps->e[ps->n - 1].start;
	ps->e[ps->n++] = *e;
	return 0;
}

static int t2f_ts_bad(struct t2f_ts_parse *ps, uint64_t line, const char *why)
{
	ps->bad++;
	if (ps->fmt == T2F_TEXT_SYMS_KALLSYMS)
		return t2f_diag__warn(ps->d, ps->file, line,
				      "expected \"ADDRESS TYPE NAME\" (kallsyms): %s; line skipped", why);
	return t2f_diag__warn(ps->d, ps->file, line,
			      "expected \"START SIZE NAME\" (perf map, hex): %s; line skipped",
			      why);
}

/* The kernel's reference symbols, where perf places it by (its kernel map's name): the first
 * of each, of the kernel itself. */
static void t2f_ts_note_ref(struct t2f_ts_parse *ps, const char *name, size_t len,
			    const char *mod, uint64_t start)
{
	int i = len == 5 && !memcmp(name, "_text", 5) ? 0 : len == 6 && !memcmp(name, "_stext", 6)
									? 1 : -1;

	if (i >= 0 && !mod && !ps->ref[i])
		ps->ref[i] = start;
}

/* kallsyms, as /proc/kallsyms prints it:
 *   ffffffff81000000 T _stext
 *   ffffffff8225f2c0 T pvm_irq_enable
 *   ffffffffc0201000 t ftrace_trampoline	[__builtin__ftrace]
 * Text symbols (t T w W) are kept; other types are skipped without a warning. s[0..ll) is the
 * line, NUL-terminated and without a NUL before. */
static int t2f_ts_kallsyms_line(struct t2f_ts_parse *ps, char *s, size_t ll, uint64_t line)
{
	struct t2f_ts_entry e = { .line = (uint32_t)line };
	char *end = s + ll, *name, *tab, *mod = NULL;
	size_t len, mlen = 0;
	char type;

	if (!t2f_ts_hex(&s, &e.start) || s[0] != ' ')
		return t2f_ts_bad(ps, line, "no hex address");
	type = s[1];
	if (!type || s[2] != ' ' || !s[3] || s[3] == '\t')
		return t2f_ts_bad(ps, line, "no type and name");
	if (type != 't' && type != 'T' && type != 'w' && type != 'W')
		return 0;
	name = s + 3;
	tab = memchr(name, '\t', (size_t)(end - name));
	len = (size_t)((tab ? tab : end) - name);
	if (tab) {
		mod = tab + 1;
		mlen = (size_t)(end - mod);
		if (mlen >= 2 && mod[0] == '[' && mod[mlen - 1] == ']') {
			mod++;
			mlen -= 2;
		}
		if (!mlen)
			mod = NULL;
	}
	if (len > T2F_TEXT_SYMS_MAX_NAME)
		return t2f_ts_bad(ps, line, "name too long");
	t2f_ts_note_ref(ps, name, len, mod, e.start);
	ps->nonzero += e.start != 0;
	return t2f_ts_push(ps, &e, name, len, mod, mlen);
}

/* A perf map's hex number: 0x or 0X before it is allowed, as perf allows it (the JVM's
 * -XX:+DumpPerfMapAtExit and jcmd Compiler.perfmap write "0x00007f9698ec7640 0x150 ..."). */
static bool t2f_ts_map_hex(char **p, uint64_t *v)
{
	char *s = *p;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	if (!t2f_ts_hex(&s, v))
		return false;
	*p = s;
	return true;
}

/* perf map, one line per JIT-compiled function (START SIZE NAME, the name up to the line end):
 *   7f27705ae000 e jit_leaf
 *   7f27705ae100 e JIT name with spaces [tier 2]
 *   7f27705ae200 e jit_new_stub          (the same START again: re-jitted, the later line wins)
 *   0x00007f27705ae300 0x0000000000000150 long Hot.fib(int)       (the JVM's) */
static int t2f_ts_map_line(struct t2f_ts_parse *ps, char *s, size_t ll, uint64_t line)
{
	struct t2f_ts_entry e = { .line = (uint32_t)line };
	char *end = s + ll;
	uint64_t size;

	if (!t2f_ts_map_hex(&s, &e.start) || (s[0] != ' ' && s[0] != '\t'))
		return t2f_ts_bad(ps, line, "no hex start");
	s++;
	if (!t2f_ts_map_hex(&s, &size) || (s[0] != ' ' && s[0] != '\t'))
		return t2f_ts_bad(ps, line, "no hex size");
	s++;
	if (!*s)
		return t2f_ts_bad(ps, line, "no name");
	if ((size_t)(end - s) > T2F_TEXT_SYMS_MAX_NAME)
		return t2f_ts_bad(ps, line, "name too long");
	if (size == 0)
		size = 1;
	e.end = size > UINT64_MAX - e.start ? UINT64_MAX : e.start + size;
	return t2f_ts_push(ps, &e, s, (size_t)(end - s), NULL, 0);
}

/* Parses the lines of buf[0..len) ("\r\n" ends one too; each is NUL-terminated in place) up to
 * its last newline, and past it when it is the file's end (last): *used, the bytes parsed. */
static int t2f_ts_lines(struct t2f_ts_parse *ps, char *buf, size_t len, bool last, size_t *used)
{
	char *s = buf, *end = buf + len;
	bool nul = memchr(buf, '\0', len) != NULL; /* else no line needs looking at for one */
	int err = 0;

	while (s < end && !err) {
		char *nl = memchr(s, '\n', (size_t)(end - s));
		char *le = nl ? nl : end;
		size_t ll;

		if (!nl && !last)
			break;
		ps->line++;
		ll = (size_t)(le - s);
		*le = '\0';
		if (ll && s[ll - 1] == '\r')
			s[--ll] = '\0';
		if (nul && memchr(s, '\0', ll))
			err = t2f_ts_bad(ps, ps->line, "a NUL byte in the line");
		else if (ll)
			err = ps->fmt == T2F_TEXT_SYMS_KALLSYMS
				      ? t2f_ts_kallsyms_line(ps, s, ll, ps->line)
				      : t2f_ts_map_line(ps, s, ll, ps->line);
		s = le + 1;
	}
	*used = s < end ? (size_t)(s - buf) : len;
	return err;
}

static int t2f_ts_cmp(const void *a, const void *b)
{
	const struct t2f_ts_entry *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* Sorts the entries by (start, line). They come by line: /proc/kallsyms prints the kernel's
 * symbols by address, then each module's unsorted; so the part after the longest sorted prefix
 * is sorted alone and merged with it (equal starts: the prefix's lines come first). */
static int t2f_ts_sort(struct t2f_ts_parse *ps)
{
	size_t p = 1, i, j, k;
	struct t2f_ts_entry *tmp;

	if (!ps->unsorted)
		return 0;
	while (ps->e[p].start >= ps->e[p - 1].start)
		p++; /* ends: some start is below the one before it */
	qsort(ps->e + p, ps->n - p, sizeof(*ps->e), t2f_ts_cmp);
	tmp = malloc(p * sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	memcpy(tmp, ps->e, p * sizeof(*tmp));
	for (i = 0, j = p, k = 0; i < p; k++) /* k < j: the merge never passes its reading */
		ps->e[k] = j < ps->n && ps->e[j].start < tmp[i].start ? ps->e[j++] : tmp[i++];
	free(tmp);
	return 0;
}

static bool t2f_ts_same_module(const struct t2f_ts_parse *ps, const struct t2f_ts_entry *a,
			       const struct t2f_ts_entry *b)
{
	if (a->module == T2F_TS_NONE || b->module == T2F_TS_NONE)
		return a->module == b->module;
	return a->module == b->module ||
	       strcmp(ps->names + a->module, ps->names + b->module) == 0;
}

static void t2f_ts_add_range(struct t2f_text_syms *s, const struct t2f_ts_entry *e, uint64_t lo,
			     uint64_t hi)
{
	struct t2f_ts_range *r = s->n_ranges ? &s->ranges[s->n_ranges - 1] : NULL;

	if (r && r->hi == lo && r->start == e->start && r->name == e->name)
		r->hi = hi; /* the same symbol continues */
	else
		s->ranges[s->n_ranges++] = (struct t2f_ts_range){ lo, hi, e->start, e->name, e->module };
}

/* kallsyms: sorted by (start, line); of several names at one start the last line is kept; each
 * ends at the next start, or at the bound after the last symbol of its module. */
static int t2f_ts_build_kallsyms(struct t2f_ts_parse *ps, struct t2f_text_syms *s)
{
	const struct t2f_ts_entry *all;
	int err = t2f_ts_sort(ps);

	if (err)
		return err;
	/* The ranges are written over the entries: range k (k <= i) once entry i is read, never
	 * over entry i + 1 (both 32 bytes: no copy of the table is held beside it) */
	all = ps->e;
	s->ranges = (struct t2f_ts_range *)(void *)ps->e;
	ps->e = NULL;
	for (size_t i = 0; i < ps->n; i++) {
		const struct t2f_ts_entry e = all[i], *next = i + 1 < ps->n ? &all[i + 1] : NULL;
		uint64_t end, bound = e.start > UINT64_MAX - 2 * T2F_TS_PAGE ? UINT64_MAX
				      : (e.start + 2 * T2F_TS_PAGE - 1) / T2F_TS_PAGE * T2F_TS_PAGE;

		if (next && next->start == e.start)
			continue; /* an alias: the later line names this address */
		if (next && t2f_ts_same_module(ps, &e, next))
			end = next->start;
		else /* the last symbol, or the last of its module: a bounded end */
			end = next && next->start < bound ? next->start : bound;
		s->n_syms++;
		t2f_ts_add_range(s, &e, e.start, end);
	}
	return 0;
}

/* A max-heap of entry indexes by line (the latest line on top). */
struct t2f_ts_heap {
	size_t *v;
	size_t n;
};

static void t2f_ts_heap_push(struct t2f_ts_heap *h, const struct t2f_ts_entry *e, size_t idx)
{
	size_t i = h->n++;

	h->v[i] = idx;
	while (i > 0 && e[h->v[(i - 1) / 2]].line < e[h->v[i]].line) {
		size_t p = (i - 1) / 2, t = h->v[p];

		h->v[p] = h->v[i];
		h->v[i] = t;
		i = p;
	}
}

static void t2f_ts_heap_pop(struct t2f_ts_heap *h, const struct t2f_ts_entry *e)
{
	size_t i = 0;

	h->v[0] = h->v[--h->n];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i, t;

		if (l < h->n && e[h->v[l]].line > e[h->v[m]].line)
			m = l;
		if (r < h->n && e[h->v[r]].line > e[h->v[m]].line)
			m = r;
		if (m == i)
			return;
		t = h->v[m];
		h->v[m] = h->v[i];
		h->v[i] = t;
		i = m;
	}
}

static int t2f_ts_u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* perf map: a sweep over every start and end; between two such points the entry with the latest
 * line among those covering it names the range. */
static int t2f_ts_build_map(struct t2f_ts_parse *ps, struct t2f_text_syms *s, uint64_t *pts)
{
	struct t2f_ts_heap h = { .v = malloc((ps->n + 1) * sizeof(size_t)) };
	size_t m = 0, next = 0;

	if (!h.v)
		return -ENOMEM;
	if (ps->n) /* qsort must not get NULL, even for 0 items */
		qsort(ps->e, ps->n, sizeof(*ps->e), t2f_ts_cmp);
	for (size_t i = 0; i < ps->n; i++) {
		pts[m++] = ps->e[i].start;
		pts[m++] = ps->e[i].end;
	}
	qsort(pts, m, sizeof(*pts), t2f_ts_u64_cmp);
	for (size_t k = 0; k + 1 < m; k++) {
		if (pts[k] == pts[k + 1])
			continue;
		while (next < ps->n && ps->e[next].start <= pts[k])
			t2f_ts_heap_push(&h, ps->e, next++);
		while (h.n && ps->e[h.v[0]].end <= pts[k])
			t2f_ts_heap_pop(&h, ps->e);
		if (h.n)
			t2f_ts_add_range(s, &ps->e[h.v[0]], pts[k], pts[k + 1]);
	}
	s->n_syms = ps->n;
	free(h.v);
	return 0;
}

static int t2f_ts_build(struct t2f_ts_parse *ps, struct t2f_text_syms *s)
{
	uint64_t *pts;
	int err;

	_Static_assert(sizeof(struct t2f_ts_range) <= sizeof(struct t2f_ts_entry),
		       "kallsyms ranges are written over the entries");
	if (ps->fmt == T2F_TEXT_SYMS_KALLSYMS) /* a range per symbol at most */
		return t2f_ts_build_kallsyms(ps, s);
	s->ranges = calloc(2 * ps->n + 1, sizeof(*s->ranges)); /* per start and end */
	if (!s->ranges)
		return -ENOMEM;
	pts = malloc((2 * ps->n + 1) * sizeof(*pts));
	if (!pts)
		return -ENOMEM;
	err = t2f_ts_build_map(ps, s, pts);
	free(pts);
	return err;
}

/* kallsyms with nothing to use: empty, or the addresses hidden. */
static int t2f_ts_check_kallsyms(const struct t2f_ts_parse *ps)
{
	if (ps->n == 0)
		return t2f_diag__error(ps->d, -T2F_ERR_FORMAT, ps->file, 0,
				       "no text symbol (lines \"ADDRESS T NAME\"): not a kallsyms file");
	if (ps->nonzero == 0)
		return t2f_diag__error(ps->d, -T2F_ERR_FORMAT, ps->file, 0,
				       "every address is 0: kernel.kptr_restrict hid them from the "
				       "reader that copied this file; copy /proc/kallsyms as root on "
				       "the recording machine (or with kptr_restrict=0)");
	return 0;
}

/* Gives back the room s's names (n_names bytes) and ranges do not use. */
static void t2f_ts_shrink(struct t2f_text_syms *s, size_t n_names)
{
	void *p = n_names ? realloc(s->names, n_names) : NULL;

	if (p)
		s->names = p;
	p = s->n_ranges ? realloc(s->ranges, s->n_ranges * sizeof(*s->ranges)) : NULL;
	if (p)
		s->ranges = p;
	s->bytes = n_names + s->n_ranges * sizeof(*s->ranges);
}

/* The table of the lines parsed: *out, or an error (recorded in the diag). Frees what ps holds. */
static int t2f_ts_finish(struct t2f_ts_parse *ps, int err, struct t2f_text_syms **out)
{
	struct t2f_text_syms *s = err ? NULL : calloc(1, sizeof(*s));

	if (!err && !s)
		err = -ENOMEM;
	if (!err && ps->fmt == T2F_TEXT_SYMS_KALLSYMS)
		err = t2f_ts_check_kallsyms(ps);
	if (!err) {
		atomic_init(&s->refs, 1);
		s->bad_lines = ps->bad;
		memcpy(s->ref, ps->ref, sizeof(s->ref));
		err = t2f_ts_build(ps, s);
		s->names = ps->names;
		ps->names = NULL;
		t2f_ts_shrink(s, ps->n_names);
	}
	free(ps->e);
	free(ps->names);
	if (err) {
		t2f_text_syms__free(s);
		return err == -ENOMEM ? t2f_diag__error(ps->d, err, ps->file, 0, "out of memory")
				      : err;
	}
	*out = s;
	return 0;
}

/* Parses text[0..len) (written to: lines are NUL-terminated in place) and frees it. */
static int t2f_ts_parse_owned(enum t2f_text_syms_format fmt, const char *file, char *text,
			      size_t len, struct t2f_diag *d, struct t2f_text_syms **out)
{
	struct t2f_ts_parse ps = { .fmt = fmt, .file = file, .d = d, .mod = T2F_TS_NONE };
	size_t used;
	int err = t2f_ts_lines(&ps, text, len, true, &used);

	free(text);
	return t2f_ts_finish(&ps, err, out);
}

int t2f_text_syms__parse(enum t2f_text_syms_format fmt, const char *file, const char *text,
			 size_t len, struct t2f_diag *d, struct t2f_text_syms **out)
{
	char *copy;

	*out = NULL;
	if (len > T2F_TEXT_SYMS_MAX_BYTES)
		return t2f_diag__error(d, -T2F_ERR_LIMIT, file, 0, "larger than %zu bytes",
				       T2F_TEXT_SYMS_MAX_BYTES);
	copy = malloc(len + 1);
	if (!copy)
		return t2f_diag__error(d, -ENOMEM, file, 0, "out of memory");
	memcpy(copy, text, len);
	copy[len] = '\0';
	return t2f_ts_parse_owned(fmt, file, copy, len, d, out);
}

/* Reads fd (a regular file of `size` bytes by stat; /proc files say 0) to its end in chunks,
 * parsing the whole lines of each as it comes: no copy of the file is kept, and a kernel file
 * is asked for T2F_TS_CHUNK bytes a read. A line longer than the buffer grows it. 0; -errno of a
 * read; -T2F_ERR_LIMIT past T2F_TEXT_SYMS_MAX_BYTES; -ENOMEM; or a line's error (strict). */
static int t2f_ts_read(struct t2f_ts_parse *ps, int fd, uint64_t size, bool *read_failed)
{
	size_t cap = size && size < T2F_TS_CHUNK ? (size_t)size + 1 : T2F_TS_CHUNK, n = 0, used;
	uint64_t total = 0;
	char *buf = malloc(cap + 1);
	int err = buf ? 0 : -ENOMEM;

	while (!err) {
		ssize_t got;

		if (n == cap) { /* one line fills the buffer */
			char *nb = cap < SIZE_MAX / 4 ? realloc(buf, 2 * cap + 1) : NULL;

			if (!nb) {
				err = -ENOMEM;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		got = read(fd, buf + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			err = -errno;
			*read_failed = true;
			break;
		}
		if (got == 0) {
			err = t2f_ts_lines(ps, buf, n, true, &used);
			break;
		}
		total += (uint64_t)got;
		if (total > T2F_TEXT_SYMS_MAX_BYTES) {
			err = -T2F_ERR_LIMIT;
			*read_failed = true;
			break;
		}
		n += (size_t)got;
		err = t2f_ts_lines(ps, buf, n, false, &used);
		memmove(buf, buf + used, n - used);
		n -= used;
	}
	free(buf);
	return err;
}

/* The message of a file that could not be read (as t2f_side_file__read says why). */
static int t2f_ts_read_error(const char *path, int err, struct t2f_diag *d)
{
	if (err == -T2F_ERR_LIMIT)
		return t2f_diag__error(d, err, path, 0, "larger than %zu bytes",
				       T2F_TEXT_SYMS_MAX_BYTES);
	return t2f_diag__error(d, err, path, 0, "cannot open (%s)", t2f_strerror(err));
}

/* Room for the tables of a file of `size` bytes, taken at once: grown as the lines came, they
 * were copied again and again (a 5.4 MB kallsyms copy took 60 ms to load, most of it in
 * realloc's copies and the fresh pages each new block faulted). The names never need more than
 * the file's bytes; a kallsyms line is 44 bytes on average, so size / 32 entries seldom grow.
 * Pages not written are not memory; past T2F_TS_RESERVE_MAX bytes the tables grow as before. */
#define T2F_TS_RESERVE_MAX ((size_t)64 << 20)
static int t2f_ts_reserve(struct t2f_ts_parse *ps, uint64_t size)
{
	size_t names = size < T2F_TS_RESERVE_MAX ? (size_t)size + 1 : T2F_TS_RESERVE_MAX;
	size_t entries = names / 32 + 1;

	return t2f_grow((void **)&ps->names, &ps->cap_names, 0, names, 1, names, SIZE_MAX) ?:
	       t2f_grow((void **)&ps->e, &ps->cap, 0, entries, sizeof(*ps->e), entries, SIZE_MAX);
}

int t2f_text_syms__load(enum t2f_text_syms_format fmt, const char *path, struct t2f_diag *d,
			struct t2f_text_syms **out)
{
	struct t2f_ts_parse ps = { .fmt = fmt, .file = path, .d = d, .mod = T2F_TS_NONE };
	bool read_failed = false;
	uint64_t size = 0;
	int fd, err = t2f_side_file__open(path, &fd, &size);

	*out = NULL;
	if (!err && size > T2F_TEXT_SYMS_MAX_BYTES)
		err = -T2F_ERR_LIMIT;
	if (err) {
		if (fd >= 0)
			close(fd);
		return t2f_ts_read_error(path, err, d);
	}
	err = size ? t2f_ts_reserve(&ps, size) : 0;
	err = err ?: t2f_ts_read(&ps, fd, size, &read_failed);
	close(fd);
	if (read_failed) {
		free(ps.e);
		free(ps.names);
		return t2f_ts_read_error(path, err, d);
	}
	return t2f_ts_finish(&ps, err, out);
}

void t2f_text_syms__free(struct t2f_text_syms *s)
{
	if (!s || atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) > 1)
		return;
	if (s->map) {
		munmap(s->map, s->map_len);
	} else {
		free(s->names);
		free(s->ranges);
	}
	free(s);
}

bool t2f_text_syms__lookup(const struct t2f_text_syms *s, uint64_t addr, struct t2f_text_sym *out)
{
	size_t lo = 0, hi = s->n_ranges;

	while (lo < hi) { /* the first range with hi > addr */
		size_t mid = lo + (hi - lo) / 2;

		if (s->ranges[mid].hi <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == s->n_ranges || s->ranges[lo].lo > addr)
		return false;
	out->name = s->names + s->ranges[lo].name;
	out->module = s->ranges[lo].module == T2F_TS_NONE ? NULL : s->names + s->ranges[lo].module;
	out->start = s->ranges[lo].start;
	out->offset = addr - s->ranges[lo].start;
	return true;
}

size_t t2f_text_syms__count(const struct t2f_text_syms *s)
{
	return s->n_syms;
}

uint64_t t2f_text_syms__bad_lines(const struct t2f_text_syms *s)
{
	return s->bad_lines;
}

struct t2f_text_syms *t2f_text_syms__ref(struct t2f_text_syms *s)
{
	atomic_fetch_add_explicit(&s->refs, 1, memory_order_relaxed);
	return s;
}

bool t2f_text_syms__kernel_ref(const struct t2f_text_syms *s, const char *name, uint64_t *addr)
{
	int i = !strcmp(name, "_text") ? 0 : !strcmp(name, "_stext") ? 1 : -1;

	if (i < 0 || !s->ref[i])
		return false;
	*addr = s->ref[i];
	return true;
}

bool t2f_text_syms__partial(const struct t2f_text_syms *s)
{
	return s->partial;
}

size_t t2f_text_syms__bytes(const struct t2f_text_syms *s)
{
	return s->bytes;
}
