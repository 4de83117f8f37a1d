#!/bin/sh
# The conversion's threads under ThreadSanitizer: TRACE2FLAME is a -DT2F_TSAN=ON build (tools/test
# makes one under CI and runs the tests labelled tsan there). A recording made here of many short
# processes (cpu-clock every 40 us while 150 shells run one after another: some 25,000 samples,
# three batches of the perf.data reader's second thread, 150 threads appearing all along, so that
# the reading thread adds threads while the other adds samples) is converted
#   - from the perf.data file to folded (-j 1, -j 2), pprof and speedscope (-j 2);
#   - as perf script text in small segments (-j 4), to folded and to pprof (whose merges append
#     cells that a thread of their own adds up while the resolve stage runs);
#   - twice in one --each run;
# and a --call-graph dwarf recording of spin larger than a window (-j 2, and libdwfl's unwinder);
# each run must succeed with no ThreadSanitizer report, and the outputs of every -j be the same.
# A build before the fold table's fix (profile cell threads asked by the reading thread) reported
# its race on each of 5 runs of such a recording.
# usage: sh tests/tsan.sh TRACE2FLAME
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
t2f_init .. 1 "$@"
need_perf_record
export TSAN_OPTIONS="halt_on_error=1:exitcode=66"
export T2F_CACHE_DIR="$TMP/cache"

if ! perf record -q -e cpu-clock -c 40000 -g -o "$TMP/many.data" -- sh -c \
	'for i in $(seq 150); do sh -c "i=0; while [ \$i -lt 1500 ]; do i=\$((i+1)); done"; done' \
	>"$TMP/rec.err" 2>&1; then
	bad "perf record failed: $(head -3 "$TMP/rec.err")"
	finish
fi

# run WHAT ARGS...: trace2flame ARGS succeeds without a ThreadSanitizer report
run() {
	_what=$1
	shift
	if t2f "$@" >"$TMP/out" 2>"$TMP/err" && ! grep -q ThreadSanitizer "$TMP/err"; then
		ok
	else
		bad "$_what: trace2flame $*:"
		grep -A12 ThreadSanitizer "$TMP/err" | head -24 | sed 's/^/    /'
		grep -v ThreadSanitizer "$TMP/err" | head -3 | sed 's/^/    /'
	fi
}

run "folded -j 1" -j 1 "$TMP/many.data" -o "$TMP/j1.folded"
run "folded -j 2" -j 2 "$TMP/many.data" -o "$TMP/j2.folded"
same_nonempty folded "-j 1 and -j 2" "$TMP/j1.folded" "$TMP/j2.folded" "< -j 1, > -j 2"
run "pprof" -j 2 "$TMP/many.data" -o "$TMP/many.pb.gz"
run "speedscope" -j 2 "$TMP/many.data" -o "$TMP/many.speedscope.json"
perf script -i "$TMP/many.data" >"$TMP/many.txt" 2>/dev/null
T2F_SEGMENT_SIZE=65536 run "text -j 4" -j 4 --no-inline "$TMP/many.txt" -o "$TMP/text.folded"
t2f -j 1 --no-inline "$TMP/many.txt" -o "$TMP/text1.folded" 2>/dev/null
same_nonempty text "-j 1 and -j 4" "$TMP/text1.folded" "$TMP/text.folded" "< -j 1, > -j 4"
# pprof: the merges append cells, added up on a thread of their own beside the resolve stage
T2F_SEGMENT_SIZE=65536 run "text pprof -j 4" -j 4 --no-inline "$TMP/many.txt" -o "$TMP/text.pb.gz"
t2f -j 1 --no-inline "$TMP/many.txt" -o "$TMP/text1.pb.gz" 2>/dev/null
same_nonempty "text pprof" "-j 1 and -j 4" "$TMP/text1.pb.gz" "$TMP/text.pb.gz" "< -j 1, > -j 4"
mkdir "$TMP/each" && cp "$TMP/many.data" "$TMP/again.data"
run "--each" -j 2 --each -o "$TMP/each" "$TMP/many.data" "$TMP/again.data"
same_nonempty --each "the two copies" "$TMP/each/many.folded" "$TMP/each/again.folded" "< first, > second"

# A --call-graph dwarf recording larger than the perf.data reader's window, read in blocks and
# mapped (T2F_PERF_DATA_MAP): read, its thread reads the next block into a second buffer while
# one is decoded; mapped, it maps the next window while the stacks of the one before are walked
# in place, by the walk and by libdwfl's unwinder on -j threads.
if ${CC:-cc} -O1 -g -o "$TMP/spin" "$SRC/fixtures/perf-data/spin.c" &&
	perf record -q --call-graph dwarf -F 999 -e cpu-clock -o "$TMP/dwarf.data" -- \
		"$TMP/spin" 700 >"$TMP/rec.err" 2>&1; then
	T2F_PERF_DATA_MAP=0 run "dwarf read -j 2" -j 2 "$TMP/dwarf.data" -o "$TMP/dwarf2.folded"
	T2F_PERF_DATA_MAP=1 run "dwarf mapped -j 2" -j 2 "$TMP/dwarf.data" -o "$TMP/dwarfm.folded"
	T2F_PERF_DATA_MAP=1 run "dwarf mapped, libdwfl -j 2" -j 2 --unwind-libdwfl "$TMP/dwarf.data" \
		-o "$TMP/dwarfl.folded"
	t2f -j 1 "$TMP/dwarf.data" -o "$TMP/dwarf1.folded" 2>/dev/null
	same_nonempty dwarf "-j 1 and -j 2" "$TMP/dwarf1.folded" "$TMP/dwarf2.folded" "< -j 1, > -j 2"
	same_nonempty dwarf "read and mapped" "$TMP/dwarf2.folded" "$TMP/dwarfm.folded" "< read, > mapped"
else
	bad "the dwarf recording: $(head -3 "$TMP/rec.err")"
fi
finish
