#!/bin/sh
# tests/tools/test_skips.sh: tools/test-skips on a ctest log made here: the tests' skip lines
# (a missing checker, the corpus, rustc, a cmocka skip listed twice), each once, after its
# test's name, with what enables it where the line does not say; no line of a passing check
# (cmocka's RUN/OK lines of a test named *skipped*, "0 skipped" counts, FAIL lines); "1 part"
# for one skip; nothing at all for a log without skips.
#
# usage: sh tests/tools/test_skips.sh
# env: T2F_SOURCE_DIR
set -u
SRC=${T2F_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/t2f-test-skips.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
fail=0

# entry N NAME LINE...: one test's section of LastTest.log
entry() {
	printf '%s/9 Testing: %s\n%s/9 Test: %s\nCommand: "sh" "x.sh"\nOutput:\n' "$1" "$2" "$1" "$2"
	printf -- '----------------------------------------------------------\n'
	shift 2
	for l in "$@"; do printf '%s\n' "$l"; done
	printf '<end of output>\nTest time =   0.01 sec\nTest Passed.\n\n'
}

mkdir -p "$TMP/b/Testing/Temporary" "$TMP/clean/Testing/Temporary"
{
	echo "Start testing: Nov 28 14:55 UTC"
	entry 1 golden/perf-script \
		"golden: not installed: node-packages: skipping output validation (run tools/setup-validators)" \
		"golden: 120 passed, 0 failed"
	entry 2 corpus/perf-script \
		"corpus: /x/../shared/corpus/perf-script not found (the real recordings beside the checkout; a clone has none): skipping the corpus tests"
	entry 3 unwind/recorded "unwind: rs: no working rustc: skipped" "unwind: 40 passed, 0 failed"
	entry 4 unit/test_collapsed "[ RUN      ] test_corpus" "[  SKIPPED ] test_corpus" \
		"[ RUN      ] test_skipped_fields" "[       OK ] test_skipped_fields" \
		"[  PASSED  ] 1 test(s)." "[  SKIPPED ] 1 test(s), listed below:" \
		"[  SKIPPED ] test_corpus" " 1 SKIPPED TEST(S)"
	entry 5 nettrace/fixture-writer "nettrace_fixtures: 45 passed, 0 failed, 0 skipped"
	entry 6 cli/bad-input "FAIL bad.txt: expected 'not found' in the message"
} >"$TMP/b/Testing/Temporary/LastTest.log"

cat >"$TMP/want" <<'EOF'

Not run here: 4 parts of the tests (their output: LOG):
  golden/perf-script: golden: not installed: node-packages: skipping output validation (run tools/setup-validators)
  corpus/perf-script: corpus: /x/../shared/corpus/perf-script not found (the real recordings beside the checkout; a clone has none): skipping the corpus tests
      to run it: needs the real recordings in ../shared/corpus beside the checkout
  unwind/recorded: unwind: rs: no working rustc: skipped
      to run it: sudo apt-get install rustc
  unit/test_collapsed: [  SKIPPED ] test_corpus
      to run it: needs the real recordings in ../shared/corpus beside the checkout
EOF
sed "s|LOG|$TMP/b/Testing/Temporary/LastTest.log|" "$TMP/want" >"$TMP/want.log"
if "$SRC/tools/test-skips" "$TMP/b" >"$TMP/got" && cmp -s "$TMP/got" "$TMP/want.log"; then
	:
else
	echo "FAIL tools/test-skips: the skips listed differ (< expected, > got):"
	diff "$TMP/want.log" "$TMP/got"
	fail=1
fi

# one skip: "1 part"
mkdir -p "$TMP/one/Testing/Temporary"
{
	echo "Start testing: Nov 28 14:55 UTC"
	entry 1 unwind/recorded "unwind: rs: no working rustc: skipped"
} >"$TMP/one/Testing/Temporary/LastTest.log"
if ! "$SRC/tools/test-skips" "$TMP/one" | grep -q '^Not run here: 1 part of the tests (their'; then
	echo "FAIL tools/test-skips: one skip is not \"1 part\": $("$SRC/tools/test-skips" "$TMP/one")"
	fail=1
fi

# a log whose tests all ran in full, and a build directory without a log: nothing
{
	echo "Start testing: Nov 28 14:55 UTC"
	entry 1 golden/perf-script "golden: 120 passed, 0 failed"
} >"$TMP/clean/Testing/Temporary/LastTest.log"
for d in "$TMP/clean" "$TMP/none"; do
	if ! out=$("$SRC/tools/test-skips" "$d") || [ -n "$out" ]; then
		echo "FAIL tools/test-skips $d: printed '$out' or failed"
		fail=1
	fi
done
echo "test_skips: $([ "$fail" = 0 ] && echo passed || echo failed)"
exit "$fail"
