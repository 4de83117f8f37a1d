/* readers/perf_script_timeless.c: `perf script -F` lines without the time field, and the probe
 * that tells from an input's first lines whether it is perf script text at all and whether its
 * headers have times.
 *
 * Real lines this handles (perf 6.1, a `perf record -e cpu-clock -g` recording, and one without
 * -g for the one-line samples):
 *   burner  6997                                          (-F comm,tid,ip,sym,dso: call chain)
 *   1234 5678  6997/7003     2004008 cpu-clock:           (-F comm,pid,tid,period,event,...)
 *      2004008                                            (-F period,ip,sym)
 *       V8 Worker 12  7467      557dc92ff219 spin_leaf (/tmp/burner)    (-F comm,tid,ip,sym,dso)
 *        557dc92ff219 (/tmp/burner)                       (-F ip,dso, one-line)
 *   faulter 27347 PERF_RECORD_LOST lost 7                 (--show-lost-events)
 * (-F ip,dso with -g prints an empty header line: the sample is its frame lines alone.)
 *
 * Without the time there is no anchor, but perf prints every field in a fixed width
 * (builtin-script.c): the comm "%s " before a call chain and "%16s " on a one-line sample, the
 * pid/tid "%5d/%-5d ", a tid or pid alone "%5d ", the cpu "[%03d] ", the period "%10lu ", the
 * event "NAME: ", and a one-line sample's ip " %16lx". So a word's own width plus the blanks
 * before it says which field it is: a tid fills 5 columns, a period 10, an ip 16 after one more
 * blank; a comm's digit words ("1234 5678") fill none of them.
 */
#include "readers/perf_script.h"

#include "formats/event_name.h"
#include "readers/perf_script_parse.h"

/* A word of the line: s[b..e), after `gap` blanks (from the line start for the first word). */
struct tl_word {
	size_t b, e, gap;
	bool first;
};

/* The last word of s[0..end), or false when there is none. */
static bool last_word(const char *s, size_t end, struct tl_word *w)
{
	size_t i = end;

	while (i > 0 && s[i - 1] == ' ')
		i--;
	if (i == 0)
		return false;
	w->e = i;
	while (i > 0 && s[i - 1] != ' ')
		i--;
	w->b = i;
	while (i > 0 && s[i - 1] == ' ')
		i--;
	w->first = i == 0;
	w->gap = w->b - i;
	return true;
}

static bool all_digits(const char *s, size_t b, size_t e)
{
	for (size_t i = b; i < e; i++)
		if (!is_digit(s[i]))
			return false;
	return e > b;
}

/* Lowercase hex of 1 to 16 digits, as perf's %lx prints an address. */
static bool is_lhex(const char *s, size_t b, size_t e)
{
	if (e <= b || e - b > 16)
		return false;
	for (size_t i = b; i < e; i++)
		if (!is_digit(s[i]) && !(s[i] >= 'a' && s[i] <= 'f'))
			return false;
	return true;
}

/* Whether w fills a field printed right-aligned in `width` columns ("%5d", "%10lu") after the
 * separating blank of the field before it, or from the line start: at least `width` columns
 * with the blanks before it (more after a left-aligned "%-5d" tid). */
static bool fills(const struct tl_word *w, size_t width)
{
	return w->gap + (w->e - w->b) - !w->first >= width;
}

/* A one-line sample's ip: the first word that is lowercase hex and ends 17 columns after the
 * line start (" %16lx" first on the line) or 18 after the word before (its separator, then
 * " %16lx"). Its offset, or len when there is none. */
static size_t find_ip(const char *s, size_t len)
{
	size_t i = 0, prev = 0;
	bool first = true;

	while (i < len) {
		size_t b = i, e;

		while (b < len && s[b] == ' ')
			b++;
		if (b == len)
			break;
		for (e = b; e < len && s[e] != ' '; e++)
			;
		if (is_lhex(s, b, e) && e - (first ? 0 : prev) == (first ? 17u : 18u))
			return b;
		first = false;
		prev = i = e;
	}
	return len;
}

/* The pid/tid word: "PID/TID", or a tid (or pid) alone filling its 5 columns; "-1" for a thread
 * perf did not know. */
static bool take_tid_word(const char *s, const struct tl_word *w, struct ps_header *h)
{
	size_t slash = w->b;
	uint64_t a, b;
	size_t i = w->b;

	while (slash < w->e && s[slash] != '/')
		slash++;
	if (slash < w->e) {
		if (!all_digits(s, w->b, slash) || !all_digits(s, slash + 1, w->e) ||
		    !take_u64(s, slash, &i, &a) || (i = slash + 1, !take_u64(s, w->e, &i, &b)) ||
		    a > INT64_MAX || b > INT64_MAX)
			return false;
		h->pid = (int64_t)a;
		h->tid = (int64_t)b;
		return true;
	}
	if (!fills(w, 5))
		return false;
	if (w->e - w->b == 2 && s[w->b] == '-' && s[w->b + 1] == '1') {
		h->tid = -1;
		return true;
	}
	if (!all_digits(s, w->b, w->e) || !take_u64(s, w->e, &i, &a) || a > INT64_MAX)
		return false;
	h->tid = (int64_t)a;
	return true;
}

/* Whether w is a time "SECONDS.FRACTION:" (then *ns has it). */
static bool time_word(const char *s, const struct tl_word *w, uint64_t *ns)
{
	size_t i = w->b;

	return ps_take_time(s, w->e, &i, ns) && i == w->e;
}

/* The fields before a one-line sample's ip, or a whole call-chain header, from the right: an
 * event word ("NAME:"), a period filling 10 columns, a time (-F time without tid), "[CPU]",
 * the pid/tid word, then the comm. */
static void take_fields(const char *s, size_t end, struct ps_header *h)
{
	struct tl_word w;
	size_t start = skip_blanks(s, end, 0);
	uint64_t v;

	if (last_word(s, end, &w) && w.e - w.b > 1 && s[w.e - 1] == ':' && !time_word(s, &w, &v)) {
		h->event.len = t2f_event_name_len(s + w.b, w.e - 1 - w.b);
		h->event.p = s + w.b;
		h->tracepoint = memchr(h->event.p, ':', h->event.len) != NULL;
		end = w.b;
	}
	if (last_word(s, end, &w) && all_digits(s, w.b, w.e) && fills(&w, 10)) {
		size_t i = w.b;

		if (take_u64(s, w.e, &i, &v)) {
			h->has_period = true;
			h->period = v;
			end = w.b;
		}
	}
	if (last_word(s, end, &w) && time_word(s, &w, &v)) {
		h->time_ns = v;
		end = w.b;
	}
	if (last_word(s, end, &w) && w.e - w.b > 2 && s[w.b] == '[' && s[w.e - 1] == ']' &&
	    all_digits(s, w.b + 1, w.e - 1))
		end = w.b;
	if (last_word(s, end, &w) && take_tid_word(s, &w, h))
		end = w.b;
	while (end > start && s[end - 1] == ' ')
		end--;
	h->comm = (struct ps_span){ s + start, end > start ? end - start : 0 };
}

void ps_parse_timeless(const char *s, size_t len, struct ps_header *h)
{
	size_t i = 0, ip;

	memset(h, 0, sizeof(*h));
	h->pid = h->tid = -1;
	h->rest = (struct ps_span){ s + len, 0 };
	while (i < len) { /* a side record: the word PERF_RECORD_... */
		size_t b = i;

		while (b < len && s[b] == ' ')
			b++;
		if (len - b >= 12 && memcmp(s + b, "PERF_RECORD_", 12) == 0) {
			ps_parse_side_record(s, len, b, h);
			take_fields(s, b, h);
			return;
		}
		while (b < len && s[b] != ' ')
			b++;
		i = b;
	}
	ip = find_ip(s, len);
	if (ip < len)
		h->rest = (struct ps_span){ s + ip, len - ip };
	take_fields(s, ip, h);
}

/* ---- the probe ---- */

/* How a line of the head counts. */
enum tl_line { TL_NEUTRAL, TL_TIMED, TL_PERF, TL_OTHER, TL_BINARY };

static enum tl_line probe_line(const char *s, size_t len)
{
	struct ps_header h;
	struct ps_frame f;
	size_t lead;

	while (len && (s[len - 1] == ' ' || s[len - 1] == '\r' || s[len - 1] == '\t'))
		len--;
	lead = skip_blanks(s, len, 0);
	if (memchr(s, '\0', len))
		return TL_BINARY;
	if (lead == len || s[0] == '#')
		return TL_NEUTRAL;
	if (ps_parse_header(s, len, &h))
		return TL_TIMED;
	if (s[0] == '\t' && ps_parse_frame(s + lead, len - lead, &f))
		return TL_PERF;
	ps_parse_timeless(s, len, &h);
	if (h.record != PS_SAMPLE)
		return TL_PERF;
	if (h.rest.len && ps_parse_frame(h.rest.p, h.rest.len, &f))
		return TL_PERF;
	return TL_OTHER;
}

enum t2f_ps_probe t2f_perf_script__probe(const char *head, size_t len, bool whole)
{
	unsigned other = 0;
	bool perf = false;
	const char *end = head + len;

	while (head < end && other < T2F_PS_PROBE_LINES) {
		const char *nl = memchr(head, '\n', (size_t)(end - head));
		size_t n = nl ? (size_t)(nl - head) : (size_t)(end - head);

		switch (probe_line(head, n)) {
		case TL_TIMED:
			return T2F_PS_TIMED;
		case TL_PERF:
			perf = true;
			break;
		case TL_OTHER:
			other++;
			break;
		case TL_BINARY: /* perf script never prints a NUL byte: binary data */
			return perf ? T2F_PS_TIMELESS : T2F_PS_NOT_PERF_SCRIPT;
		case TL_NEUTRAL:
			break;
		}
		head += n + (nl != NULL);
	}
	if (perf)
		return T2F_PS_TIMELESS;
	if (other && (other >= T2F_PS_PROBE_LINES || (whole && head == end)))
		return T2F_PS_NOT_PERF_SCRIPT;
	return T2F_PS_UNKNOWN;
}
