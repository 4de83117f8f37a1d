/* tools/bench_write.c: t2f-bench-write FORMAT FILE [WRITES]: how long one writer takes, alone.
 *
 * Reads FILE once into a session made for FORMAT ("pprof", "collapsed", "speedscope" ...:
 * t2f_format_by_name), resolves it, then writes it WRITES times (default 40) to /dev/null and
 * prints the fastest, first-quartile and median write in ms. The writes after the first find
 * the memory of the ones before: this measures the writer's own work (its tables, encoding and
 * compression threads), not the fresh pages a single run also pays. Wall time, through the
 * public API only. A benchmark, not a test: it fails only when FILE cannot be read or written.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <trace2flame.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int by_time(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int fail(struct t2f_session *s, int err, const char *what)
{
	fprintf(stderr, "t2f-bench-write: %s: %s\n", what, s ? t2f_session_error(s) : t2f_strerror(err));
	t2f_session_free(s);
	return 1;
}

int main(int argc, char **argv)
{
	enum t2f_format f = argc > 2 ? t2f_format_by_name(argv[1]) : T2F_FORMAT_NONE;
	int writes = argc > 3 ? atoi(argv[3]) : 40, fd, err;
	struct t2f_options o = { .size = sizeof(o) };
	struct t2f_write_options w = { .size = sizeof(w), .format = f };
	struct t2f_session *s = NULL;
	double *ms;

	if (f == T2F_FORMAT_NONE || writes < 1) {
		fprintf(stderr, "usage: t2f-bench-write FORMAT FILE [WRITES]\n");
		return 2;
	}
	o.formats = T2F_FORMAT_BIT(f);
	err = t2f_session_new(&o, &s);
	if (err)
		return fail(NULL, err, "session");
	if (t2f_session_add_path(s, argv[2]) || t2f_session_resolve(s))
		return fail(s, 0, argv[2]);
	fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	ms = malloc((size_t)writes * sizeof(*ms));
	if (fd < 0 || !ms)
		return fail(s, -ENOMEM, "/dev/null");
	for (int i = 0; i < writes; i++) {
		double t0 = now_ms();

		if (t2f_session_write_fd(s, &w, fd))
			return fail(s, 0, "write");
		ms[i] = now_ms() - t0;
	}
	qsort(ms, (size_t)writes, sizeof(*ms), by_time);
	printf("%s %s: %d writes, min %.2f ms, q1 %.2f ms, median %.2f ms\n", argv[1], argv[2],
	       writes, ms[0], ms[writes / 4], ms[writes / 2]);
	free(ms);
	close(fd);
	t2f_session_free(s);
	return 0;
}
