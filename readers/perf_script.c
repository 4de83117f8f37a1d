/* readers/perf_script.c: the line state machine of the perf script reader.
 *
 * A sample is a header line, then its frame lines (leaf first), then a blank line; one-line
 * samples (no -g) carry their only frame on the header line and may follow each other without a
 * blank line. Frame lines are mapped to frame ids through a cache keyed on the whole line, so a
 * line seen before costs one hash and one compare. Two more memos keep the hot path short: the
 * last sample header's bytes (a header that repeats its thread and event is not parsed again) and
 * the callers' blocks of call chains (perf_script_blocks.h: a sample whose callers' lines equal a
 * block read before takes that block's stack node and skips its lines).
 *
 * Headers without times (t2f_perf_script__timeless): a line that is no timed header is read by
 * perf's field widths; when it could be a call-chain header, it waits (`pending`) for the next
 * line: a frame line makes it a sample's header, anything else a bad line.
 */
#include "readers/perf_script.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats/arena.h"
#include "formats/buf.h"
#include "formats/derive.h"
#include "formats/event_name.h"
#include "formats/grow.h"
#include "formats/hashmap.h"
#include "formats/sample_filter.h"
#include "readers/perf_script_blocks.h"
#include "readers/perf_script_maps.h"
#include "readers/perf_script_parse.h"
#include "readers/perf_script_int.h"
#include "readers/perf_script_seg.h"

int t2f_perf_script__new(struct t2f_profile *p, struct t2f_diag *d, const char *name,
			 uint32_t input, struct t2f_perf_script **out)
{
	struct t2f_perf_script *ps = calloc(1, sizeof(*ps));

	if (!ps)
		return -ENOMEM;
	ps->p = p;
	ps->d = d;
	ps->input = input;
	ps->derive = t2f_profile__derive(p);
	ps->sw_out = -1;
	ps->name = strdup(name);
	ps->frames_cap = 256;
	ps->frames = malloc(ps->frames_cap * sizeof(*ps->frames));
	if (!ps->name || !ps->frames || t2f_arena__new(&ps->arena) ||
	    t2f_hashmap__new(4096, &ps->line_ix) || ps_maps__new(&ps->maps) ||
	    ps_blocks__new(&ps->blocks)) {
		t2f_perf_script__free(ps);
		return -ENOMEM;
	}
	*out = ps;
	return 0;
}

void t2f_perf_script__free(struct t2f_perf_script *ps)
{
	if (!ps)
		return;
	free(ps->name);
	free(ps->frames);
	free(ps->lines);
	t2f_arena__free(ps->arena);
	t2f_hashmap__free(ps->line_ix);
	ps_maps__free(ps->maps);
	ps_blocks__free(ps->blocks);
	t2f_buf__free(&ps->map_lines);
	t2f_buf__free(&ps->pending);
	free(ps);
}

/* The frame line cache and the callers' blocks emptied, their memory kept. */
static void forget_lines(struct t2f_perf_script *ps)
{
	t2f_arena__reset(ps->arena);
	t2f_hashmap__clear(ps->line_ix);
	ps->nlines = 0;
	ps_blocks__reset(ps->blocks);
}

int t2f_perf_script__reset(struct t2f_perf_script *ps, struct t2f_diag *d)
{
	struct t2f_perf_script kept = {
		.p = ps->p, .d = d, .name = ps->name, .input = ps->input, .sw_out = -1,
		.frames = ps->frames, .frames_cap = ps->frames_cap, .arena = ps->arena,
		.line_ix = ps->line_ix, .lines = ps->lines, .lines_cap = ps->lines_cap,
		.maps = ps->maps, .blocks = ps->blocks, .derive = t2f_profile__derive(ps->p),
		.map_lines = { ps->map_lines.p, 0, ps->map_lines.cap },
		.pending = { ps->pending.p, 0, ps->pending.cap },
	};

	*ps = kept;
	forget_lines(ps);
	ps_maps__free(ps->maps);
	ps->maps = NULL;
	return ps_maps__new(&ps->maps);
}

void t2f_perf_script__keep_addrs(struct t2f_perf_script *ps, bool on)
{
	ps->keep_addrs = on;
	ps->unknown_frame = 0;
}

void t2f_perf_script__unknown_addrs(struct t2f_perf_script *ps, t2f_perf_script_addr_fn wants,
				    void *ctx)
{
	ps->addr_wanted = wants;
	ps->addr_ctx = ctx;
	ps->unknown_frame = 0;
}

void t2f_perf_script__addrs_need_ids(struct t2f_perf_script *ps, bool on)
{
	ps->addrs_need_ids = on;
}

/* A build-id was read: user frames keep their addresses from here on. The lines cached before,
 * and the callers' blocks made of them, give frames made without: they are forgotten. */
static void ids_now_read(struct t2f_perf_script *ps)
{
	if (ps->ids_read)
		return;
	ps->ids_read = true;
	if (ps->dropped_addrs)
		forget_lines(ps);
}

void t2f_perf_script__timeless(struct t2f_perf_script *ps, bool on)
{
	ps->timeless = on;
}

uint64_t t2f_perf_script__lines(const struct t2f_perf_script *ps)
{
	return ps->line_no;
}

/* ---- frames ---- */

/* A one-line sample's absolute ip in a mapping of its process's dso: the file offset, as a
 * call-chain line would print it. Otherwise the frame keeps the absolute ip (T2F_SPACE_ABS).
 */
static void to_file_off(struct t2f_perf_script *ps, struct t2f_frame *f)
{
	uint64_t off;

	ps->used_maps = true;
	if (f->module && ps->pid >= 0 &&
	    ps_maps__file_off(ps->maps, ps->pid, f->addr, f->module, &off)) {
		f->addr = off;
		f->space = T2F_SPACE_FILE_OFF;
	}
}

/* Interns a parsed frame. Addresses are kept as t2f_perf_script__unknown_addrs says, or on
 * every frame with keep_addrs. abs: the frame of a one-line sample, whose address is the
 * absolute ip (turned into a file offset when its process's mapping is known). */
static int intern_frame(struct t2f_perf_script *ps, const struct ps_frame *pf, bool abs,
			t2f_frame_id *out, bool *has_addr)
{
	struct t2f_frame f = { .kind = ps_frame_kind(pf), .addr = pf->addr };
	bool unknown = t2f_unknown_name(pf->sym.p, pf->sym.len), left;
	int err = 0;

	if (!unknown)
		err = t2f_profile__intern(ps->p, pf->sym.p, ps_frame_name_len(pf, f.kind), &f.name);
	if (!err && pf->dso.len)
		err = t2f_profile__intern(ps->p, pf->dso.p, pf->dso.len, &f.module);
	if (ps->keep_addrs)
		f.has_addr = true;
	else if (!ps->addr_wanted)
		f.has_addr = unknown;
	else
		f.has_addr = ps->addr_wanted(ps->addr_ctx, f.kind, pf->dso.p, pf->dso.len, !unknown);
	left = f.has_addr && !abs && !ps->keep_addrs && ps->addrs_need_ids && !ps->ids_read &&
	       f.kind == T2F_FRAME_USER;
	if (left) {
		f.has_addr = false;
		f.addr_left = true;
		ps->dropped_addrs = true;
	}
	f.space = f.has_addr && abs ? T2F_SPACE_ABS : T2F_SPACE_FILE_OFF;
	if (f.space == T2F_SPACE_ABS)
		to_file_off(ps, &f);
	*has_addr = f.has_addr;
	err = err ?: t2f_profile__frame(ps->p, &f, out);
	if (!err && left && unknown) /* counted as the frames they would be (resymbolize.h) */
		err = t2f_profile__leave_addr(ps->p, *out, pf->addr);
	return err;
}

struct line_probe {
	const struct t2f_perf_script *ps;
	const char *s;
	size_t len;
	bool abs;
	uint32_t gen;           /* with abs: the process's mapping generation, and its pid */
	int64_t pid;
};

static bool line_eq(const void *ctx, uint32_t v)
{
	const struct line_probe *q = ctx;
	const struct line_entry *e = &q->ps->lines[v - 1];

	if (e->abs != q->abs || (q->abs && (e->pid != q->pid || e->gen != q->gen)))
		return false;
	return e->len == q->len && memcmp(e->text, q->s, q->len) == 0;
}

static int cache_line(struct t2f_perf_script *ps, const struct line_probe *q, uint64_t h,
		      t2f_frame_id frame)
{
	struct line_entry *e;

	if (q->len > UINT32_MAX)
		return 0;
	if (t2f_grow32((void **)&ps->lines, &ps->lines_cap, ps->nlines, sizeof(*ps->lines), 4096))
		return -ENOMEM;
	e = &ps->lines[ps->nlines];
	/* a segment's bytes stay until the cache is emptied with the parser (borrow) */
	e->text = ps->borrow ? q->s : t2f_arena__strndup(ps->arena, q->s, q->len);
	if (!e->text)
		return -ENOMEM;
	e->len = (uint32_t)q->len;
	e->frame = frame;
	e->abs = q->abs;
	e->gen = q->gen;
	e->pid = q->pid;
	ps->nlines++;
	return t2f_hashmap__insert(ps->line_ix, h, ps->nlines);
}

static int push_frame(struct t2f_perf_script *ps, t2f_frame_id id)
{
	if (ps->nframes == ps->frames_cap) {
		if (ps->frames_cap >= PS_MAX_DEPTH) {
			if (!ps->cut_warned)
				t2f_diag__warn(ps->d, ps->name, ps->line_no,
					       "call chain deeper than %u frames: outermost frames dropped",
					       PS_MAX_DEPTH);
			ps->cut_warned = true;
			return 0;
		}
		if (t2f_grow((void **)&ps->frames, &ps->frames_cap, ps->nframes, 1,
			     sizeof(*ps->frames), 256, PS_MAX_DEPTH))
			return -ENOMEM;
	}
	ps->frames[ps->nframes++] = id;
	return 0;
}

/* Text with a NUL byte is binary data, not perf script: a fatal error. Checked only on lines that
 * get parsed (headers, frame lines not seen before); cached lines were checked when first seen. */
static int check_text(struct t2f_perf_script *ps, const char *s, size_t len)
{
	if (!memchr(s, '\0', len))
		return 0;
	return t2f_diag__error(ps->d, -T2F_ERR_FORMAT, ps->name, ps->line_no,
			       "binary data (a NUL byte): expected perf script text");
}

/* A frame line (leading blanks already removed); abs: a one-line sample's frame, whose frame
 * also depends on its process's mappings (the cache key has the pid and their generation). 1
 * when it was a frame, 0 when not. */
static int on_frame_line(struct t2f_perf_script *ps, const char *s, size_t len, bool abs)
{
	struct line_probe q = { ps, s, len, abs, 0, 0 };
	bool unknown = !abs && ps_unknown_line(s, len), has_addr;
	uint64_t h;
	uint32_t hit;
	struct ps_frame pf;
	t2f_frame_id id;
	int err;

	if (unknown && ps->unknown_frame)
		return push_frame(ps, ps->unknown_frame) ?: 1;
	h = t2f_hash_bytes(s, len) ^ abs;
	if (abs) {
		if (ps->pid < 0)
			ps->pid = ps_maps__pid_of(ps->maps, ps->tid);
		q.pid = ps->pid;
		q.gen = ps_maps__generation(ps->maps, ps->pid);
		h ^= t2f_hash_u64((uint64_t)q.pid ^ (uint64_t)q.gen << 40);
	}
	hit = t2f_hashmap__find(ps->line_ix, h, line_eq, &q);
	if (hit)
		return push_frame(ps, ps->lines[hit - 1].frame) ?: 1;
	err = check_text(ps, s, len);
	if (err)
		return err;
	if (!ps_parse_frame(s, len, &pf))
		return 0;
	err = intern_frame(ps, &pf, abs, &id, &has_addr) ?: cache_line(ps, &q, h, id) ?:
	      push_frame(ps, id);
	if (!err && unknown && !has_addr)
		ps->unknown_frame = id;
	return err ?: 1;
}

/* ---- samples ---- */

/* The sample just added, to the derive stage: its weight, and a sched_switch's switch-out. */
static int derive_sample(struct t2f_perf_script *ps, t2f_node_id node)
{
	int err = ps->switch_only ? 0 : t2f_derive__sample(ps->derive, node, ps->thread, ps->event,
							   ps->weight, ps->time_ns);

	if (!err && ps->sw_out >= 0)
		err = t2f_derive__switch_out(ps->derive, ps->sw_out, ps->time_ns, node,
					     ps->sw_thread, ps->sw_state);
	ps->sw_out = -1;
	return err;
}

/* A sched:sched_switch sample's payload: its next_pid switches in now; its prev_pid goes off
 * CPU in the sample's stack, once it is read (derive_sample), as the sample's thread (or, when
 * perf could not tell that, tid -1, as the thread prev_pid and prev_comm name). An unreadable
 * payload is left to the sample alone, counted. */
static bool is_sched_switch(const struct ps_header *h)
{
	return h->tracepoint && h->event.len == 18 && !memcmp(h->event.p, "sched:sched_switch", 18);
}

static int derive_header(struct t2f_perf_script *ps, const struct ps_header *h)
{
	struct ps_sched_switch sw;

	ps->sw_out = -1;
	if (!is_sched_switch(h))
		return 0;
	if (!ps_parse_sched_switch(h->rest.p, h->rest.len, &sw)) {
		t2f_derive__undecoded(ps->derive);
		return 0;
	}
	ps->sw_out = sw.prev_pid;
	ps->sw_state = sw.prev_state;
	ps->sw_thread = ps->thread;
	if (h->tid != sw.prev_pid && sw.prev_pid > 0) { /* perf could not tell the thread (-1) */
		t2f_str_id comm;
		int err = t2f_profile__intern(ps->p, sw.prev_comm.p, sw.prev_comm.len, &comm) ?:
			  t2f_profile__thread(ps->p, T2F_PID_UNKNOWN, sw.prev_pid, comm, ps->input,
					      &ps->sw_thread);

		if (err)
			return err;
	}
	return t2f_derive__switch_in(ps->derive, sw.next_pid, h->time_ns);
}

static int end_sample(struct t2f_perf_script *ps)
{
	t2f_node_id node = ps->base_node;
	int err = 0;

	if (ps->state != PS_IN)
		goto out;
	for (size_t i = ps->nframes; i-- > 0 && !err;) { /* root first */
		ps->leaf_parent = node;
		err = t2f_profile__child(ps->p, node, ps->frames[i], &node);
	}
	if (!err && !ps->switch_only)
		err = t2f_profile__add_sample(ps->p, node, ps->thread, ps->event, ps->weight,
					      ps->time_ns);
	if (!err && !ps->switch_only && ps->run.pend_len) {
		uint64_t ended = ps_times__commit(&ps->run);

		t2f_profile__note_span(ps->p, ended, ended);
	}
	if (ps->switch_only)
		t2f_profile__count_drop(ps->p, T2F_DROP_FILTERED);
	if (!err && ps->derive)
		err = derive_sample(ps, node);
out:
	ps->switch_only = false;
	ps->state = PS_IDLE;
	ps->nframes = 0;
	ps->cut_warned = false;
	ps->base_node = 0;
	return err;
}

static int lookup_thread(struct t2f_perf_script *ps, const struct ps_header *h)
{
	struct last_thread *c = &ps->last_thread;
	t2f_str_id comm;
	int err;

	if (c->id && c->pid == h->pid && c->tid == h->tid && c->len == h->comm.len &&
	    memcmp(c->comm, h->comm.p, h->comm.len) == 0) {
		ps->thread = c->id;
		return 0;
	}
	err = t2f_profile__intern(ps->p, h->comm.p, h->comm.len, &comm) ?:
	      t2f_profile__thread(ps->p, h->pid < 0 ? T2F_PID_UNKNOWN : h->pid, h->tid, comm,
				  ps->input, &ps->thread);
	if (err)
		return err;
	c->id = 0;
	if (h->comm.len <= sizeof(c->comm)) {
		memcpy(c->comm, h->comm.p, h->comm.len);
		c->len = h->comm.len;
		c->pid = h->pid;
		c->tid = h->tid;
		c->id = ps->thread;
	}
	return 0;
}

/* `perf script --header` lists the recording's events before any sample, in perf's own order
 * (perf evlist's):
 *   # event : name = cpu-clock, , id = { 193, 194 }, type = 1, size = 128, ...
 * Each becomes an event of the profile in that order, so the default event is the recording's
 * first one that has samples, as perf report picks it; perf's side-band "dummy" events hold no
 * samples and are left out. */
static int header_event(struct t2f_perf_script *ps, const char *s, size_t len)
{
	static const char tag[] = "# event : name = ";
	struct ps_span ev;
	const char *end;
	t2f_str_id name;
	t2f_event_id id;

	if (len <= sizeof(tag) - 1 || memcmp(s, tag, sizeof(tag) - 1) != 0)
		return 0;
	ev.p = s + sizeof(tag) - 1;
	end = memchr(ev.p, ',', len - (sizeof(tag) - 1));
	ev.len = t2f_event_name_len(ev.p, end ? (size_t)(end - ev.p) : len - (sizeof(tag) - 1));
	if (!ev.len || (ev.len >= 5 && memcmp(ev.p, "dummy", 5) == 0))
		return 0;
	return t2f_profile__intern(ps->p, ev.p, ev.len, &name) ?:
	       t2f_profile__event(ps->p, name, ps_event_unit(&ev), &id);
}

static int lookup_event(struct t2f_perf_script *ps, const struct ps_header *h)
{
	struct last_event *c = &ps->last_event;
	struct ps_span ev = h->event.len ? h->event : (struct ps_span){ "samples", 7 };
	t2f_str_id name;
	int err;

	if (c->id && c->len == ev.len && memcmp(c->name, ev.p, ev.len) == 0) {
		ps->event = c->id;
		return 0;
	}
	err = t2f_profile__intern(ps->p, ev.p, ev.len, &name) ?:
	      t2f_profile__event(ps->p, name, ps_event_unit(&ev), &ps->event);
	if (err)
		return err;
	c->id = 0;
	if (ev.len <= sizeof(c->name)) {
		memcpy(c->name, ev.p, ev.len);
		c->len = ev.len;
		c->id = ps->event;
	}
	return 0;
}

/* A mapping into ps's maps (path interned into *path). Data mappings (a prot without 'x':
 * the heap growing, files read through mmap) hold no code, so ips are never looked up in them:
 * they are left out, which keeps the lookups short where a recording has thousands of them. A
 * build-id in it gives the user frames read after it their addresses (ids_now_read). */
static int maps_add(struct t2f_perf_script *ps, const struct ps_mmap *m, t2f_str_id *path)
{
	bool data = m->prot.len && !memchr(m->prot.p, 'x', m->prot.len);
	int err = t2f_profile__intern(ps->p, m->path.p, m->path.len, path);

	if (!err && !data)
		err = ps_maps__add(ps->maps, m->pid, m->start, m->len, m->pgoff, *path);

	if (!err && m->tid > 0 && m->pid > 0)
		err = ps_maps__set_pid(ps->maps, m->tid, m->pid);
	if (m->build_id.len)
		ids_now_read(ps);
	return err;
}

static int on_mmap(struct t2f_perf_script *ps, const struct ps_header *h)
{
	struct ps_mmap m;
	struct t2f_module_map mm = { 0 };
	int err;

	if (!ps_parse_mmap(h->rest.p, h->rest.len, &m))
		return t2f_diag__warn(ps->d, ps->name, ps->line_no,
				      "unreadable PERF_RECORD_MMAP line: expected \"PID/TID: [0xSTART(0xLEN) @ PGOFF ...]: PROT PATH\"");
	mm = (struct t2f_module_map){ .pid = m.pid, .input = ps->input, .start = m.start,
				      .len = m.len, .pgoff = m.pgoff };
	err = maps_add(ps, &m, &mm.path);
	if (!err && m.build_id.len)
		err = t2f_profile__intern(ps->p, m.build_id.p, m.build_id.len, &mm.build_id);
	if (!err && m.prot.len)
		err = t2f_profile__intern(ps->p, m.prot.p, m.prot.len, &mm.prot);
	return err ?: t2f_profile__add_module_map(ps->p, &mm);
}

/* "PERF_RECORD_FORK(6279:6281):(6279:6279)": thread 6281 of process 6279, for samples whose
 * header names only the tid. An unreadable one is ignored (it only helps one-line samples). */
static int on_fork(struct t2f_perf_script *ps, const struct ps_header *h)
{
	int64_t pid, tid;

	if (!ps_parse_fork(h->rest.p, h->rest.len, &pid, &tid) || pid <= 0 || tid <= 0)
		return 0;
	return ps_maps__set_pid(ps->maps, tid, pid);
}

/* "PERF_RECORD_LOST lost 7" (perf script --show-lost-events): the recording lost 7 events
 * there, counted as perf report counts them (t2f_profile__count_lost). */
static int on_lost(struct t2f_perf_script *ps, const struct ps_header *h)
{
	uint64_t lost;

	if (!ps_parse_lost(h->rest.p, h->rest.len, &lost))
		return t2f_diag__warn(ps->d, ps->name, ps->line_no,
				      "unreadable PERF_RECORD_LOST line: expected \"lost N\"");
	t2f_profile__count_lost(ps->p, &(struct t2f_lost){ .records = 1, .events = lost });
	return 0;
}

int t2f_perf_script__add_map_lines(struct t2f_perf_script *ps, const char *text, size_t len)
{
	const char *end = text + len;
	int err = 0;

	while (text < end && !err) {
		const char *nl = memchr(text, '\n', (size_t)(end - text));
		size_t n = nl ? (size_t)(nl - text) : (size_t)(end - text);
		struct ps_header h;
		struct ps_mmap m;
		t2f_str_id path;
		bool side = ps_parse_header(text, n, &h);

		if (!side && ps->timeless) { /* a side record without a time, as on_timeless reads it */
			ps_parse_timeless(text, n, &h);
			side = h.record != PS_SAMPLE;
		}
		if (side) {
			if (h.record == PS_FORK)
				err = on_fork(ps, &h);
			else if (h.record == PS_MMAP && ps_parse_mmap(h.rest.p, h.rest.len, &m))
				err = maps_add(ps, &m, &path);
		}
		text += n + (nl != NULL);
	}
	return err;
}

/* Keeps a side record's line that changes the mappings, for t2f_perf_script__map_lines. */
static int keep_map_line(struct t2f_perf_script *ps, const char *s, size_t len)
{
	return t2f_buf__put(&ps->map_lines, s, len) ?: t2f_buf__put(&ps->map_lines, "\n", 1);
}

/* The sample being collected has a bad line: it is dropped (counted as malformed) and the rest
 * of its lines are skipped. The caller warns. */
static void drop_sample(struct t2f_perf_script *ps)
{
	t2f_profile__count_drop(ps->p, T2F_DROP_MALFORMED);
	ps->state = PS_SKIP;
	ps->nframes = 0;
}

/* A bad line that is the input's last, cut inside (no '\n'): its sample is truncated, not
 * malformed. Counted as such and warned, 1; 0 for any other line (the caller drops it). */
static int cut_line(struct t2f_perf_script *ps, int *warn)
{
	if (!ps->partial_line)
		return 0;
	t2f_profile__count_drop(ps->p, T2F_DROP_TRUNCATED);
	ps->state = PS_SKIP;
	ps->nframes = 0;
	*warn = t2f_diag__warn(ps->d, ps->name, ps->line_no,
			       "input ends inside a line: the last sample is incomplete and was dropped");
	return 1;
}

/* Whether the filter keeps the sample of header h: 1 or 0 (counted), or the error of a strict
 * warning. Its pid, when not printed, is its thread's process where FORK or MMAP lines told it,
 * else its tid (said once). */
static int keep_sample(struct t2f_perf_script *ps, const struct ps_header *h)
{
	int64_t pid = h->pid >= 0 ? h->pid : ps_maps__pid_of(ps->maps, h->tid);
	int err;

	if (h->pid < 0 && !ps->pid_warned && t2f_sample_filter__wants_pid(ps->filter)) {
		ps->pid_warned = true;
		err = t2f_diag__warn(ps->d, ps->name, ps->line_no, "the process id filter on text "
				     "without process ids: a thread's process is known only from "
				     "FORK and MMAP lines, else taken to be its thread id (perf "
				     "script -F +pid prints them)");
		if (err)
			return err;
	}
	if (!t2f_sample_filter__keep_thread(ps->filter, pid, h->tid, h->comm.p, h->comm.len))
		goto drop;
	if (t2f_sample_filter__keep_time(ps->filter, h->time_ns))
		return 1;
	if (ps->derive && is_sched_switch(h)) { /* its switches count (derive.h: clip) */
		ps->switch_only = true;
		return 1;
	}
drop:
	t2f_profile__count_drop(ps->p, T2F_DROP_FILTERED);
	ps->state = PS_SKIP;
	ps->nframes = 0;
	return 0;
}

void t2f_perf_script__filter(struct t2f_perf_script *ps, const struct t2f_sample_filter *f)
{
	ps->filter = f;
}

/* A header line: a sample starts, or a side record is taken whole. way: the header memo's way
 * that gave h (it may hold the thread and event ids), or NULL. */
static int on_header(struct t2f_perf_script *ps, const struct ps_header *h,
		     struct ps_header_way *way)
{
	int err = 0;

	ps->run.pend_len = 0;
	if (h->record != PS_SAMPLE) {
		ps->state = PS_SKIP;
		if (h->record == PS_FORK)
			return on_fork(ps, h);
		if (h->record == PS_LOST)
			return on_lost(ps, h);
		if (h->record == PS_SWITCH && ps->derive && ps_parse_switch_in(h->rest.p, h->rest.len))
			return t2f_derive__switch_in(ps->derive, h->tid, h->time_ns);
		return h->record == PS_MMAP ? on_mmap(ps, h) : 0;
	}
	t2f_profile__count_read(ps->p);
	ps->switch_only = false;
	if (ps->filter && (err = keep_sample(ps, h)) <= 0)
		return err;
	if (way && way->thread) {
		ps->thread = way->thread;
		ps->event = way->event;
	} else {
		err = lookup_thread(ps, h) ?: lookup_event(ps, h);
		if (err)
			return err;
		if (way) {
			way->thread = ps->thread;
			way->event = ps->event;
		}
	}
	ps->weight = h->has_period ? h->period : 1;
	if (h->has_period)
		t2f_profile__event_has_period(ps->p, ps->event);
	ps->time_ns = h->time_ns;
	ps->pid = h->pid;
	ps->tid = h->tid;
	ps->state = PS_IN;
	ps->nframes = 0;
	ps->chain_started = h->rest.len == 0;
	if (ps->derive && (err = derive_header(ps, h)) != 0)
		return err;
	if (h->rest.len && !h->tracepoint) { /* one-line sample: its frame, absolute ip */
		err = on_frame_line(ps, h->rest.p, h->rest.len, true);
		if (err == 0) {
			drop_sample(ps);
			err = t2f_diag__warn(ps->d, ps->name, ps->line_no,
					     "unreadable text after the event: expected \"ADDR SYMBOL (DSO)\"");
		}
	}
	return err < 0 ? err : 0;
}

/* A bad line where a sample header was expected, line `line` (cut: the input's last, cut
 * inside). */
static int bad_header_at(struct t2f_perf_script *ps, uint64_t line, bool cut)
{
	int err = end_sample(ps);

	if (err)
		return err;
	t2f_profile__count_read(ps->p);
	ps->state = PS_SKIP;
	ps->nframes = 0;
	if (cut) {
		t2f_profile__count_drop(ps->p, T2F_DROP_TRUNCATED);
		return t2f_diag__warn(ps->d, ps->name, line, "input ends inside a line: the last "
				      "sample is incomplete and was dropped");
	}
	t2f_profile__count_drop(ps->p, T2F_DROP_MALFORMED);
	return t2f_diag__warn(ps->d, ps->name, line,
			      "not a perf script sample header: expected \"COMM [PID/]TID [CPU] SECONDS.FRACTION: [PERIOD] [EVENT:]\"");
}

static int bad_header(struct t2f_perf_script *ps)
{
	return bad_header_at(ps, ps->line_no, ps->partial_line);
}

/* ---- headers without times ---- */

/* The line waiting for a frame line was no header after all. */
static int pending_bad(struct t2f_perf_script *ps)
{
	uint64_t line = ps->pending_line;

	ps->pending_line = 0;
	return bad_header_at(ps, line, ps->pending_partial);
}

/* The line waiting before frame line s[0..len) is its sample's header. */
static int pending_header(struct t2f_perf_script *ps)
{
	struct ps_header h;

	ps->pending_line = 0;
	ps_parse_timeless(ps->pending.p, ps->pending.len, &h);
	return end_sample(ps) ?: on_header(ps, &h, NULL);
}

/* A frame line (a tab first) in no sample: `perf script -F ip,...` prints no header, only an
 * empty line, before each call chain. The sample is an unknown thread's. */
static int headerless(struct t2f_perf_script *ps)
{
	struct ps_header h = { .comm = { "[unknown]", 9 }, .pid = -1, .tid = -1 };
	int err = on_header(ps, &h, NULL);

	ps->chain_started = false; /* this line is the leaf: no block memo for the sample */
	return err;
}

/* A line that is no header with a time, in timeless mode: a side record, a one-line sample, or
 * a line that may be a call-chain header (it waits for the next line). 1 when it is none of
 * these but a blank-led line inside a record (the caller goes on with it). */
static int on_timeless(struct t2f_perf_script *ps, const char *s, size_t len, size_t lead)
{
	struct ps_header h;
	int err;

	ps_parse_timeless(s, len, &h);
	if (h.record != PS_SAMPLE) {
		if ((h.record == PS_MMAP || h.record == PS_FORK) && (err = keep_map_line(ps, s, len)))
			return err;
		return end_sample(ps) ?: on_header(ps, &h, NULL);
	}
	if (h.rest.len)
		return end_sample(ps) ?: on_header(ps, &h, NULL);
	if (lead > 0 && ps->state != PS_IDLE)
		return 1;
	err = end_sample(ps);
	ps->pending.len = 0;
	if (!err)
		err = t2f_buf__put(&ps->pending, s, len);
	ps->pending_line = ps->line_no;
	ps->pending_partial = ps->partial_line;
	return err;
}

/* A header the memo gave (h, at line s): the sample before it ends, and with PS_TIMES_SPAN its
 * time is read as the run's (perf_script_times.c). */
static int memo_header(struct t2f_perf_script *ps, const char *s, struct ps_header *h,
		       struct ps_header_way *way)
{
	int err = end_sample(ps) ?: on_header(ps, h, way);

	if (!err && ps->times == PS_TIMES_SPAN && ps->state == PS_IN)
		ps->time_ns = ps_times__pend(&ps->run, s, h);
	return err;
}

static int on_line(struct t2f_perf_script *ps, const char *s, size_t len)
{
	struct ps_header_way *way;
	struct ps_header h;
	size_t lead = skip_blanks(s, len, 0);
	int err;

	while (len > lead && (s[len - 1] == ' ' || s[len - 1] == '\r' || s[len - 1] == '\t'))
		len--;
	if (ps->pending_line) { /* the line before waits: is this its first frame line? */
		struct ps_frame f;

		err = s[0] == '\t' && len > lead && ps_parse_frame(s + lead, len - lead, &f) ?
			      pending_header(ps) : pending_bad(ps);
		ps->chain_started = false; /* the callers' block memo starts at a header line */
		if (err)
			return err;
	}
	if (len == lead) /* blank: the end of a sample, unless the input was cut inside the line */
		return ps->partial_line ? 0 : end_sample(ps);
	if (lead == 0 && s[0] == '#') /* ignored but for events, and binary data is an error */
		return check_text(ps, s, len) ?: header_event(ps, s, len);
	if (s[0] == '\t' && ps->state == PS_IDLE && ps->timeless && (err = headerless(ps)))
		return err;
	if (s[0] == '\t' && ps->state != PS_IDLE) { /* perf indents call chains with a tab */
		if (ps->state == PS_SKIP)
			return check_text(ps, s, len);
		err = on_frame_line(ps, s + lead, len - lead, false);
		if (err)
			return err < 0 ? err : 0;
		if (cut_line(ps, &err))
			return err;
		drop_sample(ps);
		return t2f_diag__warn(ps->d, ps->name, ps->line_no,
				      "unreadable frame line: expected \"ADDRESS [SYMBOL[+0xOFF]] [(DSO)]\"");
	}
	if (lead == 0 && (way = ps_header_memo__parse(&ps->header_memo, s, len,
						      ps->times == PS_TIMES_EACH, &h)) != NULL)
		return memo_header(ps, s, &h, way);
	err = check_text(ps, s, len);
	if (err)
		return err;
	if (ps_parse_header(s, len, &h)) {
		ps_header_memo__keep(&ps->header_memo, s, len, &h);
		if ((h.record == PS_MMAP || h.record == PS_FORK) && (err = keep_map_line(ps, s, len)))
			return err;
		return end_sample(ps) ?: on_header(ps, &h, NULL);
	}
	if (ps->timeless && (err = on_timeless(ps, s, len, lead)) <= 0)
		return err;
	if (lead > 0 && ps->state == PS_IN) { /* a blank-indented frame, or a srcline ("  x.c:82") */
		err = on_frame_line(ps, s + lead, len - lead, false);
		return err < 0 ? err : 0;
	}
	if (lead > 0 && ps->state == PS_SKIP)
		return check_text(ps, s, len);
	return bad_header(ps);
}

/* ---- the callers' block memo ---- */

/* BLK_AT_CALLERS, at the first caller's line s[0..avail): when the callers' lines equal a kept
 * block followed by the empty line, the sample ends on that block's node and the bytes used are
 * returned; else 0, and the block is collected for keeping. */
static long block_lookup(struct t2f_perf_script *ps, const char *s, size_t avail)
{
	const struct ps_block *k = s[0] == '\t' ? ps_blocks__find(ps->blocks, s, avail) : NULL;
	int err;

	if (!k)
		return 0;
	ps->line_no += k->lines + 1;
	ps->partial_line = false;
	ps->base_node = k->node;
	err = end_sample(ps);
	return err ? err : (long)k->len + 1;
}

/* Moves the block memo's phase on after the line at s was read (`phase` was the phase before;
 * keepable: it was the empty line that ends a block being collected). */
static int block_step(struct t2f_perf_script *ps, enum ps_block_phase phase, const char *s,
		      bool keepable)
{
	int err = 0;

	ps->phase = BLK_NONE;
	if (ps->chain_started) {
		ps->chain_started = false;
		ps->phase = BLK_AFTER_HEADER;
	} else if (phase == BLK_AFTER_HEADER && ps->state == PS_IN && ps->nframes == 1) {
		ps->phase = BLK_AT_CALLERS;
	} else if (phase == BLK_AT_CALLERS && ps->state == PS_IN && ps->nframes == 2) {
		ps->phase = BLK_COLLECT;
		ps->blk_start = s;
		ps->blk_line = ps->line_no;
	} else if (phase == BLK_COLLECT && keepable) {
		err = ps_blocks__add(ps->blocks, ps->blk_start,
				     (size_t)(s - ps->blk_start), (uint32_t)(ps->line_no - ps->blk_line),
				     ps->leaf_parent, ps->borrow);
	} else if (phase == BLK_COLLECT && ps->state == PS_IN && ps->nframes >= 2) {
		ps->phase = BLK_COLLECT;
	}
	return err;
}

/* What the headers' times are read for: with none of ranges, the derive stage, a time
 * histogram or a sample time log, only the profile's span needs them. */
static enum ps_times times_wanted(const struct t2f_perf_script *ps)
{
	if (t2f_sample_filter__has_ranges(ps->filter) || ps->derive ||
	    t2f_profile__hist(ps->p) || t2f_profile__sample_times(ps->p))
		return PS_TIMES_EACH;
	return t2f_profile__wants_times(ps->p) ? PS_TIMES_SPAN : PS_TIMES_NONE;
}

int t2f_perf_script__feed(struct t2f_perf_script *ps, const char *data, size_t len)
{
	const char *end = data + len;
	int err = 0;

	ps->times = times_wanted(ps);

	while (data < end && !err) {
		const char *nl;
		size_t n;
		enum ps_block_phase phase = ps->phase;
		bool keepable;

		if (phase == BLK_AT_CALLERS) {
			long used = block_lookup(ps, data, (size_t)(end - data));

			if (used < 0)
				return (int)used;
			if (used > 0) {
				ps->phase = BLK_NONE;
				data += used;
				continue;
			}
		}
		nl = memchr(data, '\n', (size_t)(end - data));
		n = nl ? (size_t)(nl - data) : (size_t)(end - data);
		ps->line_no++;
		ps->partial_line = nl == NULL;
		/* an empty line ends a cleanly read block: keep it */
		keepable = phase == BLK_COLLECT && n == 0 && nl && ps->state == PS_IN &&
			   !ps->cut_warned;
		err = on_line(ps, data, n);
		if (!err)
			err = block_step(ps, phase, data, keepable);
		data += n + (nl != NULL);
	}
	ps->phase = BLK_NONE; /* a block never spans two feeds */
	return err;
}

/* perf ends every line with '\n': input that stops inside a line was cut, and the sample it
 * belongs to is incomplete. */
static int finish_samples(struct t2f_perf_script *ps)
{
	int err = ps->pending_line ? pending_bad(ps) : 0;

	if (err)
		return err;
	if (!ps->partial_line || ps->state != PS_IN)
		return end_sample(ps);
	t2f_profile__count_drop(ps->p, T2F_DROP_TRUNCATED);
	ps->state = PS_IDLE;
	ps->nframes = 0;
	return t2f_diag__warn(ps->d, ps->name, ps->line_no,
			      "input ends inside a line: the last sample is incomplete and was dropped");
}

int t2f_perf_script__finish(struct t2f_perf_script *ps)
{
	int err = finish_samples(ps);
	uint64_t last = ps_times__end(&ps->run);

	t2f_profile__note_span(ps->p, last, last);
	return err;
}
