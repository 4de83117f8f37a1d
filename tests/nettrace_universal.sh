#!/bin/sh
# tests/nettrace_universal.sh: universal (V6) nettrace traces end to end. Builds the fixtures
# (tests/nettrace_fixtures.sh: ELF files from fixtures/nettrace/src, one .nettrace per
# description), converts every V6 one and checks:
#   - folded and speedscope outputs (speedscope through tests/validate/check when installed),
#     --stats: samples read = written + dropped;
#   - every native frame against binutils: the frames are converted a second time with the ELF
#     files moved away (so they stay FILE!0xFILE_OFF); the speedscope frame lists line up, and
#     each resolved frame must be FILE!<function> for each function of the inline chain
#     `addr2line -f -i -e ELF VADDR` gives, outermost first, with VADDR computed here from
#     readelf's PT_LOAD (file offset - p_offset + p_vaddr of the segment holding it), minus 1
#     for a caller (a return address); every sample's stack is compared;
#   - every ELF:symbol frame of the description is in the output as FILE!symbol;
#   - v6-build-id: the library with a wrong build-id is refused, --stats shows both ids, its
#     frames stay libnt.so!0x...; the mappings without build-id are not tried;
#   - v6-jit: JIT names from ProcessSymbol (one defined after its samples), an uncovered JIT
#     address, unmapped user and kernel addresses as ?!0x...;
#   - golden outputs: fixtures/nettrace/expected/<case>.folded / .speedscope.json, with the ELF
#     directory written ${ELF}; T2F_BLESS=1 rewrites them;
#   - pprof (-f pprof): accepted by tests/validate/check, and its stacks, as Go pprof reads
#     them, equal the folded output written with --raw-names, per event, line for line
#     (tests/pprof_lib.sh).
#
# usage: sh tests/nettrace_universal.sh TRACE2FLAME
# env: T2F_SOURCE_DIR, T2F_BLESS, T2F_VALIDATORS_DIR, CI (see tests/lib.sh)
# Needs python3, gcc, readelf and addr2line.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source-path=SCRIPTDIR source=pprof_lib.sh
. "$(dirname "$0")/pprof_lib.sh"
t2f_init .. 1 "$@"
NFX=$SRC/fixtures/nettrace
EXP=$NFX/expected
bless=${T2F_BLESS:-0}
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
make_tmp
find_validators "speedscope and pprof validation skipped" speedscope pprof
find_pprof "$SRC"
pp_files=0 pp_stacks=0 pp_mismatches=0

FXD=$TMP/fx
ELF=$FXD/elf
if ! T2F_SOURCE_DIR=$SRC sh "$SRC/tests/nettrace_fixtures.sh" "$FXD" >"$TMP/fixtures.log" 2>&1; then
	bad "tests/nettrace_fixtures.sh failed:"
	tail -20 "$TMP/fixtures.log"
	finish
fi
[ "$bless" = 1 ] && mkdir -p "$EXP"

# convert NAME FORMAT OUT [ARGS...]: from the fixture directory, with the trace's bare name.
convert() {
	_n=$1 _f=$2 _o=$3
	shift 3
	(cd "$FXD" && t2f -f "$_f" "$@" -o "$_o" "$_n.nettrace")
}

# golden NAME EXT: the output with the ELF directory written ${ELF}, against expected/.
golden() {
	sed "s|$ELF|\${ELF}|g" "$TMP/$1.$2" >"$TMP/$1.golden.$2"
	if [ "$bless" = 1 ]; then
		cp "$TMP/$1.golden.$2" "$EXP/$1.$2" && ok
	elif [ ! -f "$EXP/$1.$2" ]; then
		bad "$1: expected/$1.$2 missing (T2F_BLESS=1 writes it)"
	elif cmp -s "$TMP/$1.golden.$2" "$EXP/$1.$2"; then
		ok
	else
		bad "$1.$2 differs from expected/$1.$2:"
		diff "$EXP/$1.$2" "$TMP/$1.golden.$2" | head -20
	fi
}

# fold OUT ARGS...: the folded output of trace $n for the pprof stack comparison.
# shellcheck disable=SC2317 # called through stacks_check
fold() {
	_fo=$1
	shift
	convert "$n" collapsed "$_fo" --raw-names "$@" 2>/dev/null
}

# symbols_of NAME: "FILE!symbol" for every ELF:symbol frame of the description.
symbols_of() {
	sed -n 's/^elf \([^ ]*\) \${ELF}\/\([^ ]*\)$/\1 \2/p' "$NFX/$1.desc" >"$TMP/$1.elfs"
	grep -E '^(sample|cswitch) ' "$NFX/$1.desc" | awk '{ print $NF }' | tr ';' '\n' |
		sed -n 's/^\([A-Za-z0-9_]*\):\([A-Za-z0-9_]*\).*/\1 \2/p' | sort -u |
		while read -r label sym; do
			path=$(awk -v l="$label" '$1 == l { print $2 }' "$TMP/$1.elfs")
			echo "$(basename "$path")!$sym"
		done
}

names=
for desc in "$NFX"/v6-*.desc; do
	n=$(basename "$desc" .desc)
	if [ ! -f "$FXD/$n.nettrace" ]; then
		echo "skip: $n (not built)"
		continue
	fi
	names="$names $n"
	if ! convert "$n" collapsed "$TMP/$n.folded" --stats 2>"$TMP/$n.stats" ||
		! convert "$n" speedscope "$TMP/$n.speedscope.json" 2>/dev/null; then
		bad "$n: trace2flame failed:"
		cat "$TMP/$n.stats"
		continue
	fi
	ok
	if [ "$VALIDATE" = 1 ]; then
		if "$CHECK" speedscope "$TMP/$n.speedscope.json" >"$TMP/$n.check" 2>&1; then
			ok
		else
			bad "$n: speedscope validator:"
			cat "$TMP/$n.check"
		fi
	fi
	# samples: N read = K kept + D dropped, and kept = written + not written
	if $PY - "$TMP/$n.stats" <<'EOF'; then ok; else bad "$n: sample accounting (--stats)"; fi
import re, sys
s = open(sys.argv[1]).read()
m = re.search(r"samples: (\d+) read = (\d+) kept \+ (\d+) dropped", s)
w = re.search(r"written: (\d+)", s)
o = re.search(r"not written \(other events\): (\d+)", s)
sys.exit(0 if m and w and o and int(m[1]) == int(m[2]) + int(m[3]) > 0
         and int(m[2]) == int(w[1]) + int(o[1]) else 1)
EOF
	golden "$n" folded
	golden "$n" speedscope.json
	if [ -n "$PPROF" ] || [ "$VALIDATE" = 1 ]; then
		if convert "$n" pprof "$TMP/$n.pb.gz" 2>"$TMP/$n.pprof.err"; then ok; else
			bad "$n: trace2flame -f pprof failed:"
			cat "$TMP/$n.pprof.err"
		fi
	fi
	if [ "$VALIDATE" = 1 ] && [ -f "$TMP/$n.pb.gz" ]; then
		if "$CHECK" pprof "$TMP/$n.pb.gz" >"$TMP/$n.check" 2>&1; then ok; else
			bad "$n: pprof validator:"
			cat "$TMP/$n.check"
		fi
	fi
	if [ -n "$PPROF" ] && [ -f "$TMP/$n.pb.gz" ]; then
		if stacks_check "$TMP/$n.pb.gz" "$TMP/$n.st" "    $n" fold; then ok; else
			bad "$n: pprof stacks differ from the folded output (--raw-names)"
		fi
		pp_files=$((pp_files + 1))
		pp_stacks=$((pp_stacks + STACKS))
		pp_mismatches=$((pp_mismatches + MISMATCHES))
	fi
	[ "$n" = v6-build-id ] && continue # refused files: checked below
	missing=$(symbols_of "$n" | while read -r want; do
		grep -qF "$want" "$TMP/$n.folded" || printf ' %s' "$want"
	done)
	if [ -z "$missing" ]; then ok; else bad "$n: frames missing from the output:$missing"; fi
done

[ -n "$PPROF" ] &&
	echo "pprof stacks: $pp_files traces, $pp_stacks stacks compared, $pp_mismatches mismatches"

# --- the same frames with the ELF files out of reach: FILE!0xFILE_OFF ------------------------
mv "$ELF" "$ELF.away"
for n in $names; do
	convert "$n" speedscope "$TMP/$n.unnamed.json" 2>/dev/null || bad "$n: unnamed run failed"
done
mv "$ELF.away" "$ELF"
for n in $names; do
	refused=
	[ "$n" = v6-build-id ] && refused="gnu/libnt.so gnu/prog-nopie lld/prog"
	# shellcheck disable=SC2086 # refused: several words
	if r=$($PY - "$ELF" "$TMP/$n.speedscope.json" "$TMP/$n.unnamed.json" "$n" $refused <<'EOF'
import json, os, re, subprocess, sys

elf_dir, named_f, unnamed_f, name = sys.argv[1:5]
refused_paths = set(os.path.join(elf_dir, p) for p in sys.argv[5:])
named, unnamed = json.load(open(named_f)), json.load(open(unnamed_f))
loads = {}

def pt_loads(path):
    if path not in loads:
        out = subprocess.run(["readelf", "-lW", path], capture_output=True, text=True).stdout
        segs = []
        for line in out.splitlines():
            f = line.split()
            if f and f[0] == "LOAD":
                segs.append((int(f[1], 16), int(f[2], 16), int(f[4], 16)))  # offset vaddr filesz
        loads[path] = segs
    return loads[path]

def addr2line(path, vaddr):
    # -i lists the inline chain innermost first (glibc's atoi is inlined into main at -O1):
    # outermost first here, as the frames go into a stack
    out = subprocess.run(["addr2line", "-f", "-i", "-e", path, "0x%x" % vaddr],
                         capture_output=True, text=True).stdout
    return out.splitlines()[0::2][::-1]

checked = refused = 0
errors = []
want = []  # per unnamed frame: the names the named run must show, as a leaf and as a caller
for u in unnamed["shared"]["frames"]:
    path = u.get("file", "")
    m = re.match(r"^(.+)!0x([0-9a-f]+)$", u["name"])
    if not path.startswith(elf_dir + "/") or not m:
        want.append(([u["name"]], [u["name"]]))
        continue
    base, off = os.path.basename(path), int(m.group(2), 16)
    if m.group(1) != base:
        errors.append("%s: module %s" % (u["name"], base))
    if path in refused_paths:
        refused += 1
        want.append(([u["name"]], [u["name"]]))
        continue
    seg = [s for s in pt_loads(path) if s[0] <= off < s[0] + s[2]]
    if not seg:
        errors.append("%s: offset in no PT_LOAD" % u["name"])
        want.append(([u["name"]], [u["name"]]))
        continue
    checked += 1
    vaddr = off - seg[0][0] + seg[0][1]
    # a caller's address is a return address: its chain is the call's, at - 1
    want.append(tuple(["%s!%s" % (base, f) for f in addr2line(path, a)]
                      for a in (vaddr, vaddr - 1)))

def stacks(doc, names):
    """Per profile: its samples as name lists and their weights, a row of equal stacks as one
    (what speedscope's importer makes of them, and how trace2flame writes them). names[i]:
    frame i's names as the leaf and as a caller."""
    out = []
    for prof in doc["profiles"]:
        ss, ws = [], []
        for s, w in zip(prof["samples"], prof["weights"]):
            s = [n for j, i in enumerate(s) for n in names[i][j < len(s) - 1]]
            if ss and ss[-1] == s:
                ws[-1] += w
            else:
                ss.append(s)
                ws.append(w)
        out.append((prof["name"], ss, ws))
    return out

got = stacks(named, [([f["name"]], [f["name"]]) for f in named["shared"]["frames"]])
exp = stacks(unnamed, want)
if len(got) != len(exp):
    errors.append("profiles: %d / %d" % (len(got), len(exp)))
for g, e in zip(got, exp):
    for i, (gs, es) in enumerate(zip(g[1], e[1])):
        if gs != es:
            errors.append("%s sample %d:\n  got      %s\n  expected %s" % (g[0], i, gs, es))
    if len(g[1]) != len(e[1]) or g[2] != e[2]:
        errors.append("%s: sample counts or weights differ" % g[0])
if not checked:
    errors.append("no native frame checked")
if errors:
    sys.exit("\n".join(errors[:20]))
print("%s: %d native frames = addr2line (every sample's stack), %d frames of refused files" % (name, checked, refused))
EOF
	); then
		ok
		echo "$r"
	else
		bad "$n: native frames against addr2line:"
		echo "$r"
	fi
done

# --- v6-build-id: a wrong build-id is refused, both ids reported -----------------------------
f=$TMP/v6-build-id
if [ -f "$f.stats" ]; then
	real=$(readelf -n "$ELF/gnu/libnt.so" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
	if grep -qF "refused: $ELF/gnu/libnt.so: build-id mismatch (found $real, expected 0123456789abcdef0123456789abcdef01234567)" "$f.stats" &&
		grep -q "^  $ELF/gnu/libnt.so: 0 resolved, 2 unresolved, build-id mismatch 2" "$f.stats"; then
		ok
	else
		bad "v6-build-id: the wrong build-id is not reported with both ids:"
		cat "$f.stats"
	fi
	if grep -q 'libnt\.so!0x[0-9a-f]*;libnt\.so!0x[0-9a-f]* 2000000$' "$f.folded" &&
		! grep -q 'nt_lib_' "$f.folded"; then ok; else bad "v6-build-id: libnt.so frames named"; fi
	if grep -q "^  $ELF/gnu/prog-nopie: 0 resolved, 1 unresolved; 1 not tried: no build-id" "$f.stats" &&
		grep -q "^  $ELF/lld/prog: 0 resolved, 1 unresolved; 1 not tried: no build-id" "$f.stats" &&
		grep -q "segment: not in the trace" "$f.stats"; then
		ok
	else
		bad "v6-build-id: mappings without build-id not reported as such"
		cat "$f.stats"
	fi
fi

# --- v6-jit: ProcessSymbol names, uncovered and unmapped addresses ---------------------------
f=$TMP/v6-jit.folded
if [ -f "$f" ]; then
	for want in \
		';prog!main;app!App.Program::Run;System.Private.CoreLib!System.Threading.Thread::Sleep 3000000' \
		';prog!main;app!App.Program::Run;app!App.Program::Main 1000000' \
		';prog!main;app!App.Program::Run;memfd:doublemapper!0x7f5500000900 2000000' \
		'dotnet;prog!nt_hot_leaf;?!0x12345678;?!0xffffffff81000100 1000000'; do
		if grep -qF -- "$want" "$f"; then ok; else bad "v6-jit: no line with '$want'"; fi
	done
	if grep -q '"name":"System.Private.CoreLib!System.Threading.Thread::Sleep(int32)\[Optimized\]"' \
		"$TMP/v6-jit.speedscope.json"; then ok; else bad "v6-jit: full JIT name in speedscope"; fi
fi

finish
