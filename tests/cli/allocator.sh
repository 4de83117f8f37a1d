#!/bin/sh
# The CLI's allocator settings (tools/malloc_tune.h), as --stats says them:
#   - a conversion of a file, of standard input, and of the program started through the
#     dynamic loader by name: glibc's malloc set up (a sanitizer build says it keeps its own);
#   - T2F_MALLOC_DEFAULTS, the user's GLIBC_TUNABLES, an LD_PRELOAD (not under a sanitizer,
#     whose runtime must come first): glibc's defaults, or the environment's, left alone;
#   - every run writes the same bytes.
# usage: sh tests/cli/allocator.sh TRACE2FLAME
. "$(dirname "$0")/common.sh"

TUNED="  allocator: glibc, the heap grown 8 MiB at a time, blocks under 4 MiB from it, one arena for every thread"
DEFAULTS="  allocator: glibc's defaults"
ENVS="  allocator: the environment's (GLIBC_TUNABLES or LD_PRELOAD)"
sanitized=
if ldd "$T2F_BIN" 2>/dev/null | grep -q 'lib[at]san'; then
	TUNED="  allocator: not glibc's tuned (another allocator or a sanitizer build)"
	DEFAULTS=$TUNED
	ENVS=$TUNED
	sanitized=1
fi
in=multi.perf.txt

# said WHAT LINE: stderr's allocator line is LINE
said() {
	if [ "$(grep '^  allocator: ' "$TMP/err")" = "$2" ]; then ok; else
		bad "$1: the allocator line is not '$2'"
		grep '^  allocator: ' "$TMP/err" | sed 's/^/    got: /'
	fi
}

expect 0 "a file" --stats "$in" -o "$TMP/tuned.folded" && said "a file" "$TUNED"
t2f --stats - -o "$TMP/stdin.folded" <"$FX/$in" >"$TMP/out" 2>"$TMP/err"
said "standard input" "$TUNED"
same "standard input: the same bytes" "$TMP/tuned.folded" "$TMP/stdin.folded"
T2F_MALLOC_DEFAULTS=1 expect 0 "T2F_MALLOC_DEFAULTS" --stats "$in" -o "$TMP/plain.folded" &&
	said "T2F_MALLOC_DEFAULTS" "$DEFAULTS"
same "T2F_MALLOC_DEFAULTS: the same bytes" "$TMP/tuned.folded" "$TMP/plain.folded"
GLIBC_TUNABLES=glibc.malloc.perturb=0 expect 0 "the user's GLIBC_TUNABLES" --stats "$in" \
	-o "$TMP/env.folded" && said "the user's GLIBC_TUNABLES" "$ENVS"
same "the user's GLIBC_TUNABLES: the same bytes" "$TMP/tuned.folded" "$TMP/env.folded"
libc=$(ldd "$T2F_BIN" 2>/dev/null | sed -n 's/.*libc\.so\.6 => \([^ ]*\).*/\1/p')
if [ -z "$sanitized" ] && [ -z "$libc" ]; then
	bad "no libc.so.6 found in ldd $T2F_BIN"
elif [ -z "$sanitized" ]; then
	LD_PRELOAD=$libc expect 0 "LD_PRELOAD" --stats "$in" -o "$TMP/pre.folded" &&
		said "LD_PRELOAD" "$ENVS"
	same "LD_PRELOAD: the same bytes" "$TMP/tuned.folded" "$TMP/pre.folded"
fi
interp=$(readelf -l "$T2F_BIN" 2>/dev/null | sed -n 's/.*Requesting program interpreter: \(.*\)]$/\1/p')
if [ -x "$interp" ]; then
	"$interp" "$T2F_BIN" --stats "$FX/$in" -o "$TMP/ld.folded" >"$TMP/out" 2>"$TMP/err"
	said "through $interp" "$TUNED"
	same "through the loader: the same bytes" "$TMP/tuned.folded" "$TMP/ld.folded"
else
	bad "no program interpreter found in $T2F_BIN"
fi
finish
