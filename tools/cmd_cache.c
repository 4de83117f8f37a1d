/* tools/cmd_cache.c: trace2flame cache list|verify|clear|dir: the symbol cache's files (the
 * library's t2f_cache_*; docs/symbols.md, Symbol cache). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "include/trace2flame.h"
#include "tools/cli_opts.h"
#include "tools/commands.h"

struct cache_walk {
	bool verify;                /* verify: report only the bad ones, count them */
	uint64_t files, bytes, bad;
};

static int cache_line(void *ctx, const char *build_id, const char *module, uint64_t bytes,
		      int64_t last_use, const char *problem)
{
	struct cache_walk *w = ctx;
	char vis[4096], when[32] = "?";
	time_t t = (time_t)last_use;
	struct tm tm;

	w->files++;
	w->bytes += bytes;
	w->bad += problem != NULL;
	if (gmtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (w->verify && problem)
		printf("bad %s: %s\n", build_id, problem);
	else if (!w->verify)
		printf("%s %10" PRIu64 " %s %s%s%s\n", build_id, bytes, when,
		       t2f_visible(module, vis, sizeof(vis)), problem ? "  (bad: " : "",
		       problem ? problem : "");
	if (!w->verify && problem)
		fputs(")\n", stdout);
	return 0;
}

static int cache_usage(FILE *f, int code)
{
	fputs("usage: trace2flame cache list|verify|clear|dir\n"
	      "  list    each file: build-id, bytes, last use (UTC), the module it names\n"
	      "  verify  check every file as a run does; the bad ones, exit 1 when any\n"
	      "  clear   remove every file\n"
	      "  dir     the directory ($T2F_CACHE_DIR, else $XDG_CACHE_HOME/trace2flame, else\n"
	      "          ~/.cache/trace2flame)\n", f);
	return code;
}

static int cache_err(const char *dir, int err)
{
	char vis[4096];

	if (err == -ENOENT)
		return T2F_EXIT_OK; /* no cache: nothing listed, verified or removed */
	fprintf(stderr, "trace2flame: cache %s: %s\n", t2f_visible(dir ? dir : "", vis, sizeof(vis)),
		err == -EPERM ? "not used (not a directory owned by the user and writable by no "
				"one else, or a symlink)" : t2f_strerror(err));
	return err == -EPERM ? T2F_EXIT_INPUT : T2F_EXIT_IO;
}

int t2f_cmd_cache(int argc, char **argv)
{
	const char *verb = argc == 2 ? argv[1] : NULL;
	struct cache_walk w = { 0 };
	char *dir = t2f_cache_dir();
	int err, code = T2F_EXIT_OK;

	if (!verb || !strcmp(verb, "-h") || !strcmp(verb, "--help")) {
		t2f_free(dir);
		return cache_usage(verb ? stdout : stderr, verb ? T2F_EXIT_OK : T2F_EXIT_USAGE);
	}
	if (!strcmp(verb, "dir")) {
		if (dir)
			printf("%s\n", dir);
		code = dir ? T2F_EXIT_OK : cache_err("", -ENOMEM);
	} else if (!strcmp(verb, "list") || !strcmp(verb, "verify")) {
		w.verify = verb[0] == 'v';
		err = t2f_cache_each(NULL, cache_line, &w);
		code = err ? cache_err(dir, err) : T2F_EXIT_OK;
		if (!err && w.verify)
			printf("%" PRIu64 " files, %" PRIu64 " bytes, %" PRIu64 " bad\n", w.files,
			       w.bytes, w.bad);
		if (!err && w.bad && w.verify)
			code = T2F_EXIT_INPUT;
	} else if (!strcmp(verb, "clear")) {
		uint64_t n = 0;

		err = t2f_cache_clear(NULL, &n);
		code = err ? cache_err(dir, err) : T2F_EXIT_OK;
		if (!err)
			printf("%" PRIu64 " files removed\n", n);
	} else {
		code = cache_usage(stderr, T2F_EXIT_USAGE);
	}
	t2f_free(dir);
	if (fflush(stdout) || ferror(stdout))
		code = T2F_EXIT_IO;
	return code;
}
