/* formats/sample_filter.c: perf script's --time, --pid, --tid and --comm (sample_filter.h).
 *
 * The rules are perf's (tools/perf/util/time-utils.c, thread__is_filtered), written anew:
 * absolute ranges are seconds with up to 9 decimals, whitespace-separated "START,STOP" pieces;
 * percentages are resolved against the input's span per input. Where perf accepts text it then
 * misreads (a trailing comma, characters between '%' and '/', a range ending before it starts)
 * this parser refuses it with a message.
 */
#include "formats/sample_filter.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NS_PER_SEC 1000000000ull

struct pct_range {
	double start, end;  /* fractions of the span, 0..1 */
};

struct t2f_filter {
	const char *time_name, *pid_name, *tid_name, *comm_name;
	bool has_time, percent;
	size_t n_ranges;
	uint64_t *start, *end;      /* absolute ranges (ns, 0: open) */
	struct pct_range *pct;      /* percentages */
	int64_t *pids, *tids;
	size_t n_pids, n_tids;
	char **comms;
	size_t n_comms;
};

struct t2f_sample_filter {
	const struct t2f_filter *f;
	size_t n;
	uint64_t *start, *end;
};

static int say(char *msg, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int say(char *msg, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (len) {
		va_start(ap, fmt);
		vsnprintf(msg, len, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* "SEC[.FRAC]" in s[0..n): seconds, up to 9 decimals, into ns. */
static bool parse_seconds(const char *s, size_t n, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0;
	size_t i = 0, digits = 0;

	for (; i < n && is_digit(s[i]); i++) {
		if (sec > (UINT64_MAX / NS_PER_SEC - 9) / 10)
			return false;
		sec = sec * 10 + (uint64_t)(s[i] - '0');
	}
	if (i == 0)
		return false;
	if (i < n && s[i] == '.') {
		for (i++; i < n && is_digit(s[i]); i++, digits++) {
			if (digits == 9)
				return false;
			frac = frac * 10 + (uint64_t)(s[i] - '0');
		}
		for (size_t d = digits; d < 9; d++)
			frac *= 10;
	}
	if (i != n)
		return false;
	*ns = sec * NS_PER_SEC + frac;
	return true;
}

#define TIME_EXPECTED "expected START,STOP in seconds (either may be empty; several ranges " \
		      "separated by spaces), or percentages: P%%, P%%/N, A%%-B%%, several " \
		      "separated by commas"

/* Absolute ranges: "START,STOP" pieces separated by whitespace. */
static int parse_absolute(struct t2f_filter *f, const char *s, char *msg, size_t len)
{
	size_t cap = 0;

	for (const char *p = s; *p; p++)
		cap += *p == ',';
	f->start = calloc(cap ? cap : 1, sizeof(*f->start));
	f->end = calloc(cap ? cap : 1, sizeof(*f->end));
	if (!f->start || !f->end)
		return -ENOMEM;
	for (const char *p = s;;) {
		const char *tok, *comma;
		size_t i = f->n_ranges;

		while (is_space(*p))
			p++;
		if (!*p)
			break;
		for (tok = p; *p && !is_space(*p); p++)
			;
		comma = memchr(tok, ',', (size_t)(p - tok));
		if (!comma || memchr(comma + 1, ',', (size_t)(p - comma - 1)))
			return say(msg, len, "%s: '%.*s': " TIME_EXPECTED, f->time_name,
				   (int)(p - tok), tok);
		if ((comma > tok && !parse_seconds(tok, (size_t)(comma - tok), &f->start[i])) ||
		    (p > comma + 1 && !parse_seconds(comma + 1, (size_t)(p - comma - 1),
						     &f->end[i])))
			return say(msg, len, "%s: '%.*s': expected seconds as digits with up to 9 "
				   "decimals (\"100.5,200\")", f->time_name, (int)(p - tok), tok);
		if (f->end[i] && f->end[i] < f->start[i])
			return say(msg, len, "%s: '%.*s': the range ends before it starts",
				   f->time_name, (int)(p - tok), tok);
		if (i && (!f->end[i - 1] || f->end[i - 1] >= f->start[i]))
			return say(msg, len, "%s: '%s': expected ranges in increasing order, "
				   "not overlapping", f->time_name, s);
		f->n_ranges++;
	}
	if (!f->n_ranges)
		return say(msg, len, "%s: '%s': " TIME_EXPECTED, f->time_name, s);
	return 0;
}

/* "P%" in s[0..n): the fraction P / 100 (as perf reads it: strtod). */
static bool parse_pct(const char *s, size_t n, double *out)
{
	char buf[64], *end;

	if (n < 2 || n >= sizeof(buf) || s[n - 1] != '%' || is_space(s[0]))
		return false;
	memcpy(buf, s, n - 1);
	buf[n - 1] = '\0';
	*out = strtod(buf, &end) / 100.0;
	return end == buf + n - 1 && !isnan(*out);
}

/* One percentage piece s[0..n): "P%", "P%/N" or "A%-B%" (slash: the pieces are "P%/N"). */
static bool parse_pct_piece(const char *s, size_t n, bool slash, struct pct_range *r)
{
	const char *sep = memchr(s, slash ? '/' : '-', n);
	double p;

	if (slash) {
		char buf[24], *end;
		long k;

		if (!sep || !parse_pct(s, (size_t)(sep - s), &p) || p <= 0.0)
			return false;
		n -= (size_t)(sep + 1 - s);
		if (!n || n >= sizeof(buf) || !is_digit(sep[1]))
			return false;
		memcpy(buf, sep + 1, n);
		buf[n] = '\0';
		k = strtol(buf, &end, 10);
		if (*end || k < 1 || k > 100000)
			return false;
		r->start = p * (double)(k - 1);
		r->end = p * (double)k;
	} else if (sep) {
		if (!parse_pct(s, (size_t)(sep - s), &r->start) ||
		    !parse_pct(sep + 1, n - (size_t)(sep + 1 - s), &r->end))
			return false;
	} else {
		if (!parse_pct(s, n, &p))
			return false;
		r->start = 0.0;
		r->end = p;
	}
	return r->start >= 0.0 && r->end <= 1.0 && r->start <= r->end;
}

/* Percentages: "P%", or comma-separated "P%/N" pieces, or comma-separated "A%-B%" pieces. */
static int parse_percent(struct t2f_filter *f, const char *s, char *msg, size_t len)
{
	bool slash = strchr(s, '/'), dash = strchr(s, '-');
	size_t cap = 1;

	for (const char *p = s; *p; p++)
		cap += *p == ',';
	if (!slash && !dash && cap > 1)
		return say(msg, len, "%s: '%s': several percentages need the form P%%/N or "
			   "A%%-B%%", f->time_name, s);
	if (!(f->pct = calloc(cap, sizeof(*f->pct))))
		return -ENOMEM;
	for (const char *p = s;;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);

		if (!parse_pct_piece(p, n, slash, &f->pct[f->n_ranges]))
			return say(msg, len, "%s: '%.*s': expected %s, within 0%%..100%%",
				   f->time_name, (int)n, p, slash ? "P%/N (the N-th slice of "
				   "P%, from 1)" : dash ? "A%-B% (A <= B)" : "P%");
		f->n_ranges++;
		if (!comma)
			break;
		p = comma + 1;
	}
	return 0;
}

/* A comma-separated list of decimal ids into *ids. */
static int parse_ids(const char *s, const char *name, int64_t **ids, size_t *n, char *msg,
		     size_t len)
{
	size_t cap = 1;

	for (const char *p = s; *p; p++)
		cap += *p == ',';
	if (!(*ids = calloc(cap, sizeof(**ids))))
		return -ENOMEM;
	for (const char *p = s;;) {
		int64_t v = 0;
		const char *q = p;

		for (; is_digit(*q) && v <= (INT64_MAX - 9) / 10; q++)
			v = v * 10 + (*q - '0');
		if (q == p || (*q && *q != ','))
			return say(msg, len, "%s: '%s': expected decimal ids separated by commas",
				   name, s);
		(*ids)[(*n)++] = v;
		if (!*q)
			return 0;
		p = q + 1;
	}
}

static int parse_comms(struct t2f_filter *f, const char *s, char *msg, size_t len)
{
	size_t cap = 1;

	for (const char *p = s; *p; p++)
		cap += *p == ',';
	if (!(f->comms = calloc(cap, sizeof(*f->comms))))
		return -ENOMEM;
	for (const char *p = s;;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);

		if (!n)
			return say(msg, len, "%s: '%s': expected command names separated by commas",
				   f->comm_name, s);
		if (!(f->comms[f->n_comms] = strndup(p, n)))
			return -ENOMEM;
		f->n_comms++;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

static bool given(const char *s)
{
	return s && *s;
}

int t2f_filter__parse(const struct t2f_filter_strs *strs, struct t2f_filter **out, char *msg,
		      size_t msg_len)
{
	struct t2f_filter *f;
	int err = 0;

	*out = NULL;
	if (msg_len)
		msg[0] = '\0';
	if (!given(strs->time) && !given(strs->pids) && !given(strs->tids) && !given(strs->comms))
		return 0;
	if (!(f = calloc(1, sizeof(*f))))
		return -ENOMEM;
	f->time_name = strs->time_name ? strs->time_name : "--time";
	f->pid_name = strs->pid_name ? strs->pid_name : "--pids";
	f->tid_name = strs->tid_name ? strs->tid_name : "--tids";
	f->comm_name = strs->comm_name ? strs->comm_name : "--comms";
	if (given(strs->time)) {
		f->has_time = true;
		f->percent = strchr(strs->time, '%');
		err = f->percent ? parse_percent(f, strs->time, msg, msg_len)
				 : parse_absolute(f, strs->time, msg, msg_len);
	}
	if (!err && given(strs->pids))
		err = parse_ids(strs->pids, f->pid_name, &f->pids, &f->n_pids, msg, msg_len);
	if (!err && given(strs->tids))
		err = parse_ids(strs->tids, f->tid_name, &f->tids, &f->n_tids, msg, msg_len);
	if (!err && given(strs->comms))
		err = parse_comms(f, strs->comms, msg, msg_len);
	if (err) {
		if (err == -ENOMEM && msg_len)
			snprintf(msg, msg_len, "out of memory");
		t2f_filter__free(f);
		return err;
	}
	*out = f;
	return 0;
}

void t2f_filter__free(struct t2f_filter *f)
{
	if (!f)
		return;
	free(f->start);
	free(f->end);
	free(f->pct);
	free(f->pids);
	free(f->tids);
	for (size_t i = 0; i < f->n_comms; i++)
		free(f->comms[i]);
	free(f->comms);
	free(f);
}

bool t2f_filter__has_time(const struct t2f_filter *f)
{
	return f && f->has_time;
}

bool t2f_filter__needs_span(const struct t2f_filter *f)
{
	return f && f->percent;
}

const char *t2f_filter__time_name(const struct t2f_filter *f)
{
	return f ? f->time_name : "--time";
}

#define TWO_TO_64 18446744073709551616.0

/* x >= 0 rounded half away from zero, as C's round() (without libm); from 2^53 up every double
 * is an integer. */
static double round_pos(double x)
{
	double r;

	if (x >= 9007199254740992.0)
		return x;
	r = (double)(uint64_t)x; /* exact: the integral part */
	return x - r >= 0.5 ? r + 1.0 : r;
}

/* A fraction of the span as perf computes it: in double precision, rounded (at most
 * UINT64_MAX: a time near 2^64 in a hostile header). */
static uint64_t at_fraction(uint64_t first, uint64_t last, double frac)
{
	double t = (double)first + round_pos(frac * (double)(last - first));

	return t >= TWO_TO_64 ? UINT64_MAX : (uint64_t)t;
}

int t2f_sample_filter__new(const struct t2f_filter *f, uint64_t first, uint64_t last,
			   struct t2f_sample_filter **out)
{
	struct t2f_sample_filter *sf;
	size_t n;

	*out = NULL;
	if (!f)
		return 0;
	if (last < first)
		last = first;
	n = f->n_ranges;
	sf = calloc(1, sizeof(*sf));
	if (!sf || !(sf->start = calloc(n ? n : 1, sizeof(*sf->start))) ||
	    !(sf->end = calloc(n ? n : 1, sizeof(*sf->end)))) {
		t2f_sample_filter__free(sf);
		return -ENOMEM;
	}
	sf->f = f;
	sf->n = n;
	for (size_t i = 0; i < n; i++) {
		if (!f->percent) {
			sf->start[i] = f->start[i];
			sf->end[i] = f->end[i];
			continue;
		}
		sf->start[i] = at_fraction(first, last, f->pct[i].start);
		sf->end[i] = at_fraction(first, last, f->pct[i].end);
		if (sf->end[i] > sf->start[i] && sf->end[i] != last)
			sf->end[i]--;
	}
	*out = sf;
	return 0;
}

void t2f_sample_filter__free(struct t2f_sample_filter *sf)
{
	if (!sf)
		return;
	free(sf->start);
	free(sf->end);
	free(sf);
}

static bool has_id(const int64_t *ids, size_t n, int64_t v)
{
	for (size_t i = 0; i < n; i++)
		if (ids[i] == v)
			return true;
	return false;
}

bool t2f_sample_filter__keep_thread(const struct t2f_sample_filter *sf, int64_t pid, int64_t tid,
				    const char *comm, size_t comm_len)
{
	const struct t2f_filter *f = sf ? sf->f : NULL;
	bool comm_ok;

	if (!f)
		return true;
	comm_ok = !f->n_comms;
	for (size_t i = 0; i < f->n_comms && !comm_ok; i++)
		comm_ok = comm && strlen(f->comms[i]) == comm_len &&
			  !memcmp(f->comms[i], comm, comm_len);
	return comm_ok && (!f->n_pids || has_id(f->pids, f->n_pids, pid)) &&
	       (!f->n_tids || has_id(f->tids, f->n_tids, tid));
}

/* One range: its open ends (0) as perf takes them; several: a sample at or after a start and
 * at or before its end. The same test, as no start of a later range is 0. */
bool t2f_sample_filter__keep_time(const struct t2f_sample_filter *sf, uint64_t time)
{
	if (!sf || !sf->n || time == 0)
		return true;
	for (size_t i = 0; i < sf->n; i++)
		if (time >= sf->start[i] && (!sf->end[i] || time <= sf->end[i]))
			return true;
	return false;
}

bool t2f_sample_filter__keep(const struct t2f_sample_filter *sf, int64_t pid, int64_t tid,
			     const char *comm, size_t comm_len, uint64_t time)
{
	return t2f_sample_filter__keep_time(sf, time) &&
	       t2f_sample_filter__keep_thread(sf, pid, tid, comm, comm_len);
}

bool t2f_sample_filter__has_ranges(const struct t2f_sample_filter *sf)
{
	return sf && sf->n;
}

bool t2f_sample_filter__wants_pid(const struct t2f_sample_filter *sf)
{
	return sf && sf->f->n_pids;
}

bool t2f_sample_filter__wants_comm(const struct t2f_sample_filter *sf)
{
	return sf && sf->f->n_comms;
}

size_t t2f_sample_filter__ranges(const struct t2f_sample_filter *sf, uint64_t *start,
				 uint64_t *end, size_t max)
{
	size_t n = sf ? sf->n : 0;

	for (size_t i = 0; i < n && i < max; i++) {
		start[i] = sf->start[i];
		end[i] = sf->end[i];
	}
	return n;
}
