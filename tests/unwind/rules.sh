#!/bin/sh
# tests/unwind/rules.sh: --call-graph dwarf samples whose call-frame rules libdwfl's unwinder
# cannot apply stop for that reason, counted and said, not as stacks unwound to the end. A
# library is assembled here (cc) whose functions have the rules given by .cfi directives:
#   top      the outermost frame (.cfi_undefined rip);
#   leaf     the ABI's rules (the return address at the CFA - 8, CFA = rsp + 8);
#   bad_cfa  after its first instruction, CFA = rsp + 8 then DW_OP_form_tls_address
#            (DW_CFA_def_cfa_expression), an operation libdwfl does not evaluate;
#   bad_ra   after its first instruction, the return address at rsp then
#            DW_OP_push_object_address (DW_CFA_expression), another.
# A perf.data file (tests/perf_data_gen.py) maps it, with its build-id, and holds 6 samples with
# registers and stack copies: in top, and in leaf called from top (2 to the end); in bad_cfa,
# in bad_ra, and in leaf called from bad_cfa, twice (4 stopped). trace2flame, through the
# decoded rules and with --unwind-libdwfl, must: name the frames (bad_cfa;leaf, top;leaf), count
# 4 stops "unwind rule that could not be applied" and 2 stacks unwound to the end in --stats
# (and the 4 in the library's line), and warn without --stats that 4 of 6 stopped, why.
# Skipped when not on x86_64 or without cc, readelf, nm or python3.
# usage: sh tests/unwind/rules.sh TRACE2FLAME
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=cfi.sh
. "$(dirname "$0")/cfi.sh"
t2f_init ../.. 1 "$@"
# shellcheck disable=SC2119 # no tool beyond cfi_need's own
cfi_need
make_tmp
export DEBUGINFOD_URLS=
cd "$TMP" || exit 1

{
	cfi_top_leaf
	cat <<'EOF'

	.globl	bad_cfa
	.type	bad_cfa, @function
bad_cfa:
	.cfi_startproc
	nop
	.cfi_escape 0x0f, 0x03, 0x77, 0x08, 0x9b
	nop
	call	leaf
	ret
	.cfi_endproc
	.size	bad_cfa, .-bad_cfa

	.globl	bad_ra
	.type	bad_ra, @function
bad_ra:
	.cfi_startproc
	nop
	.cfi_escape 0x10, 0x10, 0x03, 0x77, 0x00, 0x97
	nop
	ret
	.cfi_endproc
	.size	bad_ra, .-bad_ra
	.section	.note.GNU-stack,"",@progbits
EOF
} >rules.s
cfi_build rules.s librules.so

# the samples: leaf's return address at sp; 1 + 5 bytes into top and bad_cfa
cfi_data "$TMP/librules.so" rules.data "top+1 0" "leaf top+7 0" "bad_cfa+1 0" "bad_ra+1 0" \
	"leaf bad_cfa+7 0" "leaf bad_cfa+7 0"

# check WHAT [OPTION]: the folded stacks, --stats and the warning of one way of unwinding
check() {
	if ! t2f ${2:+"$2"} rules.data -o "$1.folded" --stats 2>"$1.stats"; then
		bad "$1: trace2flame failed: $(head -3 "$1.stats")"
		return
	fi
	sort "$1.folded" >"$1.sorted"
	printf '%s\n' "rules;bad_cfa 1000" "rules;bad_cfa;leaf 2000" "rules;bad_ra 1000" \
		"rules;top 1000" "rules;top;leaf 1000" >want.folded
	same_nonempty "$TEST_NAME" "$1: folded stacks" "$1.sorted" want.folded "< ours, > expected"
	for line in "to the end: outermost frame reached: 2" \
		"stopped: unwind rule that could not be applied: 4" \
		"stopped in $TMP/librules.so: unwind rule that could not be applied 4;"; do
		if grep -qF -- "$line" "$1.stats"; then ok; else bad "$1: --stats lacks '$line'"; fi
	done
	if grep -q 'stopped: outermost\|stopped: no unwind rule' "$1.stats"; then
		bad "$1: --stats counts another stop: $(grep stopped "$1.stats")"
	else
		ok
	fi
	t2f ${2:+"$2"} rules.data -o "$1.q.folded" 2>"$1.warn"
	want="4 of 6 user stacks (--call-graph dwarf) stop before their outermost frame (unwind"
	want="$want rule that could not be applied: 4); --stats lists them by module"
	if grep -qF -- "$want" "$1.warn"; then ok; else bad "$1: no warning '$want': $(cat "$1.warn")"; fi
}

check rules
check libdwfl --unwind-libdwfl

echo "$TEST_NAME: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
