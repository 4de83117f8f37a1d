#!/bin/sh
# Sample accounting (--stats) for every reader: inputs written here so that each drop reason
# occurs a known number of times; every number is checked: "samples: R read = K kept + D
# dropped" with R = K + D, each reason's count, "written" + "not written (other events)" = K, and
# the output's total weight (written with --weight samples, one unit per sample) = written.
# Also --event (the other events are not written) and --strict (the first drop that warns fails).
#   perf script: plain, gzip, zstd; -j 1 and -j 3 (tiny segments cut through every round)
#   nettrace: V4 and V5 (SampleProfiler) and V6 (Universal cpu / cswitch), by tools/make-nettrace
#   folded stacks
# usage: sh tests/cli/accounting.sh TRACE2FLAME
. "$(dirname "$0")/common.sh"

export T2F_SEGMENT_SIZE=256
PY=/usr/bin/python3

# stat NAME: the number on --stats line NAME of $TMP/err
stat() {
	case $1 in
	read) sed -n 's/^  samples: \([0-9]*\) read = .*/\1/p' "$TMP/err" ;;
	kept) sed -n 's/^  samples: [0-9]* read = \([0-9]*\) kept.*/\1/p' "$TMP/err" ;;
	dropped) sed -n 's/^  samples: .* kept + \([0-9]*\) dropped.*/\1/p' "$TMP/err" ;;
	*) sed -n "s/^    $1: \\([0-9]*\\)\$/\\1/p" "$TMP/err" ;;
	esac
}

# check WHAT READ EMPTY MALFORMED TRUNCATED WRITTEN OTHER CHAINLESS: --stats in $TMP/err, output
# $TMP/out (EMPTY: dropped for an empty stack, as .nettrace's are; CHAINLESS: kept without a call
# chain, their thread alone, as perf script's and folded ones are)
check() {
	_what=$1
	shift
	_got="$(stat read) $(stat 'dropped (empty call chain)') $(stat 'dropped (malformed sample)')"
	_got="$_got $(stat 'dropped (truncated at end of input)') $(stat written)"
	_got="$_got $(stat 'not written (other events)')"
	_got="$_got $(stat 'kept without a call chain (the thread alone)')"
	if [ "$_got" = "$*" ]; then ok; else
		bad "$_what: read/empty/malformed/truncated/written/other/chainless '$_got', want '$*'"
		show_err
	fi
	_k=$(stat kept) _d=$(stat dropped)
	if [ "$_k" -eq $(($1 - $2 - $3 - $4)) ] && [ "$_d" -eq $(($2 + $3 + $4)) ] &&
		[ "$(stat read)" -eq $((_k + _d)) ] && [ "$_k" -eq $(($5 + $6)) ]; then ok; else
		bad "$_what: kept $_k, dropped $_d do not add up"
	fi
	if grep -q MISMATCH "$TMP/err"; then bad "$_what: --stats reports a mismatch"; else ok; fi
	_w=$(awk '{ s += $NF } END { print s + 0 }' "$TMP/out")
	if [ "$_w" -eq "$5" ]; then ok; else bad "$_what: the output weighs $_w, written is $5"; fi
}

# conv ARGS...: trace2flame --stats --weight samples -f collapsed ARGS → $TMP/out, stderr $TMP/err; exit 0
conv() {
	rm -f "$TMP/out"
	if t2f --stats --weight samples -f collapsed -o "$TMP/out" "$@" 2>"$TMP/err"; then ok; else
		bad "trace2flame $*: exit $?"
		show_err
		: >"$TMP/out"
	fi
}

# ---- perf script ------------------------------------------------------------------------------
# Each of R rounds: C cpu-clock samples, P page-faults samples (each with a 2-frame stack), E
# samples without a call chain, F with an unreadable frame line, H lines that are no header
# (each starting a sample of its own); then a cpu-clock sample cut inside its frame line.
R=6 C=5 P=3 E=2 F=2 H=1
perf_input() {
	r=0
	while [ $r -lt $R ]; do
		i=0
		while [ $i -lt $C ]; do
			printf 'prog 10 [000] %d.%06d: 1000 cpu-clock:\n\t401000 foo+0x1 (/bin/prog)\n\t400800 main+0x10 (/bin/prog)\n\n' $r $i
			i=$((i + 1))
		done
		i=0
		while [ $i -lt $P ]; do
			printf 'prog 11 [001] %d.%06d: 1 page-faults:\n\t401100 bar+0x4 (/bin/prog)\n\t400800 main+0x10 (/bin/prog)\n\n' $r $((i + 100))
			i=$((i + 1))
		done
		i=0
		while [ $i -lt $E ]; do
			printf 'prog 10 [000] %d.%06d: 1000 cpu-clock:\n\n' $r $((i + 200))
			i=$((i + 1))
		done
		i=0
		while [ $i -lt $F ]; do
			printf 'prog 10 [000] %d.%06d: 1000 cpu-clock:\n\tzz!! ???\n\t400800 main+0x10 (/bin/prog)\n\n' $r $((i + 300))
			i=$((i + 1))
		done
		i=0
		while [ $i -lt $H ]; do
			printf 'hello world\n\t401000 foo+0x1 (/bin/prog)\n\n'
			i=$((i + 1))
		done
		r=$((r + 1))
	done
	printf 'prog 10 [000] 99.000000: 1000 cpu-clock:\n\t4010'
}
perf_input >"$TMP/acct.perf.txt"
gzip -n -c "$TMP/acct.perf.txt" >"$TMP/acct.perf.txt.gz"
zstd -q -c "$TMP/acct.perf.txt" >"$TMP/acct.perf.txt.zst"
read=$((R * (C + P + E + F + H) + 1))
for f in acct.perf.txt acct.perf.txt.gz acct.perf.txt.zst; do
	for j in 1 3; do
		conv -j $j "$TMP/$f"
		check "$f -j $j" $read 0 $((R * (F + H))) 1 $((R * (C + E))) $((R * P)) $((R * E))
		conv -j $j --event page-faults "$TMP/$f"
		check "$f -j $j --event page-faults" $read 0 $((R * (F + H))) 1 $((R * P)) \
			$((R * (C + E))) $((R * E))
	done
	# the first bad frame line: after C + P samples of 4 lines, E of 2 and its header
	expect 1 "$f --strict" --strict "$TMP/$f" &&
		stderr_has "$f --strict" \
			"^trace2flame: $TMP/acct\\.perf\\.txt[.a-z]*:$((4 * (C + P) + 2 * E + 2)): unreadable frame line"
done

# ---- nettrace ---------------------------------------------------------------------------------
if [ ! -x "$PY" ]; then
	echo "accounting: $PY is needed for tools/make-nettrace"
	[ "${CI:-}" = true ] && bad "python3 missing"
	finish
fi
mk() { # mk NAME ARGS: make-nettrace ARGS < description on stdin → $TMP/NAME.nettrace
	_n=$1
	shift
	"$PY" "$SRC/tools/make-nettrace" "$@" -o "$TMP/$_n.nettrace" - || bad "make-nettrace $_n"
}
# V4/V5: 9 + 4 managed and external samples with stacks on two threads, 3 without a stack
for v in v4 v5; do
	mk $v --flush-bytes 200 <<EOF
format $v
trace pid=1234 cpus=8 rate=1000000
module app 0x7ff0a0002000 /app/App.dll
method run app 0x7ff1c0002000 0x200 App.Program Run "void  ()"
method main app 0x7ff1c0003000 0x100 App.Program Main "int32  (class System.String[])"
sample 1234 1301 count=9 sampler=1290 run+0x40;main+0x20
sample 1234 1302 count=2 sampler=1290 -
sample 1234 1302 count=4 type=external sampler=1290 run+0x80;main+0x20
sample 1234 1301 sampler=1290 -
EOF
	conv "$TMP/$v.nettrace"
	check "$v" 16 3 0 0 13 0 0
	expect 0 "$v --strict" --strict "$TMP/$v.nettrace"
done
# V6: 6 + 2 cpu samples (one of them count=2 value=1), 3 cswitch, 2 cpu and 1 cswitch without a
# stack
mk v6 --flush-bytes 150 <<'EOF'
format v6
trace pid=10 cpus=4 page-size=4096
process 10 prog
thread 10 11 worker-1
sample 10 11 count=6 0x555555555040;0x555555555030
sample 10 12 count=2 cpu=1 value=1 0x555555555044;0x555555555030
cswitch 10 11 count=3 value=1 0x555555555048;0x555555555030
sample 10 11 count=2 -
cswitch 10 12 -
EOF
conv "$TMP/v6.nettrace"
check "v6" 14 3 0 0 8 3 0
conv --event cswitch "$TMP/v6.nettrace"
check "v6 --event cswitch" 14 3 0 0 3 8 0

# ---- folded -----------------------------------------------------------------------------------
# 4 stacks (one with a count of 0, one differential), 2 thread-only lines (no call chain: kept),
# 1 without a count (malformed), comments and empty lines (not samples)
printf '# comment\nprog;main;foo 3\nprog 2\n\nprog;main;bar 0\nnocount here\nprog;main 4 5\nother 1\nprog;main;foo 2\n' \
	>"$TMP/acct.folded"
conv "$TMP/acct.folded"
check "folded" 7 0 1 0 6 0 2
expect 1 "folded --strict" --strict "$TMP/acct.folded" &&
	stderr_has "folded --strict" "^trace2flame: $TMP/acct\\.folded:6: not a folded stack"

finish
