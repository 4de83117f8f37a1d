#!/bin/sh
# tests/dwarf/debuginfod.sh: debug files fetched from a debuginfod server. Debian's `debuginfod`
# runs on 127.0.0.1 (a free port) over a directory holding only the debug file of a program
# built here (-O2 -g, split with objcopy --only-keep-debug); the program itself is "on another
# machine" (its recorded path does not exist here). `trace2flame resolve --build-id ID` must:
#  - refuse an empty --debuginfod URL (exit 2);
#  - with --offline (and --debuginfod URL), find nothing (exit 3: FILE cannot be read) and send
#    the server nothing (its log is read);
#  - with --debuginfod URL, fetch the file into DEBUGINFOD_CACHE_PATH, verify it and name the
#    function with its inline chain; the same again through DEBUGINFOD_URLS;
#  - with a stripped binary (-rdynamic: its .dynsym names the functions) at the path, fetch the
#    debug file all the same (it has the inline chain);
#  - a conversion (perf script text and its build-ids) fetches it too, and shows the fetch on a
#    terminal (run under script(1) when there is one) and in --stats;
#  - with the server stopped, name it again from the cache;
#  - for a build-id nobody has (the server stopped: an unreachable server), find nothing.
#
# usage: tests/dwarf/debuginfod.sh TRACE2FLAME   (env: T2F_SOURCE_DIR)
set -eu
bin=$1
src=${T2F_SOURCE_DIR:?}/fixtures/dwarf
work=$(mktemp -d "${TMPDIR:-/tmp}/t2f-debuginfod.XXXXXX")
pid=
cleanup() {
	if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || :; wait "$pid" 2>/dev/null || :; fi
	rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; [ -f "$work/server.log" ] && tail -5 "$work/server.log"; exit 1; }

mkdir -p "$work/srv" "$work/home" "$work/stripped"
cc -O2 -g -rdynamic -Wl,--build-id=sha1 -o "$work/prog" "$src/inl.c"
id=$(readelf -n "$work/prog" | awk '/Build ID/ { print $3 }')
addr=0x$(nm "$work/prog" | awk '$3 == "outer" { print $1 }')
objcopy --only-keep-debug "$work/prog" "$work/srv/prog.debug"
strip -o "$work/stripped/prog" "$work/prog" # -rdynamic: .dynsym still names outer
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])')
debuginfod -p "$port" -F "$work/srv" -d "$work/db.sqlite" -t 0 -g 0 >"$work/server.log" 2>&1 &
pid=$!
url=http://127.0.0.1:$port
i=0
until [ "$(curl -s -o /dev/null -w '%{http_code}' "$url/buildid/$id/debuginfo")" = 200 ]; do
	i=$((i + 1))
	[ $i -lt 100 ] || fail "the server did not serve $id within 20 s"
	sleep 0.2
done
gets() { grep -c "GET /buildid/$id/debuginfo" "$work/server.log" || :; }

export HOME="$work/home" DEBUGINFOD_CACHE_PATH="$work/cache" DEBUGINFOD_URLS=
run() {
	"$bin" resolve --inlines --build-id "$id" "$@" "$work/gone/prog" "$addr" >"$work/out" 2>&1
}

rc=0; run --debuginfod "" || rc=$?
[ $rc = 2 ] || fail "--debuginfod '' exited $rc"

# no file found anywhere and FILE unreadable: exit 3 naming FILE
before=$(gets)
rc=0; run --offline --debuginfod "$url" || rc=$?
[ $rc = 3 ] || fail "--offline exited $rc: $(cat "$work/out")"
grep -q "cannot read $work/gone/prog" "$work/out" || fail "--offline: $(cat "$work/out")"
[ "$(gets)" = "$before" ] || fail "--offline asked the server"
[ ! -e "$work/cache/$id" ] || fail "--offline filled the cache"

run --debuginfod "$url" || fail "not named from the server: $(cat "$work/out")"
grep -q "outer+0x0	$work/cache/$id/debuginfo" "$work/out" || fail "online: $(cat "$work/out")"
grep -q "	  outer	.*inl.c:" "$work/out" || fail "no DWARF chain: $(cat "$work/out")"
[ "$(gets)" -gt "$before" ] || fail "the server was not asked"

# the same server named by DEBUGINFOD_URLS, the cache emptied
rm -rf "$work/cache"
before=$(gets)
DEBUGINFOD_URLS="$url" run || fail "not named through DEBUGINFOD_URLS: $(cat "$work/out")"
grep -q "outer+0x0	$work/cache/$id/debuginfo" "$work/out" || fail "env: $(cat "$work/out")"
[ "$(gets)" -gt "$before" ] || fail "DEBUGINFOD_URLS: the server was not asked"

# a stripped binary at the path (its .dynsym names the functions, no DWARF): the debug file is
# fetched all the same, for the inline chain
rm -rf "$work/cache"
"$bin" resolve --inlines --debuginfod "$url" --build-id "$id" "$work/stripped/prog" "$addr" \
	>"$work/out" 2>&1 || fail "stripped: $(cat "$work/out")"
grep -q "outer+0x0	$work/cache/$id/debuginfo" "$work/out" &&
	grep -q "	  outer	.*inl.c:" "$work/out" || fail "stripped: not fetched: $(cat "$work/out")"

# a conversion fetches too, and shows it on a terminal: perf script text naming the program
# (perf named the frame: its inlined functions are looked up), its build-id given
rm -rf "$work/cache"
printf 'prog 1 1.000000: 1 cpu-clock:\n\t%16x outer+0x0 (%s)\n\n' "$addr" "$work/gone/prog" \
	>"$work/perf.txt"
echo "$id $work/gone/prog" >"$work/ids"
if command -v script >/dev/null 2>&1; then
	DEBUGINFOD_URLS="$url" script -qec "'$bin' --stats --buildids '$work/ids' '$work/perf.txt' \
		-o '$work/out.folded'" /dev/null >"$work/tty" 2>&1 ||
		fail "conversion under a terminal: $(cat "$work/tty")"
	grep -q "fetching debug info $(echo "$id" | cut -c1-16)" "$work/tty" ||
		fail "no fetch shown on the terminal: $(cat "$work/tty")"
else
	DEBUGINFOD_URLS="$url" "$bin" --stats --buildids "$work/ids" "$work/perf.txt" \
		-o "$work/out.folded" >"$work/tty" 2>&1 || fail "conversion: $(cat "$work/tty")"
fi
grep -q "debuginfod: 1 debug file fetched" "$work/tty" ||
	fail "conversion: no fetch counted: $(cat "$work/tty")"
grep -q "^prog;outer 1$" "$work/out.folded" ||
	fail "conversion: $(cat "$work/out.folded")"

kill "$pid"; wait "$pid" 2>/dev/null || :; pid=
run || fail "not named from the cache: $(cat "$work/out")"
grep -q "outer+0x0	$work/cache/$id/debuginfo" "$work/out" || fail "cache: $(cat "$work/out")"

other=00112233445566778899aabbccddeeff00112233
rc=0; "$bin" resolve --debuginfod "$url" --build-id "$other" "$work/gone/prog" "$addr" \
	>"$work/out" 2>&1 || rc=$?
[ $rc = 3 ] || fail "unknown build-id exited $rc: $(cat "$work/out")"
echo "debuginfod: --offline asked nothing; fetched, verified and named (--debuginfod and" \
	"DEBUGINFOD_URLS); named from the cache; unknown build-id missed"
