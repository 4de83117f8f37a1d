/* symbolizer/debug_find.c: the candidate places of debug_find.h, tried in order; each existing
 * candidate is opened, verified (build-id, CRC for debuglinks, symbols) and taken or refused.
 * Paths are built in PATH_MAX buffers on the stack; the only allocations are the opened modules
 * and the refused list (one entry per existing candidate, a few dozen at most). */
#include "symbolizer/debug_find.h"
#include "symbolizer/module_map.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SSQP_ID_BYTES 20 /* SSQP keys pad shorter build-ids with zero bytes to 20 */

static const char *const t2f_default_debug_dirs[] = { "/usr/lib/debug", NULL };

/* A candidate that failed verification but may still be used with --unsafe-build-id-match. */
struct fallback {
	struct t2f_elf_module *module;
	char *path;
	enum t2f_refusal_reason why;
	char found_id[2 * T2F_BUILD_ID_MAX + 1];
};

struct finder {
	const struct t2f_debug_find_opts *o;
	struct t2f_diag *d;
	const char *binary_path;
	struct t2f_elf_module *binary;   /* the binary at its recorded path, when it opened */
	int binary_err;                  /* why it did not open (0: it did, or it does not exist) */
	struct stat binary_st;
	bool fetched;           /* the servers were asked (once a search) */
	bool binary_exists;
	uint8_t ref_id[T2F_BUILD_ID_MAX];
	size_t ref_len;                  /* 0: no reference build-id */
	char ref_hex[2 * T2F_BUILD_ID_MAX + 1];
	struct fallback fb;              /* unsafe mode only */
	struct t2f_debug_result *out;
};

const char *t2f_refusal_name(enum t2f_refusal_reason why)
{
	switch (why) {
	case T2F_REFUSAL_BUILD_ID: return "build-id mismatch";
	case T2F_REFUSAL_CRC: return "debuglink CRC mismatch";
	case T2F_REFUSAL_NO_BUILD_ID: return "no build-id to verify against";
	case T2F_REFUSAL_NO_SYMBOLS: return "no symbols";
	case T2F_REFUSAL_UNREADABLE: return "not a readable ELF file";
	case T2F_REFUSAL_NOT_FILE: return "not a regular file";
	case T2F_REFUSAL_OVER_LIMIT: return "over the decompression limit";
	case T2F_REFUSAL_FILE_NO_BUILD_ID: return "no build-id in the file";
	}
	return "refused";
}

static int hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

bool t2f_build_id_parse(const char *hex, uint8_t *bytes, size_t max, size_t *len)
{
	size_t n = strlen(hex);

	if (n == 0 || n % 2 || n / 2 > max)
		return false;
	for (size_t i = 0; i < n / 2; i++) {
		int hi = hex_digit((unsigned char)hex[2 * i]);
		int lo = hex_digit((unsigned char)hex[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return false;
		bytes[i] = (uint8_t)(hi << 4 | lo);
	}
	*len = n / 2;
	return true;
}

void t2f_build_id_hex(const uint8_t *id, size_t len, char *out)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < len; i++) {
		out[2 * i] = digits[id[i] >> 4];
		out[2 * i + 1] = digits[id[i] & 15];
	}
	out[2 * len] = '\0';
}

int t2f_symbol_path_split(const char *env, char ***dirs)
{
	size_t len = env ? strlen(env) : 0, slots = 1, n = 0;
	char **v, *copy;

	for (size_t i = 0; i < len; i++)
		slots += env[i] == ':';
	if (slots > (SIZE_MAX - len - 1) / sizeof(char *) - 1)
		return -ENOMEM;
	v = malloc((slots + 1) * sizeof(char *) + len + 1);
	if (!v)
		return -ENOMEM;
	copy = (char *)(v + slots + 1);
	if (len)
		memcpy(copy, env, len);
	copy[len] = '\0';
	for (char *p = copy;;) {
		char *end = strchr(p, ':');

		if (end)
			*end = '\0';
		if (*p)
			v[n++] = p;
		if (!end)
			break;
		p = end + 1;
	}
	v[n] = NULL;
	*dirs = v;
	return (int)n;
}

int t2f_symbol_path_join(const char *const *dirs, const char *env, char ***env_dirs,
			 const char ***joined)
{
	size_t n = 0;
	int n_env = t2f_symbol_path_split(env, env_dirs);

	*joined = NULL;
	if (n_env < 0)
		return n_env;
	while (dirs && dirs[n])
		n++;
	*joined = calloc(n + (size_t)n_env + 1, sizeof(**joined));
	if (!*joined) {
		free(*env_dirs);
		*env_dirs = NULL;
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		(*joined)[i] = dirs[i];
	for (int i = 0; i < n_env; i++)
		(*joined)[n + (size_t)i] = (*env_dirs)[i];
	return 0;
}

/* snprintf into a PATH_MAX buffer; false when it does not fit. */
__attribute__((format(printf, 2, 3)))
static bool path_fmt(char *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, PATH_MAX, fmt, ap);
	va_end(ap);
	return n >= 0 && n < PATH_MAX;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* A recorded file name usable as one path component. */
static bool name_usable(const char *name)
{
	return *name && strcmp(name, ".") != 0 && strcmp(name, "..") != 0 && !strchr(name, '/');
}

static const char *home_dir(void)
{
	const char *home = getenv("HOME");
	struct passwd *pw;

	if (home && *home)
		return home;
	pw = getpwuid(getuid());
	return pw && pw->pw_dir && *pw->pw_dir ? pw->pw_dir : NULL;
}

/* The debuginfod client cache: option, $DEBUGINFOD_CACHE_PATH, $XDG_CACHE_HOME/debuginfod_client,
 * ~/.cache/debuginfod_client (elfutils' order, without its legacy ~/.debuginfod_client_cache). */
static bool debuginfod_cache(const struct t2f_debug_find_opts *o, char *buf)
{
	const char *env = getenv("DEBUGINFOD_CACHE_PATH"), *home;

	if (o->debuginfod_cache)
		return path_fmt(buf, "%s", o->debuginfod_cache);
	if (env && *env)
		return path_fmt(buf, "%s", env);
	env = getenv("XDG_CACHE_HOME");
	if (env && *env)
		return path_fmt(buf, "%s/debuginfod_client", env);
	home = home_dir();
	return home && path_fmt(buf, "%s/.cache/debuginfod_client", home);
}

/* perf's build-id cache: option, $PERF_BUILDID_DIR, ~/.debug (perf's own order). */
static bool perf_cache(const struct t2f_debug_find_opts *o, char *buf)
{
	const char *env = getenv("PERF_BUILDID_DIR"), *home;

	if (o->perf_cache)
		return path_fmt(buf, "%s", o->perf_cache);
	if (env && *env)
		return path_fmt(buf, "%s", env);
	home = home_dir();
	return home && path_fmt(buf, "%s/.debug", home);
}

static bool refused_already(const struct t2f_debug_result *r, const char *path)
{
	for (size_t i = 0; i < r->n_refused; i++)
		if (strcmp(r->refused[i].path, path) == 0)
			return true;
	return false;
}

static int refuse(struct finder *f, const char *path, enum t2f_refusal_reason why, const char *found_hex)
{
	struct t2f_debug_result *r = f->out;
	struct t2f_debug_refused *v, *e;

	v = realloc(r->refused, (r->n_refused + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	r->refused = v;
	e = &v[r->n_refused];
	e->path = strdup(path);
	if (!e->path)
		return -ENOMEM;
	e->why = why;
	snprintf(e->found_id, sizeof(e->found_id), "%s", found_hex);
	r->n_refused++;
	return 0;
}

static void module_hex(const struct t2f_elf_module *m, char *hex)
{
	size_t len = 0;
	const uint8_t *id = t2f_elf_module__build_id(m, &len);

	if (!id || len > T2F_BUILD_ID_MAX)
		len = 0;
	t2f_build_id_hex(id, len, hex);
}

/* 0 when m is of the reference build, else why not: another build-id, or none. */
static enum t2f_refusal_reason id_matches(const struct finder *f, const struct t2f_elf_module *m)
{
	size_t len = 0;
	const uint8_t *id = t2f_elf_module__build_id(m, &len);

	if (!f->ref_len)
		return 0; /* unsafe mode without a reference: nothing to compare */
	if (!id || !len)
		return T2F_REFUSAL_FILE_NO_BUILD_ID;
	return len == f->ref_len && memcmp(id, f->ref_id, len) == 0 ? 0 : T2F_REFUSAL_BUILD_ID;
}

/* Keeps m as the unsafe fallback (the first mismatch with symbols), or refuses it. Takes m. */
static int mismatch(struct finder *f, struct t2f_elf_module *m, const char *path,
		    enum t2f_refusal_reason why)
{
	char hex[2 * T2F_BUILD_ID_MAX + 1];

	module_hex(m, hex);
	if (f->o->unsafe_build_id_match && !f->fb.module && t2f_elf_module__has_symbols(m)) {
		f->fb.path = strdup(path);
		if (!f->fb.path) {
			t2f_elf_module__free(m);
			return -ENOMEM;
		}
		f->fb.module = m;
		f->fb.why = why;
		memcpy(f->fb.found_id, hex, sizeof(hex));
		return 0;
	}
	t2f_elf_module__free(m);
	return refuse(f, path, why, hex);
}

/* A debuglink candidate's CRC: 1 matches, 0 differs, <0 unreadable. */
static int crc_matches(const char *path, uint32_t want)
{
	uint32_t crc;
	int err = t2f_elf_file_crc32(path, &crc);

	return err ? err : crc == want;
}

/* Verifies the opened candidate m (taken): 1 = chosen, 0 = refused (search goes on), <0 fatal. */
static int verify(struct finder *f, struct t2f_elf_module *m, const char *path,
		  const uint32_t *crc)
{
	char hex[2 * T2F_BUILD_ID_MAX + 1];
	enum t2f_refusal_reason why = id_matches(f, m);
	int ok;

	if (why)
		return mismatch(f, m, path, why);
	if (crc) {
		ok = crc_matches(path, *crc);
		if (ok == -ENOMEM) {
			t2f_elf_module__free(m);
			return ok;
		}
		if (ok <= 0)
			return mismatch(f, m, path, T2F_REFUSAL_CRC);
	}
	if (!t2f_elf_module__has_symbols(m)) {
		bool over = t2f_elf_module__over_budget(m);

		module_hex(m, hex);
		t2f_elf_module__free(m);
		return refuse(f, path, over ? T2F_REFUSAL_OVER_LIMIT : T2F_REFUSAL_NO_SYMBOLS, hex);
	}
	f->out->module = m;
	return 1;
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Tries one candidate path: 1 = chosen, 0 = go on, <0 fatal. crc: required debuglink CRC. */
static int try_path(struct finder *f, const char *path, const uint32_t *crc)
{
	struct t2f_elf_module *m = NULL;
	struct stat st;
	int err;

	if (stat(path, &st) != 0 || S_ISDIR(st.st_mode)) {
		f->out->n_missing++;
		return 0;
	}
	if (!S_ISREG(st.st_mode)) /* a FIFO would block, a device never end */
		return refused_already(f->out, path) ? 0 : refuse(f, path, T2F_REFUSAL_NOT_FILE, "");
	if (f->binary_exists && same_file(&st, &f->binary_st))
		return 0; /* the binary is step 5, never a debug file of itself */
	if (refused_already(f->out, path) || (f->fb.path && strcmp(f->fb.path, path) == 0))
		return 0;
	err = t2f_elf_module__open(path, f->d, &m);
	if (err == -ENOMEM)
		return err;
	if (err)
		return refuse(f, path, T2F_REFUSAL_UNREADABLE, "");
	t2f_elf_module__set_budget(m, f->o->budget);
	if (f->o->perf_rules)
		t2f_elf_module__use_perf_rules(m);
	return verify(f, m, path, crc);
}

/* DIR/.build-id/ab/cdef....debug */
static int try_build_id_tree(struct finder *f, const char *dir)
{
	char path[PATH_MAX];

	if (f->ref_len < 2)
		return 0;
	if (!path_fmt(path, "%s/.build-id/%.2s/%s.debug", dir, f->ref_hex, f->ref_hex + 2))
		return 0;
	return try_path(f, path, NULL);
}

/* perf's layout: DIR/.build-id/ab/cdef.../debug, then .../elf (a link to a directory per file
 * and build-id, e.g. DIR/usr/lib/x86_64-linux-gnu/libc.so.6/<build-id>/). */
static int try_perf_tree(struct finder *f, const char *dir)
{
	static const char *const names[] = { "debug", "elf" };
	char path[PATH_MAX];
	int r = 0;

	if (f->ref_len < 2)
		return 0;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !r; i++)
		if (path_fmt(path, "%s/.build-id/%.2s/%s/%s", dir, f->ref_hex, f->ref_hex + 2, names[i]))
			r = try_path(f, path, NULL);
	return r;
}

static int step_debug_dirs(struct finder *f)
{
	const char *const *dirs = f->o->debug_dirs ? f->o->debug_dirs : t2f_default_debug_dirs;
	int r = 0;

	for (size_t i = 0; dirs[i] && !r; i++)
		r = try_build_id_tree(f, dirs[i]);
	return r;
}

static int step_debuginfod(struct finder *f)
{
	char cache[PATH_MAX], path[PATH_MAX];

	if (!f->ref_len || !debuginfod_cache(f->o, cache))
		return 0;
	if (!path_fmt(path, "%s/%s/debuginfo", cache, f->ref_hex))
		return 0;
	return try_path(f, path, NULL);
}

static int step_perf_cache(struct finder *f)
{
	char dir[PATH_MAX];

	if (!f->ref_len || !perf_cache(f->o, dir))
		return 0;
	return try_perf_tree(f, dir);
}

/* The binary's directory: the recorded one, and its canonical form for DIR/<dir>/NAME. */
static bool binary_dir(const char *binary_path, char *dir)
{
	const char *base = base_name(binary_path);
	size_t len = (size_t)(base - binary_path);

	if (len == 0)
		return path_fmt(dir, ".");
	if (len >= PATH_MAX)
		return false;
	memcpy(dir, binary_path, len);
	dir[len > 1 ? len - 1 : len] = '\0'; /* drop the trailing '/' unless it is the root */
	return true;
}

static int debuglink_under_debug_dirs(struct finder *f, const char *dir, const char *name,
				      uint32_t crc)
{
	const char *const *dirs = f->o->debug_dirs ? f->o->debug_dirs : t2f_default_debug_dirs;
	char canon[PATH_MAX], path[PATH_MAX];
	int r = 0;

	if (!realpath(dir, canon))
		return 0;
	for (size_t i = 0; dirs[i] && !r; i++)
		if (path_fmt(path, "%s%s/%s", dirs[i], canon, name))
			r = try_path(f, path, &crc);
	return r;
}

static int step_debuglink(struct finder *f)
{
	char dir[PATH_MAX], path[PATH_MAX];
	const char *name;
	uint32_t crc;
	int r = 0;

	if (!f->binary || !t2f_elf_module__debuglink(f->binary, &name, &crc))
		return 0;
	if (!name_usable(name) || strstr(name, "..")) {
		if (f->d)
			t2f_diag__warn(f->d, f->binary_path, 0, "untrusted .gnu_debuglink name refused");
		return 0;
	}
	if (!binary_dir(f->binary_path, dir))
		return 0;
	if (path_fmt(path, "%s/%s", dir, name))
		r = try_path(f, path, &crc);
	if (!r && path_fmt(path, "%s/.debug/%s", dir, name))
		r = try_path(f, path, &crc);
	if (!r)
		r = debuglink_under_debug_dirs(f, dir, name, crc);
	return r;
}

/* The id as an SSQP key: lowercase hex, padded with zero bytes to 20 bytes. */
static void ssqp_id(const struct finder *f, char *hex)
{
	uint8_t padded[T2F_BUILD_ID_MAX] = { 0 };
	size_t len = f->ref_len < SSQP_ID_BYTES ? SSQP_ID_BYTES : f->ref_len;

	memcpy(padded, f->ref_id, f->ref_len);
	t2f_build_id_hex(padded, len, hex);
}

static void lowercase(char *dst, const char *src, size_t cap)
{
	size_t i = 0;

	for (; src[i] && i + 1 < cap; i++)
		dst[i] = (char)tolower((unsigned char)src[i]);
	dst[i] = '\0';
}

/* DIR/_.debug/elf-buildid-sym-<id>/_.debug and DIR/<name>/elf-buildid-<id>/<name>, for the
 * padded id (the convention) and the unpadded one (PerfView), name as recorded and lowercased. */
static int try_ssqp(struct finder *f, const char *dir, const char *name)
{
	char ids[2][2 * T2F_BUILD_ID_MAX + 1], names[2][NAME_MAX + 1], path[PATH_MAX];
	size_t n_ids = 1, n_names = 1;
	int r = 0;

	ssqp_id(f, ids[0]);
	if (strcmp(ids[0], f->ref_hex) != 0)
		memcpy(ids[n_ids++], f->ref_hex, sizeof(ids[0]));
	for (size_t i = 0; i < n_ids && !r; i++)
		if (path_fmt(path, "%s/_.debug/elf-buildid-sym-%s/_.debug", dir, ids[i]))
			r = try_path(f, path, NULL);
	if (r || !name || strlen(name) > NAME_MAX)
		return r;
	snprintf(names[0], sizeof(names[0]), "%s", name);
	lowercase(names[1], name, sizeof(names[1]));
	if (strcmp(names[0], names[1]) != 0)
		n_names = 2;
	for (size_t i = 0; i < n_ids && !r; i++)
		for (size_t j = 0; j < n_names && !r; j++)
			if (path_fmt(path, "%s/%s/elf-buildid-%s/%s", dir, names[j], ids[i], names[j]))
				r = try_path(f, path, NULL);
	return r;
}

static int try_symbol_dir(struct finder *f, const char *dir)
{
	const char *name = base_name(f->binary_path);
	char path[PATH_MAX];
	int r;

	if (!name_usable(name))
		name = NULL;
	r = try_build_id_tree(f, dir);
	if (!r)
		r = try_perf_tree(f, dir);
	if (!r && f->ref_len)
		r = try_ssqp(f, dir, name);
	if (!r && name && path_fmt(path, "%s/%s", dir, name))
		r = try_path(f, path, NULL);
	return r;
}

static int step_symbol_dirs(struct finder *f)
{
	const char *const *dirs = f->o->symbol_dirs;
	int r = 0;

	for (size_t i = 0; dirs && dirs[i] && !r; i++)
		r = try_symbol_dir(f, dirs[i]);
	return r;
}

/* The binary is there but did not open: not a regular file, or not a readable ELF file. */
static int refuse_binary(struct finder *f)
{
	return refuse(f, f->binary_path, f->binary_err == -T2F_ERR_NOT_FILE ? T2F_REFUSAL_NOT_FILE
									 : T2F_REFUSAL_UNREADABLE, "");
}

static int step_fetch(struct finder *f);

/* The binary at its recorded path; when it is stripped (no .symtab, no DWARF), the debug file
 * from the debuginfod servers first, which names more and has the inline functions. */
static int step_binary(struct finder *f)
{
	struct t2f_elf_module *m = f->binary;
	int r;

	if (!f->binary_exists)
		return 0;
	if (!m)
		return f->binary_err == -ENOMEM ? -ENOMEM : refuse_binary(f);
	if (t2f_elf_module__stripped(m)) {
		r = step_fetch(f);
		if (r)
			return r;
	}
	f->binary = NULL;
	return verify(f, m, f->binary_path, NULL);
}

/* Opens the binary at its recorded path, if there is one there (a FIFO, device or socket there
 * is not opened: binary_err -T2F_ERR_NOT_FILE). 0 or -ENOMEM. */
static int open_binary(struct finder *f)
{
	if (stat(f->binary_path, &f->binary_st) != 0 || S_ISDIR(f->binary_st.st_mode))
		return 0;
	f->binary_exists = true;
	if (!S_ISREG(f->binary_st.st_mode)) {
		f->binary_err = -T2F_ERR_NOT_FILE;
		return 0;
	}
	f->binary_err = t2f_elf_module__open(f->binary_path, f->d, &f->binary);
	if (f->binary_err) {
		f->binary = NULL;
		return f->binary_err == -ENOMEM ? -ENOMEM : 0;
	}
	t2f_elf_module__set_budget(f->binary, f->o->budget);
	if (f->o->perf_rules)
		t2f_elf_module__use_perf_rules(f->binary);
	return 0;
}

/* The trace's build-id, else the binary's own. */
static void set_reference(struct finder *f, const uint8_t *build_id, size_t len)
{
	if ((!build_id || !len) && f->binary)
		build_id = t2f_elf_module__build_id(f->binary, &len);
	if (!build_id || len > T2F_BUILD_ID_MAX)
		len = 0;
	if (len)
		memcpy(f->ref_id, build_id, len);
	f->ref_len = len;
	t2f_build_id_hex(f->ref_id, len, f->ref_hex);
	memcpy(f->out->expected_id, f->ref_hex, sizeof(f->ref_hex));
}

/* Uses or refuses the unsafe fallback once the search is over. 0 or -ENOMEM. */
static int settle_fallback(struct finder *f)
{
	struct fallback *fb = &f->fb;
	int err = 0;

	if (!fb->module)
		return 0;
	if (!f->out->module) {
		if (f->d)
			t2f_diag__warn(f->d, fb->path, 0, "%s accepted (unsafe_build_id_match)",
				       t2f_refusal_name(fb->why));
		f->out->module = fb->module;
	} else {
		t2f_elf_module__free(fb->module);
		err = refuse(f, fb->path, fb->why, fb->found_id);
	}
	fb->module = NULL;
	free(fb->path);
	fb->path = NULL;
	return err;
}

/* No reference build-id and no override: nothing is searched. The binary is refused for that
 * when it is an ELF file; when it is there but not one, for that alone; when it is not there,
 * not at all (missing, as any candidate). */
static int refuse_unverifiable(struct finder *f)
{
	if (!f->binary_exists) {
		f->out->n_missing++;
		return 0;
	}
	if (!f->binary)
		return refuse_binary(f);
	return refuse(f, f->binary_path, T2F_REFUSAL_NO_BUILD_ID, "");
}

/* Why the file at path was refused when no build-id-verified copy may be made of it (another
 * build-id, not an ELF file), or NULL: such a file leaves the debuginfod cache. A file kept as
 * the unsafe fallback is not refused (yet); one without symbols or over a decompression limit
 * is what the servers have for the build-id, and stays. */
static const char *refused_for_good(const struct finder *f, const char *path)
{
	const struct t2f_debug_result *r = f->out;

	if (f->fb.path && strcmp(f->fb.path, path) == 0)
		return NULL;
	for (size_t i = 0; i < r->n_refused; i++)
		if (strcmp(r->refused[i].path, path) == 0)
			return r->refused[i].why == T2F_REFUSAL_BUILD_ID ||
			       r->refused[i].why == T2F_REFUSAL_FILE_NO_BUILD_ID ||
			       r->refused[i].why == T2F_REFUSAL_UNREADABLE
			       ? t2f_refusal_name(r->refused[i].why) : NULL;
	return NULL;
}

/* Last: the debug file from the debuginfod servers, into their cache, verified as any. A file
 * refused for good is removed from the cache (libdebuginfod would give it again without asking
 * the servers, to later runs and other programs alike). */
static int step_fetch(struct finder *f)
{
	char *path = NULL;
	const char *why;
	int r;

	if (!f->o->fetch || !f->ref_len || f->fetched)
		return 0;
	f->fetched = true;
	if (t2f_debuginfod__fetch(f->o->fetch, f->ref_id, f->ref_len, &path) != 0)
		return 0; /* counted; the search ends without it */
	r = try_path(f, path, NULL);
	why = r == 0 ? refused_for_good(f, path) : NULL;
	if (why)
		t2f_debuginfod__drop(f->o->fetch, path, why);
	free(path);
	return r;
}

static int search(struct finder *f)
{
	int (*const steps[])(struct finder *) = {
		step_debug_dirs, step_debuginfod, step_perf_cache, step_debuglink, step_symbol_dirs,
		step_binary, step_fetch,
	};
	int r = 0;

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]) && !r; i++)
		r = steps[i](f);
	return r < 0 ? r : 0;
}

/* The search; trusted: the binary is the trace's file (t2f_debug_find_trusted). */
static int find(const struct t2f_debug_find_opts *o, const char *binary_path,
		const uint8_t *build_id, size_t build_id_len, bool trusted, struct t2f_diag *d,
		struct t2f_debug_result *out)
{
	static const struct t2f_debug_find_opts defaults;
	struct finder f = { .o = o ? o : &defaults, .d = d, .binary_path = binary_path, .out = out };
	int err;

	memset(out, 0, sizeof(*out));
	err = open_binary(&f);
	if (err)
		goto out;
	set_reference(&f, build_id, build_id_len);
	if (!f.ref_len && !f.o->unsafe_build_id_match) {
		/* nothing to verify against: the trusted binary alone, else a refusal */
		err = trusted ? step_binary(&f) : refuse_unverifiable(&f);
		err = err < 0 ? err : 0;
		goto out;
	}
	err = search(&f);
	if (!err)
		err = settle_fallback(&f);
out:
	t2f_elf_module__free(f.binary);
	t2f_elf_module__free(f.fb.module);
	free(f.fb.path);
	if (err)
		t2f_debug_result__free(out);
	return err;
}

int t2f_debug_find(const struct t2f_debug_find_opts *o, const char *binary_path,
		   const uint8_t *build_id, size_t build_id_len, struct t2f_diag *d,
		   struct t2f_debug_result *out)
{
	return find(o, binary_path, build_id, build_id_len, false, d, out);
}

int t2f_debug_find_trusted(const struct t2f_debug_find_opts *o, const char *binary_path,
			   struct t2f_diag *d, struct t2f_debug_result *out)
{
	return find(o, binary_path, NULL, 0, true, d, out);
}

void t2f_debug_result__free(struct t2f_debug_result *r)
{
	if (!r)
		return;
	t2f_elf_module__free(r->module);
	for (size_t i = 0; i < r->n_refused; i++)
		free(r->refused[i].path);
	free(r->refused);
	r->module = NULL;
	r->refused = NULL;
	r->n_refused = 0;
}

/* ---- a supplementary DWARF file (t2f_debug_find_alt) ---- */

struct alt_list {
	char (*paths)[PATH_MAX];
	size_t n, max;
};

__attribute__((format(printf, 2, 3)))
static void alt_add(struct alt_list *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (l->n >= l->max)
		return;
	va_start(ap, fmt);
	n = vsnprintf(l->paths[l->n], PATH_MAX, fmt, ap);
	va_end(ap);
	if (n >= 0 && n < PATH_MAX)
		l->n++;
}

size_t t2f_debug_find_alt(const struct t2f_debug_find_opts *o, const char *debug_path,
			  const char *name, const uint8_t *id, size_t len, char (*paths)[PATH_MAX],
			  size_t max)
{
	const char *const *dirs = o->debug_dirs ? o->debug_dirs : t2f_default_debug_dirs;
	struct alt_list l = { paths, 0, max };
	char hex[2 * T2F_BUILD_ID_MAX + 1], dir[PATH_MAX];

	if (len < 2 || len > T2F_BUILD_ID_MAX)
		return 0;
	t2f_build_id_hex(id, len, hex);
	for (size_t i = 0; dirs[i]; i++)
		alt_add(&l, "%s/.build-id/%.2s/%s.debug", dirs[i], hex, hex + 2);
	if (debuginfod_cache(o, dir))
		alt_add(&l, "%s/%s/debuginfo", dir, hex);
	for (size_t i = 0; o->symbol_dirs && o->symbol_dirs[i]; i++)
		alt_add(&l, "%s/.build-id/%.2s/%s.debug", o->symbol_dirs[i], hex, hex + 2);
	if (name[0] == '/') {
		alt_add(&l, "%s", name);
		for (size_t i = 0; dirs[i]; i++)
			alt_add(&l, "%s%s", dirs[i], name);
	} else if (*name && binary_dir(debug_path, dir)) {
		alt_add(&l, "%s/%s", dir, name);
	}
	return l.n;
}

/* ---- a binary copy for the load table (t2f_debug_find_binary) ---- */

/* path's file when it is a regular ELF file of build-id id (any when len is 0) whose PT_LOAD
 * offsets are real; else NULL. 0 or -ENOMEM. */
static int binary_at(const struct t2f_debug_find_opts *o, const char *path, const uint8_t *id,
		     size_t len, struct t2f_diag *d, struct t2f_elf_module **out)
{
	struct t2f_elf_module *m = NULL;
	const uint8_t *own;
	size_t own_len = 0;
	struct stat st;
	int err;

	*out = NULL;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	err = t2f_elf_module__open(path, d, &m);
	if (err)
		return err == -ENOMEM ? err : 0;
	own = t2f_elf_module__build_id(m, &own_len);
	if ((len && (!own || own_len != len || memcmp(own, id, len) != 0)) ||
	    !t2f_loads_offsets_trusted(t2f_elf_module__load_at(m, 0), t2f_elf_module__load_count(m))) {
		t2f_elf_module__free(m);
		return 0;
	}
	t2f_elf_module__set_budget(m, o->budget);
	if (o->perf_rules)
		t2f_elf_module__use_perf_rules(m);
	*out = m;
	return 0;
}

int t2f_debug_find_binary(const struct t2f_debug_find_opts *o, const char *binary_path,
			  const uint8_t *id, size_t len, struct t2f_diag *d,
			  struct t2f_elf_module **out)
{
	const char *const *dirs = o->symbol_dirs, *name = base_name(binary_path);
	char hex[2 * T2F_BUILD_ID_MAX + 1], path[PATH_MAX], dir[PATH_MAX];
	int err = binary_at(o, binary_path, id, len, d, out);

	t2f_build_id_hex(id, len, hex);
	for (size_t i = 0; !err && !*out && dirs && dirs[i]; i++) {
		if (len && path_fmt(path, "%s/.build-id/%.2s/%s/elf", dirs[i], hex, hex + 2))
			err = binary_at(o, path, id, len, d, out);
		if (!err && !*out && name_usable(name) && path_fmt(path, "%s/%s", dirs[i], name))
			err = binary_at(o, path, id, len, d, out);
	}
	if (!err && !*out && len && perf_cache(o, dir) &&
	    path_fmt(path, "%s/.build-id/%.2s/%s/elf", dir, hex, hex + 2))
		err = binary_at(o, path, id, len, d, out);
	return err;
}
