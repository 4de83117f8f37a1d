/* readers/nettrace_v4.c: the V4/V5 FastSerialization container (spec §3).
 *
 * Each object, as the runtime writes it:
 *   05                      BeginPrivateObject
 *   05 01                   BeginPrivateObject (type), NullReference (type of the type)
 *   i32 Version, i32 MinimumReaderVersion, i32 NameLength, Name ("EventBlock")
 *   06                      EndObject (type)
 *   Trace: 48 fixed bytes | others: i32 BlockSize, 0-3 zero bytes up to a file offset ≡ 0 mod 4,
 *                           BlockSize bytes
 *   06                      EndObject
 * and a lone 01 (NullReference) where the next object would start ends the stream.
 */
#include "readers/nettrace_internal.h"

#define V4_TYPE_AT 15   /* offset of the type name in an object */
#define V4_TRACE_LEN 48

enum v4_kind { V4_TRACE, V4_METADATA, V4_STACK, V4_EVENT, V4_SP, V4_UNKNOWN };

static const char *const v4_names[] = { "Trace", "MetadataBlock", "StackBlock", "EventBlock",
					"SPBlock" };

static enum v4_kind v4_kind(const uint8_t *name, uint32_t len)
{
	for (int k = V4_TRACE; k < V4_UNKNOWN; k++)
		if (strlen(v4_names[k]) == len && memcmp(v4_names[k], name, len) == 0)
			return (enum v4_kind)k;
	return V4_UNKNOWN;
}

/* The type part: checks the tags and the name; *hdr = bytes up to the payload. */
static int v4_type(struct nt_parser *p, const uint8_t *b, size_t avail, uint64_t off,
		   size_t *need, size_t *hdr, enum v4_kind *kind)
{
	uint32_t name_len;

	if (b[0] != 5)
		return nt_fail(p, off, "expected an object (tag 5) or the end tag (1), found %u",
			       b[0]);
	if (avail < V4_TYPE_AT) {
		*need = V4_TYPE_AT;
		return 0;
	}
	if (b[1] != 5 || b[2] != 1)
		return nt_fail(p, off + 1, "expected a type object (tags 5 1), found %u %u",
			       b[1], b[2]);
	name_len = nt_le32(b + 11);
	if (name_len < 1 || name_len > NT_MAX_TYPE_NAME)
		return nt_fail(p, off + 11, "type name length %u out of range 1..%u", name_len,
			       NT_MAX_TYPE_NAME);
	*hdr = V4_TYPE_AT + name_len + 1;
	if (avail < *hdr) {
		*need = *hdr;
		return 0;
	}
	if (b[*hdr - 1] != 6)
		return nt_fail(p, off + *hdr - 1, "expected the end of the type object (tag 6), "
			       "found %u", b[*hdr - 1]);
	*kind = v4_kind(b + V4_TYPE_AT, name_len);
	if (*kind == V4_UNKNOWN)
		return nt_fail(p, off + V4_TYPE_AT, "unknown object type \"%.*s\"", (int)name_len,
			       (const char *)b + V4_TYPE_AT);
	*need = 0;
	return 0;
}

/* Block objects: i32 BlockSize, padding to a file offset ≡ 0 mod 4, content, EndObject. */
static size_t v4_pad(uint64_t content_off)
{
	return (size_t)((4 - (content_off & 3)) & 3);
}

int nt_v4_need(struct nt_parser *p, const uint8_t *b, size_t avail, uint64_t off, size_t *need)
{
	size_t hdr = 0;
	enum v4_kind kind = V4_UNKNOWN;
	uint32_t size;
	int err;

	if (b[0] == 1) {
		*need = 1;
		return 0;
	}
	err = v4_type(p, b, avail, off, need, &hdr, &kind);
	if (err || *need)
		return err;
	if (kind == V4_TRACE) {
		*need = hdr + V4_TRACE_LEN + 1;
		return 0;
	}
	if (avail < hdr + 4) {
		*need = hdr + 4;
		return 0;
	}
	size = nt_le32(b + hdr);
	if (size > NT_MAX_UNIT)
		return nt_fail(p, off + hdr, "block size %u exceeds the limit of %u bytes", size,
			       NT_MAX_UNIT);
	*need = hdr + 4 + v4_pad(off + hdr + 4) + size + 1;
	return 0;
}

/* 8 × i16 SyncTimeUTC, i64 SyncTimeQPC, i64 QPCFrequency, i32 PointerSize, i32 ProcessId,
 * i32 NumberOfProcessors, i32 ExpectedCPUSamplingRate */
static int v4_trace(struct nt_parser *p, const uint8_t *b, uint64_t off)
{
	struct nt_trace *t = &p->trace;
	int32_t pid = (int32_t)nt_le32(b + 36);
	int32_t cpus = (int32_t)nt_le32(b + 40);
	int32_t rate = (int32_t)nt_le32(b + 44);

	if (p->have_trace)
		return nt_fail0(p, off, "a second Trace object");
	t->major = 4;
	t->sync_qpc = (int64_t)nt_le64(b + 16);
	t->qpc_freq = (int64_t)nt_le64(b + 24);
	t->pointer_size = nt_le32(b + 32);
	t->pid = pid >= 0 ? pid : -1;
	t->cpus = cpus > 0 ? (uint32_t)cpus : 0;
	t->sampling_ns = rate > 0 ? (uint64_t)rate : 0;
	if (t->pointer_size != 4 && t->pointer_size != 8)
		return nt_fail(p, off + 32, "pointer size %u (expected 4 or 8)", t->pointer_size);
	if (t->qpc_freq <= 0)
		return nt_fail(p, off + 24, "QPC frequency %lld (expected > 0)",
			       (long long)t->qpc_freq);
	return nt_deliver_trace(p);
}

/* i64 Timestamp, u32 ThreadCount, ThreadCount × (u64 thread id, u32 sequence number): only the
 * flush matters here (stack ids restart after it). */
static int v4_sequence_point(struct nt_parser *p)
{
	nt_stacks_flush(p);
	return 0;
}

static int v4_block(struct nt_parser *p, enum v4_kind kind, const uint8_t *b, size_t n,
		    uint64_t off)
{
	switch (kind) {
	case V4_METADATA:
		return nt_event_block(p, b, n, off, true);
	case V4_EVENT:
		return nt_event_block(p, b, n, off, false);
	case V4_STACK:
		return nt_stack_block(p, b, n, off);
	case V4_SP:
		return v4_sequence_point(p);
	default:
		return 0;
	}
}

int nt_v4_object(struct nt_parser *p, const uint8_t *b, size_t n, uint64_t off)
{
	size_t need = 0, hdr = 0, content;
	enum v4_kind kind = V4_UNKNOWN;
	uint32_t size;
	int err;

	if (b[0] == 1) {
		p->state = NT_DONE;
		return 0;
	}
	err = v4_type(p, b, n, off, &need, &hdr, &kind);
	if (err)
		return err;
	if (b[n - 1] != 6)
		return nt_fail(p, off + n - 1, "expected the end of the %s object (tag 6), found %u",
			       v4_names[kind], b[n - 1]);
	p->st.blocks++;
	if (kind == V4_TRACE)
		return v4_trace(p, b + hdr, off + hdr);
	if (!p->have_trace)
		return nt_fail(p, off, "%s before the Trace object", v4_names[kind]);
	size = nt_le32(b + hdr);
	content = hdr + 4 + v4_pad(off + hdr + 4);
	return v4_block(p, kind, b + content, size, off + content);
}

int nt_v4_partial(struct nt_parser *p, const uint8_t *b, size_t n, uint64_t off)
{
	size_t need = 0, hdr = 0, content;
	enum v4_kind kind = V4_UNKNOWN;
	uint32_t size;
	int err;

	if (b[0] == 1 || !p->have_trace)
		return 0;
	err = v4_type(p, b, n, off, &need, &hdr, &kind);
	if (err || need || (kind != V4_EVENT && kind != V4_METADATA) || n < hdr + 4)
		return err;
	size = nt_le32(b + hdr);
	content = hdr + 4 + v4_pad(off + hdr + 4);
	if (n <= content)
		return 0;
	p->partial = true;
	err = nt_event_block(p, b + content, n - content < size ? n - content : size,
			     off + content, kind == V4_METADATA);
	p->partial = false;
	return err;
}
