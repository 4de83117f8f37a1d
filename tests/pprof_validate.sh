#!/bin/sh
# pprof written by the library (tests/unit/pprof_convert -a, no CLI: every frame keeps its
# address but those in no mapping, as the CLI keeps them for pprof) from every perf script fixture
# and corpus file, checked by the independent validators (Go pprof -raw, protoc, a structure
# checker: tests/validate/check); then, as Go pprof reads it:
#   - its totals per sample type equal the collapsed writer's totals for the same input and
#     event (samples and weights);
#   - its stacks equal the folded output of the CLI (trace2flame -f collapsed --raw-names
#     [--event NAME] [--weight samples]) line for line, per event: tests/pprof_lib.sh rebuilds
#     "thread;root frame;...;leaf" lines with their sample counts and weights from `pprof -raw`
#     (the naming correspondence is described there);
#   - trace2flame -f pprof writes the same bytes as the library.
#
# usage: pprof_validate.sh PATH/TO/pprof_convert [PATH/TO/trace2flame]
# env:   T2F_SOURCE_DIR (default: this script's ..), T2F_BUILD_DIR (trace2flame there in
#        tools/ when not given), T2F_VALIDATORS_DIR (where tools/setup-validators installed
#        the checkers), CI (validators and corpus required)
set -eu
conv=$1
src=${T2F_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
cli=${2:-${T2F_BUILD_DIR:-$src/build}/tools/trace2flame}
check=$src/tests/validate/check
# shellcheck source-path=SCRIPTDIR source=pprof_lib.sh
. "$src/tests/pprof_lib.sh"
find_pprof "$src"
pprof=$PPROF
corpus=$src/../shared/corpus/perf-script
fail=0
n=0
stacks=0
mismatches=0

missing=$("$check" --missing pprof || true)
if [ -n "$missing" ]; then
	if [ "${CI:-}" = true ]; then
		echo "pprof_validate: not installed: $missing (run tools/setup-validators), and" \
			"CI=true requires it" >&2
		exit 1
	fi
	echo "pprof_validate: not installed: $missing: skipped (run tools/setup-validators)"
	exit 0
fi
if [ "${CI:-}" = true ] && [ ! -d "$corpus" ]; then
	echo "pprof_validate: CI=true but no corpus at $corpus" >&2
	exit 1
fi
if [ ! -x "$cli" ]; then
	echo "pprof_validate: no trace2flame at $cli" >&2
	exit 1
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/t2f-pprof.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Sum of each value column of every sample, as Go pprof decodes the file: "c1 c2 ..." per line.
pprof_sums() {
	"$pprof" -raw -symbolize=none "$1" 2>/dev/null | awk '
		/^Samples:/ { on = 1; getline; ncol = NF; next }
		/^Locations/ { on = 0 }
		on && $0 ~ /^ *[0-9]+( +[0-9]+)*: / {
			sub(/:.*/, "")
			for (i = 1; i <= NF; i++) s[i] += $i
		}
		END { for (i = 1; i <= ncol; i++) printf "%.0f\n", s[i] }'
}

folded_sum() {
	awk '{ s += $NF } END { printf "%.0f\n", s }' "$1"
}

# fold OUT ARGS...: the folded output of the current input ($f) for the stack comparison.
fold() {
	_o=$1
	shift
	"$cli" -q -f collapsed --raw-names "$@" -o "$_o" "$f"
}

# Names no fixture has, for the naming correspondence of tests/pprof_lib.sh: ';' in a comm and
# in a function, a trailing " <digits>", an argument list and a template, an unnamed frame in a
# module, inlined frames, two threads of one comm with the same stack (one folded line).
names=$work/names.perf.txt
printf '%s\n' \
	'we;ird name 100 100.000001:    1000 cpu-clock:pppH: ' \
	'	            1100 leaf;semi+0x1 (/opt/app)' \
	'	            1200 worker 12+0x2 (inlined)' \
	'	            1300 ns::f<int, 2>(int, char const*)+0x3 (/opt/app)' \
	'	            1400 [unknown] (/opt/lib.so)' \
	'' \
	'x y 100 101 100.000002:    3000 cpu-clock:pppH: ' \
	'	            1100 leaf;semi+0x1 (/opt/app)' \
	'	            1300 ns::f<int, 2>(int, char const*)+0x3 (/opt/app)' \
	'' \
	'x y 100 102 100.000003:    5000 cpu-clock:pppH: ' \
	'	            1100 leaf;semi+0x1 (/opt/app)' \
	'	            1300 ns::f<int, 2>(int, char const*)+0x3 (/opt/app)' \
	'' >"$names"

for f in "$names" "$src"/fixtures/perf-script/*.perf.txt "$corpus"/*.perf.txt; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	base=$(basename "$f" .perf.txt)
	out=$work/$base.pb.gz
	if ! "$conv" -a "$f" "$out" "$work/$base" >"$work/$base.totals" 2>"$work/$base.err"; then
		echo "FAIL $f: conversion: $(cat "$work/$base.err")"
		fail=$((fail + 1))
		continue
	fi
	if ! "$check" pprof "$out" >"$work/$base.check" 2>&1; then
		echo "FAIL $f: validator:"
		sed 's/^/    /' "$work/$base.check"
		fail=$((fail + 1))
		continue
	fi
	pprof_sums "$out" >"$work/$base.sums"
	events=$(wc -l <"$work/$base.totals")
	cols=$(wc -l <"$work/$base.sums")
	if [ "$cols" -ne $((2 * events)) ]; then
		echo "FAIL $f: $cols value columns for $events events"
		fail=$((fail + 1))
		continue
	fi
	before=$fail
	e=1
	while [ "$e" -le "$events" ]; do
		got_s=$(sed -n "$((2 * e - 1))p" "$work/$base.sums")
		got_w=$(sed -n "$((2 * e))p" "$work/$base.sums")
		want_s=$(folded_sum "$work/$base.$e.samples.folded")
		want_w=$(folded_sum "$work/$base.$e.weight.folded")
		if [ "$got_s" != "$want_s" ] || [ "$got_w" != "$want_w" ]; then
			echo "FAIL $f: event $e: pprof samples $got_s weight $got_w," \
				"collapsed samples $want_s weight $want_w"
			fail=$((fail + 1))
		fi
		e=$((e + 1))
	done
	stacks_check "$out" "$work/$base.st" "FAIL $f: stacks" fold || fail=$((fail + 1))
	stacks=$((stacks + STACKS))
	mismatches=$((mismatches + MISMATCHES))
	if ! "$cli" -q -f pprof -o "$work/$base.cli.pb.gz" "$f" 2>"$work/$base.err"; then
		echo "FAIL $f: trace2flame -f pprof: $(cat "$work/$base.err")"
		fail=$((fail + 1))
	elif ! cmp -s "$out" "$work/$base.cli.pb.gz"; then
		echo "FAIL $f: trace2flame -f pprof differs from the library's pprof"
		fail=$((fail + 1))
	fi
	[ "$fail" -eq "$before" ] && echo "ok   $f: totals $(tr '\n' ' ' <"$work/$base.sums")stacks $STACKS"
done
echo "pprof_validate: $n files, $stacks stacks compared, $mismatches stack mismatches, $fail failures"
[ "$n" -gt 0 ] && [ "$fail" -eq 0 ]
