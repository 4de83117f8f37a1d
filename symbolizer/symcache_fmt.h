/* symbolizer/symcache_fmt.h: the layout of a symbol cache file (symcache.h), shared by the
 * reader (symcache.c), the writer (symcache_write.c) and the test generator. Native byte
 * order (the magic tells another), every section 8-byte aligned. Version 3: symbol answers and
 * inline chains per range of addresses (version 2 kept chains per address, version 1 symbol
 * answers too); a file of another version is ignored and written again.
 */
#ifndef T2F_SYMCACHE_FMT_H
#define T2F_SYMCACHE_FMT_H

#include <stdint.h>

#define T2F_SYMCACHE_MAGIC "T2FSYMC\n"
#define T2F_SYMCACHE_VERSION 3u
#define T2F_SYMCACHE_NONE UINT32_MAX  /* no string */

enum { T2F_SC_STRINGS, T2F_SC_LOADS, T2F_SC_REFUSED, T2F_SC_SYMS, T2F_SC_A2L, T2F_SC_INL,
       T2F_SC_FRAMES, T2F_SC_N };

struct t2f_sc_section {
	uint64_t off;                  /* from the file's start */
	uint64_t count;                /* elements (strings: bytes) */
};

struct t2f_sc_stat {               /* a file's identity when the cache was written */
	uint64_t size;
	int64_t mtime_sec;
	int64_t mtime_nsec;
};

struct t2f_symcache_hdr {
	char magic[8];
	uint32_t version;
	uint32_t hdr_size;             /* sizeof(struct t2f_symcache_hdr) */
	uint64_t file_size;            /* the whole cache file */
	uint8_t build_id[64];
	uint32_t build_id_len;
	uint32_t flags;                /* T2F_SC_PERF_RULES */
	uint64_t opts_hash;
	uint32_t module_path, file_path, binary_path; /* string offsets (binary: NONE) */
	uint32_t dwarf;                /* enum t2f_symcache_dwarf */
	struct t2f_sc_stat module_st, file_st, binary_st; /* size 0, mtimes 0: not there */
	uint64_t missing;
	struct t2f_sc_section sec[T2F_SC_N];
};

#define T2F_SC_PERF_RULES 1u
#define T2F_SC_NO_LINES 2u         /* its inline chains have no files and lines */

struct t2f_sc_load { uint64_t p_offset, p_vaddr, p_filesz, p_memsz, p_flags; };
struct t2f_sc_refused { uint32_t path, why, found_id, pad; };
struct t2f_sc_sym { uint64_t vaddr, last, value; uint32_t name, miss; }; /* [vaddr, last] */
struct t2f_sc_a2l { uint64_t vaddr; uint32_t name, pad; };
struct t2f_sc_inl { uint64_t vaddr, last; uint32_t first, n; }; /* [vaddr, last] */
struct t2f_sc_frame { uint32_t name, file, fn_file, line, fn_line, flags; };

#define T2F_SC_LINKAGE 1u
#define T2F_SC_COPY 2u
#define T2F_SC_AS_SYMBOL 4u

#endif
