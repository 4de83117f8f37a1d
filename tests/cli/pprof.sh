#!/bin/sh
# pprof output from the command line: chosen by -f pprof or the -o name (.pb.gz, .pprof), the same
# bytes every time, one file per input with --each (a.perf.txt -> a.perf.pb.gz); from perf script
# text with its PERF_RECORD_MMAP2 lines, every location of a file's frame has its address inside
# its mapping, which has the recorded start, limit and offset (for pprof -lines, -disasm: read
# by tests/pprof_decode.py), and frames in no mapping share one location (one per address with
# --addrs); accepted by the
# independent validators (tests/validate/check pprof: Go pprof, protoc, a structure checker) when
# they are installed. The writer's own rules and totals are tested by tests/unit/test_pprof.c and
# tests/pprof_validate.sh.
# usage: sh tests/cli/pprof.sh TRACE2FLAME
. "$(dirname "$0")/common.sh"
find_validators "validator checks skipped" pprof

in=burner.perf.txt
expect 0 "-o NAME.pb.gz" -o "$TMP/a.pb.gz" "$in"
expect 0 "-o NAME.pprof" -o "$TMP/a.pprof" "$in"
expect 0 "-f pprof" -f pprof -o "$TMP/a.out" "$in"
same ".pb.gz and .pprof give the same bytes" "$TMP/a.pb.gz" "$TMP/a.pprof"
same "-f pprof and .pb.gz give the same bytes" "$TMP/a.pb.gz" "$TMP/a.out"
if gzip -t "$TMP/a.pb.gz" 2>/dev/null; then ok; else bad "the .pb.gz output is not gzip"; fi
expect 0 "again" -o "$TMP/b.pb.gz" "$in"
same "deterministic" "$TMP/a.pb.gz" "$TMP/b.pb.gz"
mkdir "$TMP/each"
expect 0 "--each -f pprof" --each -f pprof -o "$TMP/each" "$in" multi.perf.txt
for f in burner.perf.pb.gz multi.perf.pb.gz; do
	if [ -s "$TMP/each/$f" ]; then ok; else bad "--each: no $f"; fi
done
expect 0 "text with mappings" -o "$TMP/m.pb.gz" burner.mmap.perf.txt
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
if "$PY" "$SRC/tests/pprof_decode.py" "$TMP/m.pb.gz" >"$TMP/m.json" && "$PY" - "$TMP/m.json" <<'PYEOF'; then
import json, sys
p = json.load(open(sys.argv[1]))
maps = {m["id"]: m for m in p["mappings"]}
files = [m for m in maps.values() if m["filename"].startswith("/")]
assert files and all(m["start"] and m["limit"] > m["start"] for m in files), files
n = 0
for loc in p["locations"]:
    m = maps.get(loc["mapping"])
    if m and m["filename"].startswith("/"):
        assert m["start"] <= loc["address"] < m["limit"], (loc, m)
        n += 1
assert n > 10, n
PYEOF
	ok
else
	bad "pprof from text with mappings: a file's location without its address in its mapping"
fi
# frames in no mapping (perf's [unknown] dso: multi.perf.txt's 55b9a57804f0 and 7f1bde8f2ad7)
# share one location without an address, as they are one frame in folded; --addrs keeps one
# location per address
expect 0 "frames in no mapping" -o "$TMP/u.pb.gz" multi.perf.txt
expect 0 "frames in no mapping, --addrs" --addrs -o "$TMP/ua.pb.gz" multi.perf.txt
for f in u:0:1 ua:2:2; do
	IFS=: read -r n at none <<EOF2
$f
EOF2
	if "$PY" "$SRC/tests/pprof_decode.py" "$TMP/$n.pb.gz" >"$TMP/$n.json" && "$PY" - "$TMP/$n.json" "$at" "$none" <<'PYEOF'; then
import json, sys
p = json.load(open(sys.argv[1]))
u = {0x55b9a57804f0, 0x7f1bde8f2ad7}
at = sum(1 for l in p["locations"] if l["address"] in u)
none = sum(1 for l in p["locations"] if l["mapping"] == 0)
assert (at, none) == (int(sys.argv[2]), int(sys.argv[3])), (at, none)
PYEOF
		ok
	else
		bad "$n.pb.gz: not $at locations at the [unknown] addresses and $none in no mapping"
	fi
done
expect 2 "an unknown format" -f proto -o "$TMP/x" "$in"
stderr_has "the known formats are listed" "known: collapsed, speedscope, pprof"

if [ "$VALIDATE" = 1 ]; then
	for f in "$TMP/a.pb.gz" "$TMP/each/multi.perf.pb.gz"; do
		if "$CHECK" pprof "$f" >"$TMP/check" 2>&1; then ok; else
			bad "$f rejected by the validator:"
			head -n 10 "$TMP/check" | sed 's/^/    /'
		fi
	done
fi
finish
