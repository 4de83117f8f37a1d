/* readers/nettrace_v6.c: the V6 block container (spec §4).
 *
 * After the 16-byte header, blocks follow until EndOfStream:
 *   u32 X: content size = X & 0xFFFFFF, kind = X >> 24; content
 *   kinds 0 EndOfStream, 1 Trace, 2 Event, 3 Metadata, 4 SequencePoint, 5 Stack, 6 Thread,
 *   7 RemoveThread, 8 LabelList; other kinds are skipped (counted).
 */
#include "readers/nettrace_internal.h"

#include <errno.h>
#include <stdlib.h>

#include "formats/grow.h"

enum v6_kind {
	V6_END, V6_TRACE, V6_EVENT, V6_METADATA, V6_SEQUENCE_POINT, V6_STACK, V6_THREAD,
	V6_REMOVE_THREAD, V6_LABEL_LIST,
};

#define SP_FLUSH_THREADS 1u
#define SP_FLUSH_METADATA 2u

int nt_v6_need(struct nt_parser *p, const uint8_t *b, size_t avail, uint64_t off, size_t *need)
{
	*need = avail < 4 ? 4 : 4 + (nt_le32(b) & 0xffffff);
	return 0;
}

/* varuint32 byte length + UTF-8 (no terminator): a span inside the block. */
static bool cur_str6(struct nt_cur *c, const uint8_t **s, uint32_t *len)
{
	return cur_var32(c, len) && cur_bytes(c, *len, s);
}

static bool skip_str6(struct nt_cur *c)
{
	const uint8_t *s;
	uint32_t len;

	return cur_str6(c, &s, &len);
}

static bool str_is(const uint8_t *s, uint32_t len, const char *want)
{
	return strlen(want) == len && memcmp(s, want, len) == 0;
}

/* A decimal value string; false when it is not one. */
static bool str_u64(const uint8_t *s, uint32_t len, uint64_t *v)
{
	uint64_t x = 0;

	if (!len || len > 19)
		return false;
	for (uint32_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		x = x * 10 + (uint64_t)(s[i] - '0');
	}
	*v = x;
	return true;
}

static void trace_key(struct nt_trace *t, const uint8_t *k, uint32_t klen, const uint8_t *v,
		      uint32_t vlen)
{
	uint64_t x;

	if (!str_u64(v, vlen, &x))
		return;
	if (str_is(k, klen, "HardwareThreadCount") && x <= UINT32_MAX)
		t->cpus = (uint32_t)x;
	else if (str_is(k, klen, "ProcessId") && x <= INT64_MAX)
		t->pid = (int64_t)x;
	else if (str_is(k, klen, "ExpectedCPUSamplingRate"))
		t->sampling_ns = x;
	else if (str_is(k, klen, "SystemPageSize"))
		t->page_size = x;
}

/* 8 × i16 SyncTimeUTC, i64 SyncTimeQPC, i64 QPCFrequency, i32 PointerSize, i32 KeyValueCount,
 * KeyValueCount × (string key, string value) */
static int v6_trace(struct nt_parser *p, const uint8_t *b, size_t n, uint64_t off)
{
	struct nt_cur c = { b, b + n };
	struct nt_trace *t = &p->trace;
	uint64_t qpc, freq;
	uint32_t ptr, count;

	if (p->have_trace)
		return nt_fail0(p, off, "a second Trace block");
	if (!cur_skip(&c, 16) || !cur_u64(&c, &qpc) || !cur_u64(&c, &freq) || !cur_u32(&c, &ptr) ||
	    !cur_u32(&c, &count))
		return nt_fail(p, off, "Trace block of %zu bytes is too short", n);
	t->major = 6;
	t->sync_qpc = (int64_t)qpc;
	t->qpc_freq = (int64_t)freq;
	t->pointer_size = ptr;
	if (ptr != 4 && ptr != 8)
		return nt_fail(p, off + 32, "pointer size %u (expected 4 or 8)", ptr);
	if (t->qpc_freq <= 0)
		return nt_fail(p, off + 24, "QPC frequency %lld (expected > 0)", (long long)freq);
	for (uint32_t i = 0; i < count; i++) {
		const uint8_t *k, *v;
		uint32_t klen, vlen;

		if (!cur_str6(&c, &k, &klen) || !cur_str6(&c, &v, &vlen)) {
			int err = nt_warn(p, off + (uint64_t)(c.p - b), "Trace block key/value %u of "
					  "%u past the block's end; the rest ignored", i, count);

			if (err)
				return err;
			break;
		}
		trace_key(t, k, klen, v, vlen);
	}
	return nt_deliver_trace(p);
}

/* u64 Timestamp, u32 Flags, u32 ThreadCount, ThreadCount × (varuint64 ThreadIndex,
 * varuint32 SequenceNumber). Stacks (and label lists) always go; bit 0 also drops the thread
 * cache, bit 1 the metadata cache. */
static int v6_sequence_point(struct nt_parser *p, const uint8_t *b, size_t n, uint64_t off)
{
	struct nt_cur c = { b, b + n };
	uint64_t ts, index;
	uint32_t flags = 0, count, seq;
	int err = 0;

	nt_stacks_flush(p);
	if (!cur_u64(&c, &ts) || !cur_u32(&c, &flags) || !cur_u32(&c, &count))
		err = nt_warn(p, off, "sequence point block of %zu bytes is too short", n);
	else
		for (uint32_t i = 0; i < count; i++)
			if (!cur_var64(&c, &index) || !cur_var32(&c, &seq)) {
				/* one warning: the count may claim 4 billion threads */
				err = nt_warn(p, off, "sequence point thread %u of %u past the "
					      "block's end", i, count);
				break;
			}
	if (err)
		return err;
	if (flags & SP_FLUSH_THREADS) {
		err = nt_threads_flush(p);
		if (err)
			return err;
	}
	if (flags & SP_FLUSH_METADATA)
		nt_meta_flush(p);
	return 0;
}

static struct nt_thread *thread_slot(struct nt_parser *p, uint64_t index, bool *dup)
{
	uint32_t slot = nt_idmap__find(&p->thread_map, index);

	*dup = slot && p->threads[slot - 1].live;
	if (slot)
		return &p->threads[slot - 1];
	if (t2f_grow32((void **)&p->threads, &p->cap_threads, p->n_threads, sizeof(*p->threads),
		       64))
		return NULL;
	if (nt_idmap__put(&p->thread_map, index, p->n_threads + 1))
		return NULL;
	return &p->threads[p->n_threads++];
}

/* varuint64 Index, then until the row's end: u8 Kind; 1 Name (string), 2 OSProcessId
 * (varuint64), 3 OSThreadId (varuint64), 4 KeyValue (string, string). */
static int v6_thread_row(struct nt_parser *p, struct nt_cur *c, uint64_t off)
{
	uint64_t index, v;
	struct nt_thread t = { .pid = p->trace.pid, .tid = -1, .live = true };
	struct nt_thread *slot;
	bool dup, ok = cur_var64(c, &index);

	while (ok && cur_left(c)) {
		const uint8_t *s;
		uint32_t len;
		uint8_t kind;

		ok = cur_u8(c, &kind);
		if (ok && kind == 1) {
			ok = cur_str6(c, &s, &len);
			if (ok && !(t.name = t2f_arena__strndup(p->thread_arena, (const char *)s, len)))
				return -ENOMEM;
		} else if (ok && (kind == 2 || kind == 3)) {
			ok = cur_var64(c, &v) && v <= INT64_MAX;
			if (ok)
				*(kind == 2 ? &t.pid : &t.tid) = (int64_t)v;
		} else if (ok && kind == 4) {
			ok = cur_str6(c, &s, &len) && cur_str6(c, &s, &len);
		} else {
			ok = false;
		}
	}
	if (!ok) {
		p->st.bad_rows++;
		return nt_warn0(p, off, "thread row with an unknown entry kind or cut short; "
			        "ignored");
	}
	slot = thread_slot(p, index, &dup);
	if (!slot)
		return -ENOMEM;
	*slot = t;
	return dup ? nt_warn(p, off, "thread index %llu defined twice; the later one kept",
			     (unsigned long long)index) : 0;
}

/* Rows: u16 RowSize (excluding itself), row. */
static int v6_thread_block(struct nt_parser *p, const uint8_t *b, size_t n, uint64_t off)
{
	struct nt_cur c = { b, b + n };

	while (cur_left(&c)) {
		const uint8_t *at = c.p;
		uint16_t size;
		struct nt_cur row;
		int err;

		if (!cur_u16(&c, &size) || size > cur_left(&c)) {
			p->st.bad_rows++;
			return nt_warn0(p, off + (uint64_t)(at - b), "thread row past the "
				        "block's end; rest of the block skipped");
		}
		row.p = c.p;
		row.end = c.p + size;
		c.p = row.end;
		err = v6_thread_row(p, &row, off + (uint64_t)(at - b));
		if (err)
			return err;
	}
	return 0;
}

/* Pairs (varuint64 Index, varuint32 SequenceNumber) until the block's end. Events are delivered
 * in file order, so every event of the thread has already been delivered. */
static int v6_remove_thread(struct nt_parser *p, const uint8_t *b, size_t n, uint64_t off)
{
	struct nt_cur c = { b, b + n };

	while (cur_left(&c)) {
		const uint8_t *at = c.p;
		uint64_t index;
		uint32_t seq, slot;

		if (!cur_var64(&c, &index) || !cur_var32(&c, &seq)) {
			p->st.bad_rows++;
			return nt_warn0(p, off + (uint64_t)(at - b), "remove-thread entry past "
				        "the block's end");
		}
		slot = nt_idmap__find(&p->thread_map, index);
		if (slot)
			p->threads[slot - 1].live = false;
	}
	return 0;
}

/* u32 FirstIndex, u32 Count, Count lists of labels (u8 Kind, bit 7 = last of its list). The
 * labels are not delivered: the block is only checked. */
static bool v6_label(struct nt_cur *c, bool *last)
{
	uint8_t kind;
	uint64_t v;

	if (!cur_u8(c, &kind))
		return false;
	*last = kind & 0x80;
	switch (kind & 0x7f) {
	case 1: case 2: case 3: return cur_skip(c, 16);       /* activity, related, trace id */
	case 4: case 8: return cur_skip(c, 8);                /* span id, keywords */
	case 5: return skip_str6(c) && skip_str6(c);          /* key, string value */
	case 6: return skip_str6(c) && cur_var64(c, &v);      /* key, varint value */
	case 7: case 9: case 10: return cur_skip(c, 1);       /* opcode, level, version */
	default: return false;
	}
}

static int v6_label_list(struct nt_parser *p, const uint8_t *b, size_t n, uint64_t off)
{
	struct nt_cur c = { b, b + n };
	uint32_t first, count;

	if (!cur_u32(&c, &first) || !cur_u32(&c, &count) || count > cur_left(&c)) {
		p->st.bad_rows++;
		return nt_warn0(p, off, "label list block header does not fit the block");
	}
	for (uint32_t i = 0; i < count; i++) {
		bool last = false;

		while (!last) {
			if (!v6_label(&c, &last)) {
				p->st.bad_rows++;
				return nt_warn(p, off + (uint64_t)(c.p - b), "label list %u: unknown "
					       "label kind or past the block's end", first + i);
			}
		}
	}
	return 0;
}

static int v6_dispatch(struct nt_parser *p, unsigned kind, const uint8_t *b, size_t n,
		       uint64_t off)
{
	switch (kind) {
	case V6_EVENT:
		return nt_event_block(p, b, n, off, false);
	case V6_METADATA:
		return nt_v6_metadata_block(p, b, n, off);
	case V6_SEQUENCE_POINT:
		return v6_sequence_point(p, b, n, off);
	case V6_STACK:
		return nt_stack_block(p, b, n, off);
	case V6_THREAD:
		return v6_thread_block(p, b, n, off);
	case V6_REMOVE_THREAD:
		return v6_remove_thread(p, b, n, off);
	case V6_LABEL_LIST:
		return v6_label_list(p, b, n, off);
	default:
		p->st.skipped_blocks++;
		return 0;
	}
}

int nt_v6_block(struct nt_parser *p, const uint8_t *b, size_t n, uint64_t off)
{
	unsigned kind = b[3];

	if (kind == V6_END) {
		p->state = NT_DONE;
		return 0;
	}
	p->st.blocks++;
	if (kind == V6_TRACE)
		return v6_trace(p, b + 4, n - 4, off + 4);
	if (!p->have_trace)
		return nt_fail(p, off, "block kind %u before the Trace block", kind);
	return v6_dispatch(p, kind, b + 4, n - 4, off + 4);
}

int nt_v6_partial(struct nt_parser *p, const uint8_t *b, size_t n, uint64_t off)
{
	int err;

	if (n <= 4 || b[3] != V6_EVENT || !p->have_trace)
		return 0;
	p->partial = true;
	err = nt_event_block(p, b + 4, n - 4, off + 4, false);
	p->partial = false;
	return err;
}
