#!/bin/sh
# Every output the same bytes whatever else the session may write: for inputs of each kind
# (perf script text with C++ names the resolve stage demangles, unnamed frames, kernel and JIT
# frames, several events, off-CPU and wall time; folded stacks; perf.data; .nettrace; pprof)
# and every format `trace2flame --list-formats` lists, under a few option sets, the output of a
# library session opened for any format (t2f_options.formats 0) and for every format's bit must
# equal the command line's one-format run, byte for byte (a .gz output: its inflated bytes).
# Where the command line refuses (the heat map of a profile without times), the session must
# refuse too.
#
# usage: sh tests/lib/formats_any.sh TRACE2FLAME FORMATS_ANY   (tests/lib/formats_any.c)
# env:   CXX (default c++): builds tests/lib/formats_any.cc, whose symbols name the made-up
#        text and perf.data inputs; skipped with a message without a compiler.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
t2f_init ../.. 2 "$@"
[ $# -eq 2 ] || { echo "usage: $0 TRACE2FLAME FORMATS_ANY" >&2; exit 2; }
case $2 in /*) ANY=$2 ;; *) ANY=$(pwd)/$2 ;; esac
make_tmp
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

t2f --list-formats | awk '$2 ~ /^\./ { print $1 }' >"$TMP/formats"
[ -s "$TMP/formats" ] || { echo "$TEST_NAME: --list-formats listed no format"; exit 1; }

# The made-up inputs over the C++ program: its functions' file offsets (GNU ld PIE: the
# executable segment's p_vaddr is its p_offset) as unnamed frames of perf script text, and the
# same stacks as a perf.data file (tests/perf_data_gen.py) mapping the program at 0x400000.
mkdir "$TMP/in" && cd "$TMP/in" || exit 1
if ${CXX:-c++} -O1 -g -fno-omit-frame-pointer -o fa "$SRC/tests/lib/formats_any.cc" 2>"$TMP/cxx"
then
	nm --defined-only fa | awk '$2 ~ /^[tTW]$/ && $3 ~ /^_Z/ { print $1, $3 }' | sort -k2 >syms
	bid=$(readelf -n fa | awk '/Build ID:/ { print $3 }')
	if ! "$PY" - "$SRC/tests" "$TMP/in" "$bid" <<'EOF'
import os, sys
sys.path.insert(0, sys.argv[1])
import perf_data_gen as g
d, bid = sys.argv[2], bytes.fromhex(sys.argv[3])
syms = {n: int(a, 16) for a, n in (l.split() for l in open(os.path.join(d, "syms")))}
def at(part):
    return next(a for n, a in sorted(syms.items()) if part in n) + 4
run, lam, shl = at("3runEj"), at("UllE_clEl"), at("applsE")
get, oi, ol = at("3Box3getEv"), at("4overEi"), at("4overEl")
fl, fd = at("4fillIlE"), at("4fillIdE")
tl, ti, td = at("5twiceIlE"), at("5twiceIiE"), at("5twiceIdE")
stacks = [[ti, oi, run], [tl, ol, run], [shl, lam, run], [get, lam, run], [tl, fl, run],
          [td, fd, run], [fl, run], [fd, run], [ti, oi, run], [0x5000, run], [0x6000, 0x5000, run]]
path = os.path.join(d, "fa")
with open(os.path.join(d, "fa.perf.txt"), "w") as f:
    for i, st in enumerate(stacks):
        f.write("fa %d/%d %d.%06d: 1000 cpu-clock:\n" % (100, 100 + i % 2, 1, i * 1000))
        for a in st:
            f.write("\t%16x [unknown] (%s)\n" % (a, path))
        f.write("\t%16x [unknown] (/lib/missing.so)\n\t%16x [unknown] ([unknown])\n\n"
                % (0x1234 + i % 3, 0x77 + i % 2))
samples = [(1000 + i * 1000000, [0x400000 + a for a in st] + [0x500000 + 0x10 * (i % 3)])
           for i, st in enumerate(stacks)]
open(os.path.join(d, "fa.data"), "wb").write(g.perf_data(
    b"fa", b"cpu-clock", [(path.encode(), 0x400000, 5), (b"/lib/missing.so", 0x500000, 5)],
    samples, build_ids=[(path.encode(), bid + b"\0" * (20 - len(bid)))]))
EOF
	then
		bad "the made-up inputs could not be written"
	fi
else
	echo "$TEST_NAME: no C++ compiler (${CXX:-c++}: $(head -n 1 "$TMP/cxx")):" \
		"skipping the made-up C++ inputs"
fi

# A pprof input: the command line's own pprof of text with C++ names and kernel frames.
t2f -q "$FX/cxxwork.perf.txt" "$FX/kjit/jitloop.perf.txt" -o "$TMP/in/mix.pb.gz" ||
	bad "the pprof input could not be written"

# check NAME OPTS INPUT...: every format, one-format command line against the sessions.
check() {
	_name=$1 _opts=$2
	shift 2
	while read -r _f; do
		rm -rf "$TMP/o" && mkdir -p "$TMP/o/one" "$TMP/o/any" "$TMP/o/all"
		# shellcheck disable=SC2086 # _opts: several options
		t2f -q -f "$_f" $_opts -o "$TMP/o/one/out" "$@" >/dev/null 2>"$TMP/o/err"
		_rc=$?
		for _m in any all; do
			# shellcheck disable=SC2086 # _opts: several options
			timeout "${T2F_TEST_TIMEOUT:-60}" "$ANY" "$_m" "$_f" "$TMP/o/$_m/out" \
				$_opts -- "$@" 2>"$TMP/o/err.$_m"
			_mrc=$?
			if [ "$_rc" -ne 0 ] || [ "$_mrc" -ne 0 ]; then
				if [ "$_rc" -ne 0 ] && [ "$_mrc" -ne 0 ]; then
					ok
				else
					bad "$_name $_f [$_opts] formats $_m: exit $_mrc," \
						"the command line's $_rc"
					head -n 2 "$TMP/o/err" "$TMP/o/err.$_m"
				fi
				continue
			fi
			if [ "$_f" = pprof ]; then
				gzip -dc "$TMP/o/one/out" >"$TMP/o/one.raw" &&
					gzip -dc "$TMP/o/$_m/out" >"$TMP/o/$_m.raw"
			else
				cp "$TMP/o/one/out" "$TMP/o/one.raw" &&
					cp "$TMP/o/$_m/out" "$TMP/o/$_m.raw"
			fi
			if cmp -s "$TMP/o/one.raw" "$TMP/o/$_m.raw"; then
				ok
			else
				bad "$_name $_f [$_opts]: formats $_m differs from the one-format run"
				if [ "$_f" = pprof ]; then
					"$PY" "$SRC/tests/pprof_decode.py" "$TMP/o/one.raw" \
						>"$TMP/o/one.txt" 2>&1
					"$PY" "$SRC/tests/pprof_decode.py" "$TMP/o/$_m.raw" \
						>"$TMP/o/$_m.txt" 2>&1
				else
					tr ',' '\n' <"$TMP/o/one.raw" >"$TMP/o/one.txt"
					tr ',' '\n' <"$TMP/o/$_m.raw" >"$TMP/o/$_m.txt"
				fi
				diff "$TMP/o/one.txt" "$TMP/o/$_m.txt" | head -n 6 | cut -c1-200
			fi
		done
	done <"$TMP/formats"
}

cd "$FX" || exit 1
for opts in "" "--addrs" "--raw-names" "--pid" "--tid --all" "--flamechart"
do
	check cxxwork "$opts" cxxwork.perf.txt
	check burner.addrs "$opts" burner.addrs.perf.txt
	check multi "$opts --event=page-faults" multi.perf.txt
	check multi.off-cpu "$opts --event=off-cpu" multi.perf.txt
	check multi.wall "$opts --event=wall" multi.perf.txt
	check jitloop "$opts" kjit/jitloop.perf.txt kjit/jitloop.unnamed.perf.txt
	check counts.folded "$opts" counts.folded.txt
	check nettrace "$opts" ../nettrace/universal.nettrace
	check pprof "$opts" "$TMP/in/mix.pb.gz"
	if [ -f "$TMP/in/fa.data" ]; then
		check fa.perf.txt "$opts --unsafe-build-id-match" "$TMP/in/fa.perf.txt"
		check fa.data "$opts" "$TMP/in/fa.data"
	fi
done
finish
