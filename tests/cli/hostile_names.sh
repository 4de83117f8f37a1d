#!/bin/sh
# Strings from an input that try to break out of every output (script elements in SVG, JSON and
# pprof strings, terminal escape sequences, ill-formed UTF-8) through every reader and writer:
# tests/hostile_names.py says what is fed and how each output is parsed.
# usage: sh tests/cli/hostile_names.sh TRACE2FLAME
. "$(dirname "$0")/../lib.sh"
t2f_init ../.. 1 "$@"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
exec "$PY" "$SRC/tests/hostile_names.py" "$T2F_BIN" "$SRC"
