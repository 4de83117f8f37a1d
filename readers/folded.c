/* readers/folded.c: folded stacks, one line at a time: the weight from the end, then the frames
 * split on ';' and walked down the profile's stack trie.
 *
 * Folded text is mostly sorted (trace2flame and flamegraph.pl write it so), and a line then
 * starts with most of the line before it: the reader keeps the previous line's stack text, its
 * thread and the node each of its frames led to, and takes the frames of the common prefix from
 * there without looking them up again (the lookups would find the same ids: they add nothing
 * when the frame and node are there). */
#include "readers/folded.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats/grow.h"

/* A frame of the previous line: where its text ends (the ';' after it, or the stack's end) and
 * the node the stack reached with it. */
struct level {
	size_t end;
	t2f_node_id node;
};

struct t2f_folded {
	struct t2f_profile *p;
	struct t2f_diag *d;
	char *name;
	uint32_t input;
	uint64_t line_no;
	t2f_event_id event;
	/* the previous line's stack text (comm and frames, without the weight) */
	char *prev;
	size_t prev_len, prev_cap;
	size_t comm_end;            /* prev[0..comm_end) is its comm (0 with no previous line) */
	t2f_thread_id thread;       /* its thread */
	struct level *levels;       /* its frames */
	size_t nlevels, levels_cap;
};

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The start of a trailing "[ \t]DIGITS[.DIGITS]" in s[0..len), or NULL. */
static const char *trailing_number(const char *s, size_t len)
{
	size_t i = len;

	while (i > 0 && is_digit(s[i - 1]))
		i--;
	if (i > 0 && i < len && s[i - 1] == '.') {
		i--;
		while (i > 0 && is_digit(s[i - 1]))
			i--;
		if (s[i] == '.')
			return NULL;
	}
	if (i == len || i == 0 || !is_blank(s[i - 1]))
		return NULL;
	return s + i;
}

/* perf script's "SECONDS.MICROS:" time field, as in "burner 1234 [000] 10.000001: 1 cpu-clock:". */
static bool has_time_field(const char *s, size_t len)
{
	for (size_t i = 1; i + 1 < len; i++) {
		size_t j = i;

		if (s[i] != '.' || !is_digit(s[i - 1]))
			continue;
		while (j + 1 < len && is_digit(s[j + 1]))
			j++;
		if (j > i && j + 1 < len && s[j + 1] == ':')
			return true;
	}
	return false;
}

/* The next line of data[*pos..len) (without its '\n' and '\r'), skipping empty and '#' lines. */
static bool next_line(const char *data, size_t len, size_t *pos, const char **s, size_t *n)
{
	while (*pos < len) {
		const char *b = data + *pos, *nl = memchr(b, '\n', len - *pos);
		size_t l = nl ? (size_t)(nl - b) : len - *pos;

		*pos += l + (nl ? 1 : 0);
		if (l && b[l - 1] == '\r')
			l--;
		if (l == 0 || b[0] == '#')
			continue;
		*s = b;
		*n = l;
		return true;
	}
	return false;
}

bool t2f_folded__detect(const char *data, size_t len)
{
	size_t pos = 0, n;
	const char *s;

	if (!next_line(data, len, &pos, &s, &n))
		return false;
	if (is_blank(s[0]) || memchr(s, '\0', n) || !trailing_number(s, n) || has_time_field(s, n))
		return false;
	return !next_line(data, len, &pos, &s, &n) || !is_blank(s[0]);
}

int t2f_folded__new(struct t2f_profile *p, struct t2f_diag *d, const char *name, uint32_t input,
		    struct t2f_folded **out)
{
	struct t2f_folded *f = calloc(1, sizeof(*f));
	t2f_str_id ev;
	int err;

	*out = NULL;
	if (!f || !(f->name = strdup(name ? name : "<input>"))) {
		free(f);
		return -ENOMEM;
	}
	f->p = p;
	f->d = d;
	f->input = input;
	err = t2f_profile__intern(p, "samples", 7, &ev) ?: t2f_profile__event(p, ev, T2F_UNIT_COUNT, &f->event);
	if (err) {
		t2f_folded__free(f);
		return err;
	}
	*out = f;
	return 0;
}

void t2f_folded__free(struct t2f_folded *f)
{
	if (!f)
		return;
	free(f->name);
	free(f->prev);
	free(f->levels);
	free(f);
}

uint64_t t2f_folded__lines(const struct t2f_folded *f)
{
	return f->line_no;
}

/* One frame name: "_[k]" and the like removed into the kind. */
static int add_frame(struct t2f_folded *f, const char *s, size_t len, t2f_node_id *node)
{
	struct t2f_frame fr = { .kind = T2F_FRAME_USER };
	t2f_frame_id id;
	int err;

	if (len >= 4 && s[len - 4] == '_' && s[len - 3] == '[' && s[len - 1] == ']') {
		char k = s[len - 2];

		if (k == 'k' || k == 'j' || k == 'i') {
			fr.kind = k == 'k' ? T2F_FRAME_KERNEL : k == 'j' ? T2F_FRAME_JIT : T2F_FRAME_INLINED;
			len -= 4;
		}
	}
	err = t2f_profile__intern(f->p, s, len, &fr.name) ?: t2f_profile__frame(f->p, &fr, &id);
	return err ?: t2f_profile__child(f->p, *node, id, node);
}

/* How many bytes s[0..len) and the previous line's stack text have in common. */
static size_t common_prefix(const struct t2f_folded *f, const char *s, size_t len)
{
	size_t n = len < f->prev_len ? len : f->prev_len, i = 0;

	while (i + 8 <= n && memcmp(s + i, f->prev + i, 8) == 0)
		i += 8;
	while (i < n && s[i] == f->prev[i])
		i++;
	return i;
}

/* Keeps stack text s[0..len) (the comm ends at comm_end) as the previous line. */
static int keep_line(struct t2f_folded *f, const char *s, size_t len, size_t comm_end)
{
	int err = t2f_grow((void **)&f->prev, &f->prev_cap, 0, len, 1, 256, SIZE_MAX);

	if (err)
		return err;
	memcpy(f->prev, s, len);
	f->prev_len = len;
	f->comm_end = comm_end;
	return 0;
}

/* The thread and frames of stack text s[0..len) (the comm, then ';' and each frame): those of
 * the previous line's common prefix taken from it, the rest looked up; the leaf's node. */
static int add_stack(struct t2f_folded *f, const char *s, size_t len, t2f_thread_id *th,
		     t2f_node_id *node)
{
	const char *semi = memchr(s, ';', len);
	size_t comm_end = semi ? (size_t)(semi - s) : len, c = common_prefix(f, s, len), k = 0;
	size_t pos;
	t2f_str_id comm;
	int err = 0;

	*node = 0;
	if (f->comm_end && comm_end == f->comm_end && c >= comm_end) {
		*th = f->thread; /* the same comm: the same thread */
		/* frame k is the previous line's when the bytes up to its end are, and it ends
		 * there too */
		while (k < f->nlevels && c >= f->levels[k].end &&
		       (f->levels[k].end == len || s[f->levels[k].end] == ';'))
			*node = f->levels[k++].node;
	} else {
		err = t2f_profile__intern(f->p, s, comm_end, &comm) ?:
		      t2f_profile__thread(f->p, T2F_PID_UNKNOWN, T2F_PID_UNKNOWN, comm, f->input, th);
		f->thread = *th;
	}
	f->nlevels = k;
	pos = k ? f->levels[k - 1].end : comm_end;
	while (!err && pos < len) {
		const char *b = s + pos + 1, *e = memchr(b, ';', len - pos - 1);

		pos = e ? (size_t)(e - s) : len;
		err = add_frame(f, b, (size_t)(s + pos - b), node) ?:
		      t2f_grow((void **)&f->levels, &f->levels_cap, f->nlevels, 1,
			       sizeof(*f->levels), 64, SIZE_MAX);
		if (!err)
			f->levels[f->nlevels++] = (struct level){ pos, *node };
	}
	if (err) { /* nothing of this line is kept */
		f->comm_end = f->nlevels = f->prev_len = 0;
		return err;
	}
	return keep_line(f, s, len, comm_end);
}

/* "burner;main;spin_leaf 12", "a;b 3 5" (differential: weight 5), "a;b 2.5" (weight 2). */
static int parse_line(struct t2f_folded *f, const char *s, size_t len)
{
	const char *num = trailing_number(s, len), *end;
	t2f_node_id node = 0;
	t2f_thread_id th;
	uint64_t w = 0;
	bool over = false;
	int err;

	if (!num) {
		t2f_profile__count_read(f->p);
		t2f_profile__count_drop(f->p, T2F_DROP_MALFORMED);
		return t2f_diag__warn(f->d, f->name, f->line_no, "not a folded stack (no count at the end)");
	}
	for (const char *c = num; c < s + len && is_digit(*c); c++) {
		uint64_t d = (uint64_t)(*c - '0');

		over |= w > (UINT64_MAX - d) / 10;
		w = over ? UINT64_MAX : w * 10 + d;
	}
	if (over && (err = t2f_diag__warn(f->d, f->name, f->line_no, "count past "
					  "18446744073709551615: taken as that")))
		return err;
	end = num - 1;
	if (trailing_number(s, (size_t)(end - s)))
		end = trailing_number(s, (size_t)(end - s)) - 1;
	t2f_profile__count_read(f->p);
	/* "comm 5": a sample without a call chain, the thread alone (as trace2flame and
	 * stackcollapse-perf.pl write it) */
	err = add_stack(f, s, (size_t)(end - s), &th, &node);
	/* a count of 0 is still a sample read and kept (weightless, like perf's period 0) */
	return err ?: t2f_profile__add_sample(f->p, node, th, f->event, w, 0);
}

int t2f_folded__feed(struct t2f_folded *f, const char *data, size_t len)
{
	size_t pos = 0;
	int err = 0;

	while (!err && pos < len) {
		const char *b = data + pos, *nl = memchr(b, '\n', len - pos);
		size_t l = nl ? (size_t)(nl - b) : len - pos;

		pos += l + (nl ? 1 : 0);
		f->line_no++;
		if (l && b[l - 1] == '\r')
			l--;
		if (memchr(b, '\0', l))
			return t2f_diag__error(f->d, -T2F_ERR_FORMAT, f->name, f->line_no,
					       "binary data (a NUL byte) in folded stacks");
		if (l == 0 || b[0] == '#')
			continue;
		err = parse_line(f, b, l);
	}
	return err;
}
