/* pipeline/session_add.c: inputs added to a session (t2f_session_add_path, _fd, _bytes) and
 * their reports (t2f_session_input).
 *
 * An input that fails is left out whole: the first one read is read into the session's profile,
 * which is replaced by an empty one when it fails; a later one is read into a profile of its own
 * and merged into the session's once read (t2f_profile__merge: the profile reading it there
 * would give), and the session state its reading changed (pipeline/session.h) is put back.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/grow.h"
#include "pipeline/prefetch.h"
#include "pipeline/session.h"
#include "pipeline/versioned.h"
#include "symbolizer/symcache_ahead.h"

/* What reading an input changes in the session besides its profile and its stats: kept before,
 * put back when it fails. */
struct t2f_read_mark {
	bool nettrace, elsewhere, all, perf_rules, perf_data;
	int64_t recorded_by;
	const char *kallsyms, *kallsyms_why;
	char *kallsyms_default;
	struct t2f_prefetch *kallsyms_read;
	struct t2f_symcache_ahead *cache_ahead;
	struct t2f_sym_classes *classes;
	t2f_frame_id *frame_as;
	struct t2f_perf_data_conv_stats perf;
};

static void t2f_read_mark(const struct t2f_session *s, struct t2f_read_mark *m)
{
	*m = (struct t2f_read_mark){
		.nettrace = s->nettrace,
		.elsewhere = s->elsewhere,
		.all = s->ropts.all,
		.perf_rules = s->ropts.perf_rules,
		.perf_data = s->run.perf_data,
		.recorded_by = s->recorded_by,
		.kallsyms = s->ropts.kallsyms,
		.kallsyms_why = s->run.kallsyms_why,
		.kallsyms_default = s->kallsyms_default,
		.kallsyms_read = s->ropts.kallsyms_read,
		.cache_ahead = s->ropts.cache_ahead,
		.classes = s->classes,
		.frame_as = s->frame_as,
		.perf = s->run.perf,
	};
}

static void t2f_read_undo(struct t2f_session *s, const struct t2f_read_mark *m)
{
	if (s->kallsyms_default != m->kallsyms_default)
		free(s->kallsyms_default);
	if (s->ropts.kallsyms_read != m->kallsyms_read)
		t2f_prefetch__free(s->ropts.kallsyms_read);
	if (s->classes != m->classes) /* before the files opened ahead it borrows */
		t2f_sym_classes__free(s->classes);
	if (s->frame_as != m->frame_as) { /* of frames the profile no longer has */
		free(s->frame_as);
		s->n_frame_as = 0;
	}
	if (s->ropts.cache_ahead != m->cache_ahead)
		t2f_symcache_ahead__free(s->ropts.cache_ahead);
	s->nettrace = m->nettrace;
	s->elsewhere = m->elsewhere;
	s->ropts.all = m->all;
	s->ropts.perf_rules = m->perf_rules;
	s->run.perf_data = m->perf_data;
	s->recorded_by = m->recorded_by;
	s->ropts.kallsyms = m->kallsyms;
	s->run.kallsyms_why = m->kallsyms_why;
	s->kallsyms_default = m->kallsyms_default;
	s->ropts.kallsyms_read = m->kallsyms_read;
	s->ropts.cache_ahead = m->cache_ahead;
	s->classes = m->classes;
	s->frame_as = m->frame_as;
	s->run.perf = m->perf;
}

/* Room for one more input read, named name (as messages name it) and arg (as given), and one
 * more report. */
static int t2f_session_new_input(struct t2f_session *s, const char *name, const char *arg)
{
	size_t cap = s->cap_inputs;
	char *n = strdup(name), *a = strdup(arg), *r = strdup(name);
	int err = n && a && r ? t2f_grow((void **)&s->stats, &cap, s->n_inputs, 1,
					 sizeof(*s->stats), 4, UINT32_MAX)
			      : -ENOMEM;

	if (!err)
		err = t2f_grow((void **)&s->args, &s->cap_inputs, s->n_inputs, 1, sizeof(*s->args),
			       4, UINT32_MAX);
	if (!err)
		err = t2f_grow((void **)&s->added, &s->cap_added, s->n_added, 1, sizeof(*s->added),
			       4, SIZE_MAX);
	if (err) {
		free(n);
		free(a);
		free(r);
		return err;
	}
	s->stats[s->n_inputs] = (struct t2f_input_stats){ .name = n };
	s->args[s->n_inputs++] = a;
	s->added[s->n_added++] = (struct t2f_session_input){ .name = r };
	return 0;
}

/* Forgets the last input read (it failed): its report stays. */
static void t2f_session_drop_input(struct t2f_session *s)
{
	s->n_inputs--;
	free((char *)s->stats[s->n_inputs].name);
	free(s->args[s->n_inputs]);
}

/* Reads src into a profile of its own, p, holding at most the frames the session has room for,
 * then into the session's. 0 or a negative error; *fatal when the session's profile is left
 * incomplete (the merge ran out of memory). */
static int t2f_read_apart(struct t2f_session *s, const struct t2f_source *src,
			  struct t2f_input_stats *st, bool *fatal)
{
	uint32_t have = t2f_profile__frame_count(s->profile);
	struct t2f_profile *own = s->profile, *p = NULL;
	int err;

	if (have >= s->o.max_frames)
		return t2f_diag__error(s->diag, -T2F_ERR_LIMIT, st->name, 0,
				       "more than %u distinct frames (t2f_options.max_frames "
				       "raises the limit)", s->o.max_frames);
	err = t2f_session_new_profile(s, s->o.max_frames - have, &p);
	if (err)
		return err;
	s->profile = p; /* what reads the input reads it into s->profile */
	err = t2f_session_read_source(s, src, st);
	s->profile = own;
	if (!err) {
		err = t2f_profile__merge(own, p);
		*fatal = err != 0;
	}
	t2f_profile__free(p);
	return err;
}

/* Reads src into the session: the first input read straight into its empty profile, later ones
 * apart. 0 or a negative error: the input is then left out (the profile as before), unless
 * *fatal. */
static int t2f_read_whole(struct t2f_session *s, const struct t2f_source *src,
			  struct t2f_input_stats *st, bool *fatal)
{
	struct t2f_profile *empty = NULL;
	int err;

	*fatal = false;
	if (src->index)
		return t2f_read_apart(s, src, st, fatal);
	err = t2f_session_read_source(s, src, st);
	if (!err)
		return 0;
	*fatal = t2f_session_new_profile(s, s->o.max_frames, &empty) != 0;
	if (!*fatal) {
		t2f_profile__free(s->profile);
		s->profile = empty;
	}
	return err;
}

static int t2f_session_add(struct t2f_session *s, struct t2f_source *src, const char *name,
			   const char *arg)
{
	struct t2f_session_input *r;
	struct t2f_read_mark mark;
	uint64_t before;
	bool fatal;
	int err;

	if (!s)
		return -EINVAL;
	if (s->state != T2F_SESSION_READING)
		return t2f_session_say(s, -T2F_ERR_STATE, false, "%s: inputs are added before the "
				       "resolve stage, and only while the profile is whole", name);
	err = t2f_session_new_input(s, name, arg);
	if (err)
		return t2f_session_say(s, err, false, "%s: %s", name, t2f_strerror(err));
	src->index = (uint32_t)(s->n_inputs - 1);
	r = &s->added[s->n_added - 1];
	t2f_read_mark(s, &mark);
	t2f_diag__clear_error(s->diag);
	before = t2f_profile__samples_read(s->profile);
	err = t2f_read_whole(s, src, &s->stats[src->index], &fatal);
	r->bytes = s->stats[src->index].bytes;
	if (!err) {
		r->samples = t2f_profile__samples_read(s->profile) - before;
		return 0;
	}
	if (t2f_diag__last_error(s->diag))
		t2f_session_fail(s, err, fatal);
	else
		t2f_session_say(s, err, fatal, "%s: %s", name, t2f_strerror(err));
	r->error = err;
	r->message = strdup(t2f_session_error(s));
	if (!fatal) {
		t2f_read_undo(s, &mark);
		t2f_session_drop_input(s);
	}
	return err;
}

int t2f_session_add_path(struct t2f_session *s, const char *path)
{
	struct t2f_source src = { .path = path, .fd = -1 };

	if (!path)
		return s ? t2f_session_say(s, -EINVAL, false, "no path (NULL)") : -EINVAL;
	return t2f_session_add(s, &src, strcmp(path, "-") == 0 ? "<stdin>" : path, path);
}

int t2f_session_add_fd(struct t2f_session *s, int fd, const char *name)
{
	struct t2f_source src = { .fd = fd };
	char dflt[32];

	if (fd < 0)
		return s ? t2f_session_say(s, -EBADF, false, "a negative file descriptor") : -EBADF;
	snprintf(dflt, sizeof(dflt), "<fd %d>", fd);
	return t2f_session_add(s, &src, name ? name : dflt, name ? name : dflt);
}

int t2f_session_add_bytes(struct t2f_session *s, const void *data, size_t len, const char *name)
{
	struct t2f_source src = { .fd = -1, .data = data, .len = len };

	if (!data && len)
		return s ? t2f_session_say(s, -EINVAL, false, "no bytes (NULL)") : -EINVAL;
	return t2f_session_add(s, &src, name ? name : "<memory>", name ? name : "<memory>");
}

size_t t2f_session_input_count(const struct t2f_session *s)
{
	return s ? s->n_added : 0;
}

int t2f_session_input(const struct t2f_session *s, size_t i, struct t2f_input_report *out)
{
	const struct t2f_session_input *r;
	struct t2f_input_report all;

	if (!s || t2f_versioned__check_out(out, T2F_INPUT_REPORT_SIZE_V1))
		return -EINVAL;
	if (i >= s->n_added)
		return -ERANGE;
	r = &s->added[i];
	all = (struct t2f_input_report){
		.size = sizeof(all),
		.name = r->name,
		.message = r->message ? r->message : "",
		.bytes = r->bytes,
		.samples = r->samples,
		.error = r->error,
	};
	t2f_versioned__out(out, &all, sizeof(all));
	return 0;
}
