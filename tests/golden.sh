#!/bin/sh
# Golden tests: every fixture input against its expected outputs, byte for byte.
#
# usage: sh tests/golden.sh TRACE2FLAME
# env:   T2F_SOURCE_DIR  project root (set by ctest; default: this script's parent directory)
#        T2F_BLESS=1     write/rewrite the expected files instead of comparing
#        T2F_VALIDATORS_DIR  where tools/setup-validators installed the output checkers
#
# Inputs: fixtures/perf-script/<case>.perf.txt (any *.txt except bad_*: perf script text, or
# folded stacks). Expected outputs:
# fixtures/perf-script/expected/<case>[+opt+opt].EXT, EXT one of the file name endings
# `trace2flame --list-formats` gives (folded, speedscope.json, svg, pb.gz ...), no manifest: the
# file name says what to run, and the output is named as the expected file, so its ending picks
# the format as -o does. Options after '+': pid tid all kernel jit addrs raw-names icicle
# reverse hash flamechart (--NAME), samples (--weight samples), event=NAME (--event NAME),
# colors=PAL (--colors PAL). <case>.folded and <case>.speedscope.json must exist for every input
# (an .svg or .pb.gz only where one was made); to add a variant, create an empty expected/<case>+opt.<ext>
# and run with T2F_BLESS=1.
# A .gz output (pprof's .pb.gz) is compared as what it inflates to (gzip -dc): the deflated bytes are igzip's
# (zlib's without libisal.so.2) and may differ between igzip's CPU-specific code paths; the gzip
# stage has its own unit test (tests/unit/test_pprof_gz.c). Every output is also checked by
# tests/validate/check when the checkers are installed (a .profile.json, the Firefox profile, by
# tests/firefox_check.sh instead: the profiler's own loader).
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
t2f_init .. 1 "$@"
exp=$FX/expected
bless=${T2F_BLESS:-0}
make_tmp

blessed=0
find_validators "skipping output validation" speedscope pprof folded svg browser

# The formats: "EXT FORMAT" lines, longest ending first (x.speedscope.json before x.json).
t2f --list-formats | awk '{ for (i = 2; i <= NF && substr($i, 1, 1) == "."; i++) print $i, $1 }' |
	awk '{ print length($1), $0 }' | sort -k1,1nr | cut -d' ' -f2- >"$TMP/formats"
[ -s "$TMP/formats" ] || { echo "golden: trace2flame --list-formats listed no format"; exit 1; }

# format_of NAME: "EXT FORMAT" of the longest ending of NAME that picks a format, or nothing.
format_of() {
	while read -r _x _f; do
		case $1 in *?"$_x") echo "$_x $_f" && return ;; esac
	done <"$TMP/formats"
}

# same EXT EXPECTED OUT: the two files hold the same output (a .gz one: the same bytes inflated).
same() {
	if [ "${1%.gz}" != "$1" ]; then
		gzip -dc "$2" >"$TMP/exp.pb" && gzip -dc "$3" >"$TMP/out.pb" &&
			cmp -s "$TMP/exp.pb" "$TMP/out.pb"
	else
		cmp -s "$2" "$3"
	fi
}

# convert INPUT OPTS OUT: runs trace2flame from the fixtures directory with the input's
# bare name, so names in the output never depend on where the tree is; with a time limit of
# T2F_TEST_TIMEOUT seconds (default 60) so a hang fails instead of blocking ctest.
convert() {
	_in=$1 _opts=$2 _out=$3
	set --
	_ifs=$IFS
	IFS=+
	set -f
	for _o in $_opts; do
		case $_o in
		'') ;;
		pid | tid | all | kernel | jit | addrs | raw-names) set -- "$@" "--$_o" ;;
		icicle | reverse | hash | flamechart) set -- "$@" "--$_o" ;;
		colors=?*) set -- "$@" --colors "${_o#colors=}" ;;
		samples) set -- "$@" --weight samples ;;
		event=?*) set -- "$@" --event "${_o#event=}" ;;
		*)
			IFS=$_ifs
			set +f
			echo "unknown option '$_o' in an expected file name" >"$TMP/err"
			return 2
			;;
		esac
	done
	IFS=$_ifs
	set +f
	(cd "$FX" && t2f "$@" -o "$_out" "$_in") 2>"$TMP/err"
}

# The expected files to check: every existing one, plus the two every input must have.
: >"$TMP/list"
for f in "$exp"/*; do
	[ -f "$f" ] && basename "$f" >>"$TMP/list"
done
ninputs=0
for f in "$FX"/*.txt; do
	[ -e "$f" ] || continue
	name=$(basename "$f")
	case $name in bad_*) continue ;; esac
	ninputs=$((ninputs + 1))
	c=${name%.txt}
	c=${c%.perf}
	printf '%s\n%s\n' "$c.folded" "$c.speedscope.json" >>"$TMP/list"
done
if [ "$ninputs" -eq 0 ]; then
	echo "golden: no input in $FX"
	exit 1
fi
[ "$bless" = 1 ] && mkdir -p "$exp"

for e in $(LC_ALL=C sort -u "$TMP/list"); do
	x=$(format_of "$e")
	if [ -z "$x" ]; then
		bad "$e: no output format has its file name ending"
		continue
	fi
	ext=${x% *} fmt=${x#* }
	stem=${e%"$ext"}
	# the validator's name for the format (tests/validate/check); none: not validated
	case $fmt in
	collapsed) kind=folded ;;
	speedscope | pprof | svg) kind=$fmt ;;
	*) kind= ;;
	esac
	c=${stem%%+*}
	opts=${stem#"$c"}
	if [ -f "$FX/$c.perf.txt" ]; then
		in=$c.perf.txt
	elif [ -f "$FX/$c.txt" ]; then
		in=$c.txt
	else
		bad "$e: no input $c.perf.txt for this expected file"
		continue
	fi
	out=$TMP/$e
	if ! convert "$in" "$opts" "$out"; then
		bad "$e: trace2flame failed on $in$(echo "$opts" | sed 's/+/ +/g'):"
		sed 's/^/    /' "$TMP/err" | head -n 10
		continue
	fi
	if [ "$bless" = 1 ]; then
		if ! same "$ext" "$exp/$e" "$out"; then
			cp "$out" "$exp/$e" && echo "blessed $e"
			blessed=$((blessed + 1))
		fi
	elif [ ! -f "$exp/$e" ]; then
		bad "$e: expected file missing (run with T2F_BLESS=1 to create it)"
		continue
	elif ! same "$ext" "$exp/$e" "$out"; then
		bad "$e: output differs from expected/$e"
		diff -u "$exp/$e" "$out" | head -n 20 | cut -c1-200 | sed 's/^/    /'
		continue
	fi
	# an SVG is checked with a search for its first frame under "all", which is then clicked
	term=
	[ "$kind" = svg ] && term=$(sed -n 's/^<g><title>\(.*\) ([0-9,]* [^ ]*, [0-9.]*%)<\/title>.*/\1/p' "$out" | sed -n 2p)
	if [ "$VALIDATE" = 1 ] && [ -n "$kind" ] && ! "$CHECK" "$kind" "$out" ${term:+"$term"} >"$TMP/check" 2>&1; then
		bad "$e: rejected by the $kind validator:"
		head -n 10 "$TMP/check" | sed 's/^/    /'
		continue
	fi
	ok
done

[ "$bless" = 1 ] && echo "golden: $blessed expected files written"
finish
