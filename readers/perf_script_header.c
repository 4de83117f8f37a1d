/* readers/perf_script_header.c: header and side-record lines of `perf script`.
 *
 * Real header lines this handles (docs/perf-script.md):
 *   workload 14667   492.528779:    1001001 cpu-clock:pppH:
 *   workload 14667/14667   492.528779: cpu-clock:pppH:
 *   V8 Worker 12 22829  2011.304692:    1001001 cpu-clock:pppH:
 *   1234 5678 22827/22830  2011.305664:    1001001 cpu-clock:pppH:
 *   workload 15616 [001]   529.378047: sched:sched_switch: prev_comm=workload prev_pid=15616 ...
 *   workload 15616   529.376471:          1        page-faults:
 *           workload 22677  1993.326821:    2004008 cpu-clock:pppH:      560cbf4a7b9e sym+0x9e (dso)
 *   workload 14667   492.526233: PERF_RECORD_MMAP2 14667/14667: [0x55a5...(0x5000) @ 0x2000 fe:00 1 2]: r-xp /p
 *   swapper     0     0.000000: PERF_RECORD_MMAP -1/0: [0xffffffff81000000(0x120bb08) @ 0xffffffff81000000]: x [kernel.kallsyms]_text
 *   burner  6279   372.139833: PERF_RECORD_FORK(6279:6281):(6279:6279)
 *   :-1    -1 [001] 17813.513517:     200040 cpu-clock:        (a thread perf did not know)
 * The comm may hold spaces and digit words, so the header is anchored on the first
 * "TID [CPU] SECONDS.FRACTION:" run from the left; the comm is everything before it.
 */
#include "formats/event_name.h"
#include "formats/profile.h"
#include "readers/perf_script_parse.h"

#include <string.h>

/* A decimal number, or -1 (perf prints "-1" for a thread it does not know: ":-1    -1"). */
static bool take_id(const char *s, size_t end, size_t *i, int64_t *v)
{
	uint64_t x;
	bool neg = *i < end && s[*i] == '-';

	*i += neg;
	if (!take_u64(s, end, i, &x) || x > INT64_MAX || (neg && x != 1))
		return false;
	*v = neg ? -1 : (int64_t)x;
	return true;
}

/* "123" or "123/456" ending at a blank: the pid/tid word. */
static bool take_tid(const char *s, size_t end, size_t *i, int64_t *pid, int64_t *tid)
{
	int64_t a, b;

	if (!take_id(s, end, i, &a))
		return false;
	if (*i < end && s[*i] == '/') {
		(*i)++;
		if (!take_id(s, end, i, &b))
			return false;
		*pid = a;
		*tid = b;
	} else {
		*pid = -1;
		*tid = a;
	}
	return *i < end && s[*i] == ' ';
}

#define ZEROS 0x3030303030303030ull /* '0' in every byte */

static inline uint64_t load8(const char *p)
{
	uint64_t w;

	memcpy(&w, p, 8);
	return w;
}

/* The value of 8 decimal digits given as byte values 0..9, the first (most significant) in the
 * lowest byte, as a little-endian load of their text gives them: neighbouring digits, then
 * pairs, then quads are joined, each step one multiply-add over the lanes. */
static inline uint64_t digits8(uint64_t v)
{
	v = v * 10 + (v >> 8); /* byte 2k: digits 2k and 2k+1 as a number below 100 */
	return (((v & 0x000000ff000000ffull) * (100 + (1000000ull << 32))) +
		(((v >> 16) & 0x000000ff000000ffull) * (1 + (10000ull << 32)))) >> 32;
}

/* The value of the digits p[0..n) (n ≤ 19), one at a time. */
static uint64_t digits_slow(const char *p, size_t n)
{
	uint64_t v = 0;

	for (size_t d = 0; d < n; d++)
		v = v * 10 + (uint64_t)(p[d] - '0');
	return v;
}

/* The time in ns of the checked "SECONDS.FRACTION" in p[0..n), its '.' at p[dot]: 1 to 19 digits
 * of seconds (a time past 2^64 ns, 584 years, is T2F_TIME_PAST), the fraction's first 9 digits
 * kept. Eight digits at a time (digits8) when there are 8 bytes of the time to load around them
 * (perf prints 1 to 6 digits of seconds, 6 or 9 of fraction): 75 instructions a time, where
 * digit by digit took 117, 3.7% of a pprof run's on a whole-machine recording. No per-digit
 * overflow test. */
uint64_t ps_time_ns(const char *p, size_t dot, size_t n)
{
	static const uint64_t scale[10] = { 1000000000ull, 100000000ull, 10000000ull, 1000000ull,
					     100000ull, 10000ull, 1000ull, 100ull, 10ull, 1ull };
	size_t digits = n - dot - 1 < 9 ? n - dot - 1 : 9;
	uint64_t sec, frac;

	if (n >= 8 && dot <= 8) /* the first dot bytes of the 8 at p, moved up to the last digits */
		sec = digits8((load8(p) - ZEROS) << (8 * (8 - dot)));
	else
		sec = digits_slow(p, dot);
	if (digits >= 8) { /* the fraction's first 8 digits, then the 9th */
		frac = digits8(load8(p + dot + 1) - ZEROS);
		if (digits == 9)
			frac = frac * 10 + (uint64_t)(p[dot + 9] - '0');
	} else if (n >= 8) { /* the last `digits` bytes of the 8 before n, the others made '0' */
		uint64_t keep = ~0ull << (8 * (8 - digits));

		frac = digits8(((load8(p + n - 8) & keep) | (ZEROS & ~keep)) - ZEROS);
	} else {
		frac = digits_slow(p + dot + 1, digits);
	}
	frac *= scale[digits];
	return sec > (UINT64_MAX - 1 - frac) / 1000000000ull ? T2F_TIME_PAST
							      : sec * 1000000000ull + frac;
}

/* "492.528779:": *i moves past the ':' and, unless ns is NULL, *ns gets the time in ns
 * (ps_time_ns). */
bool ps_take_time(const char *s, size_t end, size_t *i, uint64_t *ns)
{
	size_t j = *i, k, dot;

	while (j < end && j - *i < 19 && is_digit(s[j]))
		j++;
	if (j == *i || j >= end || s[j] != '.')
		return false;
	dot = j;
	k = ++j;
	while (j < end && is_digit(s[j]))
		j++;
	if (j == k || j >= end || s[j] != ':')
		return false;
	if (ns)
		*ns = ps_time_ns(s + *i, dot - *i, j - *i);
	*i = j + 1;
	return true;
}

/* At word start i: "TID [CPU] TIME:"; on success *i is just after the ':'. */
static bool anchor_at(const char *s, size_t end, size_t *i, struct ps_header *h)
{
	size_t j = *i;

	if (!take_tid(s, end, &j, &h->pid, &h->tid))
		return false;
	j = skip_blanks(s, end, j);
	if (j < end && s[j] == '[') {
		j++;
		while (j < end && is_digit(s[j]))
			j++;
		if (j >= end || s[j] != ']')
			return false;
		j = skip_blanks(s, end, j + 1);
	}
	h->time_at = j;
	if (!ps_take_time(s, end, &j, &h->time_ns))
		return false;
	*i = j;
	h->tail_at = j;
	return true;
}

/* "cpu-clock:pppH" → "cpu-clock"; "sched:sched_switch" stays (and is a tracepoint). */
static void set_event(struct ps_header *h, const char *s, size_t len)
{
	len = t2f_event_name_len(s, len);
	h->event = (struct ps_span){ s, len };
	h->tracepoint = memchr(s, ':', len) != NULL;
}

void ps_parse_side_record(const char *s, size_t end, size_t i, struct ps_header *h)
{
	size_t w = i;

	while (w < end && s[w] != ' ')
		w++;
	if (w - i > 16 && memcmp(s + i, "PERF_RECORD_FORK(", 17) == 0) {
		h->record = PS_FORK;
		h->rest = (struct ps_span){ s + i + 16, w - i - 16 };
		return;
	}
	if (w - i == 17 && memcmp(s + i, "PERF_RECORD_MMAP2", 17) == 0)
		h->record = PS_MMAP;
	else if (w - i == 16 && memcmp(s + i, "PERF_RECORD_MMAP", 16) == 0)
		h->record = PS_MMAP;
	else if (w - i == 16 && memcmp(s + i, "PERF_RECORD_LOST", 16) == 0)
		h->record = PS_LOST;
	else if ((w - i == 18 || w - i == 27) && memcmp(s + i, "PERF_RECORD_SWITCH", 18) == 0 &&
		 (w - i == 18 || memcmp(s + i + 18, "_CPU_WIDE", 9) == 0))
		h->record = PS_SWITCH;
	else
		h->record = PS_OTHER_RECORD;
	w = skip_blanks(s, end, w);
	h->rest = (struct ps_span){ s + w, end - w };
}

/* Whether a number just before s[i..end) is a period rather than the address of a one-line
 * sample without event ("prog 12 1.0: 401136 main (/bin/prog)"): a period ends the line or is
 * followed by the event word ("...:") or by an address and more text. */
static bool is_period(const char *s, size_t end, size_t i)
{
	size_t w = i;
	uint64_t addr;

	if (i == end)
		return true;
	while (w < end && s[w] != ' ')
		w++;
	if (s[w - 1] == ':')
		return true;
	return take_hex(s, end, &i, &addr) && i == w && skip_blanks(s, end, w) < end;
}

/* After "TIME:": "[period] [event:] [rest]". */
static void parse_tail(const char *s, size_t end, size_t i, struct ps_header *h)
{
	size_t j, w;
	uint64_t period;

	i = skip_blanks(s, end, i);
	if (end - i >= 12 && memcmp(s + i, "PERF_RECORD_", 12) == 0) {
		ps_parse_side_record(s, end, i, h);
		return;
	}
	j = i;
	if (take_u64(s, end, &j, &period) && (j == end || s[j] == ' ') &&
	    is_period(s, end, skip_blanks(s, end, j))) {
		h->has_period = true;
		h->period = period;
		i = skip_blanks(s, end, j);
	}
	for (w = i; w < end && s[w] != ' '; w++)
		;
	if (w > i && s[w - 1] == ':') {
		set_event(h, s + i, w - 1 - i);
		i = skip_blanks(s, end, w);
	}
	h->rest = (struct ps_span){ s + i, end - i };
}

bool ps_parse_header(const char *s, size_t len, struct ps_header *h)
{
	size_t start = skip_blanks(s, len, 0), i = start;

	memset(h, 0, sizeof(*h));
	while (i < len) {
		bool word_start = i == start || s[i - 1] == ' ';
		size_t j = i;

		if (word_start && (is_digit(s[i]) || s[i] == '-') && anchor_at(s, len, &j, h)) {
			size_t cend = i;

			while (cend > start && s[cend - 1] == ' ')
				cend--;
			h->comm = (struct ps_span){ s + start, cend - start };
			parse_tail(s, len, j, h);
			return true;
		}
		i++;
	}
	return false;
}

void ps_header_memo__keep(struct ps_header_memo *m, const char *s, size_t len,
			  const struct ps_header *h)
{
	size_t tail = len - h->tail_at;
	struct ps_header_way *w = &m->way[0];

	if (h->record != PS_SAMPLE || h->rest.len || h->time_at > sizeof(w->prefix) ||
	    tail > sizeof(w->tail) || tail == 0)
		return;
	memmove(&m->way[1], &m->way[0], sizeof(m->way) - sizeof(m->way[0]));
	memcpy(w->prefix, s, h->time_at);
	w->prefix_len = h->time_at;
	memcpy(w->tail, s + h->tail_at, tail);
	w->tail_len = tail;
	w->h = *h;
	w->comm_at = (size_t)(h->comm.p - s);
	w->thread = w->event = 0;
	w->prefix_end = h->time_at >= 8 ? load8(s + h->time_at - 8) : 0;
	w->event_at = h->event.len ? (size_t)(h->event.p - s) - h->tail_at : 0;
}

/* Whether p[0..n) is a time without its ':' as take_time reads it: 1 to 19 digits, '.', digits;
 * *dot is where its '.' is. */
static bool time_ok(const char *p, size_t n, size_t *dot)
{
	size_t i = 0;

	while (i < n && is_digit(p[i]))
		i++;
	if (i == 0 || i > 19 || i + 1 >= n || p[i] != '.')
		return false;
	*dot = i;
	for (i++; i < n; i++)
		if (!is_digit(p[i]))
			return false;
	return true;
}

/* The line is the way's prefix, a time, ':' and the way's tail: compared from both ends, then the
 * time between them checked (and converted when `times`). */
static int way_parse(const struct ps_header_way *w, const char *s, size_t len, bool times,
		     struct ps_header *h)
{
	size_t j = w->prefix_len, t = len - w->tail_len, dot; /* the tail starts at t */

	if (!w->tail_len || len < j + w->tail_len + 4)
		return 0;
	if (j >= 8 && load8(s + j - 8) != w->prefix_end)
		return 0;
	if (s[t - 1] != ':' || memcmp(s + t, w->tail, w->tail_len) != 0 ||
	    memcmp(s, w->prefix, j) != 0 || !time_ok(s + j, t - 1 - j, &dot))
		return 0;
	*h = w->h;
	h->time_ns = times ? ps_time_ns(s + j, dot, t - 1 - j) : 0;
	h->tail_at = t;
	h->comm.p = s + w->comm_at;
	h->event.p = s + t + w->event_at;
	h->rest = (struct ps_span){ s + len, 0 };
	return 1;
}

struct ps_header_way *ps_header_memo__parse(struct ps_header_memo *m, const char *s,
					    size_t len, bool times, struct ps_header *h)
{
	for (size_t i = 0; i < PS_HEADER_MEMO_WAYS; i++)
		if (way_parse(&m->way[i], s, len, times, h))
			return &m->way[i];
	return NULL;
}

static bool expect(const char *s, size_t end, size_t *i, const char *lit)
{
	size_t n = strlen(lit);

	if (end - *i < n || memcmp(s + *i, lit, n) != 0)
		return false;
	*i += n;
	return true;
}

/* "maj:min ino gen" or a build-id, bare or in angle brackets as perf 6.1 prints it
 * ("@ 0x1000 <4ff1b12c1f4a68d964dde3e107bfbafe605df721>]: r-xp /tmp/burner"); then "]: ". */
static bool take_mmap_id(const char *s, size_t end, size_t *i, struct ps_mmap *m)
{
	const char *close = memchr(s + *i, ']', end - *i);
	size_t j = *i, stop, from;
	bool ends;

	if (!close)
		return false;
	stop = (size_t)(close - s);
	if (j < stop && s[j] == '<')
		j++;
	from = j;
	while (j < stop && is_hex(s[j]))
		j++;
	if (from > *i)  /* "<id>" */
		ends = j + 1 == stop && s[j] == '>';
	else
		ends = j == stop || s[j] == ' ';
	if (j - from >= 16 && ends)
		m->build_id = (struct ps_span){ s + from, j - from };
	*i = stop;
	return expect(s, end, i, "]:");
}

bool ps_parse_mmap(const char *s, size_t end, struct ps_mmap *m)
{
	size_t i = 0;
	uint64_t pid, tid;
	bool neg;

	memset(m, 0, sizeof(*m));
	neg = expect(s, end, &i, "-");
	if (!take_u64(s, end, &i, &pid))
		return false;
	m->pid = neg ? -(int64_t)pid : (int64_t)pid;
	m->tid = expect(s, end, &i, "/") && take_u64(s, end, &i, &tid) ? (int64_t)tid : -1;
	while (i < end && s[i] != ' ')
		i++;
	i = skip_blanks(s, end, i);
	if (!expect(s, end, &i, "[") || !take_hex(s, end, &i, &m->start) ||
	    !expect(s, end, &i, "(") || !take_hex(s, end, &i, &m->len) ||
	    !expect(s, end, &i, ") @ ") || !take_hex(s, end, &i, &m->pgoff))
		return false;
	i = skip_blanks(s, end, i);
	if (!take_mmap_id(s, end, &i, m))
		return false;
	i = skip_blanks(s, end, i);
	m->prot.p = s + i;
	while (i < end && s[i] != ' ')
		i++;
	m->prot.len = (size_t)(s + i - m->prot.p);
	i = skip_blanks(s, end, i);
	m->path = (struct ps_span){ s + i, end - i };
	return m->path.len > 0;
}

bool ps_parse_lost(const char *s, size_t end, uint64_t *lost)
{
	size_t i = 0;

	return expect(s, end, &i, "lost ") && take_u64(s, end, &i, lost) && i == end;
}

bool ps_parse_fork(const char *s, size_t end, int64_t *pid, int64_t *tid)
{
	size_t i = 0;
	uint64_t a, b;

	if (!expect(s, end, &i, "(") || !take_u64(s, end, &i, &a) || !expect(s, end, &i, ":") ||
	    !take_u64(s, end, &i, &b) || !expect(s, end, &i, ")"))
		return false;
	*pid = (int64_t)a;
	*tid = (int64_t)b;
	return true;
}

enum t2f_unit ps_event_unit(const struct ps_span *ev)
{
	if ((ev->len == 9 && memcmp(ev->p, "cpu-clock", 9) == 0) ||
	    (ev->len == 10 && memcmp(ev->p, "task-clock", 10) == 0))
		return T2F_UNIT_NANOSECONDS;
	return T2F_UNIT_COUNT;
}
