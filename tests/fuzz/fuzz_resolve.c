/* tests/fuzz/fuzz_resolve.c: the resolve stage with inline expansion, as a conversion runs it,
 * over a debug file the input is.
 *
 * The bytes are written as a debug file into a debug tree of a temp directory, under the
 * build-id their own GNU build-id note gives (any other bytes under a fixed id, which the search
 * then refuses as another build's). A trace of perf script text names frames of
 * "/nonexistent/t2f-fuzz/prog" (absent: the debug tree is the only place its symbols can come
 * from) with that build-id (--buildids), at addresses of .text the hash picks and at 0x1000,
 * 0x1005 and 0x1010 (where tests/dwarf/make-hostile's files keep their code); the session
 * resolves them through the public calls (include/trace2flame.h: debug_dirs the tree, offline,
 * every frame re-symbolized for half the inputs, one or two threads for the inline lookups,
 * inline frames on for seven in eight) and writes collapsed stacks and pprof (the only outputs
 * with every inline level and line) into memory.
 *
 * Checks besides the sanitizers and the fuzzer's limits (10 s, 1 GiB: dwarf.h's limits must keep
 * a file under them): a write fails only with a negative code and a message, and writes as many
 * bytes as the stats say.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>
#include <libelf.h>

#include "include/trace2flame.h"
#include "tests/fuzz/fuzz_support.h"

#define FZ_PROG "/nonexistent/t2f-fuzz/prog"

static void drop(void *ctx, const char *line)
{
	FZ_CHECK(!strchr(line, '\n'), "a message line holds a newline");
	(void)ctx;
}

/* The bytes' build-id in hex (a fixed one when they have none), into hex. */
static void build_id_of(const uint8_t *data, size_t size, char *hex)
{
	Elf *elf;
	const void *id = NULL;
	ssize_t n = 0;

	elf_version(EV_CURRENT);
	elf = elf_memory((char *)data, size);
	if (elf)
		n = dwelf_elf_gnu_build_id(elf, &id);
	if (n < 2 || n > 64) {
		id = "\xf0\x0d\xf0\x0d";
		n = 4;
	}
	for (ssize_t i = 0; i < n; i++)
		sprintf(hex + 2 * i, "%02x", ((const uint8_t *)id)[i]);
	elf_end(elf);
}

static void write_file(const char *path, const void *data, size_t size)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
		abort();
}

/* dir/.build-id/ab/cdef.debug = the bytes; dir/ids = the build-id list; dir/trace = the text. */
static void lay_out(const char *dir, const uint8_t *data, size_t size, uint64_t h)
{
	char hex[129], path[4096];
	FILE *t;

	build_id_of(data, size, hex);
	snprintf(path, sizeof(path), "%s/.build-id", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/.build-id/%.2s", dir, hex);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s.debug", dir, hex, hex + 2);
	write_file(path, data, size);
	snprintf(path, sizeof(path), "%s/ids", dir);
	t = fopen(path, "w");
	if (!t || fprintf(t, "%s %s\n", hex, FZ_PROG) < 0 || fclose(t) != 0)
		abort();
	snprintf(path, sizeof(path), "%s/trace", dir);
	t = fopen(path, "w");
	if (!t)
		abort();
	/* stacks of one to three frames: fixed spots, then addresses from the hash */
	for (unsigned s = 0; s < 6; s++) {
		uint64_t a = s < 3 ? 0x1000 + (uint64_t)s * 5 + (s == 2) : 0x1000 + (h >> (8 * s)) %
										   0x20000;

		fprintf(t, "prog 7 1.%06u: 1 cpu-clock:\n", s);
		for (unsigned k = 0; k <= s % 3; k++)
			fprintf(t, "\t    %llx [unknown] (%s)\n", (unsigned long long)(a + 7 * k), FZ_PROG);
		fputc('\n', t);
	}
	if (fclose(t) != 0)
		abort();
}

static void write_one(struct t2f_session *s, enum t2f_format f)
{
	struct t2f_write_options w = { .size = sizeof(w), .format = f };
	struct t2f_stats st = { .size = sizeof(st) };
	char *buf = NULL;
	size_t len = 0;
	int err = t2f_session_write_mem(s, &w, &buf, &len);

	FZ_CHECK(err <= 0, "a write returned %d", err);
	FZ_CHECK(!err || *t2f_session_error(s), "a write failed (%d) without a message", err);
	if (!err) {
		FZ_CHECK(t2f_session_stats(s, &st) == 0, "no stats");
		FZ_CHECK(st.out_bytes == len, "%zu bytes written, %llu counted", len,
			 (unsigned long long)st.out_bytes);
	}
	free(buf);
}

/* Removes dir's files and directories (the layout lay_out makes). */
static void clean(const char *dir, const uint8_t *data, size_t size)
{
	char hex[129], path[4096];

	build_id_of(data, size, hex);
	snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s.debug", dir, hex, hex + 2);
	unlink(path);
	snprintf(path, sizeof(path), "%s/.build-id/%.2s", dir, hex);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/.build-id", dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/ids", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/trace", dir);
	unlink(path);
	rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *base = getenv("TMPDIR");
	uint64_t h = fz_hash(data, size);
	char dir[256], ids[512], trace[512];
	const char *dirs[] = { dir, NULL };
	struct t2f_session *s = NULL;

	if (!base || !*base || strlen(base) > 200)
		base = "/tmp";
	snprintf(dir, sizeof(dir), "%s/t2f-fuzz-resolve.XXXXXX", base);
	if (!mkdtemp(dir))
		abort();
	lay_out(dir, data, size, h);
	snprintf(ids, sizeof(ids), "%s/ids", dir);
	snprintf(trace, sizeof(trace), "%s/trace", dir);
	{
		struct t2f_options o = {
			.size = sizeof(o),
			.jobs = 1 + (h & 1),
			.message = drop,
			.resymbolize = h & 2,
			.no_inline = (h & 28) == 28,
			.debug_dirs = dirs,
			.symbol_dirs = dirs,
			.buildids = ids,
			.perf_map_dir = "/nonexistent/t2f-fuzz-maps",
			.offline = true, /* never a debuginfod server, whatever the environment */
		};

		if (t2f_session_new(&o, &s))
			abort();
	}
	if (t2f_session_add_path(s, trace) == 0 && t2f_session_resolve(s) == 0) {
		write_one(s, T2F_FORMAT_COLLAPSED);
		write_one(s, T2F_FORMAT_PPROF);
	}
	t2f_session_free(s);
	clean(dir, data, size);
	return 0;
}
