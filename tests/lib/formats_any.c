/* tests/lib/formats_any.c: one conversion through libtrace2flame with the session's formats
 * given as a mask (t2f_options.formats), for tests/lib/formats_any.sh, which holds its output
 * to the command line's one-format run of the same options, byte for byte.
 *
 * usage: formats_any MASK FORMAT OUTPUT [OPTION...] -- INPUT...
 *   MASK    "any" (0: any format), "all" (every format's bit), "one" (FORMAT's bit alone)
 *   FORMAT  a name t2f_format_by_name knows
 *   OPTION  --addrs --raw-names --flamechart --pid --tid --kernel --jit --all
 *           --unsafe-build-id-match --event=NAME, as the command line's
 * The session options the command line sets besides (fold_threads without --pid and --tid) are
 * set alike. Exit status: 0, 1 when the conversion failed (the library's message on stderr),
 * 2 usage.
 */
#include <stdio.h>
#include <string.h>

#include <trace2flame.h>

static int usage(void)
{
	fputs("usage: formats_any any|all|one FORMAT OUTPUT [OPTION...] -- INPUT...\n", stderr);
	return 2;
}

static unsigned mask_of(const char *m, enum t2f_format f)
{
	unsigned all = 0;

	if (strcmp(m, "one") == 0)
		return T2F_FORMAT_BIT(f);
	for (size_t i = T2F_FORMAT_COLLAPSED; i <= t2f_format_count(); i++)
		all |= T2F_FORMAT_BIT((enum t2f_format)i);
	return strcmp(m, "all") == 0 ? all : 0;
}

/* One OPTION into o and w; 0, or -1 when unknown. */
static int option(const char *a, struct t2f_options *o, struct t2f_write_options *w)
{
	if (strncmp(a, "--event=", 8) == 0)
		o->event = a + 8;
	else if (strcmp(a, "--addrs") == 0)
		o->addrs = true;
	else if (strcmp(a, "--raw-names") == 0)
		o->raw_names = true;
	else if (strcmp(a, "--flamechart") == 0)
		o->time_order = w->flamechart = true;
	else if (strcmp(a, "--pid") == 0)
		w->pid = true;
	else if (strcmp(a, "--tid") == 0)
		w->tid = true;
	else if (strcmp(a, "--kernel") == 0)
		w->kernel = true;
	else if (strcmp(a, "--jit") == 0)
		w->jit = true;
	else if (strcmp(a, "--all") == 0)
		w->kernel = w->jit = w->inlined = true;
	else if (strcmp(a, "--unsafe-build-id-match") == 0)
		o->unsafe_build_id_match = true;
	else
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	enum t2f_format format = argc >= 5 ? t2f_format_by_name(argv[2]) : T2F_FORMAT_NONE;
	struct t2f_options o = { .size = sizeof(o) };
	struct t2f_write_options w = { .size = sizeof(w), .format = format };
	struct t2f_session *s = NULL;
	int i, err;

	if (format == T2F_FORMAT_NONE)
		return usage();
	for (i = 4; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (option(argv[i], &o, &w))
			return usage();
	if (i >= argc - 1)
		return usage();
	o.formats = mask_of(argv[1], format);
	o.fold_threads = !w.pid && !w.tid;
	o.quiet = true;
	err = t2f_session_new(&o, &s);
	for (i++; i < argc && !err; i++)
		err = t2f_session_add_path(s, argv[i]);
	if (!err)
		err = t2f_session_resolve(s);
	if (!err)
		err = t2f_session_write_path(s, &w, argv[3]);
	if (err) {
		const char *msg = s ? t2f_session_error(s) : "";

		fprintf(stderr, "formats_any: %s\n", *msg ? msg : t2f_strerror(err));
	}
	t2f_session_free(s);
	return err ? 1 : 0;
}
