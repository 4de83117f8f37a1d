/* tests/unit/test_demangle.c: symbolizer/demangle.c — C++ and Rust (legacy, v0) names in FULL,
 * NO_PARAMS and NONE modes, names that are not mangled, garbage and hostile names (very long,
 * exponential output), the symbol tables of the corpus programs against c++filt -i
 * (fixtures/demangle/<prog>.cxxfilt.txt) and NO_PARAMS against perf script's own names
 * (fixtures/demangle/perf_pairs.txt), and the same from four threads at once.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "symbolizer/demangle.h"

struct lit {
	const char *raw;
	const char *full;      /* FULL */
	const char *noparams;  /* NO_PARAMS */
};

/* Raw names: `nm` of real binaries. workload, libshape.so, rwork_legacy, rwork_v0: the corpus
 * programs in ../shared/corpus/perf-script/prog. Compiled once for this table (binaries not
 * kept): ops_gcc (g++ 12.2 -O2: struct ns::inner::Vec2 with ctor, dtor, operators + == [] bool
 * new delete, a const volatile member, an anonymous-namespace function, a template
 * scale<long, 7>, a lambda in main), lto (clang++ 14 -O2 -flto=thin over two files: ThinLTO
 * renames the imported local to ".llvm.<hash>"), rsyms_v0 and rsyms_legacy (rustc 1.95 -O,
 * -C symbol-mangling-version=v0 / legacy: a module "ñandú" with fn "größe", a trait impl, a
 * const generic, a closure).
 * Expected strings: GNU c++filt 2.40 (binutils, Debian 12), `c++filt -i <raw>` for FULL and
 * `c++filt -i -p <raw>` for NO_PARAMS, pasted unchanged (non-ASCII as \x escapes of its UTF-8).
 * llvm-cxxfilt 14 prints the same for the v0 names and does not know legacy Rust. Legacy
 * "$uf1$" escapes stay undecoded: libiberty decodes only printable ASCII there (rustfilt would
 * print "ñandú"; not installed here). */
static const struct lit lits[] = {
	/* workload */
	{"_ZN3app11deep_workerEi",
	 "app::deep_worker(int)",
	 "app::deep_worker"},
	/* workload */
	{"_ZN3app11deep_workerEi.cold",
	 "app::deep_worker(int) [clone .cold]",
	 "app::deep_worker"},
	/* workload */
	{"_ZN3app12_GLOBAL__N_16deep_aEiRSt6vectorIdSaIdEE.part.0.isra.0",
	 "app::(anonymous namespace)::deep_a(int, std::vector<double, std::allocator<double> >&) [clone .part.0] [clone .isra.0]",
	 "app::(anonymous namespace)::deep_a"},
	/* workload */
	{"_ZN3app12_GLOBAL__N_17cmp_intEPKvS2_",
	 "app::(anonymous namespace)::cmp_int(void const*, void const*)",
	 "app::(anonymous namespace)::cmp_int"},
	/* workload */
	{"_ZN3app6engine9quicksortIN9__gnu_cxx17__normal_iteratorIPiSt6vectorIiSaIiEEEEZNS_11sort_workerEiEUliiE0_EEvT_SA_T0_i.constprop.0.isra.0",
	 "void app::engine::quicksort<__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > >, app::sort_worker(int)::{lambda(int, int)#2}>(__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > >, __gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > >, app::sort_worker(int)::{lambda(int, int)#2}, int) [clone .constprop.0] [clone .isra.0]",
	 "app::engine::quicksort<__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > >, app::sort_worker(int)::{lambda(int, int)#2}>"},
	/* workload */
	{"_ZNSt17_Function_handlerIFlliEZN3app11sort_workerEiEUlliE1_E9_M_invokeERKSt9_Any_dataOlOi",
	 "std::_Function_handler<long (long, int), app::sort_worker(int)::{lambda(long, int)#3}>::_M_invoke(std::_Any_data const&, long&&, int&&)",
	 "std::_Function_handler<long (long, int), app::sort_worker(int)::{lambda(long, int)#3}>::_M_invoke"},
	/* workload */
	{"_ZNSt6threadC2IZ4mainEUlvE0_JEvEEOT_DpOT0_.constprop.0",
	 "std::thread::thread<main::{lambda()#2}, , void>(main::{lambda()#2}&&) [clone .constprop.0]",
	 "std::thread::thread<main::{lambda()#2}, , void>"},
	/* workload */
	{"_ZNKSt6vectorISt6threadSaIS0_EE12_M_check_lenEmPKc.isra.0",
	 "std::vector<std::thread, std::allocator<std::thread> >::_M_check_len(unsigned long, char const*) const [clone .isra.0]",
	 "std::vector<std::thread, std::allocator<std::thread> >::_M_check_len"},
	/* workload */
	{"_ZNSt10unique_ptrIN3app6engine4Tree4NodeESt14default_deleteIS3_EED2Ev",
	 "std::unique_ptr<app::engine::Tree::Node, std::default_delete<app::engine::Tree::Node> >::~unique_ptr()",
	 "std::unique_ptr<app::engine::Tree::Node, std::default_delete<app::engine::Tree::Node> >::~unique_ptr"},
	/* workload */
	{"_ZNSt6thread11_State_implINS_8_InvokerISt5tupleIJZ4mainEUlvE0_EEEEED0Ev",
	 "std::thread::_State_impl<std::thread::_Invoker<std::tuple<main::{lambda()#2}> > >::~_State_impl()",
	 "std::thread::_State_impl<std::thread::_Invoker<std::tuple<main::{lambda()#2}> > >::~_State_impl"},
	/* workload */
	{"_ZNSt23mersenne_twister_engineImLm32ELm624ELm397ELm31ELm2567483615ELm11ELm4294967295ELm7ELm2636928640ELm15ELm4022730752ELm18ELm1812433253EEclEv",
	 "std::mersenne_twister_engine<unsigned long, 32ul, 624ul, 397ul, 31ul, 2567483615ul, 11ul, 4294967295ul, 7ul, 2636928640ul, 15ul, 4022730752ul, 18ul, 1812433253ul>::operator()()",
	 "std::mersenne_twister_engine<unsigned long, 32ul, 624ul, 397ul, 31ul, 2567483615ul, 11ul, 4294967295ul, 7ul, 2636928640ul, 15ul, 4022730752ul, 18ul, 1812433253ul>::operator()"},
	/* workload */
	{"_ZN3app4text9make_wordB5cxx11ERSt23mersenne_twister_engineImLm32ELm624ELm397ELm31ELm2567483615ELm11ELm4294967295ELm7ELm2636928640ELm15ELm4022730752ELm18ELm1812433253EE",
	 "app::text::make_word[abi:cxx11](std::mersenne_twister_engine<unsigned long, 32ul, 624ul, 397ul, 31ul, 2567483615ul, 11ul, 4294967295ul, 7ul, 2636928640ul, 15ul, 4022730752ul, 18ul, 1812433253ul>&)",
	 "app::text::make_word[abi:cxx11]"},
	/* libshape.so */
	{"_ZNK3geo6Circle4areaEi",
	 "geo::Circle::area(int) const",
	 "geo::Circle::area"},
	/* ops_gcc */
	{"_ZN2ns5inner4Vec2C1Edd",
	 "ns::inner::Vec2::Vec2(double, double)",
	 "ns::inner::Vec2::Vec2"},
	/* ops_gcc */
	{"_ZN2ns5inner4Vec2D2Ev",
	 "ns::inner::Vec2::~Vec2()",
	 "ns::inner::Vec2::~Vec2"},
	/* ops_gcc */
	{"_ZNK2ns5inner4Vec2plERKS1_",
	 "ns::inner::Vec2::operator+(ns::inner::Vec2 const&) const",
	 "ns::inner::Vec2::operator+"},
	/* ops_gcc */
	{"_ZNK2ns5inner4Vec2eqERKS1_",
	 "ns::inner::Vec2::operator==(ns::inner::Vec2 const&) const",
	 "ns::inner::Vec2::operator=="},
	/* ops_gcc */
	{"_ZN2ns5inner4Vec2ixEi",
	 "ns::inner::Vec2::operator[](int)",
	 "ns::inner::Vec2::operator[]"},
	/* ops_gcc */
	{"_ZNK2ns5inner4Vec2cvbEv",
	 "ns::inner::Vec2::operator bool() const",
	 "ns::inner::Vec2::operator bool"},
	/* ops_gcc */
	{"_ZN2ns5inner4Vec2nwEm",
	 "ns::inner::Vec2::operator new(unsigned long)",
	 "ns::inner::Vec2::operator new"},
	/* ops_gcc */
	{"_ZN2ns5inner4Vec2dlEPv",
	 "ns::inner::Vec2::operator delete(void*)",
	 "ns::inner::Vec2::operator delete"},
	/* ops_gcc */
	{"_ZNVK2ns5inner4Vec24len2Ev",
	 "ns::inner::Vec2::len2() const volatile",
	 "ns::inner::Vec2::len2"},
	/* ops_gcc */
	{"_ZN12_GLOBAL__N_16hiddenEi",
	 "(anonymous namespace)::hidden(int)",
	 "(anonymous namespace)::hidden"},
	/* ops_gcc */
	{"_ZL15helper_for_llvmi",
	 "helper_for_llvm(int)",
	 "helper_for_llvm"},
	/* ops_gcc */
	{"_Z5scaleIlLi7EET_S0_",
	 "long scale<long, 7>(long)",
	 "scale<long, 7>"},
	/* ops_gcc */
	{"_ZZ4mainENKUliRKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEEE_clEiS6_.constprop.0.isra.0",
	 "main::{lambda(int, std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > const&)#1}::operator()(int, std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > const&) const [clone .constprop.0] [clone .isra.0]",
	 "main::{lambda(int, std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > const&)#1}::operator()"},
	/* lto */
	{"_ZN3lto12_GLOBAL__N_16helperEi.llvm.3597739848619183139",
	 "lto::(anonymous namespace)::helper(int) [clone .llvm.3597739848619183139]",
	 "lto::(anonymous namespace)::helper"},
	/* rwork_legacy */
	{"_ZN5rwork4main17haf6bb6125b2e815eE",
	 "rwork::main",
	 "rwork::main"},
	/* rwork_legacy */
	{"_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17h97d2f13adb6212fbE.llvm.3103148664505314506",
	 "std::rt::lang_start::{{closure}}",
	 "std::rt::lang_start::{{closure}}"},
	/* rwork_legacy */
	{"_ZN70_$LT$rwork..engine..Poly$LT$_$GT$$u20$as$u20$rwork..engine..Kernel$GT$3run17hf820c2ffd76e6807E",
	 "<rwork::engine::Poly<_> as rwork::engine::Kernel>::run",
	 "<rwork::engine::Poly<_> as rwork::engine::Kernel>::run"},
	/* rsyms_legacy */
	{"_ZN5rsyms4main17h2c71d50fa3fd8d3eE",
	 "rsyms::main",
	 "rsyms::main"},
	/* rsyms_legacy */
	{"_ZN57_$LT$rsyms..Widget$LT$u32$GT$$u20$as$u20$rsyms..Speak$GT$5speak17hb031cb4e24f20b0eE",
	 "<rsyms::Widget<u32> as rsyms::Speak>::speak",
	 "<rsyms::Widget<u32> as rsyms::Speak>::speak"},
	/* rsyms_legacy */
	{"_ZN5rsyms14_$uf1$and$ufa$13gr$uf6$$udf$e17h18c20b60b76c5942E",
	 "rsyms::$uf1$and$ufa$::gr$uf6$$udf$e",
	 "rsyms::$uf1$and$ufa$::gr$uf6$$udf$e"},
	/* rwork_v0 */
	{"_RNvCs9MqJfiML4oA_5rwork4main",
	 "rwork::main",
	 "rwork::main"},
	/* rwork_v0 */
	{"_RNvXNtCs9MqJfiML4oA_5rwork6engineINtB2_4PolyKj4_ENtB2_6Kernel3runB4_",
	 "<rwork::engine::Poly<4> as rwork::engine::Kernel>::run",
	 "<rwork::engine::Poly<4> as rwork::engine::Kernel>::run"},
	/* rwork_v0 */
	{"_RNvMs_NtCs9MqJfiML4oA_5rwork6engineINtB4_3MatdE3mulB6_",
	 "<rwork::engine::Mat<f64>>::mul",
	 "<rwork::engine::Mat<f64>>::mul"},
	/* rwork_v0 */
	{"_RINvNtNtCsjrHSEGnQ3l9_3std3sys9backtrace28___rust_begin_short_backtraceNCNvCs9MqJfiML4oA_5rwork4mains_0uEB1b_",
	 "std::sys::backtrace::__rust_begin_short_backtrace::<rwork::main::{closure#1}, ()>",
	 "std::sys::backtrace::__rust_begin_short_backtrace::<rwork::main::{closure#1}, ()>"},
	/* rwork_v0 */
	{"_RNSNvYNCINvNtCsjrHSEGnQ3l9_3std2rt10lang_startuE0INtNtNtCsgEmfK2I1SDS_4core3ops8function6FnOnceuE9call_once6vtableCs9MqJfiML4oA_5rwork.llvm.5539457938348363036",
	 "<std::rt::lang_start<()>::{closure#0} as core::ops::function::FnOnce<()>>::call_once::{shim:vtable#0}",
	 "<std::rt::lang_start<()>::{closure#0} as core::ops::function::FnOnce<()>>::call_once::{shim:vtable#0}"},
	/* rsyms_v0 */
	{"_RNvNtCs8kH4A5U9TFA_5rsymsu9and_6ma2cu9gre_6ka8i",
	 "rsyms::\xc3\xb1" "and\xc3\xba::gr\xc3\xb6\xc3\x9f" "e",
	 "rsyms::\xc3\xb1" "and\xc3\xba::gr\xc3\xb6\xc3\x9f" "e"},
	/* rsyms_v0 */
	{"_RINvCs8kH4A5U9TFA_5rsyms10generic_fnKj4_hEB2_",
	 "rsyms::generic_fn::<4, u8>",
	 "rsyms::generic_fn::<4, u8>"},
	/* rsyms_v0 */
	{"_RINvCs8kH4A5U9TFA_5rsyms5applyNCNvB2_4main0EB2_",
	 "rsyms::apply::<rsyms::main::{closure#0}>",
	 "rsyms::apply::<rsyms::main::{closure#0}>"},
	/* rsyms_v0 */
	{"_RNvXCs8kH4A5U9TFA_5rsymsINtB2_6WidgetmENtB2_5Speak5speak",
	 "<rsyms::Widget<u32> as rsyms::Speak>::speak",
	 "<rsyms::Widget<u32> as rsyms::Speak>::speak"},
};

static void test_literals(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(lits) / sizeof(lits[0]); i++) {
		char *f = t2f_demangle(lits[i].raw, T2F_DEMANGLE_FULL);
		char *n = t2f_demangle(lits[i].raw, T2F_DEMANGLE_NO_PARAMS);

		if (!f || strcmp(f, lits[i].full) != 0)
			print_message("FULL %s\n  got  %s\n  want %s\n", lits[i].raw, f ? f : "(NULL)",
				      lits[i].full);
		if (!n || strcmp(n, lits[i].noparams) != 0)
			print_message("NO_PARAMS %s\n  got  %s\n  want %s\n", lits[i].raw,
				      n ? n : "(NULL)", lits[i].noparams);
		assert_non_null(f);
		assert_string_equal(f, lits[i].full);
		assert_non_null(n);
		assert_string_equal(n, lits[i].noparams);
		free(f);
		free(n);
		assert_null(t2f_demangle(lits[i].raw, T2F_DEMANGLE_NONE));
	}
}

/* Version and PLT suffixes: demangled up to '@', the rest kept. Expected: `printf '%s\n' RAW |
 * c++filt -i` and `| c++filt -i -p` (stream mode splits at '@' the same way). */
static void test_at_suffix(void **state)
{
	static const struct lit at[] = {
		{"_ZNSt6thread4joinEv@GLIBCXX_3.4.11", "std::thread::join()@GLIBCXX_3.4.11",
		 "std::thread::join@GLIBCXX_3.4.11"},
		{"_ZN3foo3barEv@plt", "foo::bar()@plt", "foo::bar@plt"},
		{"_ZN3foo3barEv@@VER_1", "foo::bar()@@VER_1", "foo::bar@@VER_1"},
		{"_ZN5rwork4main17haf6bb6125b2e815eE@plt", "rwork::main@plt", "rwork::main@plt"},
		{"_RNvCs9MqJfiML4oA_5rwork4main@plt", "rwork::main@plt", "rwork::main@plt"},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		char *f = t2f_demangle(at[i].raw, T2F_DEMANGLE_FULL);
		char *n = t2f_demangle(at[i].raw, T2F_DEMANGLE_NO_PARAMS);

		assert_non_null(f);
		assert_string_equal(f, at[i].full);
		assert_non_null(n);
		assert_string_equal(n, at[i].noparams);
		free(f);
		free(n);
	}
	/* Not mangled before the '@': NULL. */
	assert_null(t2f_demangle("memcpy@@GLIBC_2.14", T2F_DEMANGLE_FULL));
	assert_null(t2f_demangle("_start@plt", T2F_DEMANGLE_FULL));
	assert_null(t2f_demangle("@_Z3foov", T2F_DEMANGLE_FULL));
	assert_null(t2f_demangle("_Z@plt", T2F_DEMANGLE_NO_PARAMS));
}

/* Other special names libiberty knows (c++filt -i): kept, like c++filt. */
static void test_special_names(void **state)
{
	char *s;

	(void)state;
	s = t2f_demangle("_ZTVN3app5ShapeE", T2F_DEMANGLE_FULL);
	assert_non_null(s);
	assert_string_equal(s, "vtable for app::Shape");
	free(s);
	s = t2f_demangle("_ZSt4cout", T2F_DEMANGLE_NO_PARAMS);
	assert_non_null(s);
	assert_string_equal(s, "std::cout");
	free(s);
	s = t2f_demangle("_GLOBAL__I_foo", T2F_DEMANGLE_FULL);
	assert_non_null(s);
	assert_string_equal(s, "global constructors keyed to foo");
	free(s);
}

static void test_not_mangled(void **state)
{
	/* c++filt -i prints all of these unchanged. */
	static const char *const names[] = {
		"main", "main.cold", "_start", "_init", "__libc_start_call_main", "rust_eh_personality",
		"_GLOBAL__sub_I_main", "__Z3foov", "Z3foov", "R5rwork", "_D3foo3barFZv", "", "_",
		"_Z", "_R", "_ZN", "_RNv", "_ZN3foo", "_Z3", "_ZN5rwork4main17h",
		"_RNvCs9MqJfiML4oA_5rwork", "__", "_$LT$", ".", "@",
	};
	size_t i;
	int m;

	(void)state;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		for (m = T2F_DEMANGLE_FULL; m <= T2F_DEMANGLE_NONE; m++) {
			char *s = t2f_demangle(names[i], (enum t2f_demangle_mode)m);

			if (s)
				print_message("%s (mode %d): %s\n", names[i], m, s);
			assert_null(s);
		}
	}
}

/* Without DMGL_PARAMS libiberty ignores what follows a complete C++ encoding (perf and
 * `c++filt -i -p` print the same); with it such a name is refused (c++filt -i leaves it). */
static void test_noparams_trailing_bytes(void **state)
{
	static const char *const raw[] = {"_ZN3fooE3", "_Z3foov!x", "_ZN3app11deep_workerEi$junk"};
	static const char *const want[] = {"foo", "foo", "app::deep_worker"};
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++) {
		char *d = t2f_demangle(raw[i], T2F_DEMANGLE_NO_PARAMS);

		assert_non_null(d);
		assert_string_equal(d, want[i]);
		free(d);
		assert_null(t2f_demangle(raw[i], T2F_DEMANGLE_FULL));
	}
}

static void test_none_mode(void **state)
{
	(void)state;
	assert_null(t2f_demangle("_ZN3app11deep_workerEi", T2F_DEMANGLE_NONE));
	assert_null(t2f_demangle("_RNvCs9MqJfiML4oA_5rwork4main", T2F_DEMANGLE_NONE));
	assert_null(t2f_demangle("_ZN5rwork4main17haf6bb6125b2e815eE", T2F_DEMANGLE_NONE));
	assert_null(t2f_demangle("main", T2F_DEMANGLE_NONE));
}

/* ---- garbage ---- */

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t rng(void)
{
	uint64_t x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

/* Both modes; the result must be NULL or a non-empty string. */
static void poke(const char *s)
{
	int m;

	for (m = T2F_DEMANGLE_FULL; m <= T2F_DEMANGLE_NO_PARAMS; m++) {
		char *d = t2f_demangle(s, (enum t2f_demangle_mode)m);

		if (d) {
			assert_true(d[0] != '\0');
			free(d);
		}
	}
}

static void test_garbage_random(void **state)
{
	static const char *const prefixes[] = {
		"", "_", "_Z", "_ZN", "_ZZ", "_ZNK", "_ZSt", "_ZL", "_ZTV", "_R", "_RNv", "_RINv",
		"_RNvCs9MqJfiML4oA_5rwork", "_ZN5rwork", "_GLOBAL__I_",
	};
	static const char alpha[] = "0123456789_$.EINSTZRCBKLMXYvuijlmxyhdfcbsatPRFDOJ";
	char buf[320];
	int i;

	(void)state;
	for (i = 0; i < 60000; i++) {
		const char *p = prefixes[rng() % (sizeof(prefixes) / sizeof(prefixes[0]))];
		size_t n = strlen(p), len = rng() % 256, j;
		int bytes = (int)(rng() % 3);

		memcpy(buf, p, n);
		for (j = 0; j < len; j++) {
			if (bytes == 0) /* any byte but NUL */
				buf[n + j] = (char)(1 + rng() % 255);
			else /* letters of the manglings: deeper into the parsers */
				buf[n + j] = alpha[rng() % (sizeof(alpha) - 1)];
		}
		buf[n + len] = '\0';
		poke(buf);
	}
}

static void test_garbage_long(void **state)
{
	size_t big = 1u << 20;
	char *s = malloc(big + 64);
	char *d;
	size_t i, n;

	(void)state;
	assert_non_null(s);
	/* 1 MiB after "_Z", "_R", "_ZN": refused before libiberty (over 64 KiB). */
	memcpy(s, "_Z", 2);
	memset(s + 2, 'a', big);
	s[2 + big] = '\0';
	poke(s);
	assert_null(t2f_demangle(s, T2F_DEMANGLE_FULL));
	s[1] = 'R';
	poke(s);
	memset(s + 2, 'N', big);
	poke(s);

	/* Legacy Rust is the only scheme libiberty decodes at that length; the 64 KiB limit is
	 * ours: 65,536 bytes are demangled, 65,537 are not. "_ZN" "2ab" "1a"*32755
	 * "17h0123456789abcdefE" = 3 + 3 + 65,510 + 20. */
	n = 0;
	memcpy(s, "_ZN2ab", 6);
	n = 6;
	for (i = 0; i < 32755; i++) {
		s[n++] = '1';
		s[n++] = 'a';
	}
	memcpy(s + n, "17h0123456789abcdefE", 21);
	assert_int_equal(strlen(s), 65536);
	d = t2f_demangle(s, T2F_DEMANGLE_FULL);
	assert_non_null(d);
	assert_int_equal(strlen(d), 2 + 3 * 32755); /* "ab" + "::a" * 32755 */
	assert_memory_equal(d, "ab::a::a::a", 11);
	free(d);
	s[4] = '3';
	memmove(s + 6, s + 5, strlen(s + 5) + 1);
	s[5] = 'c'; /* "_ZN3abc1a..." */
	assert_int_equal(strlen(s), 65537);
	assert_null(t2f_demangle(s, T2F_DEMANGLE_FULL));

	/* C++: libiberty itself refuses names whose component estimate (2 per byte) passes its
	 * recursion limit 2048, i.e. longer than 1024 bytes: "_Z1f" + 500 'i' = f(int, ...),
	 * + 1100 'i' is kept raw (as by c++filt). Deep nesting is refused too. */
	memcpy(s, "_Z1f", 4);
	memset(s + 4, 'i', 500);
	s[504] = '\0';
	d = t2f_demangle(s, T2F_DEMANGLE_FULL);
	assert_non_null(d);
	assert_int_equal(strlen(d), 2 + 500 * 5 - 2 + 1); /* "f(" "int, "*500 - ", " + ")" */
	free(d);
	memset(s + 4, 'i', 1100);
	s[1104] = '\0';
	assert_null(t2f_demangle(s, T2F_DEMANGLE_FULL));
	memcpy(s, "_ZN", 3);
	for (i = 0; i < 5000; i++)
		memcpy(s + 3 + 2 * i, "1a", 2);
	memcpy(s + 3 + 2 * i, "Ev", 3);
	poke(s);
	free(s);
}

/* Mutations of real names: cut, flip, insert, repeat. */
static void mutate_all(char **names, size_t count)
{
	static const char alpha[] = "0123456789_$.EINSTZRCBKLMXYvuijlmxyhdfcbsatPRFDOJ";
	char buf[4096];
	size_t i;
	int k;

	for (i = 0; i < count; i++) {
		size_t len = strlen(names[i]);

		if (len < 3 || len > 1500)
			continue;
		for (k = 0; k < 24; k++) {
			size_t at = 2 + rng() % (len - 2), n = len;

			memcpy(buf, names[i], len + 1);
			switch (k % 4) {
			case 0: /* cut */
				buf[at] = '\0';
				break;
			case 1: /* flip */
				buf[at] = alpha[rng() % (sizeof(alpha) - 1)];
				break;
			case 2: /* insert */
				memmove(buf + at + 1, buf + at, n - at + 1);
				buf[at] = alpha[rng() % (sizeof(alpha) - 1)];
				break;
			default: { /* repeat the tail once more */
				size_t tail = n - at;

				memcpy(buf + n, buf + at, tail);
				buf[n + tail] = '\0';
				break;
			}
			}
			poke(buf);
		}
	}
}

/* ---- exponential output ---- */

/* "_Z1f1a" + "1bI<S><S>E" * n, <S> the substitution of the previous template: every step
 * doubles the output. Measured with c++filt -i: n = 14 gives 212,927 bytes, n = 15 425,915;
 * 206 bytes (n = 20) give 13.6 MB, and n = 40 would give ~14 TB. */
static void cxx_double(char *o, int n)
{
	static const char digits[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
	int k;

	o += sprintf(o, "_Z1f1a");
	for (k = 0; k < n; k++) {
		char sub[16];
		int v = 2 * k;

		if (v == 0) {
			strcpy(sub, "S_");
		} else {
			char t[8];
			int m = 0, j;

			v--;
			do {
				t[m++] = digits[v % 36];
				v /= 36;
			} while (v);
			sub[0] = 'S';
			for (j = 0; j < m; j++)
				sub[1 + j] = t[m - 1 - j];
			sub[1 + m] = '_';
			sub[2 + m] = '\0';
		}
		o += sprintf(o, "1bI%s%sE", sub, sub);
	}
}

/* Rust v0: a generic function whose k-th type argument is a tuple of two back-references to
 * the (k-1)-th, the first one "T" leaf "E": "_RINvC1a1fTuuETB7_B7_E...E". c++filt -i: n = 14
 * gives 196,574 bytes, n = 15 393,180. */
static void rust_double_leaf(char *o, int n, const char *leaf)
{
	static const char b62[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
	char *start = o;
	size_t prev;
	int k;

	o += sprintf(o, "_RINvC1a1f");
	prev = (size_t)(o - start) - 2;
	o += sprintf(o, "T%sE", leaf);
	for (k = 1; k < n; k++) {
		size_t here = (size_t)(o - start) - 2, x = prev - 1;
		char t[16], ref[16];
		int m = 0, j;

		do {
			t[m++] = b62[x % 62];
			x /= 62;
		} while (x);
		for (j = 0; j < m; j++)
			ref[j] = t[m - 1 - j];
		ref[m] = '\0';
		o += sprintf(o, "TB%s_B%s_E", ref, ref);
		prev = here;
	}
	strcpy(o, "E");
}

static void rust_double(char *o, int n)
{
	rust_double_leaf(o, n, "uu");
}

static void test_exponential_output(void **state)
{
	char name[4096];
	char *d;
	int pad;

	(void)state;
	cxx_double(name, 3);
	assert_string_equal(name, "_Z1f1a1bIS_S_E1bIS1_S1_E1bIS3_S3_E");
	d = t2f_demangle(name, T2F_DEMANGLE_FULL);
	assert_non_null(d);
	/* c++filt -i */
	assert_string_equal(d, "f(a, b<a, a>, b<b<a, a>, b<a, a> >, b<b<b<a, a>, b<a, a> >, "
			       "b<b<a, a>, b<a, a> > >)");
	free(d);
	cxx_double(name, 14); /* 212,927 bytes: under the 256 KiB limit */
	d = t2f_demangle(name, T2F_DEMANGLE_FULL);
	assert_non_null(d);
	assert_int_equal(strlen(d), 212927);
	free(d);
	cxx_double(name, 15); /* 425,915 bytes: over */
	assert_null(t2f_demangle(name, T2F_DEMANGLE_FULL));
	cxx_double(name, 60); /* would be ~10^18 bytes */
	assert_null(t2f_demangle(name, T2F_DEMANGLE_FULL));
	/* Without parameters only "f" is printed. */
	d = t2f_demangle(name, T2F_DEMANGLE_NO_PARAMS);
	assert_non_null(d);
	assert_string_equal(d, "f");
	free(d);

	rust_double(name, 3);
	assert_string_equal(name, "_RINvC1a1fTuuETB7_B7_ETBb_Bb_EE");
	d = t2f_demangle(name, T2F_DEMANGLE_FULL);
	assert_non_null(d);
	/* c++filt -i */
	assert_string_equal(d, "a::f::<((), ()), (((), ()), ((), ())), ((((), ()), ((), ())), "
			       "(((), ()), ((), ())))>");
	free(d);
	rust_double(name, 14);
	d = t2f_demangle(name, T2F_DEMANGLE_NO_PARAMS);
	assert_non_null(d);
	assert_int_equal(strlen(d), 196574);
	free(d);
	rust_double(name, 15);
	assert_null(t2f_demangle(name, T2F_DEMANGLE_FULL));
	rust_double(name, 60);
	assert_null(t2f_demangle(name, T2F_DEMANGLE_FULL));
	assert_null(t2f_demangle(name, T2F_DEMANGLE_NO_PARAMS));

	/* Leaves with punycode identifiers ("a::xx..x::ñandú"), the limit falling at every
	 * place: libiberty holds a malloc'd buffer while it prints those, so leaving at the wrong
	 * call leaked it (seen with valgrind/LeakSanitizer). */
	for (pad = 1; pad < 60; pad++) {
		char leaf[160], *p = leaf;
		int i, n;

		p += sprintf(p, "NtC%d", pad);
		for (i = 0; i < pad; i++)
			*p++ = 'x';
		strcpy(p, "u9and_6ma2cNtC1au9and_6ma2c");
		for (n = 14; n < 20; n++) {
			rust_double_leaf(name, n, leaf);
			assert_null(t2f_demangle(name, T2F_DEMANGLE_FULL));
		}
	}
	rust_double_leaf(name, 1, "NtC1au9and_6ma2c");
	d = t2f_demangle(name, T2F_DEMANGLE_FULL);
	assert_non_null(d);
	assert_string_equal(d, "a::f::<(a::\xc3\xb1" "and\xc3\xba,)>"); /* c++filt -i */
	free(d);
}

/* ---- tables ---- */

struct row {
	char *raw, *want; /* c++filt -i, or perf's name */
};

struct table {
	struct row *rows;
	size_t count;
	char *text;
	int perf;          /* want is perf's NO_PARAMS name, else c++filt -i's FULL name */
	int noparams_same; /* NO_PARAMS must equal FULL (Rust) */
};

static char *source_path(const char *rel)
{
	const char *src = getenv("T2F_SOURCE_DIR");
	char *path;
	size_t n;

	if (src && *src) {
		n = strlen(src);
	} else { /* run by hand: the source tree from this file's path */
		const char *end = strstr(__FILE__, "tests/unit/test_demangle.c");

		assert_non_null(end);
		src = __FILE__;
		n = (size_t)(end - src);
	}
	path = malloc(n + strlen(rel) + 2);
	assert_non_null(path);
	memcpy(path, src, n);
	path[n] = '\0';
	if (n && path[n - 1] != '/')
		strcat(path, "/");
	strcat(path, rel);
	return path;
}

/* A tab-separated fixture: raw<TAB>want, see fixtures/demangle/README.md. */
static void table_load(struct table *t, const char *rel, int perf, int noparams_same)
{
	char *path = source_path(rel);
	FILE *f = fopen(path, "rb");
	long size;
	char *p, *line;

	if (!f)
		fail_msg("cannot open %s", path);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	size = ftell(f);
	assert_true(size > 0);
	rewind(f);
	t->text = malloc((size_t)size + 1);
	assert_non_null(t->text);
	assert_int_equal(fread(t->text, 1, (size_t)size, f), (size_t)size);
	t->text[size] = '\0';
	fclose(f);
	free(path);

	t->perf = perf;
	t->noparams_same = noparams_same;
	t->count = 0;
	t->rows = calloc((size_t)size / 8 + 1, sizeof(*t->rows));
	assert_non_null(t->rows);
	for (line = t->text; *line; line = p) {
		struct row *r = &t->rows[t->count++];
		char *tab;

		p = strchr(line, '\n');
		assert_non_null(p); /* every line ends with \n */
		*p++ = '\0';
		tab = strchr(line, '\t');
		assert_non_null(tab);
		*tab = '\0';
		r->raw = line;
		r->want = tab + 1;
		assert_null(strchr(r->want, '\t'));
	}
}

static void table_free(struct table *t)
{
	free(t->rows);
	free(t->text);
}

/* raw -> want through mode, where want == raw means "not demangled" (NULL). 1 if right. */
static int check(const char *raw, enum t2f_demangle_mode mode, const char *want, int quiet)
{
	char *d = t2f_demangle(raw, mode);
	int ok;

	if (strcmp(want, raw) == 0)
		ok = d == NULL;
	else
		ok = d != NULL && strcmp(d, want) == 0;
	if (!ok && !quiet)
		print_message("%s %s\n  got  %s\n  want %s\n",
			      mode == T2F_DEMANGLE_FULL ? "FULL" : "NO_PARAMS", raw, d ? d : "(NULL)",
			      strcmp(want, raw) == 0 ? "(NULL)" : want);
	free(d);
	return ok;
}

static size_t table_check(const struct table *t, int quiet)
{
	size_t i, bad = 0;

	for (i = 0; i < t->count; i++) {
		const struct row *r = &t->rows[i];
		char *d;

		if (t->perf) {
			bad += !check(r->raw, T2F_DEMANGLE_NO_PARAMS, r->want, quiet);
			continue;
		}
		bad += !check(r->raw, T2F_DEMANGLE_FULL, r->want, quiet);
		if (t->noparams_same) {
			bad += !check(r->raw, T2F_DEMANGLE_NO_PARAMS, r->want, quiet);
			continue;
		}
		/* C++: NO_PARAMS demangles exactly the names FULL does */
		d = t2f_demangle(r->raw, T2F_DEMANGLE_NO_PARAMS);
		if ((d == NULL) != (strcmp(r->raw, r->want) == 0)) {
			bad++;
			if (!quiet)
				print_message("NO_PARAMS %s: %s\n", r->raw, d ? d : "(NULL)");
		}
		free(d);
	}
	return bad;
}

static void test_table_workload(void **state)
{
	struct table t;
	size_t i, mangled = 0;

	(void)state;
	table_load(&t, "fixtures/demangle/workload.cxxfilt.txt", 0, 0);
	assert_true(t.count >= 70);
	for (i = 0; i < t.count; i++)
		mangled += strncmp(t.rows[i].raw, "_Z", 2) == 0 &&
			   strcmp(t.rows[i].want, t.rows[i].raw) != 0;
	assert_true(mangled >= 60);
	assert_int_equal(table_check(&t, 0), 0);
	table_free(&t);
}

static void test_table_rwork_v0(void **state)
{
	struct table t;
	size_t i, mangled = 0;

	(void)state;
	table_load(&t, "fixtures/demangle/rwork_v0.cxxfilt.txt", 0, 1);
	assert_true(t.count >= 700);
	for (i = 0; i < t.count; i++)
		mangled += strncmp(t.rows[i].raw, "_R", 2) == 0 &&
			   strcmp(t.rows[i].want, t.rows[i].raw) != 0;
	assert_true(mangled >= 700);
	assert_int_equal(table_check(&t, 0), 0);
	table_free(&t);
}

static void test_table_perf_pairs(void **state)
{
	struct table t;

	(void)state;
	table_load(&t, "fixtures/demangle/perf_pairs.txt", 1, 0);
	assert_true(t.count >= 100);
	assert_int_equal(table_check(&t, 0), 0);
	table_free(&t);
}

static void test_garbage_mutations(void **state)
{
	struct table a, b;
	char **names;
	size_t i, n = 0;

	(void)state;
	table_load(&a, "fixtures/demangle/workload.cxxfilt.txt", 0, 0);
	table_load(&b, "fixtures/demangle/rwork_v0.cxxfilt.txt", 0, 1);
	names = malloc((a.count + b.count) * sizeof(*names));
	assert_non_null(names);
	for (i = 0; i < a.count; i++)
		names[n++] = a.rows[i].raw;
	for (i = 0; i < b.count; i++)
		names[n++] = b.rows[i].raw;
	mutate_all(names, n);
	free(names);
	table_free(&a);
	table_free(&b);
}

/* ---- threads ---- */

struct job {
	const struct table *tabs[3];
	size_t bad;
};

static void *worker(void *arg)
{
	struct job *j = arg;
	char name[2048];
	int round, k;

	for (round = 0; round < 3; round++) {
		for (k = 0; k < 3; k++)
			j->bad += table_check(j->tabs[k], 1);
		/* the longjmp path too */
		cxx_double(name, 40);
		j->bad += t2f_demangle(name, T2F_DEMANGLE_FULL) != NULL;
		rust_double(name, 40);
		j->bad += t2f_demangle(name, T2F_DEMANGLE_FULL) != NULL;
	}
	return NULL;
}

static void test_threads(void **state)
{
	struct table t[3];
	struct job jobs[4];
	pthread_t th[4];
	int i;

	(void)state;
	table_load(&t[0], "fixtures/demangle/workload.cxxfilt.txt", 0, 0);
	table_load(&t[1], "fixtures/demangle/rwork_v0.cxxfilt.txt", 0, 1);
	table_load(&t[2], "fixtures/demangle/perf_pairs.txt", 1, 0);
	for (i = 0; i < 4; i++) {
		jobs[i].tabs[0] = &t[0];
		jobs[i].tabs[1] = &t[1];
		jobs[i].tabs[2] = &t[2];
		jobs[i].bad = 0;
		assert_int_equal(pthread_create(&th[i], NULL, worker, &jobs[i]), 0);
	}
	for (i = 0; i < 4; i++) {
		assert_int_equal(pthread_join(th[i], NULL), 0);
		assert_int_equal(jobs[i].bad, 0);
	}
	for (i = 0; i < 3; i++)
		table_free(&t[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_literals),
		cmocka_unit_test(test_at_suffix),
		cmocka_unit_test(test_special_names),
		cmocka_unit_test(test_not_mangled),
		cmocka_unit_test(test_noparams_trailing_bytes),
		cmocka_unit_test(test_none_mode),
		cmocka_unit_test(test_garbage_random),
		cmocka_unit_test(test_garbage_long),
		cmocka_unit_test(test_garbage_mutations),
		cmocka_unit_test(test_exponential_output),
		cmocka_unit_test(test_table_workload),
		cmocka_unit_test(test_table_rwork_v0),
		cmocka_unit_test(test_table_perf_pairs),
		cmocka_unit_test(test_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
