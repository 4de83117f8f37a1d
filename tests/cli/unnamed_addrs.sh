#!/bin/sh
# Frames keep their address only where an output shows it. perf script text with --buildids
# and --kallsyms: each of K = 5 samples has a kernel frame at its own address of one function of
# the kallsyms file (named "kfn" there), called from its own address at the start of the text
# of a library built here whose functions there are hidden and which is then stripped (looked
# up in its dynamic symbols, none found: "[unnamed.so]"), called from main of a program built
# with -g (so the inline stage runs and rebuilds the stacks). Folded output shows one stack, and
# the --stats model holds one frame for kfn and one for the library: K - 1 frames fewer than
# with --addrs, which shows each library address (K lines, 2 (K - 1) more nodes), and
# 2 (K - 1) frames fewer than pprof, which gives each address its location. 2K addresses are
# looked up, K named, either way.
# usage: sh tests/cli/unnamed_addrs.sh TRACE2FLAME
. "$(dirname "$0")/common.sh"

for tool in cc strip readelf; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "$TEST_NAME: $tool not found: skipped"
		exit 0
	fi
done
export DEBUGINFOD_URLS='' T2F_CACHE_DIR="$TMP/cache"
k=5
cat >"$TMP/lib.c" <<'EOF'
__attribute__((visibility("hidden"))) int f1(int x) { return x * 3 + 1; }
__attribute__((visibility("hidden"))) int f2(int x) { return f1(x) ^ 0x55; }
__attribute__((visibility("hidden"))) int f3(int x) { return f2(x) + f1(x); }
int (*volatile keep[])(int) = { f1, f2, f3 };
int exported(int x) { return keep[x & 1](x); }
EOF
echo 'int main(void) { return 0; }' >"$TMP/main.c"
cc -O0 -g -Wl,--build-id=sha1 -o "$TMP/prog" "$TMP/main.c" &&
	cc -O0 -shared -fPIC -Wl,--build-id=sha1 -o "$TMP/unnamed.so" "$TMP/lib.c" &&
	strip --strip-all "$TMP/unnamed.so" || { bad "cc or strip failed"; finish; }
id_of() { readelf -n "$1" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p'; }
printf '%s %s\n%s %s\n' "$(id_of "$TMP/prog")" "$TMP/prog" "$(id_of "$TMP/unnamed.so")" \
	"$TMP/unnamed.so" >"$TMP/ids"
# main's address (cc puts it in a segment whose addresses are its file offsets; were main not
# placed there, no stack would be rebuilt and the counts below would fail) and the file offset
# of the library's .text
main_off=$(readelf -sW "$TMP/prog" | awk '$8 == "main" { print $2; exit }')
text_off=$(readelf -SW "$TMP/unnamed.so" |
	sed -n 's/.* \.text  *PROGBITS  *[0-9a-f]*  *\([0-9a-f]*\) .*/\1/p')
if [ -z "$main_off" ] || [ -z "$text_off" ]; then
	bad "no main in prog or no .text in unnamed.so"
	finish
fi
printf 'ffffffff81000000 T _stext\nffffffff81000000 T kfn\nffffffff81001000 T kend\n' \
	>"$TMP/kallsyms"
in=$TMP/in.perf.txt
i=0
while [ "$i" -lt "$k" ]; do
	printf 'prog   100     1.%06d:     1000 cpu-clock: \n' "$i"
	printf '\tffffffff810000%02x [unknown] ([kernel.kallsyms])\n' $((16 + 4 * i))
	printf '\t%16x [unknown] (%s/unnamed.so)\n' $((0x$text_off + 4 * i)) "$TMP"
	printf '\t%16x main+0x4 (%s/prog)\n\n' $((0x$main_off + 4)) "$TMP"
	i=$((i + 1))
done >"$in"

# model WHAT: the --stats frames and stack nodes of the last run, "FRAMES NODES"
model() {
	printf '%s %s' "$(sed -n 's/^  frames: //p' "$TMP/err")" \
		"$(sed -n 's/^  stack nodes: //p' "$TMP/err")"
}
run() {
	_what=$1
	shift
	expect 0 "$_what" --stats --offline --buildids "$TMP/ids" --kallsyms "$TMP/kallsyms" "$@" ||
		finish
	stderr_has "$_what: each address looked up" \
		"^resymbolized frames: $k of $((2 * k)) looked up resolved\$"
	stderr_has "$_what: none found" "^  $TMP/unnamed\.so: 0 resolved, $k unresolved, not found $k\$"
}
run folded -o "$TMP/a.folded" "$in"
model >"$TMP/a.model"
run "folded --addrs" --addrs -o "$TMP/b.folded" "$in"
model >"$TMP/b.model"
read -r frames nodes <"$TMP/a.model"
want="$((frames + k - 1)) $((nodes + 2 * (k - 1)))"
[ "$(cat "$TMP/b.model")" = "$want" ] && ok ||
	bad "frames and nodes: $frames $nodes, with --addrs $(cat "$TMP/b.model") (want $want)"
run pprof -o "$TMP/c.pb.gz" "$in"
want="$((frames + 2 * (k - 1))) $((nodes + 2 * (k - 1)))"
[ "$(model)" = "$want" ] && ok || bad "pprof's frames and nodes: $(model), want $want"
printf 'prog;main;[unnamed.so];kfn %s\n' "$((k * 1000))" >"$TMP/want.folded"
same "folded: one line" "$TMP/want.folded" "$TMP/a.folded"
[ "$(grep -c 'unnamed\.so' "$TMP/b.folded")" = "$k" ] && ok ||
	bad "--addrs: not $k lines: $(cat "$TMP/b.folded")"
finish
