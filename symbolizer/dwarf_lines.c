/* symbolizer/dwarf_lines.c: what a unit's line table will cost before libdw reads it.
 *
 * libdw reads a line table whole, the first time anything of the unit's files or lines is asked
 * for: it joins every relative file name to its directory in memory of its own (50,000 names of
 * a 64 KiB directory are 3.3 GB) and makes every row of the programs (about 170 bytes each
 * while it reads them, 56 kept), with no limit, and it ends the process when memory runs out.
 * So the header is read here first (DWARF 2-5: directories, files and the forms of their
 * entries) and the programs' opcodes are counted, bounds checked at every byte; a table over the
 * unit's or the file's limits (dwarf.h) is never handed to libdw. The layout is the DWARF 5
 * standard's, section 6.2.
 */
#include "symbolizer/dwarf_internal.h"

#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats/grow.h"
#include "formats/hashmap.h"

struct rd {                      /* bytes being read: p up to end */
	const uint8_t *p, *end;
	bool bad;                    /* read past end, or a value out of range */
};

static uint64_t rd_fixed(struct rd *r, size_t n)
{
	uint64_t v = 0;

	if ((size_t)(r->end - r->p) < n) {
		r->bad = true;
		r->p = r->end;
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)r->p[i] << (8 * i);
	r->p += n;
	return v;
}

static uint64_t rd_uleb(struct rd *r)
{
	uint64_t v = 0;

	for (unsigned shift = 0; r->p < r->end; shift += 7) {
		uint8_t b = *r->p++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	r->bad = true;
	return 0;
}

static void rd_skip(struct rd *r, uint64_t n)
{
	if ((uint64_t)(r->end - r->p) < n) {
		r->bad = true;
		r->p = r->end;
	} else {
		r->p += n;
	}
}

/* A NUL-terminated string here: its length. */
static size_t rd_cstr(struct rd *r)
{
	const uint8_t *nul = memchr(r->p, 0, (size_t)(r->end - r->p));
	size_t len;

	if (!nul) {
		r->bad = true;
		r->p = r->end;
		return 0;
	}
	len = (size_t)(nul - r->p);
	r->p = nul + 1;
	return len;
}

/* The string at off of a string section: its length, its first byte in *first. */
static size_t str_at(struct rd *r, const uint8_t *sec, size_t size, uint64_t off, uint8_t *first)
{
	const uint8_t *nul;

	if (!sec || off >= size || !(nul = memchr(sec + off, 0, size - off))) {
		r->bad = true;
		return 0;
	}
	*first = sec[off];
	return (size_t)(nul - (sec + off));
}

struct hdr {                     /* one table's header, as far as its cost needs */
	unsigned version, offset_size;
	uint8_t opcode_base;
	const uint8_t *std_lengths;  /* opcode_base - 1 of them */
	size_t *dir_len;             /* per directory index (0: the compilation directory) */
	size_t n_dirs;
	size_t comp_len;
};

/* An entry field of form `form`: its string's length in *len and first byte in *first when it
 * is a string (else 0), its value in *val when it is a constant. false for a form libdw would
 * not take here. */
static bool field(struct rd *r, const struct dw_sections *s, const struct hdr *h, unsigned form,
		  size_t *len, uint8_t *first, uint64_t *val)
{
	*len = 0;
	*first = 0;
	*val = 0;
	switch (form) {
	case DW_FORM_string:
		*first = r->p < r->end ? *r->p : 0;
		*len = rd_cstr(r);
		return true;
	case DW_FORM_line_strp:
		*len = str_at(r, s->line_str, s->line_str_size, rd_fixed(r, h->offset_size), first);
		return true;
	case DW_FORM_strp:
		*len = str_at(r, s->str, s->str_size, rd_fixed(r, h->offset_size), first);
		return true;
	case DW_FORM_udata: *val = rd_uleb(r); return true;
	case DW_FORM_data1: *val = rd_fixed(r, 1); return true;
	case DW_FORM_data2: *val = rd_fixed(r, 2); return true;
	case DW_FORM_data4: *val = rd_fixed(r, 4); return true;
	case DW_FORM_data8: *val = rd_fixed(r, 8); return true;
	case DW_FORM_data16: rd_skip(r, 16); return true;
	case DW_FORM_sdata: rd_uleb(r); return true;
	case DW_FORM_block: rd_skip(r, rd_uleb(r)); return true;
	case DW_FORM_block1: rd_skip(r, rd_fixed(r, 1)); return true;
	case DW_FORM_block2: rd_skip(r, rd_fixed(r, 2)); return true;
	case DW_FORM_block4: rd_skip(r, rd_fixed(r, 4)); return true;
	default: return false;  /* strx, strp_sup: not taken here, whatever libdw would do */
	}
}

/* A file entry: name_len bytes in directory dir (absolute when its name starts with '/'). */
static void add_file(struct dw_line_cost *c, const struct hdr *h, size_t name_len,
		     uint64_t dir, bool absolute, struct rd *r)
{
	uint64_t len = name_len;

	if (!absolute) {
		if (dir >= h->n_dirs) {
			r->bad = true;
			return;
		}
		len += h->dir_len[dir] + 1;
	}
	c->files++;
	/* libdw's copy, and the index's own joined to the compilation directory */
	c->path_bytes += 2 * (len + 1) + h->comp_len + 1;
	if (len > c->longest)
		c->longest = len;
}

/* DWARF 2-4: the include directories, then the files. */
static int v4_tables(struct rd *r, struct hdr *h, struct dw_line_cost *c)
{
	const uint8_t *start = r->p;
	size_t n = 1;

	while (r->p < r->end && *r->p) {
		rd_cstr(r);
		n++;
	}
	rd_skip(r, 1);
	if (r->bad || !(h->dir_len = calloc(n, sizeof(*h->dir_len))))
		return r->bad ? -T2F_ERR_FORMAT : -ENOMEM;
	h->n_dirs = n;
	h->dir_len[0] = h->comp_len;
	r->p = start;
	for (size_t i = 1; i < n; i++)
		h->dir_len[i] = rd_cstr(r);
	rd_skip(r, 1);
	while (!r->bad && r->p < r->end && *r->p) {
		bool absolute = *r->p == '/';
		size_t len = rd_cstr(r);
		uint64_t dir = rd_uleb(r);

		rd_uleb(r);
		rd_uleb(r);
		add_file(c, h, len, dir, absolute, r);
	}
	rd_skip(r, 1);
	return r->bad ? -T2F_ERR_FORMAT : 0;
}

/* DWARF 5: an entry format (pairs of content type and form), in forms[0..*n). */
static void v5_format(struct rd *r, uint64_t forms[][2], unsigned *n)
{
	*n = (unsigned)rd_fixed(r, 1);
	for (unsigned i = 0; i < *n && !r->bad; i++) {
		forms[i][0] = rd_uleb(r);
		forms[i][1] = rd_uleb(r);
	}
}

/* DWARF 5: one entry: its path's length, whether it is absolute, its directory index. */
static void v5_entry(struct rd *r, const struct dw_sections *s, const struct hdr *h,
		     uint64_t forms[][2], unsigned n, size_t *len, bool *absolute, uint64_t *dir)
{
	*len = 0;
	*absolute = false;
	*dir = 0;
	for (unsigned k = 0; k < n && !r->bad; k++) {
		size_t l;
		uint8_t first;
		uint64_t v;

		if (!field(r, s, h, (unsigned)forms[k][1], &l, &first, &v)) {
			r->bad = true;
		} else if (forms[k][0] == DW_LNCT_path) {
			*len = l;
			*absolute = first == '/';
		} else if (forms[k][0] == DW_LNCT_directory_index) {
			*dir = v;
		}
	}
}

static int v5_tables(struct rd *r, const struct dw_sections *s, struct hdr *h,
		     struct dw_line_cost *c)
{
	uint64_t forms[256][2], count;
	unsigned n;
	size_t len;
	bool absolute;
	uint64_t dir;

	v5_format(r, forms, &n);
	count = rd_uleb(r);
	/* at least one byte an entry: a count past the table's end is a lie */
	if (r->bad || count > (uint64_t)(r->end - r->p) || (count && !n))
		return -T2F_ERR_FORMAT;
	if (!(h->dir_len = calloc(count + 1, sizeof(*h->dir_len))))
		return -ENOMEM;
	h->n_dirs = count;
	for (uint64_t i = 0; i < count && !r->bad; i++) {
		v5_entry(r, s, h, forms, n, &len, &absolute, &dir);
		h->dir_len[i] = len;
	}
	v5_format(r, forms, &n);
	count = rd_uleb(r);
	if (r->bad || count > (uint64_t)(r->end - r->p) || (count && !n))
		return -T2F_ERR_FORMAT;
	for (uint64_t i = 0; i < count && !r->bad; i++) {
		v5_entry(r, s, h, forms, n, &len, &absolute, &dir);
		add_file(c, h, len, dir, absolute, r);
	}
	return r->bad ? -T2F_ERR_FORMAT : 0;
}

/* The programs: rows made (special opcodes, DW_LNS_copy, DW_LNE_end_sequence) and files
 * defined (DW_LNE_define_file). */
static void count_rows(struct rd *r, const struct hdr *h, struct dw_line_cost *c)
{
	while (r->p < r->end && !r->bad) {
		uint8_t op = *r->p++;

		if (op >= h->opcode_base) {
			c->rows++;
		} else if (op == 0) {
			uint64_t len = rd_uleb(r);
			const uint8_t *next = r->p + (len < (uint64_t)(r->end - r->p) ? len : 0);

			if (!len || len > (uint64_t)(r->end - r->p)) {
				r->bad = true;
				break;
			}
			if (*r->p == DW_LNE_end_sequence) {
				c->rows++;
			} else if (*r->p == DW_LNE_define_file && h->version < 5) {
				struct rd e = { .p = r->p + 1, .end = next };
				bool absolute = e.p < e.end && *e.p == '/';
				size_t name = rd_cstr(&e);

				add_file(c, h, name, rd_uleb(&e), absolute, r);
			}
			r->p = next;
		} else if (op == DW_LNS_copy) {
			c->rows++;
		} else if (op == DW_LNS_fixed_advance_pc) {
			rd_skip(r, 2);
		} else {
			for (uint8_t i = 0; i < h->std_lengths[op - 1]; i++)
				rd_uleb(r);
		}
	}
}

static int read_header(struct rd *r, struct hdr *h, const uint8_t **program)
{
	uint64_t len = rd_fixed(r, 4), header_len;

	h->offset_size = 4;
	if (len == 0xffffffff) {
		h->offset_size = 8;
		len = rd_fixed(r, 8);
	} else if (len >= 0xfffffff0) {
		return -T2F_ERR_FORMAT;
	}
	if (r->bad || len > (uint64_t)(r->end - r->p))
		return -T2F_ERR_FORMAT;
	r->end = r->p + len;
	h->version = (unsigned)rd_fixed(r, 2);
	if (h->version < 2 || h->version > 5)
		return -T2F_ERR_FORMAT;
	if (h->version >= 5)
		rd_skip(r, 2); /* address size, segment selector size */
	header_len = rd_fixed(r, h->offset_size);
	if (r->bad || header_len > (uint64_t)(r->end - r->p))
		return -T2F_ERR_FORMAT;
	*program = r->p + header_len;
	rd_skip(r, h->version >= 4 ? 5 : 4); /* instruction length, ops, is_stmt, base, range */
	h->opcode_base = (uint8_t)rd_fixed(r, 1);
	h->std_lengths = r->p;
	rd_skip(r, h->opcode_base ? h->opcode_base - 1u : 0);
	return r->bad || !h->opcode_base ? -T2F_ERR_FORMAT : 0;
}

int t2f_dw_line_cost(const struct dw_sections *s, uint64_t off, size_t comp_len,
		     struct dw_line_cost *out)
{
	struct rd r = { .p = s->line, .end = s->line + s->line_size };
	struct hdr h = { .comp_len = comp_len };
	const uint8_t *program;
	int err;

	memset(out, 0, sizeof(*out));
	if (!s->line || off >= s->line_size)
		return -T2F_ERR_FORMAT;
	r.p += off;
	err = read_header(&r, &h, &program);
	if (!err)
		err = h.version < 5 ? v4_tables(&r, &h, out) : v5_tables(&r, s, &h, out);
	if (!err) {
		r.p = program;
		count_rows(&r, &h, out);
		err = r.bad ? -T2F_ERR_FORMAT : 0;
	}
	free(h.dir_len);
	return err;
}

/* ---- the limits ---- */

static const struct dw_sections *secs_of(const struct t2f_dwarf *dw, const Dwarf *dbg)
{
	return dbg == dw->dbg ? &dw->secs : dbg == dw->alt ? &dw->alt_secs : NULL;
}

struct checked_key {
	const struct t2f_dwarf *dw;
	const Dwarf *dbg;
	uint64_t offset;
};

static bool checked_eq(const void *ctx, uint32_t value)
{
	const struct checked_key *k = ctx;
	const struct dw_checked *c = &k->dw->checked[value - 1];

	return c->dbg == k->dbg && c->offset == k->offset;
}

/* The verdict on a table: whether it fits what the unit and the file have left (the totals
 * then grow), with a warning naming unit `at` when it does not. */
static bool judge(struct t2f_dwarf *dw, const struct dw_line_cost *c, int err, uint64_t at)
{
	if (err) {
		t2f_diag__warn(dw->notes, dw->path, 0, "DWARF unit at 0x%llx left out: %s",
			       (unsigned long long)at, err == -ENOMEM ? "out of memory"
			       : "its line table cannot be read");
		return false;
	}
	if (c->longest > T2F_DWARF_PATH_MAX || c->path_bytes > T2F_DWARF_UNIT_PATHS_MAX ||
	    c->rows > T2F_DWARF_UNIT_ROWS_MAX) {
		t2f_diag__warn(dw->notes, dw->path, 0, "DWARF unit at 0x%llx left out: its line "
			       "table has %llu files (%llu bytes of paths, the longest %llu) and "
			       "%llu rows, over the limits of %u bytes of paths per unit, %u per "
			       "path and %u rows per unit", (unsigned long long)at,
			       (unsigned long long)c->files, (unsigned long long)c->path_bytes,
			       (unsigned long long)c->longest, (unsigned long long)c->rows,
			       T2F_DWARF_UNIT_PATHS_MAX, T2F_DWARF_PATH_MAX, T2F_DWARF_UNIT_ROWS_MAX);
		return false;
	}
	if (c->rows > T2F_DWARF_FILE_ROWS_MAX - dw->rows ||
	    c->path_bytes > T2F_DWARF_FILE_PATHS_MAX - dw->path_bytes) {
		dw->full = true;
		t2f_diag__warn(dw->notes, dw->path, 0, "DWARF units left out from unit 0x%llx on: "
			       "the line tables read hold %llu rows and %llu bytes of paths, and "
			       "the file's limits are %u and %u", (unsigned long long)at,
			       (unsigned long long)dw->rows, (unsigned long long)dw->path_bytes,
			       T2F_DWARF_FILE_ROWS_MAX, T2F_DWARF_FILE_PATHS_MAX);
		return false;
	}
	dw->rows += c->rows;
	dw->path_bytes += c->path_bytes;
	return true;
}

/* Remembers the verdict on the table at off of dbg. 0 or -ENOMEM. */
static int remember(struct t2f_dwarf *dw, const Dwarf *dbg, uint64_t off, bool ok, uint64_t hash)
{
	int err = t2f_grow((void **)&dw->checked, &dw->cap_checked, dw->n_checked, 1,
			   sizeof(*dw->checked), 16, UINT32_MAX - 1) ?:
		  t2f_hashmap__insert(dw->memo, hash, (uint32_t)dw->n_checked + 1);

	if (!err)
		dw->checked[dw->n_checked++] = (struct dw_checked){ dbg, off, ok };
	return err;
}

/* Whether libdw may read the line table of the unit whose DIE is cu: judged once per table
 * (libdw, too, reads a table once per file, whichever units name it). */
static bool table_ok(struct t2f_dwarf *dw, Dwarf_Die *cu)
{
	Dwarf_Attribute a;
	Dwarf_Word off;
	const Dwarf *dbg = dwarf_cu_getdwarf(cu->cu);
	const struct dw_sections *s = secs_of(dw, dbg);
	struct checked_key key = { dw, dbg, 0 };
	struct dw_line_cost c;
	const char *comp;
	uint64_t hash;
	uint32_t found;
	bool ok;

	if (!dwarf_attr(cu, DW_AT_stmt_list, &a) || dwarf_formudata(&a, &off) != 0)
		return true; /* no table: libdw has nothing to read */
	if (!s || dw->full)
		return false;
	key.offset = off;
	hash = t2f_hash_u64(off ^ (uint64_t)(uintptr_t)dbg);
	found = t2f_hashmap__find(dw->memo, hash, checked_eq, &key);
	if (found)
		return dw->checked[found - 1].ok;
	comp = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &a));
	ok = judge(dw, &c, t2f_dw_line_cost(s, off, comp ? strlen(comp) : 0, &c),
		   dwarf_dieoffset(cu));
	return remember(dw, dbg, off, ok, hash) == 0 && ok;
}

bool t2f_dw_lines_fit(struct t2f_dwarf *dw, Dwarf_Die *cu)
{
	return table_ok(dw, cu);
}

bool t2f_dw_foreign_ok(struct t2f_dwarf *dw, Dwarf_CU *cu)
{
	Dwarf_Die die;

	return dwarf_cu_die(cu, &die, NULL, NULL, NULL, NULL, NULL, NULL) && table_ok(dw, &die);
}
