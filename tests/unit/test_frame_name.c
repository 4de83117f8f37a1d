/* tests/unit/test_frame_name.c: writers/frame_name.c — the display name of each frame: module
 * fallbacks for unknown symbols, --addrs, the collapsed-style argument cut, ';' and control
 * characters, the trailing-number guard, kind suffixes and raw names; one frame's name and its
 * key; the table named in parts on threads. Frames are built directly through formats/profile.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "formats/profile.h"
#include "symbolizer/demangle.h"
#include "writers/frame_name.h"

#define LIBC "/usr/lib/x86_64-linux-gnu/libc.so.6"

static int setup(void **state)
{
	struct t2f_profile *p = NULL;

	if (t2f_profile__new(&p) || !p)
		return -1;
	*state = p;
	return 0;
}

static int teardown(void **state)
{
	t2f_profile__free(*state);
	return 0;
}

static t2f_str_id str(struct t2f_profile *p, const char *s, size_t len)
{
	t2f_str_id id;

	assert_int_equal(t2f_profile__intern(p, s, len, &id), 0);
	return id;
}

/* A frame; name/module NULL = absent; addr kept when has_addr. */
static t2f_frame_id frame(struct t2f_profile *p, const char *name, const char *module,
			  enum t2f_frame_kind kind, bool has_addr, uint64_t addr)
{
	struct t2f_frame f = {
		.name = name ? str(p, name, strlen(name)) : 0,
		.module = module ? str(p, module, strlen(module)) : 0,
		.kind = kind,
		.has_addr = has_addr,
		.addr = addr,
	};
	t2f_frame_id id;

	assert_int_equal(t2f_profile__frame(p, &f, &id), 0);
	return id;
}

static t2f_frame_id named(struct t2f_profile *p, const char *name)
{
	return frame(p, name, "/bin/app", T2F_FRAME_USER, false, 0);
}

/* The name of frame id under opts, as a NUL-terminated copy in a static buffer. */
static const char *name_of(const struct t2f_profile *p, const struct t2f_frame_name_opts *o,
			   t2f_frame_id id)
{
	static char out[1024];
	struct t2f_frame_names *n = NULL;
	const char *s;
	size_t len;

	assert_int_equal(t2f_frame_names__new(p, o, &n), 0);
	assert_non_null(n);
	s = t2f_frame_names__get(n, id, &len);
	assert_non_null(s);
	assert_true(len < sizeof(out));
	memcpy(out, s, len);
	out[len] = '\0';
	t2f_frame_names__free(n);
	return out;
}

static const struct t2f_frame_name_opts PLAIN = { 0 };
static const struct t2f_frame_name_opts FOLDED = { .collapsed = true };

static void test_unknown_fallbacks(void **state)
{
	struct t2f_profile *p = *state;
	t2f_frame_id in_libc = frame(p, "[unknown]", LIBC, T2F_FRAME_USER, true, 0x7f00);
	t2f_frame_id nosym_libc = frame(p, NULL, LIBC, T2F_FRAME_USER, true, 0x1098d9);
	t2f_frame_id unk_unk = frame(p, "[unknown]", "[unknown]", T2F_FRAME_USER, true, 0x9);
	t2f_frame_id no_mod = frame(p, NULL, NULL, T2F_FRAME_USER, true, 0x55a5);
	t2f_frame_id no_slash = frame(p, NULL, "libfoo.so", T2F_FRAME_USER, false, 0);

	for (int style = 0; style < 2; style++) {
		const struct t2f_frame_name_opts *o = style ? &FOLDED : &PLAIN;

		assert_string_equal(name_of(p, o, in_libc), "[libc.so.6]");
		assert_string_equal(name_of(p, o, nosym_libc), "[libc.so.6]");
		assert_string_equal(name_of(p, o, unk_unk), "[unknown]");
		assert_string_equal(name_of(p, o, no_mod), "[unknown]");
		assert_string_equal(name_of(p, o, no_slash), "[libfoo.so]");
	}
}

static void test_addrs(void **state)
{
	struct t2f_profile *p = *state;
	t2f_frame_id in_libc = frame(p, "[unknown]", LIBC, T2F_FRAME_USER, true, 0x7f00);
	t2f_frame_id no_mod = frame(p, NULL, NULL, T2F_FRAME_USER, true, 0x55a56b65cf00);
	t2f_frame_id no_addr = frame(p, NULL, LIBC, T2F_FRAME_USER, false, 0);
	t2f_frame_id known = frame(p, "malloc", LIBC, T2F_FRAME_USER, false, 0);
	struct t2f_frame_name_opts o = { .addrs = true };

	for (int style = 0; style < 2; style++) {
		o.collapsed = style;
		assert_string_equal(name_of(p, &o, in_libc), "[libc.so.6 <7f00>]");
		assert_string_equal(name_of(p, &o, no_mod), "[unknown <55a56b65cf00>]");
		assert_string_equal(name_of(p, &o, no_addr), "[libc.so.6]");
		assert_string_equal(name_of(p, &o, known), "malloc");
	}
}

static void test_cut_args(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "foo(int)", "foo" },
		{ "foo()", "foo" },
		{ "ns::Cls::method(char const*, int) const", "ns::Cls::method" },
		{ "(anonymous namespace)::bar(int)", "(anonymous namespace)::bar" },
		{ "app::(anonymous namespace)::bar(int)", "app::(anonymous namespace)::bar" },
		{ "app::engine::quicksort<__gnu_cxx::__normal_iterator<int*, std::vector<int> >, "
		  "app::sort_worker(int)::{lambda(int, int)#2}>",
		  "app::engine::quicksort<__gnu_cxx::__normal_iterator<int*, std::vector<int> >, "
		  "app::sort_worker(int)::{lambda(int, int)#2}>" },
		{ "app::sort_worker(int)::{lambda(int, int)#2}::operator()(int, int) const",
		  "app::sort_worker" },
		/* the first '(' at depth 0 is the one of "operator()" */
		{ "std::function<void (int)>::operator()(int) const",
		  "std::function<void (int)>::operator" },
		{ "net/http.(*Client).Do", "net/http.(*Client).Do" },
		{ "main.(*T).Method(int)", "main.(*T).Method" },
		{ "arr[x(1)]::f(y)", "arr[x(1)]::f" },
		{ "plain_c_function", "plain_c_function" },
	};
	struct t2f_profile *p = *state;
	struct t2f_frame_name_opts raw = { .collapsed = true, .raw_names = true };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		t2f_frame_id id = named(p, cases[i].in);

		assert_string_equal(name_of(p, &FOLDED, id), cases[i].out);
		/* raw_names and the plain style keep the full name */
		assert_string_equal(name_of(p, &raw, id), cases[i].in);
		assert_string_equal(name_of(p, &PLAIN, id), cases[i].in);
	}
}

/* Collapsed stacks cut a name demangled with parameter lists to what libiberty prints without
 * them (what the resolve stage demangles when no other output keeps them): no return type of a
 * function template, no parameter list, special prefixes kept; so a collapsed output is the
 * same whatever else the session writes. The pairs are `c++filt` and `c++filt -p`, cut. */
static void test_cut_return_types(void **state)
{
	static const struct {
		const char *full, *cut;
	} cases[] = {
		{ "long app::twice<long>(long)", "app::twice<long>" },
		{ "std::vector<double, std::allocator<double> > app::fill<double>(double, unsigned int)",
		  "app::fill<double>" },
		{ "std::ostream& std::operator<< <std::char_traits<char> >(std::ostream&, char const*)",
		  "std::operator<< <std::char_traits<char> >" },
		{ "app::operator<<(app::Box&, long)", "app::operator<<" },
		{ "bool operator< <int>(A<int> const&, A<int> const&)", "operator< <int>" },
		{ "void v8::Console::call<&v8::Console::End>(v8::Info const&)",
		  "v8::Console::call<&v8::Console::End>" },
		{ "bool v8::(anonymous namespace)::wrap<v8::Cb>(v8::Injected*)",
		  "v8::(anonymous namespace)::wrap<v8::Cb>" },
		/* a generic lambda's call operator: the return type of the template, cut at the
		 * function holding the lambda */
		{ "auto ada::params::has(std::string_view)::{lambda(auto:1&)#1}::operator()"
		  "<std::pair<int, int> >(std::pair<int, int>&) const",
		  "ada::params::has" },
		/* a return type that is a local type of another function */
		{ "v8::(anonymous namespace)::Formatter(v8::Isolate*)::State& std::deque<v8::("
		  "anonymous namespace)::Formatter(v8::Isolate*)::State>::emplace_back<>()",
		  "std::deque<v8::(anonymous namespace)::Formatter(v8::Isolate*)::State>::"
		  "emplace_back<>" },
		{ "virtual thunk to std::basic_ostringstream<char>::~basic_ostringstream()",
		  "virtual thunk to std::basic_ostringstream<char>::~basic_ostringstream" },
		{ "guard variable for libc_may_be_musl()::retval", "guard variable for libc_may_be_musl" },
		{ "reference temporary #0 for int f<int>()::x", "reference temporary #0 for f<int>" },
		{ "app::Box::operator char const*() const", "app::Box::operator char const*" },
		{ "operator new(unsigned long)", "operator new" },
		{ "operator delete(void*, unsigned long)@plt", "operator delete@plt" },
		{ "std::string::push_back(char)@plt", "std::string::push_back@plt" },
		/* not a function template: spaces before the list stay */
		{ "[PreJIT] void [Lib] Ns.Type::Method(class Ns.Obj)[Tiered]",
		  "[PreJIT] void [Lib] Ns.Type::Method" },
		{ "LazyCompile:~<anonymous> (file.js:3)", "LazyCompile:~<anonymous> " },
		{ "Builtin: ArrayPrototypePush", "Builtin: ArrayPrototypePush" },
	};
	struct t2f_profile *p = *state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_string_equal(name_of(p, &FOLDED, named(p, cases[i].full)), cases[i].cut);
}

/* Every C++ name of the demangling fixtures (fixtures/demangle: workload, perf_pairs)
 * demangled with and without parameter lists gives one collapsed name. */
static void test_cut_full_as_no_params(void **state)
{
	static const char *const files[] = { "fixtures/demangle/workload.cxxfilt.txt",
					     "fixtures/demangle/perf_pairs.txt" };
	const char *src = getenv("T2F_SOURCE_DIR");
	struct t2f_profile *p = *state;
	size_t checked = 0;
	char line[8192];

	for (size_t k = 0; k < sizeof(files) / sizeof(files[0]); k++) {
		char path[4096];
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", src && *src ? src : ".", files[k]);
		f = fopen(path, "r");
		if (!f)
			fail_msg("cannot open %s (T2F_SOURCE_DIR: the source tree)", path);
		while (fgets(line, sizeof(line), f)) {
			char *tab = strchr(line, '\t'), *full, *nop;
			char want[8192];

			if (!tab || strncmp(line, "_Z", 2) != 0)
				continue;
			*tab = '\0';
			full = t2f_demangle(line, T2F_DEMANGLE_FULL);
			nop = t2f_demangle(line, T2F_DEMANGLE_NO_PARAMS);
			if (full && nop) {
				snprintf(want, sizeof(want), "%s", name_of(p, &FOLDED, named(p, nop)));
				assert_string_equal(name_of(p, &FOLDED, named(p, full)), want);
				checked++;
			}
			free(full);
			free(nop);
		}
		fclose(f);
	}
	assert_true(checked >= 60);
}

static void test_cut_to_nothing_is_unknown(void **state)
{
	struct t2f_profile *p = *state;
	t2f_frame_id id = named(p, "(int)");

	assert_string_equal(name_of(p, &FOLDED, id), "[unknown]");
	assert_string_equal(name_of(p, &PLAIN, id), "(int)");
}

static void test_semicolon_and_control_chars(void **state)
{
	struct t2f_profile *p = *state;
	t2f_frame_id semi = named(p, "a;b;c");
	t2f_frame_id ctl = named(p, "tab\there\x01x\x7fy\rz");

	assert_string_equal(name_of(p, &FOLDED, semi), "a:b:c");
	assert_string_equal(name_of(p, &PLAIN, semi), "a;b;c");
	assert_string_equal(name_of(p, &FOLDED, ctl), "tab here x y z");
	assert_string_equal(name_of(p, &PLAIN, ctl), "tab here x y z");
}

static void test_embedded_nul_becomes_space(void **state)
{
	struct t2f_profile *p = *state;
	struct t2f_frame f = { .name = str(p, "ab\0cd", 5) };
	struct t2f_frame_names *n;
	t2f_frame_id id;
	const char *s;
	size_t len;

	assert_int_equal(t2f_profile__frame(p, &f, &id), 0);
	assert_int_equal(t2f_frame_names__new(p, &FOLDED, &n), 0);
	s = t2f_frame_names__get(n, id, &len);
	assert_int_equal(len, 5);
	assert_memory_equal(s, "ab cd", 5);
	t2f_frame_names__free(n);
}

static void test_trailing_number(void **state)
{
	struct t2f_profile *p = *state;
	t2f_frame_id leaf = named(p, "foo 123");
	t2f_frame_id digits = named(p, "foo123");
	t2f_frame_id mid = named(p, "a 12 b");
	t2f_frame_id only = named(p, "123");

	assert_string_equal(name_of(p, &FOLDED, leaf), "foo_123");
	assert_string_equal(name_of(p, &PLAIN, leaf), "foo 123");
	assert_string_equal(name_of(p, &FOLDED, digits), "foo123");
	assert_string_equal(name_of(p, &FOLDED, mid), "a 12 b");
	assert_string_equal(name_of(p, &FOLDED, only), "123");
}

static void test_kind_suffixes(void **state)
{
	struct t2f_profile *p = *state;
	t2f_frame_id k = frame(p, "schedule", "[kernel.kallsyms]", T2F_FRAME_KERNEL, false, 0);
	t2f_frame_id j = frame(p, "LazyCompile:~run", "/tmp/perf-42.map", T2F_FRAME_JIT, false, 0);
	t2f_frame_id i = frame(p, "inlined_fn(int)", NULL, T2F_FRAME_INLINED, false, 0);
	t2f_frame_id u = frame(p, "user_fn", "/bin/app", T2F_FRAME_USER, false, 0);
	t2f_frame_id ku = frame(p, NULL, "[kernel.kallsyms]", T2F_FRAME_KERNEL, true, 0xff);
	struct t2f_frame_name_opts all = { .collapsed = true, .kernel = true, .jit = true,
					   .inlined = true };
	struct t2f_frame_name_opts all_plain = all;

	all_plain.collapsed = false;
	assert_string_equal(name_of(p, &all, k), "schedule_[k]");
	assert_string_equal(name_of(p, &all, j), "LazyCompile:~run_[j]");
	assert_string_equal(name_of(p, &all, i), "inlined_fn_[i]");
	assert_string_equal(name_of(p, &all, u), "user_fn");
	assert_string_equal(name_of(p, &all, ku), "[[kernel.kallsyms]]_[k]");
	/* off by default */
	assert_string_equal(name_of(p, &FOLDED, k), "schedule");
	assert_string_equal(name_of(p, &FOLDED, j), "LazyCompile:~run");
	assert_string_equal(name_of(p, &FOLDED, i), "inlined_fn");
	/* collapsed style only */
	assert_string_equal(name_of(p, &all_plain, k), "schedule");
	assert_string_equal(name_of(p, &all_plain, i), "inlined_fn(int)");
	/* one option does not switch on the others */
	{
		struct t2f_frame_name_opts konly = { .collapsed = true, .kernel = true };

		assert_string_equal(name_of(p, &konly, k), "schedule_[k]");
		assert_string_equal(name_of(p, &konly, j), "LazyCompile:~run");
		assert_string_equal(name_of(p, &konly, i), "inlined_fn");
	}
}

static void test_table_of_many_frames(void **state)
{
	struct t2f_profile *p = *state;
	struct t2f_frame_names *n;
	char want[64];

	for (int i = 0; i < 3000; i++) {
		snprintf(want, sizeof(want), "fn_%d(int)", i);
		assert_int_equal(named(p, want), (t2f_frame_id)i + 1);
	}
	assert_int_equal(t2f_frame_names__new(p, &FOLDED, &n), 0);
	for (int i = 0; i < 3000; i++) {
		size_t len;
		const char *s = t2f_frame_names__get(n, (t2f_frame_id)i + 1, &len);

		snprintf(want, sizeof(want), "fn_%d", i);
		assert_int_equal(len, strlen(want));
		assert_memory_equal(s, want, len);
	}
	t2f_frame_names__free(n);
	t2f_frame_names__free(NULL);
}

/* Named in parts on threads (enough frames for three parts): every name as one thread names
 * it, and as the rules make it. */
static void test_table_in_parts(void **state)
{
	enum { N = 50000 };
	struct t2f_profile *p = *state;
	char want[64];

	for (int i = 0; i < N; i++) {
		snprintf(want, sizeof(want), i % 7 ? "ns::fn_%d(int, long)" : "[unknown]", i);
		assert_int_equal(frame(p, want, i % 5 ? "/bin/app" : LIBC, T2F_FRAME_USER, true,
				       (uint64_t)i),
				 (t2f_frame_id)i + 1);
	}
	for (unsigned threads = 2; threads <= 8; threads++) {
		struct t2f_frame_name_opts o = FOLDED;
		struct t2f_frame_names *one, *par;

		o.threads = threads;
		assert_int_equal(t2f_frame_names__new(p, &FOLDED, &one), 0);
		assert_int_equal(t2f_frame_names__new(p, &o, &par), 0);
		for (int i = 0; i < N; i++) {
			size_t len, len1;
			const char *s = t2f_frame_names__get(par, (t2f_frame_id)i + 1, &len);
			const char *s1 = t2f_frame_names__get(one, (t2f_frame_id)i + 1, &len1);

			if (i % 7)
				snprintf(want, sizeof(want), "ns::fn_%d", i);
			else
				snprintf(want, sizeof(want), "[%s]", i % 5 ? "app" : "libc.so.6");
			assert_int_equal(len, strlen(want));
			assert_memory_equal(s, want, len);
			assert_int_equal(len1, len);
			assert_memory_equal(s1, s, len);
		}
		t2f_frame_names__free(one);
		t2f_frame_names__free(par);
	}
}

static void test_empty_profile(void **state)
{
	struct t2f_profile *p = *state;
	struct t2f_frame_names *n = NULL;

	assert_int_equal(t2f_frame_names__new(p, &FOLDED, &n), 0);
	assert_non_null(n);
	t2f_frame_names__free(n);
}

static bool key_equal(const struct t2f_frame_name_key *a, const struct t2f_frame_name_key *b)
{
	return a->name == b->name && a->module == b->module && a->has_addr == b->has_addr &&
	       a->addr == b->addr && a->kind == b->kind;
}

/* One frame at a time: the name t2f_frame_name__put makes from a frame's key is the table's,
 * and two frames with equal keys have equal names; the key tells apart what the name tells
 * apart. */
static void test_one_frame_and_its_key(void **state)
{
	static const struct t2f_frame_name_opts opts[] = {
		{ 0 },
		{ .addrs = true },
		{ .collapsed = true },
		{ .collapsed = true, .kernel = true, .inlined = true, .addrs = true },
		{ .collapsed = true, .raw_names = true },
	};
	struct t2f_profile *p = *state;
	t2f_frame_id ids[] = {
		frame(p, NULL, LIBC, T2F_FRAME_USER, true, 0x10),
		frame(p, NULL, LIBC, T2F_FRAME_USER, true, 0x20),
		frame(p, "[unknown]", "/bin/app", T2F_FRAME_USER, true, 0x10),
		frame(p, NULL, NULL, T2F_FRAME_USER, false, 0),
		frame(p, "run(int)", "/bin/app", T2F_FRAME_USER, true, 0x10),
		frame(p, "run(int)", LIBC, T2F_FRAME_USER, true, 0x30),
		frame(p, "run(int)", "/bin/app", T2F_FRAME_KERNEL, true, 0x10),
		frame(p, "run(int)", "/bin/app", T2F_FRAME_INLINED, true, 0x40),
	};
	size_t n = sizeof(ids) / sizeof(ids[0]);

	for (size_t o = 0; o < sizeof(opts) / sizeof(opts[0]); o++) {
		struct t2f_frame_name_key key[8];
		struct t2f_buf b[8] = { 0 };

		for (size_t i = 0; i < n; i++) {
			const struct t2f_frame *f = t2f_profile__frame_at(p, ids[i]);
			const char *want = name_of(p, &opts[o], ids[i]);

			t2f_frame_name__key(p, f, &opts[o], &key[i]);
			assert_int_equal(t2f_frame_name__put(p, &key[i], &opts[o], &b[i]), 0);
			assert_int_equal(b[i].len, strlen(want));
			assert_memory_equal(b[i].p ? b[i].p : "", want, b[i].len);
		}
		for (size_t i = 0; i < n; i++)
			for (size_t j = 0; j < n; j++)
				if (key_equal(&key[i], &key[j]))
					assert_true(b[i].len == b[j].len &&
						    memcmp(b[i].p, b[j].p, b[i].len) == 0);
		/* libc's two unknown frames: one name, unless addresses are shown */
		assert_int_equal(key_equal(&key[0], &key[1]), !opts[o].addrs);
		assert_false(key_equal(&key[0], &key[2])); /* another module */
		assert_true(key_equal(&key[4], &key[5]));  /* a symbol's module is not in its name */
		assert_int_equal(key_equal(&key[4], &key[6]), !(opts[o].collapsed && opts[o].kernel));
		for (size_t i = 0; i < n; i++)
			t2f_buf__free(&b[i]);
	}
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_unknown_fallbacks),
		T(test_addrs),
		T(test_cut_args),
		T(test_cut_return_types),
		T(test_cut_full_as_no_params),
		T(test_cut_to_nothing_is_unknown),
		T(test_semicolon_and_control_chars),
		T(test_embedded_nul_becomes_space),
		T(test_trailing_number),
		T(test_kind_suffixes),
		T(test_table_of_many_frames),
		T(test_table_in_parts),
		T(test_one_frame_and_its_key),
		T(test_empty_profile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
