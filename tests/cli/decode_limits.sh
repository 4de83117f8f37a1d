#!/bin/sh
# Decompression bombs (the bombs part of tests/elf/build-fixtures.sh, fixtures/elf/README.md)
# against the decompression limits (symbolizer/elf_module.h: 128 MiB per file, 512 MiB per run):
#   - `resolve` on bomb/debugdata-8x256m (6 KB: an xz MiniDebugInfo image of 8 zlib .symtab
#     sections of 256 MiB each) exits 1 (an address not resolved, as --help says), warns naming
#     the file, the section and the limit, lists the file as refused and prints the reason;
#   - `symbols` on it exits 1 with the same warning and lists nothing;
#   - a conversion whose stacks go through four copies of bomb/symtab-256m (650 KB: one such
#     table in the file) exits 0: each copy is refused with its warning and --stats counts its
#     frame as "over the decompression limit".
# Before the limits the first took 25 s and 7.2 GB of memory, the conversion 3 s and 2.6 GB; so
# every run here has 1 GiB of address space (ulimit -v) and must stay under 256 MiB resident
# (GNU time's %M, when /usr/bin/time is there). A sanitizer build (T2F_SANITIZER_LOGS set) skips
# the address-space limit, which ASan's shadow reservation would break, and keeps the resident
# check (ASan's own memory included: 33 MB here).
# usage: sh tests/cli/decode_limits.sh TRACE2FLAME
. "$(dirname "$0")/common.sh"

EF=${T2F_ELF_FIXTURES:-}
if [ -z "$EF" ] || [ ! -f "$EF/.t2f-elf-fixtures" ]; then
	echo "$TEST_NAME: T2F_ELF_FIXTURES does not name a fixture tree (ctest sets it)"
	exit 1
fi
if grep -q '^bombs	' "$EF/SKIPPED"; then
	echo "$TEST_NAME: the bombs fixture part was skipped ($(grep '^bombs	' "$EF/SKIPPED" | cut -f2)):" \
		"skipped"
	exit 0
fi
BOMB=$EF/bomb/debugdata-8x256m
RSS_KB=262144

# limited ARGS: trace2flame ARGS under the limits; the peak resident size in $TMP/rss
# shellcheck disable=SC3045 # ulimit -v: dash and bash have it
limited() {
	rm -f "$TMP/rss"
	(
		[ -n "${T2F_SANITIZER_LOGS:-}" ] || ulimit -v 1048576
		if [ -x /usr/bin/time ]; then
			exec /usr/bin/time -f %M -o "$TMP/rss" timeout 60 "$T2F_BIN" "$@"
		fi
		exec timeout 60 "$T2F_BIN" "$@"
	)
}

# rc_is WHAT RC WANT
rc_is() {
	if [ "$2" -eq "$3" ]; then ok; else
		bad "$1: exit $2, want $3"
		show_err
	fi
}

rss_ok() {
	[ -s "$TMP/rss" ] || return 0
	_kb=$(tail -n 1 "$TMP/rss")
	echo "$TEST_NAME: $1: peak resident $_kb KiB"
	if [ "$_kb" -lt "$RSS_KB" ]; then ok; else bad "$1: peak resident $_kb KiB, want < $RSS_KB"; fi
}

# the warning for FILE's first table of 256 MiB (PREFIX: ".gnu_debugdata:" inside the image)
refusal() {
	echo "^trace2flame: warning: $1: symbols refused: $2\\.symtab decompresses to 268435456 bytes," \
		"over the limit of 128 MiB per file \\([0-9]+ bytes decompressed before it\\)$"
}

mkdir "$TMP/nodebug"
limited resolve --debug-dir "$TMP/nodebug" "$BOMB" 0x1003 >"$TMP/out" 2>"$TMP/err"
rc_is "resolve on the bomb" $? 1
stderr_has "resolve: the warning" "$(refusal "$BOMB" '\.gnu_debugdata:')"
stderr_has "resolve: the refusal" "^trace2flame: refused $BOMB: over the decompression limit$"
file_has "resolve: the miss" "$TMP/out" "^0x1003	\\?\\? \\(over the decompression limit\\)	$BOMB$"
n=$(grep -c 'symbols refused' "$TMP/err")
if [ "$n" -eq 1 ]; then ok; else bad "resolve: $n refusals printed, want 1"; fi
rss_ok "resolve on the bomb"

limited symbols "$BOMB" >"$TMP/out" 2>"$TMP/err"
rc_is "symbols on the bomb" $? 1
stderr_has "symbols: the warning" "$(refusal "$BOMB" '\.gnu_debugdata:')"
if [ -s "$TMP/out" ]; then bad "symbols on the bomb listed symbols"; else ok; fi

# four copies of the 650 KB bomb, each on a stack of one sample (the address is the file offset
# 0x1003: PT_LOAD maps it to itself)
id=$(readelf -n "$EF/bomb/symtab-256m" | sed -n 's/.*Build ID: //p')
: >"$TMP/ids"
{
	printf 'prog   100     1.000100:     1000 cpu-clock: \n'
	for i in 1 2 3 4; do
		cp "$EF/bomb/symtab-256m" "$TMP/copy$i.so"
		echo "$id $TMP/copy$i.so" >>"$TMP/ids"
		printf '\t            1003 [unknown] (%s/copy%d.so)\n' "$TMP" "$i"
	done
	printf '\n'
} >"$TMP/four.perf.txt"
limited --stats --debug-dir "$TMP/nodebug" --buildids "$TMP/ids" -o "$TMP/four.folded" \
	"$TMP/four.perf.txt" >/dev/null 2>"$TMP/err"
rc_is "four bombs in one conversion" $? 0
for i in 1 2 3 4; do
	stderr_has "copy $i: the warning" "$(refusal "$TMP/copy$i.so" '')"
	stderr_has "copy $i: --stats" \
		"^  $TMP/copy$i\\.so: 0 resolved, 1 unresolved, over the decompression limit 1$"
	stderr_has "copy $i: --stats refused" \
		"^    refused: $TMP/copy$i\\.so: over the decompression limit$"
done
file_has "four bombs: the output" "$TMP/four.folded" '^prog;\[copy4\.so\];\[copy3\.so\];\[copy2\.so\];\[copy1\.so\] 1000$'
rss_ok "four bombs in one conversion"

finish
