/* readers/nettrace_uni_payload.c: Universal.System / Universal.Events payloads and the mapping
 * metadata JSON (nettrace_universal.h). */
#include "readers/nettrace_universal.h"

#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "readers/nettrace_internal.h"

#define SYSTEM_PROVIDER "Universal.System"
#define EVENTS_PROVIDER "Universal.Events"

enum nt_uni_event nt_uni_classify(const struct nt_meta *m)
{
	static const enum nt_uni_event by_id[] = {
		NT_UNI_PROCESS, NT_UNI_PROCESS, NT_UNI_EXIT, NT_UNI_MAPPING, NT_UNI_SYMBOL,
		NT_UNI_METADATA,
	};

	if (!m || !m->provider)
		return NT_UNI_OTHER;
	if (strcmp(m->provider, SYSTEM_PROVIDER) == 0)
		return m->event_id < sizeof(by_id) / sizeof(by_id[0]) ? by_id[m->event_id]
								       : NT_UNI_OTHER;
	if (strcmp(m->provider, EVENTS_PROVIDER) != 0 || !m->event_name)
		return NT_UNI_OTHER;
	if (strcmp(m->event_name, "cpu") == 0)
		return NT_UNI_CPU;
	if (strcmp(m->event_name, "cswitch") == 0)
		return NT_UNI_CSWITCH;
	return NT_UNI_OTHER;
}

/* u16 LE byte length + UTF-8 bytes. */
static bool cur_sstr(struct nt_cur *c, struct nt_sstr *s)
{
	const uint8_t *b;
	uint16_t n;

	if (!cur_u16(c, &n) || !cur_bytes(c, n, &b))
		return false;
	s->p = (const char *)b;
	s->len = n;
	return true;
}

static struct nt_cur cur_of(const uint8_t *p, size_t len)
{
	return (struct nt_cur){ p, p + len };
}

/* ExistingProcess / ProcessCreate: varuint NamespaceId, sstr Name, sstr NamespaceName. */
bool nt_uni_process_decode(const uint8_t *p, size_t len, struct nt_uni_process *out)
{
	struct nt_cur c = cur_of(p, len);

	return cur_var64(&c, &out->ns_pid) && cur_sstr(&c, &out->name) &&
	       cur_sstr(&c, &out->ns_name);
}

/* ProcessMapping: varuint Id, Start, End, FileOffset, sstr FileName, varuint MetadataId; the
 * writer appends two more strings (not declared): ignored. */
bool nt_uni_mapping_decode(const uint8_t *p, size_t len, struct nt_uni_mapping *out)
{
	struct nt_cur c = cur_of(p, len);

	return cur_var64(&c, &out->id) && cur_var64(&c, &out->start) &&
	       cur_var64(&c, &out->end) && cur_var64(&c, &out->file_off) &&
	       cur_sstr(&c, &out->name) && cur_var64(&c, &out->meta_id);
}

/* ProcessSymbol: varuint Id, MappingId, Start, End, sstr Name. */
bool nt_uni_symbol_decode(const uint8_t *p, size_t len, struct nt_uni_symbol *out)
{
	struct nt_cur c = cur_of(p, len);

	return cur_var64(&c, &out->id) && cur_var64(&c, &out->mapping_id) &&
	       cur_var64(&c, &out->start) && cur_var64(&c, &out->end) && cur_sstr(&c, &out->name);
}

/* ProcessMappingMetadata: varuint Id, sstr SymbolMetadata, sstr VersionMetadata. */
bool nt_uni_metadata_decode(const uint8_t *p, size_t len, struct nt_uni_metadata *out)
{
	struct nt_cur c = cur_of(p, len);

	return cur_var64(&c, &out->id) && cur_sstr(&c, &out->symbol) &&
	       cur_sstr(&c, &out->version);
}

/* cpu / cswitch: varuint Value. */
bool nt_uni_value_decode(const uint8_t *p, size_t len, uint64_t *value)
{
	struct nt_cur c = cur_of(p, len);

	return cur_var64(&c, value);
}

/* ---- SymbolMetadata JSON ---- */

/* A JSON number (≥ 0, integral), a "0x..." hex string or a decimal string. */
static bool json_u64(struct json_object *v, uint64_t *out)
{
	const char *s;
	char *end;

	switch (json_object_get_type(v)) {
	case json_type_int:
		if (json_object_get_int64(v) < 0)
			return false;
		*out = json_object_get_uint64(v);
		return true;
	case json_type_double: {
		double d = json_object_get_double(v);

		if (!(d >= 0 && d < 18446744073709551616.0) || d != (double)(uint64_t)d)
			return false;
		*out = (uint64_t)d;
		return true;
	}
	case json_type_string: {
		const char *digits;
		int base = 10;

		s = json_object_get_string(v);
		if (!s)
			return false;
		digits = s;
		if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
			digits = s + 2;
			base = 16;
		}
		if (!isxdigit((unsigned char)digits[0])) /* empty, a sign, a space */
			return false;
		errno = 0;
		*out = strtoull(digits, &end, base);
		return errno == 0 && *end == '\0';
	}
	default:
		return false;
	}
}

/* Lowercase hex of at most NT_BUILD_ID_HEX_MAX digits, even length: true; else "" and false. */
static bool json_build_id(struct json_object *v, char *out)
{
	const char *s = json_object_get_type(v) == json_type_string ? json_object_get_string(v) : "";
	size_t n = strlen(s);

	out[0] = '\0';
	if (n == 0 || n % 2 || n > NT_BUILD_ID_HEX_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	for (size_t i = 0; i < n; i++)
		out[i] = (char)tolower((unsigned char)s[i]);
	out[n] = '\0';
	return true;
}

static void elf_meta_fields(struct json_object *root, struct nt_uni_elf_meta *out)
{
	bool has_vaddr = false, has_offset = false;

	json_object_object_foreach(root, key, v) {
		if (strcasecmp(key, "build_id") == 0)
			out->bad_build_id = !json_build_id(v, out->build_id);
		else if (strcasecmp(key, "p_vaddr") == 0)
			has_vaddr = json_u64(v, &out->p_vaddr);
		else if (strcasecmp(key, "p_offset") == 0)
			has_offset = json_u64(v, &out->p_offset);
	}
	out->has_segment = has_vaddr && has_offset;
	if (!out->has_segment)
		out->p_vaddr = out->p_offset = 0;
}

bool nt_uni_elf_meta_parse(const char *json, size_t len, struct nt_uni_elf_meta *out)
{
	struct json_tokener *tok;
	struct json_object *root = NULL;

	memset(out, 0, sizeof(*out));
	if (len == 0 || len > INT32_MAX)
		return false;
	tok = json_tokener_new();
	if (!tok)
		return false;
	root = json_tokener_parse_ex(tok, json, (int)len);
	if (root && json_tokener_get_error(tok) == json_tokener_success &&
	    json_object_is_type(root, json_type_object))
		elf_meta_fields(root, out);
	json_object_put(root);
	json_tokener_free(tok);
	return out->build_id[0] || out->has_segment;
}

/* ---- .NET perf-map names ---- */

/* "RET [MODULE] SIGNATURE[OPT]" (RET, MODULE, SIGNATURE, OPT non-empty; MODULE and OPT without
 * ']'; whitespace before '[' and after "]") → "MODULE!SIGNATURE[OPT]". */
bool nt_uni_jit_name(const char *s, size_t len, char *buf, size_t cap, size_t *out_len)
{
	size_t i, j = 0, mod, mod_end, sig, opt;

	for (i = 1; i < len; i++) { /* RET ends at the first whitespace run followed by '[' */
		if (!isspace((unsigned char)s[i]))
			continue;
		for (j = i; j < len && isspace((unsigned char)s[j]); j++)
			;
		if (j < len && s[j] == '[')
			break;
		i = j;
	}
	if (i >= len)
		return false;
	mod = j + 1;
	mod_end = mod;
	while (mod_end < len && s[mod_end] != ']')
		mod_end++;
	if (mod_end == mod || mod_end >= len)
		return false;
	sig = mod_end + 1;
	if (sig >= len || !isspace((unsigned char)s[sig]))
		return false;
	while (sig < len && isspace((unsigned char)s[sig]))
		sig++;
	if (len < 2 || s[len - 1] != ']')
		return false;
	opt = len - 1; /* OPT: the longest ']'-free run before the final ']' that starts after '[' */
	while (opt > sig && s[opt - 1] != ']')
		opt--;
	while (opt < len - 1 && s[opt] != '[')
		opt++;
	if (opt >= len - 2 || opt <= sig) /* no '[', an empty OPT or an empty SIGNATURE */
		return false;
	if ((mod_end - mod) + 1 + (len - sig) > cap)
		return false;
	memcpy(buf, s + mod, mod_end - mod);
	buf[mod_end - mod] = '!';
	memcpy(buf + (mod_end - mod) + 1, s + sig, len - sig);
	*out_len = (mod_end - mod) + 1 + (len - sig);
	return true;
}
