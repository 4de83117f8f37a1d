#!/bin/sh
# Runs a Python test script with Debian's /usr/bin/python3 (not a python3 from PATH, which may be
# another installation): the Python module is installed for that interpreter. Skipped, with a
# line saying so, when it is missing.
#
# In the sanitizer build (T2F_SANITIZE=1) libtrace2flame.so needs the ASan runtime loaded
# first: it is preloaded into the interpreter alone (T2F_PY_PRELOAD tells the script, which
# leaves LD_PRELOAD out of the programs it starts, unless they load the library too), leak
# checking off in the interpreter (Python keeps its objects at exit; leaks of the library are the
# C programs' tests to find).
#
# usage: sh tests/lib/python.sh SCRIPT [ARGS...]
# env:   T2F_SANITIZE (1: the sanitizer build), CC (default cc)
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
TEST_NAME=python
PY=/usr/bin/python3
if [ ! -x "$PY" ]; then
	echo "$TEST_NAME: $PY not found (Debian python3): skipping"
	exit 0
fi
if [ "${T2F_SANITIZE:-}" = 1 ]; then
	T2F_PY_PRELOAD=$(${CC:-cc} -print-file-name=libasan.so)
	export T2F_PY_PRELOAD T2F_CHILD_ASAN_OPTIONS="${ASAN_OPTIONS:-}"
	exec env LD_PRELOAD="$T2F_PY_PRELOAD" ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" \
		"$PY" "$@"
fi
exec "$PY" "$@"
