#!/bin/sh
# Real-data corpus for the nettrace container parser: every trace of ../shared/corpus/nettrace
# (beside the project root), unzipped into a temp dir, run through t2f-nettrace-dump.
#
# usage: sh tests/nettrace_parse_corpus.sh T2F-NETTRACE-DUMP
# env:   T2F_SOURCE_DIR  project root (set by ctest; default: this script's parent directory)
#        CI=true         a missing corpus fails instead of being skipped
#
# Per file: the event counts SAMPLES.md gives (total, per provider and event id), every count of
# the PerfView .baseline.txt that names an event our metadata names too (SampleProfiler samples,
# EventSource events), no undecodable row or dangling metadata/stack id, and the same output when
# the file is fed in 4093-byte chunks (1-byte chunks for the smallest file). trace.nettrace is
# truncated: its complete events are kept and a warning names the offset. The NetPerf file is
# refused with "NetPerf (V3 or older) is not supported".
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
t2f_init .. 1 "$@"
corpus=$SRC/../shared/corpus/nettrace
ci=${CI:-}
PY=/usr/bin/python3

if [ ! -f "$corpus/SAMPLES.md" ]; then
	if [ "$ci" = true ]; then
		echo "$TEST_NAME: $corpus not found, and CI=true requires it"
		exit 1
	fi
	echo "$TEST_NAME: $corpus $CORPUS_MISSING: skipping"
	exit 0
fi

make_tmp

# dump NAME [ARGS]: $TMP/NAME.out and $TMP/NAME.err; returns the dump's status
dump() {
	_f=$1
	shift
	t2f "$@" "$TMP/$_f" >"$TMP/$_f.out" 2>"$TMP/$_f.err"
}

# count NAME PROVIDER ID: the dump's count for (provider, event id), 0 when absent
count() {
	awk -F '\t' -v p="$2" -v id="$3" '$2 == p && $3 == id { n += $1 } END { print n + 0 }' \
		"$TMP/$1.out"
}

# stat NAME KEY: a value of the dump's "stats" line
stat() {
	awk -F '\t' -v k="$2" '$1 == "stats" { for (i = 2; i <= NF; i++) { split($i, kv, " ");
		if (kv[1] == k) print kv[2] } }' "$TMP/$1.out"
}

# expect NAME WHAT GOT WANT
expect() {
	if [ "$3" = "$4" ]; then ok; else bad "$1: $2: $3, expected $4"; fi
}

# clean NAME: no undecodable row, no undefined metadata or stack id
clean() {
	for k in bad_rows unknown_meta unknown_stack; do
		expect "$1" "$k" "$(stat "$1" "$k")" 0
	done
}

# baseline NAME MIN: counts of baseline lines "Provider/EventName, N, ..." whose event the dump
# names (EventSource events) or knows by id (SampleProfiler Thread/Sample); at least MIN match
baseline() {
	_b=$corpus/$1.baseline.txt
	[ -f "$_b" ] || return 0
	sed '1s/^\xef\xbb\xbf//' "$_b" | awk -F ', ' '{ print $1 "\t" $2 }' >"$TMP/$1.base"
	awk -F '\t' -v min="$2" '
		FNR == NR && NF == 4 && $1 ~ /^[0-9]+$/ {
			if ($2 == "Microsoft-DotNETCore-SampleProfiler" && $3 == 0)
				got[$2 "/Thread/Sample"] += $1
			else if ($4 != "")
				got[$2 "/" $4] += $1
			next
		}
		FNR == NR { next }
		($1 in got) { n++; if (got[$1] != $2) printf "%s: %s, expected %s\n", $1, got[$1], $2 }
		END { if (n < min) printf "%d baseline lines matched, expected %d\n", n, min }
	' "$TMP/$1.out" "$TMP/$1.base" >"$TMP/$1.diff" 2>&1 || echo "awk failed" >>"$TMP/$1.diff"
	if [ -s "$TMP/$1.diff" ]; then
		bad "$1: differs from its PerfView baseline:"
		head -n 10 "$TMP/$1.diff" | sed 's/^/    /'
	else
		ok
	fi
}

# chunks NAME SIZE: the same output when fed SIZE bytes at a time
chunks() {
	if t2f --chunk "$2" "$TMP/$1" >"$TMP/$1.chunked" 2>/dev/null &&
		cmp -s "$TMP/$1.out" "$TMP/$1.chunked"; then ok; else
		bad "$1: output differs when fed in $2-byte chunks"
	fi
}

# check NAME EVENTS SAMPLES BASELINE_LINES [PROVIDER ID COUNT]...: a complete trace
check() {
	_n=$1 _events=$2 _samples=$3 _lines=$4
	shift 4
	if [ ! -f "$corpus/$_n.zip" ]; then
		bad "$_n.zip is missing from $corpus"
		return
	fi
	(cd "$TMP" && "$PY" -m zipfile -e "$corpus/$_n.zip" .) || { bad "$_n.zip: cannot unzip"; return; }
	if ! dump "$_n"; then
		bad "$_n: t2f-nettrace-dump failed:"
		head -n 5 "$TMP/$_n.err" | sed 's/^/    /'
		return
	fi
	expect "$_n" events "$(stat "$_n" events)" "$_events"
	expect "$_n" truncated "$(stat "$_n" truncated)" 0
	expect "$_n" "SampleProfiler samples" \
		"$(count "$_n" Microsoft-DotNETCore-SampleProfiler 0)" "$_samples"
	while [ $# -ge 3 ]; do
		expect "$_n" "$1/$2" "$(count "$_n" "$1" "$2")" "$3"
		shift 3
	done
	clean "$_n"
	baseline "$_n" "$_lines"
}

RT=Microsoft-Windows-DotNETRuntime
RD=Microsoft-Windows-DotNETRuntimeRundown

check eventpipe-dotnetcore3.0-win-x64-objver4.nettrace 105540 35161 1 "$RT" 143 53
chunks eventpipe-dotnetcore3.0-win-x64-objver4.nettrace 4093
check eventpipe-dotnetcore5.0-win-x64-arraytypes.nettrace 1970 0 3 "$RD" 144 1499
chunks eventpipe-dotnetcore5.0-win-x64-arraytypes.nettrace 4093
check eventpipe-dotnetcore6.0-win-x64-executioncheckpoints.nettrace 3 0 0 "$RD" 300 3
chunks eventpipe-dotnetcore6.0-win-x64-executioncheckpoints.nettrace 1
check mixed_managed_external_samples.nettrace 32247 6331 0 "$RD" 144 483 "$RD" 154 12
chunks mixed_managed_external_samples.nettrace 4093
check only_managed_samples.nettrace 37603 7423 0 "$RD" 144 408
check HeartRateMonitor.10068.nettrace 114565 921 0 "$RD" 144 106881
chunks HeartRateMonitor.10068.nettrace 65521
if grep -q "pointer_size 4" "$TMP/HeartRateMonitor.10068.nettrace.out" 2>/dev/null; then ok; else
	bad "HeartRateMonitor.10068.nettrace: pointer size 4 not reported"
fi

# trace.nettrace: cut inside its last event block
if [ -f "$corpus/trace.nettrace" ]; then
	cp "$corpus/trace.nettrace" "$TMP/trace.nettrace"
	if dump trace.nettrace; then
		expect trace.nettrace events "$(stat trace.nettrace events)" 19911
		expect trace.nettrace "SampleProfiler samples" \
			"$(count trace.nettrace Microsoft-DotNETCore-SampleProfiler 0)" 7338
		expect trace.nettrace truncated "$(stat trace.nettrace truncated)" 1
		expect trace.nettrace truncated_at "$(stat trace.nettrace truncated_at)" 4170673
		clean trace.nettrace
		if grep -q "offset 4170673: the file ends inside a block" "$TMP/trace.nettrace.err"
		then ok; else
			bad "trace.nettrace: no truncation warning with the offset:"
			head -n 5 "$TMP/trace.nettrace.err" | sed 's/^/    /'
		fi
		chunks trace.nettrace 4093
	else
		bad "trace.nettrace: t2f-nettrace-dump failed:"
		head -n 5 "$TMP/trace.nettrace.err" | sed 's/^/    /'
	fi
else
	bad "trace.nettrace is missing from $corpus"
fi

# NetPerf V3: refused
np=eventpipe-dotnetcore2.1-linux-x64-tracelogging.netperf
if [ -f "$corpus/$np.zip" ] && (cd "$TMP" && "$PY" -m zipfile -e "$corpus/$np.zip" .); then
	if dump "$np"; then
		bad "$np: accepted"
	elif grep -q "NetPerf (V3 or older) is not supported" "$TMP/$np.err"; then ok; else
		bad "$np: refused without the NetPerf message:"
		head -n 5 "$TMP/$np.err" | sed 's/^/    /'
	fi
else
	bad "$np.zip is missing from $corpus or cannot be unzipped"
fi

finish
