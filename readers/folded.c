/* readers/folded.c: folded stacks, one line at a time: the weight from the end, then the frames
 * split on ';' and walked down the profile's stack trie. */
#include "readers/folded.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct t2f_folded {
	struct t2f_profile *p;
	struct t2f_diag *d;
	char *name;
	uint32_t input;
	uint64_t line_no;
	t2f_event_id event;
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

/* "burner;main;spin_leaf 12", "a;b 3 5" (differential: weight 5), "a;b 2.5" (weight 2). */
static int parse_line(struct t2f_folded *f, const char *s, size_t len)
{
	const char *num = trailing_number(s, len), *end, *semi;
	t2f_node_id node = 0;
	t2f_thread_id th;
	t2f_str_id comm;
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
	semi = memchr(s, ';', (size_t)(end - s));
	err = t2f_profile__intern(f->p, s, (size_t)((semi ? semi : end) - s), &comm) ?:
	      t2f_profile__thread(f->p, T2F_PID_UNKNOWN, T2F_PID_UNKNOWN, comm, f->input, &th);
	while (!err && semi) {
		const char *b = semi + 1;

		semi = memchr(b, ';', (size_t)(end - b));
		err = add_frame(f, b, (size_t)((semi ? semi : end) - b), &node);
	}
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
