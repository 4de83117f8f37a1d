/* readers/perf_script_parse.h (internal): pure line parsers of the perf script reader.
 * Spans point into the caller's line; nothing is allocated. */
#ifndef T2F_PERF_SCRIPT_PARSE_H
#define T2F_PERF_SCRIPT_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "formats/profile.h"

/* Character-level helpers shared by the parsers. */
static inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

static inline bool is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Parses decimal digits of s[*i..end); false when there are none or they overflow. */
static inline bool take_u64(const char *s, size_t end, size_t *i, uint64_t *v)
{
	size_t start = *i;
	uint64_t x = 0;

	while (*i < end && is_digit(s[*i])) {
		uint64_t d = (uint64_t)(s[*i] - '0');

		if (x > UINT64_MAX / 10 || (x == UINT64_MAX / 10 && d > UINT64_MAX % 10))
			return false; /* past 18446744073709551615 */
		x = x * 10 + d;
		(*i)++;
	}
	*v = x;
	return *i > start;
}

static inline size_t skip_blanks(const char *s, size_t end, size_t i)
{
	uint64_t w;

	/* perf indents frames with a tab and pads addresses with up to 16 spaces: eight at a time */
	while (i < end && s[i] == '\t')
		i++;
	while (i + 8 <= end && (memcpy(&w, s + i, 8), w == 0x2020202020202020ull))
		i += 8;
	while (i < end && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i;
}

/* A hex digit's value plus one; 0 for every other byte. */
static const uint8_t ps_hex1[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8,
	['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15,
	['f'] = 16, ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

static inline bool take_hex(const char *s, size_t end, size_t *i, uint64_t *v)
{
	size_t start;
	uint64_t x = 0;
	unsigned d;

	if (end - *i >= 2 && s[*i] == '0' && (s[*i + 1] == 'x' || s[*i + 1] == 'X'))
		*i += 2;
	start = *i;
	while (*i < end && (d = ps_hex1[(unsigned char)s[*i]]) != 0) {
		if (x >> 60)
			return false;
		x = x << 4 | (d - 1);
		(*i)++;
	}
	*v = x;
	return *i > start;
}

struct ps_span {
	const char *p;
	size_t len;
};

enum ps_record { PS_SAMPLE, PS_MMAP, PS_FORK, PS_LOST, PS_SWITCH, PS_OTHER_RECORD };

struct ps_header {
	struct ps_span comm;      /* may contain spaces; may be empty */
	int64_t pid;              /* -1 when only the tid was printed */
	int64_t tid;
	uint64_t time_ns;
	bool has_period;
	uint64_t period;
	struct ps_span event;     /* modifiers removed ("cpu-clock"); len 0 when absent */
	bool tracepoint;          /* "sys:name" event: the rest of the line is its payload */
	enum ps_record record;    /* PERF_RECORD_* side records */
	struct ps_span rest;      /* after the event: a one-line sample's frame, a payload, or the
				   * side record's text after "PERF_RECORD_X " */
	size_t time_at, tail_at;  /* offsets in the line of the time and of what follows "TIME:" */
};

/* The last call-chain sample headers parsed, as bytes: a header that starts with the same bytes
 * as one of them up to its time and ends with the same bytes after "TIME:" (the same thread, cpu
 * and event, another time) parses the same way but for the time, so it is taken without a full
 * parse. A few are kept, the most recent first: threads and cpus take turns. */
#define PS_HEADER_MEMO 128
#define PS_HEADER_MEMO_WAYS 4

struct ps_header_way {
	char prefix[PS_HEADER_MEMO], tail[PS_HEADER_MEMO];
	size_t prefix_len, tail_len;  /* tail_len 0: empty */
	struct ps_header h;           /* its spans' pointers are not used: */
	size_t comm_at, event_at;     /* offsets of the comm (in the prefix) and event (in the tail) */
	uint32_t thread, event;       /* the reader's ids for this header's thread and event, 0 until
				       * it sets them */
	uint64_t prefix_end;          /* the prefix's last 8 bytes (0 when shorter): a quick reject */
};

struct ps_header_memo {
	struct ps_header_way way[PS_HEADER_MEMO_WAYS];
};

struct ps_frame {
	uint64_t addr;
	struct ps_span sym;       /* "+0xOFF" removed; len 0 when not printed */
	struct ps_span dso;       /* inside the parentheses; len 0 when not printed */
	bool inlined;             /* "(inlined)" in place of the dso */
};

struct ps_mmap {
	int64_t pid, tid;         /* tid -1 when not printed */
	uint64_t start, len, pgoff;
	struct ps_span build_id;  /* hex, len 0 when the record has maj:min ino gen instead */
	struct ps_span prot;      /* "r-xp" (MMAP2) or "x" (MMAP) */
	struct ps_span path;
};

/* A header line ("comm tid [cpu] time: [period] [event:] [rest]"), leading blanks allowed.
 * false when the line has no "TID [CPU] TIME:" run. */
bool ps_parse_header(const char *line, size_t len, struct ps_header *h);
/* A header line without the time (perf_script_timeless.c): the fields told by perf's widths,
 * time_ns 0 (unless a time without a tid was printed), pid and tid -1 when not printed, rest a
 * one-line sample's "ip [sym] [(dso)]" (empty for a call-chain header) or a side record's text.
 * Any line reads as one (a comm at least): the caller decides whether it is a header. */
void ps_parse_timeless(const char *line, size_t len, struct ps_header *h);
/* The side record whose "PERF_RECORD_..." word starts at line[i]: h->record and h->rest. */
void ps_parse_side_record(const char *line, size_t len, size_t i, struct ps_header *h);
/* "492.528779:" at s[*i..end): *i moves past the ':'; *ns (unless NULL) the time in ns. */
bool ps_take_time(const char *s, size_t end, size_t *i, uint64_t *ns);
/* The time in ns of the checked "SECONDS.FRACTION" p[0..n) (a header's, as ps_take_time and the
 * memo read it), its '.' at p[dot]: T2F_TIME_PAST past 2^64 ns. */
uint64_t ps_time_ns(const char *p, size_t dot, size_t n);
/* A PERF_RECORD_LOST record's text after "PERF_RECORD_LOST": "lost 7", the events lost. */
bool ps_parse_lost(const char *rest, size_t len, uint64_t *lost);
/* The same through the memo: the way that gave the header (the line repeats its thread and
 * event: it holds no NUL byte then), or NULL (*h untouched); a full parse of a call-chain sample
 * header should then be given to ps_header_memo__keep. times: fill h->time_ns (else 0). */
struct ps_header_way *ps_header_memo__parse(struct ps_header_memo *m, const char *line,
					    size_t len, bool times, struct ps_header *h);
void ps_header_memo__keep(struct ps_header_memo *m, const char *line, size_t len,
			  const struct ps_header *h);

/* A sched:sched_switch payload ("prev_comm=C prev_pid=N prev_prio=P prev_state=S ==>
 * next_comm=C next_pid=N next_prio=P"; a comm may hold blanks: prev_pid is the first
 * " prev_pid=", next_pid the last " next_pid="); prev_state as enum t2f_cpu_state. */
struct ps_sched_switch {
	int64_t prev_pid, next_pid;
	unsigned prev_state;
	struct ps_span prev_comm; /* len 0 when not printed */
};
bool ps_parse_sched_switch(const char *rest, size_t len, struct ps_sched_switch *sw);
/* A PERF_RECORD_SWITCH / _CPU_WIDE record's text ("IN", "OUT preempt  next pid/tid: ..."):
 * whether the header's thread switches in. */
bool ps_parse_switch_in(const char *rest, size_t len);

/* A call-chain frame line ("\t<hex> [sym[+0xOFF]] [(dso)]"), leading blanks allowed.
 * false when it does not start with a hex address followed by a blank or the end. */
bool ps_parse_frame(const char *line, size_t len, struct ps_frame *f);
/* A parsed frame's kind: inlined, else its dso's (ps_dso_kind). */
enum t2f_frame_kind ps_frame_kind(const struct ps_frame *f);
/* The length of its name without the symbol version perf printed with it, when the name is an
 * ELF symbol's (perf_script_frame.c says when). */
size_t ps_frame_name_len(const struct ps_frame *f, enum t2f_frame_kind kind);
/* Whether a frame line (leading blanks removed) is `ADDR [unknown] ([unknown])` as
 * ps_parse_frame takes it (perf_script_frame.c). */
bool ps_unknown_line(const char *s, size_t len);
/* A sample's event's unit: nanoseconds for cpu-clock and task-clock, else a count. */
enum t2f_unit ps_event_unit(const struct ps_span *event);

/* The text after "PERF_RECORD_MMAP2 " / "PERF_RECORD_MMAP ":
 * "14667/14667: [0x55a5(0x5000) @ 0x2000 fe:00 10961385 1277029166]: r-xp /path". */
bool ps_parse_mmap(const char *rest, size_t len, struct ps_mmap *m);
/* A PERF_RECORD_FORK record's text after "PERF_RECORD_FORK": "(PID:TID):(PPID:PTID)". */
bool ps_parse_fork(const char *rest, size_t len, int64_t *pid, int64_t *tid);

#endif
