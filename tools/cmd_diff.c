/* tools/cmd_diff.c: trace2flame diff [OPTIONS] BEFORE AFTER [-o OUT.svg]: the command line of a
 * differential flame graph; the reading and writing are the conversion's (tools/main.c). */
#include <stdio.h>

#include "tools/cli_opts.h"
#include "tools/commands.h"

int t2f_cmd_diff(int argc, char **argv)
{
	struct t2f_cli_opts o;

	if (t2f_cli_opts__parse_diff(&o, argc, argv, stdout, stderr))
		return T2F_EXIT_USAGE;
	if (o.help || o.version || o.list_formats)
		return fflush(stdout) == 0 && !ferror(stdout) ? T2F_EXIT_OK : T2F_EXIT_IO;
	t2f_cli_opts__warn_ignored(&o, stderr);
	return t2f_convert_diff(&o);
}
