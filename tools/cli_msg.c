/* tools/cli_msg.c: the library's option names in its messages, as command-line flags. */
#include "tools/cli_msg.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "include/trace2flame.h"

/* Longer names first where one ends another ("t2f_options.unsafe_build_id_match"). */
static const struct {
	const char *field, *flag;
} t2f_cli_flags[] = {
	{ "t2f_options.unsafe_build_id_match", "--unsafe-build-id-match" },
	{ "unsafe_build_id_match", "--unsafe-build-id-match" },
	{ "t2f_options.max_frames", "--max-frames N" },
	{ "t2f_options.buildids", "--buildids FILE" },
	{ "t2f_options.kallsyms", "--kallsyms FILE" },
	{ "t2f_options.perf_map_dir", "--perf-map-dir DIR" },
	{ "t2f_options.event", "--event NAME" },
	{ "t2f_options.time", "--time" },
	{ "t2f_options.pids", "--pids" },
	{ "t2f_options.tids", "--tids" },
	{ "t2f_options.comms", "--comms" },
	{ "t2f_write_options.no_thread_root", "--ignore-comm" },
	{ "T2F_REPORT_STATS", "--stats" },
};

/* The flag of the option name at s, and its length in *len; NULL when none starts there. */
static const char *t2f_cli_flag_at(const char *s, size_t *len)
{
	for (size_t i = 0; i < sizeof(t2f_cli_flags) / sizeof(t2f_cli_flags[0]); i++) {
		*len = strlen(t2f_cli_flags[i].field);
		if (strncmp(s, t2f_cli_flags[i].field, *len) == 0)
			return t2f_cli_flags[i].flag;
	}
	return NULL;
}

char *t2f_cli_as_flags(const char *prefix, const char *text)
{
	char *buf = NULL;
	size_t size = 0, len;
	FILE *f = open_memstream(&buf, &size);
	const char *flag;
	bool failed;

	if (!f)
		return NULL;
	failed = fputs(prefix, f) == EOF;
	for (const char *s = text; *s && !failed;) {
		bool word_start = s == text || !(s[-1] == '_' || s[-1] == '.' ||
						 (s[-1] >= 'a' && s[-1] <= 'z'));

		if (word_start && (flag = t2f_cli_flag_at(s, &len))) {
			failed = fputs(flag, f) == EOF;
			s += len;
		} else {
			failed = fputc(*s++, f) == EOF;
		}
	}
	if (fclose(f) != 0 || failed) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* prefix and text, its option names made flags, as a line on stderr; text alone when out of
 * memory. */
static void t2f_cli_put(const char *prefix, const char *text)
{
	char *line = t2f_cli_as_flags(prefix, text);

	t2f_message_stderr(NULL, line ? line : text);
	free(line);
}

void t2f_cli_message(void *ctx, const char *line)
{
	(void)ctx;
	t2f_cli_put("", line);
}

void t2f_cli_error(const char *text)
{
	t2f_cli_put("trace2flame: ", text);
}
