/* readers/nettrace_clr.h: the .NET runtime's events in a nettrace (internal to readers/).
 *
 * The runtime writes its own events with "minimum metadata" (no field list), so their payloads
 * are decoded here from the fixed payload layouts of the runtime's event manifest
 * (ClrEtwAll.man, as PerfView's ClrTraceEventParser reads them), by provider and
 * event id:
 *   Microsoft-DotNETCore-SampleProfiler      0         sample: u32 type
 *   Microsoft-Windows-DotNETRuntime          143/144   MethodLoadVerbose / MethodUnloadVerbose
 *                                            152/153   ModuleLoad / ModuleUnload
 *   Microsoft-Windows-DotNETRuntimeRundown   143/144   MethodDCStartVerbose / MethodDCEndVerbose
 *                                            153/154   ModuleDCStart / ModuleDCEnd
 * (runtime 154 is AssemblyLoad and rundown 152 DomainModuleDCEnd: other layouts, not modules.)
 * Every version (0, 1, 2) starts with the same fields; later versions only append.
 *
 * nt_names collects methods (address ranges) and modules while the file is read, then names an
 * address: "Module!Namespace.Type.Method(signature)", "?!…" when the method's module is unknown,
 * "Module!0xADDR" for a method without a name, "?!0xADDR" for an address in no method.
 * Memory: one entry per method and module event (names in an arena). Not thread safe.
 */
#ifndef T2F_NETTRACE_CLR_H
#define T2F_NETTRACE_CLR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/buf.h"
#include "readers/nettrace_parse.h"

enum nt_clr_event {
	NT_CLR_OTHER = 0,  /* anything else: ignored */
	NT_CLR_SAMPLE,     /* SampleProfiler 0 */
	NT_CLR_METHOD,     /* a *Verbose method load/unload/rundown */
	NT_CLR_MODULE,     /* a module load/unload/rundown */
};

/* What an event is, from its metadata (NULL: other). */
enum nt_clr_event nt_clr_classify(const struct nt_meta *m);

/* A UTF-16LE string inside a payload, without its terminating NUL. */
struct nt_utf16 {
	const uint8_t *p;
	size_t units;
};

struct nt_clr_method {
	uint64_t method_id, module_id, start;
	uint32_t size, token, flags;
	struct nt_utf16 ns, name, sig;    /* MethodNamespace (the full type name), MethodName,
					   * MethodSignature */
};

struct nt_clr_module {
	uint64_t module_id, assembly_id;
	uint32_t flags;
	struct nt_utf16 il_path, native_path;
};

/* Payload decoders: true when the payload holds the fields (strings NUL-terminated inside it);
 * the result points into the payload. */
bool nt_clr_sample_decode(const uint8_t *p, size_t len, uint32_t *type);
bool nt_clr_method_decode(const uint8_t *p, size_t len, struct nt_clr_method *m);
bool nt_clr_module_decode(const uint8_t *p, size_t len, struct nt_clr_module *m);

#define NT_SAMPLE_EXTERNAL 1u /* the thread was outside managed code */
#define NT_SAMPLE_MANAGED 2u

/* Appends s to b as UTF-8 (an unpaired surrogate becomes U+FFFD). 0 or -ENOMEM. */
int nt_utf16_append(struct t2f_buf *b, struct nt_utf16 s);

/* ---- names ---- */

enum nt_name_kind {
	NT_NAME_METHOD = 0,   /* a method's name (its module possibly "?") */
	NT_NAME_MODULE,       /* "Module!0xADDR": a method without a name */
	NT_NAME_UNKNOWN,      /* "?!0xADDR" */
};

struct nt_names;

int nt_names__new(struct nt_names **out); /* 0 or -ENOMEM */
void nt_names__free(struct nt_names *n);  /* NULL is fine */
/* Records a method's range [start, start + size) (size 0: ignored) and a module's name (its
 * ModuleILPath's file name without extension, else the native path's; the first one recorded
 * for an id is kept). 0 or -ENOMEM. */
int nt_names__add_method(struct nt_names *n, const struct nt_clr_method *m);
int nt_names__add_module(struct nt_names *n, const struct nt_clr_module *m);
/* Call once every method and module is recorded, before __format. 0 or -ENOMEM. */
int nt_names__seal(struct nt_names *n);
/* Replaces b's contents with the name of managed address ip (not NUL-terminated). When ranges
 * overlap, the method recorded last wins. 0 or -ENOMEM. */
int nt_names__format(const struct nt_names *n, uint64_t ip, struct t2f_buf *b,
		     enum nt_name_kind *kind);
size_t nt_names__methods(const struct nt_names *n);
size_t nt_names__modules(const struct nt_names *n);

#endif
