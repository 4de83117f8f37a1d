/* pipeline/resym_ids.h: the build-ids the resolve stage knows per module path, and where it
 * learnt them: the trace's module maps (PERF_RECORD_MMAP2 with --buildid-mmap; nettrace mapping
 * metadata, with the executable segment when the trace gave it), then a --buildids file
 * (`perf buildid-list` lines, "<hex> <path>"). A path named more than once keeps its first
 * build-id, in that order. A build-id that is not an even number of hex digits (2 to 128) is
 * skipped with a warning naming the mapped path, or the file and line (the id itself is not
 * printed: it is untrusted text).
 *
 * Lookups by path are hashed: a trace naming 100,000 modules costs as many lookups, not their
 * square.
 *
 * Errors: 0, -ENOMEM, -errno when the --buildids file cannot be read, -T2F_ERR_LIMIT when it is
 * larger than 64 MiB (recorded in the diag), -T2F_ERR_FORMAT (strict) for a line skipped.
 * Ownership: the table copies what it keeps; entries stay valid until it is freed. Not thread
 * safe.
 */
#ifndef T2F_RESYM_IDS_H
#define T2F_RESYM_IDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/diag.h"
#include "formats/profile.h"
#include "symbolizer/elf_module.h"

/* A build-id known for a path. */
struct t2f_resym_id {
	char *path;
	uint8_t id[T2F_BUILD_ID_MAX];
	size_t len;
	bool has_segment;                /* from a module map that carries the segment */
	uint64_t p_vaddr, p_offset;
};

struct t2f_resym_ids;

int t2f_resym_ids__new(struct t2f_resym_ids **out);         /* 0 or -ENOMEM */
void t2f_resym_ids__free(struct t2f_resym_ids *ids);        /* NULL is fine */
/* The build-ids of p's module maps (the diag warned of the bad ones). */
int t2f_resym_ids__add_maps(struct t2f_resym_ids *ids, const struct t2f_profile *p,
			    struct t2f_diag *d);
/* A --buildids file: a regular file (formats/side_file.h) of 64 MiB at most. */
int t2f_resym_ids__read(struct t2f_resym_ids *ids, const char *file, struct t2f_diag *d);
/* Why a build-id text cannot be used (an even number of hex digits, 2 to 128), or NULL: the
 * module maps whose build-id has one are skipped. */
const char *t2f_resym_ids__problem(const char *hex);
/* The first build-id known for path, or NULL. */
const struct t2f_resym_id *t2f_resym_ids__find(const struct t2f_resym_ids *ids, const char *path);

#endif
