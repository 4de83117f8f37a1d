#!/bin/sh
# Kernel frames named where the recording's kernel sat (symbolizer/kernel_place.h): perf names
# its kernel map "[kernel.kallsyms]_text" and records _text's address then as its pgoff; a
# kallsyms file of another boot places _text elsewhere (KASLR), and kernel addresses are looked
# up moved by the difference, as perf relocates them.
#   1. perf.data made by tests/perf_data_gen.py (a kernel map at 0xffffffff81000000, a module
#      map [fakemod], three samples) with kallsyms files written here; each folded output is
#      exact, and where perf is installed `perf script --kallsyms` names the same frames:
#      a. the file as recorded: kernel and module frames named;
#      b. every address of the file 0x200000 higher (another boot): kernel frames named the
#         same, the module frame not ("placed elsewhere when recorded" in --stats), also from
#         the table the symbol cache kept (a second run);
#      c. the module's symbol listed as another module's: that frame not named;
#      d. no _text line: a warning that the place is not checked, names as the file places them;
#      e. two recordings whose kernels sat at different places, merged: no kernel frame named,
#         and a warning.
#   2. a recording made now (perf record -g of dd, kernel frames): a copy of /proc/kallsyms moved
#      0x1a00000 higher gives the bytes /proc/kallsyms gives; the moved copy without its _text
#      line does not (the proof the move is undone). Skipped when perf may not record or
#      /proc/kallsyms hides its addresses.
# usage: sh tests/cli/kernel_place.sh TRACE2FLAME
. "$(dirname "$0")/common.sh"

export T2F_CACHE_DIR="$TMP/cache" DEBUGINFOD_URLS=
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

# shift IN OUT BY: kallsyms IN with every address BY higher
shift_ks() {
	"$PY" -c 'import sys
by = int(sys.argv[3], 16)
with open(sys.argv[1]) as f, open(sys.argv[2], "w") as out:
    for line in f:
        addr, rest = line.split(" ", 1)
        out.write("%016x %s" % ((int(addr, 16) + by) % (1 << 64), rest))' "$1" "$2" "$3"
}

# golden WHAT OUT LINES: OUT is LINES (sorted both)
golden() {
	printf '%s\n' "$3" | LC_ALL=C sort >"$TMP/want"
	LC_ALL=C sort "$2" >"$TMP/got"
	same "$1" "$TMP/want" "$TMP/got"
}

# perf_names WHAT DATA KALLSYMS WANT: perf script's kernel frame names ("SYM (DSO)" per line,
# the sample order) are WANT
perf_names() {
	command -v perf >/dev/null 2>&1 || return 0
	perf script -i "$2" --kallsyms "$3" -F ip,sym,dso 2>/dev/null |
		awk '$NF ~ /^\(\[/ { sub(/\+0x[0-9a-f]+$/, "", $2); print $2, $NF }' >"$TMP/perf.names"
	printf '%s\n' "$4" >"$TMP/perf.want"
	same "$1: perf script" "$TMP/perf.want" "$TMP/perf.names"
}

# --- 1. generated recordings ---------------------------------------------------------------------
if ! "$PY" -c 'import sys
sys.path.insert(0, sys.argv[1])
import perf_data_gen as g
def rec(at):
    k = [(b"[kernel.kallsyms]_text", at, 0x1000000, at),
         (b"/lib/modules/6.1.0/kernel/fs/fakemod.ko", 0xffffffffc0001000, 0x2000, 0)]
    return k
m = [(b"/bin/prog", 0x400000, 5)]
s = [(10, [0x401000], [0xffffffff81000110, 0xffffffff81000210]),
     (20, [0x401000], [0xffffffffc0001010, 0xffffffff81000210]),
     (30, [0x401000], [0xffffffffc0001010, 0xffffffff81000210])]
open(sys.argv[2], "wb").write(g.perf_data(b"prog", b"cpu-clock", m, s, kmaps=rec(0xffffffff81000000),
                                          config=0))
s2 = [(10, [0x401000], [0xffffffff81200110])]
open(sys.argv[3], "wb").write(g.perf_data(b"prog", b"cpu-clock", m, s2, kmaps=rec(0xffffffff81200000),
                                          config=0))' "$SRC/tests" "$TMP/a.data" "$TMP/b.data"; then
	bad "perf_data_gen could not write the perf.data inputs"
	finish
fi
printf '%s\n' 'ffffffff81000000 T _text' 'ffffffff81000100 T entry_fn' 'ffffffff81000200 T other_fn' \
	'ffffffff81000300 D data_x' 'ffffffffc0001000 t mod_fn	[fakemod]' \
	'ffffffffc0002000 t mod2_fn	[othermod]' >"$TMP/ks.a"
NAMED='prog;[prog];other_fn;entry_fn 1000
prog;[prog];other_fn;mod_fn 2000'

# a. as recorded
expect 0 "a: the file as recorded" "$TMP/a.data" --kallsyms "$TMP/ks.a" -o "$TMP/a.folded" &&
	golden "a: the file as recorded" "$TMP/a.folded" "$NAMED"
perf_names a "$TMP/a.data" "$TMP/ks.a" 'entry_fn ([kernel.kallsyms])
other_fn ([kernel.kallsyms])
mod_fn ([fakemod])
other_fn ([kernel.kallsyms])
mod_fn ([fakemod])
other_fn ([kernel.kallsyms])'

# b. another boot: the kernel 0x200000 higher, the module elsewhere too
shift_ks "$TMP/ks.a" "$TMP/ks.b" 200000
MOVED='prog;[prog];other_fn;entry_fn 1000
prog;[prog];other_fn;[[fakemod]] 2000'
PERF_MOVED='entry_fn ([kernel.kallsyms])
other_fn ([kernel.kallsyms])
[unknown] ([fakemod])
other_fn ([kernel.kallsyms])
[unknown] ([fakemod])
other_fn ([kernel.kallsyms])'
for run in cold warm; do
	expect 0 "b: moved ($run)" "$TMP/a.data" --kallsyms "$TMP/ks.b" --stats -o "$TMP/b.folded" &&
		golden "b: moved ($run)" "$TMP/b.folded" "$MOVED"
	stderr_has "b: --stats ($run)" '^  \[fakemod\]: 0 resolved, 1 unresolved, placed elsewhere when recorded 1$'
	stderr_has "b: --stats ($run)" '^    placed: the kernel sat elsewhere when recorded \(_text at 0xffffffff81000000, at 0xffffffff81200000 in the file\)'
done
stderr_has "b: the table kept" '^  kallsyms: 0 read, .* 1 from the symbol cache'
perf_names b "$TMP/a.data" "$TMP/ks.b" "$PERF_MOVED"

# c. the module's code is another module's in the file
sed 's/\[fakemod\]/[othermod]/' "$TMP/ks.a" >"$TMP/ks.c"
expect 0 "c: another module's" "$TMP/a.data" --kallsyms "$TMP/ks.c" -o "$TMP/c.folded" &&
	golden "c: another module's" "$TMP/c.folded" "$MOVED"
perf_names c "$TMP/a.data" "$TMP/ks.c" "$PERF_MOVED"

# d. no _text line: not checked, said
grep -v ' _text$' "$TMP/ks.b" >"$TMP/ks.d"
expect 0 "d: no _text" "$TMP/a.data" --kallsyms "$TMP/ks.d" -o "$TMP/d.folded" &&
	golden "d: no _text" "$TMP/d.folded" 'prog;[prog];[[kernel.kallsyms]];[[kernel.kallsyms]] 1000
prog;[prog];[[kernel.kallsyms]];[[fakemod]] 2000'
stderr_has "d: the warning" "^trace2flame: warning: $TMP/ks.d: no _text line: where the recording's kernel sat \\(_text at 0xffffffff81000000\\) is not checked against this file"

# e. two recordings placed differently
expect 0 "e: merged" "$TMP/a.data" "$TMP/b.data" --kallsyms "$TMP/ks.a" -o "$TMP/e.folded" &&
	golden "e: merged" "$TMP/e.folded" 'prog;[prog];[[kernel.kallsyms]];[[kernel.kallsyms]] 1000
prog;[prog];[[kernel.kallsyms]];[[fakemod]] 2000
prog;[prog];[[kernel.kallsyms]] 1000'
stderr_has "e: the warning" "the inputs' kernels sat at different places when recorded: their kernel frames are not named"
expect 0 "e: alone" "$TMP/b.data" --kallsyms "$TMP/ks.b" -o "$TMP/e2.folded" &&
	golden "e: alone" "$TMP/e2.folded" 'prog;[prog];entry_fn 1000'

# --- 2. a recording made now ---------------------------------------------------------------------
if ! perf_can_record "part 2 skipped"; then finish; fi
if ! awk '$1 !~ /^0+$/ { found = 1; exit } END { exit !found }' /proc/kallsyms 2>/dev/null; then
	echo "$TEST_NAME: /proc/kallsyms hides its addresses (kptr_restrict): part 2 skipped"
	finish
fi
if ! perf record -q -e cpu-clock -g -o "$TMP/dd.data" -- \
	dd if=/dev/zero of=/dev/null bs=64k count=50000 >/dev/null 2>"$TMP/dd.rec"; then
	bad "perf record failed: $(head -3 "$TMP/dd.rec")"
	finish
fi
cat /proc/kallsyms >"$TMP/ks.now"
shift_ks "$TMP/ks.now" "$TMP/ks.moved" 1a00000
grep -v ' _text$' "$TMP/ks.moved" >"$TMP/ks.lost"
expect 0 "2: /proc/kallsyms" "$TMP/dd.data" --kallsyms "$TMP/ks.now" -o "$TMP/now.folded"
n=$(tr ';' '\n' <"$TMP/now.folded" | grep -c -e '^entry_SYSCALL_64' -e '^do_syscall_64')
if [ "$n" -gt 0 ]; then ok; else bad "2: no kernel frame named in the recording made now"; fi
expect 0 "2: moved" "$TMP/dd.data" --kallsyms "$TMP/ks.moved" -o "$TMP/moved.folded" &&
	same "2: moved: the same bytes" "$TMP/now.folded" "$TMP/moved.folded"
expect 0 "2: moved, no _text" "$TMP/dd.data" --kallsyms "$TMP/ks.lost" -o "$TMP/lost.folded"
if cmp -s "$TMP/now.folded" "$TMP/lost.folded"; then
	bad "2: the moved copy without _text names as /proc/kallsyms does: the move proves nothing"
else ok; fi
finish
