/* tests/unit/test_nettrace_universal.c: universal (V6) payloads, the mapping metadata JSON, .NET
 * perf-map names, and the reader's universal path through its sink callbacks. Payloads are built
 * byte by byte from PerfView's UniversalProviders.md and NetTraceFormat_v6.md (varuints,
 * u16-prefixed UTF-8 strings). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "formats/diag.h"
#include "formats/profile.h"
#include "readers/nettrace.h"
#include "readers/nettrace_reader.h"
#include "readers/nettrace_universal.h"

struct pl {
	uint8_t b[512];
	size_t len;
};

static void pl_var(struct pl *p, uint64_t v)
{
	do {
		uint8_t b = v & 0x7f;

		v >>= 7;
		p->b[p->len++] = (uint8_t)(b | (v ? 0x80 : 0));
	} while (v);
}

static void pl_sstr(struct pl *p, const char *s)
{
	size_t n = strlen(s);

	p->b[p->len++] = (uint8_t)n;
	p->b[p->len++] = (uint8_t)(n >> 8);
	memcpy(p->b + p->len, s, n);
	p->len += n;
}

static void mapping_payload(struct pl *p, uint64_t id, uint64_t start, uint64_t end,
			    uint64_t off, const char *name, uint64_t meta)
{
	p->len = 0;
	pl_var(p, id);
	pl_var(p, start);
	pl_var(p, end);
	pl_var(p, off);
	pl_sstr(p, name);
	pl_var(p, meta);
	pl_sstr(p, "{}"); /* the two strings one-collect appends */
	pl_sstr(p, "{}");
}

static void symbol_payload(struct pl *p, uint64_t mapping, uint64_t start, uint64_t end,
			   const char *name)
{
	p->len = 0;
	pl_var(p, 9);
	pl_var(p, mapping);
	pl_var(p, start);
	pl_var(p, end);
	pl_sstr(p, name);
}

static void metadata_payload(struct pl *p, uint64_t id, const char *json)
{
	p->len = 0;
	pl_var(p, id);
	pl_sstr(p, json);
	pl_sstr(p, "{}");
}

/* ---- decoders ---- */

static void test_decode_mapping(void **state)
{
	struct nt_uni_mapping m;
	struct pl p;

	(void)state;
	mapping_payload(&p, 7, 0x555555555000, 0x555555555fff, 0x1000, "/usr/bin/prog", 3);
	assert_true(nt_uni_mapping_decode(p.b, p.len, &m));
	assert_int_equal(m.id, 7);
	assert_int_equal(m.start, 0x555555555000);
	assert_int_equal(m.end, 0x555555555fff);
	assert_int_equal(m.file_off, 0x1000);
	assert_int_equal(m.meta_id, 3);
	assert_int_equal(m.name.len, 13);
	assert_memory_equal(m.name.p, "/usr/bin/prog", 13);
	/* without the trailing strings: still whole; cut inside the name: refused */
	assert_true(nt_uni_mapping_decode(p.b, p.len - 8, &m));
	assert_false(nt_uni_mapping_decode(p.b, 20, &m));
	assert_false(nt_uni_mapping_decode(p.b, 0, &m));
}

static void test_decode_others(void **state)
{
	struct nt_uni_process pr;
	struct nt_uni_symbol s;
	struct nt_uni_metadata md;
	uint64_t v;
	struct pl p = { .len = 0 };

	(void)state;
	pl_var(&p, 4242);
	pl_sstr(&p, "prog");
	pl_sstr(&p, "Unknown");
	assert_true(nt_uni_process_decode(p.b, p.len, &pr));
	assert_int_equal(pr.ns_pid, 4242);
	assert_int_equal(pr.name.len, 4);
	assert_false(nt_uni_process_decode(p.b, p.len - 1, &pr));

	symbol_payload(&p, 5, 0xffffffff81000000, 0xffffffff810000ff, "do_syscall_64");
	assert_true(nt_uni_symbol_decode(p.b, p.len, &s));
	assert_int_equal(s.mapping_id, 5);
	assert_int_equal(s.start, 0xffffffff81000000); /* 10-byte varuint */
	assert_int_equal(s.end, 0xffffffff810000ff);
	assert_int_equal(s.name.len, 13);

	metadata_payload(&p, 2, "{\"type\":\"ELF\"}");
	assert_true(nt_uni_metadata_decode(p.b, p.len, &md));
	assert_int_equal(md.id, 2);
	assert_int_equal(md.symbol.len, 14);
	assert_int_equal(md.version.len, 2);

	p.len = 0;
	pl_var(&p, 250000);
	assert_true(nt_uni_value_decode(p.b, p.len, &v));
	assert_int_equal(v, 250000);
	assert_false(nt_uni_value_decode(p.b, 0, &v));
	p.b[0] = 0x80; /* a varuint cut short */
	assert_false(nt_uni_value_decode(p.b, 1, &v));
}

static void test_classify(void **state)
{
	struct nt_meta sys = { .provider = "Universal.System", .event_id = 3, .event_name = "" };
	struct nt_meta cpu = { .provider = "Universal.Events", .event_id = 7, .event_name = "cpu" };
	struct nt_meta cs = { .provider = "Universal.Events", .event_id = 0,
			      .event_name = "cswitch" };
	struct nt_meta other = { .provider = "Universal.Events", .event_id = 0,
				 .event_name = "page_fault" };

	(void)state;
	assert_int_equal(nt_uni_classify(&sys), NT_UNI_MAPPING);
	sys.event_id = 5;
	assert_int_equal(nt_uni_classify(&sys), NT_UNI_METADATA);
	sys.event_id = 6;
	assert_int_equal(nt_uni_classify(&sys), NT_UNI_OTHER);
	assert_int_equal(nt_uni_classify(&cpu), NT_UNI_CPU); /* by name, not id */
	assert_int_equal(nt_uni_classify(&cs), NT_UNI_CSWITCH);
	assert_int_equal(nt_uni_classify(&other), NT_UNI_OTHER);
	assert_int_equal(nt_uni_classify(NULL), NT_UNI_OTHER);
}

/* ---- metadata JSON ---- */

static bool parse(const char *json, struct nt_uni_elf_meta *m)
{
	return nt_uni_elf_meta_parse(json, strlen(json), m);
}

static void test_json_numbers(void **state)
{
	struct nt_uni_elf_meta m;

	(void)state;
	assert_true(parse("{\"type\": \"ELF\", \"debug_link\": \"prog.debug\", \"build_id\": "
			  "\"0123456789ABCDEF0123456789abcdef01234567\", \"p_vaddr\": 5616, "
			  "\"p_offset\": 1904}", &m));
	assert_string_equal(m.build_id, "0123456789abcdef0123456789abcdef01234567");
	assert_true(m.has_segment);
	assert_int_equal(m.p_vaddr, 0x15f0);
	assert_int_equal(m.p_offset, 0x770);
}

static void test_json_strings(void **state)
{
	struct nt_uni_elf_meta m;

	(void)state;
	assert_true(parse("{\"Build_Id\":\"aa\",\"P_VADDR\":\"0x1c9060\",\"p_offset\":\"1867872\"}",
			  &m));
	assert_string_equal(m.build_id, "aa");
	assert_true(m.has_segment);
	assert_int_equal(m.p_vaddr, 0x1c9060);
	assert_int_equal(m.p_offset, 0x1c8060);
	/* big values as numbers */
	assert_true(parse("{\"build_id\":\"ab\",\"p_vaddr\":18446744073709551615,\"p_offset\":0}",
			  &m));
	assert_int_equal(m.p_vaddr, UINT64_MAX);
}

static void test_json_partial_and_bad(void **state)
{
	struct nt_uni_elf_meta m;

	(void)state;
	/* build-id only (older writers): no segment */
	assert_true(parse("{\"type\":\"ELF\",\"build_id\":\"0123abcd\"}", &m));
	assert_false(m.has_segment);
	/* one of the two, or a bad value: no segment */
	assert_true(parse("{\"build_id\":\"ab\",\"p_vaddr\":4096}", &m));
	assert_false(m.has_segment);
	assert_true(parse("{\"build_id\":\"ab\",\"p_vaddr\":\"0x\",\"p_offset\":1}", &m));
	assert_false(m.has_segment);
	assert_true(parse("{\"build_id\":\"ab\",\"p_vaddr\":-1,\"p_offset\":1}", &m));
	assert_false(m.has_segment);
	assert_true(parse("{\"build_id\":\"ab\",\"p_vaddr\":\"12z\",\"p_offset\":1}", &m));
	assert_false(m.has_segment);
	/* a segment without a build-id is still something */
	assert_true(parse("{\"p_vaddr\":\"0x1000\",\"p_offset\":\"0x1000\"}", &m));
	assert_string_equal(m.build_id, "");
	/* nothing */
	assert_false(parse("{}", &m));
	assert_false(parse("", &m));
	assert_false(parse("not json", &m));
	assert_false(parse("{\"build_id\":", &m));
	assert_false(parse("[1,2]", &m));
	assert_false(m.bad_build_id);
	assert_false(parse("{\"build_id\":\"xyz!\"}", &m)); /* not hex */
	assert_true(m.bad_build_id);
	assert_false(parse("{\"build_id\":\"abc\"}", &m));  /* odd length */
	assert_true(m.bad_build_id);
	assert_false(parse("{\"build_id\":42}", &m));
	assert_true(m.bad_build_id);
	/* kept apart from the segment, which still counts */
	assert_true(parse("{\"build_id\":\"\",\"p_vaddr\":1,\"p_offset\":2}", &m));
	assert_true(m.bad_build_id && m.has_segment);
	assert_string_equal(m.build_id, "");
	assert_true(parse("{\"build_id\":\"ab\"}", &m));
	assert_false(m.bad_build_id);
	assert_false(parse("{\"type\":\"PE\",\"name\":\"x.pdb\",\"age\":1}", &m));
}

static void test_jit_name(void **state)
{
	static const char a[] = "instance void [System.Private.CoreLib] "
				"System.Threading.Thread::Sleep(int32)[Optimized]";
	static const char b[] = "int32 [app] App.Program::Main(string[])[Optimized]";
	char buf[256];
	size_t len = 0;

	(void)state;
	assert_true(nt_uni_jit_name(a, strlen(a), buf, sizeof(buf), &len));
	assert_int_equal(len, strlen("System.Private.CoreLib!System.Threading.Thread::Sleep(int32)[Optimized]"));
	assert_memory_equal(buf, "System.Private.CoreLib!System.Threading.Thread::Sleep(int32)[Optimized]", len);
	assert_true(nt_uni_jit_name(b, strlen(b), buf, sizeof(buf), &len));
	assert_memory_equal(buf, "app!App.Program::Main(string[])[Optimized]", len);
	/* other shapes stay as they are */
	assert_false(nt_uni_jit_name("do_syscall_64", 13, buf, sizeof(buf), &len));
	assert_false(nt_uni_jit_name("[app] X::Y()[Opt]", 17, buf, sizeof(buf), &len));
	assert_false(nt_uni_jit_name("void [app] X::Y()", 17, buf, sizeof(buf), &len));
	assert_false(nt_uni_jit_name("void [app] [Opt]", 16, buf, sizeof(buf), &len));
	assert_false(nt_uni_jit_name("void [app] X::Y()[]", 19, buf, sizeof(buf), &len));
	assert_false(nt_uni_jit_name(a, strlen(a), buf, 10, &len)); /* no room */
}

/* ---- the reader ---- */

struct rig {
	struct t2f_profile *p;
	struct t2f_diag *d;
	struct t2f_nettrace *r;
	struct nt_sink sink;
};

static const struct nt_meta m_map = { 1, "Universal.System", 3, "ProcessMapping", 0 };
static const struct nt_meta m_sym = { 2, "Universal.System", 4, "ProcessSymbol", 0 };
static const struct nt_meta m_meta = { 3, "Universal.System", 5, "ProcessMappingMetadata", 0 };
static const struct nt_meta m_cpu = { 4, "Universal.Events", 0, "cpu", 0 };
static const struct nt_meta m_proc = { 5, "Universal.System", 0, "ExistingProcess", 0 };

static void rig_open(struct rig *g)
{
	struct nt_trace t = { .major = 6, .pointer_size = 8, .qpc_freq = 1000000000,
			      .pid = 10, .page_size = 4096, .sampling_ns = 1000000 };

	assert_int_equal(t2f_profile__new(&g->p), 0);
	assert_int_equal(t2f_diag__new(stderr, &g->d), 0);
	assert_int_equal(t2f_nettrace__new(g->p, g->d, "t", 0, NULL, &g->r), 0);
	nt_reader__sink(g->r, &g->sink);
	assert_int_equal(g->sink.trace(g->sink.ctx, &t), 0);
}

static void rig_close(struct rig *g)
{
	t2f_nettrace__free(g->r);
	t2f_profile__free(g->p);
	t2f_diag__free(g->d);
}

static void send(struct rig *g, const struct nt_meta *m, int64_t pid, const struct pl *p,
		 const uint64_t *stack, uint32_t n)
{
	struct nt_event e = { .meta = m, .pid = pid, .tid = m == &m_cpu ? pid + 1 : 0,
			      .payload = p->b, .payload_len = (uint32_t)p->len, .stack = stack,
			      .stack_len = n, .timestamp = 5 };

	assert_int_equal(g->sink.event(g->sink.ctx, &e), 0);
}

static const char *frame_name(struct rig *g, t2f_frame_id id)
{
	const struct t2f_frame *f = t2f_profile__frame_at(g->p, id);

	return f->name ? t2f_profile__str(g->p, f->name, NULL) : "";
}

/* A metadata record whose build_id is not hex: a warning; the module is kept without a build-id
 * (its frames cannot be verified), with its segment. */
static void test_reader_bad_build_id(void **state)
{
	struct rig g;
	struct pl p, one = { .b = { 1 }, .len = 1 };
	uint64_t s1[] = { 0x7f3a00001100 };
	const struct t2f_module_map *mm;

	(void)state;
	rig_open(&g);
	metadata_payload(&p, 1, "{\"build_id\":\"not-hex!\",\"p_vaddr\":\"0x1040\",\"p_offset\":64}");
	send(&g, &m_meta, 10, &p, NULL, 0);
	assert_int_equal(t2f_diag__warnings(g.d), 1);
	mapping_payload(&p, 1, 0x7f3a00001000, 0x7f3a00001fff, 0x1000, "/lib/libx.so", 1);
	send(&g, &m_map, 10, &p, NULL, 0);
	send(&g, &m_cpu, 10, &one, s1, 1);
	assert_int_equal(nt_reader__name_frames(g.r), 0);
	assert_int_equal(t2f_profile__module_map_count(g.p), 1);
	mm = t2f_profile__module_map_at(g.p, 0);
	assert_int_equal(mm->build_id, 0);
	assert_true(mm->has_segment);
	assert_int_equal(t2f_diag__warnings(g.d), 1);
	rig_close(&g);
}

/* A sample whose stack id named no stack is dropped for that reason, one with an empty stack for
 * its own; both were read. */
static void test_reader_stackless(void **state)
{
	struct rig g;
	struct nt_event e = { .meta = &m_cpu, .pid = 10, .tid = 11, .timestamp = 5,
			      .payload = (const uint8_t *)"\1", .payload_len = 1 };

	(void)state;
	rig_open(&g);
	e.stack_unknown = true;
	assert_int_equal(g.sink.event(g.sink.ctx, &e), 0);
	e.stack_unknown = false;
	assert_int_equal(g.sink.event(g.sink.ctx, &e), 0);
	assert_int_equal(t2f_profile__samples_read(g.p), 2);
	assert_int_equal(t2f_profile__samples_dropped(g.p, T2F_DROP_UNKNOWN_STACK), 1);
	assert_int_equal(t2f_profile__samples_dropped(g.p, T2F_DROP_EMPTY_STACK), 1);
	assert_string_equal(t2f_drop_reason_name(T2F_DROP_UNKNOWN_STACK), "stack id never defined");
	rig_close(&g);
}

static void test_reader_frames(void **state)
{
	struct rig g;
	struct pl p, one = { .b = { 1 }, .len = 1 };
	const struct t2f_module_map *mm;
	/* leaf first: JIT (named later), unmapped, in /lib (two processes), kernel */
	uint64_t s1[] = { 0x7f0000000110, 0x1234, 0x7f3a00001100, 0xffffffff81000010 };
	uint64_t s2[] = { 0x7f5000001100 };
	const struct t2f_frame *f;

	(void)state;
	rig_open(&g);
	p.len = 0;
	pl_var(&p, 10);
	pl_sstr(&p, "dotnet");
	pl_sstr(&p, "Unknown");
	send(&g, &m_proc, 10, &p, NULL, 0);
	metadata_payload(&p, 1, "{\"build_id\":\"abcd\",\"p_vaddr\":\"0x1040\",\"p_offset\":64}");
	send(&g, &m_meta, 10, &p, NULL, 0);
	mapping_payload(&p, 1, 0x7f3a00001000, 0x7f3a00001fff, 0x1000, "/lib/libx.so", 1);
	send(&g, &m_map, 10, &p, NULL, 0);
	mapping_payload(&p, 2, 0x7f5000001000, 0x7f5000001fff, 0x1000, "/lib/libx.so", 1);
	send(&g, &m_map, 20, &p, NULL, 0);
	mapping_payload(&p, 3, 0x7f0000000000, 0x7f000000ffff, 0, "/memfd:doublemapper", 0);
	send(&g, &m_map, 10, &p, NULL, 0);
	send(&g, &m_cpu, 10, &one, s1, 4);
	send(&g, &m_cpu, 10, &one, s1, 4); /* the stack cache */
	send(&g, &m_cpu, 20, &one, s2, 1);
	/* ProcessSymbol after its use; a larger range holding the same address loses */
	symbol_payload(&p, 3, 0x7f0000000000, 0x7f0000000fff, "outer");
	send(&g, &m_sym, 10, &p, NULL, 0);
	symbol_payload(&p, 3, 0x7f0000000100, 0x7f0000000180, "void [app] A::B()[Optimized]");
	send(&g, &m_sym, 10, &p, NULL, 0);
	assert_int_equal(nt_reader__name_frames(g.r), 0);

	assert_int_equal(t2f_profile__samples_read(g.p), 3);
	assert_int_equal(t2f_profile__frame_count(g.p), 4); /* the /lib frame is shared */
	/* root first: kernel (no mapping), /lib, unmapped, JIT */
	f = t2f_profile__frame_at(g.p, 1);
	assert_int_equal(f->kind, T2F_FRAME_KERNEL);
	assert_string_equal(frame_name(&g, 1), "?!0xffffffff81000010");
	f = t2f_profile__frame_at(g.p, 2);
	assert_int_equal(f->kind, T2F_FRAME_USER);
	assert_true(f->has_addr);
	assert_int_equal(f->space, T2F_SPACE_FILE_OFF);
	assert_int_equal(f->addr, 0x1100); /* file offset */
	assert_string_equal(t2f_profile__str(g.p, f->module, NULL), "/lib/libx.so");
	assert_string_equal(frame_name(&g, 2), ""); /* for pipeline/resymbolize */
	assert_string_equal(frame_name(&g, 3), "?!0x1234");
	assert_int_equal(t2f_profile__frame_at(g.p, 4)->kind, T2F_FRAME_JIT);
	assert_string_equal(frame_name(&g, 4), "app!A::B()[Optimized]");
	/* one module map for the file, with its segment and page size */
	assert_int_equal(t2f_profile__module_map_count(g.p), 1);
	mm = t2f_profile__module_map_at(g.p, 0);
	assert_string_equal(t2f_profile__str(g.p, mm->build_id, NULL), "abcd");
	assert_true(mm->has_segment);
	assert_int_equal(mm->p_vaddr, 0x1040);
	assert_int_equal(mm->p_offset, 64);
	assert_int_equal(mm->page_size, 4096);
	assert_int_equal(mm->pgoff, 0x1000);
	/* the thread is named after its process */
	assert_string_equal(t2f_profile__str(g.p, t2f_profile__thread_at(g.p, 1)->comm, NULL),
			    "dotnet");
	rig_close(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_mapping),
		cmocka_unit_test(test_decode_others),
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_json_numbers),
		cmocka_unit_test(test_json_strings),
		cmocka_unit_test(test_json_partial_and_bad),
		cmocka_unit_test(test_jit_name),
		cmocka_unit_test(test_reader_frames),
		cmocka_unit_test(test_reader_stackless),
		cmocka_unit_test(test_reader_bad_build_id),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
