#!/bin/sh
# Why a frame stayed unnamed, per module, in --stats and the warnings: each file the recording
# names is looked up with a build-id (--buildids) and misses for its own reason: "no file" (no
# file at the path), "not ELF" (a text file there), "no build-id" (an ELF file linked with
# --build-id=none; warned: it has none, the recording's is ID), "build-id mismatch" (an ELF file
# of another build; warned with both ids). The ELF files are built here.
# usage: sh tests/cli/miss_reasons.sh TRACE2FLAME
. "$(dirname "$0")/common.sh"

if ! command -v cc >/dev/null 2>&1; then
	echo "$TEST_NAME: no C compiler (cc): skipped"
	exit 0
fi
id=0123456789abcdef0123456789abcdef01234567
echo 'int main(void) { return 0; }' >"$TMP/main.c"
cc -Wl,--build-id=none -o "$TMP/noid" "$TMP/main.c" &&
	cc -Wl,--build-id=sha1 -o "$TMP/other" "$TMP/main.c" || { bad "cc failed"; finish; }
other=$(readelf -n "$TMP/other" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
echo 'text, not an ELF file' >"$TMP/text"
in=$TMP/in.perf.txt
{
	printf 'prog   100     1.000100:     1000 cpu-clock: \n'
	for f in gone text noid other; do
		printf '\t            1234 [unknown] (%s/%s)\n' "$TMP" "$f"
	done
	printf '\n'
} >"$in"
for f in gone text noid other; do
	echo "$id $TMP/$f"
done >"$TMP/ids"

# stats_has WHAT FILE REASON: the --stats line of FILE gives REASON as its one miss.
stats_has() {
	stderr_has "$1" "^  $TMP/$2: 0 resolved, 1 unresolved, $3 1\$"
}
expect 0 "--stats" --stats --debug-dir "$TMP/none" --buildids "$TMP/ids" -o "$TMP/a.folded" "$in"
stats_has "missing file" gone "no file"
stats_has "text file" text "not ELF"
stats_has "ELF file without a build-id" noid "no build-id"
stats_has "ELF file of another build" other "build-id mismatch"
stderr_has "text file refused" "^    refused: $TMP/text: not a readable ELF file\$"
stderr_has "no build-id refused" \
	"^    refused: $TMP/noid: no build-id in the file \(expected $id\)\$"
stderr_has "mismatch refused" \
	"^    refused: $TMP/other: build-id mismatch \(found $other, expected $id\)\$"
expect 0 "warnings" --debug-dir "$TMP/none" --buildids "$TMP/ids" -o "$TMP/a.folded" "$in"
stderr_has "no build-id warned" \
	"warning: .*: $TMP/noid: $TMP/noid refused: it has no build-id, the recording's is $id\$"
stderr_has "mismatch warned" \
	"warning: .*: $TMP/other: $TMP/other refused: its build-id $other is not the \
recording's $id\$"
finish
