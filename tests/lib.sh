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
#   find_validators SKIP [CI]
#                           VALIDATE=1 and CHECK (../shared/validators/check, beside the project
#                           root) when the validators are installed (CHECK, node_modules in
#                           T2F_VALIDATORS, default ~/.cache/t2f-validators, and node); else, when
#                           CI is "true", says CI=true requires them and exits 1, otherwise sets
#                           VALIDATE=0 and says SKIP is skipped
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
	CHECK=$SRC/../shared/validators/check
	_vdir=${T2F_VALIDATORS:-$HOME/.cache/t2f-validators}
	if [ -x "$CHECK" ] && [ -d "$_vdir/node_modules" ] && command -v node >/dev/null 2>&1; then
		VALIDATE=1
	elif [ "${2:-}" = true ]; then
		echo "$TEST_NAME: validators not installed ($CHECK, $_vdir/node_modules), and CI=true requires them"
		exit 1
	else
		VALIDATE=0
		echo "$TEST_NAME: validators not installed ($CHECK, $_vdir/node_modules): $1"
	fi
}

pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() {
	fail=$((fail + 1))
	echo "FAIL $*"
}

# need_perf_record: makes $TMP, then exits 0 (the test skipped, with the reason) when perf is
# missing or may not record -e cpu-clock here
need_perf_record() {
	if ! command -v perf >/dev/null 2>&1; then
		echo "$TEST_NAME: perf not found: skipping"
		exit 0
	fi
	make_tmp
	if ! perf record -q -e cpu-clock -o "$TMP/probe.data" -- true >"$TMP/probe.err" 2>&1; then
		echo "$TEST_NAME: perf record -e cpu-clock is not allowed here (perf_event_paranoid" \
			"$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)): skipping"
		sed 's/^/  /' "$TMP/probe.err" | head -5
		exit 0
	fi
}

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
