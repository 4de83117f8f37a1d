#!/bin/sh
# Signals during the write: SIGINT, SIGTERM, SIGHUP, SIGPIPE and SIGQUIT sent while the output's
# temp file exists (one output, and the second of --each), and SIGXFSZ from a file size limit,
# end the run by that signal (exit status 128+N) with no ".NAME.XXXXXX" file left and the
# previous output unchanged. A signal ignored when the run starts (SIGHUP under nohup) stays
# ignored. Standard output closed by its reader ends the run by SIGPIPE, or with exit 3 and
# "Broken pipe" when SIGPIPE is ignored. An output name of 255 bytes (the longest) is written
# under its name, the temp name cut to fit; one of 256 bytes is refused.
#
# No timing is assumed: the run (200,000 distinct stacks, written as speedscope, pprof or SVG) is
# stopped (SIGSTOP) as soon as its temp file shows up, and the signal is sent only if the temp
# file is still there while it is stopped; when the output was already renamed into place the
# attempt is made again, 5 times at most. Waits are bounded (2 minutes) only to catch a hang.
# usage: sh tests/cli/signals.sh TRACE2FLAME
. "$(dirname "$0")/common.sh"

# shellcheck disable=SC3045 # ulimit -c: dash, bash
ulimit -c 0 2>/dev/null # SIGQUIT and SIGXFSZ dump core by default
umask 022
if ! env --default-signal=INT,QUIT --ignore-signal=HUP true 2>/dev/null; then
	echo "$TEST_NAME: env --default-signal (coreutils 8.31) is needed: skipping"
	exit 0
fi

in=$TMP/stacks.folded
awk 'BEGIN {
	for (i = 0; i < 200000; i++) {
		s = "prog"
		for (j = 0; j < 8; j++)
			s = s ";fn_" (j < 2 ? j : i) "_" j
		print s, 1 + i % 5
	}
}' >"$in"

# pstate PID: PID's state letter (R, S, D, T...), or Z when it has ended (a zombie, or already
# reaped by the shell, which keeps its exit status for wait)
pstate() {
	_st=$(cat "/proc/$1/stat" 2>/dev/null) || {
		echo Z
		return
	}
	_st=${_st##*) }
	echo "${_st%% *}"
}

# has_tmp OUT: a temp file of OUT (its directory's .BASENAME.*) exists
has_tmp() {
	for _f in "${1%/*}/.${1##*/}".*; do
		[ -e "$_f" ] && return 0
	done
	return 1
}

# no_temp WHAT DIR: no ".NAME.XXXXXX" temp file left in DIR
no_temp() {
	_left=$(find "$2" -maxdepth 1 -name '.*.??????' | head -n 3)
	if [ -z "$_left" ]; then ok; else bad "$1: temp file left behind: $_left"; fi
}

# reap PID: waits for PID to end (killing it after 2 minutes: a hang), then RC = its exit status
reap() {
	_n=0
	while [ "$(pstate "$1")" != Z ] && [ "$_n" -lt 12000 ]; do
		sleep 0.01
		_n=$((_n + 1))
	done
	if [ "$(pstate "$1")" != Z ]; then
		bad "trace2flame did not end in 2 minutes: killed"
		kill -KILL "$1"
	fi
	wait "$1"
	RC=$?
}

# run_signaled SIG OUT ENV_OPT ARGS...: trace2flame ARGS in the background, under env ENV_OPT
# (INT and QUIT are ignored in a background job of a script); stopped as soon as OUT's temp file
# exists and, if it still does once stopped, sent SIG (CAUGHT=1, else 0) and continued. RC: its
# exit status.
run_signaled() {
	_sig=$1 _out=$2 _env=$3
	shift 3
	env "$_env" "$T2F_BIN" "$@" >"$TMP/out" 2>"$TMP/err" &
	_pid=$!
	CAUGHT=0
	_n=0
	while ! has_tmp "$_out" && [ "$(pstate "$_pid")" != Z ] && [ "$_n" -lt 12000 ]; do
		sleep 0.01
		_n=$((_n + 1))
	done
	if has_tmp "$_out" && kill -STOP "$_pid" 2>/dev/null; then
		while [ "$(pstate "$_pid")" != T ] && [ "$(pstate "$_pid")" != Z ]; do sleep 0.01; done
		if [ "$(pstate "$_pid")" = T ] && has_tmp "$_out"; then
			kill -s "$_sig" "$_pid"
			CAUGHT=1
		fi
		kill -CONT "$_pid"
	fi
	reap "$_pid"
}

# ref FMT INPUT: $TMP/ref.FMT, trace2flame -f FMT INPUT written to a file of its own (once)
ref() {
	[ -s "$TMP/ref.$1" ] || t2f -f "$1" -o "$TMP/ref.$1" "$2" 2>"$TMP/err" || {
		bad "the reference $1 output could not be written"
		show_err
	}
}

# died_by WHAT SIG: the run ended by SIG (Linux's numbers)
died_by() {
	case $2 in
	HUP) _num=1 ;; INT) _num=2 ;; QUIT) _num=3 ;; PIPE) _num=13 ;; TERM) _num=15 ;; XFSZ) _num=25 ;;
	esac
	if [ "$RC" -eq $((128 + _num)) ]; then ok; else
		bad "$1: exit $RC, want $((128 + _num)) (death by SIG$2)"
		show_err
	fi
}

# signaled SIG FMT EXT WHAT [--each]: SIG during the write of FMT over an existing output
signaled() {
	_s=$1 _fmt=$2 _ext=$3 _what=$4 _each=${5:-}
	_d=$TMP/$_s.$_fmt
	mkdir -p "$_d"
	_try=0
	while [ "$_try" -lt 5 ]; do
		_try=$((_try + 1))
		printf 'precious\n' >"$_d/stacks$_ext"
		if [ -n "$_each" ]; then
			# the first output is written whole, the signal comes during the second
			run_signaled "$_s" "$_d/stacks$_ext" --default-signal=INT,QUIT -f "$_fmt" \
				--each -o "$_d" "$FX/burner.perf.txt" "$in"
		else
			run_signaled "$_s" "$_d/stacks$_ext" --default-signal=INT,QUIT -f "$_fmt" \
				-o "$_d/stacks$_ext" "$in"
		fi
		[ "$CAUGHT" = 1 ] || continue
		died_by "SIG$_s $_what" "$_s"
		no_temp "SIG$_s $_what" "$_d"
		[ "$(cat "$_d/stacks$_ext")" = precious ] && break
		# stopped between the last write and the rename: the whole output, renamed in place
		ref "$_fmt" "$in"
		same "SIG$_s $_what after the rename" "$TMP/ref.$_fmt" "$_d/stacks$_ext"
	done
	if [ "$CAUGHT" != 1 ] || [ "$(cat "$_d/stacks$_ext")" != precious ]; then
		bad "SIG$_s $_what: the write was not caught in 5 runs"
	elif [ -n "$_each" ]; then
		t2f -f "$_fmt" -o "$TMP/burner$_ext" "$FX/burner.perf.txt" 2>/dev/null
		same "SIG$_s $_what: --each's first output" "$TMP/burner$_ext" "$_d/burner.perf$_ext"
	fi
}

signaled INT speedscope .speedscope.json "during a speedscope write"
signaled TERM pprof .pb.gz "during a pprof write"
signaled HUP svg .svg "during an SVG write"
signaled PIPE speedscope .speedscope.json "during a speedscope write"
signaled QUIT pprof .pb.gz "during a pprof write"
signaled TERM svg .svg "during --each's second output" --each

# SIGHUP ignored on entry (nohup) stays ignored: the run ends well.
d=$TMP/nohup
mkdir "$d"
printf 'precious\n' >"$d/stacks.pb.gz"
run_signaled HUP "$d/stacks.pb.gz" --ignore-signal=HUP -f pprof -o "$d/stacks.pb.gz" "$in"
if [ "$RC" -eq 0 ]; then ok; else bad "SIGHUP ignored on entry: exit $RC, want 0"; show_err; fi
ref pprof "$in"
same "SIGHUP ignored on entry: the output" "$TMP/ref.pprof" "$d/stacks.pb.gz"
no_temp "SIGHUP ignored on entry" "$d"

# A file size limit (ulimit -f 32: 16 KiB in dash) reached while writing: SIGXFSZ.
d=$TMP/xfsz
mkdir "$d"
printf 'precious\n' >"$d/stacks.json"
{ # (the shell's "File size limit exceeded" to /dev/null)
	(
		ulimit -f 32
		exec "$T2F_BIN" -f speedscope -o "$d/stacks.json" "$in"
	) 2>"$TMP/err"
	RC=$?
} 2>/dev/null
died_by "file size limit" XFSZ
no_temp "file size limit" "$d"
if [ "$(cat "$d/stacks.json")" = precious ]; then ok; else
	bad "file size limit: the previous output was changed"
fi

# Standard output closed by its reader after one byte: SIGPIPE, or exit 3 when it is ignored.
mkfifo "$TMP/fifo"
for how in default ignored; do
	head -c 1 <"$TMP/fifo" >/dev/null &
	reader=$!
	if [ "$how" = default ]; then
		env --default-signal=PIPE "$T2F_BIN" -f speedscope "$in" >"$TMP/fifo" 2>"$TMP/err"
		RC=$?
		died_by "standard output closed" PIPE
	else
		env --ignore-signal=PIPE "$T2F_BIN" -f speedscope "$in" >"$TMP/fifo" 2>"$TMP/err"
		RC=$?
		if [ "$RC" -eq 3 ]; then ok; else
			bad "standard output closed, SIGPIPE ignored: exit $RC, want 3"
		fi
		stderr_has "standard output closed, SIGPIPE ignored" '<stdout>: cannot write \(Broken pipe\)'
	fi
	wait "$reader"
done

# The longest name (255 bytes): its temp name is cut to fit.
d=$TMP/long
mkdir "$d"
long=$(printf '%0247d' 0 | tr 0 a).folded
expect 0 "a 255-byte output name" -o "$d/$long" burner.perf.txt
t2f burner.perf.txt >"$TMP/burner.folded" 2>/dev/null
same "a 255-byte output name" "$TMP/burner.folded" "$d/$long"
no_temp "a 255-byte output name" "$d"
# with a name of multibyte characters (cut between characters), over an existing file
long=$(printf '%0125d' 0 | sed 's/0/é/g')x.svg
printf 'precious\n' >"$d/$long"
expect 0 "a 255-byte output name of 2-byte characters" -o "$d/$long" burner.perf.txt
file_has "a 255-byte output name of 2-byte characters" "$d/$long" '^<svg'
no_temp "a 255-byte output name of 2-byte characters" "$d"
expect 3 "a 256-byte output name" -o "$d/a$long" burner.perf.txt
stderr_has "a 256-byte output name" 'cannot write here \(File name too long\)'
no_temp "a 256-byte output name" "$d"

finish
