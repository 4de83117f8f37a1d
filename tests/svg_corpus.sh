#!/bin/sh
# SVG flame graphs of real data from every reader: each perf script recording in
# ../shared/corpus/perf-script and each .nettrace in ../shared/corpus/nettrace (unzipped into a
# temp dir; the NetPerf file, which trace2flame refuses, is left out; traces without samples
# must say so in a well-formed SVG) converted with -o *.svg,
# then checked by xmllint and by tests/validate/check svg (Chromium: loads without script
# errors, a search for the first frame under "all" highlights, clicking it zooms). Also: a
# synthetic profile of 200,000 distinct stacks stays under 5 MB, bounded by --minwidth.
#
# usage: sh tests/svg_corpus.sh TRACE2FLAME
# env:   T2F_SOURCE_DIR, T2F_VALIDATORS_DIR (see tests/lib.sh); CI=true: a missing corpus, xmllint or
#        validators fail instead of being skipped
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
t2f_init .. 1 "$@"
corpus=$SRC/../shared/corpus
ci=${CI:-}
py=/usr/bin/python3
make_tmp
find_validators "SVG checks skipped" svg browser
XMLLINT=$(command -v xmllint || true)
if [ -z "$XMLLINT" ]; then
	echo "$TEST_NAME: xmllint not installed (Debian libxml2-utils)"
	[ "$ci" = true ] && exit 1
fi

# check OUT: xmllint, then the validator with the first frame under "all" as the search term
check() {
	if [ -n "$XMLLINT" ] && ! "$XMLLINT" --noout "$1" 2>"$TMP/xml"; then
		bad "$1: not well-formed XML:"
		head -n 5 "$TMP/xml" | sed 's/^/    /'
		return
	fi
	ok
	term=$(sed -n 's/^<g><title>\(.*\) ([0-9,]* [^ ]*, [0-9.]*%)<\/title>.*/\1/p' "$1" | sed -n 2p)
	if [ -z "$term" ]; then # a trace without samples: nothing to search or click
		if grep -q '>ERROR: No valid input<' "$1"; then ok; else bad "$1: no frames and no error text"; fi
		return
	fi
	[ "$VALIDATE" = 1 ] || return 0
	if "$CHECK" svg "$1" "$term" >"$TMP/check" 2>&1; then ok; else
		bad "$1 (search '$term') rejected by the validator:"
		head -n 10 "$TMP/check" | sed 's/^/    /'
	fi
}

# convert IN OUT [OPTIONS]
convert() {
	_in=$1 _out=$2
	shift 2
	if t2f -q "$@" -o "$_out" "$_in" 2>"$TMP/err"; then
		check "$_out"
	else
		bad "trace2flame failed on $_in:"
		head -n 5 "$TMP/err" | sed 's/^/    /'
	fi
}

if [ -d "$corpus/perf-script" ]; then
	for f in "$corpus"/perf-script/*.perf.txt; do
		[ -e "$f" ] || continue
		convert "$f" "$TMP/$(basename "$f" .perf.txt).svg"
	done
elif [ "$ci" = true ]; then
	bad "$corpus/perf-script not found, and CI=true requires it"
else
	echo "$TEST_NAME: $corpus/perf-script $CORPUS_MISSING: skipping its recordings"
fi

if [ -d "$corpus/nettrace" ] && [ -x "$py" ]; then
	mkdir "$TMP/nt"
	for z in "$corpus"/nettrace/*.nettrace.zip; do
		[ -e "$z" ] && "$py" -m zipfile -e "$z" "$TMP/nt"
	done
	[ -e "$corpus/nettrace/trace.nettrace" ] && cp "$corpus/nettrace/trace.nettrace" "$TMP/nt/"
	for f in "$TMP"/nt/*.nettrace; do
		[ -e "$f" ] || continue
		convert "$f" "$TMP/$(basename "$f" .nettrace).nettrace.svg" --weight samples
	done
elif [ "$ci" = true ]; then
	bad "$corpus/nettrace or $py not found, and CI=true requires them"
else
	echo "$TEST_NAME: $corpus/nettrace or $py not found: skipping its traces"
fi

# Size bound: 200,000 samples, each its own stack of 12 frames (names from pools that grow with
# depth); --minwidth (0.1 px) leaves the narrow ones out.
awk 'BEGIN {
	srand(7)
	for (s = 0; s < 200000; s++) {
		printf "app 1 %d.000001: 1000 cpu-clock:\n", s / 1000
		for (i = 11; i >= 0; i--)
			printf "\t%x f_%d_%d+0x1 (/bin/app)\n", i, i, (i == 11 ? s : int(rand() * (2 + 4 * i * i)))
		printf "\n"
	}
}' >"$TMP/many.perf.txt"
convert "$TMP/many.perf.txt" "$TMP/many.svg"
size=$(wc -c <"$TMP/many.svg")
if [ "$size" -le 5242880 ]; then ok; else bad "200,000 stacks gave a $size-byte SVG (over 5 MB)"; fi
finish
