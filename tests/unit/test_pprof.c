/* tests/unit/test_pprof.c: writers/pprof.c on profiles built through formats/profile.h.
 *
 * Each case writes into a temp file, inflates it with zlib and decodes it with the small
 * protobuf reader below (its own varint and field walk, sharing nothing with formats/pb_wire),
 * then checks the rules pprof enforces (string_table[0] == "", indices in range, ids non-zero
 * and unique, value counts) and the exact content: sample types, stacks, labels, mappings,
 * folded inline lines, functions, period, comments.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include <cmocka.h>
#include <zlib.h>

#include "formats/profile.h"
#include "writers/out.h"
#include "writers/pprof.h"
#include "tests/unit/support/profile_build.h"

/* ---- decoder ---- */

#define MAXN 64

struct d_sample {
	uint64_t loc[MAXN];
	size_t nloc;
	int64_t val[MAXN];
	size_t nval;
	struct { int64_t key, str, num; } label[8];
	size_t nlabel;
};
struct d_mapping {
	uint64_t id, start, limit, offset;
	int64_t file, build_id;
	bool has_fn, has_fl, has_ln, has_in;
};
struct d_location { uint64_t id, mapping, address, fn[MAXN]; int64_t line[MAXN]; size_t nline; };
struct d_function { uint64_t id; int64_t name, sys, file, start; };

struct dprof {
	char *str[512];
	size_t nstr;
	int64_t type[MAXN][2];
	size_t ntype;
	struct d_sample sample[128];
	size_t nsample;
	struct d_mapping map[16];
	size_t nmap;
	struct d_location loc[128];
	size_t nloc;
	struct d_function fn[128];
	size_t nfn;
	int64_t time_nanos, duration, period, period_type[2], default_type, comment[4];
	size_t ncomment, time_count;
};

struct rd {
	const unsigned char *p, *end;
};

static uint64_t rd_varint(struct rd *r)
{
	uint64_t v = 0;

	for (int shift = 0; shift < 70; shift += 7) {
		assert_true(r->p < r->end);
		unsigned char c = *r->p++;

		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return v;
	}
	fail_msg("varint longer than 10 bytes");
	return 0;
}

/* Next field: its number, wire type, and either a varint value or a sub-reader. */
static bool rd_field(struct rd *r, uint32_t *field, int *wt, uint64_t *v, struct rd *sub)
{
	uint64_t key, len;

	if (r->p == r->end)
		return false;
	key = rd_varint(r);
	*field = (uint32_t)(key >> 3);
	*wt = (int)(key & 7);
	assert_true(*field != 0);
	if (*wt == 0) {
		*v = rd_varint(r);
	} else if (*wt == 2) {
		len = rd_varint(r);
		assert_true(len <= (uint64_t)(r->end - r->p));
		sub->p = r->p;
		sub->end = r->p + len;
		r->p += len;
	} else {
		fail_msg("unexpected wire type %d", *wt);
	}
	return true;
}

/* A repeated scalar, packed (wt 2) or not. */
static void rd_repeated(int wt, uint64_t v, struct rd *sub, uint64_t *out, size_t *n)
{
	if (wt == 0) {
		assert_true(*n < MAXN);
		out[(*n)++] = v;
		return;
	}
	while (sub->p < sub->end) {
		assert_true(*n < MAXN);
		out[(*n)++] = rd_varint(sub);
	}
}

static void d_sample(struct rd *r, struct d_sample *s)
{
	uint32_t f;
	int wt;
	uint64_t v, tmp[MAXN];
	struct rd sub, lr;

	while (rd_field(r, &f, &wt, &v, &sub)) {
		if (f == 1) {
			rd_repeated(wt, v, &sub, s->loc, &s->nloc);
		} else if (f == 2) {
			size_t n = 0;

			rd_repeated(wt, v, &sub, tmp, &n);
			for (size_t i = 0; i < n; i++)
				s->val[s->nval++] = (int64_t)tmp[i];
		} else if (f == 3) {
			assert_true(s->nlabel < 8);
			memset(&s->label[s->nlabel], 0, sizeof(s->label[0]));
			while (rd_field(&sub, &f, &wt, &v, &lr)) {
				if (f == 1)
					s->label[s->nlabel].key = (int64_t)v;
				else if (f == 2)
					s->label[s->nlabel].str = (int64_t)v;
				else if (f == 3)
					s->label[s->nlabel].num = (int64_t)v;
			}
			s->nlabel++;
		}
	}
}

static void d_pair(struct rd *r, int64_t out[2])
{
	uint32_t f;
	int wt;
	uint64_t v;
	struct rd sub;

	out[0] = out[1] = 0;
	while (rd_field(r, &f, &wt, &v, &sub))
		if (f == 1 || f == 2)
			out[f - 1] = (int64_t)v;
}

static void d_mapping(struct rd *r, struct d_mapping *m)
{
	uint32_t f;
	int wt;
	uint64_t v;
	struct rd sub;

	memset(m, 0, sizeof(*m));
	while (rd_field(r, &f, &wt, &v, &sub)) {
		switch (f) {
		case 1: m->id = v; break;
		case 2: m->start = v; break;
		case 3: m->limit = v; break;
		case 4: m->offset = v; break;
		case 5: m->file = (int64_t)v; break;
		case 6: m->build_id = (int64_t)v; break;
		case 7: m->has_fn = v != 0; break;
		case 8: m->has_fl = v != 0; break;
		case 9: m->has_ln = v != 0; break;
		case 10: m->has_in = v != 0; break;
		}
	}
}

static void d_location(struct rd *r, struct d_location *l)
{
	uint32_t f;
	int wt;
	uint64_t v;
	struct rd sub, ls;

	memset(l, 0, sizeof(*l));
	while (rd_field(r, &f, &wt, &v, &sub)) {
		if (f == 1) {
			l->id = v;
		} else if (f == 2) {
			l->mapping = v;
		} else if (f == 3) {
			l->address = v;
		} else if (f == 4) {
			assert_true(l->nline < MAXN);
			l->fn[l->nline] = 0;
			l->line[l->nline] = 0;
			while (rd_field(&sub, &f, &wt, &v, &ls)) {
				if (f == 1)
					l->fn[l->nline] = v;
				else if (f == 2)
					l->line[l->nline] = (int64_t)v;
			}
			l->nline++;
		}
	}
}

static void d_function(struct rd *r, struct d_function *fn)
{
	uint32_t f;
	int wt;
	uint64_t v;
	struct rd sub;

	memset(fn, 0, sizeof(*fn));
	while (rd_field(r, &f, &wt, &v, &sub)) {
		if (f == 1)
			fn->id = v;
		else if (f == 2)
			fn->name = (int64_t)v;
		else if (f == 3)
			fn->sys = (int64_t)v;
		else if (f == 4)
			fn->file = (int64_t)v;
		else if (f == 5)
			fn->start = (int64_t)v;
	}
}

static void decode(const unsigned char *p, size_t n, struct dprof *d)
{
	struct rd r = { p, p + n }, sub;
	uint32_t f;
	int wt;
	uint64_t v, tmp[MAXN];
	size_t nc;

	memset(d, 0, sizeof(*d));
	while (rd_field(&r, &f, &wt, &v, &sub)) {
		switch (f) {
		case 1: assert_true(d->ntype < MAXN); d_pair(&sub, d->type[d->ntype++]); break;
		case 2: assert_true(d->nsample < 128); d_sample(&sub, &d->sample[d->nsample++]); break;
		case 3: assert_true(d->nmap < 16); d_mapping(&sub, &d->map[d->nmap++]); break;
		case 4: assert_true(d->nloc < 128); d_location(&sub, &d->loc[d->nloc++]); break;
		case 5: assert_true(d->nfn < 128); d_function(&sub, &d->fn[d->nfn++]); break;
		case 6:
			assert_true(d->nstr < 512);
			d->str[d->nstr] = strndup((const char *)sub.p, (size_t)(sub.end - sub.p));
			d->nstr++;
			break;
		case 9: d->time_nanos = (int64_t)v; d->time_count++; break;
		case 10: d->duration = (int64_t)v; break;
		case 11: d_pair(&sub, d->period_type); break;
		case 12: d->period = (int64_t)v; break;
		case 13:
			nc = 0;
			rd_repeated(wt, v, &sub, tmp, &nc);
			for (size_t i = 0; i < nc; i++)
				d->comment[d->ncomment++] = (int64_t)tmp[i];
			break;
		case 14: d->default_type = (int64_t)v; break;
		default: fail_msg("unexpected Profile field %u", f);
		}
	}
}

static void dprof_free(struct dprof *d)
{
	for (size_t i = 0; i < d->nstr; i++)
		free(d->str[i]);
}

/* ---- checks of pprof's rules ---- */

static const char *S(const struct dprof *d, int64_t idx)
{
	assert_true(idx >= 0 && (size_t)idx < d->nstr);
	return d->str[idx];
}

static const struct d_location *find_loc(const struct dprof *d, uint64_t id)
{
	for (size_t i = 0; i < d->nloc; i++)
		if (d->loc[i].id == id)
			return &d->loc[i];
	fail_msg("no location %llu", (unsigned long long)id);
	return NULL;
}

static const struct d_function *find_fn(const struct dprof *d, uint64_t id)
{
	for (size_t i = 0; i < d->nfn; i++)
		if (d->fn[i].id == id)
			return &d->fn[i];
	fail_msg("no function %llu", (unsigned long long)id);
	return NULL;
}

static void check_rules(const struct dprof *d)
{
	assert_true(d->nstr >= 1);
	assert_string_equal(d->str[0], "");
	for (size_t i = 0; i < d->nstr; i++)
		for (size_t j = i + 1; j < d->nstr; j++)
			assert_string_not_equal(d->str[i], d->str[j]);
	for (size_t i = 0; i < d->ntype; i++)
		S(d, d->type[i][0]), S(d, d->type[i][1]);
	for (size_t i = 0; i < d->nsample; i++) {
		assert_int_equal(d->sample[i].nval, d->ntype);
		for (size_t k = 0; k < d->sample[i].nloc; k++)
			find_loc(d, d->sample[i].loc[k]);
		for (size_t k = 0; k < d->sample[i].nlabel; k++)
			S(d, d->sample[i].label[k].key), S(d, d->sample[i].label[k].str);
	}
	for (size_t i = 0; i < d->nmap; i++) {
		assert_int_equal(d->map[i].id, i + 1);
		S(d, d->map[i].file), S(d, d->map[i].build_id);
	}
	for (size_t i = 0; i < d->nloc; i++) {
		assert_int_equal(d->loc[i].id, i + 1);
		assert_true(d->loc[i].mapping <= d->nmap);
		assert_true(d->loc[i].nline >= 1);
		for (size_t k = 0; k < d->loc[i].nline; k++)
			find_fn(d, d->loc[i].fn[k]);
	}
	for (size_t i = 0; i < d->nfn; i++) {
		assert_int_equal(d->fn[i].id, i + 1);
		S(d, d->fn[i].name), S(d, d->fn[i].sys), S(d, d->fn[i].file);
	}
	for (size_t i = 0; i < d->ncomment; i++)
		S(d, d->comment[i]);
	assert_true(d->time_count <= 1);
}

/* "leaf;...;root" of sample i: every line of every location, leaf first. */
static void stack_of(const struct dprof *d, size_t i, char *out, size_t cap)
{
	size_t n = 0;

	out[0] = 0;
	for (size_t k = 0; k < d->sample[i].nloc; k++) {
		const struct d_location *l = find_loc(d, d->sample[i].loc[k]);

		for (size_t j = 0; j < l->nline; j++)
			n += (size_t)snprintf(out + n, cap - n, "%s%s", n ? ";" : "",
					      S(d, find_fn(d, l->fn[j])->name));
	}
}

static int64_t label(const struct dprof *d, size_t i, const char *key, bool *found, bool num)
{
	*found = false;
	for (size_t k = 0; k < d->sample[i].nlabel; k++) {
		if (strcmp(S(d, d->sample[i].label[k].key), key))
			continue;
		*found = true;
		return num ? d->sample[i].label[k].num : d->sample[i].label[k].str;
	}
	return 0;
}

/* ---- writing ---- */

/* Writes the profile; returns the file bytes (gzip unless raw) in *bytes. */
static int write_pprof(const struct t2f_profile *p, const struct t2f_pprof_opts *o,
		       unsigned char **bytes, size_t *len)
{
	FILE *f = tmpfile();
	struct t2f_out *out;
	long size;
	int err;

	assert_non_null(f);
	assert_int_equal(t2f_out__new(fileno(f), &out), 0);
	err = t2f_pprof__write(p, o, out);
	if (!err)
		err = t2f_out__finish(out);
	t2f_out__free(out);
	size = lseek(fileno(f), 0, SEEK_END);
	*bytes = malloc((size_t)size + 1);
	assert_non_null(*bytes);
	assert_int_equal(pread(fileno(f), *bytes, (size_t)size, 0), size);
	*len = (size_t)size;
	fclose(f);
	return err;
}

static void inflate_all(const unsigned char *in, size_t n, unsigned char **out, size_t *len)
{
	z_stream zs = { 0 };
	size_t cap = 1 << 16;
	int rc;

	*out = malloc(cap);
	*len = 0;
	assert_int_equal(inflateInit2(&zs, 15 + 16), Z_OK);
	zs.next_in = (unsigned char *)in;
	zs.avail_in = (uInt)n;
	do {
		if (*len == cap)
			*out = realloc(*out, cap *= 2);
		zs.next_out = *out + *len;
		zs.avail_out = (uInt)(cap - *len);
		rc = inflate(&zs, Z_NO_FLUSH);
		assert_true(rc == Z_OK || rc == Z_STREAM_END);
		*len = cap - zs.avail_out;
	} while (rc != Z_STREAM_END);
	assert_int_equal(zs.avail_in, 0); /* one member, nothing after it */
	inflateEnd(&zs);
}

/* Writes gzip, checks the gzip header, inflates, decodes and checks the rules. */
static void write_decode(const struct t2f_profile *p, const struct t2f_pprof_opts *o,
			 struct dprof *d)
{
	unsigned char *gz, *raw;
	size_t gzlen, rawlen;

	assert_int_equal(write_pprof(p, o, &gz, &gzlen), 0);
	assert_true(gzlen > 18);
	assert_int_equal(gz[0], 0x1f);
	assert_int_equal(gz[1], 0x8b);
	assert_int_equal(gz[2], 8); /* deflate */
	assert_int_equal(gz[4] | gz[5] | gz[6] | gz[7], 0); /* mtime 0 */
	inflate_all(gz, gzlen, &raw, &rawlen);
	decode(raw, rawlen, d);
	check_rules(d);
	free(gz);
	free(raw);
}

/* Writes p to a temp *.pb.gz and runs tests/validate/check pprof on it (Go pprof, protoc and
 * the structure checker). Its exit 77 (a checker not installed, which it names; under CI=true
 * check fails instead) skips this. */
static void validate(const struct t2f_profile *p)
{
	const char *src = getenv("T2F_SOURCE_DIR");
	char path[] = "/tmp/t2f_pprof_XXXXXX.pb.gz", cmd[4096];
	unsigned char *bytes;
	size_t len;
	int fd, rc;

	if (!src)
		fail_msg("T2F_SOURCE_DIR is not set (ctest sets it)");
	assert_int_equal(write_pprof(p, &(struct t2f_pprof_opts){ 0 }, &bytes, &len), 0);
	fd = mkstemps(path, (int)strlen(".pb.gz"));
	assert_true(fd >= 0);
	assert_int_equal(write(fd, bytes, len), (ssize_t)len);
	close(fd);
	free(bytes);
	assert_true(snprintf(cmd, sizeof(cmd), "'%s/tests/validate/check' pprof '%s'", src, path) <
		    (int)sizeof(cmd));
	fflush(stdout);
	rc = system(cmd);
	unlink(path);
	if (rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 77)
		return;
	if (rc != 0)
		fail_msg("the validator rejected the profile");
}

/* ---- profile building ---- */

/* The node of a root-first stack of frames (0-terminated). */
static t2f_node_id stack(struct t2f_profile *p, const t2f_frame_id *frames)
{
	t2f_node_id n = 0;

	for (; *frames; frames++)
		assert_int_equal(t2f_profile__child(p, n, *frames, &n), 0);
	return n;
}

static t2f_event_id event(struct t2f_profile *p, const char *name, enum t2f_unit unit)
{
	t2f_event_id id;

	assert_int_equal(t2f_profile__event(p, str(p, name), unit, &id), 0);
	return id;
}

static void sample(struct t2f_profile *p, t2f_node_id n, t2f_thread_id t, t2f_event_id e,
		   uint64_t w)
{
	assert_int_equal(t2f_profile__add_sample(p, n, t, e, w, 0), 0);
}

/* ---- cases ---- */

/* Two threads (one with an unknown pid), one event with periods, a module map with a build-id,
 * an unresolved frame with a DSO-relative address. */
static void test_cpu_profile(void **state)
{
	struct t2f_profile *p;
	struct dprof d;
	struct t2f_module_map mm = { .pid = 42, .start = 0x7f0000001000, .len = 0x3000,
				     .pgoff = 0x1000 };
	char st[512];
	bool found;

	(void)state;
	assert_int_equal(t2f_profile__new(&p), 0);
	mm.path = str(p, "/usr/lib/libc.so.6");
	mm.build_id = str(p, "abcdef0123");
	assert_int_equal(t2f_profile__add_module_map(p, &mm), 0);
	t2f_frame_id start = frame(p, "__libc_start_main", "/usr/lib/libc.so.6", T2F_FRAME_USER, 0);
	t2f_frame_id mainf = frame(p, "main", "/usr/bin/app", T2F_FRAME_USER, 0);
	t2f_frame_id work = frame(p, "work(int)", "/usr/bin/app", T2F_FRAME_USER, 0);
	t2f_frame_id unk = frame(p, NULL, "/usr/lib/libc.so.6", T2F_FRAME_USER, 0x1234);
	t2f_frame_id sys = frame(p, "copy_page", "[kernel.kallsyms]", T2F_FRAME_KERNEL, 0);
	t2f_thread_id t1 = thread(p, 42, 42, "app", 0);
	t2f_thread_id t2 = thread(p, T2F_PID_UNKNOWN, 43, "worker", 0);
	t2f_event_id ev = event(p, "cpu-clock", T2F_UNIT_NANOSECONDS);
	t2f_node_id a = stack(p, (t2f_frame_id[]){ start, mainf, work, 0 });
	t2f_node_id b = stack(p, (t2f_frame_id[]){ start, mainf, work, unk, 0 });
	t2f_node_id c = stack(p, (t2f_frame_id[]){ start, mainf, work, sys, 0 });

	t2f_profile__event_has_period(p, ev);
	assert_int_equal(t2f_profile__add_sample(p, a, t1, ev, 1000, 2000), 0); /* the timed */
	assert_int_equal(t2f_profile__add_sample(p, a, t1, ev, 1000, 1500), 0); /* samples' span */
	sample(p, b, t1, ev, 1000);                                              /* is the duration */
	sample(p, a, t2, ev, 1000);
	assert_int_equal(t2f_profile__add_sample(p, c, t2, ev, 1001, 5000), 0);
	write_decode(p, &(struct t2f_pprof_opts){ .input = "in.perf.txt", .time_nanos = 77 }, &d);

	assert_int_equal(d.ntype, 2);
	assert_string_equal(S(&d, d.type[0][0]), "samples");
	assert_string_equal(S(&d, d.type[0][1]), "count");
	assert_string_equal(S(&d, d.type[1][0]), "cpu-clock");
	assert_string_equal(S(&d, d.type[1][1]), "nanoseconds");
	assert_string_equal(S(&d, d.default_type), "cpu-clock");
	assert_string_equal(S(&d, d.period_type[0]), "cpu-clock");
	assert_string_equal(S(&d, d.period_type[1]), "nanoseconds");
	assert_int_equal(d.period, 1000); /* 5001 / 5, rounded */
	assert_int_equal(d.time_nanos, 77);
	assert_int_equal(d.time_count, 1);
	assert_int_equal(d.duration, 3500);
	assert_int_equal(d.ncomment, 2);
	assert_string_equal(S(&d, d.comment[0]), "trace2flame " T2F_VERSION);
	assert_string_equal(S(&d, d.comment[1]), "input: in.perf.txt");

	/* one sample per (stack, thread), in cell order */
	assert_int_equal(d.nsample, 4);
	stack_of(&d, 0, st, sizeof(st));
	assert_string_equal(st, "work(int);main;__libc_start_main");
	assert_int_equal(d.sample[0].val[0], 2);
	assert_int_equal(d.sample[0].val[1], 2000);
	stack_of(&d, 1, st, sizeof(st));
	assert_string_equal(st, "[libc.so.6];work(int);main;__libc_start_main");
	assert_int_equal(d.sample[2].val[0], 1);
	assert_int_equal(label(&d, 2, "pid", &found, true), 0);
	assert_false(found); /* unknown pid: no label */
	assert_int_equal(label(&d, 2, "tid", &found, true), 43);
	assert_true(found);
	assert_string_equal(S(&d, label(&d, 2, "thread", &found, false)), "worker");
	assert_int_equal(label(&d, 0, "pid", &found, true), 42);
	assert_true(found);
	assert_int_equal(d.sample[3].val[1], 1001);

	/* mappings: the main binary (basename starts with the comm "app") first */
	assert_int_equal(d.nmap, 3);
	assert_string_equal(S(&d, d.map[0].file), "/usr/bin/app");
	assert_true(d.map[0].has_fn);
	assert_int_equal(d.map[0].limit, 0);
	assert_string_equal(S(&d, d.map[1].file), "/usr/lib/libc.so.6");
	assert_int_equal(d.map[1].start, 0x7f0000001000);
	assert_int_equal(d.map[1].limit, 0x7f0000004000);
	assert_int_equal(d.map[1].offset, 0x1000);
	assert_string_equal(S(&d, d.map[1].build_id), "abcdef0123");
	assert_false(d.map[1].has_fn); /* an unnamed frame in it */
	assert_string_equal(S(&d, d.map[2].file), "[kernel.kallsyms]");

	/* the unresolved frame: file offset 0x1234 moved into the mapping */
	const struct d_location *l = find_loc(&d, d.sample[1].loc[0]);
	assert_int_equal(l->mapping, 2);
	assert_int_equal(l->address, 0x7f0000001000 + 0x234);
	assert_int_equal(l->nline, 1);
	/* functions: display name and raw name */
	const struct d_function *fn = find_fn(&d, find_loc(&d, d.sample[0].loc[0])->fn[0]);
	assert_string_equal(S(&d, fn->name), "work(int)");
	assert_string_equal(S(&d, fn->sys), "work(int)");
	fn = find_fn(&d, l->fn[0]);
	assert_int_equal(fn->sys, 0);
	assert_int_equal(d.nloc, 5);
	assert_int_equal(d.nfn, 5);
	dprof_free(&d);
	t2f_profile__free(p);
}

/* Inlined frames sit on the stack below the frame they are inlined into: one location, lines
 * innermost first. A run of inlined frames at the root, or one whose address differs from its
 * caller's, stays its own location. */
static void test_inlined_lines(void **state)
{
	struct t2f_profile *p;
	struct dprof d;
	char st[512];

	(void)state;
	assert_int_equal(t2f_profile__new(&p), 0);
	t2f_frame_id mainf = frame(p, "main", "/bin/app", T2F_FRAME_USER, 0);
	t2f_frame_id outer = frame(p, "outer", "/bin/app", T2F_FRAME_USER, 0);
	t2f_frame_id mid = frame(p, "mid", NULL, T2F_FRAME_INLINED, 0);
	t2f_frame_id inner = frame(p, "inner", NULL, T2F_FRAME_INLINED, 0);
	t2f_frame_id orphan = frame(p, "orphan", NULL, T2F_FRAME_INLINED, 0);
	t2f_frame_id at1 = frame(p, "leafy", "/bin/app", T2F_FRAME_USER, 0x10);
	t2f_frame_id at2 = frame(p, "stray", NULL, T2F_FRAME_INLINED, 0x20);
	t2f_thread_id t = thread(p, 1, 1, "app", 0);
	t2f_event_id ev = event(p, "samples", T2F_UNIT_COUNT);

	sample(p, stack(p, (t2f_frame_id[]){ mainf, outer, mid, inner, 0 }), t, ev, 1);
	sample(p, stack(p, (t2f_frame_id[]){ mainf, outer, 0 }), t, ev, 1);
	sample(p, stack(p, (t2f_frame_id[]){ orphan, mainf, 0 }), t, ev, 1);
	sample(p, stack(p, (t2f_frame_id[]){ mainf, at1, at2, 0 }), t, ev, 1);
	write_decode(p, &(struct t2f_pprof_opts){ 0 }, &d);

	assert_int_equal(d.nsample, 4);
	assert_int_equal(d.sample[0].nloc, 2);
	const struct d_location *l = find_loc(&d, d.sample[0].loc[0]);
	assert_int_equal(l->nline, 3);
	assert_string_equal(S(&d, find_fn(&d, l->fn[0])->name), "inner");
	assert_string_equal(S(&d, find_fn(&d, l->fn[1])->name), "mid");
	assert_string_equal(S(&d, find_fn(&d, l->fn[2])->name), "outer");
	assert_int_equal(l->mapping, 1); /* the outermost frame's mapping */
	stack_of(&d, 0, st, sizeof(st));
	assert_string_equal(st, "inner;mid;outer;main");
	/* outer alone is another location */
	assert_int_equal(d.sample[1].nloc, 2);
	assert_int_equal(find_loc(&d, d.sample[1].loc[0])->nline, 1);
	assert_true(d.sample[1].loc[0] != d.sample[0].loc[0]);
	assert_int_equal(d.sample[1].loc[1], d.sample[0].loc[1]); /* main shared */
	/* inlined frame at the root: its own location, no mapping */
	stack_of(&d, 2, st, sizeof(st));
	assert_string_equal(st, "main;orphan");
	assert_int_equal(d.sample[2].nloc, 2);
	assert_int_equal(find_loc(&d, d.sample[2].loc[1])->mapping, 0);
	/* addresses that differ: not folded */
	assert_int_equal(d.sample[3].nloc, 3);
	assert_int_equal(find_loc(&d, d.sample[3].loc[1])->address, 0x10);
	/* an event named "samples": the weight column gets another name */
	assert_string_equal(S(&d, d.type[0][0]), "samples");
	assert_string_equal(S(&d, d.type[1][0]), "samples-weight");
	assert_string_equal(S(&d, d.default_type), "samples-weight");
	assert_int_equal(d.period, 0); /* no periods */
	dprof_free(&d);
	t2f_profile__free(p);
}

/* The functions, locations and samples as text: "fn ID NAME SYSTEM_NAME FILENAME START_LINE",
 * "loc ID map MAPPING: FUNCTION@LINE..." (lines innermost first), "sample LOC...". */
static void dump(const struct dprof *d, char *out, size_t cap)
{
	size_t n = 0;

	for (size_t i = 0; i < d->nfn; i++)
		n += (size_t)snprintf(out + n, cap - n, "fn %llu %s %s %s %lld\n",
				      (unsigned long long)d->fn[i].id, S(d, d->fn[i].name),
				      S(d, d->fn[i].sys), S(d, d->fn[i].file),
				      (long long)d->fn[i].start);
	for (size_t i = 0; i < d->nloc; i++) {
		n += (size_t)snprintf(out + n, cap - n, "loc %llu map %llu:",
				      (unsigned long long)d->loc[i].id,
				      (unsigned long long)d->loc[i].mapping);
		for (size_t k = 0; k < d->loc[i].nline; k++)
			n += (size_t)snprintf(out + n, cap - n, " %llu@%lld",
					      (unsigned long long)d->loc[i].fn[k],
					      (long long)d->loc[i].line[k]);
		n += (size_t)snprintf(out + n, cap - n, "\n");
	}
	for (size_t i = 0; i < d->nsample; i++) {
		n += (size_t)snprintf(out + n, cap - n, "sample");
		for (size_t k = 0; k < d->sample[i].nloc; k++)
			n += (size_t)snprintf(out + n, cap - n, " %llu",
					      (unsigned long long)d->sample[i].loc[k]);
		n += (size_t)snprintf(out + n, cap - n, "\n");
	}
	assert_true(n < cap);
}

/* Source positions: a function per (name, system name, filename, start_line), so parse at two
 * lines of its code is one function with two locations, and two static helpers of one name in
 * two files are two functions; Line.line is each frame's line, an inlined run one location with
 * its lines innermost first (lex at its own line 7, then parse at the line of the call, 30); a
 * frame with its code's file but no declaration gives a filename without start_line. The output
 * goes through tests/validate/check pprof as well. */
static void test_source_lines(void **state)
{
	static const char expected[] =
		"fn 1 parse parse src/parse.c 15\n"
		"fn 2 main main src/main.c 10\n"
		"fn 3 lex lex src/lex.h 3\n"
		"fn 4 helper helper src/a.c 5\n"
		"fn 5 helper helper src/b.c 5\n"
		"fn 6 emit emit src/emit.c 0\n"
		"fn 7 plain plain  0\n"
		"loc 1 map 1: 1@20\n"
		"loc 2 map 1: 2@12\n"
		"loc 3 map 1: 1@21\n"
		"loc 4 map 1: 3@7 1@30\n"
		"loc 5 map 1: 1@30\n"
		"loc 6 map 1: 4@6\n"
		"loc 7 map 1: 5@6\n"
		"loc 8 map 1: 6@3\n"
		"loc 9 map 1: 7@0\n"
		"sample 1 2\n"
		"sample 3 2\n"
		"sample 4 2\n"
		"sample 5 2\n"
		"sample 6 2\n"
		"sample 7 2\n"
		"sample 8 9 2\n";
	struct t2f_profile *p;
	struct dprof d;
	char got[2048];

	(void)state;
	assert_int_equal(t2f_profile__new(&p), 0);
	t2f_frame_id m = src_frame(p, "main", T2F_FRAME_USER, "src/main.c", 12, "src/main.c", 10);
	t2f_frame_id p20 = src_frame(p, "parse", T2F_FRAME_USER, "src/parse.c", 20, "src/parse.c",
				     15);
	t2f_frame_id p21 = src_frame(p, "parse", T2F_FRAME_USER, "src/parse.c", 21, "src/parse.c",
				     15);
	t2f_frame_id p30 = src_frame(p, "parse", T2F_FRAME_USER, "src/parse.c", 30, "src/parse.c",
				     15);
	t2f_frame_id lex = src_frame(p, "lex", T2F_FRAME_INLINED, "src/lex.h", 7, "src/lex.h", 3);
	t2f_frame_id ha = src_frame(p, "helper", T2F_FRAME_USER, "src/a.c", 6, "src/a.c", 5);
	t2f_frame_id hb = src_frame(p, "helper", T2F_FRAME_USER, "src/b.c", 6, "src/b.c", 5);
	t2f_frame_id emit = src_frame(p, "emit", T2F_FRAME_USER, "src/emit.c", 3, NULL, 0);
	t2f_frame_id plain = src_frame(p, "plain", T2F_FRAME_USER, NULL, 0, NULL, 0);
	t2f_thread_id t = thread(p, 1, 1, "app", 0);
	t2f_event_id ev = event(p, "cycles", T2F_UNIT_COUNT);

	sample(p, stack(p, (t2f_frame_id[]){ m, p20, 0 }), t, ev, 1);
	sample(p, stack(p, (t2f_frame_id[]){ m, p21, 0 }), t, ev, 2);
	sample(p, stack(p, (t2f_frame_id[]){ m, p30, lex, 0 }), t, ev, 4);
	sample(p, stack(p, (t2f_frame_id[]){ m, p30, 0 }), t, ev, 8);
	sample(p, stack(p, (t2f_frame_id[]){ m, ha, 0 }), t, ev, 16);
	sample(p, stack(p, (t2f_frame_id[]){ m, hb, 0 }), t, ev, 32);
	sample(p, stack(p, (t2f_frame_id[]){ m, plain, emit, 0 }), t, ev, 64);
	write_decode(p, &(struct t2f_pprof_opts){ 0 }, &d);
	dump(&d, got, sizeof(got));
	assert_string_equal(got, expected);
	validate(p);
	dprof_free(&d);
	t2f_profile__free(p);
}

/* A frame of module `module` with source positions (NULL, 0 = unknown). */
static t2f_frame_id mod_frame(struct t2f_profile *p, const char *name, const char *module,
			      enum t2f_frame_kind kind, const char *file, uint32_t line)
{
	struct t2f_frame f = {
		.name = name ? str(p, name) : 0, .module = str(p, module), .kind = kind,
		.file = file ? str(p, file) : 0, .line = line, .fn_file = file ? str(p, file) : 0,
		.fn_line = line ? 1 : 0,
	};

	return add_frame(p, &f);
}

/* The mapping of file `path`. */
static const struct d_mapping *find_map(const struct dprof *d, const char *path)
{
	for (size_t i = 0; i < d->nmap; i++)
		if (strcmp(S(d, d->map[i].file), path) == 0)
			return &d->map[i];
	fail_msg("no mapping %s", path);
	return NULL;
}

/* What each mapping says its locations hold (has_functions, has_filenames, has_line_numbers,
 * has_inline_frames) is what they hold: DWARF names, files and lines with an inlined frame
 * (all four); a file but no line (no line numbers, so no sign the inline chains were looked
 * up); symbols alone; perf's inlined frames without lines (functions and inline frames); one
 * frame with a line beside one without; an unnamed kernel frame (none). */
static void test_mapping_resolution(void **state)
{
	struct t2f_profile *p;
	struct dprof d;
	const struct d_mapping *m;

	(void)state;
	assert_int_equal(t2f_profile__new(&p), 0);
	t2f_frame_id mainf = mod_frame(p, "main", "/bin/app", T2F_FRAME_USER, "main.c", 12);
	t2f_frame_id work = mod_frame(p, "work", "/bin/app", T2F_FRAME_USER, "work.c", 20);
	t2f_frame_id lex = mod_frame(p, "lex", "/bin/app", T2F_FRAME_INLINED, "lex.h", 7);
	t2f_frame_id f1 = mod_frame(p, "f1", "/lib/libfile.so", T2F_FRAME_USER, "f.c", 0);
	t2f_frame_id s1 = mod_frame(p, "s1", "/lib/libsym.so", T2F_FRAME_USER, NULL, 0);
	t2f_frame_id p1 = mod_frame(p, "p1", "/lib/libperf.so", T2F_FRAME_USER, NULL, 0);
	t2f_frame_id p2 = mod_frame(p, "p2", "/lib/libperf.so", T2F_FRAME_INLINED, NULL, 0);
	t2f_frame_id a = mod_frame(p, "a", "/lib/libmixed.so", T2F_FRAME_USER, "a.c", 5);
	t2f_frame_id b = mod_frame(p, "b", "/lib/libmixed.so", T2F_FRAME_USER, NULL, 0);
	t2f_frame_id k = frame(p, NULL, "[kernel.kallsyms]", T2F_FRAME_KERNEL, 0xffffffff81000000);
	t2f_thread_id t = thread(p, 1, 1, "app", 0);
	t2f_event_id ev = event(p, "cycles", T2F_UNIT_COUNT);

	sample(p, stack(p, (t2f_frame_id[]){ mainf, work, lex, 0 }), t, ev, 1);
	sample(p, stack(p, (t2f_frame_id[]){ mainf, f1, 0 }), t, ev, 1);
	sample(p, stack(p, (t2f_frame_id[]){ mainf, s1, 0 }), t, ev, 1);
	sample(p, stack(p, (t2f_frame_id[]){ mainf, p1, p2, 0 }), t, ev, 1);
	sample(p, stack(p, (t2f_frame_id[]){ mainf, a, 0 }), t, ev, 1);
	sample(p, stack(p, (t2f_frame_id[]){ mainf, b, k, 0 }), t, ev, 1);
	write_decode(p, &(struct t2f_pprof_opts){ 0 }, &d);

	assert_int_equal(d.nmap, 6);
	m = find_map(&d, "/bin/app");
	assert_true(m->has_fn && m->has_fl && m->has_ln && m->has_in);
	m = find_map(&d, "/lib/libfile.so");
	assert_true(m->has_fn && m->has_fl && !m->has_ln && !m->has_in);
	m = find_map(&d, "/lib/libsym.so");
	assert_true(m->has_fn && !m->has_fl && !m->has_ln && !m->has_in);
	m = find_map(&d, "/lib/libperf.so");
	assert_true(m->has_fn && !m->has_fl && !m->has_ln && m->has_in);
	m = find_map(&d, "/lib/libmixed.so");
	assert_true(m->has_fn && !m->has_fl && !m->has_ln && !m->has_in);
	m = find_map(&d, "[kernel.kallsyms]");
	assert_true(!m->has_fn && !m->has_fl && !m->has_ln && !m->has_in);
	validate(p);
	dprof_free(&d);
	t2f_profile__free(p);
}

/* Several events: two columns each; cells of one (stack, thread) are one sample. */
static void test_multi_event(void **state)
{
	struct t2f_profile *p;
	struct dprof d;

	(void)state;
	assert_int_equal(t2f_profile__new(&p), 0);
	t2f_frame_id f = frame(p, "f", "/bin/x", T2F_FRAME_USER, 0);
	t2f_frame_id g = frame(p, "g", "/bin/x", T2F_FRAME_USER, 0);
	t2f_thread_id t = thread(p, 5, 6, "x", 0);
	t2f_event_id e1 = event(p, "page-faults", T2F_UNIT_COUNT);
	t2f_event_id e2 = event(p, "cpu-clock", T2F_UNIT_NANOSECONDS);
	t2f_node_id n1 = stack(p, (t2f_frame_id[]){ f, 0 });
	t2f_node_id n2 = stack(p, (t2f_frame_id[]){ f, g, 0 });

	t2f_profile__event_has_period(p, e2);
	sample(p, n1, t, e1, 3);
	sample(p, n2, t, e2, 250);
	sample(p, n1, t, e2, 100);
	sample(p, n1, t, e2, 101);
	write_decode(p, &(struct t2f_pprof_opts){ .event = e2 }, &d);

	assert_int_equal(d.ntype, 4);
	assert_string_equal(S(&d, d.type[0][0]), "page-faults-samples");
	assert_string_equal(S(&d, d.type[1][0]), "page-faults");
	assert_string_equal(S(&d, d.type[1][1]), "count");
	assert_string_equal(S(&d, d.type[2][0]), "cpu-clock-samples");
	assert_string_equal(S(&d, d.type[3][0]), "cpu-clock");
	assert_string_equal(S(&d, d.type[3][1]), "nanoseconds");
	assert_string_equal(S(&d, d.default_type), "cpu-clock");
	assert_int_equal(d.period, 150); /* 451 / 3 */
	assert_int_equal(d.nsample, 2);
	assert_int_equal(d.sample[0].nloc, 1);
	assert_int_equal(d.sample[0].val[0], 1);
	assert_int_equal(d.sample[0].val[1], 3);
	assert_int_equal(d.sample[0].val[2], 2);
	assert_int_equal(d.sample[0].val[3], 201);
	assert_int_equal(d.sample[1].val[0], 0);
	assert_int_equal(d.sample[1].val[1], 0);
	assert_int_equal(d.sample[1].val[2], 1);
	assert_int_equal(d.sample[1].val[3], 250);
	dprof_free(&d);

	unsigned char *bytes;
	size_t len;
	assert_int_equal(write_pprof(p, &(struct t2f_pprof_opts){ .event = 3 }, &bytes, &len),
			 -EINVAL);
	free(bytes);
	t2f_profile__free(p);
}

/* Equal profiles give equal bytes; raw output is the inflated gzip output. */
static void test_deterministic(void **state)
{
	struct t2f_profile *p;
	unsigned char *a, *b, *raw, *inflated;
	size_t alen, blen, rawlen, inflen;

	(void)state;
	assert_int_equal(t2f_profile__new(&p), 0);
	t2f_frame_id f = frame(p, "f", "/bin/x", T2F_FRAME_USER, 0);
	t2f_thread_id t = thread(p, 5, 6, "x", 0);
	t2f_event_id e = event(p, "cycles", T2F_UNIT_COUNT);

	for (int i = 0; i < 100; i++) {
		char name[16];

		snprintf(name, sizeof(name), "fn%d", i);
		sample(p, stack(p, (t2f_frame_id[]){ f, frame(p, name, "/bin/x", 0, 0), 0 }), t,
		       e, (uint64_t)i);
	}
	assert_int_equal(write_pprof(p, &(struct t2f_pprof_opts){ 0 }, &a, &alen), 0);
	assert_int_equal(write_pprof(p, &(struct t2f_pprof_opts){ 0 }, &b, &blen), 0);
	assert_int_equal(alen, blen);
	assert_memory_equal(a, b, alen);
	assert_int_equal(write_pprof(p, &(struct t2f_pprof_opts){ .raw = true }, &raw, &rawlen), 0);
	inflate_all(a, alen, &inflated, &inflen);
	assert_int_equal(inflen, rawlen);
	assert_memory_equal(inflated, raw, rawlen);
	free(a);
	free(b);
	free(raw);
	free(inflated);
	t2f_profile__free(p);
}

/* Invalid UTF-8 in names becomes U+FFFD; strings stay unique after repair. */
static void test_utf8_repair(void **state)
{
	struct t2f_profile *p;
	struct dprof d;
	bool found;

	(void)state;
	assert_int_equal(t2f_profile__new(&p), 0);
	t2f_frame_id f = frame(p, "bad\xff" "name", "/bin/x", T2F_FRAME_USER, 0);
	t2f_frame_id g = frame(p, "ok\xc3\xa9", "/bin/x", T2F_FRAME_USER, 0);
	t2f_frame_id h = frame(p, "cut\xe2\x82", "/bin/x", T2F_FRAME_USER, 0);
	t2f_thread_id t = thread(p, 5, 6, "th\xc0\xafread", 0);
	t2f_event_id e = event(p, "cycles", T2F_UNIT_COUNT);

	sample(p, stack(p, (t2f_frame_id[]){ g, f, h, 0 }), t, e, 1);
	write_decode(p, &(struct t2f_pprof_opts){ 0 }, &d);
	assert_string_equal(S(&d, find_fn(&d, find_loc(&d, d.sample[0].loc[1])->fn[0])->name),
			    "bad\xef\xbf\xbdname");
	assert_string_equal(S(&d, find_fn(&d, find_loc(&d, d.sample[0].loc[2])->fn[0])->name),
			    "ok\xc3\xa9");
	assert_string_equal(S(&d, find_fn(&d, find_loc(&d, d.sample[0].loc[0])->fn[0])->name),
			    "cut\xef\xbf\xbd");
	assert_string_equal(S(&d, label(&d, 0, "thread", &found, false)),
			    "th\xef\xbf\xbd\xef\xbf\xbdread");
	dprof_free(&d);
	t2f_profile__free(p);
}

/* No events, no samples: still a valid profile (string table with "", comment). */
static void test_empty(void **state)
{
	struct t2f_profile *p;
	struct dprof d;

	(void)state;
	assert_int_equal(t2f_profile__new(&p), 0);
	write_decode(p, &(struct t2f_pprof_opts){ 0 }, &d);
	assert_int_equal(d.nsample, 0);
	assert_int_equal(d.ntype, 0);
	assert_int_equal(d.default_type, 0);
	assert_int_equal(d.ncomment, 1);
	dprof_free(&d);
	t2f_profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpu_profile),
		cmocka_unit_test(test_inlined_lines),
		cmocka_unit_test(test_source_lines),
		cmocka_unit_test(test_mapping_resolution),
		cmocka_unit_test(test_multi_event),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_utf8_repair),
		cmocka_unit_test(test_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
