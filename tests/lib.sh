# Sourced first by the test scripts (POSIX sh): tests/golden.sh, tests/corpus.sh and, through
# tests/cli/common.sh, tests/cli/*.sh. Sets -u and provides:
#   t2f_init ROOT MAX ARGS  checks the script's arguments ARGS: TRACE2FLAME first, MAX of them at
#                           most (empty: no limit), else prints a usage line and exits 2. Sets
#                           T2F_BIN (TRACE2FLAME made absolute), SRC (T2F_SOURCE_DIR, default the
#                           script's directory/ROOT), FX (fixtures/perf-script) and TEST_NAME (the
#                           script's name without .sh)
#   make_tmp                TMP, a new temp directory removed at exit; INT and TERM exit 130
#   t2f ARGS...             trace2flame with a time limit, T2F_TEST_TIMEOUT seconds (default 60):
#                           a hang fails the check instead of blocking ctest
#   find_validators SKIP KIND...
#                           VALIDATE=1 and CHECK (tests/validate/check) when the checks of each
#                           KIND the test runs (speedscope, pprof, folded, svg; browser: the
#                           Chromium part of svg) are installed (tools/setup-validators); else,
#                           under CI=true, says what is missing and that CI=true requires it, and
#                           exits 1; otherwise sets VALIDATE=0 and prints one line: what is
#                           missing, SKIP, and the command that installs it. Outside CI=true
#                           browser is optional: without it VALIDATE stays 1, the SVG checks stop
#                           at well-formed XML, and the line says so.
#   ok / bad MESSAGE        count a check; finish prints "NAME: N passed, N failed" and exits,
#                           with status 0 only if no check failed
set -u

# shellcheck disable=SC2034 # FX: for the scripts that source this file
t2f_init() {
	_root=$1 _max=$2
	shift 2
	if [ $# -lt 1 ] || { [ -n "$_max" ] && [ $# -gt "$_max" ]; }; then
		echo "usage: $0 TRACE2FLAME" >&2
		exit 2
	fi
	case $1 in
	/*) T2F_BIN=$1 ;;
	*) T2F_BIN=$(pwd)/$1 ;;
	esac
	SRC=${T2F_SOURCE_DIR:-$(cd "$(dirname "$0")/$_root" && pwd)}
	FX=$SRC/fixtures/perf-script
	TEST_NAME=$(basename "$0" .sh)
}

make_tmp() {
	TMP=$(mktemp -d "${TMPDIR:-/tmp}/t2f-$TEST_NAME.XXXXXX") || exit 1
	trap 'rm -rf "$TMP"' EXIT
	trap 'exit 130' INT TERM
}

if command -v timeout >/dev/null 2>&1; then
	t2f() { timeout "${T2F_TEST_TIMEOUT:-60}" "$T2F_BIN" "$@"; }
else
	t2f() { "$T2F_BIN" "$@"; }
fi

# shellcheck disable=SC2034 # VALIDATE: for the scripts that source this file
find_validators() {
	CHECK=$SRC/tests/validate/check
	_vskip=$1
	shift
	_vall=$("$CHECK" --missing "$@")
	_vreq=
	for _vk in "$@"; do
		[ "$_vk" = browser ] || _vreq="$_vreq $_vk"
	done
	VALIDATE=1
	# shellcheck disable=SC2086 # _vreq: several kinds
	[ -z "$_vreq" ] || [ -z "$("$CHECK" --missing $_vreq)" ] || VALIDATE=0
	[ -n "$_vall" ] || return 0
	if [ "${CI:-}" = true ]; then
		echo "$TEST_NAME: not installed: $_vall (run tools/setup-validators), and CI=true requires it"
		exit 1
	fi
	if [ "$VALIDATE" = 1 ]; then
		echo "$TEST_NAME: not installed: $_vall: SVG checks stop at well-formed XML (run tools/setup-validators)"
	else
		echo "$TEST_NAME: not installed: $_vall: $_vskip (run tools/setup-validators)"
	fi
}

pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() {
	fail=$((fail + 1))
	echo "FAIL $*"
}

# perf_can_record SKIPPED: true when perf may record -e cpu-clock here ($TMP must exist); else
# false, after one line saying why, what to do and SKIPPED ("skipping the recordings")
perf_can_record() {
	if ! command -v perf >/dev/null 2>&1; then
		echo "$TEST_NAME: perf not found (Debian linux-perf: tools/quickstart installs it):" \
			"$1"
		return 1
	fi
	if ! perf record -q -e cpu-clock -o "$TMP/probe.data" -- true >"$TMP/probe.err" 2>&1; then
		echo "$TEST_NAME: perf record -e cpu-clock is not allowed here" \
			"(kernel.perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null);" \
			"run as root, or sysctl kernel.perf_event_paranoid=1; perf said:" \
			"$(head -n 1 "$TMP/probe.err")): $1"
		return 1
	fi
}

# need_perf_record: makes $TMP, then exits 0 (the test skipped, with one line saying why and
# what to do) when perf is missing or may not record -e cpu-clock here
need_perf_record() {
	make_tmp
	perf_can_record skipping || exit 0
}

# cache_setup: what the symbol cache tests (tests/cache/) start with: need_perf_record (TMP; exit
# 0 when perf may not record here), no debuginfod server, FP (the flags the recorded programs are
# built with: -O2 -g, frame pointers) and C, the test's own cache directory (T2F_CACHE_DIR)
# shellcheck disable=SC2034 # FP: for the scripts that source this file
cache_setup() {
	need_perf_record
	export DEBUGINFOD_URLS=
	FP="-O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer"
	C=$TMP/cache
	export T2F_CACHE_DIR="$C"
}

# record_user NAME CMD...: perf record -g -e cpu-clock:u --buildid-all of CMD into $TMP/NAME.data
# (perf's messages in $TMP/NAME.rec); else a failed check and false
record_user() {
	_rn=$1
	shift
	perf record -q -g -e cpu-clock:u --buildid-all -o "$TMP/$_rn.data" -- "$@" \
		>/dev/null 2>"$TMP/$_rn.rec" && return 0
	bad "$_rn: perf record failed: $(head -3 "$TMP/$_rn.rec")"
	return 1
}

# CORPUS_MISSING: how a test says the real-recording corpus is absent (it lives beside the
# checkout, in ../shared/corpus, which a clone of the repository does not have)
# shellcheck disable=SC2034 # for the scripts that source this file
CORPUS_MISSING="not found (the real recordings beside the checkout; a clone has none)"

# same_nonempty NAME WHAT A B LABEL: A and B are the same bytes and A is not empty; else the first
# lines of their diff, LABEL saying what < and > are ("< perf, > dump")
same_nonempty() {
	if [ ! -s "$3" ]; then
		bad "$1: $2: nothing to compare ($3 is empty)"
	elif cmp -s "$3" "$4"; then
		ok
	else
		bad "$1: $2 differ ($5):"
		diff "$3" "$4" | head -10 | cut -c1-300
	fi
}

finish() {
	echo "$TEST_NAME: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit
}
