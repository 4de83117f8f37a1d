/* tests/unit/test_nettrace.c: the nettrace reader above its container parser. Runtime payloads
 * are built byte by byte from the payload layouts of the runtime's event manifest
 * (ClrEtwAll.man, as PerfView's ClrTraceEventParser reads them) and handed to the
 * decoders, to the name table, and to the reader's sink callbacks as nt_event records. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "formats/buf.h"
#include "formats/diag.h"
#include "formats/profile.h"
#include "readers/nettrace.h"
#include "readers/nettrace_clr.h"
#include "readers/nettrace_reader.h"

/* ---- payload building ---- */

struct pl {
	uint8_t b[1024];
	size_t len;
};

static void pl_u16(struct pl *p, uint16_t v)
{
	p->b[p->len++] = (uint8_t)v;
	p->b[p->len++] = (uint8_t)(v >> 8);
}

static void pl_u32(struct pl *p, uint32_t v)
{
	pl_u16(p, (uint16_t)v);
	pl_u16(p, (uint16_t)(v >> 16));
}

static void pl_u64(struct pl *p, uint64_t v)
{
	pl_u32(p, (uint32_t)v);
	pl_u32(p, (uint32_t)(v >> 32));
}

/* ASCII as UTF-16LE, NUL-terminated */
static void pl_str(struct pl *p, const char *s)
{
	while (*s)
		pl_u16(p, (uint8_t)*s++);
	pl_u16(p, 0);
}

/* MethodLoadVerbose / MethodDCEndVerbose, version 0, 1 or 2 */
static void method_payload(struct pl *p, int version, uint64_t module, uint64_t start,
			   uint32_t size, const char *ns, const char *name, const char *sig)
{
	p->len = 0;
	pl_u64(p, 0x7ff800001000); /* MethodID */
	pl_u64(p, module);
	pl_u64(p, start);
	pl_u32(p, size);
	pl_u32(p, 0x06000001);     /* MethodToken */
	pl_u32(p, 0x8);            /* MethodFlags: jitted */
	pl_str(p, ns);
	pl_str(p, name);
	pl_str(p, sig);
	if (version >= 1)
		pl_u16(p, 7);      /* ClrInstanceID */
	if (version >= 2)
		pl_u64(p, 0);      /* ReJITID */
}

/* ModuleLoad / ModuleDCEnd, version 2 */
static void module_payload(struct pl *p, uint64_t id, const char *il, const char *native)
{
	p->len = 0;
	pl_u64(p, id);
	pl_u64(p, 0x5000);   /* AssemblyID */
	pl_u32(p, 0x8);      /* ModuleFlags */
	pl_u32(p, 0);        /* Reserved1 */
	pl_str(p, il);
	pl_str(p, native);
	pl_u16(p, 7);        /* ClrInstanceID */
	for (int i = 0; i < 2; i++) {
		for (int j = 0; j < 16; j++)
			p->b[p->len++] = 0xab; /* a PDB GUID */
		pl_u32(p, 1);
		pl_str(p, "x.pdb");
	}
}

static const struct nt_meta meta_sample = { 1, "Microsoft-DotNETCore-SampleProfiler", 0, "", 0 };
static const struct nt_meta meta_load = { 2, "Microsoft-Windows-DotNETRuntime", 143, "", 1 };
static const struct nt_meta meta_dcend = { 3, "Microsoft-Windows-DotNETRuntimeRundown", 144, "", 2 };
static const struct nt_meta meta_modload = { 4, "Microsoft-Windows-DotNETRuntime", 152, "", 2 };
static const struct nt_meta meta_moddcend = { 5, "Microsoft-Windows-DotNETRuntimeRundown", 154, "", 2 };
static const struct nt_meta meta_asmload = { 6, "Microsoft-Windows-DotNETRuntime", 154, "", 1 };
static const struct nt_meta meta_domainmod = { 7, "Microsoft-Windows-DotNETRuntimeRundown", 152, "", 1 };

/* ---- classification and decoding ---- */

static void test_classify(void **state)
{
	(void)state;
	struct nt_meta m = { 9, "Microsoft-Windows-DotNETRuntime", 0, "", 0 };
	static const struct {
		const char *provider;
		uint32_t id;
		enum nt_clr_event want;
	} cases[] = {
		{ "Microsoft-DotNETCore-SampleProfiler", 0, NT_CLR_SAMPLE },
		{ "Microsoft-DotNETCore-SampleProfiler", 1, NT_CLR_OTHER },
		{ "Microsoft-Windows-DotNETRuntime", 143, NT_CLR_METHOD },
		{ "Microsoft-Windows-DotNETRuntime", 144, NT_CLR_METHOD },
		{ "Microsoft-Windows-DotNETRuntime", 141, NT_CLR_OTHER }, /* MethodLoad: no names */
		{ "Microsoft-Windows-DotNETRuntime", 152, NT_CLR_MODULE },
		{ "Microsoft-Windows-DotNETRuntime", 153, NT_CLR_MODULE },
		{ "Microsoft-Windows-DotNETRuntime", 154, NT_CLR_OTHER }, /* AssemblyLoad */
		{ "Microsoft-Windows-DotNETRuntimeRundown", 143, NT_CLR_METHOD },
		{ "Microsoft-Windows-DotNETRuntimeRundown", 144, NT_CLR_METHOD },
		{ "Microsoft-Windows-DotNETRuntimeRundown", 152, NT_CLR_OTHER }, /* DomainModuleDCEnd */
		{ "Microsoft-Windows-DotNETRuntimeRundown", 153, NT_CLR_MODULE },
		{ "Microsoft-Windows-DotNETRuntimeRundown", 154, NT_CLR_MODULE },
		{ "Microsoft-Windows-DotNETRuntimePrivate", 143, NT_CLR_OTHER },
		{ "Microsoft-DotNETCore-EventPipe", 1, NT_CLR_OTHER },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		m.provider = cases[i].provider;
		m.event_id = cases[i].id;
		assert_int_equal(nt_clr_classify(&m), cases[i].want);
	}
	assert_int_equal(nt_clr_classify(NULL), NT_CLR_OTHER);
}

static void assert_utf16(struct nt_utf16 s, const char *want)
{
	struct t2f_buf b = { 0 };

	assert_int_equal(nt_utf16_append(&b, s), 0);
	assert_int_equal(b.len, strlen(want));
	assert_memory_equal(b.p, want, b.len);
	t2f_buf__free(&b);
}

static void test_method_decode(void **state)
{
	(void)state;
	struct nt_clr_method m;
	struct pl p;

	for (int v = 0; v <= 2; v++) {
		method_payload(&p, v, 0x7ff800a0, 0x7ff812340000, 0x40, "System.Threading.Thread",
			       "Sleep", "void  (int32)");
		assert_true(nt_clr_method_decode(p.b, p.len, &m));
		assert_int_equal(m.module_id, 0x7ff800a0);
		assert_int_equal(m.start, 0x7ff812340000);
		assert_int_equal(m.size, 0x40);
		assert_int_equal(m.token, 0x06000001);
		assert_int_equal(m.flags, 0x8);
		assert_utf16(m.ns, "System.Threading.Thread");
		assert_utf16(m.name, "Sleep");
		assert_utf16(m.sig, "void  (int32)");
	}
	/* every cut short of the last string's NUL fails */
	method_payload(&p, 0, 1, 2, 3, "N", "M", "S()");
	for (size_t len = 0; len < p.len; len++)
		assert_false(nt_clr_method_decode(p.b, len, &m));
	assert_true(nt_clr_method_decode(p.b, p.len, &m));
}

static void test_module_decode(void **state)
{
	(void)state;
	struct nt_clr_module m;
	struct pl p;

	module_payload(&p, 0x7ff8000a, "/app/NoNativeStacks.dll", "");
	assert_true(nt_clr_module_decode(p.b, p.len, &m));
	assert_int_equal(m.module_id, 0x7ff8000a);
	assert_int_equal(m.assembly_id, 0x5000);
	assert_utf16(m.il_path, "/app/NoNativeStacks.dll");
	assert_utf16(m.native_path, "");
	assert_false(nt_clr_module_decode(p.b, 23, &m));
	assert_false(nt_clr_module_decode(p.b, 24 + 2 * 23, &m)); /* inside the IL path */
}

static void test_sample_decode(void **state)
{
	(void)state;
	const uint8_t two[] = { 2, 0, 0, 0 };
	uint32_t type = 0;

	assert_true(nt_clr_sample_decode(two, 4, &type));
	assert_int_equal(type, NT_SAMPLE_MANAGED);
	assert_false(nt_clr_sample_decode(two, 3, &type));
}

static void test_utf16(void **state)
{
	(void)state;
	/* "é€😀" then an unpaired high surrogate and an unpaired low one */
	const uint8_t s[] = { 0xe9, 0x00, 0xac, 0x20, 0x3d, 0xd8, 0x00, 0xde,
			      0x3d, 0xd8, 0x41, 0x00, 0x00, 0xdc };

	assert_utf16((struct nt_utf16){ s, 7 }, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"
						"\xef\xbf\xbd" "A\xef\xbf\xbd");
	assert_utf16((struct nt_utf16){ s, 0 }, "");
}

/* ---- names ---- */

static void add_method(struct nt_names *n, uint64_t module, uint64_t start, uint32_t size,
		       const char *ns, const char *name, const char *sig)
{
	struct nt_clr_method m;
	struct pl p;

	method_payload(&p, 1, module, start, size, ns, name, sig);
	assert_true(nt_clr_method_decode(p.b, p.len, &m));
	assert_int_equal(nt_names__add_method(n, &m), 0);
}

static void add_module(struct nt_names *n, uint64_t id, const char *il, const char *native)
{
	struct nt_clr_module m;
	struct pl p;

	module_payload(&p, id, il, native);
	assert_true(nt_clr_module_decode(p.b, p.len, &m));
	assert_int_equal(nt_names__add_module(n, &m), 0);
}

static void assert_name(const struct nt_names *n, uint64_t ip, const char *want,
			enum nt_name_kind want_kind)
{
	struct t2f_buf b = { 0 };
	enum nt_name_kind kind;

	assert_int_equal(nt_names__format(n, ip, &b, &kind), 0);
	assert_non_null(b.p);
	if (b.len != strlen(want) || memcmp(b.p, want, b.len) != 0)
		fail_msg("name of 0x%llx: \"%.*s\", want \"%s\"", (unsigned long long)ip,
			 (int)b.len, b.p, want);
	assert_int_equal(kind, want_kind);
	t2f_buf__free(&b);
}

static void test_names(void **state)
{
	(void)state;
	struct nt_names *n;

	assert_int_equal(nt_names__new(&n), 0);
	add_method(n, 0xa0, 0x1000, 0x100, "System.Threading.Thread", "Sleep", "void  (int32)");
	add_method(n, 0xa0, 0x2000, 0x10, "System.Threading.Tasks.Task", "InternalWaitCore",
		   "bool  (int32,value class System.Threading.CancellationToken)");
	add_method(n, 0xb0, 0x3000, 0x10, "Ns.Type", "NoSig", "");
	add_method(n, 0xff, 0x4000, 0x10, "Ns.Type", "InUnknownModule", "void  ()");
	add_method(n, 0xa0, 0x5000, 0x10, "", "", "");
	add_method(n, 0xa0, 0x6000, 0x10, "", "stub", "");
	add_method(n, 0xa0, 0x7000, 0, "Ns.Type", "Empty", "void  ()"); /* size 0: ignored */
	add_module(n, 0xa0, "C:\\Program Files\\dotnet\\System.Private.CoreLib.dll", "");
	add_module(n, 0xb0, "", "/opt/app/Tizen.Applications.UI.ni.dll");
	add_module(n, 0xa0, "/other/Later.dll", ""); /* the first name of an id is kept */
	assert_int_equal(nt_names__methods(n), 6);
	assert_int_equal(nt_names__seal(n), 0);

	assert_name(n, 0x1000, "System.Private.CoreLib!System.Threading.Thread.Sleep(int32)",
		    NT_NAME_METHOD);
	assert_name(n, 0x10ff, "System.Private.CoreLib!System.Threading.Thread.Sleep(int32)",
		    NT_NAME_METHOD);
	assert_name(n, 0x1100, "?!0x1100", NT_NAME_UNKNOWN); /* the end is exclusive */
	assert_name(n, 0xfff, "?!0xfff", NT_NAME_UNKNOWN);
	assert_name(n, 0x2008, "System.Private.CoreLib!System.Threading.Tasks.Task.InternalWaitCore"
		    "(int32,value class System.Threading.CancellationToken)", NT_NAME_METHOD);
	assert_name(n, 0x3000, "Tizen.Applications.UI.ni!Ns.Type.NoSig", NT_NAME_METHOD);
	assert_name(n, 0x4000, "?!Ns.Type.InUnknownModule()", NT_NAME_METHOD);
	assert_name(n, 0x5004, "System.Private.CoreLib!0x5004", NT_NAME_MODULE);
	assert_name(n, 0x6000, "System.Private.CoreLib!stub", NT_NAME_METHOD);
	assert_name(n, 0x7000, "?!0x7000", NT_NAME_UNKNOWN);
	assert_name(n, UINT64_MAX, "?!0xffffffffffffffff", NT_NAME_UNKNOWN);
	nt_names__free(n);
}

/* Overlapping ranges (code reused after an unload, re-jitted code): the later record wins. */
static void test_names_overlap(void **state)
{
	(void)state;
	struct nt_names *n;

	assert_int_equal(nt_names__new(&n), 0);
	add_module(n, 1, "M.dll", "");
	add_method(n, 1, 0x1000, 0x1000, "A", "Outer", "void  ()");
	add_method(n, 1, 0x1800, 0x10, "B", "Inner", "void  ()");
	add_method(n, 1, 0x1000, 0x20, "C", "Again", "void  ()");
	assert_int_equal(nt_names__seal(n), 0);
	assert_name(n, 0x1010, "M!C.Again()", NT_NAME_METHOD);
	assert_name(n, 0x1030, "M!A.Outer()", NT_NAME_METHOD);
	assert_name(n, 0x1808, "M!B.Inner()", NT_NAME_METHOD);
	assert_name(n, 0x1900, "M!A.Outer()", NT_NAME_METHOD);
	nt_names__free(n);
}

static void test_names_empty(void **state)
{
	(void)state;
	struct nt_names *n;

	assert_int_equal(nt_names__new(&n), 0);
	assert_int_equal(nt_names__seal(n), 0);
	assert_name(n, 0x42, "?!0x42", NT_NAME_UNKNOWN);
	nt_names__free(n);
	nt_names__free(NULL);
}

/* ---- the reader through its sink ---- */

struct run {
	struct t2f_profile *p;
	struct t2f_diag *d;
	struct t2f_nettrace *r;
	struct nt_sink sink;
};

static void run_open(struct run *x, enum t2f_nettrace_weight w)
{
	struct t2f_nettrace_opts o = { .weight = w };

	memset(x, 0, sizeof(*x));
	assert_int_equal(t2f_profile__new(&x->p), 0);
	assert_int_equal(t2f_diag__new(NULL, &x->d), 0);
	assert_int_equal(t2f_profile__enable_log(x->p), 0);
	assert_int_equal(t2f_nettrace__new(x->p, x->d, "t.nettrace", 0, &o, &x->r), 0);
	nt_reader__sink(x->r, &x->sink);
}

static void run_close(struct run *x)
{
	t2f_nettrace__free(x->r);
	t2f_diag__free(x->d);
	t2f_profile__free(x->p);
}

static void send_trace(struct run *x, uint64_t sampling_ns)
{
	struct nt_trace t = { .major = 4, .pointer_size = 8, .sync_qpc = 1000, .qpc_freq = 10000000,
			      .pid = 10064, .cpus = 4, .sampling_ns = sampling_ns };

	assert_int_equal(x->sink.trace(x->sink.ctx, &t), 0);
}

static void send_sample(struct run *x, int64_t tid, uint32_t type, int64_t ts,
			const uint64_t *stack, uint32_t depth)
{
	struct pl p = { .len = 0 };
	struct nt_event e = { .meta = &meta_sample, .pid = 10064, .tid = tid, .cpu = 0xffffffff,
			      .timestamp = ts, .stack = depth ? stack : NULL, .stack_len = depth };

	pl_u32(&p, type);
	e.payload = p.b;
	e.payload_len = (uint32_t)p.len;
	assert_int_equal(x->sink.event(x->sink.ctx, &e), 0);
}

static void send_payload(struct run *x, const struct nt_meta *m, const struct pl *p)
{
	struct nt_event e = { .meta = m, .pid = 10064, .tid = 3444, .timestamp = 5000,
			      .payload = p->b, .payload_len = (uint32_t)p->len };

	assert_int_equal(x->sink.event(x->sink.ctx, &e), 0);
}

static const char *frame_name(const struct run *x, t2f_frame_id f)
{
	return t2f_profile__str(x->p, t2f_profile__frame_at(x->p, f)->name, NULL);
}

/* "root;...;leaf" of a node */
static void stack_text(const struct run *x, t2f_node_id node, char *out, size_t cap)
{
	t2f_node_id chain[32];
	size_t n = 0, len = 0;

	for (; node && n < 32; node = t2f_profile__node_parent(x->p, node))
		chain[n++] = node;
	out[0] = 0;
	while (n-- > 0)
		len += (size_t)snprintf(out + len, cap - len, "%s%s", len ? ";" : "",
					frame_name(x, t2f_profile__node_frame(x->p, chain[n])));
}

static void test_reader(void **state)
{
	(void)state;
	const uint64_t leaf_first[] = { 0x1010, 0x2004, 0x9999 };
	struct t2f_sample_run s;
	uint64_t first, last;
	const struct t2f_thread *t;
	const struct t2f_event *ev;
	struct run x;
	struct pl p;
	char text[512];

	run_open(&x, T2F_NETTRACE_WEIGHT_INTERVAL);
	send_trace(&x, 1000000);
	send_sample(&x, 7532, NT_SAMPLE_MANAGED, 1000 + 10000, leaf_first, 3);   /* 1 ms in */
	send_sample(&x, 7532, NT_SAMPLE_EXTERNAL, 1000 + 20000, leaf_first + 1, 2);
	send_sample(&x, 8000, NT_SAMPLE_MANAGED, 500, leaf_first, 1);            /* before start */
	send_sample(&x, 8000, NT_SAMPLE_MANAGED, 1000 + 30000, NULL, 0);         /* no stack */
	/* the runtime's load of one method, then the rundown at the end */
	method_payload(&p, 1, 0xa0, 0x1000, 0x100, "App.Program", "Work", "void  (int32)");
	send_payload(&x, &meta_load, &p);
	method_payload(&p, 2, 0xb0, 0x2000, 0x10, "System.Threading.Thread", "Sleep", "void  (int32)");
	send_payload(&x, &meta_dcend, &p);
	module_payload(&p, 0xa0, "/app/App.dll", "");
	send_payload(&x, &meta_modload, &p);
	module_payload(&p, 0xb0, "/usr/share/dotnet/System.Private.CoreLib.dll", "");
	send_payload(&x, &meta_moddcend, &p);
	/* look-alike ids with other layouts: not modules */
	module_payload(&p, 0xa0, "/wrong/Wrong.dll", "");
	send_payload(&x, &meta_asmload, &p);
	send_payload(&x, &meta_domainmod, &p);
	assert_int_equal(nt_reader__name_frames(x.r), 0);

	assert_int_equal(t2f_nettrace__samples(x.r), 4);
	assert_int_equal(t2f_profile__samples_read(x.p), 4);
	assert_int_equal(t2f_profile__samples_dropped(x.p, T2F_DROP_EMPTY_STACK), 1);
	assert_int_equal(t2f_profile__sample_log_count(x.p), 3);
	assert_int_equal(nt_reader__stats(x.r)->methods, 2);
	assert_int_equal(nt_reader__stats(x.r)->modules, 2);
	assert_int_equal(nt_reader__stats(x.r)->frames_named, 2);
	assert_int_equal(nt_reader__stats(x.r)->frames_unnamed, 1);

	assert_int_equal(t2f_profile__event_count(x.p), 1);
	ev = t2f_profile__event_at(x.p, 1);
	assert_string_equal(t2f_profile__str(x.p, ev->name, NULL), "cpu");
	assert_int_equal(ev->unit, T2F_UNIT_NANOSECONDS);
	assert_true(ev->has_period);

	assert_int_equal(t2f_profile__thread_count(x.p), 2);
	t = t2f_profile__thread_at(x.p, 1);
	assert_int_equal(t->pid, 10064);
	assert_int_equal(t->tid, 7532);
	assert_string_equal(t2f_profile__str(x.p, t->comm, NULL), "Thread (7532)");

	s = t2f_profile__run_at(x.p, 1, 0);
	assert_int_equal(s.weight, 1000000);
	stack_text(&x, s.node, text, sizeof(text));
	assert_string_equal(text, "?!0x9999;System.Private.CoreLib!System.Threading.Thread.Sleep(int32);"
			    "App!App.Program.Work(int32)");
	s = t2f_profile__run_at(x.p, 1, 1);
	stack_text(&x, s.node, text, sizeof(text));
	assert_string_equal(text, "?!0x9999;System.Private.CoreLib!System.Threading.Thread.Sleep(int32);"
			    "UNMANAGED_CODE_TIME");
	s = t2f_profile__run_at(x.p, 2, 0); /* no time: the span is that of the first two */
	assert_int_equal(t2f_profile__thread_at(x.p, s.thread)->tid, 8000);
	assert_true(t2f_profile__time_span(x.p, &first, &last));
	assert_int_equal(first, 1000000);
	assert_int_equal(last, 2000000);
	for (t2f_frame_id f = 1; f <= t2f_profile__frame_count(x.p); f++)
		assert_int_equal(t2f_profile__frame_at(x.p, f)->kind, T2F_FRAME_MANAGED);
	run_close(&x);
}

/* --weight samples: a count event, 1 per sample; no trace interval needed. */
static void test_reader_weight_samples(void **state)
{
	(void)state;
	const uint64_t stack[] = { 0x10, 0x20 };
	struct run x;

	run_open(&x, T2F_NETTRACE_WEIGHT_SAMPLES);
	send_trace(&x, 0);
	send_sample(&x, 1, NT_SAMPLE_MANAGED, 2000, stack, 2);
	assert_int_equal(nt_reader__name_frames(x.r), 0);
	assert_int_equal(t2f_profile__event_at(x.p, 1)->unit, T2F_UNIT_COUNT);
	assert_false(t2f_profile__event_at(x.p, 1)->has_period);
	assert_int_equal(t2f_profile__run_at(x.p, 1, 0).weight, 1);
	run_close(&x);
}

/* A trace without ExpectedCPUSamplingRate: 1 ms per sample. A V6 thread name is the comm. */
static void test_reader_defaults(void **state)
{
	(void)state;
	const uint64_t stack[] = { 0x10 };
	struct nt_event e = { .meta = &meta_sample, .pid = 5, .tid = 6, .thread_name = ".NET TP Worker",
			      .stack = stack, .stack_len = 1 };
	struct run x;

	run_open(&x, T2F_NETTRACE_WEIGHT_INTERVAL);
	send_trace(&x, 0);
	assert_int_equal(x.sink.event(x.sink.ctx, &e), 0); /* no payload: kept, untyped */
	assert_int_equal(nt_reader__stats(x.r)->untyped_samples, 1);
	assert_int_equal(t2f_profile__run_at(x.p, 1, 0).weight, 1000000);
	assert_string_equal(t2f_profile__str(x.p, t2f_profile__thread_at(x.p, 1)->comm, NULL),
			    ".NET TP Worker");
	assert_int_equal(t2f_profile__thread_at(x.p, 1)->pid, 5);
	run_close(&x);
}

/* Many samples of the same stacks: frames, nodes and the reader's tables stay the same size. */
static void test_reader_no_growth(void **state)
{
	(void)state;
	const uint64_t stack[] = { 0x1001, 0x1002, 0x1003, 0x1004 };
	uint32_t frames, nodes;
	struct run x;

	run_open(&x, T2F_NETTRACE_WEIGHT_INTERVAL);
	send_trace(&x, 1000000);
	for (int i = 0; i < 100; i++)
		send_sample(&x, 1 + i % 3, NT_SAMPLE_MANAGED, 2000 + i, stack + i % 2, 3);
	frames = t2f_profile__frame_count(x.p);
	nodes = t2f_profile__node_count(x.p);
	for (int i = 0; i < 10000; i++)
		send_sample(&x, 1 + i % 3, NT_SAMPLE_MANAGED, 9000 + i, stack + i % 2, 3);
	assert_int_equal(t2f_profile__frame_count(x.p), frames);
	assert_int_equal(t2f_profile__node_count(x.p), nodes);
	assert_int_equal(t2f_profile__thread_count(x.p), 3);
	assert_int_equal(t2f_profile__cell_count(x.p), 6);
	run_close(&x);
}

/* Events without metadata and unrelated providers are ignored; short payloads are warned about. */
static void test_reader_ignored(void **state)
{
	(void)state;
	const struct nt_meta other = { 8, "Microsoft-Windows-DotNETRuntime", 1, "", 0 };
	struct nt_event e = { .meta = NULL, .tid = 1 };
	struct run x;
	struct pl p = { .len = 10 };

	run_open(&x, T2F_NETTRACE_WEIGHT_INTERVAL);
	send_trace(&x, 1000000);
	assert_int_equal(x.sink.event(x.sink.ctx, &e), 0);
	send_payload(&x, &other, &p);
	send_payload(&x, &meta_load, &p);
	send_payload(&x, &meta_modload, &p);
	assert_int_equal(nt_reader__stats(x.r)->bad_payloads, 2);
	assert_int_equal(t2f_diag__warnings(x.d), 2);
	assert_int_equal(t2f_profile__samples_read(x.p), 0);
	run_close(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_method_decode),
		cmocka_unit_test(test_module_decode),
		cmocka_unit_test(test_sample_decode),
		cmocka_unit_test(test_utf16),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_names_overlap),
		cmocka_unit_test(test_names_empty),
		cmocka_unit_test(test_reader),
		cmocka_unit_test(test_reader_weight_samples),
		cmocka_unit_test(test_reader_defaults),
		cmocka_unit_test(test_reader_no_growth),
		cmocka_unit_test(test_reader_ignored),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
