# tests/dask/common.sh: what the tests of python3 -m trace2flame.dask share, sourced after
# tests/lib.sh's t2f_init, with LIB the library's path.
#
# Sets PYTHONPATH (the source tree's module), T2F_LIBRARY ($LIB), PYTHONDONTWRITEBYTECODE and
# PYENV: VAR=VALUE words every interpreter loading the library needs (with T2F_SANITIZE=1 the
# ASan runtime loaded first, no leak checks: Python keeps its objects at exit); pyenv CMD...
# runs CMD with them.
# dask_inputs DIR: writes DIR/gen1.data and DIR/gen2.data (tests/perf_data_gen.py, cpu-clock
# samples: process "worker" in /opt/demo/app and /opt/demo/libdemo.so, the library with a
# build-id; process "other" in the app alone) and DIR/cut.data (gen1.data cut in its header);
# says why and exits 1 when the generator fails.
export PYTHONPATH="$SRC/tools/python" T2F_LIBRARY="$LIB" PYTHONDONTWRITEBYTECODE=1
PYENV=
if [ "${T2F_SANITIZE:-}" = 1 ]; then
	PYENV="LD_PRELOAD=$(${CC:-cc} -print-file-name=libasan.so)"
	PYENV="$PYENV ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0"
fi
# shellcheck disable=SC2086 # PYENV: VAR=VALUE words (paths without spaces)
pyenv() { env $PYENV "$@"; }

dask_inputs() {
	/usr/bin/python3 -c 'import sys
sys.path.insert(0, sys.argv[1])
import perf_data_gen as g
out = sys.argv[2]
open(out + "/gen1.data", "wb").write(g.perf_data(b"worker", b"cpu-clock",
    [(b"/opt/demo/libdemo.so", 0x7f0000000000, 5), (b"/opt/demo/app", 0x400000, 5)],
    [(t, [0x7f0000001010 + 16 * (t % 3), 0x400100]) for t in range(1, 40)],
    build_ids=[(b"/opt/demo/libdemo.so", bytes(range(1, 21)))]))
open(out + "/gen2.data", "wb").write(g.perf_data(b"other", b"cpu-clock",
    [(b"/opt/demo/app", 0x400000, 5)],
    [(t, [0x400200 + 8 * (t % 5), 0x400100]) for t in range(1, 90)]))' "$SRC/tests" "$1" ||
		{ echo "$TEST_NAME: perf_data_gen failed"; exit 1; }
	head -c 100 "$1/gen1.data" >"$1/cut.data"
}
