#!/bin/sh
# tests/dwarf/hostile.sh: DWARF made to hurt its reader (tests/dwarf/make-hostile writes the
# files: a supplementary file that is a FIFO or of another build, range lists shared by 400 DIEs
# and by 1000 units, a line table of 50,000 files in a 64 KiB directory, compressed debug
# sections inflating to 1.5 GiB, 256 nested levels over 12,288 ranges each, 80 KB names, a
# linkage name demangling to 250 KB on 64 levels).
# For each, `trace2flame resolve --inlines` must end (a hang guard: timeout), stay under 1 GiB
# of peak RSS (/usr/bin/time), name every address by its ELF symbol still, and print exactly
# the chains below, with one warning naming the file and what was left out; a conversion of
# perf script text through a FIFO supplementary file ends too, and one of 3 stacks through the
# 80 KB names writes a few KB, not megabytes, and one through the demangled names a few KB of
# speedscope (the raw name names the levels). The supplementary file of the right build-id is
# used (its names appear), and a sane file keeps its chain.
#
# usage: tests/dwarf/hostile.sh TRACE2FLAME   (env: T2F_SOURCE_DIR)
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
t2f_init ../.. 1 "$@"
pass=0 fail=0
make_tmp
if [ ! -x /usr/bin/time ]; then
	echo "hostile: /usr/bin/time not found (apt-get install time): skipping"
	exit 0
fi
export DEBUGINFOD_URLS=
cd "$TMP" || exit 1
python3 "$SRC/tests/dwarf/make-hostile" . all || exit 1
mkfifo alt-fifo.alt

# run CASE TIMEOUT ADDR...: resolve --inlines, its output in CASE.out, warnings in CASE.err;
# checks it ended and its peak RSS
run() {
	_c=$1 _t=$2
	shift 2
	/usr/bin/time -f %M -o "$_c.rss" timeout "$_t" "$T2F_BIN" resolve --inlines "./$_c" "$@" \
		>"$_c.out" 2>"$_c.err"
	_rc=$?
	if [ "$_rc" -ge 124 ]; then
		bad "$_c: did not end in $_t s (exit $_rc)"
		return
	fi
	_rss=$(tail -n 1 "$_c.rss")
	if [ "$_rss" -le 1048576 ]; then ok; else bad "$_c: peak RSS $_rss KB, over 1 GiB"; fi
}

# expect CASE WARNING: CASE.out is CASE.want (stdin); its stderr holds WARNING (or is empty)
expect() {
	cat >"$1.want"
	if cmp -s "$1.want" "$1.out"; then ok; else
		bad "$1: unexpected output:"
		diff "$1.want" "$1.out" | head -12 | cut -c1-160
	fi
	if [ -z "$2" ]; then
		if [ -s "$1.err" ]; then bad "$1: unexpected warnings: $(head -c 300 "$1.err")"; else ok; fi
	elif grep -qF -- "$2" "$1.err"; then ok; else
		bad "$1: no warning \"$2\": $(head -c 300 "$1.err")"
	fi
}

# symbols_only CASE: the three addresses named by their ELF symbols, no chain
symbols_only() {
	printf '0x1000\tf+0x0\t./%s\n0x1005\tf+0x5\t./%s\n0x2005\ttail+0x5\t./%s\n' "$1" "$1" "$1"
}

run sane 30 0x1000 0x1005 0x2005
expect sane "" <<'EOF'
0x1000	f+0x0	./sane
0x1000	  f	/src/a.c:1
0x1005	f+0x5	./sane
0x1005	  g	/src/a.c:2
0x1005	  h	/src/a.c:7
0x2005	tail+0x5	./sane
EOF

run alt-right 30 0x1005
expect alt-right "" <<'EOF'
0x1005	f+0x5	./alt-right
0x1005	  alt_name	/src/a.c:2
0x1005	  alt_name	/src/a.c:7
EOF

for c in alt-fifo alt-wrong; do
	run $c 30 0x1005
	case $c in
	alt-fifo) why="not a regular file" ;;
	*) why="another build-id" ;;
	esac
	expect $c "./$c: supplementary DWARF file $c.alt: $why; names and declarations kept" <<EOF
0x1005	f+0x5	./$c
0x1005	  ??	/src/a.c:2
0x1005	  ??	/src/a.c:7
EOF
done

run ranges-die 60 0x1000 0x1005 0x2005
symbols_only ranges-die | expect ranges-die "./ranges-die: DWARF unit at 0xb left out: more than"
run ranges-cu 60 0x1000 0x1005 0x2005
symbols_only ranges-cu | expect ranges-cu "./ranges-cu: DWARF units left out from unit"
run line-files 60 0x1000 0x1005 0x2005
symbols_only line-files | expect line-files "./line-files: DWARF unit at 0xc left out: its line table has 50001 files"
for c in zbomb zdebug; do
	run $c 60 0x1000 0x1005 0x2005
	symbols_only $c | expect $c "./$c: DWARF left out: its debug sections inflate to 1610612736 bytes, over the limit of 1024 MiB per file"
done

# 10,000 addresses 3 bytes past a range start: in none of the 256 levels' ranges, in h alone
python3 -c 'for i in range(10000): print(hex(0x1000 + 4 * i + 3))' >walk.addrs
# A hang guard, not a speed test: 1.2 s in a release build and 18 s under AddressSanitizer on a
# 2-CPU VM, where 10 s timed out; a walk that does not end never does.
# shellcheck disable=SC2046 # one argument per address
run range-walk 60 $(cat walk.addrs)
lines=$(grep -c . range-walk.out)
chains=$(grep -c '	  f	??:?$' range-walk.out)
# 0x1000-0x1fff is f's symbol and h's code: one level, named by the symbol; past 0x2000, tail's
if [ "$lines" = 20000 ] && [ "$chains" = 1024 ] && [ ! -s range-walk.err ]; then ok; else
	bad "range-walk: $lines lines, $chains chains of f: want 20000 and 1024"
	head -4 range-walk.out
fi

run long-names 30 0x1005
{
	printf '0x1005\tf+0x5\t./long-names\n'
	i=0
	while [ $i -lt 63 ]; do
		printf '0x1005\t  ??\t/src/a.c:%s\n' "$([ $i = 0 ] && echo 2 || echo 7)"
		i=$((i + 1))
	done
	printf '0x1005\t  h\t/src/a.c:7\n'
} | expect long-names "./long-names: DWARF unit at 0xb: 63 names longer than 4096 bytes left out"

# conversions: perf script text whose frames are in the crafted files
# stacks FILE N: N samples, each a stack of two frames in FILE
stacks() {
	i=0
	while [ $i -lt "$2" ]; do
		printf 'prog 7 1.%06d: 1 cpu-clock:\n\t    %x [unknown] (%s)\n' $i $((0x1005 + i)) "$TMP/$1"
		printf '\t    %x [unknown] (%s)\n\n' $((0x1009 + i)) "$TMP/$1"
		i=$((i + 1))
	done
}
buildid() {
	python3 -c 'import hashlib, sys; print(hashlib.sha1(sys.argv[1].encode()).hexdigest())' "$1"
}
for c in alt-fifo long-names; do
	stacks $c 3 >$c.perf.txt
	echo "$(buildid $c) $TMP/$c" >$c.ids
	for f in collapsed svg; do
		if timeout 30 "$T2F_BIN" -q --buildids $c.ids -f $f -o $c.$f $c.perf.txt 2>$c.$f.err; then
			ok
		else
			bad "$c: the conversion to $f failed or hung (exit $?)"
		fi
	done
done
# one 712-byte linkage name on 64 levels that demangles to 250 KB: the raw name names them
stacks demangle 3 >demangle.perf.txt
echo "$(buildid demangle) $TMP/demangle" >demangle.ids
if timeout 30 "$T2F_BIN" -q --buildids demangle.ids -f speedscope -o demangle.json \
	demangle.perf.txt 2>demangle.json.err && [ "$(wc -c <demangle.json)" -lt 65536 ] &&
	grep -q '"_Z1fI1XIiiiii' demangle.json; then
	ok
else
	bad "demangle: $(wc -c <demangle.json) bytes of speedscope from 3 stacks (want < 64 KiB)"
fi
size=$(cat long-names.collapsed long-names.svg | wc -c)
if [ "$size" -lt 65536 ] && grep -q '^prog;f;' long-names.collapsed; then ok; else
	bad "long-names: $size bytes of folded and SVG from 3 stacks (want < 64 KiB):"
	head -c 300 long-names.collapsed
fi
finish
