#!/bin/sh
# Off-CPU and wall-clock time (--event off-cpu, --event wall) on recordings made at test time of
# tests/offcpu/waiter.c (threads that burn, sleep, take turns on a mutex, read a pipe), held to
# tests/offcpu/oracle.py, which computes the same from `perf script --ns --show-switch-events`
# text on its own:
#   task  perf record -e sched:sched_switch -e cpu-clock --switch-events -g    (per task)
#   sys   the same with -a                                    (system-wide; when -a is allowed)
# For each, from the perf.data file and from its text: off-cpu equals the oracle's on >= 99% of
# the weight of the program's threads (thread and stack alike; other programs' frames may be
# named otherwise: argument lists cut, C++ demangled) and per thread, every thread, within 1%; the waits still open at the end
# are the oracle's; wall per thread is on-CPU (cpu-clock ns) + off-CPU within 1%; with
# --off-cpu-state S only sleeping waits count, as in the oracle; -j 1 writes the same bytes as
# the default -j, and from the text (whole and cut short) -j 2 and -j 4 write the same bytes in
# every format, and the same --stats counts, as -j 1, also in 300-byte segments. Per thread, the waits that ended at a recorded sched_switch agree with `perf sched
# timehist`'s wait column within 1% (timehist takes the CPU's previous sched_switch for the
# switch-in: where that was not recorded, as for tasks perf may not sample, it differs; the
# oracle tells those waits apart). A sched_switch payload made unreadable is counted and said.
# With --time ranges (absolute, open, several; percentages, several, overlapping) off-cpu counts
# each wait's part inside them and wall adds the on-CPU samples in them: equal to the oracle's to
# the ns, stack by stack and per thread, from perf.data (-j 1, 4) and from its text (-j 1, 2, 4;
# 2 and 4 also in 300-byte segments), and so do the Firefox profile's off-CPU markers.
# speedscope output of off-cpu and wall is evented, spans at their times: per thread the time
# off-cpu's profiles cover is the oracle's waits (or their parts in the ranges; a wait recorded
# without a call chain is a gap), to the ns, and
# wall's covers every wait and at most the on-CPU time more; speedscope's own importer
# (tests/validate/check) accepts them, when installed.
# Inlined frames are left out (--no-inline): perf script's
# text does not show them.
# Skipped (with a message) when perf is missing or may not record these events.
#
# usage: sh tests/offcpu/offcpu.sh TRACE2FLAME [PART]   (default: all)
#   PART task, sys: a recording's checks but --time's; task-time, sys-time: its --time checks
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
t2f_init ../.. 2 "$@"
PART=${2:-all}
case $PART in
all | task | sys | task-time | sys-time) ;;
*)
	echo "usage: $0 TRACE2FLAME [task|sys|task-time|sys-time]" >&2
	exit 2
	;;
esac
part() { [ "$PART" = all ] || [ "$PART" = "$1" ]; }
need_perf_record
HERE=$SRC/tests/offcpu
find_validators "the speedscope importer's checks skipped" speedscope
if ! command -v python3 >/dev/null 2>&1; then
	echo "$TEST_NAME: python3 not found: skipping"
	exit 0
fi
if ! ${CC:-cc} -O1 -g -fno-omit-frame-pointer -pthread -o "$TMP/waiter" "$HERE/waiter.c" \
	>"$TMP/cc.err" 2>&1; then
	bad "waiter.c does not build: $(head -3 "$TMP/cc.err")"
	finish
fi

EVENTS="-e sched:sched_switch -e cpu-clock --switch-events -g"
# shellcheck disable=SC2086 # EVENTS: several words
if ! perf record -q $EVENTS -o "$TMP/probe2.data" -- true >"$TMP/probe2.err" 2>&1; then
	echo "$TEST_NAME: perf record $EVENTS is not allowed here ($(head -1 "$TMP/probe2.err")):" \
		"skipping"
	exit 0
fi

# stacks compared on the program's threads (other programs' frames may be named otherwise)
oracle() { ORACLE_COMM=waiter python3 "$HERE/oracle.py" "$@"; }

# jobs_same NAME TEXT: off-cpu and wall from $TMP/TEXT in every output format (the Firefox
# profile with its off-CPU markers too), with --stats,
# are the same bytes with -j 2 and -j 4 as with -j 1, in the default segments and in segments of
# 300 bytes (waits then start and end many segments apart); the stats but timings and memory.
jobs_same() {
	_bad=0
	for _ev in off-cpu wall; do
		for _f in folded pb.gz speedscope.json svg profile.json; do
			for _js in 1:0 2:0 4:0 1:300 2:300 4:300; do
				_j=${_js%:*} _s=${_js#*:}
				_o=$TMP/$1.$_ev.$_j.$_s.$_f
				if ! T2F_SEGMENT_SIZE=$_s t2f --no-inline --event "$_ev" --tid --stats \
					-j "$_j" "$TMP/$2" -o "$_o" 2>"$_o.err"; then
					bad "$1: --event $_ev -j $_j (segments $_s) failed: $(head -3 "$_o.err")"
					return
				fi
				grep -v "^  elapsed: \|^  time: \|^  model memory: " "$_o.err" >"$_o.stats"
				cmp -s "$TMP/$1.$_ev.1.0.$_f" "$_o" &&
					cmp -s "$TMP/$1.$_ev.1.0.$_f.stats" "$_o.stats" || {
					bad "$1: --event $_ev -o .$_f -j $_j (segments $_s) differs from -j 1"
					_bad=1
				}
			done
		done
	done
	[ "$_bad" = 1 ] || ok
}

# check NAME: the checks above on $TMP/NAME.data
check() {
	_n=$1
	perf script --ns --show-switch-events -i "$TMP/$_n.data" >"$TMP/$_n.txt" 2>/dev/null ||
		{ bad "$_n: perf script failed"; return; }
	perf sched timehist -i "$TMP/$_n.data" >"$TMP/$_n.th" 2>/dev/null ||
		{ bad "$_n: perf sched timehist failed"; return; }
	_open=$(oracle folded "$TMP/$_n.txt" "$TMP/$_n.oracle" | sed -n 's/^open at the end: //p')
	for _in in "$_n.data" "$_n.txt"; do
		if ! t2f --no-inline --event off-cpu --tid --stats "$TMP/$_in" \
			-o "$TMP/$_in.off.folded" 2>"$TMP/$_in.err"; then
			bad "$_in: --event off-cpu failed: $(head -3 "$TMP/$_in.err")"
			continue
		fi
		if oracle compare "$TMP/$_n.txt" "$TMP/$_in.off.folded" >"$TMP/$_in.cmp"; then
			ok
		else
			bad "$_in: off-cpu differs from the oracle's:"
			grep -v "^open" "$TMP/$_in.cmp" | head -20
		fi
		sed -n 's/^off-cpu: /  '"$_in"': /p' "$TMP/$_in.cmp"
		if grep -q "closed, $_open open at the end" "$TMP/$_in.err"; then
			ok
		else
			bad "$_in: not $_open waits open at the end: $(grep 'off-CPU waits' "$TMP/$_in.err")"
		fi
		for _ev in off-cpu wall; do
			_o=$TMP/$_in.$_ev.speedscope.json
			t2f -q --no-inline --event "$_ev" "$TMP/$_in" -o "$_o" &&
				oracle speedscope "$TMP/$_n.txt" "$_o" \
					"$([ "$_ev" = wall ] && echo wall)" >"$_o.cmp" && ok ||
				{ bad "$_in: --event $_ev speedscope spans differ:"; head -8 "$_o.cmp"; }
			sed -n 's/^speedscope: /  '"$_in $_ev"' speedscope: /p' "$_o.cmp"
			[ "$VALIDATE" = 0 ] || [ "$_in" != "$_n.data" ] ||
				{ "$CHECK" speedscope "$_o" >"$_o.check" 2>&1 && ok ||
				{ bad "$_in: --event $_ev speedscope rejected:"; head -5 "$_o.check"; }; }
		done
		t2f -q --no-inline --event wall --tid "$TMP/$_in" -o "$TMP/$_in.wall.folded" &&
			oracle wall "$TMP/$_n.txt" "$TMP/$_in.wall.folded" >"$TMP/$_in.wcmp" && ok ||
			{ bad "$_in: wall is not on-CPU + off-CPU:"; head -20 "$TMP/$_in.wcmp"; }
		t2f -q --no-inline --event off-cpu --off-cpu-state S --tid "$TMP/$_in" \
			-o "$TMP/$_in.offS.folded" &&
			ORACLE_STATES=S oracle compare "$TMP/$_n.txt" "$TMP/$_in.offS.folded" \
				>"$TMP/$_in.scmp" && ok ||
			{ bad "$_in: --off-cpu-state S differs:"; head -20 "$TMP/$_in.scmp"; }
	done
	t2f -q --no-inline --event off-cpu --tid -j 1 "$TMP/$_n.txt" -o "$TMP/$_n.j1.folded" &&
		cmp -s "$TMP/$_n.j1.folded" "$TMP/$_n.txt.off.folded" && ok || bad "$_n: -j 1 differs from -j N"
	jobs_same "$_n" "$_n.txt"
	# cut short: the waits open at its end counted the same by every -j
	_lines=$(wc -l <"$TMP/$_n.txt")
	head -n $((_lines * 3 / 5)) "$TMP/$_n.txt" >"$TMP/$_n.cut.txt"
	jobs_same "$_n.cut" "$_n.cut.txt"
	if oracle timehist "$TMP/$_n.txt" "$TMP/$_n.th" >"$TMP/$_n.thcmp"; then
		ok
	else
		bad "$_n: per-thread waits differ from perf sched timehist's:"
		head -30 "$TMP/$_n.thcmp"
	fi
	sed -n 's/^timehist: /  '"$_n"': timehist: /p' "$TMP/$_n.thcmp"
	# a sched_switch payload that cannot be read is counted and said, not guessed
	sed '0,/ prev_pid=/s// prev_xid=/' "$TMP/$_n.txt" >"$TMP/$_n.bad.txt"
	t2f --no-inline --event off-cpu --stats "$TMP/$_n.bad.txt" -o "$TMP/$_n.bad.folded" \
		2>"$TMP/$_n.bad.err" && grep -q "selected, 1 sched_switch payloads not readable" \
		"$TMP/$_n.bad.err" && grep -q "1 sched_switch sample without a readable payload" \
		"$TMP/$_n.bad.err" && ok ||
		bad "$_n: an unreadable sched_switch payload is not reported: $(grep -i off-cpu \
			"$TMP/$_n.bad.err")"
}

# clipped NAME: the --time checks above on $TMP/NAME.data
clipped() {
	_n=$1
	perf script --header --ns --show-switch-events -i "$TMP/$_n.data" >"$TMP/$_n.h.txt" \
		2>/dev/null || { bad "$_n: perf script --header failed"; return; }
	# absolute ranges at fractions of the span the header gives (in microseconds)
	_at() { awk -v f="$1" '/^# time of first sample : /{a=$NF} /^# time of last sample : /{b=$NF}
		END {printf "%.6f", a + f * (b - a)}' "$TMP/$_n.h.txt"; }
	_a=$(_at 0.2) _b=$(_at 0.45) _c=$(_at 0.6) _d=$(_at 0.8)
	_bad=0 _runs=0
	for _r in "$_a,$_d" "$_a,$_b $_c,$_d" "$_c," "20%-50%" "10%/1,10%/3,10%/8" "0%-10%,5%-30%"; do
		for _in in data:1:0 data:4:0 h.txt:1:0 h.txt:2:0 h.txt:4:0 h.txt:2:300 h.txt:4:300; do
			_f=$TMP/$_n.${_in%%:*} _j=${_in#*:} _s=${_j#*:} _j=${_j%:*}
			for _ev in off-cpu wall; do
				_o=$TMP/$_n.clip.$_runs.folded _runs=$((_runs + 1))
				# speedscope: -j 1, and on the per-task recording -j 4 in 300-byte
				# segments too (jobs_same: every -j)
				_ss=
				{ [ "$_j$_s" = 10 ] || { [ "$_n" = task ] && [ "$_j$_s" = 4300 ]; }; } &&
					_ss=.speedscope.json
				for _x in "" .profile.json $_ss; do
					T2F_SEGMENT_SIZE=$_s t2f -q --no-inline --event "$_ev" --tid \
						--time "$_r" -j "$_j" "$_f" -o "$_o$_x" 2>"$_o.err"
				done
				[ -s "$_o" ] && [ -s "$_o.profile.json" ] && [ -s "$_o$_ss" ] ||
					{ bad "$_n: --time '$_r' $_in $_ev failed: $(head -3 "$_o.err")"
					_bad=1; continue; }
				ORACLE_TIME=$_r ORACLE_SPAN=$_f oracle exact "$TMP/$_n.txt" "$_o" \
					"$([ "$_ev" = wall ] && echo wall)" >"$_o.cmp" &&
					{ [ "$_ev" = wall ] || ORACLE_TIME=$_r ORACLE_SPAN=$_f \
					oracle markers "$TMP/$_n.txt" "$_o.profile.json" >>"$_o.cmp"; } &&
					{ [ -z "$_ss" ] || ORACLE_TIME=$_r ORACLE_SPAN=$_f oracle \
					speedscope "$TMP/$_n.txt" "$_o$_ss" \
					"$([ "$_ev" = wall ] && echo wall)" >>"$_o.cmp"; } ||
					{ bad "$_n: --time '$_r' $_in $_ev differs from the oracle's:"
					grep -v "^open" "$_o.cmp" | head -12; _bad=1; }
			done
		done
		sed -n 's|^exact: |  '"$_n"' --time '"'$_r'"': |p' "$TMP/$_n.clip.$((_runs - 2)).folded.cmp"
	done
	[ "$_bad" = 1 ] || ok
}

# the recordings: per task, and system-wide (-a) where allowed; each part's checks on its own
for _n in task sys; do
	part "$_n" || part "$_n-time" || continue
	_a=
	[ "$_n" = sys ] && _a=-a
	# shellcheck disable=SC2086 # EVENTS, _a: several words, or none
	if ! perf record -q $_a $EVENTS -o "$TMP/$_n.data" -- "$TMP/waiter" >"$TMP/$_n.rec" 2>&1; then
		if [ "$_n" = task ]; then
			bad "task: perf record failed: $(head -3 "$TMP/task.rec")"
		else
			echo "$TEST_NAME: perf record -a is not allowed here" \
				"($(head -1 "$TMP/sys.rec")): the system-wide case skipped"
		fi
		continue
	fi
	! part "$_n" || check "$_n"
	if part "$_n-time"; then
		[ -s "$TMP/$_n.txt" ] || perf script --ns --show-switch-events -i "$TMP/$_n.data" \
			>"$TMP/$_n.txt" 2>/dev/null || bad "$_n: perf script failed"
		clipped "$_n"
	fi
done
finish
