/* pipeline/sniff.c: what an input that is no trace looks like (sniff.h). */
#include "pipeline/sniff.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "formats/utf8.h"

#define SNIFF_WINDOW 4096 /* bytes of the head looked at for a word ("<svg", "speedscope") */

static bool sniff_has(const char *head, size_t len, const char *word)
{
	return memmem(head, len < SNIFF_WINDOW ? len : SNIFF_WINDOW, word, strlen(word)) != NULL;
}

/* An ELF file, by its e_type. */
static void sniff_elf(const char *head, size_t len, const char *name, char *buf, size_t size)
{
	const unsigned char *h = (const unsigned char *)head;
	unsigned type = len < 18 ? 0 : h[5] == 2 ? (unsigned)h[16] << 8 | h[17]
						 : (unsigned)h[17] << 8 | h[16];
	char vis[T2F_VISIBLE_MAX];

	if (type == 2 || type == 3) /* ET_EXEC, ET_DYN: a program (or a library) */
		snprintf(buf, size, "an ELF %s, a program and not a recording of one: record it with "
			 "`perf record -g -- %s`, then convert the perf.data file that writes",
			 type == 2 ? "executable" : "executable or shared library",
			 t2f_utf8_visible(name, vis, sizeof(vis)));
	else
		snprintf(buf, size, "an ELF %s, not a recording", type == 4 ? "core dump" :
			 type == 1 ? "object file" : "file");
}

/* "plain text (its first line: "...")", the line cut at 60 bytes. */
static void sniff_text(const char *head, size_t len, char *buf, size_t size)
{
	const char *nl = memchr(head, '\n', len);
	size_t n = nl ? (size_t)(nl - head) : len;
	char line[64], vis[256];

	if (n > 60)
		n = 60;
	memcpy(line, head, n);
	line[n] = '\0';
	snprintf(buf, size, "plain text (its first line: \"%s%s\")",
		 t2f_utf8_visible(line, vis, sizeof(vis)), n < (nl ? (size_t)(nl - head) : len) ?
		 "..." : "");
}

const char *t2f_sniff__describe(const char *head, size_t len, enum t2f_input_kind kind,
				const char *name, char *buf, size_t size)
{
	const unsigned char *h = (const unsigned char *)head;
	size_t at = 0;

	if (len >= 4 && memcmp(head, "\177ELF", 4) == 0) {
		sniff_elf(head, len, name, buf, size);
		return buf;
	}
	/* a profile.proto message starts with its sample types: field 1, then a ValueType whose
	 * field 1 is a varint: 0a LEN 08 */
	if (kind == T2F_INPUT_GZIP && len >= 3 && h[0] == 0x0a && h[1] < 0x80 && h[2] == 0x08) {
		snprintf(buf, size, "gzip'd protobuf, but not a pprof profile trace2flame can read");
		return buf;
	}
	while (at < len && at < SNIFF_WINDOW && strchr(" \t\r\n", head[at]) && head[at])
		at++;
	if (at < len && (head[at] == '{' || head[at] == '[')) {
		snprintf(buf, size, "%s", sniff_has(head, len, "speedscope") ?
			 "speedscope JSON, which trace2flame writes but does not read" :
			 sniff_has(head, len, "\"traceEvents\"") || sniff_has(head, len, "\"ph\":") ?
			 "a Chrome trace (JSON), which trace2flame does not read" : "JSON");
		return buf;
	}
	if (at < len && head[at] == '<') {
		snprintf(buf, size, "%s", sniff_has(head, len, "<svg") ?
			 "an SVG image (a flame graph is an output, not an input)" :
			 sniff_has(head, len, "<html") || sniff_has(head, len, "<!DOCTYPE html") ?
			 "HTML" : "XML");
		return buf;
	}
	if (memchr(head, '\0', len < SNIFF_WINDOW ? len : SNIFF_WINDOW))
		snprintf(buf, size, "%sbinary data", kind == T2F_INPUT_GZIP ? "gzip'd " :
			 kind == T2F_INPUT_ZSTD ? "zstd-compressed " : "");
	else
		sniff_text(head + at, len - at, buf, size);
	return buf;
}
