/* symbolizer/elf_internal.h: what elf_module.c, elf_section.c, elf_notes.c, elf_symtab.c,
 * elf_plt.c, elf_index.c, elf_index_build.c and elf_a2l.c share. Not installed, not included
 * outside symbolizer/elf_*.c.
 *
 * Layout of a loaded module:
 * - `elf` is the file opened with ELF_C_READ_MMAP and then ELF_C_FDREAD: libelf holds the
 *   mapping (or a full copy when mmap failed) and no file descriptor;
 * - each symbol table is a view of memory-format Elf32_Sym/Elf64_Sym records plus its string
 *   table, both owned by libelf (or by the table when we decoded a compressed section);
 * - the lookup index is entries sorted by address: ents[] (the fixed-up st_value, end, name,
 *   table, st_info), covers[] (the enclosing entry), plus a bucket table narrowing the search
 *   (elf_index.c, built by elf_index_build.c);
 * - PLT stub names ("memcpy@plt", elf_plt.c) live in plt, outside the index: made on the first
 *   lookup that misses the index inside the stubs' address range, freed with the index.
 */
#ifndef T2F_ELF_INTERNAL_H
#define T2F_ELF_INTERNAL_H

#include <errno.h>
#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "formats/diag.h"
#include "symbolizer/elf_module.h"

#ifndef SHT_SUNW_LDYNSYM
#define SHT_SUNW_LDYNSYM 0x6ffffff3u  /* glibc's elf.h does not name it */
#endif

#define T2F_ELF_MAX_TABLES 8              /* symbol tables per module (real files have 1-2) */
#define T2F_ELF_MAX_SYMS (1u << 28)       /* symbols per table (6 GiB of Elf64_Sym) */
#define T2F_ELF_NOTE_MAX (64u << 10)      /* a note section/segment larger than this is refused */
#define T2F_ELF_DECODE_MAX (256u << 20)   /* decompressed section or MiniDebugInfo image */
#define T2F_ELF_NONE UINT32_MAX
#define T2F_ELF_PLT_BLIND 4                 /* .plt, .plt.sec, .plt.got, .iplt */

struct t2f_elf_table {
	const char *name;           /* section name; owned (name_buf) for MiniDebugInfo tables */
	char *name_buf;
	const unsigned char *syms;  /* count memory-format Elf32_Sym or Elf64_Sym records */
	size_t count;
	const char *strs;           /* string table; strs[str_size - 1] == '\0' */
	size_t str_size;
	bool is64;
	bool dynamic;               /* .dynsym or .SUNW_ldynsym (not .symtab) */
	bool mini;                  /* inside .gnu_debugdata */
	size_t shndx;               /* its section index (in the MiniDebugInfo image when mini) */
	void *own_syms, *own_strs;  /* buffers we decoded (compressed sections), freed with us */
};

struct t2f_elf_ent {            /* one index entry (24 bytes) */
	uint64_t start;             /* the fixed-up st_value */
	uint64_t end;               /* start + size (saturated); == start for a sizeless symbol */
	uint32_t name;              /* st_name in tables[table] */
	uint8_t table, info;        /* index in tables[], st_info */
	bool covered;               /* covers[i] names an entry (is not T2F_ELF_NONE) */
};

/* The PLT stubs named after their relocation's symbol (elf_plt.c). */
struct t2f_elf_plt_ent {
	uint64_t addr;              /* the stub's address */
	uint32_t name;              /* offset of "SYMBOL@plt" in names */
};
struct t2f_elf_plt {
	int state;                  /* 0 not looked at, PLT_RANGE the range known, PLT_NAMED built,
				     * PLT_NONE nothing to name (elf_plt.c) */
	uint64_t lo, hi;            /* the stubs' address range, once known */
	struct t2f_elf_plt_ent *ents;  /* by address; n of them */
	size_t n;
	char *names;                /* NUL-terminated names, back to back */
	uint32_t stub_size;         /* bytes each stub covers (16) */
	const char *section;        /* ".plt" or ".plt.sec" (static) */
};

/* perf's symbol tree (elf_perf_tree.c): nodes by index, NONE for none. */
struct t2f_elf_pnode {
	uint64_t start, end;        /* perf's symbol->start, ->end */
	uint32_t left, right, parent;
	uint32_t sym;               /* the caller's payload */
	bool red;
};
struct t2f_elf_ptree {
	struct t2f_elf_pnode *nodes;
	size_t n, cap;
	uint32_t root;              /* T2F_ELF_NONE when empty */
};
/* perf's tree as a sorted array (elf_perf_flat.c). */
struct t2f_elf_pflat_ent {
	uint64_t start, end;        /* as the tree's nodes */
	uint64_t reach;             /* the highest end of the entries before it */
	uint32_t sym;               /* the caller's payload */
};
struct t2f_elf_pflat {
	struct t2f_elf_pflat_ent *ents;
	size_t n, cap;
	size_t shared;              /* entries where an earlier one may hold an address too */
	uint32_t *erased;           /* the payloads __fixup_duplicate dropped, in its order */
	size_t n_erased, cap_erased;
};
struct t2f_elf_pinfo {          /* what a perf tree node names (8 bytes) */
	uint32_t name;              /* st_name in tables[table], or with table T2F_ELF_PINFO_PLT
				     * the offset of "SYMBOL@plt" in the PLT names (elf_perf_rules.c
				     * t2f_elf_pinfo__name) */
	uint8_t table;              /* index in tables[], or T2F_ELF_PINFO_PLT */
	uint8_t info;               /* st_info */
};
#define T2F_ELF_PINFO_PLT UINT8_MAX

struct t2f_elf_module {
	char *path;
	struct t2f_diag *diag;      /* may be NULL: then messages are dropped */
	Elf *elf;
	uint64_t file_size;
	bool is64, big_endian;
	uint16_t machine, type;
	uint64_t entry;          /* e_entry */
	uint32_t flags;             /* e_flags */

	uint8_t build_id[T2F_BUILD_ID_MAX];
	size_t build_id_len;
	char *debuglink;            /* NULL: none or refused */
	uint32_t debuglink_crc;
	struct t2f_elf_load *loads;
	size_t n_loads;

	/* decompression: what this module decoded, the budget it shares (elf_budget.c) */
	struct t2f_decode_budget *budget;  /* NULL: the default per-module limit only */
	uint64_t decoded;
	bool over_budget;           /* refused: a section would pass a limit (warned) */

	/* symbol tables: loaded on first use (tables_state 0 not yet, 1 loaded, <0 the error) */
	int tables_state;
	bool tables_held;           /* an index was built from them since their pages were given
				     * back (elf_pages.c) */
	bool tables_mapped;         /* their pages were found in libelf's read-only mapping of the
				     * file (elf_pages.c): given back again without looking */
	int8_t debug_info;          /* __has_debug_info: 0 not looked at, 1 yes, -1 no */
	struct t2f_elf_table tables[T2F_ELF_MAX_TABLES];
	unsigned n_tables;
	Elf *mini_elf;              /* the MiniDebugInfo image, elf_memory() over mini_buf */
	void *mini_buf;
	const unsigned char *opd;   /* ppc64 ELFv1 .opd bytes (file byte order), or NULL */
	uint64_t opd_addr, opd_size;

	/* lookup index: built on the first lookup (index_state as tables_state) */
	bool perf_rules;            /* choose symbols as perf does (elf_index.c, elf_perf_rules.c) */
	struct t2f_elf_module *plt_from;  /* perf rules: the file whose PLT stubs join the tree
					   * (the binary of a debug file), else NULL: this one */
	struct t2f_elf_pflat pflat;       /* perf rules: the lookups' array (elf_perf_flat.c) */
	struct t2f_elf_ptree ptree;       /* perf rules: perf's tree, built only for the lookups
					   * the array leaves to it (elf_perf_tree.c) */
	bool ptree_built;
	uint64_t plt_blind[T2F_ELF_PLT_BLIND][2]; /* perf rules, a debug file without its binary:
					   * its PLT sections' [lo, hi) (NOBITS here), left unnamed */
	size_t n_plt_blind;
	struct t2f_elf_pinfo *pinfo;      /* by node payload */
	int index_state;
	struct t2f_elf_ent *ents;   /* one block holds ents, covers and buckets */
	uint32_t *covers;           /* nearest earlier entry whose range holds ents[i].start, or
				     * NONE */
	size_t n_ents;
	uint32_t *buckets;          /* first entry of each 2^bucket_shift-byte bucket from
				     * ents[0].start */
	size_t n_buckets;
	unsigned bucket_shift;
	struct t2f_elf_plt plt;     /* the index's PLT names (ents freed once it is built) */
	struct t2f_elf_a2l *a2l;    /* __lookup_a2l's index (elf_a2l.c), made on its first call */
};

/* One symbol record, whatever the class. */
struct t2f_elf_rawsym {
	uint64_t value, size;
	uint32_t name;
	uint16_t shndx;
	unsigned char info;
	unsigned char other;        /* st_other (visibility) */
};

static inline void t2f_elf_table__sym(const struct t2f_elf_table *t, size_t i,
				      struct t2f_elf_rawsym *s)
{
	if (t->is64) {
		Elf64_Sym e;

		memcpy(&e, t->syms + i * sizeof(e), sizeof(e));  /* the records may be unaligned */
		s->value = e.st_value;
		s->size = e.st_size;
		s->name = e.st_name;
		s->shndx = e.st_shndx;
		s->info = e.st_info;
		s->other = e.st_other;
	} else {
		Elf32_Sym e;

		memcpy(&e, t->syms + i * sizeof(e), sizeof(e));
		s->value = e.st_value;
		s->size = e.st_size;
		s->name = e.st_name;
		s->shndx = e.st_shndx;
		s->info = e.st_info;
		s->other = e.st_other;
	}
}

/* The symbol's name; readelf prints "<corrupt>" for an offset outside the string table. */
static inline const char *t2f_elf_table__name(const struct t2f_elf_table *t, uint32_t off)
{
	return off < t->str_size ? t->strs + off : "<corrupt>";
}

/* FUNC or GNU_IFUNC, defined (not UNDEF/ABS/COMMON), value != 0. */
static inline bool t2f_elf_rawsym__kept(const struct t2f_elf_rawsym *s)
{
	unsigned type = GELF_ST_TYPE(s->info);

	return (type == STT_FUNC || type == STT_GNU_IFUNC) && s->value != 0 &&
	       s->shndx != SHN_UNDEF && s->shndx != SHN_ABS && s->shndx != SHN_COMMON;
}

static inline uint32_t t2f_elf_rd32(const unsigned char *p, bool big_endian)
{
	if (big_endian)
		return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static inline uint64_t t2f_elf_rd64(const unsigned char *p, bool big_endian)
{
	uint64_t hi = t2f_elf_rd32(p + (big_endian ? 0 : 4), big_endian);

	return hi << 32 | t2f_elf_rd32(p + (big_endian ? 4 : 0), big_endian);
}

/* Messages naming the module's file. T2F_ELF_WARN's format must be a string literal (the diag
 * rate-limits by it); it returns 0, or the diag's strict-mode error. */
#define T2F_ELF_WARN(m, ...) \
	((m)->diag ? t2f_diag__warn((m)->diag, (m)->path, 0, __VA_ARGS__) : 0)
/* A skipped part (one table, one section): the diag's strict-mode error when warning returned
 * one, else err. Callers treat -ENOMEM and -T2F_ERR_FORMAT as fatal, anything else as "skip". */
static inline int t2f_elf__skip(int warned, int err)
{
	return warned ? warned : err;
}
static inline bool t2f_elf__fatal(int err)
{
	return err == -ENOMEM || err == -T2F_ERR_FORMAT;
}
int t2f_elf__fail(const struct t2f_elf_module *m, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* elf_section.c: a section's bytes, checked against the image size (file, or MiniDebugInfo). */
struct t2f_elf_image {
	Elf *elf;
	uint64_t size;
	const char *prefix;         /* "" for the file, ".gnu_debugdata:" for MiniDebugInfo */
};
/* Whether [off, off + len) lies inside an image of `size` bytes. */
static inline bool t2f_elf_in_image(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}
/* The section's name, or NULL (warned) when the header or its name is unreadable. */
/* Whether section sh, named name (NULL: unreadable), is a .debug_info or .zdebug_info with
 * contents (elf_module.h __has_debug_info). */
bool t2f_elf_section__is_debug_info(const GElf_Shdr *sh, const char *name);
const char *t2f_elf_section__name(struct t2f_elf_module *m, const struct t2f_elf_image *im,
				  const GElf_Shdr *sh);
/* The section's data as `type` (ELF_T_SYM: memory-format records; ELF_T_BYTE: raw bytes),
 * decompressed when SHF_COMPRESSED (zlib through libelf, zstd through libzstd, at most
 * T2F_ELF_DECODE_MAX bytes, counted against the module's limits first). *own receives a buffer
 * to free with the table, or NULL. 0, or -T2F_ERR_ELF / -T2F_ERR_DECOMPRESS / -T2F_ERR_LIMIT /
 * -ENOMEM (warned: the caller skips the section; m->over_budget: refuses the module). */
int t2f_elf_section__data(struct t2f_elf_module *m, const struct t2f_elf_image *im,
			  Elf_Scn *scn, const GElf_Shdr *sh, Elf_Type type,
			  const void **buf, size_t *size, void **own);
/* Decodes the xz stream of .gnu_debugdata into *out (malloc'd, at most T2F_ELF_DECODE_MAX and
 * what the module may still decode, then counted). 0 or a negative error (warned) as above. */
int t2f_elf_xz_decode(struct t2f_elf_module *m, const void *in, size_t in_size,
		      void **out, size_t *out_size);

/* elf_budget.c: what m may still decode (the least of its own and its run's remainders). */
uint64_t t2f_elf_module__decode_left(const struct t2f_elf_module *m);
/* Counts n decoded bytes of section prefix+name (n + 1 and "more than n" unless exact) against
 * m's limits, before decoding them: 0, or -T2F_ERR_LIMIT with m->over_budget set and a warning
 * naming the section, the bytes and the limit passed (strict mode: the warning's error). */
int t2f_elf_module__charge(struct t2f_elf_module *m, const char *prefix, const char *name,
			   uint64_t n, bool exact);

/* elf_module.c: NULL when the section and program headers of an image of `size` bytes lie
 * inside it (and the section name table index is valid), else what is wrong. */
const char *t2f_elf_headers_problem(Elf *e, uint64_t size);

/* elf_pages.c: t2f_elf_modules__release_tables for m alone. */
void t2f_elf_module__release_tables(struct t2f_elf_module *m);

/* elf_notes.c */
int t2f_elf_module__read_loads(struct t2f_elf_module *m);
int t2f_elf_module__read_build_id(struct t2f_elf_module *m);
int t2f_elf_module__read_debuglink(struct t2f_elf_module *m);

/* elf_symtab.c: loads every table once; 0 or the (sticky) error. */
int t2f_elf_module__load_tables(struct t2f_elf_module *m);
void t2f_elf_module__free_tables(struct t2f_elf_module *m);

/* elf_plt.c: the PLT stub holding elf_vaddr (x86-64, i386, aarch64; other machines: none),
 * for a lookup the symbol tables missed: 1 and *out ("SYMBOL@plt", table ".plt" or ".plt.sec",
 * value and size of the stub), 0 when none. The stubs' range is read from the section headers
 * on the first call; the names are made when an address first falls in it (the relocations'
 * symbols come from the loaded .dynsym). A corrupt relocation section (entry size, bounds,
 * link, symbol index or name out of range) is warned about once and leaves the stubs unnamed.
 * 0, 1, or -ENOMEM. */
int t2f_elf_plt__lookup(struct t2f_elf_module *m, uint64_t elf_vaddr, struct t2f_elf_sym *out);
void t2f_elf_plt__free(struct t2f_elf_plt *p);  /* empties *p; an empty one is fine */

/* elf_index.c */
void t2f_elf_module__free_index(struct t2f_elf_module *m);

/* elf_a2l.c: frees __lookup_a2l's index (NULL is fine). */
void t2f_elf_a2l__free(struct t2f_elf_a2l *x);

/* elf_index_build.c: the lookup address of a kept symbol's value (the arch fix-ups). */
uint64_t t2f_elf_fixed_value(const struct t2f_elf_module *m, uint64_t v);
/* Whether table t joins the index (or perf's tree): not a .dynsym-like table beside a .symtab
 * that lists its symbols (elf_index.c). */
bool t2f_elf_table_indexed(const struct t2f_elf_module *m, const struct t2f_elf_table *t);
/* Builds m->ents, covers and buckets from the loaded tables (not under perf's rules).
 * 0 or -ENOMEM (the caller frees what was built). */
int t2f_elf_index_build(struct t2f_elf_module *m);

/* elf_perf_tree.c: insertion (equal starts go right); the walk (true and the node's payload
 * and range); freeing. Insertion: 0 or -ENOMEM. perf's symbols__fixup_end and
 * symbols__fixup_duplicate are done on the sorted array (elf_perf_flat.c), which replays the
 * erasures on a tree when one is built. `first` tells whether the earlier of two symbols at one
 * start wins (perf's choose_best_symbol), sizes as the tree has them. */
typedef bool (*t2f_elf_ptree_first_cb)(void *ctx, uint32_t a, uint64_t a_size, uint32_t b,
				       uint64_t b_size);
int t2f_elf_ptree__insert(struct t2f_elf_ptree *t, uint64_t start, uint64_t end, uint32_t sym);
/* Room for exactly cap nodes (never fewer than it holds), so that a tree whose size is known
 * keeps no slack: 0 or -ENOMEM. */
int t2f_elf_ptree__reserve(struct t2f_elf_ptree *t, size_t cap);
bool t2f_elf_ptree__find(const struct t2f_elf_ptree *t, uint64_t ip, uint32_t *sym,
			 uint64_t *start, uint64_t *end);
/* The addresses [*lo, *last] whose walk takes the path ip's takes (to the same node, or to none):
 * every one of them is answered as ip is. */
void t2f_elf_ptree__span(const struct t2f_elf_ptree *t, uint64_t ip, uint64_t *lo,
			 uint64_t *last);
/* Erases node z (lib/rbtree.c's erasure), as symbols__fixup_duplicate does. */
void t2f_elf_ptree__erase(struct t2f_elf_ptree *t, uint32_t z);
void t2f_elf_ptree__free(struct t2f_elf_ptree *t);

/* elf_plt.c: builds the module's PLT names now; *out the stubs (possibly none). 0 or -ENOMEM. */
int t2f_elf_plt__all(struct t2f_elf_module *m, const struct t2f_elf_plt **out);
/* elf_plt.c: the [lo, hi) ranges of m's PLT sections (.plt, .plt.sec, .plt.got, .iplt) that
 * hold no bytes in this file (NOBITS: a separate debug file), at most max; their count. */
size_t t2f_elf_plt__blind_ranges(struct t2f_elf_module *m, uint64_t (*r)[2], size_t max);

/* elf_perf_flat.c: the tree's in-order sequence as an array. __add appends (0 or -ENOMEM);
 * __order sorts the added entries stably by start (0 or -ENOMEM); the fix-ups are the tree's;
 * __finish sorts again (entries added after the fix-ups: the PLT stubs) and notes how far the
 * entries before each reach (0 or -ENOMEM). __find: 1 and the node the tree's walk finds, 0
 * when it finds none, -1 when the answer depends on the tree's shape (ask the tree).
 * __fixup_duplicate notes what it drops (erased), __tree rebuilds the tree from that: t holds
 * the n symbols inserted in the same order (node i the payload i), and gets the ends the
 * fix-up gave them and the same erasures in the same order, so it has the shape perf's tree
 * has after both fix-ups, without walking it. 0 or -ENOMEM (__fixup_duplicate: then nothing
 * is dropped). */
int t2f_elf_pflat__add(struct t2f_elf_pflat *f, uint64_t start, uint64_t end, uint32_t sym);
int t2f_elf_pflat__order(struct t2f_elf_pflat *f);
void t2f_elf_pflat__fixup_end(struct t2f_elf_pflat *f);
int t2f_elf_pflat__fixup_duplicate(struct t2f_elf_pflat *f, t2f_elf_ptree_first_cb first,
				   void *ctx);
void t2f_elf_pflat__tree(const struct t2f_elf_pflat *f, struct t2f_elf_ptree *t, size_t n);
int t2f_elf_pflat__finish(struct t2f_elf_pflat *f);
int t2f_elf_pflat__find(const struct t2f_elf_pflat *f, uint64_t ip, uint32_t *sym,
			uint64_t *start, uint64_t *end);
/* For an ip __find answered (0 or 1, not -1): the addresses [*lo, *last] around it that __find
 * answers alike (the same entry, or none). */
void t2f_elf_pflat__span(const struct t2f_elf_pflat *f, uint64_t ip, uint64_t *lo,
			 uint64_t *last);
void t2f_elf_pflat__free(struct t2f_elf_pflat *f);

/* elf_perf_rules.c: the raw name and the table name of perf's tree payload i (m->pinfo[i]):
 * a string of its table ("<corrupt>" for an offset outside it), or of the PLT names of the
 * module the stubs come from (m->plt_from, else m). */
const char *t2f_elf_pinfo__name(const struct t2f_elf_module *m, uint32_t i);
const char *t2f_elf_pinfo__table(const struct t2f_elf_module *m, uint32_t i);
/* elf_perf_rank.c: what perf's choice among symbols at one start compares of their names, as
 * perf demangles them (saturated). */
struct t2f_elf_name_rank {
	uint32_t len;               /* its length */
	uint32_t under : 31;        /* its leading '_' */
	uint32_t sys : 1;           /* it begins "SyS" or "compat_SyS" */
};
/* Whether a name ranked a wins over one ranked b (a earlier in perf's tree). */
bool t2f_elf_name_rank__first(const struct t2f_elf_name_rank *a,
			      const struct t2f_elf_name_rank *b);
/* The ranks of the names of m->pflat's entries at a shared start, by payload (*out: n of them,
 * malloc'd; the others undefined), read a window of each string table at a time, its pages
 * given back after each window when the table is larger than one. 0 or -ENOMEM. */
int t2f_elf_perf_rank_names(struct t2f_elf_module *m, size_t n, struct t2f_elf_name_rank **out);
/* elf_perf_rules.c: m->ptree holds the n kept symbols (inserted in table order, m->pinfo[0..n)
 * naming them): perf's end fix-up and choice among symbols at one start, as m->pflat made them
 * (t2f_elf_pflat__tree), then the PLT stubs. 0 or -ENOMEM. */
int t2f_elf_perf_tree_finish(struct t2f_elf_module *m, size_t n);
/* elf_perf_rules.c: the fix-ups and the PLT stubs on m->pflat (its n entries added in table
 * order). 0 or -ENOMEM. */
int t2f_elf_perf_flat_finish(struct t2f_elf_module *m, size_t n);
/* elf_perf_rules.c: ok[i] (n = the table's image's section count) is 1 when section i may hold
 * a label perf keeps (its name contains "text" or "data"); ok is malloc'd (NULL, n 0 when the
 * image has no sections). 0 or -ENOMEM. */
int t2f_elf_label_sections(struct t2f_elf_module *m, const struct t2f_elf_table *t,
			   uint8_t **ok, size_t *n);
/* Whether perf keeps the symbol: a named, defined function, object, or label in a section ok[]
 * marks (ABS, COMMON and value 0 left out). */
bool t2f_elf_perf_kept(const struct t2f_elf_rawsym *s, const uint8_t *label_ok, size_t n);

#endif
