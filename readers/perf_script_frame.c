/* readers/perf_script_frame.c: call-chain frame lines of `perf script`.
 *
 * Real frame lines this handles (docs/perf-script.md):
 *   \tffffffff81357676 copy_process+0xe06 ([kernel.kallsyms])
 *   \t    55a56b65cf00 [unknown] ([unknown])
 *   \t            a800 (/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2)      address + dso only
 *   \t           27304 __libc_start_main_impl+0x84 (inlined)
 *   \t    7f1e2215d058 sym (/memfd:sealed-91173221a7ea (deleted))             nested parentheses
 *   \t            1234 app::run                                               no dso (-F ip,sym)
 * The dso is the balanced parenthesised group that ends the line and starts the text or follows a
 * blank, found from the right, so symbols with parentheses ("f(int) (dso)") stay whole.
 */
#include "readers/perf_script_parse.h"

#include <string.h>

#include "formats/sym_version.h"
#include "readers/perf_script_maps.h"

/* Start of the "(...)" group that closes s[0..len) (s[len-1] == ')'), or len when unbalanced.
 * Mostly a group with no parenthesis inside: the last '(' then opens it. */
static size_t open_paren(const char *s, size_t len)
{
	const char *last = memrchr(s, '(', len - 1);
	int depth = 0;

	if (!last)
		return len;
	if (!memchr(last + 1, ')', (size_t)(s + len - 1 - (last + 1))))
		return (size_t)(last - s);
	for (size_t i = len; i-- > 0;) {
		if (s[i] == ')') {
			depth++;
		} else if (s[i] == '(' && --depth == 0) {
			return i;
		}
	}
	return len;
}

/* "sym+0x1f" → "sym" when everything after the last "+0x" is hex. */
static struct ps_span strip_offset(const char *s, size_t len)
{
	for (const char *p = memrchr(s, '+', len); p; p = memrchr(s, '+', (size_t)(p - s))) {
		size_t i = (size_t)(p - s), j = i + 3;

		if (len - i <= 3 || s[i + 1] != '0' || s[i + 2] != 'x')
			continue;
		while (j < len && is_hex(s[j]))
			j++;
		return (struct ps_span){ s, j == len ? i : len };
	}
	return (struct ps_span){ s, len };
}

bool ps_parse_frame(const char *s, size_t len, struct ps_frame *f)
{
	size_t i = skip_blanks(s, len, 0), end = len, open;
	const char *r;

	*f = (struct ps_frame){ 0 };
	if (!take_hex(s, len, &i, &f->addr) || (i < len && s[i] != ' ' && s[i] != '\t'))
		return false;
	i = skip_blanks(s, len, i);
	while (end > i && (s[end - 1] == ' ' || s[end - 1] == '\t'))
		end--;
	r = s + i;
	len = end - i;
	if (len && r[len - 1] == ')' && (open = open_paren(r, len)) < len &&
	    (open == 0 || r[open - 1] == ' ')) {
		f->dso = (struct ps_span){ r + open + 1, len - open - 2 };
		f->inlined = f->dso.len == 7 && memcmp(f->dso.p, "inlined", 7) == 0;
		if (f->inlined)
			f->dso.len = 0;
		len = open;
		while (len && r[len - 1] == ' ')
			len--;
	}
	f->sym = strip_offset(r, len);
	return true;
}

enum t2f_frame_kind ps_frame_kind(const struct ps_frame *f)
{
	return f->inlined ? T2F_FRAME_INLINED : ps_dso_kind(f->dso.p, f->dso.len);
}

/* The length of a frame's name without the symbol version perf printed with it
 * ("cfree@GLIBC_2.2.5": formats/sym_version.h), when the name is an ELF symbol's: not a JIT
 * frame's, which a perf map names with any text, nor one of the dso [unknown]. A frame printed
 * without its dso (-F ip,sym) is taken for an ELF file's, as its kind is. */
size_t ps_frame_name_len(const struct ps_frame *pf, enum t2f_frame_kind kind)
{
	bool elf = kind != T2F_FRAME_JIT &&
		   !(pf->dso.len == 9 && memcmp(pf->dso.p, "[unknown]", 9) == 0);

	return elf ? t2f_sym_version_cut(pf->sym.p, pf->sym.len) : pf->sym.len;
}

/* Whether s[0..len) is a call-chain line `ADDR [unknown] ([unknown])` that ps_parse_frame takes
 * (1 to 16 hex digits, one blank): half the lines a whole-machine recording's segment meets for
 * the first time, each with an address of its own. Their frame depends on the address only when
 * it keeps it; otherwise it is one frame, found without parsing or caching the line. */
bool ps_unknown_line(const char *s, size_t len)
{
	static const char tail[] = " [unknown] ([unknown])";
	size_t n = sizeof(tail) - 1, i = 0;

	if (len <= n || len - n > 16 || memcmp(s + len - n, tail, n) != 0)
		return false;
	while (i < len - n && is_hex(s[i]))
		i++;
	return i == len - n;
}
