/* readers/perf_data_trace.c: sched_switch payloads through the file's own formats
 * (perf_data_trace.h), with libtraceevent. */
#include "readers/perf_data_trace.h"

#include <errno.h>
#include <event-parse.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct t2f_pd_trace {
	struct tep_handle *tep;
	struct tep_format_field *prev_pid, *prev_state, *next_pid;
	uint64_t id;
};

struct cur {                  /* a read position in the section */
	const uint8_t *p, *end;
	bool big;             /* the file's byte order */
};

static bool cur_take(struct cur *c, size_t n, const uint8_t **out)
{
	if ((size_t)(c->end - c->p) < n)
		return false;
	*out = c->p;
	c->p += n;
	return true;
}

static bool cur_uint(struct cur *c, size_t n, uint64_t *v)
{
	const uint8_t *b;
	uint64_t x = 0;

	if (!cur_take(c, n, &b))
		return false;
	for (size_t i = 0; i < n; i++)
		x |= (uint64_t)b[c->big ? n - 1 - i : i] << (8 * i);
	*v = x;
	return true;
}

/* A NUL-terminated string; false when none ends in the section. */
static bool cur_str(struct cur *c, const char **s)
{
	const uint8_t *nul = memchr(c->p, 0, (size_t)(c->end - c->p));

	if (!nul)
		return false;
	*s = (const char *)c->p;
	c->p = nul + 1;
	return true;
}

/* A u64 size, then that many bytes. */
static bool cur_blob(struct cur *c, const uint8_t **p, uint64_t *n)
{
	return cur_uint(c, 8, n) && *n <= (uint64_t)(c->end - c->p) && cur_take(c, (size_t)*n, p);
}

/* "header_page" / "header_event" then its blob. */
static bool cur_header(struct cur *c, const char *tag)
{
	const char *s;
	const uint8_t *p;
	uint64_t n;

	return cur_str(c, &s) && strcmp(s, tag) == 0 && cur_blob(c, &p, &n);
}

static bool is_sched_switch(const uint8_t *p, uint64_t n)
{
	static const char head[] = "name: sched_switch\n";

	return n >= sizeof(head) - 1 && memcmp(p, head, sizeof(head) - 1) == 0;
}

/* Walks the section to the event formats and parses sched:sched_switch's. 1 found, 0 not in
 * the section, -1 the layout is broken, or -ENOMEM. */
static int find_switch(struct t2f_pd_trace *t, struct cur *c)
{
	const uint8_t *p, *magic;
	const char *s;
	uint64_t n, count, systems, v;

	if (!cur_take(c, 10, &magic) || memcmp(magic, "\x17\x08\x44tracing", 10) != 0 ||
	    !cur_str(c, &s) || !cur_take(c, 1, &p))
		return -1;
	c->big = *p != 0;
	tep_set_file_bigendian(t->tep, c->big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	if (!cur_take(c, 1, &p))
		return -1;
	tep_set_long_size(t->tep, *p);
	if (!cur_uint(c, 4, &v) || !cur_header(c, "header_page") || !cur_header(c, "header_event"))
		return -1;
	tep_set_page_size(t->tep, (int)(v & 0x7fffffff));
	if (!cur_uint(c, 4, &count))
		return -1;
	for (uint64_t i = 0; i < count; i++)
		if (!cur_blob(c, &p, &n))
			return -1;
	if (!cur_uint(c, 4, &systems))
		return -1;
	for (uint64_t i = 0; i < systems; i++) {
		if (!cur_str(c, &s) || !cur_uint(c, 4, &count))
			return -1;
		for (uint64_t k = 0; k < count; k++) {
			if (!cur_blob(c, &p, &n))
				return -1;
			if (strcmp(s, "sched") != 0 || !is_sched_switch(p, n))
				continue;
			if (tep_parse_event(t->tep, (const char *)p, (unsigned long)n, s) != 0)
				return -1;
			return 1;
		}
	}
	return 0;
}

/* A number field of at most 8 bytes, or NULL. */
static struct tep_format_field *number_field(struct tep_event *e, const char *name)
{
	struct tep_format_field *f = tep_find_field(e, name);

	return f && f->size >= 1 && f->size <= 8 && f->offset >= 0 &&
	       !(f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_STRING | TEP_FIELD_IS_DYNAMIC)) ?
		       f : NULL;
}

int t2f_pd_trace__new(const uint8_t *sec, size_t len, struct t2f_diag *d, const char *name,
		      struct t2f_pd_trace **out)
{
	struct t2f_pd_trace *t = calloc(1, sizeof(*t));
	struct cur c = { sec, sec + len, false };
	struct tep_event *e;
	int found;

	*out = NULL;
	if (!t)
		return -ENOMEM;
	tep_set_loglevel(TEP_LOG_NONE);
	t->tep = tep_alloc();
	if (!t->tep) {
		free(t);
		return -ENOMEM;
	}
	found = find_switch(t, &c);
	e = found == 1 ? tep_get_first_event(t->tep) : NULL;
	if (e) {
		t->prev_pid = number_field(e, "prev_pid");
		t->prev_state = number_field(e, "prev_state");
		t->next_pid = number_field(e, "next_pid");
		t->id = (uint64_t)e->id;
	}
	if (e && t->prev_pid && t->prev_state && t->next_pid) {
		*out = t;
		return 0;
	}
	t2f_pd_trace__free(t);
	if (found == 0)
		return 0;
	return t2f_diag__warn(d, name, 0, "the tracing data section (HEADER_TRACING_DATA) has %s: "
			      "sched:sched_switch samples are not decoded (no off-CPU time)",
			      found < 0 ? "no readable sched_switch format" :
					  "a sched_switch format without prev_pid, prev_state, next_pid");
}

void t2f_pd_trace__free(struct t2f_pd_trace *t)
{
	if (!t)
		return;
	tep_free(t->tep);
	free(t);
}

uint64_t t2f_pd_trace__switch_id(const struct t2f_pd_trace *t)
{
	return t->id;
}

static bool read_field(struct tep_format_field *f, const uint8_t *raw, uint32_t size,
		       uint64_t *v)
{
	unsigned long long x;

	if ((uint64_t)f->offset + (uint64_t)f->size > size || tep_read_number_field(f, raw, &x))
		return false;
	*v = x;
	return true;
}

bool t2f_pd_trace__switch(const struct t2f_pd_trace *t, const uint8_t *raw, uint32_t size,
			  struct t2f_pd_switch *sw)
{
	uint64_t prev, next;

	if (!read_field(t->prev_pid, raw, size, &prev) || !read_field(t->next_pid, raw, size, &next) ||
	    !read_field(t->prev_state, raw, size, &sw->prev_state))
		return false;
	sw->prev_pid = (int32_t)prev; /* pid_t */
	sw->next_pid = (int32_t)next;
	return true;
}
