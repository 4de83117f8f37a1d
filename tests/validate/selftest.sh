#!/bin/sh
# tests/validate/selftest.sh: the output checkers can fail. tests/validate/check must accept the
# golden outputs of fixtures/perf-script/expected (burner.speedscope.json, burner.folded,
# burner.svg, counts.folded.pb.gz) and a small pprof profile encoded by tests/validate/broken.py,
# and must reject every broken output broken.py writes (a truncated speedscope file, a frame
# index out of range, a file only speedscope's importer refuses, a pprof string index out of
# range, folded lines with a TAB, an SVG whose script throws, whose search or zoom does
# nothing, ...); Go pprof alone must refuse the broken pprof files it checks itself (a string
# index out of range, a missing function, ...). The checkers that need only python3
# (pprof_structure.py, folded.py) are also run alone on the broken pprof and folded files, so
# they are tested even where the rest is not installed.
#
# usage: sh tests/validate/selftest.sh
# env:   T2F_SOURCE_DIR (default: this script's ../..); CI=true: every checker must be installed;
#        otherwise the checks whose parts are not installed are skipped, said in one line
set -u
SRC=${T2F_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
CHECK=$SRC/tests/validate/check
EXP=$SRC/fixtures/perf-script/expected
TMP=$(mktemp -d "${TMPDIR:-/tmp}/t2f-validate.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM
pass=0 fail=0 skipped=" "

missing=$("$CHECK" --missing)
if [ -n "$missing" ]; then
	if [ "${CI:-}" = true ]; then
		echo "selftest: not installed: $missing (run tools/setup-validators), and CI=true requires it"
		exit 1
	fi
	echo "selftest: not installed: $missing: the checks that need it are skipped" \
		"(run tools/setup-validators)"
fi

# run WANT FILE KIND [TERM]: check KIND FILE [TERM] exits WANT (0 or 1); 77 (not installed)
# skips this and the later checks of KIND
run() {
	_want=$1 _file=$2 _kind=$3
	shift 3
	case $skipped in *" $_kind "*) return ;; esac
	"$CHECK" "$_kind" "$_file" "$@" >"$TMP/out" 2>&1
	_rc=$?
	if [ "$_rc" = 77 ]; then
		skipped="$skipped$_kind "
	elif [ "$_rc" = "$_want" ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL check $_kind $(basename "$_file"): exit $_rc, expected $_want:"
		head -n 5 "$TMP/out" | sed 's/^/    /'
	fi
}

# alone WANT FILE SCRIPT: python3 SCRIPT FILE exits WANT
alone() {
	python3 "$SRC/tests/validate/$3" "$2" >"$TMP/out" 2>&1
	_rc=$?
	if [ "$_rc" = "$1" ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL $3 $(basename "$2"): exit $_rc, expected $1:"
		head -n 5 "$TMP/out" | sed 's/^/    /'
	fi
}

if ! python3 "$SRC/tests/validate/broken.py" "$SRC" "$TMP" 2>"$TMP/err"; then
	echo "FAIL broken.py: $(cat "$TMP/err")"
	exit 1
fi
term=$(sed -n 's/^<g><title>\(.*\) ([0-9,]* [^ ]*, [0-9.]*%)<\/title>.*/\1/p' "$EXP/burner.svg" |
	sed -n 2p)

alone 0 "$TMP/good.pprof.pb.gz" pprof_structure.py
alone 0 "$EXP/burner.folded" folded.py
for f in "$TMP"/pprof.*; do alone 1 "$f" pprof_structure.py; done
for f in "$TMP"/folded.*; do alone 1 "$f" folded.py; done

run 0 "$EXP/burner.speedscope.json" speedscope
run 0 "$TMP/good.pprof.pb.gz" pprof
run 0 "$EXP/counts.folded.pb.gz" pprof
run 0 "$EXP/burner.folded" folded
run 0 "$EXP/burner.svg" svg "$term"
for f in "$TMP"/speedscope.*; do run 1 "$f" speedscope; done
for f in "$TMP"/pprof.*; do run 1 "$f" pprof; done
for f in "$TMP"/folded.*; do run 1 "$f" folded; done
# Go pprof alone refuses what it checks itself (the structure checker runs first in check pprof)
if pprof=$("$CHECK" --pprof); then
	for w in string-index string-table-0 no-function no-location value-count duplicate-id; do
		if "$pprof" -raw -symbolize=none "$TMP/pprof.$w.pb.gz" >/dev/null 2>&1; then
			fail=$((fail + 1))
			echo "FAIL Go pprof accepts pprof.$w.pb.gz"
		else
			pass=$((pass + 1))
		fi
	done
fi
# without Chromium only the XML part runs: the broken scripts are not seen
if [ -z "$("$CHECK" --missing browser)" ]; then
	for f in "$TMP"/svg.*; do run 1 "$f" svg "$term"; done
else
	run 1 "$TMP/svg.not-xml.svg" svg "$term"
fi

echo "selftest: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
