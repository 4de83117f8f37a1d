#!/bin/sh
# tests/dwarf/inline_names.sh: a function has one name whether its symbol names it (the code
# no inlining reached) or DWARF does (an inlined call), so a tally per function does not split
# it. On fixtures/dwarf/names.cc, built here with -O2 -g (std::sort on a small vector, whose
# __insertion_sort and the rest are inlined; app::tally, static in a namespace, and twice, in an
# anonymous namespace, which g++ gives no DW_AT_linkage_name, inlined into main and also called
# through a pointer), on every instruction address inside a function:
#  - `trace2flame resolve --inlines`: every inlined level is named as llvm-symbolizer names it
#    from the linkage name, where it has one (its name has a parameter list); the two functions
#    without a linkage name by their qualified names, "app::tally" and
#    "(anonymous namespace)::twice", which are their out-of-line copies' symbol names, never
#    "tally" or "twice"; no inlined level named as a function's symbol is less its
#    qualification ("__insertion_sort<...>" for "std::__insertion_sort<...>");
#  - a conversion: samples in main's inlined tally and in the out-of-line copy fold to stacks
#    that name it "app::tally" both.
#
# usage: tests/dwarf/inline_names.sh TRACE2FLAME   (env: T2F_SOURCE_DIR)
set -u
bin=$1
src=${T2F_SOURCE_DIR:?}/fixtures/dwarf
for tool in c++ llvm-symbolizer objdump nm readelf python3; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "inline_names: skipped ($tool not found)"
		exit 0
	fi
done
work=$(mktemp -d "${TMPDIR:-/tmp}/t2f-names.XXXXXX")
trap 'rm -rf "$work"' EXIT
failed=0
bad() {
	echo "FAIL $*"
	failed=1
}

prog=$work/names
c++ -O2 -g -o "$prog" "$src/names.cc" || { echo "FAIL c++"; exit 1; }
nm -S --defined-only "$prog" | awk '$3 ~ /^[tTwW]$/ { print $1, $2 }' >"$work/funcs"
objdump -d --no-show-raw-insn -j .text "$prog" | sed -n 's/^ *\([0-9a-f][0-9a-f]*\):.*/\1/p' |
	python3 -c '
import sys
funcs = [tuple(int(x, 16) for x in l.split()) for l in open(sys.argv[1])]
for l in sys.stdin:
    a = int(l, 16)
    if any(v <= a < v + n for v, n in funcs):
        print(hex(a))' "$work/funcs" >"$work/addrs"
xargs "$bin" resolve --inlines "$prog" <"$work/addrs" >"$work/full" 2>/dev/null
xargs "$bin" resolve --inlines --demangle no-params "$prog" <"$work/addrs" >"$work/bare" \
	2>/dev/null
llvm-symbolizer --obj="$prog" -a --inlines <"$work/addrs" >"$work/llvm"

# every function symbol's name, as resolve names it (--demangle no-params)
awk '{ print "0x" $1 }' "$work/funcs" | xargs "$bin" resolve --demangle no-params "$prog" \
	2>/dev/null | cut -f2 | sed 's/+0x[0-9a-f]*$//' | sort -u >"$work/symbols"
python3 - "$work/full" "$work/bare" "$work/llvm" "$work/symbols" <<'PY' || failed=1
import re, sys
full, bare, llvm_out = sys.argv[1:4]

def chains(path):  # resolve --inlines: ADDR<TAB>  name<TAB>file:line, innermost first
    out = {}
    for l in open(path).read().splitlines():
        p = l.split("\t")
        if len(p) == 3 and p[1].startswith("  "):
            out.setdefault(int(p[0], 16), []).append(p[1][2:])
    return out

def llvm_chains(path):  # 0xADDR, then name / file:line:col pairs
    out, cur, lines = {}, None, [l for l in open(path).read().splitlines() if l]
    i = 0
    while i < len(lines):
        if re.fullmatch(r"0x[0-9a-f]+", lines[i]):
            cur = int(lines[i], 16); out[cur] = []; i += 1; continue
        out[cur].append(lines[i]); i += 2
    return out

got, got_bare, llvm = chains(full), chains(bare), llvm_chains(llvm_out)
fails, compared, inlined = [], 0, set()
for a, c in got.items():
    o = llvm.get(a, [])
    for i, name in enumerate(c[:-1]):  # inlined levels (the outermost is spelled apart)
        inlined.add(got_bare[a][i] if i < len(got_bare.get(a, [])) else None)
        if i < len(o) - 1 and "(" in o[i]:
            compared += 1
            if o[i] != name:
                fails.append(f"0x{a:x} level {i}: {name!r}, llvm-symbolizer {o[i]!r}")
ok = True
if compared < 100 or fails:
    print(f"FAIL {len(fails)} of {compared} inlined levels named apart from llvm-symbolizer")
    for f in fails[:8]:
        print("   ", f)
    ok = False
else:
    print(f"inline_names: {compared} inlined levels named as llvm-symbolizer names them")
# one function, two names: an inlined level named as a symbol is, less its qualification
symbols = set(open(sys.argv[4]).read().splitlines())
for n in sorted(x for x in inlined if x):
    for s in symbols:
        if s != n and s.endswith("::" + n):
            print(f"FAIL inlined {n!r}, out of line {s!r}"); ok = False
for want, bare_name in (("app::tally", "tally"), ("(anonymous namespace)::twice", "twice")):
    if want not in inlined:
        print(f"FAIL no inlined level named {want!r}: {sorted(n for n in inlined if n and bare_name in n)}")
        ok = False
    if bare_name in inlined:
        print(f"FAIL an inlined level named {bare_name!r}, unqualified"); ok = False
sys.exit(0 if ok else 1)
PY

# the out-of-line copies' symbol names
for s in tally twice; do
	at=$(nm -C "$prog" | awk -v s="$s" '$2 ~ /^[tT]$/ && index($0, "::" s "(") { print $1; exit }')
	name=$("$bin" resolve --demangle no-params "$prog" "$at" | cut -f2)
	case $s in
	tally) want='app::tally+0x0' ;;
	twice) want='(anonymous namespace)::twice+0x0' ;;
	esac
	[ "$name" = "$want" ] || bad "symbol of $s: '$name', want '$want'"
done

# a conversion: a sample in main where tally is inlined, one in the out-of-line copy
in_main=$(awk -F'\t' '$2 ~ /^  (app::)?tally$/ { print $1 }' "$work/bare" | while read -r a; do
	grep -q "^$a	main+" "$work/bare" && { echo "$a"; break; }
done)
copy=$(nm "$prog" | awk '$3 ~ /tally/ && $2 ~ /^[tT]$/ { print $1; exit }')
id=$(readelf -n "$prog" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
if [ -z "$in_main" ] || [ -z "$copy" ] || [ -z "$id" ]; then
	bad "no address of tally inlined in main ($in_main), of its copy ($copy) or build-id"
else
	{
		printf 'prog   100     1.000100:     1000 cpu-clock: \n'
		printf '\t            %x [unknown] (%s)\n\n' "$in_main" "$prog"
		printf 'prog   100     1.000200:     1000 cpu-clock: \n'
		printf '\t            %x [unknown] (%s)\n\n' "$((0x$copy + 1))" "$prog"
	} >"$work/in.perf.txt"
	echo "$id $prog" >"$work/ids"
	"$bin" --buildids "$work/ids" "$work/in.perf.txt" -o "$work/out.folded" 2>"$work/err" ||
		bad "conversion failed: $(head -n 3 "$work/err")"
	n=$(grep -c ';app::tally' "$work/out.folded")
	if [ "$n" -ne 2 ] || grep -Eq ';tally(;| )' "$work/out.folded"; then
		bad "folded stacks name tally apart:"
		sed 's/^/    /' "$work/out.folded"
	else
		echo "inline_names: app::tally inlined and out of line fold under one name"
	fi
fi
exit $failed
