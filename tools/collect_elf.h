/* tools/collect_elf.h: what `trace2flame collect` needs of an ELF file, through libelf: what the
 * file is (its build-id, whether it has DWARF or a symbol table), and its debug-only copy.
 *
 * The command line uses libelf directly here, as it uses libc: collecting is no conversion, and
 * the library has no interface that writes ELF files (docs/design.md §1).
 *
 * Errors: 0 or a negative code (-errno, -T2F_ERR_ELF, -T2F_ERR_UNSUPPORTED, -ENOMEM), with the
 * reason in words in the caller's buffer. Thread safe (no state: libelf's version is set by
 * t2f_collect_elf__init, once, before any other call).
 */
#ifndef T2F_COLLECT_ELF_H
#define T2F_COLLECT_ELF_H

#include <stdbool.h>
#include <limits.h>
#include <stddef.h>

#include <libelf.h>

#define T2F_COLLECT_ID_MAX 64   /* bytes of a build-id at most */
#define T2F_COLLECT_WHY (PATH_MAX + 256) /* a reason's buffer (it may name a path) */

/* What a debug file of a build-id holds: more is better. */
enum t2f_collect_rank {
	T2F_COLLECT_NOTHING = 0,    /* neither .symtab nor DWARF */
	T2F_COLLECT_SYMTAB = 1,     /* a .symtab with contents */
	T2F_COLLECT_DWARF = 2,      /* .debug_info (or .zdebug_info) with contents */
};

/* Why an ELF file is not collected (a skip, not a failure). */
enum t2f_collect_skip {
	T2F_COLLECT_KEEP = 0,
	T2F_COLLECT_SKIP_MACHINE,   /* neither x86_64 nor aarch64 */
	T2F_COLLECT_SKIP_TYPE,      /* not ET_EXEC nor ET_DYN (relocatable, core) */
	T2F_COLLECT_SKIP_NO_ID,     /* no GNU build-id note */
	T2F_COLLECT_SKIP_GO_ONLY,   /* Go's build id note alone: nothing looks files up by it */
	T2F_COLLECT_SKIP_ID_SIZE,   /* a GNU build-id below 2 or above T2F_COLLECT_ID_MAX bytes */
	T2F_COLLECT_SKIP_NO_SYMBOLS, /* neither .symtab nor DWARF */
	T2F_COLLECT_SKIP_N
};

struct t2f_collect_info {
	unsigned char id[T2F_COLLECT_ID_MAX];
	size_t id_len;
	enum t2f_collect_rank rank;
	enum t2f_collect_skip skip; /* KEEP: id and rank are set */
};

/* libelf's version set; 0 or -T2F_ERR_ELF. */
int t2f_collect_elf__init(void);

/* What the ELF file e is. A file libelf cannot read (bad headers, sections outside the file)
 * fails with -T2F_ERR_ELF and why; a file that is merely not collected
 * returns 0 with info->skip set. */
int t2f_collect_elf__probe(Elf *e, struct t2f_collect_info *info, char *why, size_t len);

/* A short phrase for skip ("no GNU build-id"). */
const char *t2f_collect_elf__skip_name(enum t2f_collect_skip skip);

/* Writes the debug-only copy of e into fd (an empty file, written from its start): the ELF
 * header and program headers as e has them, but each segment's p_filesz 0 where its bytes are
 * gone (PT_PHDR and PT_NOTE point at their copies); every allocated section but the notes
 * becomes SHT_NOBITS of the same address and size; the other sections (symbol tables, their
 * strings, DWARF, .comment) are kept but .gdb_index (whose section index entries are renumbered
 * past it); each .debug_ section not compressed yet is compressed with ELFCOMPRESS_ZLIB (even a
 * small one that grows by it: every reader of the file then sees one form). Nothing of e is
 * changed on disk. 0 or an error with why. */
int t2f_collect_elf__write_debug(Elf *e, int fd, char *why, size_t len);

#endif
