#!/bin/sh
# The output formats as the command line shows them, all from the library's table:
#   - --list-formats: a line per format (NAME, the endings that pick it, what it is), the first
#     four collapsed, speedscope, pprof and svg
#   - every listed NAME works with -f, every listed ending picks its format from the -o name
#     (the same bytes as -f NAME; for a .gz ending of a plain format, once inflated)
#   - --help's -f text, the unknown-format and unknown-ending errors name every format and ending
# usage: sh tests/cli/formats.sh TRACE2FLAME
. "$(dirname "$0")/common.sh"

in=burner.perf.txt

expect 0 "--list-formats" --list-formats
cp "$TMP/out" "$TMP/list"
names=$(awk '{ print $1 }' "$TMP/list" | tr '\n' ' ')
case $names in
"collapsed speedscope pprof svg "*) ok ;;
*) bad "--list-formats: formats '$names'" ;;
esac
[ ! -s "$TMP/err" ] && ok || bad "--list-formats: stderr: $(head -n 1 "$TMP/err")"
# the list joined as --help and the errors write it
fnames=$(awk '{ printf "%s%s", (NR > 1 ? " | " : ""), $1 }' "$TMP/list")
knames=$(awk '{ printf "%s%s", (NR > 1 ? ", " : ""), $1 }' "$TMP/list")
exts=$(awk '{ for (i = 2; i <= NF && substr($i, 1, 1) == "."; i++) print $i }' "$TMP/list")
stars=$(echo "$exts" | awk '{ a[NR] = "*" $0 } END { for (i = 1; i <= NR; i++)
	printf "%s%s", i == 1 ? "" : i == NR ? " or " : ", ", a[i] }')

while read -r name rest; do
	expect 0 "-f $name" -f "$name" -o "$TMP/by-name" "$in" || continue
	for x in $rest; do
		case $x in .*) ;; *) break ;; esac
		expect 0 "-o x$x" -o "$TMP/x$x" "$in" || continue
		got=$TMP/x$x
		# a .gz ending compresses a format that is otherwise plain (the Firefox profile):
		# what it inflates to is what -f writes
		case $x in *.gz) gzip -t "$TMP/by-name" 2>/dev/null || {
			gzip -dc "$got" >"$TMP/inflated" && got=$TMP/inflated
		} ;; esac
		same "-o x$x is -f $name" "$TMP/by-name" "$got"
	done
done <"$TMP/list"

expect 0 "--help" --help
tr '\n' ' ' <"$TMP/out" | tr -s ' ' >"$TMP/help"
file_has "--help: -f names every format" "$TMP/help" "-f, --format FMT $fnames \\(default"
for x in $exts; do
	if grep -qF -- "$x," "$TMP/help" || grep -qF -- "$x;" "$TMP/help"; then ok; else
		bad "--help: no ending $x"
	fi
done
file_has "--help: --list-formats" "$TMP/help" "--list-formats list the output formats"

expect 2 "-f unknown" -f nope "$in" &&
	stderr_has "-f unknown: every name" "^trace2flame: unknown format 'nope' \\(known: $knames\\)$"
expect 2 "-o x.unknown" -o "$TMP/x.unknown" "$in" &&
	if grep -qF -- "name it $stars, or use -f FMT" "$TMP/err"; then ok; else
		bad "-o x.unknown: not every ending: $(head -n 1 "$TMP/err")"
	fi
finish
