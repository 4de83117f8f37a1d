/* readers/nettrace_universal.h: universal (V6) traces, as one-collect's record-trace and
 * `dotnet-trace collect-linux` write them (internal to readers/; PerfView's UniversalProviders.md
 * and NetTraceFormat_v6.md).
 *
 * Events, by provider and event id (Universal.System) or event NAME (Universal.Events, whose ids
 * are not stable). Every integer is a varuint; "sstr" = u16 LE byte length + UTF-8:
 *   Universal.System 0 ExistingProcess, 1 ProcessCreate   varuint NamespaceId, sstr Name,
 *                                                          sstr NamespaceName
 *                    2 ProcessExit                         (empty)
 *                    3 ProcessMapping                      varuint Id, Start, End (inclusive),
 *                                                          FileOffset, sstr FileName, varuint
 *                                                          MetadataId (more bytes follow: ignored)
 *                    4 ProcessSymbol                       varuint Id, MappingId, Start, End,
 *                                                          sstr Name
 *                    5 ProcessMappingMetadata              varuint Id, sstr SymbolMetadata (JSON),
 *                                                          sstr VersionMetadata (JSON)
 *   Universal.Events "cpu", "cswitch"                      varuint Value, the stack leaf first
 * Payload strings are decoded here, never from the metadata's field types (one-collect declares
 * them as single UTF-8 code units).
 *
 * nt_uni keeps what samples need while the file is read: process names, every live process's
 * executable mappings (sorted by address), mapping metadata (build-id, executable segment),
 * ProcessSymbol ranges, and the frames it made. A stack becomes profile frames (root first):
 *   - an IP in a file mapping of its process: frame (module = the mapping's path, addr = the
 *     file offset = ip - start + FileOffset, has_addr, USER), shared by every process mapping
 *     the file; left unnamed here: pipeline/resymbolize names it through the ELF file;
 *   - an IP in an anonymous mapping ("", "[...]", "/memfd:...") or a kernel address (>=
 *     0xFFFF800000000000, a "vmlinux" mapping): JIT / KERNEL frame (addr = the ip, T2F_SPACE_ABS),
 *     named in __finish() from the smallest ProcessSymbol range of that mapping holding it
 *     ("Module!Signature[Opt]" for .NET perf-map names, else the name as is), else
 *     "NAME!0xADDR" (NAME = the mapping name's last component, "[anon]" when empty);
 *   - an IP in no mapping: "?!0xADDR".
 * Each file (path, build-id) also gets one profile module map, with the segment when the
 * metadata gives it and the trace's page size.
 *
 * Memory: per process, mapping and metadata record, per ProcessSymbol and per distinct frame;
 * a stack cache of fixed size. Nothing grows with the number of samples.
 * Ownership: nt_uni borrows the profile (it must outlive it). Not thread safe.
 */
#ifndef T2F_NETTRACE_UNIVERSAL_H
#define T2F_NETTRACE_UNIVERSAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/profile.h"
#include "readers/nettrace_parse.h"

#define NT_KERNEL_START 0xFFFF800000000000ull
#define NT_BUILD_ID_HEX_MAX 128  /* hex digits kept of a build-id (64 bytes) */

enum nt_uni_event {
	NT_UNI_OTHER = 0,
	NT_UNI_PROCESS,      /* ExistingProcess, ProcessCreate */
	NT_UNI_EXIT,         /* ProcessExit */
	NT_UNI_MAPPING,
	NT_UNI_SYMBOL,
	NT_UNI_METADATA,
	NT_UNI_CPU,          /* Universal.Events "cpu" */
	NT_UNI_CSWITCH,      /* Universal.Events "cswitch" */
};

/* What an event is, from its metadata (NULL: other). */
enum nt_uni_event nt_uni_classify(const struct nt_meta *m);

/* ---- payloads: true when the payload holds the fields; strings point into it ---- */

struct nt_sstr {
	const char *p;    /* not NUL-terminated */
	size_t len;
};

struct nt_uni_process {
	uint64_t ns_pid;
	struct nt_sstr name, ns_name;
};

struct nt_uni_mapping {
	uint64_t id, start, end, file_off, meta_id;  /* end inclusive */
	struct nt_sstr name;
};

struct nt_uni_symbol {
	uint64_t id, mapping_id, start, end;  /* end inclusive */
	struct nt_sstr name;
};

struct nt_uni_metadata {
	uint64_t id;
	struct nt_sstr symbol, version;
};

bool nt_uni_process_decode(const uint8_t *p, size_t len, struct nt_uni_process *out);
bool nt_uni_mapping_decode(const uint8_t *p, size_t len, struct nt_uni_mapping *out);
bool nt_uni_symbol_decode(const uint8_t *p, size_t len, struct nt_uni_symbol *out);
bool nt_uni_metadata_decode(const uint8_t *p, size_t len, struct nt_uni_metadata *out);
bool nt_uni_value_decode(const uint8_t *p, size_t len, uint64_t *value);

/* SymbolMetadata JSON of an ELF file:
 *   {"type": "ELF", "debug_link": "...", "build_id": "<hex>", "p_vaddr": N, "p_offset": N}
 * Keys are matched without regard to case; p_vaddr / p_offset may be JSON numbers, "0x..." hex
 * strings or decimal strings. build_id: lowercase hex ("" when absent or not hex);
 * has_segment when both p_vaddr and p_offset are there and valid. "{}", other types and
 * unparsable text give an empty result (false). */
struct nt_uni_elf_meta {
	char build_id[NT_BUILD_ID_HEX_MAX + 1];
	bool bad_build_id;           /* a build_id key whose value is not hex of an even length */
	bool has_segment;
	uint64_t p_vaddr, p_offset;
};
bool nt_uni_elf_meta_parse(const char *json, size_t len, struct nt_uni_elf_meta *out);

/* .NET perf-map name "RET [MODULE] SIGNATURE[OPT]" → "MODULE!SIGNATURE[OPT]" in buf (size
 * cap): true; false (buf untouched) when the name has another shape. */
bool nt_uni_jit_name(const char *name, size_t len, char *buf, size_t cap, size_t *out_len);

/* ---- the state ---- */

struct nt_uni;

/* input: the index of the input, given to its module maps. 0 or -ENOMEM. */
int nt_uni__new(struct t2f_profile *p, uint32_t input, struct nt_uni **out);
void nt_uni__free(struct nt_uni *u);                            /* NULL is fine */
/* The trace's SystemPageSize (0 unknown), recorded in module maps. */
void nt_uni__set_page_size(struct nt_uni *u, uint64_t page_size);

/* Universal.System events of process pid (the row's). 0, -ENOMEM, 1 when the payload is too
 * short for its fields (the event is ignored; the caller warns), or NT_UNI_BAD_BUILD_ID when a
 * metadata record's build_id is not an even number of hex digits (2 to NT_BUILD_ID_HEX_MAX): the
 * record is kept without a build-id (its module's frames cannot be verified; the caller warns). */
#define NT_UNI_BAD_BUILD_ID 2
int nt_uni__system(struct nt_uni *u, enum nt_uni_event kind, int64_t pid, const uint8_t *payload,
		   size_t len);
/* The stack node of ips (leaf first) in process pid. 0 or -ENOMEM / -T2F_ERR_LIMIT. */
int nt_uni__stack(struct nt_uni *u, int64_t pid, const uint64_t *ips, uint32_t n,
		  t2f_node_id *out);
/* The name of process pid (0 when unknown). */
t2f_str_id nt_uni__process_name(const struct nt_uni *u, int64_t pid);
/* Names the JIT and kernel frames (ProcessSymbol may follow its use). 0 or -ENOMEM. */
int nt_uni__finish(struct nt_uni *u);

struct nt_uni_stats {
	uint64_t processes, mappings, symbols, metadata;  /* events decoded */
	uint64_t file_frames;      /* distinct frames in file mappings (named later) */
	uint64_t jit_named, jit_unnamed;  /* after __finish: JIT / kernel frames */
	uint64_t unmapped;         /* distinct frames in no mapping */
};
const struct nt_uni_stats *nt_uni__stats(const struct nt_uni *u);

#endif
