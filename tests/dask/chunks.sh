#!/bin/sh
# tests/dask/chunks.sh: python3 -m trace2flame.dask with several inputs a task (--chunk N: each
# task converts a contiguous run of inputs in one session, the driver merges one partial a
# task) on a real Dask cluster (tests/dask/cluster.sh: a scheduler and two workers on
# 127.0.0.1), against the command line. Eight inputs (perf script text, perf.data made by
# tests/perf_data_gen.py, folded stacks), the fourth a perf.data cut in its header; for --chunk
# 1, 2, 3, 8 and the default (about two tasks a worker, of about equal bytes), with folded partials and with pprof
# ones (when the library reads pprof), each OUT format they make:
#   - --keep-going: status 1, OUT byte for byte `trace2flame` over the seven others, and one
#     line per input in input order: "[k/8] NAME: ok, M samples" (M as --stats counts the
#     input alone), the cut one "[4/8] NAME: failed: MESSAGE" with the command line's message
#     (in a chunk of 2, 3 and 8 it is inside a chunk: the chunk's other inputs go on);
#   - the inputs but the cut one: status 0, OUT the command line's (chunks whose first event
#     is not the one written, made again with it);
#   - without --keep-going: status 1, the cut input named, the run stopped, the previous OUT
#     kept;
#   - pprof partials with --event: the event asked written, not the partials' first one.
# The default's runs (trace2flame.dask.runs) are checked apart, without a cluster: contiguous,
# in order, every input once, at most two a worker, cut by bytes (and by count when the driver
# cannot see an input).
# Skipped (status 0, one line saying why) without /usr/bin/python3 or its distributed module.
#
# usage: tests/dask/chunks.sh TRACE2FLAME LIBTRACE2FLAME
# env:   T2F_SOURCE_DIR, T2F_SANITIZE (1: the sanitizer build), CC
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
t2f_init .. 2 "$@"
LIB=$2
PY=/usr/bin/python3
if [ ! -x "$PY" ] || ! "$PY" -c 'import distributed' 2>/dev/null; then
	echo "$TEST_NAME: $PY or its distributed module (Debian python3-distributed) missing: skipping"
	exit 0
fi
# shellcheck source=cluster.sh
. "$(dirname "$0")/cluster.sh"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/t2f-$TEST_NAME.XXXXXX") || exit 1
trap 'cluster_kill; rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM

# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

dask_inputs "$TMP"
CUT=$TMP/cut.data
# the first input's event (cpu-clock) is written; multi.perf.txt's first is page-faults and
# the folded inputs' "samples": a chunk starting with them is made again with cpu-clock
set -- "$FX/burner.perf.txt" "$TMP/gen1.data" "$FX/cxxwork.perf.txt" "$CUT" \
	"$FX/multi.perf.txt" "$FX/counts.folded.txt" "$TMP/gen2.data" "$FX/burner.stackcollapse.txt"
N=$#
OTHERS="$FX/burner.perf.txt $TMP/gen1.data $FX/cxxwork.perf.txt $FX/multi.perf.txt
$FX/counts.folded.txt $TMP/gen2.data $FX/burner.stackcollapse.txt"

t2f "$CUT" -o "$TMP/x.folded" 2>"$TMP/cli.err"
msg=$(sed -n 's/^trace2flame: //p' "$TMP/cli.err" | head -n 1)
[ -n "$msg" ] || bad "the command line said nothing about cut.data"
# the progress lines expected
k=0
for f in "$@"; do
	k=$((k + 1))
	if [ "$f" = "$CUT" ]; then
		echo "[$k/$N] $f: failed: $msg"
	else
		n=$(t2f "$f" --stats -o "$TMP/one.folded" 2>&1 |
			sed -n 's/^ *samples: \([0-9]*\) read.*/\1/p' | head -n 1)
		echo "[$k/$N] $f: ok, ${n:-?} samples"
	fi
done >"$TMP/lines.expected"

PARTIALS=$(pyenv "$PY" -c 'import trace2flame.batch as b
print("collapsed pprof" if b.reads_pprof() else "collapsed")')
exts() {
	case $1 in
	pprof) echo "folded pb.gz" ;;
	*) echo folded ;;
	esac
}
echo "$TEST_NAME: partials: $PARTIALS"
for ext in folded pb.gz; do
	# shellcheck disable=SC2086 # OTHERS: several paths
	t2f $OTHERS -o "$TMP/cli.$ext" 2>/dev/null || bad "trace2flame -o cli.$ext failed"
done

# the default's runs, without a cluster: (inputs, workers, sizes) -> runs
if pyenv "$PY" -c 'import trace2flame.dask as d
cases = [((8, 2, [10] * 8), [(0, 2), (2, 4), (4, 6), (6, 8)]),
         ((8, 1, [100] + [1] * 7), [(0, 1), (1, 8)]),
         ((4, 2, [1, 1, 1, 1000]), [(0, 3), (3, 4)]),
         ((16, 2, None), [(0, 4), (4, 8), (8, 12), (12, 16)]),
         ((3, 4, None), [(0, 1), (1, 2), (2, 3)]),
         ((1, 3, [0]), [(0, 1)])]
for (n, w, size), want in cases:
    got = d.runs(n, 0, w, size)
    assert got == want, (n, w, size, got)
assert d.runs(5, 2, 9, [1] * 5) == [(0, 2), (2, 4), (4, 5)]
assert d.sizes(["/nonexistent/x"]) is None' 2>"$TMP/runs.err"; then ok; else
	bad "the default runs of inputs:"
	tail -3 "$TMP/runs.err"
fi

cluster_start "$TMP"
batch() { # batch LOG ARGS...: the batch on the cluster, its stderr in LOG, its status in $rc
	_log=$1
	shift
	# shellcheck disable=SC2086 # PYENV
	timeout 300 env $PYENV "$PY" -m trace2flame.dask --scheduler "$ADDR" "$@" 2>"$_log" \
		>/dev/null
	rc=$?
}

for pf in $PARTIALS; do
	for ext in $(exts "$pf"); do
		for ch in 1 2 3 8 0; do
			t="$pf partials, $ext, --chunk $ch"
			batch "$TMP/keep.err" --partials "$pf" --chunk "$ch" --keep-going \
				-o "$TMP/keep.$ext" "$@"
			[ "$rc" -eq 1 ] || bad "$t, --keep-going: status $rc, expected 1"
			same_nonempty "$t, --keep-going" "OUT and trace2flame's over the others" \
				"$TMP/cli.$ext" "$TMP/keep.$ext" "< trace2flame, > dask"
			# (the progress lines alone: Dask may say more when a slow client closes)
			grep '^\[[0-9]*/[0-9]*\] ' "$TMP/keep.err" >"$TMP/keep.lines"
			if cmp -s "$TMP/lines.expected" "$TMP/keep.lines"; then ok; else
				bad "$t, --keep-going: the lines (< expected, > said):"
				diff "$TMP/lines.expected" "$TMP/keep.lines" | head -n 12
			fi
			# shellcheck disable=SC2086 # OTHERS
			batch "$TMP/all.err" --partials "$pf" --chunk "$ch" -o "$TMP/all.$ext" $OTHERS
			[ "$rc" -eq 0 ] || { bad "$t: status $rc"; tail -n 3 "$TMP/all.err"; }
			same_nonempty "$t" "OUT and trace2flame's" "$TMP/cli.$ext" "$TMP/all.$ext" \
				"< trace2flame, > dask"
		done
	done
done

# without --keep-going: the run stops at the cut input inside a chunk of three
echo previous >"$TMP/prev.folded"
batch "$TMP/stop.err" --chunk 3 -o "$TMP/prev.folded" "$@"
# (the lines of the inputs before it are said when their chunk came back first)
if [ "$rc" -eq 1 ] && grep -qF "] $CUT: failed: $msg" "$TMP/stop.err" &&
	[ "$(grep -c ': failed: ' "$TMP/stop.err")" -eq 1 ] &&
	grep -q "stopped at the first failed input" "$TMP/stop.err"; then ok; else
	bad "stop at the cut input: status $rc (expected 1), said:"
	cat "$TMP/stop.err"
fi
if [ "$(cat "$TMP/prev.folded")" = previous ]; then ok; else bad "the previous OUT was changed"; fi

# pprof partials keep every event, the input's first first: --event picks the one asked
case " $PARTIALS " in
*" pprof "*)
	t2f --event cpu-clock "$FX/multi.perf.txt" "$FX/burner.perf.txt" -o "$TMP/ev-cli.folded" \
		2>/dev/null
	for ch in 1 2; do
		batch "$TMP/ev.err" --partials pprof --event cpu-clock --chunk "$ch" \
			-o "$TMP/ev.folded" "$FX/multi.perf.txt" "$FX/burner.perf.txt"
		[ "$rc" -eq 0 ] || bad "--event cpu-clock, --chunk $ch: status $rc"
		same_nonempty "--event cpu-clock, pprof partials, --chunk $ch" "OUT and trace2flame's" \
			"$TMP/ev-cli.folded" "$TMP/ev.folded" "< trace2flame, > dask"
	done
	;;
esac

cluster_stop
finish
