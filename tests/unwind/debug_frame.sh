#!/bin/sh
# tests/unwind/debug_frame.sh: --call-graph dwarf samples in a library whose call-frame rules are
# only in .debug_frame, which only its debug file holds (the library stripped of it; the debug
# file found in a build-id tree by --debug-dir). A library is assembled here (cc) with
# `.cfi_sections .debug_frame`: top, the outermost frame (.cfi_undefined rip), calls leaf (the
# ABI's rules); 16 KiB of .comment keep the debug file's program headers inside it (a small
# file's would point past its end, which the symbolizer refuses). A perf.data file (tests/perf_data_gen.py) maps it, with its build-id, and holds 2
# samples with registers and stack copies: in top, and in leaf called from top.
# With the debug file's .debug_frame, through the decoded rules and with --unwind-libdwfl, both
# stacks are unwound to the end (rules;top, rules;top;leaf). With a debug file stripped of its
# .debug_frame too (the unwinder then never opens its DWARF), and with no debug file at all,
# both ways give the same stacks and counts as each other, and none reaches the end through leaf.
# Skipped when not on x86_64 or without cc, objcopy, readelf, nm or python3.
# usage: sh tests/unwind/debug_frame.sh TRACE2FLAME
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=cfi.sh
. "$(dirname "$0")/cfi.sh"
t2f_init ../.. 1 "$@"
cfi_need objcopy
make_tmp
export DEBUGINFOD_URLS=
cd "$TMP" || exit 1

{
	printf '\t.cfi_sections .debug_frame\n'
	cfi_top_leaf
	printf '\t.section\t.comment,"",@progbits\n\t.zero\t16384\n'
	printf '\t.section\t.note.GNU-stack,"",@progbits\n'
} >df.s
cfi_build df.s libdf.full.so -g
dir=dbg/.build-id/$(echo "$id" | cut -c1-2)
mkdir -p "$dir" nodf/.build-id/"$(echo "$id" | cut -c1-2)"
objcopy --only-keep-debug libdf.full.so "$dir/$(echo "$id" | cut -c3-).debug" &&
	objcopy --remove-section .debug_frame "$dir/$(echo "$id" | cut -c3-).debug" \
		"nodf/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug" &&
	objcopy --strip-debug libdf.full.so libdf.so || bad "objcopy failed"
if readelf -wf libdf.so | grep -q FDE; then
	bad "libdf.so still has call-frame rules: $(readelf -S libdf.so | grep frame)"
fi
readelf -S "$dir/$(echo "$id" | cut -c3-).debug" | grep -q '\.debug_frame' ||
	bad "the debug file has no .debug_frame"

# in top; in leaf called from top (its return address at sp)
cfi_data "$TMP/libdf.so" df.data "top+1 0" "leaf top+7 0"

# run NAME [OPTION...]: the sorted folded stacks and --stats of one conversion into NAME.*
run() {
	_n=$1
	shift
	if ! t2f "$@" df.data -o "$_n.folded" --stats 2>"$_n.stats"; then
		bad "$_n: trace2flame failed: $(head -3 "$_n.stats")"
		return
	fi
	sort "$_n.folded" >"$_n.sorted"
	grep -E 'to the end:|stopped' "$_n.stats" >"$_n.stops"
}

printf '%s\n' "rules;top 1000" "rules;top;leaf 1000" >want.folded
for way in rules libdwfl; do
	opt=
	[ $way = libdwfl ] && opt=--unwind-libdwfl
	run "$way" $opt --debug-dir dbg
	same_nonempty "$TEST_NAME" "$way, .debug_frame in the debug file: folded stacks" \
		"$way.sorted" want.folded "< ours, > expected"
	if grep -qF "to the end: outermost frame reached: 2" "$way.stats"; then
		ok
	else
		bad "$way: not both stacks to the end: $(cat "$way.stops")"
	fi
	run "$way-nodf" $opt --debug-dir nodf
	run "$way-none" $opt
	for v in nodf none; do
		if grep -qF "rules;top;leaf" "$way-$v.folded"; then
			bad "$way-$v: leaf unwound without its rules: $(cat "$way-$v.folded")"
		else
			ok
		fi
	done
done
for v in nodf none; do
	same_nonempty "$TEST_NAME" "$v: decoded rules and libdwfl's unwinder, folded stacks" \
		"rules-$v.sorted" "libdwfl-$v.sorted" "< decoded rules, > libdwfl"
	same_nonempty "$TEST_NAME" "$v: decoded rules and libdwfl's unwinder, stops" \
		"rules-$v.stops" "libdwfl-$v.stops" "< decoded rules, > libdwfl"
done

echo "$TEST_NAME: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
