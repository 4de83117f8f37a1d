/* tests/fuzz/fuzz_support.c: helpers of the fuzz targets (fuzz_support.h). */
#include "tests/fuzz/fuzz_support.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tests/unit/support/log_runs.h"

void fz_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fuzz: %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

uint64_t fz_hash(const uint8_t *data, size_t size)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < size; i++)
		h = (h ^ data[i]) * 0x100000001b3ull;
	return h;
}

int fz_feed_chunks(const uint8_t *data, size_t size, uint64_t h, bool whole,
		   int (*feed)(void *ctx, const uint8_t *piece, size_t len), void *ctx)
{
	size_t off = 0;
	int err = 0;

	while (!err && off < size) {
		size_t n = size - off;

		if (!whole) {
			h ^= h << 13;
			h ^= h >> 7;
			h ^= h << 17;
			n = n < 1 + h % 1024 ? n : 1 + h % 1024;
		}
		err = feed(ctx, data + off, n);
		off += n;
	}
	return err;
}

size_t fz_line_split(const uint8_t *data, size_t size, size_t pos)
{
	const uint8_t *nl;

	if (pos >= size)
		return size;
	nl = memchr(data + pos, '\n', size - pos);
	return nl ? (size_t)(nl - data) + 1 : size;
}

int fz_memfd(const uint8_t *data, size_t size, char *path, size_t path_len)
{
	int fd = memfd_create("t2f-fuzz", MFD_CLOEXEC);
	size_t done = 0;

	if (fd < 0)
		return -1;
	while (done < size) {
		ssize_t n = write(fd, data + done, size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			close(fd);
			return -1;
		}
		done += (size_t)n;
	}
	if (lseek(fd, 0, SEEK_SET) != 0 ||
	    snprintf(path, path_len, "/proc/self/fd/%d", fd) >= (int)path_len) {
		close(fd);
		return -1;
	}
	return fd;
}

int fz_diag_open(struct fz_diag *fd)
{
	*fd = (struct fz_diag){ 0 };
	fd->sink = open_memstream(&fd->text, &fd->len);
	if (!fd->sink)
		return -ENOMEM;
	return t2f_diag__new(fd->sink, &fd->d);
}

void fz_diag_close(struct fz_diag *fd)
{
	t2f_diag__free(fd->d);
	if (fd->sink)
		fclose(fd->sink);
	free(fd->text);
	*fd = (struct fz_diag){ 0 };
}

const char *fz_diag_text(struct fz_diag *fd)
{
	const char *err = t2f_diag__last_error(fd->d);

	t2f_diag__flush(fd->d);
	fprintf(fd->sink, "error: %s\n", err ? err : "none");
	fflush(fd->sink);
	return fd->text ? fd->text : "";
}

/* ---- profile comparison ---- */

static bool same_str(const struct t2f_profile *a, t2f_str_id ia, const struct t2f_profile *b,
		     t2f_str_id ib)
{
	size_t la, lb;
	const char *sa = t2f_profile__str(a, ia, &la), *sb = t2f_profile__str(b, ib, &lb);

	return (ia == 0) == (ib == 0) && la == lb && memcmp(sa, sb, la) == 0;
}

static void check_threads(const struct t2f_profile *a, const struct t2f_profile *b,
			  const char *what)
{
	uint32_t n = t2f_profile__thread_count(a);

	FZ_CHECK(n == t2f_profile__thread_count(b), "%s: threads %u vs %u", what, n,
		 t2f_profile__thread_count(b));
	for (t2f_thread_id i = 1; i <= n; i++) {
		const struct t2f_thread *x = t2f_profile__thread_at(a, i);
		const struct t2f_thread *y = t2f_profile__thread_at(b, i);

		FZ_CHECK(x->pid == y->pid && x->tid == y->tid && x->input == y->input &&
			 same_str(a, x->comm, b, y->comm), "%s: thread %u differs", what, i);
	}
}

static void check_events(const struct t2f_profile *a, const struct t2f_profile *b,
			 const char *what)
{
	uint32_t n = t2f_profile__event_count(a);

	FZ_CHECK(n == t2f_profile__event_count(b), "%s: events %u vs %u", what, n,
		 t2f_profile__event_count(b));
	for (t2f_event_id i = 1; i <= n; i++) {
		const struct t2f_event *x = t2f_profile__event_at(a, i);
		const struct t2f_event *y = t2f_profile__event_at(b, i);

		FZ_CHECK(x->unit == y->unit && x->has_period == y->has_period &&
			 same_str(a, x->name, b, y->name), "%s: event %u differs", what, i);
	}
}

static void check_frames(const struct t2f_profile *a, const struct t2f_profile *b,
			 const char *what)
{
	uint32_t n = t2f_profile__frame_count(a);

	FZ_CHECK(n == t2f_profile__frame_count(b), "%s: frames %u vs %u", what, n,
		 t2f_profile__frame_count(b));
	for (t2f_frame_id i = 1; i <= n; i++) {
		const struct t2f_frame *x = t2f_profile__frame_at(a, i);
		const struct t2f_frame *y = t2f_profile__frame_at(b, i);

		FZ_CHECK(x->kind == y->kind && x->has_addr == y->has_addr &&
			 (!x->has_addr || (x->addr == y->addr && x->space == y->space)) &&
			 same_str(a, x->name, b, y->name) && same_str(a, x->module, b, y->module),
			 "%s: frame %u differs", what, i);
	}
}

static void check_nodes(const struct t2f_profile *a, const struct t2f_profile *b,
			const char *what)
{
	uint32_t n = t2f_profile__node_count(a);

	FZ_CHECK(n == t2f_profile__node_count(b), "%s: stack nodes %u vs %u", what, n,
		 t2f_profile__node_count(b));
	for (t2f_node_id i = 1; i <= n; i++)
		FZ_CHECK(t2f_profile__node_parent(a, i) == t2f_profile__node_parent(b, i) &&
			 t2f_profile__node_frame(a, i) == t2f_profile__node_frame(b, i),
			 "%s: stack node %u differs", what, i);
}

static void check_maps(const struct t2f_profile *a, const struct t2f_profile *b,
		       const char *what)
{
	uint32_t n = t2f_profile__module_map_count(a);

	FZ_CHECK(n == t2f_profile__module_map_count(b), "%s: module maps %u vs %u", what, n,
		 t2f_profile__module_map_count(b));
	for (uint32_t i = 0; i < n; i++) {
		const struct t2f_module_map *x = t2f_profile__module_map_at(a, i);
		const struct t2f_module_map *y = t2f_profile__module_map_at(b, i);

		FZ_CHECK(x->pid == y->pid && x->input == y->input && x->start == y->start &&
			 x->len == y->len && x->pgoff == y->pgoff &&
			 x->has_segment == y->has_segment &&
			 x->p_vaddr == y->p_vaddr && x->p_offset == y->p_offset &&
			 x->page_size == y->page_size && same_str(a, x->path, b, y->path) &&
			 same_str(a, x->build_id, b, y->build_id) &&
			 same_str(a, x->prot, b, y->prot), "%s: module map %u differs", what, i);
	}
}

static void check_cells(const struct t2f_profile *a, const struct t2f_profile *b,
			const char *what)
{
	size_t n = t2f_profile__cell_count(a);

	FZ_CHECK(n == t2f_profile__cell_count(b), "%s: cells %zu vs %zu", what, n,
		 t2f_profile__cell_count(b));
	for (size_t i = 0; i < n; i++) {
		const struct t2f_cell *x = t2f_profile__cell_at(a, i);
		const struct t2f_cell *y = t2f_profile__cell_at(b, i);

		FZ_CHECK(x->node == y->node && x->thread == y->thread && x->event == y->event &&
			 x->samples == y->samples && x->weight == y->weight,
			 "%s: cell %zu differs", what, i);
	}
}

static void check_log(const struct t2f_profile *a, const struct t2f_profile *b,
		      const char *what)
{
	size_t n = t2f_profile__sample_log_count(a);

	FZ_CHECK(n == t2f_profile__sample_log_count(b), "%s: logged samples %zu vs %zu", what, n,
		 t2f_profile__sample_log_count(b));
	for (t2f_thread_id t = 1; t <= t2f_profile__thread_count(a); t++) {
		struct log_runs ra = log_runs(a, t), rb = log_runs(b, t);
		struct t2f_sample_run x, y;
		uint64_t nx, ny;
		size_t i = 0;

		n = t2f_profile__thread_sample_count(a, t);
		FZ_CHECK(n == t2f_profile__thread_sample_count(b, t),
			 "%s: logged samples of thread %u: %zu vs %zu", what, t, n,
			 t2f_profile__thread_sample_count(b, t));
		for (; log_runs_next(&ra, &x, &nx); i++) {
			FZ_CHECK(log_runs_next(&rb, &y, &ny), "%s: thread %u: fewer runs", what, t);
			FZ_CHECK(x.node == y.node && x.thread == t && y.thread == t &&
				 x.event == y.event && nx == ny && x.weight == y.weight,
				 "%s: logged run %zu of thread %u differs", what, i, t);
		}
		FZ_CHECK(!log_runs_next(&rb, &y, &ny), "%s: thread %u: more runs", what, t);
	}
}

static void check_counts(const struct t2f_profile *a, const struct t2f_profile *b,
			 const char *what)
{
	uint64_t fa = 0, la = 0, fb = 0, lb = 0;
	bool ta = t2f_profile__time_span(a, &fa, &la), tb = t2f_profile__time_span(b, &fb, &lb);

	FZ_CHECK(ta == tb && fa == fb && la == lb, "%s: time spans differ", what);
	FZ_CHECK(t2f_profile__samples_read(a) == t2f_profile__samples_read(b),
		 "%s: samples read %llu vs %llu", what,
		 (unsigned long long)t2f_profile__samples_read(a),
		 (unsigned long long)t2f_profile__samples_read(b));
	for (int r = 0; r < T2F_DROP__COUNT; r++)
		FZ_CHECK(t2f_profile__samples_dropped(a, r) == t2f_profile__samples_dropped(b, r),
			 "%s: samples dropped (%s) differ", what, t2f_drop_reason_name(r));
}

void fz_check_same_profile(const struct t2f_profile *a, const struct t2f_profile *b,
			   const char *what)
{
	check_threads(a, b, what);
	check_events(a, b, what);
	check_frames(a, b, what);
	check_nodes(a, b, what);
	check_maps(a, b, what);
	check_cells(a, b, what);
	check_log(a, b, what);
	check_counts(a, b, what);
}
