#!/bin/sh
# pprof written by the library (tests/unit/pprof_convert, no CLI) from every perf script fixture
# and corpus file, checked by the independent validators (Go pprof -raw, protoc, pprof-format:
# ../shared/validators/check), and its totals per sample type compared with the collapsed
# writer's totals for the same input and event (samples and weights), as Go pprof reads them.
#
# usage: pprof_validate.sh PATH/TO/pprof_convert
# env:   T2F_SOURCE_DIR (default: this script's ..), T2F_VALIDATORS (default
#        ~/.cache/t2f-validators, filled by ../shared/validators/setup.sh), CI (corpus required)
set -eu
conv=$1
src=${T2F_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
check=$src/../shared/validators/check
vdir=${T2F_VALIDATORS:-$HOME/.cache/t2f-validators}
pprof=$vdir/bin/pprof
corpus=$src/../shared/corpus/perf-script
fail=0
n=0

if [ ! -x "$check" ] || [ ! -x "$pprof" ]; then
	echo "pprof_validate: validators missing: run ../shared/validators/setup.sh" >&2
	exit 1
fi
if [ "${CI:-}" = true ] && [ ! -d "$corpus" ]; then
	echo "pprof_validate: CI=true but no corpus at $corpus" >&2
	exit 1
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/t2f-pprof.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Sum of each value column of every sample, as Go pprof decodes the file: "c1 c2 ..." per line.
pprof_sums() {
	"$pprof" -raw "$1" 2>/dev/null | awk '
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

for f in "$src"/fixtures/perf-script/*.perf.txt "$corpus"/*.perf.txt; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	base=$(basename "$f" .perf.txt)
	out=$work/$base.pb.gz
	if ! "$conv" "$f" "$out" "$work/$base" >"$work/$base.totals" 2>"$work/$base.err"; then
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
	echo "ok   $f: $(tr '\n' ' ' <"$work/$base.sums")"
done
echo "pprof_validate: $n files, $fail failures"
[ "$n" -gt 0 ] && [ "$fail" -eq 0 ]
