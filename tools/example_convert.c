/* tools/example_convert.c: a program on libtrace2flame (<trace2flame.h>, `man 3 trace2flame`)
 * alone. Reads every INPUT (perf.data, perf script text, .nettrace, folded stacks; plain, gzip
 * or zstd) into one profile and writes it in FORMAT, as `trace2flame INPUT... -f FORMAT -o
 * OUTPUT` does; says on stderr how much of each input was read, and the library's warnings.
 *
 * usage: example_convert FORMAT OUTPUT INPUT...   (FORMAT collapsed, speedscope, pprof or svg;
 *                                                  OUTPUT "-": standard output)
 * stderr: "example_convert: read INPUT: N bytes" once per input, when it is read; the library's
 *         lines as they come; "example_convert: MESSAGE" when the conversion fails.
 * Exit status: 0, 1 when the conversion failed, 2 usage.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <trace2flame.h>

static void on_progress(void *ctx, const char *input, uint64_t done, uint64_t total,
			bool finished)
{
	(void)ctx;
	(void)total;
	if (finished)
		fprintf(stderr, "example_convert: read %s: %" PRIu64 " bytes\n", input, done);
}

static void on_message(void *ctx, const char *line)
{
	fprintf(ctx, "%s\n", line);
}

static enum t2f_format format_named(const char *name)
{
	static const char *const names[] = { [T2F_FORMAT_COLLAPSED] = "collapsed",
					     [T2F_FORMAT_SPEEDSCOPE] = "speedscope",
					     [T2F_FORMAT_PPROF] = "pprof",
					     [T2F_FORMAT_SVG] = "svg",
					     [T2F_FORMAT_FIREFOX] = "firefox" };

	for (int f = T2F_FORMAT_COLLAPSED; f <= T2F_FORMAT_FIREFOX; f++)
		if (strcmp(name, names[f]) == 0)
			return (enum t2f_format)f;
	return T2F_FORMAT_NONE;
}

int main(int argc, char **argv)
{
	enum t2f_format format = argc >= 4 ? format_named(argv[1]) : T2F_FORMAT_NONE;

	if (format == T2F_FORMAT_NONE) {
		fprintf(stderr, "usage: example_convert collapsed|speedscope|pprof|svg OUTPUT "
			"INPUT...\n");
		return 2;
	}
	struct t2f_options o = {
		.size = sizeof(o),
		.formats = T2F_FORMAT_BIT(format),
		.message = on_message,
		.message_ctx = stderr,
		.progress = on_progress,
	};
	struct t2f_write_options w = { .size = sizeof(w), .format = format };
	struct t2f_session *s = NULL;
	int err = t2f_session_new(&o, &s);

	for (int i = 3; i < argc && !err; i++)
		err = t2f_session_add_path(s, argv[i]);
	if (!err)
		err = t2f_session_resolve(s);
	if (!err)
		err = t2f_session_write_path(s, &w, argv[2]);
	if (err) {
		const char *msg = s ? t2f_session_error(s) : "";

		fprintf(stderr, "example_convert: %s\n", *msg ? msg : t2f_strerror(err));
	}
	t2f_session_free(s);
	return err ? 1 : 0;
}
