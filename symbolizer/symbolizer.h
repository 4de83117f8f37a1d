/* symbolizer/symbolizer.h: absolute sample address → function name, with a reason on a miss.
 *
 * Modules come from module-load records (perf MMAP2, nettrace ProcessMapping). An address is
 * turned into the module's ELF virtual address by the arithmetic of docs/design.md §4, with every
 * address named by its space:
 *   file_off  = abs_ip - map_start + map_pgoff                  (perf MMAP/MMAP2)
 *   elf_vaddr = file_off - seg.p_offset + seg.p_vaddr           (the PT_LOAD containing file_off)
 * or, when the record carries the executable segment (p_vaddr, p_offset, page size: nettrace
 * universal traces, PerfView's formula):
 *   elf_vaddr = abs_ip - map_start + PAGE_DOWN(p_vaddr, page_size)
 * seg is taken from the binary's own PT_LOAD table: a separate debug file keeps p_vaddr/p_memsz
 * but not p_offset/p_filesz (measured, see module_map.h); with only a debug file, the mapping is
 * matched to an executable segment instead.
 * Each module's file is found and verified through debug_find on first use, then cached (file
 * descriptors are capped: libelf keeps none open after loading). When the symbols come from a
 * debug file, the same build's binary (at the recorded path or a verified copy) also gives the
 * PT_LOAD table and names what the debug file cannot: PLT stubs. Lookups are memoised per
 * (module, elf_vaddr). Names are interned in the caller's strtab without their symbol version
 * (formats/sym_version.h: "cfree", not "cfree@GLIBC_2.2.5"; "malloc@plt" stays), demangled
 * per opts.
 * The files opened share one decompression budget (elf_module.h; opts.decode_*_max): a file
 * whose compressed symbols would pass the per-file limit, or what the run has left, is refused
 * with a warning naming it, and its addresses miss with T2F_MISS_DECODE_LIMIT; the others go on.
 *
 * Ownership: the symbolizer borrows `names` and `diag` (they must outlive it); opts (and the
 * directory lists in them) are copied. Not thread safe.
 */
#ifndef T2F_SYMBOLIZER_H
#define T2F_SYMBOLIZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/diag.h"
#include "formats/strtab.h"
#include "symbolizer/debug_find.h"
#include "symbolizer/demangle.h"
#include "symbolizer/dwarf.h"
#include "symbolizer/symcache.h"

typedef uint32_t t2f_sym_module_id;

struct t2f_module_desc {        /* a module-load record; pointers are borrowed for the call only */
	const char *path;
	const uint8_t *build_id;
	size_t build_id_len;        /* 0 = unknown */
	bool path_trusted;          /* no build-id known, but the file at path is the trace's
				     * (recorded on this machine, not changed since): used as perf
				     * uses it, even when it has no build-id itself
				     * (t2f_debug_find_trusted) */
	uint64_t map_start, map_end, map_pgoff;  /* the process's view (abs_ip space; only
						  * t2f_symbolizer__resolve_abs uses it) */
	bool has_segment;           /* the record gives the executable PT_LOAD: */
	uint64_t p_vaddr, p_offset, page_size;
	bool has_exec;              /* the trace recorded the file's executable mapping (MMAP2):
				     * its pgoff and length, which file offsets need when only a
				     * debug file is found (t2f_symbolizer__resolve_file_off) */
	uint64_t exec_pgoff, exec_len;
};

struct t2f_symbolizer_opts {
	struct t2f_debug_find_opts find;
	enum t2f_demangle_mode demangle;
	bool perf_rules;            /* choose among symbols as perf does (elf_module.h): the names
				     * perf script prints; else the default rules */
	uint64_t decode_module_max; /* bytes one file's symbols may decompress (elf_module.h);
				     * 0: T2F_DECODE_MODULE_MAX (128 MiB) */
	uint64_t decode_run_max;    /* bytes the files of this symbolizer may decompress together;
				     * 0: T2F_DECODE_RUN_MAX (512 MiB) */
	bool debuginfod;            /* fetch debug files not found locally from the servers of
				     * DEBUGINFOD_URLS (debuginfod.h); find.fetch is ignored */
	t2f_fetch_progress_fn fetch_progress; /* how each fetch goes (debuginfod.h), or NULL */
	void *fetch_ctx;
	t2f_fetch_temp_fn fetch_temp; /* the temp file each fetch writes (debuginfod.h), or NULL */
	void *fetch_temp_ctx;
	bool cache;                 /* answers kept across runs in the symbol cache (symcache.h)
				     * for modules with a build-id; a directory that must not be
				     * used is warned about once, and then there is no cache */
	const char *cache_dir;      /* its directory; NULL: the default (symcache.h) */
	uint64_t cache_max;         /* the bytes it may hold; 0: $T2F_CACHE_MAX, else 512 MiB */
	struct t2f_symcache_ahead *cache_ahead; /* its files opened ahead (symcache_ahead.h), or
				     * NULL; borrowed: it must outlive the symbolizer */
	unsigned threads;           /* that may inflate one file's DWARF at once (dwarf.h); 0 or
				     * 1: the thread opening it; 2 or more: files may be searched
				     * ahead (t2f_symbolizer__search_ahead) */
	bool no_lines;              /* DWARF lookups read no line tables (dwarf.h): chains without
				     * files and lines. The cache files written say so, and a
				     * symbolizer without no_lines takes none of them */
};

enum t2f_miss {
	T2F_HIT = 0,
	T2F_MISS_UNMAPPED,          /* the address is in no module, or in no PT_LOAD of its module */
	T2F_MISS_NO_FILE,           /* no candidate file was found */
	T2F_MISS_BUILD_ID,          /* candidates found, every one refused, one for another
				     * build-id than the module's (debug_find.h) */
	T2F_MISS_CRC,               /* ... one for its debuglink CRC, none for a build-id */
	T2F_MISS_NO_BUILD_ID,       /* ... one for a build-id missing: the module's (nothing to
				     * verify against) or the file's */
	T2F_MISS_NO_SYMBOLS,        /* the file has no symbol table */
	T2F_MISS_NOT_ELF,           /* the candidates found are not readable ELF files */
	T2F_MISS_NOT_REGULAR,       /* ... or FIFOs, devices, sockets (never opened) */
	T2F_MISS_DECODE_LIMIT,      /* its compressed symbols would pass a decompression limit:
				     * refused with a warning (before a mismatch elsewhere) */
	T2F_MISS_NEEDS_MAPPING,     /* only a debug file was found (p_offset unknown) and the
				     * address is a printed file offset whose executable mapping
				     * the trace did not record (has_exec): the binary, or perf
				     * script --show-mmap-events, would tell */
	T2F_MISS_NOT_FOUND,         /* the address is outside every symbol */
};

struct t2f_sym {
	t2f_str_id name;            /* without its version, demangled per opts; 0 on a miss */
	uint64_t elf_vaddr;         /* the address in the ELF's own space (when mapped) */
	uint64_t offset;            /* elf_vaddr - symbol start */
	enum t2f_miss miss;
};

struct t2f_symbolizer;

/* 0, -ENOMEM, or diag's strict error (-T2F_ERR_FORMAT: the symbol cache's directory refused,
 * which is a warning otherwise). */
int t2f_symbolizer__new(const struct t2f_symbolizer_opts *opts, struct t2f_strtab *names,
			struct t2f_diag *diag, struct t2f_symbolizer **out);
void t2f_symbolizer__free(struct t2f_symbolizer *s); /* NULL is fine; never frees names */

/* Registers a module (copied). Ids are dense from 0 in registration order. Records with the same
 * path and build-id (one library mapped by many processes) share one file search, one symbol
 * table and one memo. 0 or -ENOMEM. */
int t2f_symbolizer__add_module(struct t2f_symbolizer *s, const struct t2f_module_desc *m,
			       t2f_sym_module_id *id);
/* Each address space has its entry point (docs/design.md §4); a miss is a result (out->miss),
 * not an error. Each returns <0 only when fatal (-ENOMEM), -EINVAL for an unknown module, or
 * diag's strict error (-T2F_ERR_FORMAT) when the module's symbol cache file is ignored.
 *
 * n absolute addresses (abs_ip: the process's virtual addresses, through the module's
 * mapping map_start, map_end, map_pgoff, and the segment when the record gave it). */
int t2f_symbolizer__resolve_abs(struct t2f_symbolizer *s, t2f_sym_module_id mod,
				const uint64_t *abs_ips, size_t n, struct t2f_sym *out);
/* A file offset (what perf script prints on call-chain lines): elf_vaddr = file_off - p_offset
 * + p_vaddr, with the segment the record gave (has_segment), else the PT_LOAD holding it in the
 * binary's table, else (a debug file alone) through the executable mapping the trace recorded
 * (has_exec). The module's mapping is not used. */
int t2f_symbolizer__resolve_file_off(struct t2f_symbolizer *s, t2f_sym_module_id mod,
				     uint64_t file_off, struct t2f_sym *out);
/* An address already in the module's ELF space (the `resolve` command). */
int t2f_symbolizer__resolve_vaddr(struct t2f_symbolizer *s, t2f_sym_module_id mod,
				  uint64_t elf_vaddr, struct t2f_sym *out);

/* The inline chain at elf_vaddr from the DWARF of the module's symbol file (symbolizer/dwarf.h):
 * innermost first, raw names; strings valid until the symbolizer is freed. The number of
 * frames (0: no file, no DWARF, or no function there), or -ENOMEM, -EINVAL (unknown id).
 * [*lo, *last]: the addresses with the same chain (dwarf.h __lookup_span). */
int t2f_symbolizer__inlines(struct t2f_symbolizer *s, t2f_sym_module_id mod, uint64_t elf_vaddr,
			    struct t2f_dwarf_frame *out, size_t max, uint64_t *lo,
			    uint64_t *last);

/* What the DWARF lookups of t2f_dwarf__lookup left out since the last call (dwarf.h), said in
 * the symbolizer's diag; and each handle __dwarf_lazy gave settled (begun here when no lookup
 * did; freed when the file turned out to have no DWARF). While no lookup runs. 0, -ENOMEM, or
 * the diag's strict error. */
int t2f_symbolizer__report_dwarf(struct t2f_symbolizer *s);

/* The name binutils' addr2line gives elf_vaddr where DWARF names no function there, from the
 * module's symbol file (elf_module.h __lookup_a2l), as every name (without its version,
 * demangled per opts) and interned: what perf 6.1 prints for a frame its --call-graph dwarf
 * unwinder found there, but for the version. 0 and *name (0: no file,
 * or no symbol in the section), or -ENOMEM, -EINVAL (unknown id). Not memoised. */
int t2f_symbolizer__a2l_name(struct t2f_symbolizer *s, t2f_sym_module_id mod, uint64_t elf_vaddr,
			     t2f_str_id *name);

/* Searches the files of modules mods[0..n) (listed in the order of their first lookups) on a
 * thread of its own, a few files ahead of the lookups (sym_ahead.c), and builds their symbol
 * indexes there (the lookups, waiting for a file, search the next ones meanwhile): a module's
 * first lookup takes its file from there, and the search's warnings are issued then, as if it
 * had run then. Answers, warnings and counts are those of searches made in place: a file whose
 * search or index asked the decompression budget for bytes (elf_module.h), or whose index
 * build warned or failed, is searched again in place. Only files with a recorded build-id and
 * no symbol cache file, and only with opts.threads >= 2 and no debuginfod servers
 * (DEBUGINFOD_URLS); otherwise nothing is done. Once per symbolizer (later calls do nothing);
 * __symbols_done and __free stop the thread. 0 or -ENOMEM; a thread that cannot start leaves
 * every search in place. */
int t2f_symbolizer__search_ahead(struct t2f_symbolizer *s, const t2f_sym_module_id *mods,
				 size_t n);

/* The lookups of the resolve stage are done: each file's symbol index is let go (a later lookup
 * builds it again) unless the file has DWARF units (their levels are named by the symbols,
 * __dwarf), and the resident pages of every file's symbol and string tables are given back
 * (elf_module.h __release_tables, one read of /proc/self/maps); the memo of answers is
 * emptied. Answers are unchanged. */
void t2f_symbolizer__symbols_done(struct t2f_symbolizer *s);

/* The DWARF lookups are done too (their answers hold copies of the names): the symbol indexes
 * __symbols_done kept for them are let go as well (a later lookup builds them again). Answers
 * are unchanged. */
void t2f_symbolizer__dwarf_done(struct t2f_symbolizer *s);

/* The DWARF of the module's symbol file, opened on the first call: 0 and *out (NULL: no file,
 * or no DWARF), or -ENOMEM, -EINVAL (unknown id). Modules sharing a file share the handle. The
 * handle is the symbolizer's; t2f_dwarf__lookup on it may run on another thread, one thread at
 * a time per handle, while nothing else uses the symbolizer (dwarf.h: handles share nothing).
 * That thread may also end it (t2f_dwarf__end) once it wants no more lookups: the next call
 * here then opens the file again. */
int t2f_symbolizer__dwarf(struct t2f_symbolizer *s, t2f_sym_module_id mod,
			  struct t2f_dwarf **out);
/* As __dwarf, but a file opened now is opened lazily (t2f_dwarf__open_lazy): libdw begins at
 * its first lookup, on the lookup's thread; *out is then a handle even when the file turns out
 * to have no DWARF (t2f_dwarf__none tells after the lookups), until __report_dwarf (or a call
 * of __dwarf, which gives only settled handles) settles it. Between the two, only lookups use
 * the handle. */
int t2f_symbolizer__dwarf_lazy(struct t2f_symbolizer *s, t2f_sym_module_id mod,
			       struct t2f_dwarf **out);

/* The symbol cache (symcache.h): whether the module's file has DWARF as its cache file says
 * it: 1 yes, 0 no (or no file), 2 unknown (no cache file: t2f_symbolizer__dwarf tells); or
 * -ENOMEM, -EINVAL (unknown id). */
int t2f_symbolizer__cached_dwarf(struct t2f_symbolizer *s, t2f_sym_module_id mod);
/* The inline chain at elf_vaddr as the cache file holds it (as __inlines would give it;
 * strings valid until the symbolizer is freed): its length, or -1 when it holds none. */
int t2f_symbolizer__cached_inlines(struct t2f_symbolizer *s, t2f_sym_module_id mod,
				   uint64_t elf_vaddr, struct t2f_dwarf_frame *out, size_t max);
/* A chain a DWARF lookup of the module's handle gave at elf_vaddr, the same over [lo, last]
 * (dwarf.h __lookup_span), kept for the cache file (copied). 0 or -ENOMEM. */
int t2f_symbolizer__note_inlines(struct t2f_symbolizer *s, t2f_sym_module_id mod,
				 uint64_t elf_vaddr, uint64_t lo, uint64_t last,
				 const struct t2f_dwarf_frame *frames, size_t n);
/* Classes of a file's addresses, from its symbol cache file (symcache.h __class): what lets
 * a reader make the frames of addresses the run will name alike one frame. */
struct t2f_sym_class;
/* The class source of the file of (path, build-id[0..len), len > 0), its cache file looked
 * for now as its first use would (a warm run's file is then searched through it, and the
 * cache's warning for a file ignored is given here): *out, or NULL when the file is not named
 * through a cache file, its offsets are not the binary's own, or `inlines` and the file did
 * not say whether it has DWARF (or the file's source was made for other flags).
 * `inlines`: frames will get their inline chains; `lines`: and the outputs show the chains'
 * lines (else chains that differ by lines alone are one class). *out is the symbolizer's,
 * freed with it; t2f_sym_class__key uses only it, on one thread at a time (any), while the
 * symbolizer goes on. 0, -ENOMEM, or the diag's strict error. */
int t2f_symbolizer__class(struct t2f_symbolizer *s, const char *path, const uint8_t *build_id,
			  size_t len, bool inlines, bool lines, struct t2f_sym_class **out);
/* The class of file offset off (a perf.data frame's address, in its file's executable
 * PT_LOAD with off - 1): true and *key, equal keys of one source naming alike (the symbol
 * answer, and the inline chains at the address and at the call when the source has them:
 * without lines, their functions' names alone); false when the cache file lacks an answer,
 * off - 1 maps elsewhere, or memory ran out. */
bool t2f_sym_class__key(struct t2f_sym_class *k, uint64_t off, uint64_t *key);
void t2f_sym_class__free(struct t2f_sym_class *k); /* the symbolizer's; NULL is fine */

/* As __resolve_file_off, for an address of the class of one whose answer was `like`
 * (t2f_sym_class__key: both keys equal, in the class source of mod's file): its place found,
 * the rest of the answer `like`'s (counted as the cache's); looked up as __resolve_file_off does
 * when the file is no longer named through its cache. */
int t2f_symbolizer__resolve_file_off_like(struct t2f_symbolizer *s, t2f_sym_module_id mod,
					  uint64_t file_off, const struct t2f_sym *like,
					  struct t2f_sym *out);

/* Writes the cache file of each file that has answers its cache file lacked, then keeps the
 * directory within its size limit. Failures leave the old file (nothing half written). */
void t2f_symbolizer__cache_save(struct t2f_symbolizer *s);
/* The cache's counts and *dir, or NULL (no cache). */
const struct t2f_symcache_stats *t2f_symbolizer__cache_stats(const struct t2f_symbolizer *s,
							      const char **dir);
/* The file the module's symbols come from (a found file, or the one its cache file names), or
 * NULL: none, or not searched yet. */
const char *t2f_symbolizer__module_file(const struct t2f_symbolizer *s, t2f_sym_module_id mod);

/* Per module: the file used (NULL if none), and the refused candidates, for --stats. Empty
 * until the module's file was searched (its first resolve); NULL for an unknown id. */
const struct t2f_debug_result *t2f_symbolizer__module_files(const struct t2f_symbolizer *s,
							     t2f_sym_module_id mod);
/* The binary whose program headers map the module's file offsets when its symbols came from a
 * separate debug file (a copy found by build-id: symbolizer/debug_find.h), or NULL. */
const char *t2f_symbolizer__module_binary(const struct t2f_symbolizer *s, t2f_sym_module_id mod);

/* What the debuginfod servers gave (debuginfod.h), or NULL when none is used. */
const struct t2f_debuginfod_stats *t2f_symbolizer__debuginfod(const struct t2f_symbolizer *s);

const char *t2f_miss_name(enum t2f_miss miss);

#endif
