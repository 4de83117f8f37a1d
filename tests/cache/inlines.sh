#!/bin/sh
# tests/cache/inlines.sh: the symbol cache answers the inline chain and lines of an address it
# was never asked when a chain it holds is known to hold there (docs/symbols.md, Symbol cache).
# tests/cache/inlines.c (always_inline functions nested in a loop) is built -O2 -g as a PIE;
# its line table (objdump --dwarf=decodedline) and instructions (objdump -d) choose three sets
# of addresses of run, by row of the line table (a row: its address up to the next row's):
# A, the first instruction of each row holding several; B, the other instructions of those
# rows, where llvm-symbolizer gives the chain and line of the row's first, and the next row's
# first when each row of both addresses has the same line and llvm-symbolizer the same chain
# (the range is widened over such rows); C, the first
# instruction of the next row where llvm-symbolizer gives another chain or line than A's row.
# perf script text naming no function ([unknown] frames, the build-id given by --buildids)
# samples each set: A converted into an empty cache, then B must be answered from the cache
# alone ("0 looked up in the files") in folded and pprof, and give the bytes of B with
# --no-cache; C and A too (C may look up). `resolve --inlines` likewise: A, then B answered from
# the cache file (poisoned by tests/cache/craft.c: B's inline names show it), the same bytes as
# --no-cache; and its chains and lines are llvm-symbolizer's (names, file:line per level).
# Folded output reads no line table: the cache file it writes says so, and pprof (which shows
# lines) takes none of it: a miss, written again with lines, which folded then takes; folded
# adding chains to it makes it one without lines again.
# Without --buildids (a module recorded without a build-id, as perf leaves libraries found only
# by --call-graph dwarf unwinding; then --unsafe-build-id-match), the cache file is keyed by the file's own build-id: B is
# answered from it alone after A; rebuilt (-DREBUILT), the file is not answered from it.
# Skipped without cc, objdump, llvm-symbolizer or python3.
# usage: sh tests/cache/inlines.sh TRACE2FLAME
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
t2f_init ../.. 1 "$@"
make_tmp
for tool in cc objdump llvm-symbolizer python3 readelf nm; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "$TEST_NAME: $tool not found: skipped"
		exit 0
	fi
done
export DEBUGINFOD_URLS=
C=$TMP/cache
export T2F_CACHE_DIR="$C"
P=$TMP/inlines
cc -O2 -g -pie -fPIE -Wl,--build-id -o "$P" "$SRC/tests/cache/inlines.c" ||
	{ bad "cc inlines.c failed"; finish; }
echo "$(readelf -n "$P" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p') $P" >"$TMP/ids"
objdump --dwarf=decodedline "$P" >"$TMP/rows"
objdump -d --no-show-raw-insn "$P" | sed -n 's/^ *\([0-9a-f][0-9a-f]*\):.*/\1/p' >"$TMP/insns"
nm -S "$P" | awk '$4 == "run" { print $1, $2 }' >"$TMP/run"
awk '{ printf "0x%s\n", $1 }' "$TMP/insns" | llvm-symbolizer --obj="$P" -a --inlines \
	>"$TMP/llvm"

# the sets A, B, C (one address a line, hex) from the rows, instructions and llvm's chains
python3 - "$TMP" <<'PY' || { bad "choosing the addresses failed"; finish; }
import re, sys
d = sys.argv[1]
lo, size = (int(x, 16) for x in open(d + "/run").read().split())
hi = lo + size
lines = {}  # row address -> the lines of its rows
for l in open(d + "/rows"):
    m = re.match(r"inlines\.c\s+(\d+)\s+(0x[0-9a-f]+)", l)
    if m:
        lines.setdefault(int(m.group(2), 16), set()).add(int(m.group(1)))
rows = sorted(lines)
insns = sorted(int(l, 16) for l in open(d + "/insns") if l.strip())
chains, cur = {}, None  # llvm: address -> (name, file:line) per level, no column
for l in open(d + "/llvm").read().splitlines():
    if re.fullmatch(r"0x[0-9a-f]+", l):
        cur = int(l, 16); chains[cur] = []
    elif l and cur is not None:
        chains[cur].append(re.sub(r":\d+$", "", l.strip()).rsplit("/", 1)[-1])
A, B, C, W = [], [], [], []
rows = [r for r in rows if lo <= r < hi] + [hi]
for i in range(len(rows) - 1):
    r, nxt = rows[i], rows[i + 1]
    ins = [a for a in insns if r <= a < nxt]
    if len(ins) < 2 or ins[0] != r:
        continue
    same = [a for a in ins[1:] if chains.get(a) == chains.get(r)]
    if not same:
        continue
    A.append(r); B += same
    # the next row too when each row of both addresses has the line, and llvm the chain
    if (nxt < hi and len(lines[r]) == 1 and lines[nxt] == lines[r] and
            nxt in insns and chains.get(nxt) == chains.get(r)):
        W.append(nxt); continue
    later = [a for a in insns if a >= nxt and a < hi]
    if later and chains.get(later[0]) != chains.get(r):
        C.append(later[0])
if (len(A) < 4 or len(B) < 4 or len(C) < 2 or not W or
        not any(len(chains[a]) > 4 for a in B)):
    sys.exit("too few rows with several instructions, or no inlined code: %d %d %d %d" %
             (len(A), len(B), len(C), len(W)))
B = sorted(set(B + W) - set(A))
for n, s in (("A", A), ("B", B), ("C", C)):
    open("%s/%s.addrs" % (d, n), "w").write("".join("%x\n" % a for a in s))
PY

# decoded_diff A B: what differs between pprof files A and B, decoded (tests/pprof_decode.py)
decoded_diff() {
	for _f in "$1" "$2"; do
		python3 "$SRC/tests/pprof_decode.py" "$_f" |
			python3 -c 'import json, sys; json.dump(json.load(sys.stdin), sys.stdout, indent=0)' \
				>"$_f.json" 2>&1
	done
	diff "$1.json" "$2.json" | head -n 30 | cut -c1-200 | sed 's/^/    decoded: /'
}

# input NAME: one sample per address of NAME.addrs, each a frame of inlines
input() {
	while read -r _a; do
		printf 'inlines 100 1.000000: 1000 cpu-clock:\n\t%16s [unknown] (%s)\n\n' "$_a" "$P"
	done <"$TMP/$1.addrs" >"$TMP/$1.txt"
}
for n in A B C; do input $n; done

for n in A B C; do
	for f in folded pb.gz; do
		t2f --no-cache --buildids "$TMP/ids" "$TMP/$n.txt" -o "$TMP/$n.ref.$f" \
			2>"$TMP/err" || bad "$n --no-cache: $(cat "$TMP/err")"
	done
done
rm -rf "$C"
for n in A B C A; do
	for f in folded pb.gz; do
		t2f --stats --buildids "$TMP/ids" "$TMP/$n.txt" -o "$TMP/$n.$f" \
			2>"$TMP/$n.$f.err" || bad "$n: $(head -3 "$TMP/$n.$f.err")"
		same_nonempty "$n.$f" "with the cache and without" "$TMP/$n.ref.$f" "$TMP/$n.$f" \
			"< --no-cache, > the cache"
		[ "$f" = pb.gz ] && ! cmp -s "$TMP/$n.ref.$f" "$TMP/$n.$f" &&
			decoded_diff "$TMP/$n.ref.$f" "$TMP/$n.$f"
	done
done
grep -q '^inlines;run;mix;scale' "$TMP/B.folded" && ok ||
	bad "B has no inlined frames: $(cat "$TMP/B.folded")"
nb=$(wc -l <"$TMP/B.addrs")
for f in folded pb.gz; do
	case $(grep '^symbol cache' "$TMP/B.$f.err") in
	*": 1 files used, 0 missing, 0 ignored"*" 0 written,"*"; $((2 * nb)) addresses answered from it, 0 looked up in the files") ok ;;
	*) bad "B.$f was not answered from the cache: $(grep '^symbol cache' "$TMP/B.$f.err")" ;;
	esac
done
# the inline chains of B too: every one from the cache, none looked up in DWARF; C's (not in A's
# ranges) looked up there
for f in folded pb.gz; do
	case $(grep '^inline frames: .* found' "$TMP/B.$f.err") in
	"inline frames: 0 addresses looked up in DWARF, $nb answered from the symbol cache, $nb found,"*) ok ;;
	*) bad "B.$f: not every inline chain from the cache: $(grep '^inline frames' "$TMP/B.$f.err")" ;;
	esac
done
grep -q '^inline frames: [1-9][0-9]* address.* looked up in DWARF' "$TMP/C.folded.err" && ok ||
	bad "C looked up no inline chain in DWARF: $(grep '^inline frames' "$TMP/C.folded.err")"
grep -q '^symbol cache .* [1-9][0-9]* looked up in the files' "$TMP/C.folded.err" && ok ||
	bad "C looked nothing up (it should not be in A's ranges): $(grep '^symbol cache' \
		"$TMP/C.folded.err")"

# folded writes a file without lines; pprof does not take it, folded takes pprof's
rm -rf "$C"
# nl N F: N converted to F with the cache, its --stats in N.nl.F.err
nl() {
	t2f --stats --buildids "$TMP/ids" "$TMP/$1.txt" -o "$TMP/$1.nl.$2" 2>"$TMP/$1.nl.$2.err" ||
		bad "$1 to $2: $(head -3 "$TMP/$1.nl.$2.err")"
	same_nonempty "$1.$2 after folded" "with the cache and without" "$TMP/$1.ref.$2" \
		"$TMP/$1.nl.$2" "< --no-cache, > the cache"
}
# cache_is N F TEXT WHY: N.nl.F's symbol cache line holds TEXT
cache_is() {
	case $(grep '^symbol cache' "$TMP/$1.nl.$2.err") in
	*"$3"*) ok ;;
	*) bad "$1.$2: $4: $(grep '^symbol cache' "$TMP/$1.nl.$2.err")" ;;
	esac
}
nl A folded
cache_is A folded ": 0 files used, 1 missing, 0 ignored (untrusted or broken), 1 written" \
	"no file written"
nl A pb.gz
cache_is A pb.gz ": 0 files used, 1 missing, 0 ignored (untrusted or broken), 1 written" \
	"the file without lines was taken"
nl B folded
cache_is B folded ": 1 files used, 0 missing, 0 ignored (untrusted or broken), 0 written" \
	"pprof's file, with lines, was not taken"
nl C folded
cache_is C folded ": 1 files used, 0 missing, 0 ignored (untrusted or broken), 1 written" \
	"C's chains were not added"
nl C pb.gz
cache_is C pb.gz ": 0 files used, 1 missing, 0 ignored (untrusted or broken), 1 written" \
	"the file folded added to was taken"

# a module the trace names without a build-id: its cache file is the one of the file's own
# build-id (the file the search takes then), answering B alone after A; a rebuilt file (another
# build-id, another size and mtime) is not answered from it. (perf script text names files
# without a build-id only under --unsafe-build-id-match; perf.data does.)
rm -rf "$C"
NOID=--unsafe-build-id-match
for n in A B; do
	t2f $NOID --no-cache "$TMP/$n.txt" -o "$TMP/$n.noid.ref.folded" 2>"$TMP/err" ||
		bad "$n: $(cat "$TMP/err")"
	t2f $NOID --stats "$TMP/$n.txt" -o "$TMP/$n.noid.folded" 2>"$TMP/$n.noid.err" ||
		bad "$n without id"
	same_nonempty "$n without a build-id" "with the cache and without" \
		"$TMP/$n.noid.ref.folded" \
		"$TMP/$n.noid.folded" "< --no-cache, > the cache"
done
cmp -s "$TMP/B.noid.ref.folded" "$TMP/B.ref.folded" && ok ||
	bad "B without a build-id is named otherwise"
[ -f "$C/$(cut -d' ' -f1 "$TMP/ids").t2fsym" ] && ok || bad "no cache file by the file's id"
case $(grep '^symbol cache' "$TMP/B.noid.err") in
*": 1 files used, 0 missing, 0 ignored"*" 0 written,"*"; $((2 * nb)) addresses answered from it, 0 looked up in the files") ok ;;
*) bad "B without a build-id was not answered from the cache: $(grep '^symbol cache' \
	"$TMP/B.noid.err")" ;;
esac
cp "$P" "$TMP/inlines.orig"
cc -O2 -g -pie -fPIE -Wl,--build-id -DREBUILT -o "$P" "$SRC/tests/cache/inlines.c" ||
	bad "cc -DREBUILT failed"
t2f $NOID --no-cache "$TMP/B.txt" -o "$TMP/B.rebuilt.ref.folded" 2>/dev/null
t2f $NOID --stats "$TMP/B.txt" -o "$TMP/B.rebuilt.folded" 2>"$TMP/err"
same_nonempty "B, rebuilt" "with the cache and without" "$TMP/B.rebuilt.ref.folded" \
	"$TMP/B.rebuilt.folded" "< --no-cache, > the cache"
grep -q '^symbol cache .*: 0 files used, 1 missing' "$TMP/err" && ok ||
	bad "the rebuilt file is not a miss of the cache: $(grep '^symbol cache' "$TMP/err")"
cp "$TMP/inlines.orig" "$P"

# resolve --inlines: llvm-symbolizer's chains and lines, from the cache as without it
rm -rf "$C"
for n in A B C; do
	xargs "$T2F_BIN" resolve --no-cache --inlines "$P" <"$TMP/$n.addrs" >"$TMP/$n.rref" \
		2>"$TMP/err" || bad "resolve --no-cache $n: $(cat "$TMP/err")"
	xargs "$T2F_BIN" resolve --inlines "$P" <"$TMP/$n.addrs" >"$TMP/$n.rout" 2>"$TMP/err" ||
		bad "resolve $n: $(cat "$TMP/err")"
	[ $n = A ] && cp -r "$C" "$TMP/cache.A"
	same_nonempty "resolve $n" "with the cache and without" "$TMP/$n.rref" "$TMP/$n.rout" \
		"< --no-cache, > the cache"
done
python3 - "$TMP" <<'PY' && ok || bad "resolve --inlines is not llvm-symbolizer's"
import re, sys
d = sys.argv[1]
llvm, cur = {}, None
for l in open(d + "/llvm").read().splitlines():
    if re.fullmatch(r"0x[0-9a-f]+", l):
        cur = int(l, 16); llvm[cur] = []
    elif l and cur is not None:
        llvm[cur].append(re.sub(r":\d+$", "", l.strip()).rsplit("/", 1)[-1])
bad = 0
for n in "ABC":
    got = {}
    for l in open("%s/%s.rref" % (d, n)).read().splitlines():
        p = l.split("\t")
        if len(p) == 3 and p[1].startswith("  "):
            got.setdefault(int(p[0], 16), []).extend(
                [p[1][2:], p[2].rsplit("/", 1)[-1]])
    for a in (int(x, 16) for x in open("%s/%s.addrs" % (d, n))):
        if got.get(a) != llvm.get(a):
            print("%s %x: %s, llvm-symbolizer %s" % (n, a, got.get(a), llvm.get(a)))
            bad += 1
sys.exit(bad > 0)
PY
F=$(cut -d' ' -f1 "$TMP/ids").t2fsym
if [ -f "$TMP/cache.A/$F" ]; then
	rm -rf "$C" && mkdir -m 700 "$C"
	cc -O -I"$SRC" -o "$TMP/craft" "$SRC/tests/cache/craft.c" || { bad "cc craft.c"; finish; }
	"$TMP/craft" poison "$TMP/cache.A/$F" "$C/$F" && chmod 600 "$C/$F"
	xargs "$T2F_BIN" resolve --inlines "$P" <"$TMP/B.addrs" >"$TMP/B.poisoned" 2>"$TMP/err"
	# every level of B's chains named from the cache file (poisoned)
	lv=$(awk -F'\t' 'substr($2, 1, 2) == "  " { n++; if ($2 !~ /^  X+$/) bad++ }
		END { print n + 0, bad + 0 }' "$TMP/B.poisoned")
	[ "$lv" = "$(grep -c '	  ' "$TMP/B.rref") 0" ] && ok ||
		bad "resolve did not answer B's chains from the cache ($lv):" \
			"$(head -8 "$TMP/B.poisoned")"
else
	bad "resolve wrote no cache file $F: $(ls -A "$TMP/cache.A" 2>&1)"
fi
finish
