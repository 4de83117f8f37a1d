/* symbolizer/elf_module.h: one ELF file's symbol tables, notes and load segments (libelf).
 *
 * Opening reads the ELF header, the program headers (PT_LOAD), the GNU build-id note (PT_NOTE or
 * SHT_NOTE; a note over 64 KiB is refused; alignment arithmetic is overflow-checked) and
 * .gnu_debuglink (name + CRC32). Symbols are read on first use (__lookup or __each_symbol):
 * - tables: .symtab, .dynsym, .SUNW_ldynsym (SHT 0x6ffffff3) and the .symtab inside the
 *   .gnu_debugdata xz stream (MiniDebugInfo, decoded with liblzma); 32/64-bit, either byte order;
 * - kept: FUNC and GNU_IFUNC, defined (not UNDEF/ABS/COMMON), value != 0;
 * - lookup: one sorted array over the tables, except a .dynsym (or .SUNW_ldynsym) beside the
 *   file's own .symtab of at least as many records (which repeats every exported function, as
 *   perf and addr2line assume); a symbol with size covers [value, value + size); a sizeless
 *   symbol matches only its exact address; several symbols at one address: prefer non-zero
 *   size, then the .symtab's over a .dynsym's, then GLOBAL > WEAK > LOCAL, then fewer leading
 *   '_' (so lookups give a .symtab's versioned names: "clock_gettime@@GLIBC_2.17", as perf);
 * - PLT stubs (x86-64, i386, aarch64): an address no symbol holds, inside .plt / .plt.sec, is
 *   named "SYMBOL@plt" after the relocation of the stub's GOT slot (table ".plt"/".plt.sec"),
 *   as perf and objdump name them; not listed by __each_symbol;
 * - perf's rules instead (__use_perf_rules; the perf.data route, so that names are the ones
 *   perf script prints): kept are also named OBJECT symbols and NOTYPE labels in sections
 *   named *text* or *data*; a file's .dynsym is left out whenever it has a .symtab; a sizeless
 *   symbol reaches the next symbol's address; at one address: non-zero size, then non-WEAK,
 *   then GLOBAL, then fewer leading '_', then the longer name ("cfree@GLIBC_2.2.5" over
 *   "free"); PLT stubs numbered as perf 6.1 does join them; a lookup walks a red-black tree
 *   built as perf builds its own, so that where ranges overlap (a sizeless `_init` reaching
 *   over .plt) the answer is perf's;
 * - arch fix-ups for lookups (not for __each_symbol): EM_ARM clears the Thumb bit of FUNC and
 *   GNU_IFUNC values;
 *   ppc64 ELFv1 FUNC values that point into .opd are replaced by the code address stored there.
 * Names are raw (mangled) and decoded lazily: nothing is copied until a lookup hits.
 *
 * Files: only a regular file is opened, without blocking (formats/side_file.h): a FIFO, device
 * or socket is -T2F_ERR_NOT_FILE (a directory -EISDIR), never opened or waited on.
 *
 * Decompression limits: a compressed symbol or string table (SHF_COMPRESSED: zlib, zstd) and
 * the MiniDebugInfo image (xz) are decoded into memory, and a few KB of file can claim
 * gigabytes. One section or image is capped at 256 MiB (over it: that part is skipped with a
 * warning); all that one module decodes together at T2F_DECODE_MODULE_MAX (128 MiB), and all
 * that the modules sharing a budget decode (__set_budget: the files a symbolizer keeps) at
 * T2F_DECODE_RUN_MAX (512 MiB). The sizes are checked before decoding (the compression header
 * states them; an xz image stops at what is left). A module that would pass either limit is
 * refused whole: one warning names the file, the section and the bytes, what was decoded is
 * freed (zlib sections of the file itself, which libelf holds, with the module), it has no
 * symbols (__over_budget tells why) and __lookup / __each_symbol give -T2F_ERR_LIMIT. Every byte
 * decoded counts, also those of a module refused later, so the limits bound a run's decoding
 * time as well as its memory. Real files decode far less: objcopy and ld compress only .debug_*
 * sections, MiniDebugInfo images hold a few KB to a few MB, and the largest symbol tables
 * measured (node: 17 MB of .symtab + .strtab) would fit 7 times.
 *
 * Errors: -errno (open/read), -T2F_ERR_ELF (not an ELF file, broken headers, offsets or counts
 * outside the file; extended numbering, e_shnum 0 / PN_XNUM / SHN_XINDEX, is read from section 0
 * and checked the same way), each with a message in the diag naming the file. A note region that
 * overlaps the section or program headers gives no build-id (warned). A corrupt symbol table is
 * an error for that table only: it is skipped with a warning (the others still count), and
 * __each_symbol / __lookup go on without it (strict mode: the warning is the error).
 *
 * Ownership: the module owns every pointer it returns; valid until __free(). Not thread safe
 * (one module per symbolizer thread, or external locking).
 */
#ifndef T2F_ELF_MODULE_H
#define T2F_ELF_MODULE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/diag.h"

#ifndef ELFCOMPRESS_ZSTD
#define ELFCOMPRESS_ZSTD 2            /* binutils 2.40 writes it; glibc 2.36's elf.h lacks it */
#endif

#define T2F_BUILD_ID_MAX 64 /* bytes; longer build-id notes are refused */
#define T2F_DECODE_MODULE_MAX (128ull << 20)  /* bytes one module may decompress */
#define T2F_DECODE_RUN_MAX (512ull << 20)     /* bytes the modules of one budget may */

struct t2f_elf_module;

/* What modules may decompress (above). The caller owns it and keeps it for as long as the
 * modules given it; thread safe: modules on several threads may share one. */
struct t2f_decode_budget {
	uint64_t module_max;        /* per module */
	uint64_t run_max;           /* all modules given this budget together */
	_Atomic uint64_t used;      /* what they decoded so far (refused modules' bytes included) */
	_Atomic uint64_t asks;      /* how many times bytes were asked of it (__take), given or not */
};
/* Sets the limits (0: T2F_DECODE_MODULE_MAX, T2F_DECODE_RUN_MAX), nothing used yet. */
void t2f_decode_budget__init(struct t2f_decode_budget *b, uint64_t module_max, uint64_t run_max);
/* Takes n bytes of the run's limit: true; false (nothing taken; *used, what was taken before)
 * when they do not fit. */
bool t2f_decode_budget__take(struct t2f_decode_budget *b, uint64_t n, uint64_t *used);

struct t2f_elf_load {       /* one PT_LOAD program header */
	uint64_t p_offset, p_vaddr, p_filesz, p_memsz;
	uint32_t p_flags;       /* PF_R | PF_W | PF_X */
};

struct t2f_elf_sym {
	const char *name;       /* raw, NUL-terminated, owned by the module */
	uint64_t value;         /* after arch fix-ups (lookups) or raw (__each_symbol) */
	uint64_t size;
	const char *table;      /* ".symtab", ".dynsym", ".SUNW_ldynsym", ".gnu_debugdata:.symtab" */
	unsigned char bind;     /* STB_* */
	unsigned char type;     /* STT_FUNC or STT_GNU_IFUNC (perf rules: also OBJECT, NOTYPE) */
};

int t2f_elf_module__open(const char *path, struct t2f_diag *d, struct t2f_elf_module **out);
/* The file's ELF header and build-id alone (t2f_elf_module__build_id, __machine, __type), read
 * through the descriptor a few hundred bytes at a time and closed before it returns, instead of
 * mapping the file: for a cache key (a warm run keys every module recorded without a build-id
 * by its file's own). Nothing else of the module may be asked. Errors as __open, said to no
 * one. */
int t2f_elf_module__open_id(const char *path, struct t2f_elf_module **out);
/* The build-id of the file at path, read as __open_id reads it: *len bytes (at most
 * T2F_BUILD_ID_MAX) into id, *len 0 when path is no regular ELF file with one. 0 or -ENOMEM. */
int t2f_elf_module__file_id(const char *path, uint8_t *id, size_t *len);
void t2f_elf_module__free(struct t2f_elf_module *m); /* NULL is fine */

const char *t2f_elf_module__path(const struct t2f_elf_module *m);
uint16_t t2f_elf_module__machine(const struct t2f_elf_module *m);   /* e_machine */
uint16_t t2f_elf_module__type(const struct t2f_elf_module *m);
uint64_t t2f_elf_module__entry(const struct t2f_elf_module *m);     /* e_entry (0: none) */      /* e_type: ET_EXEC, ET_DYN */
/* The build-id bytes, or NULL (*len 0) when the file has none. */
const uint8_t *t2f_elf_module__build_id(const struct t2f_elf_module *m, size_t *len);
/* The .gnu_debuglink file name and CRC; false when absent or malformed (no NUL, name with '/'
 * or "..": refused with a warning). */
bool t2f_elf_module__debuglink(const struct t2f_elf_module *m, const char **name, uint32_t *crc);
size_t t2f_elf_module__load_count(const struct t2f_elf_module *m);
const struct t2f_elf_load *t2f_elf_module__load_at(const struct t2f_elf_module *m, size_t i);
/* Whether the file lacks both a .symtab and DWARF (.debug_info with contents): a stripped
 * binary, whose debug file is worth fetching. Reads the section headers only. */
bool t2f_elf_module__stripped(struct t2f_elf_module *m);
/* Whether any symbol table has kept symbols (reads the tables). */
bool t2f_elf_module__has_symbols(struct t2f_elf_module *m);
/* Counts what m decodes against b (borrowed) from now on; without it m has the default
 * per-module limit and no run limit. Ignored once the tables were read. */
void t2f_elf_module__set_budget(struct t2f_elf_module *m, struct t2f_decode_budget *b);
/* Whether m was refused for passing a decompression limit (its tables were read). */
bool t2f_elf_module__over_budget(const struct t2f_elf_module *m);

/* Every kept symbol of every table, raw values, tables in section order, symbols in table order,
 * sizeless symbols included (the caller filters). cb returns 0 to go on, else that value is
 * returned. 0 or a negative error. */
typedef int (*t2f_elf_sym_cb)(void *ctx, const struct t2f_elf_sym *sym);
int t2f_elf_module__each_symbol(struct t2f_elf_module *m, t2f_elf_sym_cb cb, void *ctx);

/* The function containing elf_vaddr: 1 and *out on a hit, 0 on a miss, <0 on a fatal error
 * (-ENOMEM, or reading the tables failed). */
int t2f_elf_module__lookup(struct t2f_elf_module *m, uint64_t elf_vaddr, struct t2f_elf_sym *out);

/* __lookup, and the addresses [*lo, *last] around elf_vaddr that __lookup answers alike (the
 * same symbol, or a miss): a symbol's whole range where nothing nested in it or after it cuts
 * it, under perf's rules the addresses whose walk of perf's tree is elf_vaddr's; else elf_vaddr
 * alone (*lo = *last = elf_vaddr). Exact, never wider: a symbol cache may answer any address
 * of it without a lookup (symcache.h). */
int t2f_elf_module__lookup_span(struct t2f_elf_module *m, uint64_t elf_vaddr,
				struct t2f_elf_sym *out, uint64_t *lo, uint64_t *last);

/* Whether an index was built from m's symbol tables since their pages were last given back
 * (__release_tables): reading them left them resident. */
bool t2f_elf_module__tables_held(const struct t2f_elf_module *m);
/* Gives back the resident pages of the symbol and string tables of mods[0..n) (those loaded)
 * that lie in libelf's read-only mapping of their files (MADV_DONTNEED), reading
 * /proc/self/maps once for all of them; a later read faults them in again from the file (the
 * page cache keeps it), unchanged. Only whole pages of a mapping the kernel shows as a file's
 * and not writable: never a decoded table, nor a file libelf read into memory. Without /proc,
 * nothing. Clears __tables_held. */
void t2f_elf_modules__release_tables(struct t2f_elf_module *const *mods, size_t n);
/* Whether m's tables were all found in libelf's read-only mapping when they were last given
 * back: __release_tables then gives them back without reading /proc/self/maps. */
bool t2f_elf_module__tables_mapped(const struct t2f_elf_module *m);
/* The bytes of m's symbol and string tables that may lie in libelf's mapping (what
 * __release_tables gives back of it at most). */
size_t t2f_elf_module__table_bytes(const struct t2f_elf_module *m);
/* As __release_tables, every resident page of the files of mods[0..n) that lies in libelf's
 * read-only mapping of them (headers, notes, section tables and what lookups read, not the
 * tables alone): when a stage is done with them. Clears __tables_held; learns
 * __tables_mapped, with the same one read of /proc/self/maps. */
void t2f_elf_modules__release_files(struct t2f_elf_module *const *mods, size_t n);

/* The whole pages of an ELF image libelf mapped read-only (elf_begin ELF_C_READ_MMAP), which
 * a reader may give back when it has read what it needs (MADV_DONTNEED; a later read faults
 * them in again from the file, unchanged). */
struct Elf;
struct t2f_elf_mapped {
	uintptr_t lo, hi;            /* [lo, hi); lo == hi: nothing to give back */
};
/* e's image, when it lies in one mapping /proc/self/maps shows as a file's and not writable
 * (one read of it): *img its whole pages; else (read into memory, no /proc) an empty *img. */
void t2f_elf_mapped__find(struct Elf *e, struct t2f_elf_mapped *img);
/* Gives back img's resident pages (nothing for an empty one). */
void t2f_elf_mapped__give_back(const struct t2f_elf_mapped *img);
/* Frees the lookup index (perf's array, tree and names; the PLT names): a later __lookup or
 * __index builds it again. Every name a lookup returned from the PLT names is freed with it;
 * those from the symbol tables stay valid. A failed index stays failed. */
void t2f_elf_module__drop_index(struct t2f_elf_module *m);
/* Whether the file has a .debug_info (or GNU-compressed .zdebug_info) section with contents:
 * the DWARF units whose functions __name_at may name. Reads the section headers once. */
bool t2f_elf_module__has_debug_info(struct t2f_elf_module *m);

/* Hands m (NULL is fine) to another owner: its later warnings go to d (NULL: dropped), and what
 * it decodes later counts in b (NULL: the per-file limit only); what it decoded before stays
 * counted where it was. */
void t2f_elf_module__move(struct t2f_elf_module *m, struct t2f_diag *d,
			  struct t2f_decode_budget *b);
/* Builds the lookup index now, as the first __lookup would: 0 or its error. */
int t2f_elf_module__index(struct t2f_elf_module *m);
/* The raw name of the symbol __lookup names elf_vaddr by, when one starts there; NULL when none
 * does or the index is not built (__index). Reads and changes nothing else, so it may run on
 * another thread while no other call runs on m. */
const char *t2f_elf_module__name_at(const struct t2f_elf_module *m, uint64_t elf_vaddr);

/* The symbol binutils' addr2line (bfd, 2.40) names elf_vaddr by where DWARF names no function
 * there: from the file's .symtab, else its .dynsym, among the symbols of the section holding
 * elf_vaddr, the nearest start at or below it, then at one start bfd's preferences and table
 * order (elf_a2l.c). Whatever the rules chosen for __lookup. 1 and *out (raw value) on a hit,
 * 0 on a miss, <0 on a fatal error (-ENOMEM, or reading the tables failed). */
int t2f_elf_module__lookup_a2l(struct t2f_elf_module *m, uint64_t elf_vaddr,
			       struct t2f_elf_sym *out);

/* Chooses symbols by perf's rules (above) from now on; ignored once a lookup has been made. */
void t2f_elf_module__use_perf_rules(struct t2f_elf_module *m);
/* Under perf's rules: the PLT stubs of `from` (kept by the caller for as long as m is looked
 * up) join m's symbols instead of m's own, as perf takes them from a debug file's binary.
 * Ignored once a lookup has been made. */
void t2f_elf_module__perf_plt_from(struct t2f_elf_module *m, struct t2f_elf_module *from);

/* zlib CRC-32 of the whole file, as .gnu_debuglink stores it. 0 or -errno. */
int t2f_elf_file_crc32(const char *path, uint32_t *crc);

#endif
