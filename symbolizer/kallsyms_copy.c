/* symbolizer/kallsyms_copy.c: perf's copy of /proc/kallsyms standing in for it
 * (kallsyms_copy.h). */
#include "symbolizer/kallsyms_copy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/side_file.h"
#include "symbolizer/text_syms_cache.h"

#define KC_PREFIX_MAX ((size_t)256 << 10) /* where the first text symbol must be by */

bool t2f_kallsyms__running_id(char hex[41])
{
	unsigned char buf[4096];
	FILE *f = fopen("/sys/kernel/notes", "rb");
	size_t n = f ? fread(buf, 1, sizeof(buf), f) : 0;

	if (f)
		fclose(f);
	for (size_t at = 0; at + 12 <= n;) { /* notes: namesz, descsz, type, name, descriptor */
		uint32_t nh[3];
		size_t name, desc;

		memcpy(nh, buf + at, sizeof(nh));
		name = (nh[0] + 3u) & ~3u;
		desc = (nh[1] + 3u) & ~3u;
		if (name > n || desc > n || at + 12 + name + desc > n)
			return false;
		if (nh[2] == 3 && nh[0] == 4 && memcmp(buf + at + 12, "GNU", 4) == 0 &&
		    nh[1] > 0 && nh[1] <= 20) {
			for (uint32_t k = 0; k < nh[1]; k++)
				snprintf(hex + 2 * k, 3, "%02x", buf[at + 12 + name + k]);
			return true;
		}
		at += 12 + name + desc;
	}
	return false;
}

char *t2f_kallsyms__perf_copy(const char *hex, struct stat *st)
{
	const char *home = getenv("HOME");
	char *path = NULL;

	if (!home || !*home ||
	    asprintf(&path, "%s/.debug/[kernel.kallsyms]/%s/kallsyms", home, hex) < 0)
		return NULL;
	if (stat(path, st) == 0)
		return path;
	free(path);
	return NULL;
}

/* perf's copy for the running kernel, when there is one (a regular file): malloc'd, or NULL. */
static char *kc_copy_path(void)
{
	char hex[41] = "", *path;
	struct stat st;

	if (!t2f_kallsyms__running_id(hex) || !(path = t2f_kallsyms__perf_copy(hex, &st)))
		return NULL;
	if (S_ISREG(st.st_mode))
		return path;
	free(path);
	return NULL;
}

/* Whether the kernel loads no module now: /proc/modules absent (no module support) or empty. */
static bool kc_no_modules(void)
{
	char *text = NULL;
	size_t len = 0;
	int err = t2f_side_file__read("/proc/modules", 1, &text, &len);

	free(text);
	return err == -ENOENT || (!err && len == 0);
}

/* The length of buf[0, n)'s lines through the first whose type is a text symbol's
 * ("ADDRESS t NAME"), or 0 when none ends in it. */
static size_t kc_first_text(const char *buf, size_t n)
{
	for (size_t at = 0; at < n;) {
		const char *nl = memchr(buf + at, '\n', n - at);
		const char *sp = nl ? memchr(buf + at, ' ', (size_t)(nl - buf) - at) : NULL;

		if (!nl)
			return 0;
		if (sp && nl - sp > 2 && sp[2] == ' ' && sp[1] && strchr("tTwW", sp[1]))
			return (size_t)(nl - buf) + 1;
		at = (size_t)(nl - buf) + 1;
	}
	return 0;
}

/* Reads fd's first bytes into buf (size) until the first text symbol's line is in: its end,
 * or 0 (none by size, or a read failed). */
static size_t kc_head(int fd, char *buf, size_t size)
{
	size_t n = 0, end = 0;

	while (n < size && !end) {
		ssize_t got = read(fd, buf + n, size - n < 65536 ? size - n : 65536);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return 0;
		n += (size_t)got;
		end = kc_first_text(buf, n);
	}
	return end;
}

/* Whether copy's first bytes, through the first text symbol's line, are proc's. */
static bool kc_same_head(const char *proc, const char *copy)
{
	char *a = malloc(KC_PREFIX_MAX), *b = malloc(KC_PREFIX_MAX);
	int fa = open(proc, O_RDONLY | O_CLOEXEC), fb = open(copy, O_RDONLY | O_CLOEXEC);
	size_t na = a && fa >= 0 ? kc_head(fa, a, KC_PREFIX_MAX) : 0;
	size_t nb = b && fb >= 0 && na ? kc_head(fb, b, KC_PREFIX_MAX) : 0;
	bool same = na && na == nb && memcmp(a, b, na) == 0;

	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
	free(a);
	free(b);
	return same;
}

/* The copy's partial table when it stands in for proc: 0 and *out, or 0 and *out NULL, or
 * -ENOMEM. */
static int kc_load_copy(const char *proc, struct t2f_text_syms **out)
{
	struct t2f_text_syms_key before, after;
	struct t2f_diag *quiet = NULL;
	char *copy = NULL;
	int err = 0;

	*out = NULL;
	if (!kc_no_modules() || !(copy = kc_copy_path()) || !kc_same_head(proc, copy)) {
		free(copy);
		return 0;
	}
	t2f_text_syms__key(copy, &before);
	err = t2f_diag__new_buffered(&quiet) ?:
	      t2f_text_syms__load(T2F_TEXT_SYMS_KALLSYMS, copy, quiet, out);
	t2f_text_syms__key(copy, &after);
	if (!err && (t2f_text_syms__bad_lines(*out) || !before.keep ||
		     memcmp(&before, &after, sizeof(before)) != 0)) {
		t2f_text_syms__free(*out); /* a bad line, or written again meanwhile */
		*out = NULL;
	}
	err = err == -ENOMEM ? err : 0; /* a copy that cannot be read is no copy */
	if (!err && *out)
		err = t2f_text_syms__keep_stable(*out);
	if (err) {
		t2f_text_syms__free(*out);
		*out = NULL;
	}
	t2f_diag__free(quiet);
	free(copy);
	return err;
}

int t2f_kallsyms__load(const char *path, bool copy_ok, struct t2f_diag *d,
		       struct t2f_text_syms **out)
{
	*out = NULL;
	if (copy_ok && strcmp(path, T2F_PROC_KALLSYMS) == 0) {
		int err = kc_load_copy(path, out);

		if (err || *out)
			return err;
	}
	return t2f_text_syms__load(T2F_TEXT_SYMS_KALLSYMS, path, d, out);
}
