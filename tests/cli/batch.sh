#!/bin/sh
# Several inputs: merged into one output (weights add up), or with --each -o DIR one output per
# input ("DIR/<name minus .gz/.zst minus its last extension>.<format ext>"), going on past a bad
# input (exit 1) while still writing the others.
# usage: sh tests/cli/batch.sh TRACE2FLAME
. "$(dirname "$0")/common.sh"

a=burner.perf.txt
b=cxxwork.perf.txt
total() { awk '{ s += $NF } END { printf "%.0f\n", s }' "$1"; }
# A folded file with every count doubled.
double() { awk '{ n = $NF; sub(/ [0-9]+$/, ""); printf "%s %.0f\n", $0, 2 * n }' "$1"; }

# --- merged -------------------------------------------------------------------------------------
t2f -o "$TMP/a.folded" "$a" 2>/dev/null
t2f -o "$TMP/b.folded" "$b" 2>/dev/null
expect 0 "merge two inputs" -o "$TMP/ab.folded" "$a" "$b"
sum=$(($(total "$TMP/a.folded") + $(total "$TMP/b.folded")))
got=$(total "$TMP/ab.folded")
if [ "$got" -eq "$sum" ] && [ "$sum" -gt 0 ]; then ok; else bad "merged total $got, want $sum"; fi
# both programs' stacks are there unchanged (their comms differ: no line merges)
LC_ALL=C sort "$TMP/a.folded" "$TMP/b.folded" >"$TMP/ab.want"
same "merged = both outputs' lines" "$TMP/ab.want" "$TMP/ab.folded"
# the same input twice: every stack twice as heavy
expect 0 "the same input twice" -o "$TMP/aa.folded" "$a" "$a"
double "$TMP/a.folded" >"$TMP/aa.want"
same "the same input twice doubles every count" "$TMP/aa.want" "$TMP/aa.folded"
# --weight samples: counts add up too
t2f --weight samples "$a" >"$TMP/as.folded" 2>/dev/null
expect 0 "the same input twice, --weight samples" --weight samples "$a" "$a"
double "$TMP/as.folded" >"$TMP/aas.want"
same "--weight samples twice" "$TMP/aas.want" "$TMP/out"
# speedscope: one profile per thread of each input
t2f -f speedscope "$a" >"$TMP/a.json" 2>/dev/null
expect 0 "speedscope of two inputs" -f speedscope "$a" "$a"
n1=$(grep -o '"type":"sampled"' "$TMP/a.json" | wc -l)
n2=$(grep -o '"type":"sampled"' "$TMP/out" | wc -l)
if [ "$n2" -eq $((2 * n1)) ] && [ "$n1" -gt 0 ]; then ok; else bad "speedscope of a twice: $n2 profiles, want $((2 * n1))"; fi
# a bad input fails the whole merge, and nothing is written
expect 1 "merge with a bad input" -o "$TMP/bad.folded" "$a" bad_binary.txt "$b"
if [ -e "$TMP/bad.folded" ]; then bad "a failed merge wrote its output"; else ok; fi

# --- --each -------------------------------------------------------------------------------------
d=$TMP/each
mkdir "$d"
expect 0 "--each" --each -o "$d" "$a" "$b"
same "--each output of $a" "$TMP/a.folded" "$d/burner.perf.folded"
same "--each output of $b" "$TMP/b.folded" "$d/cxxwork.perf.folded"
list=$(ls -A "$d" | tr '\n' ' ')
if [ "$list" = "burner.perf.folded cxxwork.perf.folded " ]; then ok; else bad "--each wrote: $list"; fi

rm -f "$d"/*
expect 1 "--each with a bad input" --each -o "$d" "$a" bad_binary.txt "$b" &&
	stderr_has "--each with a bad input" '^trace2flame: bad_binary\.txt:[0-9]+: '
same "--each, bad input: $a still written" "$TMP/a.folded" "$d/burner.perf.folded"
same "--each, bad input: $b still written" "$TMP/b.folded" "$d/cxxwork.perf.folded"
list=$(ls -A "$d" | tr '\n' ' ')
if [ "$list" = "burner.perf.folded cxxwork.perf.folded " ]; then ok; else bad "--each with a bad input wrote: $list"; fi

rm -f "$d"/*
# with --each, the worst exit of its inputs: a missing input is an I/O failure (3), as alone
expect 3 "a missing input alone" -o "$TMP/alone.folded" no-such-file.txt
expect 3 "--each with a missing input" --each -o "$d" "$a" no-such-file.txt "$b" &&
	stderr_has "--each with a missing input" '^trace2flame: no-such-file\.txt: '
same "--each, missing input: $b still written" "$TMP/b.folded" "$d/cxxwork.perf.folded"

rm -f "$d"/*
expect 0 "--each -f speedscope" --each -f speedscope -o "$d" "$a" "$b"
for x in burner cxxwork; do
	file_has "--each speedscope $x" "$d/$x.perf.speedscope.json" "^\\{.*\"name\":\"$x\\.perf\\.txt\""
done

expect 3 "--each into a missing directory" --each -o "$TMP/no-such-dir" "$a"
expect 3 "--each into a file" --each -o "$TMP/a.folded" "$a"

finish
