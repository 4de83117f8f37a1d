#!/bin/sh
# tests/unwind/recorded.sh: --call-graph dwarf user stacks unwound by trace2flame, end to end, on
# recordings made here. The programs of fixtures/unwind (README.md there) are built with
# -O2 -g -fomit-frame-pointer (no frame pointer to follow: only the CFI unwinds them): C with
# threads, recursion and a shared library of its own; the same linked by ld.lld (when installed:
# segments whose file offsets are not page-aligned); C++ with a shared library, virtual calls
# and exceptions; Rust (when rustc is installed); C calling malloc, memcpy, printf and free and
# a library without DWARF whose functions have versioned symbols. Each is recorded with
# `perf record --call-graph dwarf -e cpu-clock --buildid-all`, then (tests/unwind/check.py):
#   - per thread, sample by sample, the frames of the perf.data route (our unwinder) equal those
#     of perf script's text (perf's unwinder) for at least 99% of the samples; both routes name
#     the frames with the same symbolizer (--resymbolize --symbol-rules perf on the text);
#   - the names: per thread, sample by sample, the perf.data route with its inline frames
#     equals perf script's own text with perf's (its names as addr2line gives them: the libc
#     debug file's __GI___libc_malloc, __libc_start_main_impl, the library's stamp_v1) for at
#     least 99% of the samples, perf's symbol versions cut, of which no name of ours has one;
#     not for the C++ program, whose static functions perf names by the order it asked
#     addr2line in (README.md, --call-graph dwarf);
#   - the perf.data route's folded output is the same with -j 1 and -j 2 (read on one thread;
#     read or mapped ahead on a second, T2F_PERF_DATA_MAP=0 and 1), and its speedscope
#     output the same with --unwind-libdwfl (libdwfl's unwinder alone) as through the decoded
#     rules, which walk at least 90% of the samples;
#   - --stats accounts for every sample: unwound to the end or stopped, per reason and module;
#   - the folded stacks follow the call structure of the sources (callers, thread roots,
#     recursion depth) for at least 99% of the samples in the programs' functions.
# Skipped when perf cannot record here.
# usage: sh tests/unwind/recorded.sh TRACE2FLAME
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
t2f_init ../.. 1 "$@"
need_perf_record
pass=0 fail=0
export DEBUGINFOD_URLS=
UX=$SRC/fixtures/unwind
CHECK_PY=$SRC/tests/unwind/check.py
CF="-O2 -g -fomit-frame-pointer -fasynchronous-unwind-tables"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

# build_c NAME [LDFLAGS]: the C program and its library, in $TMP/NAME
# shellcheck disable=SC2086 # CF and LDFLAGS: several flags
build_c() {
	mkdir -p "$TMP/$1" &&
		cc $CF ${2:-} -fPIC -shared -o "$TMP/$1/libwork.so" "$UX/work.c" &&
		cc $CF ${2:-} -pthread -o "$TMP/$1/app" "$UX/app.c" -L"$TMP/$1" -lwork \
			-Wl,-rpath,"$TMP/$1"
}

# build_cc NAME: the C++ program and its library, in $TMP/NAME
# shellcheck disable=SC2086 # CF: several flags
build_cc() {
	mkdir -p "$TMP/$1" &&
		c++ $CF -fPIC -shared -o "$TMP/$1/libcoll.so" "$UX/coll.cc" &&
		c++ $CF -pthread -o "$TMP/$1/app-cc" "$UX/app.cc" -L"$TMP/$1" -lcoll \
			-Wl,-rpath,"$TMP/$1"
}

# build_libc NAME: the C program calling the C library and libstamp.so, in $TMP/NAME; the
# library without -g, its mark_v1 stripped (mark@@STAMP_1 alone names mark)
# shellcheck disable=SC2086 # CF: several flags
build_libc() {
	mkdir -p "$TMP/$1" &&
		cc -O2 -fomit-frame-pointer -fasynchronous-unwind-tables -fPIC -shared \
			-Wl,--version-script="$UX/stamp.map" -o "$TMP/$1/libstamp.so" "$UX/stamp.c" &&
		objcopy --strip-symbol=mark_v1 "$TMP/$1/libstamp.so" &&
		cc $CF -o "$TMP/$1/libc_calls" "$UX/libc_calls.c" -L"$TMP/$1" -lstamp \
			-Wl,-rpath,"$TMP/$1"
}

# record NAME PROGRAM ARGS...: NAME.data, perf script's text of it (without and with its
# inline frames) and its build-ids
record() {
	_n=$1
	shift
	if ! perf record -q --call-graph dwarf -e cpu-clock --buildid-all -o "$TMP/$_n.data" \
		-- "$@" >/dev/null 2>"$TMP/$_n.rec"; then
		bad "$_n: perf record failed: $(head -3 "$TMP/$_n.rec")"
		return 1
	fi
	perf script -i "$TMP/$_n.data" --no-inline >"$TMP/$_n.txt" 2>/dev/null &&
		perf script -i "$TMP/$_n.data" >"$TMP/$_n.inl.txt" 2>/dev/null &&
		perf buildid-list -i "$TMP/$_n.data" >"$TMP/$_n.ids" 2>/dev/null
}

# names NAME [FUNCTION...]: the perf.data route with inline frames against perf script's text
# with perf's, and what each FUNCTION calls in both (check.py names)
names() {
	_d=$TMP/$1
	_n=$1
	shift
	if ! t2f -j 2 --weight samples "$_d.data" -o "$_d.n.json" 2>"$_d.nerr" ||
		! t2f --weight samples - -o "$_d.p.json" <"$_d.inl.txt" 2>>"$_d.nerr"; then
		bad "$_n: names: $(head -3 "$_d.nerr")"
		return
	fi
	py "$_n" names "$_n" "$_d.n.json" "$_d.p.json" "$@"
}

# py NAME CHECK ARGS...: a check of check.py, its lines printed
py() {
	_n=$1
	shift
	if _out=$("$PY" "$CHECK_PY" "$@" 2>&1); then
		ok
		echo "$_out"
	else
		bad "$_n: $1:"
		echo "$_out"
	fi
}

# check NAME: the routes, -j 1 and -j 2, --stats and the call structure of NAME.data
check() {
	_d=$TMP/$1
	if ! t2f -j 1 --no-inline --weight samples --stats "$_d.data" -o "$_d.d.json" \
		2>"$_d.stats"; then
		bad "$1: perf.data route failed: $(grep -v '^ ' "$_d.stats" | head -3)"
		return
	fi
	if ! t2f -j 2 --no-inline --weight samples --resymbolize --symbol-rules perf \
		--buildids "$_d.ids" "$_d.txt" -o "$_d.t.json" 2>"$_d.terr"; then
		bad "$1: text route failed: $(head -3 "$_d.terr")"
		return
	fi
	t2f -j 1 --no-inline --weight samples "$_d.data" -o "$_d.d1.folded" 2>/dev/null
	t2f -j 2 --no-inline --weight samples "$_d.data" -o "$_d.d2.folded" 2>/dev/null
	same_nonempty "$1" "perf.data route -j 1 and -j 2" "$_d.d1.folded" "$_d.d2.folded" \
		"< -j 1, > -j 2"
	for _m in 0 1; do # read, the next block read ahead on a thread; mapped in windows
		T2F_PERF_DATA_MAP=$_m t2f -j 2 --no-inline --weight samples "$_d.data" \
			-o "$_d.m$_m.folded" 2>/dev/null
		same_nonempty "$1" "-j 1 and -j 2 with T2F_PERF_DATA_MAP=$_m" "$_d.d1.folded" \
			"$_d.m$_m.folded" "< -j 1, > -j 2"
	done
	t2f -j 1 --no-inline --weight samples --unwind-libdwfl "$_d.data" -o "$_d.l.json" \
		2>/dev/null
	same_nonempty "$1" "decoded rules and libdwfl's unwinder alone" "$_d.d.json" "$_d.l.json" \
		"< rules, > libdwfl"
	_r=$(sed -n 's/^ *walked through decoded call-frame rules: \([0-9]*\),.*/\1/p' "$_d.stats")
	_u=$(sed -n 's/.*; user stacks unwound: \([0-9]*\) .*/\1/p' "$_d.stats")
	[ -n "$_r" ] && [ -n "$_u" ] && [ $((_r * 10)) -ge $((_u * 9)) ] && ok ||
		bad "$1: ${_r:-?} of ${_u:-?} samples walked through decoded rules, want 90%"
	py "$1" routes "$1" "$_d.d.json" "$_d.t.json"
	py "$1" stats "$1" "$_d.stats" "$_d.d.json"
	py "$1" calls "$1" "$_d.d1.folded"
}

if build_c c; then
	record c "$TMP/c/app" 25000 && { check c; names c; }
else
	bad "c: building fixtures/unwind/app.c and work.c failed"
fi
if ! command -v ld.lld >/dev/null 2>&1; then
	echo "$TEST_NAME: c-lld: ld.lld not found (Debian lld): skipped"
elif build_c c-lld -fuse-ld=lld; then
	record c-lld "$TMP/c-lld/app" 25000 && { check c-lld; names c-lld; }
else
	bad "c-lld: building fixtures/unwind/app.c and work.c with ld.lld failed"
fi
if build_cc cc; then
	record cc "$TMP/cc/app-cc" 2000 && check cc
else
	bad "cc: building fixtures/unwind/app.cc and coll.cc failed"
fi
if ! rustc --version >/dev/null 2>&1; then
	echo "$TEST_NAME: rs: no working rustc: skipped"
elif rustc -C opt-level=2 -C force-frame-pointers=no -g -o "$TMP/app-rs" "$UX/app.rs" \
	2>"$TMP/rs.build"; then
	record rs "$TMP/app-rs" 8000 && { check rs; names rs; }
else
	bad "rs: rustc fixtures/unwind/app.rs failed: $(head -3 "$TMP/rs.build")"
fi
if build_libc libc; then
	record libc "$TMP/libc/libc_calls" 500000 && { check libc; names libc churn; }
else
	bad "libc: building fixtures/unwind/libc_calls.c and stamp.c failed"
fi
finish
