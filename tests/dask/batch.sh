#!/bin/sh
# tests/dask/batch.sh: python3 -m trace2flame.dask on a real Dask cluster against the command line.
#
# Starts a dask-scheduler and two dask-worker processes (Debian's /usr/bin/python3, on 127.0.0.1,
# ports chosen by the system: the scheduler's address read from its --scheduler-file; no
# dashboard, no nanny), the workers' PYTHONPATH the source tree's module and T2F_LIBRARY the
# build's library. Over perf script text, .nettrace (shipped), folded stacks and perf.data files
# (tests/perf_data_gen.py; one of a program built here, named from its DWARF, when a compiler
# is there), with --scheduler:
#   - OUT is byte for byte `trace2flame INPUT... -o OUT`, with folded partials (the default)
#     and with pprof ones (--partials pprof: a library that cannot read them back fails), for
#     each OUT format they make (trace2flame.batch.OUT_FORMATS: folded, and pprof from pprof
#     partials), and one line per input "[k/N] NAME: ok, M samples", in input order; an OUT
#     format they do not make is refused (status 2, no OUT);
#   - a corrupt input (a perf.data cut in its header): the run stops, status 1, the input named
#     with the library's message (the command line's), the previous OUT kept as it was, no temp
#     file left; with --keep-going the others go on: status 1, OUT = the command line's over
#     the others (folded, and pprof from pprof partials);
# and once without --scheduler (a local cluster of 2 worker processes). Every process started
# runs in its own session (setsid): each is stopped at the end, also on failure (trap), and
# none of their sessions has a process left. Each run is bounded by timeout.
#
# Skipped (status 0, one line saying why) without /usr/bin/python3 or its distributed module
# (Debian python3-distributed: tools/quickstart installs it).
#
# usage: tests/dask/batch.sh TRACE2FLAME LIBTRACE2FLAME
# env:   T2F_SOURCE_DIR, T2F_SANITIZE (1: the sanitizer build), CC
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
t2f_init .. 2 "$@"
LIB=$2
PY=/usr/bin/python3
if [ ! -x "$PY" ]; then
	echo "$TEST_NAME: $PY not found (Debian python3): skipping"
	exit 0
fi
if ! "$PY" -c 'import distributed' 2>/dev/null; then
	echo "$TEST_NAME: distributed not installed for $PY (Debian python3-distributed:" \
		"tools/quickstart installs it): skipping"
	exit 0
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/t2f-$TEST_NAME.XXXXXX") || exit 1
# shellcheck source=cluster.sh
. "$(dirname "$0")/cluster.sh"
trap 'cluster_kill; rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM

# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

# ---- inputs ---------------------------------------------------------------------------------
NT=$SRC/fixtures/nettrace
dask_inputs "$TMP"
inl=
if ${CC:-cc} -O2 -g -fno-omit-frame-pointer -Wl,--build-id -o "$TMP/inl" \
	"$SRC/fixtures/dwarf/inl.c" 2>"$TMP/cc.err"; then
	"$PY" -c 'import re, subprocess, sys
sys.path.insert(0, sys.argv[1])
import perf_data_gen as g
exe = sys.argv[2]
funcs = {}
syms = subprocess.run(["readelf", "-Ws", exe], capture_output=True, text=True).stdout
for line in syms.splitlines():
    f = line.split()
    if len(f) >= 8 and f[3] == "FUNC" and f[6] != "UND":
        funcs[f[7]] = int(f[1], 16)
note = subprocess.run(["readelf", "-n", exe], capture_output=True, text=True).stdout
bid = bytes.fromhex(re.search(r"Build ID: ([0-9a-f]+)", note).group(1))
ip = lambda name, off: 0x400000 + funcs[name] + off
samples = [(1000 + i, [ip("inner_loop", 4 + i % 40), ip("outer", 8), ip("main", 0x20)]
            if i % 3 else [ip("other", 2 + i % 8), ip("main", 0x28)]) for i in range(60)]
open(sys.argv[3], "wb").write(g.perf_data(b"inl", b"cpu-clock", [(exe.encode(), 0x400000, 5)],
    samples, build_ids=[(exe.encode(), bid)], config=0))' "$SRC/tests" "$TMP/inl" "$TMP/inl.data" &&
		inl=$TMP/inl.data
else
	echo "$TEST_NAME: no C compiler ($(head -n 1 "$TMP/cc.err")):" \
		"the perf.data named from DWARF left out"
fi
# the inputs, in order: the first's event (cpu-clock) is the one written; multi.perf.txt's
# first is page-faults and the folded ones have "samples": their partials are made again with
# cpu-clock.
set -- "$FX/burner.perf.txt" "$TMP/gen1.data" "$FX/cxxwork.perf.txt" "$FX/multi.perf.txt" \
	"$FX/counts.folded.txt" "$TMP/gen2.data" "$FX/burner.stackcollapse.txt" \
	"$FX/burner.cpu.perf.txt" "$FX/burner.srcline.perf.txt" ${inl:+"$inl"}
N=$#
NETTRACE="$NT/universal.nettrace $NT/mixed_managed_external_samples.nettrace $NT/universal.nettrace"
# the folded inputs' event first: it is the one written
FOLDED_FIRST="$FX/counts.folded.txt $FX/burner.perf.txt $FX/burner.stackcollapse.txt"

# ---- the cluster ----------------------------------------------------------------------------
cluster_start "$TMP"
case $ADDR in
tcp://127.0.0.1:*) ok ;;
*) bad "the scheduler's address is $ADDR" ;;
esac

batch() { # batch LOG ARGS...: the batch, its stderr in LOG, its status in $rc
	_log=$1
	shift
	# shellcheck disable=SC2086 # PYENV
	timeout 300 env $PYENV "$PY" -m trace2flame.dask "$@" 2>"$_log" >/dev/null
	rc=$?
}

# the partials' formats, and the OUT formats each makes (file endings); the library built here
# reads pprof: a library that does not read its own pprof back fails, its pprof partials too
PARTIALS="collapsed pprof"
if pyenv "$PY" -c 'import sys, trace2flame.batch as b
sys.exit(0 if b.reads_pprof() else 1)'; then ok; else
	bad "the library does not read its own pprof back (trace2flame.batch.reads_pprof())"
fi
# --keep-going: a failed input that finishes after the inputs behind it lets them be merged, in
# order (the run's in-order merge, fed in that order without a cluster)
if pyenv "$PY" -c 'import argparse, trace2flame.dask as d
from trace2flame.batch import Chunk, Read
class M:
    added = []
    def needs(self, p): return None
    def add(self, p): self.added.append(p.name)
m = M()
r = d.Run(None, argparse.Namespace(inputs=list("abcd"), keep_going=True), m,
          [(i, i + 1) for i in range(4)])
d.say = lambda line: None
for i in (0, 2, 3, 1):
    ok = i != 1
    err, code = (None, 0) if ok else ("bad", -5)
    r.take(i, Chunk("abcd"[i], b"x" if ok else None, 1, None, err, code, None,
                    [Read("abcd"[i], 1, err, code)]), None)
assert m.added == ["a", "c", "d"], m.added' 2>"$TMP/order.err"; then ok; else
	bad "--keep-going: the inputs after a failed one not merged:"
	tail -3 "$TMP/order.err"
fi
exts() {
	pyenv "$PY" -c 'import sys, trace2flame.batch as b
ends = {b._ffi.T2F_FORMAT_COLLAPSED: "folded", b._ffi.T2F_FORMAT_PPROF: "pb.gz"}
print(" ".join(ends[f] for f in b.OUT_FORMATS[sys.argv[1]]))' "$1"
}
echo "$TEST_NAME: partials: $PARTIALS"

# ---- every input on the cluster, against the command line ---------------------------------
for pf in $PARTIALS; do
	for ext in $(exts "$pf"); do
		[ -s "$TMP/cli.$ext" ] || t2f "$@" -o "$TMP/cli.$ext" 2>/dev/null ||
			bad "trace2flame INPUT... -o cli.$ext failed"
		batch "$TMP/run-$pf.$ext.err" --scheduler "$ADDR" --partials "$pf" \
			-o "$TMP/dask-$pf.$ext" "$@"
		if [ "$rc" -ne 0 ]; then
			bad "$pf partials, $ext: status $rc:"
			tail -5 "$TMP/run-$pf.$ext.err"
		fi
		same_nonempty "$pf partials, $ext" "OUT and trace2flame's" "$TMP/cli.$ext" \
			"$TMP/dask-$pf.$ext" "< trace2flame, > dask"
	done
done
# an OUT format the partials do not make: refused before any work
for pf in $PARTIALS; do
	case " $(exts "$pf") " in
	*" pb.gz "*) continue ;;
	esac
	batch "$TMP/refused.err" --scheduler "$ADDR" --partials "$pf" -o "$TMP/refused.pb.gz" "$1"
	if [ "$rc" -eq 2 ] && [ ! -e "$TMP/refused.pb.gz" ] &&
		grep -q "partials make" "$TMP/refused.err"; then ok; else
		bad "$pf partials, pprof OUT: status $rc (expected 2, no OUT):"
		cat "$TMP/refused.err"
	fi
done

# one line per input, in order, with the samples the input holds (as --stats counts them)
k=0
for f in "$@"; do
	k=$((k + 1))
	line=$(sed -n "${k}p" "$TMP/run-${PARTIALS%% *}.folded.err")
	n=$(t2f "$f" --stats -o "$TMP/one.folded" 2>&1 |
		sed -n 's/^ *samples: \([0-9]*\) read.*/\1/p' | head -n 1)
	if [ "$line" = "[$k/$N] $f: ok, ${n:-?} samples" ]; then ok; else
		bad "progress line $k: '$line', expected '[$k/$N] $f: ok, ${n:-?} samples'"
	fi
done

# the folded inputs' event first; .nettrace inputs alone
for set in folded-first nettrace; do
	case $set in
	folded-first) inputs=$FOLDED_FIRST ;;
	*) inputs=$NETTRACE ;;
	esac
	for pf in $PARTIALS; do
		for ext in $(exts "$pf"); do
			# shellcheck disable=SC2086 # inputs: several paths
			t2f $inputs -o "$TMP/cli-$set.$ext" 2>/dev/null
			# shellcheck disable=SC2086
			batch "$TMP/run-$set.err" --scheduler "$ADDR" --partials "$pf" \
				-o "$TMP/dask-$set.$ext" $inputs
			[ "$rc" -eq 0 ] || bad "$set, $pf partials, $ext: status $rc"
			same_nonempty "$set, $pf partials, $ext" "OUT and trace2flame's" \
				"$TMP/cli-$set.$ext" "$TMP/dask-$set.$ext" "< trace2flame, > dask"
		done
	done
done
# --event: an event only some inputs have (the others add nothing to it)
for pf in $PARTIALS; do
	t2f --event page-faults "$@" -o "$TMP/cli-ev.folded" 2>/dev/null
	batch "$TMP/run-ev.err" --scheduler "$ADDR" --partials "$pf" --event page-faults \
		-o "$TMP/dask-ev.folded" "$@"
	[ "$rc" -eq 0 ] || { bad "--event, $pf partials: status $rc:"; tail -3 "$TMP/run-ev.err"; }
	same_nonempty "--event, $pf partials" "OUT and trace2flame's" "$TMP/cli-ev.folded" \
		"$TMP/dask-ev.folded" "< trace2flame, > dask"
done

# .nettrace inputs mixed with others (a perf.data of unnamed frames): each named as its input
# names them, as one conversion of them all does
for pf in $PARTIALS; do
	for ext in $(exts "$pf"); do
		t2f "$TMP/gen1.data" "$NT/universal.nettrace" "$FX/burner.perf.txt" \
			-o "$TMP/cli-mixed.$ext" 2>/dev/null
		batch "$TMP/mixed.err" --scheduler "$ADDR" --partials "$pf" -o "$TMP/mixed.$ext" \
			"$TMP/gen1.data" "$NT/universal.nettrace" "$FX/burner.perf.txt"
		[ "$rc" -eq 0 ] || { bad "mixed, $pf partials, $ext: status $rc:"; cat "$TMP/mixed.err"; }
		same_nonempty "mixed, $pf partials, $ext" "OUT and trace2flame's" \
			"$TMP/cli-mixed.$ext" "$TMP/mixed.$ext" "< trace2flame, > dask"
	done
done

# ---- a corrupt input ------------------------------------------------------------------------
t2f "$TMP/cut.data" -o "$TMP/x.folded" 2>"$TMP/cli.err"
msg=$(sed -n 's/^trace2flame: //p' "$TMP/cli.err" | head -n 1)
[ -n "$msg" ] || bad "the command line said nothing about cut.data"
echo previous >"$TMP/prev.folded"
batch "$TMP/stop.err" --scheduler "$ADDR" -o "$TMP/prev.folded" "$1" "$TMP/cut.data" "$@"
if [ "$rc" -eq 1 ]; then ok; else bad "a corrupt input: status $rc, expected 1"; fi
if grep -qF "$msg" "$TMP/stop.err" && grep -qF ": failed: " "$TMP/stop.err"; then ok; else
	bad "a corrupt input: not named with '$msg':"
	cat "$TMP/stop.err"
fi
if [ "$(cat "$TMP/prev.folded")" = previous ]; then ok; else bad "the previous OUT was changed"; fi
if grep -q "stopped at the first failed input" "$TMP/stop.err"; then ok; else
	bad "the run did not say it stopped"
fi
left=$(find "$TMP" -maxdepth 1 -name '*prev.folded?*' | head -n 1)
if [ -z "$left" ]; then ok; else bad "a temp file left: $left"; fi

batch "$TMP/keep.err" --scheduler "$ADDR" --keep-going -o "$TMP/keep.folded" "$1" \
	"$TMP/cut.data" "$FX/cxxwork.perf.txt" "$TMP/gen2.data"
if [ "$rc" -eq 1 ]; then ok; else bad "--keep-going: status $rc, expected 1"; fi
if grep -qxF "[2/4] $TMP/cut.data: failed: $msg" "$TMP/keep.err" ||
	grep -qF "$TMP/cut.data: failed: $msg" "$TMP/keep.err"; then ok; else
	bad "--keep-going: cut.data not named with the library's message:"
	cat "$TMP/keep.err"
fi
if [ "$(grep -c ': ok, ' "$TMP/keep.err")" -eq 3 ]; then ok; else
	bad "--keep-going: not 3 inputs ok"
fi
t2f "$1" "$FX/cxxwork.perf.txt" "$TMP/gen2.data" -o "$TMP/keep-cli.folded" 2>/dev/null
same_nonempty keep-going "OUT and trace2flame's over the others" "$TMP/keep-cli.folded" \
	"$TMP/keep.folded" "< trace2flame, > dask"
# pprof OUT from pprof partials: the command line's over the others too
case " $PARTIALS " in
*" pprof "*)
	batch "$TMP/keep-pp.err" --scheduler "$ADDR" --keep-going --partials pprof \
		-o "$TMP/keep.pb.gz" "$1" "$TMP/cut.data" "$FX/cxxwork.perf.txt" "$TMP/gen2.data"
	if [ "$rc" -eq 1 ] && grep -qF "$TMP/cut.data: failed: $msg" "$TMP/keep-pp.err"; then
		ok
	else
		bad "--keep-going, pprof: status $rc (expected 1), cut.data named?"
		cat "$TMP/keep-pp.err"
	fi
	t2f "$1" "$FX/cxxwork.perf.txt" "$TMP/gen2.data" -o "$TMP/keep-cli.pb.gz" 2>/dev/null
	same_nonempty keep-going "pprof OUT and trace2flame's over the others" \
		"$TMP/keep-cli.pb.gz" "$TMP/keep.pb.gz" "< trace2flame, > dask"
	;;
esac

# ---- a local cluster --------------------------------------------------------------------------
# shellcheck disable=SC2086 # PYENV
setsid sh -c 'cd "$1" && shift && exec "$@"' sh "$TMP" timeout 300 env $PYENV \
	"$PY" -m trace2flame.dask --workers 2 -o "$TMP/local.folded" "$@" \
	>/dev/null 2>"$TMP/local.err" &
lpid=$!
wait "$lpid"
rc=$?
[ "$rc" -eq 0 ] || { bad "local cluster: status $rc:"; tail -5 "$TMP/local.err"; }
same_nonempty local "OUT and trace2flame's" "$TMP/cli.folded" "$TMP/local.folded" \
	"< trace2flame, > dask"
i=0
while alive "$lpid" && [ $i -lt 50 ]; do
	sleep 0.2
	i=$((i + 1))
done
if alive "$lpid"; then
	bad "local cluster: processes left:"
	ps -e -o pid=,sid=,args= | awk -v s="$lpid" '$2 == s'
	kill -KILL "-$lpid" 2>/dev/null
else
	ok
fi

# ---- every process stopped ------------------------------------------------------------------
cluster_stop
finish
