/* pipeline/resym_internal.h: the resolve stage's state, shared by resymbolize.c (naming the
 * frames) and resym_report.c (what it says of them: --stats, warnings, the library's reports).
 * The state owns what its fields say it owns (t2f_resym__free); one thread uses it at a time. */
#ifndef T2F_RESYM_INTERNAL_H
#define T2F_RESYM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/buf.h"
#include "formats/hashmap.h"
#include "pipeline/resym_ids.h"
#include "pipeline/resym_like.h"
#include "pipeline/resymbolize.h"
#include "symbolizer/kernel_place.h"
#include "symbolizer/symbolizer.h"
#include "symbolizer/text_syms.h"

#define T2F_MISS_COUNT (T2F_MISS_NOT_FOUND + 1)

/* One dso path: its symbolizer module (user frames) or its text table (kernel, JIT frames), and
 * its counts. */
struct t2f_resym_mod {
	t2f_str_id path_id;
	char *path;
	size_t path_len;
	enum t2f_frame_kind kind;        /* USER, KERNEL or JIT */
	t2f_sym_module_id sym;           /* USER */
	struct t2f_text_syms *map;       /* JIT: the perf map, NULL when missing (owned) */
	char *map_path;                  /* JIT: where the map was looked for (NULL: the dso is not
					  * named like one) */
	int map_err;                     /* JIT: why the map there could not be read, or 0 */
	bool map_tried;                  /* JIT: the map was looked for (t2f_resym_mod_of) */
	bool listed;                     /* USER: its file listed for the search ahead */
	bool has_id;                     /* a build-id is known for it */
	bool by_path;                    /* none, but trusted by path: recorded here (trust_by) */
	bool vdso;                       /* [vdso]: named from a copy of the vdso image, never
					  * from kallsyms */
	bool own_vdso;                   /* [vdso]: map_path is a copy of this process's (removed
					  * when done) */
	bool newer;                      /* recorded here, but the file changed after it */
	bool has_segment;                /* nettrace: the trace gave the executable segment */
	uint64_t p_vaddr, p_offset;      /* (only with has_segment) */
	uint32_t no_id;                  /* frames not tried: no build-id to verify against */
	uint32_t no_map;                 /* frames not tried: an absolute ip (one-line sample)
					  * outside every mapping of its process */
	uint32_t resolved;
	uint32_t miss[T2F_MISS_COUNT];
	uint32_t moved;                  /* KERNEL: refused by the kernel's placement
					  * (symbolizer/kernel_place.h) */
	uint32_t placed;                 /* named frames placed for their inlined functions */
};

/* A frame's place in its module's ELF space (t2f_resym__place). */
struct t2f_resym_place {
	uint64_t elf_vaddr;
	t2f_sym_module_id mod;
	bool found;
};

struct t2f_resym {
	struct t2f_symbolizer *sym;
	struct t2f_diag *d;
	struct t2f_text_syms *kallsyms;  /* --kallsyms, or NULL; during t2f_resym__run only */
	const struct t2f_resym_opts *ks_opts; /* a lazy kallsyms file not read yet, or NULL */
	const struct t2f_resym_opts *ks_whole; /* the options to read the kallsyms file whole with
					  * (a kept table is partial), during t2f_resym__run */
	const char *kallsyms_path;
	const char *kref;                /* t2f_resym_opts.kernel_ref, _addr, kernel_refs_differ */
	uint64_t kref_addr;
	bool krefs_differ;
	bool kplace_set;                 /* kplace set from the kallsyms table (its first use) */
	struct t2f_kernel_place kplace;
	const char *perf_map_dir;        /* --perf-map-dir, or NULL */
	struct t2f_resym_mod *mods;
	size_t n_mods, cap_mods;
	struct t2f_hashmap *mod_index;   /* a module's path_id → 1 + its index in mods */
	struct t2f_hashmap *exec_index;  /* a path's string id → 1 + the index of its first
					  * executable module map (perf inputs) */
	struct t2f_resym_ids *ids;       /* build-ids per path */
	bool unsafe;
	int64_t trust_by;                /* t2f_resym_opts.trust_by */
	bool nettrace;                   /* name frames FILE!function / FILE!0xADDR */
	struct t2f_buf name;             /* nettrace names are built here */
	uint32_t tried, unresolved;      /* frames looked up, and those of them left unnamed */
	struct t2f_resym_place *places;  /* per frame id: where it is, when found */
	uint32_t n_places;               /* frame ids 0..n_places - 1 */
	uint32_t *mod_at;                /* per frame id: 1 + its module's index in mods when it
					  * is to be named (t2f_resym_wanted), else 0; as the
					  * frames were before the passes (t2f_resym_ahead) */
	uint32_t *lefts;                 /* per frame id: the addresses it was made without
					  * (t2f_frame.addr_left), or NULL when none was */
	const t2f_frame_id *frame_as;    /* t2f_resym_opts.frame_as, n_frame_as */
	size_t n_frame_as;
	struct t2f_resym_likes *likes;   /* with frame_as: the answers others take, or NULL */
	unsigned threads;                /* t2f_resym_opts.threads */
	struct t2f_bg *saving;           /* writes the symbol cache on a thread of its own from
					  * t2f_resym__save on, or NULL (t2f_resym_saved) */
	uint64_t save_ns;                /* how long that took (--stats) */
};

/* Waits until the symbol cache's files are written (t2f_resym__save): every use of r->sym after
 * the save comes after it. NULL is fine. */
void t2f_resym_saved(const struct t2f_resym *r);

#endif
