/* tools/clobber.c: an output that is one of the inputs (by device and inode), or that cannot be
 * created where it is named. */
#include "tools/clobber.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "include/trace2flame.h"
#include "tools/cli_opts.h"

static int t2f_clobber_index(const char *output, char *const *inputs, size_t n)
{
	struct stat out, in;

	if (t2f_cli_is_std(output) || stat(output, &out) < 0 || !S_ISREG(out.st_mode))
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!t2f_cli_is_std(inputs[i]) && stat(inputs[i], &in) == 0 &&
		    in.st_dev == out.st_dev && in.st_ino == out.st_ino)
			return (int)i;
	return -1;
}

bool t2f_clobber__refuse(const char *output, char *const *inputs, size_t n)
{
	char vout[T2F_VISIBLE_MAX], vin[T2F_VISIBLE_MAX];
	int i = t2f_clobber_index(output, inputs, n);

	if (i < 0)
		return false;
	fprintf(stderr, "trace2flame: %s: the output would replace the input %s; choose another "
		"output\n", t2f_visible(output, vout, sizeof(vout)),
		t2f_visible(inputs[i], vin, sizeof(vin)));
	return true;
}

/* Says why output cannot be created and returns true: "PATH: WHY". */
static bool t2f_no_place(const char *output, const char *dir, const char *why, int err)
{
	char vout[T2F_VISIBLE_MAX], vdir[T2F_VISIBLE_MAX];

	fprintf(stderr, "trace2flame: %s: ", t2f_visible(output, vout, sizeof(vout)));
	if (dir)
		dir = t2f_visible(dir, vdir, sizeof(vdir));
	if (err == ENOENT)
		fprintf(stderr, "no such directory %s\n", dir);
	else if (dir)
		fprintf(stderr, "cannot be created in %s (%s)\n", dir, strerror(err));
	else
		fprintf(stderr, "%s\n", why);
	return true;
}

bool t2f_clobber__no_place(const char *output, bool each)
{
	const char *slash;
	struct stat st;
	char *dir;
	bool no;

	if (t2f_cli_is_std(output))
		return false;
	if (stat(output, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return t2f_no_place(output, NULL, each ? "is a directory (use --each to "
					    "write one file per input in it)" : "is a directory", 0);
		if (!S_ISREG(st.st_mode))
			return false; /* a device or FIFO: written in place */
	}
	slash = strrchr(output, '/');
	if (slash && slash[1] == '\0') /* "name/": a directory that is not there */
		dir = strdup(output);
	else if (slash)
		dir = strndup(output, slash == output ? 1 : (size_t)(slash - output));
	else
		dir = strdup(".");
	if (!dir)
		return false; /* out of memory: the write says what fails */
	no = false;
	if (stat(dir, &st) != 0)
		no = t2f_no_place(output, dir, NULL, errno);
	else if (!S_ISDIR(st.st_mode))
		no = t2f_no_place(output, dir, NULL, ENOTDIR);
	else if (access(dir, W_OK | X_OK) != 0)
		no = t2f_no_place(output, dir, NULL, errno);
	free(dir);
	return no;
}
