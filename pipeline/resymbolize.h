/* pipeline/resymbolize.h: names a read profile's frames through the symbolizer.
 *
 * Frames resolved: user-space frames perf could not name ([unknown] or no symbol) that carry an
 * address in a file-backed dso (a path starting with '/'); with `all` (--resymbolize) every
 * user-space frame with an address (the reader must then keep addresses: keep_addrs). The same
 * for kernel frames ([kernel.kallsyms], [module], vmlinux) when a kallsyms file is given, and for
 * JIT frames (a dso of exactly /tmp/perf-PID.map: formats/perf_map.h), looked up in
 * perf_map_dir/perf-PID.map, or /tmp/perf-PID.map when perf_map_dir is NULL, a path built from
 * the pid (symbolizer/text_syms.h: both addresses are absolute in either form of perf script,
 * one-line samples included). Such frames keep their kind; a JIT module
 * whose map file does not exist counts its frames as "no map file". [vdso] frames (a kernel
 * kind for the reader) are named from perf's copy of the vdso, $HOME/.debug/[vdso]/BUILD-ID/vdso,
 * when the trace gives its build-id and the file exists (else as kernel frames).
 *
 * Addresses: perf prints the DSO-relative address (the file offset) on call-chain lines, so each
 * distinct dso path is registered once, and its frames are looked up as file offsets
 * (t2f_symbolizer__resolve_file_off: the PT_LOAD table of the file turns them into ELF virtual
 * addresses; docs/design.md §4; lld objects differ). The reader turns a one-line sample's
 * absolute ip into that file offset through the PERF_RECORD_MMAP2 mapping of its process; a
 * frame still in the absolute space (T2F_SPACE_ABS) had none and is counted unresolved ("no
 * mapping of its process").
 *
 * Build-ids per dso path: from the profile's module maps (PERF_RECORD_MMAP2 with --buildid-mmap)
 * first, then the --buildids file (`perf buildid-list` lines: "<hex> <path>";
 * pipeline/resym_ids.h). A module without a known build-id is not resolved (docs/design.md §5:
 * a trace from another machine must not be named from this machine's files) unless
 * unsafe_build_id_match, or trust_by: the inputs were
 * recorded on this machine (perf.data whose HOSTNAME and OSRELEASE are the running system's)
 * and the file at the module's path is not newer than the recording (its mtime at or before
 * trust_by), as perf trusts it; then the file's own build-id is the reference its debug files
 * are verified against, and --stats says "matched by path". --stats counts the frames not
 * tried, and they count as unresolved in the one-line warning.
 *
 * A hit renames the frame (demangled per no_params). A
 * miss leaves the frame as it was and is counted per module and reason.
 *
 * With `inlines`, frames perf named in file-backed modules are looked up too, to place them in
 * their module's ELF space (t2f_resym__place) for their inlined functions (pipeline/inlines.h):
 * their names stay, and a module without a build-id is skipped without a count or warning.
 *
 * nettrace (universal traces, readers/nettrace_universal.h): the reader leaves file frames
 * unnamed with the mapping's path as module and the file offset as address, and names JIT and
 * kernel frames itself; its frames say so (t2f_frame.module_names), and frames of other inputs
 * beside them are resolved as above. Of a .nettrace trace's frames only user frames with a file
 * offset are resolved, and every one is named: "FILE!function" on a hit, "FILE!0xFILE_OFF" on a miss (FILE = the path's
 * last component). When the module map gives the executable segment (p_vaddr, p_offset from
 * the mapping metadata), the symbolizer is given that segment (elf_vaddr = file_off - p_offset +
 * p_vaddr); else the binary found by build-id gives it (its own PT_LOAD table, as for perf).
 * --stats says which.
 *
 * Cost: each distinct dso path is looked up once in hashes (its module, its build-id, its first
 * executable mapping), so the stage is linear in the modules a trace names.
 *
 * Ownership: t2f_resym__run borrows the profile and diag for the call only; the result owns its
 * strings. Not thread safe.
 */
#ifndef T2F_RESYMBOLIZE_H
#define T2F_RESYMBOLIZE_H

#include <stdbool.h>
#include <stdio.h>

#include "formats/diag.h"
#include "formats/profile.h"
#include "include/trace2flame.h"
#include "pipeline/prefetch.h"
#include "symbolizer/symbolizer.h"

struct t2f_resym_opts {
	bool all;                        /* --resymbolize */
	const char *const *symbol_dirs;  /* --symbol-path dirs, NULL-terminated; may be NULL
					  * (T2F_SYMBOL_PATH is appended) */
	const char *const *debug_dirs;   /* --debug-dir dirs, NULL-terminated; NULL = /usr/lib/debug */
	const char *buildids;            /* --buildids FILE, or NULL */
	bool unsafe_build_id_match;
	bool no_params;                  /* demangle without parameter lists and return types
					  * (collapsed output, as perf prints); else in full */
	const char *kallsyms;            /* --kallsyms FILE, or NULL: kernel frames left as printed */
	struct t2f_prefetch *kallsyms_read; /* that file being loaded already (pipeline/prefetch.h),
					  * or NULL; taken when it reads the same path */
	uint64_t *kallsyms_counts;       /* or NULL: [0] += 1 when the kallsyms file was read,
					  * [1] += 1 when the process's table of it was taken
					  * (symbolizer/text_syms_share.h), [2] += 1 when the
					  * symbol cache's was (symbolizer/text_syms_cache.h:
					  * kept by an earlier run, with `cache`), [3] += 1 when
					  * a read took perf's copy (symbolizer/kallsyms_copy.h) */
	bool kallsyms_lazy;              /* the file was picked for the recording, not asked for:
					  * read only when a kernel frame is to be named from it
					  * (else checked even when none is) */
	const char *kernel_ref;          /* perf.data: the symbol the recording's kernel was placed
					  * by ("_text", "_stext"), at kernel_ref_addr then; kernel
					  * frames are looked up where the kallsyms file places that
					  * symbol (see below). NULL: kernel addresses are the file's */
	uint64_t kernel_ref_addr;
	bool kernel_refs_differ;         /* inputs recorded with their kernels at different places:
					  * kernel frames are not named */
	const char *perf_map_dir;        /* --perf-map-dir DIR, or NULL: the printed map path */
	bool offline;                    /* never fetch debug files from debuginfod servers */
	bool perf_rules;                 /* choose symbols as perf does (symbolizer.h) */
	bool inlines;                    /* place named frames too (above) */
	bool no_lines;                   /* their DWARF lookups read no line tables: inlined frames
					  * without files and lines (symbolizer.h), for outputs
					  * that show none */
	t2f_fetch_progress_fn progress;  /* how each debuginfod fetch goes, or NULL */
	void *progress_ctx;
	bool signals;                    /* a fatal signal removes a fetch's temp file
					  * (pipeline/tmpguard.h) */
	bool nettrace;                   /* a nettrace input was read: see below */
	int64_t trust_by;                /* recorded on this machine, finished at this time (seconds
					  * since the epoch): files not newer are trusted by path
					  * (see above); 0 = never */
	bool cache;                      /* the symbol cache (symbolizer/symcache.h): answers of
					  * earlier runs, by build-id; written by t2f_resym__save */
	uint64_t cache_max;              /* its size limit; 0: $T2F_CACHE_MAX, else 512 MiB */
	struct t2f_symcache_ahead *cache_ahead; /* its files opened ahead for the recording
					  * (symbolizer/symcache_ahead.h), or NULL */
	unsigned threads;                /* that may inflate one file's DWARF at once (--jobs) */
	const t2f_frame_id *frame_as;    /* per frame id below n_frame_as, the frame the stacks
					  * hold in its place: the first of its class
					  * (pipeline/sym_classes.h), named alike, whose answer it
					  * takes; or itself. NULL: none */
	size_t n_frame_as;
	struct t2f_symbolizer *sym;      /* the symbolizer to name the frames with, made by
					  * t2f_resym__make_symbolizer for these, or NULL (one is
					  * made then): t2f_resym__run takes it (frees it, or the
					  * result does) */
};

struct t2f_resym;

/* The symbolizer t2f_resym__run makes for o, made ahead (used before the run, as
 * symbolizer.h t2f_symbolizer__class, by the thread that then runs it): names go into p's
 * strings, messages into d. 0, -ENOMEM, or the diag's strict error. */
int t2f_resym__make_symbolizer(const struct t2f_resym_opts *o, struct t2f_profile *p,
			       struct t2f_diag *d, struct t2f_symbolizer **out);

/* Resolves the profile's frames. *out: the counts for the report (NULL when no frame needed
 * resolving). 0, -ENOMEM, or -errno when the --buildids or --kallsyms file cannot be read, or
 * -T2F_ERR_* when the kallsyms file or a perf map cannot be used (t2f_text_syms__load; reported in
 * d). A missing perf map is not an error: its frames stay as printed, counted. */
int t2f_resym__run(struct t2f_profile *p, const struct t2f_resym_opts *o, struct t2f_diag *d,
		   struct t2f_resym **out);
void t2f_resym__free(struct t2f_resym *r); /* NULL is fine */

/* Whether frames of this kind in module path[0..len) are ones t2f_resym__run would look up
 * (given their address): unnamed ones (named with `all`) to name them: user frames of a file,
 * kernel frames with --kallsyms, JIT frames; named ones (`named`) to place them, with
 * `inlines`: user frames of a file. */
bool t2f_resym__wants(const struct t2f_resym_opts *o, enum t2f_frame_kind kind,
		      const char *path, size_t len, bool named);
/* Where frame id's address is in its module: its symbolizer module and ELF address; false when
 * it was not looked up or not mapped (r may be NULL). Valid for the profile t2f_resym__run
 * read, and for the frame ids it had. */
bool t2f_resym__place(const struct t2f_resym *r, t2f_frame_id id, t2f_sym_module_id *mod,
		      uint64_t *elf_vaddr);
/* Writes the symbol cache's files for what this run looked up (the resolve stage and the inline
 * stage both done); nothing without a cache. NULL is fine. With o->threads >= 2 they are written
 * on a thread of r's own while the caller goes on (the output written meanwhile): the functions
 * below that use r's symbolizer wait for it first, and t2f_resym__free does. Threads: until
 * then, r is used from the calling thread only. */
void t2f_resym__save(struct t2f_resym *r);
/* The symbolizer the frames were looked up with (NULL for NULL); r keeps it. */
struct t2f_symbolizer *t2f_resym__symbolizer(const struct t2f_resym *r);

/* Whether the symbol cache keeps a table of o's kallsyms file (o->cache set) that
 * t2f_resym__run would take now instead of reading the file (symbolizer/text_syms_cache.h). */
bool t2f_resym__kallsyms_kept(const struct t2f_resym_opts *o);

/* The kallsyms file for a perf.data recording whose kernel build-id is hex (lowercase; NULL
 * when the file recorded none): /proc/kallsyms when the running kernel's build-id
 * (/sys/kernel/notes) equals it, or when there is none and the recording was made on this
 * machine (`here`: as perf then trusts the running kernel), else perf's cache
 * $HOME/.debug/[kernel.kallsyms]/HEX/kallsyms when it exists. NULL when neither (out of memory
 * too), *why then saying why (static text). The path is malloc'd: free() it. */
char *t2f_resym__default_kallsyms(const char *hex, bool here, const char **why);

/* --stats: per module, frames resolved / unresolved per reason, the file used and the refused
 * candidates (path, reason, found and expected build-ids); kernel and JIT modules with the
 * kallsyms or map file used (or the map file that was missing). */
void t2f_resym__print_stats(FILE *f, const struct t2f_resym *r);
/* What went worse than expected, without --stats, each line naming label (the input): per
 * module whose files were refused for another build-id, the file and both ids (5 modules, then
 * a count of the rest); the frames not tried for want of a build-id, and what to do; the count of
 * frames left unresolved. Nothing when every frame tried was named. */
void t2f_resym__warn(FILE *f, const struct t2f_resym *r, const char *label);

/* Frames looked up, of them left unnamed, and not looked up (no build-id, no mapping); zeros
 * for NULL. */
void t2f_resym__counts(const struct t2f_resym *r, uint64_t *tried, uint64_t *unresolved,
		       uint64_t *skipped);
/* Modules looked at (0 for NULL), and module i of them as data (strings owned by r; size
 * left alone). */
size_t t2f_resym__module_count(const struct t2f_resym *r);
void t2f_resym__module(const struct t2f_resym *r, size_t i, struct t2f_module_report *out);

#endif
