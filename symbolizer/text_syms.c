/* symbolizer/text_syms.c: kallsyms and perf map files → one sorted table of non-overlapping
 * address ranges (text_syms.h). */
#include "symbolizer/text_syms.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "formats/grow.h"
#include "formats/side_file.h"

#define T2F_TS_PAGE 4096u

/* A parsed line: [start, end) (end 0 = not known yet: kallsyms), names as offsets into text. */
struct t2f_ts_entry {
	uint64_t start, end;
	size_t name, module;        /* offsets; module SIZE_MAX = none */
	uint64_t line;
};

/* A range of the final table: addresses [lo, hi) belong to entry's symbol. */
struct t2f_ts_range {
	uint64_t lo, hi, start;
	size_t name, module;
};

struct t2f_text_syms {
	char *text;                 /* the file, names NUL-terminated in place */
	struct t2f_ts_range *ranges;
	size_t n_ranges, n_syms;
	uint64_t bad_lines;
	size_t bytes;               /* text and ranges */
	_Atomic uint32_t refs;      /* its holders: t2f_text_syms__ref adds one, __free drops one */
};

/* Parsing state of one file. */
struct t2f_ts_parse {
	enum t2f_text_syms_format fmt;
	const char *file;
	struct t2f_diag *d;
	char *text;
	struct t2f_ts_entry *e;
	size_t n, cap;
	uint64_t bad, nonzero;
};

/* Up to 16 hex digits at *p, advancing *p; false when there are none or too many. */
static bool t2f_ts_hex(char **p, uint64_t *v)
{
	char *s = *p;
	size_t n = 0;

	*v = 0;
	for (;; n++) {
		char c = s[n];
		unsigned dv;

		if (c >= '0' && c <= '9')
			dv = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			dv = (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			dv = (unsigned)(c - 'A' + 10);
		else
			break;
		if (n == 16)
			return false;
		*v = *v << 4 | dv;
	}
	*p = s + n;
	return n > 0;
}

static int t2f_ts_push(struct t2f_ts_parse *ps, const struct t2f_ts_entry *e)
{
	int err = t2f_grow((void **)&ps->e, &ps->cap, ps->n, 1, sizeof(*ps->e), 1024, SIZE_MAX);

	if (err)
		return err;
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
			      "expected \"START SIZE NAME\" (perf map, hex without 0x): %s; line skipped",
			      why);
}

/* kallsyms, as /proc/kallsyms prints it:
 *   ffffffff81000000 T _stext
 *   ffffffff8225f2c0 T pvm_irq_enable
 *   ffffffffc0201000 t ftrace_trampoline	[__builtin__ftrace]
 * Text symbols (t T w W) are kept; other types are skipped without a warning. */
static int t2f_ts_kallsyms_line(struct t2f_ts_parse *ps, char *s, uint64_t line)
{
	struct t2f_ts_entry e = { .module = SIZE_MAX, .line = line };
	char *name, *tab;
	char type;

	if (!t2f_ts_hex(&s, &e.start) || s[0] != ' ')
		return t2f_ts_bad(ps, line, "no hex address");
	type = s[1];
	if (!type || s[2] != ' ' || !s[3] || s[3] == '\t')
		return t2f_ts_bad(ps, line, "no type and name");
	if (!strchr("tTwW", type))
		return 0;
	name = s + 3;
	tab = strchr(name, '\t');
	if (tab) {
		char *mod = tab + 1;
		size_t mlen = strlen(mod);

		*tab = '\0';
		if (mlen >= 2 && mod[0] == '[' && mod[mlen - 1] == ']') {
			mod[mlen - 1] = '\0';
			mod++;
		}
		if (*mod)
			e.module = (size_t)(mod - ps->text);
	}
	if (strlen(name) > T2F_TEXT_SYMS_MAX_NAME)
		return t2f_ts_bad(ps, line, "name too long");
	e.name = (size_t)(name - ps->text);
	ps->nonzero += e.start != 0;
	return t2f_ts_push(ps, &e);
}

/* perf map, one line per JIT-compiled function (START SIZE NAME, the name up to the line end):
 *   7f27705ae000 e jit_leaf
 *   7f27705ae100 e JIT name with spaces [tier 2]
 *   7f27705ae200 e jit_new_stub          (the same START again: re-jitted, the later line wins) */
static int t2f_ts_map_line(struct t2f_ts_parse *ps, char *s, uint64_t line)
{
	struct t2f_ts_entry e = { .module = SIZE_MAX, .line = line };
	uint64_t size;

	if (!t2f_ts_hex(&s, &e.start) || (s[0] != ' ' && s[0] != '\t'))
		return t2f_ts_bad(ps, line, "no hex start");
	s++;
	if (!t2f_ts_hex(&s, &size) || (s[0] != ' ' && s[0] != '\t'))
		return t2f_ts_bad(ps, line, "no hex size");
	s++;
	if (!*s)
		return t2f_ts_bad(ps, line, "no name");
	if (strlen(s) > T2F_TEXT_SYMS_MAX_NAME)
		return t2f_ts_bad(ps, line, "name too long");
	if (size == 0)
		size = 1;
	e.end = size > UINT64_MAX - e.start ? UINT64_MAX : e.start + size;
	e.name = (size_t)(s - ps->text);
	return t2f_ts_push(ps, &e);
}

/* Splits text into lines (NUL-terminated in place, "\r\n" too) and parses each. */
static int t2f_ts_lines(struct t2f_ts_parse *ps, size_t len)
{
	char *s = ps->text, *end = ps->text + len;
	uint64_t line = 0;
	int err = 0;

	while (s < end && !err) {
		char *nl = memchr(s, '\n', (size_t)(end - s));
		char *le = nl ? nl : end;
		size_t ll;

		line++;
		ll = (size_t)(le - s);
		*le = '\0';
		if (ll && s[ll - 1] == '\r')
			s[--ll] = '\0';
		if (strlen(s) != ll)
			err = t2f_ts_bad(ps, line, "a NUL byte in the line");
		else if (ll)
			err = ps->fmt == T2F_TEXT_SYMS_KALLSYMS ? t2f_ts_kallsyms_line(ps, s, line)
								: t2f_ts_map_line(ps, s, line);
		s = le + 1;
	}
	return err;
}

static int t2f_ts_cmp(const void *a, const void *b)
{
	const struct t2f_ts_entry *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static bool t2f_ts_same_module(const struct t2f_ts_parse *ps, const struct t2f_ts_entry *a,
			       const struct t2f_ts_entry *b)
{
	if (a->module == SIZE_MAX || b->module == SIZE_MAX)
		return a->module == b->module;
	return strcmp(ps->text + a->module, ps->text + b->module) == 0;
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
	if (ps->n) /* qsort must not get NULL, even for 0 items */
		qsort(ps->e, ps->n, sizeof(*ps->e), t2f_ts_cmp);
	for (size_t i = 0; i < ps->n; i++) {
		struct t2f_ts_entry *e = &ps->e[i], *next = i + 1 < ps->n ? &ps->e[i + 1] : NULL;
		uint64_t bound = e->start > UINT64_MAX - 2 * T2F_TS_PAGE ? UINT64_MAX
				 : (e->start + 2 * T2F_TS_PAGE - 1) / T2F_TS_PAGE * T2F_TS_PAGE;

		if (next && next->start == e->start)
			continue; /* an alias: the later line names this address */
		if (next && t2f_ts_same_module(ps, e, next))
			e->end = next->start;
		else /* the last symbol, or the last of its module: a bounded end */
			e->end = next && next->start < bound ? next->start : bound;
		s->n_syms++;
		t2f_ts_add_range(s, e, e->start, e->end);
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

	s->ranges = calloc(2 * ps->n + 1, sizeof(*s->ranges));
	if (!s->ranges)
		return -ENOMEM;
	if (ps->fmt == T2F_TEXT_SYMS_KALLSYMS)
		return t2f_ts_build_kallsyms(ps, s);
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

static int t2f_ts_parse_owned(enum t2f_text_syms_format fmt, const char *file, char *text,
			      size_t len, struct t2f_diag *d, struct t2f_text_syms **out)
{
	struct t2f_ts_parse ps = { .fmt = fmt, .file = file, .d = d, .text = text };
	struct t2f_text_syms *s = calloc(1, sizeof(*s));
	int err = s ? 0 : -ENOMEM;

	*out = NULL;
	if (s)
		atomic_init(&s->refs, 1);
	if (!err)
		err = t2f_ts_lines(&ps, len);
	if (!err && fmt == T2F_TEXT_SYMS_KALLSYMS)
		err = t2f_ts_check_kallsyms(&ps);
	if (!err) {
		s->text = text;
		text = NULL;
		s->bad_lines = ps.bad;
		err = t2f_ts_build(&ps, s);
		s->bytes = len + 1 + s->n_ranges * sizeof(*s->ranges);
	}
	free(ps.e);
	free(text);
	if (err) {
		t2f_text_syms__free(s);
		return err == -ENOMEM ? t2f_diag__error(d, err, file, 0, "out of memory") : err;
	}
	*out = s;
	return 0;
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

int t2f_text_syms__load(enum t2f_text_syms_format fmt, const char *path, struct t2f_diag *d,
			struct t2f_text_syms **out)
{
	char *text = NULL;
	size_t len = 0;
	int err = t2f_side_file__read(path, T2F_TEXT_SYMS_MAX_BYTES, &text, &len);

	return t2f_text_syms__from_read(fmt, path, err, text, len, d, out);
}

int t2f_text_syms__from_read(enum t2f_text_syms_format fmt, const char *path, int err,
			     char *text, size_t len, struct t2f_diag *d, struct t2f_text_syms **out)
{
	*out = NULL;
	if (err == -T2F_ERR_LIMIT)
		return t2f_diag__error(d, err, path, 0, "larger than %zu bytes",
				       T2F_TEXT_SYMS_MAX_BYTES);
	if (err)
		return t2f_diag__error(d, err, path, 0, "cannot open (%s)", t2f_strerror(err));
	return t2f_ts_parse_owned(fmt, path, text, len, d, out);
}

void t2f_text_syms__free(struct t2f_text_syms *s)
{
	if (!s || atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) > 1)
		return;
	free(s->text);
	free(s->ranges);
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
	out->name = s->text + s->ranges[lo].name;
	out->module = s->ranges[lo].module == SIZE_MAX ? NULL : s->text + s->ranges[lo].module;
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

size_t t2f_text_syms__bytes(const struct t2f_text_syms *s)
{
	return s->bytes;
}
