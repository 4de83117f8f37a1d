#!/bin/sh
# --time, --pids, --tids and --comms select the samples perf script selects: on a perf.data file
# recorded here (perf record -e cpu-clock -F 999 -g of a shell running two copies of
# fixtures/perf-data/mt.c: three processes, named threads), the folded output of
#   trace2flame X.data FILTER                         (the perf.data route)
#   perf script --header --ns -F +pid -i X.data | trace2flame - FILTER    (text, one thread)
#   the same text with parser threads (-j2, 4 KiB segments)
#   perf script --header -i X.data | trace2flame - FILTER  (perf's default text, times in µs:
#                                                      absolute ranges, tids and comms)
# must equal trace2flame's folding of `perf script -i X.data PERF-FILTER` (the oracle: perf's own
# selection, folded by the same code). Each filter must leave some samples out and keep some,
# and --stats must count the samples left out as the oracle's missing ones.
#
# Text and exact times: perf prints sample times in µs by default and its header's "time of
# first/last sample" lines in µs always. Absolute bounds here are a printed sample time + 1 µs,
# which no printed time equals, so the µs text selects what perf selects on ns. Percentages are
# of the recording's span: the ns text's header lines are rewritten with the first and last
# sample times it prints (ns, what the perf.data header holds), so the text route is exact too;
# with µs header lines a sample within a microsecond of a bound may fall differently
# (docs/usage.md says so; tests/unit/test_session_filter.c reads µs header lines).
# Skipped (with a message) when perf is missing or may not record.
#
# usage: sh tests/perf_time_filter.sh TRACE2FLAME
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
t2f_init .. 1 "$@"
need_perf_record
CC=${CC:-cc}
FP="-O1 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer"
# shellcheck disable=SC2086 # FP: several options
if ! $CC $FP -shared -fPIC -o "$TMP/libmtlib.so" "$SRC/fixtures/perf-data/mtlib.c" ||
	! $CC $FP -o "$TMP/mt" "$SRC/fixtures/perf-data/mt.c" -L"$TMP" -lmtlib \
		-Wl,-rpath,"$TMP" -pthread; then
	bad "cannot build fixtures/perf-data/mt.c and mtlib.c"
	finish
	exit
fi
D=$TMP/m.data
if ! perf record -q -e cpu-clock -F 999 -g -o "$D" -- \
	sh -c "'$TMP/mt' 700 & '$TMP/mt' 600; wait" >"$TMP/rec" 2>&1; then
	bad "perf record failed: $(head -3 "$TMP/rec")"
	finish
	exit
fi
perf script --header -i "$D" 2>/dev/null >"$TMP/us.txt"
perf script --header --ns -F +pid -i "$D" 2>/dev/null >"$TMP/ns0.txt"
# the sample headers' times (ns) in order, from the ns text: "COMM PID/TID SECONDS.NS: ..."
sed -n 's/^[^\t#].* \([0-9][0-9]*\)\.\([0-9]\{9\}\): .*/\1\2/p' "$TMP/ns0.txt" >"$TMP/times"
N=$(wc -l <"$TMP/times")
if [ "$N" -lt 100 ]; then
	bad "only $N samples recorded (want 100 or more)"
	finish
	exit
fi
FIRST=$(sort -n "$TMP/times" | head -1)
LAST=$(sort -n "$TMP/times" | tail -1)
# ns text with the header's span in ns
awk -v f="$FIRST" -v l="$LAST" '
	function ns(t) { return substr(t, 1, length(t) - 9) "." substr(t, length(t) - 8) }
	/^# time of first sample :/ { print "# time of first sample : " ns(f); next }
	/^# time of last sample :/ { print "# time of last sample : " ns(l); next }
	{ print }' "$TMP/ns0.txt" >"$TMP/ns.txt"
grep -q "^# time of first sample : [0-9]*\.[0-9]\{9\}$" "$TMP/ns.txt" ||
	bad "perf script --header printed no \"time of first sample\" line"

# at P: the printed (µs) time of the sample at P% of the list, plus 1 µs, as perf reads seconds;
# the next sample's instead while another sample is printed at that µs (two CPUs' samples may
# be less than 2 µs apart: perf on ns leaves out one the µs text, which shows the bound, keeps)
at() {
	awk -v k="$((N * $1 / 100 + 1))" '
		{ us[NR] = sprintf("%.0f", substr($0, 1, length($0) - 3)); seen[us[NR]] = 1 } # below 2^53
		END {
			for (; k <= NR; k++) {
				s = sprintf("%.0f", us[k] + 1)
				if (!(s in seen))
					break
			}
			print substr(s, 1, length(s) - 6) "." substr(s, length(s) - 5)
		}' "$TMP/times"
}
A=$(at 20) B=$(at 55) C=$(at 80)

# the processes and threads: an mt's pid and the tid of its thread mt-worker-2, from that
# thread's samples (mt's main thread sleeps: it may have none)
MTPID=$(sed -n 's/^mt-worker-2  *\([0-9]*\)\/[0-9]* .*/\1/p' "$TMP/ns0.txt" | head -1)
WTID=$(sed -n "s/^mt-worker-2  *$MTPID\/\([0-9]*\) .*/\1/p" "$TMP/ns0.txt" | head -1)
if [ -z "$MTPID" ] || [ -z "$WTID" ]; then
	bad "no sample of mt's thread mt-worker-2 in the recording"
	finish
	exit
fi

# samples FILE: the sample headers of perf script text
samples() { grep -c '^[^[:space:]#]' "$1"; }
ALL=$(samples "$TMP/ns0.txt")
t2f --no-inline -q "$D" -o "$TMP/all.folded" 2>/dev/null

# case_ NAME PERF-ARGS TRACE2FLAME-ARGS [us]: the routes against the oracle (the arguments as
# shell words, quoted inside)
case_() {
	_n=$1 _p=$2 _t=$3
	eval "perf script -i \"\$D\" $_p" 2>/dev/null >"$TMP/$_n.oracle.txt"
	_kept=$(samples "$TMP/$_n.oracle.txt")
	if [ "$_kept" -eq 0 ] || [ "$_kept" -ge "$ALL" ]; then
		bad "$_n: perf script $_p keeps $_kept of $ALL samples: the case tests nothing"
		return
	fi
	t2f --no-inline -q - -o "$TMP/$_n.oracle.folded" <"$TMP/$_n.oracle.txt"
	if cmp -s "$TMP/$_n.oracle.folded" "$TMP/all.folded"; then
		bad "$_n: the oracle equals the unfiltered output"
	fi
	if eval "t2f --no-inline --stats \"\$D\" $_t -o \"\$TMP/\$_n.data.folded\"" \
		2>"$TMP/$_n.stats"; then
		same_nonempty "$_n" "perf.data $_t" "$TMP/$_n.oracle.folded" "$TMP/$_n.data.folded" \
			"< perf script $_p, > perf.data route"
		_f=$(sed -n 's/.*dropped (filtered out[^:]*): \([0-9]*\)$/\1/p' "$TMP/$_n.stats")
		if [ "$_f" = $((ALL - _kept)) ]; then ok; else
			bad "$_n: --stats says ${_f:-no} samples filtered out, perf left out" \
				"$((ALL - _kept))"
		fi
	else
		bad "$_n: trace2flame $D $_t: $(head -3 "$TMP/$_n.stats")"
	fi
	eval "t2f --no-inline -q -j1 - $_t" >"$TMP/$_n.text.folded" <"$TMP/ns.txt" \
		2>"$TMP/$_n.err" ||
		bad "$_n: trace2flame - $_t (ns text): $(head -3 "$TMP/$_n.err")"
	same_nonempty "$_n" "text $_t" "$TMP/$_n.oracle.folded" "$TMP/$_n.text.folded" \
		"< perf script $_p, > ns text route"
	(export T2F_SEGMENT_SIZE=4096 && eval "t2f --no-inline -q -j2 - $_t") \
		>"$TMP/$_n.par.folded" <"$TMP/ns.txt" 2>"$TMP/$_n.err" ||
		bad "$_n: trace2flame -j2 - $_t (ns text): $(head -3 "$TMP/$_n.err")"
	same_nonempty "$_n" "text -j2 $_t" "$TMP/$_n.oracle.folded" "$TMP/$_n.par.folded" \
		"< perf script $_p, > ns text with parser threads"
	[ "${4:-}" = us ] || return 0
	eval "t2f --no-inline -q - $_t" >"$TMP/$_n.us.folded" <"$TMP/us.txt" 2>"$TMP/$_n.err" ||
		bad "$_n: trace2flame - $_t (µs text): $(head -3 "$TMP/$_n.err")"
	same_nonempty "$_n" "µs text $_t" "$TMP/$_n.oracle.folded" "$TMP/$_n.us.folded" \
		"< perf script $_p, > default text route"
}

case_ abs "--time $A,$B" "--time $A,$B" us
case_ abs-open-start "--time ,$B" "--time ,$B" us
case_ abs-open-end "--time $C," "--time $C," us
case_ abs-several "--time '$A,$B $C,'" "--time '$A,$B $C,'" us
case_ pct-slice "--time 10%/2" "--time 10%/2"
case_ pct-one "--time 50%" "--time 50%"
case_ pct-dash "--time 0%-10%" "--time 0%-10%"
case_ pct-slices "--time 10%/1,10%/3,10%/8" "--time 10%/1,10%/3,10%/8"
case_ pct-ranges "--time 0%-25%,60%-80%" "--time 0%-25%,60%-80%"
case_ pid "--pid $MTPID" "--pids $MTPID"
case_ pids "--pid $MTPID,1" "--pids 1,$MTPID"
case_ tid "--tid $WTID" "--tids $WTID" us
case_ comm "--comms mt-worker-1" "--comms mt-worker-1" us
case_ comms "--comms mt-worker-2,sh" "--comm mt-worker-2,sh" us
case_ comm-time "--comms mt-worker-1 --time 10%/2,10%/6" \
	"--comms mt-worker-1 --time 10%/2,10%/6"
case_ pid-tid-time "--pid $MTPID --tid $WTID --time ,$C" "--pids $MTPID --tids $WTID --time ,$C"

# every output format takes the filter: each output of the filtered text equals that of perf's
# selection printed the same way
perf script --ns -F +pid -i "$D" --time 10%/2 2>/dev/null >"$TMP/o.txt"
for fmt in speedscope.json pb.gz svg; do
	t2f --no-inline -q - --time 10%/2 -o "$TMP/f.$fmt" <"$TMP/ns.txt" 2>/dev/null
	t2f --no-inline -q - -o "$TMP/o.$fmt" <"$TMP/o.txt" 2>/dev/null
	same_nonempty "$fmt" "text --time 10%/2" "$TMP/o.$fmt" "$TMP/f.$fmt" \
		"< perf's selection, > the filtered text"
done

# percentages need the span: text without the header's lines is refused, saying what to do
perf script -i "$D" 2>/dev/null | t2f - --time 10% -o "$TMP/x.folded" 2>"$TMP/err"
rc=$?
if [ "$rc" = 1 ] && grep -q 'perf script --header prints them' "$TMP/err"; then ok; else
	bad "--time 10% on text without its header: exit $rc, $(head -2 "$TMP/err")"; fi
# a bad range is a usage error naming the option
t2f "$D" --time 10%/0 -o "$TMP/x.folded" 2>"$TMP/err"
rc=$?
if [ "$rc" = 2 ] && grep -q "^trace2flame: --time: '10%/0': expected P%/N" "$TMP/err"; then ok
else bad "--time 10%/0: exit $rc, $(head -2 "$TMP/err")"; fi
finish
