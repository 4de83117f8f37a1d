/* tools/clobber.c: an output that is one of the inputs, by device and inode. */
#include "tools/clobber.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "formats/utf8.h"
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
		"output\n", t2f_utf8_visible(output, vout, sizeof(vout)),
		t2f_utf8_visible(inputs[i], vin, sizeof(vin)));
	return true;
}
