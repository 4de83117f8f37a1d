/* readers/nettrace_rows.c: event rows (plain and compressed headers), stack blocks, and the event
 * delivery that ties a row to its metadata, stack and thread (spec §5, §7).
 */
#include "readers/nettrace_internal.h"

#include <errno.h>
#include <stdlib.h>

#include "formats/grow.h"

#define BLOCK_HEADER_MIN 20

/* V4/V5 plain header (80 bytes after EventSize... counted from MetadataId):
 *   u32 EventSize, u32 MetadataId, u32 SequenceNumber, u64 ThreadId, u64 CaptureThreadId,
 *   u32 ProcessorNumber, u32 StackId, u64 TimeStamp, 16B ActivityId, 16B RelatedActivityId,
 *   u32 PayloadSize, payload
 * V6: the same up to TimeStamp (thread ids are indexes), then u32 LabelListId, u32 PayloadSize.
 * The next row starts at the row's start + 4 + EventSize (padding, if any, is skipped). */
static bool row_plain(struct nt_cur *c, struct nt_row *r, bool v6, const uint8_t **payload)
{
	uint32_t size, meta;
	uint64_t ts;
	struct nt_cur row;

	if (!cur_u32(c, &size) || size > cur_left(c))
		return false;
	row.p = c->p;
	row.end = c->p + size;
	c->p = row.end;
	if (!cur_u32(&row, &meta) || !cur_u32(&row, &r->seq) || !cur_u64(&row, &r->thread) ||
	    !cur_u64(&row, &r->capture) || !cur_u32(&row, &r->cpu) ||
	    !cur_u32(&row, &r->stack_id) || !cur_u64(&row, &ts))
		return false;
	if (v6 ? !cur_u32(&row, &r->label) : !cur_skip(&row, 32))
		return false;
	r->meta_id = meta & 0x7fffffffu;
	r->sorted = !(meta >> 31);
	r->ts = (int64_t)ts;
	return cur_u32(&row, &r->payload_size) && cur_bytes(&row, r->payload_size, payload);
}

/* Compressed header: u8 flags, then only what changed (deltas for sequence and time):
 *   0x01 MetadataId   0x02 SequenceNumber delta - 1, CaptureThread, ProcessorNumber
 *   0x04 ThreadId     0x08 StackId   always TimeStamp delta
 *   0x10 ActivityId (V6: LabelListId)   0x20 RelatedActivityId (V4/V5)
 *   0x40 IsSorted     0x80 PayloadSize */
static bool row_compressed(struct nt_cur *c, struct nt_row *r, bool v6, const uint8_t **payload)
{
	uint8_t f;
	uint32_t d32;
	uint64_t d64;

	if (!cur_u8(c, &f))
		return false;
	if ((f & 0x01) && !cur_var32(c, &r->meta_id))
		return false;
	if (f & 0x02) {
		if (!cur_var32(c, &d32) || !cur_var64(c, &r->capture) || !cur_var32(c, &r->cpu))
			return false;
		r->seq += d32 + 1;
	} else if (r->meta_id) {
		r->seq++;
	}
	if ((f & 0x04) && !cur_var64(c, &r->thread))
		return false;
	if ((f & 0x08) && !cur_var32(c, &r->stack_id))
		return false;
	if (!cur_var64(c, &d64))
		return false;
	r->ts = (int64_t)((uint64_t)r->ts + d64);
	if (v6) {
		if ((f & 0x10) && !cur_var32(c, &r->label))
			return false;
	} else if (!cur_skip(c, ((f & 0x10) ? 16 : 0) + ((f & 0x20) ? 16 : 0))) {
		return false;
	}
	r->sorted = (f & 0x40) != 0;
	if ((f & 0x80) && !cur_var32(c, &r->payload_size))
		return false;
	return cur_bytes(c, r->payload_size, payload);
}

static void find_stack(struct nt_parser *p, uint32_t id, struct nt_event *e)
{
	uint32_t i = id - p->stack_base;

	if (!id)
		return;
	if (id < p->stack_base || i >= p->n_stacks || p->stacks[i].off == NT_NO_STACK) {
		p->st.unknown_stack++;
		e->stack_unknown = true;
		return;
	}
	e->stack_len = p->stacks[i].len;
	e->stack = e->stack_len ? p->ips + p->stacks[i].off : NULL;
}

static void find_thread(struct nt_parser *p, uint64_t index, struct nt_event *e)
{
	uint32_t slot = nt_idmap__find(&p->thread_map, index);
	const struct nt_thread *t = slot ? &p->threads[slot - 1] : NULL;

	if (!t || !t->live) {
		p->st.unknown_thread++;
		e->pid = p->trace.pid;
		return;
	}
	e->pid = t->pid;
	e->tid = t->tid;
	e->thread_name = t->name;
}

static int deliver(struct nt_parser *p, const struct nt_row *r, const uint8_t *payload,
		   uint64_t off)
{
	struct nt_event e = {
		.pid = p->trace.pid,
		.tid = -1,
		.cpu = r->cpu,
		.timestamp = r->ts,
		.payload = payload,
		.payload_len = r->payload_size,
		.offset = off,
	};

	e.meta = nt_meta_find(p, r->meta_id);
	if (!e.meta)
		p->st.unknown_meta++;
	if (p->state == NT_V6)
		find_thread(p, r->thread, &e);
	else
		e.tid = r->thread <= INT64_MAX ? (int64_t)r->thread : -1;
	find_stack(p, r->stack_id, &e);
	p->st.events++;
	return p->sink.event ? p->sink.event(p->sink.ctx, &e) : 0;
}

/* u16 HeaderSize (including itself, >= 20), u16 Flags (bit 0: compressed headers),
 * i64 MinTimestamp, i64 MaxTimestamp, [rest of the header], rows until the block's end. */
int nt_event_block(struct nt_parser *p, const uint8_t *b, size_t n, uint64_t off, bool metadata)
{
	struct nt_cur c = { b, b + n };
	struct nt_row r = { 0 };
	uint16_t hsize, flags;
	bool v6 = p->state == NT_V6;

	if (!cur_u16(&c, &hsize) || !cur_u16(&c, &flags) || hsize < BLOCK_HEADER_MIN ||
	    hsize > n) {
		if (p->partial)
			return 0;
		p->st.bad_rows++;
		return nt_warn(p, off, "event block header size %u out of range %u..%zu; block "
			       "skipped", n >= 2 ? nt_le16(b) : 0, BLOCK_HEADER_MIN, n);
	}
	c.p = b + hsize;
	while (c.p < c.end) {
		const uint8_t *row = c.p, *payload;
		bool ok = (flags & 1) ? row_compressed(&c, &r, v6, &payload)
				      : row_plain(&c, &r, v6, &payload);
		int err;

		if (!ok && p->partial)
			return 0;
		if (!ok) {
			p->st.bad_rows++;
			return nt_warn(p, off + (uint64_t)(row - b), "event row cut by its block's "
				       "end or a varint longer than its limit; the %zu bytes left "
				       "in the block skipped", (size_t)(c.end - row));
		}
		if (metadata)
			err = nt_v4_metadata(p, payload, r.payload_size, off + (uint64_t)(payload - b));
		else
			err = deliver(p, &r, payload, off + (uint64_t)(row - b));
		if (err)
			return err;
	}
	return 0;
}

/* ---- stacks --------------------------------------------------------------------------------- */

/* Makes room for ids first..first+count-1, marking new and skipped ids undefined. */
static int stacks_reserve(struct nt_parser *p, uint32_t first, uint32_t count, uint64_t off)
{
	uint64_t at, end;

	if (!p->n_stacks)
		p->stack_base = first;
	at = (uint64_t)first - p->stack_base;
	end = at + count;
	if (first < p->stack_base || at > (uint64_t)p->n_stacks + NT_MAX_STACK_GAP ||
	    end > UINT32_MAX) {
		p->st.bad_rows++;
		return nt_warn(p, off, "stack ids %u.. do not follow the previous block's (%u..%u); "
			       "block skipped", first, p->stack_base, p->stack_base + p->n_stacks);
	}
	if (end > p->cap_stacks) {
		size_t cap = p->cap_stacks;

		if (t2f_grow((void **)&p->stacks, &cap, 0, (size_t)end, sizeof(*p->stacks), 256,
			     UINT32_MAX))
			return -ENOMEM;
		p->cap_stacks = (uint32_t)cap;
	}
	for (uint64_t i = p->n_stacks; i < end; i++)
		p->stacks[i].off = NT_NO_STACK;
	if (end > p->n_stacks)
		p->n_stacks = (uint32_t)end;
	return 1;
}

static int ips_reserve(struct nt_parser *p, size_t more)
{
	return t2f_grow((void **)&p->ips, &p->cap_ips, p->n_ips, more, sizeof(*p->ips), 4096,
			SIZE_MAX);
}

static int stack_add(struct nt_parser *p, uint32_t slot, const uint8_t *ips, uint32_t size)
{
	uint32_t ptr = p->trace.pointer_size, len = size / ptr;
	int err;

	if (p->n_ips + len >= NT_NO_STACK)
		return -T2F_ERR_LIMIT;
	err = ips_reserve(p, len);
	if (err)
		return err;
	p->stacks[slot].off = (uint32_t)p->n_ips;
	p->stacks[slot].len = len;
	for (uint32_t i = 0; i < len; i++, ips += ptr)
		p->ips[p->n_ips++] = ptr == 8 ? nt_le64(ips) : nt_le32(ips);
	return 0;
}

/* u32 FirstId, u32 Count, Count × (u32 ByteSize, ByteSize bytes of IPs, leaf first) */
int nt_stack_block(struct nt_parser *p, const uint8_t *b, size_t n, uint64_t off)
{
	struct nt_cur c = { b, b + n };
	uint32_t first, count, at;
	int err;

	if (!cur_u32(&c, &first) || !cur_u32(&c, &count) || count > cur_left(&c) / 4) {
		p->st.bad_rows++;
		return nt_warn(p, off, "stack block header (count %u) does not fit its %zu bytes; "
			       "block skipped", n >= 8 ? nt_le32(b + 4) : 0, n);
	}
	err = stacks_reserve(p, first, count, off);
	if (err <= 0)
		return err;
	at = first - p->stack_base;
	for (uint32_t i = 0; i < count; i++) {
		const uint8_t *row = c.p, *ips;
		uint32_t size;

		if (!cur_u32(&c, &size) || size % p->trace.pointer_size ||
		    !cur_bytes(&c, size, &ips)) {
			p->st.bad_rows++;
			return nt_warn(p, off + (uint64_t)(row - b), "stack %u: byte size not a "
				       "multiple of %u or past the block's end; rest of the block "
				       "skipped", first + i, p->trace.pointer_size);
		}
		err = stack_add(p, at + i, ips, size);
		if (err == -T2F_ERR_LIMIT)
			return t2f_diag__error(p->d, err, p->name, 0, "offset %llu: too many stack "
					       "frames before a sequence point",
					       (unsigned long long)(off + (uint64_t)(row - b)));
		if (err)
			return err;
	}
	return 0;
}
