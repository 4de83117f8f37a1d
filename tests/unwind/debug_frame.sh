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
t2f_init ../.. 1 "$@"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
if [ "$(uname -m)" != x86_64 ]; then
	echo "$TEST_NAME: the library is x86_64 assembly, this is $(uname -m): skipping"
	exit 0
fi
for tool in cc objcopy readelf nm "$PY"; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "$TEST_NAME: $tool not found: skipping"
		exit 0
	fi
done
make_tmp
export DEBUGINFOD_URLS=
cd "$TMP" || exit 1

cat >df.s <<'EOF'
	.cfi_sections .debug_frame
	.text
	.globl	top
	.type	top, @function
top:
	.cfi_startproc
	.cfi_undefined rip
	nop
	nop
	call	leaf
	ret
	.cfi_endproc
	.size	top, .-top

	.globl	leaf
	.type	leaf, @function
leaf:
	.cfi_startproc
	nop
	ret
	.cfi_endproc
	.size	leaf, .-leaf
	.section	.comment,"",@progbits
	.zero	16384
	.section	.note.GNU-stack,"",@progbits
EOF
if ! cc -g -shared -nostdlib -Wl,--build-id -o libdf.full.so df.s 2>cc.err; then
	echo "FAIL the library does not build: $(head -3 cc.err)"
	exit 1
fi
id=$(readelf -n libdf.full.so | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
[ ${#id} = 40 ] || bad "libdf.full.so: no 20-byte build-id ($id)"
nm libdf.full.so >syms || bad "nm libdf.full.so"
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

"$PY" - "$SRC/tests" "$TMP/libdf.so" "$id" syms >gen.err 2>&1 <<'EOF' ||
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
import perf_data_gen as g
BASE, SP = 0x7f0000000000, 0x7ffc00001000
sym = {}
for line in open(sys.argv[4]):
    f = line.split()
    if len(f) == 3:
        sym[f[2]] = BASE + int(f[0], 16)
top, leaf = sym["top"], sym["leaf"]
samples = [(top + 1, [0]), (leaf, [top + 7, 0])]  # leaf's return address at sp
open("df.data", "wb").write(g.perf_data(
    b"rules", b"cpu-clock", [(sys.argv[2].encode(), BASE, 5)],
    [(t + 1, pc, SP, words) for t, (pc, words) in enumerate(samples)],
    build_ids=[(sys.argv[2].encode(), bytes.fromhex(sys.argv[3]))], config=0, dwarf=True))
EOF
	bad "perf_data_gen: $(tail -3 gen.err)"

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
