/* readers/nettrace_parse.c: format detection, buffering of fed chunks into whole units (the
 * header, one V4 object or one V6 block), dispatch, and the caches shared by V4 and V6.
 *
 * A unit that lies entirely inside a fed chunk is parsed in place. One that spans chunks is
 * collected in p->buf, which grows only as its bytes arrive (a truncated file that declares a
 * huge block never makes us allocate the declared size).
 */
#include "readers/nettrace_internal.h"

#include <errno.h>
#include <stdlib.h>

#include "formats/grow.h"
#include "formats/hashmap.h"
#include "formats/plural.h"

static const uint8_t nt_magic[8] = { 'N', 'e', 't', 't', 'r', 'a', 'c', 'e' };
static const char nt_fs_sig[] = "!FastSerialization.1"; /* 20 bytes, after an int32 20 */

#define NT_FS_LEN 20
#define NT_V6_HEADER 20 /* "Nettrace", u32 Reserved 0, u32 Major, u32 Minor */

/* ---- id index ------------------------------------------------------------------------------- */

static uint32_t idmap_slot(const struct nt_idmap *m, uint64_t key)
{
	return (uint32_t)t2f_hash_u64(key) & (m->cap - 1);
}

uint32_t nt_idmap__find(const struct nt_idmap *m, uint64_t key)
{
	if (!m->n)
		return 0;
	for (uint32_t i = idmap_slot(m, key);; i = (i + 1) & (m->cap - 1)) {
		if (!m->vals[i])
			return 0;
		if (m->keys[i] == key)
			return m->vals[i];
	}
}

static int idmap_grow(struct nt_idmap *m)
{
	struct nt_idmap g = { 0 };

	g.cap = m->cap ? m->cap * 2 : 64;
	g.keys = malloc(sizeof(*g.keys) * g.cap);
	g.vals = calloc(g.cap, sizeof(*g.vals));
	if (!g.keys || !g.vals) {
		free(g.keys);
		free(g.vals);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < m->cap; i++)
		if (m->vals[i])
			nt_idmap__put(&g, m->keys[i], m->vals[i]);
	nt_idmap__release(m);
	*m = g;
	return 0;
}

int nt_idmap__put(struct nt_idmap *m, uint64_t key, uint32_t val)
{
	uint32_t i;

	if ((m->n + 1) * 2 > m->cap) {
		int err = idmap_grow(m);

		if (err)
			return err;
	}
	for (i = idmap_slot(m, key); m->vals[i]; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == key) {
			m->vals[i] = val;
			return 0;
		}
	}
	m->keys[i] = key;
	m->vals[i] = val;
	m->n++;
	return 0;
}

void nt_idmap__clear(struct nt_idmap *m)
{
	if (m->cap)
		memset(m->vals, 0, sizeof(*m->vals) * m->cap);
	m->n = 0;
}

void nt_idmap__release(struct nt_idmap *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

/* ---- caches --------------------------------------------------------------------------------- */

const struct nt_meta *nt_meta_find(struct nt_parser *p, uint32_t id)
{
	uint32_t slot;

	if (p->last_meta && p->last_meta_id == id)
		return p->last_meta;
	slot = nt_idmap__find(&p->meta_map, id);
	if (!slot)
		return NULL;
	p->last_meta_id = id;
	p->last_meta = p->metas[slot - 1];
	return p->last_meta;
}

int nt_meta_add(struct nt_parser *p, const struct nt_meta *m)
{
	uint32_t slot = nt_idmap__find(&p->meta_map, m->id);
	struct nt_meta *copy = t2f_arena__alloc(p->meta_arena, sizeof(*copy));

	if (!copy)
		return -ENOMEM;
	*copy = *m;
	p->last_meta = NULL;
	p->st.metadata++;
	if (slot) {
		p->metas[slot - 1] = copy;
		return 0;
	}
	if (t2f_grow32((void **)&p->metas, &p->cap_meta, p->n_meta, sizeof(*p->metas), 64))
		return -ENOMEM;
	p->metas[p->n_meta++] = copy;
	return nt_idmap__put(&p->meta_map, m->id, p->n_meta);
}

/* Forgets the ids; the records themselves stay (events delivered earlier may point at them). */
void nt_meta_flush(struct nt_parser *p)
{
	nt_idmap__clear(&p->meta_map);
	p->n_meta = 0;
	p->last_meta = NULL;
}

int nt_threads_flush(struct nt_parser *p)
{
	struct t2f_arena *a;
	int err = t2f_arena__new(&a);

	if (err)
		return err;
	t2f_arena__free(p->thread_arena);
	p->thread_arena = a;
	nt_idmap__clear(&p->thread_map);
	p->n_threads = 0;
	return 0;
}

void nt_stacks_flush(struct nt_parser *p)
{
	p->n_ips = 0;
	p->n_stacks = 0;
	p->stack_base = 0;
}

int nt_deliver_trace(struct nt_parser *p)
{
	p->have_trace = true;
	return p->sink.trace ? p->sink.trace(p->sink.ctx, &p->trace) : 0;
}

/* ---- detection ------------------------------------------------------------------------------ */

static bool is_netperf(const uint8_t *b, size_t len)
{
	size_t n = len < 4 + NT_FS_LEN ? len : 4 + NT_FS_LEN;
	uint8_t want[4 + NT_FS_LEN] = { NT_FS_LEN, 0, 0, 0 };

	memcpy(want + 4, nt_fs_sig, NT_FS_LEN);
	return memcmp(b, want, n) == 0;
}

bool nt_detect(const uint8_t *head, size_t len)
{
	if (len >= 8 && memcmp(head, nt_magic, 8) == 0)
		return true;
	return len >= 4 + NT_FS_LEN && is_netperf(head, len);
}

/* "Nettrace" + u32 0 + u32 major + u32 minor (20 bytes; the spec's "16 bytes total" counts
 * one field short), or "Nettrace" + int32 20 + "!FastSerialization.1".
 * Returns 0 with *need set (> avail: wait), or an error. */
static int detect_need(struct nt_parser *p, const uint8_t *b, size_t avail, size_t *need)
{
	size_t n = avail < 8 ? avail : 8;

	if (memcmp(b, nt_magic, n) != 0) {
		if (is_netperf(b, avail))
			*need = 4 + NT_FS_LEN;
		else
			return t2f_diag__error(p->d, -T2F_ERR_FORMAT, p->name, 0,
					       "not a nettrace file (no \"Nettrace\" magic)");
		if (avail < *need)
			return 0;
		return t2f_diag__error(p->d, -T2F_ERR_FORMAT, p->name, 0,
				       "NetPerf (V3 or older) is not supported");
	}
	if (avail < 12) {
		*need = 12;
		return 0;
	}
	*need = nt_le32(b + 8) == 0 ? NT_V6_HEADER : 12 + NT_FS_LEN;
	return 0;
}

static int detect_unit(struct nt_parser *p, const uint8_t *b, size_t n)
{
	if (n == NT_V6_HEADER) {
		uint32_t major = nt_le32(b + 12);

		if (major != 6)
			return t2f_diag__error(p->d, -T2F_ERR_UNSUPPORTED, p->name, 0,
					       "nettrace major version %u is not supported (4 to 6)",
					       major);
		p->state = NT_V6;
		return 0;
	}
	if (nt_le32(b + 8) != NT_FS_LEN || memcmp(b + 12, nt_fs_sig, NT_FS_LEN) != 0)
		return t2f_diag__error(p->d, -T2F_ERR_FORMAT, p->name, 0,
				       "offset 8: expected int32 20 \"!FastSerialization.1\"");
	p->state = NT_V4;
	return 0;
}

/* ---- units ---------------------------------------------------------------------------------- */

static int unit_need(struct nt_parser *p, const uint8_t *b, size_t avail, uint64_t off,
		     size_t *need)
{
	if (avail == 0) {
		*need = 1;
		return 0;
	}
	switch (p->state) {
	case NT_DETECT:
		return detect_need(p, b, avail, need);
	case NT_V4:
		return nt_v4_need(p, b, avail, off, need);
	case NT_V6:
		return nt_v6_need(p, b, avail, off, need);
	default:
		*need = avail;
		return 0;
	}
}

static int unit_parse(struct nt_parser *p, const uint8_t *b, size_t n, uint64_t off)
{
	switch (p->state) {
	case NT_DETECT:
		return detect_unit(p, b, n);
	case NT_V4:
		return nt_v4_object(p, b, n, off);
	case NT_V6:
		return nt_v6_block(p, b, n, off);
	default:
		return 0;
	}
}

static int buf_append(struct nt_parser *p, const uint8_t *data, size_t n)
{
	int err = t2f_grow((void **)&p->buf, &p->cap, p->len, n, 1, 4096, SIZE_MAX);

	if (err)
		return err;
	memcpy(p->buf + p->len, data, n);
	p->len += n;
	return 0;
}

/* Bytes after the end tag / EndOfStream are ignored: counted over every feed, and named in one
 * warning by finish() (how the file was cut into chunks does not change the message). */
static int trailing(struct nt_parser *p, size_t len)
{
	p->trailing += len;
	return 0;
}

/* Completes the buffered unit with bytes of data; returns how many it took, or an error. */
static int fill_buffered(struct nt_parser *p, const uint8_t *data, size_t len, size_t *took)
{
	size_t need;
	int err;

	*took = 0;
	for (;;) {
		err = unit_need(p, p->buf, p->len, p->off, &need);
		if (err)
			return err;
		if (need <= p->len)
			break;
		if (*took == len)
			return 0;
		size_t n = need - p->len < len - *took ? need - p->len : len - *took;
		err = buf_append(p, data + *took, n);
		if (err)
			return err;
		*took += n;
	}
	err = unit_parse(p, p->buf, need, p->off);
	p->off += need;
	p->len = 0;
	return err;
}

static int feed(struct nt_parser *p, const uint8_t *data, size_t len)
{
	size_t need, took;
	int err;

	if (p->len) {
		err = fill_buffered(p, data, len, &took);
		if (err || p->len)
			return err;
		data += took;
		len -= took;
	}
	while (len) {
		if (p->state == NT_DONE)
			return trailing(p, len);
		err = unit_need(p, data, len, p->off, &need);
		if (err)
			return err;
		if (need > len)
			return buf_append(p, data, len);
		err = unit_parse(p, data, need, p->off);
		if (err)
			return err;
		p->off += need;
		data += need;
		len -= need;
	}
	return 0;
}

int nt_parser__feed(struct nt_parser *p, const uint8_t *data, size_t len)
{
	int err;

	if (p->state == NT_FAILED)
		return p->err;
	if (p->state == NT_DONE)
		return trailing(p, len);
	err = feed(p, data, len);
	if (err) {
		p->state = NT_FAILED;
		p->err = err;
	}
	return err;
}

/* ---- end of input --------------------------------------------------------------------------- */

static int finish(struct nt_parser *p)
{
	size_t need = 0;
	int err;

	if (p->state == NT_DONE)
		return p->trailing ? nt_warn(p, p->off, "%llu byte%s after the end of the trace ignored",
					     (unsigned long long)p->trailing, t2f_plural(p->trailing))
				   : 0;
	if (p->state == NT_DETECT)
		return t2f_diag__error(p->d, -T2F_ERR_FORMAT, p->name, 0,
				       "%s", p->len ? "too short for a nettrace header"
						    : "empty file");
	if (!p->have_trace)
		return nt_fail0(p, p->off, "the file ends before the Trace object");
	p->st.truncated = true;
	p->st.truncated_at = p->off;
	if (!p->len)
		return nt_warn0(p, p->off, "the file ends without an end-of-stream mark; "
					       "every event before it is kept");
	err = unit_need(p, p->buf, p->len, p->off, &need);
	if (!err)
		err = p->state == NT_V4 ? nt_v4_partial(p, p->buf, p->len, p->off)
					: nt_v6_partial(p, p->buf, p->len, p->off);
	if (err)
		return err;
	return nt_warn(p, p->off, "the file ends inside a block (%zu of %zu bytes); the events "
				 "of its complete rows and of every block before it are kept",
		       p->len, need);
}

int nt_parser__finish(struct nt_parser *p)
{
	int err;

	if (p->state == NT_FAILED)
		return p->err;
	err = finish(p);
	if (err) {
		p->state = NT_FAILED;
		p->err = err;
	}
	return err;
}

/* ---- life cycle ----------------------------------------------------------------------------- */

int nt_parser__new(const char *name, struct t2f_diag *d, const struct nt_sink *sink,
		   struct nt_parser **out)
{
	struct nt_parser *p = calloc(1, sizeof(*p));

	*out = NULL;
	if (!p)
		return -ENOMEM;
	p->name = strdup(name ? name : "<input>");
	p->d = d;
	p->sink = *sink;
	p->trace.pid = -1;
	if (!p->name || t2f_arena__new(&p->meta_arena) || t2f_arena__new(&p->thread_arena)) {
		nt_parser__free(p);
		return -ENOMEM;
	}
	*out = p;
	return 0;
}

void nt_parser__free(struct nt_parser *p)
{
	if (!p)
		return;
	free(p->name);
	free(p->buf);
	t2f_arena__free(p->meta_arena);
	free(p->metas);
	nt_idmap__release(&p->meta_map);
	free(p->ips);
	free(p->stacks);
	t2f_arena__free(p->thread_arena);
	free(p->threads);
	nt_idmap__release(&p->thread_map);
	free(p->scratch);
	free(p);
}

const struct nt_stats *nt_parser__stats(const struct nt_parser *p)
{
	return &p->st;
}
