#!/bin/sh
# tests/fuzz/seeds-resolve.sh: the seed inputs of the resolve fuzz target (tests/fuzz/README.md).
#
# usage: sh tests/fuzz/seeds-resolve.sh OUTDIR
#
# tests/dwarf/make-hostile --small: every hostile shape at seed size (supplementary links, shared
# range lists, a line table of many files in a long directory, compressed and .zdebug sections,
# nested ranges, long names, many rows); and the debug files (objcopy --only-keep-debug) of
# fixtures/dwarf/inl.c and tmpl.cc built with the system compilers at -O2 -g, DWARF 4 and 5,
# those under 64 KiB.
set -eu

if [ $# -ne 1 ]; then
	sed -n '4s/^# \{0,1\}//p' "$0" >&2
	exit 2
fi
out=$1
here=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t2f-seeds-resolve.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

python3 "$here/tests/dwarf/make-hostile" --small "$tmp" all
for f in "$tmp"/*; do
	cp "$f" "$out/hostile-$(basename "$f")"
done
for v in 4 5; do
	for c in cc clang; do
		"$c" -O2 -g -gdwarf-$v -o "$tmp/inl" "$here/fixtures/dwarf/inl.c"
		objcopy --only-keep-debug "$tmp/inl" "$out/inl-$c-v$v.debug"
	done
	c++ -O2 -g -gdwarf-$v -o "$tmp/tmpl" "$here/fixtures/dwarf/tmpl.cc"
	objcopy --only-keep-debug "$tmp/tmpl" "$tmp/tmpl.debug"
	[ "$(wc -c <"$tmp/tmpl.debug")" -le 65536 ] && cp "$tmp/tmpl.debug" "$out/tmpl-v$v.debug"
done
ls "$out"
