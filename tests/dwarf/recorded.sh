#!/bin/sh
# tests/dwarf/recorded.sh: inlined functions as frames, end to end, on recordings made here.
# fixtures/dwarf/inl.c (C) and tmpl.cc (C++) are built with -O2 -g and frame pointers and
# recorded with `perf record -g -e cpu-clock:u --buildid-all`. Then:
#   - truth (C): every sample of `perf script` text, each frame expanded as binutils
#     `addr2line -f -i` says from the DWARF of its module (the file itself, or the debug file
#     /usr/lib/debug/.build-id/NN/REST.debug when it has none: libc's when installed), at the
#     return address - 1 for callers, the frame's own name outermost (perf's), must equal the
#     collapsed output of the perf.data route (--weight samples), sample for sample; samples
#     with frames perf could not name are left out of the comparison (counted);
#   - the perf.data route equals the perf script text route given the build-ids
#     (`perf buildid-list`), for both programs, and -j 1 equals -j 2;
#   - pprof: the validators accept it, and Go pprof's `-lines -top` shows the inlined
#     functions with their file:line (when the validators are installed: tools/setup-validators);
#   - --all marks the inlined frames _[i] (the C++ program's std::sort internals among them);
#     --no-inline gives the stacks perf script prints;
#   - without the cache, --stats says every file whose DWARF was read was let go after its last
#     lookup, the same count for -j 1 and -j 2.
# Skipped when perf cannot record here.
# usage: sh tests/dwarf/recorded.sh TRACE2FLAME
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
t2f_init ../.. 1 "$@"
need_perf_record
pass=0 fail=0
find_validators "the pprof checks are skipped" pprof
export DEBUGINFOD_URLS=
FP="-O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer"
PY=python3

# record NAME ARGS...: NAME.data, its perf script text and its build-ids
record() {
	_n=$1
	shift
	if ! perf record -q -g -e cpu-clock:u --buildid-all -o "$TMP/$_n.data" -- "$TMP/$_n" "$@" \
		>/dev/null 2>"$TMP/$_n.rec"; then
		bad "$_n: perf record failed: $(head -3 "$TMP/$_n.rec")"
		return 1
	fi
	perf script -i "$TMP/$_n.data" >"$TMP/$_n.txt" 2>/dev/null &&
		perf buildid-list -i "$TMP/$_n.data" >"$TMP/$_n.ids" 2>/dev/null
}

# same WHAT A B: A and B are the same bytes
same() {
	if cmp -s "$2" "$3"; then ok; else
		bad "$1 differ:"
		diff "$2" "$3" | head -10
	fi
}

# routes NAME: perf.data and text routes, -j 1 and -j 2, folded with --weight samples
routes() {
	t2f -j 1 --weight samples "$TMP/$1.data" -o "$TMP/$1.d.folded" 2>"$TMP/$1.err" ||
		bad "$1: perf.data route failed: $(head -3 "$TMP/$1.err")"
	t2f -j 2 --weight samples "$TMP/$1.data" -o "$TMP/$1.d2.folded" 2>/dev/null
	t2f -j 2 --weight samples --buildids "$TMP/$1.ids" "$TMP/$1.txt" -o "$TMP/$1.t.folded" \
		2>/dev/null
	t2f -j 1 --weight samples --buildids "$TMP/$1.ids" "$TMP/$1.txt" -o "$TMP/$1.t1.folded" \
		2>/dev/null
	same "$1: perf.data route -j 1 and -j 2" "$TMP/$1.d.folded" "$TMP/$1.d2.folded"
	same "$1: perf.data and text routes" "$TMP/$1.d.folded" "$TMP/$1.t.folded"
	same "$1: text route -j 2 and -j 1" "$TMP/$1.t.folded" "$TMP/$1.t1.folded"
	ended "$1"
}

# ended NAME: without the cache, each file's DWARF is let go after its last lookup (--stats),
# for -j 1 and -j 2 alike
ended() {
	for j in 1 2; do
		t2f --no-cache --stats -j $j --weight samples "$TMP/$1.data" \
			-o "$TMP/$1.e$j.folded" 2>"$TMP/$1.e$j.err"
		_re='^inline frames: DWARF of \([0-9]*\) files* read, \([0-9]*\) let go .*'
		sed -n "s/$_re/\\1 \\2/p" "$TMP/$1.e$j.err" >"$TMP/$1.e$j.n"
	done
	read -r _read _gone <"$TMP/$1.e1.n"
	if [ "${_read:-0}" -ge 1 ] && [ "$_read" = "$_gone" ] &&
		cmp -s "$TMP/$1.e1.n" "$TMP/$1.e2.n"; then ok; else
		bad "$1: --stats: DWARF read / let go: -j 1 '$(cat "$TMP/$1.e1.n")'," \
			"-j 2 '$(cat "$TMP/$1.e2.n")'"
	fi
	same "$1: -j 1 without the cache and with it" "$TMP/$1.d.folded" "$TMP/$1.e1.folded"
}

cc $FP -o "$TMP/inl" "$SRC/fixtures/dwarf/inl.c" || bad "cc inl.c failed"
c++ $FP -o "$TMP/tmpl" "$SRC/fixtures/dwarf/tmpl.cc" || bad "c++ tmpl.cc failed"

if record inl 150000000; then
	routes inl
	if r=$($PY - "$TMP/inl.txt" "$TMP/inl.d.folded" <<'EOF'
import collections, os, re, subprocess, sys

text, folded = sys.argv[1:3]
cache = {}

def run(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True).stdout

def dwarf_of(dso):
    """The file whose DWARF names dso's code, or None; with its PT_LOADs."""
    if dso in cache:
        return cache[dso]
    found = None
    if os.path.isfile(dso):
        if ".debug_info" in run("readelf", "-SW", dso):
            found = dso
        else:
            m = re.search(r"Build ID: ([0-9a-f]+)", run("readelf", "-n", dso))
            dbg = m and "/usr/lib/debug/.build-id/%s/%s.debug" % (m.group(1)[:2], m.group(1)[2:])
            if dbg and os.path.isfile(dbg) and ".debug_info" in run("readelf", "-SW", dbg):
                found = dbg
    loads = []
    if found:
        for l in run("readelf", "-lW", dso).splitlines():
            f = l.split()
            if f and f[0] == "LOAD":
                loads.append((int(f[1], 16), int(f[2], 16), int(f[4], 16)))
    cache[dso] = (found, loads)
    return cache[dso]

def chain(dso, off, call):
    """Inlined functions at file offset off of dso, outer first (not the holding function)."""
    dbg, loads = dwarf_of(dso)
    seg = [s for s in loads if s[0] <= off < s[0] + s[2]]
    if not dbg or not seg:
        return []
    vaddr = off - seg[0][0] + seg[0][1] - (1 if call else 0)
    funcs = run("addr2line", "-f", "-i", "-e", dbg, "0x%x" % vaddr).splitlines()[0::2]
    if not funcs or funcs[0] == "??":
        return []
    return funcs[:-1][::-1]

frame_re = re.compile(r"^\s+([0-9a-f]+) (.*?)(\+0x[0-9a-f]+)? \((.*)\)$")
want = collections.Counter()
skipped = expanded = 0
for block in open(text).read().split("\n\n"):
    lines = [l for l in block.splitlines() if l.strip()]
    if not lines:
        continue
    comm = lines[0].split()[0]
    frames = [frame_re.match(l) for l in lines[1:]]
    if not frames or None in frames or any(f.group(2) == "[unknown]" for f in frames):
        skipped += 1
        continue
    stack = [comm]
    frames = frames[::-1]  # root first
    for i, f in enumerate(frames):
        inl = chain(f.group(4), int(f.group(1), 16), i < len(frames) - 1)
        expanded += len(inl)
        # no frame name keeps a symbol version (docs/usage.md); perf prints some
        name = f.group(2) if f.group(2).endswith("@plt") else \
            re.sub(r"@@?[A-Za-z_][A-Za-z0-9_.]*$", "", f.group(2))
        stack += [name] + inl
    want[";".join(stack)] += 1
got = collections.Counter()
for l in open(folded):
    s, n = l.rstrip("\n").rsplit(" ", 1)
    if "[" not in s:
        got[s] += int(n)
errors = ["want %d got %d: %s" % (want[k], got[k], k) for k in sorted(set(want) | set(got))
          if want[k] != got[k]]
if errors or expanded < 100:
    sys.exit("\n".join(errors[:20] + ["%d inlined frames expected" % expanded]))
print("inl: %d samples = addr2line -i (%d inlined frames), %d with unnamed frames left out"
      % (sum(want.values()), expanded, skipped))
EOF
	); then
		ok
		echo "$r"
	else
		bad "inl: the perf.data route against addr2line -i:"
		echo "$r"
	fi
	t2f "$TMP/inl.data" -o "$TMP/inl.pb.gz" 2>/dev/null || bad "inl: pprof output failed"
	if [ "$VALIDATE" = 1 ]; then
		"$CHECK" pprof "$TMP/inl.pb.gz" >/dev/null && ok || bad "inl: pprof output refused"
		"$("$CHECK" --pprof)" -lines -top -symbolize=none "$TMP/inl.pb.gz" 2>/dev/null \
			>"$TMP/inl.top" || bad "inl: pprof -lines -top failed"
		if grep -Eq ' mix [^ ]*/fixtures/dwarf/inl\.c:1[0-4] \(inline\)$' "$TMP/inl.top" &&
			grep -Eq ' step [^ ]*/fixtures/dwarf/inl\.c:1[6-9] \(inline\)$' "$TMP/inl.top"
		then ok; else
			bad "inl: pprof -lines -top shows no inlined function with its file:line:"
			head -12 "$TMP/inl.top"
		fi
	fi
	t2f --no-inline --weight samples "$TMP/inl.data" -o "$TMP/inl.n.folded" 2>/dev/null
	if grep -q ';mix ' "$TMP/inl.d.folded" && ! grep -q ';mix ' "$TMP/inl.n.folded"; then ok; else
		bad "inl: --no-inline kept inlined frames, or there were none"; fi
fi

if record tmpl 3000000; then
	routes tmpl
	t2f --all "$TMP/tmpl.data" -o "$TMP/tmpl.all.folded" 2>/dev/null
	if grep -q '__introsort_loop<[^;]*_\[i\]' "$TMP/tmpl.all.folded" ||
		grep -q '__unguarded_linear_insert<[^;]*_\[i\]' "$TMP/tmpl.all.folded"; then ok; else
		bad "tmpl: no inlined sort frame marked _[i] with --all"
		head -5 "$TMP/tmpl.all.folded"
	fi
fi
finish
