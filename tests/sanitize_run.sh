#!/bin/sh
# Runs one test of the sanitizer build (-DT2F_SANITIZE=ON) and fails it when AddressSanitizer,
# LeakSanitizer or UBSan reported anything in any process it started, even when the test itself
# passed: a report in a run expected to fail, or whose stderr a script keeps to itself, still
# fails the test. The reports are printed at the end. (UBSan's own message goes to the process's
# stderr; its report file holds ASan's report of the abort that followed, the check on the stack.)
#
# usage: sh tests/sanitize_run.sh COMMAND [ARGS...]
# env:   T2F_SANITIZER_LOGS  the test's own report directory, emptied first; ASAN_OPTIONS and
#                            UBSAN_OPTIONS (set by tests/CMakeLists.txt) write their reports
#                            there through log_path=
set -u

logs=${T2F_SANITIZER_LOGS:?T2F_SANITIZER_LOGS is not set}
if [ $# -lt 1 ]; then
	echo "usage: $0 COMMAND [ARGS...]" >&2
	exit 2
fi
rm -rf "$logs" && mkdir -p "$logs" || exit 1

"$@"
rc=$?

reports=$(find "$logs" -type f | sort)
[ -z "$reports" ] && exit "$rc"
for f in $reports; do
	echo "=== sanitizer report $f"
	cat "$f"
done
echo "sanitizer: $(echo "$reports" | wc -l) report(s) (test exit status $rc): failing the test"
exit 1
