/* tools/main.c: trace2flame: argv → the subcommand, --each, or one conversion (tools/convert.c).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "include/trace2flame.h"
#include "tools/cli_opts.h"
#include "tools/clobber.h"
#include "tools/commands.h"
#include "tools/malloc_tune.h"

/* --each: "DIR/" + the input's base name minus .gz/.zst minus its last extension + the format's
 * extension ("x/a.perf.txt.zst" → "DIR/a.perf.folded"). NULL when out of memory. */
static char *t2f_each_output(const char *dir, const char *input, enum t2f_format fmt)
{
	const char *slash = strrchr(input, '/');
	const char *base = slash ? slash + 1 : input;
	const char *sep = dir[0] && dir[strlen(dir) - 1] == '/' ? "" : "/";
	static const char *const zips[] = { ".gz", ".zst" };
	size_t len = strlen(base);
	const char *dot;
	char *name;

	for (size_t i = 0; i < sizeof(zips) / sizeof(zips[0]); i++) {
		size_t zlen = strlen(zips[i]);

		if (len > zlen && memcmp(base + len - zlen, zips[i], zlen) == 0) {
			len -= zlen;
			break;
		}
	}
	dot = memrchr(base, '.', len);
	if (dot && dot > base)
		len = (size_t)(dot - base);
	if (asprintf(&name, "%s%s%.*s%s", dir, sep, (int)len, base, t2f_cli_format_ext(fmt)) < 0)
		return NULL;
	return name;
}

/* Index of an earlier input with the same output name, or -1. */
static int t2f_each_clash(char *const *names, int i)
{
	for (int j = 0; j < i; j++)
		if (names[j] && strcmp(names[j], names[i]) == 0)
			return j;
	return -1;
}

/* --each: one conversion per input; goes on past failures. The exit status is the worst of
 * those a run of each input alone would have: 3 when an input could not be read or an output
 * not written, else 1 when an input was bad (or skipped: its output clashed). */
static int t2f_run_each(const struct t2f_cli_opts *o)
{
	char **names = calloc((size_t)o->n_inputs, sizeof(*names));
	int failed = 0, worst = T2F_EXIT_OK, serr;
	struct stat st;

	if (!names) {
		fprintf(stderr, "trace2flame: %s\n", t2f_strerror(-ENOMEM));
		return T2F_EXIT_INPUT;
	}
	serr = stat(o->output, &st) < 0 ? errno : 0;
	if (serr || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "trace2flame: %s: %s\n", o->output,
			serr ? strerror(serr) : "not a directory");
		free(names);
		return T2F_EXIT_IO;
	}
	for (int i = 0; i < o->n_inputs; i++) {
		int j, rc = T2F_EXIT_INPUT;

		names[i] = t2f_each_output(o->output, o->inputs[i], o->format);
		j = names[i] ? t2f_each_clash(names, i) : -1;
		if (!names[i])
			fprintf(stderr, "trace2flame: %s: %s\n", o->inputs[i], t2f_strerror(-ENOMEM));
		else if (j >= 0)
			fprintf(stderr, "trace2flame: %s: its output %s is also that of %s; skipped\n",
				o->inputs[i], names[i], o->inputs[j]);
		else if (t2f_clobber__refuse(names[i], o->inputs, (size_t)o->n_inputs))
			fprintf(stderr, "trace2flame: %s: skipped\n", o->inputs[i]);
		else
			rc = t2f_convert(o, &o->inputs[i], 1, names[i]);
		failed += rc != T2F_EXIT_OK;
		if (rc == T2F_EXIT_IO || worst == T2F_EXIT_OK)
			worst = rc;
	}
	for (int i = 0; i < o->n_inputs; i++)
		free(names[i]);
	free(names);
	if (failed)
		fprintf(stderr, "trace2flame: %d of %d input%s failed\n", failed, o->n_inputs,
			o->n_inputs == 1 ? "" : "s");
	return worst;
}

/* The subcommand whose name is the first operand, or NULL. Options given before the name are
 * the subcommand's too ("trace2flame -q diff A B" is "trace2flame diff -q A B"): its name is
 * moved to argv[1] and the options after it. */
static int (*t2f_subcommand(int argc, char **argv))(int, char **)
{
	static const struct {
		const char *name;
		int (*run)(int argc, char **argv);
	} cmds[] = {
		{ "symbols", t2f_cmd_symbols },
		{ "resolve", t2f_cmd_resolve },
		{ "diff", t2f_cmd_diff },
		{ "cache", t2f_cmd_cache },
		{ "collect", t2f_cmd_collect },
	};
	int at = t2f_cli_first_operand(argc, argv);

	for (size_t i = 0; at > 0 && i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		char *name = argv[at];

		if (strcmp(name, cmds[i].name) != 0)
			continue;
		memmove(&argv[2], &argv[1], (size_t)(at - 1) * sizeof(*argv));
		argv[1] = name;
		return cmds[i].run;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int (*cmd)(int argc, char **argv) = t2f_subcommand(argc, argv);
	struct t2f_cli_opts o;

	if (cmd)
		return cmd(argc - 1, argv + 1);
	if (t2f_cli_opts__parse(&o, argc, argv, stdout, stderr))
		return T2F_EXIT_USAGE;
	if (o.help || o.version || o.list_formats)
		return fflush(stdout) == 0 && !ferror(stdout) ? T2F_EXIT_OK : T2F_EXIT_IO;
	t2f_malloc_tune(); /* before any thread starts */
	t2f_cli_opts__warn_ignored(&o, stderr);
	if (o.each)
		return t2f_run_each(&o);
	if (t2f_clobber__refuse(o.output, o.inputs, (size_t)o.n_inputs))
		return T2F_EXIT_USAGE;
	if (t2f_clobber__no_place(o.output, true))
		return T2F_EXIT_IO;
	t2f_share_limit(0); /* one session: no later one takes its kallsyms table */
	return t2f_convert(&o, o.inputs, (size_t)o.n_inputs, o.output);
}
