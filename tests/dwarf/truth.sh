#!/bin/sh
# tests/dwarf/truth.sh: the inline chains and source lines of `trace2flame resolve --inlines`
# against three oracles, on every instruction address inside a function (nm -S) of programs
# built here with -O2 -g from fixtures/dwarf (C with static inline, C++ templates and lambdas):
#  - elfutils `eu-addr2line -i -f -C` and `llvm-symbolizer`: every level's function, file and
#    line (see compare: where they differ, agreeing with one of them);
#  - binutils `addr2line -i -f -C`: every level's file and line, in DWARF 4 builds only
#    (binutils 2.40 reads DWARF 5 file numbers one off); its function names count as one of the
#    three namings (it alone names the innermost level of a cloned function by the clone's
#    symbol, "[clone .constprop.0]", where the DWARF names the inlined function).
# Addresses eu-addr2line places in no source file (the C runtime's start files, built without
# -g) are counted apart: trace2flame must give no chain there either. With dwz installed, the
# C++ program's DWARF is also shared with another build through a supplementary file, and the
# chains must not change; nor with its debug sections compressed (zlib, zstd). Passes when at
# least 99.9% of the addresses in a source file agree; prints the differences. Rust (when a rustc
# runs here): the crate's own functions, not the standard library linked in.
#
# usage: tests/dwarf/truth.sh TRACE2FLAME   (env: T2F_SOURCE_DIR)
set -eu
bin=$1
src=${T2F_SOURCE_DIR:?}/fixtures/dwarf
work=$(mktemp -d "${TMPDIR:-/tmp}/t2f-dwarf.XXXXXX")
trap 'rm -rf "$work"' EXIT
failed=0

# addrs PROG [PREFIX]: the instructions inside a function's [value, value + size), not the
# padding between functions, which no sample lands in; only functions whose symbol starts with
# PREFIX when given.
addrs() {
	nm -S --defined-only "$1" |
		awk -v p="${2:-}" '$3 ~ /^[tTwW]$/ && index($4, p) == 1 { print $1, $2 }' >"$1.funcs"
	objdump -d --no-show-raw-insn -j .text "$1" |
		sed -n 's/^ *\([0-9a-f][0-9a-f]*\):.*/\1/p' |
		python3 -c '
import sys
funcs = [tuple(int(x, 16) for x in l.split()) for l in open(sys.argv[1])]
for l in sys.stdin:
    a = int(l, 16)
    if any(v <= a < v + n for v, n in funcs):
        print(hex(a))' "$1.funcs"
}

# compare LABEL T2F_OUTPUT BINUTILS_LINES EU LLVM BINUTILS: each address's chain must have the
# files and lines of eu-addr2line's or of llvm-symbolizer's (they differ where sibling inlined
# calls share code: each takes another one), and at each level a function as one of the three
# names it there, the outermost level as one names its outermost (they name differently:
# eu-addr2line by DW_AT_name where code is inlined and by the symbol where not, llvm-symbolizer
# by the linkage name in its own demangler's words, binutils by the linkage name or the symbol
# in libiberty's words as trace2flame, and not always the same way for one address alone and in
# a batch; a function without a linkage name by DW_AT_name, which trace2flame qualifies by its
# namespaces and types, or by the linkage name of its out-of-line copy: that counts as the same
# name); with BINUTILS_LINES 1 also binutils' files and lines.
compare() {
	python3 - "$@" <<'PY'
import re, sys
label, t2f, binutils_lines, oracles = sys.argv[1], sys.argv[2], sys.argv[3] == "1", sys.argv[4:]

def level(fn, fl):
    fn = re.sub(r" inlined at .*", "", fn)
    fl = re.sub(r" \(discriminator \d+\)$", "", fl)
    m = re.fullmatch(r"(.*?):(\d+|\?)(?::\d+)?", fl)
    f, l = (m.group(1), m.group(2)) if m else (fl, "?")
    return (None if fn == "??" else fn, None if f == "??" else f,
            None if l in ("?", "0") else int(l))

def parse(path):  # "0xADDR" then pairs of lines (blank lines between addresses skipped)
    out, cur = {}, None
    lines = [l for l in open(path).read().splitlines() if l]
    i = 0
    while i < len(lines):
        if re.fullmatch(r"0x[0-9a-f]+", lines[i]):
            cur = int(lines[i], 16); out[cur] = []; i += 1; continue
        out[cur].append(level(lines[i], lines[i + 1])); i += 2
    return out

eu, llvm, binutils = parse(oracles[0]), parse(oracles[1]), parse(oracles[2])
got = {}
for l in open(t2f).read().splitlines():
    p = l.split("\t")
    if len(p) == 3 and p[1].startswith("  "):
        got.setdefault(int(p[0], 16), []).append(level(p[1][2:], p[2]))
lines_of = lambda c: [x[1:] for x in c]

def same_name(ours, theirs):  # equal, or ours qualified by the scopes theirs leaves out
    if ours == theirs or (ours is not None and theirs is not None and
                          ours.endswith("::" + theirs)):
        return True
    # a function without a linkage name named by its out-of-line copy's (copy_names.sh holds
    # those to the copies' symbols): the oracle's DW_AT_name's identifier, then its arguments
    m = re.match(r"[\w~]+", theirs or "")
    return bool(m and ours and re.search(r"(^|[ :])" + re.escape(m.group(0)) + r"[<(]", ours))

def name_ok(g, i):  # level i's function as an oracle names it there (the outermost: outermost)
    j = -1 if i == len(g) - 1 else i
    return any(len(o.get(a_, [])) > max(i, 0) and same_name(g[i][0], o[a_][j][0])
               for o in (eu, llvm, binutils))

def agrees(a):
    global a_
    a_, g = a, got.get(a, [])
    ok = any(lines_of(g) == lines_of(o.get(a, [])) for o in (eu, llvm))
    ok = ok and all(name_ok(g, i) for i in range(len(g)))
    return ok and (not binutils_lines or lines_of(g) == lines_of(binutils.get(a, [])))

lined = [a for a, c in eu.items() if c and c[0][1] is not None]  # placed in a source file
unlined = [a for a in eu if a not in lined]
bad = [a for a in lined if not agrees(a)]
extra = [a for a in unlined if got.get(a)]
deep = sum(1 for a in lined if max(len(eu[a]), len(llvm.get(a, []))) > 1)
print(f"{label}: {len(lined) - len(bad)} of {len(lined)} addresses in a source file agree "
      f"({deep} in inlined code); {len(unlined)} in none, {len(extra)} of them given a chain")
for a in (bad + extra)[:10]:
    print(f"  0x{a:x}\n    eu-addr2line:   {eu.get(a)}\n    llvm-symbolizer: {llvm.get(a)}"
          f"\n    trace2flame:    {got.get(a)}")
sys.exit(0 if lined and (len(lined) - len(bad)) * 1000 >= len(lined) * 999 and not extra else 1)
PY
}

# check NAME DWARF_VERSION [PREFIX]: PROG = $work/NAME-vVERSION, already built
check() {
	prog=$work/$1-v$2
	addrs "$prog" "${3:-}" >"$prog.addrs"
	# exit 1 means some address had no symbol: the chains are still printed
	xargs "$bin" resolve --inlines "$prog" <"$prog.addrs" >"$prog.t2f" || [ $? -eq 123 ]
	eu-addr2line -i -f -C -a -e "$prog" <"$prog.addrs" >"$prog.eu"
	llvm-symbolizer --obj="$prog" -a <"$prog.addrs" >"$prog.llvm"
	addr2line -i -f -C -a -e "$prog" <"$prog.addrs" >"$prog.a2l"
	lines=0
	[ "$2" = 4 ] && lines=1
	compare "$1 DWARF $2" "$prog.t2f" $lines "$prog.eu" "$prog.llvm" "$prog.a2l" || failed=1
}

for v in 4 5; do
	cc -O2 -g -gdwarf-$v -o "$work/inl-v$v" "$src/inl.c"
	check inl $v
	c++ -O2 -g -gdwarf-$v -o "$work/tmpl-v$v" "$src/tmpl.cc"
	check tmpl $v
done
# dwz: two builds' DWARF shared through a supplementary file (.gnu_debugaltlink, partial units,
# DW_FORM_GNU_ref_alt): the chains of the dwz'd program equal those of an untouched copy
if command -v dwz >/dev/null 2>&1; then
	mkdir -p "$work/dwz"
	c++ -O2 -g -o "$work/dwz/tmpl" "$src/tmpl.cc"
	cp "$work/dwz/tmpl" "$work/dwz/ref"
	c++ -O2 -g -DT2F_OTHER_BUILD -o "$work/dwz/other" "$src/tmpl.cc"
	(cd "$work/dwz" && dwz -m common.debug -M "$work/dwz/common.debug" tmpl other)
	if ! readelf -S "$work/dwz/tmpl" | grep -q gnu_debugaltlink; then
		echo "dwz: no .gnu_debugaltlink made"
		failed=1
	fi
	addrs "$work/dwz/ref" >"$work/dwz/addrs"
	for p in ref tmpl; do
		xargs "$bin" resolve --inlines "$work/dwz/$p" <"$work/dwz/addrs" |
			cut -f1,2,3 | sed "s|$work/dwz/$p\$||" >"$work/dwz/$p.t2f" || [ $? -eq 123 ]
	done
	if cmp -s "$work/dwz/ref.t2f" "$work/dwz/tmpl.t2f" &&
		[ "$(grep -c '	  ' "$work/dwz/ref.t2f")" -gt 1000 ]; then
		echo "dwz: $(wc -l <"$work/dwz/addrs") addresses, the same chains with the DWARF" \
			"shared through common.debug"
	else
		echo "dwz: the chains differ once the DWARF is shared:"
		diff "$work/dwz/ref.t2f" "$work/dwz/tmpl.t2f" | head -10
		failed=1
	fi
else
	echo "dwz: skipped (no dwz: apt-get install dwz)"
fi
# compressed debug sections (objcopy --compress-debug-sections, binutils 2.40): zlib and zstd
# copies of the DWARF 5 C++ program give the chains the untouched one gives (libelf 0.188
# cannot inflate zstd: trace2flame inflates the sections itself before libdw opens the file)
for z in zlib zstd; do
	objcopy --compress-debug-sections=$z "$work/tmpl-v5" "$work/tmpl-$z" 2>/dev/null || {
		echo "compressed $z: skipped (objcopy cannot write it)"
		continue
	}
	for p in tmpl-v5 tmpl-$z; do
		xargs "$bin" resolve --inlines "$work/$p" <"$work/tmpl-v5.addrs" |
			cut -f1,2,3 | sed "s|$work/$p\$||" >"$work/$p.z.t2f" || [ $? -eq 123 ]
	done
	if ! readelf -S "$work/tmpl-$z" | grep -q ' C '; then
		echo "compressed $z: objcopy compressed no section"
		failed=1
	elif cmp -s "$work/tmpl-v5.z.t2f" "$work/tmpl-$z.z.t2f" &&
		[ "$(grep -c '	  ' "$work/tmpl-$z.z.t2f")" -gt 1000 ]; then
		echo "compressed $z: the same chains on $(wc -l <"$work/tmpl-v5.addrs") addresses"
	else
		echo "compressed $z: the chains differ from the uncompressed file's:"
		diff "$work/tmpl-v5.z.t2f" "$work/tmpl-$z.z.t2f" | head -10
		failed=1
	fi
done
if rustc --version >/dev/null 2>&1; then
	rustc -C opt-level=2 -g -o "$work/rust-v4" "$src/inl.rs"
	check rust 4 _ZN3inl
else
	echo "rust: skipped (no working rustc)"
fi
exit $failed
