# tests/unwind/cfi.sh: shared by the unwind tests that assemble a library of their own call-frame
# rules (.cfi directives) and a perf.data file of --call-graph dwarf samples in it (rules.sh,
# debug_frame.sh). Sourced after ../lib.sh and t2f_init, in $TMP.
#   cfi_need TOOL...      exits 0 (skipped) off x86_64 or without cc, readelf, nm, python3 or
#                         a TOOL; sets PY
#   cfi_top_leaf          prints the assembly of top, the outermost frame (.cfi_undefined rip;
#                         it calls leaf 2 bytes in: leaf's return address is top + 7), and leaf
#                         (the ABI's rules)
#   cfi_build SRC LIB [CCFLAG...]   LIB, a shared library without libc, from the assembly SRC;
#                         its build-id in $id, its symbols (nm) in syms; exits 1 when it fails
#   cfi_data LIB OUT SAMPLE...      OUT, a perf.data file (tests/perf_data_gen.py) mapping LIB
#                         at 0x7f0000000000 with its build-id, one sample per SAMPLE: "PC
#                         WORD..." (the pc, then the stack copy's words from sp), each
#                         SYMBOL+OFFSET or a number
# shellcheck shell=sh

cfi_need() {
	PY=/usr/bin/python3
	[ -x "$PY" ] || PY=python3
	if [ "$(uname -m)" != x86_64 ]; then
		echo "$TEST_NAME: the library is x86_64 assembly, this is $(uname -m): skipping"
		exit 0
	fi
	for _tool in cc readelf nm "$PY" "$@"; do
		if ! command -v "$_tool" >/dev/null 2>&1; then
			echo "$TEST_NAME: $_tool not found: skipping"
			exit 0
		fi
	done
}

cfi_top_leaf() {
	cat <<'EOF'
	.text
	.globl	top
	.type	top, @function
top:
	.cfi_startproc
	.cfi_undefined rip
	nop
	nop
	call	leaf
	ret
	.cfi_endproc
	.size	top, .-top

	.globl	leaf
	.type	leaf, @function
leaf:
	.cfi_startproc
	nop
	ret
	.cfi_endproc
	.size	leaf, .-leaf
EOF
}

cfi_build() {
	_src=$1 _lib=$2
	shift 2
	if ! cc "$@" -shared -nostdlib -Wl,--build-id -o "$_lib" "$_src" 2>cc.err; then
		echo "FAIL the library does not build: $(head -3 cc.err)"
		exit 1
	fi
	id=$(readelf -n "$_lib" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
	[ ${#id} = 40 ] || bad "$_lib: no 20-byte build-id ($id)"
	nm "$_lib" >syms || bad "nm $_lib"
}

cfi_data() {
	_lib=$1 _out=$2
	shift 2
	"$PY" - "$SRC/tests" "$_lib" "$id" syms "$_out" "$@" >gen.err 2>&1 <<'EOF' ||
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
import perf_data_gen as g
BASE, SP = 0x7f0000000000, 0x7ffc00001000
sym = {}
for line in open(sys.argv[4]):
    f = line.split()
    if len(f) == 3:
        sym[f[2]] = BASE + int(f[0], 16)
def value(w):
    name, _, off = w.partition("+")
    return sym[name] + int(off or 0) if name in sym else int(w, 0)
samples = [[value(w) for w in s.split()] for s in sys.argv[6:]]
open(sys.argv[5], "wb").write(g.perf_data(
    b"rules", b"cpu-clock", [(sys.argv[2].encode(), BASE, 5)],
    [(t + 1, s[0], SP, s[1:]) for t, s in enumerate(samples)],
    build_ids=[(sys.argv[2].encode(), bytes.fromhex(sys.argv[3]))], config=0, dwarf=True))
EOF
		bad "perf_data_gen: $(tail -3 gen.err)"
}
