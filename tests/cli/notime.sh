#!/bin/sh
# `perf script -F` without the time field (fixtures/perf-script/notime/: one real recording
# printed with times and with several -F sets): each converts to what the text with times gives.
#   - -F comm,tid,ip,sym,dso (call chains; one-line samples too): the same folded stacks and the
#     same speedscope profiles, samples in the same order (the timeline), as the text with times
#     weighted by sample count; the same flame chart; a pprof profile; by 1 and 3 threads in
#     small segments
#   - -F comm,pid,tid,period,event,...: the same as the text with times, periods as weights
#   - -F ip,dso (no header: an empty line, then the call chain): every sample, an unknown
#     thread's, with one frame per printed frame line
# usage: sh tests/cli/notime.sh TRACE2FLAME
. "$(dirname "$0")/common.sh"

cd notime || exit 1

# conv NAME INPUT ARGS...: trace2flame INPUT ARGS -o $TMP/NAME; exit 0 and nothing on stderr
conv() {
	_name=$1 _in=$2
	shift 2
	expect 0 "$_in $*" "$_in" "$@" -o "$TMP/$_name" || return 1
	if [ -s "$TMP/err" ]; then bad "$_in $*: stderr: $(head -n 1 "$TMP/err")"; else ok; fi
}

# without its input's name, which speedscope files hold
unnamed() { sed 's/"name":"[^"]*\.perf\.txt"//' "$1"; }

# --- call chains, -F comm,tid,ip,sym,dso ------------------------------------------------------------
for f in folded speedscope.json svg; do
	conv "ref.$f" burner.perf.txt --weight samples
	conv "ct.$f" burner.comm-tid.perf.txt
done
conv ct.pb.gz burner.comm-tid.perf.txt
same "comm,tid: folded" "$TMP/ref.folded" "$TMP/ct.folded"
unnamed "$TMP/ref.speedscope.json" >"$TMP/ref.ss"
unnamed "$TMP/ct.speedscope.json" >"$TMP/ct.ss"
same "comm,tid: speedscope (each thread's samples in input order)" "$TMP/ref.ss" "$TMP/ct.ss"
same "comm,tid: SVG" "$TMP/ref.svg" "$TMP/ct.svg"
file_has "comm,tid: the comm with digit words" "$TMP/ct.folded" '^1234_5678;'
file_has "comm,tid: the comm ending in a digit word" "$TMP/ct.folded" '^V8_Worker_12;'
conv ref.chart.svg burner.perf.txt --weight samples --flamechart
conv ct.chart.svg burner.comm-tid.perf.txt --flamechart
same "comm,tid: flame chart" "$TMP/ref.chart.svg" "$TMP/ct.chart.svg"
for j in 1 3; do
	T2F_SEGMENT_SIZE=1000 conv "ct$j.folded" burner.comm-tid.perf.txt -j "$j"
	same "comm,tid: -j $j, small segments" "$TMP/ref.folded" "$TMP/ct$j.folded"
	T2F_SEGMENT_SIZE=1000 conv "ct$j.speedscope.json" burner.comm-tid.perf.txt -j "$j"
	unnamed "$TMP/ct$j.speedscope.json" >"$TMP/ct$j.ss"
	same "comm,tid: -j $j, speedscope" "$TMP/ref.ss" "$TMP/ct$j.ss"
done

# --- -F comm,pid,tid,period,event,ip,sym,dso --------------------------------------------------
conv ref-period.folded burner.perf.txt
conv pe.folded burner.period-event.perf.txt
same "period,event: folded" "$TMP/ref-period.folded" "$TMP/pe.folded"
conv pe.tid.folded burner.period-event.perf.txt --tid
file_has "period,event: pid/tid" "$TMP/pe.tid.folded" '^1234_5678-12734/12737;'

# --- -F ip,dso: no header --------------------------------------------------------------------------
expect 0 "-F ip,dso" burner.ip-dso.perf.txt -o "$TMP/ip.folded"
samples=$(awk '/^\t/ && !in_chain { n++ } { in_chain = /^\t/ } END { print n }' burner.ip-dso.perf.txt)
frames=$(grep -c "$(printf '^\t')" burner.ip-dso.perf.txt)
set -- $(awk '{ n = split($1, a, ";"); s += $NF; d += n * $NF } END { print s + 0, d + 0 }' \
	"$TMP/ip.folded")
if [ "$samples" -eq 60 ] && [ "$1" -eq "$samples" ]; then ok; else
	bad "-F ip,dso: $1 samples written, the text has $samples (60)"
fi
# every sample: its thread, "[unknown]", then one frame per frame line
if [ "$2" -eq $((samples + frames)) ]; then ok; else
	bad "-F ip,dso: $2 frames written over all samples, want $samples + $frames"
fi
if grep -qv '^\[unknown\];' "$TMP/ip.folded"; then bad "-F ip,dso: a root that is not [unknown]"; else ok; fi

# --- one-line samples (no call graph) ----------------------------------------------------------------
conv nref.folded nocg.perf.txt --weight samples
conv nct.folded nocg.comm-tid.perf.txt
same "one-line, comm,tid: folded" "$TMP/nref.folded" "$TMP/nct.folded"
conv nref.speedscope.json nocg.perf.txt --weight samples
conv nct.speedscope.json nocg.comm-tid.perf.txt
unnamed "$TMP/nref.speedscope.json" >"$TMP/nref.ss"
unnamed "$TMP/nct.speedscope.json" >"$TMP/nct.ss"
same "one-line, comm,tid: speedscope" "$TMP/nref.ss" "$TMP/nct.ss"

finish
