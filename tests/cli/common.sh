# Sourced by the tests/cli/*.sh scripts (POSIX sh), with their arguments: $1 = the trace2flame
# binary. On top of ../lib.sh (T2F_BIN, FX = fixtures/perf-script, TEST_NAME, t2f, ok / bad /
# finish: see there): sets TMP (removed at exit), changes to FX so inputs are named bare, and
# provides:
#   expect RC WHAT ARGS  runs t2f ARGS (stdout → $TMP/out, stderr → $TMP/err); checks the exit code
#   stderr_has WHAT ERE  checks $TMP/err for an extended regular expression
#   file_has WHAT F ERE  checks file F for an extended regular expression
#   same WHAT A B        checks two files are byte-identical
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
t2f_init ../.. '' "$@"
make_tmp
cd "$FX" || exit 1

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
