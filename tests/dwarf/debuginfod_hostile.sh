#!/bin/sh
# tests/dwarf/debuginfod_hostile.sh: fetches from a hostile debuginfod server stay bounded and
# leave nothing refused in the cache. tests/dwarf/hostile_debuginfod.py runs on 127.0.0.1 (a
# free port) and answers each build-id its own way; trace2flame asks it through `resolve
# --debuginfod URL --build-id ID` (or a conversion naming two modules), with the bounds made
# small (T2F_DEBUGINFOD_MAXSIZE 2 MiB, T2F_DEBUGINFOD_TIMEOUT 3 s). Each run is held to 60 s
# by timeout(1), a hang guard only; no file this test writes may pass 256 MiB (ulimit -f: the
# process writing more is killed by SIGXFSZ). For each answer:
#  - endless zeros: cut past 2 MiB, the cut said with the build-id and the bound; the server
#    sent less than 64 MiB (a bound, not the stream); nothing of it in the cache;
#  - a gzip bomb (64 MiB of zeros in 64 KiB, Content-Encoding: gzip): cut as well (the bytes
#    counted are the inflated ones); nothing in the cache;
#  - a Content-Length of 64 GiB: refused from the header, almost nothing sent;
#  - one byte a second: cut after 3 s (less than 100 KiB in T2F_DEBUGINFOD_TIMEOUT);
#  - a slow redirect loop (20 hops a second): cut after 3 s the same way;
#  - a conversion of two modules whose build-ids both drip: the first cut, the second never
#    asked for (no fetch after a timeout); --stats counts both;
#  - T2F_DEBUGINFOD_BUDGET 2 s (the stall bound left long): the drip cut by the budget;
#  - a valid ELF file of another build-id: refused and removed from the cache, so each of three
#    runs asks the server again (three requests);
#  - a run killed by SIGTERM or SIGINT (resolve) or SIGTERM (a conversion) while the drip's
#    temp file exists, or by SIGTERM right after libdebuginfod made that file (before the fetch
#    is told of it; tests/dwarf/slow_mkstemp.c, preloaded, sleeps there): it ends by that signal
#    and no debuginfo.XXXXXX is left;
#  - after each, the build-id's cache directory holds no debuginfo file (not the refused
#    file, not an empty "not found" mark, not a temp file).
#
# usage: tests/dwarf/debuginfod_hostile.sh TRACE2FLAME   (env: T2F_SOURCE_DIR)
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
t2f_init ../.. 1 "$@"
make_tmp
if ! command -v python3 >/dev/null 2>&1 || ! command -v timeout >/dev/null 2>&1; then
	echo "$TEST_NAME: python3 and timeout(1) are needed: skipping"
	exit 0
fi
# shellcheck disable=SC3045 # ulimit -f: dash (512-byte blocks: 256 MiB), bash (1 KiB: 512 MiB)
ulimit -f 524288
# shellcheck disable=SC3045 # ulimit -c: dash, bash (SIGXFSZ dumps core by default)
ulimit -c 0 2>/dev/null

srv=
stop_server() {
	if [ -n "$srv" ]; then kill "$srv" 2>/dev/null; wait "$srv" 2>/dev/null; fi
	srv=
}
trap 'stop_server; rm -rf "$TMP"' EXIT

cc -O2 -g -Wl,--build-id=sha1 -o "$TMP/other" "$SRC/fixtures/dwarf/inl.c" || exit 1
id() { printf "%s%038d" "$1" 0; } # a 20-byte build-id starting with byte $1
endless=$(id e1) bomb=$(id b0) toobig=$(id b1) drip=$(id d1) drip2=$(id d2) drip3=$(id d3)
redirect=$(id a1) wrong=$(id c1)
python3 "$SRC/tests/dwarf/hostile_debuginfod.py" --port-file "$TMP/port" --log "$TMP/log" \
	--elf "$TMP/other" --bomb-mib 64 --max-mib 1024 "$endless=endless" "$bomb=bomb" \
	"$toobig=toobig" "$drip=drip" "$drip2=drip" "$drip3=drip" "$redirect=redirect" \
	"$wrong=wrongid" 2>"$TMP/server.err" &
srv=$!
i=0
until [ -s "$TMP/port" ]; do
	i=$((i + 1))
	if [ $i -gt 200 ] || ! kill -0 "$srv" 2>/dev/null; then
		echo "FAIL the server did not start: $(cat "$TMP/server.err")"
		exit 1
	fi
	sleep 0.1
done
url=http://127.0.0.1:$(cat "$TMP/port")

export HOME="$TMP/home" DEBUGINFOD_CACHE_PATH="$TMP/cache" DEBUGINFOD_URLS=
export T2F_DEBUGINFOD_MAXSIZE=2097152 T2F_DEBUGINFOD_TIMEOUT=3
unset DEBUGINFOD_MAXSIZE DEBUGINFOD_TIMEOUT DEBUGINFOD_MAXTIME DEBUGINFOD_RETRY_LIMIT \
	T2F_DEBUGINFOD_BUDGET

# resolve ID: trace2flame resolve asking the server for ID (nothing else has it); RC its exit
# status, $TMP/err its messages
resolve() {
	RC=0
	timeout 60 "$T2F_BIN" resolve --debuginfod "$url" --build-id "$1" "$TMP/gone/prog" 0x1000 \
		>"$TMP/out" 2>"$TMP/err" || RC=$?
}

# expect_rc WHAT: the run ended as one that found nothing (3), not by the hang guard (124) or
# a signal (SIGXFSZ: 153)
expect_rc() {
	if [ "$RC" = 3 ]; then ok; else bad "$1: exit $RC, want 3: $(head -c 600 "$TMP/err")"; fi
}

err_has() {
	if grep -Eq -- "$2" "$TMP/err"; then ok; else
		bad "$1: stderr does not match /$2/: $(head -c 600 "$TMP/err")"
	fi
}

# clean WHAT ID: nothing named debuginfo* in ID's cache directory
clean() {
	_left=$(find "$TMP/cache/$2" -name 'debuginfo*' 2>/dev/null | head -n 3)
	# shellcheck disable=SC2086 # _left: one path a line, none with a blank
	if [ -z "$_left" ]; then ok; else bad "$1: left in the cache: $(ls -l $_left)"; fi
}

# served MODE ID: the body bytes the server logged for its answers to ID, all together (waits up
# to 10 s for a line per request: the server writes it when it sees the client gone)
served() {
	_i=0
	until [ "$(grep -c "^$1 $2 " "$TMP/log")" -ge "$(requests "$2")" ] || [ $_i -gt 100 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	sed -n "s/^$1 $2 sent=\([0-9]*\) .*/\1/p" "$TMP/log" | awk '{ n += $1 } END { print n }'
}

requests() { grep -c "^GET .* $1\$" "$TMP/log" || :; }

# at_most WHAT N MAX
at_most() {
	if [ -n "$2" ] && [ "$2" -le "$3" ]; then ok; else bad "$1: ${2:-nothing} > $3"; fi
}

cut_size='fetch stopped: received [0-9]+ bytes, over the size bound of 2097152 bytes'
cut_size="$cut_size \\(T2F_DEBUGINFOD_MAXSIZE\\)"
cut_stall='fetch stopped: less than 100 KiB received in 3 s \(T2F_DEBUGINFOD_TIMEOUT\);'
cut_stall="$cut_stall no more fetches in this run"

resolve "$endless"
expect_rc endless
err_has endless "build-id $endless: $cut_size"
at_most "endless: bytes the server sent" "$(served endless "$endless")" $((64 << 20))
clean endless "$endless"

resolve "$bomb"
expect_rc "gzip bomb"
err_has "gzip bomb" "build-id $bomb: $cut_size"
clean "gzip bomb" "$bomb"

# (T2F_DEBUGINFOD_MAXSIZE not a number: the default bound, with a warning)
T2F_DEBUGINFOD_MAXSIZE=2M resolve "$toobig"
expect_rc "64 GiB announced"
err_has "64 GiB announced" "T2F_DEBUGINFOD_MAXSIZE='2M' is not a positive number of bytes"
err_has "64 GiB announced" "build-id $toobig: fetch stopped: the server announced \
68719476736 bytes, over the size bound of 2147483648 bytes \\(T2F_DEBUGINFOD_MAXSIZE\\)"
at_most "64 GiB announced: bytes the server sent" "$(served toobig "$toobig")" $((64 << 20))
clean "64 GiB announced" "$toobig"

resolve "$drip"
expect_rc drip
err_has drip "build-id $drip: $cut_stall"
clean drip "$drip"

resolve "$redirect"
expect_rc "redirect loop"
err_has "redirect loop" "build-id $redirect: $cut_stall"
at_most "redirect loop: requests" "$(requests "$redirect")" 1000
clean "redirect loop" "$redirect"

# two modules, both dripping: the second is not asked for once the first timed out
rm -rf "$TMP/cache"
printf 'prog 1 1.000000: 1 cpu-clock:\n\t%16x [unknown] (%s)\n\t%16x [unknown] (%s)\n\n' \
	0x1000 /gone/a.so 0x2000 /gone/b.so >"$TMP/perf.txt"
printf '%s /gone/a.so\n%s /gone/b.so\n' "$drip2" "$drip3" >"$TMP/ids"
RC=0
timeout 60 "$T2F_BIN" --stats --debuginfod "$url" --buildids "$TMP/ids" "$TMP/perf.txt" \
	-o "$TMP/out.folded" >"$TMP/err" 2>&1 || RC=$?
if [ "$RC" = 0 ]; then ok; else bad "two drips: exit $RC: $(head -c 600 "$TMP/err")"; fi
err_has "two drips" "build-id ($drip2|$drip3): $cut_stall"
err_has "two drips: --stats" "debuginfod: 0 debug files fetched \\(or in its cache\\), 0 not on \
the servers, 1 fetch failed \\(1 cut by a bound\\), 1 not made after a timeout, 0 files removed"
at_most "two drips: requests" "$(($(requests "$drip2") + $(requests "$drip3")))" 1
clean "two drips" "$drip2"
clean "two drips" "$drip3"

# the budget of all fetches, the stall bound left long
rm -rf "$TMP/cache"
T2F_DEBUGINFOD_BUDGET=2 T2F_DEBUGINFOD_TIMEOUT=50 resolve "$drip"
expect_rc budget
err_has budget "build-id $drip: fetch stopped: all fetches together took their budget of 2 s \
\\(T2F_DEBUGINFOD_BUDGET\\); no more fetches in this run"
clean budget "$drip"

# another build-id's file: refused, removed, asked for again by each run
before=$(requests "$wrong")
for run in 1 2 3; do
	resolve "$wrong"
	expect_rc "wrong build-id, run $run"
	err_has "wrong build-id, run $run" "build-id $wrong: the file fetched was refused \
\\(build-id mismatch\\): removed from the cache"
	clean "wrong build-id, run $run" "$wrong"
done
n=$(($(requests "$wrong") - before))
if [ "$n" = 3 ]; then ok; else bad "wrong build-id: $n requests in three runs, want 3"; fi

# killed while the drip's temp file exists: the run ends by the signal, the temp file with it
# (a background job of a shell without job control ignores SIGINT: env gives it back)
defsig=
if env --default-signal=INT true 2>/dev/null; then defsig=--default-signal=INT; fi
killed() { # WHAT SIGNAL NUMBER COMMAND...
	_what=$1 _sig=$2 _num=$3
	shift 3
	rm -rf "$TMP/cache"
	T2F_DEBUGINFOD_TIMEOUT=50 env $defsig timeout 60 "$@" >"$TMP/err" 2>&1 &
	_pid=$!
	_i=0
	until [ -n "$(find "$TMP/cache/$drip" -name 'debuginfo.*' 2>/dev/null)" ] ||
		[ $_i -gt 200 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	if [ $_i -gt 200 ]; then bad "$_what: no temp file within 20 s"; else ok; fi
	kill -"$_sig" "$_pid" 2>/dev/null
	RC=0
	wait "$_pid" || RC=$?
	_want=$((128 + _num))
	if [ "$RC" = $_want ]; then ok; else bad "$_what: exit $RC, want $_want"; fi
	clean "$_what" "$drip"
}
killed "resolve, SIGTERM" TERM 15 "$T2F_BIN" resolve --debuginfod "$url" --build-id "$drip" \
	"$TMP/gone/prog" 0x1000
# the temp file made, the fetch not told of it yet (a sanitizer runtime's check that it is
# loaded first is turned off: the preloaded library needs none)
if cc -shared -fPIC -o "$TMP/slow_mkstemp.so" "$SRC/tests/dwarf/slow_mkstemp.c" -ldl; then
	killed "resolve, SIGTERM before the fetch knows its file" TERM 15 env \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
		LD_PRELOAD="$TMP/slow_mkstemp.so" "$T2F_BIN" resolve --debuginfod "$url" \
		--build-id "$drip" "$TMP/gone/prog" 0x1000
else
	bad "slow_mkstemp.c: not built"
fi
if [ -n "$defsig" ]; then
	killed "resolve, SIGINT" INT 2 "$T2F_BIN" resolve --debuginfod "$url" --build-id "$drip" \
		"$TMP/gone/prog" 0x1000
else
	echo "$TEST_NAME: env --default-signal (coreutils 8.31) is missing: SIGINT not sent"
fi
printf '%s /gone/a.so\n' "$drip" >"$TMP/ids"
killed "conversion, SIGTERM" TERM 15 "$T2F_BIN" --debuginfod "$url" --buildids "$TMP/ids" \
	"$TMP/perf.txt" -o "$TMP/out.folded"

stop_server
finish
