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
# fixtures/perf-script/expected/<case>[+opt+opt].folded|speedscope.json|svg|pb.gz|profile.json, no
# manifest: the
# file name says what to run. Options after '+': pid tid all kernel jit addrs raw-names icicle
# reverse hash flamechart (--NAME), samples (--weight samples), event=NAME (--event NAME),
# colors=PAL (--colors PAL). <case>.folded and <case>.speedscope.json must exist for every input
# (an .svg or .pb.gz only where one was made); to add a variant, create an empty expected/<case>+opt.<ext>
# and run with T2F_BLESS=1.
# A .pb.gz is compared as the protobuf it inflates to (gzip -dc): the deflated bytes are igzip's
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

# same KIND EXPECTED OUT: the two files hold the same output (pprof: the same protobuf).
same() {
	if [ "$1" = pprof ]; then
		gzip -dc "$2" >"$TMP/exp.pb" && gzip -dc "$3" >"$TMP/out.pb" &&
			cmp -s "$TMP/exp.pb" "$TMP/out.pb"
	else
		cmp -s "$2" "$3"
	fi
}

# convert INPUT OPTS FORMAT OUT: runs trace2flame from the fixtures directory with the input's
# bare name, so names in the output never depend on where the tree is; with a time limit of
# T2F_TEST_TIMEOUT seconds (default 60) so a hang fails instead of blocking ctest.
convert() {
	_in=$1 _opts=$2 _fmt=$3 _out=$4
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
	(cd "$FX" && t2f -f "$_fmt" "$@" -o "$_out" "$_in") 2>"$TMP/err"
}

# The expected files to check: every existing one, plus the two every input must have.
: >"$TMP/list"
for f in "$exp"/*.folded "$exp"/*.speedscope.json "$exp"/*.svg "$exp"/*.pb.gz "$exp"/*.profile.json; do
	[ -e "$f" ] && basename "$f" >>"$TMP/list"
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
	case $e in
	*.speedscope.json) stem=${e%.speedscope.json} fmt=speedscope kind=speedscope ;;
	*.folded) stem=${e%.folded} fmt=collapsed kind=folded ;;
	*.svg) stem=${e%.svg} fmt=svg kind=svg ;;
	*.pb.gz) stem=${e%.pb.gz} fmt=pprof kind=pprof ;;
	*.profile.json) stem=${e%.profile.json} fmt=firefox kind=firefox ;;
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
	if ! convert "$in" "$opts" "$fmt" "$out"; then
		bad "$e: trace2flame failed on $in$(echo "$opts" | sed 's/+/ +/g'):"
		sed 's/^/    /' "$TMP/err" | head -n 10
		continue
	fi
	if [ "$bless" = 1 ]; then
		if ! same "$kind" "$exp/$e" "$out"; then
			cp "$out" "$exp/$e" && echo "blessed $e"
			blessed=$((blessed + 1))
		fi
	elif [ ! -f "$exp/$e" ]; then
		bad "$e: expected file missing (run with T2F_BLESS=1 to create it)"
		continue
	elif ! same "$kind" "$exp/$e" "$out"; then
		bad "$e: output differs from expected/$e"
		diff -u "$exp/$e" "$out" | head -n 20 | cut -c1-200 | sed 's/^/    /'
		continue
	fi
	# an SVG is checked with a search for its first frame under "all", which is then clicked
	term=
	[ "$kind" = svg ] && term=$(sed -n 's/^<g><title>\(.*\) ([0-9,]* [^ ]*, [0-9.]*%)<\/title>.*/\1/p' "$out" | sed -n 2p)
	if [ "$VALIDATE" = 1 ] && [ "$kind" != firefox ] && ! "$CHECK" "$kind" "$out" ${term:+"$term"} >"$TMP/check" 2>&1; then
		bad "$e: rejected by the $kind validator:"
		head -n 10 "$TMP/check" | sed 's/^/    /'
		continue
	fi
	ok
done

[ "$bless" = 1 ] && echo "golden: $blessed expected files written"
finish
