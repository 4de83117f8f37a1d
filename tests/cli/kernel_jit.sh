#!/bin/sh
# Kernel frames through --kallsyms and JIT frames through perf maps (--perf-map-dir), on the real
# recording fixtures/perf-script/kjit (see fixtures/perf-script/README.md). The expected names are
# perf's own: jitloop.perf.txt is `perf script` with the kallsyms copy and the map file present;
# jitloop.unnamed.perf.txt is the same recording printed without them (kernel and JIT frames
# "[unknown]"), jitloop.addrs.perf.txt with addresses only.
# usage: sh tests/cli/kernel_jit.sh TRACE2FLAME
. "$(dirname "$0")/common.sh"

K=kjit
named=$K/jitloop.perf.txt
unnamed=$K/jitloop.unnamed.perf.txt
addrs=$K/jitloop.addrs.perf.txt
opts="--kallsyms $K/kallsyms --perf-map-dir $K"
mkdir "$TMP/empty"

# kj FOLDED OUT: only the kernel (_[k]) and JIT (_[j]) frames of each stack, weights summed.
kj() {
	LC_ALL=C awk '{ w = $NF; sub(/ [0-9]+$/, ""); n = split($0, f, ";"); s = ""
		for (i = 1; i <= n; i++) if (f[i] ~ /_\[[kj]\]$/) s = s ";" f[i]
		t[s] += w } END { for (s in t) print s, t[s] }' "$1" | LC_ALL=C sort >"$2"
}

# 1. unnamed frames get perf's names; their kind is kept (--all: _[k], _[j])
for all in "" --all; do
	expect 0 "perf's names $all" $all -o "$TMP/perf$all.folded" "$named"
	# shellcheck disable=SC2086
	expect 0 "unnamed + kallsyms + map $all" $all $opts -o "$TMP/ours$all.folded" "$unnamed"
	same "kernel and JIT names equal perf's $all" "$TMP/perf$all.folded" "$TMP/ours$all.folded"
done
file_has "a JIT name with spaces" "$TMP/ours--all.folded" ';JIT name with spaces \[tier 2\]_\[j\] '
file_has "re-jitted at one address: the later map line" "$TMP/ours--all.folded" ';jit_new_stub_\[j\] '
file_has "kernel frames keep their kind" "$TMP/ours--all.folded" ';do_syscall_64_\[k\];'

# 2. address-only frames: the kernel and JIT parts of every stack equal perf's (sample counts:
# the address-only text has no period)
# shellcheck disable=SC2086
expect 0 "address-only + kallsyms + map" --all --weight samples $opts -o "$TMP/addrs.folded" "$addrs"
expect 0 "perf's names, sample counts" --all --weight samples -o "$TMP/perf-n.folded" "$named"
kj "$TMP/perf-n.folded" "$TMP/perf.kj"
kj "$TMP/addrs.folded" "$TMP/addrs.kj"
same "address-only: kernel and JIT frames per stack" "$TMP/perf.kj" "$TMP/addrs.kj"

# 3. --resymbolize re-resolves every kernel and JIT frame: perf's names again; --stats per module
# shellcheck disable=SC2086
expect 0 "--resymbolize --stats" --resymbolize --stats $opts -o "$TMP/re.folded" "$named"
same "--resymbolize gives perf's names" "$TMP/perf.folded" "$TMP/re.folded"
stderr_has "--stats: kernel module" '^  \[kernel\.kallsyms\]: 34 resolved, 0 unresolved$'
stderr_has "--stats: the kallsyms file" '^    file: kjit/kallsyms$'
stderr_has "--stats: JIT module" '^  /tmp/perf-15105\.map: 4 resolved, 0 unresolved$'
stderr_has "--stats: the map file" '^    file: kjit/perf-15105\.map$'

# 4. no map file: counted, reported, the warning counts the frames; kernel frames still named
expect 0 "no map file" --kallsyms $K/kallsyms --perf-map-dir "$TMP/empty" -o "$TMP/nomap.folded" "$unnamed"
stderr_has "warning names the input and the missing map, counts JIT frames" \
	"^trace2flame: warning: $unnamed: 4 JIT frames not named: no readable perf map \\($TMP/empty/perf-15105\\.map\\); run the program with its runtime's perf map on \\(e\\.g\\. node --perf-basic-prof, DOTNET_PerfMapEnabled=1, java -XX:\\+UnlockDiagnosticVMOptions -XX:\\+DumpPerfMapAtExit\\) and convert before the maps are removed, or give --perf-map-dir DIR\$"
if grep -q "looked up stayed unnamed" "$TMP/err"; then
	bad "no map file: the frames the map warning counts are not counted again"
else
	ok
fi
expect 0 "no map file, --stats" --stats --kallsyms $K/kallsyms --perf-map-dir "$TMP/empty" \
	-o "$TMP/nomap.folded" "$unnamed"
stderr_has "--stats: no map file" '^  /tmp/perf-15105\.map: 0 resolved, 4 unresolved, no map file 4$'
stderr_has "--stats: the missing path" "^    missing: $TMP/empty/perf-15105\\.map\$"
file_has "JIT frames stay as printed" "$TMP/nomap.folded" ';\[perf-15105\.map\] '
file_has "kernel frames named" "$TMP/nomap.folded" ';do_syscall_64;'

# 5. a map without some functions, and with a bad line: not found, a warning with FILE:LINE
mkdir "$TMP/part"
{
	grep jit_leaf $K/perf-15105.map
	echo 'not a map line'
} >"$TMP/part/perf-15105.map"
expect 0 "partial map" --stats --perf-map-dir "$TMP/part" -o "$TMP/part.folded" "$unnamed"
stderr_has "bad map line: FILE:LINE" "$TMP/part/perf-15105\\.map:2: expected \"START SIZE NAME\""
stderr_has "--stats: not found" '^  /tmp/perf-15105\.map: 1 resolved, 3 unresolved, not found 3$'
file_has "the mapped function named" "$TMP/part.folded" ';jit_leaf '
expect 1 "bad map line with --strict" --strict --perf-map-dir "$TMP/part" -o "$TMP/x.folded" "$unnamed"

# 6. without --kallsyms kernel frames stay as printed
expect 0 "no --kallsyms" --perf-map-dir $K -o "$TMP/nok.folded" "$unnamed"
file_has "kernel frames unnamed" "$TMP/nok.folded" ';\[\[kernel\.kallsyms\]\];'

# 7. kallsyms that cannot be used
sed 's/^[0-9a-f]* /0000000000000000 /' $K/kallsyms >"$TMP/zero"
expect 1 "kallsyms with zero addresses" --kallsyms "$TMP/zero" -o "$TMP/x.folded" "$unnamed"
stderr_has "zero addresses: what happened" 'zero: every address is 0: kernel\.kptr_restrict'
stderr_has "zero addresses: what to do" 'as root on the recording machine'
[ ! -e "$TMP/x.folded" ] && ok || bad "no output after a kallsyms error"
expect 3 "missing kallsyms" --kallsyms "$TMP/nonexistent" -o "$TMP/x.folded" "$unnamed"
stderr_has "missing kallsyms: the path" 'nonexistent: cannot open'
expect 2 "--kallsyms needs a FILE" "$unnamed" --kallsyms

# 8. a [vdso] frame without a copy of its image is never named from kallsyms: its offset is no
# kernel address, though a kallsyms symbol (a per-CPU one of a real kernel) may cover it
{
	echo '0000000000000b00 T low_symbol'
	cat $K/kallsyms
} >"$TMP/low"
printf 'spin 7  1.000000:    1000 cpu-clock: \n\t     b46 [unknown] ([vdso])\n\t    1139 main (/tmp/spin)\n\n' \
	>"$TMP/vdso.txt"
expect 0 "a [vdso] frame, no copy of the vdso" --stats --kallsyms "$TMP/low" -o "$TMP/vdso.folded" \
	"$TMP/vdso.txt"
file_has "the [vdso] frame stays unnamed" "$TMP/vdso.folded" '^spin;main;\[\[vdso\]\] 1000$'
stderr_has "--stats: the vdso frame not found" '^  \[vdso\]: 0 resolved, 1 unresolved, not found 1$'
stderr_has "--stats: why" \
	'^    no build-id known for the vdso \(--buildids FILE\), and not recorded on this machine$'

# 9. --each reads the kallsyms file once: the later inputs take the table the first read (the
# same bytes as a run of each alone); without the symbol cache, which would hand each input the
# table an earlier run kept (tests/cache/kallsyms.sh)
mkdir "$TMP/each"
cp "$unnamed" "$TMP/one.perf.txt"
cp "$unnamed" "$TMP/two.perf.txt"
cp "$unnamed" "$TMP/three.perf.txt"
# shellcheck disable=SC2086
expect 0 "--each over three inputs" --stats --no-cache --each $opts -o "$TMP/each" "$TMP/one.perf.txt" \
	"$TMP/two.perf.txt" "$TMP/three.perf.txt"
n=$(grep -c '^  kallsyms: 1 read, 0 shared ' "$TMP/err")
[ "$n" = 1 ] && ok || bad "--each: the kallsyms file read $n times, want 1"
n=$(grep -c '^  kallsyms: 0 read, 1 shared ' "$TMP/err")
[ "$n" = 2 ] && ok || bad "--each: the kallsyms table shared $n times, want 2"
for f in one two three; do
	same "--each: $f as a run alone" "$TMP/ours.folded" "$TMP/each/$f.perf.folded"
done

finish
