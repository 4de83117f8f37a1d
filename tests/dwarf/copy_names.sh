#!/bin/sh
# tests/dwarf/copy_names.sh: a function DWARF gives no linkage name (a template instance over a
# lambda or an anonymous namespace's type, a static function) is named alike inlined and out of
# line, so a tally per function does not split it. fixtures/dwarf/copies.cc is built here with
# -O2 -g (DWARF 4 and 5); on every instruction address inside a function:
#  - which function each level is comes from llvm-dwarfdump, not from trace2flame: the DIEs
#    whose ranges hold the address, nested, each function being the DIE its abstract origins
#    and specifications end at; its out-of-line copy is a subprogram with code of that
#    function whose entry a function symbol starts at;
#  - every inlined level of a function that has an out-of-line copy is named by
#    `trace2flame resolve --inlines` as `trace2flame resolve` names the copy: the same string
#    with --demangle no-params; with full names the same string, but for a copy that is a
#    clone (".constprop.0"), whose " [clone ...]" the inlined levels do not have;
#  - the outermost level of a chain in a copy is named alike: its symbol, less a clone suffix
#    (at least 10 such levels in a clone);
#  - an inlined level llvm-symbolizer names from a linkage name is named as it names it;
#  - a conversion: samples in an inlined __unguarded_linear_insert and in its copy give one
#    frame name in folded stacks and in speedscope.
#
# usage: tests/dwarf/copy_names.sh TRACE2FLAME   (env: T2F_SOURCE_DIR)
set -u
bin=$1
src=${T2F_SOURCE_DIR:?}/fixtures/dwarf
for tool in c++ llvm-symbolizer llvm-dwarfdump objdump nm readelf python3; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "copy_names: skipped ($tool not found)"
		exit 0
	fi
done
work=$(mktemp -d "${TMPDIR:-/tmp}/t2f-copies.XXXXXX")
trap 'rm -rf "$work"' EXIT
failed=0

for v in 4 5; do
	prog=$work/copies-v$v
	c++ -O2 -g -gdwarf-$v -o "$prog" "$src/copies.cc" || { echo "FAIL c++"; exit 1; }
	nm -S --defined-only "$prog" | awk '$3 ~ /^[tTwW]$/ { print $1, $2 }' >"$work/funcs"
	objdump -d --no-show-raw-insn -j .text "$prog" |
		sed -n 's/^ *\([0-9a-f][0-9a-f]*\):.*/\1/p' | python3 -c '
import sys
funcs = [tuple(int(x, 16) for x in l.split()) for l in open(sys.argv[1])]
for l in sys.stdin:
    a = int(l, 16)
    if any(v <= a < v + n for v, n in funcs):
        print(hex(a))' "$work/funcs" >"$work/addrs"
	awk '{ print "0x" $1 }' "$work/funcs" | sort -u >"$work/starts"
	xargs "$bin" resolve --inlines "$prog" <"$work/addrs" >"$work/full" 2>/dev/null
	xargs "$bin" resolve --inlines --demangle no-params "$prog" <"$work/addrs" \
		>"$work/bare" 2>/dev/null
	xargs "$bin" resolve "$prog" <"$work/starts" >"$work/sym-full" 2>/dev/null
	xargs "$bin" resolve --demangle no-params "$prog" <"$work/starts" >"$work/sym-bare" \
		2>/dev/null
	llvm-dwarfdump --debug-info "$prog" >"$work/dump" || { echo "FAIL llvm-dwarfdump"; exit 1; }
	llvm-symbolizer --obj="$prog" -a --inlines <"$work/addrs" >"$work/llvm"
	llvm-symbolizer --obj="$prog" -a --inlines --functions=short <"$work/addrs" \
		>"$work/llvm-short"
	python3 - "$work" "v$v" <<'PY' || failed=1
import re, sys
w, tag = sys.argv[1], sys.argv[2]

def chains(path):  # resolve --inlines: ADDR<TAB>  name<TAB>file:line, innermost first
    out = {}
    for l in open(path).read().splitlines():
        p = l.split("\t")
        if len(p) == 3 and p[1].startswith("  "):
            out.setdefault(int(p[0], 16), []).append(p[1][2:])
    return out

def symbols(path):  # resolve: ADDR<TAB>name+0xOFF<TAB>file
    out = {}
    for l in open(path).read().splitlines():
        p = l.split("\t")
        if len(p) == 3 and p[1].endswith("+0x0"):
            out[int(p[0], 16)] = p[1][:-4]
    return out

def dies(path):  # llvm-dwarfdump --debug-info: per DIE its tag, depth, refs and code ranges
    out, cur, in_ranges = {}, None, False
    head = re.compile(r"^0x([0-9a-f]+):( +)(DW_TAG_\w+)")
    attr = re.compile(r"^ +(DW_AT_\w+)\s+\((.*)")
    rng = re.compile(r"^ +\[0x([0-9a-f]+), 0x([0-9a-f]+)\)")
    for l in open(path).read().splitlines():
        m = head.match(l)
        if m:
            cur = {"tag": m.group(3), "depth": len(m.group(2)), "ranges": []}
            out[int(m.group(1), 16)] = cur; in_ranges = False; continue
        m = rng.match(l)
        if m and in_ranges:
            cur["ranges"].append((int(m.group(1), 16), int(m.group(2), 16))); continue
        m = attr.match(l)
        if not m or cur is None:
            continue
        k, v = m.groups()
        in_ranges = k == "DW_AT_ranges"
        if k in ("DW_AT_abstract_origin", "DW_AT_specification"):
            cur.setdefault("ref", int(v.split()[0].strip(")"), 16))
        elif k in ("DW_AT_low_pc", "DW_AT_high_pc"):
            cur[k] = int(v.strip(")"), 16)
    for d in out.values():
        if "DW_AT_low_pc" in d and "DW_AT_high_pc" in d:
            d["ranges"].insert(0, (d["DW_AT_low_pc"], d["DW_AT_high_pc"]))
    return out

def origin(ds, off):  # the DIE its abstract origins and specifications end at
    for _ in range(16):
        if "ref" not in ds.get(off, {}):
            break
        off = ds[off]["ref"]
    return off

ds = dies(f"{w}/dump")
code = [(o, d) for o, d in ds.items() if d["ranges"] and
        d["tag"] in ("DW_TAG_subprogram", "DW_TAG_inlined_subroutine")]

def who(addrs):  # per address: the functions whose code holds it, innermost first
    out = {}
    for a in addrs:
        hold = sorted((d["depth"], o) for o, d in code
                      if any(lo <= a < hi for lo, hi in d["ranges"]))
        depths = [x for x, _ in hold]
        if len(set(depths)) == len(depths):  # nested: one per depth
            out[a] = [origin(ds, o) for _, o in reversed(hold)]
    return out

def llvm_names(path):  # 0xADDR, then name / file:line:col pairs
    out, cur, lines = {}, None, [l for l in open(path).read().splitlines() if l]
    i = 0
    while i < len(lines):
        if re.fullmatch(r"0x[0-9a-f]+", lines[i]):
            cur = int(lines[i], 16); out[cur] = []; i += 1; continue
        out[cur].append(lines[i]); i += 2
    return out

full, bare = chains(f"{w}/full"), chains(f"{w}/bare")
sym_full, sym_bare = symbols(f"{w}/sym-full"), symbols(f"{w}/sym-bare")
ident, llvm, short = who(full.keys()), llvm_names(f"{w}/llvm"), llvm_names(f"{w}/llvm-short")
clone = re.compile(r"( \[clone [^]]*\])+$")
copies = {}  # function → its out-of-line copies' names (full, bare)
for o, d in code:
    a = d["ranges"][0][0]
    if d["tag"] == "DW_TAG_subprogram" and a in sym_full and a in sym_bare:
        copies.setdefault(origin(ds, o), set()).add((sym_full[a], sym_bare[a]))
fails, compared, exact, checked, seen, roots, cloned = [], 0, 0, 0, set(), 0, 0
for a, c in full.items():
    o, b = ident.get(a, []), bare.get(a, [])
    if len(o) != len(c) or len(b) != len(c):
        continue
    names = copies.get(o[-1], set())
    if len(c) > 1 and names:  # the outermost level of a chain, in its copy: DWARF's name
        roots += 1
        cloned += any(clone.search(f) for f, _ in names)
        if c[-1] not in {clone.sub("", f) for f, _ in names} or b[-1] not in {x for _, x in names}:
            fails.append(f"0x{a:x} outermost: {c[-1]!r} / {b[-1]!r}, its symbol {sorted(names)}")
    for i in range(len(c) - 1):  # inlined levels
        # from a linkage name (llvm-symbolizer 14 leaves some undemangled: not compared)
        if i < len(llvm[a]) - 1 and llvm[a][i] != short[a][i] and not llvm[a][i].startswith("_Z"):
            checked += 1
            if llvm[a][i] != c[i]:
                fails.append(f"0x{a:x} level {i}: {c[i]!r}, llvm-symbolizer {llvm[a][i]!r}")
        if o[i] not in copies:
            continue
        compared += 1
        seen.add("::" + b[i])
        names = copies[o[i]]
        if c[i] in {f for f, _ in names}:
            exact += 1
        if not (c[i] in {clone.sub("", f) for f, _ in names} and b[i] in {x for _, x in names}):
            fails.append(f"0x{a:x} level {i}: {c[i]!r} / {b[i]!r}, out of line {sorted(names)}")
want = ["__unguarded_linear_insert<", "weigh<", "mix"]
missing = [x for x in want if not any("::" + x in s for s in seen)]
if fails or compared < 40 or exact < 20 or checked < 100 or missing or cloned < 10:
    print(f"FAIL {tag}: {len(fails)} of {compared} inlined levels of functions kept out of "
          f"line ({exact} exactly) and {checked} named from linkage names named apart; "
          f"functions not met: {missing}; {cloned} outermost levels in clones")
    for f in fails[:8]:
        print("   ", f)
    sys.exit(1)
print(f"copy_names {tag}: {compared} inlined levels named as their out-of-line copies "
      f"({exact} the same full string, the others less a clone suffix), {roots} outermost "
      f"levels as their symbols less a clone suffix ({cloned} in clones), {checked} as "
      f"llvm-symbolizer names them")
PY
done

# a conversion: a sample where __unguarded_linear_insert<..., Rev> is inlined, one in its copy
prog=$work/copies-v5
copy=$(nm "$prog" | awk '$2 ~ /^[tT]$/ && $3 ~ /__unguarded_linear_insert.*3Rev/ && $3 !~ /\./ {
	print $1; exit }')
bare_copy=$("$bin" resolve --demangle no-params "$prog" "$copy" | cut -f2 | sed 's/+0x0$//')
full_copy=$("$bin" resolve "$prog" "$copy" | cut -f2 | sed 's/+0x0$//')
inl=$(awk -F'\t' -v n="  $bare_copy" '$2 == n { print $1 }' "$work/bare" | while read -r a; do
	[ "$(grep -c "^$a	" "$work/bare")" -gt 2 ] && { echo "$a"; break; }
done)
id=$(readelf -n "$prog" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
if [ -z "$copy" ] || [ -z "$inl" ] || [ -z "$id" ]; then
	echo "FAIL no copy of __unguarded_linear_insert ($copy), no inlined call ($inl) or build-id"
	exit 1
fi
{
	printf 'prog   100     1.000100:     1000 cpu-clock: \n'
	printf '\t            %x [unknown] (%s)\n\n' "$inl" "$prog"
	printf 'prog   100     1.000200:     1000 cpu-clock: \n'
	printf '\t            %x [unknown] (%s)\n\n' "$((0x$copy + 1))" "$prog"
} >"$work/in.perf.txt"
echo "$id $prog" >"$work/ids"
for out in out.folded out.speedscope.json; do
	if ! "$bin" --buildids "$work/ids" "$work/in.perf.txt" -o "$work/$out" 2>"$work/err"; then
		echo "FAIL conversion to $out: $(head -n 3 "$work/err")"
		exit 1
	fi
done
python3 - "$work" "$bare_copy" "$full_copy" <<'PY' || failed=1
import json, sys
w, bare, full = sys.argv[1:4]
ok = True
stacks = open(f"{w}/out.folded").read().splitlines()
n = sum(1 for s in stacks if bare in s.rsplit(" ", 1)[0].split(";"))
if n != 2:
    print(f"FAIL folded: {n} of 2 stacks hold {bare!r}:", *stacks, sep="\n    "); ok = False
ss = json.load(open(f"{w}/out.speedscope.json"))
frames = [f["name"] for f in ss["shared"]["frames"]]
hits = set()
for p in ss["profiles"]:
    for s in p["samples"]:
        hits.add(sum(1 for i in s if frames[i] == full))
if hits != {1}:
    print(f"FAIL speedscope: samples hold {full!r} {sorted(hits)} times, want once each:",
          *frames, sep="\n    "); ok = False
if ok:
    print("copy_names: __unguarded_linear_insert inlined and out of line is one frame in folded "
          "stacks and speedscope")
sys.exit(0 if ok else 1)
PY
exit $failed
