/* pipeline/session_filter.c: the session's sample filter (formats/sample_filter.h): its options
 * read once when the session is made, and each input's filter, percentages made times by the
 * input's span (perf.data: its SAMPLE_TIME feature; perf script text: the "# time of first
 * sample" and "# time of last sample" lines `perf script --header` prints).
 */
#include <errno.h>
#include <stdio.h>

#include "formats/sample_filter.h"
#include "pipeline/session.h"

int t2f_session_filter_init(struct t2f_session *s)
{
	struct t2f_filter_strs strs = {
		.time = s->o.time, .pids = s->o.pids, .tids = s->o.tids, .comms = s->o.comms,
		.time_name = "t2f_options.time", .pid_name = "t2f_options.pids",
		.tid_name = "t2f_options.tids", .comm_name = "t2f_options.comms",
	};
	char msg[T2F_FILTER_MSG_MAX];
	int err = t2f_filter__parse(&strs, &s->filter, msg, sizeof(msg));

	if (err == -EINVAL)
		fprintf(s->msg, "trace2flame: error: %s\n", msg);
	return err;
}

int t2f_session_sample_filter(struct t2f_session *s, const char *input, const char *why,
			      const uint64_t *span, struct t2f_sample_filter **out)
{
	*out = NULL;
	if (!s->filter)
		return 0;
	if (t2f_filter__needs_span(s->filter) && !span)
		return t2f_diag__error(s->diag, -T2F_ERR_UNSUPPORTED, input, 0,
				       "%s in percentages needs the recording's first and last "
				       "sample times: %s; give absolute times (START,STOP in "
				       "seconds)", t2f_filter__time_name(s->filter), why);
	return t2f_sample_filter__new(s->filter, span ? span[0] : 0, span ? span[1] : 0, out);
}
