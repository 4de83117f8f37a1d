/* formats/sample_filter.h: which samples a reader keeps, as perf script's --time, --pid, --tid
 * and --comm select them.
 *
 * --time (perf's syntax, perf-script(1)):
 * - absolute: "START,STOP" in seconds (up to 9 decimals), either side empty (open); several
 *   ranges separated by spaces, in increasing order and not overlapping
 *   ("1.5,2 3,"): a sample is kept when its time is in one of them, ends included;
 * - percentages of the recording's span [first, last] (its first and last sample time): "P%"
 *   (the first P%), "P%/N" (the N-th slice of P%), "A%-B%", several joined by commas
 *   ("10%/1,10%/3", "0%-10%,30%-40%"). A range is first + round(frac * (last - first)) to
 *   first + round(frac' * (last - first)), less 1 ns unless it ends at last or is empty, as perf
 *   computes it (in double precision).
 * A sample without a time (0) is always kept, as perf keeps it.
 * --pid, --tid: comma-separated decimal ids; --comm: comma-separated command names, compared
 * whole. A sample is kept when its thread passes every list given.
 *
 * t2f_filter__parse turns the option strings into a spec (immutable afterwards: readers on any
 * thread may share it); t2f_sample_filter__new makes the filter of one input, its percentages
 * turned into times by the input's span. Errors: -EINVAL with a message naming the option and
 * what was expected, -ENOMEM.
 */
#ifndef T2F_SAMPLE_FILTER_H
#define T2F_SAMPLE_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define T2F_FILTER_MSG_MAX 256

/* The option strings (NULL or "": not given) and the names messages give them (the library's
 * fields, "t2f_options.time"; NULL: perf's flags, "--time"). */
struct t2f_filter_strs {
	const char *time, *pids, *tids, *comms;
	const char *time_name, *pid_name, *tid_name, *comm_name;
};

struct t2f_filter;

/* *out is NULL when no option was given (nothing to filter). 0, -EINVAL (msg[0..msg_len) says
 * why) or -ENOMEM. */
int t2f_filter__parse(const struct t2f_filter_strs *strs, struct t2f_filter **out, char *msg,
		      size_t msg_len);
void t2f_filter__free(struct t2f_filter *f); /* NULL is fine */

/* Whether --time was given, and whether in percentages (then the input's span is needed). */
bool t2f_filter__has_time(const struct t2f_filter *f);
bool t2f_filter__needs_span(const struct t2f_filter *f);
/* The option string of --time, pid, tid or comm lists for messages: "--time" etc. */
const char *t2f_filter__time_name(const struct t2f_filter *f);

/* One input's filter: borrows f (which must outlive it). first, last: the input's first and last
 * sample times in ns (used only for percentages; needs_span without a span is the caller's
 * error to report). f NULL gives NULL (keeps everything). 0 or -ENOMEM. */
struct t2f_sample_filter;
int t2f_sample_filter__new(const struct t2f_filter *f, uint64_t first, uint64_t last,
			   struct t2f_sample_filter **out);
void t2f_sample_filter__free(struct t2f_sample_filter *sf); /* NULL is fine */

/* Whether a sample of thread (pid, tid, comm[0..comm_len)) at time (ns, 0: unknown) is kept.
 * sf NULL keeps everything. Thread safe (reads only). */
bool t2f_sample_filter__keep(const struct t2f_sample_filter *sf, int64_t pid, int64_t tid,
			     const char *comm, size_t comm_len, uint64_t time);
/* The parts alone: the thread, the time. */
bool t2f_sample_filter__keep_thread(const struct t2f_sample_filter *sf, int64_t pid, int64_t tid,
				    const char *comm, size_t comm_len);
bool t2f_sample_filter__keep_time(const struct t2f_sample_filter *sf, uint64_t time);
/* Whether sf selects by time (then callers must pass the times). */
bool t2f_sample_filter__has_ranges(const struct t2f_sample_filter *sf);
/* Whether the filter looks at threads' comm (then callers must pass it), at pids. */
bool t2f_sample_filter__wants_pid(const struct t2f_sample_filter *sf);
bool t2f_sample_filter__wants_comm(const struct t2f_sample_filter *sf);

/* The ranges in ns [start, end] (0: open) of sf, for tests: at most max written; the count. */
size_t t2f_sample_filter__ranges(const struct t2f_sample_filter *sf, uint64_t *start,
				 uint64_t *end, size_t max);

#endif
