/* readers/nettrace_clr.c: which runtime event a row is, and its payload's fields
 * (nettrace_clr.h; the payload layouts of the runtime's event manifest, ClrEtwAll.man,
 * as PerfView's ClrTraceEventParser reads them).
 */
#include "readers/nettrace_clr.h"

#include <errno.h>
#include <string.h>

#define PROVIDER_SAMPLER "Microsoft-DotNETCore-SampleProfiler"
#define PROVIDER_RUNTIME "Microsoft-Windows-DotNETRuntime"
#define PROVIDER_RUNDOWN "Microsoft-Windows-DotNETRuntimeRundown"

enum nt_clr_event nt_clr_classify(const struct nt_meta *m)
{
	if (!m || !m->provider)
		return NT_CLR_OTHER;
	if (strcmp(m->provider, PROVIDER_SAMPLER) == 0)
		return m->event_id == 0 ? NT_CLR_SAMPLE : NT_CLR_OTHER;
	if (strcmp(m->provider, PROVIDER_RUNTIME) == 0) {
		if (m->event_id == 143 || m->event_id == 144)
			return NT_CLR_METHOD;
		if (m->event_id == 152 || m->event_id == 153) /* 154 is AssemblyLoad */
			return NT_CLR_MODULE;
		return NT_CLR_OTHER;
	}
	if (strcmp(m->provider, PROVIDER_RUNDOWN) == 0) {
		if (m->event_id == 143 || m->event_id == 144)
			return NT_CLR_METHOD;
		if (m->event_id == 153 || m->event_id == 154) /* 152 is DomainModuleDCEnd */
			return NT_CLR_MODULE;
	}
	return NT_CLR_OTHER;
}

static uint32_t get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get_u64(const uint8_t *p)
{
	return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

/* A NUL-terminated UTF-16LE string at p[*off..len): true and *off past its NUL, or false when
 * the payload ends first. */
static bool get_utf16z(const uint8_t *p, size_t len, size_t *off, struct nt_utf16 *s)
{
	size_t i = *off;

	while (i + 2 <= len) {
		if (p[i] == 0 && p[i + 1] == 0) {
			s->p = p + *off;
			s->units = (i - *off) / 2;
			*off = i + 2;
			return true;
		}
		i += 2;
	}
	return false;
}

/* u32 Type */
bool nt_clr_sample_decode(const uint8_t *p, size_t len, uint32_t *type)
{
	if (len < 4)
		return false;
	*type = get_u32(p);
	return true;
}

/* u64 MethodID, u64 ModuleID, u64 MethodStartAddress, u32 MethodSize, u32 MethodToken,
 * u32 MethodFlags, UTF-16z MethodNamespace, UTF-16z MethodName, UTF-16z MethodSignature
 * [, u16 ClrInstanceID [, u64 ReJITID]] */
bool nt_clr_method_decode(const uint8_t *p, size_t len, struct nt_clr_method *m)
{
	size_t off = 36;

	if (len < off)
		return false;
	m->method_id = get_u64(p);
	m->module_id = get_u64(p + 8);
	m->start = get_u64(p + 16);
	m->size = get_u32(p + 24);
	m->token = get_u32(p + 28);
	m->flags = get_u32(p + 32);
	return get_utf16z(p, len, &off, &m->ns) && get_utf16z(p, len, &off, &m->name) &&
	       get_utf16z(p, len, &off, &m->sig);
}

/* u64 ModuleID, u64 AssemblyID, u32 ModuleFlags, u32 Reserved1, UTF-16z ModuleILPath,
 * UTF-16z ModuleNativePath [, u16 ClrInstanceID [, PDB signatures]] */
bool nt_clr_module_decode(const uint8_t *p, size_t len, struct nt_clr_module *m)
{
	size_t off = 24;

	if (len < off)
		return false;
	m->module_id = get_u64(p);
	m->assembly_id = get_u64(p + 8);
	m->flags = get_u32(p + 16);
	return get_utf16z(p, len, &off, &m->il_path) && get_utf16z(p, len, &off, &m->native_path);
}

static size_t put_utf8(uint32_t c, char *o)
{
	if (c < 0x80) {
		o[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		o[0] = (char)(0xc0 | c >> 6);
		o[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		o[0] = (char)(0xe0 | c >> 12);
		o[1] = (char)(0x80 | (c >> 6 & 0x3f));
		o[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | c >> 18);
	o[1] = (char)(0x80 | (c >> 12 & 0x3f));
	o[2] = (char)(0x80 | (c >> 6 & 0x3f));
	o[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

int nt_utf16_append(struct t2f_buf *b, struct nt_utf16 s)
{
	size_t i = 0;

	if (s.units > (SIZE_MAX - b->len) / 3 || t2f_buf__reserve(b, s.units * 3))
		return -ENOMEM; /* a unit is at most 3 bytes (a pair: 4 bytes for 2 units) */
	while (i < s.units) {
		uint32_t c = (uint32_t)s.p[2 * i] | (uint32_t)s.p[2 * i + 1] << 8;

		i++;
		if (c >= 0xd800 && c < 0xdc00 && i < s.units) {
			uint32_t lo = (uint32_t)s.p[2 * i] | (uint32_t)s.p[2 * i + 1] << 8;

			if (lo >= 0xdc00 && lo < 0xe000) {
				c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
				i++;
			}
		}
		if (c >= 0xd800 && c < 0xe000)
			c = 0xfffd;
		b->len += put_utf8(c, b->p + b->len);
	}
	return 0;
}
