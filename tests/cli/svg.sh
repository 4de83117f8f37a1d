#!/bin/sh
# SVG flame graphs from the command line: chosen by -f svg or the -o name (.svg), the same bytes
# every time, well-formed XML (xmllint when installed), names escaped, the options visible in the
# document, and every perf script fixture accepted by tests/validate/check svg (Chromium:
# loads without script errors, search highlights, click-to-zoom) when the validators are installed.
# usage: sh tests/cli/svg.sh TRACE2FLAME
. "$(dirname "$0")/common.sh"
find_validators "validator checks skipped" svg browser
# shellcheck source-path=SCRIPTDIR source=svg_checks.sh
. "$(dirname "$0")/svg_checks.sh"

# first_frame FILE: the name of the first frame under "all" (a thread name)
first_frame() {
	sed -n 's/^<g><title>\(.*\) ([0-9,]* [^ ]*, [0-9.]*%)<\/title>.*/\1/p' "$1" | sed -n 2p
}

in=burner.perf.txt
expect 0 "-o NAME.svg" -o "$TMP/a.svg" "$in"
expect 0 "-f svg" -f svg -o "$TMP/a.out" "$in"
same "-f svg and .svg give the same bytes" "$TMP/a.svg" "$TMP/a.out"
expect 0 "again" -o "$TMP/b.svg" "$in"
same "deterministic" "$TMP/a.svg" "$TMP/b.svg"
well_formed "burner" "$TMP/a.svg"
for id in title details unzoom search ignorecase matched frames; do
	file_has "element id $id" "$TMP/a.svg" "id=\"$id\""
done
file_has "root frame" "$TMP/a.svg" '^<g><title>all \([0-9,]+ [a-z]+, 100%\)</title><rect '
file_has "a frame's title" "$TMP/a.svg" '^<g><title>main \([0-9,]+ ns, [0-9]+\.[0-9]{2}%\)</title>'
file_has "no network" "$TMP/a.svg" 'onload="init\(evt\)"'
if grep -Eq '(src|href)="https?:' "$TMP/a.svg"; then bad "the SVG loads something from the network"; else ok; fi
mkdir "$TMP/each"
expect 0 "--each -f svg" --each -f svg -o "$TMP/each" "$in" multi.perf.txt
for f in burner.perf.svg multi.perf.svg; do
	if [ -s "$TMP/each/$f" ]; then ok; else bad "--each: no $f"; fi
done
expect 2 "an unknown format" -f png -o "$TMP/x" "$in"
stderr_has "the known formats are listed" "known: collapsed, speedscope, pprof, svg"

# Names that XML must not see raw: markup characters, control characters, invalid UTF-8.
printf 'a<b>&"c\001  1 1.0: 1 cpu-clock:\n\t1 f<int>&\042x\002\377y+0x1 (/bin/a&b)\n\t2 main+0x2 (/bin/a&b)\n\n' >"$TMP/esc.perf.txt"
expect 0 "names to escape" -o "$TMP/esc.svg" "$TMP/esc.perf.txt"
well_formed "escaped names" "$TMP/esc.svg"
file_has "markup escaped" "$TMP/esc.svg" '<title>f&lt;int&gt;&amp;&quot;x'
validate "$TMP/esc.svg" "f<int>"

# Options
expect 0 "--title --subtitle --countname" --title 'T <1>' --subtitle 'S&2' --countname things \
	--weight samples -o "$TMP/t.svg" "$in"
file_has "--title" "$TMP/t.svg" '<text id="title" [^>]*>T &lt;1&gt;</text>'
file_has "--subtitle" "$TMP/t.svg" '<text id="subtitle" [^>]*>S&amp;2</text>'
file_has "--countname" "$TMP/t.svg" '<title>all \([0-9,]+ things, 100%\)'
expect 0 "--icicle" --icicle -o "$TMP/i.svg" "$in"
file_has "--icicle title" "$TMP/i.svg" '<text id="title" [^>]*>Icicle Graph</text>'
file_has "--icicle flag" "$TMP/i.svg" 'data-inverted="1"'
validate "$TMP/i.svg" main
expect 0 "--reverse" --reverse -o "$TMP/r.svg" "$in"
file_has "--reverse: leaves under all" "$TMP/r.svg" '^<g><title>spin_leaf '
validate "$TMP/r.svg" spin_leaf
expect 0 "--width 600" --width 600 -o "$TMP/w.svg" "$in"
file_has "--width" "$TMP/w.svg" '<svg [^>]*width="600"'
expect 0 "--minwidth 50" --minwidth 50 -o "$TMP/m.svg" "$in"
if [ "$(grep -c '^<g><title>' "$TMP/m.svg")" -lt "$(grep -c '^<g><title>' "$TMP/a.svg")" ]; then ok; else
	bad "--minwidth 50 did not leave narrow frames out"
fi
for pal in hot mem io module kind; do
	expect 0 "--colors $pal" --colors "$pal" --hash -o "$TMP/c-$pal.svg" "$in"
	well_formed "--colors $pal" "$TMP/c-$pal.svg"
done
# --hash: a name has one colour wherever it appears (recurse is drawn many times)
n=$(grep -o '<title>recurse ([^<]*</title><rect [^>]*fill="[^"]*"' "$TMP/c-hot.svg" |
	sed 's/.*fill=//' | sort -u | wc -l)
if [ "$n" -eq 1 ]; then ok; else bad "--hash: recurse has $n colours"; fi
expect 2 "unknown --colors" --colors plaid -o "$TMP/x.svg" "$in"
expect 2 "bad --width" --width 12 -o "$TMP/x.svg" "$in"
expect 2 "bad --minwidth" --minwidth -1 -o "$TMP/x.svg" "$in"

# Every perf script fixture (the validator needs a frame to search for and click)
for f in *.perf.txt; do
	out=$TMP/fx-$(basename "$f" .perf.txt).svg
	expect 0 "$f" -o "$out" "$f" || continue
	well_formed "$f" "$out"
	validate "$out" "$(first_frame "$out")"
done
finish
