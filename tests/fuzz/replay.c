/* tests/fuzz/replay.c: runs a fuzz target's LLVMFuzzerTestOneInput on every file of its corpus,
 * without libFuzzer (every build links one replay program per target; ctest runs them as
 * fuzz/replay-TARGET). In the sanitizer build a report stops the run and fails the test.
 *
 * usage: fuzz-replay-TARGET PATH...   (a directory: every regular file in it, in name order)
 * Each input is read into an allocation of exactly its size, so reading past it is caught under
 * AddressSanitizer. The name of each input is printed before it runs: the last name printed is
 * the input that crashed. Exit status 0 when every input ran, 1 when a path could not be read or
 * named no input at all.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/fuzz/fuzz_support.h"

/* Reads the file at path into a buffer of its exact size (*data NULL when empty). 0 or -1. */
static int read_file(const char *path, uint8_t **data, size_t *size)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	int err = -1;

	*data = NULL;
	*size = 0;
	if (!f)
		return -1;
	if (fstat(fileno(f), &st) || st.st_size < 0)
		goto done;
	*size = (size_t)st.st_size;
	if (*size && !(*data = malloc(*size)))
		goto done;
	if (*size && fread(*data, 1, *size, f) != *size)
		goto done;
	err = 0;
done:
	if (err) {
		free(*data);
		*data = NULL;
	}
	fclose(f);
	return err;
}

static int run_file(const char *path)
{
	uint8_t *data;
	size_t size;

	if (read_file(path, &data, &size)) {
		fprintf(stderr, "replay: cannot read %s: %s\n", path, strerror(errno));
		return -1;
	}
	printf("replay: %s (%zu bytes)\n", path, size);
	fflush(stdout);
	LLVMFuzzerTestOneInput(data, size);
	free(data);
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file in directory dir, in name order: the count run, or -1. */
static long run_dir(const char *dir)
{
	char **names = NULL, path[4096];
	size_t n = 0, cap = 0;
	long done = 0;
	struct dirent *e;
	DIR *dp = opendir(dir);

	if (!dp) {
		fprintf(stderr, "replay: cannot open %s: %s\n", dir, strerror(errno));
		return -1;
	}
	while ((e = readdir(dp)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **grown = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof(*names));

			if (!grown)
				abort();
			names = grown;
		}
		if (!(names[n++] = strdup(e->d_name)))
			abort();
	}
	closedir(dp);
	qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; i < n && done >= 0; i++) {
		struct stat st;

		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, names[i]) >= sizeof(path) ||
		    stat(path, &st))
			done = -1;
		else if (S_ISREG(st.st_mode))
			done = run_file(path) ? -1 : done + 1;
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return done;
}

int main(int argc, char **argv)
{
	long total = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s PATH...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		struct stat st;
		long n;

		if (stat(argv[i], &st)) {
			fprintf(stderr, "replay: cannot stat %s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		n = S_ISDIR(st.st_mode) ? run_dir(argv[i]) : run_file(argv[i]) ? -1 : 1;
		if (n < 0)
			return 1;
		total += n;
	}
	printf("replay: %ld inputs ran\n", total);
	if (total == 0) {
		fprintf(stderr, "replay: no input found\n");
		return 1;
	}
	return 0;
}
