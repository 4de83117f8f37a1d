/* tests/unit/test_nettrace_truncate.c: every .nettrace file at hand, cut at every block boundary
 * and one byte either side, through the whole reader (readers/nettrace.h) in memory.
 *
 * Files: the real traces of ../shared/corpus/nettrace (zips inflated here with zlib; the 29 MB
 * one is left out), the fixtures/nettrace descriptions that need no ELF file and two V6
 * descriptions below, written by tools/make-nettrace with small flushes (many blocks).
 * Boundaries come from a block walker written here from PerfView's NetTraceFormat.md
 * (containers and blocks; V4/V5 objects: BeginPrivateObject, type, size, 4-byte padding,
 * EndObject; V6: u32 size|kind), not from the parser under test. A file larger than BIG_FILE is cut at MAX_BOUNDS of its
 * boundaries, evenly spread, the first three and the last always included.
 *
 * Per cut: either -T2F_ERR_FORMAT with a message naming the file (only before the Trace
 * object/block is complete), or 0 with the warning "NAME: offset N: the file ends inside ...";
 * samples read = kept + dropped; kept never more than the whole file's and never less than at
 * a shorter cut; a cut one byte into the next block keeps exactly what the cut at the boundary
 * kept; every (thread, event, stack) of the cut profile is in the whole file's profile with at
 * least as many samples (frames compared by kind, address and module: names come from the
 * rundown at the end). The cut at the end of the file equals the whole file.
 *
 * Without the corpus the test skips those files (fails under CI=true); without python3 it
 * skips the generated ones. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <zlib.h>

#include "formats/diag.h"
#include "formats/profile.h"
#include "readers/nettrace.h"
#include "support/diag_sink.h"

#define MAX_FILE (8u << 20)  /* larger corpus files are left out (time) */
#define MAX_BOUNDS 48       /* boundaries cut in files of more than BIG_FILE bytes */
#define BIG_FILE (2u << 20)
#define FEED_CHUNK 65536     /* the CLI's way: blocks span feeds */

struct blob {
	char name[96];
	uint8_t *data;
	size_t len;
};

/* ---- inputs ---- */

static const char *src_dir(void)
{
	const char *s = getenv("T2F_SOURCE_DIR");

	return s && *s ? s : ".";
}

static bool ci(void)
{
	const char *c = getenv("CI");

	return c && strcmp(c, "true") == 0;
}

static uint32_t le32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t cap = 0, n = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (n == cap) {
			cap = cap ? cap * 2 : 1 << 16;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
		size_t got = fread(buf + n, 1, cap - n, f);

		n += got;
		if (!got)
			break;
	}
	fclose(f);
	*len = n;
	return buf;
}

/* The one member of a zip (local header, deflate or stored); NULL when it is not one or larger
 * than MAX_FILE. */
static uint8_t *unzip_one(const uint8_t *z, size_t zlen, size_t *len)
{
	uint32_t csize, usize;
	size_t off;
	uint8_t *out;
	z_stream s = { 0 };
	int rc;

	if (zlen < 30 || le32(z) != 0x04034b50 || (le16(z + 6) & 8))
		return NULL;
	csize = le32(z + 18);
	usize = le32(z + 22);
	off = 30 + (size_t)le16(z + 26) + le16(z + 28);
	if (usize > MAX_FILE || off > zlen || csize > zlen - off)
		return NULL;
	out = malloc(usize ? usize : 1);
	assert_non_null(out);
	if (le16(z + 8) == 0) {
		assert_int_equal(csize, usize);
		memcpy(out, z + off, usize);
		*len = usize;
		return out;
	}
	assert_int_equal(le16(z + 8), 8);
	assert_int_equal(inflateInit2(&s, -MAX_WBITS), Z_OK);
	s.next_in = (uint8_t *)(uintptr_t)(z + off);
	s.avail_in = csize;
	s.next_out = out;
	s.avail_out = usize;
	rc = inflate(&s, Z_FINISH);
	inflateEnd(&s);
	assert_int_equal(rc, Z_STREAM_END);
	assert_int_equal(s.total_out, usize);
	*len = usize;
	return out;
}

/* make-nettrace's output for a description (a file, or text when `text` is set). */
static uint8_t *make_nettrace(const char *desc, bool text, const char *args, size_t *len)
{
	char tmpl[] = "/tmp/t2f-truncate-desc.XXXXXX", out[] = "/tmp/t2f-truncate-out.XXXXXX";
	char cmd[2048];
	uint8_t *data;
	int fd, fo;

	assert_true((fo = mkstemp(out)) >= 0);
	close(fo);
	if (text) {
		assert_true((fd = mkstemp(tmpl)) >= 0);
		assert_int_equal(write(fd, desc, strlen(desc)), (ssize_t)strlen(desc));
		close(fd);
		desc = tmpl;
	}
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 '%s/tools/make-nettrace' %s -o '%s' '%s'",
		 src_dir(), args, out, desc);
	assert_int_equal(system(cmd), 0);
	data = slurp(out, len);
	unlink(out);
	if (text)
		unlink(tmpl);
	assert_non_null(data);
	return data;
}

/* ---- the block walker (spec §3–4, independent of readers/) ---- */

struct bounds {
	size_t *at, n, cap;
	size_t trace_end;  /* where the Trace object/block ends */
};

static void bounds_add(struct bounds *b, size_t off)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 256;
		b->at = realloc(b->at, b->cap * sizeof(*b->at));
		assert_non_null(b->at);
	}
	b->at[b->n++] = off;
}

/* V4/V5: objects after the 32-byte header until the NullReference tag. */
static void walk_v4(const uint8_t *d, size_t len, struct bounds *b)
{
	size_t pos = 32;

	while (pos < len && d[pos] == 5) {
		size_t name_at = pos + 3 + 8 + 4, body;
		uint32_t nlen;

		bounds_add(b, pos);
		if (name_at > len)
			return;
		nlen = le32(d + name_at - 4);
		body = name_at + nlen + 1; /* EndObject of the type */
		if (nlen == 5 && body <= len && memcmp(d + name_at, "Trace", 5) == 0) {
			pos = body + 48 + 1;
			b->trace_end = pos;
			continue;
		}
		if (body + 4 > len)
			return;
		pos = body + 4;
		pos += (4 - (pos & 3)) & 3;
		pos += le32(d + body) + 1;
	}
	if (pos < len && d[pos] == 1) {
		bounds_add(b, pos);     /* the end tag */
		bounds_add(b, pos + 1);
	}
}

/* V6: blocks after the 20-byte header (magic, 0, major, minor) until EndOfStream. */
static void walk_v6(const uint8_t *d, size_t len, struct bounds *b)
{
	size_t pos = 20;

	while (pos + 4 <= len) {
		uint32_t x = le32(d + pos);

		bounds_add(b, pos);
		pos += 4 + (x & 0xffffff);
		if ((x >> 24) == 1)
			b->trace_end = pos;
		if (!(x >> 24)) {
			bounds_add(b, pos);
			return;
		}
	}
}

static void walk(const struct blob *f, struct bounds *b)
{
	memset(b, 0, sizeof(*b));
	bounds_add(b, 0);
	assert_true(f->len >= 16 && memcmp(f->data, "Nettrace", 8) == 0);
	if (le32(f->data + 8) == 0)
		walk_v6(f->data, f->len, b);
	else
		walk_v4(f->data, f->len, b);
	assert_true(b->trace_end > 0);
	assert_true(b->n >= 4);
}

/* ---- one conversion ---- */

struct key {
	char *text;        /* "pid/tid|event|frame|frame..." */
	uint64_t samples;
};

struct result {
	int err;
	uint64_t read, kept, dropped;
	char *diag;
	struct key *keys;
	size_t n_keys;
};

static int key_cmp(const void *a, const void *b)
{
	return strcmp(((const struct key *)a)->text, ((const struct key *)b)->text);
}

static void put_frame(FILE *f, const struct t2f_profile *p, t2f_frame_id id)
{
	const struct t2f_frame *fr = t2f_profile__frame_at(p, id);

	fprintf(f, "|%d:", fr->kind);
	if (fr->has_addr)
		fprintf(f, "%llx", (unsigned long long)fr->addr);
	else
		fputs(fr->name ? t2f_profile__str(p, fr->name, NULL) : "", f);
	if (fr->module)
		fprintf(f, "@%s", t2f_profile__str(p, fr->module, NULL));
}

static char *cell_key(const struct t2f_profile *p, const struct t2f_cell *c)
{
	const struct t2f_thread *th = t2f_profile__thread_at(p, c->thread);
	const struct t2f_event *ev = t2f_profile__event_at(p, c->event);
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	assert_non_null(f);
	fprintf(f, "%lld/%lld|%s", (long long)th->pid, (long long)th->tid,
		t2f_profile__str(p, ev->name, NULL));
	for (t2f_node_id node = c->node; node; node = t2f_profile__node_parent(p, node))
		put_frame(f, p, t2f_profile__node_frame(p, node));
	fclose(f);
	return buf;
}

static void collect(const struct t2f_profile *p, struct result *r)
{
	size_t cells = t2f_profile__cell_count(p);

	r->keys = calloc(cells ? cells : 1, sizeof(*r->keys));
	assert_non_null(r->keys);
	for (size_t i = 0; i < cells; i++) {
		const struct t2f_cell *c = t2f_profile__cell_at(p, i);

		r->kept += c->samples;
		if (!c->samples)
			continue;
		r->keys[r->n_keys].text = cell_key(p, c);
		r->keys[r->n_keys++].samples = c->samples;
	}
	qsort(r->keys, r->n_keys, sizeof(*r->keys), key_cmp);
}

static void result_free(struct result *r)
{
	for (size_t i = 0; i < r->n_keys; i++)
		free(r->keys[i].text);
	free(r->keys);
	free(r->diag);
	memset(r, 0, sizeof(*r));
}

static void convert(const struct blob *f, size_t len, struct result *r)
{
	struct t2f_nettrace_opts o = { .weight = T2F_NETTRACE_WEIGHT_SAMPLES };
	struct t2f_profile *p;
	struct t2f_nettrace *nt;
	struct sink s;

	memset(r, 0, sizeof(*r));
	sink_init(&s);
	assert_int_equal(t2f_profile__new(&p), 0);
	assert_int_equal(t2f_nettrace__new(p, s.d, f->name, 0, &o, &nt), 0);
	for (size_t off = 0; !r->err && off < len; off += FEED_CHUNK)
		r->err = t2f_nettrace__feed(nt, f->data + off,
					    len - off < FEED_CHUNK ? len - off : FEED_CHUNK);
	if (!r->err)
		r->err = t2f_nettrace__finish(nt);
	r->read = t2f_profile__samples_read(p);
	for (int i = 0; i < T2F_DROP__COUNT; i++)
		r->dropped += t2f_profile__samples_dropped(p, (enum t2f_drop_reason)i);
	if (!r->err)
		collect(p, r);
	/* warnings are printed to the sink; an error is kept for the caller to print */
	r->diag = strdup(r->err && t2f_diag__last_error(s.d) ? t2f_diag__last_error(s.d)
							      : sink_text(&s));
	assert_non_null(r->diag);
	t2f_nettrace__free(nt);
	t2f_profile__free(p);
	sink_close(&s);
}

/* ---- the checks ---- */

/* Every key of `part` is in `whole` with at least as many samples. */
static void check_subset(const struct result *whole, const struct result *part, const char *what)
{
	for (size_t i = 0; i < part->n_keys; i++) {
		const struct key *k = bsearch(&part->keys[i], whole->keys, whole->n_keys,
					      sizeof(*k), key_cmp);

		if (!k || k->samples < part->keys[i].samples)
			fail_msg("%s: stack %s (%llu samples) is not in the whole file's profile"
				 " (%llu)", what, part->keys[i].text,
				 (unsigned long long)part->keys[i].samples,
				 k ? (unsigned long long)k->samples : 0ULL);
	}
}

/* Ascending cuts; in a file larger than BIG_FILE the boundaries sampled down to MAX_BOUNDS. */
static size_t pick_cuts(const struct bounds *b, size_t len, size_t *cuts)
{
	size_t step = b->n > MAX_BOUNDS && len > BIG_FILE ? (b->n + MAX_BOUNDS - 1) / MAX_BOUNDS : 1;
	size_t n = 0;

	for (size_t i = 0; i < b->n; i++) {
		if (i % step && i + 1 != b->n && i > 2)
			continue;
		for (int d = -1; d <= 1; d++) {
			size_t c = b->at[i] + (size_t)d;

			if ((d < 0 && !b->at[i]) || c > len || (n && c <= cuts[n - 1]))
				continue;
			cuts[n++] = c;
		}
	}
	if (!n || cuts[n - 1] != len)
		cuts[n++] = len;
	return n;
}

static bool is_boundary(const struct bounds *b, size_t off)
{
	for (size_t i = 0; i < b->n; i++)
		if (b->at[i] == off)
			return true;
	return false;
}

/* One cut: the outcome, its message and its accounting. */
static void check_cut(const struct blob *f, const struct bounds *b, const struct result *whole,
		      size_t cut, const struct result *r, char *what)
{
	char want[160];

	if (r->err) {
		if (cut >= b->trace_end || r->err != -T2F_ERR_FORMAT || !strstr(r->diag, f->name))
			fail_msg("%s: error %d ('%s'; the Trace block ends at %zu): not a format"
				 " error naming the file before the Trace block's end", what, r->err,
				 r->diag, b->trace_end);
		return;
	}
	if (cut < b->trace_end)
		fail_msg("%s: accepted, though the Trace block ends at %zu", what, b->trace_end);
	if (r->read != r->kept + r->dropped)
		fail_msg("%s: read %llu != kept %llu + dropped %llu", what,
			 (unsigned long long)r->read, (unsigned long long)r->kept,
			 (unsigned long long)r->dropped);
	if (r->kept > whole->kept)
		fail_msg("%s: %llu samples kept, the whole file has %llu", what,
			 (unsigned long long)r->kept, (unsigned long long)whole->kept);
	check_subset(whole, r, what);
	if (cut == f->len)
		return;
	snprintf(want, sizeof(want), "%s: offset ", f->name);
	if (!strstr(r->diag, want) || !strstr(r->diag, "ends"))
		fail_msg("%s: no truncation warning naming the file and offset: '%s'", what,
			 r->diag);
}

static void check_file(const struct blob *f)
{
	struct result whole, r;
	struct bounds b;
	size_t *cuts, n, prev_cut = 0;
	uint64_t prev_kept = 0;
	bool have_prev = false;
	char what[160];

	walk(f, &b);
	convert(f, f->len, &whole);
	assert_int_equal(whole.err, 0);
	cuts = calloc(3 * b.n + 2, sizeof(*cuts));
	assert_non_null(cuts);
	n = pick_cuts(&b, f->len, cuts);
	for (size_t i = 0; i < n; i++) {
		snprintf(what, sizeof(what), "%s cut at %zu of %zu", f->name, cuts[i], f->len);
		convert(f, cuts[i], &r);
		check_cut(f, &b, &whole, cuts[i], &r, what);
		if (!r.err && have_prev) {
			if (r.kept < prev_kept)
				fail_msg("%s: %llu samples kept, %llu at %zu", what,
					 (unsigned long long)r.kept, (unsigned long long)prev_kept,
					 prev_cut);
			/* one byte into a block: nothing of it yet */
			if (cuts[i] == prev_cut + 1 && is_boundary(&b, prev_cut) &&
			    r.kept != prev_kept)
				fail_msg("%s: %llu samples kept, %llu at the boundary %zu", what,
					 (unsigned long long)r.kept, (unsigned long long)prev_kept,
					 prev_cut);
		}
		if (cuts[i] == f->len && (r.kept != whole.kept || r.read != whole.read))
			fail_msg("%s: the whole file gives %llu kept of %llu read, not %llu of %llu",
				 what, (unsigned long long)r.kept, (unsigned long long)r.read,
				 (unsigned long long)whole.kept, (unsigned long long)whole.read);
		if (!r.err) {
			have_prev = true;
			prev_kept = r.kept;
			prev_cut = cuts[i];
		}
		result_free(&r);
	}
	printf("# %s: %zu bytes, %zu boundaries, %zu cuts, %llu of %llu samples kept\n", f->name,
	       f->len, b.n, n, (unsigned long long)whole.kept, (unsigned long long)whole.read);
	result_free(&whole);
	free(cuts);
	free(b.at);
}

/* ---- the files ---- */

static void test_corpus(void **state)
{
	static const char *const zips[] = {
		"eventpipe-dotnetcore6.0-win-x64-executioncheckpoints.nettrace.zip",
		"eventpipe-dotnetcore5.0-win-x64-arraytypes.nettrace.zip",
		"mixed_managed_external_samples.nettrace.zip",
		"only_managed_samples.nettrace.zip",
		"eventpipe-dotnetcore3.0-win-x64-objver4.nettrace.zip",
	};
	char path[4096];
	struct blob f;
	size_t zlen;
	uint8_t *z;

	(void)state;
	snprintf(path, sizeof(path), "%s/../shared/corpus/nettrace", src_dir());
	if (access(path, R_OK) != 0) {
		if (ci())
			fail_msg("%s not found, and CI=true requires it", path);
		skip();
	}
	for (size_t i = 0; i < sizeof(zips) / sizeof(zips[0]); i++) {
		snprintf(path, sizeof(path), "%s/../shared/corpus/nettrace/%s", src_dir(), zips[i]);
		z = slurp(path, &zlen);
		if (!z)
			fail_msg("%s: cannot read", path);
		snprintf(f.name, sizeof(f.name), "%.*s", (int)(strlen(zips[i]) - 4), zips[i]);
		f.data = unzip_one(z, zlen, &f.len);
		free(z);
		if (!f.data)
			fail_msg("%s: not a zip of one trace under %u bytes", path, MAX_FILE);
		check_file(&f);
		free(f.data);
	}
	/* a real trace that is itself cut inside a block */
	snprintf(path, sizeof(path), "%s/../shared/corpus/nettrace/trace.nettrace", src_dir());
	snprintf(f.name, sizeof(f.name), "trace.nettrace");
	f.data = slurp(path, &f.len);
	if (!f.data)
		fail_msg("%s: cannot read", path);
	check_file(&f);
	free(f.data);
}

/* Universal traces without ELF files: raw addresses, a JIT region, samples without a stack,
 * cswitch events, several threads; small flushes make many blocks and sequence points. */
static const char v6_full[] =
	"format v6\n"
	"trace pid=10 cpus=4 page-size=4096\n"
	"process 10 prog\n"
	"thread 10 11 worker-1\n"
	"thread 10 12 worker-2\n"
	"map jit 10 - 0x7f5500000000 len=0x10000 name=/memfd:doublemapper\n"
	"jit run jit 0x7f5500000400 0x200 \"void [app] App.Program::Run()[QuickJitted]\"\n"
	"sample 10 11 count=3 run+0x10;0x555555555030\n"
	"sample 10 12 count=2 cpu=2 value=3 0x555555555040;0x555555555030\n"
	"cswitch 10 11 cpu=1 value=999999 run+0x20;0x555555555030\n"
	"sample 10 11 -\n"
	"sample 10 12 0x555555555044;run+0x30;0x555555555030\n";

static const char v6_minimal[] =
	"format v6\n"
	"trace pid=20 cpus=2\n"
	"rows minimal\n"
	"process 20 app\n"
	"sample 20 21 count=4 0x401000;0x400800\n"
	"sample 20 22 count=2 cpu=1 0x401100;0x400800\n"
	"cswitch 20 21 value=5000 0x401200;0x400800\n"
	"sample 20 22 0x401000;0x400800\n";

static bool have_python(void)
{
	if (access("/usr/bin/python3", X_OK) == 0)
		return true;
	if (ci())
		fail_msg("/usr/bin/python3 is needed for tools/make-nettrace, and CI=true");
	return false;
}

static void generated(const char *name, const char *desc, bool text, const char *args)
{
	struct blob f;

	snprintf(f.name, sizeof(f.name), "%s", name);
	f.data = make_nettrace(desc, text, args, &f.len);
	check_file(&f);
	free(f.data);
}

static void test_generated_v4(void **state)
{
	/* v4-ptr8 has flushes between its samples: no --repeat */
	static const char *const descs[][2] = {
		{ "v4-ptr8", "--flush-bytes 60" },
		{ "v4-ptr4", "--repeat 40 --flush-bytes 300" },
		{ "v5-uncompressed", "--repeat 40 --flush-bytes 300" },
	};
	char path[4096];

	(void)state;
	if (!have_python())
		skip();
	for (size_t i = 0; i < sizeof(descs) / sizeof(descs[0]); i++) {
		snprintf(path, sizeof(path), "%s/fixtures/nettrace/%s.desc", src_dir(), descs[i][0]);
		generated(descs[i][0], path, false, descs[i][1]);
	}
}

static void test_generated_v6(void **state)
{
	(void)state;
	if (!have_python())
		skip();
	generated("v6-full.nettrace", v6_full, true, "--repeat 30 --flush-bytes 200");
	generated("v6-minimal.nettrace", v6_minimal, true, "--repeat 30 --flush-bytes 150");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_corpus),
		cmocka_unit_test(test_generated_v4),
		cmocka_unit_test(test_generated_v6),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
