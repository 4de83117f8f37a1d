#!/bin/sh
# libtrace2flame.so exports exactly the functions include/trace2flame.h declares T2F_API, and
# pipeline/libtrace2flame.map lists the same set: a declaration missing from the map (not
# exported), a function defined without its T2F_API declaration in scope (hidden), or any other
# symbol made visible fails. Every function has the version of a node named
# TRACE2FLAME_MAJOR.MINOR, none newer than the header's T2F_VERSION_MAJOR.MINOR, the first
# release's functions TRACE2FLAME_0.1's. Also checks the SONAME (libtrace2flame.so.MAJOR).
# usage: sh tests/lib/exports.sh LIBTRACE2FLAME.so
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
if [ $# -ne 1 ]; then
	echo "usage: $0 LIBTRACE2FLAME.so" >&2
	exit 2
fi
SRC=${T2F_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
TEST_NAME=exports
make_tmp
header=$SRC/include/trace2flame.h
map=$SRC/pipeline/libtrace2flame.map

# "T2F_API TYPE NAME(" (the arguments may go on over more lines): NAME
sed -n 's/^T2F_API[^(]*[^A-Za-z0-9_]\([A-Za-z_][A-Za-z0-9_]*\)(.*/\1/p' "$header" | sort >"$TMP/header"
n=$(grep -c '^T2F_API' "$header")
[ "$n" -gt 0 ] && [ "$(wc -l <"$TMP/header")" -eq "$n" ] && ok ||
	bad "$header: $n lines start with T2F_API, $(wc -l <"$TMP/header") function names read from them"
# the names between each node's "global:" and its "local:" or "}"; the version nodes ("NAME {")
awk '/^[ \t]*global:/ { g = 1; next } /^[ \t]*(local:|})/ { g = 0 }
	g && /;/ { sub(/;.*/, ""); gsub(/[ \t]/, ""); if ($0 != "") print }' "$map" | sort >"$TMP/map"
sed -n 's/^\([A-Za-z_][A-Za-z0-9_.]*\)[ \t]*{.*/\1/p' "$map" >"$TMP/nodes"
# the defined dynamic symbols without their version, the version nodes' own symbols left out
nm -D --defined-only "$1" >"$TMP/nm" || bad "nm -D $1 failed"
awk 'NR == FNR { node[$1] = 1; next } { sub(/@.*/, "", $3) } !($3 in node) { print $3 }' \
	"$TMP/nodes" "$TMP/nm" | sort >"$TMP/so"

# differ A B WHAT-A WHAT-B: one failure per name in one of the lists only
differ() {
	if cmp -s "$1" "$2"; then
		ok
		return
	fi
	comm -23 "$1" "$2" | while read -r f; do echo "FAIL $f: $3, not $4"; done
	comm -13 "$1" "$2" | while read -r f; do echo "FAIL $f: $4, not $3"; done
	bad "$3 and $4 differ"
}
differ "$TMP/header" "$TMP/so" "declared T2F_API in include/trace2flame.h" "exported by $(basename "$1")"
differ "$TMP/header" "$TMP/map" "declared T2F_API in include/trace2flame.h" "global in pipeline/libtrace2flame.map"

# the header's version; the nodes: TRACE2FLAME_MAJOR.MINOR, the first one the first release's,
# each after the one before and none past the header's version
ver() { sed -n "s/^#define T2F_VERSION_$1 \([0-9][0-9]*\)\$/\1/p" "$header"; }
major=$(ver MAJOR) minor=$(ver MINOR)
first=TRACE2FLAME_0.1
[ "$(head -n 1 "$TMP/nodes")" = "$first" ] && ok ||
	bad "$map: the first node is '$(head -n 1 "$TMP/nodes")', not $first"
prev=
while read -r node; do
	case $node in
	TRACE2FLAME_[0-9]*.[0-9]*) ;;
	*)
		bad "$map: node $node is not TRACE2FLAME_MAJOR.MINOR"
		continue
		;;
	esac
	v=${node#TRACE2FLAME_}
	if [ "${v%.*}" -gt "$major" ] || { [ "${v%.*}" -eq "$major" ] && [ "${v#*.}" -gt "$minor" ]; }; then
		bad "$map: node $node is newer than the header's version $major.$minor"
	elif [ -n "$prev" ] && ! printf '%s\n%s\n' "$prev" "$v" | sort -C -t. -k1,1n -k2,2n; then
		bad "$map: node $node comes after $prev"
	else
		ok
	fi
	prev=$v
done <"$TMP/nodes"
# each exported function's version is one of the nodes
awk 'NR == FNR { node[$1] = 1; next } $2 == "A" { next }
	{ n = split($3, a, "@+"); if (n < 2 || !(a[n] in node)) print $3 }' \
	"$TMP/nodes" "$TMP/nm" >"$TMP/unversioned"
[ ! -s "$TMP/unversioned" ] && ok ||
	bad "exported without a TRACE2FLAME_ version: $(head -n 3 "$TMP/unversioned" | tr '\n' ' ')"

soname=$(readelf -d "$1" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "libtrace2flame.so.$major" ] && ok ||
	bad "SONAME '$soname', want libtrace2flame.so.$major"
finish
