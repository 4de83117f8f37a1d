/* tools/example_folded.c: a program using libtrace2flame through <trace2flame.h> alone.
 * Converts one profile (perf.data, perf script text, .nettrace, folded stacks; plain, gzip or
 * zstd) to collapsed stacks, as `trace2flame INPUT -f collapsed -o OUTPUT` does.
 *
 * usage: example_folded INPUT [OUTPUT]     (OUTPUT "-" or none: standard output)
 * Exit status: 0, 1 when the conversion failed (the session's message on stderr), 2 usage.
 */
#include <stdio.h>

#include <trace2flame.h>

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: example_folded INPUT [OUTPUT]\n");
		return 2;
	}
	struct t2f_options o = {
		.size = sizeof(o),
		.formats = T2F_FORMAT_BIT(T2F_FORMAT_COLLAPSED),
	};
	struct t2f_write_options w = { .size = sizeof(w), .format = T2F_FORMAT_COLLAPSED };
	struct t2f_session *s = NULL;
	int err = t2f_session_new(&o, &s);
	if (!err)
		err = t2f_session_add_path(s, argv[1]);
	if (!err)
		err = t2f_session_write_path(s, &w, argc == 3 ? argv[2] : "-");
	if (err) {
		const char *msg = s ? t2f_session_error(s) : "";
		fprintf(stderr, "example_folded: %s\n", *msg ? msg : t2f_strerror(err));
	}
	t2f_session_free(s);
	return err ? 1 : 0;
}
