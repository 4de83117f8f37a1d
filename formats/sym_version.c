/* formats/sym_version.c: a symbol version at the end of a name (sym_version.h). */
#include "formats/sym_version.h"

#include <stdbool.h>
#include <string.h>

static bool ver_first(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static bool ver_rest(char c)
{
	return ver_first(c) || (c >= '0' && c <= '9') || c == '.';
}

size_t t2f_sym_version_cut(const char *name, size_t len)
{
	size_t ver = len; /* where the version starts, after its '@' */

	if (!memchr(name, '@', len)) /* most names: scanned at memchr's pace */
		return len;
	while (ver > 0 && name[ver - 1] != '@') {
		if (!ver_rest(name[ver - 1]))
			return len;
		ver--;
	}
	if (ver < 2 || ver == len || !ver_first(name[ver]) ||
	    (len - ver == 3 && memcmp(name + ver, "plt", 3) == 0))
		return len;
	if (name[ver - 2] == '@') /* "@@": the default version */
		return ver > 2 ? ver - 2 : len;
	return ver - 1;
}
