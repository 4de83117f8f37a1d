/* symbolizer/debug_find.h: where a module's symbols are, verified by build-id or CRC.
 *
 * Candidates, in this order (docs/design.md §5):
 *  1. for each debug dir (default /usr/lib/debug): DIR/.build-id/ab/cdef....debug
 *  2. the debuginfod client cache: $DEBUGINFOD_CACHE_PATH (default
 *     ~/.cache/debuginfod_client)/<build-id>/debuginfo; then perf's build-id cache (filled by
 *     perf record, packed by perf archive): $PERF_BUILDID_DIR (default ~/.debug)/.build-id/ab/
 *     cdef.../debug (a debug file added with perf buildid-cache), then .../elf (perf's copy)
 *  3. .gnu_debuglink NAME: beside the binary, in its .debug/, and DIR/<binary's dir>/NAME under
 *     each debug dir (the CRC must match)
 *  4. each user symbol dir (--symbol-path, then T2F_SYMBOL_PATH, colon-separated): its build-id
 *     tree (DIR/.build-id/ab/cdef....debug, then perf's DIR/.build-id/ab/cdef.../debug and
 *     .../elf: an unpacked perf archive), the SSQP layout of the dotnet symstore key
 *     conventions (DIR/_.debug/elf-buildid-sym-<id>/_.debug, then
 *     DIR/<file name>/elf-buildid-<id>/<file name>; <id> is lowercase hex padded with zero bytes
 *     to 20 bytes as the convention says, and also tried unpadded as PerfView writes it; the file
 *     name as recorded, then lowercased), and DIR/<file name> (a directory of copied binaries)
 *  5. the binary itself at its recorded path; when it is stripped (no .symtab and no DWARF:
 *     t2f_elf_module__stripped) and opts.fetch is set, the debuginfod servers are asked first
 *     (6.), and the binary is taken only when they give nothing that verifies;
 *  6. when opts.fetch is set and no candidate was taken: the debuginfod servers
 *     (debuginfod.h), by build-id, into their cache (asked once a search). A file they give
 *     that is refused for another build-id or as not an ELF file is removed from the cache
 *     (t2f_debuginfod__drop), so that later runs ask them again.
 * A candidate that does not exist is not a refusal: it is skipped (counted in n_missing).
 * A candidate that exists but whose build-id differs from the module's, or that has none (or,
 * for a debuglink candidate, whose CRC differs) is refused and recorded with both ids; the
 * search goes on. A module without a build-id is refused unless unsafe_build_id_match (then
 * the first candidate that has symbols is taken; the build-id keyed places are skipped): its
 * binary as "no build-id to verify against", or as not an ELF file (not a regular file) when it
 * is none; when no binary is there, nothing is refused. With unsafe_build_id_match
 * a mismatching candidate (build-id or CRC) that has symbols is taken only when no verified one
 * is found: the first such, with a warning; the others stay in the refused list. Build-ids
 * that are not lowercase/uppercase hex, and debuglink names with '/' or "..", are refused
 * (elf_module warns about such a debuglink; a file name of "." or ".." is not used either). A
 * candidate without symbol tables is refused as "no symbols", one whose compressed symbols would
 * pass a decompression limit (elf_module.h; warned) as "over the decompression limit", and the
 * search goes on. The reference build-id and every candidate's are compared as bytes (length
 * included).
 * "$HOME" is $HOME, else the password database entry. Paths are bounded by PATH_MAX: a longer
 * candidate is skipped.
 *
 * Ownership: results are owned by the caller (t2f_debug_result__free). Thread safe (no state
 * but the budget, which is).
 */
#ifndef T2F_DEBUG_FIND_H
#define T2F_DEBUG_FIND_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/diag.h"
#include "include/trace2flame_enums.h"
#include "symbolizer/debuginfod.h"
#include "symbolizer/elf_module.h"

struct t2f_debug_find_opts {
	const char *const *debug_dirs;    /* NULL-terminated; NULL = { "/usr/lib/debug", NULL } */
	const char *const *symbol_dirs;   /* NULL-terminated user dirs; may be NULL */
	const char *debuginfod_cache;     /* NULL = $DEBUGINFOD_CACHE_PATH or the default */
	const char *perf_cache;           /* NULL = $PERF_BUILDID_DIR or ~/.debug */
	bool unsafe_build_id_match;
	bool perf_rules;                  /* open files with perf's symbol rules (elf_module.h):
					   * then OBJECT symbols count as symbols too */
	struct t2f_decode_budget *budget; /* the decompression budget every file opened shares
					   * (elf_module.h; borrowed), or NULL: per-file limit only */
	struct t2f_debuginfod *fetch;     /* when no local candidate is taken, the debug file is
					   * fetched from the servers (debuginfod.h; borrowed), or
					   * NULL: never */
};

struct t2f_debug_refused {
	char *path;
	enum t2f_refusal_reason why;      /* as the library's t2f_refused.reason says it */
	char found_id[2 * T2F_BUILD_ID_MAX + 1];  /* hex; "" when none */
};

struct t2f_debug_result {
	struct t2f_elf_module *module;    /* the chosen file, opened; NULL when none */
	struct t2f_debug_refused *refused;
	size_t n_refused;
	size_t n_missing;                 /* candidate paths that did not exist */
	char expected_id[2 * T2F_BUILD_ID_MAX + 1];  /* the reference build-id, hex; "" when none */
};

/* Searches for binary_path's symbols. build_id: the id the trace recorded for the module (NULL
 * when the trace had none: then the binary's own id, if the binary exists, is the reference).
 * 0 (result filled, module possibly NULL) or -ENOMEM. */
int t2f_debug_find(const struct t2f_debug_find_opts *o, const char *binary_path,
		   const uint8_t *build_id, size_t build_id_len, struct t2f_diag *d,
		   struct t2f_debug_result *out);
/* As t2f_debug_find without a build-id, for a binary known by other means to be the trace's
 * file (recorded on this machine and not changed since, where perf uses the file at the path):
 * the binary's own build-id is the reference when it has one; when it has none (Go binaries
 * carry only their own note), the binary itself is taken if it has symbols, and nothing else
 * is searched. */
int t2f_debug_find_trusted(const struct t2f_debug_find_opts *o, const char *binary_path,
			   struct t2f_diag *d, struct t2f_debug_result *out);
void t2f_debug_result__free(struct t2f_debug_result *r); /* frees the module and the list */

/* A copy of the binary itself (whole program headers: its PT_LOAD p_offset values are real, as
 * a debug file's are not) of build-id id[0..len), for the file_off → elf_vaddr table when the
 * symbols came from a debug file. Looked for at binary_path, then in each symbol dir as perf
 * lays files out (DIR/.build-id/ab/cdef.../elf: `perf archive`, perf's cache copied over) and
 * as a plain copy (DIR/NAME), then in perf's build-id cache. The first whose build-id is id
 * (any, when len is 0) is opened into *out (NULL when none; opened with o's budget and perf
 * rules). 0 or -ENOMEM. */
int t2f_debug_find_binary(const struct t2f_debug_find_opts *o, const char *binary_path,
			  const uint8_t *id, size_t len, struct t2f_diag *d,
			  struct t2f_elf_module **out);

/* Where the supplementary DWARF file of a debug file (.gnu_debugaltlink: `name`, build-id
 * id[0..len)) may be, best first, into paths[0..max): the build-id tree under each debug dir,
 * the debuginfod client cache, the build-id tree under each symbol dir, then `name` itself
 * (an absolute one also under each debug dir; a relative one beside debug_path). Their number;
 * nothing is opened (the caller verifies each: symbolizer/dwarf.h). */
size_t t2f_debug_find_alt(const struct t2f_debug_find_opts *o, const char *debug_path,
			  const char *name, const uint8_t *id, size_t len, char (*paths)[PATH_MAX],
			  size_t max);

/* why in words, as t2f_refused.why says it: a static string ("refused" for a value no reason
 * has). */
const char *t2f_refusal_name(enum t2f_refusal_reason why);
/* Parses hex into bytes; false for odd length, non-hex characters or more than max bytes. */
bool t2f_build_id_parse(const char *hex, uint8_t *bytes, size_t max, size_t *len);
void t2f_build_id_hex(const uint8_t *id, size_t len, char *out /* 2 * len + 1 */);

/* Splits a colon-separated directory list (T2F_SYMBOL_PATH) into a NULL-terminated array;
 * empty components are skipped. *dirs is one allocation (the strings live inside it): free(*dirs).
 * env NULL gives an empty list. Returns the number of directories, or -ENOMEM. */
int t2f_symbol_path_split(const char *env, char ***dirs);
/* dirs (NULL-terminated, or NULL), then env's (split as above), as one NULL-terminated list
 * *joined (free() it) pointing into dirs and *env_dirs (free() it too). 0 or -ENOMEM (both
 * NULL then). */
int t2f_symbol_path_join(const char *const *dirs, const char *env, char ***env_dirs,
			 const char ***joined);

#endif
