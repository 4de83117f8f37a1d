#!/bin/sh
# tests/nettrace_shipped.sh: the traces fixtures/nettrace ships, and the quickstart's conversion.
#   - mixed_managed_external_samples.nettrace (real, V4), converted as a user would:
#     `trace2flame mixed_managed_external_samples.nettrace -o out.json` in a directory holding
#     the trace gives expected/mixed_managed_external_samples.speedscope.json byte for byte,
#     `-o out.folded` expected/....folded; --stats counts its 6,331 samples read and written;
#     the speedscope checker (tests/validate/check) accepts the JSON;
#   - tools/quickstart --example-only, with this build: its first command is exactly that one,
#     its out.json the same bytes;
#   - universal.nettrace (V6): without its ELF files, expected/universal.unnamed.folded (native
#     frames as FILE!0xOFFSET); with them (built by tests/nettrace_fixtures.sh, given with
#     --symbol-path), expected/universal.folded and .speedscope.json, and --event cswitch;
#     --event off-cpu is cswitch's output, --event wall cpu's and cswitch's added per stack,
#     its SVG titles giving both parts (colour: the off-CPU share);
#     tools/make-nettrace writes the shipped bytes again from universal.desc. Where the
#     compiler builds other build-ids than the trace records, those parts are skipped (a
#     failure under CI=true).
# T2F_BLESS=1 rewrites the expected files.
#
# usage: sh tests/nettrace_shipped.sh TRACE2FLAME
# env: T2F_SOURCE_DIR, T2F_BUILD_DIR (the quickstart's build; default TRACE2FLAME's ../..),
#      T2F_BLESS, T2F_VALIDATORS_DIR, CI (see tests/lib.sh)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
t2f_init .. 1 "$@"
NFX=$SRC/fixtures/nettrace
EXP=$NFX/expected
REAL=mixed_managed_external_samples
bless=${T2F_BLESS:-0}
make_tmp
find_validators "speedscope checks skipped" speedscope

# golden FILE EXPECTED-NAME: FILE against expected/EXPECTED-NAME (T2F_BLESS=1 writes it).
golden() {
	if [ "$bless" = 1 ]; then
		cp "$1" "$EXP/$2" && ok
	elif [ ! -f "$EXP/$2" ]; then
		bad "expected/$2 missing (T2F_BLESS=1 writes it)"
	elif cmp -s "$1" "$EXP/$2"; then
		ok
	else
		bad "$(basename "$1") differs from expected/$2:"
		diff "$EXP/$2" "$1" | head -20 | cut -c1-200
	fi
}

# validate FILE: the speedscope checker accepts FILE (when installed).
validate() {
	[ "$VALIDATE" = 1 ] || return 0
	if "$CHECK" speedscope "$1" >"$TMP/check.out" 2>&1; then
		ok
	else
		bad "speedscope checker rejects $1:"
		cat "$TMP/check.out"
	fi
}

# stats FILE READ WRITTEN: --stats says READ samples read, all kept, WRITTEN written.
stats() {
	if grep -q "^  samples: $2 read = $2 kept + 0 dropped$" "$1" &&
		grep -q "^    written: $3$" "$1"; then
		ok
	else
		bad "$(basename "$1"): not $2 samples read and kept, $3 written:"
		cat "$1"
	fi
}

# --- the real trace, as a user converts it ----------------------------------------------------
mkdir "$TMP/real"
ln -s "$NFX/$REAL.nettrace" "$TMP/real/"
if (cd "$TMP/real" && t2f "$REAL.nettrace" -o out.json) 2>"$TMP/real.err" &&
	(cd "$TMP/real" && t2f --stats "$REAL.nettrace" -o out.folded) 2>"$TMP/real.stats"; then
	ok
	if [ -s "$TMP/real.err" ]; then bad "$REAL: warnings: $(cat "$TMP/real.err")"; fi
	golden "$TMP/real/out.json" "$REAL.speedscope.json"
	golden "$TMP/real/out.folded" "$REAL.folded"
	stats "$TMP/real.stats" 6331 6331
	validate "$TMP/real/out.json"
else
	bad "$REAL: trace2flame failed:"
	cat "$TMP/real.err" "$TMP/real.stats"
fi

# --- tools/quickstart's conversion ------------------------------------------------------------
build=${T2F_BUILD_DIR:-$(dirname "$(dirname "$T2F_BIN")")}
if (cd "$SRC" && T2F_BUILD_DIR=$build T2F_EXAMPLE_DIR=$TMP/qs ./tools/quickstart --example-only) \
	>"$TMP/qs.out" 2>&1; then
	ok
	first=$(grep -m1 '^\$ ' "$TMP/qs.out")
	if [ "$first" = "\$ trace2flame $REAL.nettrace -o out.json" ]; then ok; else
		bad "quickstart's first command is '$first'"
	fi
	if cmp -s "$TMP/qs/out.json" "$TMP/real/out.json"; then ok; else
		bad "quickstart's out.json differs from the conversion above"
	fi
	validate "$TMP/qs/out.json"
	for f in example.svg example.speedscope.json example.folded; do
		if [ -s "$TMP/qs/$f" ]; then ok; else bad "quickstart wrote no $f"; fi
	done
else
	bad "tools/quickstart --example-only failed:"
	cat "$TMP/qs.out"
fi

# --- the universal trace without its ELF files ------------------------------------------------
mkdir "$TMP/u"
ln -s "$NFX/universal.nettrace" "$TMP/u/"
if (cd "$TMP/u" && t2f --stats universal.nettrace -o unnamed.folded) 2>"$TMP/u.stats"; then
	ok
	golden "$TMP/u/unnamed.folded" universal.unnamed.folded
	stats "$TMP/u.stats" 17 16
	if grep -q '^  /opt/nt-example/bin/prog: 0 resolved, 6 unresolved' "$TMP/u.stats"; then
		ok
	else
		bad "universal: the missing binary not reported: $(cat "$TMP/u.stats")"
	fi
else
	bad "universal: trace2flame failed:"
	cat "$TMP/u.stats"
fi

# --- ... and with them ------------------------------------------------------------------------
if ! T2F_SOURCE_DIR=$SRC sh "$SRC/tests/nettrace_fixtures.sh" "$TMP/fx" >"$TMP/fx.log" 2>&1; then
	bad "tests/nettrace_fixtures.sh failed:"
	tail -20 "$TMP/fx.log"
	finish
fi
ELF=$TMP/fx/elf
missing=
for f in gnu/prog gnu/libnt.so; do
	id=$(readelf -n "$ELF/$f" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
	grep -aqF "\"build_id\": \"$id\"" "$NFX/universal.nettrace" || missing="$missing $f ($id)"
done
if [ -n "$missing" ]; then
	msg="universal: the ELF files built here have other build-ids than the trace records:$missing ($(gcc --version | head -1))"
	if [ "${CI:-}" = true ]; then
		bad "$msg, and CI=true requires them"
	else
		echo "$TEST_NAME: $msg: the named conversion skipped"
	fi
	finish
fi
if cmp -s "$TMP/fx/universal.nettrace" "$NFX/universal.nettrace"; then ok; else
	bad "tools/make-nettrace writes other bytes from universal.desc than the shipped file"
fi
# named ARGS...: the universal trace converted with the ELF files, without a warning.
named() {
	(cd "$TMP/u" && t2f --symbol-path "$ELF/gnu" "$@" universal.nettrace) 2>"$TMP/u.err" &&
		[ ! -s "$TMP/u.err" ]
}
if named -o named.folded --event cpu && named -o named.speedscope.json --event cpu &&
	named -o cswitch.folded --event cswitch; then
	ok
	golden "$TMP/u/named.folded" universal.folded
	golden "$TMP/u/named.speedscope.json" universal.speedscope.json
	golden "$TMP/u/cswitch.folded" universal.cswitch.folded
	validate "$TMP/u/named.speedscope.json"
else
	bad "universal --symbol-path: trace2flame failed or warned: $(cat "$TMP/u.err")"
fi
# the derived events (docs/usage.md, Off-CPU time): off-cpu is cswitch as it is; wall, per stack,
# cpu's ns plus cswitch's
if named -o off.folded --event off-cpu && named -o wall.folded --event wall; then
	same_nonempty universal "--event off-cpu and --event cswitch" "$TMP/u/off.folded" \
		"$TMP/u/cswitch.folded" "< off-cpu, > cswitch"
	cat "$TMP/u/named.folded" "$TMP/u/cswitch.folded" |
		awk '{ w = $NF; sub(/ [0-9]+$/, ""); s[$0] += w } END { for (k in s) print k, s[k] }' |
		LC_ALL=C sort >"$TMP/u/sum.folded"
	LC_ALL=C sort "$TMP/u/wall.folded" >"$TMP/u/wall.sorted"
	same_nonempty universal "--event wall and cpu + cswitch" "$TMP/u/wall.sorted" \
		"$TMP/u/sum.folded" "< wall, > cpu + cswitch"
else
	bad "universal --event off-cpu / wall: trace2flame failed or warned: $(cat "$TMP/u.err")"
fi
# an SVG of wall tells the parts apart: each title gives both, a frame's colour its share
if named -o wall.svg --event wall &&
	grep -q '<title>all (16,250,000 ns, 100%; on CPU 16,000,000, off CPU 250,000)</title><rect [^>]*fill="rgb(227,90,62)"' \
		"$TMP/u/wall.svg" &&
	grep -q 'off CPU 0)</title><rect [^>]*fill="rgb(230,90,60)"' "$TMP/u/wall.svg"; then
	ok
else
	bad "universal --event wall -o wall.svg: no title with the on- and off-CPU parts"
fi

finish
