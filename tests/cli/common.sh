# Sourced by the tests/cli/*.sh scripts (POSIX sh), with their arguments: $1 = the trace2flame
# binary. Sets T2F_BIN, FX (fixtures/perf-script) and TMP (removed at exit), changes to FX so
# inputs are named bare, and provides:
#   t2f ARGS...          trace2flame with a time limit, T2F_TEST_TIMEOUT seconds (default 60):
#                        a hang fails the check instead of blocking ctest
#   expect RC WHAT ARGS  runs t2f ARGS (stdout → $TMP/out, stderr → $TMP/err); checks the exit code
#   stderr_has WHAT ERE  checks $TMP/err for an extended regular expression
#   file_has WHAT F ERE  checks file F for an extended regular expression
#   same WHAT A B        checks two files are byte-identical
#   ok / bad MESSAGE     count a check; finish prints "NAME: N passed, N failed" and exits
set -u
if [ $# -lt 1 ]; then
	echo "usage: $0 TRACE2FLAME" >&2
	exit 2
fi
case $1 in
/*) T2F_BIN=$1 ;;
*) T2F_BIN=$(pwd)/$1 ;;
esac
SRC=${T2F_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
FX=$SRC/fixtures/perf-script
TEST_NAME=$(basename "$0" .sh)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/t2f-$TEST_NAME.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM
cd "$FX" || exit 1

if command -v timeout >/dev/null 2>&1; then
	t2f() { timeout "${T2F_TEST_TIMEOUT:-60}" "$T2F_BIN" "$@"; }
else
	t2f() { "$T2F_BIN" "$@"; }
fi

pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() {
	fail=$((fail + 1))
	echo "FAIL $*"
}
show_err() { head -n 5 "$TMP/err" | sed 's/^/    stderr: /'; }

expect() {
	_want=$1 _what=$2
	shift 2
	t2f "$@" >"$TMP/out" 2>"$TMP/err"
	_rc=$?
	if [ "$_rc" -eq "$_want" ]; then
		ok
		return 0
	fi
	bad "$_what: exit $_rc, want $_want (trace2flame $*)"
	show_err
	return 1
}

stderr_has() {
	if grep -Eq -- "$2" "$TMP/err"; then
		ok
		return 0
	fi
	bad "$1: stderr does not match /$2/"
	show_err
	return 1
}

file_has() {
	if grep -Eq -- "$3" "$2"; then
		ok
		return 0
	fi
	bad "$1: $2 does not match /$3/"
	return 1
}

same() {
	if cmp -s "$2" "$3"; then
		ok
		return 0
	fi
	bad "$1: $2 and $3 differ"
	diff "$2" "$3" 2>/dev/null | head -n 6 | cut -c1-160 | sed 's/^/    /'
	return 1
}

finish() {
	echo "$TEST_NAME: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit
}
