/* readers/nettrace_internal.h (internal to the nettrace_*.c files): the parser's state, the
 * bounded little-endian cursor every decoder reads through, and the caches the format defines.
 *
 * Every read goes through struct nt_cur, whose end is the enclosing block's or row's end: a
 * helper that would cross it returns false and moves nothing.
 */
#ifndef T2F_NETTRACE_INTERNAL_H
#define T2F_NETTRACE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "formats/arena.h"
#include "readers/nettrace_parse.h"

#define NT_MAX_UNIT (1u << 28)       /* largest V4 object buffered (V6 blocks are < 16 MiB) */
#define NT_MAX_TYPE_NAME 38          /* FastSerialization type names are short */
#define NT_MAX_STACK_GAP (1u << 16)  /* ids a stack block may skip after the previous one */

/* ---- bounded cursor ------------------------------------------------------------------------ */

struct nt_cur {
	const uint8_t *p, *end;
};

static inline size_t cur_left(const struct nt_cur *c) { return (size_t)(c->end - c->p); }

static inline bool cur_skip(struct nt_cur *c, size_t n)
{
	if (cur_left(c) < n)
		return false;
	c->p += n;
	return true;
}

static inline bool cur_bytes(struct nt_cur *c, size_t n, const uint8_t **out)
{
	*out = c->p;
	return cur_skip(c, n);
}

static inline bool cur_u8(struct nt_cur *c, uint8_t *v)
{
	if (c->p >= c->end)
		return false;
	*v = *c->p++;
	return true;
}

static inline uint16_t nt_le16(const uint8_t *b) { return (uint16_t)(b[0] | b[1] << 8); }

static inline uint32_t nt_le32(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static inline uint64_t nt_le64(const uint8_t *b)
{
	return (uint64_t)nt_le32(b) | (uint64_t)nt_le32(b + 4) << 32;
}

static inline bool cur_u16(struct nt_cur *c, uint16_t *v)
{
	if (cur_left(c) < 2)
		return false;
	*v = nt_le16(c->p);
	c->p += 2;
	return true;
}

static inline bool cur_u32(struct nt_cur *c, uint32_t *v)
{
	if (cur_left(c) < 4)
		return false;
	*v = nt_le32(c->p);
	c->p += 4;
	return true;
}

static inline bool cur_u64(struct nt_cur *c, uint64_t *v)
{
	if (cur_left(c) < 8)
		return false;
	*v = nt_le64(c->p);
	c->p += 8;
	return true;
}

/* LEB128 of at most max_bytes bytes (5 for 32-bit fields, 10 for 64-bit ones); a longer one, or
 * one cut by the end, is refused. Bits beyond 64 are dropped. */
static inline bool cur_varint(struct nt_cur *c, unsigned max_bytes, uint64_t *v)
{
	uint64_t x = 0;
	const uint8_t *q = c->p;

	for (unsigned i = 0; i < max_bytes && q < c->end; i++) {
		uint8_t b = *q++;

		if (i < 10)
			x |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			c->p = q;
			*v = x;
			return true;
		}
	}
	return false;
}

static inline bool cur_var32(struct nt_cur *c, uint32_t *v)
{
	uint64_t x;

	if (!cur_varint(c, 5, &x) || x > UINT32_MAX)
		return false;
	*v = (uint32_t)x;
	return true;
}

static inline bool cur_var64(struct nt_cur *c, uint64_t *v) { return cur_varint(c, 10, v); }

/* ---- caches -------------------------------------------------------------------------------- */

/* Open-addressing index from a 64-bit key to a dense slot + 1 (0 = absent). */
struct nt_idmap {
	uint64_t *keys;
	uint32_t *vals;
	uint32_t cap, n; /* cap: a power of two, or 0 */
};

uint32_t nt_idmap__find(const struct nt_idmap *m, uint64_t key);
int nt_idmap__put(struct nt_idmap *m, uint64_t key, uint32_t val); /* 0 or -ENOMEM */
void nt_idmap__clear(struct nt_idmap *m);
void nt_idmap__release(struct nt_idmap *m);

struct nt_thread {               /* V6 Thread block entry */
	int64_t pid, tid;
	const char *name;
	bool live;                   /* false once a RemoveThread block dropped it */
};

#define NT_NO_STACK UINT32_MAX

struct nt_stack_ref {
	uint32_t off, len;           /* into nt_parser.ips */
};

/* Compressed-header state: the previous row's fields, reset at each block's start. */
struct nt_row {
	uint32_t meta_id, seq, cpu, stack_id, label, payload_size;
	uint64_t thread, capture;
	int64_t ts;
	bool sorted;
};

enum nt_state { NT_DETECT, NT_V4, NT_V6, NT_DONE, NT_FAILED };

struct nt_parser {
	char *name;
	struct t2f_diag *d;
	struct nt_sink sink;
	struct nt_stats st;
	enum nt_state state;
	int err;                     /* the error that moved the state to NT_FAILED */
	bool have_trace;
	uint64_t trailing;           /* bytes after the end tag / EndOfStream (ignored) */
	bool partial;                /* decoding the cut last block at the end: a cut row ends it */
	struct nt_trace trace;

	uint64_t off;                /* file offset of the first byte not yet consumed */
	uint8_t *buf;                /* a unit that spans fed chunks, as far as it has arrived */
	size_t len, cap;

	struct t2f_arena *meta_arena;
	struct nt_meta **metas;      /* by slot; records live in meta_arena until the end */
	uint32_t n_meta, cap_meta;
	struct nt_idmap meta_map;
	uint32_t last_meta_id;       /* one-entry lookup cache */
	const struct nt_meta *last_meta;

	uint64_t *ips;               /* stacks defined since the last sequence point, widened */
	size_t n_ips, cap_ips;
	struct nt_stack_ref *stacks; /* indexed by id - stack_base; off NT_NO_STACK = undefined */
	uint32_t stack_base, n_stacks, cap_stacks;

	struct t2f_arena *thread_arena;
	struct nt_thread *threads;
	uint32_t n_threads, cap_threads;
	struct nt_idmap thread_map;

	char *scratch;               /* UTF-16 → UTF-8 conversions */
	size_t scratch_cap;
};

/* ---- shared helpers (nettrace_parse.c) ------------------------------------------------------ */

/* Warns "offset N: ..." at a block-relative position; 0, or the strict-mode error. */
#define nt_warn(p, offset, fmt, ...)                                                         \
	t2f_diag__warn((p)->d, (p)->name, 0, "offset %llu: " fmt, (unsigned long long)(offset), \
		       __VA_ARGS__)
#define nt_fail(p, offset, fmt, ...)                                                         \
	t2f_diag__error((p)->d, -T2F_ERR_FORMAT, (p)->name, 0, "offset %llu: " fmt,               \
			(unsigned long long)(offset), __VA_ARGS__)
/* The same for a message without arguments: the literal stays part of the warning's key (its
 * rate limit and the summary of suppressed ones). */
#define nt_warn0(p, offset, msg)                                                             \
	t2f_diag__warn((p)->d, (p)->name, 0, "offset %llu: " msg, (unsigned long long)(offset))
#define nt_fail0(p, offset, msg)                                                             \
	t2f_diag__error((p)->d, -T2F_ERR_FORMAT, (p)->name, 0, "offset %llu: " msg,               \
			(unsigned long long)(offset))

int nt_deliver_trace(struct nt_parser *p);
const struct nt_meta *nt_meta_find(struct nt_parser *p, uint32_t id);
/* Adds or replaces metadata id (copied into p->meta_arena; its strings must already live
 * there). Records stay valid for the whole parse, also after a flush or a redefinition. */
int nt_meta_add(struct nt_parser *p, const struct nt_meta *m);
void nt_meta_flush(struct nt_parser *p);
int nt_threads_flush(struct nt_parser *p);
void nt_stacks_flush(struct nt_parser *p);

/* ---- V4/V5 objects (nettrace_v4.c) ---------------------------------------------------------- */

/* How many bytes the object at b (avail bytes there, file offset off) takes: *need > avail asks
 * for more. 0 or -T2F_ERR_FORMAT. */
int nt_v4_need(struct nt_parser *p, const uint8_t *b, size_t avail, uint64_t off, size_t *need);
int nt_v4_object(struct nt_parser *p, const uint8_t *b, size_t n, uint64_t off);
/* The complete rows of an event or metadata object the file ends inside (n bytes of it). */
int nt_v4_partial(struct nt_parser *p, const uint8_t *b, size_t n, uint64_t off);

/* ---- V6 blocks (nettrace_v6.c) -------------------------------------------------------------- */

int nt_v6_need(struct nt_parser *p, const uint8_t *b, size_t avail, uint64_t off, size_t *need);
int nt_v6_block(struct nt_parser *p, const uint8_t *b, size_t n, uint64_t off);
int nt_v6_partial(struct nt_parser *p, const uint8_t *b, size_t n, uint64_t off);

/* ---- rows (nettrace_rows.c) ----------------------------------------------------------------- */

/* An EventBlock (or V4 MetadataBlock, metadata = true): 20-byte header, then rows. b..b+n is the
 * block content at file offset off. */
int nt_event_block(struct nt_parser *p, const uint8_t *b, size_t n, uint64_t off, bool metadata);
/* A StackBlock (V4 and V6). */
int nt_stack_block(struct nt_parser *p, const uint8_t *b, size_t n, uint64_t off);
/* A V6 MetadataBlock. */
int nt_v6_metadata_block(struct nt_parser *p, const uint8_t *b, size_t n, uint64_t off);
/* A V4/V5 metadata record (a metadata row's payload). */
int nt_v4_metadata(struct nt_parser *p, const uint8_t *b, size_t n, uint64_t off);

#endif
