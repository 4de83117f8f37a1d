/* readers/nettrace_meta.c: metadata records (spec §6): the V4/V5 record carried as a metadata
 * row's payload (UTF-16 strings, V1 field list, V5 tags) and the V6 MetadataBlock rows.
 * Only provider, event id, name and version are kept; the field descriptions and tags are
 * walked to check they fit their record, then dropped.
 */
#include "readers/nettrace_internal.h"

#include <errno.h>
#include <stdlib.h>

#define MAX_FIELD_DEPTH 16     /* nested Object field lists */
#define TYPE_OBJECT 1
#define TYPE_ARRAY 19
#define TAG_OPCODE 1
#define TAG_V2PARAMS 2

/* ---- UTF-16 ------------------------------------------------------------------------------- */

/* A NUL-terminated UTF-16LE string at c, converted to UTF-8 in the metadata arena. Unpaired
 * surrogates become U+FFFD. False when the terminator is missing (or on ENOMEM: *out NULL). */
static bool cur_utf16z(struct nt_parser *p, struct nt_cur *c, const char **out)
{
	size_t units = 0, n = cur_left(c) / 2;
	char *s, *o;

	*out = NULL;
	while (units < n && nt_le16(c->p + 2 * units))
		units++;
	if (units == n)
		return false;
	s = t2f_arena__alloc(p->meta_arena, units * 3 + 1);
	if (!s)
		return true;
	o = s;
	for (size_t i = 0; i < units; i++) {
		uint32_t u = nt_le16(c->p + 2 * i);

		if (u >= 0xd800 && u < 0xdc00 && i + 1 < units) {
			uint32_t lo = nt_le16(c->p + 2 * (i + 1));

			if (lo >= 0xdc00 && lo < 0xe000) {
				u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
				i++;
			}
		}
		if (u >= 0xd800 && u < 0xe000)
			u = 0xfffd;
		if (u < 0x80) {
			*o++ = (char)u;
		} else if (u < 0x800) {
			*o++ = (char)(0xc0 | u >> 6);
			*o++ = (char)(0x80 | (u & 0x3f));
		} else if (u < 0x10000) {
			*o++ = (char)(0xe0 | u >> 12);
			*o++ = (char)(0x80 | (u >> 6 & 0x3f));
			*o++ = (char)(0x80 | (u & 0x3f));
		} else {
			*o++ = (char)(0xf0 | u >> 18);
			*o++ = (char)(0x80 | (u >> 12 & 0x3f));
			*o++ = (char)(0x80 | (u >> 6 & 0x3f));
			*o++ = (char)(0x80 | (u & 0x3f));
		}
	}
	*o = 0;
	c->p += 2 * units + 2;
	*out = s;
	return true;
}

static bool skip_utf16z(struct nt_cur *c)
{
	while (cur_left(c) >= 2) {
		uint16_t u = nt_le16(c->p);

		c->p += 2;
		if (!u)
			return true;
	}
	return false;
}

/* ---- V4/V5 field lists and tags --------------------------------------------------------- */

/* V1: i32 FieldCount, FieldCount × (i32 TypeCode, [Object: nested list], UTF-16z name) */
static bool skip_v1_fields(struct nt_cur *c, unsigned depth)
{
	uint32_t count, type;

	if (depth > MAX_FIELD_DEPTH || !cur_u32(c, &count) || count > cur_left(c) / 6)
		return false;
	for (uint32_t i = 0; i < count; i++) {
		if (!cur_u32(c, &type))
			return false;
		if (type == TYPE_OBJECT && !skip_v1_fields(c, depth + 1))
			return false;
		if (!skip_utf16z(c))
			return false;
	}
	return true;
}

/* V2Params: i32 FieldCount, FieldCount × (i32 FieldSize including itself, name, type, ...) */
static bool skip_v2_fields(struct nt_cur *c)
{
	uint32_t count, size;

	if (!cur_u32(c, &count) || count > cur_left(c) / 4)
		return false;
	for (uint32_t i = 0; i < count; i++)
		if (!cur_u32(c, &size) || size < 4 || !cur_skip(c, size - 4))
			return false;
	return true;
}

/* Tags until the record's end: i32 PayloadSize (excluding size and kind), u8 Kind, payload. */
static bool skip_tags(struct nt_cur *c)
{
	while (cur_left(c)) {
		uint32_t size;
		uint8_t kind;
		struct nt_cur t;

		if (!cur_u32(c, &size) || !cur_u8(c, &kind) || size > cur_left(c))
			return false;
		t.p = c->p;
		t.end = c->p + size;
		c->p = t.end;
		if (kind == TAG_V2PARAMS && !skip_v2_fields(&t))
			return false;
		if (kind == TAG_OPCODE && size < 1)
			return false;
	}
	return true;
}

/* i32 MetaDataId, UTF-16z ProviderName, i32 EventId, UTF-16z EventName, i64 Keywords,
 * i32 Version, i32 Level, [V1 fields], [V5 tags] */
int nt_v4_metadata(struct nt_parser *p, const uint8_t *b, size_t n, uint64_t off)
{
	struct nt_cur c = { b, b + n };
	struct nt_meta m = { 0 };
	uint32_t level;

	if (!cur_u32(&c, &m.id) || !cur_utf16z(p, &c, &m.provider) || !cur_u32(&c, &m.event_id) ||
	    !cur_utf16z(p, &c, &m.event_name) || !cur_skip(&c, 8) || !cur_u32(&c, &m.version) ||
	    !cur_u32(&c, &level)) {
		p->st.bad_rows++;
		return nt_warn(p, off, "metadata record (%zu bytes) cut short; ignored", n);
	}
	if (!m.provider || !m.event_name)
		return -ENOMEM;
	if (!m.id) {
		p->st.bad_rows++;
		return nt_warn0(p, off, "metadata record with id 0 ignored");
	}
	if (cur_left(&c) && !(skip_v1_fields(&c, 0) && skip_tags(&c))) {
		int err = nt_warn(p, off, "metadata %u: field list or tags do not fit the record; "
				  "ignored", m.id);

		if (err)
			return err;
	}
	return nt_meta_add(p, &m);
}

/* ---- V6 ---------------------------------------------------------------------------------- */

/* varuint32 byte length + UTF-8, copied NUL-terminated into the metadata arena. */
static bool cur_string6(struct nt_parser *p, struct nt_cur *c, const char **out)
{
	uint32_t len;
	const uint8_t *s;

	if (!cur_var32(c, &len) || !cur_bytes(c, len, &s))
		return false;
	*out = t2f_arena__strndup(p->meta_arena, (const char *)s, len);
	return true;
}

static bool skip_string6(struct nt_cur *c)
{
	uint32_t len;

	return cur_var32(c, &len) && cur_skip(c, len);
}

/* OptionalMetadata: u16 Size, entries of u8 Kind + value; only Version (9) is kept. */
static bool v6_optional(struct nt_cur *c, struct nt_meta *m)
{
	uint16_t size;
	struct nt_cur o;

	if (!cur_u16(c, &size) || size > cur_left(c))
		return false;
	o.p = c->p;
	o.end = c->p + size;
	while (cur_left(&o)) {
		uint8_t kind, v = 0;
		bool ok;

		if (!cur_u8(&o, &kind))
			return false;
		switch (kind) {
		case 1: case 8: ok = cur_u8(&o, &v); break;          /* OpCode, Level */
		case 9: ok = cur_u8(&o, &v); m->version = v; break;  /* Version */
		case 3: ok = cur_skip(&o, 8); break;                 /* Keywords */
		case 4: case 5: ok = skip_string6(&o); break;        /* template, description */
		case 6: ok = skip_string6(&o) && skip_string6(&o); break;
		case 7: ok = cur_skip(&o, 16); break;                /* ProviderGuid */
		default: return false;
		}
		if (!ok)
			return false;
	}
	return true;
}

/* u16 Count, Count × (u16 FieldSize excluding itself, field bytes) */
static bool v6_skip_fields(struct nt_cur *c)
{
	uint16_t count, size;

	if (!cur_u16(c, &count))
		return false;
	for (uint32_t i = 0; i < count; i++)
		if (!cur_u16(c, &size) || !cur_skip(c, size))
			return false;
	return true;
}

/* varuint32 MetaDataId, string Provider, varuint32 EventId, string EventName, fields,
 * optional metadata, [ignored rest] */
static int v6_metadata_row(struct nt_parser *p, struct nt_cur *c, uint64_t off)
{
	struct nt_meta m = { 0 };

	if (!cur_var32(c, &m.id) || !cur_string6(p, c, &m.provider) ||
	    !cur_var32(c, &m.event_id) || !cur_string6(p, c, &m.event_name)) {
		p->st.bad_rows++;
		return nt_warn0(p, off, "metadata row cut short; ignored");
	}
	if (!m.provider || !m.event_name)
		return -ENOMEM;
	if (!m.id) {
		p->st.bad_rows++;
		return nt_warn0(p, off, "metadata row with id 0 ignored");
	}
	if (!v6_skip_fields(c) || !v6_optional(c, &m)) {
		int err = nt_warn(p, off, "metadata %u: field list or optional metadata do not fit "
				  "the row; ignored", m.id);

		if (err)
			return err;
	}
	return nt_meta_add(p, &m);
}

/* u16 HeaderSize (excluding itself), header, rows of (u16 RowSize excluding itself, row). */
int nt_v6_metadata_block(struct nt_parser *p, const uint8_t *b, size_t n, uint64_t off)
{
	struct nt_cur c = { b, b + n };
	uint16_t hsize;

	if (!cur_u16(&c, &hsize) || !cur_skip(&c, hsize)) {
		p->st.bad_rows++;
		return nt_warn0(p, off, "metadata block header past the block's end; skipped");
	}
	while (cur_left(&c)) {
		const uint8_t *row_at = c.p;
		uint16_t size;
		struct nt_cur row;
		int err;

		if (!cur_u16(&c, &size) || size > cur_left(&c)) {
			p->st.bad_rows++;
			return nt_warn0(p, off + (uint64_t)(row_at - b), "metadata row past the "
				        "block's end; rest of the block skipped");
		}
		row.p = c.p;
		row.end = c.p + size;
		c.p = row.end;
		err = v6_metadata_row(p, &row, off + (uint64_t)(row_at - b));
		if (err)
			return err;
	}
	return 0;
}
